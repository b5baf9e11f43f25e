"""isoenv: the e2e console (tests/e2e/lfenv.py) in the situations the
isolation checks must tell apart, built for real as root:

- a pid namespace of its own (`unshare --pid --mount --fork`) with a fresh
  procfs, with or without hidepid, or the host's procfs bound over /proc;
- the console's own host pid namespace (no --pid);
- a test system configuration directory (root-owned, LOCKFILE_SYSCONFDIR)
  holding the container declaration and system.toml, good or broken;
- the console under a Docker-like seccomp filter (with-seccomp --docker),
  an allow-all one, or none; with or without no_new_privs; with ambient
  capabilities;
- processes of other accounts joining the namespace (nsenter), before the
  console starts, before a plan, or while the card waits for the human.

    env = IsoEnv()
    env.write_declaration()
    env.start(pidns=True, seccomp="docker")
    env.spawn_in_ns("agent")              # a foreign process joins
    doc = env.doctor()                     # lockfile doctor --json, same place
"""
import json
import os
import re
import shlex
import signal
import subprocess
import time

from lfenv import (ConsoleEnv, CONSOLE_USER, UNMOUNT_PROCFS,  # noqa: F401
                   as_user, uid_of, gid_of, check_reply)
from lftest import setpriv, wait_for  # noqa: F401

PRIV_ENV = "PATH=/usr/bin:/bin TERM=xterm"


def helper(build, name):
    return os.path.join(build, "tests", "isolation", name)


class IsoEnv(ConsoleEnv):
    def __init__(self, build=None, name=None):
        # The root-owned system configuration directory is lfenv's own (the
        # console reads it through LOCKFILE_SYSCONFDIR).
        super().__init__(build=build, name=name)
        self.joined = []
        self.console_build = self.build

    # ---- the system configuration ----------------------------------
    def write_sysconf(self, name, text, mode=0o644, owner=0):
        p = os.path.join(self.sysconf, name)
        if os.path.exists(p):
            os.unlink(p)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
        os.chown(p, owner, 0)
        return p

    def write_declaration(self, text='container = "docker"\n', mode=0o644,
                          owner=0):
        return self.write_sysconf("container.toml", text, mode, owner)

    def write_system_toml(self, text, mode=0o644, owner=0):
        return self.write_sysconf("system.toml", text, mode, owner)

    # ---- starting the console ----------------------------------------
    def console_cmd(self, args=(), build=None, seccomp=None, env=None):
        binary = os.path.join(build or self.build, "lockfile")
        cmd = ["env", "LOCKFILE_SYSCONFDIR=" + self.sysconf]
        for k, v in (env or {}).items():
            cmd.append("%s=%s" % (k, v))
        if seccomp in ("docker", "allow-all", "clone3-only", "no-landlock", "landlock-eperm",
                       "no-seccomp"):
            cmd += [helper(self.build, "with-seccomp"), "--" + seccomp, "--"]
        cmd += [binary, "console", "--home", self.home, "--socket",
                self.socket] + list(args)
        return cmd

    def priv(self, inner, caps=None):
        """The tmux server as the console account, the console in its pane."""
        tmux_cmd = ("tmux -L %s -f /dev/null new-session -d -s lf -x 220 -y 80 "
                    "%s \\; set-option -g remain-on-exit on \\; set-option -g "
                    "history-limit 20000" % (shlex.quote(self.name),
                                             shlex.quote("exec " + inner)))
        extra = ""
        if caps:
            extra = " --inh-caps +%s --ambient-caps +%s" % (caps, caps)
        return ("setpriv --reuid=%s --regid=%s --init-groups%s env -i %s "
                "TMUX_TMPDIR=%s HOME=%s sh -c %s"
                % (CONSOLE_USER, CONSOLE_USER, extra, PRIV_ENV, self.tmuxdir,
                   self.home, shlex.quote(tmux_cmd)))

    def start(self, args=(), pidns=True, procfs="fresh", procopts=None,
              seccomp="docker", nnp=True, caps=None, preexec="", wait=True,
              build=None, env=None, inner=None, declare_host=False):
        """procfs: "fresh" (mount -t proc, with procopts, in place of the
        copy of the machine's), "host" (the host's procfs bound over
        /proc), "keep" (whatever the new mount namespace inherited). With
        pidns=False the console stays in the host's pid namespace (in a
        private mount namespace). declare_host: root runs `lockfile doctor
        --declare-host` in the new namespaces first (their pid 1 is the
        simulated host's init), and the agents' requests come from inside
        them (host mode); otherwise agents stay outside (a container's
        agents are in other containers)."""
        build = build or self.build
        self.console_build = build
        self.procfs = procfs
        wrap = seccomp
        if seccomp == "docker" and not nnp:
            wrap = None	# the filter goes on outside, as root, below
        cmd = inner or " ".join(shlex.quote(c) for c in
                                self.console_cmd(args, build, wrap, env))
        priv = self.priv(cmd, caps)
        if seccomp == "docker" and not nnp:
            priv = "%s --docker --no-nnp -- sh -c %s" % (
                helper(self.build, "with-seccomp"), shlex.quote(priv))
        mounts = []
        if procfs == "fresh":
            opts = "-o " + procopts if procopts else ""
            mounts.append("%s && mount -t proc %s proc /proc"
                          % (UNMOUNT_PROCFS, opts))
        elif procfs == "host":
            mounts.append("mount --bind /proc /proc")
        if declare_host:
            mounts.append("env LOCKFILE_SYSCONFDIR=%s %s doctor "
                          "--declare-host >%s 2>&1" % (
                              shlex.quote(self.sysconf), shlex.quote(
                                  os.path.join(build, "lockfile")),
                              shlex.quote(os.path.join(self.base,
                                                       "declare.log"))))
        script = " && ".join(mounts + ([preexec] if preexec else []) + [priv])
        if pidns:
            script += " && exec sleep 1000000"
            outer = ["unshare", "--pid", "--mount", "--fork", "--kill-child",
                     "--propagation", "private", "sh", "-c", script]
            self.unshare = subprocess.Popen(outer, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            self.ns_init = self._child_of(self.unshare.pid)
            self.agents_inside = declare_host
        else:
            outer = ["unshare", "--mount", "--propagation", "private", "sh",
                     "-c", script]
            subprocess.run(outer, check=True, timeout=30)
        self.started = True
        self._wait_pane()
        if wait:
            self.wait_for_socket()
        self.console_pid = self._find_console()

    def signal(self, sig):
        if self.console_pid is not None:
            os.kill(self.console_pid, sig)

    # ---- other accounts in the namespace -----------------------------
    def spawn_in_ns(self, user, seconds=300):
        """A process of user inside the console's pid namespace; returns
        its host pid."""
        tag = str(300000 + len(self.joined) * 7 + os.getpid() % 1000)
        argv = ["nsenter", "-t", str(self.ns_init), "-p", "-m", "--",
                "setpriv", "--reuid=" + user, "--regid=" + user,
                "--clear-groups", "sleep", tag]
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        self.joined.append(p)
        t0 = time.time()
        while time.time() - t0 < 10:
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        argv2 = f.read().split(b"\0")
                    st = os.stat("/proc/" + d)
                except OSError:
                    continue
                if argv2[:2] == [b"sleep", tag.encode()] and \
                        st.st_uid == uid_of(user):
                    p.sleeper = int(d)
                    return int(d)
            time.sleep(0.02)
        raise RuntimeError("the joining process did not appear")

    def kill_joined(self):
        """Kill the joined processes; nsenter, their parent, reaps them (a
        zombie would still be listed, and refused)."""
        for p in self.joined:
            try:
                os.kill(getattr(p, "sleeper", 0) or p.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.joined = []

    # ---- doctor, where the console runs ------------------------------
    def doctor(self, seccomp="docker", nnp=True, extra=(), in_ns=True,
               build=None):
        """lockfile doctor --json as the console account, in the console's
        namespaces (without a terminal: the terminal lines fail there).
        Returns (exit status, {name: (ok, detail)}, document)."""
        binary = os.path.join(build or self.build, "lockfile")
        cmd = []
        if seccomp in ("docker", "allow-all", "clone3-only", "no-landlock", "landlock-eperm",
                       "no-seccomp"):
            cmd += [helper(self.build, "with-seccomp"), "--" + seccomp]
            if not nnp:
                cmd.append("--no-nnp")
            cmd.append("--")
        inner = [binary, "doctor", "--json", "--home", self.home, "--socket",
                 self.socket] + list(extra)
        priv = setpriv(CONSOLE_USER) + [
            "env", "-i", "PATH=/usr/bin:/bin",
            "LOCKFILE_SYSCONFDIR=" + self.sysconf, "HOME=" + self.home]
        if getattr(self, "procfs", None) == "host":
            # LeakSanitizer lists its threads in /proc/<its own pid>/task:
            # under another pid namespace's procfs that is someone else's
            # (or no) process, and a sanitized doctor dies of it ("Can't
            # open /proc/N/task") whatever the product does
            priv.append("ASAN_OPTIONS=detect_leaks=0")
        if seccomp in ("docker", "allow-all", "clone3-only", "no-landlock", "landlock-eperm",
                       "no-seccomp") \
                and not nnp:
            argv = cmd + priv + inner	# the filter first, as root
        else:
            argv = priv + cmd + inner
        if in_ns and self.ns_init:
            argv = ["nsenter", "-t", str(self.ns_init), "-p", "-m", "--"] + argv
        elif in_ns and self.console_pid:
            argv = ["nsenter", "-t", str(self.console_pid), "-m", "--"] + argv
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60, cwd="/")
        doc = json.loads(r.stdout.decode())
        checks = {c["name"]: (c["ok"], c["detail"]) for c in doc["checks"]}
        return r.returncode, checks, doc

    # ---- the end -------------------------------------------------------
    def stop(self):
        try:
            self.kill_joined()
        finally:
            super().stop()

    def audit_plans(self):
        return [r for r in self.audit() if r.get("method") == "file.plan"]


def plan_request(profile="invoices", key="2024/a.pdf", plugins=("is-pdf",)):
    return {"profile": profile, "key": key,
            "plugins": [{"name": p} for p in plugins]}


def error_code(line):
    doc = json.loads(line)
    return doc.get("error", {}).get("message")


def screen_has(env, pattern):
    return re.search(pattern, env.screen()) is not None
