"""pgenv: a real PostgreSQL of the tests' own, as the Docker suites start
their own dockerd: `initdb` + `pg_ctl` from Debian's postgresql-15, run as
an ordinary test account, on a private unix socket directory and a free
loopback port, fsync off (a test cluster: speed over durability), stopped
at the end (atexit, and by the suite's own stop()).

    pg = pgenv.server()                  # started once per test process
    url = pg.new_db()                    # a fresh database for one hub
    pg.sql(url, "SELECT 1")              # psql as the cluster's owner
    pg.restart()

lockhub connects as the role `hub` (no superuser), over TCP on 127.0.0.1
with trust authentication: loopback only, a throwaway cluster.
"""
import atexit
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile

PGBIN = "/usr/lib/postgresql/15/bin"
ACCOUNT = "lf-outsider"     # an ordinary test account (tests/setup-accounts.sh)
ADMIN = "pgadmin"
HUB_ROLE = "hub"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class PgServer:
    def __init__(self, account=ACCOUNT):
        self.pw = pwd.getpwnam(account)
        self.base = tempfile.mkdtemp(prefix="lfpg-", dir="/tmp")
        os.chown(self.base, self.pw.pw_uid, self.pw.pw_gid)
        os.chmod(self.base, 0o700)
        self.data = os.path.join(self.base, "data")
        self.sock = os.path.join(self.base, "sock")
        self.log = os.path.join(self.base, "postgres.log")
        self.port = None
        self.names = itertools.count(1)
        self._as_owner(["mkdir", "-m", "0700", self.sock])
        self._as_owner([os.path.join(PGBIN, "initdb"), "-D", self.data,
                        "-U", ADMIN, "-A", "trust", "-E", "UTF8",
                        "--locale=C", "--no-sync"], timeout=120)
        self.start()
        self.sql(None, "CREATE ROLE %s LOGIN" % HUB_ROLE)

    def _as_owner(self, argv, timeout=60, check=True):
        r = subprocess.run(argv, timeout=timeout, capture_output=True,
                           user=self.pw.pw_uid, group=self.pw.pw_gid,
                           extra_groups=[], cwd="/",
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C",
                                "HOME": self.base})
        if check and r.returncode != 0:
            raise RuntimeError("%s: %s%s" % (argv[0], r.stdout.decode(),
                                             r.stderr.decode()))
        return r

    def start(self):
        if self.port is None:
            self.port = free_port()
        opts = ("-c listen_addresses=127.0.0.1 -c port=%d "
                "-c unix_socket_directories=%s -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=200 -c shared_buffers=16MB"
                % (self.port, self.sock))
        self._as_owner([os.path.join(PGBIN, "pg_ctl"), "-D", self.data,
                        "-l", self.log, "-o", opts, "-w", "-t", "60",
                        "start"], timeout=90)

    def stop(self, mode="fast"):
        self._as_owner([os.path.join(PGBIN, "pg_ctl"), "-D", self.data,
                        "-m", mode, "-w", "-t", "60", "stop"], timeout=90,
                       check=False)

    def restart(self):
        self.stop()
        self.start()

    def cleanup(self):
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

    def new_db(self):
        """A fresh database owned by the hub's role: its URL."""
        name = "hub%d_%d" % (os.getpid(), next(self.names))
        self.sql(None, "CREATE DATABASE %s OWNER %s" % (name, HUB_ROLE))
        return self.url(name)

    def url(self, db):
        return "postgresql://%s@127.0.0.1:%d/%s" % (HUB_ROLE, self.port, db)

    def sql(self, url, text, user=ADMIN):
        """psql as the cluster's owner over the private socket: the rows,
        unaligned, '|' between columns."""
        db = url.rsplit("/", 1)[1] if url else "postgres"
        r = self._as_owner([os.path.join(PGBIN, "psql"), "-X", "-q", "-A",
                            "-t", "-v", "ON_ERROR_STOP=1", "-h", self.sock,
                            "-p", str(self.port), "-U", user, "-d", db,
                            "-c", text])
        return r.stdout.decode().strip()


_server = None


def server():
    """The test process's PostgreSQL, started at first use."""
    global _server
    if _server is None:
        _server = PgServer()
        atexit.register(_server.cleanup)
    return _server


def wanted():
    """The hub suites on PostgreSQL: LOCKHUB_STORE=pg (tests/suites,
    hub-pg)."""
    return os.environ.get("LOCKHUB_STORE") == "pg"


def env_store():
    """HubEnv's store from LOCKHUB_STORE: "pg" (a fresh database on the
    tests' own server), a postgresql:// URL as it is (a server of the
    caller's: bench/hub/kill-long), else None (SQLite)."""
    v = os.environ.get("LOCKHUB_STORE") or ""
    if v == "pg" or v.startswith(("postgresql://", "postgres://")):
        return v
    return None


def restart_env():
    """The store's server restarted, for the kill test: the command in
    LOCKHUB_STORE_RESTART when set, pg_ctl restart of the tests' own server
    under LOCKHUB_STORE=pg. False when there is no server (SQLite)."""
    cmd = os.environ.get("LOCKHUB_STORE_RESTART")
    if cmd:
        subprocess.run(cmd, shell=True, check=True, timeout=60)
        return True
    if wanted():
        server().restart()
        return True
    return False
