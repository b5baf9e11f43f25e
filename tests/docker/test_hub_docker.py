"""Hub mode under Docker, the team deployment end to end (docs/docker.md,
"Hub mode"), on the docker suite's kind of private engine.

lockhub in its container (the hub image, its state in a named volume, TLS
from files given to it, the shipped profile); the console started by
`lox run --instance team --hub URL --hub-ca FILE` in a real terminal, on
the instance's hub network; its instance key made and shown by `lox
hub-key`; an approver's lox on the host (account lf-approver) enrolled on
the hub. Two agent containers with two uids ask; the tickets reach lox
(`lox tickets`); `lox approve`; `lockfile run pl_...` in each container
answers; neither agent is busy while the other waits. A denial and
E_STALE through the same path.
"""
import json
import os
import random
import subprocess
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hub"))

import dockerenv as D  # noqa: E402
from dockerenv import LOX  # noqa: E402
from loxenv import Lox  # noqa: E402

INSTANCE = "team"
NET = "lockfile-%s-hub" % INSTANCE


def free_subnet():
    """A /24 no route of this host uses: the hub's address is fixed (its
    certificate names it), and a bridge another engine left behind with
    the same subnet would take the host's packets to it."""
    routes = subprocess.run(["ip", "route"], stdout=subprocess.PIPE,
                            check=True).stdout.decode()
    for x in random.sample(range(100, 250), 150):
        if " 172.29.%d." % x not in " " + routes.replace("\n", " "):
            return "172.29.%d" % x
    raise RuntimeError("no free 172.29.X.0/24 subnet")


PREFIX = free_subnet()
SUBNET = PREFIX + ".0/24"
HUB_IP = PREFIX + ".10"
URL = "https://%s:8443" % HUB_IP
# the names `lox hub-run --instance team` gives
HUB_STATE = "lockfile-%s-lockhub-state" % INSTANCE
HUB_CTR = "lockfile-%s-lockhub" % INSTANCE


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_tls(d):
    """docs/hub.md's private-CA recipe, for the hub's address."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key",
            "-out", "ca.pem", "-days", "30", "-subj", "/CN=lftest CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    openssl("req", "-newkey", "ec", "-pkeyopt",
            "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem",
            "-out", "hub.csr", "-subj", "/CN=hub", cwd=d)
    with open(os.path.join(d, "hub.ext"), "w") as f:
        f.write("subjectAltName=DNS:hub,IP:%s\n"
                "extendedKeyUsage=serverAuth\n" % HUB_IP)
    openssl("x509", "-req", "-in", "hub.csr", "-CA", "ca.pem", "-CAkey",
            "ca.key", "-CAcreateserial", "-days", "30", "-extfile", "hub.ext",
            "-out", "cert.pem", cwd=d)
    hub_uid = D.uid_of("lockhub")
    os.chown(os.path.join(d, "key.pem"), hub_uid, hub_uid)
    os.chmod(os.path.join(d, "key.pem"), 0o600)
    os.chmod(os.path.join(d, "cert.pem"), 0o644)
    os.chmod(os.path.join(d, "ca.pem"), 0o644)


class Team:
    def __init__(self):
        self.eng = D.Engine()
        self.lox = None
        self.term = None
        try:
            self.setup()
        except Exception:
            self.close()
            raise

    def setup(self):
        eng = self.eng
        # lox's per-instance state (the kept hub, the CA copy) in the
        # test's own directory, not root's ~/.config/lox
        self.loxhome = os.path.join(eng.base, "loxhome")
        os.mkdir(self.loxhome, 0o700)
        plain_env = eng.env
        eng.env = lambda **extra: plain_env(**dict({"LOX_HOME":
                                                    self.loxhome}, **extra))
        self.ids = eng.build_images(hub=True)
        self.tls = os.path.join(eng.base, "tls")
        os.mkdir(self.tls, 0o755)
        make_tls(self.tls)
        # The console's network, labelled as lox's: made here (lox would
        # make it) to give the hub a fixed address its certificate names.
        eng.docker("network", "create", "--label",
                   "org.lockfile.hub-network=" + INSTANCE, "--subnet", SUBNET,
                   NET)
        # lockhub: init in its volume, then serve on the console's
        # network, both through lox hub-run (the image by ID, the pinned
        # profile, lox's checked copies of the TLS files)
        r = eng.lox("hub-run", "--instance", INSTANCE, "--image",
                    self.ids["hub"], "init")
        assert r.returncode == 0, r.stderr
        line = [x for x in r.stdout.decode().splitlines()
                if x.startswith("hub-key ")][0]
        self.hub_key = line.split()[1]
        r = eng.lox("hub-run", "--instance", INSTANCE, "--image",
                    self.ids["hub"], "--tls-cert",
                    os.path.join(self.tls, "cert.pem"), "--tls-key",
                    os.path.join(self.tls, "key.pem"), "--ip", HUB_IP,
                    "--poll-s", "2")
        assert r.returncode == 0, r.stderr
        # what lox kept and mounts: the key re-encoded, the hub uid's, 0600
        st = os.stat(os.path.join(self.loxhome, "instances", INSTANCE,
                                  "lockhub-key.pem"))
        hub_uid = int(eng.docker(
            "image", "inspect", "--format",
            '{{index .Config.Labels "org.lockfile.hub-uid"}}',
            self.ids["hub"]).stdout)
        assert st.st_uid == hub_uid and st.st_mode & 0o777 == 0o600, st
        hc = json.loads(eng.docker("container", "inspect", HUB_CTR).stdout)[
            0]["HostConfig"]
        assert hc["CapDrop"] == ["ALL"] and hc["ReadonlyRootfs"], hc
        assert "no-new-privileges" in hc["SecurityOpt"], hc
        assert any(o.startswith("seccomp=") and "SCMP_ACT_ERRNO" in o
                   for o in hc["SecurityOpt"]), hc["SecurityOpt"]
        # the approver, on the host
        self.lox = Lox()
        ca = os.path.join(self.lox.base, "ca.pem")
        with open(os.path.join(self.tls, "ca.pem"), "rb") as f, \
                open(ca, "wb") as g:
            g.write(f.read())
        os.chmod(ca, 0o644)
        t0 = time.time()
        while True:
            r = self.lox.run("enroll", "--hub", URL, "--ca", ca)
            if r.returncode == 0 or time.time() - t0 > 30:
                break
            time.sleep(0.5)
        assert r.returncode == 0, r.stderr + eng.docker(
            "logs", HUB_CTR, check=False).stderr
        line = [x for x in r.stdout.decode().splitlines()
                if x.startswith("device-key ")][0]
        dev = line.split()[1]
        self.fingerprint = [x for x in r.stdout.decode().splitlines()
                            if x.startswith("fingerprint ")][0].split()[1]
        self.lockhub("enroll", "device", "alice", dev)
        # the console: policy (no instance: lox run gives it), approved
        self.src = D.make_source(eng.base, {
            "2024/a.pdf": D.tiny_pdf(), "2024/b.pdf": D.tiny_pdf(),
            "2024/notes.txt": b"not a pdf at all\n"})
        self.policy = os.path.join(eng.base, "policy.toml")
        with open(self.policy, "w") as f:
            f.write(D.POLICY.replace("approval_timeout_s = 120",
                                     "approval_timeout_s = 300")
                    + '\n[hub]\nkeys = ["%s"]\nticket_ttl_s = 300\n\n'
                    '[hub.approvers]\nalice = "%s"\n' % (self.hub_key, dev))
        self.term = D.Terminal(eng)
        inst = ["--instance", INSTANCE]
        r = eng.lox("policy", *inst, "--image", self.ids["console"], "load",
                    self.policy)
        assert r.returncode == 0, r.stderr
        w = self.term.start([LOX, "policy", *inst, "--image",
                             self.ids["console"], "--source",
                             "invoices=" + self.src, "approve"])
        self.term.wait(w, "Type 'approve'")
        self.term.type(w, "approve")
        self.term.wait(w, r"approved \(fingerprint [0-9a-f]{64}\)")
        # the instance key, made and shown through lox; enrolled, pinned
        r = eng.lox("hub-key", *inst, "--image", self.ids["console"])
        assert r.returncode == 0, r.stderr
        assert b"lockhub enroll instance team KEY" in r.stderr, r.stderr
        self.inst_key = [x for x in r.stdout.decode().splitlines()
                         if x.startswith("instance-key ")][0].split()[1]
        self.lockhub("enroll", "instance", INSTANCE, self.inst_key)
        r = self.lox.run("enroll", "--instance", "%s=%s" % (INSTANCE,
                                                            self.inst_key))
        assert r.returncode == 0, r.stderr
        self.cafile = os.path.join(self.tls, "ca.pem")
        self.window = self.start_console()

    def start_console(self, hub=True):
        args = [LOX, "run", "--instance", INSTANCE, "--source",
                "invoices=" + self.src]
        if hub:
            args += ["--hub", URL, "--hub-ca", self.cafile]
        w = self.term.start(args + [self.ids["console"]])
        s = self.term.wait(w, r"hub approver alice|lockfile console [0-9.]+: "
                           r"socket", timeout=90)
        if "hub approver alice" in s and "socket" not in s:
            self.term.type(w, self.fingerprint)
        self.term.wait(w, r"lockfile console [0-9.]+: socket", timeout=60)
        return w

    def lockhub(self, *args):
        r = self.eng.docker("exec", HUB_CTR, "lockhub", *args, "--state",
                            "/var/lib/lockhub")
        return r

    def agent(self, *cmd, uid=None, timeout=120):
        args = ["agent", "--instance", INSTANCE, "--image", self.ids["agent"]]
        if uid is not None:
            args += ["--uid", str(uid)]
        return self.eng.lox(*args, "--", *cmd, timeout=timeout)

    def ask(self, key, uid=None):
        r = self.agent("lockfile", "ask", "--json", "--profile", "invoices",
                       "--key", key, "--plugin", "is-pdf", uid=uid)
        return json.loads(r.stdout or b"null"), r

    def run(self, plan, uid=None, wait=120):
        r = self.agent("lockfile", "run", plan, "--json", "--wait", str(wait),
                       uid=uid, timeout=wait + 60)
        return json.loads(r.stdout or b"null"), r

    def approve(self, tid, answer="y"):
        self.lox.start("approve", tid)
        self.lox.wait_screen(r"Approve\?", timeout=30)
        self.lox.type(answer)
        code = self.lox.exit_status()
        screen = self.lox.screen()
        self.lox.stop()
        return code, screen

    def close(self):
        if self.lox is not None:
            self.lox.cleanup()
        if self.term is not None:
            self.term.stop()
        # the network's bridge outlives the engine unless removed
        r = self.eng.docker("ps", "-aq", check=False)
        if r.stdout.split():
            self.eng.docker("rm", "-f", *r.stdout.decode().split(),
                            check=False)
        self.eng.docker("network", "rm", NET, check=False)
        self.eng.stop()


@pytest.fixture(scope="module")
def team():
    t = Team()
    yield t
    t.close()


def pending(doc):
    r = doc["result"]
    assert r["status"] == "pending", doc
    return r["plan"], r["ticket"]


def answers(doc):
    return [(a["plugin"], a["result"]) for a in doc["result"]["answers"]]


def err(doc):
    """lockfile --json prints an error as {"error": "E_...", "hint": ...}."""
    return doc["error"]


# ---- the deployment ------------------------------------------------------

def test_console_runs_on_the_hub_network_with_lox_copy_of_the_ca(team):
    """lox run put the console on the instance's network (never none,
    never an agent's), the CA lox checked mounted read-only, and the
    console's command carries --hub and the instance name lox run gave."""
    r = team.eng.docker("inspect", "lockfile-team-console")
    c = json.loads(r.stdout)[0]
    assert list(c["NetworkSettings"]["Networks"]) == [NET]
    mounts = {m["Destination"]: m for m in c["Mounts"]}
    ca = mounts["/etc/lockfile/hub-ca.pem"]
    assert ca["RW"] is False and ca["Source"].endswith(
        "/instances/team/hub-ca.pem")
    assert "--hub-instance" in c["Args"] and INSTANCE in c["Args"]
    assert URL in c["Args"]
    # agents: no network at all
    r = team.agent("cat", "/proc/net/dev")
    assert b"eth0" not in r.stdout, r.stdout


def test_two_agents_ask_neither_busy_tickets_reach_lox_approve(team):
    # agent 1 asks: pending, the instance name is the one lox run gave
    d1, r1 = team.ask("2024/a.pdf")
    assert r1.returncode == 0 or d1 is not None, r1.stderr
    plan1, t1 = pending(d1)
    assert d1["result"]["instance"] == INSTANCE
    # agent 1 now waits for its decision (lockfile run) ...
    out = {}
    th = threading.Thread(target=lambda: out.update(
        r=team.run(plan1, wait=150)))
    th.start()
    time.sleep(3)
    # ... and agent 2 (another uid) is not busy meanwhile
    t0 = time.monotonic()
    d2, r2 = team.ask("2024/b.pdf", uid=D.SECOND_UID)
    assert time.monotonic() - t0 < 30
    assert "error" not in (d2 or {}), (d2, r2.stderr)
    plan2, t2 = pending(d2)
    assert th.is_alive(), "agent 1's run returned before any decision"
    # the tickets reach lox on the host, checked against the pinned key
    r = team.lox.run("tickets")
    assert r.returncode == 0, r.stderr
    listed = r.stdout.decode()
    assert t1 in listed and t2 in listed, listed
    # approve agent 2's first: agent 1 still waits, not busy either
    code, _ = team.approve(t2)
    assert code == 0
    d2r, _ = team.run(plan2, uid=D.SECOND_UID, wait=60)
    assert answers(d2r) == [("is-pdf", 1)], d2r
    assert th.is_alive()
    code, _ = team.approve(t1)
    assert code == 0
    th.join(150)
    assert not th.is_alive()
    d1r, _ = out["r"]
    assert answers(d1r) == [("is-pdf", 1)], d1r


def test_denial(team):
    d, _ = team.ask("2024/notes.txt")
    plan, tid = pending(d)
    r = team.lox.run("deny", tid)
    assert r.returncode == 0, r.stderr
    d, _ = team.run(plan, wait=60)
    assert err(d) == "E_APPROVAL_DENIED", d


def test_stale_content(team):
    path = os.path.join(team.src, "2024/a.pdf")
    d, _ = team.ask("2024/a.pdf", uid=D.SECOND_UID)
    plan, tid = pending(d)
    assert team.approve(tid)[0] == 0
    with open(path, "rb") as f:
        orig = f.read()
    with open(path, "ab") as f:
        f.write(b"% appended after the approval\n")
    try:
        d, _ = team.run(plan, uid=D.SECOND_UID, wait=60)
        assert err(d) == "E_STALE", d
    finally:
        with open(path, "wb") as f:
            f.write(orig)


def test_restart_and_doctor_use_the_kept_hub(team):
    """The hub is kept for the instance: lox run without --hub starts the
    same hub-mode console; lox doctor runs in it."""
    team.eng.docker("stop", "-t", "10", "lockfile-team-console")
    team.term.kill(team.window)
    team.window = team.start_console(hub=False)
    r = team.eng.docker("inspect", "lockfile-team-console")
    c = json.loads(r.stdout)[0]
    assert URL in c["Args"] and list(c["NetworkSettings"]["Networks"]) == [NET]
    d, _ = team.ask("2024/a.pdf")
    pending(d)
