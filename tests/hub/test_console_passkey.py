"""Passkey decisions at a real console in hub mode (docs/hub.md,
"Passkeys"), against the hostile hub double (fakehub.py) serving
DECISION-Ps made by a software authenticator (softpasskey.py): an approval
runs the plan, a denial and a deny-and-mute are denials (the mute refuses
the agent's next plan at plan time), and each forged or misplaced
assertion is refused with nothing run. The console posts a CARD, its own
card's lines, after each ticket a passkey may decide."""
import json
import os
import re
import time

import pytest

from consolehub import HubConsole, err, pending  # noqa: E402 (sys.path)
import hubwire as hw  # noqa: E402
import softpasskey as sp  # noqa: E402
from lfenv import CONSOLE_USER, as_user, check_reply  # noqa: E402

RP, ORIGIN = "localhost", "https://localhost:8443"
PDF_PLAN = {"profile": "invoices", "key": "2024/a.pdf",
            "plugins": [{"name": "is-pdf"}]}
LOXONLY_PLAN = dict(PDF_PLAN, profile="loxonly")
EMAIL_PLAN = {"profile": "invoices", "key": "2024/c.txt",
              "plugins": [{"name": "is-pdf"},
                          {"name": "contains", "inputs": {"needle": "${email}"}}]}
PHONE = sp.SoftPasskey("es256", seed=1)      # pinned, confirmed
TABLET = sp.SoftPasskey("eddsa", seed=2)     # pinned, not confirmed
STRANGER = sp.SoftPasskey("eddsa", seed=3)   # not pinned


def fp(key):
    return hw.Key.fingerprint(type("K", (), {"pk": key.id})())


class PasskeyConsole(HubConsole):
    def __init__(self):
        super().__init__(real=False)
        self.env.profiles["invoices"]["approve_with"] = "lox+passkey"
        self.env.add_local_profile("loxonly", prefix="2024/",
                                   files={"2024/a.pdf": hw_pdf()})
        self.policy = self.policy_text(
            extra='passkey_rp_id = "%s"\npasskey_origin = "%s"\n'
            'max_pending_per_agent = 32' % (RP, ORIGIN)
        ) + '\n[hub.passkeys]\nphone = "%s"\ntablet = "%s"\n' % (
            PHONE.text(), TABLET.text())
        self.cards = []
        self.fake.routes[r"POST /v1/tickets/t_[0-9a-f]{32}/card"] = \
            self._take_card

    def _take_card(self, method, path, headers, body):
        self.cards.append((path.split("/")[3], body))
        return 201, b"card posted\n"

    def start(self):
        self.env.write_policy(text=self.policy)
        self.env.start(args=["--hub", self.url], wait=False)
        self.env.wait_screen(r"hub approver alice")
        self.env.type(hw.Key.fingerprint(self.device))
        self.env.wait_screen(r"hub passkey phone")
        self.env.type(fp(PHONE))
        self.env.wait_screen(r"hub passkey tablet")
        self.env.type("")
        self.env.wait_for_socket()

    def restart(self):
        """Again, with the confirmations kept: only the unconfirmed
        passkey is asked again (Enter: not now)."""
        self.stop_console()
        self.env.start(args=["--hub", self.url], wait=False)
        self.env.wait_screen(r"hub passkey tablet")
        self.env.type("")
        self.env.wait_for_socket()

    def pk_decision(self, tid, key=PHONE, verdict=hw.APPROVE, mute=0,
                    hashes=None, approver="phone", origin=ORIGIN,
                    **assertion):
        """A DECISION-P for ticket tid as a hub relays it: the assertion
        over the challenge of the verdict and the ticket hashes (this
        ticket's unless given), countersigned for tid."""
        hashes = hashes or [hw.h(self.ticket(tid))]
        chal = sp.decision_challenge(verdict, mute, hashes)
        ad, cdj, sig = key.assertion(RP, origin, chal, **assertion)
        pk = hw.enc_pk(verdict, mute, hashes, key.id, key.cred_id, ad, cdj,
                       sig)
        return self.countersign_pk(pk, tid, approver)

    def countersign_pk(self, pk, tid, approver="phone"):
        hub = hw.enc_hub(dict(dev_hash=hw.h(pk), hub_key=self.hub_key.pk,
                              ticket=tid, approver=approver, quorum=1,
                              time_ms=int(time.time() * 1000)),
                         self.hub_key.seed)
        return hw.enc_decp(pk, hub)


def hw_pdf():
    from consolehub import make_pdf
    return make_pdf()


@pytest.fixture(scope="module")
def w():
    c = PasskeyConsole()
    c.start()
    yield c
    c.cleanup()


def gated(req, doc):
    r = check_reply(req, json.dumps(doc) + "\n")
    assert r == "result" or r.startswith("error"), r
    return doc


def plan_on(w, params=PDF_PLAN):
    req, doc, _ = w.plan(params)
    return pending(gated(req, doc))


def answers(doc):
    return {a["plugin"]: a["result"] for a in doc["result"]["answers"]}


def no_new_files(w, before, timeout=5):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if set(w.env.work_entries()) <= set(before):
            return
        time.sleep(0.1)
    raise AssertionError("files left")


def refused_run(w, plan, cause):
    """Refused with cause, nothing fetched or run (the plan stays pending:
    the agent's share is 32 here)."""
    before = len(w.env.audit())
    files = w.env.work_entries()
    req, doc, _ = w.run(plan)
    assert err(gated(req, doc)) == "E_APPROVAL_TIMEOUT", doc
    new = w.env.audit()[before:]
    assert any(a.get("method") == "hub.decision" and a.get("cause") == cause
               for a in new), new
    no_new_files(w, files)
    assert not any("plugins" in a for a in new)


def test_approve_runs_and_the_card(w):
    plan, tid = plan_on(w)
    t = hw.dec_ticket(w.ticket(tid))
    # the confirmed passkey is an approver; the unconfirmed one is not
    assert PHONE.id in t["approvers"] and TABLET.id not in t["approvers"]
    w.decisions[tid] = w.pk_decision(tid)
    req, doc, _ = w.run(plan)
    assert answers(gated(req, doc)) == {"is-pdf": 1}
    # the CARD: after the ticket, signed by the instance key, naming the
    # ticket by its hash, the console's own card's lines, printable ASCII
    cards = [b for i, b in w.cards if i == tid]
    assert len(cards) == 1
    c = hw.dec_card(cards[0])
    assert hw.verify(cards[0], c["signed_len"], c["sig"], w.inst_pk)
    assert c["instance"] == "desk" and c["ticket"] == tid
    assert c["ticket_hash"] == hw.h(w.ticket(tid))
    text = "\n".join(c["lines"])
    assert "=== lockfile: an agent asks for a plan ===" in text
    assert '"2024/a.pdf"' in text and "is-pdf" in text
    assert all(re.fullmatch(r"[\x20-\x7e]*", x) for x in c["lines"])
    # the counter is kept in the state directory
    p = os.path.join(w.env.home, ".local/state/lockfile/hub/passkey-counters")
    with open(p) as f:
        assert f.read().startswith(PHONE.id.hex() + " %d " % PHONE.counter)


def test_card_escapes_the_agents_text(w):
    """What the agent chose reaches the page only escaped: the CARD is
    the console's card drawn in ASCII (a bidi override, an accent)."""
    plan, tid = plan_on(w, dict(PDF_PLAN, key="2024/caf\u00e9\u202e.pdf"))
    c = [hw.dec_card(b) for i, b in w.cards if i == tid]
    assert len(c) == 1
    text = "\n".join(c[0]["lines"])
    assert "\\u{202E}" in text and "\u202e" not in text, text
    assert all(re.fullmatch(r"[\x20-\x7e]*", x) for x in c[0]["lines"])


def test_deny(w):
    plan, tid = plan_on(w)
    w.decisions[tid] = w.pk_decision(tid, verdict=hw.DENY)
    req, doc, _ = w.run(plan)
    assert err(gated(req, doc)) == "E_APPROVAL_DENIED"


def test_assertion_over_another_tickets_hash(w):
    """A hub that shows one ticket and has the passkey sign another: the
    console's own ticket hash is not among those signed."""
    plan, tid = plan_on(w)
    _, other_tid = plan_on(w)
    w.decisions[tid] = w.pk_decision(
        tid, hashes=[hw.h(w.ticket(other_tid))])
    refused_run(w, plan, "for another ticket")


def test_assertion_replayed_for_a_new_ticket(w):
    plan, tid = plan_on(w)
    good = w.pk_decision(tid)
    w.decisions[tid] = good
    req, doc, _ = w.run(plan)
    assert answers(gated(req, doc)) == {"is-pdf": 1}
    plan2, tid2 = plan_on(w)
    pk = hw.Reader(good)
    pk.header(hw.M_DECP)
    w.decisions[tid2] = w.countersign_pk(pk.field(), tid2)
    refused_run(w, plan2, "for another ticket")


@pytest.mark.parametrize("case,kw,cause", [
    ("wrong origin", dict(origin="https://evil.example"), "origin"),
    ("wrong rp id", dict(sign_rp="evil.example"), "rp"),
    ("uv off", dict(flags=0x01), "no-uv"),
])
def test_assertion_refused(w, case, kw, cause):
    plan, tid = plan_on(w)
    w.decisions[tid] = w.pk_decision(tid, **kw)
    refused_run(w, plan, "the passkey's assertion does not verify (%s)"
                % cause)


@pytest.mark.parametrize("key,name", [(STRANGER, "phone"),
                                      (TABLET, "tablet")])
def test_passkey_not_pinned_or_not_confirmed(w, key, name):
    plan, tid = plan_on(w)
    w.decisions[tid] = w.pk_decision(tid, key=key, approver=name)
    refused_run(w, plan, "not from a pinned, confirmed passkey")


def test_lox_only_profile(w):
    plan, tid = plan_on(w, LOXONLY_PLAN)
    t = hw.dec_ticket(w.ticket(tid))
    assert PHONE.id not in t["approvers"]
    assert not [b for i, b in w.cards if i == tid]
    w.decisions[tid] = w.pk_decision(tid)
    refused_run(w, plan, "passkeys do not decide this plan")


def test_plan_with_placeholders(w):
    plan, tid = plan_on(w, EMAIL_PLAN)
    t = hw.dec_ticket(w.ticket(tid))
    assert PHONE.id not in t["approvers"] and t["placeholders"]
    w.decisions[tid] = w.pk_decision(tid)
    refused_run(w, plan, "passkeys do not decide this plan")


def test_counter_going_back(w):
    plan, tid = plan_on(w)
    PHONE.counter = 1000
    w.decisions[tid] = w.pk_decision(tid)
    req, doc, _ = w.run(plan)
    assert answers(gated(req, doc)) == {"is-pdf": 1}
    plan2, tid2 = plan_on(w)
    w.decisions[tid2] = w.pk_decision(tid2, counter=999)
    refused_run(w, plan2, "the passkey's counter went back")
    # kept across a restart: the same counter (another assertion) is
    # refused by the new process too
    w.restart()
    plan3, tid3 = plan_on(w)
    w.decisions[tid3] = w.pk_decision(tid3, counter=1000)
    refused_run(w, plan3, "the passkey's counter went back")


@pytest.mark.parametrize("change,why", [
    (('passkey_rp_id = "localhost"\n', ''), "hub.passkey_rp_id"),
    (('"localhost"\npasskey_origin', '"127.0.0.1"\npasskey_origin'),
     "hub.passkey_rp_id"),
    (('passkey_origin = "https://', 'passkey_origin = "http://'),
     "hub.passkey_origin"),
    (('localhost:8443', 'evil.example:8443'), "hub.passkey_origin"),
    (('localhost:8443', 'notlocalhost:8443'), "hub.passkey_origin"),
    (('phone = "cose:', 'phone = "cose:AA'), "hub.passkeys: NAME"),
    (('approve_with = "lox+passkey"', 'approve_with = "passkey"'),
     "approve_with must be"),
])
def test_policy_refusals(w, change, why):
    """The policy's passkey keys, strictly: `policy approve` refuses each
    before its prompt, naming the key (docs/policy.md)."""
    assert change[0] in w.policy
    w.env.write_policy(approved=False, text=w.policy.replace(*change))
    r = as_user(CONSOLE_USER, [w.env.binary, "policy", "--home", w.env.home,
                               "approve"], input=b"approve\n")
    out = (r.stdout + r.stderr).decode()
    assert r.returncode > 0 and why in out, (r.returncode, out)


def test_deny_and_mute(w):
    """Last in the module: the agent stays muted for a minute."""
    plan, tid = plan_on(w)
    w.decisions[tid] = w.pk_decision(tid, verdict=hw.DENY_MUTE, mute=1)
    req, doc, _ = w.run(plan)
    assert err(gated(req, doc)) == "E_APPROVAL_DENIED"
    files = w.env.work_entries()
    n = len(w.tickets)
    req, doc, _ = w.plan(PDF_PLAN)
    assert err(gated(req, doc)) == "E_APPROVAL_DENIED", doc
    assert len(w.tickets) == n          # no ticket made, nothing fetched
    no_new_files(w, files)
    # another agent is not muted
    req, doc, _ = w.plan(PDF_PLAN, user="lf-allowed")
    assert doc.get("result", {}).get("status") == "pending", doc
