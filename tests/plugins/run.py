#!/usr/bin/python3
"""TAP suites for the official plugins (docs/plugins.md).

usage: run.py [--host DIR] SUITE
  SUITE  is-pdf | is-utf8 | is-json | contains | is-encrypted
         | has-active-content | archive-within-limits
         | pdf-signatures-intact
                                                 one plugin's suite
         sdk                                     SDK behaviour in the sandbox
         manifest                                gen-manifest.py refusals
  --host DIR   run the cases with the sanitized host builds in DIR
               ($BUILD_ASAN/tests/plugins) instead of the sandbox

Sandbox mode needs $BUILD (the plain build: lockfile and the static
plugins) and runs every case through `lockfile sandbox-run` as the lockfile
account. A plugin's cases come from plugins/NAME/tests/cases.py.
"""
import contextlib
import copy
import io
import importlib.util
import json
import os
import subprocess
import sys

import harness
from harness import Case, Check
from lftest import setpriv

PLUGINS = ("is-pdf", "is-utf8", "is-json", "contains", "is-encrypted",
           "has-active-content", "archive-within-limits",
           "pdf-signatures-intact")
MANIFEST_KEYS = ["schema", "name", "version", "protocol", "question", "one",
                 "zero", "inputs", "limits", "binary_sha256"]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gen_manifest():
    return load_module(os.path.join(harness.ROOT, "plugins", "gen-manifest.py"),
                       "gen_manifest")


def manifest_checks(ctx):
    """The generated manifest.json and the binary it describes."""
    mpath, binary = ctx.manifest_path(), ctx.built_binary()
    gm = gen_manifest()

    def parses():
        ctx.manifest()
        return True, ""

    def keys():
        m = ctx.manifest()
        return list(m) == MANIFEST_KEYS, "keys %s" % list(m)

    def sha():
        m = ctx.manifest()
        want = harness.sha256_file(binary)
        h = m["binary_sha256"]
        return (h == want and len(h) == 64 and h == h.lower(),
                "manifest %s, binary %s" % (h, want))

    def valid():
        m = ctx.manifest()
        del m["binary_sha256"]
        gm.check(m, os.path.basename(binary))
        with open(ctx.src("plugins", ctx.plugin, "manifest.in.json"),
                  "rb") as f:
            src = harness.strict_json(f.read())
        return m == src, "differs from manifest.in.json"

    def static():
        return harness.elf_static(binary)

    def sandbox_hash():
        # The sandbox hashes the opened binary: the manifest's hash must be
        # the one it computes (a wrong one is refused as tampered).
        m = ctx.manifest()
        r = harness.Runner(ctx)
        inp = ctx.file("hash-probe.txt", b"{}")
        c = Case("", inp, "answer",
                 values=[b"x"] if m["protocol"] == 2 else None)
        out = [run_with_sha(r, c, h) for h in (m["binary_sha256"], "0" * 64)]
        return (out[0] in ("1", "0") and out[1] == "error:tampered",
                "with manifest hash %s, with zeros %s" % tuple(out))

    return [
        Check("manifest.json is strict JSON (%s)" % mpath, parses),
        Check("manifest.json has exactly the documented keys, in order", keys),
        Check("binary_sha256 is the built binary's sha256", sha),
        Check("manifest.json passes the manifest rules and equals "
              "manifest.in.json plus the hash", valid),
        Check("the binary is a static ELF (no PT_INTERP, no DT_NEEDED)",
              static),
        Check("sandbox-run --sha256 accepts the manifest's hash and refuses "
              "another", sandbox_hash),
    ]


def run_with_sha(runner, case, sha):
    lim = runner.limits()
    cmd = setpriv(harness.ACCOUNT) + [
        runner.lockfile,
        "sandbox-run", "--protocol", "2" if case.values else "1",
        "--cpu", str(lim["cpu_s"]), "--memory", str(lim["memory_bytes"]),
        "--wall", str(lim["wall_s"]), "--sha256", sha]
    for v in case.values or []:
        vf = runner.ctx.file("hash-probe.value", v)
        cmd += ["--value-file", vf]
    cmd += [runner.ctx.built_binary(), case.path]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=120)
    out = p.stdout.decode("utf-8", "replace").strip()
    return "error:" + out[7:] if out.startswith("error: ") else out


def sdk_items(ctx):
    """The SDK's fstat note, checked where it matters: in the sandbox."""
    probe = ctx.helper("test-probe_fstat")
    items = []
    for size in (2, 5, 100000):
        body = (b"%d\n" % size).ljust(size, b"x")
        p = ctx.file("size-%d" % size, body)
        items.append(Case("libc fstat() is refused (EPERM) and "
                          "lfp_input_size() gives the size (%d bytes)" % size,
                          p, "1", binary=probe))
    # Negative control: the probe can answer 0 (wrong size in the file).
    p = ctx.file("size-wrong", b"7\n")
    items.append(Case("probe answers 0 when the size differs (control)", p,
                      "0", binary=probe))
    items += doc_example_items(ctx)
    return items


def doc_example(ctx):
    """The C example of docs/plugins.md, exactly as printed there."""
    with open(ctx.src("docs", "plugins.md"), encoding="utf-8") as f:
        text = f.read()
    marker = "<!-- example: has-nul.c -->\n```c\n"
    start = text.index(marker) + len(marker)
    return text[start:text.index("```", start)]


def doc_example_items(ctx):
    """docs/plugins.md's example, built the two documented ways (glibc
    static-pie, musl static), answers 1 and 0 in the sandbox."""
    sdk = ctx.src("plugins", "sdk")
    abi = ctx.src("include")
    src = os.path.join(ctx.tmp, "has-nul.c")
    with open(src, "w") as f:
        f.write(doc_example(ctx))
    builds = [("gcc", ["gcc", "-O2", "-static-pie", "-fPIE"]),
              ("musl-gcc", ["musl-gcc", "-O2", "-static"])]
    with_nul = ctx.file("with-nul", b"text\x00more")
    without = ctx.file("without-nul", b"plain text\n" * 1000)
    items = []
    for name, cc in builds:
        out = os.path.join(ctx.tmp, "bin", "has-nul-" + name)

        def build(cc=cc, out=out):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            p = subprocess.run(cc + ["-std=gnu11", "-D_GNU_SOURCE", "-Wall",
                                     "-Wextra", "-Werror", "-I" + sdk,
                                     "-I" + abi, "-o",
                                     out, src, os.path.join(sdk, "lfplugin.c"),
                                     os.path.join(sdk, "utf8.c")],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if p.returncode != 0:
                return False, p.stdout.decode("utf-8", "replace")[-300:]
            os.chmod(out, 0o755)
            return harness.elf_static(out)
        items.append(Check("the docs example builds static with %s" % name,
                           build))
        items.append(Case("docs example (%s) finds a NUL" % name, with_nul,
                          "1", binary=out))
        items.append(Case("docs example (%s) finds none" % name, without,
                          "0", binary=out))
    return items


def manifest_items(ctx):
    """gen-manifest.py refuses every malformed manifest.in.json."""
    good = {
        "schema": 1, "name": "is-utf8", "version": "1.0.0", "protocol": 1,
        "question": "Q?", "one": "yes", "zero": "no", "inputs": [],
        "limits": {"cpu_s": 1, "memory_bytes": 1 << 20, "wall_s": 1},
    }
    two = dict(good, protocol=2,
               inputs=[{"name": "needle", "kind": "text", "max_bytes": 1}])
    binary = ctx.file("is-utf8", b"\x7fELF not really a binary")

    def variant(base, path, value, delete=False):
        m = copy.deepcopy(base)
        obj = m
        for k in path[:-1]:
            obj = obj[k]
        if delete:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
        return json.dumps(m).encode()

    cases = [
        ("a minimal protocol 1 manifest", json.dumps(good).encode(), True),
        ("a minimal protocol 2 manifest", json.dumps(two).encode(), True),
        ("an extra key", variant(good, ["extra"], 1), False),
        ("binary_sha256 given in the source", variant(good, ["binary_sha256"],
                                                      "0" * 64), False),
        ("a missing key", variant(good, ["zero"], None, True), False),
        ("keys out of order", json.dumps(dict(
            reversed(list(good.items())))).encode(), False),
        ("a duplicate key",
         json.dumps(good).encode()[:-1] + b', "schema": 1}', False),
        ("schema 2", variant(good, ["schema"], 2), False),
        ("schema true", variant(good, ["schema"], True), False),
        ("a name with a capital", variant(good, ["name"], "Is-utf8"), False),
        ("a name other than the binary's", variant(good, ["name"], "other"),
         False),
        ("version 1.0", variant(good, ["version"], "1.0"), False),
        ("version 01.0.0", variant(good, ["version"], "01.0.0"), False),
        ("version 1000000.0.0", variant(good, ["version"], "1000000.0.0"),
         False),
        ("protocol 3", variant(good, ["protocol"], 3), False),
        ("a protocol 1 plugin with an input",
         variant(good, ["inputs"], two["inputs"]), False),
        ("a protocol 2 plugin without inputs", variant(two, ["inputs"], []),
         False),
        ("an input kind 'number'",
         variant(two, ["inputs", 0, "kind"], "number"), False),
        ("an input name with a dash",
         variant(two, ["inputs", 0, "name"], "need-le"), False),
        ("max_bytes 0", variant(two, ["inputs", 0, "max_bytes"], 0), False),
        ("max_bytes 4097", variant(two, ["inputs", 0, "max_bytes"], 4097),
         False),
        ("two inputs with one name",
         variant(two, ["inputs"], two["inputs"] * 2), False),
        ("a question of 201 bytes", variant(good, ["question"], "q" * 201),
         False),
        ("a question with a newline", variant(good, ["question"], "a\nb"),
         False),
        ("a question with non-ASCII", variant(good, ["question"], "caf\u00e9"),
         False),
        ("an empty meaning of 1", variant(good, ["one"], ""), False),
        ("cpu_s 0", variant(good, ["limits", "cpu_s"], 0), False),
        ("memory_bytes below 1 MiB",
         variant(good, ["limits", "memory_bytes"], 1000), False),
        ("wall_s below cpu_s", variant(good, ["limits"], {
            "cpu_s": 5, "memory_bytes": 1 << 20, "wall_s": 4}), False),
        ("a limit as a float", variant(good, ["limits", "cpu_s"], 1.5), False),
        ("NaN", json.dumps(good).encode().replace(b'"schema": 1',
                                                   b'"schema": NaN'), False),
        ("not UTF-8", b'\xff' + json.dumps(good).encode(), False),
    ]
    items = []
    gm = gen_manifest()
    for desc, data, accept in cases:
        def fn(data=data, accept=accept):
            src = ctx.file("manifest.in.json", data)
            out = ctx.scratch(".json")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = gm.main(["gen-manifest.py", src, binary, out])
            made = os.path.exists(out)
            if accept:
                ok = rc == 0 and made
                if ok:
                    with open(out, "rb") as f:
                        m = harness.strict_json(f.read())
                    ok = list(m) == MANIFEST_KEYS and \
                        m["binary_sha256"] == harness.sha256_file(binary)
            else:
                ok = rc != 0 and not made
            return ok, "rc %d %s" % (rc, err.getvalue())
        items.append(Check("gen-manifest %s %s" % (
            "accepts" if accept else "refuses", desc), fn))
    return items


def main(argv):
    host_dir = None
    args = argv[1:]
    if len(args) >= 2 and args[0] == "--host":
        host_dir, args = args[1], args[2:]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 64
    suite = args[0]
    build = os.environ.get("BUILD", os.path.join(harness.ROOT, "build"))
    tmp = harness.make_tmp()
    try:
        mode = "host" if host_dir else "sandbox"
        plugin = suite if suite in PLUGINS else "is-utf8"
        ctx = harness.Ctx(mode, build, host_dir, plugin, tmp)
        runner = harness.Runner(ctx)
        if suite == "sdk":
            ctx.plugin = "sdk"
            runner.run(sdk_items(ctx))
        elif suite == "manifest":
            ctx.plugin = "gen-manifest"
            runner.run(manifest_items(ctx))
        elif suite in PLUGINS:
            if not ctx.host:
                runner.run(manifest_checks(ctx))
            mod = load_module(os.path.join(harness.ROOT, "plugins", suite,
                                           "tests", "cases.py"),
                              "cases_" + suite.replace("-", "_"))
            runner.run(mod.cases(ctx))
        else:
            sys.stderr.write(__doc__)
            return 64
        print("1..%d" % runner.n)
        return 1 if runner.failed else 0
    finally:
        harness.remove_tmp(tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
