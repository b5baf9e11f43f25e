"""lockhub on PostgreSQL (docs/hub.md, "The store: PostgreSQL"), against a
PostgreSQL the tests start themselves (pgenv.py): schema migrations on both
engines, two lockhub processes sharing one database (nonces, revocations,
tickets and decisions), the pending cursor under concurrent inserts, an
instance outliving a PostgreSQL restart, and the URL's password kept out
of the logs and of the command line. The whole hub suite also runs on
PostgreSQL (tests/suites, hub-pg: LOCKHUB_STORE=pg)."""
import os
import shutil
import sqlite3
import subprocess
import threading
import time

import pytest

import hubwire as hw  # noqa: E402
import pgenv  # noqa: E402
from hubenv import BUILD, HubEnv  # noqa: E402

import nacl.public  # noqa: E402

# The schema lockhub made before schema_version existed (version 0): what
# an old SQLite database looks like on disk.
OLD_SQLITE = """
CREATE TABLE keys (pk BLOB PRIMARY KEY CHECK (length(pk) = 32),
  role INTEGER NOT NULL CHECK (role IN (1, 2)), name TEXT NOT NULL,
  UNIQUE (role, name));
CREATE TABLE nonces (pk BLOB NOT NULL, nonce BLOB NOT NULL,
  seen_ms INTEGER NOT NULL, PRIMARY KEY (pk, nonce));
CREATE INDEX nonces_seen ON nonces (seen_ms);
CREATE TABLE tickets (seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE, instance TEXT NOT NULL, body BLOB NOT NULL,
  received_ms INTEGER NOT NULL, keep_until_ms INTEGER NOT NULL);
CREATE TABLE approvers (id TEXT NOT NULL REFERENCES tickets (id)
  ON DELETE CASCADE, pk BLOB NOT NULL CHECK (length(pk) = 32),
  PRIMARY KEY (id, pk));
CREATE TABLE decisions (id TEXT PRIMARY KEY REFERENCES tickets (id)
  ON DELETE CASCADE, body BLOB NOT NULL, decided_ms INTEGER NOT NULL);
"""


# Version 4 taken back to version 1 (migrations 2 to 4 undone), per engine.
BACK_TO_1_PG = """
DROP INDEX approvers_pk; DROP TABLE passkeys; DROP TABLE tokens;
DROP TABLE cards; DROP TABLE decisions;
ALTER TABLE tickets DROP COLUMN ndecisions;
CREATE TABLE decisions (id text PRIMARY KEY REFERENCES tickets (id)
  ON DELETE CASCADE, body bytea NOT NULL, decided_ms bigint NOT NULL);
"""
BACK_TO_1_SQLITE = """
DROP INDEX approvers_pk; DROP TABLE passkeys; DROP TABLE tokens;
DROP TABLE cards; DROP TABLE decisions;
CREATE TABLE decisions (seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  pk BLOB NOT NULL CHECK (length(pk) = 32), body BLOB NOT NULL,
  decided_ms INTEGER NOT NULL);
"""


def ticket(inst, dev, box, name="desk"):
    t = hw.new_ticket(name, inst.pk, bytes(box.public_key), approvers=[dev.pk])
    return t, hw.enc_ticket(t, inst.seed)


def pending_ids(hub, dev):
    st, body = hub.call("GET", "/v1/pending", key=dev)
    assert st == 200, body
    return [hw.dec_ticket(b)["id"] for _, b in hw.dec_list(body)[1]]


def serve_refused(hub):
    """serve exits at once: its status and log."""
    args = [hub.bin, "serve", "--state", hub.state, "--listen",
            "127.0.0.1:0"] + hub.store_args()
    r = __import__("hubenv").run_as("lockhub", args, timeout=30)
    return r.returncode, r.stderr.decode()


def set_version(hub, v):
    if hub.store:
        pgenv.server().sql(hub.store, "UPDATE schema_version SET version = %d"
                           % v)
    else:
        db = sqlite3.connect(os.path.join(hub.state, "hub.db"))
        db.execute("UPDATE schema_version SET version = ?", (v,))
        db.commit()
        db.close()


def has_index(hub, name):
    if hub.store:
        return pgenv.server().sql(
            hub.store, "SELECT count(*) FROM pg_indexes WHERE indexname = "
            "'%s'" % name) == "1"
    db = sqlite3.connect(os.path.join(hub.state, "hub.db"))
    n = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'index' "
                   "AND name = ?", (name,)).fetchone()[0]
    db.close()
    return n == 1


@pytest.mark.parametrize("engine", ["sqlite", "pg"])
def test_migrations(engine):
    """An older schema is refused by serve (naming lockhub migrate) and by
    the commands that read the store, upgraded by migrate (each step once:
    a second migrate has nothing to do), then served; a newer one is
    refused by serve and by migrate."""
    hub = HubEnv(store="pg" if engine == "pg" else None)
    try:
        hub.init()
        dev = hw.Key()
        hub.enroll("device", "alice", dev)
        # back to version 1: what the database was before migrations 2
        # (the index), 3 (the page's tables) and 4 (decisions per
        # approver)
        if engine == "pg":
            pgenv.server().sql(hub.store, BACK_TO_1_PG)
        else:
            db = sqlite3.connect(os.path.join(hub.state, "hub.db"))
            db.executescript(BACK_TO_1_SQLITE)
            db.commit()
            db.close()
        set_version(hub, 1)
        rc, err = serve_refused(hub)
        assert rc != 0 and "older: run lockhub migrate" in err, err
        r = hub.lockhub("keys")
        assert r.returncode != 0 and b"lockhub migrate" in r.stderr
        r = hub.lockhub("migrate")
        assert r.returncode == 0, r.stderr
        assert r.stdout == b"schema version 1 -> 4\n", r.stdout
        assert has_index(hub, "approvers_pk")
        r = hub.lockhub("migrate")
        assert r.stdout == b"schema version 4: up to date\n"
        assert b"alice" in hub.lockhub("keys").stdout   # the data stayed
        hub.start()
        assert pending_ids(hub, dev) == []
        hub.stop()
        set_version(hub, 5)
        rc, err = serve_refused(hub)
        assert rc != 0 and "newer than this lockhub" in err, err
        r = hub.lockhub("migrate")
        assert r.returncode != 0 and b"newer" in r.stderr
    finally:
        hub.cleanup()


def test_migrate_twice_at_once():
    """Two lockhub migrate on one empty database at the same moment: each
    step once (the advisory lock), both succeed, the schema is whole."""
    hub = HubEnv(store="pg")
    try:
        os.mkdir(hub.state, 0o700)
        shutil.chown(hub.state, "lockhub", "lockhub")
        rs = at_once([lambda: hub.lockhub("migrate")] * 2)
        assert [r.returncode for r in rs] == [0, 0], [r.stderr for r in rs]
        # the steps are shared out between them, whichever way
        outs = sorted(r.stdout for r in rs)
        assert outs[0] == b"schema version 0 -> 4\n", outs
        assert outs[1] in (b"schema version 1 -> 4\n", b"schema version 2 -> 4\n",
                           b"schema version 3 -> 4\n",
                           b"schema version 4: up to date\n"), outs
        assert pgenv.server().sql(hub.store, "SELECT version FROM "
                                  "schema_version") == "4"
        assert has_index(hub, "approvers_pk")
    finally:
        hub.cleanup()


def test_sqlite_from_before_migrations():
    """A database made before schema_version (the old lockhub's) is
    version 0: refused by serve, taken as it is by migrate, its keys
    kept."""
    hub = HubEnv(store=None)
    try:
        hub.init()
        os.unlink(os.path.join(hub.state, "hub.db"))
        dev = hw.Key()
        db = sqlite3.connect(os.path.join(hub.state, "hub.db"))
        db.executescript(OLD_SQLITE)
        db.execute("INSERT INTO keys VALUES (?, 2, 'alice')", (dev.pk,))
        db.commit()
        db.close()
        shutil.chown(os.path.join(hub.state, "hub.db"), "lockhub", "lockhub")
        rc, err = serve_refused(hub)
        assert rc != 0 and "version 0" in err and "lockhub migrate" in err
        r = hub.lockhub("migrate")
        assert r.stdout == b"schema version 0 -> 4\n", r.stderr
        assert b"alice" in hub.lockhub("keys").stdout
    finally:
        hub.cleanup()


def twin(hub):
    """A second lockhub on the same database with the same key: a copy of
    the state directory (docs/hub.md, "The store: PostgreSQL")."""
    other = HubEnv(store=hub.store)
    shutil.copytree(hub.state, other.state, symlinks=True)
    shutil.chown(other.state, "lockhub", "lockhub")
    for f in os.listdir(other.state):
        shutil.chown(os.path.join(other.state, f), "lockhub", "lockhub")
    other.key = hub.key
    return other


def test_two_instances_share_one_database():
    """Nonces (a request served by one is a replay on the other),
    revocations (effective on the other at once, no restart), tickets and
    decisions (posted on one, seen and decided once on the other)."""
    a = HubEnv(store="pg")
    b = None
    try:
        a.init()
        assert not os.path.exists(os.path.join(a.state, "hub.db"))
        inst, dev, dev2 = hw.Key(), hw.Key(), hw.Key()
        a.enroll("instance", "desk", inst)
        a.enroll("device", "alice", dev)
        a.enroll("device", "bob", dev2)
        b = twin(a)
        a.start(poll_s=1)
        b.start(poll_s=1)
        box = nacl.public.PrivateKey.generate()
        t, tb = ticket(inst, dev, box)
        auth = hw.b64(hw.enc_request("POST", "/v1/tickets", tb, inst))
        assert a.call("POST", "/v1/tickets", tb, auth=auth)[0] == 201
        st, text = b.call("POST", "/v1/tickets", tb, auth=auth)
        assert st == 401 and b"already served" in text
        assert pending_ids(b, dev) == [t["id"]]
        # decided on b, the first decision wins on a too
        path = "/v1/tickets/%s/decision" % t["id"]
        d, dbox = hw.decide(tb, dev)
        assert b.call("POST", path, hw.enc_devpost(d, dbox), key=dev)[0] == 201
        d2, dbox2 = hw.decide(tb, dev, verdict=hw.DENY)
        assert a.call("POST", path, hw.enc_devpost(d2, dbox2),
                      key=dev)[0] == 409
        st, body = a.call("GET", path, key=inst)
        assert st == 200 and hw.dec_decision(body)["dev"] == d
        # signed by the one key the instances share
        x = hw.dec_hub(hw.dec_decision(body)["hub"])
        assert x["hub_key"] == a.key
        assert pending_ids(a, dev) == []
        # revoked through the database: both refuse at once
        assert a.call("GET", "/v1/pending", key=dev2)[0] == 200
        r = a.lockhub("revoke", "device", "bob")
        assert r.returncode == 0, r.stderr
        for h in (a, b):
            st, text = h.call("GET", "/v1/pending", key=dev2)
            assert st == 401, text
    finally:
        a.cleanup()
        if b is not None:
            b.cleanup()


def at_once(calls):
    """Run the calls in threads started together: their results."""
    results = [None] * len(calls)
    go = threading.Barrier(len(calls))

    def one(i):
        go.wait(10)
        results[i] = calls[i]()
    ths = [threading.Thread(target=one, args=(i,)) for i in range(len(calls))]
    for th in ths:
        th.start()
    for th in ths:
        th.join(30)
    return results


def test_two_instances_race():
    """At the same moment on both instances: one signed request is served
    once (the other sees a replay), and of eight decisions for one ticket
    by two devices, each device's four spread over both instances, one
    per device is stored (issue 29); both instances answer the same list
    in the same order."""
    a = HubEnv(store="pg")
    b = None
    try:
        a.init()
        inst, dev, dev2 = hw.Key(), hw.Key(), hw.Key()
        a.enroll("instance", "desk", inst)
        a.enroll("device", "alice", dev)
        a.enroll("device", "bob", dev2)
        b = twin(a)
        a.start()
        b.start()
        box = nacl.public.PrivateKey.generate()
        for _ in range(5):
            t, tb = ticket(inst, dev, box)
            auth = hw.b64(hw.enc_request("POST", "/v1/tickets", tb, inst))
            codes = at_once([
                lambda h=h: h.call("POST", "/v1/tickets", tb, auth=auth)[0]
                for h in (a, b) * 2])
            assert sorted(codes) == [201, 401, 401, 401], codes
        t = hw.new_ticket("desk", inst.pk, bytes(box.public_key),
                          approvers=[dev.pk, dev2.pk])
        tb = hw.enc_ticket(t, inst.seed)
        assert a.call("POST", "/v1/tickets", tb, key=inst)[0] == 201
        keys = [dev, dev2] * 4
        devs = [hw.decide(tb, k, verdict=i % 2) for i, k in enumerate(keys)]
        path = "/v1/tickets/%s/decision" % t["id"]
        codes = at_once([
            lambda i=i: (a, b)[(i // 2) % 2].call(
                "POST", path, hw.enc_devpost(*devs[i]), key=keys[i])[0]
            for i in range(8)])
        assert sorted(codes) == [201] * 2 + [409] * 6, codes
        won = [i for i in range(8) if codes[i] == 201]
        assert sorted(keys[i].pk for i in won) == sorted([dev.pk, dev2.pk])
        winners = {devs[i][0] for i in won}
        lists = []
        for h in (a, b):
            st, lb = h.call("GET", "/v1/tickets/%s/decisions/after/0"
                            % t["id"], key=inst)
            assert st == 200, lb
            lists.append([hw.dec_decision(e)["dev"]
                          for e in hw.dec_declist(lb)])
            st, body = h.call("GET", path, key=inst)
            assert st == 200 and hw.dec_decision(body)["dev"] == lists[-1][0]
        assert lists[0] == lists[1] and set(lists[0]) == winners, lists
    finally:
        a.cleanup()
        if b is not None:
            b.cleanup()


def test_cursor_across_connections():
    """tests/hub/test_store_pg.c: 4 connections insert 1,600 tickets at
    once while a device follows the `after SEQ` cursor on a fifth; none
    is missed (a BIGSERIAL seq misses dozens here)."""
    hub = HubEnv(store="pg")
    try:
        hub.init()
        r = subprocess.run([os.path.join(BUILD, "tests", "hub",
                                         "test_store_pg"), hub.store, "400"],
                           capture_output=True, timeout=120)
        out = r.stdout.decode() + r.stderr.decode()
        assert r.returncode == 0 and "ok 1 - " in out, out
        assert "Sanitizer" not in out and "runtime error" not in out, out
    finally:
        hub.cleanup()


def serving_alice():
    """A hub on the tests' PostgreSQL serving, device alice enrolled and
    answered once: (hub, alice's key)."""
    hub = HubEnv(store="pg")
    try:
        hub.init()
        dev = hw.Key()
        hub.enroll("device", "alice", dev)
        hub.start(poll_s=1)
        assert pending_ids(hub, dev) == []
    except BaseException:
        hub.cleanup()
        raise
    return hub, dev


def test_survives_a_postgresql_restart():
    """The connection breaks when PostgreSQL restarts: at most the
    requests in flight fail, with 503 (the client asks again, signed
    afresh: docs/hub.md, "The store: PostgreSQL"), and the next connects
    again."""
    hub, dev = serving_alice()
    try:
        pgenv.server().restart()
        codes = [hub.call("GET", "/v1/pending", key=dev)[0] for _ in range(3)]
        assert codes[-1] == 200 and set(codes) <= {200, 503}, codes
        # down for a while: refused within the reconnect wait (503,
        # logged), not hung
        pgenv.server().stop()
        t0 = time.monotonic()
        gone = (503, b"the hub's store cannot be reached now: ask again\n")
        assert hub.call("GET", "/v1/pending", key=dev) == gone
        assert hub.call("GET", "/v1/pending", key=dev) == gone
        assert time.monotonic() - t0 < 15
        pgenv.server().start()
        assert hub.call("GET", "/v1/pending", key=dev)[0] == 200
        assert hub.proc.poll() is None
        assert "hub store (postgresql)" in hub.read_log()
    finally:
        hub.cleanup()


def test_a_failing_statement_is_500_not_503():
    """503 is for a server that cannot be reached; a statement that fails
    on a live one (here its 10 s timeout, behind a table lock held by
    someone else) is the hub's failure: 500, not "ask again"."""
    hub, dev = serving_alice()
    try:
        locker = threading.Thread(target=pgenv.server().sql, args=(
            hub.store, "BEGIN; LOCK TABLE tickets IN ACCESS EXCLUSIVE MODE; "
            "SELECT pg_sleep(14); COMMIT"))
        locker.start()
        time.sleep(1.5)
        t0 = time.monotonic()
        st = hub.call("GET", "/v1/pending", key=dev, timeout=30)[0]
        assert st == 500 and 8 < time.monotonic() - t0 < 14, st
        locker.join(30)
        assert hub.call("GET", "/v1/pending", key=dev)[0] == 200
        assert "canceling statement" in hub.read_log()
    finally:
        hub.cleanup()


def test_password_never_logged():
    """A password in the URL is neither logged (a failed connection names
    the server) nor left on lockhub's command line (/proc/PID/cmdline)."""
    pg = pgenv.server()
    hub = HubEnv(store="pg")
    secret = "s3cret-pw-%d" % os.getpid()
    try:
        good = hub.store.replace("hub@", "hub:%s@" % secret) + \
            "?connect_timeout=3&password=%s" % secret
        hub.store = good
        hub.init()
        hub.start()
        with open("/proc/%d/cmdline" % hub.proc.pid, "rb") as f:
            cmdline = f.read()
        assert secret.encode() not in cmdline and b"hub:xxxx" in cmdline
        hub.stop()
        hub.store = good.replace(":%d/" % pg.port, ":1/")
        r = hub.lockhub("keys")
        assert r.returncode != 0 and b"cannot be reached" in r.stderr
        assert secret.encode() not in r.stderr, r.stderr
        assert secret not in hub.read_log()
    finally:
        hub.cleanup()
