#!/usr/bin/python3
"""Run test_confine_dns (a confined console resolves a name through DNS) in
private mount and network namespaces: the loopback up, /etc/resolv.conf
bind-mounted over with one naming 127.0.0.1, and a DNS responder on
127.0.0.1:53 answering one name not in /etc/hosts. The test runs as the
console account and looks the name up before and after confining itself.
TAP (the test's own).

  run-confine-dns.py TEST_CONFINE_DNS
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

from lftest import setpriv

USER = "lockfile"
NAME = "hub.lockfile-dns.test"
ADDRESS = "192.0.2.10"		# TEST-NET-1: never routed


def bail(msg):
    print("1..1\nnot ok 1 - set-up: %s" % msg, flush=True)
    sys.exit(1)


def answer(query):
    """The reply to one query: NAME's A record, no AAAA (NOERROR, empty),
    NXDOMAIN for any other name; None for what is not a query."""
    if len(query) < 17:
        return None
    qid, flags, qd = struct.unpack("!HHH", query[:6])
    if flags & 0x8000 or qd != 1:
        return None
    labels, i = [], 12
    while i < len(query) and query[i] != 0:
        n = query[i]
        if n > 63 or i + 1 + n > len(query):
            return None
        labels.append(query[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    if i + 5 > len(query):
        return None
    qtype, _ = struct.unpack("!HH", query[i + 1:i + 5])
    question = query[12:i + 5]
    name = ".".join(labels).lower()
    rcode = 0 if name == NAME else 3
    an = b""
    if rcode == 0 and qtype == 1:
        an = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + \
            socket.inet_aton(ADDRESS)
    header = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1,
                         1 if an else 0, 0, 0)
    return header + question + an


def responder(sock):
    while True:
        try:
            data, peer = sock.recvfrom(512)
        except OSError:
            return
        reply = answer(data)
        if reply is not None:
            sock.sendto(reply, peer)


def inner(test):
    with open("/etc/hosts", encoding="utf-8", errors="replace") as f:
        if NAME in f.read().split():
            bail("%s is in /etc/hosts" % NAME)
    if not os.path.exists("/etc/resolv.conf"):
        bail("no /etc/resolv.conf to mount over")
    r = subprocess.run(["ip", "link", "set", "lo", "up"])
    if r.returncode != 0:
        bail("the loopback of the private network namespace")
    tmp = tempfile.mkdtemp(prefix="lfdns-", dir="/tmp")
    os.chmod(tmp, 0o755)
    conf = os.path.join(tmp, "resolv.conf")
    with open(conf, "w") as f:
        f.write("nameserver 127.0.0.1\noptions timeout:2 attempts:2\n")
    os.chmod(conf, 0o644)
    r = subprocess.run(["mount", "--bind", conf, "/etc/resolv.conf"])
    if r.returncode != 0:
        bail("bind mount of resolv.conf")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 53))
    threading.Thread(target=responder, args=(sock,), daemon=True).start()
    r = subprocess.run(setpriv(USER) + ["env", "-i", "PATH=/usr/bin:/bin",
                                        test, NAME, ADDRESS],
                       stdin=subprocess.DEVNULL, cwd="/", timeout=120)
    return r.returncode


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--inner":
        return inner(sys.argv[2])
    if len(sys.argv) != 2:
        print("usage: run-confine-dns.py TEST_CONFINE_DNS", file=sys.stderr)
        return 64
    # The mounts and the network namespace end with the process.
    r = subprocess.run(["unshare", "--mount", "--net", "--propagation",
                        "private", sys.executable, os.path.abspath(__file__),
                        "--inner", sys.argv[1]], timeout=180)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
