"""consolehub: a console in hub mode for the end-to-end tests: the real
console (tests/e2e/lfenv.py) with a [hub] policy and its instance key,
started with --hub against a real lockhub (hubenv.py) or the hostile test
double (fakehub.py), with lox (loxenv.py) as the approver.

    w = HubConsole(real=True); w.start()
    req, line, _ = w.env.rpc("file.plan", params)    # pending
    w.lox.start("approve", ticket) ...
"""
import json
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))

import hubwire as hw  # noqa: E402
from fakehub import FakeHub  # noqa: E402
from hubenv import HubEnv  # noqa: E402
from lfenv import ConsoleEnv, as_user, uid_of  # noqa: E402
from loxenv import Lox  # noqa: E402

PDF = (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
       b"2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n")


def make_pdf():
    body = PDF
    off1, off2, xref = body.index(b"1 0 obj"), body.index(b"2 0 obj"), len(body)
    return body + (b"xref\n0 3\n0000000000 65535 f \n%010d 00000 n \n%010d "
                   b"00000 n \ntrailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n"
                   b"%d\n%%%%EOF\n" % (off1, off2, xref))


FILES = {"2024/a.pdf": make_pdf(),
         "2024/c.txt": b"contact: alice@example.org\n"}


class HubConsole:
    """real: a real lockhub and lox; else the hostile double, whose hub
    key and approver key the test holds (hub_key, device)."""

    def __init__(self, real=True, ttl=60, quantum=1, bob=False,
                 approvals=None):
        """bob: the hostile double pins a second approver (device2);
        approvals: the invoices profile's quorum, with a profile solo of
        the same files at the default (1)."""
        self.real = real
        self.env = ConsoleEnv()
        self.src = self.env.add_local_profile("invoices", prefix="2024/",
                                              files=FILES)
        if approvals is not None:
            self.env.profiles["invoices"]["approvals"] = approvals
            self.env.add_local_profile("solo", prefix="2024/", files=FILES)
        self.device2 = hw.Key() if bob and not real else None
        for p in ("is-pdf", "contains"):
            self.env.install_plugin(p)
        r = as_user("lockfile", [self.env.binary, "hub-key", "--home",
                                 self.env.home],
                    env={"PATH": "/usr/bin:/bin", "HOME": self.env.home})
        assert r.returncode == 0, r.stderr
        line = [x for x in r.stdout.decode().split("\n")
                if x.startswith("instance-key ")][0]
        self.inst_pk = bytes.fromhex(line.split(":")[1])
        self.inst = type("K", (), {"pk": self.inst_pk,
                                   "text": lambda s: "ed25519:" + s.pk.hex()})()
        self.lox = None
        self.fake = None
        self.hub = None
        if real:
            self.hub = HubEnv()
            self.hub.init()
            self.hub.enroll("instance", "desk", self.inst)
            self.lox = Lox()
            self.hub.start(poll_s=2)
            devpk = self.lox.enroll(self.hub.url)
            self.device = type("K", (), {
                "pk": devpk, "text": lambda s: "ed25519:" + s.pk.hex(),
                "fingerprint": lambda s: hw.Key.fingerprint(s)})()
            self.hub.enroll("device", "alice", self.device)
            self.lox.pin("desk", self.inst)
            self.hub_key_text = "ed25519:" + self.hub.key.hex()
            self.url = self.hub.url
        else:
            self.fake = FakeHub()
            self.hub_key = hw.Key()
            self.device = hw.Key()
            self.tickets = []       # as the console posted them
            self.decisions = {}     # ticket id -> DECISION bytes to serve
            self.fake.routes["GET /v1/health"] = lambda *a: (200, b"ok\n")
            self.fake.routes["GET /v1/enrolment"] = lambda *a: (200, b"desk")
            self.fake.routes["POST /v1/tickets"] = self._take_ticket
            self.fake.routes[r"GET /v1/tickets/t_[0-9a-f]{32}/decision"] = \
                self._serve_decision
            self.fake.routes[
                r"GET /v1/tickets/t_[0-9a-f]{32}/decisions/after/[0-9]+"] = \
                self._serve_decisions
            self.fake.start()
            self.hub_key_text = self.hub_key.text()
            self.url = self.fake.url
        self.ttl = ttl
        self.quantum = quantum
        self.current = {}           # plan -> its ticket, as last answered
        self.policy = self.policy_text()

    def policy_text(self, extra=""):
        # lf-allowed by uid: "another account" for the tests that run an
        # agent's plan as someone else (the console account itself is
        # never an agent: docs/console.md, "Who connects")
        return (self.env.policy_text(answer_quantum_s=self.quantum,
                                     approval_timeout_s=60, security_level=1,
                                     allowed_uids=[uid_of("lf-allowed")])
                + "\n[hub]\ninstance = \"desk\"\nkeys = [\"%s\"]\n"
                "ticket_ttl_s = %d\n%s\n[hub.approvers]\nalice = \"%s\"\n"
                % (self.hub_key_text, self.ttl, extra, self.device.text())
                + ("bob = \"%s\"\n" % self.device2.text()
                   if self.device2 else ""))

    # ---- the hostile double's routes ----------------------------------
    def _take_ticket(self, method, path, headers, body):
        self.tickets.append(body)
        return 201, b"ticket posted\n"

    def _serve_decision(self, method, path, headers, body):
        tid = path.split("/")[3]
        d = self.decisions.get(tid)
        if isinstance(d, list):     # the first, as lockhub answers here
            d = d[0] if d else None
        if d is None:
            time.sleep(0.5)
            return 204, b""
        return 200, d

    def _serve_decisions(self, method, path, headers, body):
        """A DECISIONLIST: decisions[tid] as a list is served from the
        console's cursor on, as lockhub does; as bytes, that one decision
        whatever the cursor (a hub that swaps what it serves)."""
        parts = path.split("/")
        tid, after = parts[3], int(parts[6])
        d = self.decisions.get(tid)
        items = [d] if isinstance(d, bytes) else (d or [])[after:]
        if not items:
            time.sleep(0.5)
            return 204, b""
        return 200, hw.enc_declist(items)

    def ticket(self, tid):
        for b in self.tickets:
            if hw.dec_ticket(b)["id"] == tid:
                return b
        raise AssertionError("the console posted no ticket " + tid)

    def decision(self, tid, verdict=hw.APPROVE, values=(), device=None,
                 hub_key=None, approver="alice", dev_over=None, hub_over=None,
                 box=None, ticket_bytes=None):
        """A DECISION for ticket tid as a hub would relay it; every part
        can be forged."""
        tb = ticket_bytes or self.ticket(tid)
        dev, b = hw.decide(tb, device or self.device, verdict=verdict,
                           values=list(values), box=box, **(dev_over or {}))
        hub = hw.countersign(dev, hub_key or self.hub_key, approver=approver,
                             **(hub_over or {}))
        return hw.enc_decision(dev, hub, b)

    # ---- the console ---------------------------------------------------
    def start(self, confirm=True, args=()):
        self.env.write_policy(text=self.policy)
        self.env.start(args=["--hub", self.url] + list(args), wait=False)
        fp = hw.Key.fingerprint(self.device)
        self.env.wait_screen(r"hub approver alice")
        self.env.type(fp if confirm else "")
        if self.device2 is not None:
            self.env.wait_screen(r"hub approver bob")
            self.env.type(hw.Key.fingerprint(self.device2) if confirm else "")
        self.env.wait_for_socket()

    def stop_console(self):
        """SIGTERM, the exit, no sanitizer report, then the pane goes."""
        if self.env.started and self.env.console_alive():
            self.env.signal(15)
            self.env.wait_exit()
        report = self.sanitizer_report()
        assert not report, report
        self.env.stop()

    def restart(self):
        self.stop_console()
        self.env.start(args=["--hub", self.url], wait=True)

    def plan(self, params, user="agent", timeout=60):
        if user != "agent":
            # allowed by uid, outside the clients group (rpc_as_peer)
            req = self.env.request("file.plan", params)
            out, secs = self.env.rpc_as_peer(
                (json.dumps(req) + "\n").encode(), user, timeout=timeout)
            return req, json.loads(out), secs
        req, line, secs = self.env.rpc("file.plan", params, user=user,
                                       timeout=timeout)
        doc = json.loads(line)
        r = doc.get("result", {})
        if r.get("status") == "pending":
            self.current[r["plan"]] = r["ticket"]
        return req, doc, secs

    def run_once(self, plan, user="agent", timeout=30):
        """One file.run: the console never waits for the hub, so a
        ticket nobody decided yet answers pending again."""
        if user != "agent":
            # allowed by uid, outside the clients group (rpc_as_peer)
            req = self.env.request("file.run", {"plan": plan})
            out, secs = self.env.rpc_as_peer(
                (json.dumps(req) + "\n").encode(), user, timeout=timeout)
            return req, json.loads(out), secs
        req, line, secs = self.env.rpc("file.run", {"plan": plan}, user=user,
                                       timeout=timeout)
        return req, json.loads(line), secs

    def run(self, plan, user="agent", timeout=120):
        """file.run as an agent waits for a decision (docs/hub.md): asked
        again while it answers pending for the same ticket; a renewal's
        new ticket is returned. The seconds are the whole wait's."""
        t0 = time.monotonic()
        while True:
            req, doc, _ = self.run_once(plan, user, timeout)
            r = doc.get("result", {})
            secs = time.monotonic() - t0
            if r.get("status") != "pending":
                return req, doc, secs
            if r["ticket"] != self.current.get(plan) or secs > timeout:
                self.current[plan] = r["ticket"]
                return req, doc, secs

    def sanitizer_report(self):
        """An ASan/UBSan console reports on its terminal (at exit, leaks
        too): the text, or "" when there is none."""
        s = self.env.screen()
        for word in ("AddressSanitizer", "LeakSanitizer", "runtime error"):
            if word in s:
                return s
        return ""

    def cleanup(self):
        report = ""
        try:
            if self.env.started and self.env.console_alive():
                self.env.signal(15)
                self.env.wait_exit()
            report = self.sanitizer_report()
        except Exception:
            pass
        self.env.cleanup()
        if self.lox:
            self.lox.cleanup()
        if self.hub:
            self.hub.cleanup()
        if self.fake:
            self.fake.stop()
        assert not report, report


def err(doc):
    return doc.get("error", {}).get("message")


def pending(doc):
    r = doc.get("result", {})
    assert r.get("status") == "pending", doc
    assert r["lock"] == "lockfile" and r["instance"] == "desk"
    return r["plan"], r["ticket"]
