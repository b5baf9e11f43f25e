#!/usr/bin/python3
"""bench/fetch: fetch + hash of one large object from each source kind,
side by side with a baseline doing the same transfer, in alternating order,
round after round (bench/README.md: ratios, not absolute times).

    bench/fetch/run.py BUILD_DIR [--size MiB] [--rounds N] [--only KINDS]

  local  bench-fetch local   vs  openssl dgst -sha256 FILE   (target <= 1.2x)
  s3     bench-fetch s3      vs  curl -o FILE (a presigned URL of the same
                                 object on the same Swift)  (target <= 1.2x)
  sftp   bench-fetch sftp    vs  OpenSSH sftp get FILE       (target <= 1.5x)

Ours is the whole process (start, open, fetch, hash, spool write, exit), as
the baseline is. Each tool writes a new output file every round, as the
console creates its spool (O_EXCL, in a new directory): the previous
round's file is deleted first, untimed. On this VM, writing 1 GiB into page
cache costs 0.3 s when the kernel recycles pages it just freed and about
3 s when they come from memory the hypervisor has reclaimed (first touch),
whatever the program; deleting right before the write keeps every writer
on the recycled side. Writing over the old file instead (O_TRUNC) is not
what the console does and costs more on ext4: a file truncated to zero and
written again is flushed at its close (auto_da_alloc), so the writer
submits the whole write-back itself; it is printed once for reference.
openssl dgst writes nothing, so the local comparison is also printed
against `cat` to a new file (the write alone). Then the real
console fetches a 10 MiB and a SIZE object from each kind (a fresh console
for each) and its peak RSS (VmHWM) is reported: it must not grow with the
file. Runs as root (it starts sshd, Swift and the console's accounts).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

from sshenv import SshEnv  # noqa: E402
from swiftenv import (ACCESS_KEY, REGION, SECRET_KEY, SwiftEnv,  # noqa: E402
                      presign)

TARGETS = {"local": 1.2, "s3": 1.2, "sftp": 1.5}


def sh(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          **kw)


def timed(argv, check_out=None):
    t0 = time.monotonic()
    r = sh(argv)
    secs = time.monotonic() - t0
    if r.returncode != 0:
        raise RuntimeError("%s failed: %s %s" % (argv[0], r.stdout[-300:],
                                                 r.stderr[-300:]))
    if check_out is not None and os.path.getsize(check_out[0]) != check_out[1]:
        raise RuntimeError("%s wrote %d bytes" % (argv[0],
                                                  os.path.getsize(check_out[0])))
    return secs, r.stdout.decode()


class Outputs:
    """One output path per tool, written over by each of its runs, deleted
    once the kind is done."""

    def __init__(self, work, name):
        self.dir = os.path.join(work, name)
        os.mkdir(self.dir, 0o755)

    def next(self, who, fresh=True):
        path = os.path.join(self.dir, who + ".out")
        if fresh:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        return path

    def done(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def make_file(path, size):
    # 0600 in a 0700 directory: the local source serves nothing another
    # account could read (docs/sources.md).
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
              "wb") as f:
        left = size
        while left > 0:
            n = min(left, 16 << 20)
            f.write(os.urandom(n))
            left -= n


def rounds_of(n, ours, base, label):
    """A warm-up of each (not counted: it creates the output files), then
    n rounds, order alternating; returns (ours, base, ratios)."""
    ours()
    base()
    o, b, ratios = [], [], []
    for i in range(n):
        if i % 2 == 0:
            to, _ = ours()
            tb, _ = base()
        else:
            tb, _ = base()
            to, _ = ours()
        o.append(to)
        b.append(tb)
        ratios.append(to / tb)
        print("  %-6s round %d: ours %.2fs  baseline %.2fs  ratio %.2f"
              % (label, i + 1, to, tb, to / tb), flush=True)
    return o, b, ratios


def report(kind, o, b, ratios, what):
    med = statistics.median(ratios)
    verdict = "target met" if med <= TARGETS[kind] else "TARGET MISSED"
    print("%-5s ours median %.2fs, %s median %.2fs: ratio %.2f (median of "
          "rounds; target <= %.1f) %s" % (kind, statistics.median(o), what,
                                          statistics.median(b), med,
                                          TARGETS[kind], verdict), flush=True)
    return med


def bench_local(a, work, big):
    outs = Outputs(work, "local")
    table = json.dumps({"path": os.path.dirname(big)})

    def ours():
        spool = outs.next("ours")
        return timed([a.fetch, "--out", spool, "local", table,
                      os.path.basename(big)], (spool, a.bytes))

    def base():
        return timed(["openssl", "dgst", "-sha256", big])

    def copy():
        out = outs.next("cat")
        return timed(["sh", "-c", 'exec cat "$1" > "$2"', "cat", big, out],
                     (out, a.bytes))
    subprocess.run(["cat", big], stdout=subprocess.DEVNULL)  # page cache
    res = rounds_of(a.rounds, ours, base, "local")

    def ours_over():
        spool = outs.next("over", fresh=False)
        return timed([a.fetch, "--out", spool, "local", table,
                      os.path.basename(big)], (spool, a.bytes))
    # For reference: the same fetch writing over its previous output.
    o3, b3, r3 = rounds_of(a.rounds, ours_over, base, "local/tr")
    print("local (for reference) ours over a truncated spool median %.2fs, "
          "openssl dgst median %.2fs: ratio %.2f (not the console's way: "
          "ext4 flushes a truncated file at close)" % (
              statistics.median(o3), statistics.median(b3),
              statistics.median(r3)), flush=True)
    # What the spool write alone costs here (openssl dgst writes nothing):
    # the same rounds against a plain copy to a new file.
    o2, c2, r2 = rounds_of(a.rounds, ours, copy, "local/cp")
    print("local (for reference) ours median %.2fs, cat to a new file median "
          "%.2fs: ratio %.2f (the copy alone, no hash)" % (
              statistics.median(o2), statistics.median(c2),
              statistics.median(r2)), flush=True)
    outs.done()
    return report("local", *res, "openssl dgst")


def bench_s3(a, work, big):
    sw = SwiftEnv()
    try:
        sw.start()
        sw.bucket("bench")
        t0 = time.monotonic()
        sw.put_file("bench", "big.bin", big)
        print("  s3     uploaded in %.1fs" % (time.monotonic() - t0), flush=True)
        home = tempfile.mkdtemp(prefix="lfbench-", dir="/tmp")
        os.chmod(home, 0o700)
        with open(os.path.join(home, "cred"), "w") as f:
            f.write("%s\n%s\n" % (ACCESS_KEY, SECRET_KEY))
        os.chmod(os.path.join(home, "cred"), 0o600)
        table = json.dumps({"endpoint": sw.endpoint, "region": REGION,
                            "bucket": "bench", "url_style": "path",
                            "credentials": {"file": "~/cred"}})
        outs = Outputs(work, "s3")

        def ours():
            spool = outs.next("ours")
            return timed([a.fetch, "--home", home, "--out", spool, "s3", table,
                          "big.bin"], (spool, a.bytes))

        def base():
            out = outs.next("curl")
            url = presign("127.0.0.1:%d" % sw.ports["proxy"], "/bench/big.bin",
                          ACCESS_KEY, SECRET_KEY, REGION)
            return timed(["curl", "-sS", "-f", "-o", out, url], (out, a.bytes))
        res = rounds_of(a.rounds, ours, base, "s3")
        outs.done()
        shutil.rmtree(home, ignore_errors=True)
        return report("s3", *res, "curl -o"), sw
    except Exception:
        sw.cleanup()
        raise


def bench_sftp(a, work, big):
    sd = SshEnv()
    try:
        sd.start()
        dst = os.path.join(sd.data, "big.bin")
        shutil.copyfile(big, dst)
        st = os.stat(sd.data)
        os.chown(dst, st.st_uid, st.st_gid)
        home = tempfile.mkdtemp(prefix="lfbench-", dir="/tmp")
        os.chmod(home, 0o700)
        with open(os.path.join(home, "key"), "w") as f:
            f.write(sd.client_key)
        os.chmod(os.path.join(home, "key"), 0o600)
        table = json.dumps(sd.profile(credentials={"file": "~/key"}))
        outs = Outputs(work, "sftp")

        def ours():
            spool = outs.next("ours")
            return timed([a.fetch, "--home", home, "--out", spool, "sftp",
                          table, "big.bin"], (spool, a.bytes))

        def base():
            out = outs.next("sftp")
            return timed(["sftp", "-q", "-i", sd.client_key_path, "-P",
                          str(sd.port), "-o", "BatchMode=yes", "-o",
                          "StrictHostKeyChecking=no", "-o",
                          "UserKnownHostsFile=/dev/null",
                          "%s@127.0.0.1:%s" % ("lf-sftp", dst), out],
                         (out, a.bytes))
        res = rounds_of(a.rounds, ours, base, "sftp")
        outs.done()
        shutil.rmtree(home, ignore_errors=True)
        return report("sftp", *res, "OpenSSH sftp"), sd
    except Exception:
        sd.cleanup()
        raise


# ---- the console's memory ---------------------------------------------------

def vm_hwm_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def console_rss(a, kind, size, sw=None, sd=None, small=None, large=None):
    from lfenv import ConsoleEnv, chown_tree
    env = ConsoleEnv(build=a.build)
    try:
        key = "big.bin" if size > (10 << 20) else "small.bin"
        if kind == "local":
            d = env.add_local_profile("bench")
            shutil.copyfile(large if size > (10 << 20) else small,
                            os.path.join(d, key))
            os.chmod(os.path.join(d, key), 0o600)
            chown_tree(d, "lockfile")
        elif kind == "s3":
            env._write_home(".config/lockfile/s3", ("%s\n%s\n" % (
                ACCESS_KEY, SECRET_KEY)).encode(), 0o600)
            env.add_profile("bench", {
                "source": "s3", "endpoint": sw.endpoint, "region": REGION,
                "bucket": "bench", "url_style": "path",
                "credentials": {"file": "~/.config/lockfile/s3"}})
        else:
            env._write_home(".config/lockfile/key", sd.client_key.encode(),
                            0o600)
            t = sd.profile(credentials={"file": "~/.config/lockfile/key"})
            t["source"] = "sftp"
            env.add_profile("bench", t)
        env.install_plugin("is-utf8")
        env.write_policy(max_workspace_bytes=2 << 30, approval_timeout_s=120)
        env.start()
        before = vm_hwm_kb(env.console_pid)
        box = {}

        def go():
            box["req"], box["line"], _ = env.rpc("file.plan", {
                "profile": "bench", "key": key,
                "plugins": [{"name": "is-utf8"}]}, timeout=600)
        th = threading.Thread(target=go)
        th.start()
        env.wait_screen(r"Approve\?", timeout=60)
        env.type("y")
        th.join(620)
        doc = json.loads(box["line"])
        rec = [r for r in env.audit() if r.get("method") == "file.plan"][-1]
        after = vm_hwm_kb(env.console_pid)
        if "result" not in doc or rec.get("size") != size:
            raise RuntimeError("console plan failed: %s %s" % (box["line"],
                                                               rec))
        return before, after
    finally:
        env.cleanup()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--size", type=int, default=512, help="MiB")
    ap.add_argument("--rounds", type=int,
                    default=int(os.environ.get("BENCH_FETCH_ROUNDS", "5")))
    ap.add_argument("--only", default="local,s3,sftp,rss")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.bytes = a.size << 20
    a.fetch = os.path.join(a.build, "bench", "fetch", "bench-fetch")
    only = a.only.split(",")
    if os.geteuid() != 0:
        print("bench/fetch: run as root (it starts sshd and Swift)",
              file=sys.stderr)
        return 1
    work = tempfile.mkdtemp(prefix="lfbench-fetch-", dir="/tmp")
    os.chmod(work, 0o755)
    big = os.path.join(work, "src", "big.bin")
    small = os.path.join(work, "src", "small.bin")
    os.mkdir(os.path.dirname(big), 0o700)
    make_file(big, a.bytes)
    make_file(small, 10 << 20)
    print("bench/fetch: %d MiB, %d rounds, load average %s" % (
        a.size, a.rounds, open("/proc/loadavg").read().split()[0]), flush=True)
    sw = sd = None
    results = {}
    try:
        if "local" in only:
            results["local"] = bench_local(a, work, big)
        if "s3" in only or "rss" in only:
            if "s3" in only:
                results["s3"], sw = bench_s3(a, work, big)
            else:
                sw = SwiftEnv()
                sw.start()
                sw.bucket("bench")
                sw.put_file("bench", "big.bin", big)
            sw.put_file("bench", "small.bin", small)
        if "sftp" in only or "rss" in only:
            if "sftp" in only:
                results["sftp"], sd = bench_sftp(a, work, big)
            else:
                sd = SshEnv()
                sd.start()
                shutil.copyfile(big, os.path.join(sd.data, "big.bin"))
            shutil.copyfile(small, os.path.join(sd.data, "small.bin"))
            st = os.stat(sd.data)
            for f in ("big.bin", "small.bin"):
                os.chown(os.path.join(sd.data, f), st.st_uid, st.st_gid)
        if "rss" in only:
            for kind in ("local", "s3", "sftp"):
                line = []
                for size in (10 << 20, a.bytes):
                    before, after = console_rss(a, kind, size, sw, sd, small,
                                                big)
                    line.append("%d MiB: %d kB (%d kB before the plan)"
                                % (size >> 20, after, before))
                print("rss   console peak (VmHWM), %-5s %s" % (kind,
                      "; ".join(line)), flush=True)
    finally:
        if sw is not None:
            sw.cleanup()
        if sd is not None:
            sd.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
