"""fakehub: a hostile hub test double speaking lockhub's API (docs/hub.md,
"The hub's API") on loopback, for the tests of lox and of the console.

It checks nothing and answers what the test scripts: each route is a
callable (method, path, headers, body) -> (status, body bytes), and every
request is recorded. With it a test forges tickets (another instance's,
bad signatures, hostile text), decisions (the hub key alone, an unknown
device, another ticket's, a swapped box, replays) and failures (a hub that
hangs, answers garbage, or is gone).

    hub = FakeHub(); hub.routes["GET /v1/pending"] = lambda *a: (200, body)
    hub.start(); ...; hub.stop()
"""
import http.server
import re
import socketserver
import threading


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _serve(self, method):
        hub = self.server.hub
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        hub.requests.append((method, self.path, dict(self.headers), body))
        fn = None
        for pat, f in hub.routes.items():
            m, rx = pat.split(" ", 1)
            if m == method and re.fullmatch(rx, self.path):
                fn = f
                break
        status, out = fn(method, self.path, self.headers, body) if fn \
            else (404, b"no such endpoint\n")
        if status is None:      # hang up without an answer
            self.close_connection = True
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FakeHub:
    def __init__(self):
        self.routes = {}
        self.requests = []
        self.srv = None

    def start(self):
        self.srv = _Server(("127.0.0.1", 0), _Handler)
        self.srv.hub = self
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()
        return self.port

    @property
    def port(self):
        return self.srv.server_address[1]

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def stop(self):
        if self.srv is not None:
            self.srv.shutdown()
            self.srv.server_close()
            self.srv = None
