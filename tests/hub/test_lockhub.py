"""lockhub end to end: a real hub (its own account, SQLite state, loopback)
driven by signed requests from hubwire.py. Every endpoint; every refusal of
a signed request (docs/hub.md, "Signed requests", in its order); the
ticket and decision checks; one decision per named device, read as a
list; long-polls with their own
deadline, woken by a post, all answered before the hub stops; the rate
limit; body caps; TLS; state and nonces across a restart."""
import os
import signal
import socket
import subprocess
import threading
import time

import pytest

import hubwire as hw  # noqa: E402
from hubenv import HubEnv  # noqa: E402

import nacl.public  # noqa: E402


class World:
    def __init__(self, hub):
        self.hub = hub
        self.inst = hw.Key()
        self.inst2 = hw.Key()
        self.dev = hw.Key()
        self.dev2 = hw.Key()
        self.stranger = hw.Key()
        self.box = nacl.public.PrivateKey.generate()
        hub.enroll("instance", "desk", self.inst)
        hub.enroll("instance", "other", self.inst2)
        hub.enroll("device", "alice", self.dev)
        hub.enroll("device", "bob", self.dev2)

    def ticket(self, inst=None, name="desk", **kw):
        inst = inst or self.inst
        kw.setdefault("approvers", [self.dev.pk, self.dev2.pk])
        t = hw.new_ticket(name, inst.pk, bytes(self.box.public_key), **kw)
        return t, hw.enc_ticket(t, inst.seed)

    def post_ticket(self, body, key=None):
        return self.hub.call("POST", "/v1/tickets", body, key=key or self.inst)

    def posted(self, **kw):
        t, b = self.ticket(**kw)
        st, _ = self.post_ticket(b)
        assert st == 201
        return t, b

    def post_decision(self, tid, dev, box, key=None):
        return self.hub.call("POST", "/v1/tickets/%s/decision" % tid,
                             hw.enc_devpost(dev, box), key=key or self.dev)


def test_enrolment(world):
    """GET /v1/enrolment: an instance's key learns the name it is enrolled
    as; a device's key is refused for the role, an unknown key as not
    enrolled, an unsigned request as unsigned (the console asks it at its
    start: docs/hub.md, "The console's side")."""
    w = world
    assert w.hub.call("GET", "/v1/enrolment", key=w.inst) == (200, b"desk")
    assert w.hub.call("GET", "/v1/enrolment", key=w.dev)[0] == 403
    assert w.hub.call("GET", "/v1/enrolment", key=hw.Key())[0] == 401
    assert w.hub.call("GET", "/v1/enrolment")[0] == 401
    assert w.hub.call("POST", "/v1/enrolment", key=w.inst)[0] == 404


@pytest.fixture(scope="module")
def world():
    hub = HubEnv()
    hub.init()
    w = World(hub)
    hub.start(poll_s=1)
    yield w
    hub.cleanup()


def pending_ids(w, key=None):
    st, body = w.hub.call("GET", "/v1/pending", key=key or w.dev)
    assert st == 200
    seq, items = hw.dec_list(body)
    return [hw.dec_ticket(t)["id"] for _, t in items]


def test_health_and_routes(world):
    assert world.hub.call("GET", "/v1/health") == (200, b"ok\n")
    st, _ = world.hub.call("GET", "/v1/nothing", key=world.dev)
    assert st == 404
    # Nothing rides in the URL, signed or not.
    st, _ = world.hub.call("GET", "/v1/pending?token=x", key=world.dev,
                           sign_path="/v1/pending")
    assert st == 400
    st, _ = world.hub.call("GET", "/v1/pending")
    assert st == 401


def test_ticket_decision_flow(world):
    w = world
    t, tb = w.posted()
    assert t["id"] in pending_ids(w)
    # The same ticket again is refused; it stays once.
    assert w.post_ticket(tb)[0] == 409
    assert pending_ids(w).count(t["id"]) == 1
    # No decision yet: the console's long-poll ends at the hub's deadline.
    t0 = time.monotonic()
    st, _ = w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"], key=w.inst)
    assert st == 204 and 0.8 < time.monotonic() - t0 < 5
    dev, box = hw.decide(tb, w.dev, values=[("email", b"alice@example.org")])
    assert w.post_decision(t["id"], dev, box)[0] == 201
    st, body = w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                          key=w.inst)
    assert st == 200
    d = hw.dec_decision(body)
    assert d["dev"] == dev and d["box"] == box
    x = hw.dec_hub(d["hub"])
    assert x["dev_hash"] == hw.h(dev) and x["hub_key"] == w.hub.key
    assert x["approver"] == "alice" and x["ticket"] == t["id"]
    assert hw.verify(d["hub"], x["signed_len"], x["sig"], w.hub.key)
    # The hub relays a box it cannot open; the console's key opens it.
    assert hw.unseal(d["box"], bytes(w.box)) == hw.enc_values(
        [("email", b"alice@example.org")])
    # Decided by alice: no longer listed to her, nor a second decision of
    # hers; bob, whom it names too, still sees it and decides it (the
    # console counts: issue 29's quorum).
    assert t["id"] not in pending_ids(w)
    assert t["id"] in pending_ids(w, key=w.dev2)
    again, abox = hw.decide(tb, w.dev, verdict=hw.DENY)
    assert w.post_decision(t["id"], again, abox)[0] == 409
    dev2, box2 = hw.decide(tb, w.dev2, verdict=hw.DENY)
    assert w.post_decision(t["id"], dev2, box2, key=w.dev2)[0] == 201
    assert t["id"] not in pending_ids(w, key=w.dev2)
    assert w.post_decision(t["id"], dev2, box2, key=w.dev2)[0] == 409
    # The old read still answers the first decision (consoles that count
    # one); the list answers both, in arrival order.
    st, body2 = w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                           key=w.inst)
    assert body2 == body
    st, lb = w.hub.call("GET", "/v1/tickets/%s/decisions/after/0" % t["id"],
                        key=w.inst)
    assert st == 200
    got = [hw.dec_decision(e) for e in hw.dec_declist(lb)]
    assert [g["dev"] for g in got] == [dev, dev2]
    assert hw.dec_hub(got[1]["hub"])["approver"] == "bob"
    st, lb = w.hub.call("GET", "/v1/tickets/%s/decisions/after/1" % t["id"],
                        key=w.inst)
    assert st == 200 and [hw.dec_decision(e)["dev"]
                          for e in hw.dec_declist(lb)] == [dev2]


def test_only_named_devices_see_and_decide(world):
    """Issue 26 item 1: a ticket names the devices that may decide it (the
    ones its console pins). Another enrolled device neither sees it, in a
    listing or a long-poll, nor learns of it from the cursor, nor decides
    it holding its bytes (404, as an unknown ticket); the named device
    then decides. A ticket naming nobody is shown to nobody."""
    w = world
    before = hw.dec_list(w.hub.call("GET", "/v1/pending", key=w.dev2)[1])[0]
    t, tb = w.posted(approvers=[w.dev.pk])
    none, nb = w.posted(approvers=[])
    assert t["id"] in pending_ids(w)
    assert t["id"] not in pending_ids(w, key=w.dev2)
    assert none["id"] not in pending_ids(w) + pending_ids(w, key=w.dev2)
    st, body = w.hub.call("GET", "/v1/pending", key=w.dev2)
    assert hw.dec_list(body)[0] == before     # the cursor tells nothing
    st, _ = w.hub.call("GET", "/v1/pending/after/%d" % before, key=w.dev2)
    assert st == 204
    dev, box = hw.decide(tb, w.dev2, verdict=hw.DENY)
    assert w.post_decision(t["id"], dev, box, key=w.dev2) == \
        (404, b"no such ticket\n")
    dev, box = hw.decide(nb, w.dev)
    assert w.post_decision(none["id"], dev, box)[0] == 404
    dev, box = hw.decide(tb, w.dev)
    assert w.post_decision(t["id"], dev, box)[0] == 201
    st, body = w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                          key=w.inst)
    assert st == 200 and hw.dec_decision(body)["dev"] == dev
    # decided: the other device still learns nothing of it (404, not 409)
    dev, box = hw.decide(tb, w.dev2)
    assert w.post_decision(t["id"], dev, box, key=w.dev2)[0] == 404


@pytest.mark.parametrize("case", [
    "bad-base64", "truncated", "unknown-key", "other-signer", "wrong-path",
    "wrong-method", "future", "past", "body-hash", "replay"])
def test_signed_request_refused(world, case):
    """Each fails at its own check with 401, and serves nothing."""
    w = world
    t, tb = w.ticket()
    path, body, key = "/v1/tickets", tb, w.inst
    now = int(time.time() * 1000)
    kw = {}
    if case == "bad-base64":
        kw["auth"] = "!!!!"
    elif case == "truncated":
        kw["auth"] = hw.b64(hw.enc_request("POST", path, body, key)[:-5])
    elif case == "unknown-key":
        key = w.stranger
    elif case == "other-signer":
        # names the enrolled key, signed by another
        req = hw.enc_request("POST", path, body, key)
        q = hw.dec_request(req)
        forged = req[:q["signed_len"]] + hw.field(
            __import__("nacl.signing").signing.SigningKey(
                w.stranger.seed).sign(req[:q["signed_len"]]).signature)
        kw["auth"] = hw.b64(forged)
    elif case == "wrong-path":
        kw["sign_path"] = "/v1/pending"
    elif case == "wrong-method":
        kw["sign_method"] = "GET"
    elif case == "future":
        kw["time_ms"] = now + 61000
    elif case == "past":
        kw["time_ms"] = now - 61000
    elif case == "body-hash":
        kw["sign_body"] = b"another body"
    if case == "replay":
        auth = hw.b64(hw.enc_request("POST", path, body, key))
        assert w.hub.call("POST", path, body, auth=auth)[0] == 201
        st, text = w.hub.call("POST", path, body, auth=auth)
        assert st == 401 and b"already served" in text
        return
    st, text = w.hub.call("POST", path, body, key=key, **kw)
    assert st == 401, text
    assert t["id"] not in pending_ids(w)


def test_time_window_edges(world):
    """Inside the window by a margin, a request is served."""
    w = world
    now = int(time.time() * 1000)
    for skew in (-50000, 50000):
        st, _ = w.hub.call("GET", "/v1/pending", key=w.dev, time_ms=now + skew)
        assert st == 200


def test_roles(world):
    w = world
    t, tb = w.ticket()
    # A device cannot post tickets, an instance cannot list or decide.
    assert w.post_ticket(tb, key=w.dev)[0] == 403
    assert w.hub.call("GET", "/v1/pending", key=w.inst)[0] == 403
    t, tb = w.posted()
    dev, box = hw.decide(tb, w.dev)
    assert w.post_decision(t["id"], dev, box, key=w.inst)[0] == 403
    assert w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                      key=w.dev)[0] == 403


def test_ticket_refused(world):
    w = world
    # Signed by desk, naming another instance's key or name
    t, _ = w.ticket()
    t["instance_key"] = w.inst2.pk
    assert w.post_ticket(hw.enc_ticket(t, w.inst.seed))[0] == 403
    t, _ = w.ticket(name="other")
    assert w.post_ticket(hw.enc_ticket(t, w.inst.seed))[0] == 403
    # A ticket whose own signature is another key's
    t, _ = w.ticket()
    assert w.post_ticket(hw.enc_ticket(t, w.stranger.seed))[0] == 400
    # Not a ticket at all, or a ticket with a byte appended
    assert w.post_ticket(b"LHTICKET\x00\x01garbage")[0] == 400
    t, tb = w.ticket()
    assert w.post_ticket(tb + b"\x00")[0] == 400
    assert t["id"] not in pending_ids(w)


def test_body_caps(world):
    w = world
    big = b"x" * (256 * 1024 + 1)
    st, _ = w.hub.call("POST", "/v1/tickets", big, key=w.inst)
    assert st == 413
    # A GET takes no body
    st, _ = w.hub.call("GET", "/v1/pending", b"x", key=w.dev)
    assert st == 413


def test_decision_refused(world):
    w = world
    t, tb = w.posted()
    tid = t["id"]
    # Bound to another ticket's bytes (the hub's copy is the reference)
    other, otb = w.ticket()
    dev, box = hw.decide(otb, w.dev, ticket=tid)
    assert w.post_decision(tid, dev, box)[0] == 400
    # The box swapped after the device signed
    dev, box = hw.decide(tb, w.dev, values=[("email", b"a@b")])
    box2 = hw.seal([("email", b"evil@example.org")], t["box_pk"])
    assert w.post_decision(tid, dev, box2)[0] == 400
    # Signed by alice, posted by bob
    dev, box = hw.decide(tb, w.dev)
    assert w.post_decision(tid, dev, box, key=w.dev2)[0] == 403
    # For another ticket than the path's
    dev, box = hw.decide(tb, w.dev)
    assert w.hub.call("POST", "/v1/tickets/%s/decision" % other["id"],
                      hw.enc_devpost(dev, box), key=w.dev)[0] in (400, 404)
    # Another nonce, another instance key
    dev, box = hw.decide(tb, w.dev, nonce=os.urandom(32))
    assert w.post_decision(tid, dev, box)[0] == 400
    dev, box = hw.decide(tb, w.dev, instance_key=w.inst2.pk)
    assert w.post_decision(tid, dev, box)[0] == 400
    # Unknown ticket
    dev, box = hw.decide(otb, w.dev)
    assert w.post_decision(other["id"], dev, box)[0] == 404
    # Still undecided after all of it
    assert tid in pending_ids(w)
    st, _ = w.hub.call("GET", "/v1/tickets/%s/decision" % tid, key=w.inst)
    assert st == 204


def test_other_instance_sees_nothing(world):
    w = world
    t, tb = w.posted()
    dev, box = hw.decide(tb, w.dev)
    assert w.post_decision(t["id"], dev, box)[0] == 201
    assert w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                      key=w.inst2)[0] == 404


def test_long_poll_woken(world):
    """A console waiting on its decision is answered as soon as it lands."""
    w = world
    hub = HubEnv.__new__(HubEnv)
    t, tb = w.posted()
    out = {}

    def wait():
        t0 = time.monotonic()
        out["r"] = w.hub.call("GET", "/v1/tickets/%s/decision" % t["id"],
                              key=w.inst)
        out["t"] = time.monotonic() - t0
    del hub
    th = threading.Thread(target=wait)
    th.start()
    time.sleep(0.3)
    dev, box = hw.decide(tb, w.dev)
    t_post = time.monotonic()
    assert w.post_decision(t["id"], dev, box)[0] == 201
    th.join(10)
    assert out["r"][0] == 200
    assert hw.dec_decision(out["r"][1])["dev"] == dev
    assert time.monotonic() - t_post < 0.9


def test_pending_long_poll(world):
    w = world
    st, body = w.hub.call("GET", "/v1/pending", key=w.dev)
    seq, _ = hw.dec_list(body)
    t0 = time.monotonic()
    st, _ = w.hub.call("GET", "/v1/pending/after/%d" % seq, key=w.dev)
    assert st == 204 and time.monotonic() - t0 > 0.8
    out = {}

    def wait():
        out["r"] = w.hub.call("GET", "/v1/pending/after/%d" % seq, key=w.dev)
    th = threading.Thread(target=wait)
    th.start()
    time.sleep(0.3)
    t, tb = w.posted()
    th.join(10)
    st, body = out["r"]
    assert st == 200
    seq2, items = hw.dec_list(body)
    assert seq2 > seq and [hw.dec_ticket(b)["id"] for _, b in items] == [t["id"]]


def test_one_decision_per_device(world):
    """Eight posts at once, four from each of two named devices: one per
    device is kept, the others refused (409: that device decided it)."""
    w = world
    t, tb = w.posted()
    keys = [w.dev, w.dev2] * 4
    results = [None] * len(keys)
    devs = [hw.decide(tb, k, verdict=i % 2) for i, k in enumerate(keys)]

    def post(i):
        results[i] = w.post_decision(t["id"], devs[i][0], devs[i][1],
                                     key=keys[i])[0]
    ths = [threading.Thread(target=post, args=(i,)) for i in range(len(keys))]
    for th in ths:
        th.start()
    for th in ths:
        th.join(20)
    assert sorted(results) == [201] * 2 + [409] * 6
    kept = [devs[i][0] for i in range(len(keys)) if results[i] == 201]
    assert {hw.dec_dev(d)["device_key"] for d in kept} == {w.dev.pk, w.dev2.pk}
    st, lb = w.hub.call("GET", "/v1/tickets/%s/decisions/after/0" % t["id"],
                        key=w.inst)
    assert st == 200
    assert sorted(hw.dec_decision(e)["dev"] for e in hw.dec_declist(lb)) == \
        sorted(kept)


def test_decisions_long_poll(world):
    """GET /v1/tickets/ID/decisions/after/N long-polls until the ticket has
    more than N decisions, is woken by the next one, and is the
    instance's only (another instance: 404; a device: 403)."""
    w = world
    t, tb = w.posted()
    path = "/v1/tickets/%s/decisions/after/%%d" % t["id"]
    d1, b1 = hw.decide(tb, w.dev)
    assert w.post_decision(t["id"], d1, b1)[0] == 201
    assert w.hub.call("GET", path % 0, key=w.inst2)[0] == 404
    assert w.hub.call("GET", path % 0, key=w.dev)[0] == 403
    assert w.hub.call("GET", path % 17, key=w.inst)[0] == 404
    out = {}

    def poll():
        out["t0"] = time.monotonic()
        out["r"] = w.hub.call("GET", path % 1, key=w.inst)
        out["t1"] = time.monotonic()
    th = threading.Thread(target=poll)
    th.start()
    time.sleep(0.3)     # the hub's deadline is 1 s: woken, not timed out
    d2, b2 = hw.decide(tb, w.dev2)
    assert w.post_decision(t["id"], d2, b2, key=w.dev2)[0] == 201
    th.join(10)
    st, lb = out["r"]
    assert st == 200 and out["t1"] - out["t0"] < 0.95
    assert [hw.dec_decision(e)["dev"] for e in hw.dec_declist(lb)] == [d2]
    t0 = time.monotonic()
    assert w.hub.call("GET", path % 2, key=w.inst)[0] == 204
    assert time.monotonic() - t0 > 0.8


def test_rate_limit():
    hub = HubEnv()
    try:
        hub.init()
        hub.start(rate="5/60000")
        codes = [hub.call("GET", "/v1/health")[0] for _ in range(7)]
        assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]
    finally:
        hub.cleanup()


def test_trickling_heads_hold_no_slot():
    """Slow headers (issue 26, item 3): connections that trickle header
    lines, as many as --max-conns, are closed at the request deadline
    (--request-s) whatever trickles in, and /health answers again within
    it. Before the deadline existed they held every slot for as long as
    they trickled."""
    hub = HubEnv()
    socks, stop = [], threading.Event()
    try:
        hub.init()
        hub.start(extra=["--max-conns", "6", "--request-s", "2"])
        for _ in range(6):
            s = socket.create_connection(("127.0.0.1", hub.port))
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)

        def trickle():
            while not stop.is_set():
                for s in socks:
                    try:
                        s.sendall(b"X-A: b\r\n")
                    except OSError:
                        pass
                time.sleep(0.3)
        th = threading.Thread(target=trickle)
        th.start()
        time.sleep(0.5)
        t0, st = time.monotonic(), None
        while time.monotonic() - t0 < 8 and st != 200:
            try:
                st = hub.call("GET", "/v1/health", timeout=2)[0]
            except OSError:
                time.sleep(0.2)
        took = time.monotonic() - t0
        assert st == 200, "no slot for /health in %.1f s" % took
        assert took < 4, took
        # the trickling connections were closed by the hub
        for s in socks:
            s.settimeout(3)
            try:
                while s.recv(4096):
                    pass
            except ConnectionResetError:
                pass
    finally:
        stop.set()
        for s in socks:
            s.close()
        hub.cleanup()


def test_stop_answers_every_long_poll():
    """SIGTERM with suspended long-polls: each is answered, the hub exits
    promptly and cleanly (libmicrohttpd must not stop while they hang)."""
    hub = HubEnv()
    try:
        hub.init()
        inst, dev = hw.Key(), hw.Key()
        hub.enroll("instance", "desk", inst)
        hub.enroll("device", "alice", dev)
        hub.start(poll_s=60)
        box = nacl.public.PrivateKey.generate()
        t = hw.new_ticket("desk", inst.pk, bytes(box.public_key),
                          approvers=[dev.pk])
        assert hub.call("POST", "/v1/tickets", hw.enc_ticket(t, inst.seed),
                        key=inst)[0] == 201
        out = []

        def wait(path, key):
            out.append(hub.call("GET", path, key=key, timeout=90)[0])
        ths = [threading.Thread(target=wait, args=(
            "/v1/tickets/%s/decision" % t["id"], inst)) for _ in range(3)]
        ths.append(threading.Thread(target=wait, args=(
            "/v1/pending/after/99", dev)))
        for th in ths:
            th.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        rc = hub.stop()
        for th in ths:
            th.join(10)
        assert rc == 0
        assert time.monotonic() - t0 < 5
        assert sorted(out) == [204] * 4
    finally:
        hub.cleanup()


def test_restart_keeps_state_and_nonces():
    hub = HubEnv()
    try:
        hub.init()
        inst, dev = hw.Key(), hw.Key()
        hub.enroll("instance", "desk", inst)
        hub.enroll("device", "alice", dev)
        hub.start()
        box = nacl.public.PrivateKey.generate()
        t = hw.new_ticket("desk", inst.pk, bytes(box.public_key),
                          approvers=[dev.pk])
        tb = hw.enc_ticket(t, inst.seed)
        auth = hw.b64(hw.enc_request("POST", "/v1/tickets", tb, inst))
        assert hub.call("POST", "/v1/tickets", tb, auth=auth)[0] == 201
        hub.stop()
        hub.start()
        # the nonce is in the database: a replay after a restart fails
        assert hub.call("POST", "/v1/tickets", tb, auth=auth)[0] == 401
        st, body = hub.call("GET", "/v1/pending", key=dev)
        assert [hw.dec_ticket(b)["id"] for _, b in hw.dec_list(body)[1]] == \
            [t["id"]]
    finally:
        hub.cleanup()


def test_tls():
    hub = HubEnv()
    try:
        hub.init()
        dev = hw.Key()
        hub.enroll("device", "alice", dev)
        hub.start(tls=True)
        assert hub.call("GET", "/v1/health") == (200, b"ok\n")
        assert hub.call("GET", "/v1/pending", key=dev)[0] == 200
        # plain HTTP to the TLS port is not served
        hub.tls, cafile = None, hub.tls
        with pytest.raises(Exception):
            hub.call("GET", "/v1/health", timeout=5)
        hub.tls = cafile
    finally:
        hub.cleanup()


def test_cli_refusals():
    hub = HubEnv()
    try:
        hub.init()
        k = hw.Key()
        r = hub.lockhub("enroll", "device", "Alice", k.text())
        assert r.returncode == 65
        r = hub.lockhub("enroll", "device", "alice", "ed25519:00")
        assert r.returncode == 65
        r = hub.lockhub("enroll", "device", "alice", k.text())
        assert r.returncode == 0 and k.fingerprint().encode() in r.stdout
        r = hub.lockhub("enroll", "device", "alice", hw.Key().text())
        assert r.returncode == 65
        r = hub.lockhub("keys")
        assert b"alice" in r.stdout and k.fingerprint().encode() in r.stdout
        # init twice keeps the first key
        assert hub.lockhub("init").returncode != 0
        # the state directory must be closed to others
        os.chmod(hub.state, 0o755)
        assert hub.lockhub("keys").returncode == 70
        os.chmod(hub.state, 0o700)
    finally:
        hub.cleanup()


def test_init_prints_the_policy_lines():
    """lockhub init prints the [hub] lines the console's policy takes
    (`keys = [...]`), with the key itself: pasted, they parse and pin it
    (issue 26 item 4; it printed `key = "..."`, a key the policy refuses)."""
    import tomllib
    hub = HubEnv()
    try:
        r = hub.init()
        out = r.stdout.decode()
        snippet = out[out.index("[hub]\n"):]
        doc = tomllib.loads(snippet)
        assert doc["hub"] == {"keys": ["ed25519:" + hub.key.hex()]}, snippet
    finally:
        hub.cleanup()


def test_rotate():
    """A rotated hub countersigns with its new key; the old one is kept."""
    hub = HubEnv()
    try:
        hub.init()
        old = hub.key
        r = hub.lockhub("rotate")
        assert r.returncode == 0, r.stderr
        new = bytes.fromhex(r.stdout.decode().split("\n")[0].split(":")[1])
        assert new != old
        assert os.path.exists(os.path.join(hub.state, "hub.key.old"))
        assert hub.lockhub("rotate").returncode == 70
        inst, dev = hw.Key(), hw.Key()
        hub.enroll("instance", "desk", inst)
        hub.enroll("device", "alice", dev)
        hub.start()
        box = nacl.public.PrivateKey.generate()
        t = hw.new_ticket("desk", inst.pk, bytes(box.public_key),
                          approvers=[dev.pk])
        tb = hw.enc_ticket(t, inst.seed)
        assert hub.call("POST", "/v1/tickets", tb, key=inst)[0] == 201
        d, b = hw.decide(tb, dev)
        assert hub.call("POST", "/v1/tickets/%s/decision" % t["id"],
                        hw.enc_devpost(d, b), key=dev)[0] == 201
        st, body = hub.call("GET", "/v1/tickets/%s/decision" % t["id"], key=inst)
        x = hw.dec_hub(hw.dec_decision(body)["hub"])
        assert x["hub_key"] == new
        assert hw.verify(hw.dec_decision(body)["hub"], x["signed_len"], x["sig"], new)
    finally:
        hub.cleanup()


def test_init_says_who_makes_the_state_directory():
    """`lockhub init --state DIR` where the hub's account cannot create DIR
    (/var/lib is root's) names the command root runs to make it right;
    run as printed, init then succeeds (issue 26 item 4: it said only
    "Permission denied")."""
    import re
    import shlex
    hub = HubEnv()
    try:
        hub.state = os.path.join(hub.base, "var-lib", "lockhub")
        os.mkdir(os.path.dirname(hub.state), 0o755)   # root's, like /var/lib
        r = hub.lockhub("init")
        assert r.returncode == 70, r.stderr
        err = r.stderr.decode()
        m = re.search(r"as root: (install -d [^\n;(]*?%s)" % re.escape(hub.state),
                      err)
        assert m, err
        cmd = shlex.split(m.group(1))
        assert cmd[:4] == ["install", "-d", "-m", "0700"], cmd
        subprocess.run(cmd, check=True)
        r = hub.lockhub("init")
        assert r.returncode == 0, r.stderr
        st = os.stat(hub.state)
        assert st.st_mode & 0o777 == 0o700
        # a directory root made but did not give: the same remedy
        other = os.path.join(hub.base, "var-lib", "roots")
        os.mkdir(other, 0o700)
        hub.state = other
        r = hub.lockhub("init")
        assert r.returncode == 70 and b"install -d -m 0700" in r.stderr, \
            r.stderr
    finally:
        hub.cleanup()


def test_first_wins_database_is_migrated():
    """A database of the first-decision-wins hub (schema version 3:
    decisions keyed by ticket alone) is refused until `lockhub migrate`
    makes that table anew (version 4); decisions are then kept per device
    (docs/hub.md, "The hub's state"). SQLite's file, whichever store the
    suite runs: test_hub_pg runs the migrations on both engines."""
    import sqlite3
    hub = HubEnv(store=None)
    try:
        hub.init()
        db = os.path.join(hub.state, "hub.db")
        con = sqlite3.connect(db)
        con.executescript(
            "DROP TABLE decisions; CREATE TABLE decisions (id TEXT PRIMARY "
            "KEY REFERENCES tickets (id) ON DELETE CASCADE, body BLOB NOT "
            "NULL, decided_ms INTEGER NOT NULL);"
            "DELETE FROM schema_version; INSERT INTO schema_version VALUES (3);")
        con.close()
        r = hub.lockhub("keys")
        assert r.returncode != 0 and b"lockhub migrate" in r.stderr, r.stderr
        r = hub.lockhub("migrate")
        assert r.returncode == 0, r.stderr
        assert r.stdout == b"schema version 3 -> 4\n", r.stderr
        hub.start(poll_s=1)
        w = World(hub)
        t, tb = w.posted()
        for k in (w.dev, w.dev2):
            d, b = hw.decide(tb, k)
            assert w.post_decision(t["id"], d, b, key=k)[0] == 201
        st, lb = hub.call("GET", "/v1/tickets/%s/decisions/after/0" % t["id"],
                          key=w.inst)
        assert st == 200 and len(hw.dec_declist(lb)) == 2
    finally:
        hub.cleanup()
