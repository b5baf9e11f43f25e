"""One connection against the console's clock: a connection that never
pauses must not outlive the session or hold off a SIGTERM, and a request
already begun behind an answer keeps the full read allowance
(docs/protocol.md). Every answer is gated on the closed list."""
import grp
import json
import os
import pwd
import signal
import subprocess
import threading
import time

import pytest

from conftest import make_pdf
from lfenv import ConsoleEnv, as_user, check_reply, uid_of

# As the agent: one connection, back-to-back status requests for up to
# SECS seconds; prints each answer line, then "END <seconds>".
BUSY_AGENT = r"""
import socket, sys, time
path, secs, gap = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(path)
t0 = time.monotonic(); n = 0; buf = b""
try:
    while time.monotonic() - t0 < secs:
        n += 1
        s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"status"}\n' % n)
        while b"\n" not in buf:
            b = s.recv(65536)
            if not b:
                raise EOFError
            buf += b
        line, buf = buf.split(b"\n", 1)
        sys.stdout.write(line.decode() + "\n")
        time.sleep(gap)
except (OSError, EOFError):
    pass
sys.stdout.write("END %.2f\n" % (time.monotonic() - t0))
"""

# As the agent: one request and the first bytes of a second in one write,
# the rest of the second after DELAY seconds; prints what came back.
SPLIT_AGENT = r"""
import socket, sys, time
path, delay = sys.argv[1], float(sys.argv[2])
r2 = b'{"jsonrpc":"2.0","id":2,"method":"status"}\n'
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(path)
s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n' + r2[:10])
time.sleep(delay)
try:
    s.sendall(r2[10:])
except OSError:
    pass
out = b""
try:
    while out.count(b"\n") < 2:
        b = s.recv(65536)
        if not b:
            break
        out += b
except OSError:
    pass
sys.stdout.write(out.decode())
"""

STATUS = {"jsonrpc": "2.0", "id": 1, "method": "status"}


@pytest.fixture
def env():
    e = ConsoleEnv()
    yield e
    e.cleanup()


def start(env, **policy):
    env.add_local_profile("invoices", prefix="2024/",
                          files={"2024/a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy(answer_quantum_s=1, **policy)
    env.start()


def busy_agent(env, secs, gap, box):
    r = as_user("agent", ["/usr/bin/python3", "-c", BUSY_AGENT, env.socket,
                          str(secs), str(gap)], timeout=secs + 30)
    box["out"] = r.stdout.decode()


def answers(env, out):
    """The answer lines (each gated on the closed list) and the END time."""
    lines = out.splitlines()
    assert lines and lines[-1].startswith("END "), out
    for i, l in enumerate(lines[:-1]):
        req = dict(STATUS, id=i + 1)
        assert check_reply(req, l + "\n", env.build) == "result", l
    return lines[:-1], float(lines[-1].split()[1])


def test_busy_connection_does_not_outlive_the_session(env):
    start(env, session_timeout_s=10, idle_timeout_s=10)
    t0 = time.monotonic()
    box = {}
    th = threading.Thread(target=busy_agent, args=(env, 30, 0.05, box))
    th.start()
    env.wait_exit(timeout=25)
    gone = time.monotonic() - t0
    th.join()
    got, end = answers(env, box["out"])
    assert len(got) > 20            # it really was served back to back
    assert gone < 16, "console lived %.1fs past a 10 s session" % gone
    assert end < 17                 # and the agent's connection ended with it
    assert "session timeout" in env.screen()
    assert env.work_entries() == []


def test_sigterm_ends_a_busy_connection(env):
    start(env)
    box = {}
    th = threading.Thread(target=busy_agent, args=(env, 30, 0.05, box))
    th.start()
    time.sleep(2)
    t_sig = time.monotonic()
    env.signal(signal.SIGTERM)
    env.wait_exit(timeout=15)
    took = time.monotonic() - t_sig
    th.join()
    got, end = answers(env, box["out"])
    assert len(got) > 5
    assert took < 3, "SIGTERM took %.1fs against a busy connection" % took
    assert end < 10
    assert env.work_entries() == []


def test_request_begun_behind_an_answer_is_served(env):
    start(env)
    r = as_user("agent", ["/usr/bin/python3", "-c", SPLIT_AGENT, env.socket,
                          "0.4"], timeout=40)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 2, r.stdout
    for i, l in enumerate(lines):
        assert check_reply(dict(STATUS, id=i + 1), l + "\n",
                           env.build) == "result"
        assert json.loads(l)["id"] == i + 1


# As a peer: connect, wait for a line on stdin, send one status, print the
# answer, then hold the connection until stdin closes.
HOLD_PEER = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
sys.stdin.readline()
s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n')
buf = b""
while b"\n" not in buf:
    buf += s.recv(65536)
sys.stdout.write(buf.decode())
sys.stdout.flush()
sys.stdin.read()
"""


def workers(env):
    """{pid: context switches} of the console's parser workers (its
    children running lockfile-parse-worker), seen as root from outside its
    namespace: a worker blocked in recv() switches once per line it
    reads, the others not at all."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            if ppid != env.console_pid or argv[:1] != [b"lockfile-parse-worker"]:
                continue
            with open("/proc/%s/status" % pid) as f:
                st = dict(l.split(":", 1) for l in f.read().splitlines())
            found[int(pid)] = int(st["voluntary_ctxt_switches"])
        except (OSError, IndexError, ValueError, KeyError):
            continue
    return found


def reader_of_one_status(env, user):
    """Which worker read this peer's request: the one whose read count
    moved (or that appeared) while the request was answered."""
    pw = pwd.getpwnam(user)
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
            "--init-groups", "--inh-caps=+dac_override",
            "--ambient-caps=+dac_override", "env", "-i", "PATH=/usr/bin:/bin",
            "/usr/bin/python3", "-c", HOLD_PEER, env.socket]
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         cwd="/")
    try:
        time.sleep(0.2)                 # connected and accepted
        before = workers(env)
        p.stdin.write(b"go\n")
        p.stdin.flush()
        line = p.stdout.readline()
        assert check_reply(STATUS, line, env.build) == "result"
        after = workers(env)
    finally:
        p.stdin.close()
        p.wait(timeout=10)
    moved = [w for w, n in after.items() if n > before.get(w, -1)]
    assert len(moved) == 1, (before, after)
    return moved[0]


def test_each_peer_has_its_own_parser_worker(env):
    """A worker that one agent's bytes compromised must never see another
    agent's requests (nor answer them): the lines of two peer uids are
    read by two workers; a peer's next connection goes to its own worker
    again (the console before this ran one worker for every peer)."""
    start(env, allowed_uids=[uid_of("lf-allowed")])
    a1 = reader_of_one_status(env, "agent")
    b1 = reader_of_one_status(env, "lf-allowed")
    a2 = reader_of_one_status(env, "agent")
    assert a1 != b1, "one worker read both peers' requests"
    assert a2 == a1
    assert b1 in workers(env)


# As the agent: NCONN connections, each keeping DEPTH status requests in
# flight (a new one written as each answer comes), until stdin closes;
# prints "ANSWERS <n>" each time it sees a line "mark" on stdin and at
# the end, so the test learns how many answers it had got by then.
PIPELINING_AGENT = r"""
import os, selectors, socket, sys
path, nconn, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
req = b'{"jsonrpc":"2.0","id":1,"method":"status"}\n'
sel = selectors.DefaultSelector()
conns = []
for _ in range(nconn):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(req * depth)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, b"")
    conns.append(s)
sel.register(sys.stdin, selectors.EVENT_READ, None)
n = 0
bufs = {s: b"" for s in conns}
live = True
while live and conns:
    for key, _ in sel.select(timeout=30):
        if key.data is None:
            line = sys.stdin.readline()
            if not line:
                live = False
                break
            sys.stdout.write("ANSWERS %d\n" % n)
            sys.stdout.flush()
            continue
        s = key.fileobj
        try:
            b = s.recv(65536)
        except BlockingIOError:
            continue
        if not b:
            sel.unregister(s)
            conns.remove(s)
            continue
        bufs[s] += b
        k = bufs[s].count(b"\n")
        if k:
            n += k
            bufs[s] = bufs[s].rsplit(b"\n", 1)[1]
            s.setblocking(True)
            s.sendall(req * k)
            s.setblocking(False)
sys.stdout.write("ANSWERS %d\n" % n)
sys.stdout.flush()
"""


def test_second_uid_served_while_first_pipelines(env):
    """Fair serving per peer uid (docs/console.md, "Serving"): an agent
    that keeps requests in flight on several connections does not keep the
    console from another uid. The console before this served one
    connection until it paused, so lf-allowed's status waited for the
    agent to stop (it never does here: the agent stops only once
    lf-allowed has its answer, or after the peer's own 20 s)."""
    start(env, allowed_uids=[uid_of("lf-allowed")])
    pw = pwd.getpwnam("agent")
    groups = [g.gr_gid for g in grp.getgrall() if "agent" in g.gr_mem]
    hog = subprocess.Popen(
        ["/usr/bin/python3", "-c", PIPELINING_AGENT, env.socket, "4", "8"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, user=pw.pw_uid,
        group=pw.pw_gid, extra_groups=groups, cwd="/",
        env={"PATH": "/usr/bin:/bin"})
    try:
        def answers_so_far():
            hog.stdin.write(b"mark\n")
            hog.stdin.flush()
            line = hog.stdout.readline().decode()
            assert line.startswith("ANSWERS "), line
            return int(line.split()[1])
        # the agent is being served back to back before the other uid asks
        t0 = time.monotonic()
        while answers_so_far() < 200:
            assert time.monotonic() - t0 < 30, "the agent was never served"
            time.sleep(0.1)
        out, _ = env.rpc_as_peer(
            (json.dumps(STATUS) + "\n").encode(), "lf-allowed", timeout=20)
        at_answer = answers_so_far()
        time.sleep(0.5)
        after = answers_so_far()
    finally:
        hog.stdin.close()
        hog.wait(timeout=30)
    assert out, "lf-allowed got no answer while the agent pipelined"
    assert check_reply(STATUS, out, env.build) == "result"
    # the agent was still being served when, and after, lf-allowed was
    assert after > at_answer, (at_answer, after)
