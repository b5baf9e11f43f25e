"""The CLI's flags: --help for every command, strict parsing of what the
agent types (usage errors exit 64 and send nothing), the socket from the
flag or $LOCKFILE_SOCKET."""
import subprocess

import pytest

from fake_console import HANDLE, PLAN_ID, FakeConsole

COMMANDS = ["status", "sources", "plugins", "ask", "plan", "run", "release",
            "request-change", "mcp"]


def run(lockfile_bin, args, env=None):
    return subprocess.run([lockfile_bin] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          env=env or {"PATH": "/usr/bin:/bin"}, timeout=30)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help(lockfile_bin, cmd):
    p = run(lockfile_bin, [cmd, "--help"])
    assert p.returncode == 0
    out = p.stdout.decode()
    name = "ask" if cmd == "plan" else cmd
    assert out.startswith("usage: lockfile %s" % name)
    assert "--socket PATH" in out
    if cmd != "mcp":
        assert "Exit status: 0 answered" in out and "--json" in out


def test_help_lists_the_agent_commands(lockfile_bin):
    out = run(lockfile_bin, ["help"]).stdout.decode()
    for c in COMMANDS:
        assert "\n  %-16s agent " % c in out


BAD = [
    ["status", "--profile", "Has Space"], ["status", "extra"],
    ["status", "--nope"], ["sources", "x"], ["plugins", "--profile", "a"],
    ["ask"], ["ask", "--profile", "p", "--key", "k"],
    ["ask", "--profile", "p", "--plugin", "is-pdf"],
    ["ask", "--key", "k", "--plugin", "is-pdf"],
    ["ask", "--profile", "p", "--key", "k", "--handle", HANDLE,
     "--plugin", "is-pdf"],
    ["ask", "--handle", "f_123", "--plugin", "is-pdf"],
    ["ask", "--handle", HANDLE, "--plugin", "Is-PDF"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf@1.0"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf@01.0.0"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf@"],
    ["ask", "--handle", HANDLE, "--plugin", "contains:needle"],
    ["ask", "--handle", HANDLE, "--plugin", "contains:Needle=${x}"],
    ["ask", "--handle", HANDLE, "--plugin", "contains:a=${x},a=${y}"],
    ["ask", "--handle", HANDLE, "--plugin", "contains:needle="],
    ["ask", "--handle", HANDLE, "--plugin", "contains:" +
     ",".join("i%d=${x}" % i for i in range(9))],
    ["ask", "--handle", HANDLE] + ["--plugin", "is-pdf"] * 65,
    ["ask", "--profile", "p", "--key", "k" * 1025, "--plugin", "is-pdf"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf", "--wait", "0"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf", "--wait", "12x"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf", "--wait", "-3"],
    ["ask", "--handle", HANDLE, "--plugin", "is-pdf", "stray"],
    ["run"], ["run", "pl_xyz"], ["run", PLAN_ID, PLAN_ID],
    ["release"], ["release", "f_" + "A" * 32], ["request-change"],
    ["request-change", ""], ["request-change", "t" * 4097],
    ["request-change", "a", "b"],
    ["sources", "--socket", "relative.sock"],
    ["sources", "--socket", "/" + "s" * 120],
]


def test_usage_errors_send_nothing(lockfile_bin):
    fake = FakeConsole()
    try:
        for args in BAD:
            p = run(lockfile_bin, args + ["--socket", fake.path]
                    if "--socket" not in args else args)
            assert p.returncode == 64, (args, p.stderr)
            assert p.stdout == b""
            err = p.stderr.decode()
            assert err.count("\n") == 1 and "(see lockfile " in err, err
        assert fake.requests == []
    finally:
        fake.stop()


def test_usage_errors_never_echo_the_agent_text(lockfile_bin):
    p = run(lockfile_bin, ["ask", "--profile", "invoices", "--key", "k",
                           "--plugin", "\x1b[31mEVIL"])
    assert p.returncode == 64
    assert b"\x1b" not in p.stderr and b"EVIL" not in p.stderr
    for args in (["status", "--\x1b[31mEVIL"], ["ask", "-\x1bEVIL"],
                 ["mcp", "--\x1b[2JEVIL"], ["release", "f_\x1b[31mEVIL"]):
        p = run(lockfile_bin, args)
        assert p.returncode == 64, args
        assert b"\x1b" not in p.stderr + p.stdout
        assert b"EVIL" not in p.stderr + p.stdout


def test_socket_from_environment(lockfile_bin, wl):
    fake = FakeConsole()
    try:
        env = {"PATH": "/usr/bin:/bin", "LOCKFILE_SOCKET": fake.path}
        p = run(lockfile_bin, ["sources"], env=env)
        assert p.returncode == 0
        assert wl.cli_text("sources", p.stdout, p.stderr) == "result"
        # the flag wins over the environment
        env["LOCKFILE_SOCKET"] = "/nonexistent/lockfile.sock"
        p = run(lockfile_bin, ["sources", "--socket", fake.path], env=env)
        assert p.returncode == 0
        p = run(lockfile_bin, ["sources"], env=env)
        assert p.returncode == 4
    finally:
        fake.stop()


def test_placeholders_and_pins_are_sent_as_written(lockfile_bin):
    fake = FakeConsole()
    try:
        p = run(lockfile_bin, [
            "plan", "--handle", HANDLE, "--plugin",
            "contains@2.3.4:needle=${email},other=${x_2}",
            "--socket", fake.path, "--json"])
        assert p.returncode == 0, p.stderr
        sent = [r for r in fake.requests if r["method"] == "file.plan"][0]
        assert sent["params"] == {"handle": HANDLE, "plugins": [{
            "name": "contains", "version": "2.3.4",
            "inputs": {"needle": "${email}", "other": "${x_2}"}}]}
        assert sent["jsonrpc"] == "2.0" and isinstance(sent["id"], int)
        # the probe came first, on its own connection
        assert [r["method"] for r in fake.requests] == ["status", "file.plan"]
        assert "params" not in fake.requests[0]
    finally:
        fake.stop()


def test_the_client_never_includes_the_console():
    """The agent's side is built from the protocol and the library only."""
    import glob
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    files = glob.glob(os.path.join(root, "src", "client", "*.[ch]"))
    assert len(files) >= 10
    for f in files:
        with open(f) as fh:
            for inc in re.findall(r'#include\s+"([^"]+)"', fh.read()):
                assert inc.split("/")[0] in ("client", "protocol", "lib") or \
                    inc == "config.h", (f, inc)
    with open(os.path.join(root, "src", "client", "meson.build")) as fh:
        assert "lib_console" not in fh.read()


def test_input_shorthand_binds_the_only_input(lockfile_bin, wl):
    """`:input=${x}` binds a plugin's only input whatever its name (the CLI
    reads the names from file.plugins first); an explicit name is sent as
    written, and so is "input" for a plugin the listing does not have."""
    fake = FakeConsole()
    try:
        p = run(lockfile_bin, [
            "ask", "--handle", HANDLE, "--plugin", "fake-two:input=${email}",
            "--plugin", "nosuch:input=${x}", "--plugin", "fake",
            "--socket", fake.path])
        assert p.returncode == 0, p.stderr
        assert wl.cli_text("file.plan", p.stdout, p.stderr) == "result"
        assert [r["method"] for r in fake.requests] == [
            "status", "file.plugins", "status", "file.plan"]
        assert fake.requests[-1]["params"]["plugins"] == [
            {"name": "fake-two", "inputs": {"needle": "${email}"}},
            {"name": "nosuch", "inputs": {"input": "${x}"}},
            {"name": "fake"}]
        # without the shorthand, no listing is asked for
        fake.requests.clear()
        run(lockfile_bin, ["ask", "--handle", HANDLE, "--plugin",
                           "fake-two:needle=${email}", "--socket", fake.path])
        assert [r["method"] for r in fake.requests] == ["status",
                                                        "file.plan"]
    finally:
        fake.stop()


def test_input_shorthand_when_the_listing_fails(lockfile_bin, wl):
    from fake_console import error_line
    fake = FakeConsole(answer=lambda q: [b"garbage /srv/x\n"]
                       if q["method"] == "file.plugins" else
                       [error_line(q, "E_FETCH_FAILED", -32021,
                                   "the file could not be fetched")])
    try:
        p = run(lockfile_bin, ["ask", "--handle", HANDLE, "--plugin",
                               "contains:input=${email}", "--socket",
                               fake.path])
        assert p.returncode == 2
        assert wl.cli_text("file.plugins", p.stdout, p.stderr) == \
            "console error"
        assert "file.plan" not in [r["method"] for r in fake.requests]
    finally:
        fake.stop()
