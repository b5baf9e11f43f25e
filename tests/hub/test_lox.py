"""lox's hub commands against a real lockhub (and, where the hub must lie,
the hostile test double): enrolment and its refusals; tickets listed only
when signed by a pinned instance key, forged ones refused without showing
their content; approval in a real terminal (what you see is what you sign:
the signed fields rendered by lox, values typed without echo, sealed to
the ticket's key, never on the screen or the hub); denial with the reason
kept local; hostile text escaped; a decided ticket; a hub that is down."""
import os
import pwd
import subprocess
import time

import pytest

import hubwire as hw  # noqa: E402
from fakehub import FakeHub  # noqa: E402
from hubenv import HubEnv, self_signed_cert  # noqa: E402
from lftest.oldtls import (OldTlsServer, old_tls_reachable,  # noqa: E402
                           permissive_openssl_conf,
                           under_permissive_openssl)
from loxenv import Lox  # noqa: E402

import nacl.public  # noqa: E402


class World:
    def __init__(self):
        self.hub = HubEnv()
        self.hub.init()
        self.inst = hw.Key()
        self.other = hw.Key()
        self.hub.enroll("instance", "desk", self.inst)
        self.hub.enroll("instance", "other", self.other)
        self.hub.start(poll_s=2)
        self.lox = Lox()
        self.devpk = self.lox.enroll(self.hub.url)
        self.dev = type("K", (), {"pk": self.devpk,
                                  "text": lambda s: "ed25519:" + s.pk.hex()})()
        self.hub.enroll("device", "alice", self.dev)
        self.lox.pin("desk", self.inst)
        self.box = nacl.public.PrivateKey.generate()

    def post(self, inst=None, name="desk", **kw):
        inst = inst or self.inst
        kw.setdefault("approvers", [self.devpk])
        t = hw.new_ticket(name, inst.pk, bytes(self.box.public_key), **kw)
        tb = hw.enc_ticket(t, inst.seed)
        st, _ = self.hub.call("POST", "/v1/tickets", tb, key=inst)
        assert st == 201
        return t, tb

    def decision(self, tid):
        return self.hub.call("GET", "/v1/tickets/%s/decision" % tid,
                             key=self.inst, timeout=10)

    def db(self):
        out = b""
        for f in os.listdir(self.hub.state):
            if f.startswith("hub.db"):
                with open(os.path.join(self.hub.state, f), "rb") as fh:
                    out += fh.read()
        return out

    def cleanup(self):
        self.lox.cleanup()
        self.hub.cleanup()


@pytest.fixture
def w():
    x = World()
    yield x
    x.cleanup()


def email_ticket(production=False):
    return dict(
        screen=dict(profile="invoices", production=production,
                    key="2024/a.pdf", typed="2024/./a.pdf", handle="",
                    content=hw.CONTENT_FETCHED, sha256=b"\xab" * 32,
                    size=48213, reveals=2, left_before=8,
                    plugins=[hw.plugin(), hw.plugin(
                        name="contains", version="1.2.0",
                        question="Does the file contain the typed text?",
                        one="the text occurs", zero="the text does not occur",
                        bindings=[dict(input="needle", placeholder="email")])]),
        placeholders=[dict(name="email", kind=hw.KIND_EMAIL, max_bytes=64)])


def test_enroll(w):
    lx = w.lox
    st = os.stat(os.path.join(lx.home, "device.key"))
    assert st.st_mode & 0o777 == 0o600 and st.st_uid == lx.pw.pw_uid
    # A second enroll keeps the key; --new makes another, the old kept.
    assert lx.enroll(w.hub.url) == w.devpk
    r = lx.run("enroll", "--new")
    assert r.returncode == 0
    new = bytes.fromhex([x for x in r.stdout.decode().split("\n")
                         if x.startswith("device-key ")][0].split(":")[1])
    assert new != w.devpk
    assert os.path.exists(os.path.join(lx.home, "device.key.old"))
    assert lx.run("enroll", "--new").returncode == 70
    # The fingerprint lox prints is the key's.
    k = hw.Key()
    r = lx.run("enroll", "--instance", "spare=" + k.text())
    assert r.returncode == 0 and k.fingerprint().encode() in r.stdout
    with open(os.path.join(lx.home, "hub.toml")) as f:
        cfg = f.read()
    assert "spare = \"%s\"" % k.text() in cfg and w.hub.url in cfg


@pytest.mark.parametrize("args", [
    ["--hub", "https://user:secret@hub.example.org"],
    ["--hub", "https://hub.example.org/v1?token=x"],
    ["--hub", "ftp://hub.example.org"],
    ["--hub", "https://hub.example.org:99999"],
    ["--instance", "Desk=ed25519:" + "00" * 32],
    ["--instance", "desk=ed25519:00"],
    ["--instance", "desk"],
    ["--ca", "relative.pem"],
])
def test_enroll_refused(w, args):
    r = w.lox.run("enroll", *args)
    assert r.returncode == 64, r.stderr
    # nothing secret echoed back
    assert b"secret" not in r.stderr and b"token" not in r.stderr


def test_state_dir_must_be_closed(w):
    os.chmod(w.lox.home, 0o755)
    r = w.lox.run("tickets")
    assert r.returncode == 70 and b"0700" in r.stderr


def test_tickets_only_pinned(w):
    a, _ = w.post()
    b, _ = w.post(screen=dict(email_ticket()["screen"], key="2024/b.pdf"))
    c, _ = w.post(inst=w.other, name="other",
                  screen=dict(email_ticket()["screen"], key="OTHERKEY.pdf"))
    r = w.lox.run("tickets")
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert a["id"] in out and b["id"] in out and '"2024/b.pdf"' in out
    assert c["id"] not in out and "OTHERKEY" not in out
    assert "1 ticket from instances this lox has not pinned" in out


def test_tickets_forged_by_the_hub(w):
    """A hub that lists a ticket it made (signed by its own key, in a pinned
    instance's name) and bytes that are no ticket: refused, unseen."""
    fake = FakeHub()
    good = hw.new_ticket("desk", w.inst.pk, bytes(w.box.public_key))
    forged = hw.new_ticket("desk", w.inst.pk, bytes(w.box.public_key))
    forged["screen"]["key"] = "FORGEDKEY.pdf"
    evil = hw.Key()
    items = [(1, hw.enc_ticket(good, w.inst.seed)),
             (2, hw.enc_ticket(forged, evil.seed)),
             (3, b"LHTICKET\x00\x01 GARBAGEKEY")]
    fake.routes["GET /v1/pending"] = lambda *a: (200, hw.enc_list(3, items))
    fake.start()
    try:
        r = w.lox.run("enroll", "--hub", fake.url)
        assert r.returncode == 0
        r = w.lox.run("tickets")
        out = r.stdout.decode()
        assert r.returncode == 0 and good["id"] in out
        assert forged["id"] not in out and "FORGEDKEY" not in out
        assert "GARBAGE" not in out
        assert "2 tickets REFUSED" in out
        # and it cannot be approved
        r = w.lox.run("deny", forged["id"])
        assert r.returncode == 65 and b"REFUSED" in r.stderr
        assert not [q for q in fake.requests if q[0] == "POST"]
        # every request lox made was signed by its device key
        for method, path, hdrs, body in fake.requests:
            q = hw.dec_request(hw.b64d(hdrs["Lockhub-Auth"]))
            assert q["key"] == w.devpk and q["path"] == path
    finally:
        fake.stop()


def test_approve_in_a_terminal(w):
    t, tb = w.post(**email_ticket())
    lx = w.lox
    lx.start("approve", t["id"])
    s = lx.wait_screen(r"value for \$\{email\}")
    # what you see is what you sign: the signed fields, rendered by lox
    assert t["id"] in s and '"2024/a.pdf"' in s and '"2024/./a.pdf"' in s
    assert "ab" * 32 in s and "48213 bytes" in s
    assert "Does the file contain the typed text?" in s
    assert "reveals 2 answers" in s and "signature checked" in s
    lx.type("alice@example.org")
    lx.wait_screen(r"Approve\? 'y'")
    lx.type("y")
    assert lx.exit_status() == 0
    st, body = w.decision(t["id"])
    assert st == 200
    d = hw.dec_decision(body)
    dev = hw.dec_dev(d["dev"])
    assert dev["verdict"] == hw.APPROVE and dev["device_key"] == w.devpk
    assert dev["ticket_hash"] == hw.h(tb) and dev["nonce"] == t["nonce"]
    assert dev["box_hash"] == hw.h(d["box"])
    assert hw.verify(d["dev"], dev["signed_len"], dev["sig"], w.devpk)
    assert hw.unseal(d["box"], bytes(w.box)) == hw.enc_values(
        [("email", b"alice@example.org")])
    # the value was never echoed, and the hub holds only the box
    assert b"alice@example.org" not in lx.pane_log()
    assert b"alice@example.org" not in w.db()


def test_production_needs_yes(w):
    t, _ = w.post(**email_ticket(production=True))
    lx = w.lox
    lx.start("approve", t["id"])
    lx.wait_screen(r"value for")
    lx.type("alice@example.org")
    lx.wait_screen(r"type 'yes'")
    lx.type("y")
    assert lx.exit_status() == 75
    assert w.decision(t["id"])[0] == 204


def test_value_must_fit(w):
    t, _ = w.post(**email_ticket())
    lx = w.lox
    lx.start("approve", t["id"])
    lx.wait_screen(r"value for")
    lx.type("not an email")
    lx.wait_screen(r"does not fit")
    lx.type("bob@example.org")
    lx.wait_screen(r"Approve\?")
    lx.type("y")
    assert lx.exit_status() == 0
    d = hw.dec_decision(w.decision(t["id"])[1])
    assert hw.unseal(d["box"], bytes(w.box)) == hw.enc_values(
        [("email", b"bob@example.org")])


def test_deny_keeps_the_reason(w):
    t, tb = w.post()
    r = w.lox.run("deny", t["id"], "not", "this", "one", "XYZZY")
    assert r.returncode == 0, r.stderr
    assert b"kept here, never sent): not this one XYZZY" in r.stdout
    d = hw.dec_decision(w.decision(t["id"])[1])
    dev = hw.dec_dev(d["dev"])
    assert dev["verdict"] == hw.DENY
    assert hw.unseal(d["box"], bytes(w.box)) == hw.enc_values([])
    assert b"XYZZY" not in w.db()
    # decided: a second decision is refused
    r = w.lox.run("deny", t["id"])
    assert r.returncode == 65


def test_hostile_text_is_rendered(w):
    key = "2024/\x1b[31mred\u202egdp.exe\u200b.pdf"
    t, _ = w.post(screen=dict(email_ticket()["screen"], key=key,
                              typed="p\u0430ypal/x.pdf"))
    m, _ = w.post(screen=dict(email_ticket()["screen"], key="p\u0430ypal/x.pdf"))
    r = w.lox.run("tickets")
    assert r.returncode == 0
    assert b"\x1b" not in r.stdout and "\u202e".encode() not in r.stdout
    assert b"\\x1b[31mred\\u{202E}gdp.exe\\u{200B}.pdf" in r.stdout
    lx = w.lox
    lx.start("deny", t["id"])
    assert lx.exit_status() == 0
    log = lx.pane_log()
    assert b"\\x1b[31m" in log and "\u202e".encode() not in log
    assert b"\x1b[31m" not in log
    lx.stop()
    # a key that mixes scripts gets the key check's warning line
    lx.start("deny", m["id"])
    assert lx.exit_status() == 0
    assert "mixed scripts (Latin + Cyrillic)" in lx.screen()


def test_screen_states(w):
    """Failed fetch, renewal (unchecked sha256, moved inputs) and the
    ledger, as the console signs them."""
    base = email_ticket()["screen"]
    a, _ = w.post(screen=dict(base, content=hw.CONTENT_FAILED))
    old = "t_" + "cd" * 16
    b, _ = w.post(renews=old, screen=dict(
        base, content=hw.CONTENT_UNCHECKED,
        moved=["plugin contains: version"],
        ledger=[("answers on this key today", 3)]))
    lx = w.lox
    lx.start("deny", a["id"])
    assert lx.exit_status() == 0
    assert "COULD NOT BE FETCHED" in lx.screen()
    lx.stop()
    lx.start("deny", b["id"])
    assert lx.exit_status() == 0
    s = lx.screen()
    assert "UNCHECKED" in s and old in s
    assert "moved       plugin contains: version" in s
    assert "answers on this key today: 3" in s


def test_hub_down(w):
    w.hub.stop()
    t0 = time.monotonic()
    r = w.lox.run("tickets")
    assert r.returncode == 69 and b"cannot be reached" in r.stderr
    assert time.monotonic() - t0 < 15


def test_tickets_wait(w):
    p = subprocess.Popen([w.lox.bin, "tickets", "--wait"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         user=w.lox.pw.pw_uid, group=w.lox.pw.pw_gid,
                         extra_groups=[], env=w.lox.env(), cwd="/")
    time.sleep(1.0)
    assert p.poll() is None
    t, _ = w.post()
    out, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert t["id"].encode() in out


def test_tls_1_1_refused_where_the_system_allows_it():
    """The floor of every HTTPS client (src/lib/https.h): TLS 1.2 or later
    even on a host whose system OpenSSL accepts TLS 1.1 (the control shows
    it does). The hub client left the version to the system before."""
    lx = Lox()
    try:
        cert, key = self_signed_cert(lx.base)
        os.chmod(cert, 0o644)
        conf = permissive_openssl_conf(lx.base)
        with OldTlsServer(cert, key) as old:
            assert old_tls_reachable(old.port, conf)
            lx.enroll("https://127.0.0.1:%d" % old.port, ca=cert)
            env = ["%s=%s" % kv for kv in lx.env().items()]
            r = subprocess.run(under_permissive_openssl(
                ["setpriv", "--reuid=%d" % lx.pw.pw_uid,
                 "--regid=%d" % lx.pw.pw_gid, "--clear-groups",
                 "env", "-i"] + env + [lx.bin, "tickets"], conf),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, timeout=60, cwd="/")
            assert old.requests == [], (old.requests, r.stderr)
            assert r.returncode == 69 and b"TLS" in r.stderr, r.stderr
    finally:
        lx.cleanup()


def test_untrusted_tls_names_the_cause():
    """A hub on TLS with a certificate lox does not trust: "the hub cannot
    be reached" names TLS and the --ca remedy (issue 26 item 4: it said
    only "cannot be reached"); with --ca the same hub answers."""
    hub = HubEnv()
    lx = Lox()
    try:
        hub.init()
        hub.start(poll_s=2, tls=True)
        devpk = lx.enroll(hub.url)
        hub.enroll("device", "alice", type("K", (), {
            "text": lambda s: "ed25519:" + devpk.hex()})())
        r = lx.run("tickets")
        assert r.returncode == 69, r.stderr
        assert b"cannot be reached" in r.stderr and b"TLS" in r.stderr, r.stderr
        assert b"--ca" in r.stderr, r.stderr
        # a CA file that is not PEM is named as that
        bad = os.path.join(lx.base, "bad.pem")
        with open(bad, "w") as f:
            f.write("not a certificate\n")
        os.chmod(bad, 0o644)
        lx.run("enroll", "--hub", hub.url, "--ca", bad)
        r = lx.run("tickets")
        assert r.returncode == 69 and b"TLS" in r.stderr, r.stderr
        # the hub's CA pinned: it answers
        r = lx.run("enroll", "--hub", hub.url, "--ca", hub.tls)
        assert r.returncode == 0, r.stderr
        r = lx.run("tickets")
        assert r.returncode == 0, r.stderr
    finally:
        lx.cleanup()
        hub.cleanup()


def test_tls_recipe_of_the_docs():
    """docs/hub.md's certificate recipe, run as written (hub.example.org
    made localhost): the hub serves the certificate, lox trusts it with
    --ca ca.pem and reaches the hub by name."""
    import re
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                            "hub.md")).read()
    block = re.search(r"<!-- tls-recipe[^>]*-->\n\s*```sh\n(.*?)```", doc,
                      re.S).group(1)
    script = "\n".join(x[3:] if x.startswith("   ") else x
                       for x in block.split("\n"))
    script = script.replace("hub.example.org", "localhost")
    hub = HubEnv()
    lx = Lox()
    try:
        hub.init()
        d = os.path.join(hub.base, "ca")
        os.mkdir(d)
        subprocess.run(["bash", "-e", "-c", script], cwd=d, check=True,
                       capture_output=True)
        pw = pwd.getpwnam("lockhub")
        os.chown(os.path.join(d, "key.pem"), pw.pw_uid, pw.pw_gid)
        os.chmod(os.path.join(d, "key.pem"), 0o600)
        os.chmod(d, 0o755)
        for f in ("cert.pem", "ca.pem"):
            os.chmod(os.path.join(d, f), 0o644)
        hub.start(poll_s=2, extra=["--tls-cert", os.path.join(d, "cert.pem"),
                                   "--tls-key", os.path.join(d, "key.pem")])
        url = "https://localhost:%d" % hub.port
        devpk = lx.enroll(url, ca=os.path.join(d, "ca.pem"))
        hub.enroll("device", "alice", type("K", (), {
            "text": lambda s: "ed25519:" + devpk.hex()})())
        r = lx.run("tickets")
        assert r.returncode == 0, r.stderr
        assert b"no pending ticket" in r.stdout
    finally:
        lx.cleanup()
        hub.cleanup()


def test_superseded_ticket_hidden_and_refused(w):
    """After a renewal the old ticket is neither listed nor decided: lox
    names the renewal instead (issue 26 item 4: it listed the old one and
    `approve` said the console "runs the plan" while nothing could run).
    A pinned instance cannot hide another instance's ticket this way."""
    old, _ = w.post()
    new, _ = w.post(renews=old["id"])
    # another pinned instance claiming to renew desk's ticket hides nothing
    w.lox.pin("other", w.other)
    w.post(inst=w.other, name="other", renews=new["id"])
    r = w.lox.run("tickets")
    assert r.returncode == 0, r.stderr
    assert old["id"].encode() not in r.stdout, r.stdout
    assert new["id"].encode() in r.stdout, r.stdout
    assert b"1 superseded" in r.stdout, r.stdout
    for cmd in ("approve", "deny"):
        r = w.lox.run(cmd, old["id"])
        assert r.returncode == 65, (cmd, r.stderr)
        assert b"renewed" in r.stderr and new["id"].encode() in r.stderr, \
            r.stderr
    # nothing was posted for the old ticket
    st, _ = w.decision(old["id"])
    assert st == 204


def test_approve_claims_only_what_happened(w):
    """lox can see that the hub took the decision, never that the console
    ran the plan: the success line says only the first."""
    t, _ = w.post()
    lx = w.lox
    lx.start("approve", t["id"])
    lx.wait_screen(r"Approve\? 'y'")
    lx.type("y")
    assert lx.exit_status() == 0
    s = lx.screen()
    assert "checks your decision and runs the plan" not in s, s
    assert "approved: the hub took your decision; the console runs the " \
        "plan only if" in s, s


def test_another_approvers_decision_leaves_it_listed(w):
    """Issue 29: a ticket names two approvers; bob deciding first leaves
    it in alice's `lox tickets` (the console counts both); once alice
    decided, it is gone from her list and a second `lox approve` exits 65."""
    bob = hw.Key()
    w.hub.enroll("device", "bob", bob)
    t, tb = w.post(approvers=[w.devpk, bob.pk])
    dev, box = hw.decide(tb, bob)
    st, _ = w.hub.call("POST", "/v1/tickets/%s/decision" % t["id"],
                       hw.enc_devpost(dev, box), key=bob)
    assert st == 201
    r = w.lox.run("tickets")
    assert r.returncode == 0 and t["id"].encode() in r.stdout, r.stdout
    lx = w.lox
    lx.start("approve", t["id"])
    lx.wait_screen(r"Approve\? 'y'")
    lx.type("y")
    assert lx.exit_status() == 0
    lx.stop()
    r = w.lox.run("tickets")
    assert r.returncode == 0 and t["id"].encode() not in r.stdout, r.stdout
    r = w.lox.run("approve", t["id"])
    assert r.returncode == 65, r.stderr
    st, lb = w.hub.call("GET", "/v1/tickets/%s/decisions/after/0" % t["id"],
                        key=w.inst, timeout=10)
    assert st == 200
    assert [hw.dec_dev(hw.dec_decision(e)["dev"])["device_key"]
            for e in hw.dec_declist(lb)] == [bob.pk, w.devpk]
