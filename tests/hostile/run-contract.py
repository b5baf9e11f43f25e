#!/usr/bin/python3
"""The plugin contract, seen from outside: each case runs one contract plugin
(contract/*.c) through `lockfile sandbox-run --report` and checks the exact
outcome class, plus what must not have happened (a marker file a plugin that
must never run would create, a process that outlives its run). TAP.

  run-contract.py [--lockfile PATH] [NAME...]

--lockfile selects the binary under test (the sanitized build's, for one).
"""
import hashlib
import os
import resource
import signal
import subprocess
import sys
import time

import harness as H  # noqa: E402

CASES = []


def case(name, checks):
    def deco(fn):
        CASES.append((name, checks, fn))
        return fn
    return deco


def plugin(name):
    return os.path.join(H.HOSTILE, "c-" + name)


def sandbox(ctx, name_or_path, args=(), params=None, user=H.CONSOLE_USER,
            **popen_kw):
    rd = ctx.rd
    inp = rd.write_input(params or {})
    path = name_or_path if "/" in name_or_path else plugin(name_or_path)
    return H.finish(H.start(H.sandbox_cmd(ctx.lockfile, path, inp, args), rd,
                            user=user, **popen_kw))


def launcher_signal_state():
    """preexec_fn: a launcher that ignores SIGUSR2 and blocks SIGUSR1 and
    SIGTERM (as the console blocks what its signalfd reads); both survive
    exec, and the sandbox must reset them for the plugin. sandbox-run itself
    ignores SIGPIPE."""
    signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})


def expect(tap, res, line, outcome, desc, extra_ok=True, extra=""):
    r = res.report or {}
    ok = res.line == line and (outcome is None or r.get("outcome") == outcome)
    return tap.result(ok and extra_ok, desc, res.diag() + " " + extra)


def stat_fields(pid):
    """(ppid, session) of pid, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[1]), int(rest[3])


def children_of(ppid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = stat_fields(int(d))
            if st and st[0] == ppid:
                out.append(int(d))
    return out


def in_session(sid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = stat_fields(int(d))
            if st and st[1] == sid:
                out.append(int(d))
    return out


def wait_plugin_pid(runner, timeout=5.0):
    """The plugin's pid: the runner's child (it is its own session)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in children_of(runner.pid):
            st = stat_fields(c)
            if st and st[1] == c:
                return c
        time.sleep(0.01)
    return None


def gone(sid, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = in_session(sid)
        if not left:
            return []
        time.sleep(0.05)
    return in_session(sid)


class Ctx:
    def __init__(self, lockfile, top):
        self.lockfile = lockfile
        self.rd = H.RunDir(top)


@case("answers", 2)
def _answers(tap, ctx):
    expect(tap, sandbox(ctx, "answer-1"), "1", "answer-1", "\"1\\n\" is answer-1")
    expect(tap, sandbox(ctx, "answer-0"), "0", "answer-0", "\"0\" is answer-0")


@case("output", 2)
def _output(tap, ctx):
    expect(tap, sandbox(ctx, "overflow"), "error: output-overflow",
           "output-overflow", "4 bytes of output is output-overflow")
    expect(tap, sandbox(ctx, "bad-output"), "error: bad-output", "bad-output",
           "\"2\" is bad-output")


@case("exit", 2)
def _exit(tap, ctx):
    res = sandbox(ctx, "exit-nonzero")
    expect(tap, res, "error: exit-nonzero", "exit-nonzero",
           "1 then exit 1 is exit-nonzero",
           (res.report or {}).get("exit_code") == 1)
    res = sandbox(ctx, "crash")
    expect(tap, res, "error: signaled", "signaled",
           "1 then SIGSEGV is signaled",
           (res.report or {}).get("signal") == signal.SIGSEGV)


@case("limits", 3)
def _limits(tap, ctx):
    res = sandbox(ctx, "sleep", ["--wall", "1"])
    wall = (res.report or {}).get("wall_ms", -1)
    expect(tap, res, "error: wall-timeout", "wall-timeout",
           "sleeping forever with --wall 1 is wall-timeout",
           1000 <= wall < 4000, "wall_ms=%d" % wall)
    res = sandbox(ctx, "spin", ["--cpu", "1", "--wall", "20"])
    expect(tap, res, "error: cpu-limit", "cpu-limit",
           "a CPU spin with --cpu 1 is cpu-limit")
    res = sandbox(ctx, "membomb", ["--memory", str(64 << 20)])
    r = res.report or {}
    tap.result(not res.line.startswith(("0", "1")) and
               r.get("outcome") == "signaled" and r.get("signal") == signal.SIGSEGV,
               "a memory bomb gets no answer (--memory 64 MiB: its unchecked "
               "malloc fails, signaled)", res.diag())


@case("forkbomb", 3)
def _forkbomb(tap, ctx):
    inp = ctx.rd.write_input({})
    p = H.start(H.sandbox_cmd(ctx.lockfile, plugin("forkbomb"), inp,
                              ["--wall", "2"]), ctx.rd)
    sid = wait_plugin_pid(p)
    res = H.finish(p)
    r = res.report or {}
    tap.result(res.line.startswith("error: ") and
               r.get("outcome") in ("wall-timeout", "cpu-limit"),
               "a fork bomb gets no answer (wall-timeout)", res.diag())
    left = gone(sid, 3.0) if sid else ["plugin pid never seen"]
    tap.result(sid is not None and not left,
               "no process of the fork bomb is left afterwards",
               "session %s: left %r" % (sid, left[:10]))
    t = subprocess.run(H.as_user(H.CONSOLE_USER) + ["/bin/sh", "-c", "true"],
                       timeout=30)
    tap.result(t.returncode == 0, "the account can fork again afterwards",
               "rc=%d" % t.returncode)


@case("stderr", 1)
def _stderr(tap, ctx):
    res = sandbox(ctx, "stderr-1g", ["--wall", "60", "--cpu", "30"])
    n = (res.report or {}).get("stderr_bytes")
    expect(tap, res, "1", "answer-1",
           "1 GiB of stderr then 1: answer-1, stderr_bytes exactly 2^30",
           n == 1 << 30, "stderr_bytes=%s" % n)


def never_runs(tap, ctx, path, what):
    marker = ctx.rd.marker
    res = sandbox(ctx, path)
    expect(tap, res, "error: exec-failed", None,
           "%s: exec-failed" % what)
    tap.result(not os.path.exists(marker) and res.report is None,
               "%s: never ran (no marker, no run report)" % what,
               "marker %s; %s" % ("EXISTS" if os.path.exists(marker)
                                  else "absent", res.diag()))


def bare_marks(tap, ctx, path, what):
    inp = ctx.rd.write_input({})
    res = H.finish(H.start(H.bare_cmd(path, inp), ctx.rd))
    ok = os.path.exists(ctx.rd.marker)
    tap.result(ok and res.line == "1",
               "%s: bare, it runs and creates the marker (the mark means "
               "it ran)" % what, res.diag())
    if ok:
        os.unlink(ctx.rd.marker)


SCRIPT = """#!/bin/sh
marker=$(sed -n 's/^marker=//p' <&3)
: > "$marker"
echo 1
"""


@case("not-static", 8)
def _not_static(tap, ctx):
    bare_marks(tap, ctx, plugin("dynamic"), "dynamically linked plugin")
    never_runs(tap, ctx, plugin("dynamic"), "dynamically linked plugin")
    script = ctx.rd.file("script.sh", SCRIPT, 0o755)
    bare_marks(tap, ctx, script, "shell script")
    never_runs(tap, ctx, script, "shell script")
    nonelf = ctx.rd.file("nonelf", "touch marker\n", 0o755)
    never_runs(tap, ctx, nonelf, "non-ELF file")


@case("tampered", 2)
def _tampered(tap, ctx):
    with open(plugin("answer-1"), "rb") as f:
        good = hashlib.sha256(f.read()).hexdigest()
    bad = good[:-1] + ("0" if good[-1] != "0" else "1")
    res = sandbox(ctx, "answer-1", ["--sha256", good])
    expect(tap, res, "1", "answer-1", "--sha256 of the binary: it runs")
    res = sandbox(ctx, "answer-1", ["--sha256", bad])
    tap.result(res.line == "error: tampered" and res.rc == 20 and
               res.report is None,
               "--sha256 mismatch: tampered (exit 20), never run", res.diag())


@case("root", 1)
def _root(tap, ctx):
    if os.geteuid() != 0:
        tap.result(False, "sandbox-run as root is sandbox-unavailable",
                   "the suite is not running as root")
        return
    inp = ctx.rd.write_input({})
    p = subprocess.run(H.sandbox_cmd(ctx.lockfile, plugin("answer-1"), inp),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=ctx.rd.path, timeout=60)
    res = H.Result(p.returncode, p.stdout, p.stderr, H.parse_report(p.stderr))
    tap.result(res.line == "error: sandbox-unavailable" and res.rc == 21,
               "sandbox-run as root is sandbox-unavailable (exit 21), no answer",
               res.diag())


@case("processes", 4)
def _processes(tap, ctx):
    inp = ctx.rd.write_input({})
    p = H.start(H.sandbox_cmd(ctx.lockfile, plugin("orphan"), inp), ctx.rd)
    res = H.finish(p)
    expect(tap, res, "0", "answer-0",
           "a plugin trying to leave a child behind: fork refused (answer-0)")
    orphans = [q for q in H.pids_of(H.CONSOLE_USER)
               if H.comm_of(q) == "lf-orphan"]
    tap.result(not orphans, "its child does not outlive the run",
               "left: %r" % orphans)
    for child in ("0", "1"):
        inp = ctx.rd.write_input({"child": child})
        p = H.start(H.sandbox_cmd(ctx.lockfile, plugin("pdeath"), inp,
                                  ["--wall", "30"]), ctx.rd)
        sid = wait_plugin_pid(p)
        time.sleep(0.3)
        p.kill()                # SIGKILL: the runner cannot clean up
        H.finish(p)
        left = gone(sid, 3.0) if sid else ["plugin pid never seen"]
        what = ("the plugin and the child it forked" if child == "1"
                else "the plugin")
        tap.result(sid is not None and not left,
                   "runner killed by SIGKILL: %s die with it" % what,
                   "session %s: left %r (%s)" % (
                       sid, left, [H.comm_of(q) for q in left
                                   if isinstance(q, int)]))
        for q in left:          # do not leave them to the next case
            if isinstance(q, int):
                try:
                    os.kill(q, signal.SIGKILL)
                except OSError:
                    pass


@case("state", 3)
def _state(tap, ctx):
    # RLIMIT_CORE is 1 unless the launcher's hard limit is 0 (main.c).
    core = 1 if resource.getrlimit(resource.RLIMIT_CORE)[1] != 0 else 0
    res = sandbox(ctx, "state", ["--memory", str(96 << 20), "--cpu", "7"],
                  {"data_bytes": 96 << 20, "cpu_s": 7, "core_limit": core},
                  preexec_fn=launcher_signal_state)
    expect(tap, res, "1", "answer-1",
           "inside: empty environment, no_new_privs, seccomp, own session, "
           "rlimits CORE 1 (never piped), FSIZE 0, STACK 8 MiB, DATA, AS = "
           "DATA + 4 GiB, CPU, "
           "NPROC, signals at their defaults and none blocked whatever the "
           "launcher ignored or blocked (0 = ok, else stderr bytes = failing "
           "check)")
    res = sandbox(ctx, "fds", [], {"fds": "0,1,2,3"})
    expect(tap, res, "1", "answer-1",
           "protocol 1: exactly fds 0-3; stdin /dev/null, input read-only, "
           "pipes for 1 and 2 (else stderr bytes = failing check)")
    val = ctx.rd.file("value", "alice@example.org")
    res = sandbox(ctx, "fds", ["--protocol", "2", "--value-file", val],
                  {"fds": "0,1,2,3,6,7"})
    expect(tap, res, "1", "answer-1",
           "protocol 2: exactly fds 0-3, 6 (read-only pipe), 7 (write-only "
           "pipe)")


def seccomp_records(path):
    """The kernel's seccomp records (audit type 1326) for the program at
    path: what a reader of the kernel log gets when a filter kills."""
    out = subprocess.run(["dmesg"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode(
                             "utf-8", "replace")
    tag = 'exe="%s"' % path
    return sum(1 for line in out.splitlines()
               if "type=1326" in line and tag in line)


@case("filter", 3)
def _filter(tap, ctx):
    before = seccomp_records(plugin("x32"))
    res = sandbox(ctx, "x32")
    logged = seccomp_records(plugin("x32")) - before
    expect(tap, res, "1", "answer-1",
           "a system call with the x32 bit is refused with EPERM and the "
           "process lives on: no kill, so no kernel log record carrying the "
           "call number and instruction pointer it chose (no x32 ABI in this "
           "kernel, so a filter property only)", logged == 0,
           "%d seccomp record(s) in the kernel log" % logged)
    expect(tap, sandbox(ctx, "prctl-vma"), "1", "answer-1",
           "prctl(PR_SET_VMA) is refused by the filter (EPERM; no "
           "CONFIG_ANON_VMA_NAME in this kernel, so a filter property only)")
    expect(tap, sandbox(ctx, "ioctl-hibits"), "1", "answer-1",
           "ioctl TIOCSTI with bit 32 set is refused by the filter (EPERM, "
           "not the kernel's ENOTTY)")


def main():
    args = sys.argv[1:]
    lockfile = os.path.join(H.BUILD, "lockfile")
    if args[:1] == ["--lockfile"]:
        lockfile, args = args[1], args[2:]
    todo = [c for c in CASES if not args or c[0] in args]
    tap = H.Tap(sum(c[1] for c in todo))
    top = H.top_dir("contract")
    try:
        for name, _, fn in todo:
            before = tap.n
            ctx = Ctx(lockfile, top)
            try:
                fn(tap, ctx)
            except Exception as e:      # a harness failure fails, loudly
                print("# %s: %r" % (name, e), flush=True)
            finally:
                ctx.rd.remove()
            want = dict((c[0], c[1]) for c in CASES)[name]
            while tap.n < before + want:
                tap.result(False, "%s: case did not complete" % name)
    finally:
        H.shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
