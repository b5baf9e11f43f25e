"""mcpdrv: a small, strict MCP client over stdio for the tests.

It starts `lockfile mcp` (optionally as another account), speaks either
era (the 2025 handshake, or the stateless 2026-07-28 form with _meta on
every request), and records every line the server writes, in order, so a
test can check each one against the whitelist and the framing rules (one
JSON object per line, nothing else on stdout)."""
import json
import queue
import subprocess
import threading
import time

MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"


class McpServer:
    def __init__(self, argv, **popen):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, **popen)
        self.q = queue.Queue()
        self.lines = []          # every raw line, in order
        self.next_id = 1
        self.modern = False
        self.pending = []        # messages read but not yet claimed
        threading.Thread(target=self._reader, daemon=True).start()
        self.stderr = b""
        threading.Thread(target=self._err, daemon=True).start()

    def _reader(self):
        for line in iter(self.p.stdout.readline, b""):
            self.lines.append(line)
            self.q.put(line)
        self.q.put(None)

    def _err(self):
        self.stderr = self.p.stderr.read()

    def send_raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, msg):
        self.send_raw((json.dumps(msg) + "\n").encode())

    def meta(self, extra=None):
        m = {META_VERSION: MODERN, META_CAPS: {},
             META_INFO: {"name": "mcpdrv", "version": "1"}}
        m.update(extra or {})
        return m

    def request(self, method, params=None, rid=None, meta=None):
        if rid is None:
            rid = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        params = dict(params or {})
        if self.modern or meta is not None:
            params["_meta"] = dict(self.meta(), **(meta or {})) \
                if self.modern else dict(meta)
        if params:
            msg["params"] = params
        self.send(msg)
        return rid

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def read(self, timeout):
        """The next message (parsed), or None at EOF; raises on timeout or
        on a line that is not one JSON object."""
        line = self.q.get(timeout=timeout)
        if line is None:
            return None
        assert line.endswith(b"\n") and b"\n" not in line[:-1]
        msg = json.loads(line)
        assert isinstance(msg, dict), line
        return msg

    def wait(self, rid, timeout=30):
        """(response, notifications seen before it)."""
        notes = []
        end = time.time() + timeout
        while True:
            msg = self.read(max(0.01, end - time.time()))
            if msg is None:
                raise AssertionError("server closed stdout: %r" % self.stderr)
            if "id" in msg and msg.get("id") == rid and "method" not in msg:
                return msg, notes
            notes.append(msg)

    def call(self, rid_method, params=None, timeout=30, meta=None):
        rid = self.request(rid_method, params, meta=meta)
        return self.wait(rid, timeout)

    def initialize(self, version="2025-11-25"):
        resp, _ = self.call("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "mcpdrv", "version": "1"}})
        self.notify("notifications/initialized")
        return resp

    def tool(self, name, args=None, token=None, timeout=60):
        """(CallToolResult or error response, progress notifications)."""
        params = {"name": name, "arguments": args or {}}
        meta = {"progressToken": token} if token is not None else None
        resp, notes = self.call("tools/call", params, timeout=timeout,
                                meta=meta)
        return resp, notes

    def close(self, timeout=10):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError("mcp server did not exit on stdin EOF")
