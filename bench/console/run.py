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

  fair       (--fair, or --only fair) 32 honest agents (uid agent), each
             running `lockfile status` back to back, in phases with and
             without one hostile agent (uid lf-allowed, allowed by the
             policy) that keeps requests in flight on many connections;
             phases alternate in the same run. Prints the honest agents'
             p50/p99 per phase, their ratio (target: p99 with the hostile
             agent <= 2x without) and how many answered `busy` (target 0:
             no plan waits). docs/console.md, "Serving".
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


def console(build, **policy):
    env = ConsoleEnv(build=build)
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    env.write_policy(idle_timeout_s=3600, **policy)
    env.start()
    return env


# As the agent: NAGENTS threads, each running `lockfile status` CALLS times
# back to back; prints "<seconds> <exit status>" per call.
HONEST = r"""
import subprocess, sys, threading, time
lf, sock, nagents, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
out, lock = [], threading.Lock()
def agent():
    for _ in range(calls):
        t0 = time.perf_counter()
        r = subprocess.run([lf, "status", "--socket", sock],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with lock:
            out.append("%.6f %d" % (time.perf_counter() - t0, r.returncode))
ts = [threading.Thread(target=agent) for _ in range(nagents)]
for t in ts: t.start()
for t in ts: t.join()
print("\n".join(out))
"""

# As the hostile agent: NCONN connections, each keeping DEPTH status
# requests in flight, until stdin closes; prints "ANSWERS n" per line read
# from stdin and at the end.
HOSTILE = r"""
import selectors, socket, sys
path, nconn, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
req = b'{"jsonrpc":"2.0","id":1,"method":"status"}\n'
sel = selectors.DefaultSelector()
conns, n = [], 0
def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(req * depth)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, b"")
    conns.append(s)
for _ in range(nconn):
    connect()
sel.register(sys.stdin, selectors.EVENT_READ, None)
live = True
while live:
    for key, _ in sel.select(timeout=1):
        if key.data is None:
            if not sys.stdin.readline():
                live = False
                break
            sys.stdout.write("ANSWERS %d\n" % n)
            sys.stdout.flush()
            continue
        s = key.fileobj
        try:
            b = s.recv(65536)
        except OSError:
            b = b""
        if not b:
            # closed by the console (its caps, its timers): a new one
            sel.unregister(s)
            conns.remove(s)
            s.close()
            connect()
            continue
        k = b.count(b"\n")
        n += k
        if k:
            try:
                s.setblocking(True)
                s.sendall(req * k)
                s.setblocking(False)
            except OSError:
                pass
sys.stdout.write("ANSWERS %d\n" % n)
sys.stdout.flush()
"""


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p / 100.0))]


def honest_phase(env, nagents, calls):
    r = as_user("agent", ["/usr/bin/python3", "-c", HONEST, env.binary,
                          env.socket, str(nagents), str(calls)], timeout=900)
    if r.returncode != 0:
        raise RuntimeError("honest agents: %r" % r.stderr)
    secs, busy = [], 0
    for line in r.stdout.decode().splitlines():
        t, rc = line.split()
        secs.append(float(t))
        busy += int(rc) == 3
    return secs, busy


def hostile_start(env, nconn, depth):
    """lf-allowed is allowed by uid, not in the clients group: it reaches
    the socket with CAP_DAC_OVERRIDE, as root in an agent container would
    (tests/e2e/lfenv.py rpc_as_peer)."""
    return subprocess.Popen(
        ["setpriv", "--reuid=lf-allowed", "--regid=lf-allowed",
         "--clear-groups", "--inh-caps=+dac_override",
         "--ambient-caps=+dac_override", "env", "-i", "PATH=/usr/bin:/bin",
         "/usr/bin/python3", "-c", HOSTILE, env.socket, str(nconn),
         str(depth)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/")


def hostile_answers(p):
    p.stdin.write(b"x\n")
    p.stdin.flush()
    return int(p.stdout.readline().split()[1])


def fair(build, rounds, nagents, calls, nconn, depth):
    from lfenv import uid_of
    env = console(build, allowed_uids=[uid_of("lf-allowed")])
    res = {"without": [], "with": []}
    busy = {"without": 0, "with": 0}
    hostile_got = []
    try:
        for i in range(rounds):
            order = ("without", "with") if i % 2 == 0 else ("with", "without")
            for phase in order:
                p = None
                if phase == "with":
                    p = hostile_start(env, nconn, depth)
                    t0 = time.monotonic()
                    while hostile_answers(p) < 100:
                        if time.monotonic() - t0 > 30:
                            raise RuntimeError("the hostile agent was "
                                               "never served")
                        time.sleep(0.05)
                    a0 = hostile_answers(p)
                try:
                    t0 = time.monotonic()
                    secs, b = honest_phase(env, nagents, calls)
                    took = time.monotonic() - t0
                finally:
                    if p is not None:
                        a1 = hostile_answers(p)
                        p.stdin.close()
                        p.wait(timeout=30)
                if p is not None:
                    hostile_got.append((a1 - a0) / took)
                res[phase] += secs
                busy[phase] += b
    finally:
        env.cleanup()
    print("fair: %d agents x %d `lockfile status`, %d rounds; hostile: %d "
          "connections x %d in flight" % (nagents, calls, rounds, nconn,
                                          depth))
    for ph in ("without", "with"):
        print("  %-8s hostile: p50 %s  p99 %s  busy %d of %d" % (
            ph, ms(pct(res[ph], 50)), ms(pct(res[ph], 99)), busy[ph],
            len(res[ph])))
    ratio = pct(res["with"], 99) / pct(res["without"], 99)
    print("  hostile agent served %.0f requests/s meanwhile" %
          statistics.median(hostile_got))
    print("  p99 with/without: %.2fx (target <= 2x: %s); busy: %d "
          "(target 0: %s)" % (ratio, "met" if ratio <= 2 else "MISSED",
                               busy["with"] + busy["without"],
                               "met" if busy["with"] + busy["without"] == 0
                               else "MISSED"))
    return ratio <= 2 and busy["with"] + busy["without"] == 0


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
    ap.add_argument("--only", choices=("all", "fair", "connection"),
                    default="all")
    ap.add_argument("--fair-rounds", type=int, default=3)
    ap.add_argument("--fair-agents", type=int, default=32)
    ap.add_argument("--fair-calls", type=int, default=10)
    ap.add_argument("--fair-conns", type=int, default=16)
    ap.add_argument("--fair-depth", type=int, default=8)
    a = ap.parse_args()
    if a.only in ("all", "fair"):
        ok = fair(os.path.abspath(a.build), a.fair_rounds, a.fair_agents,
                  a.fair_calls, a.fair_conns, a.fair_depth)
        if a.only == "fair":
            raise SystemExit(0 if ok else 1)
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
