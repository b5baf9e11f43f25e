"""The store through the real console (tests/e2e/lfenv.py): a home laid
out only by the real `lockfile plugin install`, then plans over the socket
as the agent. A binary tampered with after install answers
E_PLUGIN_TAMPERED at plan; a version yanked upstream, once `verify` has
read the index, answers E_PLUGIN_YANKED (a console started after it;
test_store_console_live.py has the console running meanwhile); a plugin from an unofficial
marketplace carries warning "unofficial_marketplace" in file.plugins.
Every response is gated on the closed list by lfenv."""
import json
import os
import threading
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

from lfenv import ConsoleEnv, check_reply  # noqa: E402
from storeenv import Market, Store, Trust, assert_clean_exit, out_text  # noqa: E402

FILES = {"2024/b.json": b'{"total": 12, "lines": [1, 2]}\n',
         "2024/c.txt": b"contact: alice@example.org\n"}


@pytest.fixture
def cw(signer):
    env = ConsoleEnv()
    mk = Market(env.base, "official", signer)
    mk.publish(3)
    trust = Trust(env.base, signer, [("official", mk, True)])
    st = Store(home=env.home)
    env.add_local_profile("invoices", prefix="2024/", files=FILES)
    env.write_policy(answer_quantum_s=1, security_level=0,
                     max_plugins_per_handle=6)
    yield types.SimpleNamespace(env=env, mk=mk, trust=trust, st=st,
                                signer=signer)
    env.cleanup()


def install(cw, *names, market=None):
    for n in names:
        args = ["install", n] + (["--marketplace", market] if market else [])
        assert_clean_exit(cw.st.run(*args, trust=cw.trust), 0)


def plan(env, plugins, key="2024/b.json", approve=None, timeout=40):
    """A file.plan; approve: the answer to type once the card shows."""
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "profile": "invoices", "key": key,
            "plugins": [{"name": p} for p in plugins]}, timeout=timeout)
    t = threading.Thread(target=go)
    t.start()
    if approve is not None:
        # The screen keeps earlier cards: wait for this plan's own.
        env.approvals = getattr(env, "approvals", 0) + 1
        env.wait_screen(r"Approve\?", count=env.approvals)
        env.type(approve)
    t.join()
    return box["req"], box["line"]


def plugins_listed(env):
    req, line, _ = env.rpc("file.plugins")
    assert check_reply(req, line) == "result"
    return {p["name"]: p for p in json.loads(line)["result"]["plugins"]}


def test_installed_plugins_serve_a_plan(cw):
    install(cw, "is-json", "is-utf8", "contains")
    cw.env.start()
    listed = plugins_listed(cw.env)
    assert sorted(listed) == ["contains", "is-json", "is-utf8"]
    for p in listed.values():
        assert p["official"] is True and "warning" not in p
    assert listed["contains"]["question"] == cw.mk.manifest(
        "contains")["question"]
    req, line = plan(cw.env, ["is-json", "is-utf8"], approve="y")
    assert check_reply(req, line) == "result"
    got = {a["plugin"]: a["result"] for a in json.loads(line)["result"][
        "answers"]}
    assert got == {"is-json": 1, "is-utf8": 1}


def test_tampered_binary_after_install(cw):
    install(cw, "is-json", "is-utf8")
    p = os.path.join(cw.st.plugin_dir("is-json"), "plugin")
    with open(p, "ab") as f:
        f.write(b"\x00")
    cw.env.start()
    req, line = plan(cw.env, ["is-json"])
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"
    # The untouched plugin still runs.
    req, line = plan(cw.env, ["is-utf8"], approve="y")
    assert check_reply(req, line) == "result"


def test_tampered_manifest_after_install(cw):
    install(cw, "is-json")
    p = os.path.join(cw.st.plugin_dir("is-json"), "manifest.json")
    m = json.load(open(p))
    m["question"] = "Is it JSON? (edited in the store)"
    os.chmod(p, 0o600)
    with open(p, "w") as f:
        json.dump(m, f)
    cw.env.start()
    req, line = plan(cw.env, ["is-json"])
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"


def test_yanked_recorded_before_start(cw):
    install(cw, "is-json")
    cw.mk.publish(4, yanked=["is-json@1.0.0"])
    assert_clean_exit(cw.st.run("verify", trust=cw.trust), 0)
    cw.env.start()
    req, line = plan(cw.env, ["is-json"])
    assert check_reply(req, line) == "error E_PLUGIN_YANKED"


def test_unofficial_marketplace_warning(cw):
    other = Market(cw.env.base, "community", cw.signer,
                   repo="lockfile-test/community", plugins=["is-json"])
    other.publish(1)
    cw.trust.write([("official", cw.mk, True), ("community", other, False)])
    install(cw, "is-utf8")
    install(cw, "is-json", market="community")
    cw.env.start()
    listed = plugins_listed(cw.env)
    assert listed["is-json"]["official"] is False
    assert listed["is-json"]["warning"] == "unofficial_marketplace"
    assert listed["is-utf8"]["official"] is True
    assert "warning" not in listed["is-utf8"]
    req, line = plan(cw.env, ["is-json", "is-utf8"], approve="y")
    assert check_reply(req, line) == "result"
    assert "WARNING: unofficial marketplace" in cw.env.screen()


def test_update_while_the_console_runs(cw):
    install(cw, "is-utf8")
    cw.env.start()
    req, line = plan(cw.env, ["is-utf8"], approve="y")
    assert check_reply(req, line) == "result"

    def tighter(m):
        m["limits"]["cpu_s"] -= 1
    cw.mk.add_version("is-utf8", "1.0.1", edit=tighter)
    cw.mk.publish(4)
    assert_clean_exit(cw.st.run("update", trust=cw.trust), 0)
    listed = plugins_listed(cw.env)
    assert listed["is-utf8"]["version"] == "1.0.1"
    req, line = plan(cw.env, ["is-utf8"], approve="y")
    assert check_reply(req, line) == "result"
    assert json.loads(line)["result"]["answers"][0]["version"] == "1.0.1"


def test_update_while_the_card_waits(cw):
    """A real `lockfile plugin update` while the human reads the card of a
    plan that names no version: the approval was for 1.0.0, so the run
    opens 1.0.0 or nothing. plugins.lock now records 1.0.1:
    E_PLUGIN_TAMPERED, no plugin runs (the console before the pins ran
    1.0.1 and answered with it)."""
    install(cw, "is-utf8")
    cw.env.start()
    box = {}

    def go():
        box["req"], box["line"], _ = cw.env.rpc("file.plan", {
            "profile": "invoices", "key": "2024/c.txt",
            "plugins": [{"name": "is-utf8"}]}, timeout=60)
    t = threading.Thread(target=go)
    t.start()
    s = cw.env.wait_screen(r"Approve\?")
    assert "is-utf8 1.0.0" in s

    def tighter(m):
        m["limits"]["cpu_s"] -= 1
    cw.mk.add_version("is-utf8", "1.0.1", edit=tighter)
    cw.mk.publish(4)
    assert_clean_exit(cw.st.run("update", trust=cw.trust), 0)
    cw.env.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_PLUGIN_TAMPERED"
    rec = [r for r in cw.env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["decision"] == "approved" and "plugins" not in rec, rec
    assert rec["cause"] == "plugins.lock changed since the approval"
    assert cw.env.work_entries() == []
    # the next plan is shown, and runs, the new version
    cw.env.approvals = 1
    req, line = plan(cw.env, ["is-utf8"], key="2024/c.txt", approve="y")
    assert check_reply(req, line) == "result"
    assert json.loads(line)["result"]["answers"][0]["version"] == "1.0.1"


def test_no_socket_method_installs_trusts_or_loosens(cw):
    """Nothing reaches the store through the socket: every such method
    name is an unknown method (E_BAD_REQUEST), and the store is unchanged."""
    install(cw, "is-json")
    cw.env.start()
    before = cw.st.snapshot()
    for method in ("plugin.install", "plugin.update", "plugin.verify",
                   "plugin.remove", "plugins.install", "file.install",
                   "marketplace.add", "trust.add", "policy.approve",
                   "plugin.accept", "loosening.accept"):
        req, line, _ = cw.env.rpc(method, {"name": "is-pdf"})
        assert check_reply(req, line) == "error E_BAD_REQUEST", method
    assert cw.st.snapshot() == before
