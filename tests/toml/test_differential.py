"""Differential test of src/lib/toml.c against Python's tomllib (TOML 1.0.0).

Random documents from two seeded generators go through both parsers:
 - structure: headers, arrays of tables, dotted keys and inline tables over a
   three-letter key alphabet, so that names collide and TOML's redefinition
   rules decide most documents;
 - lexical: the four string forms stuffed with escapes, quotes, newlines and
   control bytes, and integer/float/date-time tokens near every edge.
They must agree: same value when both accept; refused as unsupported exactly
when tomllib's value holds a float or a date/time; refused as invalid when
tomllib refuses. Known, documented differences are allowed: integers outside
int64 (TOML says to refuse them; Python's int has no bound) and a leading
byte-order mark (tomllib refuses it, toml-test accepts it).
"""
import datetime
import json
import os
import random
import subprocess
import tomllib

import pytest

BUILD = os.environ.get("BUILD", os.path.join(os.path.dirname(__file__),
                                             "..", "..", "build"))
DUMP = os.path.join(BUILD, "tests", "toml", "toml-dump")


def gen_structure(rng):
    keys = ["a", "b", "c"]

    def key(maxp=3):
        return ".".join(rng.choice(keys) for _ in range(rng.randint(1, maxp)))

    def val(d=0):
        r = rng.random()
        if d < 3 and r < 0.2:
            return "[" + ", ".join(val(d + 1)
                                   for _ in range(rng.randint(0, 3))) + "]"
        if d < 3 and r < 0.45:
            return "{" + ", ".join(key() + " = " + val(d + 1)
                                   for _ in range(rng.randint(0, 3))) + "}"
        if r < 0.75:
            return str(rng.randint(-5, 9))
        return rng.choice(["true", "false", "'s'", '"t"', "1.5", "1979-05-27"])

    lines = []
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        if r < 0.2:
            lines.append("[" + key() + "]")
        elif r < 0.35:
            lines.append("[[" + key() + "]]")
        else:
            lines.append(key() + " = " + val())
    return ("\n".join(lines) + "\n").encode()


ATOMS = ['a', ' ', '\t', '"', "'", '\\', '\\n', '\\t', '\\"', '\\\\',
         '\\u00e9', '\\U0001F600', '\\ud800', '\\x41', '\\e', '\n', '\r\n',
         '\r', '\\\n', '\\  \n', '\\ \t\r\n  ', '#', '\u00e9', '\x7f', '\x00',
         '\x1f', '""', "''", '"""', "'''", '\\ ', '\\u12', '\\U00110000', '=',
         ',', ']', '}']
OPENERS = ['"', "'", '"""', "'''"]
TOKENS = ['0', '-0', '+1', '01', '1_000', '1__0', '_1', '0x1F', '0xg', '0o7',
          '0o8', '0b1', '0b2', '+0x1', '9223372036854775807',
          '9223372036854775808', '-9223372036854775808',
          '-9223372036854775809', '1.0', '1.', '.1', '1e5', '1e', '1E+5',
          '1_0.0_1', 'inf', '-nan', 'nan1', '1979-05-27',
          '1979-05-27T07:32:00Z', '1979-05-27 07:32:00', '07:32:00', '07:32',
          '1979-02-29', '2000-02-29', '1979-05-27T07:32:00+25:00', 'true',
          'false', 'True', '0x', '00', '1_']


def gen_lexical(rng):
    lines = []
    for j in range(rng.randint(1, 4)):
        if rng.random() < 0.5:
            o = rng.choice(OPENERS)
            body = "".join(rng.choice(ATOMS)
                           for _ in range(rng.randint(0, 8)))
            line = "k%d = %s%s%s" % (j, o, body, o)
        else:
            line = "k%d = %s" % (j, rng.choice(TOKENS))
        lines.append(line + rng.choice(["", " # c", "  ", " x", ","]))
    nl = rng.choice(["\n", "\r\n"])
    return (nl.join(lines) + "\n").encode()


def uses_unsupported(v):
    if isinstance(v, dict):
        return any(uses_unsupported(x) for x in v.values())
    if isinstance(v, list):
        return any(uses_unsupported(x) for x in v)
    return isinstance(v, (float, datetime.date, datetime.time))


def out_of_int64(v):
    if isinstance(v, dict):
        return any(out_of_int64(x) for x in v.values())
    if isinstance(v, list):
        return any(out_of_int64(x) for x in v)
    return (isinstance(v, int) and not isinstance(v, bool)
            and not -2**63 <= v < 2**63)


def run_dump(tmp_path, docs):
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / ("d%05d.toml" % i)
        p.write_bytes(d)
        paths.append(str(p))
    out = []
    for i in range(0, len(paths), 500):
        r = subprocess.run([DUMP] + paths[i:i + 500], capture_output=True,
                           timeout=300, check=True)
        out += r.stdout.decode("ascii").splitlines()
    assert len(out) == len(docs)
    return out


def compare(tmp_path, docs):
    kinds = {"OK": 0, "UNSUPPORTED": 0, "INVALID": 0}
    bad = []
    for doc, line in zip(docs, run_dump(tmp_path, docs)):
        mine, _, rest = line.partition(" ")
        kinds[mine] = kinds.get(mine, 0) + 1
        try:
            ref = tomllib.loads(doc.decode("utf-8"))
            want = "UNSUPPORTED" if uses_unsupported(ref) else "OK"
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            ref, want = None, "INVALID"
        if mine == "INVALID" and ref is not None and out_of_int64(ref) \
                and "64-bit range" in rest:
            continue
        if mine == "OK" and doc.startswith(b"\xef\xbb\xbf"):
            continue
        if mine != want or (mine == "OK" and json.loads(rest) != ref):
            bad.append((doc, line[:120], want))
    return kinds, bad


@pytest.fixture(scope="module", autouse=True)
def dump_built():
    if not os.access(DUMP, os.X_OK):
        pytest.fail("%s not built" % DUMP)


@pytest.mark.parametrize("name,gen,seed,count", [
    ("structure", gen_structure, 1, 6000),
    ("structure", gen_structure, 7, 6000),
    ("lexical", gen_lexical, 2, 6000),
    ("lexical", gen_lexical, 9, 6000),
])
def test_agrees_with_tomllib(tmp_path, name, gen, seed, count):
    rng = random.Random(seed)
    docs = [gen(rng) for _ in range(count)]
    kinds, bad = compare(tmp_path, docs)
    # Not vacuous: a good share of each outcome.
    assert kinds["OK"] > count // 20, kinds
    assert kinds["INVALID"] > count // 20, kinds
    assert kinds["UNSUPPORTED"] > 0, kinds
    assert not bad, "%d disagreements, first: %r" % (len(bad), bad[:3])
