"""lfenv: run a real lockfile console for end-to-end tests.

The console runs as the `lockfile` account, in a real terminal (a tmux
server of its own, also as `lockfile`, so the terminal belongs to the
console account). Agents talk to it as real accounts (`agent`,
`lf-outsider`, ...) over the real socket. The tests run as root (CI does)
and create everything under a fresh directory.

Where it runs (start(proc=...)), since the machine's own /proc is not
mounted hidepid=invisible and a test must not change it:
- "host" (the default): a simulated host, a pid and mount namespace of its
  own whose init (pid 1) has /proc mounted hidepid=invisible, declared by
  the real `lockfile doctor --declare-host` run as root inside it (the
  host-mode precondition, docs/host.md). The console and every agent
  request of rpc() run inside it, so what the console checks is what the
  agents see. What it does not protect: the machine's own accounts,
  outside the namespace, still see the plugins' processes on the machine's
  /proc (the residual of an ancestor pid namespace, docs/isolation.md).
- "private": the console alone in a mount namespace with a hidepid /proc
  of its own, the agents on the machine's: the illusion host mode refuses.
- "none": the machine's own /proc, as it is.
- "enter": the pid and mount namespaces of an existing process (ns=PID),
  as a simulated host the test built itself (test_host_guide.py).

    env = ConsoleEnv()
    env.add_local_profile("invoices", files={"2024/a.pdf": b"%PDF-..."},
                          prefix="2024/")
    env.install_plugin("is-pdf")            # from $BUILD/plugins
    env.write_policy(answer_quantum_s=1)
    env.start()
    line = env.rpc({"method": "status"})   # as `agent`
    env.wait_screen("Approve?") ; env.type("y")
    check_reply(request, line)             # the closed list
    env.stop()
"""
import grp
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from lftest import sha256_file, uid_of  # noqa: F401 (lfenv.X for the tests)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
CONSOLE_USER = "lockfile"
CLIENTS_GROUP = "lockfile-clients"


# Inside a new mount namespace: unmount every procfs it copied from the
# machine (/proc, and any a chroot or an image build mounted elsewhere),
# deepest first, before mounting the host's own. The simulated host's
# mounts are its own; the machine's are left as they are.
UNMOUNT_PROCFS = ("for m in $(awk '{for (i = 7; i <= NF; i++) if ($i == \"-\")"
                  " { if ($(i + 1) == \"proc\") print $5; break }}' "
                  "/proc/self/mountinfo | sort -r); do umount -l \"$m\"; "
                  "done")


def lockfile_binary(build=None):
    return os.path.join(build or BUILD, "lockfile")


def gid_of(group):
    return grp.getgrnam(group).gr_gid


def chown_tree(path, user, group=None):
    uid = uid_of(user)
    gid = gid_of(group or user)
    for dirpath, dirnames, filenames in os.walk(path):
        os.chown(dirpath, uid, gid)
        for f in filenames:
            os.chown(os.path.join(dirpath, f), uid, gid, follow_symlinks=False)


def as_user(user, argv, input=None, timeout=60, env=None, check=False):
    """Run argv as user (primary and supplementary groups from the system)."""
    pw = pwd.getpwnam(user)
    groups = [g.gr_gid for g in grp.getgrall() if user in g.gr_mem]
    return subprocess.run(argv, input=input, timeout=timeout, check=check,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          user=pw.pw_uid, group=pw.pw_gid,
                          extra_groups=groups, cwd="/",
                          env=env if env is not None else
                          {"PATH": "/usr/bin:/bin", "HOME": pw.pw_dir})


RPC_CLIENT = r"""
import socket, sys, time
path, timeout = sys.argv[1], float(sys.argv[2])
data = sys.stdin.buffer.read()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(timeout)
t0 = time.monotonic()
s.connect(path)
if data:
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass    # a refused peer is answered and closed before it is read
out = b""
try:
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        out += b
        if sys.argv[3] == "1" and out.endswith(b"\n"):
            break
except socket.timeout:
    pass
sys.stderr.write("%.3f\n" % (time.monotonic() - t0))
sys.stdout.buffer.write(out)
"""


# For peers the console may refuse: it answers before reading and closes,
# so sending can fail (EPIPE) while the answer is already there to read.
PEER_CLIENT = r"""
import socket, sys, time
path, timeout = sys.argv[1], float(sys.argv[2])
data = sys.stdin.buffer.read()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(timeout)
t0 = time.monotonic()
s.connect(path)
try:
    s.sendall(data)
except (BrokenPipeError, ConnectionResetError):
    pass
out = b""
try:
    while not out.endswith(b"\n"):
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        out += b
except (socket.timeout, ConnectionResetError):
    pass
sys.stderr.write("%.3f\n" % (time.monotonic() - t0))
sys.stdout.buffer.write(out)
"""


class ConsoleEnv:
    def __init__(self, build=None, name=None):
        self.build = build or BUILD
        self.binary = lockfile_binary(self.build)
        # Plugins are static and built only in the plain build: a sanitized
        # console runs the plain build's plugins.
        self.plugin_build = os.environ.get("PLUGIN_BUILD") or (
            self.build if os.path.exists(os.path.join(
                self.build, "plugins", "is-pdf", "manifest.json"))
            else os.path.join(ROOT, "build"))
        self.base = tempfile.mkdtemp(prefix="lfe-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.name = name or os.path.basename(self.base)
        self.home = os.path.join(self.base, "home")
        self.rundir = os.path.join(self.base, "run")
        self.socket = os.path.join(self.rundir, "lockfile.sock")
        self.srcdir = os.path.join(self.base, "src")
        self.tmuxdir = os.path.join(self.base, "tmux")
        for d in (self.home, self.srcdir, self.tmuxdir):
            os.mkdir(d)
        os.mkdir(self.rundir)
        os.chown(self.rundir, uid_of(CONSOLE_USER), gid_of(CLIENTS_GROUP))
        os.chmod(self.rundir, 0o2750)
        # A root-owned system configuration directory of our own (the
        # console reads it through LOCKFILE_SYSCONFDIR): host.toml lands
        # here.
        self.sysconf = os.path.join(self.base, "etc")
        os.mkdir(self.sysconf)
        os.chmod(self.sysconf, 0o755)
        self.ns_init = None
        self.unshare = None
        self.agents_inside = False	# rpc() from inside the namespaces
        self.store = os.path.join(self.home, ".local/share/lockfile")
        os.makedirs(os.path.join(self.store, "plugins"))
        os.makedirs(os.path.join(self.home, ".config/lockfile"))
        os.makedirs(os.path.join(self.home, ".local/state/lockfile"))
        chown_tree(self.home, CONSOLE_USER)
        chown_tree(self.tmuxdir, CONSOLE_USER)
        os.chmod(self.home, 0o700)
        os.chmod(self.tmuxdir, 0o700)
        self.profiles = {}
        self.lock = {"schema": 1, "plugins": [], "indexes": []}
        self.started = False
        self.console_pid = None
        # The console renders readable UTF-8 only in a UTF-8 locale
        # (docs/rendering.md); None starts it with none (ASCII escapes).
        self.lang = "C.UTF-8"

    # ---- layout ----------------------------------------------------
    def add_local_profile(self, name, files=None, prefix="", production=False):
        d = os.path.join(self.srcdir, name)
        os.makedirs(d, exist_ok=True)
        for rel, data in (files or {}).items():
            self.write_source_file(d, rel, data)
        chown_tree(d, CONSOLE_USER)
        os.chmod(d, 0o700)
        self.profiles[name] = {"production": production, "source": "local",
                               "path": d, "prefix": prefix}
        return d

    @staticmethod
    def write_source_file(d, rel, data):
        """A file of a local source as docs/host.md lays one out: the
        console account's, 0600, in 0700 directories (the console refuses
        anything another account could read)."""
        p = os.path.join(d, rel)
        parent = os.path.dirname(p)
        os.makedirs(parent, mode=0o700, exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o600)
        uid, gid = uid_of(CONSOLE_USER), gid_of(CONSOLE_USER)
        os.chown(p, uid, gid)
        while os.path.normpath(parent) != os.path.normpath(d):
            os.chmod(parent, 0o700)
            os.chown(parent, uid, gid)
            parent = os.path.dirname(parent)
        return p

    def add_profile(self, name, table):
        """A profile of any source kind: table holds its keys."""
        self.profiles[name] = dict(table)

    def policy_text(self, **settings):
        lines = []
        for k, v in settings.items():
            lines.append("%s = %s" % (k, toml_value(v)))
        for name, t in self.profiles.items():
            lines.append("")
            lines.append("[profiles.%s]" % name)
            for k, v in t.items():
                lines.append("%s = %s" % (k, toml_value(v)))
        return "\n".join(lines) + "\n"

    def write_policy(self, approved=True, text=None, **settings):
        settings.setdefault("answer_quantum_s", 1)
        settings.setdefault("approval_timeout_s", 60)
        settings.setdefault("security_level", 1)
        text = text if text is not None else self.policy_text(**settings)
        self._write_home(".config/lockfile/policy.toml", text.encode(), 0o600)
        if approved:
            self._write_home(".local/state/lockfile/policy.approved.toml",
                             text.encode(), 0o600)
        return text

    def _write_home(self, rel, data, mode):
        p = os.path.join(self.home, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        chown_tree(self.home, CONSOLE_USER)
        return p

    def install_plugin(self, name, binary=None, manifest=None, official=True,
                       yanked=False, marketplace="official", manifest_edit=None):
        """Lay a plugin out in the store as `plugin install` would, with its
        plugins.lock record (the tests of the signed install are elsewhere)."""
        binary = binary or os.path.join(self.plugin_build, "plugins", name,
                                        name)
        manifest = manifest or os.path.join(self.plugin_build, "plugins", name,
                                            "manifest.json")
        with open(manifest, "rb") as f:
            m = json.loads(f.read())
        m["binary_sha256"] = sha256_file(binary)
        if manifest_edit:
            manifest_edit(m)
        mbytes = json.dumps(m, sort_keys=True).encode()
        d = os.path.join(self.store, "plugins", m["name"], m["version"])
        os.makedirs(d, exist_ok=True)
        shutil.copyfile(binary, os.path.join(d, "plugin"))
        os.chmod(os.path.join(d, "plugin"), 0o755)
        with open(os.path.join(d, "manifest.json"), "wb") as f:
            f.write(mbytes)
        os.chmod(os.path.join(d, "manifest.json"), 0o644)
        self.lock["plugins"] = [p for p in self.lock["plugins"]
                                if p["name"] != m["name"]]
        self.lock["plugins"].append({
            "name": m["name"], "version": m["version"],
            "manifest_sha256": hashlib.sha256(mbytes).hexdigest(),
            "binary_sha256": m["binary_sha256"],
            "marketplace": marketplace, "official": official,
            "yanked": yanked})
        self.write_lock()
        return d

    def write_lock(self):
        self._write_home(".local/share/lockfile/plugins.lock",
                         json.dumps(self.lock, indent=1).encode(), 0o600)

    # ---- the console -------------------------------------------------
    def tmux(self, *args, check=True):
        return as_user(CONSOLE_USER, ["tmux", "-L", self.name, "-f", "/dev/null"]
                       + list(args), env={"PATH": "/usr/bin:/bin",
                                          "TMUX_TMPDIR": self.tmuxdir,
                                          "HOME": self.home, "TERM": "xterm"},
                       check=check)

    def _pane_command(self, argv):
        """The shell command that starts argv, as the console account, in
        this environment's own tmux server (one pane, kept after exit).
        Options come from a config file: set after new-session they would
        miss the first window (the history limit matters: a long policy is
        thousands of lines)."""
        conf = os.path.join(self.tmuxdir, "tmux.conf")
        with open(conf, "w") as f:
            f.write("set-option -g history-limit 50000\n"
                    "set-option -g remain-on-exit on\n")
        os.chmod(conf, 0o644)
        inner = " ".join(shlex_quote(c) for c in argv)
        tmux_cmd = ("tmux -L %s -f %s new-session -d -s lf -x 220 -y 80 %s"
                    % (shlex_quote(self.name), shlex_quote(conf),
                       shlex_quote("exec " + inner)))
        lang = "LANG=%s " % shlex_quote(self.lang) if self.lang else ""
        return ("setpriv --reuid=%s --regid=%s --init-groups env -i "
                "PATH=/usr/bin:/bin TMUX_TMPDIR=%s HOME=%s TERM=xterm %ssh -c %s"
                % (CONSOLE_USER, CONSOLE_USER, self.tmuxdir, self.home, lang,
                   shlex_quote(tmux_cmd)))

    def _started(self):
        self.started = True
        self.console_pid = self._find_console()

    def _find_console(self, timeout=10):
        """The console's pid as the machine sees it (tmux reports the pid
        in its own pid namespace)."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                # lockfile execs lockfile-console in the same process
                # (docs/hacking.md, "Executables"): either name, one pid.
                if b"console" in argv and self.home.encode() in argv and \
                        os.path.basename(argv[0]) in (b"lockfile",
                                                      b"lockfile-console"):
                    return int(d)
            if not self.console_alive():
                return None
            time.sleep(0.05)
        return None

    def run_in_pane(self, args):
        """Run `lockfile ARGS` as the console account in this environment's
        own terminal (a tmux pane, as the console runs): for the commands
        that ask the human, like `policy approve`."""
        subprocess.run(["sh", "-c", self._pane_command([self.binary]
                                                       + list(args))],
                       check=True, timeout=30)
        self.started = True

    def console_argv(self, args=(), build=None, wrapper=()):
        binary = lockfile_binary(build) if build else self.binary
        return (["env", "LOCKFILE_SYSCONFDIR=" + self.sysconf] + list(wrapper)
                + [binary, "console", "--home", self.home, "--socket",
                   self.socket] + list(args))

    def start(self, args=(), hidepid=True, wait=True, build=None, wrapper=(),
              proc=None, ns=None, argv=None):
        """proc: "host", "private" or "none" (the module's docstring);
        hidepid=False is "none". wrapper: argv the console command is
        appended to (it must exec it), e.g. a seccomp shim that takes
        Landlock away. argv: the pane's command instead of the console."""
        proc = proc or ("host" if hidepid else "none")
        priv = self._pane_command(argv or self.console_argv(args, build,
                                                            wrapper))
        if proc == "enter":
            self.ns_init = ns
            self.agents_inside = True
            subprocess.run(self.in_host(["sh", "-c", priv]), check=True,
                           timeout=30)
        elif proc == "host":
            # The namespace's own procfs replaces the machine's copy (a
            # procfs left below it would be one that does not hide).
            script = ("%s && mount -t proc -o hidepid=invisible "
                      "proc /proc && env LOCKFILE_SYSCONFDIR=%s %s doctor "
                      "--declare-host >%s 2>&1 && %s && exec sleep 1000000"
                      % (UNMOUNT_PROCFS, shlex_quote(self.sysconf),
                         shlex_quote(self.binary),
                         shlex_quote(os.path.join(self.base, "declare.log")),
                         priv))
            self.unshare = subprocess.Popen(
                ["unshare", "--pid", "--mount", "--fork", "--kill-child",
                 "--propagation", "private", "sh", "-c", script],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            self.ns_init = self._child_of(self.unshare.pid)
            self.agents_inside = True
            self._wait_pane()
        elif proc == "private":
            subprocess.run(["unshare", "--mount", "--propagation", "private",
                            "sh", "-c", UNMOUNT_PROCFS + " && mount -t proc "
                            "-o hidepid=invisible proc /proc && " + priv],
                           check=True, timeout=30)
        else:
            subprocess.run(["sh", "-c", priv], check=True, timeout=30)
        if argv is not None:
            self.started = True
            return
        self._started()
        if wait:
            self.wait_for_socket()

    def _child_of(self, pid, timeout=10):
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                    kids = f.read().split()
                if kids:
                    return int(kids[0])
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError("unshare started no child")

    def _wait_pane(self, timeout=20):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.tmux("list-panes", check=False).returncode == 0:
                return
            if self.unshare is not None and self.unshare.poll() is not None:
                break
            time.sleep(0.05)
        log = os.path.join(self.base, "declare.log")
        raise RuntimeError("the console's tmux did not start: %s" % (
            open(log).read() if os.path.exists(log) else "(no log)"))

    def in_host(self, argv):
        """argv run from inside the simulated host (the console's pid and
        mount namespaces), when there is one."""
        if self.ns_init is None or not self.agents_inside:
            return list(argv)
        return ["nsenter", "-t", str(self.ns_init), "-p", "-m", "--"] + \
            list(argv)

    def wait_for_socket(self, timeout=15):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if os.path.exists(self.socket):
                return
            if not self.console_alive():
                raise RuntimeError("console exited:\n" + self.screen())
            time.sleep(0.05)
        raise RuntimeError("console socket did not appear:\n" + self.screen())

    def console_alive(self):
        r = self.tmux("list-panes", "-F", "#{pane_dead}", check=False)
        return r.returncode == 0 and r.stdout.strip() == b"0"

    def screen(self):
        r = self.tmux("capture-pane", "-p", "-J", "-S", "-20000", check=False)
        return r.stdout.decode("utf-8", "replace")

    def screen_raw(self):
        """The pane with its escape sequences (-e): to prove none came from
        an agent."""
        r = self.tmux("capture-pane", "-p", "-e", "-S", "-20000", check=False)
        return r.stdout

    def pane_log_start(self):
        """Record every byte written to the console's terminal (tmux
        pipe-pane), from now on: to prove no raw escape reached it."""
        self.tmux("pipe-pane", "-t", "lf", "-o",
                  "cat >> %s" % shlex_quote(os.path.join(self.tmuxdir,
                                                         "pane.log")))

    def pane_log(self):
        p = os.path.join(self.tmuxdir, "pane.log")
        if not os.path.exists(p):
            return b""
        with open(p, "rb") as f:
            return f.read()

    def type(self, text, enter=True):
        args = ["send-keys", "-t", "lf", "-l", text]
        self.tmux(*args)
        if enter:
            self.tmux("send-keys", "-t", "lf", "Enter")

    def wait_screen(self, pattern, timeout=20, count=1):
        t0 = time.time()
        rx = re.compile(pattern)
        while time.time() - t0 < timeout:
            s = self.screen()
            if len(rx.findall(s)) >= count:
                return s
            time.sleep(0.05)
        raise AssertionError("screen never showed %r:\n%s" % (pattern, self.screen()))

    def signal(self, sig):
        os.kill(self.console_pid, sig)

    def wait_exit(self, timeout=15):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if not self.console_alive():
                return
            time.sleep(0.05)
        raise AssertionError("console did not exit")

    def stop(self):
        try:
            if self.started:
                if self.console_alive():
                    try:
                        self.signal(signal.SIGTERM)
                        self.wait_exit()
                    except (ProcessLookupError, AssertionError, TypeError):
                        pass
                self.tmux("kill-server", check=False)
                self.started = False
        finally:
            # the namespace goes whatever happened above (--kill-child)
            if self.unshare is not None:
                self.unshare.kill()
                self.unshare.wait()
                self.unshare = None
                self.ns_init = None
                self.agents_inside = False

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    # ---- agents ------------------------------------------------------
    def rpc_raw(self, data, user="agent", timeout=30, one_line=True,
                gate=True):
        """Send raw bytes as user; returns (response bytes, seconds). Every
        response line is gated on the closed list (against the request when
        the bytes are one, else as an answer to an unreadable request)."""
        pw = pwd.getpwnam(user)
        argv = self.in_host(["setpriv", "--reuid=%d" % pw.pw_uid,
                             "--regid=%d" % pw.pw_gid, "--init-groups",
                             "env", "-i", "PATH=/usr/bin:/bin",
                             "HOME=" + pw.pw_dir, "/usr/bin/python3", "-c",
                             RPC_CLIENT, self.socket, str(timeout),
                             "1" if one_line else "0"])
        r = subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout + 10,
                           cwd="/")
        if r.returncode != 0:
            raise RuntimeError("rpc client failed: " + r.stderr.decode())
        secs = float(r.stderr.decode().strip().splitlines()[-1])
        if gate:
            try:
                req = json.loads(data.split(b"\n")[0])
                if not isinstance(req, dict) or "method" not in req:
                    raise ValueError
            except ValueError:
                req = {"jsonrpc": "2.0", "id": None, "method": "?"}
            for l in r.stdout.splitlines(keepends=True):
                check_reply(req, l, self.build)
        return r.stdout, secs

    def rpc_as_peer(self, data, user, dac_override=True, timeout=30,
                    gate=True):
        """Send raw bytes as user with only its own groups (none of the
        clients group) and, with dac_override, CAP_DAC_OVERRIDE: it reaches
        the 0660 socket in its 2750 directory as root in a Docker agent
        container would, so only the console's own peer check stands in its
        way. Returns (response bytes, seconds)."""
        pw = pwd.getpwnam(user)
        argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                "--clear-groups"]
        if dac_override:
            argv += ["--inh-caps=+dac_override",
                     "--ambient-caps=+dac_override"]
        argv += ["env", "-i", "PATH=/usr/bin:/bin", "/usr/bin/python3", "-c",
                 PEER_CLIENT, self.socket, str(timeout)]
        r = subprocess.run(self.in_host(argv), input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout + 10,
                           cwd="/")
        if r.returncode != 0:
            raise RuntimeError("rpc client failed: " + r.stderr.decode())
        secs = float(r.stderr.decode().strip().splitlines()[-1])
        if gate:
            try:
                req = json.loads(data.split(b"\n")[0])
                if not isinstance(req, dict) or "method" not in req:
                    raise ValueError
            except ValueError:
                req = {"jsonrpc": "2.0", "id": None, "method": "?"}
            for l in r.stdout.splitlines(keepends=True):
                check_reply(req, l, self.build)
        return r.stdout, secs

    def request(self, method, params=None, rid=1):
        req = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            req["params"] = params
        return req

    def rpc(self, method, params=None, rid=1, user="agent", timeout=30):
        """One request; returns (request, response line as str, seconds)."""
        req = self.request(method, params, rid)
        out, secs = self.rpc_raw((json.dumps(req) + "\n").encode(), user,
                                 timeout)
        return req, out.decode("utf-8", "replace"), secs

    # ---- what the console kept -----------------------------------------
    def audit(self):
        p = os.path.join(self.home, ".local/state/lockfile/audit.log")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return [json.loads(l) for l in f if l.strip()]

    def work_dir(self):
        return os.path.join(self.home, ".local/state/lockfile/work")

    def work_entries(self):
        d = self.work_dir()
        return sorted(os.listdir(d)) if os.path.isdir(d) else []


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (k, toml_value(x))
                                for k, x in v.items()) + " }"
    return json.dumps(str(v))


def check_reply(request, line, build=None):
    """Gate every response on the closed list: returns "result" or
    "error E_..." and raises AssertionError on anything else."""
    exe = os.path.join(build or BUILD, "tests", "harness", "check-reply")
    if isinstance(line, str):
        line = line.encode()
    r = subprocess.run([exe, json.dumps(request)], input=line,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    verdict = r.stdout.decode().strip()
    if r.returncode != 0:
        raise AssertionError("response outside the closed list (%s): %r"
                             % (verdict, line[:500]))
    return verdict


FORBIDDEN_WORDS = ("/", "size", "sha256", "bytes", "errno", "No such file",
                   "Permission denied")


def assert_no_leak(line, extra=()):
    """No size, hash, path or OS error text in a response: check the values
    (ids and hints are static and allowed)."""
    doc = json.loads(line)
    text = json.dumps(doc.get("result", doc.get("error", {})))
    for w in list(extra):
        assert str(w) not in text, "response leaks %r: %s" % (w, text)
    assert not re.search(r"[0-9a-f]{64}", text), "a sha256 in " + text
    assert "/srv" not in text and "/tmp" not in text and "/home" not in text, text
