"""multihub: several real lockhub processes on one store, behind a real
HAProxy with the shipped configuration (docs/haproxy/lockhub.cfg), on
loopback (docs/hub.md, "Operating several hubs").

The store is a parameter: LOCKHUB_STORE ("pg": a fresh database on the
tests' own PostgreSQL, tests/hub/pgenv.py; or a postgresql:// URL) is
passed to every lockhub command, init and enroll as serve, as --store;
unset, the instances share the SQLite file of one state directory. The
kill test's "restart the store engine" step is pg_ctl restart of the
tests' own server, or LOCKHUB_STORE_RESTART, a shell command (nothing to
restart for SQLite).

    m = MultiHub(n=3); m.hub.enroll(...); m.start_all(); m.start_proxy()
    st, body = m.call("GET", "/v1/pending", key=dev)          # via HAProxy
    st, body = m.call("GET", "/v1/pending", key=dev, inst=1)  # instance 1
    m.kill(1); m.start(1); m.cleanup()
"""
import http.client
import os
import pwd
import signal
import socket
import ssl
import subprocess
import time

import hubwire as hw  # noqa: E402
import pgenv  # noqa: E402
from hubenv import HUB_USER, HubEnv, self_signed_cert  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HAPROXY_CFG = os.environ.get("LOCKHUB_HAPROXY_CFG") or os.path.join(
    ROOT, "docs", "haproxy", "lockhub.cfg")
HAPROXY = "/usr/sbin/haproxy"


def free_port(host="127.0.0.1"):
    s = socket.socket()
    s.bind((host, 0))
    p = s.getsockname()[1]
    s.close()
    return p


def restart_store():
    """The store engine restarted once (pgenv.restart_env); SQLite has no
    server."""
    return pgenv.restart_env()


class MultiHub:
    def __init__(self, n=3, poll_s=2, recheck_ms=None, rate="100000/1",
                 trusted=("127.0.0.1",), build=None):
        self.hub = HubEnv(build)
        self.hub.init()
        self.n = n
        self.poll_s = poll_s
        self.recheck_ms = recheck_ms
        self.rate = rate
        self.trusted = list(trusted)
        self.ports = [free_port() for _ in range(n)]
        self.procs = [None] * n
        self.proxy = None
        self.front = None
        self.cert = None
        self.logs = [os.path.join(self.hub.base, "lockhub%d.log" % i)
                     for i in range(n)]
        self.proxy_log = os.path.join(self.hub.base, "haproxy.log")

    # ---- the instances -------------------------------------------------
    def args(self, i, extra=()):
        a = [self.hub.bin, "serve", "--state", self.hub.state, "--listen",
             "127.0.0.1:%d" % self.ports[i], "--poll-s", str(self.poll_s),
             "--rate", self.rate] + self.hub.store_args()
        if self.recheck_ms is not None:
            a += ["--recheck-ms", str(self.recheck_ms)]
        for t in self.trusted:
            a += ["--trusted-proxy", t]
        return a + list(extra)

    def start(self, i, extra=(), tries=20):
        """Start instance i on its port (again after a kill: the port may
        take a moment to be free)."""
        pw = pwd.getpwnam(HUB_USER)
        for _ in range(tries):
            rfd, wfd = os.pipe()
            logf = open(self.logs[i], "ab")
            p = subprocess.Popen(self.args(i, extra) + ["--ready-fd", str(wfd)],
                                 stdout=logf, stderr=logf, pass_fds=(wfd,),
                                 user=pw.pw_uid, group=pw.pw_gid,
                                 extra_groups=[], cwd="/",
                                 env={"PATH": "/usr/bin:/bin"})
            os.close(wfd)
            logf.close()
            with os.fdopen(rfd, "rb") as r:
                line = r.readline()
            if line:
                assert int(line) == self.ports[i]
                self.procs[i] = p
                return p
            p.wait()
            time.sleep(0.2)
        raise AssertionError("lockhub %d did not start: %s" % (i, self.read_log(i)))

    def start_all(self, extra=()):
        for i in range(self.n):
            self.start(i, extra)

    def kill(self, i, sig=signal.SIGKILL):
        p = self.procs[i]
        self.procs[i] = None
        if p is None:
            return
        if p.poll() is None:
            p.send_signal(sig)
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def read_log(self, i):
        try:
            with open(self.logs[i], "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    # ---- the balancer --------------------------------------------------
    def start_proxy(self, backends=None, max_conn=32):
        """HAProxy with the shipped configuration: TLS in front (a
        self-signed certificate for 127.0.0.1), backends the instances
        (or the ports given, three of them)."""
        cert, key = self_signed_cert(self.hub.base)
        combined = os.path.join(self.hub.base, "front.pem")
        with open(combined, "wb") as out:
            for f in (cert, key):
                with open(f, "rb") as src:
                    out.write(src.read())
        pw = pwd.getpwnam(HUB_USER)
        os.chown(combined, pw.pw_uid, pw.pw_gid)
        os.chmod(combined, 0o600)
        self.cert = cert
        self.front = free_port()
        ports = backends or self.ports
        env = {"PATH": "/usr/bin:/bin",
               "LOCKHUB_FRONT": "127.0.0.1:%d" % self.front,
               "LOCKHUB_CERT": combined,
               "LOCKHUB_MAX_CONN": str(max_conn),
               "LOCKHUB_CLIENT_TIMEOUT": "%ds" % (self.poll_s + 30),
               "LOCKHUB_SERVER_TIMEOUT": "%ds" % (self.poll_s + 10)}
        for i in range(3):
            env["LOCKHUB_HUB%d" % (i + 1)] = "127.0.0.1:%d" % ports[i % len(ports)]
        logf = open(self.proxy_log, "ab")
        self.proxy = subprocess.Popen([HAPROXY, "-db", "-f", HAPROXY_CFG],
                                      stdout=logf, stderr=logf,
                                      user=pw.pw_uid, group=pw.pw_gid,
                                      extra_groups=[], cwd="/", env=env)
        logf.close()
        end = time.monotonic() + 15
        while time.monotonic() < end:
            assert self.proxy.poll() is None, self.read_proxy_log()
            try:
                if self.call("GET", "/v1/health", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError("haproxy did not serve: " + self.read_proxy_log())

    def read_proxy_log(self):
        try:
            with open(self.proxy_log, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    # ---- requests --------------------------------------------------------
    def conn(self, inst=None, timeout=30, source=None):
        src = (source, 0) if source else None
        if inst is None:
            ctx = ssl.create_default_context(cafile=self.cert)
            return http.client.HTTPSConnection("127.0.0.1", self.front,
                                               timeout=timeout, context=ctx,
                                               source_address=src)
        return http.client.HTTPConnection("127.0.0.1", self.ports[inst],
                                          timeout=timeout, source_address=src)

    def call(self, method, path, body=b"", key=None, inst=None, timeout=30,
             headers=None, source=None):
        """One request, signed by key (fresh nonce), via HAProxy or to
        instance inst, from source (a 127/8 address). (status, body)."""
        hdrs = dict(headers or {})
        if key is not None:
            hdrs["Lockhub-Auth"] = hw.b64(hw.enc_request(method, path, body, key))
        c = self.conn(inst, timeout, source)
        try:
            c.request(method, path, body=body if body else None, headers=hdrs)
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def cleanup(self):
        if self.proxy is not None:
            self.proxy.terminate()
            try:
                self.proxy.wait(10)
            except subprocess.TimeoutExpired:
                self.proxy.kill()
                self.proxy.wait()
            self.proxy = None
        logs = []
        for i in range(self.n):
            if self.procs[i] is not None:
                self.kill(i, signal.SIGTERM)
            logs.append(self.read_log(i))
        self.hub.cleanup()
        for log in logs:
            assert "Sanitizer" not in log and "runtime error" not in log, log
