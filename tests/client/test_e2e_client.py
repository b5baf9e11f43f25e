"""Every method of the real console, its success and each reachable error,
walked three ways: the raw socket, the CLI (JSON and text) and the MCP
server, each as the real `agent` account. Every response on the socket is
gated on the closed list (lfenv's check-reply), and everything the CLI and
MCP print passes the whitelist; the three ways must end in the same
outcome.

Not reachable here: E_SANDBOX_UNAVAILABLE (needs a kernel without Landlock
or seccomp) and E_STALE (hub mode, which has no console yet)."""
import importlib.util
import json
import os
import secrets
import threading
import time

import pytest

from lfenv import ConsoleEnv, as_user, check_reply, uid_of, gid_of
from mcpdrv import McpServer
from whitelist import Whitelist

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "e2e_conftest", os.path.join(os.path.dirname(HERE), "e2e", "conftest.py"))
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)
make_pdf = _e2e.make_pdf

CODE_EXIT = {"result": 0, "console error": 2, "busy": 3, "unreachable": 4,
             "timeout": 5}
TOOL = {"status": "status", "sources": "sources", "file.plugins": "plugins",
        "file.plan": "plan", "file.run": "run", "file.release": "release",
        "change.request": "request_change"}


def rand_handle():
    return "f_" + secrets.token_hex(16)


def cli_args(method, params):
    p = params or {}
    if method == "status":
        return ["status"] + (["--profile", p["profile"]] if "profile" in p
                             else [])
    if method == "sources":
        return ["sources"]
    if method == "file.plugins":
        return ["plugins"]
    if method == "file.plan":
        a = ["ask"]
        if "handle" in p:
            a += ["--handle", p["handle"]]
        else:
            a += ["--profile", p["profile"], "--key", p["key"]]
        for pl in p["plugins"]:
            spec = pl["name"] + ("@" + pl["version"] if "version" in pl
                                 else "")
            if pl.get("inputs"):
                spec += ":" + ",".join("%s=%s" % kv
                                       for kv in pl["inputs"].items())
            a += ["--plugin", spec]
        return a
    if method == "file.run":
        return ["run", p["plan"]]
    if method == "file.release":
        return ["release", p["handle"]]
    if method == "change.request":
        return ["request-change", p["text"]]
    raise ValueError(method)


class Agent:
    """The three ways in, as the `agent` account."""

    def __init__(self, env, wl, client_bin):
        self.env, self.wl, self.bin = env, wl, client_bin
        self.cards = 0
        pw_uid, pw_gid = uid_of("agent"), gid_of("agent")
        self.mcp = McpServer([client_bin, "mcp", "--socket", env.socket,
                              "--wait", "120"], user=pw_uid, group=pw_gid,
                             extra_groups=[gid_of("lockfile-clients")],
                             env={"PATH": "/usr/bin:/bin"}, cwd="/")
        self.mcp.initialize()
        self.mcp_modern = McpServer([client_bin, "mcp", "--socket", env.socket,
                                     "--wait", "120"], user=pw_uid,
                                    group=pw_gid, extra_groups=[
                                        gid_of("lockfile-clients")],
                                    env={"PATH": "/usr/bin:/bin"}, cwd="/")
        self.mcp_modern.modern = True

    def close(self):
        for s in (self.mcp, self.mcp_modern):
            assert s.close() == 0
            for l in s.lines:
                msg = json.loads(l)
                if msg.get("method") == "notifications/progress":
                    self.wl.mcp_progress(msg)

    # ---- the three ways ----
    def raw(self, method, params=None, user="agent"):
        req, line, _ = self.env.rpc(method, params, user=user, timeout=120)
        check_reply(req, line, self.env.build)
        doc = json.loads(line)
        if "result" in doc:
            self.wl.result(method, doc["result"])
            return "result", doc["result"]
        err = doc["error"]
        code = self.wl.error({"error": err["message"],
                              "hint": err["data"]["hint"]})
        return code, None

    def cli(self, method, params=None, text=False, user="agent"):
        argv = [self.bin] + cli_args(method, params) + [
            "--socket", self.env.socket]
        if not text:
            argv.append("--json")
        r = as_user(user, argv, timeout=180, env={
            "PATH": "/usr/bin:/bin", "LOCKFILE_WAIT": "120"})
        if text:
            code = self.wl.cli_text(method, r.stdout, r.stderr)
            res = None
        else:
            assert r.stderr == b"", r.stderr
            code = self.wl.cli_json(method, r.stdout)
            doc = json.loads(r.stdout)
            res = doc.get("result")
        assert r.returncode == CODE_EXIT.get(code, 1), (code, r.returncode)
        return code, res

    def mcp_call(self, method, params=None, modern=False, token=None):
        s = self.mcp_modern if modern else self.mcp
        resp, notes = s.tool(TOOL[method], params or {}, token=token,
                             timeout=180)
        for n in notes:
            self.wl.mcp_progress(n)
        res = resp["result"]
        assert ("resultType" in res) == modern
        code = self.wl.mcp_result(TOOL[method], res)
        self.last_notes = notes
        return code, res.get("structuredContent")

    def ways(self, text=True):
        w = [("raw", self.raw), ("cli", self.cli),
             ("mcp", self.mcp_call),
             ("mcp-modern", lambda m, p=None: self.mcp_call(m, p, True))]
        if text:
            w.insert(2, ("cli-text", lambda m, p=None: self.cli(m, p, True)))
        return w

    def each(self, method, params, want, text=True):
        """No human involved: every way must end in `want`."""
        out = []
        for name, fn in self.ways(text):
            code, res = fn(method, params)
            assert code == want, (name, method, params, code)
            out.append(res)
        return out

    # ---- with the human ----
    def approved(self, fn, answer="y", value=None, delay=0.0):
        """Run fn in a thread; answer its approval card (and type a value
        for a placeholder) on the console terminal."""
        box = {}

        def go():
            try:
                box["out"] = fn()
            except BaseException as e:      # re-raised below
                box["exc"] = e
        t = threading.Thread(target=go)
        t.start()
        self.cards += 1
        self.env.wait_screen(r"Approve\?", count=self.cards, timeout=60)
        time.sleep(delay)
        if answer is not None:
            self.env.type(answer)
            if value is not None:
                self.env.wait_screen(r"not shown\): ", count=self.values + 1)
                self.values += 1
                if value:
                    self.env.type(value)
                else:
                    self.env.tmux("send-keys", "-t", "lf", "Enter")
        t.join(200)
        assert not t.is_alive()
        if "exc" in box:
            raise box["exc"]
        return box["out"]

    values = 0

    def each_approved(self, method, params, want, answer="y", value=None,
                      text=False):
        out = []
        for name, fn in self.ways(text):
            code, res = self.approved(lambda: fn(method, params), answer,
                                      value)
            assert code == want, (name, code)
            out.append(res)
        return out


@pytest.fixture(scope="module")
def world(lockfile_bin):
    env = ConsoleEnv()
    env.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": make_pdf(),
        "2024/b.json": b'{"total": 12}\n',
        "2024/c.txt": b"contact: alice@example.org\n",
        "secret/outside.txt": b"never served",
    })
    env.add_local_profile("payroll", production=True, files={"x.txt": b"x"})
    for p in ("is-pdf", "is-utf8", "contains"):
        env.install_plugin(p)
    # an unofficial plugin, a yanked one and one whose binary changes
    env.install_plugin("is-json", official=False, marketplace="community")
    env.install_plugin("is-pdf", manifest_edit=lambda m: m.update(
        name="old-pdf"), yanked=True)
    d = env.install_plugin("is-utf8", manifest_edit=lambda m: m.update(
        name="bad-utf8"))
    with open(os.path.join(d, "plugin"), "ab") as f:
        f.write(b"\0tampered")
    env.write_policy(answer_quantum_s=1, approval_timeout_s=10,
                     max_plugins_per_handle=6)
    env.start()
    wl = Whitelist.for_build(env.build)
    agent = Agent(env, wl, lockfile_bin)
    yield env, agent
    agent.close()
    env.cleanup()


def test_status_sources_plugins(world):
    env, a = world
    for res in a.each("status", None, "result"):
        if res is not None:
            assert res["console"] == "up" and res["answer_quantum_s"] == 1
            assert "profile" not in res
    for res in a.each("status", {"profile": "payroll"}, "result"):
        if res is not None:
            assert res["profile"] == "payroll" and res["production"] is True
    a.each("status", {"profile": "nope"}, "E_UNKNOWN_PROFILE")
    for res in a.each("sources", None, "result"):
        if res is not None:
            assert res == {"sources": [
                {"profile": "invoices", "production": False},
                {"profile": "payroll", "production": True}]}
    for res in a.each("file.plugins", None, "result"):
        if res is not None:
            names = {p["name"]: p for p in res["plugins"]}
            # yanked and tampered plugins are not listed
            assert sorted(names) == ["contains", "is-json", "is-pdf",
                                     "is-utf8"]
            assert names["is-json"]["warning"] == "unofficial_marketplace"
            assert names["contains"]["inputs"][0]["name"] == "needle"


PDF_PLAN = {"profile": "invoices", "key": "2024/a.pdf",
            "plugins": [{"name": "is-pdf"}, {"name": "is-utf8"}]}


def test_plan_refusals_before_the_file_is_read(world):
    env, a = world
    P = "invoices"
    cases = [
        ({"profile": P, "key": "2024/c.txt", "plugins": [
            {"name": "contains", "inputs": {"needle": "alice@example.org"}}]},
         "E_LITERAL_INPUT"),
        ({"profile": "nope", "key": "2024/a.pdf",
          "plugins": [{"name": "is-pdf"}]}, "E_UNKNOWN_PROFILE"),
        ({"profile": P, "key": "secret/outside.txt",
          "plugins": [{"name": "is-pdf"}]}, "E_KEY_OUTSIDE_PREFIX"),
        ({"profile": P, "key": "2024/../secret/outside.txt",
          "plugins": [{"name": "is-pdf"}]}, "E_KEY_OUTSIDE_PREFIX"),
        ({"profile": P, "key": "2024/a.pdf",
          "plugins": [{"name": "no-such"}]}, "E_PLUGIN_NOT_INSTALLED"),
        ({"profile": P, "key": "2024/a.pdf",
          "plugins": [{"name": "is-pdf", "version": "9.9.9"}]},
         "E_PLUGIN_NOT_INSTALLED"),
        ({"profile": P, "key": "2024/a.pdf",
          "plugins": [{"name": "old-pdf"}]}, "E_PLUGIN_YANKED"),
        ({"profile": P, "key": "2024/a.pdf",
          "plugins": [{"name": "bad-utf8"}]}, "E_PLUGIN_TAMPERED"),
        ({"profile": P, "key": "2024/a.pdf",
          "plugins": [{"name": "is-pdf"}] * 7}, "E_TOO_MANY_PLUGINS"),
        ({"handle": rand_handle(), "plugins": [{"name": "is-pdf"}]},
         "E_HANDLE_EXPIRED"),
        # inputs that do not match the manifest
        ({"profile": P, "key": "2024/c.txt",
          "plugins": [{"name": "contains"}]}, "E_BAD_REQUEST"),
    ]
    for params, want in cases:
        a.each("file.plan", params, want, text=(want == "E_LITERAL_INPUT"))
    # none of them showed a card
    assert "Approve?" not in env.screen()


def test_run_release_change(world):
    env, a = world
    a.each("file.run", {"plan": "pl_" + secrets.token_hex(16)},
           "E_BAD_REQUEST")
    a.each("file.release", {"handle": rand_handle()}, "E_HANDLE_EXPIRED")
    for res in a.each("change.request", {"text": "please add \x1b[2J a "
                                         "profile"}, "result"):
        if res is not None:
            assert res == {"queued": True}
    # the escape sequence reached the console window escaped only
    assert b"\x1b[2J" not in env.screen_raw()


def test_bad_request_and_peer_refused_on_the_socket(world):
    env, a = world
    out, _ = env.rpc_raw(b"this is not json\n")
    assert json.loads(out)["error"]["message"] == "E_BAD_REQUEST"
    # root is never a client: refused before a byte is read
    assert a.raw("status", user="root")[0] == "E_PEER_REFUSED"
    assert a.cli("sources", user="root")[0] == "E_PEER_REFUSED"
    assert a.cli("status", user="root", text=True)[0] == "E_PEER_REFUSED"
    s = McpServer([a.bin, "mcp", "--socket", env.socket],
                  env={"PATH": "/usr/bin:/bin"})
    try:
        s.initialize()
        for tool in ("status", "sources"):
            resp, _ = s.tool(tool)
            assert a.wl.mcp_result(tool, resp["result"]) == "E_PEER_REFUSED"
    finally:
        assert s.close() == 0
    # an account outside the clients group cannot even open the socket
    assert a.cli("status", user="lf-outsider")[0] == "unreachable"
    assert a.cli("file.plan", PDF_PLAN, user="lf-outsider",
                 text=True)[0] == "unreachable"
    s = McpServer([a.bin, "mcp", "--socket", env.socket],
                  user=uid_of("lf-outsider"), group=gid_of("lf-outsider"),
                  extra_groups=[], env={"PATH": "/usr/bin:/bin"}, cwd="/")
    try:
        s.modern = True
        resp, _ = s.tool("plan", PDF_PLAN)
        assert a.wl.mcp_result("plan", resp["result"]) == "unreachable"
    finally:
        assert s.close() == 0


def test_plans_approved_answered_and_released(world):
    env, a = world
    handles = []
    for res in a.each_approved("file.plan", PDF_PLAN, "result", text=True):
        if res is None:
            continue
        assert [(x["plugin"], x["result"]) for x in res["answers"]] == [
            ("is-pdf", 1), ("is-utf8", 1)]
        handles.append(res["handle"])
    assert len(set(handles)) == 4
    # more questions on the same file, by handle
    for h in handles[:1]:
        for name, fn in a.ways(text=False):
            code, res = a.approved(lambda: fn("file.plan", {
                "handle": h, "plugins": [{"name": "is-json"}]}))
            assert code == "result" and res["handle"] == h
            assert res["answers"][0]["result"] == 0
    # the 6 answers of the first handle are used up now
    a.each("file.plan", {"handle": handles[0],
                         "plugins": [{"name": "is-pdf"}]}, "E_HANDLE_EXPIRED",
           text=False)
    ways = a.ways(text=False)
    for (name, fn), h in zip(ways, handles[1:] + [handles[0]]):
        code, res = fn("file.release", {"handle": h})
        if h == handles[0]:
            assert code == "E_HANDLE_EXPIRED"
        else:
            assert code == "result" and res == {"released": True}
    # left: the file of the text way's plan (its handle was only printed)
    assert len(env.work_entries()) == 1


def test_typed_value_and_progress(world):
    env, a = world
    params = {"profile": "invoices", "key": "2024/c.txt", "plugins": [
        {"name": "contains", "inputs": {"needle": "${email}"}}]}
    code, res = a.approved(lambda: a.mcp_call("file.plan", params, token=7),
                           value="alice@example.org", delay=2.5)
    assert code == "result" and res["answers"][0]["result"] == 1
    assert res["held_inputs"] == ["email"]
    # it waited for the human: constant progress text, on the quantum
    assert len(a.last_notes) >= 2
    # replayed: no value typed again, on every way
    for name, fn in a.ways(text=False):
        code, res = a.approved(lambda: fn("file.plan", dict(
            params, key="2024/b.json")))
        assert code == "result" and res["answers"][0]["result"] == 0
        assert res["held_inputs"] == ["email"]
    # the CLI's shorthand for a plugin's only input
    r = a.approved(lambda: as_user("agent", [
        a.bin, "ask", "--profile", "invoices", "--key", "2024/c.txt",
        "--plugin", "contains:input=${email}", "--socket", env.socket,
        "--json"], timeout=120))
    assert r.returncode == 0, r.stderr
    assert a.wl.cli_json("file.plan", r.stdout) == "result"
    assert json.loads(r.stdout)["result"]["answers"][0]["result"] == 1
    # the value never reached the agent side
    for s in (a.mcp, a.mcp_modern):
        assert b"alice@example.org" not in b"".join(s.lines)


def test_denied_timeout_invalid_fetch(world):
    env, a = world
    a.each_approved("file.plan", PDF_PLAN, "E_APPROVAL_DENIED",
                    answer="n private-reason-3131", text=True)
    assert "private-reason-3131" not in json.dumps(env.audit())
    a.each_approved("file.plan", PDF_PLAN, "E_APPROVAL_TIMEOUT", answer=None)
    for i, (name, fn) in enumerate(a.ways(text=False)):
        code, _ = a.approved(lambda: fn("file.plan", {
            "profile": "invoices", "key": "2024/c.txt", "plugins": [
                {"name": "contains", "inputs": {"needle": "${bad%d}" % i}}]}),
            value="")
        assert code == "E_INPUT_INVALID", name
    a.each_approved("file.plan", {"profile": "invoices",
                                  "key": "2024/missing.pdf",
                                  "plugins": [{"name": "is-pdf"}]},
                    "E_FETCH_FAILED", text=True)


def test_busy_while_a_plan_waits_for_the_human(world):
    env, a = world
    box = {}
    t = threading.Thread(target=lambda: box.update(r=a.raw("file.plan",
                                                           PDF_PLAN)))
    t.start()
    a.cards += 1
    env.wait_screen(r"Approve\?", count=a.cards)
    # every way at once, while the console waits for the human
    results, threads = [], []
    for name, fn in a.ways():
        if name == "raw":
            continue
        for method in ("status", "sources", "file.plugins"):
            if name.startswith("mcp") and method != "status":
                continue    # one request at a time per MCP test client
            th = threading.Thread(target=lambda fn=fn, m=method, n=name:
                                  results.append((n, m, fn(m)[0])))
            th.start()
            threads.append(th)
    for th in threads:
        th.join(60)
    env.type("y")
    t.join(60)
    assert box["r"][0] == "result"
    assert len(results) == 8
    for name, method, code in results:
        assert code == "busy", (name, method, code)
    assert a.cli("status")[0] == "result"


def test_proc_not_hidden(lockfile_bin):
    env = ConsoleEnv()
    try:
        env.add_local_profile("invoices", files={"a.pdf": make_pdf()})
        env.install_plugin("is-pdf")
        env.write_policy(answer_quantum_s=1)
        env.start(hidepid=False)
        a = Agent(env, Whitelist.for_build(env.build), lockfile_bin)
        try:
            a.each("status", None, "result")
            a.each("file.plan", {"profile": "invoices", "key": "a.pdf",
                                 "plugins": [{"name": "is-pdf"}]},
                   "E_PROC_NOT_HIDDEN")
        finally:
            a.close()
    finally:
        env.cleanup()


def test_cancelled_or_timed_out_plans_withdraw_the_card(world):
    """The client closes the plan connection when the host cancels the call
    (MCP) or its wait runs out (CLI): the console sees the hang-up and
    withdraws the card; nothing is fetched."""
    env, a = world
    before = len(env.work_entries())
    s = a.mcp
    rid = s.request("tools/call", {"name": "plan", "arguments": PDF_PLAN},
                    meta={"progressToken": "c1"})
    a.cards += 1
    env.wait_screen(r"Approve\?", count=a.cards)
    s.notify("notifications/cancelled", {"requestId": rid})
    env.wait_screen(r"the agent went away: plan withdrawn", count=1)
    resp, notes = s.call("ping")
    assert "result" in resp
    assert not [n for n in notes if n.get("id") == rid]
    # the CLI's own wait
    box = {}
    t = threading.Thread(target=lambda: box.update(r=as_user("agent", [
        a.bin] + cli_args("file.plan", PDF_PLAN) + [
        "--socket", env.socket, "--wait", "3", "--json"], timeout=60)))
    t.start()
    a.cards += 1
    env.wait_screen(r"Approve\?", count=a.cards)
    t.join(30)
    r = box["r"]
    assert r.returncode == 5
    assert a.wl.cli_json("file.plan", r.stdout) == "timeout"
    env.wait_screen(r"the agent went away: plan withdrawn", count=2)
    assert len(env.work_entries()) == before
    recs = [x for x in env.audit() if x.get("method") == "file.plan"]
    assert [x["decision"] for x in recs[-2:]] == ["withdrawn", "withdrawn"]
