#!/usr/bin/python3
"""bench/commands: the executables by role (docs/hacking.md, "Executables")
as whole commands, each beside its baseline in the same rounds, order
rotating (bench/README.md: medians and ratios, not absolute times).

    bench/commands/run.py BUILD_DIR [--rounds N] [--bwrap PATH]
        [--baseline-worker EXE [ARG]]

  version   `lockfile --version` vs a static no-op (BUILD/bench/noop-plugin,
            which writes "1" and exits): target at most 1.5x
  sandbox   `lockfile sandbox-run NOOP INPUT` (the agent's lockfile, the
            exec of lockfile-sandbox-run, the sandboxed no-op) and
            lockfile-sandbox-run alone, vs `bwrap --unshare-all ... NOOP`:
            target bwrap at least 3x the whole command
  worker    a parser worker's start as the console makes one for a new peer
            uid: spawned with only its socket on fd 3 and an empty
            environment, one `status` line sent behind a nonce, up to its
            answer; vs the static no-op spawned and reaped the same way.
            --baseline-worker adds another worker executable (an earlier
            build's `lockfile __parse-worker`, say) to the same rounds

Runs as the console account, which the sandbox requires (as root it
re-executes itself through setpriv, as bench/run-all does).
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REQUEST_NONCE_LEN = 16
LINE = b'{"jsonrpc":"2.0","id":1,"method":"status"}'


def as_console():
    if os.getuid() == 0:
        os.execvp("setpriv", ["setpriv", "--reuid=lockfile",
                              "--regid=lockfile", "--init-groups",
                              sys.executable] + sys.argv)


def whole(argv):
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d" % (" ".join(argv), r.returncode))
    return dt


def spawn_fd3(argv, sock):
    """argv with only sock on fd 3 and an empty environment, as the
    console spawns a parser worker."""
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={}, close_fds=False,
                            preexec_fn=lambda: os.dup2(sock.fileno(), 3))


def spawn_once(argv, ask):
    """Seconds from the spawn of argv (spawn_fd3) to the answer of its
    first line when ask, else to its exit."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with a, b:
        t0 = time.perf_counter()
        p = spawn_fd3(argv, b)
        if ask:
            a.send(os.urandom(REQUEST_NONCE_LEN) + LINE)
            a.settimeout(5)
            ans = a.recv(65536)
        else:
            p.wait()
        dt = time.perf_counter() - t0
    p.wait()
    if ask and not ans:
        raise RuntimeError("%s: no answer" % " ".join(argv))
    return dt


def worker_once(argv):
    """A parser worker: time to the answer of its first line."""
    return spawn_once(argv, True)


def noop_once(argv):
    """The same spawn of a static no-op, up to its exit."""
    return spawn_once(argv, False)


def rounds(named, n):
    """named: [(label, fn)]; every round runs each once, order rotating.
    Returns {label: median seconds}."""
    times = {k: [] for k, _ in named}
    for k, fn in named:     # warm the page cache and the loader
        fn()
    for r in range(n):
        order = named[r % len(named):] + named[:r % len(named)]
        for k, fn in order:
            times[k].append(fn())
    return {k: statistics.median(v) for k, v in times.items()}


def report(title, med, base, target=None, faster=None):
    print("# %s" % title)
    for k, v in med.items():
        print("  %-44s %8.3f ms  %5.2fx %s" % (k, v * 1e3, v / med[base],
                                              "(baseline)" if k == base else
                                              ""))
    return med


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--bwrap", default="/usr/bin/bwrap")
    ap.add_argument("--baseline-worker", nargs="+")
    a = ap.parse_args()
    as_console()
    b = os.path.abspath(a.build)
    lf, noop = os.path.join(b, "lockfile"), os.path.join(b, "bench",
                                                           "noop-plugin")
    sr = os.path.join(b, "lockfile-sandbox-run")
    worker = os.path.join(b, "lockfile-parse-worker")
    ok = True
    with tempfile.NamedTemporaryFile(prefix="lf-bench-in-") as inp:
        inp.write(b"x\n")
        inp.flush()
        os.chmod(inp.name, 0o644)

        med = rounds([("lockfile --version", lambda: whole([lf, "--version"])),
                      ("static no-op", lambda: whole([noop]))], a.rounds)
        report("version: the agent's lockfile starting", med, "static no-op")
        r = med["lockfile --version"] / med["static no-op"]
        print("  lockfile --version / static no-op = %.2fx (target <= 1.5x: %s)"
              % (r, "met" if r <= 1.5 else "MISSED"))

        named = [("lockfile sandbox-run", lambda: whole(
                     [lf, "sandbox-run", noop, inp.name])),
                 ("lockfile-sandbox-run", lambda: whole([sr, noop, inp.name]))]
        if os.access(a.bwrap, os.X_OK):
            named.append(("bwrap", lambda: whole(
                [a.bwrap, "--unshare-all", "--die-with-parent",
                 "--new-session", "--clearenv", "--ro-bind", noop, "/plugin",
                 "/plugin"])))
        med = rounds(named, a.rounds)
        report("sandbox: one sandboxed no-op, as a whole command", med,
               "lockfile sandbox-run")
        if "bwrap" in med:
            r = med["bwrap"] / med["lockfile sandbox-run"]
            print("  bwrap / lockfile sandbox-run = %.2fx (target >= 3x: %s)"
                  % (r, "met" if r >= 3 else "MISSED"))
            print("  bwrap / lockfile-sandbox-run = %.2fx"
                  % (med["bwrap"] / med["lockfile-sandbox-run"]))
        else:
            print("  no bwrap at %s: its ratio is not measured" % a.bwrap)
            ok = False

        named = [("lockfile-parse-worker, to its first answer",
                  lambda: worker_once([worker])),
                 ("static no-op, spawned and reaped",
                  lambda: noop_once([noop]))]
        if a.baseline_worker:
            bw = list(a.baseline_worker)
            named.append(("baseline worker %s" % " ".join(
                os.path.basename(x) for x in bw), lambda: worker_once(bw)))
        med = rounds(named, a.rounds)
        report("worker: a new peer's parser worker", med,
               "static no-op, spawned and reaped")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
