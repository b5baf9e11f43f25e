"""fake_console: a hostile stand-in for the console, for the client tests.

It listens on a Unix socket and answers each request with what the test
scripts: a good answer from the closed list (good_result), or anything
else -- extra keys, a size, a path, a sha256, an unknown error, control
characters, a malformed id, a status for another profile, a wrong id, two
lines, an oversized line, a server that trickles, stalls, or dies. Each
connection is served on its own thread, like a console would serve them
one after the other; the client's busy probe (status) and its request are
two connections."""
import json
import os
import socket
import tempfile
import threading
import time

PLAN_ID = "pl_" + "0123456789abcdef" * 2
HANDLE = "f_" + "fedcba9876543210" * 2

TEXTS = {
    "question": "Is the file a fake?",
    "one": "It is a fake.",
    "zero": "It is not a fake.",
}


def good_status(params=None, quantum=1):
    r = {"console": "up", "production": False, "security_level": 1,
         "idle_timeout_s": 3600, "session_left_s": 28000,
         "plugin_protocol": [1, 2], "sandbox": "ok",
         "answer_quantum_s": quantum}
    if params and "profile" in params:
        r["profile"] = params["profile"]
    return r


def good_plugin(name="fake", official=True, protocol=1):
    p = {"name": name, "version": "1.0.0", "official": official,
         "protocol": protocol, "inputs": [] if protocol == 1 else
         [{"name": "needle", "kind": "text", "max_bytes": 64}]}
    p.update(TEXTS)
    if not official:
        p["warning"] = "unofficial_marketplace"
    return p


def good_result(method, params):
    if method == "status":
        return good_status(params)
    if method == "sources":
        return {"sources": [{"profile": "invoices", "production": True},
                            {"profile": "scratch", "production": False}]}
    if method == "file.plugins":
        return {"plugins": [good_plugin(), good_plugin("fake-two", False, 2)]}
    if method in ("file.plan", "file.run"):
        plugins = (params or {}).get("plugins", [{"name": "fake"}])
        answers = []
        for i, p in enumerate(plugins):
            a = {"plugin": p["name"], "version": p.get("version", "1.0.0"),
                 "result": [1, 0, None][i % 3]}
            if a["result"] is None:
                a["error"] = "plugin_error"
            answers.append(a)
        held = sorted({v[2:-1] for p in plugins
                       for v in p.get("inputs", {}).values()
                       if v.startswith("${") and v.endswith("}")})
        return {"plan": PLAN_ID,
                "handle": (params or {}).get("handle", HANDLE),
                "answers": answers, "held_inputs": held}
    if method == "file.release":
        return {"released": True}
    if method == "change.request":
        return {"queued": True}
    raise ValueError(method)


def line(doc):
    return (json.dumps(doc, separators=(",", ":")) + "\n").encode()


def result_line(req, result):
    return line({"jsonrpc": "2.0", "id": req["id"], "result": result})


def error_line(req, name, code, hint, rid=None):
    return line({"jsonrpc": "2.0", "id": req["id"] if rid is None else rid,
                 "error": {"code": code, "message": name,
                           "data": {"hint": hint}}})


class FakeConsole:
    """answer(req) -> list of steps for one connection; req is the parsed
    request (or None when the line was not JSON). Steps: bytes (send),
    ("sleep", s), ("hold", s) keep the connection open s seconds,
    "close" (close now, the default after the steps), "reset"."""

    def __init__(self, answer=None, status=None):
        self.dir = tempfile.mkdtemp(prefix="lfc-fake-", dir="/tmp")
        os.chmod(self.dir, 0o755)
        self.path = os.path.join(self.dir, "lockfile.sock")
        self.answer = answer
        self.status = status
        self.requests = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o777)
        self.sock.listen(16)
        self.stopping = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while not self.stopping:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,),
                             daemon=True).start()

    def default(self, req):
        return [result_line(req, good_result(req["method"],
                                             req.get("params")))]

    def _serve(self, c):
        try:
            c.settimeout(10)
            buf = b""
            while b"\n" not in buf:
                b = c.recv(65536)
                if not b:
                    break
                buf += b
            try:
                req = json.loads(buf.split(b"\n")[0])
            except ValueError:
                req = None
            self.requests.append(req)
            if req is not None and req.get("method") == "status" and \
                    self.status is not None:
                steps = self.status(req)
            elif req is not None and req.get("method") == "status":
                steps = self.default(req)
            elif self.answer is not None:
                steps = self.answer(req)
            else:
                steps = self.default(req)
            for s in steps:
                if isinstance(s, bytes):
                    c.sendall(s)
                elif s == "close":
                    break
                elif s == "reset":
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                 b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    break
                elif s[0] == "sleep":
                    time.sleep(s[1])
                elif s[0] == "hold":
                    time.sleep(s[1])
        except OSError:
            pass
        finally:
            c.close()

    def stop(self):
        self.stopping = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        try:
            os.unlink(self.path)
            os.rmdir(self.dir)
        except OSError:
            pass
