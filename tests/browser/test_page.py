"""The phone approval page in a real browser (docs/hub.md, "Approving from
a phone"): Debian's chromium, headless, with a WebAuthn virtual
authenticator, against a real lockhub on https://localhost; a Python
double of the console posts TICKET + CARD and checks what the hub filed
(the DECISION-P's assertion with `cryptography`, the hub's
countersignature with PyNaCl). Suite hub-page (about 30 to 45 s;
hub-page-asan on the sanitized lockhub, about 60 s)."""
import http.client
import json
import os
import ssl
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hub"))

import cardwire  # noqa: E402
import hubwire  # noqa: E402
from pagedriver import Page, PageHub, enrol_and_sign_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
# The screenshots of docs/hub.md are remade with PAGE_SHOTS=docs/img; a
# plain run writes them under /tmp, leaving the tree as it is.
SHOTS = os.environ.get("PAGE_SHOTS") or "/tmp/lockfile-hub-page-shots"
os.makedirs(SHOTS, exist_ok=True)
# As the console's approval card draws them (src/console/approval.c).
LINES = ["=== lockfile: an agent asks for a plan ===",
         "  profile    invoices",
         "  key        \"2024/a.pdf\"",
         "  content sha256 9f86d081884c7d65...  1234 bytes",
         "  [1] is-pdf 1.0.0  (official)",
         "      question: Is the file a well-formed PDF?",
         "      1 means: it is a well-formed PDF",
         "      0 means: it is not a well-formed PDF"]


class Console:
    """The console's side, as far as the hub sees it: TICKET, CARD, the
    decision it fetches."""

    def __init__(self, hub, name="inst"):
        self.hub, self.name, self.key = hub, name, hubwire.Key()
        hub.enroll("instance", name, self.key)

    def post(self, approvers, lines=LINES, label="uid 1000 (agent)"):
        t = hubwire.new_ticket(self.name, self.key.pk, os.urandom(32),
                               approvers=approvers, agent_label=label)
        tb = hubwire.enc_ticket(t, self.key.seed)
        st, body = self.hub.call("POST", "/v1/tickets", tb, key=self.key)
        assert st == 201, body
        self.left = getattr(self, "left", 50) - 1
        # the agent's line and a line that differs from plan to plan
        card = cardwire.enc_card(
            self.name, t["id"], hubwire.h(tb),
            lines[:1] + ["  from uid   %s" % label[4:]] + lines[1:] +
            ["  this plan reveals 1 answer; the handle has %d left" % self.left],
            self.key.seed)
        st, body = self.hub.call("POST", "/v1/tickets/%s/card" % t["id"], card,
                                 key=self.key)
        assert st == 201, body
        return t["id"], tb

    def decision(self, tid):
        return self.hub.call("GET", "/v1/tickets/%s/decision" % tid,
                             key=self.key, timeout=20)


@pytest.fixture(scope="module")
def world():
    hub = PageHub()
    page = None
    try:
        hub.init()
        hub.start(poll_s=2)
        cons = Console(hub)
        page = Page(hub)    # a driver that cannot start leaks no lockhub
        w = type("W", (), {})()
        w.hub, w.cons, w.page = hub, cons, page
        w.reg = None
        yield w
    finally:
        if page is not None:
            page.close()
        hub.cleanup()


def raw(hub, method, path, body=None, headers=None):
    ctx = ssl.create_default_context(cafile=hub.tls)
    c = http.client.HTTPSConnection("127.0.0.1", hub.port, timeout=10,
                                    context=ctx)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def check_filed(w, tid, tb, verdict, minutes=0, nhashes=1):
    st, body = w.cons.decision(tid)
    assert st == 200, (st, body)
    pk, hubpart = cardwire.dec_decp(body)
    d = cardwire.dec_decpk(pk)
    assert d["verdict"] == verdict and d["minutes"] == minutes
    assert hubwire.h(tb) in d["hashes"] and len(d["hashes"]) == nhashes
    cose = cardwire.cose_from_text(w.reg["cose"])
    assert cardwire.check_assertion(d, cose, "localhost", w.hub.origin)
    x = hubwire.dec_hub(hubpart)
    assert x["dev_hash"] == hubwire.h(pk) and x["ticket"] == tid
    assert x["approver"] == "alice"
    assert hubwire.verify(hubpart, x["signed_len"], x["sig"], w.hub.key)
    return d


def test_page_served_with_its_headers(world):
    st, hdr, body = raw(world.hub, "GET", "/")
    assert st == 200 and b"/page.js" in body
    csp = hdr["Content-Security-Policy"]
    for want in ("default-src 'self'", "frame-ancestors 'none'",
                 "base-uri 'none'", "form-action 'self'"):
        assert want in csp
    assert "unsafe-inline" not in csp
    assert hdr["Strict-Transport-Security"].startswith("max-age=")
    assert hdr["X-Content-Type-Options"] == "nosniff"
    assert hdr["Referrer-Policy"] == "no-referrer"
    st, hdr, _ = raw(world.hub, "GET", "/page.js")
    assert st == 200 and hdr["Content-Type"].startswith("text/javascript")
    # no inline script or style in the page
    assert b"<script>" not in body and b"style=" not in body
    # CSRF: a POST without the page's header, or from another origin
    for headers in ({"Origin": world.hub.origin},
                    {"Lockhub-Page": "1", "Origin": "https://evil.example"},
                    {"Lockhub-Page": "1"}):
        st, _, _ = raw(world.hub, "POST", "/v1/page/login/challenge", b"{}",
                       headers)
        assert st == 403, headers
    st, _, _ = raw(world.hub, "GET", "/v1/page/tickets")
    assert st == 401


def test_card_refusals(world):
    """POST /v1/tickets/ID/card (instance role): only the posting console's
    own ticket, its id and hash, its signature, once."""
    w = world
    c = w.cons
    t = hubwire.new_ticket(c.name, c.key.pk, os.urandom(32), approvers=[])
    tb = hubwire.enc_ticket(t, c.key.seed)
    assert c.hub.call("POST", "/v1/tickets", tb, key=c.key)[0] == 201
    path = "/v1/tickets/%s/card" % t["id"]

    def card(**kw):
        a = dict(instance=c.name, tid=t["id"], th=hubwire.h(tb), sk=c.key.seed)
        a.update(kw)
        return cardwire.enc_card(a["instance"], a["tid"], a["th"], LINES, a["sk"])
    other_id = "t_" + os.urandom(16).hex()
    assert w.hub.call("POST", path, b"LHCARDLN", key=c.key)[0] == 400
    assert w.hub.call("POST", path, card(tid=other_id), key=c.key)[0] == 400
    assert w.hub.call("POST", path, card(th=os.urandom(32)), key=c.key)[0] == 400
    assert w.hub.call("POST", path, card(sk=hubwire.Key().seed), key=c.key)[0] == 400
    assert w.hub.call("POST", "/v1/tickets/%s/card" % other_id,
                      card(tid=other_id), key=c.key)[0] == 404
    other = Console(w.hub, "other")
    assert w.hub.call("POST", path, card(instance="other", sk=other.key.seed),
                      key=other.key)[0] == 404
    assert w.hub.call("POST", path, card(), key=c.key)[0] == 201
    assert w.hub.call("POST", path, card(), key=c.key)[0] == 409
    # a device's key may not post cards
    dev = hubwire.Key()
    w.hub.enroll("device", "dev", dev)
    assert w.hub.call("POST", path, card(), key=dev)[0] == 403


def test_page_api_refusals(world):
    w = world
    hdr = {"Lockhub-Page": "1", "Origin": w.hub.origin,
           "Content-Type": "application/json"}
    for body in (b"[]", b"{", b'{"code": "AAAA"}',
                 json.dumps({"code": hubwire.b64(os.urandom(32))}).encode()):
        st, _, _ = raw(w.hub, "POST", "/v1/page/register/challenge", body, hdr)
        assert st in (400, 403), body
    st, _, _ = raw(w.hub, "POST", "/v1/page/decision", b"LHDECPKY", hdr)
    assert st == 401
    st, _, _ = raw(w.hub, "GET", "/v1/page/tickets", None,
                   {"Cookie": "__Host-lockhub=" + hubwire.b64(os.urandom(32))})
    assert st == 401
    st, _, _ = raw(w.hub, "GET", "/v1/page/me?x=1")
    assert st == 400


def test_rp_id_is_a_dns_name(world):
    """WebAuthn refuses an IP address as rp id: so does lockhub serve, and
    the origin must be https:// and that name."""
    for rp, origin in (("127.0.0.1", "https://127.0.0.1"),
                       ("localhost", "http://localhost"),
                       ("localhost", "https://evil.example"),
                       ("localhost", "https://localhost:0")):
        r = world.hub.lockhub("serve", "--listen", "127.0.0.1:0", "--rp-id",
                              rp, "--origin", origin)
        assert r.returncode == 64, (rp, origin, r.stderr)
    r = world.hub.lockhub("serve", "--listen", "127.0.0.1:0", "--rp-id",
                          "localhost")
    assert r.returncode == 64


def test_register_and_login(world):
    w = world
    code = w.hub.passkey_code("alice")
    w.page.pin("inst", w.cons.key.text())
    w.page.screenshot(os.path.join(SHOTS, "hub-page-setup.png"))
    w.reg = w.page.register(code)
    assert w.reg["name"] == "alice" and w.reg["cose"].startswith("cose:")
    cose = cardwire.cose_from_text(w.reg["cose"])
    w.pid = cardwire.passkey_id(cose)
    listed = w.hub.lockhub("passkeys").stdout.decode()
    assert "alice" in listed and w.reg["fingerprint"] in listed
    # the code was used once
    st, _, _ = raw(w.hub, "POST", "/v1/page/register/challenge",
                   json.dumps({"code": code}).encode(),
                   {"Lockhub-Page": "1", "Origin": w.hub.origin,
                    "Content-Type": "application/json"})
    assert st == 403
    w.page.login()


def test_ticket_appears_and_approve(world):
    w = world
    tid, tb = w.cons.post([w.pid])
    ts = w.page.wait(1)
    assert ts[0]["tickets"] == [tid] and not ts[0]["refused"]
    for line in LINES:
        assert line in ts[0]["lines"]
    w.page.screenshot(os.path.join(SHOTS, "hub-page-ticket.png"))
    # it arrived while the page was open: a notification, without content
    notes = w.page.notes()
    assert notes == ["lockhub: A ticket is waiting for your decision."], notes
    assert w.page.approve() == "Approved."
    check_filed(w, tid, tb, 1)


def test_deny(world):
    w = world
    tid, tb = w.cons.post([w.pid], label="uid 1001 (other)")
    w.page.wait(1)
    assert w.page.deny() == "Denied."
    check_filed(w, tid, tb, 0)


def test_deny_and_mute(world):
    w = world
    tid, tb = w.cons.post([w.pid], label="uid 1002 (noisy)")
    w.page.wait(1)
    assert w.page.mute(60) == "Denied and muted."
    check_filed(w, tid, tb, 2, minutes=60)


def test_group(world):
    w = world
    posted = [w.cons.post([w.pid], label="uid 1003 (batch)") for _ in range(3)]
    deadline = time.time() + 20
    while time.time() < deadline:
        ts = w.page.wait(1)
        if len(ts) == 1 and len(ts[0]["tickets"]) == 3:
            break
        time.sleep(0.3)
    assert sorted(ts[0]["tickets"]) == sorted(t for t, _ in posted)
    assert "3 identical tickets" in ts[0]["text"]
    w.page.screenshot(os.path.join(SHOTS, "hub-page-group.png"))
    assert w.page.approve() == "Approved."
    pks = set()
    for tid, tb in posted:
        d = check_filed(w, tid, tb, 1, nhashes=3)
        pks.add(bytes(d["sig"]))
    assert len(pks) == 1    # one gesture, one assertion over the three


def test_changed_card_refused(world):
    """A hub that changes a displayed line: the card's signature does not
    verify under the pinned instance key, and nothing of it is shown."""
    w = world
    tid, tb = w.cons.post([w.pid], label="uid 1004 (hostile)")
    body = w.hub.card_body(tid)
    changed = body.replace(b"2024/a.pdf", b"2024/b.pdf")
    assert changed != body
    w.hub.set_card_body(tid, changed)
    w.page.do("open")
    ts = w.page.wait(1)
    mine = [t for t in ts if tid in t["tickets"]]
    assert len(mine) == 1 and mine[0]["refused"], ts
    assert "2024/b.pdf" not in mine[0]["text"] and "2024/a.pdf" not in mine[0]["text"]
    w.page.screenshot(os.path.join(SHOTS, "hub-page-refused.png"))
    st, _ = w.hub.call("GET", "/v1/tickets/%s/decision" % tid, key=w.cons.key)
    assert st == 204


def test_assertion_for_a_ticket_not_naming_the_passkey(world):
    """The passkey signs (through the page) a decision over a ticket that
    names another approver: the hub refuses it, nothing is filed."""
    w = world
    other = hubwire.Key()
    tid, tb = w.cons.post([other.pk], label="uid 1005 (elsewhere)")
    assert w.page.forge([hubwire.h(tb)]) == 404
    st, _ = w.hub.call("GET", "/v1/tickets/%s/decision" % tid, key=w.cons.key)
    assert st == 204


def test_login_only_with_an_issued_challenge(world):
    """An assertion over a challenge the hub did not issue (a decision's)
    never opens a session."""
    w = world
    tid, tb = w.cons.post([w.pid], label="uid 1006 (login)")
    assert w.page.do("loginUnissued", hashes=[hubwire.h(tb).hex()])["http"] == 403


def test_logout_ends_the_session(world):
    """Signing out deletes the session on the hub, not only the cookie;
    signing in again takes a new assertion."""
    w = world
    out = w.page.do("logout")
    assert out["had"] == 1
    assert out["http"] == 200 and out["after"] == 401
    w.page.login()


def test_helper_for_the_end_to_end(world):
    """enrol_and_sign_in, the integrator's helper: a second approver on a
    second browser, a ticket naming its passkey approved with one call."""
    w = world
    page, reg = enrol_and_sign_in(w.hub, "bob", {"inst": w.cons.key.text()})
    try:
        pid = cardwire.passkey_id(cardwire.cose_from_text(reg["cose"]))
        tid, tb = w.cons.post([pid], label="uid 1007 (bob's)")
        assert page.approve_first() == "Approved."
        st, body = w.cons.decision(tid)
        pk, _ = cardwire.dec_decp(body)
        d = cardwire.dec_decpk(pk)
        assert cardwire.check_assertion(d, cardwire.cose_from_text(reg["cose"]),
                                        "localhost", w.hub.origin)
    finally:
        page.close()


def test_revoked_passkey_loses_its_session(world):
    """`lockhub revoke passkey NAME` (a lost phone) ends its sessions: the
    page is signed out and its API answers 401."""
    w = world
    r = w.hub.lockhub("revoke", "passkey", "alice")
    assert r.returncode == 0, r.stderr
    assert "alice" not in w.hub.lockhub("passkeys").stdout.decode()
    w.page.do("open")
    out = w.page.do("logs")
    assert not [l for l in out["lines"] if l.startswith("pageerror")], out
    deadline = time.time() + 10
    while time.time() < deadline:
        who = w.page.do("who")["who"]
        if who == "":
            break
        time.sleep(0.2)
    assert who == ""
