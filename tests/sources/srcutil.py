"""Helpers for the source suites: run fetch-one, and small HTTP servers
that misbehave on purpose (a stall, a body without Content-Length, a
redirect, a huge error body, TLS with a self-signed certificate). They do
not check signatures: what they test is the client's side."""
import http.server
import json
import os
import re
import socket
import ssl
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
FETCH_ONE = os.environ.get("LF_FETCH_ONE",
                           os.path.join(BUILD, "tests", "sources", "fetch-one"))

LINE_RE = re.compile(r'^cause=(\S+) size=(\d+) sha256=(\S+) rss_kb=(\d+) '
                     r'fetch_ms=(\d+) fsync_ms=(\d+) detail="(.*)"$')


def fetch(kind, table, key, home, cap=None, out=None, timeout=120,
          wrap=None):
    """Run fetch-one (through wrap(argv) when given); returns a dict: rc,
    cause, size, sha256, detail, secs, raw."""
    cmd = [FETCH_ONE, "--home", home]
    if cap is not None:
        cmd += ["--cap", str(cap)]
    if out is not None:
        cmd += ["--out", out]
    cmd += [kind, json.dumps(table), key]
    if wrap is not None:
        cmd = wrap(cmd)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    secs = time.monotonic() - t0
    text = r.stdout.decode("utf-8", "replace").strip()
    res = {"rc": r.returncode, "secs": secs, "raw": text,
           "stderr": r.stderr.decode("utf-8", "replace")}
    m = LINE_RE.match(text)
    if m:
        res.update(cause=m.group(1), size=int(m.group(2)),
                   sha256=m.group(3), rss_kb=int(m.group(4)),
                   fetch_ms=int(m.group(5)), fsync_ms=int(m.group(6)),
                   detail=m.group(7))
    else:
        res.update(cause=None, detail=text)
    return res


def credhome():
    """A private directory standing for the console home (0700)."""
    d = tempfile.mkdtemp(prefix="lfcred-", dir="/tmp")
    os.chmod(d, 0o700)
    return d


def write_secret(home, rel, text, mode=0o600):
    p = os.path.join(home, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
    os.chmod(p, mode)
    return "~/" + rel


class Misbehaving:
    """A one-thread HTTP server on 127.0.0.1 whose GET does what `mode`
    says. Records the raw request lines and headers it received."""

    def __init__(self, mode, size=0, tls=None):
        self.mode = mode
        self.size = size
        self.requests = []
        srv = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                srv.requests.append((self.requestline, dict(self.headers)))
                getattr(srv, "_" + srv.mode)(self)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        if tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(tls[0], tls[1])
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket,
                                                server_side=True)
        self.port = self.httpd.server_address[1]
        self.endpoint = "%s://127.0.0.1:%d" % ("https" if tls else "http",
                                              self.port)
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.stop_event = threading.Event()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *a):
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # modes -----------------------------------------------------------------
    def _stall(self, h):
        """Headers, a few bytes, then nothing (until the test ends)."""
        h.send_response(200)
        h.send_header("Content-Length", "1000000")
        h.end_headers()
        h.wfile.write(b"x" * 10)
        h.wfile.flush()
        self.stop_event.wait(60)

    def _stall_headers(self, h):
        """Accept the request, never answer."""
        self.stop_event.wait(60)

    def _chunked(self, h):
        """A 200 of self.size bytes with no Content-Length (chunked)."""
        h.send_response(200)
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        left = self.size
        block = b"y" * 65536
        try:
            while left > 0:
                n = min(left, len(block))
                h.wfile.write(b"%x\r\n" % n + block[:n] + b"\r\n")
                left -= n
            h.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _redirect(self, h):
        h.send_response(301)
        h.send_header("Location", "http://127.0.0.1:1/elsewhere")
        body = (b"<Error><Code>PermanentRedirect</Code><Endpoint>elsewhere"
                b"</Endpoint></Error>")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _huge_error(self, h):
        """A 500 whose body never ends."""
        h.send_response(500)
        h.send_header("Content-Length", str(1 << 30))
        h.end_headers()
        body = b"<Error><Code>InternalError</Code>" + b"z" * 65536
        try:
            h.wfile.write(body)
            while not self.stop_event.is_set():
                h.wfile.write(b"z" * 65536)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass

    def _code(self, h):
        """A 403 whose <Code> is whatever self.size names (a str)."""
        body = ("<Error><Code>%s</Code><Message>%s</Message></Error>"
                % (self.size, self.size)).encode()
        h.send_response(403)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _ok(self, h):
        body = b"tls body\n"
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)


def self_signed(dirpath, cn="127.0.0.1"):
    """A self-signed certificate for 127.0.0.1: (cert, key) paths."""
    cert = os.path.join(dirpath, "cert.pem")
    key = os.path.join(dirpath, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", "/CN=" + cn, "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", key, "-out", cert], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.chmod(cert, 0o644)
    return cert, key


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
