"""is-utf8 cases: committed fixtures, RFC 3629 boundary sequences, read
boundaries, and a differential check against Python's strict decoder on
random byte strings (fixed seed)."""
import random

from harness import Case

CHUNK = 64 * 1024          # the plugin's read size (before it mapped)
PIECE = 16 << 20           # LFP_PIECE: bytes mapped at a time
READ = 256 * 1024          # its buffer where fd 3 cannot be mapped


def enc(cp):
    return chr(cp).encode("utf-8", "surrogatepass")


# (description, bytes, valid?)
SEQUENCES = [
    ("empty file (the empty sequence is valid)", b"", True),
    ("plain ASCII", b"hello, world\n", True),
    ("NUL bytes are U+0000", b"a\x00b\x00", True),
    ("a byte order mark", b"\xef\xbb\xbfhello", True),
    ("U+007F, the last 1-byte code point", enc(0x7F), True),
    ("U+0080, the first 2-byte code point", enc(0x80), True),
    ("U+07FF, the last 2-byte code point", enc(0x7FF), True),
    ("U+0800, the first 3-byte code point", enc(0x800), True),
    ("U+D7FF, just below the surrogates", enc(0xD7FF), True),
    ("U+E000, just above the surrogates", enc(0xE000), True),
    ("U+FFFD", enc(0xFFFD), True),
    ("U+FFFE and U+FFFF (noncharacters are scalar values)",
     enc(0xFFFE) + enc(0xFFFF), True),
    ("U+10000, the first 4-byte code point", enc(0x10000), True),
    ("U+10FFFF, the last code point", enc(0x10FFFF), True),
    ("mixed scripts", "Grüße, 世界, мир, 😀".encode(), True),
    ("overlong NUL C0 80", b"\xc0\x80", False),
    ("overlong C1 BF", b"\xc1\xbf", False),
    ("overlong 3-byte E0 80 80", b"\xe0\x80\x80", False),
    ("overlong 3-byte E0 9F BF (U+07FF)", b"\xe0\x9f\xbf", False),
    ("overlong 4-byte F0 80 80 80", b"\xf0\x80\x80\x80", False),
    ("overlong 4-byte F0 8F BF BF (U+FFFF)", b"\xf0\x8f\xbf\xbf", False),
    ("surrogate U+D800 (ED A0 80)", b"\xed\xa0\x80", False),
    ("surrogate U+DFFF (ED BF BF)", b"\xed\xbf\xbf", False),
    ("CESU-8 surrogate pair", b"\xed\xa0\xbd\xed\xb8\x80", False),
    ("U+110000 (F4 90 80 80)", b"\xf4\x90\x80\x80", False),
    ("lead byte F5", b"\xf5\x80\x80\x80", False),
    ("5-byte form F8", b"\xf8\x88\x80\x80\x80", False),
    ("6-byte form FC", b"\xfc\x84\x80\x80\x80\x80", False),
    ("byte FE", b"a\xfe", False),
    ("byte FF", b"\xff", False),
    ("lone continuation byte 80", b"a\x80b", False),
    ("lone continuation byte BF at the start", b"\xbf", False),
    ("2-byte sequence cut at EOF", b"abc\xc3", False),
    ("3-byte sequence cut at EOF", b"abc\xe2\x82", False),
    ("4-byte sequence cut at EOF", b"abc\xf0\x9f\x98", False),
    ("2-byte sequence cut by ASCII", b"\xc3A", False),
    ("3-byte sequence cut by a new lead", b"\xe2\x82\xe2\x82\xac", False),
    ("Latin-1 text", "café".encode("latin-1"), False),
    ("UTF-16LE text with BOM", "hi".encode("utf-16"), False),
]


def python_valid(data):
    try:
        data.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError:
        return False


def random_bytes(rng):
    """A random valid string, then (most of the time) one or two byte-level
    mutations from bytes that form and break multi-byte sequences."""
    cps = [rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0x7FF),
                       rng.randint(0x800, 0xD7FF), rng.randint(0xE000, 0xFFFF),
                       rng.randint(0x10000, 0x10FFFF)])
           for _ in range(rng.randint(1, 8))]
    out = bytearray("".join(map(chr, cps)).encode())
    pool = [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
            0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff]
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        op, at = rng.randint(0, 2), rng.randint(0, len(out))
        if op == 0 and at < len(out):
            out[at] = rng.choice(pool)
        elif op == 1:
            out.insert(at, rng.choice(pool))
        else:
            del out[at:]
    return bytes(out)


def cases(ctx):
    for expect, desc, path, _ in ctx.fixtures():
        yield Case(desc, path, expect)
    for i, (desc, data, valid) in enumerate(SEQUENCES):
        # The table itself is checked against Python's strict decoder.
        assert python_valid(data) == valid, desc
        yield Case(desc, ctx.file("seq-%d" % i, data), "1" if valid else "0")

    # Every scalar value, in order: 1; the same with one surrogate: 0.
    every = "".join(chr(c) for c in range(0x110000)
                    if not 0xD800 <= c <= 0xDFFF).encode()
    yield Case("every scalar value U+0000..U+10FFFF (%d bytes)" % len(every),
               ctx.file("every", every), "1")
    mid = len(every) // 2
    yield Case("every scalar value with a surrogate in the middle",
               ctx.file("every-bad", every[:mid] + b"\xed\xb2\x80" +
                        every[mid:]), "0")

    # Sequences straddling the plugin's read boundary.
    for k in (1, 2, 3):
        data = b"a" * (CHUNK - k) + enc(0x1F600) + b"z"
        yield Case("a 4-byte sequence split %d byte(s) before a read "
                   "boundary" % k, ctx.file("split-%d" % k, data), "1")
    yield Case("a sequence cut at EOF just after a read boundary",
               ctx.file("split-eof", b"a" * CHUNK + b"\xe2\x82"), "0")
    yield Case("an invalid byte right at a read boundary",
               ctx.file("bad-boundary", b"a" * CHUNK + b"\x80" + b"a" * 10),
               "0")
    yield Case("an invalid byte at the end of a large valid file",
               ctx.file("late-bad", "é".encode() * (3 * CHUNK) + b"\xc0"), "0")

    # Sequences across the boundary between mapped pieces (NULs before:
    # a sparse file), and across the read buffer's end when fd 3 is a pipe
    # (host mode: the SDK then reads instead of mapping).
    for k in (1, 2, 3):
        yield Case("a 4-byte sequence split %d byte(s) before a mapped "
                   "piece's end" % k,
                   ctx.sparse("piece-%d" % k, PIECE + 64,
                              [(PIECE - k, enc(0x1F600) + b"z")]), "1")
    yield Case("a sequence cut by a mapped piece's end and then ASCII",
               ctx.sparse("piece-bad", PIECE + 64, [(PIECE - 1, b"\xe2a")]),
               "0")
    if ctx.host:
        for k in (1, 3):
            data = b"a" * (READ - k) + enc(0x1F600) + b"z"
            yield Case("through a pipe: a 4-byte sequence split %d byte(s) "
                       "before the read buffer's end" % k,
                       ctx.file("pipe-split-%d" % k, data), "1", pipe=True)
        yield Case("through a pipe: a sequence cut at the read buffer's end",
                   ctx.file("pipe-bad", b"a" * (READ - 1) + b"\xe2a"), "0",
                   pipe=True)
        yield Case("through a pipe: every scalar value",
                   ctx.file("pipe-every", every), "1", pipe=True)

    # Constant memory: a sparse 1 GiB file of NULs (valid UTF-8) under a
    # 2 MiB data limit, and the same with a truncated sequence at the end.
    if not ctx.host:
        size = 1 << 30
        yield Case("sparse 1 GiB of NULs under a 2 MiB memory limit",
                   ctx.sparse("sparse-ok", size), "1", memory=2 << 20,
                   cpu=120, wall=240, heavy=True)
        yield Case("sparse 1 GiB with a cut sequence at the very end",
                   ctx.sparse("sparse-bad", size, [(size - 1, b"\xc3")]), "0",
                   memory=2 << 20, cpu=120, wall=240, heavy=True)

    # Differential: random byte strings, Python's strict decoder decides.
    rng = random.Random(3629)
    for i in range(150):
        data = random_bytes(rng)
        yield Case("random #%d %s agrees with Python's strict decoder" % (
            i, data.hex()), ctx.file("rnd-%d" % i, data),
            "1" if python_valid(data) else "0")
