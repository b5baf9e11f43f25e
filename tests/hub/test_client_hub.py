"""The agent's side of hub mode through every way in: the raw socket, the
CLI (JSON and text), the MCP server (both protocol generations). A plan
answers the pending shape, and so does a run nobody decided yet (the
console never waits for the hub); `lockfile run PLAN` / the MCP run tool
ask again until the decision (the MCP heartbeat stays the constant text) and answer the
plan's bits; every output passes the client's whitelist and the closed
list. The decisions come from the hostile hub double, signed with the keys
the policy pins."""
import importlib.util
import os
import threading
import time

import pytest

from consolehub import HubConsole  # noqa: E402 (sys.path)
import hubwire as hw  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(os.path.dirname(HERE), "client")
from whitelist import Whitelist  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "e2e_client", os.path.join(CLIENT, "test_e2e_client.py"))
_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_client)
Agent = _client.Agent

PLAN = {"profile": "invoices", "key": "2024/a.pdf",
        "plugins": [{"name": "is-pdf"}]}


@pytest.fixture(scope="module")
def world():
    w = HubConsole(real=False)
    w.start()
    wl = Whitelist.for_build(w.env.build)
    a = Agent(w.env, wl, w.env.binary)
    yield w, a
    a.close()
    w.cleanup()


def raw_until_decided(a, params, timeout=60):
    """The raw socket's file.run as the CLI and MCP make it: the console
    never waits for the hub, so a run nobody decided yet answers pending
    again at its quantum, and the agent asks again."""
    t0 = time.monotonic()
    while True:
        code, res = a.raw("file.run", params)
        if code != "result" or res.get("status") != "pending" or \
                time.monotonic() - t0 > timeout:
            return code, res


def last_plan(w):
    rec = [r for r in w.env.audit() if r.get("method") == "file.plan"][-1]
    return rec["plan"], rec["ticket"]


@pytest.mark.parametrize("way", ["raw", "cli", "cli-text", "mcp",
                                 "mcp-modern"])
def test_pending_then_run(world, way):
    w, a = world
    fn = dict(a.ways())[way]
    if way == "raw":
        fn = (lambda m, p, f=fn: raw_until_decided(a, p) if m == "file.run"
              else f(m, p))
    code, res = fn("file.plan", PLAN)
    assert code == "result"
    plan, tid = last_plan(w)
    if res is not None:
        assert res["status"] == "pending" and res["plan"] == plan
        assert res["ticket"] == tid
    # The human decides a moment later, while run waits.
    threading.Timer(1.5, lambda: w.decisions.__setitem__(
        tid, w.decision(tid))).start()
    t0 = time.monotonic()
    code, res = fn("file.run", {"plan": plan})
    assert code == "result"
    assert time.monotonic() - t0 >= 1.0
    if res is not None:
        assert res["plan"] == plan
        assert [x["result"] for x in res["answers"]] == [1]


def test_refusals_on_run(world):
    w, a = world
    a.each("file.run", {"plan": "pl_" + "cd" * 16}, "E_APPROVAL_TIMEOUT")
    code, _ = a.raw("file.plan", PLAN)
    plan, tid = last_plan(w)
    w.decisions[tid] = w.decision(tid, verdict=hw.DENY)
    code, _ = raw_until_decided(a, {"plan": plan})
    assert code == "E_APPROVAL_DENIED"
    for name, fn in a.ways():
        code, _ = fn("file.run", {"plan": plan})
        assert code == "E_APPROVAL_TIMEOUT", name
