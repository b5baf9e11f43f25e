"""The Docker deployment on a real engine (docs/docker.md).

A dockerd of the tests' own; the images built from this tree
(docker/build-images.sh, a debootstrap base cached by content); the console
started by `lox run` in a real terminal (tmux, as the operator), its policy
approved and its plans approved by keys typed there; agents in containers
of the agent image started by `lox agent`. Then: what an agent container
gets, what it cannot reach or see, who is refused, the consoles started by
hand with an unsafe flag (each plan refused E_PROC_NOT_HIDDEN, doctor names
the condition), docker logs, docker-compose, and the hostile-plugin suite
inside a container of the console image under the shipped profile.
"""
import json
import os
import re
import shlex
import subprocess
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

import dockerenv as D  # noqa: E402
from dockerenv import DOCKER, LOX, TAG  # noqa: E402

CONSOLE = TAG + "-console"
AGENT = TAG + "-agent"


class Deployment:
    def __init__(self):
        self.eng = D.Engine()
        try:
            self.images = self.eng.build_images()
            self.term = D.Terminal(self.eng)
            self.src = D.make_source(self.eng.base, {
                "2024/a.pdf": D.tiny_pdf(),
                "2024/notes.txt": b"not a pdf at all\n",
                "2024/Zoë-Müller.pdf": D.tiny_pdf(),
                "private/salaries.csv": b"name,salary\n"})
            self.policy = os.path.join(self.eng.base, "policy.toml")
            with open(self.policy, "w") as f:
                f.write(D.POLICY)
            self.approve_policy(None)
            self.window = self.term.start([LOX, "run", "--source",
                                           "invoices=" + self.src, D.IDS["console"]])
            self.term.wait(self.window, r"lockfile console [0-9.]+: socket")
        except Exception:
            self.close()
            raise

    def approve_policy(self, instance, policy=None, source="invoices"):
        """lox policy load, then approve by typing on the terminal, with
        the source mounted as the console will have it (approval checks
        that each local profile's directory can be read)."""
        inst = ["--instance", instance] if instance else []
        r = self.eng.lox("policy", *inst, "--image", D.IDS["console"], "load",
                         policy or self.policy)
        assert r.returncode == 0, r.stderr
        w = self.term.start([LOX, "policy", *inst, "--image", D.IDS["console"],
                             "--source", "%s=%s" % (source, self.src),
                             "approve"])
        self.term.wait(w, "Type 'approve'")
        self.term.type(w, "approve")
        self.term.wait(w, r"approved \(fingerprint [0-9a-f]{64}\)")

    def agent(self, *cmd, instance=None, uid=None, timeout=90):
        args = ["agent", "--image", D.IDS["agent"]]
        if instance:
            args += ["--instance", instance]
        if uid is not None:
            args += ["--uid", str(uid)]
        return self.eng.lox(*args, "--", *cmd, timeout=timeout)

    def approved(self, fn, window=None, answer="y"):
        """Run fn() (which blocks on a plan) while typing the approval in
        the console's window when its card shows."""
        window = window or self.window
        n = self.term.screen(window).count("Approve?")
        out = {}

        def go():
            out["r"] = fn()
        t = threading.Thread(target=go)
        t.start()
        self.term.wait(window, r"Approve\?", count=n + 1)
        self.term.type(window, answer)
        t.join(120)
        assert not t.is_alive(), "the plan never returned"
        return out["r"]

    def ask(self, key, plugin="is-pdf", instance=None, window=None,
            uid=None):
        r = self.approved(lambda: self.agent(
            "lockfile", "ask", "--json", "--profile", "invoices", "--key",
            key, "--plugin", plugin, instance=instance, uid=uid),
            window=window)
        return r, json.loads(r.stdout or b"null")

    def close(self):
        if getattr(self, "term", None):
            self.term.stop()
        self.eng.stop()


@pytest.fixture(scope="module")
def dep():
    d = Deployment()
    yield d
    d.close()


def answers(doc):
    return [(a["plugin"], a["result"]) for a in doc["result"]["answers"]]


# ---- the images ----------------------------------------------------------

def test_runtime_packages_hold_every_library_lockfile_links():
    """docker/runtime-packages names the package of each shared library the
    executables need (the base has more, as dependencies: that would hide a
    missing name until a base without them). lockfile-console links them;
    the others are static PIEs in a plain build (docs/hacking.md)."""
    needed = []
    for exe in ("lockfile", "lockfile-console", "lockfile-parse-worker",
                "lockfile-sandbox-run"):
        needed += re.findall(rb"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                             subprocess.run(["readelf", "-d", os.path.join(
                                 D.BUILD, exe)], stdout=subprocess.PIPE,
                                 check=True).stdout)
    needed = sorted(set(needed))
    with open(os.path.join(D.ROOT, "docker", "runtime-packages")) as f:
        listed = {l.strip() for l in f if l.strip() and l[0] != "#"}
    assert len(needed) >= 5
    for lib in needed:
        path = subprocess.run(["/sbin/ldconfig", "-p"], stdout=subprocess.PIPE,
                              check=True).stdout
        m = re.search(rb"\s" + re.escape(lib) + rb" \(libc6,x86-64\) => (\S+)",
                      path)
        assert m, lib
        if lib.startswith((b"libc.so", b"ld-linux")):
            continue        # libc6: in every base
        real = os.path.realpath(m.group(1)).decode()
        pkg = None
        for cand in (real, real.replace("/usr/lib/", "/lib/", 1)):
            r = subprocess.run(["dpkg", "-S", cand], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                pkg = r.stdout.split(b":")[0].decode()
                break
        assert pkg in listed, (lib, pkg)


def test_images_have_no_setuid_program_and_root_owned_files(dep):
    find = ["find", "/", "-xdev", "(", "-perm", "-4000", "-o", "-perm",
            "-2000", ")", "-type", "f", "-print"]
    for image in (CONSOLE, AGENT):
        r = dep.eng.docker("run", "--rm", "--user", "root", "--network",
                           "none", image, *find)
        assert r.stdout == b"", (image, r.stdout)
        r = dep.eng.docker("run", "--rm", "--network", "none", image, "sh",
                           "-c", "command -v sudo || echo none")
        assert r.stdout == b"none\n"
    # The check can fail: the base itself has setuid programs (su, mount).
    base = [i for i in dep.eng.docker("images", "--format",
            "{{.Repository}}:{{.Tag}}").stdout.decode().split()
            if i.startswith("lockfile-base:")][0]
    r = dep.eng.docker("run", "--rm", "--user", "root", "--network", "none",
                       base, *find)
    assert b"/su\n" in r.stdout or b"/mount\n" in r.stdout, r.stdout
    stat = dep.eng.docker(
        "run", "--rm", "--network", "none", CONSOLE, "stat", "-c",
        "%n %U:%G %a", "/usr/local/bin/lockfile",
        "/usr/local/bin/lockfile-console",
        "/usr/local/bin/lockfile-parse-worker",
        "/usr/local/bin/lockfile-sandbox-run", "/etc/lockfile",
        "/etc/lockfile/container.toml", "/etc/lockfile/system.toml",
        "/etc/lockfile/trust.toml", "/etc/lockfile/trusted_root.json",
        "/run/lockfile", "/srv/lockfile", "/home/lockfile").stdout.decode()
    # Every executable of a role (docs/hacking.md, "Executables").
    want = ["/usr/local/bin/lockfile root:root 755",
            "/usr/local/bin/lockfile-console root:root 755",
            "/usr/local/bin/lockfile-parse-worker root:root 755",
            "/usr/local/bin/lockfile-sandbox-run root:root 755",
            "/etc/lockfile root:root 755",
            "/etc/lockfile/container.toml root:root 644",
            "/etc/lockfile/system.toml root:root 644",
            "/etc/lockfile/trust.toml root:root 644",
            "/etc/lockfile/trusted_root.json root:root 644",
            "/run/lockfile lockfile:lockfile-clients 2750",
            "/srv/lockfile lockfile:lockfile 700",
            "/home/lockfile lockfile:lockfile 700"]
    assert stat.split("\n")[:len(want)] == want, stat
    r = dep.eng.docker("run", "--rm", "--network", "none", CONSOLE, "cat",
                       "/etc/lockfile/container.toml",
                       "/etc/lockfile/system.toml")
    assert r.stdout.startswith(b'container = "docker"\n')
    assert b'\nx11 = "refuse"\n' in r.stdout


def test_plugins_came_through_the_signed_path(dep):
    r = dep.eng.docker("exec", "--user", "lockfile", "lockfile-console",
                       "lockfile", "plugin", "verify")
    assert r.returncode == 0, r.stderr
    r = dep.eng.docker("exec", "--user", "lockfile", "lockfile-console",
                       "lockfile", "plugin", "list").stdout.decode()
    for name in D.PLUGINS:
        assert "%s " % name in r and "local (official)" in r, r


def test_console_container_has_the_hardened_flags(dep):
    doc = json.loads(dep.eng.docker("inspect", "lockfile-console").stdout)[0]
    hc = doc["HostConfig"]
    assert hc["CapDrop"] == ["ALL"] and not hc["CapAdd"]
    assert not hc["Privileged"] and hc["ReadonlyRootfs"] and hc["Init"]
    assert hc["PidMode"] == "" and hc["IpcMode"] in ("private", "shareable")
    assert hc["UsernsMode"] == "" and hc["NetworkMode"] == "none"
    assert hc["LogConfig"]["Type"] == "none"
    assert hc["PidsLimit"] == 256 and hc["Memory"] == 1 << 30
    assert "no-new-privileges" in hc["SecurityOpt"]
    prof = [o for o in hc["SecurityOpt"] if o.startswith("seccomp=")]
    with open(D.PROFILE) as f:
        assert len(prof) == 1 and json.loads(prof[0][8:]) == json.load(f)
    assert doc["Config"]["User"] == "lockfile"
    mounts = sorted((m["Type"], m["Destination"], m["RW"])
                    for m in doc["Mounts"])
    assert mounts == [("bind", "/srv/lockfile/invoices", False),
                      ("volume", "/home/lockfile", True),
                      ("volume", "/run/lockfile", True)], mounts


# ---- an agent's question ---------------------------------------------------

def test_agent_container_asks_and_gets_its_bit(dep):
    r, doc = dep.ask("2024/a.pdf")
    assert r.returncode == 0, r.stderr
    assert answers(doc) == [("is-pdf", 1)]
    r, doc = dep.ask("2024/notes.txt")
    assert r.returncode == 0 and answers(doc) == [("is-pdf", 0)]
    # The key outside the profile's prefix is refused before any card.
    r = dep.agent("lockfile", "ask", "--json", "--profile", "invoices",
                  "--key", "private/salaries.csv", "--plugin", "is-pdf")
    assert r.returncode == 1 and b'"error"' in r.stdout, r.stdout


def test_console_shows_names_in_their_script(dep):
    # The image runs under a UTF-8 locale: the card shows a key as typed,
    # not as \x escapes (docs/rendering.md), and still answers.
    r, doc = dep.ask("2024/Zoë-Müller.pdf")
    assert r.returncode == 0 and answers(doc) == [("is-pdf", 1)], r.stderr
    screen = dep.term.screen(dep.window)
    assert '"2024/Zoë-Müller.pdf"' in screen, screen[-2000:]
    assert "\\xc3" not in screen


def test_agent_container_asks_through_mcp(dep):
    from mcpdrv import McpServer
    s = McpServer([LOX, "agent", "--image", D.IDS["agent"], "--", "lockfile", "mcp"],
                  env=dep.eng.env())
    try:
        s.initialize()
        resp, _ = dep.approved(lambda: s.tool("plan", {
            "profile": "invoices", "key": "2024/a.pdf",
            "plugins": [{"name": "is-pdf"}]}, timeout=90))
        res = resp["result"]
        assert res["isError"] is False, res
        assert [(a["plugin"], a["result"]) for a in
                res["structuredContent"]["answers"]] == [("is-pdf", 1)]
    finally:
        s.close()


def test_docker_logs_show_nothing_typed(dep):
    r = dep.eng.docker("logs", "lockfile-console", check=False)
    assert r.returncode != 0 and b"does not support reading" in r.stderr
    assert b"Approve" not in r.stdout + r.stderr
    assert b"lockfile console" not in r.stdout + r.stderr


# ---- what an agent container cannot reach ---------------------------------

POLL = r"""
seen=""
i=0
while [ $i -lt 30 ]; do
  for s in /proc/[0-9]*/status; do
    u=$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' "$s" 2>/dev/null)
    n=$(sed -n 's/^Name:[[:space:]]*//p' "$s" 2>/dev/null)
    [ -n "$u" ] && seen="$seen $u:$n"
  done
  i=$((i + 1))
  sleep 0.2
done
echo "$seen" | tr ' ' '\n' | sort -u
"""

READS = r"""
for p in /home/lockfile /home/lockfile/.local/state/lockfile/audit.log \
    /srv/lockfile /srv/lockfile/invoices/2024/a.pdf; do
  if cat "$p" >/dev/null 2>&1 || ls "$p" >/dev/null 2>&1; then
    echo "READ $p"
  fi
done
ls /home/lockfile/.local/state/lockfile/work/*/data 2>/dev/null && echo READ work
echo done
"""


def test_agent_cannot_read_the_home_the_source_or_see_the_plugin(dep):
    uid = D.uid_of("lockfile")
    result = {}

    def slow():
        result["ask"] = dep.ask("2024/a.pdf", plugin="sleeper")
    t = threading.Thread(target=slow)
    t.start()
    try:
        dep.term.wait(dep.window, r"Approve\? .*y\s*$|running|answered",
                      timeout=60)
        time.sleep(1.5)     # the plugin sleeps 8 s from here
        # An agent container: only its own processes, none of the paths.
        polled = {}

        def poll():
            polled["agent"] = dep.agent("sh", "-c", POLL)
        pt = threading.Thread(target=poll)
        pt.start()
        # The same poll joined to the console's pid namespace (what
        # --pid=container: would give an agent) does see the plugin: the
        # poll can fail. It joins after the last check before the plugin.
        joined = dep.eng.docker(
            "run", "--rm", "--pid=container:lockfile-console", "--user",
            str(D.uid_of("agent")), "--network", "none", "--cap-drop", "ALL",
            AGENT, "sh", "-c", POLL, timeout=60)
        pt.join(60)
        reads = dep.agent("sh", "-c", READS)
    finally:
        t.join(120)
    r, doc = result["ask"]
    assert r.returncode == 0 and answers(doc) == [("sleeper", 1)], r.stdout
    mine = [l for l in polled["agent"].stdout.decode().split() if l]
    assert mine and all(l.startswith("%d:" % D.uid_of("agent"))
                        for l in mine), mine
    theirs = joined.stdout.decode().split()
    assert any(l.startswith("%d:" % uid) for l in theirs), theirs
    assert reads.stdout == b"done\n", reads.stdout
    # The paths exist and hold what they should: the console account
    # reads them through the volume (so the agent's reads could succeed).
    r = dep.eng.docker("run", "--rm", "--user", "lockfile", "--network",
                       "none", "-v", "lockfile-home:/home/lockfile", CONSOLE,
                       "cat", "/home/lockfile/.local/state/lockfile/audit.log")
    assert b'"outcome"' in r.stdout
    # Given the home volume anyway (an operator's mistake), the agent's
    # account still cannot read it (0700).
    r = dep.eng.docker("run", "--rm", "--user", "agent", "--network", "none",
                       "-v", "lockfile-home:/home/lockfile", AGENT, "cat",
                       "/home/lockfile/.local/state/lockfile/audit.log",
                       check=False)
    assert r.returncode != 0 and b"Permission denied" in r.stderr


# ---- who is refused --------------------------------------------------------

def test_uid_outside_the_group_is_refused(dep):
    r = dep.agent("lockfile", "status", "--json")
    assert r.returncode == 0 and b'"result"' in r.stdout, r.stdout
    r = dep.agent("lockfile", "status", "--json",
                  uid=D.uid_of("lf-outsider"))
    assert r.returncode != 0 and b'"result"' not in r.stdout, r.stdout
    assert b'"unreachable"' in r.stdout or b"E_PEER_REFUSED" in r.stdout


# ---- several agents (docs/docker.md, "Several agents") ----------------------

def test_two_agent_uids_each_get_their_answer(dep):
    """The images are built with ALLOWED_UIDS=2345 and the policy lists it
    too (dockerenv): the console started on its `docker run -it` pty (the
    fixture), and an agent container of each uid gets its answer; the card
    names each uid's account in the console's image."""
    for uid, name in ((None, "agent"), (D.SECOND_UID,
                                        "agent-%d" % D.SECOND_UID)):
        r, doc = dep.ask("2024/a.pdf", uid=uid)
        assert r.returncode == 0, (uid, r.stdout, r.stderr)
        assert answers(doc) == [("is-pdf", 1)], (uid, doc)
        want = D.uid_of("agent") if uid is None else uid
        assert re.search(r"from uid\s+%d \(%s\)" % (want, name),
                         dep.term.screen(dep.window)), name


def test_uid_outside_the_list_is_refused(dep):
    """A uid neither image was built to allow gets no clients group from
    lox agent, so it cannot enter the 2750 socket directory; the allowed
    one gets the group (and nothing else differs on its line)."""
    r = dep.agent("lockfile", "status", "--json", uid=D.OUTSIDER_UID)
    assert r.returncode != 0 and b'"result"' not in r.stdout, r.stdout
    assert b'"unreachable"' in r.stdout or b"E_PEER_REFUSED" in r.stdout
    r = dep.agent("lockfile", "status", "--json", uid=D.SECOND_UID)
    assert r.returncode == 0 and b'"result"' in r.stdout, r.stdout
    lines = {}
    for uid in (D.SECOND_UID, D.OUTSIDER_UID):
        p = dep.eng.lox("agent", "--print", "--image", D.IDS["agent"], "--uid",
                        str(uid), "--", "true")
        assert p.returncode == 0, p.stderr
        lines[uid] = shlex.split(p.stdout.decode())
    mine = lines[D.SECOND_UID]
    assert mine[mine.index("--group-add") + 1] == "lockfile-clients", mine
    assert [a for a in mine if a not in ("--group-add", "lockfile-clients")
            and a != str(D.SECOND_UID) + ":" + str(D.SECOND_UID)] == \
        [a for a in lines[D.OUTSIDER_UID]
         if a != str(D.OUTSIDER_UID) + ":" + str(D.OUTSIDER_UID)]


def test_accounts_have_primary_groups_of_their_own(dep):
    """The console and agent accounts' primary gids differ (left to
    useradd both were 1000), in both images; the allowed uid has an
    account in both, in the clients group."""
    def ids(image, user):
        return dep.eng.docker("run", "--rm", "--network", "none", image,
                              "id", user).stdout.decode()

    def gid(s):
        return re.search(r"gid=(\d+)", s).group(1)
    con = ids(CONSOLE, "lockfile")
    ag = ids(AGENT, "agent")
    assert gid(con) == str(D.ids()["LOCKFILE_GID"]), con
    assert gid(ag) == str(D.ids()["AGENT_GID"]) != gid(con), ag
    assert ids(CONSOLE, "agent") == ag
    for image in (CONSOLE, AGENT):
        s = ids(image, str(D.SECOND_UID))
        assert "gid=%d(agent-%d)" % (D.SECOND_UID, D.SECOND_UID) in s, s
        assert "lockfile-clients" in s, s


def test_agent_image_holds_the_client_only(dep):
    r = dep.eng.docker("run", "--rm", "--user", "root", "--network", "none",
                       AGENT, "sh", "-c",
                       "ls /usr/local/bin; find / -xdev -name 'lockfile-*'"
                       " -type f")
    assert r.stdout == b"lockfile\n", r.stdout
    r = dep.eng.docker("run", "--rm", "--network", "none", CONSOLE, "ls",
                       "/usr/local/bin")
    assert b"lockfile-console\n" in r.stdout, r.stdout


def test_a_shell_cannot_start_programs_in_the_console_container(dep):
    """docs/docker.md: the shipped profile refuses the way dash forks, so
    sh -c cannot run a program there ("Cannot fork"); the program run
    directly can."""
    r = dep.eng.docker("exec", "--user", "lockfile", "lockfile-console",
                       "ls", "/etc/lockfile", check=False)
    assert r.returncode == 0 and b"container.toml" in r.stdout, r.stderr
    r = dep.eng.docker("exec", "--user", "lockfile", "lockfile-console",
                       "sh", "-c", "ls /etc/lockfile; echo rc=$?",
                       check=False)
    assert b"container.toml" not in r.stdout, r.stdout
    assert b"Cannot fork" in r.stderr, (r.stdout, r.stderr)


def test_root_agent_with_default_capabilities_is_refused(dep):
    r = dep.agent("lockfile", "status", uid=0)
    assert r.returncode == 64 and b"never runs as uid or gid 0" in r.stderr
    # By hand, with Docker's default capabilities: it passes the socket's
    # modes (CAP_DAC_OVERRIDE) and the console's peer check refuses it.
    r = dep.eng.docker("run", "--rm", "--user", "0", "--network", "none",
                       "-v", "lockfile-run:/run/lockfile", AGENT, "lockfile",
                       "status", "--json", check=False)
    assert r.returncode == 1 and b"E_PEER_REFUSED" in r.stdout, r.stdout


# ---- consoles started by hand with an unsafe flag ----------------------------

def hand_line(dep, change):
    r = dep.eng.lox("--dry-run", "run", "--instance", "hand", "--source",
                    "invoices=" + dep.src, D.IDS["console"])
    assert r.returncode == 0, r.stderr
    # lox hands docker the checked profile as /dev/fd/N (docs/docker.md); a
    # line typed by hand names the shipped file instead
    argv = ["seccomp=" + D.PROFILE if a.startswith("seccomp=/dev/fd/") else a
            for a in shlex.split(r.stdout.decode())]
    return change(argv)


def with_pid_host(argv):
    return argv[:2] + ["--pid=host"] + argv[2:]


def with_seccomp(value):
    def f(argv):
        i = argv.index("--security-opt", argv.index("no-new-privileges"))
        assert argv[i + 1].startswith("seccomp=")
        argv[i + 1] = "seccomp=" + value
        return argv
    return f


def without_nnp(argv):
    i = argv.index("no-new-privileges")
    return argv[:i - 1] + argv[i + 1:]


@pytest.fixture(scope="module")
def hand(dep):
    dep.approve_policy("hand")
    allow = os.path.join(dep.eng.base, "allow-all.json")
    with open(allow, "w") as f:
        json.dump({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []}, f)
    return allow


CASES = ["pid-host", "unconfined", "allow-all", "no-nnp", "joined"]
CONDITION = {"pid-host": "container.pid-namespace",
             "unconfined": "container.seccomp",
             "allow-all": "container.seccomp",
             "no-nnp": "container.no-new-privs",
             "joined": "container.processes"}


@pytest.mark.parametrize("case", CASES)
def test_console_started_by_hand_unsafely_refuses_every_plan(dep, hand, case):
    change = {"pid-host": with_pid_host,
              "unconfined": with_seccomp("unconfined"),
              "allow-all": with_seccomp(hand),
              "no-nnp": without_nnp,
              "joined": lambda a: a}[case]
    w = dep.term.start(hand_line(dep, change))
    joiner = None
    try:
        dep.term.wait(w, r"lockfile console [0-9.]+: socket")
        if case == "joined":
            joiner = dep.eng.docker(
                "run", "-d", "--rm", "--pid=container:lockfile-hand-console",
                "--user", str(D.uid_of("agent")), "--network", "none",
                AGENT, "sleep", "300").stdout.decode().strip()
        r = dep.agent("lockfile", "ask", "--json", "--profile", "invoices",
                      "--key", "2024/a.pdf", "--plugin", "is-pdf",
                      instance="hand")
        assert r.returncode == 1, (r.stdout, r.stderr)
        assert json.loads(r.stdout)["error"] == "E_PROC_NOT_HIDDEN"
        assert "Approve?" not in dep.term.screen(w)
        d = dep.eng.docker("exec", "--user", "lockfile",
                           "lockfile-hand-console", "lockfile", "doctor",
                           "--json", check=False)
        assert d.returncode == 1, d.stdout
        failed = [c["name"] for c in json.loads(d.stdout)["checks"]
                  if not c["ok"]]
        assert CONDITION[case] in failed, failed
        audit = dep.eng.docker(
            "exec", "--user", "lockfile", "lockfile-hand-console", "cat",
            "/home/lockfile/.local/state/lockfile/audit.log").stdout
        last = json.loads(audit.splitlines()[-1])
        assert last["outcome"] == "E_PROC_NOT_HIDDEN", last
        assert last["cause"].startswith(CONDITION[case] + ":"), last
    finally:
        if joiner:
            dep.eng.docker("rm", "-f", joiner, check=False)
        dep.eng.docker("rm", "-f", "lockfile-hand-console", check=False)
        dep.term.kill(w)


def test_the_same_console_started_safely_by_hand_answers(dep, hand):
    """The hand-started line unchanged: the refusals above come from the
    one flag each changes."""
    w = dep.term.start(hand_line(dep, lambda a: a))
    try:
        dep.term.wait(w, r"lockfile console [0-9.]+: socket")
        r, doc = dep.ask("2024/a.pdf", instance="hand", window=w)
        assert r.returncode == 0 and answers(doc) == [("is-pdf", 1)]
        d = dep.eng.docker("exec", "-t", "--user", "lockfile",
                           "lockfile-hand-console", "lockfile", "doctor",
                           "--json", check=False)
        assert_doctor_holds(json.loads(d.stdout)["checks"])
    finally:
        dep.eng.docker("rm", "-f", "lockfile-hand-console", check=False)
        dep.term.kill(w)


# ---- lox in the real terminal ------------------------------------------------

def host_kernel_failures():
    """The kernel settings doctor checks are the host's (a container cannot
    change them): the ones this host fails, read from its /proc/sys."""
    def val(p):
        with open(p) as f:
            return f.read().strip()
    out = set()
    if val("/proc/sys/debug/exception-trace") != "0":
        out.add("kernel.exception-trace")
    if val("/proc/sys/kernel/dmesg_restrict") != "1":
        out.add("kernel.dmesg-restrict")
    return out


def assert_doctor_holds(checks):
    """Every condition of the deployment holds; of the host's kernel
    settings, exactly those this host fails fail."""
    failed = {c["name"] for c in checks if not c["ok"]}
    names = {c["name"] for c in checks}
    assert {"container.seccomp", "container.pid-namespace",
            "container.processes", "trust-config", "plugins"} <= names, names
    assert {n for n in failed if not n.startswith("kernel.")} == set(), \
        checks
    assert {n for n in failed if n in ("kernel.exception-trace",
            "kernel.dmesg-restrict")} == host_kernel_failures() & names


def test_lox_doctor_in_the_console_container(dep):
    w = dep.term.start([LOX, "doctor"])
    s = dep.term.wait(w, r"doctor: (every condition holds|some conditions "
                      r"fail)")
    assert "ok   container.seccomp" in s and "ok   isolation.mode" in s, s
    assert "ok   terminal.owner" in s, s
    # The same run as JSON, through lox, without a terminal (the terminal
    # conditions then fail, and only they, with the host's kernel ones).
    r = dep.eng.lox("doctor", "--json")
    checks = json.loads(r.stdout)["checks"]
    assert_doctor_holds([c for c in checks
                         if not c["name"].startswith("terminal.")])
    lines = [l for l in s.splitlines() if l[:4] in ("ok  ", "FAIL")]
    assert_doctor_holds([{"name": l.split()[1], "ok": l.startswith("ok")}
                         for l in lines])


def test_detach_and_attach(dep):
    # ctrl-] twice detaches: lox run ends, the console goes on.
    dep.term.keys(dep.window, "C-]", "C-]")
    t0 = time.time()
    while not dep.term.dead(dep.window) and time.time() - t0 < 20:
        time.sleep(0.1)
    assert dep.term.dead(dep.window), dep.term.screen(dep.window)
    r = dep.eng.docker("inspect", "--format", "{{.State.Running}}",
                       "lockfile-console")
    assert r.stdout == b"true\n"
    dep.window = dep.term.start([LOX, "attach"])
    time.sleep(1)
    r, doc = dep.ask("2024/a.pdf")
    assert r.returncode == 0 and answers(doc) == [("is-pdf", 1)]


def test_attach_redraws_a_waiting_card(dep):
    """A human who attaches while a card waits sees the card (docker
    attach resizes the terminal; the console redraws on a resize), not a
    bare "Approve?" (docs/docker.md)."""
    out = {}

    def go():
        out["r"] = dep.agent("lockfile", "ask", "--json", "--profile",
                             "invoices", "--key", "2024/a.pdf", "--plugin",
                             "is-pdf")
    n = dep.term.screen(dep.window).count("Approve?")
    t = threading.Thread(target=go)
    t.start()
    dep.term.wait(dep.window, r"Approve\?", count=n + 1)
    dep.term.keys(dep.window, "C-]", "C-]")
    t0 = time.time()
    while not dep.term.dead(dep.window) and time.time() - t0 < 20:
        time.sleep(0.1)
    assert dep.term.dead(dep.window)
    dep.window = dep.term.start([LOX, "attach"])
    s = dep.term.wait(dep.window, r"Approve\?")
    card = s[s.rfind("an agent asks"):]
    assert '"2024/a.pdf"' in card and "is-pdf" in card, s[-2000:]
    time.sleep(0.5)     # the second resize of the attach, if any
    dep.term.type(dep.window, "y")
    t.join(120)
    assert not t.is_alive()
    assert answers(json.loads(out["r"].stdout)) == [("is-pdf", 1)]


def security_opts(hc):
    """SecurityOpt with the seccomp profile parsed (the clients may format
    the JSON differently)."""
    out = []
    for o in hc["SecurityOpt"]:
        if o.startswith("seccomp="):
            out.append(("seccomp", json.loads(o[8:])))
        else:
            out.append((o.split(":")[0], None))
    return sorted(out, key=lambda x: x[0])


# ---- docker-compose ------------------------------------------------------------

def test_compose_console_and_agent(dep):
    compose = os.path.join(D.ROOT, "docker", "docker-compose.yml")
    env = dep.eng.env(LOCKFILE_NAME="lockfile-compose",
                      LOCKFILE_CONSOLE_IMAGE=D.IDS["console"],
                      LOCKFILE_AGENT_IMAGE=D.IDS["agent"], LOCKFILE_SOURCE=dep.src)
    dc = ["docker-compose", "-f", compose, "-p", "lftestcompose"]
    policy = os.path.join(dep.eng.base, "policy-compose.toml")
    with open(policy, "w") as f:
        f.write(D.POLICY.replace("/srv/lockfile/invoices", "/srv/lockfile/data"))
    dep.approve_policy("compose", policy, source="data")
    try:
        r = subprocess.run(dc + ["up", "-d", "console"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        w = dep.term.start([LOX, "attach", "--instance", "compose"])
        time.sleep(1)
        mine = json.loads(dep.eng.docker("inspect", "lockfile-console")
                          .stdout)[0]["HostConfig"]
        theirs = json.loads(dep.eng.docker("inspect",
                            "lockfile-compose-console").stdout)[0]["HostConfig"]
        for k in ("CapDrop", "CapAdd", "Privileged", "ReadonlyRootfs", "Init",
                  "PidMode", "UsernsMode", "NetworkMode", "LogConfig",
                  "PidsLimit", "Memory", "Ulimits", "Tmpfs"):
            assert mine[k] == theirs[k], (k, mine[k], theirs[k])
        assert security_opts(mine) == security_opts(theirs)
        ask = ["lockfile", "ask", "--json", "--profile", "invoices", "--key",
               "2024/a.pdf", "--plugin", "is-pdf"]
        r = dep.approved(lambda: subprocess.run(
            dc + ["run", "--rm", "agent"] + ask, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=120), window=w)
        assert r.returncode == 0, r.stderr
        assert answers(json.loads(r.stdout)) == [("is-pdf", 1)]
    finally:
        subprocess.run(dc + ["down"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)


# ---- the hostile plugins, inside ------------------------------------------------

@pytest.fixture(scope="module")
def box(dep):
    from hostile import HostileBox
    b = HostileBox(dep.eng, D.IDS["console"], DOCKER)
    yield b
    b.stop()


def _attempt_names():
    from hostile import ATTEMPTS
    return [a.name for a in ATTEMPTS]


@pytest.mark.parametrize("name", _attempt_names())
def test_hostile_plugin_in_the_console_container(box, name):
    from hostile import ATTEMPTS
    a = [x for x in ATTEMPTS if x.name == name][0]
    ok, diag = box.run(a)
    assert ok, diag
