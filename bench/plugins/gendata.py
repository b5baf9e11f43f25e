"""Generated inputs for bench/plugins (nothing large is committed): mixed-
script text, a JSON array of records and a PDF with many pages. Each is
made from a few MiB of seeded random content written out repeatedly, so a
1 GiB file takes seconds to write."""
import os
import json
import random

LATIN = ("the quick brown fox jumps over lazy dog invoice total amount due "
         "payment account number report quarter revenue").split()
ACCENTED = ("café naïve façade Grüße Straße déjà señor über français "
            "smörgåsbord crème brûlée Ærøskøbing łódź").split()
CYRILLIC = ("привет мир документ счёт оплата сумма отчёт квартал выручка "
            "договор подпись").split()
CJK = ("世界 你好 文件 发票 金额 付款 報告 四半期 売上 契約 署名 東京 "
       "서울 문서").split()


def _text_block(rng, size):
    """About size bytes of lines mixing the four scripts (by bytes roughly
    40% ASCII Latin, 20% accented Latin, 20% Cyrillic, 20% CJK)."""
    out, n = [], 0
    pools = [LATIN, LATIN, ACCENTED, CYRILLIC, CJK]
    while n < size:
        words = [rng.choice(rng.choice(pools)) for _ in range(rng.randint(4, 14))]
        if rng.random() < 0.3:
            words.append(str(rng.randint(0, 10 ** 6)))
        line = (" ".join(words) + "\n").encode()
        out.append(line)
        n += len(line)
    return b"".join(out)


def _repeat_to(path, block, size, head=b"", tail=b"", sep=b""):
    with open(path, "wb") as f:
        f.write(head)
        left = size - len(head) - len(tail)
        first = True
        while left > 0:
            piece = block if first else sep + block
            first = False
            if len(piece) > left:
                piece = piece[:left]
            f.write(piece)
            left -= len(piece)
        f.write(tail)


def text(path, size, seed=13):
    rng = random.Random(seed)
    block = _text_block(rng, 8 << 20)
    # Cut the block at a line end so repeats stay whole lines.
    block = block[:block.rindex(b"\n") + 1]
    _repeat_to(path, block, size)
    # The last repeat may have been cut inside a character: end on ASCII.
    with open(path, "r+b") as f:
        f.seek(size - 1)
        f.write(b"\n")
        f.seek(max(0, size - 8))
        tailb = f.read()
        f.seek(max(0, size - 8))
        f.write(bytes(b if b < 0x80 else 0x20 for b in tailb))


def _record(rng, i):
    pools = [LATIN, ACCENTED, CYRILLIC, CJK]
    words = lambda k: " ".join(rng.choice(rng.choice(pools)) for _ in range(k))
    return {
        "id": i,
        "name": words(rng.randint(1, 4)),
        "email": "user%d@example.com" % rng.randint(0, 10 ** 6),
        "amount": round(rng.uniform(-1e5, 1e5), 2),
        "ratio": rng.random(),
        "count": rng.randint(0, 10 ** 9),
        "active": rng.random() < 0.5,
        "parent": None if rng.random() < 0.3 else rng.randint(0, i + 1),
        "tags": [rng.choice(LATIN) for _ in range(rng.randint(0, 5))],
        "note": words(rng.randint(3, 20)) + (" \"quoted\"\\n\\t" if rng.random() < 0.2 else ""),
        "geo": {"lat": round(rng.uniform(-90, 90), 6),
                "lon": round(rng.uniform(-180, 180), 6)},
        "history": [{"t": rng.randint(1.5e9, 1.8e9), "v": rng.randint(0, 99)}
                    for _ in range(rng.randint(0, 3))],
    }


def json_array(path, size, seed=8259):
    """One JSON array of records, exactly size bytes (padded with trailing
    whitespace), valid JSON."""
    rng = random.Random(seed)
    recs, n, i = [], 0, 0
    while n < (8 << 20):
        s = json.dumps(_record(rng, i), ensure_ascii=False,
                       separators=(", ", ": ") if i % 3 else (",", ":"))
        recs.append(s)
        n += len(s.encode()) + 2
        i += 1
    block = (",\n".join(recs)).encode()
    reps = max(1, (size - 4) // (len(block) + 2))
    with open(path, "wb") as f:
        f.write(b"[\n")
        for r in range(reps):
            if r:
                f.write(b",\n")
            f.write(block)
        f.write(b"\n]")
        written = 2 + reps * len(block) + (reps - 1) * 2 + 2
        if written < size:
            f.write(b" " * (size - written - 1) + b"\n")


def pdf(path, size, seed=32000):
    """A PDF 1.4 file of about size bytes, shaped like a scan: per page a
    page object, a short content stream and a 512x341 RGB image (raw
    samples, no filter), then an xref table and a trailer, as qpdf and
    every reader accept it. Written as it goes: offsets are counted, never
    typed."""
    rng = random.Random(seed)
    w, h = 512, 341
    samples = bytes(rng.getrandbits(8) for _ in range(w * h * 3))
    content = b"q 540 0 0 360 36 400 cm /Im0 Do Q\nBT /F1 10 Tf 72 72 Td " \
              b"(scanned page) Tj ET\n"
    npages = max(1, size // (len(samples) + 600))
    # Objects: 1 catalog, 2 pages, 3 font, then for page i: 4 + 3i the
    # page, 5 + 3i its content, 6 + 3i its image.
    nobj = 3 + 3 * npages
    offs = [0] * (nobj + 1)
    with open(path, "wb") as f:
        pos = 0

        def put(b):
            nonlocal pos
            f.write(b)
            pos += len(b)

        def obj(n, body):
            offs[n] = pos
            put(b"%d 0 obj\n" % n + body + b"\nendobj\n")

        def stream(n, dict_body, data):
            obj(n, b"<< %s /Length %d >>\nstream\n" % (dict_body, len(data)) +
                data + b"\nendstream")

        put(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        kids = b" ".join(b"%d 0 R" % (4 + 3 * i) for i in range(npages))
        obj(2, b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % npages)
        obj(3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        for i in range(npages):
            obj(4 + 3 * i, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 "
                b"792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im0 "
                b"%d 0 R >> >> /Contents %d 0 R >>" % (6 + 3 * i, 5 + 3 * i))
            stream(5 + 3 * i, b"", content)
            stream(6 + 3 * i, b"/Type /XObject /Subtype /Image /Width %d "
                   b"/Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8"
                   % (w, h), samples)
        xref = pos
        put(b"xref\n0 %d\n" % (nobj + 1))
        put(b"0000000000 65535 f \n")
        for n in range(1, nobj + 1):
            put(b"%010d 00000 n \n" % offs[n])
        put(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (nobj + 1, xref))


def _zip(path, name_fmt, count, data, method, comp):
    """count entries of one content (data, stored or already deflated as
    comp), written by hand: the same bytes each time, so a large archive
    takes seconds."""
    import struct
    import zlib
    crc = zlib.crc32(data)
    body = comp if method == 8 else data
    cd, off = [], 0
    with open(path, "wb") as f:
        for i in range(count):
            name = (name_fmt % i).encode()
            f.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method,
                                0, 0x5821, crc, len(body), len(data),
                                len(name), 0) + name)
            f.write(body)
            cd.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20,
                                  20, 0, method, 0, 0x5821, crc, len(body),
                                  len(data), len(name), 0, 0, 0, 0, 0,
                                  off) + name)
            off += 30 + len(name) + len(body)
        cdb = b"".join(cd)
        f.write(cdb + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count,
                                  count, len(cdb), off, 0))


def zip_text(path, size, seed=13):
    """A ZIP of deflated text entries of 8 MiB each, inflating to about
    size bytes: within archive-within-limits' bounds when size is at most
    512 MiB (the plugin inflates all of it)."""
    import zlib
    rng = random.Random(seed)
    block = _text_block(rng, 8 << 20)[:8 << 20]
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    _zip(path, "text/part-%03d.txt", max(1, size // len(block)), block, 8,
         c.compress(block) + c.flush())


def zip_stored(path, size, seed=77):
    """A ZIP of stored random entries of 16 MiB each, about size bytes."""
    rng = random.Random(seed)
    block = rng.randbytes(16 << 20)
    _zip(path, "data/blob-%03d.bin", max(1, size // len(block)), block, 0,
         None)


def signed_pdf(path, size):
    """pdf() then one signature appended as an incremental update (a
    signature dictionary only: pdf-signatures-intact needs no form field),
    signed by `openssl cms -sign` with a throw-away self-signed key over
    its byte range, streamed through a temporary file."""
    import re
    import subprocess
    import tempfile
    pdf(path, size)
    with open(path, "rb") as f:
        f.seek(-4096, 2)
        tail = f.read()
    nobj = int(re.findall(rb"/Size (\d+)", tail)[-1])
    prev = int(re.findall(rb"startxref\s+(\d+)", tail)[-1])
    hexlen = 8192
    with open(path, "ab") as f:
        at = f.tell()
        head = (b"%d 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter "
                b"/adbe.pkcs7.detached /ByteRange " % nobj)
        rng_at = at + len(head)
        place = b"[0 0000000000 0000000000 0000000000]"
        body = head + place + b" /Contents <"
        a = at + len(body) - 1
        body += b"0" * hexlen + b"> >>\nendobj\n"
        b = a + hexlen + 2
        xref = at + len(body)
        body += (b"xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n"
                 b"trailer\n<< /Size %d /Root 1 0 R /Prev %d >>\n"
                 b"startxref\n%d\n%%%%EOF\n" % (nobj, at, nobj + 1, prev,
                                                xref))
        f.write(body)
        end = f.tell()
    rng = b"[0 %d %d %d]" % (a, b, end - b)
    rng = rng[:-1] + b" " * (len(place) - len(rng)) + b"]"
    with tempfile.TemporaryDirectory() as d:
        key, cert = os.path.join(d, "k.pem"), os.path.join(d, "c.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-subj", "/CN=bench", "-days", "1", "-keyout", key,
                        "-out", cert], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        fd = os.open(path, os.O_RDWR)
        try:
            os.pwrite(fd, rng, rng_at)
            content = os.path.join(d, "content")
            with open(content, "wb") as out:
                for off, n in ((0, a), (b, end - b)):
                    while n > 0:
                        chunk = os.pread(fd, min(n, 16 << 20), off)
                        out.write(chunk)
                        off += len(chunk)
                        n -= len(chunk)
            der = subprocess.run(
                ["openssl", "cms", "-sign", "-binary", "-outform", "DER",
                 "-signer", cert, "-inkey", key, "-md", "sha256", "-in",
                 content], check=True, stdout=subprocess.PIPE).stdout
            os.pwrite(fd, der.hex().encode(), a + 1)
        finally:
            os.close(fd)
