"""lockfile doctor: one line per condition, each passing or failing by
name, exit status 1 on any failure (0 when all hold), --json too. The
/proc and terminal conditions are in test_proc.py and test_terminal.py;
here the rest: owners and modes, the policy, the plugins, the space."""
import json
import os
import subprocess

import pytest

from lftest import setpriv

from isoenv import CONSOLE_USER, uid_of, wait_for
from test_terminal import doctor_checks, launch


def doctor_text(env, *extra):
    r = subprocess.run(
        setpriv(CONSOLE_USER) +
        ["env", "-i", "PATH=/usr/bin:/bin",
         "LOCKFILE_SYSCONFDIR=" + env.sysconf,
         os.path.join(env.build, "lockfile"), "doctor", "--home", env.home,
         "--socket", env.socket] + list(extra),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        timeout=60, cwd="/")
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def failing(env, name):
    rc, checks, _ = env.doctor(seccomp=None, in_ns=False)
    assert rc == 1
    assert checks[name][0] is False, (name, checks[name])
    return checks[name][1]


def test_everything_holds_in_a_good_setup(iso):
    """Host mode, hidepid, the console account's tmux, a root-owned system
    configuration directory: every line passes and the exit status is 0."""
    launch(iso)
    iso.wait_for_socket()
    checks = doctor_checks(iso)
    bad = {k: v for k, v in checks.items() if not v[0]}
    assert bad == {}, bad
    with open(iso.doctor_out + ".rc") as f:
        assert f.read().strip() == "0"
    for name in ("landlock", "seccomp", "proc.hidepid", "proc.hidepid-gid",
                 "terminal.owner", "home", "socket-dir", "socket", "binary",
                 "trust-config", "policy.approved", "policy.edit", "plugins",
                 "plugins.yanked", "workspace.space"):
        assert name in checks, name


def test_text_lines_and_exit_status(iso):
    rc, out, _ = doctor_text(iso)
    lines = out.splitlines()
    assert rc == 1	# no terminal here, and the host's /proc has no hidepid
    body = lines[:-1]
    assert all(l[:4] in ("ok  ", "FAIL") for l in body), out
    names = [l[5:].split()[0] for l in body]
    assert "terminal.device" in names and "landlock" in names
    assert [l for l in body if l.startswith("FAIL terminal.device")]
    assert lines[-1] == "doctor: some conditions fail"
    rc2, js, _ = doctor_text(iso, "--json")
    doc = json.loads(js)
    assert rc2 == 1 and doc["ok"] is False
    assert [c["name"] for c in doc["checks"]] == names


def test_yanked_plugin_recorded(iso):
    for p in iso.lock["plugins"]:
        if p["name"] == "is-pdf":
            p["yanked"] = True
    iso.write_lock()
    assert "is-pdf@1.0.0" in failing(iso, "plugins.yanked")


def test_tampered_plugin(iso):
    path = os.path.join(iso.store, "plugins/contains/1.0.0/plugin")
    with open(path, "ab") as f:
        f.write(b"\0")
    detail = failing(iso, "plugins")
    assert "contains@1.0.0" in detail and "hash" in detail


def test_unapproved_policy_edit(iso):
    with open(os.path.join(iso.home, ".config/lockfile/policy.toml"), "a") as f:
        f.write("# an edit\n")
    assert "not approved" in failing(iso, "policy.edit")


def test_no_approved_policy(iso):
    os.unlink(os.path.join(iso.home,
                           ".local/state/lockfile/policy.approved.toml"))
    assert "no approved policy" in failing(iso, "policy.approved")
    failing(iso, "workspace.space")


def test_workspace_cap_beyond_free_space(iso):
    sv = os.statvfs(iso.home)
    if sv.f_bavail * sv.f_frsize >= 1 << 40:
        pytest.skip("more than the largest cap (1 TiB) is free here")
    iso.write_policy(answer_quantum_s=1, max_workspace_bytes=1 << 40)
    assert "bytes free" in failing(iso, "workspace.space")


def test_home_open_to_the_group(iso):
    os.chmod(iso.home, 0o750)
    assert "0750" in failing(iso, "home")


def test_socket_directory_open_to_others(iso):
    os.chmod(iso.rundir, 0o2755)
    assert "2755" in failing(iso, "socket-dir")


def test_trust_config_file_group_writable(iso):
    iso.write_sysconf("trusted_root.json", "{}\n", mode=0o664)
    assert "trusted_root.json" in failing(iso, "trust-config")


def test_trust_config_not_root_owned(iso):
    iso.write_sysconf("marketplaces.toml", "\n", owner=uid_of(CONSOLE_USER))
    assert "marketplaces.toml" in failing(iso, "trust-config")


def test_doctor_refuses_root_and_bad_options(iso):
    binary = os.path.join(iso.build, "lockfile")
    r = subprocess.run([binary, "doctor"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    assert r.returncode == 64
    rc, _, _ = doctor_text(iso, "--allowed-uids", "12,x")
    assert rc == 64
    rc, _, _ = doctor_text(iso, "--nonsense")
    assert rc == 64


# ---- no Landlock, no seccomp: the kernel says so, doctor fails ------------

@pytest.mark.parametrize("kernel,name,text", [
    ("no-landlock", "landlock", "landlock is not supported by this kernel"),
    # a kernel with Landlock, refused by a container's profile: said so,
    # not "not supported by this kernel" (issue 32)
    ("landlock-eperm", "landlock", "landlock is refused by a seccomp "
     "filter this process runs under"),
    ("no-seccomp", "seccomp", "not supported by this kernel")])
def test_doctor_fails_on_a_kernel_without(iso, kernel, name, text):
    """with-seccomp answers the Landlock calls (or seccomp's) as a kernel
    built without them; everything else is the real kernel's. The same
    doctor passes both lines without it."""
    rc, checks, _ = iso.doctor(seccomp=None, in_ns=False)
    assert checks[name][0] is True, checks[name]
    rc, checks, _ = iso.doctor(seccomp=kernel, in_ns=False)
    assert rc == 1
    assert checks[name][0] is False and text in checks[name][1], checks[name]
    other = "seccomp" if name == "landlock" else "landlock"
    assert checks[other][0] is True, checks[other]


def test_console_without_seccomp_refuses_to_start(iso):
    """Without seccomp the console cannot confine itself: no console."""
    iso.start(pidns=True, procopts="hidepid=invisible", seccomp="no-seccomp",
              declare_host=True, wait=False)
    iso.wait_screen("self-confinement failed")
    assert wait_for(lambda: not iso.console_alive(), 20)
