"""contains cases: committed fixtures, the fd 6 value rules (empty, too
long, wrong kind, malformed framing), matches across the plugin's chunk
boundary at every split, constant memory on a sparse 10 GiB file with the
needle at the very end, and a differential check against Python's `in`."""
import random

from harness import Case

CHUNK = 256 * 1024          # SEARCH_CHUNK (before the plugin mapped)
PIECE = 16 << 20            # LFP_PIECE: bytes mapped at a time
READ = 256 * 1024           # its buffer where fd 3 cannot be mapped
MAX = 1024                  # the needle's max_bytes


def cases(ctx):
    for exp, desc, path, values in ctx.fixtures():
        yield Case(desc, path, exp, values=values)

    text = ctx.file("text", "The quick brown fox jumps over the lazy dog. "
                    "Grüße aus Köln.\n".encode())
    for desc, needle, exp in [
        ("a word in the middle", b"brown fox", "1"),
        ("the first bytes", b"The quick", "1"),
        ("the last bytes", "Köln.".encode(), "1"),
        ("a one-byte needle", b"z", "1"),
        ("a one-byte needle that is absent", b"Q", "0"),
        ("an absent word", b"cat", "0"),
        ("case is not folded", b"the quick", "0"),
        ("a needle longer than the file", b"x" * 200, "0"),
        ("a non-ASCII needle", "Grüße".encode(), "1"),
        ("a decomposed (NFD) needle does not match NFC text",
         "Gru\u0308\u00dfe".encode(), "0"),
        ("a needle of exactly max_bytes, absent", b"a" * MAX, "0"),
    ]:
        yield Case(desc, text, exp, values=[needle])

    # No answer for values the manifest does not allow, or a bad fd 6.
    for desc, values, proto in [
        ("an empty needle", [b""], 2),
        ("a needle of max_bytes + 1", [b"a" * (MAX + 1)], 2),
        ("a needle with a newline (a control character)", [b"fox\n"], 2),
        ("a needle with a C1 control character", ["a\u0085b".encode()], 2),
        ("a needle that is not UTF-8", [b"Gr\xfc\xdfe"], 2),
        ("no value at all", [], 2),
        ("two values for one input", [b"fox", b"dog"], 2),
        ("run as protocol 1 (no fd 6)", None, 1),
    ]:
        yield Case(desc + " is plugin_error", text, "error", values=values,
                   protocol=proto)

    # The detail on fd 7 names the offset of the first match.
    yield Case("the detail gives the first match's offset", text, "1",
               values=[b"fox"], detail=r"first match at byte offset 16")

    # Matches across the chunk boundary: the needle starts k bytes before
    # it, for every k; and near-misses that are cut by the boundary.
    needle = b"lockfile-needle"
    for k in range(1, len(needle)):
        data = b"." * (CHUNK - k) + needle + b"." * 100
        yield Case("needle split %d byte(s) before the chunk boundary" % k,
                   ctx.file("split-%d" % k, data), "1", values=[needle],
                   detail=r"first match at byte offset %d" % (CHUNK - k))
    for k in (1, 7, len(needle) - 1):
        data = b"." * (CHUNK - k) + needle[:-1] + b"X" + b"." * 100
        yield Case("a near-miss across the chunk boundary (k=%d)" % k,
                   ctx.file("miss-%d" % k, data), "0", values=[needle])
    big = bytes(random.Random(1).choice(b"abcdefghij") for _ in range(MAX))
    data = b"." * (2 * CHUNK - 500) + big + b"." * 10
    yield Case("a 1024-byte needle across the second chunk boundary",
               ctx.file("split-long", data), "1", values=[big])
    yield Case("a 1024-byte needle straddling the end of file (cut)",
               ctx.file("cut-long", data[:-20]), "0", values=[big])

    # Across the boundaries between mapped pieces (a sparse file), and
    # across the read buffer's end when fd 3 is a pipe (host mode).
    needle = b"lockfile-needle"
    for k in (1, 8, len(needle) - 1):
        at = 2 * PIECE - k
        yield Case("needle split %d byte(s) before a mapped piece's end" % k,
                   ctx.sparse("piece-%d" % k, 3 * PIECE, [(at, needle)]),
                   "1", values=[needle],
                   detail=r"first match at byte offset %d" % at)
    yield Case("a near-miss across a mapped piece's end",
               ctx.sparse("piece-miss", 3 * PIECE,
                          [(PIECE - 3, needle[:-1] + b"X")]), "0",
               values=[needle])
    if ctx.host:
        for k in (1, len(needle) - 1):
            data = b"." * (READ - k) + needle + b"." * 100
            yield Case("through a pipe: needle split %d byte(s) before the "
                       "read buffer's end" % k, ctx.file("pipe-%d" % k, data),
                       "1", values=[needle], pipe=True,
                       detail=r"first match at byte offset %d" % (READ - k))
        big = bytes(random.Random(2).choice(b"abcdefghij") for _ in range(MAX))
        data = b"." * (2 * READ - 700) + big + b"." * 10
        yield Case("through a pipe: a 1024-byte needle across the second "
                   "read", ctx.file("pipe-long", data), "1", values=[big],
                   pipe=True)

    # Every place passes the vector filter (first and last bytes match):
    # the search must stay linear (it hands over to memmem).
    yield Case("16 MiB of 'a' and a needle a + b + a*1022 (every place a "
               "candidate)", ctx.file("aaa-cand", b"a" * (16 << 20)), "0",
               values=[b"ab" + b"a" * (MAX - 2)], heavy=True)

    # Periodic haystack and needle (the worst case for naive search)
    # finish within the manifest's CPU limit.
    data = b"a" * (16 << 20)
    yield Case("16 MiB of 'a' and a needle a*1023 + b", ctx.file("aaa", data),
               "0", values=[b"a" * (MAX - 1) + b"b"], heavy=True)
    yield Case("16 MiB of 'a' ending in the needle a*1023 + b",
               ctx.file("aab", data + b"b"), "1",
               values=[b"a" * (MAX - 1) + b"b"], heavy=True)

    # Constant memory: a sparse 10 GiB file, the needle in its last bytes
    # and across a chunk boundary past 4 GiB, under a 2 MiB data limit
    # (the file is 5000 times the limit); a test-only plugin that reads the
    # file into memory fails under that limit, so the limit bites.
    if not ctx.host:
        size = 10 << 30
        tail, mid = b"END-OF-10GiB", b"past-4GiB-boundary"
        mid_at = (4 << 30) + 37 * CHUNK - 5
        big = ctx.sparse("sparse-10g", size, [(mid_at, mid),
                                              (size - len(tail), tail)])
        lim = dict(memory=2 << 20, cpu=300, wall=600, heavy=True)
        yield Case("sparse 10 GiB, needle in the last bytes, 2 MiB limit",
                   big, "1", values=[tail],
                   detail=r"first match at byte offset %d" % (size - len(tail)),
                   **lim)
        yield Case("sparse 10 GiB, needle across a chunk boundary past 4 GiB",
                   big, "1", values=[mid],
                   detail=r"first match at byte offset %d" % mid_at, **lim)
        yield Case("sparse 10 GiB, an absent needle (the whole file is read)",
                   big, "0", values=[b"END-OF-10GiC"], **lim)
        medium = ctx.sparse("sparse-64m", 64 << 20)
        yield Case("control: a plugin that holds the file fails under the "
                   "same 2 MiB limit", medium, "error", memory=2 << 20,
                   binary=ctx.helper("test-slurp"), heavy=True)
        yield Case("control: that plugin answers with room to hold it",
                   medium, "1", memory=256 << 20,
                   binary=ctx.helper("test-slurp"), heavy=True)

    # Differential: random haystacks and needles over a small alphabet,
    # Python's `in` decides.
    rng = random.Random(1024)
    for i in range(120):
        # The haystack may be any bytes; only the needle is of kind text.
        hay = bytes(rng.choice(b"ab\x00\xff")
                    for _ in range(rng.randint(0, 300)))
        n = rng.randint(1, 6)
        needle = bytes(rng.choice(b"ab") for _ in range(n))
        yield Case("random #%d: %s in %d bytes agrees with Python" % (
            i, needle.decode(), len(hay)), ctx.file("rnd-%d" % i, hay),
            "1" if needle in hay else "0", values=[needle])
