"""sshenv: a throwaway OpenSSH sshd on 127.0.0.1 serving SFTP.

A temporary configuration with a fresh ed25519 host key, public-key
authentication only, `internal-sftp` forced, the account `lf-sftp`
(scripts/install-deps.d/sources.sh), and LogLevel DEBUG1 to a file of its
own, so a test can show from the server's side what a client sent (for a
wrong host-key pin: no authentication request at all).

    sd = SshEnv(); sd.start()
    sd.write("a.txt", b"...")            # under sd.data, owned by lf-sftp
    sd.host_key_sha256                    # "SHA256:..."
    sd.client_key                         # the private key text (ed25519)
    sd.kill()                             # SIGKILL sshd and its sessions
"""
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from lftest import free_port

SFTP_USER = "lf-sftp"


def keygen(path, kind="ed25519"):
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "lftest",
                    "-f", path], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f",
                          path + ".pub"], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    return out.split()[1]          # "SHA256:..."


class SshEnv:
    def __init__(self, host_key_type="ed25519", sftp_command=None):
        """sftp_command: a program to serve SFTP instead of internal-sftp
        (a hostile server). sshd runs it through the login shell, and the
        SFTP account has none: such a server logs in root instead (on this
        loopback-only, key-only sshd)."""
        self.user = "root" if sftp_command else SFTP_USER
        self.base = tempfile.mkdtemp(prefix="lfssh-", dir="/tmp")
        os.chmod(self.base, 0o755)
        self.port = free_port()
        self.host_key = os.path.join(self.base, "host_key")
        self.host_key_sha256 = keygen(self.host_key, host_key_type)
        self.host_key_type = {"ed25519": "ssh-ed25519",
                              "ecdsa": "ecdsa-sha2-nistp256",
                              "rsa": "ssh-rsa"}[host_key_type]
        self.client_key_path = os.path.join(self.base, "client_key")
        keygen(self.client_key_path)
        with open(self.client_key_path) as f:
            self.client_key = f.read()
        self.authdir = os.path.join(self.base, "authorized")
        os.mkdir(self.authdir)
        shutil.copyfile(self.client_key_path + ".pub",
                        os.path.join(self.authdir, self.user))
        os.chmod(os.path.join(self.authdir, self.user), 0o644)
        pw = pwd.getpwnam(SFTP_USER)
        self.data = os.path.join(self.base, "data")
        os.mkdir(self.data, 0o755)
        os.chown(self.data, pw.pw_uid, pw.pw_gid)
        self.log = os.path.join(self.base, "sshd.log")
        self.config = os.path.join(self.base, "sshd_config")
        with open(self.config, "w") as f:
            f.write("""Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s/sshd.pid
AuthorizedKeysFile %s/%%u
AllowUsers %s
StrictModes no
UsePAM no
PermitRootLogin %s
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthenticationMethods publickey
X11Forwarding no
AllowTcpForwarding no
PermitTTY no
Subsystem sftp %s
ForceCommand %s
LogLevel DEBUG1
MaxStartups 100
""" % (self.port, self.host_key, self.base, self.authdir, self.user,
       "prohibit-password" if self.user == "root" else "no",
       sftp_command or "internal-sftp", sftp_command or "internal-sftp"))
        self.proc = None

    def start(self, timeout=20):
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f",
                                      self.config, "-E", self.log],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError("sshd exited:\n" + self.read_log())
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("sshd did not listen:\n" + self.read_log())

    def read_log(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def log_mark(self):
        return len(self.read_log())

    def write(self, rel, data, mode=0o644, owner=SFTP_USER):
        p = os.path.join(self.data, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, mode)
        pw = pwd.getpwnam(owner)
        os.chown(p, pw.pw_uid, pw.pw_gid)
        return p

    def session_pids(self):
        """Every process below the listener: sshd starts each connection in
        a session of its own (setsid), so a process group does not reach
        them; the parent links do."""
        parent = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read().rsplit(")", 1)[1].split()
                parent[int(d)] = int(st[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
        if self.proc is None:
            return []
        out, todo = [], [self.proc.pid]
        while todo:
            p = todo.pop()
            kids = [c for c, pp in parent.items() if pp == p]
            out += kids
            todo += kids
        return out

    def signal_sessions(self, sig):
        """Signal the session processes (the listener is spared)."""
        for p in self.session_pids():
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass

    def kill(self):
        """SIGKILL sshd and every session it started."""
        if self.proc is not None and self.proc.poll() is None:
            sessions = self.session_pids()
            os.kill(self.proc.pid, signal.SIGKILL)
            for p in sessions:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait(10)

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.signal_sessions(signal.SIGCONT)
                self.kill()
            self.proc = None

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def profile(self, **over):
        """The sftp profile table for this server (credentials to be set by
        the caller)."""
        t = {"host": "127.0.0.1", "port": self.port, "user": self.user,
             "base_dir": self.data, "host_key_type": self.host_key_type,
             "host_key_sha256": self.host_key_sha256}
        t.update(over)
        return t
