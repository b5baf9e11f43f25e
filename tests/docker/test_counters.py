"""Host-wide counters from an agent container (issue 27, section 5;
docs/security.md, "Side channels"; docs/docker.md, "Host-wide counters").

An agent container reads the host's /proc/vmstat, /proc/meminfo,
/proc/diskstats and /sys/block/*/stat (this host runs no LXCFS). The test
asks, from inside one agent container (`lox agent -- sh -c ...`), about
files of real bytes (written, not sparse: the fetch copies bytes, read and
written) and reads every counter after a `sync` just before its own
`lockfile ask`, right after the answer, and after another `sync` (so that
what the fetch wrote reaches the disk counters whatever the writeback's
timing, and nothing dirtied before the window does). Two files of one size
class (300 and 480 MiB, class 512 MiB) must move each counter alike; a
file of another class (40 MiB, class 64 MiB) must not, so the test can
fail: without the pad (ws_commit's footprint set to the size), the console
dirtied 300.1 and 480.1 MiB and the agent's nr_dirtied moved by 329 and
524 MiB (docs/security.md).

The machine is shared: other processes dirty and write pages during the
window too (7 to 15 MiB/s under a load average of 34). So the console's own
share is measured too, from the host, free of that noise (its processes'
write_bytes, counted when a page is dirtied), and the rest of the agent's
nr_dirtied change is the other processes'. Each file is asked REPS times
and the quietest run kept; the agent's counters must agree to within SLACK
plus that measured noise. Known weakness: that noise is everything outside
the console's processes, so a size-dependent residue there (on a quiet host
the 480 MiB file showed 28 MiB of it in every run, the 300 MiB one none:
docs/security.md) passes as noise; a control window of the same length
without an ask would tell them apart.
"""
import json
import os
import pwd
import re
import threading
import time

import pytest

import dockerenv as D
from dockerenv import LOX

MIB = 1 << 20
# The files (under the profile's prefix) and their sizes.
FILES = {"2024/small.bin": 40 * MIB, "2024/a300.bin": 300 * MIB,
         "2024/a480.bin": 480 * MIB}
REPS = 3
# What "alike" means: a few MiB, the other processes' noise left after the
# minimum of REPS runs.
SLACK = 8 * MIB

# The workspace must hold the class of the largest file more than once
# (each handle is released after its measurement); a short ttl is a bound
# should a release fail. A quantum longer than the largest fetch (its
# hash included) on a loaded machine: else the larger file's answer leaves
# a quantum later, its window is longer and the other processes' pages
# count more in it (measured: +20 to +35 MiB at 1 s).
POLICY = D.POLICY.replace(
    "answer_quantum_s = 1\n", "answer_quantum_s = 4\n").replace(
    "approval_timeout_s = 120\n",
    "approval_timeout_s = 120\nhandle_ttl_s = 60\n"
    "max_workspace_bytes = 4294967296\n")
assert "answer_quantum_s = 4\n" in POLICY
assert POLICY != D.POLICY

# Each snapshot: every counter file the agent can read, between markers.
SNAP = ('snap() { echo "@@ $1"; cat /proc/uptime; for f in /proc/vmstat /proc/meminfo '
        '/proc/diskstats /sys/block/*/stat; do echo "== $f"; cat "$f"; '
        'done; }; ')
SCRIPT = (SNAP + 'sync; snap before; lockfile ask --json --profile invoices --key '
          '"$1" --plugin is-pdf > /tmp/ask.json; rc=$?; snap answered; '
          'sync; snap synced; h=$(sed -n \'s/.*"handle": *"\\(f_[0-9a-f]*\\)".*/\\1/p\' '
          '/tmp/ask.json); lockfile release "$h" >/dev/null; '
          'echo "@@ released $?"; echo "@@ rc $rc"; cat /tmp/ask.json')


def parse(text):
    """{"before": {counter: bytes}, ...} and the ask's rc and answer."""
    snaps, cur, f, rest, released = {}, None, None, [], None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("@@ released "):
            released = int(line[12:])
            continue
        if line.startswith("@@ rc "):
            rc = int(line[6:])
            rest = lines[i + 1:]
            break
        if line.startswith("@@ "):
            cur = snaps.setdefault(line[3:], {})
            cur["uptime"] = float(lines[i + 1].split()[0])
            f = None
            continue
        if line.startswith("== "):
            f = line[3:]
            continue
        w = line.split()
        if not w or f is None:
            continue
        if f == "/proc/vmstat" and w[0] in ("nr_dirtied", "nr_written"):
            cur["vmstat " + w[0]] = int(w[1]) * 4096
        elif f == "/proc/vmstat" and w[0] == "pgpgout":
            cur["vmstat pgpgout"] = int(w[1]) * 1024
        elif f == "/proc/meminfo" and w[0] in ("Cached:", "Dirty:"):
            cur["meminfo " + w[0][:-1]] = int(w[1]) * 1024
        elif f == "/proc/diskstats" and whole_disk(w[2]):
            k = "diskstats sectors written"
            cur[k] = cur.get(k, 0) + int(w[9]) * 512
        elif f.startswith("/sys/block/") and whole_disk(f.split("/")[3]):
            k = "sys/block stat sectors written"
            cur[k] = cur.get(k, 0) + int(w[6]) * 512
    else:
        raise AssertionError("no result from the agent:\n" + text[-2000:])
    return snaps, rc, released, "\n".join(rest)


def whole_disk(name):
    """Real disks only: partitions are counted in their disk, and a
    device-mapper or md device again in the disks under it."""
    return (os.path.isdir("/sys/block/" + name) and
            not name.startswith(("loop", "ram", "dm-", "md", "zram")))


# Which snapshot each counter's change is read at: what is dirtied or
# cached moves during the fetch; what is written, once the pages reach the
# disk (the window starts and ends with a sync, so what it writes is what
# was dirtied in it). Cached and Dirty are levels, not counts: the other
# processes of a shared machine move them both ways by hundreds of MiB
# (a deleted build tree frees its pages), which nothing here measures, so
# they are reported, not compared.
AT = {"vmstat nr_dirtied": "answered", "meminfo Cached": "answered",
      "meminfo Dirty": "answered", "vmstat nr_written": "synced",
      "vmstat pgpgout": "synced", "diskstats sectors written": "synced",
      "sys/block stat sectors written": "synced"}
ASSERTED = ("vmstat nr_dirtied", "vmstat nr_written", "vmstat pgpgout",
            "diskstats sectors written", "sys/block stat sectors written")


class Counters:
    def __init__(self):
        self.eng = D.Engine()
        try:
            # build-images.sh's default plugins: every official one.
            self.images = self.eng.build_images(official=True)
            self.plugins = self.eng.docker(
                "run", "--rm", "--network", "none", D.IDS["console"],
                "lockfile", "plugin", "list").stdout.decode()
            self.term = D.Terminal(self.eng)
            self.src = D.make_source(self.eng.base, {"2024/x": b""})
            for rel, size in FILES.items():
                self.write(rel, size)
            os.sync()
            self.policy = os.path.join(self.eng.base, "policy.toml")
            with open(self.policy, "w") as f:
                f.write(POLICY)
            r = self.eng.lox("policy", "--image", D.IDS["console"], "load",
                             self.policy)
            assert r.returncode == 0, r.stderr
            w = self.term.start([LOX, "policy", "--image", D.IDS["console"],
                                 "--source", "invoices=" + self.src,
                                 "approve"])
            self.term.wait(w, "Type 'approve'")
            self.term.type(w, "approve")
            self.term.wait(w, r"approved \(fingerprint [0-9a-f]{64}\)")
            self.window = self.term.start([LOX, "run", "--source",
                                           "invoices=" + self.src,
                                           D.IDS["console"]])
            self.term.wait(self.window,
                           r"lockfile console [0-9.]+: socket")
        except Exception:
            self.close()
            raise

    def write(self, rel, size):
        """Real bytes (a pattern, no hole), the console account's, 0600."""
        p = os.path.join(self.src, rel)
        block = (b"counters" * (MIB // 8))
        with open(p, "wb") as f:
            for _ in range(size // MIB):
                f.write(block)
        os.chown(p, D.uid_of("lockfile"), pwd.getpwnam("lockfile").pw_gid)
        os.chmod(p, 0o600)
        assert os.stat(p).st_blocks * 512 >= size

    def agent(self, *cmd, timeout=120):
        return self.eng.lox("agent", "--image", D.IDS["agent"], "--", *cmd,
                            timeout=timeout)

    def console_written(self):
        """Bytes the console container's processes wrote (dirtied) so far:
        /proc/PID/io write_bytes, counted when a page is dirtied, of each
        process under the container's init. Read from the host: the
        console's own share of nr_dirtied, without the other processes of
        the machine."""
        init = int(self.eng.docker("inspect", "-f", "{{.State.Pid}}",
                                   "lockfile-console").stdout)
        kids, total = {init}, 0
        for _ in range(4):      # init, the console, its workers
            for pid in os.listdir("/proc"):
                try:
                    with open("/proc/%s/stat" % pid) as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if ppid in kids:
                    kids.add(int(pid))
        for pid in kids:
            try:
                with open("/proc/%d/io" % pid) as f:
                    total += int(re.search(r"write_bytes: (\d+)",
                                           f.read()).group(1))
            except OSError:
                pass
        return total

    def measure(self, key):
        """One ask from inside an agent container: each counter's change,
        in bytes, the console's own share of the pages dirtied, and the
        other processes' (the noise)."""
        c0 = self.console_written()
        n = self.term.screen(self.window).count("Approve?")
        out = {}

        def go():
            out["r"] = self.agent("sh", "-c", SCRIPT, "sh", key)
        t = threading.Thread(target=go)
        t.start()
        self.term.wait(self.window, r"Approve\?", count=n + 1)
        self.term.type(self.window, "y")
        t.join(120)
        assert not t.is_alive(), "the ask never returned"
        r = out["r"]
        snaps, rc, released, ask = parse(r.stdout.decode())
        assert rc == 0, (r.stdout[-2000:], r.stderr)
        doc = json.loads(ask)
        assert [(a["plugin"], a["result"]) for a in
                doc["result"]["answers"]] == [("is-pdf", 0)], doc
        # Released (after the last snapshot), so the next fetch fits and
        # no deletion falls into the next window; the deleter thread frees
        # the blocks soon after.
        assert released == 0, r.stdout[-2000:]
        time.sleep(1)
        d = {c: snaps[at][c] - snaps["before"][c] for c, at in AT.items()}
        d["window"] = snaps["answered"]["uptime"] - snaps["before"]["uptime"]
        d["console"] = self.console_written() - c0
        d["others"] = d["vmstat nr_dirtied"] - d["console"]
        return d

    def close(self):
        if getattr(self, "term", None):
            self.term.stop()
        self.eng.stop()


@pytest.fixture(scope="module")
def measured():
    c = Counters()
    try:
        runs = {k: [c.measure(k) for _ in range(REPS)] for k in FILES}
    finally:
        c.close()
    least = {"plugins": c.plugins}
    # Of each file's runs, the quietest: the least dirtied by the other
    # processes of the machine in its window.
    least.update({k: min(rs, key=lambda r: r["others"])
                  for k, rs in runs.items()})
    report = ["%-32s %s" % ("counter (MiB)", " ".join(
        "%10s" % k.split("/")[1] for k in FILES))]
    for n in list(AT) + ["console", "others"]:
        report.append("%-32s %s" % (n, " ".join(
            "%10.1f" % (least[k][n] / MIB) for k in FILES)))
    print("\n".join(report))
    for k, rs in runs.items():
        print(k, [dict({n: round(r[n] / MIB, 1) for n in list(AT) +
                        ["console", "others"]},
                       window=round(r["window"], 2)) for r in rs])
    return least


def test_the_console_dirties_the_class(measured):
    """The console's own share (its processes' write_bytes, free of the
    other processes' noise): 300 and 480 MiB dirty the same 512 MiB, the
    40 MiB file its class, 64 MiB. Without the pad this share is the
    file's size, and this fails."""
    a, b = (measured[k]["console"] for k in ("2024/a300.bin",
                                            "2024/a480.bin"))
    assert abs(a - b) <= MIB, (a / MIB, b / MIB)
    for k, cls in (("2024/a300.bin", 512), ("2024/a480.bin", 512),
                   ("2024/small.bin", 64)):
        d = measured[k]["console"]
        assert cls * MIB <= d <= cls * MIB + SLACK, (k, d / MIB)


def test_one_class_moves_every_counter_alike(measured):
    """What the agent reads: 300 and 480 MiB (class 512 MiB) move every
    counter alike, to within SLACK plus what the machine's other processes
    dirtied in the windows compared (measured: the host-wide nr_dirtied
    change less the console's share; about 0 on an idle machine)."""
    a, b = measured["2024/a300.bin"], measured["2024/a480.bin"]
    allow = SLACK + max(a["others"], b["others"], 0)
    far = {n: (a[n] / MIB, b[n] / MIB) for n in ASSERTED
           if abs(a[n] - b[n]) > allow}
    assert not far, (far, allow / MIB)


def test_the_class_is_what_moves(measured):
    """The agent's nr_dirtied moves by at least the class (512 MiB), not
    the file's size (the other processes only add); the small file's by
    its class plus the noise: the measurement tells classes apart."""
    for k in ("2024/a300.bin", "2024/a480.bin"):
        d = measured[k]["vmstat nr_dirtied"]
        assert d >= 512 * MIB - MIB, (k, d / MIB)
    small = measured["2024/small.bin"]
    assert small["vmstat nr_dirtied"] <= 64 * MIB + SLACK + small["others"]


def test_the_console_image_carries_every_official_plugin(measured):
    """docker/build-images.sh's default is the build's list
    (plugins/meson.build), not a hand list that misses new plugins."""
    names = D.official_plugins()
    assert {"is-pdf", "is-encrypted", "has-active-content"} <= set(names)
    for name in names:
        assert re.search(r"(?m)^%s\s+\S+\s+local \(official\)" % name,
                         measured["plugins"]), (name, measured["plugins"])
