"""Who may talk to the console (SPEC section 4): a peer that is neither the
console account, nor in the clients group, nor an allowed uid is refused
before a byte of its request is read; root is refused always; allowed uids
come from --allowed-uids or the policy's allowed_uids.

The refused peers connect with CAP_DAC_OVERRIDE (as root in a Docker agent
container does), so the socket's file modes do not stop them: only the
console's own SO_PEERCRED / SO_PEERGROUPS check does."""
import json
import os

import pytest

from conftest import make_pdf
from lfenv import as_user, check_reply, uid_of

MARK = "PEERMARK7f3a9c"


def change_request(text, rid=5):
    return (json.dumps({"jsonrpc": "2.0", "id": rid,
                        "method": "change.request",
                        "params": {"text": text}}) + "\n").encode()


def status_request(rid=1):
    return (json.dumps({"jsonrpc": "2.0", "id": rid,
                        "method": "status"}) + "\n").encode()


def refused(line):
    doc = json.loads(line)
    assert doc["id"] is None, doc
    assert doc["error"]["message"] == "E_PEER_REFUSED", doc
    return True


@pytest.fixture
def small(env):
    env.add_local_profile("docs", files={"a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    return env


def test_outsider_refused_before_its_request_is_read(small):
    env = small
    env.write_policy()
    env.start()
    # The control: the same request from the agent does reach the screen
    # and the audit, so the checks below can fail.
    out, _ = env.rpc_raw(change_request(MARK + "-agent"))
    assert check_reply({"jsonrpc": "2.0", "id": 5, "method": "change.request",
                        "params": {"text": "x"}}, out) == "result"
    env.wait_screen(MARK + "-agent")
    assert any(MARK + "-agent" in json.dumps(r) for r in env.audit())

    out, _ = env.rpc_as_peer(change_request(MARK + "-outsider"),
                             "lf-outsider")
    assert refused(out)
    env.wait_screen("refused a connection from uid %d" % uid_of("lf-outsider"))
    assert MARK + "-outsider" not in env.screen()
    assert MARK + "-outsider" not in json.dumps(env.audit())
    rec = [r for r in env.audit() if r.get("outcome") == "E_PEER_REFUSED"]
    assert rec and rec[-1]["peer_uid"] == uid_of("lf-outsider")
    assert rec[-1]["method"] is None

    # A plan from the outsider would show a card: none appears, nothing is
    # fetched.
    plan = (json.dumps({"jsonrpc": "2.0", "id": 9, "method": "file.plan",
                        "params": {"profile": "docs", "key": "a.pdf",
                                   "plugins": [{"name": "is-pdf"}]}})
            + "\n").encode()
    out, secs = env.rpc_as_peer(plan, "lf-outsider")
    assert refused(out)
    assert secs < 1.0
    assert "Approve?" not in env.screen()
    assert env.work_entries() == []
    # Without CAP_DAC_OVERRIDE the outsider does not even reach the socket.
    with pytest.raises(RuntimeError):
        env.rpc_as_peer(status_request(), "lf-outsider", dac_override=False)
    # The console still serves the agent afterwards.
    req, line, _ = env.rpc("status")
    assert check_reply(req, line) == "result"


def test_root_refused(small):
    env = small
    env.write_policy(allowed_uids=[uid_of("lf-allowed")])
    env.start()
    out, _ = env.rpc_as_peer(change_request(MARK + "-root"), "root")
    assert refused(out)
    env.wait_screen("refused a connection from uid 0")
    assert MARK + "-root" not in env.screen()
    assert MARK + "-root" not in json.dumps(env.audit())


def test_allowed_uid_by_option(small):
    env = small
    env.write_policy()
    env.start()
    out, _ = env.rpc_as_peer(status_request(), "lf-allowed")
    assert refused(out)
    env.stop()
    env.start(args=["--allowed-uids", "%d" % uid_of("lf-allowed")])
    out, _ = env.rpc_as_peer(status_request(), "lf-allowed")
    assert json.loads(out)["result"]["console"] == "up"
    # still nobody else
    out, _ = env.rpc_as_peer(status_request(), "lf-outsider")
    assert refused(out)


def test_allowed_uid_by_policy(small):
    env = small
    env.write_policy(allowed_uids=[uid_of("lf-allowed")])
    env.start()
    out, _ = env.rpc_as_peer(status_request(), "lf-allowed")
    assert json.loads(out)["result"]["console"] == "up"
    out, _ = env.rpc_as_peer(status_request(), "lf-outsider")
    assert refused(out)


def test_root_cannot_be_allowed(small):
    env = small
    env.write_policy()
    env.start(args=["--allowed-uids", "0"], wait=False)
    env.wait_exit()
    assert "--allowed-uids" in env.screen()
    assert not os.path.exists(env.socket)
    env.stop()
    env.write_policy(allowed_uids=[0])
    env.start(wait=False)
    env.wait_exit()
    assert "root is never allowed" in env.screen()
    assert not os.path.exists(env.socket)


def test_group_member_and_console_account(small):
    env = small
    env.write_policy()
    env.start()
    # agent is in the clients group (supplementary): served
    req, line, _ = env.rpc("status", user="agent")
    assert check_reply(req, line) == "result"
    # the console account itself: refused (issue 25, 5: below)
    out, _ = env.rpc_raw(status_request(), user="lockfile")
    assert refused(out)


# As the console account, from the machine's own pid namespace (not the
# simulated host the console runs in): one status, the answer printed.
OUTSIDE = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n')
except OSError:
    pass
out = b""
try:
    while not out.endswith(b"\n"):
        b = s.recv(65536)
        if not b:
            break
        out += b
except OSError:
    pass
sys.stdout.buffer.write(out)
"""


def test_console_uid_refused_from_anywhere(small):
    """An agent running as the console's own uid shares the kernel's
    per-uid task count with the plugins (issue 25, 5). It is refused before
    its request is read, from another pid namespace (here the machine's
    around the simulated host; an agent container's in Docker) as from the
    console's own: the confined console cannot tell a process of its own
    namespace from one in a container below it (Landlock hides both from
    its /proc), and no command needs the console account on the socket.
    The console before this accepted the console uid from anywhere."""
    env = small
    env.write_policy()
    env.start()
    r = as_user("lockfile", ["/usr/bin/python3", "-c", OUTSIDE, env.socket],
                timeout=30)
    assert r.stdout, r.stderr
    assert refused(r.stdout), r.stdout
    env.wait_screen("refused a connection from uid %d" % uid_of("lockfile"))
    rec = [x for x in env.audit() if x.get("outcome") == "E_PEER_REFUSED"]
    assert rec and rec[-1]["peer_uid"] == uid_of("lockfile")
    out, _ = env.rpc_raw(status_request(), user="lockfile")
    assert refused(out)
    # the agent is still served
    req, line, _ = env.rpc("status")
    assert check_reply(req, line) == "result"


def test_console_uid_never_allowed(small):
    """The console's uid in --allowed-uids or the policy's allowed_uids is
    refused at start (and the policy's at approve: test_policy.py)."""
    env = small
    env.write_policy()
    me = uid_of("lockfile")
    env.start(args=["--allowed-uids", "%d" % me], wait=False)
    env.wait_exit()
    assert "--allowed-uids" in env.screen()
    assert not os.path.exists(env.socket)
    env.stop()
    env.write_policy(allowed_uids=[uid_of("lf-allowed"), me])
    env.start(wait=False)
    env.wait_exit()
    assert "the console account's own uid" in env.screen()
    assert not os.path.exists(env.socket)


@pytest.mark.parametrize("bad", ["%d,,%d", ",%d", "%d,", "%d, %d"])
def test_allowed_uids_with_an_empty_or_padded_field_refused(small, bad):
    """--allowed-uids is a comma-separated list of uids: an empty field is
    a mistake in the list, never skipped (as doctor reads it too)."""
    env = small
    env.write_policy()
    uid = uid_of("lf-allowed")
    env.start(args=["--allowed-uids", bad.replace("%d", str(uid))],
              wait=False)
    env.wait_exit()
    assert "--allowed-uids" in env.screen()
    assert not os.path.exists(env.socket)


def peer_rpc(env, user, method, params, rid=1):
    req = env.request(method, params, rid)
    if user == "agent":
        out, _ = env.rpc_raw((json.dumps(req) + "\n").encode(), user)
    else:
        out, _ = env.rpc_as_peer((json.dumps(req) + "\n").encode(), user)
    return req, out.decode()


def peer_plan_async(env, user, params):
    import threading
    box = {}

    def go():
        box["req"], box["line"] = peer_rpc(env, user, "file.plan", params)
    t = threading.Thread(target=go)
    t.start()
    return t, box


def test_handles_and_values_are_the_peers_own(env):
    """A handle is bound to the peer uid that fetched it: another allowed
    peer planning on it or releasing it gets E_HANDLE_EXPIRED, byte for
    byte what an unknown handle gets, and the file stays. A value typed
    for one peer is held for that peer only; the card says for which
    uid."""
    env.add_local_profile("docs", files={"a.txt": b"alice@example.org\n"})
    env.install_plugin("contains")
    env.write_policy(allowed_uids=[uid_of("lf-allowed")],
                     max_plugins_per_handle=6)
    env.start()
    plan = {"profile": "docs", "key": "a.txt", "plugins": [
        {"name": "contains", "inputs": {"needle": "${email}"}}]}
    t, box = peer_plan_async(env, "agent", plan)
    env.wait_screen(r"Approve\?")
    env.type("y")
    env.wait_screen(r"value for \$\{email\}")
    env.type("alice@example.org")
    t.join()
    res = json.loads(box["line"])["result"]
    assert res["held_inputs"] == ["email"]
    handle = res["handle"]
    unknown = "f_" + "0123456789abcdef" * 2
    for method, params in (
            ("file.plan", {"plugins": [{"name": "contains", "inputs": {
                "needle": "${email}"}}]}),
            ("file.release", {})):
        req, theirs = peer_rpc(env, "lf-allowed", method,
                               dict(params, handle=handle))
        assert check_reply(req, theirs) == "error E_HANDLE_EXPIRED", method
        req, none = peer_rpc(env, "lf-allowed", method,
                             dict(params, handle=unknown))
        assert theirs == none, (theirs, none)
    assert len(env.work_entries()) == 1
    assert env.screen().count("Approve?") == 1
    # the other peer's own plan is asked for its own value
    t, box = peer_plan_async(env, "lf-allowed", plan)
    s = env.wait_screen(r"Approve\?", count=2)
    card = s[s.rfind("an agent asks"):]
    assert "from uid  %d" % uid_of("lf-allowed") in card
    assert "you will type the value" in card and "value held" not in card
    env.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"
    # the agent's handle and value are still its own
    t, box = peer_plan_async(env, "agent", {
        "handle": handle, "plugins": plan["plugins"]})
    s = env.wait_screen(r"Approve\?", count=3)
    card = s[s.rfind("an agent asks"):]
    assert "value held for uid %d; already replayed on 1 file" % uid_of(
        "agent") in card
    env.type("y")
    t.join()
    res = json.loads(box["line"])["result"]
    assert res["answers"][0]["result"] == 1 and res["held_inputs"] == ["email"]
    req, line = peer_rpc(env, "agent", "file.release", {"handle": handle})
    assert check_reply(req, line) == "result"
    assert env.work_entries() == []
