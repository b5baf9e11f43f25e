"""storeenv: signed test marketplaces, a root-owned trust configuration and
the real `lockfile plugin` commands run as the console account.

    signer = Signer(base)                     # testsign init: a test Sigstore
    mk = Market(base, "official", signer)     # marketplace/build.py over the
    mk.publish(version=3)                     # real plugins, signed per tag
    trust = Trust(base, signer, [("official", mk, True)])
    st = Store(home)                          # a console home (lockfile, 0700)
    r = st.run("install", "is-pdf", trust=trust)
    before = st.snapshot() ... assert st.snapshot() == before

Everything is signed as "the release.yml workflow of REPO run on the
artifact's tag" unless a test asks for another identity (Market.resign).
"""
import atexit
import concurrent.futures
import hashlib
import json
import os
import pwd
import shlex
import shutil
import socket
import stat
import subprocess
import tempfile
import time

from lftest import setpriv

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
# Plugins are static and built only in the plain build (a sanitized build
# has none): take them from PLUGIN_BUILD, else BUILD, else build/.
PLUGIN_BUILD = next(d for d in (os.environ.get("PLUGIN_BUILD"), BUILD,
                                os.path.join(ROOT, "build"))
                    if d and os.path.isfile(os.path.join(
                        d, "plugins", "is-pdf", "is-pdf")))
LOCKFILE = os.path.join(BUILD, "lockfile")
TESTSIGN = os.path.join(PLUGIN_BUILD, "tests", "sigstore", "testsign")
BUILDPY = os.path.join(ROOT, "marketplace", "build.py")
GH = "https://token.actions.githubusercontent.com"
CONSOLE_USER = "lockfile"
PLUGINS = ("is-pdf", "is-utf8", "is-json", "contains", "is-encrypted",
           "has-active-content", "archive-within-limits",
           "pdf-signatures-intact")


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def sha256_file(path):
    with open(path, "rb") as f:
        return sha256_bytes(f.read())


def make_base(prefix):
    d = tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    os.chmod(d, 0o755)
    return d


def repo_ids(repo):
    """The numeric repository and owner ids the test Sigstore puts in a
    certificate for repo (Fulcio .1.15, .1.17), fixed per name."""
    h = hashlib.sha256(repo.encode()).digest()
    return (str(100000 + int.from_bytes(h[:4], "big")),
            str(100000 + int.from_bytes(h[4:8], "big")))


def identity(repo, tag, workflow="release.yml", ref=None):
    ref = ref or "refs/tags/" + tag
    return ("https://github.com/%s/.github/workflows/%s@%s"
            % (repo, workflow, ref), ref)


class Signer:
    """A throw-away Sigstore (tests/sigstore/testsign)."""

    def __init__(self, base):
        self.dir = os.path.join(base, "testsign")
        subprocess.run([TESTSIGN, "init", self.dir], check=True,
                       stdout=subprocess.DEVNULL)
        self.root = os.path.join(self.dir, "trusted_root.json")
        self.plugins = snapshot_plugins(base)

    def sign(self, path, repo, tag, workflow="release.yml", ref=None,
             issuer=GH, source_repo=None, extra=(), repo_id=None,
             owner_id=None):
        """repo_id, owner_id: the ids in the certificate, by default the
        repository's own (repo_ids); "" leaves one out."""
        san, ref = identity(repo, tag, workflow, ref)
        rid, oid = repo_ids(source_repo or repo)
        ids = []
        for opt, v in (("--repo-id", rid if repo_id is None else repo_id),
                       ("--owner-id", oid if owner_id is None else owner_id)):
            if v:
                ids += [opt, v]
        argv = [TESTSIGN, "sign", self.dir, "--identity", san, "--issuer",
                issuer, "--repo", "https://github.com/" + (source_repo or repo),
                "--ref", ref] + ids + list(extra) + [path]
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError("testsign: " + r.stderr.decode())
        with open(path + ".sigstore.json", "wb") as f:
            f.write(r.stdout)
        os.chmod(path + ".sigstore.json", 0o644)


def snapshot_plugins(base):
    """A private copy of the built official plugins (binary and manifest),
    taken when each pair is consistent: the shared build may be rebuilt
    while the tests run. Returns a directory usable as build.py --build."""
    out = os.path.join(base, "build")
    for name in PLUGINS:
        src = os.path.join(PLUGIN_BUILD, "plugins", name)
        dst = os.path.join(out, "plugins", name)
        os.makedirs(dst)
        for _ in range(100):
            with open(os.path.join(src, name), "rb") as f:
                binary = f.read()
            with open(os.path.join(src, "manifest.json"), "rb") as f:
                manifest = f.read()
            if json.loads(manifest)["binary_sha256"] == sha256_bytes(binary):
                break
            time.sleep(0.5)
        else:
            raise RuntimeError("build/plugins/%s: manifest and binary "
                               "disagree (rebuild)" % name)
        with open(os.path.join(dst, name), "wb") as f:
            f.write(binary)
        os.chmod(os.path.join(dst, name), 0o755)
        with open(os.path.join(dst, "manifest.json"), "wb") as f:
            f.write(manifest)
    return out


class Market:
    """A marketplace directory: marketplace/build.py over the real official
    plugins (a snapshot of the build: snapshot_plugins), then signed
    artifact by artifact."""

    def __init__(self, base, name, signer, repo="lockfile-test/market",
                 plugins=PLUGINS, build=None):
        self.name = name
        self.repo = repo
        self.repo_id, self.owner_id = repo_ids(repo)
        self.signer = signer
        self.dir = os.path.join(base, "market-" + name)
        os.makedirs(self.dir)
        subprocess.run([BUILDPY, "plugins", "--build",
                        build or signer.plugins, "--out", self.dir] +
                       list(plugins), check=True, stdout=subprocess.DEVNULL)
        self.version = None

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def plugin_dir(self, name, version="1.0.0"):
        return self.path("plugins/%s/%s" % (name, version))

    def manifest(self, name, version="1.0.0"):
        with open(os.path.join(self.plugin_dir(name, version),
                               "manifest.json")) as f:
            return json.load(f)

    def add_version(self, name, version, edit=None, binary=None,
                    from_version="1.0.0"):
        """A new version of a plugin: its 1.0.0 manifest with the version
        changed and edit(m) applied; the same binary unless given."""
        src = self.plugin_dir(name, from_version)
        d = self.plugin_dir(name, version)
        os.makedirs(d)
        shutil.copyfile(binary or os.path.join(src, "plugin"),
                        os.path.join(d, "plugin"))
        os.chmod(os.path.join(d, "plugin"), 0o755)
        m = self.manifest(name, from_version)
        m["version"] = version
        m["binary_sha256"] = sha256_file(os.path.join(d, "plugin"))
        if edit:
            edit(m)
        self.write_manifest(name, version, m)
        return d

    def write_manifest(self, name, version, m, raw=None):
        p = os.path.join(self.plugin_dir(name, version), "manifest.json")
        with open(p, "wb") as f:
            f.write(raw if raw is not None else
                    (json.dumps(m, indent=2, sort_keys=True) + "\n").encode())
        os.chmod(p, 0o644)

    def artifacts(self):
        r = subprocess.run([BUILDPY, "artifacts", "--out", self.dir],
                           check=True, stdout=subprocess.PIPE)
        return [l.split(" ", 1) for l in r.stdout.decode().splitlines()]

    def publish(self, version, expires=None, yanked=(), repository=None):
        """Write index.json (build.py index) and sign every artifact."""
        args = [BUILDPY, "index", "--out", self.dir, "--repository",
                repository or self.repo, "--version", str(version)]
        if expires is None:
            args += ["--expires-days", "30"]
        else:
            args += ["--expires", str(expires)]
        yf = os.path.join(self.dir, ".yanked")
        with open(yf, "w") as f:
            f.write("".join("%s\n" % y for y in yanked))
        args += ["--yanked", yf]
        env = dict(os.environ)
        env["SOURCE_DATE_EPOCH"] = str(int(time.time()))
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
        os.unlink(yf)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for f in [pool.submit(self.signer.sign, self.path(rel), self.repo,
                                  tag) for tag, rel in self.artifacts()]:
                f.result()
        self.version = version
        subprocess.run(["chmod", "-R", "a+rX", self.dir], check=True)

    def resign(self, rel, **kw):
        """Sign one artifact again, by default as this marketplace on the
        artifact's own tag; kw overrides (repo, tag, workflow, ref,
        issuer, source_repo, extra, repo_id, owner_id)."""
        tags = dict((r, t) for t, r in self.artifacts())
        kw.setdefault("repo", self.repo)
        kw.setdefault("tag", tags.get(rel))
        self.signer.sign(self.path(rel), **kw)

    def index(self):
        with open(self.path("index.json")) as f:
            return json.load(f)

    def write_index(self, doc, sign_tag=None):
        with open(self.path("index.json"), "w") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        self.signer.sign(self.path("index.json"), self.repo,
                         sign_tag or "index/v%d" % doc["version"])


class Trust:
    """A root-owned system configuration directory (LOCKFILE_SYSCONFDIR):
    trusted_root.json from the test Sigstore and trust.toml."""

    def __init__(self, base, signer, markets, release_repo="lockfile-test/lockfile",
                 root=None):
        self.dir = os.path.join(base, "etc-lockfile")
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        shutil.copyfile(root or signer.root,
                        os.path.join(self.dir, "trusted_root.json"))
        os.chmod(os.path.join(self.dir, "trusted_root.json"), 0o644)
        self.write(markets, release_repo)

    def write(self, markets, release_repo="lockfile-test/lockfile", url=None,
              ids=True, floors=None):
        """ids: pin each repository's and owner's ids (repo_ids), or a
        dict name -> (repository_id, owner_id), or False: none. floors:
        name -> index_floor."""
        rid, oid = repo_ids(release_repo)
        lines = ['release_repository = "%s"' % release_repo,
                 "release_repository_id = %s" % rid,
                 "release_owner_id = %s" % oid]
        for name, mk, official in markets:
            lines += ["", "[marketplaces.%s]" % name,
                      'url = "%s"' % (url or mk.dir),
                      'repository = "%s"' % mk.repo,
                      "official = %s" % ("true" if official else "false")]
            pin = ids.get(name) if isinstance(ids, dict) else (
                (mk.repo_id, mk.owner_id) if ids else None)
            if pin:
                lines += ["repository_id = %s" % pin[0],
                          "owner_id = %s" % pin[1]]
            if floors and name in floors:
                lines.append("index_floor = %d" % floors[name])
        self.write_text("\n".join(lines) + "\n")

    def write_text(self, text):
        p = os.path.join(self.dir, "trust.toml")
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o644)


def chown_tree(path, user=CONSOLE_USER):
    pw = pwd.getpwnam(user)
    os.chown(path, pw.pw_uid, pw.pw_gid)
    for d, dirs, files in os.walk(path):
        for n in dirs + files:
            os.chown(os.path.join(d, n), pw.pw_uid, pw.pw_gid,
                     follow_symlinks=False)


def sanitizer_env():
    return {"ASAN_OPTIONS": "exitcode=99:detect_leaks=1:abort_on_error=0",
            "UBSAN_OPTIONS": "halt_on_error=1:exitcode=98:print_stacktrace=1"}


class Store:
    """A console home and the real `lockfile plugin` commands in it."""

    def __init__(self, home=None, base=None):
        if home is None:
            home = os.path.join(base, "home")
            os.makedirs(os.path.join(home, ".local/share/lockfile"))
            pw = pwd.getpwnam(CONSOLE_USER)
            for d, _, _ in os.walk(home):
                os.chown(d, pw.pw_uid, pw.pw_gid)
            os.chmod(home, 0o700)
        self.home = home
        self.store = os.path.join(home, ".local/share/lockfile")
        self.lockpath = os.path.join(self.store, "plugins.lock")

    def argv(self, args, trust=None, sysconf=None, user=CONSOLE_USER,
             binary=None):
        env = ["PATH=/usr/bin:/bin"]
        sc = sysconf or (trust.dir if trust else None)
        if sc:
            env.append("LOCKFILE_SYSCONFDIR=" + sc)
        env += ["%s=%s" % kv for kv in sanitizer_env().items()]
        cmd = [binary or LOCKFILE, "plugin"] + list(args) + ["--home",
                                                             self.home]
        if user == "root":
            return ["env", "-i"] + env + cmd
        return (setpriv(user) + ["env", "-i"] + env + cmd)

    def run(self, *args, trust=None, sysconf=None, user=CONSOLE_USER,
            timeout=120, binary=None):
        """No controlling terminal (a new session): what a loosening gets
        when nobody can type."""
        return subprocess.run(self.argv(args, trust, sysconf, user, binary),
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, start_new_session=True,
                              cwd="/")

    def lock(self):
        with open(self.lockpath) as f:
            return json.load(f)

    def entry(self, name):
        for e in self.lock()["plugins"]:
            if e["name"] == name:
                return e
        return None

    def plugin_dir(self, name, version="1.0.0"):
        return os.path.join(self.store, "plugins", name, version)

    def snapshot(self):
        """Every path below the store with its type, mode and bytes: two
        equal snapshots mean nothing was written."""
        out = {}
        for d, dirs, files in os.walk(self.store):
            rel = os.path.relpath(d, self.store)
            st = os.lstat(d)
            out[rel + "/"] = (stat.S_IFMT(st.st_mode), st.st_mode & 0o7777,
                              None)
            for f in files:
                p = os.path.join(d, f)
                st = os.lstat(p)
                with open(p, "rb") as fh:
                    data = fh.read()
                out[os.path.join(rel, f)] = (stat.S_IFMT(st.st_mode),
                                             st.st_mode & 0o7777, data)
        return out

    def assert_no_plugin_changed(self, before, markets):
        """After a refusal, against a snapshot() taken before it: every file
        below the store and every plugin record is as it was; plugins.lock
        may only have gained index records, each its marketplace's current
        signed index (markets: name -> Market)."""
        after, before = self.snapshot(), dict(before)
        lock_b, lock_a = before.pop("./plugins.lock", None), after.pop(
            "./plugins.lock", None)
        assert after == before, "a file below the store changed on a refusal"
        if lock_a == lock_b:
            return
        empty = {"plugins": [], "indexes": []}
        old = json.loads(lock_b[2]) if lock_b else empty
        new = json.loads(lock_a[2])
        assert new["plugins"] == old["plugins"], "a plugin record changed"
        for x in new["indexes"]:
            if x not in old["indexes"]:
                mk = markets[x["marketplace"]]
                assert (x["version"], x["sha256"]) == (
                    mk.index()["version"], _index_sha256(mk)), x


def pty_of(user):
    """A pseudo-terminal opened by a process of user (devpts gives the
    slave to the opener, as a login gives it to the account logging in):
    (master, slave). That process then runs `sleep` holding the master, as
    a terminal of user's own would (a tmux server): the terminal checks
    look for a holder they can see (terminal.master, src/host/relay.c);
    this test process, root's, holds it too, which hidepid hides. The
    holder goes with the test run's end (pty_holders)."""
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        try:
            pw = pwd.getpwnam(user)
            os.setgroups([])
            os.setresgid(pw.pw_gid, pw.pw_gid, pw.pw_gid)
            os.setresuid(pw.pw_uid, pw.pw_uid, pw.pw_uid)
            master, slave = os.openpty()
            socket.send_fds(theirs, [b"p"], [master, slave])
            os.close(slave)
            os.set_inheritable(master, True)
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):	# not the runner's pipes
                os.dup2(null, fd)
            # exec: a process that changed its uid is not dumpable, so
            # hidden even from its own account; exec makes it visible
            os.execv("/bin/sleep", ["sleep", "600"])
        finally:
            os._exit(0)
    theirs.close()
    _, fds, _, _ = socket.recv_fds(ours, 1, 2)
    ours.close()
    pty_holders.append(pid)
    master, slave = fds
    assert os.fstat(slave).st_uid == pwd.getpwnam(user).pw_uid
    return master, slave


pty_holders = []
atexit.register(lambda: end_pty_holders())


def end_pty_holders():
    while pty_holders:
        pid = pty_holders.pop()
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass


def spawn_on_terminal(argv, user=CONSOLE_USER, setup=()):
    """argv (a command run as the console account) with a terminal opened
    by user as its controlling terminal (setsid --ctty), in a private mount
    namespace where /proc is mounted hidepid=invisible (the console account
    sees only its own processes, as on a host set up for the console) and
    the shell commands setup have run. A pexpect.fdpexpect.fdspawn on the
    terminal's master; child.proc is the process."""
    import pexpect.fdpexpect
    master, slave = pty_of(user)
    script = " && ".join(["mount -t proc -o hidepid=invisible proc /proc"] +
                         list(setup) + ["exec " + shlex.join(argv)])
    proc = subprocess.Popen(["setsid", "--ctty", "unshare", "--mount",
                             "--propagation", "private", "sh", "-c", script],
                            stdin=slave, stdout=slave, stderr=slave, cwd="/",
                            close_fds=True)
    os.close(slave)
    child = pexpect.fdpexpect.fdspawn(master, timeout=60)
    child.proc = proc
    return child


def finish_terminal(child):
    """Read to the end of a spawn_on_terminal() command: its status."""
    import pexpect
    try:
        child.expect(pexpect.EOF)
    except OSError:
        pass	# EIO: every slave is closed
    rc = child.proc.wait(timeout=60)
    child.close()
    end_pty_holders()
    return rc


def _index_sha256(mk):
    return sha256_file(mk.path("index.json"))


def out_text(r):
    return (r.stdout + r.stderr).decode("utf-8", "replace")


def assert_clean_exit(r, code):
    text = out_text(r)
    assert r.returncode == code, "exit %d (wanted %d): %s" % (
        r.returncode, code, text)
    assert "Sanitizer" not in text and "runtime error" not in text, text
