#!/usr/bin/python3
"""Runtime compatibility: the same trivial plugin built with glibc, musl, Go
and Rust (all static; tests/runtimes/build.sh) must answer correctly inside
the sandbox. TAP: per runtime, the build, an answer of 1, an answer of 0,
an answer that needs fstat() on the input (the size of fd 3), which is what
a plugin reading a trailer or checking a length does, and one after the
allocator returned memory to the kernel (the madvise advice the filter
keeps: docs/sandbox.md).

  run-runtimes.py [--lockfile PATH] [RUNTIME...]

Builds into $BUILD/tests/runtimes. A failing sandboxed run also shows the
bare run of the same binary (bare-run, from the hostile suite) and the
system calls the filter refused (strace, when run as root).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
import harness as H  # noqa: E402

RUNTIMES = ["glibc", "musl", "go", "rust"]
INPUTS = [
    ("yes\nmore bytes\n", "1", "answers 1"),
    ("no\nmore bytes\n", "0", "answers 0"),
    ("yes stat\nmore bytes\n", "1", "fstat()s its input and answers 1"),
    ("yes churn\nmore bytes\n", "1",
     "allocates, frees and gives memory back (madvise), answers 1"),
]
# The path-based stat calls are refused in the sandbox (a path lookup would
# tell which paths exist; docs/sandbox.md). musl and Go call fstat(2)
# directly; glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH), so the C
# plugin uses the raw fstat(2) as the SDK does. Rust's metadata() goes through
# statx/newfstatat and is refused: the documented limitation must hold (the
# plugin exits 2, never answers from a stat it could not make).
STAT_REFUSED = {"rust": ("error: exit-nonzero", "exit-nonzero",
                         "metadata() is refused (path-based stat), no answer")}


def refused_calls(lockfile, binary, rd, inp):
    """The plugin's system calls that failed with EPERM/ENOSYS/EACCES."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/strace"):
        return ""
    log = os.path.join(rd.path, "strace.log")
    subprocess.run(["strace", "-f", "-o", log] + H.as_user(H.CONSOLE_USER) +
                   H.sandbox_cmd(lockfile, binary, inp),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=rd.path, timeout=120)
    plugin_pid, out = None, []
    with open(log) as f:
        for line in f:
            pid, _, rest = line.partition(" ")
            if 'execve("/proc/self/fd/' in rest:
                plugin_pid = pid
            elif pid == plugin_pid and any(e in rest for e in
                                           ("EPERM", "ENOSYS", "EACCES")):
                out.append(rest.strip()[:200])
    return "refused inside the sandbox:\n" + "\n".join(out[:20])


def main():
    args = sys.argv[1:]
    lockfile = os.path.join(H.BUILD, "lockfile")
    if args[:1] == ["--lockfile"]:
        lockfile, args = args[1], args[2:]
    todo = [r for r in RUNTIMES if not args or r in args]
    tap = H.Tap(len(todo) * (1 + len(INPUTS)))
    out = os.path.join(H.BUILD, "tests", "runtimes")
    os.makedirs(out, exist_ok=True)
    os.chmod(out, 0o755)
    top = H.top_dir("runtimes")
    try:
        for rt in todo:
            b = subprocess.run([os.path.join(HERE, "build.sh"), rt, out],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=1800)
            binary = os.path.join(out, "answer-" + rt)
            log = b.stdout.decode("utf-8", "replace").strip()
            built = b.returncode == 0 and os.path.exists(binary)
            tap.result(built, "%s: builds a static plugin (%s)" % (
                rt, log.splitlines()[0] if log else "?"), log)
            for text, want, what in INPUTS:
                line_want, outcome_want = want, "answer-" + want
                if "stat" in text and rt in STAT_REFUSED:
                    line_want, outcome_want, what = STAT_REFUSED[rt]
                if not built:
                    tap.result(False, "%s: %s in the sandbox" % (rt, what),
                               "not built")
                    continue
                rd = H.RunDir(top)
                inp = rd.write_input({}, head=text)
                res = H.finish(H.start(H.sandbox_cmd(lockfile, binary, inp), rd))
                ok = res.line == line_want and (res.report or {}).get(
                    "outcome") == outcome_want
                diag = res.diag()
                if not ok:
                    bare = H.finish(H.start(H.bare_cmd(binary, inp), rd))
                    diag += "\nbare: " + bare.diag() + "\n" + refused_calls(
                        lockfile, binary, rd, inp)
                tap.result(ok, "%s: %s in the sandbox" % (rt, what), diag)
                rd.remove()
    finally:
        H.shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
