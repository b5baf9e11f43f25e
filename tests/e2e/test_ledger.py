"""The answer ledger (docs/ledger.md) as the human reads it.

`lockfile audit --ledger` in the console account, on ledgers written here
from docs/ledger.md's format by a second implementation (so the doc and the
code are checked against each other): the listing and its filters, content
totals adding up over keys with the same bytes, agent text rendered, a torn
or damaged ledger shown up to the problem and refused, the explicit
repair, another account's ledger refused.
"""
import hashlib
import re
import signal
import time
import json
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest

from lfenv import CONSOLE_USER, as_user, chown_tree, lockfile_binary

SHA_A = hashlib.sha256(b"the bytes of a.pdf").hexdigest()
SHA_B = hashlib.sha256(b"other bytes").hexdigest()


def chained(lines):
    """docs/ledger.md: FIELDS, a space, sha256(previous chain + FIELDS)."""
    prev, out = b"\0" * 32, b""
    for fields in lines:
        c = hashlib.sha256(prev + fields.encode()).digest()
        out += fields.encode() + b" " + c.hex().encode() + b"\n"
        prev = c
    return out


def khex(key):
    return key.encode().hex()


def sample(now):
    t = now - 3600
    return [
        "L 1 lockfile-ledger 1 %d" % t,
        "K 2 1 1002 invoices %s" % khex("2024/Zoë a.pdf"),
        "P 3 %d 1 %s 3" % (t, SHA_A),
        "K 4 2 1002 invoices %s" % khex("2024/copy.pdf"),
        "P 5 %d 2 %s 2" % (t + 10, SHA_A),          # the same bytes
        "K 6 3 1003 invoices %s" % khex("2024/Zoë a.pdf"),
        "P 7 %d 3 %s 4" % (t + 20, SHA_A),
        "P 8 %d 1 %s 1" % (t + 30, SHA_B),           # 1002's a.pdf changed
        "K 9 4 1002 invoices %s" % khex("2024/\x1b[2Jx.pdf"),
        "P 10 %d 4 - 1" % (t + 40),                  # a fetch failure
        # a plan two days ago: in the totals, not in the window
        "P 11 %d 2 %s 5" % (now - 2 * 86400, SHA_A),
    ]


@pytest.fixture
def home():
    d = tempfile.mkdtemp(prefix="lf-ledger-")
    os.chmod(d, 0o700)
    os.makedirs(os.path.join(d, ".local/state/lockfile/ledger"), mode=0o700)
    chown_tree(d, CONSOLE_USER)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def put(home, data):
    p = os.path.join(home, ".local/state/lockfile/ledger/ledger")
    with open(p, "wb") as f:
        f.write(data)
    os.chmod(p, 0o600)
    chown_tree(home, CONSOLE_USER)
    return p


def audit(home, *args, user=CONSOLE_USER, lang=None):
    env = {"PATH": "/usr/bin:/bin"}
    if lang:
        env["LANG"] = lang
    return as_user(user, [lockfile_binary(), "audit", "--home", home,
                          "--ledger"] + list(args), env=env)


def now():
    return int(subprocess.check_output(["date", "+%s"]))


def rows(out):
    return [json.loads(x) for x in out.decode().splitlines()]


def test_listing_and_content_totals(home):
    put(home, chained(sample(now())))
    p = audit(home, "--json")
    assert p.returncode == 0, p.stderr
    r = rows(p.stdout)
    assert r[0]["ledger"] == "summary" and r[0]["records"] == 11
    assert r[0]["keys"] == 4 and r[0]["window_s"] == 86400
    keys = {(x["uid"], x.get("key")): x for x in r if x["ledger"] == "key"}
    a = keys[(1002, "2024/Zoë a.pdf")]
    assert (a["answers"], a["plans"]) == (4, 2)
    assert (a["window_answers"], a["window_plans"]) == (4, 2)
    assert a["last_sha256"] == SHA_B
    copy = keys[(1002, "2024/copy.pdf")]
    assert (copy["answers"], copy["plans"]) == (7, 2)
    assert (copy["window_answers"], copy["window_plans"]) == (2, 1)
    assert keys[(1003, "2024/Zoë a.pdf")]["answers"] == 4
    contents = {(x["uid"], x["sha256"]): x for x in r
                if x["ledger"] == "content"}
    # two keys with the same bytes add up: 3 + 2 + 5
    assert contents[(1002, SHA_A)]["answers"] == 10
    assert contents[(1002, SHA_A)]["keys"] == 2
    assert contents[(1003, SHA_A)]["answers"] == 4
    assert contents[(1002, SHA_B)]["answers"] == 1
    assert contents[(1002, SHA_B)]["keys"] == 1
    assert len(contents) == 3
    assert all(b < 0x80 for b in p.stdout)       # --json is ASCII


def test_filters(home):
    put(home, chained(sample(now())))
    p = audit(home, "--json", "--key", "2024/./Zoë%20a.pdf", "--uid", "1003")
    assert p.returncode == 0, p.stderr
    r = rows(p.stdout)[1:]
    assert [(x["ledger"], x["uid"]) for x in r] == [
        ("key", 1003), ("content", 1003)]
    p = audit(home, "--json", "--key", "2024/Zoë a.pdf", "--uid", "1002")
    r = rows(p.stdout)[1:]
    # the key's two contents, one of them also asked for as copy.pdf
    assert [(x["ledger"], x.get("keys")) for x in r] == [
        ("key", None), ("content", 2), ("content", 1)]
    p = audit(home, "--json", "--uid", "agent-that-does-not-exist")
    assert p.returncode == 64
    p = audit(home, "--key", "../etc/passwd")
    assert p.returncode == 64
    p = as_user(CONSOLE_USER, [lockfile_binary(), "audit", "--home", home,
                               "--key", "a"])
    assert p.returncode == 64                     # --key needs --ledger


def test_text_is_rendered(home):
    put(home, chained(sample(now())))
    p = audit(home, lang="C.UTF-8")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert b"\x1b" not in p.stdout
    assert 'key="2024/\\x1b[2Jx.pdf"' in out
    assert 'key="2024/Zoë a.pdf"' in out
    assert "ledger=content uid=1002 sha256=%s answers=10" % SHA_A in out
    # no UTF-8 locale: nothing but ASCII
    p = audit(home)
    assert p.returncode == 0 and all(b < 0x80 for b in p.stdout)
    assert "Zo\\u{00EB} a.pdf" in p.stdout.decode()


def test_torn_then_repair(home):
    whole = chained(sample(now()))
    path = put(home, whole[:-7])
    p = audit(home, "--json")
    assert p.returncode == 65
    err = p.stderr.decode()
    assert "torn" in err and "record 11" in err and "--repair" in err
    assert rows(p.stdout)[0]["records"] == 10     # what came before
    with open(path, "rb") as f:
        assert f.read() == whole[:-7]             # never reset
    p = audit(home, "--repair")
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "kept the 10 records before record 11" in out
    assert "never left" in out
    aside = [n for n in os.listdir(os.path.dirname(path))
             if n.startswith("ledger.damaged-")]
    assert len(aside) == 1
    with open(os.path.join(os.path.dirname(path), aside[0]), "rb") as f:
        assert f.read() == whole[:-7]
    p = audit(home, "--json")
    assert p.returncode == 0, p.stderr
    keys = [x for x in rows(p.stdout) if x["ledger"] == "key"]
    assert sorted((x["uid"], x["answers"]) for x in keys) == [
        (1002, 1), (1002, 2), (1002, 4), (1003, 4)]
    with open(os.path.join(home, ".local/state/lockfile/audit.log")) as f:
        rec = json.loads(f.read().splitlines()[-1])
    assert rec["event"] == "ledger_repaired" and rec["kept_records"] == 10
    p = audit(home, "--repair")
    assert p.returncode == 0 and b"nothing to repair" in p.stdout


def test_damaged_in_the_middle(home):
    data = bytearray(chained(sample(now())))
    data[300] ^= 0x01
    put(home, bytes(data))
    p = audit(home)
    assert p.returncode == 65
    assert "checksum" in p.stderr.decode()


def test_other_accounts_and_no_ledger(home):
    p = audit(home)
    assert p.returncode == 0 and b"no ledger yet" in p.stdout
    put(home, chained(sample(now())))
    path = os.path.join(home, ".local/state/lockfile/ledger/ledger")
    os.chown(path, 0, 0)
    os.chmod(path, 0o644)
    p = audit(home)
    assert p.returncode == 77
    # an agent cannot read it at all (the home is 0700)
    agent = pwd.getpwnam("agent")
    assert agent.pw_uid != pwd.getpwnam(CONSOLE_USER).pw_uid
    p = audit(home, user="agent")
    assert p.returncode != 0 and p.stdout == b""


# ---- the console's start (a real console, tests/e2e/lfenv.py) ----------

def ledger_path(env):
    return os.path.join(env.home, ".local/state/lockfile/ledger/ledger")


def started_env(env):
    env.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": b"%PDF-1.4 not quite\n"})
    env.install_plugin("is-pdf")
    env.write_policy(answer_quantum_s=1)
    return env


def test_console_creates_and_says_so(env):
    started_env(env)
    env.start()
    env.wait_screen(r"ledger: new")
    st = os.stat(ledger_path(env))
    assert st.st_mode & 0o777 == 0o600
    assert st.st_uid == pwd.getpwnam(CONSOLE_USER).pw_uid
    d = os.stat(os.path.dirname(ledger_path(env)))
    assert d.st_mode & 0o777 == 0o700
    assert [r for r in env.audit() if r.get("event") == "ledger_created"]
    env.stop()
    # the next start reads it
    env.start()
    env.wait_screen(r"ledger: 0 entries, 0 contents, window 86400s, cap 64")


def test_console_refuses_a_torn_or_damaged_ledger(env):
    started_env(env)
    whole = chained(sample(now()))
    for data, words in ((whole[:200] + bytes([whole[200] ^ 4]) + whole[201:],
                         ("damaged", "checksum")),
                        (whole[:-9], ("torn", "record 11", "incomplete"))):
        os.makedirs(os.path.dirname(ledger_path(env)), mode=0o700,
                    exist_ok=True)
        put(env.home, data)
        env.start(wait=False)
        env.wait_exit()
        s = env.screen()
        for w in words + ("refusing to start", "--repair"):
            assert w in s, (w, s)
        assert not os.path.exists(env.socket)
        with open(ledger_path(env), "rb") as f:
            assert f.read() == data               # left as it was
        env.stop()
    # the human's repair, then the console starts on the 10 records kept
    p = audit(env.home, "--repair")
    assert p.returncode == 0, p.stderr
    env.start()
    env.wait_screen(r"ledger: 4 entries, 3 contents")


# ---- the plan pipeline on a real console ---------------------------------

import threading  # noqa: E402

from lfenv import check_reply, uid_of  # noqa: E402


def plan_async(env, params, user="agent", peer=False, timeout=60):
    box = {}

    def go():
        if peer:
            req = env.request("file.plan", params)
            out, secs = env.rpc_as_peer((json.dumps(req) + "\n").encode(),
                                        user, timeout=timeout)
            box["req"], box["line"], box["secs"] = req, out.decode(), secs
        else:
            box["req"], box["line"], box["secs"] = env.rpc(
                "file.plan", params, user=user, timeout=timeout)
    t = threading.Thread(target=go)
    t.start()
    return t, box


def card(env, count):
    """The count-th card's text, from its heading to its question."""
    s = env.wait_screen(r"Approve\?", count=count)
    start = [i for i in range(len(s)) if s.startswith("=== lockfile", i)]
    return s[start[count - 1]:s.index("Approve?", start[count - 1])]


def ask(env, params, count, user="agent", peer=False, answer="y"):
    t, box = plan_async(env, params, user=user, peer=peer)
    text = card(env, count)
    env.type(answer)
    t.join()
    return box, text


def refused_at_once(env, params, cards_before, user="agent"):
    req, line, secs = env.rpc("file.plan", params, user=user)
    assert check_reply(req, line) == "error E_ANSWER_CAP"
    err = json.loads(line)["error"]
    assert err["code"] == -32018
    assert err["data"]["hint"] == ("the plan would take this agent past its "
                                   "answer cap for the key")
    # before the card: none shown, and not held to the quantum
    assert env.screen().count("Approve?") == cards_before
    return secs


def capped_env(env, cap=3, quantum=1, **more):
    env.add_local_profile("invoices", prefix="2024/", files={
        "2024/a.pdf": b"%PDF-1.4 not quite\n", "2024/b.pdf": b"other\n"})
    env.install_plugin("is-pdf")
    env.install_plugin("is-utf8")
    env.write_policy(answer_quantum_s=quantum, max_answers_per_key=cap,
                     max_plugins_per_handle=4, **more)
    return env


A = {"profile": "invoices", "key": "2024/a.pdf",
     "plugins": [{"name": "is-pdf"}, {"name": "is-utf8"}]}
A1 = {"profile": "invoices", "key": "2024/a.pdf",
      "plugins": [{"name": "is-utf8"}]}


def test_cap_across_handles_and_a_restart(env):
    capped_env(env, cap=3, quantum=3)
    env.start()
    agent = uid_of("agent")
    box, text = ask(env, A, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    assert ("this key: no answers to uid %d in the last 1 d, cap 3" % agent
            in text)
    # a new plan by key (a new handle): 2 + 2 would pass 3
    secs = refused_at_once(env, A, 1)
    assert secs < 2.0                     # the quantum is 3 s
    # by the first plan's handle, which has 2 answers left: the same key,
    # the same count, the cap refuses
    handle = json.loads(box["line"])["result"]["handle"]
    refused_at_once(env, {"handle": handle, "plugins": [
        {"name": "is-pdf"}, {"name": "is-utf8"}]}, 1)
    box, text = ask(env, A1, 2)
    assert check_reply(box["req"], box["line"]) == "result"
    assert re.search(r"this key: 2 answers to uid %d in 1 plan since "
                     r"\d{4}-\d\d-\d\d \d\d:\d\d UTC, cap 3 per 1 d" % agent,
                     text), text
    refused_at_once(env, A1, 2)
    # another key is its own
    box, _ = ask(env, dict(A1, key="2024/b.pdf"), 3)
    assert check_reply(box["req"], box["line"]) == "result"
    rec = [r for r in env.audit() if r.get("outcome") == "E_ANSWER_CAP"]
    assert len(rec) == 3 and rec[0]["ledger_window_answers"] == 2
    # a restart remembers
    env.stop()
    env.start()
    # entries: the two keys and the file each run opened
    env.wait_screen(r"ledger: 4 entries, 2 contents, window 86400s, cap 3")
    refused_at_once(env, A1, 0)
    p = audit(env.home, "--json", "--key", "2024/a.pdf")
    assert p.returncode == 0, p.stderr
    keys = [x for x in rows(p.stdout) if x["ledger"] == "key"]
    assert [(k["uid"], k["answers"], k["plans"]) for k in keys] == [
        (agent, 3, 2)]


def test_cap_after_kill_9(env):
    """kill -9 with the answer held for its quantum: the record was on disk
    before the answer could leave, so the plan counts although the agent
    got nothing; the next console refuses on it."""
    capped_env(env, cap=2, quantum=5)
    env.start()
    env.wait_screen(r"ledger: new")   # the socket comes first
    path = ledger_path(env)
    size0 = os.path.getsize(path)
    t, box = plan_async(env, A)
    card(env, 1)
    env.type("y")
    t0 = time.time()
    while os.path.getsize(path) == size0 and time.time() - t0 < 4:
        time.sleep(0.02)
    assert os.path.getsize(path) > size0  # recorded, answer still held
    env.signal(signal.SIGKILL)
    t.join()
    assert box["line"] == ""              # nothing left
    env.wait_exit()
    env.stop()
    env.start()
    # the killed console's socket file is still there: wait for the new
    # one's start-up line, printed once it listens
    env.wait_screen(r"ledger: 2 entries")
    refused_at_once(env, A1, 0)
    p = audit(env.home)
    assert p.returncode == 0, p.stderr    # a whole ledger


def test_torn_record_written_by_the_console(env):
    capped_env(env)
    env.start()
    box, _ = ask(env, A1, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    env.stop()
    path = ledger_path(env)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:-30])
    env.start(wait=False)
    env.wait_exit()
    s = env.screen()
    assert "torn" in s and "refusing to start" in s and "--repair" in s
    assert not os.path.exists(env.socket)


def test_two_agents_apart_on_the_card(env):
    capped_env(env, cap=4)
    env.start(args=["--allowed-uids", "%d" % uid_of("lf-allowed")])
    agent, other = uid_of("agent"), uid_of("lf-allowed")
    box, _ = ask(env, A, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    box, _ = ask(env, A1, 2)
    assert check_reply(box["req"], box["line"]) == "result"
    # the other agent's card: only its own (empty) history for the key
    box, text = ask(env, A, 3, user="lf-allowed", peer=True)
    assert check_reply(box["req"], box["line"]) == "result"
    assert ("this key: no answers to uid %d in the last 1 d, cap 4" % other
            in text), text
    assert ("uid %d" % agent) not in text
    assert "3 answers" not in text
    # and the first agent's next card: its own 3, not 5
    box, text = ask(env, A1, 4)
    assert check_reply(box["req"], box["line"]) == "result"
    assert ("this key: 3 answers to uid %d in 2 plans since" % agent
            in text), text
    assert ("uid %d" % other) not in text
    # 4 for agent: its cap; lf-allowed has 2 of its own and may go on
    refused_at_once(env, A1, 4)
    box, _ = ask(env, A, 5, user="lf-allowed", peer=True)
    assert check_reply(box["req"], box["line"]) == "result"


# ---- spellings, aliases and the ledger at rest (issue 25, 6 and 8) -------

def test_spellings_of_a_case_insensitive_profile_share_one_budget(env):
    """A profile declared case-insensitive (key_fold = "case"): another
    spelling of a key is the same key to the ledger, refused before the
    card like the key itself, without the file being touched."""
    capped_env(env, cap=3)
    env.write_source_file(env.profiles["invoices"]["path"], "2024/A.pdf",
                          b"%PDF-1.4 not quite\n")
    env.profiles["invoices"]["key_fold"] = "case"
    env.write_policy(answer_quantum_s=1, max_answers_per_key=3,
                     max_plugins_per_handle=4)
    env.start()
    box, _ = ask(env, A, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    for spelling in ("2024/A.PDF", "2024/a.Pdf"):
        secs = refused_at_once(env, dict(A, key=spelling), 1)
        assert secs < 1.0
    # one plugin more fits the folded key's budget, whichever spelling
    box, text = ask(env, dict(A1, key="2024/A.pdf"), 2)
    assert check_reply(box["req"], box["line"]) == "result"
    assert "this key: 2 answers to uid %d" % uid_of("agent") in text


def test_hard_links_share_one_budget_at_run_time(env):
    """Two names of one file in a local source: the second name's budget
    is fresh before the card (the ledger cannot know, and must not ask the
    file), but the run counts the inode it opened: refused after the
    approval, at the quantum, with E_ANSWER_CAP."""
    capped_env(env, cap=3, quantum=2)
    src = env.profiles["invoices"]["path"]
    os.link(os.path.join(src, "2024/a.pdf"), os.path.join(src, "2024/link.pdf"))
    env.start()
    box, _ = ask(env, A, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    box, text = ask(env, dict(A, key="2024/link.pdf"), 2)
    assert "this key: no answers" in text
    assert check_reply(box["req"], box["line"]) == "error E_ANSWER_CAP"
    assert box["secs"] >= 1.8                     # after the approval
    rec = [r for r in env.audit() if r.get("key") == "2024/link.pdf"]
    assert rec[-1]["outcome"] == "E_ANSWER_CAP"
    assert rec[-1]["ledger_object_answers"] == 2
    assert rec[-1]["ledger_answers"] == 1         # the refusal is a symbol
    # the other name is spent too: one object, one budget
    box, _ = ask(env, dict(A1, key="2024/link.pdf"), 3)
    assert check_reply(box["req"], box["line"]) == "error E_ANSWER_CAP"
    # a different file is its own
    box, _ = ask(env, dict(A, key="2024/b.pdf"), 4)
    assert check_reply(box["req"], box["line"]) == "result"


def test_home_holds_no_file_metadata_outside_the_audit(env):
    """After a local-mode session (answers, a fetch failure, a restart),
    no file in the console's home but the audit log holds a key (as typed,
    cleaned or in hex), a size or a sha256 (hex or raw) of a file asked
    about (docs/security.md, "Data at rest")."""
    name = "2024/zebra-unicorn-q7.pdf"
    data = b"%PDF-1.4 " + b"x" * (314159 - 9)
    env.add_local_profile("invoices", prefix="2024/", files={name: data})
    env.install_plugin("is-pdf")
    env.install_plugin("is-utf8")
    env.write_policy(answer_quantum_s=1, max_plugins_per_handle=4)
    env.start()
    plan = {"profile": "invoices", "key": "2024/./zebra-unicorn-q7.pdf",
            "plugins": [{"name": "is-pdf"}, {"name": "is-utf8"}]}
    box, _ = ask(env, plan, 1)
    assert check_reply(box["req"], box["line"]) == "result"
    box, _ = ask(env, dict(plan, key="2024/missing-okapi-q7.pdf"), 2)
    assert check_reply(box["req"], box["line"]) == "error E_FETCH_FAILED"
    env.stop()
    env.start()                                   # a compaction-free restart
    env.stop()
    sha = hashlib.sha256(data).digest()
    needles = [b"zebra-unicorn", b"okapi", b"zebra-unicorn".hex().encode(),
               b"okapi".hex().encode(), sha.hex().encode(),
               sha.hex().upper().encode(), sha, b"314159"]
    audit_log = os.path.join(env.home, ".local/state/lockfile/audit.log")
    found = []
    for root, dirs, files in os.walk(env.home):
        if os.path.normpath(root) == os.path.normpath(env.work_dir()):
            dirs[:] = []                          # the spool: the handle's
            continue
        for f in files:
            p = os.path.join(root, f)
            if p == audit_log or not os.path.isfile(p) or os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                b = fh.read()
            found += [(os.path.relpath(p, env.home), n[:16]) for n in needles
                      if n in b]
    assert found == [], found
    # the audit log is the one place: it has them, and `audit --ledger`
    # names the ledger's digests from it
    with open(audit_log, "rb") as fh:
        b = fh.read()
    assert b"zebra-unicorn-q7.pdf" in b and sha.hex().encode() in b
    p = audit(env.home, "--json")
    assert p.returncode == 0, p.stderr
    r = rows(p.stdout)
    keys = [x.get("key") for x in r if x["ledger"] == "key"]
    assert "2024/zebra-unicorn-q7.pdf" in keys
    assert "2024/missing-okapi-q7.pdf" in keys
    assert [x.get("sha256") for x in r if x["ledger"] == "content"] == [
        sha.hex()]
    p = audit(env.home, "--json", "--key", "2024/zebra-unicorn-q7.pdf")
    k = [x for x in rows(p.stdout) if x["ledger"] == "key"]
    assert [(x["key"], x["answers"]) for x in k] == [
        ("2024/zebra-unicorn-q7.pdf", 2)]
