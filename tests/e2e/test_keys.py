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
    ("2024/\u202efdp.exe", '"2024/\\u{202E}fdp.exe"'),
    ("2024/\u2066isolate\u2069\u200b.pdf",
     '"2024/\\u{2066}isolate\\u{2069}\\u{200B}.pdf"'),
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
    assert "\\u{202E}evil\\u{202C} \\u{009B}31m \\x08\\x08 \\x0d\\x0aApprove? y" in s
    assert_terminal_clean(basic)
    # queued for the human only: nothing was installed or changed
    req, line, _ = basic.rpc("file.plugins")
    assert len(json.loads(line)["result"]["plugins"]) == 4


# ---- what the human reads: names as typed, deceptions visible ----------
# (lib/render.h, docs/rendering.md)

def card_of(screen):
    return screen[screen.rfind("an agent asks"):]


def key_line(card):
    m = re.search(r"^  key       (.*)$", card, re.M)
    assert m, card
    return m.group(1)


# Characters that may never reach the pane raw, from Python's own Unicode
# data (an oracle independent of libunistring): controls but the newline
# and carriage return the terminal itself sends, format characters (bidi,
# zero-width, tags), separators and spaces other than U+0020, private use,
# unassigned, and the default-ignorable letters and marks.
IGNORABLE = set(range(0xfe00, 0xfe10)) | set(range(0xe0100, 0xe01f0)) | \
    set(range(0x180b, 0x1810)) | {0x115f, 0x1160, 0x3164, 0xffa0, 0x034f,
                                  0x17b4, 0x17b5}


def assert_pane_safe(env):
    """Every byte written to the pane is valid UTF-8 and no character of it
    can change the terminal's state, reorder or hide text."""
    import unicodedata
    log = env.pane_log()
    assert log, "the pane log recorded nothing"
    text = log.decode("utf-8")      # raises on a raw invalid byte
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "\r\n":
            continue
        assert cat[0] != "C", "raw U+%04X (%s) reached the pane" % (ord(ch), cat)
        assert cat not in ("Zl", "Zp") and (cat != "Zs" or ch == " "), \
            "raw U+%04X (%s) reached the pane" % (ord(ch), cat)
        assert ord(ch) not in IGNORABLE, "raw U+%04X reached the pane" % ord(ch)


def show_and_deny(env, key, count, plugins=("is-pdf",)):
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "profile": "invoices", "key": key,
            "plugins": [{"name": p} for p in plugins]})
    t = threading.Thread(target=go)
    t.start()
    s = env.wait_screen(r"Approve\?", count=count)
    env.type("n")
    t.join()
    assert check_reply(box["req"], box["line"]) == "error E_APPROVAL_DENIED"
    return card_of(s)


READABLE = [
    "2024/Zoë-Müller.pdf",
    "2024/Счёт-фактура №5.pdf",
    "2024/Ελληνικά τιμολόγια.pdf",
    "2024/請求書_東京タワー.pdf",
    "2024/한국어 문서.pdf",
    "2024/\U0001F4C4 invoice \U0001F9FE.pdf",
]


def test_readable_keys_shown_as_typed(basic):
    basic.pane_log_start()
    for i, key in enumerate(READABLE):
        card = show_and_deny(basic, key, i + 1)
        assert key_line(card) == '"%s"' % key, card
        assert "\n  WARNING" not in card, card
        assert "\n  typed" not in card, card
    # the audit keeps the key as it was, and `lockfile audit` shows it so
    keys = [r["key"] for r in basic.audit() if r.get("method") == "file.plan"]
    assert keys == READABLE
    out = lockfile_audit(basic)
    for key in READABLE:
        assert ('key="%s"' % key).encode() in out, out
    assert_pane_safe(basic)
    assert_terminal_clean(basic)


# (key, what its key line shows)
DECEPTIVE = [
    # Trojan Source: every bidirectional control
    ("2024/\u202a\u202b\u202c\u202d\u202e.pdf",
     '"2024/\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}.pdf"'),
    ("2024/\u2066\u2067\u2068\u2069\u200e\u200f\u061c.pdf",
     '"2024/\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200E}\\u{200F}'
     '\\u{061C}.pdf"'),
    ("2024/invoice\u202egpj.exe", '"2024/invoice\\u{202E}gpj.exe"'),
    # zero-width and invisible characters, the emoji joiner
    ("2024/in\u200bvo\u200cice\u2060\ufeff.pdf",
     '"2024/in\\u{200B}vo\\u{200C}ice\\u{2060}\\u{FEFF}.pdf"'),
    ("2024/\U0001F468\u200d\U0001F469\u200d\U0001F467.pdf",
     '"2024/\U0001F468\\u{200D}\U0001F469\\u{200D}\U0001F467.pdf"'),
    ("2024/\u3164\u115f\uffa0\u180e.pdf",
     '"2024/\\u{3164}\\u{115F}\\u{FFA0}\\u{180E}.pdf"'),
    # tag characters and variation selectors
    ("2024/flag\U000e0001\U000e0075\U000e0073\U000e007f.pdf",
     '"2024/flag\\u{E0001}\\u{E0075}\\u{E0073}\\u{E007F}.pdf"'),
    ("2024/a\ufe0f\U000e0100.pdf", '"2024/a\\u{FE0F}\\u{E0100}.pdf"'),
    # separators, private use, a mark tower
    ("2024/x\u2028y\u2029z.pdf", '"2024/x\\u{2028}y\\u{2029}z.pdf"'),
    ("2024/\ue000\U000f0000.pdf", '"2024/\\u{E000}\\u{F0000}.pdf"'),
    ("2024/e" + "\u0301" * 8 + ".pdf",
     '"2024/e' + "\u0301" * 4 + "\\u{0301}" * 4 + '.pdf"'),
    # edge, repeated and look-alike spaces
    ("2024/a.pdf ", '"2024/a.pdf "'),
    ("2024/ a.pdf", '"2024/ a.pdf"'),
    ("2024/a  b.pdf", '"2024/a \\x20b.pdf"'),
    ("2024/a\u00a0b\u3000.pdf", '"2024/a\\u{00A0}b\\u{3000}.pdf"'),
    ("2024/a\u2800b \u2800.pdf", '"2024/a\\u{2800}b \\u{2800}.pdf"'),
    ('2024/say "yes".pdf', '"2024/say \\"yes\\".pdf"'),
]


def test_deceptive_keys_escaped(basic):
    basic.pane_log_start()
    for i, (key, shown) in enumerate(DECEPTIVE):
        card = show_and_deny(basic, key, i + 1)
        assert key_line(card) == shown, (key, card)
    out = lockfile_audit(basic)
    for key, shown in DECEPTIVE:
        assert ("key=" + shown).encode() in out, (shown, out)
    for b in RAW_FORBIDDEN:
        assert b not in out
    assert_pane_safe(basic)
    assert_terminal_clean(basic)


def test_mixed_script_key_warned(basic):
    basic.pane_log_start()
    key = "2024/p\u0430yp\u0430l-\u0456nvoice.pdf"     # Cyrillic а and і
    card = show_and_deny(basic, key, 1)
    assert key_line(card) == '"%s"' % key
    assert ('\n  WARNING   look-alike characters, mixed scripts (Latin + '
            'Cyrillic): "2024/p\\u{0430}yp\\u{0430}l-\\u{0456}nvoice.pdf"\n'
            ) in card, card
    # Greek and Cyrillic in two components: one line for the whole key
    card = show_and_deny(basic, "2024/\u03bfffice/\u0441opy.pdf", 2)
    assert ('\n  WARNING   look-alike characters, mixed scripts (Greek + '
            'Latin + Cyrillic): "2024/\\u{03BF}ffice/\\u{0441}opy.pdf"\n'
            in card), card
    assert len(re.findall(r"\n  WARNING ", card)) == 1, card
    assert_pane_safe(basic)


# Keys that look like others though every character is readable (issue 25
# item 7): shown as typed, with one warning line saying why.
LOOKALIKE = [
    ("2024/Zoe\u0308-Mu\u0308ller.pdf",         # decomposed, as macOS writes
     'not NFC: "2024/Zoe\\u{0308}-Mu\\u{0308}ller.pdf"'),
    ("2024/p\U0001D68Ayp\U0001D68Al.pdf",
     'look-alike characters: "2024/p\\u{1D68A}yp\\u{1D68A}l.pdf"'),
    ("2024/\u05d0\u05d1/x.pdf",
     'right-to-left letters: "2024/\\u{05D0}\\u{05D1}/x.pdf"'),
]


def test_lookalike_keys_warned(basic):
    basic.pane_log_start()
    for i, (key, warning) in enumerate(LOOKALIKE):
        card = show_and_deny(basic, key, i + 1)
        assert key_line(card) == '"%s"' % key, card
        assert "\n  WARNING   %s\n" % warning in card, card
        assert len(re.findall(r"\n  WARNING ", card)) == 1, card
    assert_pane_safe(basic)


def test_card_layout_by_display_width(basic):
    """A key of wide characters wraps at the pane's width (220) with the
    value column kept: no line wider than the pane (which would wrap to
    column 0), each continuation indented to the value column."""
    import unicodedata
    basic.pane_log_start()
    key = "2024/" + "請求書" * 60 + ".pdf"
    card = show_and_deny(basic, key, 1, plugins=("is-pdf", "is-json"))
    raw = basic.tmux("capture-pane", "-p", "-S", "-20000").stdout.decode()
    raw = raw[raw.rfind("an agent asks"):]
    lines = raw.split("\n")
    i = next(n for n, l in enumerate(lines) if l.startswith("  key       "))
    got = lines[i][12:]
    cont = 0
    while lines[i + 1 + cont].startswith(" " * 12):
        got += lines[i + 1 + cont][12:]
        cont += 1
    assert got == '"%s"' % key
    assert cont >= 1

    def cols(s):
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1
                   for c in s)
    for l in lines[i:i + 1 + cont]:
        assert cols(l) <= 220, l
    # the versions stand in one column whatever the names' widths
    pl = [l for l in lines if re.match(r"  \[\d\] ", l)]
    assert len(pl) == 2
    assert pl[0].index("1.0.0") == pl[1].index("1.0.0"), pl
    assert_pane_safe(basic)


def test_plugin_detail_rendered(env):
    """A plugin's detail (level 0) holds what the plugin chose: readable
    text shows as it is, invalid UTF-8, an escape sequence, a bidi override
    and a tag character as escapes."""
    from conftest import make_pdf
    env.add_local_profile("invoices", prefix="2024/",
                          files={"2024/a.pdf": make_pdf()})
    src = os.path.join(env.plugin_build, "tests", "e2e", "p-detail-bytes")

    def edit(m):
        m["name"] = "detail-bytes"
        m["question"] = "Does it answer 1 with a hostile detail?"
    env.install_plugin("contains", binary=src, manifest_edit=edit)
    env.write_policy(answer_quantum_s=1, security_level=0)
    env.start()
    env.pane_log_start()
    box = {}

    def go():
        box["req"], box["line"], _ = env.rpc("file.plan", {
            "profile": "invoices", "key": "2024/a.pdf",
            "plugins": [{"name": "detail-bytes",
                         "inputs": {"needle": "${word}"}}]})
    t = threading.Thread(target=go)
    t.start()
    env.wait_screen(r"Approve\?")
    env.type("y")
    env.wait_screen(r"value for \$\{word\}")
    env.type("x")
    t.join()
    assert check_reply(box["req"], box["line"]) == "result"
    s = env.wait_screen("detail: ")
    assert ("detail: Zoë Счёт 請 \\xff\\xfe \\x1b[31mred\\x1b[0m "
            "\\u{202E}rlo \\xe0\\x80 \\u{E0001} end") in s, s
    assert_pane_safe(env)
    assert_terminal_clean(env)


def test_change_request_readable(basic):
    basic.pane_log_start()
    text = "добавьте is-xml, 谢谢 \U0001F4C4 — Zoë"
    req, line, _ = basic.rpc("change.request", {"text": text})
    assert check_reply(req, line) == "result"
    s = basic.wait_screen("change request from uid")
    assert "\n  " + text + "\n" in s, s
    assert_pane_safe(basic)


def utf8_env(lang="C.UTF-8"):
    e = {"PATH": "/usr/bin:/bin"}
    if lang:
        e["LANG"] = lang
    return e


def lockfile_audit(env):
    """`lockfile audit` as the console account: the bytes a human's
    terminal would get."""
    from lfenv import as_user, CONSOLE_USER
    r = as_user(CONSOLE_USER, [env.binary, "audit", "--home", env.home],
                env=utf8_env())
    assert r.returncode == 0, r.stderr
    r.stdout.decode("utf-8")        # valid UTF-8, whatever the log holds
    return r.stdout


def assert_bytes_safe(out):
    """Output meant for a terminal: valid UTF-8, no raw control but the
    newline, nothing bidirectional or invisible (as assert_pane_safe)."""
    import unicodedata
    for ch in out.decode("utf-8"):
        if ch == "\n":
            continue
        cat = unicodedata.category(ch)
        assert cat[0] != "C" and cat not in ("Zl", "Zp") and \
            (cat != "Zs" or ch == " ") and ord(ch) not in IGNORABLE, \
            "raw U+%04X (%s) in the output" % (ord(ch), cat)


def test_doctor_renders_paths(env):
    """`lockfile doctor` shows a file-derived path as a human reads it: a
    readable name as it is, an escape sequence and a bidi override as
    escapes; --json carries the same text as valid JSON."""
    from lfenv import as_user, CONSOLE_USER
    home = os.path.join(env.base, "Zoë-\x1b[2J\u202e-home")
    argv = [env.binary, "doctor", "--home", home, "--socket", env.socket]
    r = as_user(CONSOLE_USER, argv, env=utf8_env())
    assert r.returncode == 1
    assert_bytes_safe(r.stdout)
    line = [l for l in r.stdout.decode().splitlines()
            if l.startswith("FAIL home ")]
    assert line and line[0].endswith(
        "/Zoë-\\x1b[2J\\u{202E}-home is not a directory"), r.stdout
    r = as_user(CONSOLE_USER, argv + ["--json"], env=utf8_env())
    doc = json.loads(r.stdout)
    detail = [c["detail"] for c in doc["checks"] if c["name"] == "home"][0]
    assert detail.endswith("/Zoë-\\x1b[2J\\u{202E}-home is not a directory")


def test_no_utf8_locale_shows_ascii(env):
    """Started without a UTF-8 locale the console cannot know its terminal
    reads UTF-8 (an 8-bit terminal takes the 0x9b of "ћ" for CSI): every
    character outside printable ASCII is an escape, the rules otherwise
    the same. `lockfile audit` and `doctor` follow the same locale."""
    from conftest import make_pdf
    from lfenv import as_user, CONSOLE_USER
    env.lang = None
    env.add_local_profile("invoices", prefix="2024/",
                          files={"2024/a.pdf": make_pdf()})
    env.install_plugin("is-pdf")
    env.write_policy(answer_quantum_s=1)
    env.start()
    env.pane_log_start()
    card = show_and_deny(env, "2024/Zoë-ћ \u202e.pdf", 1)
    assert key_line(card) == '"2024/Zo\\u{00EB}-\\u{045B} \\u{202E}.pdf"'
    log = env.pane_log()
    assert all(b < 0x80 for b in log), "a byte outside ASCII reached the pane"
    r = as_user(CONSOLE_USER, [env.binary, "audit", "--home", env.home],
                env=utf8_env(None))
    assert b'key="2024/Zo\\u{00EB}-\\u{045B} \\u{202E}.pdf"' in r.stdout
    assert all(b < 0x80 for b in r.stdout)
