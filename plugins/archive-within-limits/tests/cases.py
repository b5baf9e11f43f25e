"""archive-within-limits cases: a corpus built here at run time, each file
answered by two references as well as by the plugin (a differential test):
  reference  the manifest's rules over Python's zipfile (its end record
             reader zipfile._EndRecData and its central directory,
             infolist()), struct for the local headers and data descriptors,
             and zlib for every entry's data (decompressobj with
             max_length: a counter that stops past the declared size);
             nested archives through zipfile again. The plugin must agree
             on every file.
  unzip -t   Info-ZIP's test (Debian's UnZip 6.0, with the overlap check
             of CVE-2019-13232): exit 0 where the reference says 1, and
             not 0 where it says 0, except where a case says why they
             differ (unzip has no bound on entries, ratio, total or
             nesting, and no rule on duplicate names or stubs); each such
             disagreement is asserted to happen, so the list stays true.
Files come from Python's zipfile (plain, stored, empty, ZIP64, OOXML, ODF,
JAR, nesting, the bounds), zip(1) (a tree, data descriptors, a stream from
a pipe, ZipCrypto, an adjusted self-extracting stub) and byte builders
here (David Fifield's overlapping-file bombs, full and quoted; header
mismatches; truncation; gaps). The largest file, ~10 MB inflating to
500 MiB, runs in the sandbox within the manifest's limits."""
import functools
import io
import os
import shutil
import struct
import subprocess
import warnings
import zipfile
import zlib

from harness import Case, Check

MAX_ENTRIES = 10000
MAX_DEPTH = 4
MAX_TOTAL = 512 << 20
MAX_RATIO = 100
RATIO_FLOOR = 64 << 10
MAX_INPUT = 1 << 30
NEST_ARENA = 32 << 20
MAX_CD = 16 << 20
DATE = (2024, 1, 1, 0, 0, 0)


class Zero(Exception):
    pass


# ---- the reference --------------------------------------------------------

class Budget:
    def __init__(self):
        self.entries, self.total = MAX_ENTRIES, MAX_TOTAL
        self.input, self.cd, self.arena = MAX_INPUT, MAX_CD, NEST_ARENA


def raw_name(info):
    return info.orig_filename.encode(
        "utf-8" if info.flag_bits & 0x800 else "cp437")


def extra_fields(x):
    out = {}
    while len(x) >= 4:
        fid, n = struct.unpack_from("<HH", x)
        if n > len(x) - 4:
            raise Zero("a corrupt extra field")
        out.setdefault(fid, x[4:4 + n])
        x = x[4 + n:]
    return out


def end_records(f, size):
    """(cd_start, cd_size, cd_end) from zipfile's end record reader, and
    the strict placement the rules ask for."""
    rec = zipfile._EndRecData(f)
    if rec is None:
        raise Zero("not a ZIP")
    loc = rec[zipfile._ECD_LOCATION]
    if loc + 22 + len(rec[zipfile._ECD_COMMENT]) != size:
        raise Zero("the comment does not end the file")
    f.seek(loc)
    eocd = f.read(22)
    if eocd[10:12] == b"\xff\xff" or eocd[12:16] == b"\xff" * 4 or \
            eocd[16:20] == b"\xff" * 4 or loc >= 76:
        f.seek(loc - 20)
        l64 = f.read(20)
        if l64[:4] == b"PK\x06\x07":
            cd_end = struct.unpack_from("<Q", l64, 8)[0]
            f.seek(cd_end)
            r64 = f.read(12)
            if cd_end + 12 + struct.unpack_from("<Q", r64, 4)[0] != \
                    loc - 20:
                raise Zero("the ZIP64 record is not before its locator")
        elif eocd[10:12] == b"\xff\xff" or eocd[12:16] == b"\xff" * 4 or \
                eocd[16:20] == b"\xff" * 4:
            raise Zero("ZIP64 escapes without a record")
        else:
            cd_end = loc
    else:
        cd_end = loc
    size_cd, off_cd = rec[zipfile._ECD_SIZE], rec[zipfile._ECD_OFFSET]
    if off_cd + size_cd != cd_end:
        raise Zero("the central directory is not where the end record "
                   "puts it")
    return off_cd, size_cd, cd_end


def local_extent(data, i, limit):
    """The local header of info i against it: (data start, end)."""
    off = i.header_offset
    if off + 30 > limit:
        raise Zero("local header past the directory")
    (sig, _, flags, method, _, _, crc, cs, us, nl, xl) = struct.unpack_from(
        "<4sHHHHHIIIHH", data, off)
    if sig != b"PK\x03\x04":
        raise Zero("no local header")
    if flags != i.flag_bits or method != i.compress_type:
        raise Zero("local flags or method differ")
    if data[off + 30:off + 30 + nl] != raw_name(i):
        raise Zero("local name differs")
    x = extra_fields(data[off + 30 + nl:off + 30 + nl + xl])
    z64 = 1 in x
    if cs == 0xFFFFFFFF or us == 0xFFFFFFFF:
        if len(x.get(1, b"")) < 16:
            raise Zero("local ZIP64 field missing")
        us, cs = struct.unpack_from("<QQ", x[1])
    dd = bool(flags & 8)
    for have, want in ((crc, i.CRC), (cs, i.compress_size),
                       (us, i.file_size)):
        if have != want and not (dd and have == 0):
            raise Zero("local CRC or sizes differ")
    start = off + 30 + nl + xl
    end = start + i.compress_size
    if end > limit:
        raise Zero("data past the directory")
    if dd:
        z64 = z64 or i.compress_size >= 0xFFFFFFFF or \
            i.file_size >= 0xFFFFFFFF
        d = data[end:min(end + 24, limit)]
        sig = 4 if d[:4] == b"PK\x07\x08" else 0
        fmt = "<IQQ" if z64 else "<III"
        if sig + struct.calcsize(fmt) > len(d):
            raise Zero("descriptor cut")
        if struct.unpack_from(fmt, d, sig) != (i.CRC, i.compress_size,
                                               i.file_size):
            raise Zero("descriptor differs")
        end += sig + struct.calcsize(fmt)
    return start, end


def inflate(data, start, i, keep):
    """The entry's data through zlib, stopping past its size."""
    raw = memoryview(data)[start:start + i.compress_size]
    if i.compress_type == 0:
        out = bytes(raw)
        if zlib.crc32(out) != i.CRC:
            raise Zero("CRC")
        return out
    d = zlib.decompressobj(-15)
    parts, n, crc = [], 0, 0
    for at in range(0, len(raw), 1 << 18):
        buf = raw[at:at + (1 << 18)]
        while buf and not d.eof:
            chunk = d.decompress(buf, 1 << 20)
            buf = d.unconsumed_tail
            n += len(chunk)
            if n > i.file_size:
                raise Zero("inflates past its size")
            crc = zlib.crc32(chunk, crc)
            if keep or not parts:
                parts.append(chunk)
        if d.eof:
            if buf or at + (1 << 18) < len(raw):
                raise Zero("bytes after the deflate stream")
            break
    if not d.eof:
        raise Zero("deflate cut short")
    if d.unused_data:
        raise Zero("bytes after the deflate stream")
    if n != i.file_size:
        raise Zero("inflates short of its size")
    if crc != i.CRC:
        raise Zero("CRC")
    return b"".join(parts)


def ref_archive(data, depth, b):
    f = io.BytesIO(data)
    try:
        cd_start, cd_size, _ = end_records(f, len(data))
        infos = zipfile.ZipFile(f).infolist()
    except (zipfile.BadZipFile, struct.error, ValueError, OSError,
            EOFError) as e:
        raise Zero("zipfile: %s" % e)
    if len(infos) > b.entries:
        raise Zero("entries")
    b.entries -= len(infos)
    if cd_size > b.cd:
        raise Zero("central directories")
    b.cd -= cd_size
    for i in infos:
        if i.flag_bits & (1 | 64 | 8192):
            raise Zero("encrypted")
        if i.compress_type not in (0, 8):
            raise Zero("method")
        if i.compress_type == 0 and i.compress_size != i.file_size:
            raise Zero("stored sizes")
        if i.file_size > RATIO_FLOOR and \
                i.file_size > MAX_RATIO * i.compress_size:
            raise Zero("ratio")
        if i.file_size > b.total:
            raise Zero("total")
        b.total -= i.file_size
        if i.compress_size > b.input:
            raise Zero("input")
        b.input -= i.compress_size
    at, spans = 0, []
    for i in sorted(infos, key=lambda i: i.header_offset):
        if i.header_offset != at:
            raise Zero("overlap or gap")
        start, at = local_extent(data, i, cd_start)
        spans.append((i, start))
    if at != cd_start:
        raise Zero("gap before the directory")
    names = [raw_name(i) for i in infos]
    if len(set(names)) != len(names):
        raise Zero("duplicate names")
    for i, start in spans:
        out = inflate(data, start, i, i.compress_type == 0 or
                      i.file_size <= b.arena)
        if i.file_size >= 22 and out[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            if depth >= MAX_DEPTH:
                raise Zero("nesting")
            if i.compress_type == 8:
                if i.file_size > b.arena:
                    raise Zero("nested arena")
                b.arena -= i.file_size
                ref_archive(out, depth + 1, b)
                b.arena += i.file_size
            else:
                ref_archive(out, depth + 1, b)


def reference(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        ref_archive(data, 0, Budget())
    except Zero:
        return "0"
    return "1"


def unzip_ok(path):
    return subprocess.run(["unzip", "-tqq", path], stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL,
                          timeout=300).returncode == 0


# ---- builders ---------------------------------------------------------------

def zip_bytes(members, **kw):
    b = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(b, "w", **kw) as z:
        warnings.simplefilter("ignore")     # "Duplicate name": meant
        for name, data, method in members:
            z.writestr(zipfile.ZipInfo(name, DATE), data,
                       compress_type=method)
    return b.getvalue()


D, S = zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED
TEXT = b"".join(b"line %d of a plain text file\n" % i for i in range(3000))


def raw_deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def lfh(name, method, crc, cs, us, flags=0):
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, flags, method, 0,
                       0x5821, crc, cs, us, len(name), 0) + name


def cdh(name, method, crc, cs, us, off, flags=0):
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, flags,
                       method, 0, 0x5821, crc, cs, us, len(name), 0, 0, 0, 0,
                       0, off) + name


def eocd(n, cd_size, cd_off):
    return struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, n, n, cd_size,
                       cd_off, 0)


def fifield_full(n=20, plain=b"a" * (1 << 20)):
    """Fifield's full overlap: one local header and kernel, n central
    headers naming it (a kernel within the ratio: the overlap decides)."""
    kernel = len(plain)
    k = raw_deflate(plain)
    crc = zlib.crc32(plain)
    body = lfh(b"0", 8, crc, len(k), kernel) + k
    cd = b"".join(cdh(b"%d" % i, 8, crc, len(k), kernel, 0)
                  for i in range(n))
    return body + cd + eocd(n, len(cd), len(body))


def fifield_quoted(n=10, plain=b"a" * (1 << 20), lead=b""):
    """Fifield's quoted overlap: each entry's deflate stream begins with a
    non-final stored block quoting the next local header, so every entry's
    data contains the next entry. With a lead, the quote starts with it,
    so no entry's data begins like an archive (only the overlap shows)."""
    names = [b"%c" % (65 + i) for i in range(n)]
    kernel = len(plain)
    data, usize, crc_plain = raw_deflate(plain), kernel, plain
    files = [None] * n
    files[n - 1] = (data, usize, zlib.crc32(plain))
    unc = crc_plain
    for i in range(n - 2, -1, -1):
        nd, nu, ncrc = files[i + 1]
        head = lead + lfh(names[i + 1], 8, ncrc, len(nd), nu)
        quote = struct.pack("<BHH", 0, len(head), len(head) ^ 0xFFFF) + head
        unc = head + unc
        files[i] = (quote + nd, len(unc), zlib.crc32(unc))
    d0, u0, c0 = files[0]
    body = lfh(names[0], 8, c0, len(d0), u0) + d0
    off, cd = 0, b""
    for i in range(n):
        d, u, c = files[i]
        cd += cdh(names[i], 8, c, len(d), u, off)
        off += 30 + len(names[i]) + 5 + len(lead)   # after a quote
    return body + cd + eocd(n, len(cd), len(body))


def nested(depth, leaf=b"leaf text\n" * 10, method=D):
    data = zip_bytes([("leaf.txt", leaf, D)])
    for i in range(depth):
        data = zip_bytes([("level%d.zip" % (depth - i), data, method),
                          ("readme.txt", b"level %d\n" % i, D)])
    return data


def many(n):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for i in range(n):
            z.writestr(zipfile.ZipInfo("f%05d" % i, DATE), b"", S)
    return b.getvalue()


def patch(data, old, new, start=0):
    i = data.index(old, start)
    return data[:i] + new + data[i + len(old):]


def ooxml():
    return zip_bytes([
        ("[Content_Types].xml", b'<?xml version="1.0"?><Types xmlns="http:'
         b'//schemas.openxmlformats.org/package/2006/content-types"/>', D),
        ("_rels/.rels", b"<Relationships/>", D),
        ("word/document.xml", b"<w:document>" + TEXT[:20000] +
         b"</w:document>", D),
        ("word/styles.xml", b"<w:styles/>", D)])


def odf():
    return zip_bytes([
        ("mimetype", b"application/vnd.oasis.opendocument.text", S),
        ("content.xml", b"<office:document-content>" + TEXT[:30000] +
         b"</office:document-content>", D),
        ("META-INF/manifest.xml", b"<manifest:manifest/>", D)])


def jar():
    return zip_bytes([
        ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\nMain-Class: A"
         b"\r\n\r\n", D),
        ("A.class", b"\xca\xfe\xba\xbe" + bytes(range(256)) * 20, D)])


@functools.lru_cache(maxsize=4)
def patterned(n):
    """n bytes that deflate about 50:1 (a random byte every 64)."""
    import random
    rng = random.Random(31)
    block = bytearray(b"x" * 65536)
    for k in range(0, 65536, 64):
        block[k] = rng.randrange(256)
    return (bytes(block) * (n // 65536 + 1))[:n]


def big_honest(ctx, total=500 << 20):
    """A ZIP of one entry inflating to `total` bytes at ~50:1, written from
    a 1 MiB chunk deflated once after a full flush and repeated (each
    copy starts with an empty window, so the stream is valid)."""
    chunk = patterned(1 << 20)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    mid = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    last = c.compress(chunk) + c.flush()
    n = total // len(chunk)
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(chunk, crc)
    cs = len(mid) * (n - 1) + len(last)
    path = os.path.join(ctx.tmp, "honest-500mib.zip")
    with open(path, "wb") as f:
        f.write(lfh(b"big.bin", 8, crc, cs, total))
        for _ in range(n - 1):
            f.write(mid)
        f.write(last)
        cd = cdh(b"big.bin", 8, crc, cs, total, 0)
        f.write(cd + eocd(1, len(cd), 30 + 7 + cs))
    os.chmod(path, 0o644)
    return path


def sparse_stored(ctx, size=600 << 20):
    """A stored entry of `size` zero bytes (a hole): past the total bound
    by its declared size alone."""
    crc = 0
    zeros = bytes(1 << 20)
    for _ in range(size >> 20):
        crc = zlib.crc32(zeros, crc)
    head = lfh(b"zeros.bin", 0, crc, size, size)
    cd = cdh(b"zeros.bin", 0, crc, size, size, 0)
    tail = cd + eocd(1, len(cd), len(head) + size)
    return ctx.sparse("stored-600mib.zip", len(head) + size + len(tail),
                      [(0, head), (len(head) + size, tail)])


def infozip(ctx):
    """(name, bytes, unzip-differs) from zip(1)."""
    out = []
    tree = os.path.join(ctx.tmp, "tree")
    os.makedirs(os.path.join(tree, "sub"), exist_ok=True)
    with open(os.path.join(tree, "a.txt"), "wb") as f:
        f.write(TEXT)
    with open(os.path.join(tree, "sub", "b.bin"), "wb") as f:
        f.write(bytes(range(256)) * 100)

    def made(name, args):
        p = os.path.join(ctx.tmp, name)
        subprocess.run(["zip", "-q", "-X"] + args[:-1] + [p] + args[-1],
                       cwd=tree, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(p, "rb") as f:
            out.append((name, f.read(), None))
    made("infozip-tree.zip", ["-r", ["."]])
    made("infozip-descriptors.zip", ["-fd", ["a.txt", "sub/b.bin"]])
    made("infozip-zipcrypto.zip", ["-P", "pw", ["a.txt"]])
    # From a pipe: sizes unknown until the end (data descriptors).
    p = subprocess.run(["zip", "-q", "-", "-"], input=TEXT,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out.append(("infozip-pipe-streamed.zip", p.stdout, None))
    return out


def corpus(ctx):
    """(name, bytes, why unzip -t differs or None)."""
    plain = zip_bytes([("a.txt", TEXT, D), ("b.bin", bytes(range(256)) * 10,
                                             S), ("dir/", b"", S)])
    z64 = io.BytesIO()
    with zipfile.ZipFile(z64, "w") as z:
        for name, data in (("a.txt", TEXT), ("b.bin", b"b" * 1000)):
            zi = zipfile.ZipInfo(name, DATE)
            zi.compress_type = D
            with z.open(zi, "w", force_zip64=True) as f:
                f.write(data)
    cd = plain.index(b"PK\x01\x02")
    no_dup = "unzip has no rule on duplicate names (it tests both)"
    out = [
        ("zipfile-deflated.zip", plain, None),
        ("zipfile-stored.zip", zip_bytes([(n, d, S) for n, d in (
            ("a.txt", TEXT), ("b.bin", b"\x00\x01" * 500))]), None),
        ("zipfile-empty.zip", zip_bytes([]),
         "unzip -t exits 1 on an empty archive (a warning: nothing to "
         "test); it is consistent and within bounds"),
        ("zipfile-zip64.zip", z64.getvalue(), None),
        ("ooxml.docx", ooxml(), None),
        ("odf.odt", odf(), None),
        ("java.jar", jar(), None),
        ("small-repetitive-under-floor.zip", zip_bytes([(
            "hello.txt", b"hello " * 10000, D)]), None),
        ("ratio-50-to-1.zip", zip_bytes([("p.bin", patterned(4 << 20),
                                          D)]), None),
        ("ratio-bomb-1000-to-1.zip", zip_bytes([(
            "zeros", bytes(10 << 20), D)]),
         "unzip has no ratio bound: the 10 MiB of zeros test fine"),
        ("entries-10000.zip", many(10000), None),
        ("entries-10001.zip", many(10001),
         "unzip has no entry bound"),
        ("nested-4-deep.zip", nested(4), None),
        ("nested-5-deep-42zip-like.zip", nested(5),
         "unzip -t tests one level: the inner archives are data to it"),
        ("nested-4-deep-stored.zip", nested(4, method=S), None),
        ("nested-5-deep-stored.zip", nested(5, method=S),
         "unzip -t tests one level: the inner archives are data to it"),
        ("nested-deflated-over-32mib.zip", zip_bytes([(
            "inner.zip", zip_bytes([("p.bin", patterned(33 << 20), S)]),
            D)]),
         "the 32 MiB buffer for a deflated nested archive is the plugin's "
         "own bound; unzip does not look inside"),
        ("nested-stored-over-32mib.zip", zip_bytes([(
            "inner.zip", zip_bytes([("p.bin", patterned(33 << 20), S)]),
            S)]), None),
        ("duplicate-names.zip", zip_bytes([("a.txt", b"one", D),
                                           ("a.txt", b"two", D)]), no_dup),
        ("fifield-full-overlap-bomb.zip", fifield_full(), None),
        ("fifield-quoted-overlap-bomb.zip", fifield_quoted(), None),
        ("fifield-full-overlap-within-ratio.zip", fifield_full(
            plain=patterned(256 << 10)), None),
        ("fifield-quoted-overlap-within-ratio.zip", fifield_quoted(
            plain=patterned(256 << 10)), None),
        ("fifield-quoted-overlap-led.zip", fifield_quoted(
            plain=patterned(256 << 10), lead=b"x"), None),
        ("mismatch-local-name.zip", patch(plain, b"a.txt", b"A.txt"), None),
        ("mismatch-local-method.zip",
         plain[:8] + b"\x00\x00" + plain[10:],
         None),
        ("mismatch-local-crc.zip",
         plain[:14] + bytes(b ^ 0xff for b in plain[14:18]) + plain[18:],
         None),
        ("inflates-past-its-size.zip", lying_size(-100), None),
        ("inflates-short-of-its-size.zip", lying_size(100), None),
        ("bad-crc-both.zip", patch(patch(
            plain, plain[14:18], b"\x00\x00\x00\x00"),
            plain[14:18], b"\x00\x00\x00\x00", cd), None),
        ("truncated-tail.zip", plain[:-5], None),
        ("truncated-middle.zip", plain[:len(plain) // 2], None),
        ("sfx-stub-prepended.zip", b"MZ" + b"\x00" * 4000 + plain, None),
        ("gap-between-entries.zip", gap(plain),
         "unzip reads by the central directory and skips bytes no entry "
         "owns; the plugin refuses them (a streaming reader could take a "
         "header hidden there for an entry)"),
        ("bzip2-method.zip", zip_bytes([("a.txt", TEXT,
                                         zipfile.ZIP_BZIP2)]),
         "unzip inflates bzip2; the plugin verifies only stored and "
         "deflated data (zlib's)"),
        ("lzma-method.zip", zip_bytes([("a.txt", TEXT, zipfile.ZIP_LZMA)]),
         None),
        ("text.txt", TEXT, None),
        ("empty-file", b"", None),
    ]
    return out


def lying_size(delta):
    """One deflated entry whose both headers declare delta bytes more (or
    fewer) than it inflates to, with the CRC-32 of that many bytes: a
    reader that trusts the declared size and the CRC is fooled."""
    data = TEXT[:40000]
    k = raw_deflate(data)
    n = len(data) + delta
    crc = zlib.crc32((data + b"\0" * max(delta, 0))[:n])
    body = lfh(b"a.txt", 8, crc, len(k), n) + k
    cd = cdh(b"a.txt", 8, crc, len(k), n, 0)
    return body + cd + eocd(1, len(cd), len(body))


def gap(plain):
    """16 bytes no entry owns after the first entry: a streaming reader
    could find a header there that the central directory does not list."""
    z = zipfile.ZipFile(io.BytesIO(plain))
    second = sorted(i.header_offset for i in z.infolist())[1]
    body = plain[:second] + b"\x00" * 16 + plain[second:]
    b = bytearray(body)
    i = b.find(b"PK\x01\x02")
    cd_start = i
    while i >= 0:
        off = struct.unpack_from("<I", b, i + 42)[0]
        if off >= second:
            struct.pack_into("<I", b, i + 42, off + 16)
        i = b.find(b"PK\x01\x02", i + 4)
    e = b.find(b"PK\x05\x06")
    struct.pack_into("<I", b, e + 16, cd_start)
    return bytes(b)


def cases(ctx):
    if not ctx.host:
        yield Check("tool unzip is installed (scripts/install-deps.d/"
                    "plugins.sh)", lambda: (shutil.which("unzip") is not None,
                                            ""))
    made = [(n, ctx.file(n, d), why) for n, d, why in corpus(ctx)]
    made += [(n, ctx.file(n, d), why) for n, d, why in infozip(ctx)]
    sfx = os.path.join(ctx.tmp, "sfx-adjusted.zip")
    shutil.copyfile(dict((n, p) for n, p, _ in made)["zipfile-deflated.zip"],
                    sfx + ".in")
    with open(sfx, "wb") as f, open(sfx + ".in", "rb") as g:
        f.write(b"MZ" + b"\x00" * 4000 + g.read())
    subprocess.run(["zip", "-qA", sfx], stderr=subprocess.DEVNULL)
    os.chmod(sfx, 0o644)
    made.append(("sfx-adjusted-by-zip-A.zip", sfx,
                 "unzip accepts a stub its offsets account for; the plugin "
                 "wants the entries from byte 0 (the stub is bytes no "
                 "entry owns)"))
    if not ctx.host:
        yield Check("the corpus has at least 30 files",
                    lambda: (len(made) >= 30, "%d files" % len(made)))
    for name, path, why in made:
        want = reference(path)
        yield Case("%s (reference: %s)" % (name, want), path, want)
        if ctx.host:
            continue

        def agree(path=path, want=want, why=why):
            ok = unzip_ok(path)
            if why is None:
                return ok == (want == "1"), "unzip -t %s, reference %s" % (
                    "passes" if ok else "fails", want)
            return ok != (want == "1"), "documented disagreement did " \
                "not happen: %s" % why
        yield Check("unzip -t on %s: %s" % (
            name, "agrees" if why is None else "differs: " + why), agree)
    big = sparse_stored(ctx)
    yield Check("reference: the sparse 600 MiB stored entry is 0",
                lambda: (reference_declared(big) == "0", ""))
    yield Case("a 600 MiB stored entry: 0 from its declared size", big, "0",
               heavy=True)
    honest = big_honest(ctx)
    if not ctx.host:    # the host run takes the sandbox run's word for it
        yield Check("reference and unzip -t pass the 500 MiB honest ZIP",
                    lambda: (reference(honest) == "1" and unzip_ok(honest),
                             ""))
    yield Case("the largest file, %d bytes inflating to 500 MiB, in the "
               "sandbox within the manifest's limits" %
               os.path.getsize(honest), honest, "1", heavy=True)
    # Fixed memory whatever the size: about 2 MiB of tables and buffers
    # (nested deflated archives aside).
    yield Case("the largest file under a 4 MiB memory limit", honest, "1",
               memory=4 << 20, heavy=True, host=False)


def reference_declared(path):
    """The sparse file is 600 MiB on paper: read its central directory
    only (the reference's first pass would refuse it the same way)."""
    with open(path, "rb") as f:
        f.seek(-200, 2)
        tail = f.read()
    i = tail.rindex(b"PK\x01\x02")
    us = struct.unpack_from("<I", tail, i + 24)[0]
    return "0" if us > MAX_TOTAL else "1"
