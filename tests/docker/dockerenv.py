"""dockerenv: a real Docker engine of the tests' own, the images built from
this tree, and the human's terminal (tmux) where lox runs.

    eng = Engine()                       # dockerd on a private socket and root
    imgs = eng.build_images(build)       # docker/build-images.sh --local-base
    term = Terminal(eng)                 # a tmux server (root, the operator)
    term.start("lox run --source invoices=/tmp/... lftest-console")
    term.wait("Approve\\?"); term.type("y")
    eng.stop()

The engine is Debian's docker.io: `dockerd` with its own data root, exec
root and socket under a fresh /tmp directory (no bridge, no iptables: every
container here runs with --network none), started and stopped by the tests
(nothing runs at CI start). Its client is /usr/bin/docker (another docker
may come first on PATH). The base image comes from docker/mkbase.sh,
cached by content in BUILD/docker-cache, so a second run does not
bootstrap again.
"""
import grp
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

from lftest import uid_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
DOCKER = "/usr/bin/docker"
LOX = os.environ.get("LOX") or os.path.join(BUILD, "src", "lox", "lox")
PROFILE = os.path.join(ROOT, "docker", "seccomp.json")
TAG = "lftest"
IDS = {}    # "console", "agent": the IDs build_images recorded
PLUGINS = ("is-pdf", "is-utf8", "is-json", "contains", "sleeper")


def official_plugins(build=BUILD):
    """The official plugins' names, as the build lists them
    (plugins/meson.build writes BUILD/plugins/official.txt)."""
    with open(os.path.join(build, "plugins", "official.txt")) as f:
        return [l.strip() for l in f if l.strip()]


def gid_of(group):
    return grp.getgrnam(group).gr_gid


def ids():
    """The accounts the images are built with: the host's own, so files
    the tests make on the host belong to the same accounts inside."""
    return {"LOCKFILE_UID": uid_of("lockfile"),
            "LOCKFILE_GID": pwd.getpwnam("lockfile").pw_gid,
            "CLIENTS_GID": gid_of("lockfile-clients"),
            "AGENT_UID": uid_of("agent"),
            "AGENT_GID": pwd.getpwnam("agent").pw_gid}


# A second agent uid the images are built to allow (ALLOWED_UIDS): no
# account on the host, one in each image (docs/docker.md, "Several
# agents"); OUTSIDER_UID is allowed nowhere.
SECOND_UID = 2345
OUTSIDER_UID = 2346


class Engine:
    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="lfd-", dir="/tmp")
        os.chmod(self.base, 0o711)
        self.sock = os.path.join(self.base, "docker.sock")
        self.record = os.path.join(self.base, "images")
        self.ns = "lfd" + secrets.token_hex(6)
        self.host = "unix://" + self.sock
        self.log = open(os.path.join(self.base, "dockerd.log"), "wb")
        self.proc = subprocess.Popen(
            ["dockerd", "--data-root", os.path.join(self.base, "data"),
             "--exec-root", os.path.join(self.base, "x"),
             "--pidfile", os.path.join(self.base, "dockerd.pid"),
             "--host", self.host, "--bridge", "none", "--iptables=false",
             "--ip6tables=false", "--ip-masq=false",
             "--userland-proxy=false", "--log-level", "warn",
             # Namespaces of its own, should it share a system containerd
             # (a host where docker.service runs); containerd takes only
             # [A-Za-z0-9] words joined by . _ -, which a temporary
             # directory's name need not be.
             "--containerd-namespace", self.ns,
             "--containerd-plugins-namespace", self.ns + "-plugins"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            start_new_session=True)
        t0 = time.time()
        while time.time() - t0 < 60:
            if self.proc.poll() is not None:
                raise RuntimeError("dockerd exited:\n" + self.log_text())
            r = self.docker("version", "--format", "{{.Server.Version}}",
                            check=False, timeout=10)
            if r.returncode == 0:
                return
            time.sleep(0.3)
        raise RuntimeError("dockerd did not answer:\n" + self.log_text())

    def log_text(self):
        self.log.flush()
        with open(os.path.join(self.base, "dockerd.log"), "rb") as f:
            return f.read()[-4000:].decode("utf-8", "replace")

    def env(self, **extra):
        e = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
             "DOCKER_HOST": self.host, "LOX_DOCKER": DOCKER,
             "LOX_SECCOMP": PROFILE, "LOX_IMAGES": self.record,
             "TERM": "xterm"}
        e.update(extra)
        return e

    def docker(self, *args, input=None, timeout=120, check=True):
        r = subprocess.run([DOCKER] + list(args), input=input,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=self.env())
        if check and r.returncode != 0:
            raise RuntimeError("docker %s: %s" % (" ".join(args),
                               r.stderr.decode("utf-8", "replace")))
        return r

    def lox(self, *args, input=None, timeout=120, env=None):
        return subprocess.run([LOX] + list(args), input=input,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, env=env or self.env())

    def build_images(self, build=BUILD, official=False, hub=False):
        """The console and agent images of this build, with the Docker
        suite's sleeper plugin in the local marketplace; or, official=True,
        with build-images.sh's default: every official plugin; hub: the
        lockhub image too (build-images.sh --hub), as the host's lockhub
        uid."""
        pb = os.path.join(self.base, "plugin-build")
        for name in () if official else PLUGINS:
            d = os.path.join(pb, "plugins", name)
            os.makedirs(d)
            src = (os.path.join(build, "tests", "docker") if name == "sleeper"
                   else os.path.join(build, "plugins", name))
            shutil.copy(os.path.join(src, name), os.path.join(d, name))
            shutil.copy(os.path.join(src, "manifest.json"),
                        os.path.join(d, "manifest.json"))
        argv = [os.path.join(ROOT, "docker", "build-images.sh"),
                "--build", build, "--local-base", "--record", self.record,
                "--tag", TAG]
        if not official:
            argv += ["--plugin-build", pb, "--plugins", " ".join(PLUGINS)]
        for k, v in ids().items():
            argv += ["--build-arg", "%s=%d" % (k, v)]
        argv += ["--build-arg", "ALLOWED_UIDS=%d" % SECOND_UID]
        if hub:
            argv += ["--hub", "--build-arg", "HUB_UID=%d" % uid_of("lockhub")]
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=900,
                           env=dict(self.env(), DOCKER=DOCKER))
        if r.returncode != 0:
            raise RuntimeError("build-images: " + r.stderr.decode())
        # "console ID" and "agent ID", also recorded where lox reads them
        # ($LOX_IMAGES, env()): lox names images only by ID.
        for line in r.stdout.decode().splitlines():
            role, iid = line.split()
            IDS[role] = iid
        assert set(IDS) == ({"console", "agent", "hub"} if hub else
                            {"console", "agent"}), r.stdout
        return IDS

    def stop(self):
        """Stop every container, then the engine, then remove its root."""
        try:
            ids_ = self.docker("ps", "-aq", check=False,
                               timeout=30).stdout.split()
            if ids_:
                self.docker("rm", "-f", *[i.decode() for i in ids_],
                            check=False, timeout=60)
        except (subprocess.TimeoutExpired, OSError):
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        self.log.close()
        # Anything the engine left mounted below its root, deepest first.
        with open("/proc/self/mounts") as f:
            mounts = [l.split()[1] for l in f
                      if l.split()[1].startswith(self.base + "/")]
        for m in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "-l", m], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.base, ignore_errors=True)


class Terminal:
    """The operator's terminal: a tmux server of its own (as root, who runs
    lox), one window per command, kept after the command exits."""

    def __init__(self, eng, name=None):
        self.eng = eng
        self.dir = tempfile.mkdtemp(prefix="lfd-tmux-", dir="/tmp")
        os.chmod(self.dir, 0o700)
        self.name = name or os.path.basename(self.dir)
        conf = os.path.join(self.dir, "tmux.conf")
        with open(conf, "w") as f:
            f.write("set-option -g history-limit 50000\n"
                    "set-option -g remain-on-exit on\n")
        self.conf = conf
        self.windows = 0

    def _tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.name, "-f", self.conf]
                              + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=check,
                              env=dict(self.eng.env(), TMUX_TMPDIR=self.dir))

    def start(self, argv):
        """Run argv (a list) in a new window; returns its target."""
        env = " ".join("%s=%s" % (k, shlex.quote(v))
                       for k, v in self.eng.env().items())
        cmd = "exec env -i %s %s" % (env, " ".join(shlex.quote(a)
                                                    for a in argv))
        target = "lf%d" % self.windows
        self.windows += 1
        if target == "lf0":
            self._tmux("new-session", "-d", "-s", "lf", "-n", target,
                       "-x", "200", "-y", "60", cmd)
        else:
            self._tmux("new-window", "-d", "-t", "lf:", "-n", target, cmd)
        return "lf:" + target

    def screen(self, target):
        r = self._tmux("capture-pane", "-p", "-J", "-S", "-20000", "-t",
                       target, check=False)
        return r.stdout.decode("utf-8", "replace")

    def raw(self, target):
        r = self._tmux("capture-pane", "-p", "-e", "-S", "-20000", "-t",
                       target, check=False)
        return r.stdout

    def wait(self, target, pattern, timeout=60, count=1):
        rx = re.compile(pattern)
        t0 = time.time()
        while time.time() - t0 < timeout:
            s = self.screen(target)
            if len(rx.findall(s)) >= count:
                return s
            time.sleep(0.1)
        raise AssertionError("the terminal never showed %r:\n%s"
                             % (pattern, self.screen(target)[-3000:]))

    def type(self, target, text, enter=True):
        self._tmux("send-keys", "-t", target, "-l", text)
        if enter:
            self._tmux("send-keys", "-t", target, "Enter")

    def keys(self, target, *keys):
        self._tmux("send-keys", "-t", target, *keys)

    def dead(self, target):
        r = self._tmux("list-panes", "-t", target, "-F", "#{pane_dead}",
                       check=False)
        return r.stdout.strip() == b"1"

    def kill(self, target):
        self._tmux("kill-window", "-t", target, check=False)

    def stop(self):
        self._tmux("kill-server", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


PDF_BODY = (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
            b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")


def tiny_pdf():
    o1, o2, x = (PDF_BODY.index(b"1 0 obj"), PDF_BODY.index(b"2 0 obj"),
                 len(PDF_BODY))
    return PDF_BODY + (b"xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n"
                       b"%010d 00000 n \ntrailer\n<< /Size 3 /Root 1 0 R >>\n"
                       b"startxref\n%d\n%%%%EOF\n" % (o1, o2, x))


def make_source(base, files):
    """A local source on the host: the console account's, directories 0700,
    files 0600 (the console refuses a source another account could read,
    docs/sources.md)."""
    d = tempfile.mkdtemp(prefix="lfd-src-", dir=base)
    for rel, data in files.items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    uid, gid = uid_of("lockfile"), pwd.getpwnam("lockfile").pw_gid
    for dp, dns, fns in os.walk(d):
        os.chown(dp, uid, gid)
        os.chmod(dp, 0o700)
        for n in fns:
            os.chown(os.path.join(dp, n), uid, gid)
            os.chmod(os.path.join(dp, n), 0o600)
    return d


POLICY = """security_level = 1
answer_quantum_s = 1
approval_timeout_s = 120
allowed_uids = [%d]

[profiles.invoices]
production = false
source = "local"
path = "/srv/lockfile/invoices"
prefix = "2024/"
""" % SECOND_UID
