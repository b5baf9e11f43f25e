"""hubenv: a real lockhub on loopback for the tests, as its own account
(`lockhub`), with its state in a fresh directory, and a signed HTTP client
built on hubwire.py (the second implementation of the layouts).

    hub = HubEnv(); hub.init(); hub.enroll("device", "alice", dev_key)
    hub.start(poll_s=1)
    st, body = hub.call("GET", "/v1/pending", key=dev_key)
    hub.stop()
"""
import http.client
import os
import pwd
import shutil
import signal
import ssl
import subprocess
import tempfile
import time

import hubwire  # noqa: E402
import pgenv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
HUB_USER = "lockhub"


def lockhub_binary(build=None):
    return os.path.join(build or BUILD, "src", "hub", "lockhub")


def run_as(user, argv, timeout=30, input=None):
    pw = pwd.getpwnam(user)
    return subprocess.run(argv, input=input, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          user=pw.pw_uid, group=pw.pw_gid, extra_groups=[],
                          cwd="/", env={"PATH": "/usr/bin:/bin",
                                        "HOME": pw.pw_dir})


def self_signed_cert(base):
    """A self-signed certificate for 127.0.0.1 in base (openssl): the
    paths of cert.pem and key.pem."""
    cert = os.path.join(base, "cert.pem")
    key = os.path.join(base, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                    "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2",
                    "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class HubEnv:
    """store: a postgresql:// URL, "pg" for a fresh database on the tests'
    own PostgreSQL, None for SQLite in the state directory; by default
    "pg" under LOCKHUB_STORE=pg (the hub-pg suite)."""
    def __init__(self, build=None, store="env"):
        self.bin = lockhub_binary(build)
        if store == "env":
            store = pgenv.env_store()
        if store == "pg":
            store = pgenv.server().new_db()
        self.store = store
        self.base = tempfile.mkdtemp(prefix="lfhub-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.state = os.path.join(self.base, "state")
        self.proc = None
        self.port = None
        self.tls = None
        self.key = None        # the hub's public key (bytes)
        self.log = os.path.join(self.base, "lockhub.log")

    def store_args(self):
        return ["--store", self.store] if self.store else []

    def lockhub(self, *args, timeout=30):
        r = run_as(HUB_USER, [self.bin] + list(args) + ["--state", self.state]
                   + self.store_args(), timeout=timeout)
        assert b"Sanitizer" not in r.stderr and b"runtime error" not in r.stderr, \
            r.stderr
        return r

    def init(self):
        os.mkdir(self.state, 0o700)
        pw = pwd.getpwnam(HUB_USER)
        os.chown(self.state, pw.pw_uid, pw.pw_gid)
        r = self.lockhub("init")
        assert r.returncode == 0, r.stderr
        line = r.stdout.decode().split("\n")[0]
        assert line.startswith("hub-key ed25519:"), line
        self.key = bytes.fromhex(line.split(":")[1])
        return r

    def enroll(self, role, name, key):
        r = self.lockhub("enroll", role, name, key.text())
        assert r.returncode == 0, r.stderr
        return r

    def tls_files(self):
        """A self-signed certificate for 127.0.0.1, lockhub's to read."""
        cert, key = self_signed_cert(self.base)
        pw = pwd.getpwnam(HUB_USER)
        for f in (cert, key):
            os.chown(f, pw.pw_uid, pw.pw_gid)
        os.chmod(key, 0o600)
        os.chmod(cert, 0o644)
        self.tls = cert
        return cert, key

    def start(self, poll_s=2, rate="100000/1", extra=(), tls=False):
        args = [self.bin, "serve", "--state", self.state, "--listen",
                "127.0.0.1:0", "--poll-s", str(poll_s), "--rate", rate,
                "--ready-fd", None] + self.store_args() + list(extra)
        if tls:
            cert, key = self.tls_files()
            args += ["--tls-cert", cert, "--tls-key", key]
        rfd, wfd = os.pipe()
        args[args.index(None)] = str(wfd)
        pw = pwd.getpwnam(HUB_USER)
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(args, stdout=logf, stderr=logf,
                                     pass_fds=(wfd,),
                                     user=pw.pw_uid, group=pw.pw_gid,
                                     extra_groups=[], cwd="/",
                                     env={"PATH": "/usr/bin:/bin"})
        os.close(wfd)
        logf.close()
        with os.fdopen(rfd, "rb") as r:
            line = r.readline()
        assert line, "lockhub did not start: " + self.read_log()
        self.port = int(line)
        return self.port

    def read_log(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    @property
    def url(self):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)

    def conn(self, timeout=30):
        if self.tls:
            ctx = ssl.create_default_context(cafile=self.tls)
            return http.client.HTTPSConnection("127.0.0.1", self.port,
                                               timeout=timeout, context=ctx)
        return http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=timeout)

    def call(self, method, path, body=b"", key=None, auth=None, timeout=30,
             headers=None, sign_path=None, sign_method=None, time_ms=None,
             nonce=None, sign_body=None):
        """One request; signed by key unless auth (the raw header) is given.
        Returns (status, body bytes)."""
        hdrs = dict(headers or {})
        if auth is None and key is not None:
            req = hubwire.enc_request(sign_method or method, sign_path or path,
                                      body if sign_body is None else sign_body,
                                      key, time_ms=time_ms, nonce=nonce)
            auth = hubwire.b64(req)
        if auth is not None:
            hdrs["Lockhub-Auth"] = auth
        c = self.conn(timeout)
        try:
            c.request(method, path, body=body if body else None, headers=hdrs)
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc = self.proc.returncode
        self.proc = None
        # An ASan/UBSan build reports into the log: a report fails the test.
        log = self.read_log()
        assert "Sanitizer" not in log and "runtime error" not in log, log
        return rc

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)
