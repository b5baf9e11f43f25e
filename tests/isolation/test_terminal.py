"""The terminal checks: the console starts only on a terminal of the
console account that no agent can drive or read; a multiplexer of the
console account is allowed (the e2e harness's own tmux), system.toml can
refuse it, name relays, and refuse X11. Each refusal stops the start-up
(exit 70) with the condition named, and doctor, run on the same terminal,
names it too. Typed values are never echoed."""
import json
import os
import shlex
import shutil
import subprocess
import threading

from isoenv import CONSOLE_USER, as_user, gid_of, uid_of, wait_for


def launch(env, console_env=None, hold=False, wrapper=None):
    """Start doctor, then the console, in one pane of the console account's
    tmux (host mode: a simulated host whose /proc hides, declared). hold: the pane waits for Enter first, so the
    test can change the terminal before anything runs."""
    sysenv = "LOCKFILE_SYSCONFDIR=" + env.sysconf
    extra = " ".join("%s=%s" % (k, shlex.quote(v))
                     for k, v in (console_env or {}).items())
    binary = os.path.join(env.build, "lockfile")
    env.doctor_out = os.path.join(env.tmuxdir, "doctor.json")
    doctor = ("env %s %s %s doctor --json --home %s --socket %s > %s 2>&1; "
              "echo $? > %s.rc" % (sysenv, extra, binary, env.home, env.socket,
                                   env.doctor_out, env.doctor_out))
    console = "env %s %s %s console --home %s --socket %s" % (
        sysenv, extra, binary, env.home, env.socket)
    script = "read x; " if hold else ""
    if wrapper:
        # the wrapper stays doctor's and the console's parent, and passes
        # the console's status on
        script += "exec %s -c %s" % (wrapper, shlex.quote(
            doctor + "; " + console + "; exit $?"))
    else:
        script += doctor + "; exec " + console
    env.start(pidns=True, procopts="hidepid=invisible", seccomp=None,
              inner="sh -c " + shlex.quote(script), wait=False,
              declare_host=True)


def pane(env, fmt):
    return env.tmux("list-panes", "-F", fmt).stdout.decode().strip()


def doctor_checks(env, timeout=20):
    assert wait_for(lambda: os.path.exists(env.doctor_out + ".rc") and
                    os.path.getsize(env.doctor_out + ".rc") > 0, timeout)
    with open(env.doctor_out) as f:
        doc = json.loads(f.read().strip().splitlines()[-1])
    return {c["name"]: (c["ok"], c["detail"]) for c in doc["checks"]}


def refused(env, condition, text):
    # The pane's exit status (70) is not always reported by tmux 3.3 (it
    # may mark the pane dead on the terminal's EOF first): the console's
    # own last line says the start-up was refused.
    assert wait_for(lambda: pane(env, "#{pane_dead}") == "1", 20), env.screen()
    env.wait_screen("refusing this terminal: %s: %s" % (condition, text))
    env.wait_screen("lockfile console: start-up refused")
    # nothing was served, so nothing is said to be wiped (issue 32)
    assert "wiping values" not in env.screen(), env.screen()
    assert pane(env, "#{pane_dead_status}") in ("", "70")
    checks = doctor_checks(env)
    assert checks[condition][0] is False, checks[condition]
    assert not os.path.exists(env.socket)


def test_console_accounts_own_tmux_is_allowed(iso):
    launch(iso)
    iso.wait_for_socket()
    checks = doctor_checks(iso)
    for name in ("terminal.device", "terminal.owner", "terminal.mode",
                 "terminal.rules", "terminal.relay", "terminal.x11",
                 "terminal.master"):
        assert checks[name][0] is True, (name, checks[name])
    assert "a multiplexer of the console account" in checks["terminal.relay"][1]
    # the console account's tmux server holds the pane's master, visibly
    assert "(tmux: server), the console account's, holds pts/" in \
        checks["terminal.master"][1], checks["terminal.master"]


def test_system_toml_refuses_own_multiplexer(iso):
    iso.write_system_toml('own_multiplexer = "refuse"\n')
    launch(iso)
    refused(iso, "terminal.relay", "multiplexer pid [0-9]+ \\(tmux: server\\): "
            "system.toml refuses multiplexers")


def test_system_toml_names_a_relay(iso):
    iso.write_system_toml('relays = ["tmux"]\n')
    launch(iso)
    refused(iso, "terminal.relay", "pid [0-9]+ \\(tmux: server\\) relays the "
            "terminal")


def test_relay_program_in_the_ancestry(iso):
    # a relay by the default list (socat), between tmux and the console
    d = os.path.join(iso.base, "bin")
    os.mkdir(d)
    shutil.copy("/bin/sh", os.path.join(d, "socat"))
    os.chmod(d, 0o755)
    launch(iso, wrapper=os.path.join(d, "socat"))
    refused(iso, "terminal.relay", "pid [0-9]+ \\(socat\\) relays the terminal")


def test_x11_refused_with_display(iso):
    iso.write_system_toml('x11 = "refuse"\n')
    launch(iso, console_env={"DISPLAY": ":0"})
    refused(iso, "terminal.x11", "the console's environment has DISPLAY")


def test_x11_terminal_in_the_ancestry(iso):
    iso.write_system_toml('x11 = "refuse"\n')
    d = os.path.join(iso.base, "bin")
    os.mkdir(d)
    shutil.copy("/bin/sh", os.path.join(d, "xterm"))
    os.chmod(d, 0o755)
    launch(iso, wrapper=os.path.join(d, "xterm"))
    refused(iso, "terminal.x11", "pid [0-9]+ \\(xterm\\) is an X11 terminal")


def test_x11_refused_by_default(iso):
    """No system.toml: X11 is refused all the same (it used to be allowed
    unless system.toml said otherwise)."""
    assert not os.path.exists(os.path.join(iso.sysconf, "system.toml"))
    launch(iso, console_env={"DISPLAY": ":0"})
    refused(iso, "terminal.x11", "the console's environment has DISPLAY, "
            "and X11 is refused")


def test_x11_allowed_only_by_system_toml(iso):
    iso.write_system_toml('x11 = "allow"\n')
    launch(iso, console_env={"DISPLAY": ":0"})
    iso.wait_for_socket()
    assert doctor_checks(iso)["terminal.x11"] == (True,
                                                  "system.toml allows X11")


def test_x11_refuse_without_display(iso):
    iso.write_system_toml('x11 = "refuse"\n')
    launch(iso)
    iso.wait_for_socket()
    assert doctor_checks(iso)["terminal.x11"][0] is True


def test_system_toml_group_writable(iso):
    iso.write_system_toml('x11 = "refuse"\n', mode=0o664)
    launch(iso)
    refused(iso, "terminal.rules", "system.toml: not a root-owned file")


def test_system_toml_unknown_key(iso):
    iso.write_system_toml('x11 = "refuse"\nallow_agents = true\n')
    launch(iso)
    refused(iso, "terminal.rules", "system.toml: unknown key or bad value")


def hold_then(env, change):
    launch(env, hold=True)
    tty = pane(env, "#{pane_tty}")
    change(tty)
    env.type("")


def test_terminal_writable_by_the_clients_group(iso):
    def change(tty):
        os.chown(tty, uid_of(CONSOLE_USER), gid_of("lockfile-clients"))
        os.chmod(tty, 0o620)
    hold_then(iso, change)
    refused(iso, "terminal.mode", "the terminal's group %d may write to it"
            % gid_of("lockfile-clients"))


def test_terminal_readable_by_others(iso):
    hold_then(iso, lambda tty: os.chmod(tty, 0o604))
    refused(iso, "terminal.mode", "the terminal is open to others")


def test_terminal_of_another_account(iso):
    hold_then(iso, lambda tty: os.chown(tty, uid_of("agent"), -1))
    refused(iso, "terminal.owner", "the terminal belongs to uid %d"
            % uid_of("agent"))
    # and says what to do, not only what is wrong
    iso.wait_screen("start tmux as the console account \\(docs/host.md\\)")


def test_terminal_group_writable_for_no_agent_is_fine(iso):
    def change(tty):
        os.chown(tty, uid_of(CONSOLE_USER), gid_of("tty"))
        os.chmod(tty, 0o620)
    hold_then(iso, change)
    iso.wait_for_socket()
    assert doctor_checks(iso)["terminal.mode"][0] is True


def test_typed_value_is_never_echoed(iso):
    launch(iso)
    iso.wait_for_socket()
    secret = "alice@example.org"
    res = {}
    t = threading.Thread(target=lambda: res.setdefault("line", iso.rpc(
        "file.plan", {"profile": "invoices", "key": "2024/c.txt",
                      "plugins": [{"name": "contains",
                                   "inputs": {"needle": "${email}"}}]})[1]))
    t.start()
    iso.wait_screen("Approve\\?")
    iso.type("y")
    iso.wait_screen("value for \\$\\{email\\}")
    iso.type(secret)
    t.join(60)
    assert '"result":1' in res["line"], res["line"]
    assert secret not in iso.screen()
    assert secret not in json.dumps(iso.audit())
    assert secret not in res["line"]


# ---- relays run by another account (issue 32) ------------------------
# With /proc hidepid the console cannot see root's runuser -P, su -P or
# script among its parents: the pty they made is the console account's
# (runuser -P and su -P chown it), its session and foreground group are
# the console account's shell's, so every other condition holds. The
# master's holder is what gives them away: no process the console sees
# holds it (src/host/relay.c).

def launch_relayed(env, relay):
    """The console account's tmux pane only waits; root, in the console's
    namespaces, runs relay (argv whose last element is a shell command run
    as the console account) on the pane's terminal, around doctor and the
    console as launch() starts them."""
    env._find_console = lambda *a, **k: None	# none yet: do not wait for it
    env.start(pidns=True, procopts="hidepid=invisible", seccomp=None,
              inner="sleep 100000", wait=False, declare_host=True)
    tty = pane(env, "#{pane_tty}")
    sysenv = "LOCKFILE_SYSCONFDIR=" + env.sysconf
    binary = os.path.join(env.build, "lockfile")
    env.doctor_out = os.path.join(env.tmuxdir, "doctor.json")
    script = ("%s doctor --json --home %s --socket %s > %s 2>&1; echo $? > "
              "%s.rc; exec %s console --home %s --socket %s" % (
                  binary, env.home, env.socket, env.doctor_out,
                  env.doctor_out, binary, env.home, env.socket))
    argv = ["nsenter", "-t", str(env.ns_init), "-p", "-m", "--", "env", "-i",
            "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "TERM=xterm",
            "HOME=" + env.home, sysenv] + relay(script)
    with open(tty, "r+b", buffering=0) as t:
        env.relay = subprocess.Popen(argv, stdin=t, stdout=t, stderr=t,
                                     start_new_session=True)


def refused_master(env):
    env.wait_screen("refusing this terminal: terminal.master: no process "
                    "the console sees holds pts/[0-9]+'s master: a hidden "
                    "relay")
    env.wait_screen("lockfile console: start-up refused")
    checks = doctor_checks(env)
    assert checks["terminal.master"][0] is False, checks["terminal.master"]
    # every other terminal condition holds: the master is the only tell
    for name in ("terminal.device", "terminal.owner", "terminal.mode",
                 "terminal.relay"):
        assert checks[name][0] is True, (name, checks[name])
    assert not os.path.exists(env.socket)
    env.relay.wait(20)


def test_runuser_pty_run_by_root_is_refused(iso):
    launch_relayed(iso, lambda sh: ["runuser", "-P", "-u", CONSOLE_USER,
                                    "--", "sh", "-c", sh])
    refused_master(iso)


def test_su_pty_run_by_root_is_refused(iso):
    launch_relayed(iso, lambda sh: ["su", "-P", "-s", "/bin/sh", "-c", sh,
                                    CONSOLE_USER])
    refused_master(iso)


def test_script_run_by_root_is_refused(iso):
    # root's script, its pty handed to the console account (as runuser -P
    # does), then the console account on it
    launch_relayed(iso, lambda sh: [
        "script", "-q", "-e", "-c",
        "chown %s \"$(tty)\" && chmod 600 \"$(tty)\" && exec runuser -u %s "
        "-- sh -c %s" % (CONSOLE_USER, CONSOLE_USER, shlex.quote(sh)),
        "/dev/null"])
    refused_master(iso)


def test_unseen_relay_allowed_by_system_toml(iso):
    """An operator who logs in over ssh (sshd's session process is not
    dumpable, so hidden too) may accept it, in root's system.toml."""
    iso.write_system_toml('unseen_relay = "allow"\n')
    launch_relayed(iso, lambda sh: ["runuser", "-P", "-u", CONSOLE_USER,
                                    "--", "sh", "-c", sh])
    iso.wait_for_socket()
    checks = doctor_checks(iso)
    assert checks["terminal.master"] == (
        True, checks["terminal.master"][1]) and "unseen_relay" in \
        checks["terminal.master"][1]


def test_no_terminal_names_what_works(iso):
    """`su lockfile -c 'lockfile console'` from a shell without a terminal
    for it: refused, and the refusal names what gives the console one
    (issue 32: it named no fix)."""
    binary = os.path.join(iso.build, "lockfile")
    cmd = "env LOCKFILE_SYSCONFDIR=%s %s console --home %s --socket %s" % (
        iso.sysconf, binary, iso.home, iso.socket)
    r = subprocess.run(["su", CONSOLE_USER, "-s", "/bin/sh", "-c", cmd],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, start_new_session=True,
                       timeout=60)
    out = r.stdout.decode()
    assert r.returncode == 70, out
    assert "no controlling terminal (the console needs its human): su -c " \
        "and runuser -c give none; run it in tmux started as the console " \
        "account: runuser -l lockfile -c 'tmux new-session -A -s console' " \
        "(docs/host.md, step 6)" in out, out
    assert not os.path.exists(iso.socket)
