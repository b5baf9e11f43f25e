"""relenv: signed test releases of lockfile, served over HTTPS, and the
real `lockfile update` run as root on a test prefix.

    signer = Signer(base)                           # tests/store: testsign
    rel = Release(base, signer, "v0.2.0")           # scripts/release.py
    rel.publish()                                   # sign every artifact
    srv = Server(base)                              # TLS, a test CA
    srv.serve(rel, latest=True)                     # /releases/download/TAG/
    pfx = Prefix(base)                              # a root-owned prefix
    r = pfx.update(srv, trust, "--version", "v0.2.0")
    before = pfx.snapshot() ... assert pfx.snapshot() == before

Releases are laid out by scripts/release.py (what release.yml runs) and
signed as "the release.yml workflow of lockfile-test/lockfile run on the
tag" unless a test signs otherwise. The launcher in a test release is the
plain build's lockfile with a marker appended (an ELF runs with trailing
bytes), so every version has its own bytes and still runs.
"""
import hashlib
import http.server
import os
import shlex
import shutil
import ssl
import stat
import subprocess
import tempfile
import threading

from lftest import setpriv

HERE = os.path.dirname(os.path.abspath(__file__))

from storeenv import (BUILD, GH, PLUGIN_BUILD, ROOT, Signer,  # noqa: E402,F401
                      assert_clean_exit, make_base, out_text, repo_ids,
                      sanitizer_env)
from test_store_https import CA_BUNDLE, make_pki  # noqa: E402

LOCKFILE = os.path.join(BUILD, "lockfile")
PLAIN_LOCKFILE = os.path.join(PLUGIN_BUILD, "lockfile")
EXECUTABLES = ("lockfile", "lockfile-console", "lockfile-parse-worker",
               "lockfile-sandbox-run")
RELEASE_PY = os.path.join(ROOT, "scripts", "release.py")
INSTALL_SH = os.path.join(ROOT, "scripts", "install.sh")
SECCOMP = os.path.join(ROOT, "docker", "seccomp.json")
REPO = "lockfile-test/lockfile"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Release:
    """One release vX.Y.Z: a stage directory (KIND/NAME) laid out by
    scripts/release.py manifest into out/ (the release's assets)."""

    def __init__(self, base, signer, tag, repo=REPO, extra=None):
        self.tag, self.repo, self.signer = tag, repo, signer
        self.dir = tempfile.mkdtemp(prefix="rel-%s-" % tag, dir=base)
        os.chmod(self.dir, 0o755)
        self.stage = os.path.join(self.dir, "stage")
        self.out = os.path.join(self.dir, "out")
        for k in ("bin", "share", "trust", "info"):
            os.makedirs(os.path.join(self.stage, k))
        # Every executable of a role (docs/hacking.md), each this build's
        # with the tag appended, so two releases differ in every one.
        for exe in EXECUTABLES:
            with open(os.path.join(PLUGIN_BUILD, exe), "rb") as f:
                self.put("bin", exe, f.read() + b"\0lockfile-test " +
                         tag.encode() + b"\0")
        with open(SECCOMP, "rb") as f:
            self.put("share", "seccomp.json", f.read())
        self.put("bin", "lox", b"#!/bin/sh\necho lox " + tag.encode() + b"\n")
        self.put("trust", "trust.toml", b"# the release's trust.toml\n")
        self.put("info", "buildinfo.txt", b"test release " + tag.encode() +
                 b"\n")
        for kind, name, data in (extra or ()):
            self.put(kind, name, data)

    def put(self, kind, name, data):
        os.makedirs(os.path.join(self.stage, kind), exist_ok=True)
        with open(os.path.join(self.stage, kind, name), "wb") as f:
            f.write(data)

    def path(self, name):
        return os.path.join(self.out, name)

    def layout(self):
        subprocess.run([RELEASE_PY, "manifest", "--stage", self.stage,
                        "--out", self.out, "--repository", self.repo,
                        "--tag", self.tag, "--commit", COMMIT,
                        "--source-date-epoch", "1700000000"], check=True)
        return self

    def artifacts(self):
        r = subprocess.run([RELEASE_PY, "artifacts", "--out", self.out],
                           check=True, stdout=subprocess.PIPE)
        return r.stdout.decode().split()

    def sign(self, name, **kw):
        """Sign one asset (default: release.yml of this release's
        repository on its tag); kw: repo, tag, workflow, ref, issuer,
        source_repo, extra."""
        kw.setdefault("repo", self.repo)
        kw.setdefault("tag", self.tag)
        self.signer.sign(self.path(name), **kw)

    def publish(self, **kw):
        self.layout()
        for name in self.artifacts():
            self.sign(name, **kw)
        subprocess.run(["chmod", "-R", "a+rX", self.dir], check=True)
        return self

    def install_sh(self, url):
        r = subprocess.run([RELEASE_PY, "install-sh", "--out", self.out,
                            "--template", INSTALL_SH, "--runtime-packages",
                            os.path.join(ROOT, "docker", "runtime-packages"),
                            "--url", url], check=True, stdout=subprocess.PIPE)
        return r.stdout.decode().split()[0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        srv = self.server
        path = self.path.split("?")[0]
        srv.hits.append(path)
        target = srv.files.get(path)
        if target is None or not os.path.isfile(target):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(target, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            if path in srv.truncate:
                # Half the body, then the connection closes.
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            if path in srv.stall:
                self.wfile.write(data[:1024])
                self.wfile.flush()
                srv.stall[path].wait(60)
                self.close_connection = True
                return
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True


class Server:
    """A TLS server with a test CA, serving releases laid out as GitHub's:
    /releases/download/TAG/NAME and /releases/latest/download/NAME."""

    def __init__(self, base, pki=None):
        self.pki = pki or make_pki(os.path.join(base, "pki"))
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(self.pki, "srv.pem"),
                            os.path.join(self.pki, "srv.key"))
        self.srv.socket = ctx.wrap_socket(self.srv.socket, server_side=True)
        self.srv.daemon_threads = True
        self.srv.files, self.srv.hits = {}, []
        self.srv.truncate, self.srv.stall = set(), {}
        self.port = self.srv.server_address[1]
        self.url = "https://localhost:%d/releases" % self.port
        self.ca = os.path.join(self.pki, "ca.pem")
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def serve(self, rel, latest=False, at=None):
        """Serve rel's assets under its tag (or the tag at), and as the
        latest release when asked."""
        dirs = ["/releases/download/%s/" % (at or rel.tag)]
        if latest:
            dirs.append("/releases/latest/download/")
        for name in os.listdir(rel.out):
            for d in dirs:
                self.srv.files[d + name] = rel.path(name)

    def unserve(self, path):
        self.srv.files.pop(path, None)

    def stop(self):
        for ev in self.srv.stall.values():
            ev.set()
        self.srv.shutdown()
        self.srv.server_close()


class Trust:
    """A root-owned LOCKFILE_SYSCONFDIR: the test Sigstore's trusted root
    and a trust.toml naming the release repository and URL."""

    def __init__(self, base, signer, url, repo=REPO):
        self.dir = os.path.join(base, "etc-lockfile")
        self.url = url
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        shutil.copyfile(signer.root, os.path.join(self.dir,
                                                  "trusted_root.json"))
        os.chmod(os.path.join(self.dir, "trusted_root.json"), 0o644)
        self.write(repo, url)

    def write(self, repo, url, ids=None):
        """ids: (repository id, owner id) to pin, by default the ones the
        test Sigstore gives repo (repo_ids); False: none."""
        p = os.path.join(self.dir, "trust.toml")
        with open(p, "w") as f:
            f.write(trust_toml(repo, url, ids))
        os.chmod(p, 0o644)


def trust_toml(repo, url, ids=None):
    text = 'release_repository = "%s"\nrelease_url = "%s"\n' % (repo, url)
    if ids is not False:
        rid, oid = ids or repo_ids(repo)
        text += "release_repository_id = %s\nrelease_owner_id = %s\n" % (
            rid, oid)
    return text


class Prefix:
    """A root-owned installation prefix (bin/, share/lockfile/,
    lib/lockfile/), and lockfile update run on it as root."""

    def __init__(self, base, name="prefix"):
        self.dir = os.path.join(base, name)
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o755)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def argv(self, srv, trust, args, binary=None, user="root"):
        env = ["PATH=/usr/bin:/bin", "LOCKFILE_SYSCONFDIR=" + trust.dir]
        env += ["%s=%s" % kv for kv in sanitizer_env().items()]
        cmd = ["env", "-i"] + env + [binary or LOCKFILE, "update",
                                     "--prefix", self.dir] + list(args)
        if user != "root":
            cmd = setpriv(user) + cmd
        script = "mount --bind %s %s && exec %s" % (
            shlex.quote(srv.ca), CA_BUNDLE, shlex.join(cmd))
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                script]

    def update(self, srv, trust, *args, user="root", timeout=120):
        return subprocess.run(self.argv(srv, trust, args, user=user),
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, start_new_session=True,
                              cwd="/")

    def snapshot(self):
        """Every path below the prefix with its type, owner, mode and
        bytes: two equal snapshots mean nothing was written."""
        out = {}
        for d, dirs, files in os.walk(self.dir):
            for n in [""] + files:
                p = os.path.join(d, n) if n else d
                st = os.lstat(p)
                data = None
                if stat.S_ISREG(st.st_mode):
                    with open(p, "rb") as f:
                        data = f.read()
                out[os.path.relpath(p, self.dir)] = (
                    stat.S_IFMT(st.st_mode), st.st_uid, st.st_mode & 0o7777,
                    data)
        return out

    def read(self, *parts):
        with open(self.path(*parts), "rb") as f:
            return f.read()

    def doctor_line(self, trust, user="lockfile"):
        """The launcher line of the installed lockfile's doctor."""
        home = "/home/" + user
        r = subprocess.run(
            setpriv(user) +
            ["env", "-i", "PATH=/usr/bin:/bin",
             "LOCKFILE_SYSCONFDIR=" + trust.dir,
             self.path("bin", "lockfile"), "doctor", "--home", home],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=60, cwd="/")
        for line in r.stdout.decode().splitlines():
            if line.split()[1:2] == ["launcher"]:
                return line
        raise AssertionError("no launcher line: " + out_text(r))
