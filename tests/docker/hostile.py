"""The hostile-plugin suite (tests/hostile/run-hostile.py) inside a container
of the console image, started with the console's own flags (the shipped
seccomp profile, no capabilities, no-new-privileges, read-only root) taken
from `lox --dry-run run`.

The host suite's own code runs every attempt: its run_one and run_pair
(inputs, own copies, observers, the writer/reader pair) and its verdicts
(judge_sandbox), with the lockfile binary named by a marker that this
module's start() turns into `docker exec --user lockfile <box> lockfile
sandbox-run --report ...` (the run directories are bound at their host
paths). The bare runs stay on the host (suite `hostile`): under the shipped
profile many attempts fail before any sandbox does, which proves nothing
about the sandbox.

What differs inside: `docker exec` passes no descriptor, so the inherit
attempt finds no fd 9 at all; the listeners of the network attempts are the
host's, out of reach of a --network none container (the sandbox must refuse
the socket itself, which is what is judged); ASLR cannot be switched off
(personality is refused by the profile), so exec-guard-forge aims at an
address it cannot know; with a terminal (-t), the container's stdout and
stderr reach the docker client as one stream.
"""
import importlib.util
import os
import shlex
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
_spec = importlib.util.spec_from_file_location(
    "run_hostile", os.path.join(ROOT, "tests", "hostile", "run-hostile.py"))
RH = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(RH)
H = RH.H

ATTEMPTS = RH.ATTEMPTS
PROFILE = os.path.join(ROOT, "docker", "seccomp.json")
MARK = "@lockfile-in-the-box"     # stands for the lockfile binary
GUARD_GUESS = 0x555555554000      # a non-randomized PIE's usual base

_box = None
_orig_start = H.start
_orig_finish_pty = RH.finish_pty
_orig_guard_ip = RH.guard_ip


def _start(cmd, rd, user=H.CONSOLE_USER, extra_fd=None, **kw):
    if MARK not in cmd:
        return _orig_start(cmd, rd, user, extra_fd, **kw)
    # Whatever came before the binary (setarch -R) cannot run inside.
    args = cmd[cmd.index(MARK) + 1:]
    tty = kw.get("stdin") not in (None, subprocess.DEVNULL)
    argv = [_box.docker, "exec", "-i"] + (["-t"] if tty else []) + [
        "--user", user, "--workdir", rd.path,
        "--env", "LF_HOSTILE_ENV=" + rd.secret_text,
        _box.name, "/usr/local/bin/lockfile"] + args
    kw.pop("more_fds", None)
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    p = subprocess.Popen(argv, env=_box.eng.env(), **kw)
    p.lf_tty = tty
    return p


def _finish_pty(p, master):
    res = _orig_finish_pty(p, master)
    if not getattr(p, "lf_tty", False):
        return res
    text = res.out.replace("\r", "")
    line = "\n".join(l for l in text.splitlines() if not l.startswith("{"))
    return H.Result(res.rc, line, text.encode(), H.parse_report(
        text.encode()))


def _guard_ip(lockfile):
    return GUARD_GUESS if lockfile == MARK else _orig_guard_ip(lockfile)


H.start = _start
RH.finish_pty = _finish_pty
RH.guard_ip = _guard_ip


class HostileBox:
    """A container of the console image, with the console's flags, the
    hostile plugins and a run directory bound at their host paths."""

    def __init__(self, eng, image, docker):
        global _box
        self.eng = eng
        self.docker = docker
        self.top = H.top_dir("docker-hostile")
        self.name = "lftest-hostile"
        r = eng.lox("--dry-run", "run", "--instance", "hostile", image)
        if r.returncode != 0:
            raise RuntimeError("lox --dry-run run: " + r.stderr.decode())
        # lox hands docker the checked profile as /dev/fd/N of its own
        # process (docs/docker.md); this line runs later, from here: the
        # shipped file, the same bytes.
        argv = [a if not a.startswith("seccomp=/dev/fd/") else
                "seccomp=" + PROFILE
                for a in shlex.split(r.stdout.decode())]
        # docker run -it --rm --name N --detach-keys K FLAGS... IMAGE
        assert argv[1:3] == ["run", "-it"] and argv[6] == "--detach-keys"
        img = argv.pop()
        self.argv = ([docker, "run", "-d", "--name", self.name] + argv[8:] +
                     ["--volume", "%s:%s:ro" % (H.HOSTILE, H.HOSTILE),
                      "--volume", "%s:%s" % (self.top, self.top),
                      img, "sleep", "infinity"])
        p = subprocess.run(self.argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=eng.env(), timeout=60)
        if p.returncode != 0:
            raise RuntimeError("hostile box: " + p.stderr.decode())
        _box = self

    def run(self, a):
        """(ok, diagnostic) of the attempt's sandbox run, judged as the host
        suite judges it."""
        if a.pair:
            # The writer is the one refused; the reader must not get the
            # message.
            w, res, seen, desc = RH.run_pair(a, "sandbox", MARK, self.top)
            ok, diag = RH.judge_sandbox(a, w, seen, desc)
            return ok, diag + " reader: " + res.diag()
        res, seen, desc = RH.run_one(a, "sandbox", MARK, self.top)
        return RH.judge_sandbox(a, res, seen, desc)

    def stop(self):
        global _box
        self.eng.docker("rm", "-f", self.name, check=False, timeout=60)
        H.shutil.rmtree(self.top, ignore_errors=True)
        _box = None
