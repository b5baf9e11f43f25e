"""Every E_* path a request can reach on a local console, through the real
socket, each response gated on the closed list (lfenv) and checked for
leaks: bad requests of every kind, literal inputs (never echoed anywhere),
unknown profile, key outside the prefix, plugins not installed / yanked /
tampered (also between the approval and the run), too many plugins, sandbox
unavailable, /proc not hidden, handle expired, input invalid, approval
denied and timed out, and fetch failures of every cause."""
import json
import os
import shutil
import stat
import subprocess
import threading
import time

import pytest

from conftest import make_pdf
from lfenv import assert_no_leak, check_reply, chown_tree

H32 = "0123456789abcdef0123456789abcdef"


def err(line):
    doc = json.loads(line)
    assert "error" in doc, doc
    return doc["error"]["message"]


def plan_async(env, params, user="agent"):
    box = {}

    def go():
        box["req"], box["line"], box["secs"] = env.rpc("file.plan", params,
                                                       user=user, timeout=90)
    t = threading.Thread(target=go)
    t.start()
    return t, box


def approved_plan(env, params, answer="y", count=None):
    """Run a plan, approve it at its card; returns the response line."""
    n = env.screen().count("Approve?")
    t, box = plan_async(env, params)
    env.wait_screen(r"Approve\?", count=(count or n + 1))
    env.type(answer)
    t.join()
    assert check_reply(box["req"], box["line"])
    assert_no_leak(box["line"])
    return box["line"]


def raw(env, data, **kw):
    out, _ = env.rpc_raw(data, **kw)
    return out.decode()


# ---- E_BAD_REQUEST ---------------------------------------------------

BAD = [
    # (bytes, the id the answer must carry)
    (b"this is not json\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\"\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\"} trailing\n", None),
    (b"\xff\xfe{}\n", None),
    (b"[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\"}]\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"method\":\"status\"}\n", None),      # no id
    (b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"status\"}\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"status\"}\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":[3],\"method\":\"status\"}\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"id\":4,\"method\":\"status\"}\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.delete\"}\n", 3),
    (b"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"status\"}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":[\"status\"]}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\",\"params\":[]}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\",\"params\":"
     b"{\"verbose\":true}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\",\"params\":"
     b"{\"profile\":7}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.plan\",\"params\":"
     b"{\"profile\":\"invoices\",\"profile\":\"hr\",\"key\":\"2024/a.pdf\","
     b"\"plugins\":[{\"name\":\"is-pdf\"}]}}\n", None),   # duplicate key
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.plan\",\"params\":"
     b"{\"profile\":\"invoices\",\"key\":\"2024/a.pdf\",\"plugins\":"
     b"[{\"name\":\"is-pdf\",\"args\":[\"-v\"]}]}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.plan\",\"params\":"
     b"{\"profile\":\"invoices\",\"key\":2024,\"plugins\":"
     b"[{\"name\":\"is-pdf\"}]}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.plan\",\"params\":"
     b"{\"profile\":\"invoices\",\"key\":\"2024/a.pdf\",\"plugins\":"
     b"\"is-pdf\"}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.release\",\"params\":"
     b"{\"handle\":\"../../etc\"}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"change.request\",\"params\":"
     b"{\"text\":\"\"}}\n", 3),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"change.request\",\"params\":"
     b"{\"text\":\"x\",\"deep\":" + b"[" * 40 + b"]" * 40 + b"}}\n", None),
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\",\"params\":"
     b"{\"profile\":" + b"{\"a\":" * 10 + b"1" + b"}" * 10 + b"}}\n", None),
    # file.run is hub mode: a local console refuses it
    (b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"file.run\",\"params\":"
     b"{\"plan\":\"pl_" + H32.encode() + b"\"}}\n", 3),
]


def test_bad_requests(basic):
    for data, want_id in BAD:
        # gated here, on the id the answer must carry (lfenv's gate needs a
        # request it can read, and some of these are not)
        line = raw(basic, data, gate=False)
        assert check_reply({"jsonrpc": "2.0", "id": want_id,
                            "method": "status"}, line) == "error E_BAD_REQUEST"
        assert err(line) == "E_BAD_REQUEST", (data, line)
        assert json.loads(line)["id"] == want_id, (data, line)
    # inputs that do not match the plugin's manifest
    for plugins in ([{"name": "contains"}],
                    [{"name": "is-pdf", "inputs": {"x": "${a}"}}],
                    [{"name": "contains", "inputs": {"haystack": "${a}"}}]):
        req, line, _ = basic.rpc("file.plan", {"profile": "invoices",
                                               "key": "2024/a.pdf",
                                               "plugins": plugins})
        assert err(line) == "E_BAD_REQUEST", plugins
    assert "Approve?" not in basic.screen()
    assert basic.work_entries() == []


def test_oversized_line(basic):
    # 64 KiB is the whole line; past it the console answers without
    # reading further (id null: the request was never parsed).
    pad = b" " * (70 * 1024)
    data = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\"}" + pad + b"\n"
    line = raw(basic, data)
    assert err(line) == "E_BAD_REQUEST"
    assert json.loads(line)["id"] is None
    # a line of exactly 64 KiB, newline included, is read and answered
    body = b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"status\"}"
    data = body + b" " * (64 * 1024 - 1 - len(body)) + b"\n"
    assert len(data) == 64 * 1024
    line = raw(basic, data)
    assert json.loads(line)["result"]["console"] == "up"
    # one byte more is refused, even when the newline arrives with it
    data = body + b" " * (64 * 1024 - len(body)) + b"\n"
    line = raw(basic, data)
    assert err(line) == "E_BAD_REQUEST"
    assert json.loads(line)["id"] is None
    # the console still serves afterwards
    req, line, _ = basic.rpc("status")
    assert check_reply(req, line) == "result"


def test_pipelined_requests(basic):
    data = b"".join(
        (json.dumps({"jsonrpc": "2.0", "id": i, "method": m}) + "\n").encode()
        for i, m in ((1, "status"), (2, "sources"), (3, "nope")))
    out, _ = basic.rpc_raw(data, one_line=False, gate=False)
    lines = out.splitlines(keepends=True)
    assert len(lines) == 3
    assert check_reply({"jsonrpc": "2.0", "id": 1, "method": "status"},
                       lines[0]) == "result"
    assert check_reply({"jsonrpc": "2.0", "id": 2, "method": "sources"},
                       lines[1]) == "result"
    assert check_reply({"jsonrpc": "2.0", "id": 3, "method": "status"},
                       lines[2]) == "error E_BAD_REQUEST"


# ---- refusals before anything is read --------------------------------

def test_literal_input_never_echoed(basic):
    basic.pane_log_start()
    lit = "alice-lit-4242@example.org"
    req, line, _ = basic.rpc("file.plan", {
        "profile": "invoices", "key": "2024/c.txt",
        "plugins": [{"name": "contains", "inputs": {"needle": lit}}]})
    assert check_reply(req, line) == "error E_LITERAL_INPUT"
    # before any other check: an unknown profile and a bad key too
    req, line, _ = basic.rpc("file.plan", {
        "profile": "nope", "key": "../../x",
        "plugins": [{"name": "not-installed", "inputs": {"needle": lit}}]})
    assert check_reply(req, line) == "error E_LITERAL_INPUT"
    basic.wait_screen("E_LITERAL_INPUT", count=2)
    assert "lit-4242" not in line
    assert "lit-4242" not in basic.screen()
    assert b"lit-4242" not in basic.pane_log()
    assert "lit-4242" not in json.dumps(basic.audit())
    assert "Approve?" not in basic.screen()


def test_unknown_profile(basic):
    req, line, _ = basic.rpc("file.plan", {"profile": "hr", "key": "a.pdf",
                                           "plugins": [{"name": "is-pdf"}]})
    assert check_reply(req, line) == "error E_UNKNOWN_PROFILE"
    req, line, _ = basic.rpc("status", {"profile": "hr"})
    assert check_reply(req, line) == "error E_UNKNOWN_PROFILE"
    req, line, _ = basic.rpc("status", {"profile": "invoices"})
    assert check_reply(req, line) == "result"
    assert json.loads(line)["result"]["profile"] == "invoices"


def test_key_outside_prefix(basic):
    for key in ("secret/outside.txt", "2024/../secret/outside.txt",
                "2024", "2024/", "../invoices/2024/a.pdf", "/2024/a.pdf"):
        req, line, _ = basic.rpc("file.plan", {
            "profile": "invoices", "key": key,
            "plugins": [{"name": "is-pdf"}]})
        assert check_reply(req, line) == "error E_KEY_OUTSIDE_PREFIX", key
        assert_no_leak(line, extra=["secret"])
    assert "Approve?" not in basic.screen()


def test_plugin_not_installed_yanked_tampered(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.install_plugin("is-utf8", yanked=True)
    d_json = env.install_plugin("is-json")
    d_cont = env.install_plugin("contains")
    env.write_policy()
    env.start()
    cases = [
        ([{"name": "is-xml"}], "E_PLUGIN_NOT_INSTALLED"),
        ([{"name": "is-pdf", "version": "9.9.9"}], "E_PLUGIN_NOT_INSTALLED"),
        ([{"name": "is-pdf"}, {"name": "is-xml"}], "E_PLUGIN_NOT_INSTALLED"),
        ([{"name": "is-utf8"}], "E_PLUGIN_YANKED"),
        ([{"name": "is-pdf"}, {"name": "is-utf8"}], "E_PLUGIN_YANKED"),
    ]
    for plugins, want in cases:
        req, line, _ = env.rpc("file.plan", {"profile": "docs", "key": "a.pdf",
                                             "plugins": plugins})
        assert check_reply(req, line) == "error " + want, plugins
    # the binary changed after install
    with open(os.path.join(d_json, "plugin"), "ab") as f:
        f.write(b"\0")
    req, line, _ = env.rpc("file.plan", {"profile": "docs", "key": "a.pdf",
                                         "plugins": [{"name": "is-json"}]})
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"
    # the manifest changed after install (a wider question, same binary)
    mpath = os.path.join(d_cont, "manifest.json")
    with open(mpath) as f:
        m = json.load(f)
    m["question"] = "Does the file contain anything?"
    with open(mpath, "w") as f:
        json.dump(m, f, sort_keys=True)
    req, line, _ = env.rpc("file.plan", {
        "profile": "docs", "key": "a.pdf",
        "plugins": [{"name": "contains", "inputs": {"needle": "${x}"}}]})
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"
    # file.plugins lists only what can run
    req, line, _ = env.rpc("file.plugins")
    assert [p["name"] for p in json.loads(line)["result"]["plugins"]] == [
        "is-pdf"]
    assert "Approve?" not in env.screen()
    assert env.work_entries() == []
    causes = [r.get("cause") for r in env.audit()
              if r.get("outcome") == "E_PLUGIN_TAMPERED"]
    assert causes == ["binary hash differs from plugins.lock",
                      "manifest hash differs from plugins.lock"]


def test_plugin_directory_not_the_consoles_own(env):
    """The same plugin bytes, but its version directory a symlink, or
    owned by another account: refused as tampered (another account could
    swap them between the hash and the exec). The same bytes in the
    console's own directory run: the refusal is for the place, not the
    bytes."""
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    d = env.install_plugin("is-pdf")
    env.write_policy()
    env.start()
    plan = {"profile": "docs", "key": "a.pdf", "plugins": [{"name": "is-pdf"}]}

    def listed():
        _, line, _ = env.rpc("file.plugins")
        return [p["name"] for p in json.loads(line)["result"]["plugins"]]
    assert listed() == ["is-pdf"]
    moved = os.path.join(env.base, "elsewhere")
    shutil.copytree(d, moved)
    chown_tree(moved, "agent")
    shutil.rmtree(d)
    os.symlink(moved, d)
    req, line, _ = env.rpc("file.plan", plan)
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"
    assert listed() == []
    os.unlink(d)
    os.rename(moved, d)                 # a real directory, the agent's
    req, line, _ = env.rpc("file.plan", plan)
    assert check_reply(req, line) == "error E_PLUGIN_TAMPERED"
    chown_tree(d, "lockfile")           # the same bytes, the console's own
    assert listed() == ["is-pdf"]
    assert "Approve?" not in env.screen()


def test_tampered_between_approval_and_run(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    d = env.install_plugin("is-pdf")
    env.write_policy()
    env.start()
    t, box = plan_async(env, {"profile": "docs", "key": "a.pdf",
                              "plugins": [{"name": "is-pdf"}]})
    env.wait_screen(r"Approve\?")
    # replaced in place while the human reads the card
    with open(os.path.join(d, "plugin"), "r+b") as f:
        f.seek(100)
        f.write(b"\x90\x90\x90\x90")
    env.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_PLUGIN_TAMPERED"
    assert_no_leak(box["line"])
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["decision"] == "approved" and "plugins" not in rec
    # No plugin ran, and the agent got no handle: the fetched copy must
    # not stay behind in the workspace.
    assert env.work_entries() == []


def _to_another_version(env, d):
    """plugins.lock rewritten to version 9.9.9 of the same name, with
    another binary (is-pdf's: it would answer 0 where is-utf8 answers 1)."""
    env.install_plugin("is-utf8", binary=os.path.join(
        env.plugin_build, "plugins", "is-pdf", "is-pdf"),
        manifest_edit=lambda m: m.update(version="9.9.9"))


def _version_removed(env, d):
    shutil.rmtree(d)


def _no_longer_official(env, d):
    """The same bytes, recorded as from an unofficial marketplace: the card
    said "(official)"."""
    for p in env.lock["plugins"]:
        if p["name"] == "is-utf8":
            p["official"] = False
            p["marketplace"] = "community"
    env.write_lock()


@pytest.mark.parametrize("change", [_to_another_version, _version_removed,
                                    _no_longer_official])
def test_run_pins_what_the_card_showed(env, change):
    """The store changes while the card waits (the request names no
    version): the approved plan must run exactly the version, hashes and
    marketplace the card showed, or nothing (E_PLUGIN_TAMPERED, also for a
    removed version: not "not installed")."""
    env.add_local_profile("docs", files={"a.txt": b"hello\n"})
    d = env.install_plugin("is-utf8")
    env.write_policy()
    env.start()
    t, box = plan_async(env, {"profile": "docs", "key": "a.txt",
                              "plugins": [{"name": "is-utf8"}]})
    s = env.wait_screen(r"Approve\?")
    assert "is-utf8 1.0.0  (official)" in s
    change(env, d)
    env.type("y")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_PLUGIN_TAMPERED"
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["decision"] == "approved" and "plugins" not in rec, rec
    assert env.work_entries() == []


def test_pinned_inputs_never_meet_another_manifest(env):
    """A newer version of `contains` whose input has another name appears
    while the card waits: the value typed for the approved input must not
    be handed to it (before the pins, the console read a NULL binding there
    and died)."""
    env.add_local_profile("docs", files={"a.txt": b"alice@example.org\n"})
    env.install_plugin("contains")

    def renamed(m):
        m["version"] = "9.9.9"
        m["inputs"][0]["name"] = "pattern"
    env.write_policy()
    env.start()
    t, box = plan_async(env, {"profile": "docs", "key": "a.txt",
                              "plugins": [{"name": "contains", "inputs": {
                                  "needle": "${email}"}}]})
    env.wait_screen(r"Approve\?")
    env.install_plugin("contains", manifest_edit=renamed)
    env.type("y")
    env.wait_screen(r"value for \$\{email\}")
    env.type("alice@example.org")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_PLUGIN_TAMPERED"
    assert env.console_alive()
    rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
    assert rec["cause"] == "plugins.lock changed since the approval"
    assert "plugins" not in rec
    # the new version is what a new plan is offered
    t, box = plan_async(env, {"profile": "docs", "key": "a.txt",
                              "plugins": [{"name": "contains", "inputs": {
                                  "pattern": "${email}"}}]})
    s = env.wait_screen(r"Approve\?", count=2)
    assert "contains 9.9.9" in s[s.rfind("an agent asks"):]
    env.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"


def test_too_many_plugins(basic):
    seven = [{"name": n} for n in ("is-pdf", "is-utf8", "is-json", "is-pdf",
                                   "is-utf8", "is-json", "is-pdf")]
    req, line, _ = basic.rpc("file.plan", {"profile": "invoices",
                                           "key": "2024/a.pdf",
                                           "plugins": seven})
    assert check_reply(req, line) == "error E_TOO_MANY_PLUGINS"
    many = [{"name": "is-pdf"}] * 65
    req, line, _ = basic.rpc("file.plan", {"profile": "invoices",
                                           "key": "2024/a.pdf",
                                           "plugins": many})
    assert check_reply(req, line) == "error E_TOO_MANY_PLUGINS"
    # on a handle: what is left, then nothing
    line = approved_plan(basic, {"profile": "invoices", "key": "2024/a.pdf",
                                 "plugins": seven[:4]})
    handle = json.loads(line)["result"]["handle"]
    req, line, _ = basic.rpc("file.plan", {"handle": handle,
                                           "plugins": seven[:3]})
    assert check_reply(req, line) == "error E_TOO_MANY_PLUGINS"
    line = approved_plan(basic, {"handle": handle, "plugins": seven[:2]})
    assert "the handle has 2 left (0 after)" in basic.screen()
    assert check_reply({"jsonrpc": "2.0", "id": 1, "method": "file.plan",
                        "params": {"handle": handle,
                                   "plugins": seven[:2]}}, line) == "result"
    # used up: the handle is gone, and so is its file
    req, line, _ = basic.rpc("file.plan", {"handle": handle,
                                           "plugins": seven[:1]})
    assert check_reply(req, line) == "error E_HANDLE_EXPIRED"
    assert basic.work_entries() == []


def test_handle_expired(basic):
    req, line, _ = basic.rpc("file.plan", {"handle": "f_" + H32,
                                           "plugins": [{"name": "is-pdf"}]})
    assert check_reply(req, line) == "error E_HANDLE_EXPIRED"
    req, line, _ = basic.rpc("file.release", {"handle": "f_" + H32})
    assert check_reply(req, line) == "error E_HANDLE_EXPIRED"
    line = approved_plan(basic, {"profile": "invoices", "key": "2024/a.pdf",
                                 "plugins": [{"name": "is-pdf"}]})
    handle = json.loads(line)["result"]["handle"]
    assert len(basic.work_entries()) == 1
    req, line, _ = basic.rpc("file.release", {"handle": handle})
    assert check_reply(req, line) == "result"
    assert basic.work_entries() == []
    req, line, _ = basic.rpc("file.release", {"handle": handle})
    assert check_reply(req, line) == "error E_HANDLE_EXPIRED"
    req, line, _ = basic.rpc("file.plan", {"handle": handle,
                                           "plugins": [{"name": "is-pdf"}]})
    assert check_reply(req, line) == "error E_HANDLE_EXPIRED"


def test_input_invalid(basic):
    basic.pane_log_start()
    params = {"profile": "invoices", "key": "2024/c.txt",
              "plugins": [{"name": "contains",
                           "inputs": {"needle": "${big}"}}]}
    t, box = plan_async(basic, params)
    basic.wait_screen(r"Approve\?")
    basic.type("y")
    basic.wait_screen(r"value for \$\{big\}")
    value = "V" * 1100                  # contains: needle max_bytes 1024
    basic.type(value)
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_INPUT_INVALID"
    assert "does not fit" in basic.screen()
    assert value[:64] not in basic.screen()
    assert value[:64].encode() not in basic.pane_log()
    assert value[:64] not in json.dumps(basic.audit())
    assert basic.work_entries() == []
    # the value was forgotten: the next plan asks again
    t, box = plan_async(basic, params)
    s = basic.wait_screen(r"Approve\?", count=2)
    assert "you will type the value" in s[s.rfind("an agent asks"):]
    basic.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"


def test_approval_timeout_and_production(env):
    env.add_local_profile("prod", files={"a.pdf": make_pdf()},
                          production=True)
    env.install_plugin("is-pdf")
    env.write_policy(approval_timeout_s=5)
    env.start()
    req, line, _ = env.rpc("sources")
    assert json.loads(line)["result"]["sources"] == [
        {"profile": "prod", "production": True}]
    t, box = plan_async(env, {"profile": "prod", "key": "a.pdf",
                              "plugins": [{"name": "is-pdf"}]})
    env.wait_screen(r"\[PRODUCTION\]")
    env.wait_screen("type 'yes' to approve")
    env.type("y")               # not enough for a production profile
    env.wait_screen("type 'yes' in full")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_TIMEOUT"
    assert 4.5 < box["secs"] < 8
    assert env.work_entries() == []
    rec = [r for r in env.audit() if r.get("method") == "file.plan"]
    assert rec[0]["decision"] == "timeout"


SECCOMP_NO_LANDLOCK = r"""
import ctypes, os, struct, sys
# seccomp: landlock_create_ruleset (444 on x86-64) answers ENOSYS, as on a
# kernel without Landlock; everything else is allowed.
prog = [(0x20, 0, 0, 4), (0x15, 0, 3, 0xc000003e), (0x20, 0, 0, 0),
        (0x15, 0, 1, 444), (0x06, 0, 0, 0x00050000 | 38),
        (0x06, 0, 0, 0x7fff0000)]
buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
fprog = struct.pack("HxxxxxxQ", len(prog), ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
fp = ctypes.create_string_buffer(fprog)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, fp, 0, 0) != 0:
    sys.exit("seccomp: %d" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])
"""


def test_sandbox_unavailable(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy()
    shim = os.path.join(env.base, "no-landlock.py")
    with open(shim, "w") as f:
        f.write(SECCOMP_NO_LANDLOCK)
    os.chmod(shim, 0o644)
    env.start(wrapper=["/usr/bin/python3", shim])
    env.wait_screen("plugin sandbox unavailable")
    req, line, _ = env.rpc("status")
    assert json.loads(line)["result"]["sandbox"] == "unavailable"
    req, line, _ = env.rpc("file.plan", {"profile": "docs", "key": "a.pdf",
                                         "plugins": [{"name": "is-pdf"}]})
    assert check_reply(req, line) == "error E_SANDBOX_UNAVAILABLE"
    assert "Approve?" not in env.screen()
    assert env.work_entries() == []


def test_proc_not_hidden(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy()
    env.start(hidepid=False)
    env.wait_screen("E_PROC_NOT_HIDDEN")
    req, line, _ = env.rpc("file.plan", {"profile": "docs", "key": "a.pdf",
                                         "plugins": [{"name": "is-pdf"}]})
    assert check_reply(req, line) == "error E_PROC_NOT_HIDDEN"
    assert "Approve?" not in env.screen()
    assert env.work_entries() == []


# ---- E_FETCH_FAILED ------------------------------------------------------

def test_fetch_failed_causes(env):
    d = env.add_local_profile("docs", files={
        "a.pdf": make_pdf(),
        "big.bin": b"\0" * (1024 * 1024 + 1),
        "fits.bin": b"\0" * (1024 * 1024),
        "secret/outside.txt": b"outside",
    }, prefix="")
    os.mkdir(os.path.join(d, "dir"), 0o700)	# closed, as a source must be
    os.symlink("a.pdf", os.path.join(d, "link.pdf"))
    os.symlink("/etc/passwd", os.path.join(d, "passwd"))
    os.symlink("secret", os.path.join(d, "linkdir"))
    os.mkfifo(os.path.join(d, "fifo"))
    # A writer waiting on the FIFO is released by any open for reading: the
    # console must look at what a key names without opening it.
    writer = subprocess.Popen(["/usr/bin/python3", "-c",
                               "import sys; open(sys.argv[1], 'wb'); "
                               "print('opened', flush=True)",
                               os.path.join(d, "fifo")],
                              stdout=subprocess.PIPE)
    os.mknod(os.path.join(d, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    with open(os.path.join(d, "locked.pdf"), "wb") as f:
        f.write(make_pdf())
    os.chmod(os.path.join(d, "locked.pdf"), 0o000)  # owned by root
    env.install_plugin("is-pdf")
    env.write_policy(max_workspace_bytes=1024 * 1024)
    env.start()
    want = {"missing.pdf": "missing", "dir": "not-regular",
            "link.pdf": "not-regular", "passwd": "not-regular",
            "linkdir/outside.txt": "not-regular", "fifo": "not-regular",
            "null": "not-regular", "locked.pdf": "denied",
            "big.bin": "too-big"}
    for key in want:
        t0 = time.monotonic()
        line = approved_plan(env, {"profile": "docs", "key": key,
                                   "plugins": [{"name": "is-pdf"}]})
        assert err(line) == "E_FETCH_FAILED", key
        assert_no_leak(line, extra=[key, "passwd", "big", "fifo"])
        assert time.monotonic() - t0 < 10, "a FIFO must not stall the fetch"
        assert env.work_entries() == [], key
    recs = [r for r in env.audit() if r.get("method") == "file.plan"]
    got = {r["key"]: r["fetch_cause"] for r in recs}
    assert got == want
    time.sleep(0.5)
    assert writer.poll() is None, "the FIFO was opened"
    writer.kill()
    writer.wait()
    # exactly the cap fits
    line = approved_plan(env, {"profile": "docs", "key": "fits.bin",
                               "plugins": [{"name": "is-pdf"}]})
    assert json.loads(line)["result"]["answers"][0]["result"] == 0
    # the window never shows the cause
    s = env.screen()
    for word in ("too-big", "not-regular", "denied", "No such",
                 "Permission", "ELOOP"):
        assert word not in s, word
