"""is-json cases: every JSONTestSuite parsing case (y_ must be 1, n_ must be
0, i_ must answer either way without an error), committed fixtures, the
depth limit, read boundaries, large inputs, and a differential check
against Python's json module on mutated documents (fixed seed)."""
import json
import os
import random

from harness import Case

SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "..", "tests", "data", "JSONTestSuite", "test_parsing")
CHUNK = 64 * 1024          # the plugin's read size (before it mapped)
PIECE = 16 << 20           # LFP_PIECE: bytes mapped at a time
READ = 256 * 1024          # its buffer where fd 3 cannot be mapped
DEPTH = 512                # JSON_MAX_DEPTH


def python_valid(data):
    """Python's json as an oracle for the inputs generated below (which
    avoid its known differences: NaN/Infinity, deep nesting, huge ints)."""
    def constant(c):
        raise ValueError(c)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        json.loads(text, parse_constant=constant)
        return True
    except (ValueError, RecursionError):
        return False


SEEDS = [
    b'{"a": [1, 2.5, -3e10, true, false, null], "b": {"c": "d\\u00e9\\n"}}',
    b'[{"k": "v"}, [], {}, "", 0, -0.0, 1E+2, "\\ud83d\\ude00"]',
    '{"caf\u00e9": "\u4e2d\u6587", "e": "\U0001f600", "x": [[[1]]]}'.encode(),
    b'  "just a string"  ',
    b'123.456e-7',
    b'{"nested": {"deeper": {"deepest": [1, {"z": null}]}}}\n',
]


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randint(0, 3)
        at = rng.randint(0, max(0, len(b) - 1))
        ch = rng.choice(b'{}[]:,"\\ 0123456789.eE+-tfnulr\x00\x1f\x7f\xc3\xa9'
                        b'\xff\x80\t\n\r')
        if op == 0 and b:
            b[at] = ch
        elif op == 1:
            b.insert(at, ch)
        elif op == 2 and b:
            del b[at]
        else:
            del b[at:]
    return bytes(b)


def nested(depth, kind):
    if kind == "array":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def cases(ctx):
    d = SUITE
    names = sorted(os.listdir(d))
    expect = {"y": "1", "n": "0", "i": "answer"}
    for name in names:
        if not name.endswith(".json") or name[0] not in expect:
            continue
        yield Case("JSONTestSuite %s" % name, os.path.join(d, name),
                   expect[name[0]], host=True)

    for exp, desc, path, _ in ctx.fixtures():
        yield Case(desc, path, exp)

    # The depth limit: 512 levels are accepted, 513 are refused (answer 0,
    # not an error), for arrays and objects alike.
    for kind in ("array", "object"):
        for depth, exp in ((DEPTH, "1"), (DEPTH + 1, "0")):
            yield Case("%d nested %ss" % (depth, kind),
                       ctx.file("nest-%s-%d" % (kind, depth),
                                nested(depth, kind)), exp)
    yield Case("100000 nested arrays, unclosed (refused, no crash)",
               ctx.file("nest-deep", b"[" * 100000), "0")

    # Tokens split by the plugin's read boundary.
    def at_boundary(token, name, exp="1"):
        pre = b'["' + b"a" * (CHUNK - 4 - len(token) // 2) + b'",'
        data = pre + token + b"]"
        yield Case("%s split across a read boundary" % name,
                   ctx.file("split-" + name.replace(" ", "-"), data), exp)
    yield from at_boundary("\"\U0001f600\"".encode(), "a 4-byte character")
    yield from at_boundary(b'"\\u00e9\\n"', "escapes")
    yield from at_boundary(b"-12345.678e+90", "a number")
    yield from at_boundary(b"true", "true")
    yield from at_boundary(b"nul", "an unfinished null", "0")

    # Tokens across the boundary between mapped pieces, and across the read
    # buffer's end when fd 3 is a pipe (host mode: the SDK then reads).
    def across(size, token, name, exp="1", **kw):
        pre = b'["' + b"a" * (size - 4 - len(token) // 2) + b'",'
        return Case("%s split across %s" % (name, "a mapped piece's end"
                                            if size == PIECE else
                                            "the read buffer's end (pipe)"),
                    ctx.file("%s-%s" % ("piece" if size == PIECE else "pipe",
                                        name.replace(" ", "-")),
                             pre + token + b"]"), exp, **kw)
    for token, name, exp in [
            ("\"\U0001f600\"".encode(), "a 4-byte character", "1"),
            (b'"\\u00e9\\n"', "escapes", "1"),
            (b"-12345.678e+90", "a number", "1"),
            (b"nul", "an unfinished null", "0")]:
        yield across(PIECE, token, name, exp)
        if ctx.host:
            yield across(READ, token, name, exp, pipe=True)

    # Whitespace and trailing bytes.
    for i, (desc, data, exp) in enumerate([
        ("a scalar with no newline", b"42", "1"),
        ("a number then a space", b"42 ", "1"),
        ("a number then a NUL", b"42\x00", "0"),
        ("two top-level values", b"1 2", "0"),
        ("an object and trailing garbage", b"{} x", "0"),
        ("only whitespace", b" \t\r\n", "0"),
        ("an empty file", b"", "0"),
        ("a byte order mark (refused, documented)", b"\xef\xbb\xbf{}", "0"),
        ("a form feed is not JSON whitespace", b"[\x0c]", "0"),
        ("an escaped lone surrogate (grammar allows it)", b'"\\ud800"', "1"),
        ("a raw surrogate in UTF-8 (not UTF-8)", b'"\xed\xa0\x80"', "0"),
        ("an overlong in a string", b'"\xc0\xaf"', "0"),
        ("a raw DEL in a string (not a control character in JSON)",
         b'"\x7f"', "1"),
        ("a raw TAB in a string", b'"\t"', "0"),
        ("duplicate keys (syntax only)", b'{"a":1,"a":2}', "1"),
        ("a 10000-digit number", b"1" * 10000, "1"),
    ]):
        yield Case(desc, ctx.file("ws-%d" % i, data), exp)

    # Large inputs stream: ~64 MiB valid, and the same with one bad byte at
    # the end, under a 4 MiB memory limit.
    item = ('{"name": "%s", "v": [1, 2.5e10, -3, true, null], "u": "%s"},\n'
            % ("abcdefghij" * 5, "\u00e9\u4e2d\U0001f600")).encode()
    body = b"[" + item * ((64 << 20) // len(item)) + b"0]\n"
    yield Case("a 64 MiB document under a 4 MiB memory limit",
               ctx.file("big-ok", body), "1", memory=4 << 20, heavy=True)
    yield Case("the same with a trailing comma before the close",
               ctx.file("big-bad", body[:-3] + b",]\n"), "0", memory=4 << 20,
               heavy=True)

    # Differential: mutated documents, Python's json decides.
    rng = random.Random(8259)
    for i in range(200):
        data = mutate(rng, rng.choice(SEEDS))
        yield Case("mutant #%d %s agrees with Python's json" % (
            i, data[:40].hex()), ctx.file("mut-%d" % i, data),
            "1" if python_valid(data) else "0")
