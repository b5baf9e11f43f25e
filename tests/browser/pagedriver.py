"""pagedriver: lockhub's approval page in a real browser, for the tests
(tests/browser/test_page.py) and for an end to end with the real console:

    hub = PageHub(); hub.start()            # lockhub on https://localhost:PORT
    code = hub.passkey_code("alice")
    with Page(hub) as page:
        page.pin("inst", instance_key_text)
        reg = page.register(code)           # {"name", "cose", "fingerprint"}
        page.login()
        page.approve_first()                # waits for a ticket, approves it

or in one step: page, reg = enrol_and_sign_in(hub, "alice", {"inst": key}).

Chromium is Debian's /usr/bin/chromium, headless, through puppeteer-core
(tests/browser/node_modules, `npm ci`), with the DevTools WebAuthn virtual
authenticator; driver.mjs takes one JSON command a line.
"""
import base64
import hashlib
import json
import os
import pwd
import re
import socket
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hub"))

import hubenv  # noqa: E402
import pgenv  # noqa: E402


def hubenv_id(tid):
    """A ticket id put into SQL text: the hub's own t_ + hex, checked."""
    assert re.fullmatch(r"[tf]_[0-9a-f]{32}", tid), tid
    return tid


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def localhost_cert(base):
    """A self-signed certificate for localhost (and 127.0.0.1, for the
    Python client), and the base64 SHA-256 of its public key, which the
    browser is told to trust (--ignore-certificate-errors-spki-list)."""
    cert = os.path.join(base, "cert.pem")
    key = os.path.join(base, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                    "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "2",
                    "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    der = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"],
                         check=True, capture_output=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"],
                          input=der, check=True, capture_output=True).stdout
    return cert, key, base64.b64encode(hashlib.sha256(spki).digest()).decode()


class PageHub(hubenv.HubEnv):
    """A real lockhub serving the page on https://localhost:PORT; on the
    tests' own PostgreSQL under LOCKHUB_STORE=pg (hubenv.HubEnv's store,
    the hub-page-pg suite)."""

    def __init__(self, build=None, rp_id="localhost", store="env"):
        super().__init__(build, store=store)
        self.rp_id = rp_id
        self.spki = None

    def tls_files(self):
        cert, key, self.spki = localhost_cert(self.base)
        pw = pwd.getpwnam(hubenv.HUB_USER)
        for f in (cert, key):
            os.chown(f, pw.pw_uid, pw.pw_gid)
        os.chmod(key, 0o600)
        os.chmod(cert, 0o644)
        self.tls = cert
        return cert, key

    @property
    def origin(self):
        return "https://localhost:%d" % self.port

    def start(self, poll_s=5, rate="100000/1", extra=(), tls=True):
        port = free_port()
        return super().start(poll_s=poll_s, rate=rate, tls=True, extra=[
            "--listen", "127.0.0.1:%d" % port, "--rp-id", self.rp_id,
            "--origin", "https://localhost:%d" % port] + list(extra))

    def card_body(self, tid):
        """The stored CARD of ticket tid, from either engine (a test that
        plays a hub changing it)."""
        if self.store:
            out = pgenv.server().sql(
                self.store, "SELECT encode(body, 'hex') FROM cards WHERE "
                "id = '%s'" % hubenv_id(tid))
            return bytes.fromhex(out)
        db = sqlite3.connect(os.path.join(self.state, "hub.db"))
        body = db.execute("SELECT body FROM cards WHERE id = ?",
                          (tid,)).fetchone()[0]
        db.close()
        return body

    def set_card_body(self, tid, body):
        if self.store:
            pgenv.server().sql(
                self.store, "UPDATE cards SET body = decode('%s', 'hex') "
                "WHERE id = '%s'" % (body.hex(), hubenv_id(tid)))
            return
        db = sqlite3.connect(os.path.join(self.state, "hub.db"))
        db.execute("UPDATE cards SET body = ? WHERE id = ?", (body, tid))
        db.commit()
        db.close()

    def passkey_code(self, name):
        r = self.lockhub("passkey-code", name)
        assert r.returncode == 0, r.stderr
        return r.stdout.decode().split("\n")[0]


def enrol_and_sign_in(hub, name, pins, shots=None):
    """The integrator's end to end: a code for NAME, a browser that pins
    the instances (pins: {instance: "ed25519:..."}), registers a passkey
    and signs in. Returns (page, reg) with reg["cose"] for the console's
    [hub.passkeys] and reg["fingerprint"] to confirm there; then
    page.approve_first() approves the first ticket that reaches it."""
    code = hub.passkey_code(name)
    page = Page(hub)
    for inst, key in pins.items():
        page.pin(inst, key)
    reg = page.register(code)
    page.login()
    return page, reg


class Page:
    def __init__(self, hub, shots=None):
        self.hub = hub
        env = dict(os.environ, NODE_PATH=os.path.join(HERE, "node_modules"))
        self.proc = subprocess.Popen(
            ["node", os.path.join(HERE, "driver.mjs"), hub.origin, hub.spki],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=HERE, env=env, text=True)
        ready = self.proc.stdout.readline()
        assert ready, "the driver did not start: " + self.proc.stderr.read()
        self.do("open")

    def do(self, op, **kw):
        self.proc.stdin.write(json.dumps(dict(op=op, **kw)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the driver died: " + self.proc.stderr.read()
        out = json.loads(line)
        assert out.get("ok"), "%s: %s" % (op, out.get("error"))
        return out

    def pin(self, name, key_text):
        return self.do("pin", name=name, key=key_text)

    def register(self, code):
        out = self.do("register", code=code)
        return {"name": out["name"].split(": ", 1)[-1], "cose": out["cose"],
                "fingerprint": out["fingerprint"].split(": ", 1)[-1],
                "status": out["status"]}

    def login(self):
        return self.do("login")

    def wait(self, count=1):
        return self.do("wait", count=count)["tickets"]

    def tickets(self):
        return self.do("tickets")["tickets"]

    def approve(self, index=0):
        return self.do("approve", index=index)["status"]

    def deny(self, index=0):
        return self.do("deny", index=index)["status"]

    def mute(self, minutes, index=0):
        return self.do("mute", index=index, minutes=minutes)["status"]

    def approve_first(self):
        self.wait(1)
        return self.approve(0)

    def forge(self, hashes, verdict=1):
        return self.do("forge", hashes=[h.hex() for h in hashes],
                       verdict=verdict)["http"]

    def notes(self):
        """The notifications the page raised since it was opened."""
        return self.do("notes")["notes"]

    def screenshot(self, path):
        return self.do("screenshot", path=path)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.do("quit")
            except AssertionError:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
