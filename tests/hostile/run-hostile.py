#!/usr/bin/python3
"""The hostile-plugin suite: every escape attempt (attempts/*.c) run bare,
where it must succeed, and in the sandbox, where it must not. TAP, one line
per (attempt, mode).

  run-hostile.py [--lockfile PATH] [NAME...]

Bare: bare-run gives the plugin the sandbox's descriptor layout without any
confinement (plus the secret on fd 9 and LF_HOSTILE_ENV, which the inherit
attempts look for); it must exit 0 and print 1, else the attempt proves
nothing. Sandbox: `lockfile sandbox-run --report`, under the same secret fd
and environment; it must print 0 with the expected errno as stderr bytes
(hostile.h), which names the layer that refused. It must never print 1.
Where only an outsider can judge success (a connection, a datagram, a lock
in /proc/locks, the machine's task count, the binary's page-cache residency),
the harness observes as well, the lock and task-count observers as the agent
account. The page-cache attempts run a copy of their binary owned by the
console account (as the store's are); pagecache-pair runs twice, a writer
then a reader on another file, and the reader's answer is the attempt's.

Not here, because they cannot succeed bare on this machine: an i386 int 0x80
call (this VM has no IDT entry for it: a general protection fault) and an x32
call (no CONFIG_X86_X32_ABI: ENOSYS). run-contract.py checks that the filter
kills an x32 call; AF_PACKET needs CAP_NET_RAW.
"""
import errno
import fcntl
import json
import os
import pty
import secrets
import select
import signal
import socket
import subprocess
import sys
import termios
import time

import harness as H  # noqa: E402

ANY = None      # no fix is obvious; anything but 1 passes in the sandbox


class A:
    def __init__(self, name, expect, why, fixtures=(), observe=None,
                 sandbox_args=(), pty=False, sandbox_prefix=(), own_copy=False,
                 pair=False):
        self.name = name
        self.expect = expect        # errno or ANY
        self.why = why              # the layer that must refuse it
        self.fixtures = fixtures    # listeners to start: tcp tcp6 udp abstract unix
        self.observe = observe      # name of a check in OBSERVERS
        self.sandbox_args = list(sandbox_args)
        self.sandbox_prefix = list(sandbox_prefix)   # e.g. ASLR off
        self.pty = pty
        # Run a copy of the plugin owned by the console account (as the
        # store's binaries are), flushed to disk: what the page-cache
        # attempts act on.
        self.own_copy = own_copy
        # Two runs of the same binary on two files: the writer, then the
        # reader, whose answer is the attempt's (run_pair).
        self.pair = pair


EPERM, EACCES, EBADF, ENOENT, ENOSYS = (errno.EPERM, errno.EACCES,
                                        errno.EBADF, errno.ENOENT,
                                        errno.ENOSYS)

ATTEMPTS = [
    # Files: Landlock (only the plugin's own binary is readable).
    A("read-file", EACCES, "Landlock"),
    A("list-dir", EACCES, "Landlock"),
    A("reopen-input-rw", EACCES, "Landlock"),
    A("create-file", EACCES, "Landlock", observe="newfile"),
    A("write-file", EACCES, "Landlock", observe="wfile"),
    A("exec-other", EACCES, "Landlock"),
    A("proc-parent-cmdline", EACCES, "Landlock"),
    A("proc-parent-environ", EACCES, "Landlock"),
    A("proc-parent-status", EACCES, "Landlock"),
    A("proc-parent-fd", EACCES, "Landlock"),
    A("open-errno-oracle", EACCES, "a constant answer to every open"),
    A("exec-errno-oracle", EACCES, "a constant answer to every execve"),
    A("exec-guard-forge", EACCES,
      "the exec guard's per-run key (the launcher's address is known)",
      sandbox_prefix=["setarch", "-R"]),
    # What Landlock does not cover: seccomp.
    A("stat-probe", EPERM, "seccomp (path-based stat)"),
    A("fstatat-empty-path-probe", EPERM, "seccomp (newfstatat)"),
    A("statx-probe", EPERM, "seccomp (statx)"),
    A("access-probe", EPERM, "seccomp (faccessat)"),
    A("opath-probe", EACCES, "seccomp (every open answers EACCES)"),
    A("readlink-input", EPERM, "seccomp (readlink)"),
    A("inotify", EPERM, "seccomp"),
    A("fchmod-input", EPERM, "seccomp (fchmod)", observe="input_mode"),
    A("setxattr-input", EPERM, "seccomp (fsetxattr)"),
    A("flock-input", EPERM, "seccomp (flock)"),
    A("posix-lock-exfil", EPERM, "seccomp (fcntl F_SETLK)", observe="lock"),
    A("ofd-lock-exfil", EPERM, "seccomp (fcntl F_OFD_SETLK)", observe="lock"),
    # Descriptors, environment, terminal: the spawn.
    A("inherited-fd", EBADF, "descriptors closed before exec"),
    A("environment", ENOENT, "empty environment"),
    A("tiocsti", EACCES, "no tty descriptor, setsid, Landlock on /dev/tty",
      pty=True),
    # Other processes.
    A("kill-parent", EPERM, "seccomp (kill target), Landlock signal scope"),
    A("kill-all", EPERM, "seccomp (kill target)"),
    A("setown-parent", EPERM, "seccomp (fcntl F_SETOWN)"),
    A("setown-ex-parent", EPERM, "seccomp (fcntl F_SETOWN_EX)"),
    A("setown-hibits-parent", EPERM, "seccomp (fcntl command, all 64 bits)"),
    A("ptrace-child", EPERM, "seccomp (ptrace)"),
    A("ptrace-parent", EPERM, "seccomp (ptrace), Landlock ptrace scope"),
    A("process-vm-readv", EPERM, "seccomp (process_vm_readv)"),
    A("pidfd-open", EPERM, "seccomp (pidfd_open)"),
    A("prlimit-parent", EPERM, "seccomp (prlimit64 pid)"),
    A("renice-parent", EPERM, "seccomp (getpriority/setpriority)"),
    A("robust-list-parent", EPERM, "Landlock ptrace scope"),
    A("kcmp-parent", EPERM, "seccomp (kcmp)"),
    A("cpuclock-parent", EPERM, "seccomp (clock_gettime clock id)"),
    A("pid-probe", EPERM, "seccomp (sched_getaffinity pid)"),
    A("setsid-escape", EPERM, "seccomp (setsid)"),
    A("setpgid-escape", EPERM, "seccomp (setpgid)"),
    A("task-count-exfil", ANY, "no sandbox layer covers it",
      observe="tasks"),
    # Memory and IPC.
    A("shared-anon-mmap", EPERM, "seccomp (mmap flags)"),
    A("sysv-shm", EPERM, "seccomp"),
    A("sysv-msg", EPERM, "seccomp"),
    A("sysv-sem", EPERM, "seccomp"),
    A("posix-mq", EPERM, "seccomp"),
    A("memfd-create", EPERM, "seccomp"),
    A("ksm-mergeable", EPERM, "seccomp (madvise advice)"),
    A("pagecache-pair", EPERM, "seccomp (madvise: no MADV_PAGEOUT, "
      "MADV_COLD)", own_copy=True, pair=True),
    A("rehash-timing", EPERM, "seccomp (madvise: no MADV_PAGEOUT)",
      own_copy=True, observe="residency"),
    A("madvise-cache", EPERM, "seccomp (madvise advice)"),
    A("growsdown-rlimit", ANY, "RLIMIT_DATA (or seccomp on MAP_GROWSDOWN)",
      sandbox_args=["--memory", str(32 << 20)]),
    # Kernel interfaces.
    A("io-uring", EPERM, "seccomp"),
    A("userfaultfd", EPERM, "seccomp"),
    A("perf-event", EPERM, "seccomp"),
    A("add-key", EPERM, "seccomp"),
    A("unshare-userns", EPERM, "seccomp"),
    A("clone-userns", EPERM, "seccomp (clone flags)"),
    A("clone3-userns", ENOSYS, "seccomp (clone3 answers ENOSYS)"),
    A("personality", EPERM, "seccomp"),
    A("raise-rlimit", EPERM, "the kernel (soft = hard, unprivileged), "
      "seccomp (prlimit64 reads only)"),
    A("lower-core-limit", EPERM, "seccomp (prlimit64 reads only)"),
    A("core-dump", EPERM, "seccomp (no new process) and RLIMIT_CORE 0"),
    # Network.
    A("tcp-connect", EPERM, "seccomp (socket), Landlock TCP",
      fixtures=("tcp",), observe="tcp"),
    A("tcp6-connect", EPERM, "seccomp (socket), Landlock TCP",
      fixtures=("tcp6",), observe="tcp6"),
    A("udp-send", EPERM, "seccomp (socket)", fixtures=("udp",),
      observe="udp"),
    A("abstract-unix", EPERM, "seccomp (socket), Landlock scope",
      fixtures=("abstract",), observe="abstract"),
    A("pathname-unix", EPERM, "seccomp (socket)", fixtures=("unix",),
      observe="unix"),
    A("netlink", EPERM, "seccomp (socket)"),
    A("socketpair", EPERM, "seccomp (socketpair)"),
]


class Fixtures:
    """Listeners for the network attempts, run by the harness (root)."""

    def __init__(self, rd, kinds):
        self.socks = {}
        self.params = {}
        self.rd = rd
        for k in kinds:
            getattr(self, "_" + k)()

    def _listen(self, kind, family, addr, typ=socket.SOCK_STREAM):
        s = socket.socket(family, typ)
        s.bind(addr)
        if typ == socket.SOCK_STREAM:
            s.listen(8)
        s.setblocking(False)
        self.socks[kind] = s
        return s

    def _tcp(self):
        s = self._listen("tcp", socket.AF_INET, ("127.0.0.1", 0))
        self.params["tcp_port"] = s.getsockname()[1]

    def _tcp6(self):
        s = self._listen("tcp6", socket.AF_INET6, ("::1", 0))
        self.params["tcp6_port"] = s.getsockname()[1]

    def _udp(self):
        s = self._listen("udp", socket.AF_INET, ("127.0.0.1", 0),
                         socket.SOCK_DGRAM)
        self.params["udp_port"] = s.getsockname()[1]

    def _abstract(self):
        name = "lockfile-hostile-" + secrets.token_hex(8)
        self._listen("abstract", socket.AF_UNIX, "\0" + name)
        self.params["abstract_name"] = name

    def _unix(self):
        path = os.path.join(self.rd.path, "sock")
        self._listen("unix", socket.AF_UNIX, path)
        os.chmod(path, 0o777)
        self.params["unix_path"] = path

    def connected(self, kind):
        s = self.socks[kind]
        if not select.select([s], [], [], 0.2)[0]:
            return False
        if kind == "udp":
            data = s.recv(4096)
            return self.rd.secret_text.encode() in data
        c, _ = s.accept()
        c.close()
        return True

    def close(self):
        for s in self.socks.values():
            s.close()


def start_observer(a, rd, params):
    """The agent-side observer for attempts judged from outside."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "observe.py")
    if a.observe == "lock":
        args = ["locks", str(os.stat(rd.input).st_ino), str(params["lock_offset"])]
    elif a.observe == "tasks":
        args = ["tasks"]
    else:
        return None
    p = subprocess.Popen(H.as_user(H.AGENT_USER) + ["/usr/bin/python3", script]
                         + args, stdout=subprocess.PIPE, cwd="/")
    time.sleep(0.3)     # let it take a baseline first
    return p


def stop_observer(p):
    if p is None:
        return None
    time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=30)
    try:
        return json.loads(out.decode() or "null")
    except ValueError:
        return None


def observed(a, rd, fx, obs, params, mode_input_mode):
    """(escape seen from outside?, description) or (None, '') when the
    attempt has no outside observer."""
    o = a.observe
    if o is None:
        return None, ""
    if o in ("tcp", "tcp6", "udp", "abstract", "unix"):
        seen = fx.connected(o)
        return seen, "listener %s: %s" % (o, "reached" if seen else "not reached")
    if o == "newfile":
        seen = os.path.exists(rd.newfile)
        return seen, "new file %s" % ("created" if seen else "absent")
    if o == "wfile":
        size = os.stat(rd.wfile).st_size
        return size > 0, "writable file now %d bytes" % size
    if o == "input_mode":
        mode = os.stat(rd.input).st_mode & 0o7777
        return mode != mode_input_mode, "input mode now %o" % mode
    if o == "lock":
        seen = bool(obs and obs.get("seen"))
        return seen, "agent %s the lock in /proc/locks" % (
            "saw" if seen else "did not see")
    if o == "residency":
        # What the console's re-hash of the binary would meet: its pages
        # gone from the page cache (mincore), and the hash's time.
        before, after = params["residency_before"], params["residency_after"]
        seen = before >= 0.9 and after < 0.5
        return seen, ("binary resident %.0f%% before the run, %.0f%% after; "
                      "re-hash %.1f ms before, %.1f ms after" % (
                          100 * before, 100 * after, params["rehash_before_ms"],
                          params["rehash_after_ms"]))
    if o == "tasks":
        d = obs.get("level", -1) if obs else -1
        n = params["tasks"]
        # Coarse on purpose (a few bits per plateau): the machine's own
        # activity moves the level too; an attacker would repeat and code.
        seen = abs(d - n) <= n // 5
        return seen, "agent decoded %d tasks from /proc/loadavg (sent %d)" % (
            d, n)
    raise ValueError(o)


def load_base(exe):
    """Where exe loads with ASLR off (setarch -R, inherited across exec):
    the child is stopped at its exec under ptrace and its first mapping of
    the file read from /proc/PID/maps. Read from the process as it really
    loads (a static PIE has no auxiliary vector to print), so a wrong guess
    cannot pass for a refusal."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    ADDR_NO_RANDOMIZE, PTRACE_TRACEME = 0x0040000, 0
    real = os.path.realpath(exe)
    pid = os.fork()
    if pid == 0:
        try:
            libc.personality(ADDR_NO_RANDOMIZE)
            libc.ptrace(PTRACE_TRACEME, 0, None, None)
            os.execv(real, [real, "--help"])
        finally:
            os._exit(127)
    try:
        _, st = os.waitpid(pid, 0)
        if not os.WIFSTOPPED(st):
            raise RuntimeError("%s did not stop at its exec" % exe)
        with open("/proc/%d/maps" % pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 6 and parts[5] == real:
                    return int(parts[0].split("-")[0], 16)
        raise RuntimeError("no mapping of %s" % exe)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def guard_ip(lockfile):
    """Where the launcher's execve returns when lockfile sandbox-run runs
    with ASLR off: the load base of lockfile-sandbox-run beside lockfile
    (docs/hacking.md, "Executables") plus the symbol's offset."""
    exe = os.path.join(os.path.dirname(lockfile), "lockfile-sandbox-run")
    syms = subprocess.run(["nm", exe], stdout=subprocess.PIPE,
                          check=True).stdout.decode()
    off = [int(line.split()[0], 16) for line in syms.splitlines()
           if line.endswith(" lf_plugin_execve_ret")]
    if len(off) != 1:
        raise RuntimeError("cannot locate lf_plugin_execve_ret in " + exe)
    return load_base(exe) + off[0]


def run_one(a, mode, lockfile, top):
    rd = H.RunDir(top)
    fx = Fixtures(rd, a.fixtures)
    params = dict(fx.params)
    if a.sandbox_prefix:
        params["guard_ip"] = guard_ip(lockfile)
    params["lock_offset"] = 0x1000000000 + secrets.randbelow(1 << 36)
    params["tasks"] = 300 + secrets.randbelow(180)
    params["growsdown_bytes"] = 256 << 20
    inp = rd.write_input(params)
    input_mode = os.stat(inp).st_mode & 0o7777
    plugin = os.path.join(H.HOSTILE, "h-" + a.name)
    if a.own_copy:
        plugin = H.own_copy(plugin, rd)
    if a.observe == "residency":
        params["residency_before"] = H.resident_fraction(plugin)
        params["rehash_before_ms"] = H.rehash_ms(plugin)
    if mode == "bare":
        cmd = H.bare_cmd(plugin, inp)
    else:
        cmd = a.sandbox_prefix + H.sandbox_cmd(lockfile, plugin, inp,
                                               a.sandbox_args)
    extra = os.open(rd.secret, os.O_RDONLY)
    obs_p = start_observer(a, rd, params)
    master = None
    try:
        if a.pty:
            master, slave = pty.openpty()

            def ctty():
                fcntl.ioctl(2, termios.TIOCSCTTY, 0)
            p = H.start(cmd, rd, extra_fd=extra, stdin=slave, stderr=slave,
                        start_new_session=True, preexec_fn=ctty)
            os.close(slave)
            res = finish_pty(p, master)
        else:
            res = H.finish(H.start(cmd, rd, extra_fd=extra))
    finally:
        os.close(extra)
        obs = stop_observer(obs_p)
    if a.observe == "residency":
        params["residency_after"] = H.resident_fraction(plugin)
        params["rehash_after_ms"] = H.rehash_ms(plugin)
    seen, seen_desc = observed(a, rd, fx, obs, params, input_mode)
    fx.close()
    rd.remove()
    return res, seen, seen_desc


def run_pair(a, mode, lockfile, top):
    """Two runs of one binary (a copy owned by the console account) on two
    files: the writer, given the message, then the reader, which answers 1
    when it got the message. Returns (writer, reader, seen, description)."""
    rd = H.RunDir(top)
    plugin = H.own_copy(os.path.join(H.HOSTILE, "h-" + a.name), rd)
    # Both 0 and 1 bits, so neither "nothing changed" nor "all gone" reads
    # as the message.
    while True:
        message = secrets.randbelow(1 << 16)
        if 4 <= bin(message).count("1") <= 12:
            break
    res = []
    for role in ("write", "read"):
        inp = rd.write_input({"pc_role": role, "pc_message": message},
                             head="LOCKFILE hostile input (%s)\n" % role)
        if mode == "bare":
            cmd = H.bare_cmd(plugin, inp)
        else:
            cmd = H.sandbox_cmd(lockfile, plugin, inp, a.sandbox_args)
        res.append(H.finish(H.start(cmd, rd)))
    rd.remove()
    seen = res[1].line == "1"
    return res[0], res[1], seen, "message %04x %s; writer: %s" % (
        message, "passed" if seen else "not passed", res[0].diag())


def finish_pty(p, master):
    """Wait for p, draining the pty so it never blocks."""
    out = tty = b""
    deadline = time.monotonic() + H.RUN_TIMEOUT
    while p.poll() is None and time.monotonic() < deadline:
        r = select.select([master, p.stdout], [], [], 0.1)[0]
        for fd in r:
            try:
                data = os.read(fd if fd == master else fd.fileno(), 4096)
            except OSError:
                data = b""
            if fd is master:
                tty += data
            else:
                out += data
    if p.poll() is None:
        p.kill()
    rest = p.stdout.read()
    p.wait()
    try:
        while select.select([master], [], [], 0)[0]:
            d = os.read(master, 4096)
            if not d:
                break
            tty += d
    except OSError:
        pass
    os.close(master)
    # The tty carried stderr: the report line and the errno tally are there.
    return H.Result(p.returncode, out + rest, tty, H.parse_report(tty))


ERRNAME = errno.errorcode


def judge_bare(a, res, seen, seen_desc):
    ok = res.rc == 0 and res.line == "1" and seen in (None, True)
    return ok, "%s %s" % (res.diag(), seen_desc)


def judge_sandbox(a, res, seen, seen_desc):
    r = res.report or {}
    if res.line == "1" or seen:
        return False, "ESCAPED: %s %s" % (res.diag(), seen_desc)
    if a.expect is ANY:
        ok = res.line == "0" or res.line.startswith("error: ")
    else:
        ok = res.line == "0" and r.get("stderr_bytes") == a.expect
    return ok, "%s %s" % (res.diag(), seen_desc)


def expect_text(a):
    if a.expect is ANY:
        return "not 1"
    return "0, %s" % ERRNAME.get(a.expect, a.expect)


def main():
    args = sys.argv[1:]
    lockfile = os.path.join(H.BUILD, "lockfile")
    if args[:1] == ["--lockfile"]:
        lockfile, args = args[1], args[2:]
    todo = [a for a in ATTEMPTS if not args or a.name in args]
    tap = H.Tap(2 * len(todo))
    top = H.top_dir("hostile")
    try:
        for a in todo:
            if a.pair:
                w, res, seen, desc = run_pair(a, "bare", lockfile, top)
                ok, diag = judge_bare(a, res, seen, desc)
                ok = ok and w.line == "1"
            else:
                res, seen, desc = run_one(a, "bare", lockfile, top)
                ok, diag = judge_bare(a, res, seen, desc)
            tap.result(ok, "bare: %s succeeds unconfined" % a.name, diag)
            if a.pair:
                # The writer is the one refused; the reader must not get
                # the message.
                w, res, seen, desc = run_pair(a, "sandbox", lockfile, top)
                ok, diag = judge_sandbox(a, w, seen, desc)
                diag += " reader: " + res.diag()
            else:
                res, seen, desc = run_one(a, "sandbox", lockfile, top)
                ok, diag = judge_sandbox(a, res, seen, desc)
            tap.result(ok, "sandbox: %s is blocked (%s; by %s)" % (
                a.name, expect_text(a), a.why), diag)
    finally:
        H.shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
