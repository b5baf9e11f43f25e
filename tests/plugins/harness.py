"""Shared machinery of the plugin test suites (tests/plugins/run.py).

A suite is a list of items, each printed as one TAP line:
  Case   -- run one plugin on one input and compare the printed answer;
  Check  -- a plain assertion (a manifest field, an oracle agreeing).
Cases run in one of two modes:
  sandbox -- `lockfile sandbox-run` as the `lockfile` account, with the
             manifest's limits unless a case sets its own: what a plan does;
  host    -- the sanitized (ASan/UBSan) host build of the same sources, run
             directly with fd 3 (and 6, 7) redirected: memory errors show.
"""
import fcntl
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading

from lftest import setpriv, sha256_file  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ACCOUNT = "lockfile"
LFP_EXIT_ERROR = 2
SAN_EXIT = 86               # what a sanitizer report exits with (host mode)


class Case:
    """Run a plugin on `path`; `expect` is "1", "0", "error" or "answer"
    (either 1 or 0, never an error: for implementation-defined inputs)."""

    def __init__(self, desc, path, expect, values=None, protocol=None,
                 memory=None, cpu=None, wall=None, detail=None, binary=None,
                 host=True, heavy=False, pipe=False):
        self.desc, self.path, self.expect = desc, path, expect
        self.values, self.protocol = values, protocol
        self.memory, self.cpu, self.wall = memory, cpu, wall
        self.detail = detail        # regex the fd 7 detail must match
        self.binary = binary        # another plugin binary (test helpers)
        self.host = host            # also run in host mode
        self.heavy = heavy          # big input: run alone, not in parallel
        # Host mode only: fd 3 is a pipe the file is written into (not a
        # regular file, so the SDK reads instead of mapping).
        self.pipe = pipe


class Check:
    """fn() returns (ok, note)."""

    def __init__(self, desc, fn):
        self.desc, self.fn = desc, fn


class Ctx:
    def __init__(self, mode, build, build_host, plugin, tmp):
        self.mode, self.build, self.build_host = mode, build, build_host
        self.host = mode == "host"
        self.plugin = plugin
        self.tmp = tmp
        self.root = ROOT
        self._n = 0

    def src(self, *parts):
        return os.path.join(ROOT, *parts)

    def file(self, name, data):
        """A world-readable input file in the suite's scratch directory."""
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o644)
        return path

    def sparse(self, name, size, writes=()):
        """A sparse file of `size` bytes with (offset, bytes) written in."""
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.truncate(size)
            for off, data in writes:
                f.seek(off)
                f.write(data)
        os.chmod(path, 0o644)
        return path

    def scratch(self, suffix=""):
        self._n += 1
        return os.path.join(self.tmp, "scratch-%d%s" % (self._n, suffix))

    def fixtures(self, plugin=None):
        """Committed fixtures: plugins/NAME/tests/{yes,no,error}/FILE.
        A FILE.needle beside FILE is its protocol 2 value."""
        base = self.src("plugins", plugin or self.plugin, "tests")
        for expect, sub in (("1", "yes"), ("0", "no"), ("error", "error")):
            d = os.path.join(base, sub)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if name.endswith(".needle"):
                    continue
                path = os.path.join(d, name)
                values = None
                if os.path.exists(path + ".needle"):
                    with open(path + ".needle", "rb") as f:
                        values = [f.read()]
                yield expect, "fixture %s/%s" % (sub, name), path, values

    def binary(self, name=None):
        """The plugin under test: a snapshot of the built binary."""
        name = name or self.plugin
        if self.host:
            return snapshot(self, os.path.join(self.build_host, name))
        return snapshot(self, os.path.join(self.build, "plugins", name, name))

    def built_binary(self):
        return os.path.join(self.build, "plugins", self.plugin, self.plugin)

    def helper(self, name):
        """A test-only plugin (plugins/tests/): sandbox mode only."""
        return snapshot(self, os.path.join(self.build, "plugins", "tests",
                                           name))

    def manifest_path(self):
        return os.path.join(self.build, "plugins", self.plugin,
                            "manifest.json")

    def manifest(self):
        with open(self.manifest_path(), "rb") as f:
            return strict_json(f.read())


_snapshot_lock = threading.Lock()


def snapshot(ctx, path):
    """A private copy of a built binary, so a rebuild running meanwhile
    (the tree is shared) cannot swap it under the suite."""
    d = os.path.join(ctx.tmp, "bin")
    dst = os.path.join(d, os.path.basename(path))
    with _snapshot_lock:
        os.makedirs(d, mode=0o755, exist_ok=True)
        if not os.path.exists(dst) and os.path.exists(path):
            shutil.copyfile(path, dst + ".tmp")
            os.chmod(dst + ".tmp", 0o755)
            os.rename(dst + ".tmp", dst)
    return dst


def strict_json(data):
    def pairs(kv):
        d = {}
        for k, v in kv:
            if k in d:
                raise ValueError("duplicate key %r" % k)
            d[k] = v
        return d

    def constant(c):
        raise ValueError("constant %s" % c)
    return json.loads(data.decode("utf-8"), object_pairs_hook=pairs,
                      parse_constant=constant)


def frame_values(values):
    """The fd 6 format: per value a 4-byte big-endian length, the bytes."""
    return b"".join(len(v).to_bytes(4, "big") + v for v in values)


class Runner:
    def __init__(self, ctx):
        self.ctx = ctx
        self.n = 0
        self.failed = 0
        # lockfile forwards sandbox-run to the executable beside it
        # (docs/hacking.md, "Executables"): both are copied.
        snapshot(ctx, os.path.join(ctx.build, "lockfile-sandbox-run"))
        self.lockfile = snapshot(ctx, os.path.join(ctx.build, "lockfile"))
        self._limits = None

    def tap(self, ok, desc, note=""):
        self.n += 1
        if not ok:
            self.failed += 1
        desc = desc.replace("#", "(hash)").replace("\n", " ")
        print("%s %d - %s%s" % ("ok" if ok else "not ok", self.n, desc,
                                (" # " + note) if note and not ok else ""),
              flush=True)

    def limits(self):
        if self._limits is None:
            try:
                self._limits = self.ctx.manifest()["limits"]
            except (OSError, ValueError, KeyError):
                self._limits = {"cpu_s": 10, "memory_bytes": 64 << 20,
                                "wall_s": 30}
        return self._limits

    def protocol(self, case):
        if case.protocol is not None:
            return case.protocol
        return 2 if case.values is not None else 1

    def run_sandbox(self, case):
        lim = self.limits()
        cmd = setpriv(ACCOUNT) + [
            self.lockfile, "sandbox-run", "--report",
            "--protocol", str(self.protocol(case)),
            "--cpu", str(case.cpu or lim["cpu_s"]),
            "--memory", str(case.memory or lim["memory_bytes"]),
            "--wall", str(case.wall or lim["wall_s"])]
        for v in case.values or []:
            vf = self.ctx.scratch(".value")
            with open(vf, "wb") as f:
                f.write(v)
            os.chmod(vf, 0o644)
            cmd += ["--value-file", vf]
        cmd += [case.binary or self.ctx.binary(), case.path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=(case.wall or lim["wall_s"]) + 60)
        out = p.stdout.decode("utf-8", "replace").strip()
        err = p.stderr.decode("utf-8", "replace")
        m = re.search(r"^detail: (.*)$", err, re.M)
        detail = m.group(1) if m else ""
        if out in ("1", "0") and p.returncode == 0:
            return out, detail, err
        if out.startswith("error: "):
            return "error:" + out[7:], detail, err
        return "harness:%s rc=%d" % (out[:60], p.returncode), detail, err

    def run_host(self, case):
        binary = case.binary or self.ctx.binary()
        lim = self.limits()
        srcs = {}
        feeder = None
        try:
            if case.pipe:
                r, w = os.pipe()
                srcs[3] = r

                def feed(w=w):
                    with open(case.path, "rb") as f, \
                            os.fdopen(w, "wb") as out:
                        try:
                            shutil.copyfileobj(f, out)
                        except BrokenPipeError:
                            pass    # the plugin answered before the end
                feeder = threading.Thread(target=feed, daemon=True)
            else:
                srcs[3] = os.open(case.path, os.O_RDONLY)
            detail_path = None
            if self.protocol(case) == 2:
                vpath = self.ctx.scratch(".fd6")
                with open(vpath, "wb") as f:
                    f.write(frame_values(case.values or []))
                srcs[6] = os.open(vpath, os.O_RDONLY)
                detail_path = self.ctx.scratch(".fd7")
                srcs[7] = os.open(detail_path, os.O_WRONLY | os.O_CREAT, 0o600)
            # Sources above every target number (and private to this
            # thread), so no dup2 in the child clobbers another source.
            for t in list(srcs):
                hi = fcntl.fcntl(srcs[t], fcntl.F_DUPFD_CLOEXEC, 10)
                os.close(srcs[t])
                srcs[t] = hi

            def place():
                for t, fd in srcs.items():
                    os.dup2(fd, t)
            if feeder is not None:
                feeder.start()
            env = {"ASAN_OPTIONS": "exitcode=%d:detect_leaks=1" % SAN_EXIT,
                   "UBSAN_OPTIONS": "halt_on_error=1:exitcode=%d:"
                   "print_stacktrace=1" % SAN_EXIT}
            # close_fds=False: Python's own descriptors are close-on-exec,
            # and its pass_fds would have to exist before place() runs.
            p = subprocess.run([binary], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=place, close_fds=False, env=env,
                               timeout=10 * (case.wall or lim["wall_s"]))
        finally:
            for fd in srcs.values():
                os.close(fd)
            if feeder is not None and feeder.is_alive():
                feeder.join(30)
        err = p.stderr.decode("utf-8", "replace")
        detail = ""
        if detail_path:
            with open(detail_path, "rb") as f:
                detail = f.read().decode("utf-8", "replace")
        out = p.stdout.decode("utf-8", "replace")
        if p.returncode == 0 and out in ("1\n", "0\n"):
            return out[0], detail, err
        if p.returncode == LFP_EXIT_ERROR and out == "":
            return "error:exit-nonzero", detail, err
        return "harness:rc=%d out=%r %s" % (p.returncode, out[:20],
                                           err[-400:]), detail, err

    def skip(self, c):
        return self.ctx.host and (not c.host or c.binary is not None)

    def execute(self, c):
        try:
            return (self.run_host(c) if self.ctx.host
                    else self.run_sandbox(c))
        except subprocess.TimeoutExpired:
            return "harness:timeout", "", ""

    def case(self, c, result=None):
        got, detail, err = result or self.execute(c)
        if c.expect == "answer":
            ok = got in ("1", "0")
        elif c.expect == "error":
            ok = got.startswith("error:")
        else:
            ok = got == c.expect
        note = "got %s" % got
        if ok and c.detail is not None and not re.fullmatch(c.detail, detail):
            ok, note = False, "detail %r does not match %r" % (detail, c.detail)
        self.tap(ok, "%s: %s (expect %s)" % (self.ctx.plugin, c.desc,
                                             c.expect), note)

    def check(self, c):
        try:
            ok, note = c.fn()
        except Exception as e:  # a check that raises has failed
            ok, note = False, "%s: %s" % (type(e).__name__, e)
        self.tap(bool(ok), "%s: %s" % (self.ctx.plugin, c.desc), note or "")

    def run(self, items, jobs=4):
        """Light cases run `jobs` at a time (a sandbox run mostly waits);
        checks and heavy cases run alone. TAP lines keep the items' order."""
        from concurrent.futures import ThreadPoolExecutor
        batch = []

        def flush():
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                results = list(pool.map(self.execute, batch))
            for c, r in zip(batch, results):
                self.case(c, r)
            batch.clear()
        for it in items:
            if isinstance(it, Case) and self.skip(it):
                continue
            if isinstance(it, Case) and not it.heavy:
                batch.append(it)
                continue
            flush()
            if isinstance(it, Check):
                self.check(it)
            else:
                self.case(it)
        flush()


def make_tmp():
    """Scratch directory the lockfile account can read (tests run as
    root), removed by the caller."""
    base = os.environ.get("LFP_TEST_TMP", tempfile.gettempdir())
    d = tempfile.mkdtemp(prefix="lf-plugin-tests.", dir=base)
    os.chmod(d, 0o755)
    return d


def remove_tmp(d):
    shutil.rmtree(d, ignore_errors=True)


def elf_static(path):
    """(ok, note): an x86-64/arm64 ELF executable without PT_INTERP and
    without DT_NEEDED, i.e. one that needs no loader and no library."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return False, "not a 64-bit little-endian ELF"
    e_type, = struct.unpack_from("<H", data, 16)
    e_phoff, = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    if e_type not in (2, 3):
        return False, "not an executable"
    dyn = None
    for i in range(e_phnum):
        off = e_phoff + i * e_phentsize
        p_type, = struct.unpack_from("<I", data, off)
        if p_type == 3:
            return False, "has PT_INTERP (dynamically linked)"
        if p_type == 2:
            dyn = struct.unpack_from("<QQ", data, off + 8)   # offset, vaddr
    if dyn is not None:
        off = dyn[0]
        while off + 16 <= len(data):
            tag, val = struct.unpack_from("<qQ", data, off)
            if tag == 0:
                break
            if tag == 1:
                return False, "has DT_NEEDED (needs a shared library)"
            off += 16
    return True, ""


def is_world_readable_path(path):
    st = os.stat(path)
    return bool(st.st_mode & stat.S_IROTH)
