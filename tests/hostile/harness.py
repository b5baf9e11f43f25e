"""Shared by run-hostile.py and run-contract.py: TAP output, the accounts,
per-run directories and the two ways of starting a plugin (bare-run and
`lockfile sandbox-run --report`).

The suites run as root (CI and this machine) and start every plugin as the
console account `lockfile`, as the console would; observers run as `agent`.
"""
import ctypes
import hashlib
import json
import mmap
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import time

from lftest import Tap, setpriv, uid_of  # noqa: F401 (H.X for the scripts)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
HOSTILE = os.path.join(BUILD, "tests", "hostile")
CONSOLE_USER = "lockfile"
AGENT_USER = "agent"
EXTRA_FD = 9            # the descriptor the inherit attempts look for
RUN_TIMEOUT = 120


def as_user(user):
    """Command prefix that runs as user (from root), or nothing if we are."""
    if pwd.getpwuid(os.geteuid()).pw_name == user:
        return []
    if os.geteuid() != 0:
        raise RuntimeError("must run as root or as %s" % user)
    return setpriv(user)


def gid_of(user):
    return pwd.getpwnam(user).pw_gid


class RunDir:
    """A fresh directory owned by the console account, with the files the
    attempts aim at: a secret, a directory with an entry, a writable file, a
    path that does not exist and one to create."""

    def __init__(self, top):
        self.path = tempfile.mkdtemp(prefix="run.", dir=top)
        self.secret_text = "LF-SECRET-" + secrets.token_hex(12)
        self.secret = self.file("secret", self.secret_text + "\n")
        self.dir = os.path.join(self.path, "dir")
        os.mkdir(self.dir, 0o700)
        self.dir_entry = "entry-" + secrets.token_hex(4)
        self.file(os.path.join("dir", self.dir_entry), "x\n")
        self.wfile = self.file("writable", "")
        self.missing = os.path.join(self.path, "missing")
        self.newfile = os.path.join(self.path, "new")
        self.marker = os.path.join(self.path, "marker")
        self.input = os.path.join(self.path, "input")
        self.chown(self.path)
        self.chown(self.dir)

    def file(self, name, text, mode=0o600):
        p = os.path.join(self.path, name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
        self.chown(p)
        return p

    def chown(self, p):
        if os.geteuid() == 0:
            os.chown(p, uid_of(CONSOLE_USER), gid_of(CONSOLE_USER))

    def write_input(self, params, head="LOCKFILE hostile input\n"):
        base = {
            "secret": self.secret, "secret_text": self.secret_text,
            "dir": self.dir, "dir_entry": self.dir_entry,
            "wfile": self.wfile, "missing": self.missing,
            "newfile": self.newfile, "marker": self.marker,
            "input_path": self.input,
        }
        base.update(params)
        text = head + "".join("%s=%s\n" % kv for kv in base.items())
        self.file("input", text)
        return self.input

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def top_dir(tag):
    top = tempfile.mkdtemp(prefix="lf-%s." % tag)
    os.chmod(top, 0o755)
    return top


def child_env(secret_text):
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "LF_HOSTILE_ENV": secret_text}


class Result:
    def __init__(self, rc, out, err, report=None):
        self.rc = rc
        self.out = out.decode("utf-8", "replace") if isinstance(out, bytes) else out
        self.err = err if isinstance(err, bytes) else err.encode()
        self.report = report

    @property
    def line(self):
        return self.out.strip()

    def diag(self):
        tail = self.err[-300:].decode("utf-8", "replace")
        return "rc=%s stdout=%r report=%s stderr(%d bytes) tail=%r" % (
            self.rc, self.out, json.dumps(self.report), len(self.err), tail)


def parse_report(err):
    for line in reversed(err.decode("utf-8", "replace").splitlines()):
        line = line.strip()
        if line.startswith("{") and '"outcome"' in line:
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def start(cmd, rd, user=CONSOLE_USER, extra_fd=None, **kw):
    """Popen cmd as user in the run directory with the extra descriptor (the
    secret) on EXTRA_FD and LF_HOSTILE_ENV set."""
    pass_fds = ()
    saved = None
    if extra_fd is not None:
        saved = os.dup(EXTRA_FD) if _fd_open(EXTRA_FD) else None
        os.dup2(extra_fd, EXTRA_FD, inheritable=True)
        pass_fds = (EXTRA_FD,)
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    try:
        return subprocess.Popen(as_user(user) + cmd, cwd=rd.path,
                                env=child_env(rd.secret_text),
                                pass_fds=pass_fds + tuple(kw.pop("more_fds", ())),
                                **kw)
    finally:
        if extra_fd is not None:
            os.close(EXTRA_FD)
            if saved is not None:
                os.dup2(saved, EXTRA_FD)
                os.close(saved)


def _fd_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def finish(p, timeout=RUN_TIMEOUT):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err = (err or b"") + b"\n[harness: timed out]"
    return Result(p.returncode, out or b"", err or b"", parse_report(err or b""))


def bare_cmd(plugin, inp):
    return [os.path.join(HOSTILE, "bare-run"), plugin, inp]


def sandbox_cmd(lockfile, plugin, inp, args=()):
    return [lockfile, "sandbox-run", "--report"] + list(args) + [plugin, inp]


def pids_of(user):
    """Pids of every process of user (from /proc), excluding none."""
    uid = uid_of(user)
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/status" % d) as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            pids.append(int(d))
                        break
        except OSError:
            pass
    return pids


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def own_copy(plugin, rd, name="plugin-copy"):
    """A copy of plugin in the run directory, the console account's (as the
    store's binaries are: the kernel lets their owner page them out) and on
    disk (dirty pages are not reclaimed)."""
    dst = os.path.join(rd.path, name)
    with open(plugin, "rb") as src, open(dst, "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(dst, 0o700)
    rd.chown(dst)
    return dst


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]


def resident_fraction(path):
    """The share of path's pages in the page cache (mincore on a mapping
    that faults nothing in)."""
    size = os.path.getsize(path)
    if size == 0:
        return 1.0
    fd = os.open(path, os.O_RDONLY)
    try:
        addr = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap " + path)
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = ctypes.create_string_buffer(pages)
        try:
            if _libc.mincore(addr, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore " + path)
        finally:
            _libc.munmap(addr, size)
        return sum(b & 1 for b in vec.raw) / pages
    finally:
        os.close(fd)


def rehash_ms(path):
    """The time a sha256 of path takes, read as the console reads a plugin
    (pread, 1 MiB at a time)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        h, off, t0 = hashlib.sha256(), 0, time.monotonic()
        while True:
            b = os.pread(fd, 1 << 20, off)
            if not b:
                break
            h.update(b)
            off += len(b)
        return (time.monotonic() - t0) * 1000
    finally:
        os.close(fd)
