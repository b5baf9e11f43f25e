"""The whitelist helper must fail: every kind of output outside the list,
fed to it directly, is refused. (A helper that accepts everything would let
every other client test pass.)"""
import copy
import json
import os
import subprocess
import sys

import pytest

from fake_console import HANDLE, PLAN_ID, TEXTS, good_result
from whitelist import (OWN, PROGRESS_TEXT, ROOT, Whitelist, WhitelistError,
                       check_table, dump_table, read_table)

HERE = os.path.dirname(os.path.abspath(__file__))


def plan_result():
    return good_result("file.plan", {"plugins": [
        {"name": "fake"}, {"name": "fake"},
        {"name": "fake-two", "inputs": {"needle": "${email}"}}]})


def test_table_matches_the_protocol():
    t = read_table()
    assert t["E_APPROVAL_DENIED"] == (-32030, "the human denied the plan")
    assert len(t) == 19


def docs_errors():
    """{name: (code, hint)} from the Errors table of docs/protocol.md."""
    with open(os.path.join(ROOT, "docs", "protocol.md")) as f:
        text = f.read()
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`E_"):
            rows[cells[1].strip("`")] = (int(cells[0]), cells[2])
    return rows


def test_table_matches_the_docs():
    """The compiled table and docs/protocol.md list the same codes, numbers
    and hints: a new row without its line in the docs fails here."""
    assert docs_errors() == read_table()


def bad_tables():
    good = dump_table()
    yield "extra key", dict(good, extra=1)
    for what, fn in (
            ("renamed row", lambda r: r[0].update(name="E_NEW")),
            ("duplicate row", lambda r: r.append(dict(r[0]))),
            ("missing row", lambda r: r.pop()),
            ("duplicate number", lambda r: r[1].update(code=r[0]["code"])),
            ("number as text", lambda r: r[0].update(code="-32600")),
            ("control in a hint", lambda r: r[0].update(hint="a\x1b[2Jb")),
            ("non-ASCII hint", lambda r: r[0].update(hint="caf\u00e9")),
            ("empty hint", lambda r: r[0].update(hint="")),
            ("extra field", lambda r: r[0].update(detail="x")),
    ):
        doc = copy.deepcopy(good)
        fn(doc["errors"])
        yield what, doc
    doc = copy.deepcopy(good)
    doc["methods"][0]["errors"].append("E_UNKNOWN")
    yield "a method answering an unknown code", doc


@pytest.mark.parametrize("what,doc", list(bad_tables()),
                         ids=[w for w, _ in bad_tables()])
def test_bad_tables_are_refused(what, doc):
    check_table(copy.deepcopy(dump_table()))     # the control passes
    with pytest.raises(WhitelistError):
        check_table(doc)


@pytest.mark.parametrize("method", ["status", "sources", "file.plugins",
                                    "file.plan", "file.release",
                                    "change.request"])
def test_good_results_pass(wl, method):
    wl.result(method, good_result(method, None))


def mutations():
    """(method, result) pairs, each outside the list."""
    out = []

    def m(method, base, fn):
        r = copy.deepcopy(base)
        fn(r)
        out.append((method, r))
    st = good_result("status", None)
    m("status", st, lambda r: r.update(size=1))
    m("status", st, lambda r: r.update(console="down"))
    m("status", st, lambda r: r.update(production=1))
    m("status", st, lambda r: r.update(security_level=2))
    m("status", st, lambda r: r.update(answer_quantum_s=0))
    m("status", st, lambda r: r.update(answer_quantum_s=True))
    m("status", st, lambda r: r.update(plugin_protocol=[1, 2, 3]))
    m("status", st, lambda r: r.update(sandbox="off"))
    m("status", st, lambda r: r.pop("sandbox"))
    m("status", st, lambda r: r.update(profile="/x"))
    so = good_result("sources", None)
    m("sources", so, lambda r: r["sources"][0].update(path="/srv"))
    m("sources", so, lambda r: r["sources"][0].update(profile="A"))
    pl = good_result("file.plugins", None)
    m("file.plugins", pl, lambda r: r["plugins"][0].update(
        question="Is it secret?"))                  # not an installed text
    m("file.plugins", pl, lambda r: r["plugins"][0].update(
        question=TEXTS["question"] + "\x07"))
    m("file.plugins", pl, lambda r: r["plugins"][0].update(
        warning="unofficial_marketplace"))
    m("file.plugins", pl, lambda r: r["plugins"][1].pop("warning"))
    m("file.plugins", pl, lambda r: r["plugins"][0].update(version="1.0"))
    m("file.plugins", pl, lambda r: r["plugins"][0].update(inputs=[
        {"name": "x", "kind": "text", "max_bytes": 5}]))
    m("file.plugins", pl, lambda r: r["plugins"][1]["inputs"][0].update(
        kind="regex"))
    m("file.plugins", pl, lambda r: r["plugins"][1]["inputs"][0].update(
        max_bytes=0))
    pr = plan_result()
    m("file.plan", pr, lambda r: r.update(plan="pl_1"))
    m("file.plan", pr, lambda r: r.update(handle=PLAN_ID))
    m("file.plan", pr, lambda r: r.update(size=10))
    m("file.plan", pr, lambda r: r["answers"][0].update(result=2))
    m("file.plan", pr, lambda r: r["answers"][0].update(result=True))
    m("file.plan", pr, lambda r: r["answers"][0].update(error="plugin_error"))
    m("file.plan", pr, lambda r: r["answers"][2].pop("error"))
    m("file.plan", pr, lambda r: r["answers"][2].update(error="crash"))
    m("file.plan", pr, lambda r: r["answers"][0].update(version="x"))
    m("file.plan", pr, lambda r: r.update(held_inputs=["E-mail"]))
    m("file.release", {"released": True}, lambda r: r.update(released=False))
    m("change.request", {"queued": True}, lambda r: r.update(text="x"))
    return out


@pytest.mark.parametrize("case", range(len(mutations())))
def test_results_outside_the_list_fail(wl, case):
    method, r = mutations()[case]
    with pytest.raises(WhitelistError):
        wl.result(method, r)


def test_errors(wl):
    assert wl.error({"error": "E_STALE",
                     "hint": "the file changed since the approval"}) == \
        "E_STALE"
    assert wl.error({"error": "E_ANSWER_CAP", "hint": "the plan would take this agent past its answer cap for the key"}) == "E_ANSWER_CAP"
    assert wl.error({"error": "E_TOO_MANY_PENDING", "hint": "this agent has too many plans waiting for a decision"}) == "E_TOO_MANY_PENDING"
    for code, (_, hint) in OWN.items():
        assert wl.error({"error": code, "hint": hint}) == code
    for bad in ({"error": "E_STALE", "hint": "changed at 12:00"},
                {"error": "E_ANSWER_CAP", "hint": "14 of 32 answers used"},
                {"error": "E_TOO_MANY_PENDING", "hint": "8 of 8 tickets"},
                {"error": "E_NOPE", "hint": "x"},
                {"error": "busy", "hint": "busy"},
                {"error": "E_STALE", "hint": "the file changed since the "
                 "approval", "why": "x"}):
        with pytest.raises(WhitelistError):
            wl.error(bad)


def test_cli_text(wl):
    good = ("plan: %s\nhandle: %s\nanswer fake 1.0.0: 1\n"
            "answer fake 1.0.0: no answer (plugin_error)\n"
            "held inputs: email, x\n" % (PLAN_ID, HANDLE))
    assert wl.cli_text("file.plan", good) == "result"
    for bad in (good + "size: 12\n", good.replace(": 1\n", ": yes\n"),
                good.replace(PLAN_ID, "pl_1"), good[:-1],
                "plan: %s\n/srv/x\n" % PLAN_ID):
        with pytest.raises(WhitelistError):
            wl.cli_text("file.plan", bad)
    plugins = ("plugin fake 1.0.0 (official)\n  question: %s\n"
               "  1 means: %s\n  0 means: %s\n  protocol: 1\n"
               % (TEXTS["question"], TEXTS["one"], TEXTS["zero"]))
    assert wl.cli_text("file.plugins", plugins) == "result"
    with pytest.raises(WhitelistError):
        wl.cli_text("file.plugins", plugins.replace(TEXTS["one"],
                                                    "It is 4 KiB."))
    assert wl.cli_text("file.plan", "", "lockfile: console error: %s\n"
                       % OWN["console error"][1]) == "console error"
    for err in ("lockfile: console error: no such file /srv/a\n",
                "lockfile: E_FETCH_FAILED: missing\n",
                "lockfile: E_FETCH_FAILED: the file could not be fetched\n"
                "extra\n"):
        with pytest.raises(WhitelistError):
            wl.cli_text("file.plan", "", err)


def test_cli_json(wl):
    r = plan_result()
    assert wl.cli_json("file.plan", json.dumps({"result": r}) + "\n") == \
        "result"
    for bad in (json.dumps({"result": r, "size": 1}) + "\n",
                json.dumps({"result": r}) + "\n" + json.dumps({"result": r})
                + "\n", json.dumps({"error": "E_NOPE", "hint": "x"}) + "\n"):
        with pytest.raises(WhitelistError):
            wl.cli_json("file.plan", bad)


def test_mcp(wl):
    r = plan_result()
    text = json.dumps(r, sort_keys=True, separators=(",", ":"))
    ok = {"content": [{"type": "text", "text": text}],
          "structuredContent": r, "isError": False}
    assert wl.mcp_result("plan", ok) == "result"
    bads = []
    for fn in (lambda x: x.update(extra=1),
               lambda x: x["content"].append({"type": "text", "text": "hi"}),
               lambda x: x["content"][0].update(text=text.replace(
                   '"result":1', '"result":0')),
               lambda x: x["structuredContent"].update(size=3),
               lambda x: x.update(isError=True),
               lambda x: x.update(resultType="input_required"),
               lambda x: x["content"][0].update(type="image")):
        b = copy.deepcopy(ok)
        fn(b)
        bads.append(b)
    err = {"content": [{"type": "text", "text": json.dumps(
        {"error": "busy", "hint": OWN["busy"][1]})}], "isError": True}
    assert wl.mcp_result("plan", err) == "busy"
    bads.append(dict(err, structuredContent={}))
    bads.append({"content": [{"type": "text", "text": json.dumps(
        {"error": "busy", "hint": "the console is at /srv"})}],
        "isError": True})
    for b in bads:
        with pytest.raises(WhitelistError):
            wl.mcp_result("plan", b)
    note = {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 1, "progress": 1,
                       "message": PROGRESS_TEXT}}
    wl.mcp_progress(note)
    for fn in (lambda n: n["params"].update(message="approved; fetching"),
               lambda n: n["params"].update(total=3),
               lambda n: n["params"].update(progress=0)):
        b = copy.deepcopy(note)
        fn(b)
        with pytest.raises(WhitelistError):
            wl.mcp_progress(b)


def test_command_form():
    exe = [sys.executable, os.path.join(HERE, "whitelist.py")]
    ok = subprocess.run(exe + ["cli-json", "file.release"],
                        input=b'{"result":{"released":true}}\n',
                        capture_output=True)
    assert ok.returncode == 0 and ok.stdout == b"result\n"
    bad = subprocess.run(exe + ["cli-json", "file.release"],
                         input=b'{"result":{"released":true,"size":1}}\n',
                         capture_output=True)
    assert bad.returncode == 1 and bad.stdout.startswith(b"bad: ")
