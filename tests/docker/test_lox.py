"""lox without an engine: the docker command lines it builds (--dry-run
prints them instead of running docker) and everything it refuses.

Each refusal is checked against the same command without the refused part,
which lox accepts: the refusal is the flag's, not the command's.
"""
import json
import re
import os
import shlex
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
LOX = os.environ.get("LOX") or os.path.join(BUILD, "src", "lox", "lox")
PROFILE = os.path.join(ROOT, "docker", "seccomp.json")
# The image IDs docker/build-images.sh records (docs/docker.md, "Images by
# ID"): a record of the tests' own, read through $LOX_IMAGES.
CONSOLE_ID = "sha256:" + "c" * 64
AGENT_ID = "sha256:" + "a" * 64
OTHER_ID = "sha256:" + "0123456789abcdef" * 4
RECORD_DIR = tempfile.mkdtemp(prefix="lf-lox-images-")
RECORD = os.path.join(RECORD_DIR, "images")
with open(RECORD, "w") as f:
    f.write("console %s\nagent %s\n" % (CONSOLE_ID, AGENT_ID))
os.chmod(RECORD, 0o644)


@pytest.fixture(scope="module")
def tmp():
    d = tempfile.mkdtemp(prefix="lf-lox-")
    os.makedirs(os.path.join(d, "src", "invoices"))
    yield d
    subprocess.run(["rm", "-rf", d])


def lox(*args, env=None, stdin=subprocess.DEVNULL):
    e = {"PATH": "/usr/bin:/bin", "LOX_SECCOMP": PROFILE,
         "LOX_DOCKER": "/nonexistent/docker", "LOX_IMAGES": RECORD,
         "ASAN_OPTIONS": "detect_leaks=1:exitcode=99",
         "UBSAN_OPTIONS": "halt_on_error=1:exitcode=98"}
    e.update(env or {})
    r = subprocess.run([LOX] + list(args), stdin=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e, timeout=30)
    assert r.returncode not in (98, 99), r.stderr
    assert b"Sanitizer" not in r.stderr and b"runtime error" not in r.stderr
    return r


def dry(*args, **kw):
    r = lox("--dry-run", *args, **kw)
    assert r.returncode == 0, r.stderr
    return shlex.split(r.stdout.decode())


def test_help_says_docker_access_is_operator_access():
    r = lox("--help")
    assert r.returncode == 0
    text = r.stdout.decode()
    assert "WHOEVER CAN RUN DOCKER COMMANDS ON THIS HOST IS AN OPERATOR" in text
    for cmd in ("run", "attach", "agent", "doctor", "policy", "plugin"):
        assert "lox %s " % cmd in text
    assert lox().returncode == 64
    assert lox("nosuch").returncode == 64


def test_run_builds_the_hardened_line(tmp):
    src = os.path.join(tmp, "src", "invoices")
    argv = dry("run", "--source", "invoices=" + src)
    assert re.fullmatch(r"seccomp=/dev/fd/\d+", argv[18]), argv
    assert argv[:18] + ["seccomp"] + argv[19:] == [
        "/nonexistent/docker", "run", "-it", "--rm", "--name",
        "lockfile-console", "--detach-keys", "ctrl-],ctrl-]", "--init",
        "--pull", "never",
        "--user", "lockfile", "--cap-drop", "ALL", "--security-opt",
        "no-new-privileges", "--security-opt", "seccomp",
        "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,noexec,size=16m",
        "--pids-limit", "256", "--memory", "1g", "--ulimit", "core=1",
        "--log-driver", "none", "--network", "none",
        "--volume", "lockfile-home:/home/lockfile",
        "--volume", "lockfile-run:/run/lockfile",
        "--mount", "type=bind,source=%s,target=/srv/lockfile/invoices,"
        "readonly" % src, CONSOLE_ID], argv


def test_run_instance_image_network_and_passed_options(tmp):
    argv = dry("run", "--instance", "b2", "--network", OTHER_ID, "--",
               "--cpus", "2", "--memory=2g", "--label", "k=v")
    assert "lockfile-b2-console" in argv
    assert "lockfile-b2-home:/home/lockfile" in argv
    assert "lockfile-b2-run:/run/lockfile" in argv
    assert "none" not in argv[argv.index("--log-driver") + 2:]
    assert argv[-7:] == ["--cpus", "2", "--memory", "2g", "--label", "k=v",
                         OTHER_ID], argv


UNSAFE = [
    ["--pid=host"], ["--pid", "host"], ["--pid=container:lockfile-console"],
    ["--ipc=host"], ["--ipc", "host"], ["--uts=host"], ["--cgroupns=host"],
    ["--userns=host"], ["--userns", "host"],
    ["--privileged"], ["--privileged=true"],
    ["--cap-add", "ALL"], ["--cap-add=SYS_PTRACE"],
    ["--security-opt", "seccomp=unconfined"],
    ["--security-opt=seccomp=unconfined"],
    ["--security-opt", "seccomp:unconfined"],
    ["--security-opt", "apparmor=unconfined"],
    ["--security-opt", "no-new-privileges=false"],
    ["-v", "/var/run/docker.sock:/var/run/docker.sock"],
    ["--volume=/run/docker.sock:/docker.sock"],
    ["--mount", "type=bind,source=/var/run/docker.sock,target=/d.sock"],
    ["--volumes-from", "other"], ["--device", "/dev/mem"],
    ["--user", "root"], ["-u", "0"], ["--group-add", "0"],
    ["--network", "host"], ["--net=host"],
    ["--log-driver", "json-file"], ["--log-opt", "max-size=1m"],
    ["-e", "LD_PRELOAD=/tmp/x.so"], ["--env", "DISPLAY=:0"],
    ["--env-file", "/etc/passwd"], ["--entrypoint", "sh"],
    ["--runtime", "runc"], ["--sysctl", "kernel.x=1"],
    ["--tmpfs", "/home/lockfile"], ["--detach"], ["-d"], ["-itd"],
    ["--nosuch"], ["sh"], ["--cpus"], ["--cpus", "--privileged"],
]


@pytest.mark.parametrize("extra", UNSAFE, ids=lambda e: " ".join(e))
def test_run_refuses_unsafe_options(extra):
    assert dry("run", "--", "--cpus", "1")      # the line without it passes
    r = lox("--dry-run", "run", "--", *extra)
    assert r.returncode == 64, r.stderr
    assert r.stdout == b"", "a docker line was built: %r" % r.stdout
    assert b"lox: refused: " in r.stderr, r.stderr


@pytest.mark.parametrize("opt", ["--privileged", "--pid=host",
                                 "--cap-add=ALL", "-v"])
def test_run_refuses_docker_options_before_the_separator(opt):
    r = lox("--dry-run", "run", opt)
    assert r.returncode == 64 and r.stdout == b"" and b"refused" in r.stderr


def test_run_refuses_sources_that_give_the_engine_or_the_host(tmp):
    sock_dir = os.path.join(tmp, "engine")
    os.makedirs(sock_dir, exist_ok=True)
    env = {"DOCKER_HOST": "unix://" + os.path.join(sock_dir, "docker.sock")}
    assert dry("run", "--source", "ok=" + os.path.join(tmp, "src"), env=env)
    for spec in ("x=/", "x=/var/run", "x=/run", "x=/var", "x=/proc",
                 "x=/sys/fs", "x=/dev", "x=/var/lib", "x=" + sock_dir,
                 "x=" + tmp):
        r = lox("--dry-run", "run", "--source", spec, env=env)
        assert r.returncode == 64 and r.stdout == b"", spec
        assert b"refused" in r.stderr, (spec, r.stderr)
    bad = os.path.join(tmp, "a,b")
    os.makedirs(bad, exist_ok=True)
    for spec in ("x=relative/dir", "x=/nonexistent", "BAD=/tmp", "=/tmp",
                 "x", "x=" + bad, "x=/etc/passwd"):
        r = lox("--dry-run", "run", "--source", spec)
        assert r.returncode == 64 and r.stdout == b"", spec
    r = lox("--dry-run", "run", "--source", "a=" + tmp + "/src", "--source",
            "a=" + tmp + "/src")
    assert r.returncode == 64 and b"twice" in r.stderr


def test_run_refuses_a_profile_that_allows_by_default(tmp):
    p = os.path.join(tmp, "allow.json")
    with open(p, "w") as f:
        json.dump({"defaultAction": "SCMP_ACT_ALLOW"}, f)
    for path in (p, "/nonexistent.json", "/etc/passwd", tmp):
        r = lox("--dry-run", "run", env={"LOX_SECCOMP": path})
        assert r.returncode == 66 and r.stdout == b"", (path, r.stderr)
    # A refusing profile that is not the shipped one is refused too: lox
    # pins the shipped bytes, it does not judge profiles.
    with open(p, "w") as f:
        json.dump({"defaultAction": "SCMP_ACT_ERRNO"}, f)
    r = lox("--dry-run", "run", env={"LOX_SECCOMP": p})
    assert r.returncode == 66 and b"sha256 differs" in r.stderr, r.stderr


def test_run_refuses_the_case_differential_profile(tmp):
    """docker reads profile keys case-insensitively, the last one winning:
    the shipped profile with "DefaultAction": "SCMP_ACT_ALLOW" added after
    its checked "defaultAction" is allow-all for the engine. It passed lox's
    key check before the pin (issue 27)."""
    with open(PROFILE, "rb") as f:
        shipped = f.read()
    body = shipped.rstrip()
    assert body.endswith(b"}")
    evil = body[:-1].rstrip() + b',\n  "DefaultAction": "SCMP_ACT_ALLOW"\n}\n'
    doc = json.loads(evil)
    assert doc["defaultAction"] == "SCMP_ACT_ERRNO"
    p = os.path.join(tmp, "differential.json")
    with open(p, "wb") as f:
        f.write(evil)
    r = lox("--dry-run", "run", env={"LOX_SECCOMP": p})
    assert r.returncode == 66 and r.stdout == b"", r.stderr
    # the same bytes as the shipped profile, at another path, are accepted
    q = os.path.join(tmp, "copy.json")
    with open(q, "wb") as f:
        f.write(shipped)
    assert dry("run", env={"LOX_SECCOMP": q})


def test_docker_gets_the_checked_bytes(tmp):
    """The profile reaches docker as a sealed memfd (/dev/fd/N), read by the
    docker client from the descriptor lox checked, not from a path that
    could change after the check."""
    fake = os.path.join(tmp, "fake-docker")
    out = os.path.join(tmp, "got.json")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nfor a in \"$@\"; do case $a in seccomp=*) "
                "cat \"${a#seccomp=}\" > %s;; esac; done\n" % out)
    os.chmod(fake, 0o755)
    q = os.path.join(tmp, "swap.json")
    with open(PROFILE, "rb") as f:
        shipped = f.read()
    with open(q, "wb") as f:
        f.write(shipped)
    r = lox("doctor", env={"LOX_DOCKER": fake, "LOX_SECCOMP": q})
    assert r.returncode == 0, r.stderr
    with open(out, "rb") as f:
        assert f.read() == shipped


def test_run_needs_a_terminal():
    r = lox("run")
    assert r.returncode == 64 and b"needs a terminal" in r.stderr


def test_instance_names():
    for bad in ("", "A", "-x", "a b", "a/b", "x" * 33, "a\x1b[2J"):
        r = lox("--dry-run", "attach", "--instance", bad)
        assert r.returncode == 64 and r.stdout == b"", bad
        assert b"\x1b" not in r.stderr
    assert dry("attach", "--instance", "a-1")[-1] == "lockfile-a-1-console"


def test_attach_line():
    assert dry("attach") == ["/nonexistent/docker", "attach",
                             "--detach-keys", "ctrl-],ctrl-]",
                             "--sig-proxy=false", "lockfile-console"]


def test_agent_line_and_print():
    argv = dry("agent", "--", "lockfile", "status")
    assert argv == ["/nonexistent/docker", "run", "--rm", "-i", "--init",
                    "--pull", "never", "--pids-limit", "256",
                    "--memory", "1g", "--user", "agent", "--group-add", "lockfile-clients",
                    "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                    "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,size=64m",
                    "--network", "none",
                    "--volume", "lockfile-run:/run/lockfile:ro",
                    AGENT_ID, "lockfile", "status"], argv
    r = lox("agent", "--print", "--uid", "1234:99", "--network", "--", "sh",
            "-c", "echo 'hi'")
    assert r.returncode == 0
    argv = shlex.split(r.stdout.decode())
    assert argv[0] == "docker" and "--user" in argv
    assert argv[argv.index("--user") + 1] == "1234:99"
    assert "--group-add" not in argv and "none" not in argv
    assert argv[-3:] == ["sh", "-c", "echo 'hi'"]
    # no mount of the home, the source or the engine
    assert [a for a in argv if "home" in a or "srv" in a or "docker.sock" in a
            ] == []


@pytest.mark.parametrize("ids", ["0", "0:0", "0:1000", "1000:0", "root",
                                 "-1", "1000:", ":1000", "1e3", "99999999999"])
def test_agent_refuses_root_and_bad_ids(ids):
    assert dry("agent", "--uid", "1000", "--", "true")
    r = lox("--dry-run", "agent", "--uid", ids, "--", "true")
    assert r.returncode == 64 and r.stdout == b"", (ids, r.stderr)


def test_agent_needs_a_command():
    r = lox("--dry-run", "agent")
    assert r.returncode == 64 and r.stdout == b""
    r = lox("--dry-run", "agent", "--privileged", "--", "true")
    assert r.returncode == 64 and r.stdout == b""


def test_console_commands_run_as_the_console_account(tmp):
    # No engine answers: a one-off container of the console image.
    argv = dry("doctor", "--json")
    assert argv[1:4] == ["run", "--rm", "-i"]
    assert argv[-4:] == [CONSOLE_ID, "lockfile", "doctor", "--json"]
    assert argv[argv.index("--user") + 1] == "lockfile"
    assert [a for a in argv if re.fullmatch(r"seccomp=/dev/fd/\d+", a)]
    assert "no-new-privileges" in argv and "never" in argv
    assert dry("policy", "show")[-3:] == ["lockfile", "policy", "show"]
    assert dry("policy", "--image", OTHER_ID, "approve")[-4:] == [
        OTHER_ID, "lockfile", "policy", "approve"]
    p = os.path.join(tmp, "policy.toml")
    with open(p, "w") as f:
        f.write("security_level = 1\n")
    assert dry("policy", "load", p)[-3:] == [
        "cp", "/dev/stdin", "/home/lockfile/.config/lockfile/policy.toml"]
    assert dry("plugin", "install", "is-pdf")[-4:] == [
        "lockfile", "plugin", "install", "is-pdf"]
    argv = dry("plugin", "--network", "update")
    assert "--network" not in argv[:argv.index(CONSOLE_ID)]


def test_console_commands_mount_the_sources_read_only(tmp):
    # Approval checks each local profile's directory: the one-off
    # container gets the sources lox run would mount, read-only.
    src = os.path.join(tmp, "approval-src")
    os.makedirs(src, exist_ok=True)
    for cmd in (["policy", "--source", "inv=" + src, "approve"],
                ["doctor", "--source", "inv=" + src],
                ["plugin", "--source", "inv=" + src, "list"]):
        argv = dry(*cmd)
        m = argv.index("--mount")
        assert argv[m + 1] == ("type=bind,source=%s,target=/srv/lockfile/inv,"
                               "readonly" % os.path.realpath(src)), cmd
        assert m < argv.index(CONSOLE_ID), cmd
    # the README's order: the options after the verb
    argv = dry("policy", "approve", "--source", "inv=" + src)
    assert argv[-3:] == ["lockfile", "policy", "approve"], argv
    assert ("type=bind,source=%s,target=/srv/lockfile/inv,readonly"
            % os.path.realpath(src)) in argv
    r = lox("--dry-run", "policy", "approve", "--source", "inv=" + src,
            "extra")
    assert r.returncode == 64 and r.stdout == b""
    for bad in ("inv=/proc", "inv=/var/run", "Inv=" + src, "inv=relative"):
        r = lox("--dry-run", "policy", "--source", bad, "approve")
        assert r.returncode == 64 and r.stdout == b"", bad
    r = lox("--dry-run", "policy", "--source", "inv=" + src, "--source",
            "inv=" + src, "approve")
    assert r.returncode == 64 and r.stdout == b""


def test_console_commands_refusals(tmp):
    for args in (["policy", "load", "/nonexistent"], ["policy", "load", tmp]):
        r = lox("--dry-run", *args)
        assert r.returncode == 66 and r.stdout == b""
    for args in (["policy"], ["policy", "edit"], ["plugin"],
                 ["plugin", "sudo"], ["plugin", "install", "--home", "/x"],
                 ["plugin", "install", "--home=/x"], ["doctor", "--fix"]):
        r = lox("--dry-run", *args)
        assert r.returncode == 64 and r.stdout == b"", args


def test_quoting_keeps_control_bytes_off_the_terminal():
    r = lox("agent", "--print", "--", "echo", "a\x1b[2Jb", "it's")
    assert r.returncode == 0 and b"\x1b" not in r.stdout
    assert b"'it'\\''s'" in r.stdout


def quick_start_lox_lines(path, heading):
    """The `lox ...` command lines of a guide's quick start, comments off."""
    with open(path) as f:
        text = f.read()
    part = text[text.index(heading):]
    part = part[:part.index("\n## ", 1)]
    lines = []
    for line in part.splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("lox "):
            lines.append(shlex.split(line)[1:])
    return lines


@pytest.mark.parametrize("guide,heading", [
    ("README.md", "## Quick start: Docker"),
    (os.path.join("docs", "docker.md"), "## Quick start")])
def test_the_quick_start_lox_lines_are_accepted(tmp, guide, heading):
    # Every lox line of the quick start as written (its source directory
    # made here): `lox policy approve --source ...` answered usage once,
    # which only a human following the README found.
    src = os.path.join(tmp, "srv-invoices")
    os.makedirs(src, exist_ok=True)
    lines = quick_start_lox_lines(os.path.join(ROOT, guide), heading)
    assert len(lines) >= 3, lines
    for args in lines:
        args = [a.replace("/srv/invoices", src) for a in args]
        if args[:2] == ["policy", "load"]:
            args[2] = os.path.join(ROOT, "docker", "policy.example.toml")
        r = lox("--dry-run", *args)
        assert r.returncode == 0, (args, r.stderr)


# An engine that knows only the console image's label (docker/Dockerfile:
# org.lockfile.console-uid) and fails everything else.
FAKE_ENGINE = """#!/bin/sh
case "$*" in
*"org.lockfile.console-uid"*) [ "$2" = inspect ] && [ "$1" = %s ] && \
    { echo %s; exit 0; } ;;
esac
exit 1
"""


@pytest.mark.parametrize("ids", ["900", "900:901", "900:900"])
def test_agent_refuses_the_console_uid(ids):
    """An agent never runs as the console account (issue 25, 5): it would
    share the kernel's per-uid task count with the plugins. With no engine
    to ask, the images' default console uid (900) is refused; lox before
    this refused only 0."""
    assert dry("agent", "--uid", "901", "--", "true")
    r = lox("--dry-run", "agent", "--uid", ids, "--", "true")
    assert r.returncode == 64 and r.stdout == b"", (ids, r.stderr)
    assert b"console account" in r.stderr


@pytest.mark.parametrize("kind", ["container", "image"])
def test_agent_refuses_the_console_uid_the_image_names(tmp, kind):
    """An image built with another LOCKFILE_UID says so in its label: lox
    asks the instance's container (or, without one, the console image)."""
    engine = os.path.join(tmp, "docker-" + kind)
    with open(engine, "w") as f:
        f.write(FAKE_ENGINE % (kind, "1234"))
    os.chmod(engine, 0o755)
    env = {"LOX_DOCKER": engine}
    r = lox("agent", "--print", "--uid", "1234", "--", "true", env=env)
    assert r.returncode == 64 and r.stdout == b"", r.stderr
    assert b"console account" in r.stderr
    # 900 is not that image's console uid
    r = lox("agent", "--print", "--uid", "900", "--", "true", env=env)
    assert r.returncode == 0, r.stderr


# ---- images by ID (docs/docker.md, "Images by ID") -------------------------

@pytest.mark.parametrize("image", [
    "lockfile-console", "lockfile-console:latest", "x/y",
    "registry.example/lockfile-console@sha256:" + "c" * 64,
    "sha256:" + "C" * 64, "sha256:" + "c" * 63, "sha256:" + "c" * 65,
    "c" * 64])
def test_images_are_named_by_id_never_by_a_tag(image):
    for args in (["run", image], ["agent", "--image", image, "--", "true"],
                 ["policy", "--image", image, "show"]):
        r = lox("--dry-run", *args)
        assert r.returncode == 64 and r.stdout == b"", (args, r.stderr)
        assert b"not an image ID" in r.stderr, r.stderr
    assert dry("run", CONSOLE_ID)[-1] == CONSOLE_ID


def test_the_recorded_ids_are_the_defaults_and_a_missing_one_is_an_error(
        tmp):
    assert dry("run")[-1] == CONSOLE_ID
    assert dry("agent", "--", "true")[-2:] == [AGENT_ID, "true"]
    assert dry("doctor")[-3:] == [CONSOLE_ID, "lockfile", "doctor"]
    r = lox("image", "console")
    assert r.returncode == 0 and r.stdout == CONSOLE_ID.encode() + b"\n"
    r = lox("image", "agent")
    assert r.returncode == 0 and r.stdout == AGENT_ID.encode() + b"\n"
    # hub is a role (build-images.sh --hub); this record has no hub line
    r = lox("image", "hub")
    assert r.returncode == 66 and b"names no hub image" in r.stderr, r.stderr
    assert lox("image", "nosuch").returncode == 64
    bad = os.path.join(tmp, "images-bad")
    cases = {"missing": None,
             "no agent line": "console %s\n" % CONSOLE_ID,
             "a tag": "console lockfile-console\nagent %s\n" % AGENT_ID,
             "no final newline": "console %s\nagent %s" % (CONSOLE_ID,
                                                             AGENT_ID)}
    for what, text in cases.items():
        if os.path.exists(bad):
            os.unlink(bad)
        if text is not None:
            with open(bad, "w") as f:
                f.write(text)
            os.chmod(bad, 0o644)
        for args in (["run"], ["agent", "--", "true"], ["doctor"]):
            r = lox("--dry-run", *args, env={"LOX_IMAGES": bad})
            if what == "no agent line" and args[0] != "agent":
                assert r.returncode == 0, (what, args, r.stderr)
                continue
            assert r.returncode in (64, 66) and r.stdout == b"", \
                (what, args, r.stderr)
    # a record another account could write names nothing
    with open(bad, "w") as f:
        f.write("console %s\nagent %s\n" % (CONSOLE_ID, AGENT_ID))
    os.chmod(bad, 0o666)
    r = lox("--dry-run", "run", env={"LOX_IMAGES": bad})
    assert r.returncode == 66 and b"only root or you can write" in r.stderr
    os.chmod(bad, 0o644)
    assert lox("--dry-run", "run", env={"LOX_IMAGES": bad}).returncode == 0


# ---- LXCFS (docs/docker.md, "Host-wide counters") ---------------------------

def test_agent_gets_lxcfs_proc_files_where_the_host_serves_them(tmp):
    """LOX_LXCFS stands for /var/lib/lxcfs: with proc/meminfo there, each
    file LXCFS serves that runc lets over /proc is given read-only; with an
    empty mount point (LXCFS not running) nothing is. lox doctor says which
    on stderr."""
    fake = os.path.join(tmp, "lxcfs")
    os.makedirs(os.path.join(fake, "proc"), exist_ok=True)
    argv = dry("agent", "--", "true", env={"LOX_LXCFS": fake})
    assert [a for a in argv if "lxcfs" in a] == []
    r = lox("--dry-run", "doctor", env={"LOX_LXCFS": fake})
    assert b"lox: lxcfs: not on this host" in r.stderr, r.stderr
    for f in ("meminfo", "diskstats", "stat", "vmstat"):
        with open(os.path.join(fake, "proc", f), "w") as fh:
            fh.write("x\n")
    argv = dry("agent", "--", "true", env={"LOX_LXCFS": fake})
    vols = [argv[i + 1] for i, a in enumerate(argv) if a == "--volume"]
    assert vols[1:] == ["%s/proc/%s:/proc/%s:ro" % (fake, f, f)
                        for f in ("diskstats", "meminfo", "stat")], vols
    assert argv[-2:] == [AGENT_ID, "true"]
    r = lox("--dry-run", "doctor", env={"LOX_LXCFS": fake})
    assert b"lox: lxcfs: the host serves per-container" in r.stderr


# ---- hub mode (docs/docker.md, "Hub mode") --------------------------------

def _ca(tmp):
    """A CA certificate made as docs/hub.md's recipe makes it."""
    d = os.path.join(tmp, "ca")
    if not os.path.exists(os.path.join(d, "ca.pem")):
        os.makedirs(d, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                        "ca.key", "-out", "ca.pem", "-days", "30", "-subj",
                        "/CN=lox test CA"], cwd=d, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(d, "ca.pem"), os.path.join(d, "ca.key")


def test_run_hub_mode_line_network_ca_and_instance(tmp):
    """--hub: the instance's hub network (never none, never an agent's),
    lox's checked copy of the CA read-only, and the image's command with
    --hub, --hub-ca and --hub-instance, the name lox run gives."""
    home = os.path.join(tmp, "loxhome-dry")
    os.makedirs(home, 0o700, exist_ok=True)
    ca, _ = _ca(tmp)
    argv = dry("run", "--instance", "desk", "--hub", "https://hub:8443",
               "--hub-ca", ca, env={"LOX_HOME": home})
    i = argv.index("--network")
    assert argv[i + 1] == "lockfile-desk-hub"
    assert "none" not in argv[i + 1:i + 2]
    m = argv[argv.index("--mount") + 1]
    assert m == "type=bind,src=%s/instances/desk/hub-ca.pem,dst=" \
        "/etc/lockfile/hub-ca.pem,readonly" % home
    tail = argv[argv.index(CONSOLE_ID) + 1:]
    assert tail[:2] == ["/bin/sh", "-c"]
    assert tail[3:] == ["lockfile-console", "--hub", "https://hub:8443",
                        "--hub-ca", "/etc/lockfile/hub-ca.pem",
                        "--hub-instance", "desk"]
    # a dry run keeps nothing
    assert not os.path.exists(os.path.join(home, "instances", "desk",
                                           "hub-url"))


def test_run_hub_is_kept_per_instance(tmp):
    """A real `lox run --hub` keeps the hub for the instance (the docker
    client here cannot run, so nothing starts); a later dry run of the same
    instance, and lox doctor's one-off container, use it; --no-hub
    forgets it. The CA copy is re-encoded from the parsed certificates."""
    home = os.path.join(tmp, "loxhome-kept")
    os.makedirs(home, 0o700, exist_ok=True)
    ca, _ = _ca(tmp)
    env = {"LOX_HOME": home}
    r = lox("run", "--instance", "desk", "--hub", "https://hub:8443",
            "--hub-ca", ca, env=env)
    # no terminal: refused after the settings were checked and kept
    assert r.returncode == 64 and b"needs a terminal" in r.stderr, r.stderr
    d = os.path.join(home, "instances", "desk")
    assert os.stat(d).st_mode & 0o777 == 0o700
    with open(os.path.join(d, "hub-url")) as f:
        assert f.read() == "https://hub:8443\n"
    with open(os.path.join(d, "hub-ca.pem"), "rb") as f, open(ca, "rb") as g:
        copy, orig = f.read(), g.read()
    assert copy.startswith(b"-----BEGIN CERTIFICATE-----\n")
    assert copy.replace(b"\n", b"") == orig.replace(b"\n", b"")
    argv = dry("run", "--instance", "desk", env=env)
    assert "--hub-instance" in argv and "https://hub:8443" in argv
    argv = dry("doctor", "--instance", "desk", env=env)
    assert argv[argv.index("--network") + 1] == "lockfile-desk-hub"
    assert "/bin/sh" not in argv        # doctor's own command
    # another instance is not in hub mode
    argv = dry("run", "--instance", "other", env=env)
    assert argv[argv.index("--network") + 1] == "none"
    r = lox("run", "--instance", "desk", "--no-hub", env=env)
    assert not os.path.exists(os.path.join(d, "hub-url"))
    argv = dry("run", "--instance", "desk", env=env)
    assert argv[argv.index("--network") + 1] == "none"


@pytest.mark.parametrize("what", ["key", "junk", "text", "notder", "empty"])
def test_run_hub_ca_only_certificates(tmp, what):
    """The CA file reaches the container only as certificates lox parsed:
    a private key, other text around a certificate, a block that is not
    X.509, an empty file are refused (and nothing is kept)."""
    home = os.path.join(tmp, "loxhome-ca-" + what)
    os.makedirs(home, 0o700, exist_ok=True)
    ca, key = _ca(tmp)
    with open(ca, "rb") as f:
        good = f.read()
    bad = {"key": open(key, "rb").read(),
           "junk": good + b"#!/bin/sh\n",
           "text": b"Bag Attributes\n" + good,
           "notder": b"-----BEGIN CERTIFICATE-----\nAAAA\n"
                     b"-----END CERTIFICATE-----\n",
           "empty": b""}[what]
    p = os.path.join(tmp, "bad-%s.pem" % what)
    with open(p, "wb") as f:
        f.write(bad)
    r = lox("--dry-run", "run", "--instance", "desk", "--hub",
            "https://hub:8443", "--hub-ca", p, env={"LOX_HOME": home})
    assert r.returncode == 64 and b"--hub-ca" in r.stderr, r.stderr
    # the same with the good file passes
    r = lox("--dry-run", "run", "--instance", "desk", "--hub",
            "https://hub:8443", "--hub-ca", ca, env={"LOX_HOME": home})
    assert r.returncode == 0, r.stderr


def test_run_hub_refusals(tmp):
    home = os.path.join(tmp, "loxhome-ref")
    os.makedirs(home, 0o700, exist_ok=True)
    env = {"LOX_HOME": home}
    for args, why in (
            (["--hub", "https://hub:8443"], b"--instance NAME"),
            (["--instance", "d", "--hub", "https://hub:8443/x"], b"--hub"),
            (["--instance", "d", "--hub", "ftp://hub"], b"--hub"),
            (["--instance", "d", "--hub-ca", "/etc/hostname"], b"--hub"),
            (["--instance", "d", "--hub", "https://hub:8443", "--network"],
             b"--network in hub mode")):
        r = lox("--dry-run", "run", *args, env=env)
        assert r.returncode == 64 and why in r.stderr, (args, r.stderr)
    assert dry("run", "--instance", "d", "--hub", "https://hub:8443",
               env=env)


def test_hub_key_runs_in_the_console_container(tmp):
    argv = dry("hub-key", "--instance", "desk",
               env={"LOX_HOME": os.path.join(tmp, "loxhome-dry")})
    assert argv[-2:] == ["lockfile", "hub-key"]
    r = lox("--dry-run", "hub-key")
    assert r.returncode == 64 and b"--instance" in r.stderr


# ---- lockhub's container: lox hub-run (docs/docker.md, "Hub mode") --------

HUB_ID = "sha256:" + "b" * 64


def _hub_tls(tmp):
    """A hub certificate and key (docs/hub.md's recipe, self-signed here:
    lox checks the pair, not the chain)."""
    d = os.path.join(tmp, "hubtls")
    if not os.path.exists(os.path.join(d, "cert.pem")):
        os.makedirs(d, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                        "key.pem", "-out", "cert.pem", "-days", "30", "-subj",
                        "/CN=hub"], cwd=d, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")


def _hub_common(argv):
    """The flags every lockhub container gets: the image by ID, never
    pulled, the shipped profile as checked bytes, its state volume."""
    i = argv.index("--pull")
    assert argv[i + 1] == "never"
    s = [a for a in argv if a.startswith("seccomp=")]
    assert len(s) == 1 and re.fullmatch(r"seccomp=/dev/fd/\d+", s[0]), argv
    for f in (["--cap-drop", "ALL"], ["--user", "lockhub"],
              ["--security-opt", "no-new-privileges"],
              ["--volume", "lockfile-team-lockhub-state:/var/lib/lockhub"]):
        assert any(argv[j:j + 2] == f for j in range(len(argv))), (f, argv)
    assert "--read-only" in argv and "--init" in argv


def test_hub_run_init_line(tmp):
    argv = dry("hub-run", "--instance", "team", "--image", HUB_ID, "init")
    assert argv[:3] == ["/nonexistent/docker", "run", "--rm"]
    _hub_common(argv)
    assert argv[argv.index("--network") + 1] == "none"
    assert argv[argv.index(HUB_ID):] == [
        HUB_ID, "/usr/local/bin/lockhub", "init", "--state",
        "/var/lib/lockhub"]


def test_hub_run_migrate_line(tmp):
    """lockhub migrate in a one-off container on the state volume, no
    network, as init (docs/hub.md, "Schema migrations")."""
    argv = dry("hub-run", "--instance", "team", "--image", HUB_ID, "migrate")
    assert argv[:3] == ["/nonexistent/docker", "run", "--rm"]
    _hub_common(argv)
    assert argv[argv.index("--network") + 1] == "none"
    assert argv[argv.index(HUB_ID):] == [
        HUB_ID, "/usr/local/bin/lockhub", "migrate", "--state",
        "/var/lib/lockhub"]


def test_hub_run_serve_line_tls_copies_network(tmp):
    """serve: detached, on the instance's hub network at --ip, lox's copies
    of the TLS files read-only; a dry run keeps nothing."""
    home = os.path.join(tmp, "loxhome-hubrun")
    os.makedirs(home, 0o700, exist_ok=True)
    cert, key = _hub_tls(tmp)
    argv = dry("hub-run", "--instance", "team", "--image", HUB_ID,
               "--tls-cert", cert, "--tls-key", key, "--ip", "172.29.1.10",
               "--poll-s", "2", env={"LOX_HOME": home})
    assert argv[:6] == ["/nonexistent/docker", "run", "-d", "--name",
                        "lockfile-team-lockhub", "--restart"]
    _hub_common(argv)
    d = os.path.join(home, "instances", "team")
    mounts = [argv[i + 1] for i, a in enumerate(argv) if a == "--mount"]
    assert mounts == [
        "type=bind,src=%s/lockhub-cert.pem,dst=/etc/lockhub/cert.pem,"
        "readonly" % d,
        "type=bind,src=%s/lockhub-key.pem,dst=/etc/lockhub/key.pem,"
        "readonly" % d]
    i = argv.index("--network")
    assert argv[i:i + 4] == ["--network", "lockfile-team-hub", "--ip",
                             "172.29.1.10"]
    assert argv[argv.index(HUB_ID):] == [
        HUB_ID, "/usr/local/bin/lockhub", "serve", "--state",
        "/var/lib/lockhub", "--listen", "0.0.0.0:8443", "--tls-cert",
        "/etc/lockhub/cert.pem", "--tls-key", "/etc/lockhub/key.pem",
        "--poll-s", "2"]
    assert not os.path.exists(d)


def test_hub_run_publish_then_joins_the_hub_network(tmp):
    home = os.path.join(tmp, "loxhome-hubpub")
    cert, key = _hub_tls(tmp)
    r = lox("--dry-run", "hub-run", "--instance", "team", "--image", HUB_ID,
            "--tls-cert", cert, "--tls-key", key, "--publish", "8443",
            "--ip", "172.29.1.10", env={"LOX_HOME": home})
    assert r.returncode == 0, r.stderr
    run, conn = [shlex.split(x) for x in r.stdout.decode().splitlines()]
    assert run[run.index("--publish") + 1] == "8443:8443"
    assert "--network" not in run
    assert conn == ["/nonexistent/docker", "network", "connect", "--ip",
                    "172.29.1.10", "lockfile-team-hub",
                    "lockfile-team-lockhub"]


@pytest.mark.parametrize("what", ["otherkey", "keytext", "certkey",
                                  "encrypted", "certasKey", "profile", "tag",
                                  "noinstance", "ipv6ip"])
def test_hub_run_refusals(tmp, what):
    """The TLS files only as a parsed certificate and its own unencrypted
    key; only the shipped profile; images by ID; hub mode names its
    instance. Each against the same command without the fault."""
    home = os.path.join(tmp, "loxhome-hubref")
    cert, key = _hub_tls(tmp)
    ca, cakey = _ca(tmp)
    bad = os.path.join(tmp, "hubbad-%s.pem" % what)
    key_bytes = open(key, "rb").read()
    args = {"cert": cert, "key": key, "image": HUB_ID, "inst": "team",
            "ip": "172.29.1.10"}
    env = {"LOX_HOME": home}
    if what == "otherkey":
        args["key"] = cakey
    elif what in ("keytext", "certkey", "encrypted", "certasKey"):
        data = {"keytext": b"Bag Attributes\n" + key_bytes,
                "certkey": open(cert, "rb").read() + key_bytes,
                "certasKey": open(cert, "rb").read()}.get(what)
        if what == "encrypted":
            subprocess.run(["openssl", "pkey", "-in", key, "-aes256",
                            "-passout", "pass:x", "-out", bad], check=True)
        else:
            with open(bad, "wb") as f:
                f.write(data)
        args["key"] = bad
    elif what == "profile":
        with open(PROFILE, "rb") as f:
            prof = f.read()
        with open(bad, "wb") as f:
            f.write(prof.replace(b"{", b'{"DefaultAction": "SCMP_ACT_ALLOW",',
                                 1))
        env["LOX_SECCOMP"] = bad
    elif what == "tag":
        args["image"] = "lockfile-hub:latest"
    elif what == "noinstance":
        args["inst"] = None
    elif what == "ipv6ip":
        args["ip"] = "fd00::10"

    def cmd(a):
        c = ["--dry-run", "hub-run"]
        if a["inst"]:
            c += ["--instance", a["inst"]]
        return c + ["--image", a["image"], "--tls-cert", a["cert"],
                    "--tls-key", a["key"], "--ip", a["ip"]]
    r = lox(*cmd(args), env=env)
    assert r.returncode in (64, 66) and r.stdout == b"", (what, r.stderr)
    good = {"cert": cert, "key": key, "image": HUB_ID, "inst": "team",
            "ip": "172.29.1.10"}
    r = lox(*cmd(good), env={"LOX_HOME": home})
    assert r.returncode == 0, r.stderr


def test_hub_run_keeps_reencoded_tls_copies(tmp):
    """A real hub-run (a stand-in docker client: the image's hub uid label,
    the labelled network, then the run) writes the copies: the
    certificate re-encoded, 0644; the key as PKCS#8, 0600, the label's
    uid; the operator's bytes around them never."""
    home = os.path.join(tmp, "loxhome-hubkeep")
    cert, key = _hub_tls(tmp)
    fake = os.path.join(tmp, "fake-docker")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\ncase \"$1 $2\" in\n"
                "'image inspect') echo %d ;;\n"
                "'network inspect') echo team ;;\n"
                "esac\nexit 0\n" % os.getuid())
    os.chmod(fake, 0o755)
    r = lox("hub-run", "--instance", "team", "--image", HUB_ID,
            "--tls-cert", cert, "--tls-key", key, "--ip", "172.29.1.10",
            env={"LOX_HOME": home, "LOX_DOCKER": fake})
    assert r.returncode == 0, r.stderr
    d = os.path.join(home, "instances", "team")
    c, k = os.path.join(d, "lockhub-cert.pem"), os.path.join(d,
                                                             "lockhub-key.pem")
    assert os.stat(c).st_mode & 0o777 == 0o644
    assert os.stat(k).st_mode & 0o777 == 0o600
    assert os.stat(k).st_uid == os.getuid()
    with open(c, "rb") as f, open(cert, "rb") as g:
        assert f.read().replace(b"\n", b"") == g.read().replace(b"\n", b"")
    with open(k, "rb") as f:
        kb = f.read()
    assert kb.startswith(b"-----BEGIN PRIVATE KEY-----\n"), kb[:40]
    # the same key: openssl derives the same public key from both
    pub = [subprocess.run(["openssl", "pkey", "-in", p, "-pubout"],
                          stdout=subprocess.PIPE, check=True).stdout
           for p in (k, key)]
    assert pub[0] == pub[1]
