#!/usr/bin/python3
"""bench/plugins: each official plugin through the sandbox, as a whole
`lockfile sandbox-run` command, beside its standard tool and `wc -l` on the
same generated file, in rounds whose order rotates (bench/README.md:
medians and ratios, not absolute times).

    bench/plugins/run.py BUILD_DIR [--rounds N] [--text-mib N]
        [--json-mib N] [--pdf-mib N] [--data DIR] [--only GROUPS] [--jq]

  text  1 GiB of mixed-script text (Latin, accented Latin, Cyrillic, CJK):
        is-utf8 vs iconv -f UTF-8 -t UTF-8 (target <= 2x wc -l), contains
        with an absent needle vs grep -F -c (target <= 2x wc -l, and at
        least 2x faster than grep), and the variants: is-utf8 reading
        instead of mapping, is-utf8 as it was (byte-wise)
  json  256 MiB JSON array of records: is-json vs Python's json.load (and
        jq empty with --jq) (target <= 5x wc -l), and is-json as it was
  pdf   256 MiB PDF shaped like a scan: is-pdf, is-encrypted and
        has-active-content vs qpdf --check (target <= 1x)
  zip   archive-within-limits vs unzip -t (target <= 1.5x): a 1 GiB ZIP of
        stored entries (over the 512 MiB bound: it answers 0 from the
        central directory), and a ZIP of text inflating to 480 MiB (within
        every bound: it inflates and checks all of it)
  signed  1 GiB of that PDF with a signature appended:
        pdf-signatures-intact vs openssl dgst -sha256 (target <= 1.5x)

and, for where the time goes, the UTF-8 and JSON checks in process per
instruction set (bench-plugin-kernels: no sandbox, no reads).

Runs as the console account, which the sandbox requires (as root it
re-executes itself through setpriv, as bench/run-all does). The inputs are
generated into a temporary directory (or --data DIR, kept and reused) and
read once before the rounds, so every command reads from the page cache.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
import gendata  # noqa: E402

# Each ratio target: (command, baseline, at most).
TARGETS = [("is-utf8", "wc -l", 2.0), ("is-json", "wc -l", 5.0),
           ("contains", "wc -l", 2.0)]
# Speed-ups to hold: (baseline, command, at least).
SPEEDUPS = [("grep -F -c", "contains", 2.0)]
NEEDLE = "lockfile-bench: Ж-absent-世界".encode()


def run_timed(argv, ok_codes=(0,), want=None):
    """Whole command: (wall seconds, CPU seconds of the process tree)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                 before.ru_stime)
    if r.returncode not in ok_codes:
        raise RuntimeError("%s: exit %d: %s %s" % (
            " ".join(argv), r.returncode, r.stdout[-200:], r.stderr[-300:]))
    if want is not None and r.stdout.strip() != want:
        raise RuntimeError("%s: printed %r, expected %r" % (
            " ".join(argv), r.stdout[-200:], want))
    return wall, cpu


class Cmd:
    def __init__(self, name, argv, ok_codes=(0,), want=None, rounds=None):
        self.name, self.argv = name, argv
        self.ok_codes, self.want = ok_codes, want
        self.rounds = rounds        # fewer rounds for a slow baseline
        self.wall, self.cpu = [], []

    def run(self):
        w, c = run_timed(self.argv, self.ok_codes, self.want)
        self.wall.append(w)
        self.cpu.append(c)
        return w


def group(title, cmds, rounds, base="wc -l"):
    """All commands, round after round, the order rotated each round; a
    command with fewer rounds takes part in the first ones only."""
    print("-- %s" % title, flush=True)
    for c in cmds:          # warm-up, not counted (and the answers checked)
        c.run()
        c.wall.clear()
        c.cpu.clear()
    for r in range(rounds):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        line = []
        for c in order:
            if c.rounds is not None and r >= c.rounds:
                continue
            line.append("%s %.2fs" % (c.name, c.run()))
        print("  round %d: %s" % (r + 1, ", ".join(line)), flush=True)
    b = next(c for c in cmds if c.name == base)
    print("  %-26s %9s %9s %10s %10s" % ("command", "wall", "cpu",
                                         "x " + base, "cpu x"), flush=True)
    res = {}
    for c in cmds:
        # Per-round ratios to the baseline of the same round: of the wall
        # clock (the target), and of the CPU time, which moves less with
        # the machine's load.
        n = min(len(c.wall), len(b.wall))
        ratio = statistics.median(c.wall[i] / b.wall[i] for i in range(n))
        cratio = statistics.median(c.cpu[i] / max(b.cpu[i], 1e-3)
                                   for i in range(n))
        res[c.name] = (statistics.median(c.wall), statistics.median(c.cpu),
                       ratio, cratio)
        print("  %-26s %8.3fs %8.3fs %9.2fx %9.2fx" % (c.name, *res[c.name]),
              flush=True)
    return res


def verdicts(res):
    out = []
    for name, base, most in TARGETS:
        if name in res and base in res:
            r = res[name][2]
            out.append("%s %.2fx %s (target <= %.1fx): %s (CPU time "
                       "%.2fx)" % (name, r, base, most,
                                   "met" if r <= most else "MISSED",
                                   res[name][3]))
    for base, name, least in SPEEDUPS:
        if name in res and base in res:
            r = res[base][0] / res[name][0]
            out.append("%s %.2fx faster than %s (target >= %.1fx): %s" % (
                name, r, base, least, "met" if r >= least else "MISSED"))
    return out


def kernels(build, what, path):
    """The check alone, in process, per instruction set (no sandbox, no
    reads: the file is mapped and faulted in first)."""
    print("  in process, per kernel (best CPU time of 3):", flush=True)
    r = subprocess.run([os.path.join(build, "bench", "bench-plugin-kernels"),
                        what, path, "3"], stdout=subprocess.PIPE)
    sys.stdout.write(r.stdout.decode())
    sys.stdout.flush()


def ensure(path, size, make):
    if not (os.path.exists(path) and os.path.getsize(path) >= size // 2):
        t0 = time.monotonic()
        make(path, size)
        os.chmod(path, 0o644)
        print("  generated %s (%d MiB) in %.1fs" % (
            os.path.basename(path), os.path.getsize(path) >> 20,
            time.monotonic() - t0), flush=True)
    # Into the page cache: every command then reads memory.
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int,
                    default=int(os.environ.get("BENCH_PLUGIN_ROUNDS", "5")))
    ap.add_argument("--text-mib", type=int, default=1024)
    ap.add_argument("--json-mib", type=int, default=256)
    ap.add_argument("--pdf-mib", type=int, default=256)
    ap.add_argument("--data", help="keep the inputs here (reused)")
    ap.add_argument("--zip-mib", type=int, default=1024)
    ap.add_argument("--signed-mib", type=int, default=1024)
    ap.add_argument("--only", default="text,json,pdf,zip,signed")
    ap.add_argument("--jq", action="store_true",
                    help="also jq empty (12 s a run here: 1 round)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)

    if os.getuid() == 0:
        # The sandbox refuses root: run as the console account.
        os.execvp("setpriv", ["setpriv", "--reuid=lockfile",
                              "--regid=lockfile", "--init-groups",
                              sys.executable] + sys.argv)

    lf = os.path.join(build, "lockfile")
    plug = lambda n: os.path.join(build, "plugins", n, n)      # noqa: E731
    var = lambda n: os.path.join(build, "bench", "bench-plugin-" + n)  # noqa
    sbx = [lf, "sandbox-run", "--cpu", "120", "--wall", "300"]
    data = a.data or tempfile.mkdtemp(prefix="lfbench-plugins-")
    os.makedirs(data, exist_ok=True)
    only = a.only.split(",")
    print("bench/plugins %s, load average %s, data in %s" % (
        time.strftime("%Y-%m-%d %H:%M"),
        " ".join("%.2f" % x for x in os.getloadavg()), data), flush=True)
    allres = {}
    try:
        if "text" in only:
            text = os.path.join(data, "text.txt")
            needle = os.path.join(data, "needle")
            with open(needle, "wb") as f:
                f.write(NEEDLE)
            ensure(text, a.text_mib << 20, gendata.text)
            cmds = [
                Cmd("wc -l", ["wc", "-l", text]),
                Cmd("is-utf8", sbx + [plug("is-utf8"), text], want=b"1"),
                Cmd("is-utf8 read (variant)", sbx + [var("utf8-read"), text],
                    want=b"1"),
                Cmd("is-utf8 byte-wise (was)",
                    sbx + [var("utf8-scalar"), text], want=b"1", rounds=3),
                Cmd("iconv", ["iconv", "-f", "UTF-8", "-t", "UTF-8", "-o",
                              "/dev/null", text], rounds=3),
                Cmd("contains", sbx + ["--protocol", "2", "--value-file",
                                       needle, plug("contains"), text],
                    want=b"0"),
                # grep -c exits 1 when nothing matched.
                Cmd("grep -F -c", ["env", "LC_ALL=C", "grep", "-F", "-c",
                                   NEEDLE, text], ok_codes=(1,), want=b"0"),
            ]
            allres.update(group("text, %d MiB" % a.text_mib, cmds, a.rounds))
            kernels(build, "utf8", text)
        if "json" in only:
            js = os.path.join(data, "records.json")
            ensure(js, a.json_mib << 20, gendata.json_array)
            cmds = [
                Cmd("wc -l", ["wc", "-l", js]),
                Cmd("is-json", sbx + [plug("is-json"), js], want=b"1"),
                Cmd("is-json json_check (was)", sbx + [var("json-old"), js],
                    want=b"1"),
                Cmd("python3 json.load", ["/usr/bin/python3", "-c",
                    "import json, sys; json.load(open(sys.argv[1], 'rb'))",
                    js], rounds=3),
            ]
            if a.jq:
                cmds.append(Cmd("jq empty", ["jq", "empty", js], rounds=1))
            allres.update(group("json, %d MiB" % a.json_mib, cmds, a.rounds))
            kernels(build, "json", js)
        if "pdf" in only:
            pdf = os.path.join(data, "scan.pdf")
            ensure(pdf, a.pdf_mib << 20, gendata.pdf)
            cmds = [
                Cmd("wc -l", ["wc", "-l", pdf]),
                Cmd("is-pdf", sbx + [plug("is-pdf"), pdf], want=b"1"),
                Cmd("is-encrypted", sbx + [plug("is-encrypted"), pdf],
                    want=b"0"),
                Cmd("has-active-content", sbx + [
                    plug("has-active-content"), pdf], want=b"0"),
                Cmd("qpdf --check", ["qpdf", "--check", pdf], rounds=3),
            ]
            res = group("pdf, %d MiB" % a.pdf_mib, cmds, a.rounds)
            # The PDF plugins' floor (issue 31): at most 1x qpdf --check.
            for name in ("is-pdf", "is-encrypted", "has-active-content"):
                print("  %s %.4fx qpdf --check's time (target <= 1x)" % (
                    name, res[name][0] / res["qpdf --check"][0]),
                    flush=True)
        if "zip" in only:
            big = os.path.join(data, "stored.zip")
            ensure(big, a.zip_mib << 20, gendata.zip_stored)
            near = os.path.join(data, "text.zip")
            ensure(near, 160 << 20, lambda p, _: gendata.zip_text(
                p, 480 << 20))
            for title, path, want in (
                    ("zip, %d MiB stored" % a.zip_mib, big, b"0"),
                    ("zip, 480 MiB of text deflated", near, b"1")):
                cmds = [
                    Cmd("wc -l", ["wc", "-l", path]),
                    Cmd("archive-within-limits", sbx + [
                        plug("archive-within-limits"), path], want=want),
                    Cmd("unzip -t", ["unzip", "-tqq", path]),
                ]
                res = group(title, cmds, a.rounds)
                # Issue 31's floor: at most 1.5x unzip -t.
                print("  archive-within-limits %.4fx unzip -t's time "
                      "(target <= 1.5x)" % (
                          res["archive-within-limits"][0] /
                          res["unzip -t"][0]), flush=True)
        if "signed" in only:
            spdf = os.path.join(data, "signed.pdf")
            ensure(spdf, a.signed_mib << 20, gendata.signed_pdf)
            cmds = [
                Cmd("wc -l", ["wc", "-l", spdf]),
                Cmd("pdf-signatures-intact", sbx + [
                    plug("pdf-signatures-intact"), spdf], want=b"1"),
                Cmd("openssl dgst -sha256", ["openssl", "dgst", "-sha256",
                                             spdf]),
            ]
            res = group("signed pdf, %d MiB" % a.signed_mib, cmds, a.rounds)
            # Its floor (issue 31): at most 1.5x the file's SHA-256.
            print("  pdf-signatures-intact %.2fx openssl dgst -sha256's time "
                  "(target <= 1.5x)" % (res["pdf-signatures-intact"][0] /
                                        res["openssl dgst -sha256"][0]),
                  flush=True)
    finally:
        if not a.data:
            shutil.rmtree(data, ignore_errors=True)
    print("load average %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    for v in verdicts(allres):
        print(v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
