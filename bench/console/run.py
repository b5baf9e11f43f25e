#!/usr/bin/python3
"""bench/console: what a connection costs, whole commands as the agent runs
them (bench/README.md: ratios, not absolute times).

    bench/console/run.py BUILD_DIR [--baseline BUILD_DIR] [--rounds N]

The console gives every connection a parser worker of its own (a fresh exec
of the lockfile binary, confined before it reads a byte; the next one is
started ahead, between connections). What that costs shows in a command
that makes one connection: `lockfile status`, run as the agent against a
real console (tests/e2e/lfenv.py: the console account, its own terminal,
/proc hidepid).

  status     `lockfile status --socket S` as the agent, whole process
  connect    one raw connection, one status request, its answer (20 ms
             apart: the console has ended the last one)
  burst      the same, connections back to back (the next worker's start
             is in the way)
  request    one more status request on a connection already open

With --baseline, a second console from that build (e.g. one from before a
change) runs beside the first and every measurement alternates between the
two, round after round; the ratios now/baseline are printed. Runs as root
(it starts the consoles as their accounts).
"""
import argparse
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

from lfenv import ConsoleEnv, as_user  # noqa: E402

# As the agent: ROUNDS times, one connection with one status (connect), and
# on one connection kept open, one status each (request); prints the
# seconds of each, one measurement per line.
RAW = r"""
import socket, sys, time
path, n = sys.argv[1], int(sys.argv[2])
req = b'{"jsonrpc":"2.0","id":1,"method":"status"}\n'

def ask(s):
    s.sendall(req)
    buf = b""
    while b"\n" not in buf:
        b = s.recv(65536)
        if not b:
            raise SystemExit("closed")
        buf += b

for gap, name in ((0.02, "connect"), (0, "burst")):
    for _ in range(n):
        t0 = time.perf_counter()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        ask(s)
        t1 = time.perf_counter()
        s.close()
        print("%s %.6f" % (name, t1 - t0))
        # connect: the console has ended the connection (and started the
        # next worker) before the next one; burst: back to back
        time.sleep(gap)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
for _ in range(n):
    t0 = time.perf_counter()
    ask(s)
    print("request %.6f" % (time.perf_counter() - t0))
"""


def console(build):
    env = ConsoleEnv(build=build)
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.write_policy(idle_timeout_s=3600)
    env.start()
    return env


def timed_status(env):
    t0 = time.perf_counter()
    r = as_user("agent", [env.binary, "status", "--socket", env.socket])
    secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("lockfile status: %r" % r.stdout)
    return secs


def raw(env, n):
    r = as_user("agent", ["/usr/bin/python3", "-c", RAW, env.socket, str(n)],
                timeout=600)
    if r.returncode != 0:
        raise RuntimeError("raw client: %r" % r.stderr)
    out = {"connect": [], "burst": [], "request": []}
    for line in r.stdout.decode().splitlines():
        k, v = line.split()
        out[k].append(float(v))
    return out


def ms(x):
    return "%.2f ms" % (x * 1000)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--baseline")
    ap.add_argument("--rounds", type=int, default=200)
    a = ap.parse_args()
    envs = [("now", console(os.path.abspath(a.build)))]
    if a.baseline:
        envs.append(("baseline", console(os.path.abspath(a.baseline))))
    try:
        res = {name: {"status": [], "connect": [], "burst": [],
                      "request": []}
               for name, _ in envs}
        for i in range(a.rounds):
            order = envs if i % 2 == 0 else envs[::-1]
            for name, env in order:
                res[name]["status"].append(timed_status(env))
        # the raw measurements in blocks, alternating too
        block = 50
        for i in range(max(1, a.rounds // block)):
            order = envs if i % 2 == 0 else envs[::-1]
            for name, env in order:
                r = raw(env, block)
                for k in ("connect", "burst", "request"):
                    res[name][k] += r[k]
        med = {name: {k: statistics.median(v) for k, v in d.items()}
               for name, d in res.items()}
        print("%d rounds" % a.rounds)
        cols = ("status", "connect", "burst", "request")
        print("%-10s" % "" + "".join("%12s" % c for c in cols))
        for name, _ in envs:
            print("%-10s" % name + "".join("%12s" % ms(med[name][c])
                                           for c in cols))
        if a.baseline:
            n, b = med["now"], med["baseline"]
            print("ratio now/baseline: " + ", ".join(
                "%s %.2fx" % (c, n[c] / b[c]) for c in cols))
    finally:
        for _, env in envs:
            env.cleanup()


if __name__ == "__main__":
    main()
