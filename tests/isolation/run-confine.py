#!/usr/bin/python3
"""Run test_confine (the console's self-confinement, before and after in one
process) as the console account, with plugins to run under it: the official
is-utf8, the runtime plugin built with glibc, musl, Go and Rust
(tests/runtimes/build.sh), and contract plugins from tests/hostile. TAP.

  run-confine.py TEST_CONFINE LOCKFILE

$BUILD is the plain build (plugins are built only there). A runtime that
does not build is a failing test, never a skip.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lftest import setpriv

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
USER = "lockfile"


def main():
    if len(sys.argv) != 3:
        print("usage: run-confine.py TEST_CONFINE LOCKFILE", file=sys.stderr)
        return 64
    test, lockfile = sys.argv[1], sys.argv[2]
    lines = []
    tmp = tempfile.mkdtemp(prefix="lfconf-rt-", dir="/tmp")
    scratch = tempfile.mkdtemp(prefix="lfconf-", dir="/tmp")
    try:
        os.chmod(tmp, 0o755)
        plugins = ["utf8:" + os.path.join(BUILD, "plugins/is-utf8/is-utf8")]
        for rt in ("glibc", "musl", "go", "rust"):
            r = subprocess.run([os.path.join(ROOT, "tests/runtimes/build.sh"), rt,
                                tmp], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            ok = r.returncode == 0
            lines.append((ok, "the %s runtime plugin builds" % rt))
            if ok:
                plugins.append("yesno:" + os.path.join(tmp, "answer-" + rt))
            else:
                sys.stdout.write("# " + r.stdout.decode("utf-8", "replace")
                                 .replace("\n", "\n# ") + "\n")
        hostile = os.path.join(BUILD, "tests/hostile")
        plugins += ["one:" + os.path.join(hostile, "c-answer-1"),
                    "crash:" + os.path.join(hostile, "c-crash"),
                    "forkbomb:" + os.path.join(hostile, "c-forkbomb")]
        for dirpath, dirnames, filenames in os.walk(tmp):
            for n in dirnames + filenames:
                os.chmod(os.path.join(dirpath, n), 0o755)
        shutil.chown(scratch, USER, USER)
        os.chmod(scratch, 0o700)
        r = subprocess.run(setpriv(USER) + ["env", "-i", "PATH=/usr/bin:/bin",
                                            test, scratch, lockfile] + plugins,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, cwd="/", timeout=600)
        out = r.stdout.decode("utf-8", "replace")
        seen = 0
        for l in out.splitlines():
            m = re.match(r"^(ok|not ok) \d+ (.*)$", l)
            if m:
                lines.append((m.group(1) == "ok", m.group(2).lstrip("- ")))
                seen += 1
            elif not re.match(r"^1\.\.\d+$", l):
                print("# " + l)
        if r.returncode != 0 and all(ok for ok, _ in lines):
            lines.append((False, "test_confine exited %d" % r.returncode))
        if seen == 0:
            lines.append((False, "test_confine printed no results"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    for i, (ok, desc) in enumerate(lines, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, desc))
    print("1..%d" % len(lines))
    return 0 if all(ok for ok, _ in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
