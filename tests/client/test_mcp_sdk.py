"""`lockfile mcp` driven by real MCP clients against the real console:

- the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.2): lists the
  tools, calls a plan that the test approves on the console terminal, gets
  the answer as structured content (which the SDK validates against the
  tool's outputSchema) and the constant progress text meanwhile;
  (SDK 1.x runs on Debian 12's Node.js 18, which `make deps` installs when
  Node.js is absent).

The MCP Inspector (2.x) was dropped: it needs Node.js >= 22.19, which no
Debian 12 package provides. What it covered is covered here and in
test_mcp_protocol.py: tools/list and tools/call through a real client (the
SDK, the 2025 handshake era), and the stateless 2026-07-28 era through this
repository's own driver (tests/client/mcpdrv.py), which checks every reply
against the whitelist.

The Node packages are installed by scripts/install-deps.d/mcp.sh (npm ci in
tests/mcp). The host runs as root; the MCP server as the `agent` account."""
import json
import os
import shutil
import subprocess
import threading
import time

import pytest

from lftest import setpriv

from lfenv import ConsoleEnv
from whitelist import PROGRESS_TEXT, TOOLS, Whitelist

HERE = os.path.dirname(os.path.abspath(__file__))
MCPDIR = os.path.join(os.path.dirname(HERE), "mcp")
SDK = os.path.join(MCPDIR, "node_modules", "@modelcontextprotocol", "sdk")
NODE = shutil.which("node") or "/usr/bin/node"


def require_node_modules():
    if not os.path.isdir(SDK):
        pytest.fail("tests/mcp/node_modules missing: run "
                    "scripts/install-deps.d/mcp.sh")
    with open(os.path.join(SDK, "package.json")) as f:
        assert json.load(f)["version"] == "1.32.2"


@pytest.fixture(scope="module")
def env():
    e = ConsoleEnv()
    e.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": b"%PDF-1.4\nnot really\n",
        "2024/c.txt": b"contact: alice@example.org\n"})
    for p in ("is-pdf", "is-utf8", "contains"):
        e.install_plugin(p)
    e.write_policy(answer_quantum_s=1, approval_timeout_s=60)
    e.start()
    yield e
    e.cleanup()


def as_agent(lockfile_bin, env):
    return setpriv("agent") + [lockfile_bin, "mcp", "--socket", env.socket]


def test_sdk_lists_tools_and_gets_an_approved_plan(lockfile_bin, env):
    require_node_modules()
    wl = Whitelist.for_build(env.build)
    server = as_agent(lockfile_bin, env)
    plan = {"profile": "invoices", "key": "2024/c.txt", "plugins": [
        {"name": "is-pdf"}, {"name": "is-utf8"},
        {"name": "contains", "inputs": {"needle": "${email}"}}]}
    cfg = {"command": server[0], "args": server[1:], "calls": [
        {"name": "sources", "arguments": {}},
        {"name": "plan", "arguments": plan, "progress": True},
        {"name": "plan", "arguments": dict(plan, key="nope/x")},
        {"name": "plan", "arguments": {"profile": "invoices"}}]}
    p = subprocess.Popen([NODE, os.path.join(MCPDIR, "sdk_client.mjs"),
                          json.dumps(cfg)], cwd=MCPDIR, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    events = []

    def read():
        for l in iter(p.stdout.readline, b""):
            events.append(json.loads(l))
    t = threading.Thread(target=read)
    t.start()
    # a human approves on the console terminal, after a while: the SDK
    # meanwhile gets the constant progress text, on the quantum
    env.wait_screen(r"Approve\?", timeout=60)
    time.sleep(3)
    env.type("y")
    env.wait_screen(r"not shown\): ", timeout=30)
    env.type("alice@example.org")
    t.join(120)
    p.wait(30)
    err = p.stderr.read()
    assert p.returncode == 0, err
    kinds = [e["event"] for e in events]
    assert "client-error" not in kinds, events

    server_ev = [e for e in events if e["event"] == "server"][0]
    assert server_ev["version"]["name"] == "lockfile"
    tools = [e for e in events if e["event"] == "tools"][0]["tools"]
    assert [x["name"] for x in tools] == list(TOOLS)
    for x in tools:
        assert x["inputSchema"]["type"] == "object" and x["outputSchema"]

    results = [e for e in events if e["event"] == "result"]
    assert [r["call"] for r in results] == ["sources", "plan", "plan"]
    assert wl.mcp_result("sources", results[0]["result"]) == "result"
    res = results[1]["result"]
    assert wl.mcp_result("plan", res) == "result"
    sc = res["structuredContent"]
    assert [(a["plugin"], a["result"]) for a in sc["answers"]] == [
        ("is-pdf", 0), ("is-utf8", 1), ("contains", 1)]
    assert sc["held_inputs"] == ["email"]
    # a refusal is a tool result with isError, its code and static hint
    assert wl.mcp_result("plan", results[2]["result"]) == \
        "E_KEY_OUTSIDE_PREFIX"
    # bad arguments are a JSON-RPC error (-32602)
    errors = [e for e in events if e["event"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == -32602

    progress = [e for e in events if e["event"] == "progress"]
    assert len(progress) >= 2, events
    assert {e["message"] for e in progress} == {PROGRESS_TEXT}
    assert [e["progress"] for e in progress] == list(
        range(1, len(progress) + 1))
    # every progress came before the result it belongs to
    last = max(i for i, e in enumerate(events) if e["event"] == "progress")
    assert last < events.index(results[1])
    assert b"alice@example.org" not in json.dumps(events).encode()
