"""The CLI and the MCP server against a hostile fake console.

Every answer outside the closed list -- extra keys, a size, a path, a
sha256, an unknown error text, control characters in a plugin question, a
malformed plan id, a status for another profile, a wrong id, two lines, an
oversized line, a slow or dying server, and more -- must come out as
"console error", through the CLI's text and JSON and through MCP, and none
of its bytes may appear anywhere in what the client printed (stdout,
stderr, every MCP line). Every output also passes the whitelist."""
import json
import subprocess
import time

import pytest

from fake_console import (HANDLE, PLAN_ID, FakeConsole, error_line,
                          good_plugin, good_result, good_status, line,
                          result_line)
from mcpdrv import McpServer

ENV = {"PATH": "/usr/bin:/bin"}

PLAN_ARGS = {"profile": "invoices", "key": "2024/a.pdf",
             "plugins": [{"name": "fake"}]}
TARGETS = {
    # name: (CLI args, MCP tool, MCP arguments, method)
    "plan": (["ask", "--profile", "invoices", "--key", "2024/a.pdf",
              "--plugin", "fake"], "plan", PLAN_ARGS, "file.plan"),
    "plan_handle": (["ask", "--handle", HANDLE, "--plugin", "fake"], "plan",
                    {"handle": HANDLE, "plugins": [{"name": "fake"}]},
                    "file.plan"),
    "status": (["status"], "status", {}, "status"),
    "status_profile": (["status", "--profile", "invoices"], "status",
                       {"profile": "invoices"}, "status"),
    "sources": (["sources"], "sources", {}, "sources"),
    "plugins": (["plugins"], "plugins", {}, "file.plugins"),
    "release": (["release", HANDLE], "release", {"handle": HANDLE},
                "file.release"),
    "change": (["request-change", "please add a profile"], "request_change",
               {"text": "please add a profile"}, "change.request"),
}


def good(req):
    return good_result(req["method"], req.get("params"))


def with_result(edit):
    """An answer whose (good) result is changed by edit(result, req)."""
    def answer(req):
        r = good(req)
        new = edit(r, req)
        if isinstance(new, dict):
            r = new
        return [result_line(req, r)]
    return answer


def raw(data_fn):
    def answer(req):
        out = data_fn(req)
        return out if isinstance(out, list) else [out]
    return answer


def setitem(path, value):
    def edit(r, req):
        o = r
        for k in path[:-1]:
            o = o[k]
        o[path[-1]] = value
    return edit


SHA = "ab" * 32
BIG = "A" * 70000

# name: (target, answer for the target's method, status answer or None,
#        strings that must never appear in the client's output)
HOSTILE = {
    "extra key size": ("plan", with_result(setitem(["size"], 48213)), None,
                       ["48213"]),
    "extra key sha256": ("plan", with_result(setitem(["sha256"], SHA)), None,
                         [SHA]),
    "extra key path": ("plan", with_result(
        setitem(["path"], "/srv/lockfile/invoices/2024/a.pdf")), None,
        ["/srv/lockfile", "a.pdf"]),
    "extra key in an answer": ("plan", with_result(
        setitem(["answers", 0, "bytes"], 77123)), None, ["77123"]),
    "a path as plugin name": ("plan", with_result(
        setitem(["answers", 0, "plugin"], "/etc/passwd")), None,
        ["/etc/passwd"]),
    "a sha256 as handle": ("plan", with_result(
        setitem(["handle"], "f_" + SHA)), None, [SHA]),
    "malformed plan id": ("plan", with_result(
        setitem(["plan"], "pl_ABCDEF0123456789ABCDEF0123456789")), None,
        ["pl_ABCDEF"]),
    "counter plan id": ("plan", with_result(setitem(["plan"], "pl_17")), None,
                        ["pl_17"]),
    "handle not the one asked": ("plan_handle", with_result(
        setitem(["handle"], "f_" + "1" * 32)), None, ["f_" + "1" * 32]),
    "answer 2": ("plan", with_result(setitem(["answers", 0, "result"], 2)),
                 None, []),
    "answer true": ("plan", with_result(
        setitem(["answers", 0, "result"], True)), None, []),
    "answer as string": ("plan", with_result(
        setitem(["answers", 0, "result"], "1")), None, []),
    "null without plugin_error": ("plan", with_result(
        setitem(["answers", 0, "result"], None)), None, []),
    "error text in an answer": ("plan", with_result(
        setitem(["answers", 0, "error"], "segfault at /srv/x")), None,
        ["segfault", "/srv/x"]),
    "more answers than plugins": ("plan", with_result(
        lambda r, q: r["answers"].append(dict(r["answers"][0]))), None, []),
    "an answer for another plugin": ("plan", with_result(
        setitem(["answers", 0, "plugin"], "is-secret")), None, ["is-secret"]),
    "held input never named": ("plan", with_result(
        setitem(["held_inputs"], ["ssn"])), None, ["ssn"]),
    "hub pending shape": ("plan", with_result(lambda r, q: {
        "status": "pending", "ticket": "t_" + "2" * 32, "lock": "lockfile",
        "instance": "host-zz9"}), None, ["host-zz9", "t_222"]),
    "unknown error code": ("plan", raw(lambda q: error_line(
        q, "E_FILE_TOO_BIG", -32099, "the file is 9999999 bytes")), None,
        ["E_FILE_TOO_BIG", "9999999"]),
    "listed code, another hint": ("plan", raw(lambda q: error_line(
        q, "E_FETCH_FAILED", -32021, "no such file /srv/x/secret.pdf")),
        None, ["secret.pdf", "/srv/x"]),
    "the cap with its counts": ("plan", raw(lambda q: error_line(
        q, "E_ANSWER_CAP", -32018, "cap 32: uid 1003 has 31 answers about "
        "2024/q.pdf")), None, ["uid 1003", "31 answers", "q.pdf"]),
    "the cap on a method that has none": ("sources", raw(lambda q: error_line(
        q, "E_ANSWER_CAP", -32018, "the plan would take this agent past its answer cap for the key")), None, []),
    "listed code, wrong number": ("plan", raw(lambda q: error_line(
        q, "E_FETCH_FAILED", -32000, "the file could not be fetched")),
        None, []),
    "denial with its reason": ("plan", raw(lambda q: line({
        "jsonrpc": "2.0", "id": q["id"], "error": {
            "code": -32030, "message": "E_APPROVAL_DENIED", "data": {
                "hint": "the human denied the plan",
                "reason": "alice-said-no-9181"}}})), None,
        ["alice-said-no-9181"]),
    "error with errno text": ("plan", raw(lambda q: line({
        "jsonrpc": "2.0", "id": q["id"], "error": {
            "code": -32021, "message": "E_FETCH_FAILED",
            "data": {"hint": "No such file or directory"}}})), None,
        ["No such file"]),
    "error a method may not answer": ("sources", raw(lambda q: error_line(
        q, "E_FETCH_FAILED", -32021, "the file could not be fetched")),
        None, []),
    "result and error": ("plan", raw(lambda q: line({
        "jsonrpc": "2.0", "id": q["id"], "result": good(q),
        "error": {"code": -32021, "message": "E_FETCH_FAILED",
                  "data": {"hint": "the file could not be fetched"}}})),
        None, []),
    "jsonrpc 1.0": ("plan", raw(lambda q: line({
        "jsonrpc": "1.0", "id": q["id"], "result": good(q)})), None, []),
    "extra envelope key": ("plan", raw(lambda q: line({
        "jsonrpc": "2.0", "id": q["id"], "result": good(q),
        "debug": "open /srv/q1.pdf"})), None, ["/srv/q1.pdf"]),
    "wrong id": ("plan", raw(lambda q: result_line(
        dict(q, id=q["id"] + 1), good(q))), None, []),
    "id as string": ("plan", raw(lambda q: result_line(
        dict(q, id=str(q["id"])), good(q))), None, []),
    "id null on a result": ("plan", raw(lambda q: result_line(
        dict(q, id=None), good(q))), None, []),
    "duplicate keys": ("plan", raw(lambda q: (
        '{"jsonrpc":"2.0","id":%d,"result":%s,"result":%s}\n' % (
            q["id"], json.dumps(good(q)), json.dumps(good(q)))).encode()),
        None, []),
    "two lines": ("plan", raw(lambda q: [result_line(q, good(q)) * 2]),
                  None, []),
    "a second line that leaks": ("plan", raw(lambda q: [
        result_line(q, good(q)) + b"size 31337 /srv/leak\n"]), None,
        ["31337", "/srv/leak"]),
    "oversized line": ("plan", with_result(setitem(["x"], BIG)), None,
                       ["A" * 64]),
    "oversized, no newline": ("plan", raw(lambda q: [b"{" + b"B" * 70000]),
                              None, ["B" * 64]),
    "not JSON": ("plan", raw(lambda q: b"open /srv/secret.pdf: 4411 bytes\n"),
                 None, ["/srv/secret.pdf", "4411"]),
    "NUL byte": ("plan", raw(lambda q: result_line(q, good(q))[:10] + b"\x00"
                             + result_line(q, good(q))[10:]), None, []),
    "escaped NUL": ("plan", with_result(
        setitem(["answers", 0, "plugin"], "fa\u0000ke")), None, []),
    "invalid UTF-8": ("plan", raw(lambda q: result_line(q, dict(
        good(q), plan="pl_\xff")).replace(b"\\u00ff", b"\xff")), None, []),
    "deep nesting": ("plan", with_result(setitem(
        ["held_inputs"], json.loads("[" * 40 + "]" * 40))), None, []),
    "trickled line": ("plan", raw(lambda q: [
        result_line(q, good(q))[:20], ("sleep", 3.5),
        result_line(q, good(q))[20:]]), None, []),
    "never closes after the line": ("plan", raw(lambda q: [
        result_line(q, good(q)), ("hold", 4)]), None, []),
    "dies mid-line": ("plan", raw(lambda q: [
        result_line(q, good(q))[:30], "close"]), None, []),
    "dies without a word": ("plan", raw(lambda q: ["close"]), None, []),
    "reset": ("plan", raw(lambda q: [result_line(q, good(q))[:5], "reset"]),
              None, []),
    "status for another profile": ("status_profile", None, lambda q: [
        result_line(q, good_status({"profile": "payroll-77"}))], [
        "payroll-77"]),
    "status naming a profile not asked": ("status", None, lambda q: [
        result_line(q, good_status({"profile": "payroll-77"}))], [
        "payroll-77"]),
    "status with a size": ("status", None, lambda q: [result_line(
        q, dict(good_status(), size=5551234))], ["5551234"]),
    "quantum as a float": ("status", None, lambda q: [result_line(
        q, dict(good_status(), answer_quantum_s=5.0))], []),
    "production as a string": ("status", None, lambda q: [result_line(
        q, dict(good_status(), production="true"))], []),
    "hostile probe before a plan": ("plan", None, lambda q: [result_line(
        q, dict(good_status(), hostname="build-host-3"))], ["build-host-3"]),
    "control characters in a question": ("plugins", with_result(setitem(
        ["plugins", 0, "question"], "Is it a PDF?\x1b[2J\x1b]0;pwned\x07")),
        None, ["\x1b", "pwned"]),
    "bidi override in a question": ("plugins", with_result(setitem(
        ["plugins", 0, "question"], "Is it a PDF\u202e?fdp")), None,
        ["\u202e", "\\u202e", "fdp"]),
    "a question too long": ("plugins", with_result(setitem(
        ["plugins", 0, "question"], "Q" * 201)), None, ["Q" * 50]),
    "official with a warning": ("plugins", with_result(setitem(
        ["plugins", 0, "warning"], "unofficial_marketplace")), None, []),
    "unofficial without warning": ("plugins", with_result(
        lambda r, q: r["plugins"][1].pop("warning")), None, []),
    "a marketplace URL": ("plugins", with_result(setitem(
        ["plugins", 0, "marketplace"], "https://evil.example/idx")), None,
        ["evil.example"]),
    "a version with a suffix": ("plugins", with_result(setitem(
        ["plugins", 0, "version"], "1.0.0-rc1")), None, ["rc1"]),
    "an input kind outside the list": ("plugins", with_result(setitem(
        ["plugins", 1, "inputs", 0, "kind"], "regex")), None, ["regex"]),
    "a profile that is a path": ("sources", with_result(setitem(
        ["sources", 0, "profile"], "../srv/lockfile")), None,
        ["srv/lockfile"]),
    "too many sources": ("sources", with_result(setitem(
        ["sources"], [{"profile": "p%d" % i, "production": False}
                      for i in range(300)])), None, ["p299"]),
    "released false": ("release", with_result(setitem(["released"], False)),
                       None, []),
    "queued with an echo": ("change", with_result(setitem(
        ["text"], "echo /srv/x/y")), None, ["/srv/x/y"]),
}


def run_cli(lockfile_bin, fake, args, json_out=False, timeout=60):
    argv = [lockfile_bin] + args + ["--socket", fake.path]
    if json_out:
        argv.append("--json")
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, env=ENV)
    return p, time.monotonic() - t0


def no_leak(outputs, markers):
    blob = b"".join(outputs)
    for m in markers:
        assert m.encode("utf-8", "surrogatepass") not in blob, \
            "leaked %r" % m
    assert b"\x1b" not in blob


def mcp_call(lockfile_bin, fake, tool, args, modern=False, token=None,
             wait=10):
    s = McpServer([lockfile_bin, "mcp", "--socket", fake.path, "--wait",
                   str(wait)], env=ENV)
    try:
        if modern:
            s.modern = True
        else:
            s.initialize()
        resp, notes = s.tool(tool, args, token=token, timeout=60)
    finally:
        rc = s.close()
    assert rc == 0, s.stderr
    return s, resp, notes


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_is_console_error(lockfile_bin, wl, name):
    target, answer, status, markers = HOSTILE[name]
    args, tool, targs, method = TARGETS[target]
    fake = FakeConsole(answer=answer, status=status)
    try:
        p, _ = run_cli(lockfile_bin, fake, args)
        assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
        assert p.stdout == b""
        assert wl.cli_text(method, p.stdout, p.stderr) == "console error"
        no_leak([p.stdout, p.stderr], markers)

        pj, _ = run_cli(lockfile_bin, fake, args, json_out=True)
        assert pj.returncode == 2, (pj.stdout, pj.stderr)
        assert pj.stderr == b""
        assert wl.cli_json(method, pj.stdout) == "console error"
        no_leak([pj.stdout, pj.stderr], markers)

        for modern in (False, True):
            s, resp, notes = mcp_call(lockfile_bin, fake, tool, targs,
                                      modern=modern, token=5)
            res = resp["result"]
            assert wl.mcp_result(tool, res) == "console error"
            for n in notes:
                wl.mcp_progress(n)
            no_leak(s.lines + [s.stderr], markers)
    finally:
        fake.stop()


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_good_answers_pass_the_whitelist(lockfile_bin, wl, target):
    args, tool, targs, method = TARGETS[target]
    fake = FakeConsole()
    try:
        p, _ = run_cli(lockfile_bin, fake, args)
        assert p.returncode == 0, p.stderr
        assert p.stderr == b""
        assert wl.cli_text(method, p.stdout, p.stderr) == "result"
        pj, _ = run_cli(lockfile_bin, fake, args, json_out=True)
        assert pj.returncode == 0
        assert wl.cli_json(method, pj.stdout) == "result"
        got = json.loads(pj.stdout)["result"]
        # what the fake sent is what the client passed on, exactly
        sent = [r for r in fake.requests if r and r["method"] == method][-1]
        assert got == good_result(method, sent.get("params"))
        for modern in (False, True):
            _, resp, _ = mcp_call(lockfile_bin, fake, tool, targs,
                                  modern=modern)
            assert wl.mcp_result(tool, resp["result"]) == "result"
            assert resp["result"]["structuredContent"] == got
            assert ("resultType" in resp["result"]) == modern
    finally:
        fake.stop()


def test_cli_text_shows_the_checked_values(lockfile_bin, wl):
    fake = FakeConsole()
    try:
        p, _ = run_cli(lockfile_bin, fake, [
            "ask", "--profile", "invoices", "--key", "2024/a.pdf",
            "--plugin", "fake", "--plugin", "fake@1.0.0",
            "--plugin", "fake-two:needle=${email}"])
        assert p.returncode == 0
        assert p.stdout.decode() == (
            "plan: %s\nhandle: %s\n"
            "answer fake 1.0.0: 1\nanswer fake 1.0.0: 0\n"
            "answer fake-two 1.0.0: no answer (plugin_error)\n"
            "held inputs: email\n" % (PLAN_ID, HANDLE))
        sent = [r for r in fake.requests if r and r["method"] == "file.plan"]
        assert sent[0]["params"] == {
            "profile": "invoices", "key": "2024/a.pdf", "plugins": [
                {"name": "fake"}, {"name": "fake", "version": "1.0.0"},
                {"name": "fake-two", "inputs": {"needle": "${email}"}}]}
        p, _ = run_cli(lockfile_bin, fake, ["plugins"])
        out = p.stdout.decode()
        assert "plugin fake-two 1.0.0 (unofficial_marketplace)\n" in out
        assert "  input needle: text, at most 64 bytes\n" in out
        assert "  question: Is the file a fake?\n" in out
        p, _ = run_cli(lockfile_bin, fake, ["status", "--profile", "invoices"])
        assert p.stdout.decode().splitlines()[:3] == [
            "console: up", "profile: invoices", "production: no"]
        assert "plugin protocols: 1, 2" in p.stdout.decode()
        p, _ = run_cli(lockfile_bin, fake, ["sources"])
        assert p.stdout.decode() == ("profile invoices (production)\n"
                                     "profile scratch\n")
    finally:
        fake.stop()


def test_exit_status_never_depends_on_the_answer(lockfile_bin, wl):
    outs = {}
    for bit in (1, 0, None):
        def answer(req, bit=bit):
            r = good(req)
            r["answers"][0]["result"] = bit
            r["answers"][0].pop("error", None)
            if bit is None:
                r["answers"][0]["error"] = "plugin_error"
            return [result_line(req, r)]
        fake = FakeConsole(answer=answer)
        try:
            p, _ = run_cli(lockfile_bin, fake, TARGETS["plan"][0])
            pj, _ = run_cli(lockfile_bin, fake, TARGETS["plan"][0], True)
            outs[bit] = (p.returncode, pj.returncode)
            assert wl.cli_text("file.plan", p.stdout, p.stderr) == "result"
        finally:
            fake.stop()
    assert outs[1] == outs[0] == outs[None] == (0, 0)


def test_listed_errors_pass_through_with_their_hint(lockfile_bin, wl):
    for name, code, hint in [
            ("E_APPROVAL_DENIED", -32030, "the human denied the plan"),
            ("E_FETCH_FAILED", -32021, "the file could not be fetched"),
            ("E_ANSWER_CAP", -32018, "the plan would take this agent past its answer cap for the key")]:
        fake = FakeConsole(answer=raw(lambda q: error_line(q, name, code,
                                                           hint)))
        try:
            p, _ = run_cli(lockfile_bin, fake, TARGETS["plan"][0])
            assert p.returncode == 1
            assert p.stderr.decode() == "lockfile: %s: %s\n" % (name, hint)
            assert wl.cli_text("file.plan", p.stdout, p.stderr) == name
            pj, _ = run_cli(lockfile_bin, fake, TARGETS["plan"][0], True)
            assert json.loads(pj.stdout) == {"error": name, "hint": hint}
            _, resp, _ = mcp_call(lockfile_bin, fake, "plan", PLAN_ARGS)
            assert wl.mcp_result("plan", resp["result"]) == name
        finally:
            fake.stop()
    # E_BAD_REQUEST and E_PEER_REFUSED may come with id null, others not
    fake = FakeConsole(answer=raw(lambda q: error_line(
        q, "E_PEER_REFUSED", -32001, "this account may not use the console",
        rid=None)))
    fake2 = FakeConsole(answer=raw(lambda q: line({
        "jsonrpc": "2.0", "id": None, "error": {
            "code": -32021, "message": "E_FETCH_FAILED",
            "data": {"hint": "the file could not be fetched"}}})))
    try:
        p, _ = run_cli(lockfile_bin, fake, ["sources"])
        assert p.returncode == 1 and b"E_PEER_REFUSED" in p.stderr
        p, _ = run_cli(lockfile_bin, fake2, TARGETS["plan"][0])
        assert p.returncode == 2
    finally:
        fake.stop()
        fake2.stop()


def test_busy_when_the_probe_gets_no_answer(lockfile_bin, wl):
    fake = FakeConsole(status=lambda q: [("hold", 6)])
    try:
        for args, method in ((["status"], "status"),
                             (TARGETS["plan"][0], "file.plan"),
                             (["sources"], "sources")):
            p, secs = run_cli(lockfile_bin, fake, args)
            assert p.returncode == 3, p.stderr
            assert wl.cli_text(method, p.stdout, p.stderr) == "busy"
            assert 1.5 < secs < 5
        # the plan itself never reached the console
        assert not [r for r in fake.requests if r and
                    r["method"] == "file.plan"]
        _, resp, _ = mcp_call(lockfile_bin, fake, "plan", PLAN_ARGS)
        assert wl.mcp_result("plan", resp["result"]) == "busy"
    finally:
        fake.stop()


def test_timeout_when_a_plan_outlasts_the_wait(lockfile_bin, wl):
    fake = FakeConsole(answer=raw(lambda q: [("hold", 8)]))
    try:
        p, secs = run_cli(lockfile_bin, fake, TARGETS["plan"][0] +
                          ["--wait", "2"])
        assert p.returncode == 5
        assert wl.cli_text("file.plan", p.stdout, p.stderr) == "timeout"
        assert 1.5 < secs < 6
        _, resp, _ = mcp_call(lockfile_bin, fake, "plan", PLAN_ARGS, wait=2)
        assert wl.mcp_result("plan", resp["result"]) == "timeout"
    finally:
        fake.stop()


def test_a_plan_waits_past_the_probe_timeout(lockfile_bin, wl):
    """Waiting for a human is not an error: a plan answered after 4 s (well
    past the 2 s probe) is an answer."""
    fake = FakeConsole(answer=lambda q: [("sleep", 4), result_line(q, good(q))])
    try:
        p, secs = run_cli(lockfile_bin, fake, TARGETS["plan"][0])
        assert p.returncode == 0 and secs > 3.5
        assert wl.cli_text("file.plan", p.stdout, p.stderr) == "result"
    finally:
        fake.stop()


def test_unreachable(lockfile_bin, wl, tmp_path):
    for args, method in ((["status"], "status"), (TARGETS["plan"][0],
                                                  "file.plan")):
        p = subprocess.run([lockfile_bin] + args + [
            "--socket", str(tmp_path / "none.sock")], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=ENV, timeout=30)
        assert p.returncode == 4
        assert wl.cli_text(method, p.stdout, p.stderr) == "unreachable"


def test_busy_when_the_backlog_is_full(lockfile_bin, wl, tmp_path):
    """A console that accepts nothing while its listen queue is full:
    connect() says EAGAIN, the client retries until the probe's 2 s, then
    reports busy."""
    import socket
    path = str(tmp_path / "full.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(0)
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    filler.connect(path)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.setblocking(False)
    try:
        with pytest.raises(BlockingIOError):
            probe.connect(path)         # the queue is indeed full
        t0 = time.monotonic()
        p = subprocess.run([lockfile_bin, "sources", "--socket", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=ENV, timeout=30)
        secs = time.monotonic() - t0
        assert p.returncode == 3, p.stderr
        assert wl.cli_text("sources", p.stdout, p.stderr) == "busy"
        assert 1.5 < secs < 5
    finally:
        probe.close()
        filler.close()
        srv.close()


@pytest.mark.parametrize("total,ok", [(65536, True), (65537, False)])
def test_the_line_limit_is_exact(lockfile_bin, wl, total, ok):
    """At most 64 KiB with the newline (docs/protocol.md), to the byte:
    the same good answer padded with JSON whitespace."""
    def answer(q):
        body = result_line(q, good(q))[:-1]
        pad = total - len(body) - 1
        return [body[:-1] + b" " * pad + body[-1:] + b"\n"]
    fake = FakeConsole(answer=answer)
    try:
        p, _ = run_cli(lockfile_bin, fake, ["sources"])
        assert p.returncode == (0 if ok else 2), p.stderr
        assert wl.cli_text("sources", p.stdout, p.stderr) == \
            ("result" if ok else "console error")
    finally:
        fake.stop()
