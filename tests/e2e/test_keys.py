"""Hostile keys: path escapes in every spelling, percent tricks, absolute
paths, NUL, backslashes, overlong keys, control and escape sequences, bidi
overrides, symlinks. None escapes the profile's prefix, nothing outside it
is fetched, and no byte an agent chose reaches the console's terminal raw:
every byte written to the pane is recorded (tmux pipe-pane) and must hold
no ESC, C1 control, BEL, backspace or bidirectional override."""
import json
import os
import re
import threading

from lfenv import assert_no_leak, check_reply

REFUSED = [
    "../secret/outside.txt",
    "2024/../../etc/passwd",
    "2024/../secret/outside.txt",
    "%2e%2e/secret/outside.txt",
    "2024/%2e%2e/%2e%2e/etc/passwd",
    "2024/%2E%2E%2F%2E%2E%2Fsecret/outside.txt",
    "2024%2f..%2f..%2fsecret",
    ".%2e/secret/outside.txt",
    "/etc/passwd",
    "//etc/passwd",
    "%2fetc%2fpasswd",
    "2024\\..\\secret\\outside.txt",
    "2024/..%5c..%5csecret%5coutside.txt",
    "2024/\x1b[2J\x1b]0;pwned\x07x.pdf",
    "2024/%1b[31mred.pdf",
    "2024/a.pdf\r\nApprove? y",
    "2024/\x08\x08\x08\x08key.pdf",
    "2024/\u009b31m.pdf",
    "2024/%c2%9b31m.pdf",
    "2024/%ff.pdf",
    "2024/%c0%ae%c0%ae/secret",
    "2024/%e0%80%ae",
    "2024/%ed%a0%80.pdf",
    "2024/%",
    "2024/%zz",
    "2024/%u002e%u002e/x",
    "%%32%65%%32%65/secret",
    "2024/a%00.pdf",
    "secret/outside.txt",
    "2024",
    "2024/",
    "2024/x/..",
    "20240/a.pdf",
]

# Rejected by the parser already (E_BAD_REQUEST): not a JSON string the
# fixed form can hold.
BAD = [
    # (key, the id of the answer: a NUL makes the whole line unreadable)
    ("2024/a.pdf\x00../../secret/outside.txt", None),
    ("2024/" + "a" * 1020, 1),                  # 1025 bytes
]

# Clean into the prefix: shown on the card (escaped), then denied.
SHOWN = [
    ("2024/%252e%252e/secret/outside.txt", "2024/%2e%2e/secret/outside.txt"),
    ("2024/\u202efdp.exe", "2024/\\xe2\\x80\\xaefdp.exe"),
    ("2024/\u2066isolate\u2069\u200b.pdf", "2024/\\xe2\\x81\\xa6isolate"),
    ("2024/x/../a.pdf", "2024/a.pdf"),
    ("./2024//./a.pdf", "2024/a.pdf"),
    ("2024/" + "b" * 1019, "2024/" + "b" * 100),
]

RAW_FORBIDDEN = [b"\x1b", b"\x07", b"\x08", b"\xc2\x9b", b"\xc2\x85",
                 b"\xe2\x80\xae", b"\xe2\x80\xad", b"\xe2\x80\xab",
                 b"\xe2\x80\xaa", b"\xe2\x80\xac", b"\xe2\x81\xa6",
                 b"\xe2\x81\xa7", b"\xe2\x81\xa8", b"\xe2\x81\xa9",
                 b"\xe2\x80\x8b", b"\xe2\x80\x8f"]


def plan(key):
    return {"profile": "invoices", "key": key,
            "plugins": [{"name": "is-pdf"}]}


def assert_terminal_clean(env):
    log = env.pane_log()
    assert log, "the pane log recorded nothing"
    for b in RAW_FORBIDDEN:
        assert b not in log, "raw %r reached the terminal" % b
    scr = env.screen_raw()
    for b in RAW_FORBIDDEN[1:]:
        assert b not in scr, "raw %r on the screen" % b
    # tmux renders escape sequences it received as attributes; -e shows
    # them as SGR: the console sets none, so none may appear.
    assert b"\x1b[" not in scr


def test_hostile_keys_refused(basic):
    basic.pane_log_start()
    for key in REFUSED:
        req, line, _ = basic.rpc("file.plan", plan(key))
        assert check_reply(req, line) == "error E_KEY_OUTSIDE_PREFIX", \
            repr(key)
        assert_no_leak(line, extra=["secret", "passwd"])
    for key, rid in BAD:
        req = basic.request("file.plan", plan(key))
        out, _ = basic.rpc_raw((json.dumps(req) + "\n").encode(), gate=False)
        assert check_reply({"jsonrpc": "2.0", "id": rid, "method": "file.plan"},
                           out) == "error E_BAD_REQUEST", repr(key)
    basic.wait_screen("E_KEY_OUTSIDE_PREFIX", count=len(REFUSED))
    s = basic.screen()
    assert "Approve?" not in s
    assert "outside.txt" not in s and "passwd" not in s
    assert basic.work_entries() == []
    recs = [r for r in basic.audit() if r.get("method") == "file.plan"]
    assert all("fetch_cause" not in r for r in recs)
    assert {r["outcome"] for r in recs} == {"E_KEY_OUTSIDE_PREFIX"}
    assert_terminal_clean(basic)


def test_hostile_keys_shown_escaped(basic):
    basic.pane_log_start()
    for i, (key, shown) in enumerate(SHOWN):
        box = {}

        def go():
            box["req"], box["line"], _ = basic.rpc("file.plan", plan(key))
        t = threading.Thread(target=go)
        t.start()
        s = basic.wait_screen(r"Approve\?", count=i + 1)
        card = s[s.rfind("an agent asks"):]
        assert shown in card, (key, card)
        if "%" in key or "/./" in key or ".." in key:
            assert re.search(r"\n  typed +", card), card   # typed line too
        basic.type("n")
        t.join()
        assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"
    assert basic.work_entries() == []
    assert_terminal_clean(basic)


def test_symlinks_do_not_escape(basic):
    d = os.path.join(basic.srcdir, "invoices")
    os.symlink("../secret", os.path.join(d, "2024/up"))
    os.symlink("../secret/outside.txt", os.path.join(d, "2024/out.txt"))
    os.symlink("/etc/passwd", os.path.join(d, "2024/passwd.pdf"))
    os.lchown(os.path.join(d, "2024/up"), 0, 0)
    for i, key in enumerate(("2024/up/outside.txt", "2024/out.txt",
                             "2024/passwd.pdf")):
        box = {}

        def go():
            box["req"], box["line"], _ = basic.rpc("file.plan", plan(key))
        t = threading.Thread(target=go)
        t.start()
        basic.wait_screen(r"Approve\?", count=i + 1)
        basic.type("y")
        t.join()
        assert check_reply(box["req"], box["line"]) == "error E_FETCH_FAILED"
        assert_no_leak(box["line"], extra=["secret", "passwd"])
    recs = [r for r in basic.audit() if r.get("method") == "file.plan"]
    assert [r["fetch_cause"] for r in recs] == ["not-regular"] * 3
    assert all("sha256" not in r for r in recs)
    assert basic.work_entries() == []


def test_change_request_text_escaped(basic):
    basic.pane_log_start()
    text = ("add is-xml \x1b[2J\x1b]0;pwned\x07 \u202eevil\u202c \u009b31m "
            "\x08\x08 \r\nApprove? y")
    req, line, _ = basic.rpc("change.request", {"text": text})
    assert check_reply(req, line) == "result"
    s = basic.wait_screen("change request from uid")
    assert "add is-xml \\x1b[2J\\x1b]0;pwned\\x07" in s
    assert "\\xe2\\x80\\xaeevil" in s
    assert_terminal_clean(basic)
    # queued for the human only: nothing was installed or changed
    req, line, _ = basic.rpc("file.plugins")
    assert len(json.loads(line)["result"]["plugins"]) == 4
