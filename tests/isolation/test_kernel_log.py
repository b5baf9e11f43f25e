"""The kernel log (docs/isolation.md, "The kernel log"): a crashing plugin's
fault address and registers (~140 bits of its choosing) reach it. In host
mode a plan is refused (E_PROC_NOT_HIDDEN, before anything is read) while
an agent can read the kernel log: kernel.dmesg_restrict 0, or a copy on
disk (kern.log, syslog, the journal) readable by an agent's account or
groups. Doctor names those and reports debug.exception-trace and a
core_pattern that hands crashes to a helper.

The machine's own settings are not touched (other suites run beside):
each situation is built in the console's private mount namespace (a
simulated host), with files bound over /proc/sys/kernel/... and over
/var/log."""
import grp
import os
import shlex
import shutil
import tempfile

import pytest

from isoenv import error_code
from test_proc import approved_plan, assert_doctor_fails, \
    assert_refused_before_read, plan


@pytest.fixture
def fake():
    d = tempfile.mkdtemp(prefix="lfklog-", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def sysctl_file(fake, name, value):
    p = os.path.join(fake, name.replace("/", "_"))
    with open(p, "w") as f:
        f.write(value + "\n")
    os.chmod(p, 0o644)
    return "mount --bind %s /proc/sys/%s" % (shlex.quote(p), name)


def log_dir(fake, files):
    """A /var/log holding files {name: (mode, group)}."""
    d = os.path.join(fake, "log")
    os.mkdir(d, 0o755)
    for name, (mode, group) in files.items():
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write("kernel: c-crash[4242]: segfault at 534543524554\n")
        os.chown(p, 0, grp.getgrnam(group).gr_gid)
        os.chmod(p, mode)
    return "mount --bind %s /var/log" % shlex.quote(d)


def start(iso, *mounts):
    """Host mode on a simulated host (a declared one: isoenv), then the
    situation bound into its mount namespace."""
    iso.start(pidns=True, procopts="hidepid=invisible", seccomp=None,
              preexec=" && ".join(mounts), declare_host=True)


def test_dmesg_open_to_every_account_refuses_plans(iso, fake):
    start(iso, sysctl_file(fake, "kernel/dmesg_restrict", "0"),
          sysctl_file(fake, "debug/exception-trace", "1"))
    iso.wait_screen("WARNING: kernel.dmesg-restrict: kernel.dmesg_restrict = 0")
    assert_refused_before_read(iso, plan(iso), "kernel.dmesg-restrict")
    checks = assert_doctor_fails(iso, "kernel.dmesg-restrict", seccomp=None)
    assert checks["kernel.exception-trace"][0] is False, checks
    assert "an agent reads" in checks["kernel.exception-trace"][1]


def test_dmesg_opened_while_the_card_waits(iso, fake):
    """Checked again just before the plugin runs."""
    flip = os.path.join(fake, "dmesg_restrict")
    with open(flip, "w") as f:
        f.write("1\n")
    os.chmod(flip, 0o644)
    start(iso, "mount --bind %s /proc/sys/kernel/dmesg_restrict" % flip)

    def opened():
        with open(flip, "w") as f:
            f.write("0\n")
    line = approved_plan(iso, between=opened)
    assert error_code(line) == "E_PROC_NOT_HIDDEN", line
    rec = iso.audit_plans()[-1]
    assert rec["cause"].startswith("kernel.dmesg-restrict:"), rec
    assert rec["decision"] == "approved" and "plugins" not in rec, rec


def test_kernel_log_copy_readable_by_every_account(iso, fake):
    start(iso, log_dir(fake, {"kern.log": (0o644, "adm")}))
    iso.wait_screen("WARNING: kernel.log-files: /var/log/kern.log holds the "
                    "kernel log and every account reads it")
    assert_refused_before_read(iso, plan(iso), "kernel.log-files")
    assert_doctor_fails(iso, "kernel.log-files", seccomp=None)


def test_kernel_log_copy_readable_by_the_clients_group(iso, fake):
    start(iso, log_dir(fake, {"syslog": (0o640, "lockfile-clients")}))
    iso.wait_screen("WARNING: kernel.log-files")
    assert_refused_before_read(iso, plan(iso), "kernel.log-files")


def test_kernel_log_closed_to_agents_runs(iso, fake):
    """The usual Debian modes (root:adm 0640, no agent in adm), the kernel's
    dmesg_restrict on: plans run, doctor's kernel lines all hold."""
    start(iso, log_dir(fake, {"kern.log": (0o640, "adm"),
                              "syslog": (0o640, "adm")}),
          sysctl_file(fake, "kernel/dmesg_restrict", "1"),
          sysctl_file(fake, "debug/exception-trace", "1"),
          sysctl_file(fake, "kernel/core_pattern",
                      "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c"))
    assert "WARNING" not in iso.screen(), iso.screen()
    line = approved_plan(iso)
    assert '"result":1' in line, line
    rc, checks, _ = iso.doctor(seccomp=None)
    for name in ("kernel.dmesg-restrict", "kernel.log-files",
                 "kernel.exception-trace", "kernel.core-pattern"):
        assert checks[name][0] is True, (name, checks[name])
    assert "2 copies" in checks["kernel.log-files"][1]
    assert "which no agent reads" in checks["kernel.exception-trace"][1]
    assert "never pipes" in checks["kernel.core-pattern"][1]


def test_doctor_reports_a_core_socket(iso, fake):
    """A core_pattern socket (kernel 6.16) receives every crash whatever
    the core limit: doctor fails it (not a plan's condition)."""
    start(iso, sysctl_file(fake, "kernel/core_pattern", "@/run/cored.sock"),
          sysctl_file(fake, "debug/exception-trace", "0"))
    assert "WARNING" not in iso.screen(), iso.screen()
    checks = assert_doctor_fails(iso, "kernel.core-pattern", seccomp=None)
    assert checks["kernel.exception-trace"][0] is True, checks
    assert "is not reported" in checks["kernel.exception-trace"][1]
