"""loxenv: lox as the approver (account lf-approver) for the hub tests, in
a state directory of its own ($LOX_HOME), run plainly or in a real
terminal (a tmux server of the approver's own) for the commands that ask
the human.

    lx = Lox(); lx.run("enroll", "--hub", url)
    lx.start("approve", tid); lx.wait_screen("value for"); lx.type("a@b.c")
"""
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
APPROVER = "lf-approver"


class Lox:
    def __init__(self, build=None):
        self.bin = os.path.join(build or BUILD, "src", "lox", "lox")
        self.base = tempfile.mkdtemp(prefix="lflox-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.pw = pwd.getpwnam(APPROVER)
        self.home = os.path.join(self.base, "lox")
        os.mkdir(self.home, 0o700)
        os.chown(self.home, self.pw.pw_uid, self.pw.pw_gid)
        self.tmuxdir = os.path.join(self.base, "tmux")
        os.mkdir(self.tmuxdir, 0o700)
        os.chown(self.tmuxdir, self.pw.pw_uid, self.pw.pw_gid)
        self.name = os.path.basename(self.base)
        self.started = False

    def env(self):
        return {"PATH": "/usr/bin:/bin", "HOME": self.pw.pw_dir,
                "LOX_HOME": self.home, "LANG": "C.UTF-8"}

    def run(self, *args, timeout=60):
        r = subprocess.run([self.bin] + list(args), timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           user=self.pw.pw_uid, group=self.pw.pw_gid,
                           extra_groups=[], cwd="/", env=self.env(),
                           stdin=subprocess.DEVNULL, start_new_session=True)
        for s in (r.stdout, r.stderr):
            assert b"Sanitizer" not in s and b"runtime error" not in s, s
        return r

    def enroll(self, url, ca=None):
        args = ["enroll", "--hub", url] + (["--ca", ca] if ca else [])
        r = self.run(*args)
        assert r.returncode == 0, r.stderr
        line = [x for x in r.stdout.decode().split("\n")
                if x.startswith("device-key ")][0]
        return bytes.fromhex(line.split(":")[1])

    def pin(self, name, key):
        r = self.run("enroll", "--instance", "%s=%s" % (name, key.text()))
        assert r.returncode == 0, r.stderr
        return r

    # ---- a real terminal ----------------------------------------------
    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null"]
                              + list(args), user=self.pw.pw_uid,
                              group=self.pw.pw_gid, extra_groups=[], cwd="/",
                              env={"PATH": "/usr/bin:/bin",
                                   "TMUX_TMPDIR": self.tmuxdir,
                                   "TERM": "xterm"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              check=check, timeout=30)

    def start(self, *args):
        """lox ARGS in a pane of the approver's own tmux server; the pane
        stays after lox exits and records every byte written to it."""
        conf = os.path.join(self.tmuxdir, "tmux.conf")
        with open(conf, "w") as f:
            f.write("set-option -g history-limit 20000\n"
                    "set-option -g remain-on-exit on\n")
        os.chmod(conf, 0o644)
        env = " ".join("%s=%s" % (k, shlex.quote(v))
                       for k, v in self.env().items())
        # lox starts once the pane is recorded; its exit status goes to a
        # file (tmux 3.3 loses a pane's status when the pane dies fast)
        go = os.path.join(self.tmuxdir, "go")
        self.status_file = os.path.join(self.tmuxdir, "status")
        for f in (go, self.status_file):
            if os.path.exists(f):
                os.unlink(f)
        inner = ("while [ ! -e %s ]; do sleep 0.02; done; env -i %s %s; "
                 "echo $? > %s.tmp && mv %s.tmp %s") % (
            shlex.quote(go), env, " ".join(
                shlex.quote(a) for a in [self.bin] + list(args)),
            self.status_file, self.status_file, self.status_file)
        self.tmux("-f", conf, "new-session", "-d", "-s", "lx", "-x", "200",
                  "-y", "60", inner)
        self.started = True
        self.tmux("pipe-pane", "-t", "lx", "-o", "cat >> %s" % shlex.quote(
            os.path.join(self.tmuxdir, "pane.log")))
        time.sleep(0.1)
        with open(go, "w"):
            pass

    def screen(self):
        r = self.tmux("capture-pane", "-p", "-J", "-S", "-10000", check=False)
        return r.stdout.decode("utf-8", "replace")

    def pane_log(self):
        p = os.path.join(self.tmuxdir, "pane.log")
        if not os.path.exists(p):
            return b""
        with open(p, "rb") as f:
            return f.read()

    def wait_screen(self, pattern, timeout=20):
        t0 = time.time()
        rx = re.compile(pattern)
        while time.time() - t0 < timeout:
            s = self.screen()
            if rx.search(s):
                return s
            time.sleep(0.05)
        raise AssertionError("lox never showed %r:\n%s" % (pattern, self.screen()))

    def type(self, text, enter=True):
        self.tmux("send-keys", "-t", "lx", "-l", text)
        if enter:
            self.tmux("send-keys", "-t", "lx", "Enter")

    def exit_status(self, timeout=20):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if os.path.exists(self.status_file):
                with open(self.status_file) as f:
                    return int(f.read())
            time.sleep(0.05)
        raise AssertionError("lox did not exit:\n" + self.screen())

    def stop(self):
        if self.started:
            self.tmux("kill-server", check=False)
            self.started = False

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)
