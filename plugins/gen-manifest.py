#!/usr/bin/python3
"""Generate a plugin's manifest.json from its manifest.in.json and binary.

usage: gen-manifest.py MANIFEST_IN BINARY OUTPUT

The input is checked as strictly as the store will check the result
(docs/plugins.md, "Manifest"): exactly the documented keys, in order, no
duplicates, every value typed and bounded. The output is the same object with
"binary_sha256" (lowercase hex of BINARY) appended, written atomically. Any
violation fails the build with a message naming the field.
"""
import hashlib
import json
import os
import re
import sys
import tempfile

KEYS = ["schema", "name", "version", "protocol", "question", "one", "zero",
        "inputs", "limits"]
INPUT_KEYS = ["name", "kind", "max_bytes"]
LIMIT_KEYS = ["cpu_s", "memory_bytes", "wall_s"]
KINDS = ("text", "email")
NAME_RE = re.compile(r"[a-z][a-z0-9-]{0,31}")
INPUT_NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,31}")
VERSION_RE = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})\."
                        r"(0|[1-9][0-9]{0,5})")
TEXT_MAX = 200
MAX_INPUTS = 8          # what `lockfile sandbox-run` passes at most
CPU_RANGE = (1, 600)          # the store's bounds (src/store/manifest.c)
WALL_RANGE = (1, 3600)
MEMORY_RANGE = (1 << 20, 16 << 30)


class ManifestError(Exception):
    pass


def no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ManifestError("duplicate key %r" % k)
        seen[k] = v
    return seen


def exact_keys(obj, keys, where):
    if not isinstance(obj, dict):
        raise ManifestError("%s must be an object" % where)
    if list(obj.keys()) != keys:
        raise ManifestError("%s must have exactly the keys %s, in that "
                            "order (has %s)" % (where, keys, list(obj)))


def integer(v, lo, hi, where):
    # bool is an int subclass in Python; JSON true is not a number here.
    if type(v) is not int or not lo <= v <= hi:
        raise ManifestError("%s must be an integer in %d..%d" % (where, lo, hi))
    return v


def printable(v, where):
    if not isinstance(v, str) or not 1 <= len(v) <= TEXT_MAX or \
            any(not 0x20 <= ord(c) <= 0x7e for c in v):
        raise ManifestError("%s must be 1..%d bytes of printable ASCII"
                            % (where, TEXT_MAX))


def check(m, binary_name):
    exact_keys(m, KEYS, "manifest")
    integer(m["schema"], 1, 1, "schema")
    name = m["name"]
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ManifestError("name must match [a-z][a-z0-9-]{0,31}")
    if name != binary_name:
        raise ManifestError("name %r differs from the binary's %r"
                            % (name, binary_name))
    if not isinstance(m["version"], str) or \
            not VERSION_RE.fullmatch(m["version"]):
        raise ManifestError("version must be MAJOR.MINOR.PATCH, each "
                            "0..999999 without leading zeros")
    proto = integer(m["protocol"], 1, 2, "protocol")
    for k in ("question", "one", "zero"):
        printable(m[k], k)
    inputs = m["inputs"]
    if not isinstance(inputs, list):
        raise ManifestError("inputs must be an array")
    if proto == 1 and inputs:
        raise ManifestError("a protocol 1 plugin has no inputs")
    if proto == 2 and not 1 <= len(inputs) <= MAX_INPUTS:
        raise ManifestError("a protocol 2 plugin has 1..%d inputs" % MAX_INPUTS)
    names = set()
    for i, inp in enumerate(inputs):
        where = "inputs[%d]" % i
        exact_keys(inp, INPUT_KEYS, where)
        if not isinstance(inp["name"], str) or \
                not INPUT_NAME_RE.fullmatch(inp["name"]):
            raise ManifestError(where + ".name must match [a-z][a-z0-9_]{0,31}")
        if inp["name"] in names:
            raise ManifestError(where + ".name repeats an earlier input")
        names.add(inp["name"])
        if inp["kind"] not in KINDS:
            raise ManifestError(where + ".kind must be one of %s" % (KINDS,))
        integer(inp["max_bytes"], 1, 4096, where + ".max_bytes")
    lim = m["limits"]
    exact_keys(lim, LIMIT_KEYS, "limits")
    cpu = integer(lim["cpu_s"], *CPU_RANGE, "limits.cpu_s")
    integer(lim["memory_bytes"], *MEMORY_RANGE, "limits.memory_bytes")
    wall = integer(lim["wall_s"], *WALL_RANGE, "limits.wall_s")
    if wall < cpu:
        raise ManifestError("limits.wall_s must be at least limits.cpu_s")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 64
    src, binary, out = argv[1:]
    try:
        with open(src, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError("not UTF-8")
        try:
            m = json.loads(text, object_pairs_hook=no_duplicates,
                           parse_constant=lambda c: (_ for _ in ()).throw(
                               ManifestError("constant %s" % c)))
        except json.JSONDecodeError as e:
            raise ManifestError("not JSON: %s" % e)
        check(m, os.path.basename(binary))
    except ManifestError as e:
        sys.stderr.write("%s: %s\n" % (src, e))
        return 1
    m["binary_sha256"] = sha256_file(binary)
    data = json.dumps(m, indent=2, ensure_ascii=True) + "\n"
    d = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".manifest.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
