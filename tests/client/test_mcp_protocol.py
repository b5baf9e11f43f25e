"""`lockfile mcp` as an MCP server: both eras, strict input, tools with
schemas, progress (only with a token, constant text, paced on the quantum,
never in the same write as the response), cancellation, concurrency, and
shutdown on stdin EOF. The console is the fake one (fake_console.py)."""
import json
import time

import pytest

from fake_console import FakeConsole, good_result, result_line
from mcpdrv import META_CAPS, META_VERSION, MODERN, McpServer
from whitelist import PROGRESS_TEXT, TOOLS

ENV = {"PATH": "/usr/bin:/bin"}


@pytest.fixture
def fake():
    f = FakeConsole()
    yield f
    f.stop()


def server(lockfile_bin, fake, *extra):
    return McpServer([lockfile_bin, "mcp", "--socket", fake.path] +
                     list(extra), env=ENV)


def slow_plan(secs, quantum=1):
    def status(q):
        r = good_result("status", q.get("params"))
        r["answer_quantum_s"] = quantum
        return [result_line(q, r)]

    def answer(q):
        return [("sleep", secs), result_line(q, good_result(
            q["method"], q.get("params")))]
    return answer, status


PLAN = {"profile": "invoices", "key": "2024/a.pdf",
        "plugins": [{"name": "fake"}]}


def every_line_is_mcp(s):
    for l in s.lines:
        assert l.endswith(b"\n") and b"\n" not in l[:-1]
        msg = json.loads(l)
        assert msg["jsonrpc"] == "2.0"


def test_legacy_handshake_and_tools(lockfile_bin, fake):
    s = server(lockfile_bin, fake)
    for v, want in (("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
                    ("2024-11-05", "2025-11-25")):
        r = s.initialize(v)["result"]
        assert r["protocolVersion"] == want
        assert r["capabilities"] == {"tools": {}}
        assert r["serverInfo"]["name"] == "lockfile"
        assert "human" in r["instructions"] and "bits" in r["instructions"]
    resp, _ = s.call("tools/list")
    tools = resp["result"]["tools"]
    assert "resultType" not in resp["result"]
    assert [t["name"] for t in tools] == list(TOOLS)
    for t in tools:
        assert set(t) == {"name", "title", "description", "inputSchema",
                          "outputSchema", "annotations"}
        assert t["inputSchema"]["type"] == "object"
        assert t["inputSchema"]["additionalProperties"] is False
        assert t["outputSchema"]["type"] == "object"
        assert t["outputSchema"]["additionalProperties"] is False
    plan = [t for t in tools if t["name"] == "plan"][0]
    assert "human must approve" in plan["description"]
    assert "only bits" in plan["description"]
    assert plan["outputSchema"]["properties"]["plan"]["pattern"] == \
        "^pl_[0-9a-f]{32}$"
    resp, _ = s.call("ping")
    assert resp["result"] == {}
    assert s.close() == 0
    every_line_is_mcp(s)


def test_stateless_era(lockfile_bin, fake):
    s = server(lockfile_bin, fake)
    s.modern = True
    resp, _ = s.call("server/discover")
    r = resp["result"]
    assert r["supportedVersions"] == [MODERN]
    assert r["resultType"] == "complete"
    assert r["capabilities"] == {"tools": {}}
    assert r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == \
        "lockfile"
    assert isinstance(r["ttlMs"], int) and r["cacheScope"] == "private"
    resp, _ = s.call("tools/list")
    assert resp["result"]["resultType"] == "complete"
    assert "ttlMs" in resp["result"] and "cacheScope" in resp["result"]
    resp, _ = s.tool("sources")
    assert resp["result"]["resultType"] == "complete"
    # removed in this era
    for m in ("ping", "logging/setLevel"):
        resp, _ = s.call(m)
        assert resp["error"]["code"] == -32601
    # an unsupported version, and missing fields
    s.modern = False
    resp, _ = s.call("tools/list", meta={META_VERSION: "2099-01-01",
                                         META_CAPS: {}})
    assert resp["error"]["code"] == -32022
    assert resp["error"]["data"] == {"supported": [MODERN],
                                     "requested": "2099-01-01"}
    resp, _ = s.call("tools/list", meta={META_VERSION: MODERN})
    assert resp["error"]["code"] == -32602
    resp, _ = s.call("server/discover")
    assert resp["error"]["code"] == -32602      # a legacy client falls back
    # a legacy request before initialize
    resp, _ = s.call("tools/list")
    assert resp["error"]["code"] == -32602
    assert s.close() == 0


def test_strict_input(lockfile_bin, fake):
    s = server(lockfile_bin, fake)
    s.initialize()
    s.send_raw(b"{not json\n")
    assert s.read(10)["error"]["code"] == -32700
    s.send_raw(b"[]\n")
    assert s.read(10)["error"]["code"] == -32600
    s.send_raw(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}\n')
    assert s.read(10)["error"]["code"] == -32700         # duplicate key
    s.send_raw(b'{"jsonrpc":"2.0","id":3,"method":"tools/list","x":1}\n')
    m = s.read(10)
    assert m["error"]["code"] == -32600 and m["id"] == 3
    s.send_raw(b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}\n')
    m = s.read(10)
    assert m["error"]["code"] == -32600 and m["id"] is None
    # invalid requests without an id are answered too (JSON-RPC 2.0's own
    # example); only a well-formed notification is not
    s.send_raw(b'{"jsonrpc":"2.0","method":1,"params":"bar"}\n')
    m = s.read(10)
    assert m["error"]["code"] == -32600 and m["id"] is None
    s.send_raw(b'{"jsonrpc":"2.0"}\n')
    m = s.read(10)
    assert m["error"]["code"] == -32600 and m["id"] is None
    s.send_raw(b'{"jsonrpc":"2.0","id":4,"method":' + b'[' * 50 + b']' * 50
               + b'}\n')
    assert s.read(10)["error"]["code"] == -32700         # too deep
    s.send_raw(b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"a":"'
               + b"x" * (1100 * 1024) + b'"}}\n')
    assert s.read(20)["error"]["code"] == -32700         # over the cap
    s.send_raw(b'\xff\xfe\n')
    assert s.read(10)["error"]["code"] == -32700
    resp, _ = s.call("no/such/method")
    assert resp["error"]["code"] == -32601
    bad = [("nosuch", {}), ("sources", {"x": 1}), ("status", {"profile": 7}),
           ("status", {"profile": "Bad Name"}),
           ("plan", {"profile": "invoices", "key": "a"}),
           ("plan", {"profile": "invoices", "plugins": [{"name": "fake"}]}),
           ("plan", dict(PLAN, handle="f_" + "0" * 32)),
           ("plan", dict(PLAN, plugins=[{"name": "fake", "extra": 1}])),
           ("plan", dict(PLAN, plugins=[{"name": "../x"}])),
           ("plan", dict(PLAN, plugins=[{"name": "fake", "version": "1"}])),
           ("plan", dict(PLAN, plugins=[{"name": "fake",
                                         "inputs": {"Needle": "${a}"}}])),
           ("plan", dict(PLAN, plugins=[{"name": "fake",
                                         "inputs": {"needle": 5}}])),
           ("plan", dict(PLAN, plugins=[{"name": "f"}] * 65)),
           ("plan", dict(PLAN, key="")), ("plan", dict(PLAN, key="k" * 1025)),
           ("run", {"plan": "pl_1"}), ("release", {}),
           ("request_change", {"text": ""}),
           ("request_change", {"text": "t" * 4097})]
    for name, args in bad:
        resp, _ = s.tool(name, args)
        assert resp["error"]["code"] == -32602, (name, args, resp)
    # the server still serves, and no request reached the console
    resp, _ = s.tool("sources")
    assert resp["result"]["isError"] is False
    assert [r["method"] for r in fake.requests] == ["status", "sources"]
    assert s.close() == 0
    every_line_is_mcp(s)


def test_literal_inputs_go_to_the_console(lockfile_bin, fake):
    """The console alone refuses a literal (E_LITERAL_INPUT): the client
    sends it on rather than guessing."""
    s = server(lockfile_bin, fake)
    s.initialize()
    args = dict(PLAN, plugins=[{"name": "fake-two",
                                "inputs": {"needle": "alice@example.org"}}])
    s.tool("plan", args)
    sent = [r for r in fake.requests if r["method"] == "file.plan"][0]
    assert sent["params"]["plugins"][0]["inputs"] == {
        "needle": "alice@example.org"}
    s.close()


def test_progress_only_with_a_token(lockfile_bin):
    answer, status = slow_plan(3.5, quantum=1)
    fake = FakeConsole(answer=answer, status=status)
    try:
        s = server(lockfile_bin, fake)
        s.initialize()
        resp, notes = s.tool("plan", PLAN)
        assert notes == [] and resp["result"]["isError"] is False
        t0 = time.monotonic()
        rid = s.request("tools/call", {"name": "plan", "arguments": PLAN},
                        meta={"progressToken": "tok-1"})
        times = []
        while True:
            m = s.read(30)
            times.append(time.monotonic() - t0)
            if m.get("id") == rid:
                break
            assert m == {"jsonrpc": "2.0", "method": "notifications/progress",
                         "params": {"progressToken": "tok-1",
                                    "progress": len(times),
                                    "message": PROGRESS_TEXT}}
        # one notification per quantum (1 s) while the plan waits
        assert len(times) - 1 in (3, 4), times
        for a, b in zip(times, times[1:-1]):
            assert 0.7 < b - a < 1.3, times
        # never in the same write as the response (typescript-sdk#2580)
        assert times[-1] - times[-2] >= 0.2, times
        s.close()
    finally:
        fake.stop()


def test_progress_is_paced_by_the_quantum_not_the_console(lockfile_bin):
    answer, status = slow_plan(4.5, quantum=2)
    fake = FakeConsole(answer=answer, status=status)
    try:
        s = server(lockfile_bin, fake)
        s.modern = True
        resp, notes = s.tool("plan", PLAN, token=9)
        assert [n["params"]["progress"] for n in notes] == [1, 2]
        assert {n["params"]["message"] for n in notes} == {PROGRESS_TEXT}
        assert resp["result"]["resultType"] == "complete"
        s.close()
    finally:
        fake.stop()


def test_cancellation_and_concurrency(lockfile_bin):
    answer, status = slow_plan(30)
    fake = FakeConsole(answer=answer, status=status)
    try:
        s = server(lockfile_bin, fake)
        s.initialize()
        rid = s.request("tools/call", {"name": "plan", "arguments": PLAN},
                        meta={"progressToken": 1})
        time.sleep(0.5)
        # a pending plan does not stop other requests
        t0 = time.monotonic()
        resp, notes = s.call("tools/list")
        assert "result" in resp and time.monotonic() - t0 < 2
        s.notify("notifications/cancelled", {"requestId": rid,
                                             "reason": "user"})
        time.sleep(2.5)
        resp, notes = s.call("ping")
        # nothing more for the cancelled request: no result, no progress
        late = [n for n in notes if n.get("id") == rid or
                n.get("method") == "notifications/progress"]
        assert late == [], notes
        assert s.close() == 0
        assert not [l for l in s.lines if b'"isError"' in l]
    finally:
        fake.stop()


def test_stdin_eof_answers_the_calls_in_flight_then_exits(lockfile_bin, wl):
    """A host may write its requests and close stdin at once (a pipe): the
    calls in flight are still answered, then the server exits 0."""
    import subprocess
    answer, status = slow_plan(2)
    fake = FakeConsole(answer=answer, status=status)
    try:
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "pipe", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "plan", "arguments": PLAN}},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "sources", "arguments": {}}}]
        t0 = time.monotonic()
        p = subprocess.run([lockfile_bin, "mcp", "--socket", fake.path],
                           input=b"".join(json.dumps(m).encode() + b"\n"
                                          for m in msgs),
                           capture_output=True, timeout=30, env=ENV)
        assert p.returncode == 0 and time.monotonic() - t0 < 10
        out = [json.loads(l) for l in p.stdout.splitlines()]
        assert sorted(m["id"] for m in out) == [1, 2, 3]
        for m in out:
            if m["id"] == 2:
                assert wl.mcp_result("plan", m["result"]) == "result"
            if m["id"] == 3:
                assert wl.mcp_result("sources", m["result"]) == "result"
    finally:
        fake.stop()


def test_sigterm_ends_a_waiting_server(lockfile_bin):
    import signal
    answer, status = slow_plan(30)
    fake = FakeConsole(answer=answer, status=status)
    try:
        s = server(lockfile_bin, fake)
        s.initialize()
        s.request("tools/call", {"name": "plan", "arguments": PLAN})
        time.sleep(0.5)
        s.p.stdin.close()
        time.sleep(0.5)
        assert s.p.poll() is None          # still answering the plan
        s.p.send_signal(signal.SIGTERM)
        assert s.p.wait(timeout=5) == -signal.SIGTERM
    finally:
        fake.stop()


def test_too_many_calls_in_flight_is_busy(lockfile_bin, wl):
    answer, status = slow_plan(6)
    fake = FakeConsole(answer=answer, status=status)
    try:
        s = server(lockfile_bin, fake)
        s.initialize()
        for _ in range(4):
            s.request("tools/call", {"name": "plan", "arguments": PLAN})
        time.sleep(0.3)
        resp, _ = s.tool("plan", PLAN)
        assert wl.mcp_result("plan", resp["result"]) == "busy"
        s.close()
    finally:
        fake.stop()


def test_usage(lockfile_bin):
    import subprocess
    p = subprocess.run([lockfile_bin, "mcp", "--help"], capture_output=True)
    assert p.returncode == 0 and b"usage: lockfile mcp" in p.stdout
    for bad in (["--nope"], ["extra"], ["--wait", "0"], ["--socket", "rel"]):
        p = subprocess.run([lockfile_bin, "mcp"] + bad, capture_output=True,
                           stdin=subprocess.DEVNULL)
        assert p.returncode == 64, bad
        assert p.stdout == b""
