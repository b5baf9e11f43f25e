"""One executable per role (docs/hacking.md, "Executables"), checked on the
build as it is: what each links, that `lockfile` forwards the console-side
commands to the executable beside it (never one on PATH), and that the
console refuses a parser worker another account could replace.

Run as root (the console's refusals run as the console account `lockfile`,
which tests/setup-accounts.sh creates). BUILD is the build directory.
"""
import os
import shutil
import stat
import subprocess
import tempfile

import pytest

from lftest import setpriv

BUILD = os.environ.get("BUILD", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "build"))
EXES = ("lockfile", "lockfile-console", "lockfile-parse-worker",
        "lockfile-sandbox-run")
# What the process that parses hostile bytes, and the agent's own
# executable, must not have: the network and crypto libraries and the
# console's code. Symbol prefixes (a static PIE) and library names (a
# dynamic, sanitized build).
HEAVY_SYMBOLS = ("curl_", "ssh_", "EVP_", "SSL_", "sodium_", "sqlite3_",
                 "OPENSSL_", "uspoof_", "unorm2_", "render_key_")
HEAVY_LIBS = ("libcurl", "libssh", "libcrypto", "libssl", "libsodium",
              "libsqlite3", "libicu")
# One entry point of each module above them (src/console, src/store,
# src/sigstore, src/update, src/sources, the sandbox's spawn).
CONSOLE_SYMBOLS = ("cmd_console", "cmd_plugin", "cmd_doctor", "cmd_update",
                   "cmd_verify_bundle", "sandbox_run", "plan_run",
                   "request_validate")


def exe(name):
    return os.path.join(BUILD, name)


def run(argv, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("timeout", 60)
    return subprocess.run(argv, **kw)


def needed(path):
    out = run(["readelf", "-d", path]).stdout.decode()
    return [line.split("[", 1)[1].split("]", 1)[0]
            for line in out.splitlines() if "(NEEDED)" in line]


def defined_symbols(path):
    out = run(["nm", "--defined-only", path]).stdout.decode()
    return {line.split()[-1] for line in out.splitlines()
            if len(line.split()) == 3}


def is_static(path):
    return needed(path) == []


def sanitized():
    return any("libasan" in n or "libubsan" in n
               for n in needed(exe("lockfile-console")))


@pytest.mark.parametrize("name", EXES)
def test_every_executable_is_built(name):
    st = os.stat(exe(name))
    assert stat.S_ISREG(st.st_mode) and st.st_mode & 0o111


def test_the_console_links_what_it_needs():
    libs = needed(exe("lockfile-console"))
    for lib in ("libcurl", "libssh", "libcrypto", "libsodium"):
        assert any(n.startswith(lib) for n in libs), (lib, libs)


@pytest.mark.parametrize("name", ["lockfile", "lockfile-parse-worker"])
def test_agent_and_worker_link_nothing_heavy(name):
    path = exe(name)
    if is_static(path):
        syms = defined_symbols(path)
        assert "json_loadb" in syms or "json_loads" in syms  # jansson is in
        for pre in HEAVY_SYMBOLS:
            found = sorted(s for s in syms if s.startswith(pre))
            assert not found, (name, pre, found[:5])
        for sym in CONSOLE_SYMBOLS:
            assert sym not in syms, (name, sym)
        # Each has its own role's code: the client's commands, the parser.
        assert ("cmd_client_status" if name == "lockfile"
                else "request_parse") in syms
    else:
        libs = needed(path)
        assert any(n.startswith("libjansson") for n in libs), libs
        for lib in HEAVY_LIBS:
            assert not any(n.startswith(lib) for n in libs), (name, lib, libs)


def test_sandbox_run_links_no_network_library():
    path = exe("lockfile-sandbox-run")
    if is_static(path):
        syms = defined_symbols(path)
        assert "seccomp_init" in syms and "sandbox_run" in syms
        for pre in ("curl_", "ssh_", "sqlite3_", "json_", "sodium_"):
            assert not [s for s in syms if s.startswith(pre)], pre
        for sym in ("cmd_console", "cmd_plugin", "cmd_client_status",
                    "request_parse", "plan_run"):
            assert sym not in syms, sym
    else:
        libs = needed(path)
        for lib in ("libcurl", "libssh", "libjansson", "libsqlite3"):
            assert not any(n.startswith(lib) for n in libs), (lib, libs)


def test_a_plain_build_links_three_statically():
    # A sanitizer runtime cannot be linked statically: such a build links
    # every executable dynamically (docs/hacking.md), the same code.
    for name in ("lockfile", "lockfile-parse-worker", "lockfile-sandbox-run"):
        assert is_static(exe(name)) != sanitized(), name
        # A static PIE: its addresses still move with ASLR.
        hdr = run(["readelf", "-h", exe(name)]).stdout.decode()
        assert "DYN (" in hdr, name


@pytest.mark.parametrize("args,target", [
    (["doctor", "--help"], ["lockfile-console", "doctor", "--help"]),
    (["plugin", "--help"], ["lockfile-console", "plugin", "--help"]),
    (["verify-bundle", "--help"], ["lockfile-console", "verify-bundle",
                                   "--help"]),
    (["sandbox-run", "--help"], ["lockfile-sandbox-run", "--help"]),
])
def test_console_side_commands_are_forwarded(args, target):
    a = run([exe("lockfile")] + args)
    b = run([exe(target[0])] + target[1:])
    assert a.returncode == b.returncode
    assert a.stdout == b.stdout and a.stdout != b""
    assert a.stderr == b.stderr


def test_agent_commands_are_not_in_the_console_executable():
    r = run([exe("lockfile-console"), "status"])
    assert r.returncode == 64
    assert b"unknown command" in r.stderr


@pytest.fixture
def alone():
    d = tempfile.mkdtemp(prefix="lf-exe-")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d)


def test_a_lockfile_alone_runs_agent_commands_and_names_what_is_missing(alone):
    path = os.path.join(alone, "lockfile")
    shutil.copy(exe("lockfile"), path)
    r = run([path, "--version"])
    assert r.returncode == 0 and r.stdout.startswith(b"lockfile ")
    # A lockfile-console on PATH is never the one run.
    fake = os.path.join(alone, "path")
    os.mkdir(fake)
    with open(os.path.join(fake, "lockfile-console"), "w") as f:
        f.write("#!/bin/sh\necho FROM-PATH\n")
    os.chmod(os.path.join(fake, "lockfile-console"), 0o755)
    env = dict(os.environ, PATH=fake + ":/usr/bin:/bin")
    for cmd, missing in (("doctor", "lockfile-console"),
                         ("sandbox-run", "lockfile-sandbox-run")):
        r = run([path, cmd, "--help"], env=env)
        assert r.returncode == 69, (cmd, r)
        assert b"FROM-PATH" not in r.stdout
        assert (missing + ": it is not installed beside this lockfile"
                ).encode() in r.stderr, r.stderr


def test_the_sibling_beside_it_is_the_one_run(alone):
    # Control for the test above: the same layout with the executable
    # present runs it.
    path = os.path.join(alone, "lockfile")
    shutil.copy(exe("lockfile"), path)
    with open(os.path.join(alone, "lockfile-console"), "w") as f:
        f.write("#!/bin/sh\necho BESIDE $$ \"$0\" \"$@\"\n")
    os.chmod(os.path.join(alone, "lockfile-console"), 0o755)
    p = subprocess.Popen([path, "doctor", "--json", "a b"],
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    out, _ = p.communicate(timeout=30)
    assert p.returncode == 0
    # The same process (exec, not fork: a console started as `lockfile
    # console` is the pid its launcher started), its arguments unchanged.
    assert out.decode().rstrip("\n").split(" ", 4) == [
        "BESIDE", str(p.pid), os.path.join(alone, "lockfile-console"),
        "doctor", "--json a b"]


def test_the_worker_refuses_to_run_without_its_socket():
    r = run([exe("lockfile-parse-worker")])
    assert r.returncode != 0
    assert b"started by the console only" in r.stderr


def console_as_account(d, home):
    """lockfile-console console from directory d, as the console account,
    its stderr (it fails before it needs a terminal or a policy)."""
    r = run(setpriv("lockfile") + [os.path.join(d, "lockfile-console"),
                                   "console", "--home", home], timeout=30)
    return r.returncode, r.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("case", ["group-writable", "other-writable",
                                  "not-root", "missing", "control"])
def test_the_console_refuses_a_worker_another_account_could_replace(case,
                                                                    alone):
    for name in ("lockfile-console", "lockfile-parse-worker"):
        shutil.copy(exe(name), os.path.join(alone, name))
        os.chmod(os.path.join(alone, name), 0o755)
    home = os.path.join(alone, "home")
    os.mkdir(home, 0o700)
    shutil.chown(home, "lockfile", "lockfile")
    worker = os.path.join(alone, "lockfile-parse-worker")
    if case == "group-writable":
        os.chmod(worker, 0o775)
    elif case == "other-writable":
        os.chmod(worker, 0o757)
    elif case == "not-root":
        shutil.chown(worker, "lockfile", "lockfile")
    elif case == "missing":
        os.unlink(worker)
    rc, err = console_as_account(alone, home)
    assert rc != 0, err
    refusal = ("lockfile-parse-worker beside it is not root's or is "
               "writable by others")
    if case == "control":
        assert refusal not in err, err
        assert "lockfile-parse-worker" not in err, err
    elif case == "missing":
        assert "lockfile-parse-worker (install every executable" in err, err
    else:
        assert refusal in err, err
