"""docs/host.md, walked: from `make install` to an agent's first answer,
with the situations a newcomer met on the way each refused first, then
working (issue 20).

A test cannot change this machine, so the guide's host is simulated and
its paths are mapped:
- the host is a pid and mount namespace of its own (its pid 1 is our
  init, its /proc a fresh procfs of that pid namespace): the guide's
  remount and `doctor --declare-host` run in it for real, and so do the
  console and the agent;
- `make install` stages under DESTDIR (from the plain build's tree,
  INSTALL_BUILD, so nothing is compiled again); /etc/lockfile is the staged
  one (LOCKFILE_SYSCONFDIR), the binary the staged one;
- /run/lockfile, /var/lib/lockfile and /srv/lockfile are directories of the
  test (the shipped tmpfiles.d line is run with its path replaced);
- the accounts exist already (tests/setup-accounts.sh): their properties
  are checked, `adduser` is not run;
- the console's terminal is the harness's tmux run as the console account
  (what `runuser -l lockfile -c 'tmux ...'` gives), in the simulated host;
- `lockfile plugin install is-pdf` needs the marketplace: the plugin is laid
  out as the store does (tests/store covers the signed install).

Every command the test runs for a step of the guide is checked to be
written in docs/host.md, so the two cannot drift apart silently."""
import grp
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import time

import pytest

from lftest import setpriv

from conftest import make_pdf
from lfenv import (BUILD, CLIENTS_GROUP, CONSOLE_USER, ROOT,
                   UNMOUNT_PROCFS, ConsoleEnv, shlex_quote, uid_of, gid_of)

GUIDE = os.path.join(ROOT, "docs", "host.md")


def guide():
    with open(GUIDE) as f:
        return f.read()


def says(*lines):
    """Each line is written in docs/host.md as it is run here."""
    text = guide()
    for line in lines:
        assert line in text, "docs/host.md no longer says: %s" % line


def guide_block(after):
    """The fenced block of docs/host.md that follows the line `after`."""
    text = guide()
    i = text.index(after)
    m = re.search(r"```[a-z]*\n(.*?)```", text[i:], re.S)
    return m.group(1)


class Host:
    """The simulated host: a pid and mount namespace whose init is ours,
    with a procfs of its own on /proc that does not hide yet."""

    def __init__(self):
        self.p = subprocess.Popen(
            ["unshare", "--pid", "--mount", "--fork", "--kill-child",
             "--propagation", "private", "sh", "-c",
             UNMOUNT_PROCFS + " && mount -t proc proc /proc && "
             "exec sleep 1000000"],
            stdin=subprocess.DEVNULL)
        t0 = time.time()
        self.init = None
        while time.time() - t0 < 10 and self.init is None:
            try:
                with open("/proc/%d/task/%d/children" % (self.p.pid,
                                                         self.p.pid)) as f:
                    kids = f.read().split()
                if kids:
                    self.init = int(kids[0])
            except OSError:
                pass
            time.sleep(0.02)
        assert self.init, "no init in the simulated host"
        t0 = time.time()
        while time.time() - t0 < 10:
            if "proc" in self.run(["cat", "/proc/self/mountinfo"]).stdout:
                break
            time.sleep(0.05)

    def run(self, argv, user=None, check=False, input=None, env=None):
        inner = list(argv)
        if env:
            inner = ["env"] + ["%s=%s" % kv for kv in env.items()] + inner
        if user is not None:
            inner = setpriv(user) + ["env", "-i", "PATH=/usr/bin:/bin",
                                     "HOME=/"] + inner
        return subprocess.run(["nsenter", "-t", str(self.init), "-p", "-m",
                               "--"] + inner, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, input=input,
                              check=check, timeout=120, text=True, cwd="/")

    def close(self):
        self.p.kill()
        self.p.wait()


@pytest.fixture
def walk():
    env = ConsoleEnv()
    host = Host()
    yield env, host
    env.stop()
    host.close()
    env.cleanup()


def pane(env, host, argv):
    """A command in the console's terminal: the harness's tmux as the
    console account, in the simulated host (a fresh server each time)."""
    env.tmux("kill-server", check=False)
    env.start(proc="enter", ns=host.init, argv=argv)


def wait_pane_dead(env, timeout=30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if not env.console_alive():
            return env.screen()
        time.sleep(0.05)
    raise AssertionError("the pane is still running:\n" + env.screen())


def test_the_host_guide(walk):
    env, host = walk
    dest = os.path.join(env.base, "dest")
    sysconf = os.path.join(dest, "etc", "lockfile")
    binary = os.path.join(dest, "usr", "local", "bin", "lockfile")
    sysenv = {"LOCKFILE_SYSCONFDIR": sysconf}

    # ---- 1. build and install -----------------------------------------
    says("make install")
    r = subprocess.run(["make", "-C", ROOT, "install", "DESTDIR=" + dest,
                        "INSTALL_BUILD=" + BUILD], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    assert r.returncode == 0, r.stdout
    for path, mode in ((binary, 0o755),
                       (os.path.join(sysconf, "trusted_root.json"), 0o644),
                       (os.path.join(sysconf, "trust.toml"), 0o644),
                       (os.path.join(sysconf, "system.toml"), 0o644),
                       (os.path.join(dest, "usr/local/lib/tmpfiles.d/"
                                     "lockfile.conf"), 0o644)):
        st = os.stat(path)
        assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) == mode, path
    with open(os.path.join(sysconf, "system.toml")) as f:
        assert 'x11 = "refuse"' in f.read()

    # ---- 2. accounts and group (made by tests/setup-accounts.sh) -----
    says("adduser --system --group --home /var/lib/lockfile --shell /bin/sh "
         "lockfile", "addgroup --system lockfile-clients",
         "adduser agent lockfile-clients")
    assert "agent" in grp.getgrnam(CLIENTS_GROUP).gr_mem
    assert pwd.getpwnam(CONSOLE_USER)

    # ---- 3. /proc: refused until it hides, then declared --------------
    says("proc /proc proc defaults,hidepid=invisible 0 0",
         "mount -o remount,hidepid=invisible /proc",
         "lockfile doctor --declare-host")
    r = host.run([binary, "doctor", "--declare-host"], env=sysenv)
    assert r.returncode == 1 and "FAIL host.proc" in r.stdout, r.stdout
    assert "mount -o remount,hidepid=invisible /proc" in r.stdout
    assert not os.path.exists(os.path.join(sysconf, "host.toml"))
    host.run(["mount", "-o", "remount,hidepid=invisible", "/proc"],
             check=True)
    r = host.run([binary, "doctor", "--declare-host"], env=sysenv)
    assert r.returncode == 0, r.stdout + r.stderr
    st = os.stat(os.path.join(sysconf, "host.toml"))
    assert st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o644

    # ---- 4. the socket directory, from the shipped tmpfiles.d line ----
    says("systemd-tmpfiles --create /usr/local/lib/tmpfiles.d/lockfile.conf")
    shutil.rmtree(env.rundir)
    with open(os.path.join(dest, "usr/local/lib/tmpfiles.d/"
                           "lockfile.conf")) as f:
        conf = f.read()
    assert "d /run/lockfile 2750 lockfile lockfile-clients -" in conf
    mine = os.path.join(env.base, "tmpfiles.conf")
    with open(mine, "w") as f:
        f.write(conf.replace("/run/lockfile", env.rundir))
    subprocess.run(["systemd-tmpfiles", "--create", mine], check=True)
    st = os.stat(env.rundir)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (
        uid_of(CONSOLE_USER), gid_of(CLIENTS_GROUP), 0o2750)

    # ---- 5. the files: first as the newcomer left them ----------------
    srv = os.path.join(env.base, "srv", "lockfile")
    invoices = os.path.join(srv, "invoices")
    os.makedirs(os.path.join(invoices, "2024"))
    with open(os.path.join(invoices, "2024/a.pdf"), "wb") as f:
        f.write(make_pdf())
    for d in (srv, invoices, os.path.join(invoices, "2024")):
        os.chmod(d, 0o755)
    os.chmod(os.path.join(invoices, "2024/a.pdf"), 0o444)

    # ---- 7. the policy, as the guide writes it ------------------------
    script = guide_block("## 7. The policy")
    policy = script[script.index("<<'EOF'\n") + 8:script.index("\nEOF")]
    policy = policy.replace("/srv/lockfile/invoices", invoices) + "\n"
    os.makedirs(os.path.join(env.home, ".config/lockfile"), exist_ok=True)
    env._write_home(".config/lockfile/policy.toml", policy.encode(), 0o644)
    says("lockfile policy approve")
    approve = ["env", "LOCKFILE_SYSCONFDIR=" + sysconf, binary, "policy",
               "approve", "--home", env.home]
    pane(env, host, approve)
    s = wait_pane_dead(env)
    assert ("the policy is refused: profiles.invoices: %s has mode 0755"
            % invoices) in s, s

    # ---- 5. again, as the guide says ----------------------------------
    says("install -d -o lockfile -g lockfile -m 0700 /srv/lockfile "
         "/srv/lockfile/invoices",
         "chown -R lockfile:lockfile /srv/lockfile && chmod -R go= "
         "/srv/lockfile")
    subprocess.run(["install", "-d", "-o", "lockfile", "-g", "lockfile", "-m",
                    "0700", srv, invoices], check=True)
    subprocess.run("chown -R lockfile:lockfile %s && chmod -R go= %s"
                   % (shlex_quote(srv), shlex_quote(srv)), shell=True,
                   check=True)
    pane(env, host, approve)
    env.wait_screen(r"Type 'approve' to make this")
    env.type("approve")
    s = wait_pane_dead(env)
    assert "approved (fingerprint" in s and "restart the console" in s, s

    # ---- 10. the console, before any plugin is installed --------------
    says("while lockfile console; do sleep 1; done")
    console = ("while env LOCKFILE_SYSCONFDIR=%s %s console --home %s "
               "--socket %s; do sleep 1; done" % (
                   shlex_quote(sysconf), shlex_quote(binary),
                   shlex_quote(env.home), shlex_quote(env.socket)))
    pane(env, host, ["sh", "-c", console])
    env.wait_for_socket()
    env.console_pid = env._find_console()
    assert "WARNING" not in env.screen(), env.screen()

    # ---- 8. a plugin installed while the console runs ----------------
    says("lockfile plugin install is-pdf")
    env.install_plugin("is-pdf")

    # ---- 9. doctor, in the console's terminal ------------------------
    says("lockfile doctor")
    out = os.path.join(env.tmuxdir, "doctor.json")
    doctor = ("env LOCKFILE_SYSCONFDIR=%s %s doctor --json --home %s --socket "
              "%s > %s; echo $? >> %s" % (
                  shlex_quote(sysconf), shlex_quote(binary),
                  shlex_quote(env.home), shlex_quote(env.socket),
                  shlex_quote(out), shlex_quote(out)))
    env.tmux("new-window", "-d", "sh -c " + shlex_quote(doctor))
    t0 = time.time()
    while time.time() - t0 < 30 and not (
            os.path.exists(out) and open(out).read().count("\n") >= 2):
        time.sleep(0.1)
    lines = open(out).read().splitlines()
    doc = json.loads(lines[0])
    bad = [c for c in doc["checks"] if not c["ok"]]
    assert bad == [] and lines[1] == "0", bad

    # ---- 11. the agent's side -----------------------------------------
    says("lockfile status",
         "lockfile ask --profile invoices --key 2024/a.pdf --plugin is-pdf")
    sock = ["--socket", env.socket]
    r = host.run([binary, "status"] + sock, user="agent")
    assert r.returncode == 0, r.stdout + r.stderr
    cards = env.screen().count("Approve?")
    ask = subprocess.Popen(
        ["nsenter", "-t", str(host.init), "-p", "-m", "--", "setpriv",
         "--reuid=agent", "--regid=agent", "--init-groups", "env", "-i",
         "PATH=/usr/bin:/bin", binary, "ask"] + sock +
        ["--profile", "invoices", "--key", "2024/a.pdf", "--plugin",
         "is-pdf"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    env.wait_screen(r"Approve\?", count=cards + 1)
    env.type("yes")
    outp, errp = ask.communicate(timeout=60)
    assert ask.returncode == 0, outp + errp
    assert "answer is-pdf 1.0.0: 1" in outp, outp

    # ---- 10. the session ends; the loop starts the next one -----------
    first = env.console_pid
    os.kill(first, signal.SIGTERM)
    t0 = time.time()
    while time.time() - t0 < 30:
        pid = env._find_console(timeout=1)
        if pid not in (None, first) and os.path.exists(env.socket):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the loop did not start a new session:\n"
                             + env.screen())
    assert "deleting fetched files" in env.screen()
