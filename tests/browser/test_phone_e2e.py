"""The phone approval end to end (issue 29; docs/hub.md, "Approving from a
phone"): a real lockhub serving the page on https://localhost, the real
console in hub mode on its tmux terminal, a real agent (`lockfile plan`,
`lockfile run` as the agent account) and Debian's chromium with the
DevTools WebAuthn virtual authenticator (pagedriver.py). Nothing here is a
double: the page registers passkeys, the console pins them by the
fingerprint the page showed, the agent asks, a tap and the gesture decide,
the agent gets the bits. Then the refusals the end to end adds to
hub-page's and hub-passkey's (which test them against doubles), each with
nothing run. Suite hub-phone (about 65 s; 90 s on a loaded machine).

The tests run in order on one world (module fixture); deny-and-mute is
last, since it mutes the agent."""
import base64
import concurrent.futures
import json
import os
import pwd
import sqlite3
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cardwire  # noqa: E402
import hubwire as hw  # noqa: E402
from consolehub import FILES  # noqa: E402
from lfenv import ConsoleEnv, as_user, check_reply, uid_of  # noqa: E402
from pagedriver import Page, PageHub  # noqa: E402

# docs/img's screenshots are remade with PAGE_SHOTS=docs/img; a plain run
# writes them under /tmp, leaving the tree as it is.
SHOTS = os.path.join(os.path.dirname(os.path.dirname(HERE)),
                     os.environ.get("PAGE_SHOTS") or
                     "/tmp/lockfile-hub-phone-shots")
os.makedirs(SHOTS, exist_ok=True)

PDF = ["--key", "2024/a.pdf", "--plugin", "is-pdf"]


class World:
    """lockhub (the page), the console (its policy pins the page's
    passkeys), three browsers: pat and quinn pinned on the console, eve
    registered on the hub only."""

    def __init__(self):
        self.hub, self.env, self.pages = PageHub(), None, {}
        try:
            self.set_up()
        except BaseException:
            self.cleanup()      # a failed set-up leaks no lockhub
            raise

    def set_up(self):
        self.hub.init()
        self.hub.start(poll_s=2)
        self.env = ConsoleEnv()
        for name, extra in (("invoices", {"approve_with": "lox+passkey"}),
                            ("pair", {"approve_with": "lox+passkey",
                                      "approvals": 2}),
                            ("loxonly", {})):
            self.env.add_local_profile(name, prefix="2024/", files=FILES)
            self.env.profiles[name].update(extra)
        self.env.install_plugin("is-pdf")
        r = as_user("lockfile", [self.env.binary, "hub-key", "--home",
                                 self.env.home],
                    env={"PATH": "/usr/bin:/bin", "HOME": self.env.home})
        assert r.returncode == 0, r.stderr
        line = [x for x in r.stdout.decode().split("\n")
                if x.startswith("instance-key ")][0]
        self.inst_text = "ed25519:" + line.split(":")[1].strip()
        inst = type("K", (), {"text": lambda s: self.inst_text})()
        self.hub.enroll("instance", "desk", inst)
        # a lox device, the policy's approver of lox-only plans (never
        # used to decide here)
        self.device = hw.Key()
        self.hub.enroll("device", "alice", self.device)
        self.regs = {}

    def enrol(self, name):
        """A browser for NAME: pins the console's instance key, registers
        a passkey with the operator's one-time code."""
        page = Page(self.hub)
        self.pages[name] = page
        page.pin("desk", self.inst_text)
        self.regs[name] = page.register(self.hub.passkey_code(name))
        return self.regs[name]

    def policy(self):
        return (self.env.policy_text(
            answer_quantum_s=1, approval_timeout_s=60, security_level=1,
            allowed_uids=[uid_of("lf-allowed")])
            + '\n[hub]\ninstance = "desk"\nkeys = ["ed25519:%s"]\n'
            'ticket_ttl_s = 120\npasskey_rp_id = "localhost"\n'
            'passkey_origin = "%s"\nmax_pending_per_agent = 32\n'
            '\n[hub.approvers]\nalice = "%s"\n'
            '\n[hub.passkeys]\npat = "%s"\nquinn = "%s"\n'
            % (self.hub.key.hex(), self.hub.origin, self.device.text(),
               self.regs["pat"]["cose"], self.regs["quinn"]["cose"]))

    def start_console(self):
        self.env.write_policy(text=self.policy())
        self.env.start(args=["--hub", self.hub.url, "--hub-ca", self.hub.tls],
                       wait=False)
        self.env.wait_screen(r"hub approver alice")
        self.env.type(hw.Key.fingerprint(self.device))
        # the fingerprints as the page showed them, typed on the console
        for name in ("pat", "quinn"):
            self.env.wait_screen(r"hub passkey %s" % name)
            self.env.type(self.regs[name]["fingerprint"])
        self.env.wait_for_socket()

    # ---- the agent, through the real client --------------------------
    def cli(self, user, *args, wait=None):
        pw = pwd.getpwnam(user)
        argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                "--init-groups", "env", "-i", "PATH=/usr/bin:/bin",
                "HOME=" + pw.pw_dir, self.env.binary] + list(args) + [
                "--socket", self.env.socket, "--json"]
        if wait is not None:
            argv += ["--wait", str(wait)]
        return subprocess.Popen(self.env.in_host(argv), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd="/")

    @staticmethod
    def out(proc, timeout=90):
        o, e = proc.communicate(timeout=timeout)
        try:
            return json.loads(o)
        except ValueError:
            raise AssertionError("not JSON: %r %r (exit %s)"
                                 % (o, e, proc.returncode))

    def plan(self, profile="invoices", user="agent"):
        doc = self.out(self.cli(user, "plan", "--profile", profile, *PDF))
        r = doc.get("result", doc)
        assert r.get("status") == "pending", doc
        return r["plan"], r["ticket"]

    def run(self, plan, wait=60):
        """`lockfile run PLAN --wait`, started now, answered later."""
        return self.cli("agent", "run", plan, wait=wait)

    def run_once(self, plan):
        return self.out(self.cli("agent", "run", plan, wait=3))

    # ---- the hub's state, as a thief of its database sees it ---------
    def db(self):
        return sqlite3.connect(os.path.join(self.hub.state, "hub.db"))

    def ticket_hash(self, tid):
        db = self.db()
        try:
            body = db.execute("SELECT body FROM tickets WHERE id = ?",
                              (tid,)).fetchone()[0]
        finally:
            db.close()
        return hw.h(body)

    def hub_seed(self):
        """The hub's signing key, read from its state (a compromised hub
        has it; the SECKEY layout, docs/hub.md, "Keys")."""
        with open(os.path.join(self.hub.state, "hub.key"), "rb") as f:
            r = hw.Reader(f.read())
        r.header(hw.M_SECKEY)
        r.u8()
        key = hw.Key(r.fixed(32))
        assert key.pk == self.hub.key
        return key.seed

    def file_as_hub(self, tid, pk, approver):
        """A compromised hub files a DECISION-P of its own making for tid:
        the DECISION-PK given, countersigned with the hub's key."""
        hub = hw.enc_hub(dict(dev_hash=hw.h(pk), hub_key=self.hub.key,
                              ticket=tid, approver=approver, quorum=1,
                              time_ms=int(time.time() * 1000)),
                         self.hub_seed())
        db = self.db()
        try:
            db.execute("INSERT INTO decisions (id, pk, body, decided_ms) "
                       "VALUES (?, ?, ?, ?)", (tid, os.urandom(32),
                                               hw.enc_decp(pk, hub),
                                               int(time.time() * 1000)))
            db.commit()
        finally:
            db.close()

    def filed(self, tid):
        db = self.db()
        try:
            return [r[0] for r in db.execute(
                "SELECT body FROM decisions WHERE id = ? ORDER BY seq",
                (tid,))]
        finally:
            db.close()

    def cleanup(self):
        try:
            for p in self.pages.values():
                p.close()
            if self.env is not None and self.env.started and \
                    self.env.console_alive():
                self.env.signal(15)
                self.env.wait_exit()
        finally:
            try:
                if self.env is not None:
                    self.env.cleanup()
            finally:
                self.hub.cleanup()


@pytest.fixture(scope="module")
def w():
    world = World()
    yield world
    world.cleanup()


def card_of(page, tids, timeout=30):
    """The page's card (article) showing exactly these tickets."""
    want = sorted(tids)
    deadline = time.time() + timeout
    while True:
        ts = page.tickets()
        for i, t in enumerate(x for x in ts if not x["refused"]):
            if sorted(t["tickets"]) == want:
                return i, t
        if time.time() > deadline:
            raise AssertionError("not on the page: %s in %s" % (tids, ts))
        time.sleep(0.3)


def listed(page, tid):
    return any(tid in t["tickets"] for t in page.tickets())


def answers(doc):
    r = doc.get("result", doc)
    assert "answers" in r, doc
    return {a["plugin"]: a["result"] for a in r["answers"]}


def code(doc):
    """The error code (`lockfile --json` prints {"error": CODE, "hint"})."""
    e = doc.get("error")
    return e if isinstance(e, str) else (e or {}).get("message")


def refused(w, plan, tid, cause, since, timeout=20):
    """The console audited a refused decision with cause; the agent asking
    meanwhile is answered pending (a decision that came is checked when
    the agent asks: docs/hub.md, "The console's side")."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        not_run(w, plan, tid)
        new = w.env.audit()[since:]
        if any(a.get("method") == "hub.decision" and a.get("cause") == cause
               for a in new):
            return
    raise AssertionError("no refusal %r in %s" % (cause, new))


def not_run(w, plan, tid):
    """Asked to run: no answers; pending, or E_APPROVAL_TIMEOUT once the
    console refused a decision for it (as hub-passkey's refused_run)."""
    doc = w.run_once(plan)
    r = doc.get("result", {})
    assert (r.get("status") == "pending" and r.get("ticket") == tid) or \
        code(doc) == "E_APPROVAL_TIMEOUT", doc


def still_pending(w, plan, tid):
    doc = w.run_once(plan)
    r = doc.get("result", {})
    assert r.get("status") == "pending" and r.get("ticket") == tid, doc


# ---- 1. enrol, pin, confirm ------------------------------------------------

def test_enrol_pin_confirm(w):
    # three browsers at once (their start is most of this suite's time)
    with concurrent.futures.ThreadPoolExecutor(3) as ex:
        regs = dict(zip(("pat", "quinn", "eve"),
                        ex.map(w.enrol, ("pat", "quinn", "eve"))))
    for name, reg in regs.items():
        assert reg["name"] == name and reg["cose"].startswith("cose:")
    w.start_console()
    for p in w.pages.values():
        p.login()
    confirmed = os.path.join(w.env.home, ".local/state/lockfile/hub/confirmed")
    with open(confirmed) as f:
        text = f.read()
    for name in ("pat", "quinn"):
        assert "passkey:%s %s" % (name, w.regs[name]["fingerprint"]) in text
    assert "eve" not in text


# ---- 2. the "Done when" --------------------------------------------

def test_ticket_on_the_phone_to_bits_at_the_agent(w):
    plan, tid = w.plan()
    run = w.run(plan)
    i, card = card_of(w.pages["pat"], [tid])
    # the console's own card lines, verified under the pinned instance key
    for line in ("=== lockfile: an agent asks for a plan ===",
                 "invoices", '"2024/a.pdf"', "is-pdf"):
        assert line in card["lines"], card["lines"]
    w.pages["pat"].screenshot(os.path.join(SHOTS, "hub-phone-ticket.png"))
    assert w.pages["pat"].approve(i) == "Approved."
    doc = w.out(run)
    assert answers(doc) == {"is-pdf": 1}, doc
    assert run.returncode == 0


# ---- 3. denial, quorum, group ----------------------------------------------
# pat decides the single-approver plans: a ticket stays on the page of the
# other approvers it names until it expires (the hub keeps one decision per
# approver and does not know the console's quorum), so quinn's page holds
# those tickets and quinn decides only the quorum's.

def test_deny(w):
    plan, tid = w.plan()
    run = w.run(plan)
    i, _ = card_of(w.pages["pat"], [tid])
    assert w.pages["pat"].deny(i) == "Denied."
    assert code(w.out(run)) == "E_APPROVAL_DENIED"


def test_quorum_of_two(w):
    plan, tid = w.plan("pair")
    i, _ = card_of(w.pages["pat"], [tid])
    assert w.pages["pat"].approve(i) == "Approved."
    # one approval of two: pending, nothing run
    assert len(w.filed(tid)) == 1
    time.sleep(2)
    still_pending(w, plan, tid)
    run = w.run(plan)
    i, _ = card_of(w.pages["quinn"], [tid])
    assert w.pages["quinn"].approve(i) == "Approved."
    assert answers(w.out(run)) == {"is-pdf": 1}
    # and once: the plan is spent
    doc = w.run_once(plan)
    assert "answers" not in doc.get("result", {}), doc


def test_grouped_approval(w):
    plans = [w.plan() for _ in range(3)]
    tids = [t for _, t in plans]
    i, card = card_of(w.pages["pat"], tids)
    assert "3 identical tickets" in card["text"]
    w.pages["pat"].screenshot(os.path.join(SHOTS, "hub-phone-group.png"))
    runs = [w.run(p) for p, _ in plans]
    assert w.pages["pat"].approve(i) == "Approved."
    for run in runs:
        assert answers(w.out(run)) == {"is-pdf": 1}
    for p, _ in plans:      # each ran once, under its own nonce
        doc = w.run_once(p)
        assert "answers" not in doc.get("result", {}), doc


# ---- 4. hostile, nothing run -----------------------------------------------

def test_lox_only_plan_never_reaches_the_page(w):
    """A plan on a lox-only profile: its ticket names no passkey, has no
    card and is not listed; a decision the page forges for it is refused
    by the hub (404); one a compromised hub files itself, with a real
    assertion of a pinned passkey, is refused by the console."""
    plan, tid = w.plan("loxonly")
    # an invoices ticket after it: when the page shows that, it has
    # loaded everything before it
    plan2, tid2 = w.plan()
    card_of(w.pages["pat"], [tid2])
    assert not listed(w.pages["pat"], tid)
    h = w.ticket_hash(tid)
    assert w.pages["pat"].forge([h]) == 404
    assert w.filed(tid) == []
    since = len(w.env.audit())
    pk = base64.urlsafe_b64decode(
        w.pages["pat"].do("sign", hashes=[h.hex()], verdict=1)["pk"] + "==")
    w.file_as_hub(tid, pk, "pat")
    refused(w, plan, tid, "passkeys do not decide this plan", since)
    not_run(w, plan, tid)
    # the other ticket, approved as usual
    run = w.run(plan2)
    i, _ = card_of(w.pages["pat"], [tid2])
    assert w.pages["pat"].approve(i) == "Approved."
    assert answers(w.out(run)) == {"is-pdf": 1}


def test_passkey_not_pinned_cannot_decide(w):
    """eve registered on the hub, never pinned on the console: the
    console's tickets do not name her passkey, the page lists nothing to
    her and the hub refuses her decision; one a compromised hub files
    itself is refused by the console; then pat's approval runs it."""
    plan, tid = w.plan()
    card_of(w.pages["pat"], [tid])
    assert not listed(w.pages["eve"], tid)
    h = w.ticket_hash(tid)
    assert w.pages["eve"].forge([h]) == 404
    assert w.filed(tid) == []
    still_pending(w, plan, tid)
    # a compromised hub files eve's real assertion as eve's decision
    since = len(w.env.audit())
    pk = base64.urlsafe_b64decode(
        w.pages["eve"].do("sign", hashes=[h.hex()], verdict=1)["pk"] + "==")
    w.file_as_hub(tid, pk, "eve")
    refused(w, plan, tid, "not from a pinned, confirmed passkey", since)
    run = w.run(plan)
    i, _ = card_of(w.pages["pat"], [tid])
    assert w.pages["pat"].approve(i) == "Approved."
    assert answers(w.out(run)) == {"is-pdf": 1}


def test_one_approver_twice_is_not_a_quorum(w):
    """pat approves a quorum-of-two plan, then signs again: the hub keeps
    one decision per approver (refused); a compromised hub that files pat's
    decision a second time gets it refused by the console. Pending, nothing
    run, until quinn approves."""
    plan, tid = w.plan("pair")
    i, _ = card_of(w.pages["pat"], [tid])
    assert w.pages["pat"].approve(i) == "Approved."
    h = w.ticket_hash(tid)
    # no longer pending for pat: 404 (409 would be all decided)
    assert w.pages["pat"].forge([h]) in (404, 409)
    assert len(w.filed(tid)) == 1
    since = len(w.env.audit())
    pk, _ = cardwire.dec_decp(w.filed(tid)[0])
    w.file_as_hub(tid, pk, "pat")
    refused(w, plan, tid, "this approver's decision counted already", since)
    not_run(w, plan, tid)
    run = w.run(plan)
    i, _ = card_of(w.pages["quinn"], [tid])
    assert w.pages["quinn"].approve(i) == "Approved."
    assert answers(w.out(run)) == {"is-pdf": 1}


# ---- last: deny and mute ---------------------------------------------------

def test_deny_and_mute(w):
    plan, tid = w.plan()
    run = w.run(plan)
    i, _ = card_of(w.pages["pat"], [tid])
    assert w.pages["pat"].mute(15, i) == "Denied and muted."
    assert code(w.out(run)) == "E_APPROVAL_DENIED"
    # the agent's next plan: refused at plan time, no ticket made
    db = w.db()
    n = db.execute("SELECT count(*) FROM tickets").fetchone()[0]
    db.close()
    doc = w.out(w.cli("agent", "plan", "--profile", "invoices", *PDF))
    assert code(doc) == "E_APPROVAL_DENIED", doc
    db = w.db()
    assert db.execute("SELECT count(*) FROM tickets").fetchone()[0] == n
    db.close()
    # another agent is not muted
    req = w.env.request("file.plan", {"profile": "invoices",
                                      "key": "2024/a.pdf",
                                      "plugins": [{"name": "is-pdf"}]})
    out, _ = w.env.rpc_as_peer((json.dumps(req) + "\n").encode(), "lf-allowed")
    check_reply(req, out.decode())
    assert json.loads(out)["result"]["status"] == "pending", out
