"""A small PDF writer for the is-pdf tests: builds files whose structure is
known byte for byte, so each test can break exactly one rule.

PDF(...).build() returns bytes. Offsets are computed, never typed by hand.
"""

CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
PAGES = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
PAGE = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 4 0 R >>")
CONTENT = b"BT /F1 12 Tf 72 712 Td (Hello from pdfgen) Tj ET"


def stream_obj(data, extra=b""):
    return (b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data +
            b"\nendstream")


def basic_objects():
    return [CATALOG, PAGES, PAGE, stream_obj(CONTENT)]


class PDF:
    def __init__(self, objects=None, version=b"1.4", eol=b"\n",
                 entry_eol=b" \n", junk=b"", relative=False, trailer=None,
                 subsections=None, root=b"1 0 R", tail=b"", xref="table",
                 xrefstm_extra=b"", startxref=None, eof=b"%%EOF",
                 stm_length=None):
        self.objects = objects if objects is not None else basic_objects()
        self.version, self.eol, self.entry_eol = version, eol, entry_eol
        self.junk, self.relative = junk, relative
        self.trailer = trailer          # replaces the trailer dict body
        self.subsections = subsections  # list of (start, count) to write
        self.root, self.tail, self.xref = root, tail, xref
        self.xrefstm_extra = xrefstm_extra
        self.startxref, self.eof = startxref, eof
        self.stm_length = stm_length    # the xref stream's /Length value

    def header(self):
        return (self.junk + b"%PDF-" + self.version + self.eol +
                b"%\xe2\xe3\xcf\xd3" + self.eol)

    def body(self, out, base):
        """Write the objects; returns their offsets (index 0 unused)."""
        offs = [0]
        for i, o in enumerate(self.objects, 1):
            offs.append(len(out) - base)
            out += b"%d 0 obj" % i + self.eol + o + self.eol + b"endobj" + \
                self.eol
        return offs

    def table(self, offs, size):
        e = self.eol
        subs = self.subsections or [(0, size)]
        t = b"xref" + e
        for start, count in subs:
            t += b"%d %d" % (start, count) + e
            for n in range(start, start + count):
                if n == 0:
                    t += b"0000000000 65535 f" + self.entry_eol
                else:
                    t += b"%010d 00000 n" % offs[n] + self.entry_eol
        return t

    def trailer_dict(self, size, extra=b""):
        if self.trailer is not None:
            return self.trailer
        return b"<< /Size %d /Root %s%s >>" % (size, self.root, extra)

    def build(self, prev=None):
        out = bytearray(self.header())
        base = len(self.junk) if self.relative else 0
        offs = self.body(out, base)
        size = len(self.objects) + 1
        xref_at = len(out) - base
        if self.xref == "table":
            out += self.table(offs, size)
            out += b"trailer" + self.eol + self.trailer_dict(size) + self.eol
        else:
            out += self.xref_stream(offs, xref_at)
        sx = xref_at if self.startxref is None else self.startxref
        out += b"startxref" + self.eol + (b"%d" % sx if isinstance(sx, int)
                                          else sx) + self.eol + self.eof + \
            self.eol + self.tail
        return bytes(out)

    def xref_stream(self, offs, at):
        """An unfiltered cross-reference stream as object len+1."""
        n = len(self.objects) + 1
        size = n + 1
        rows = b"\x00\x00\x00\xff"                      # object 0: free
        for i in range(1, n):
            rows += b"\x01" + offs[i].to_bytes(2, "big") + b"\x00"
        rows += b"\x01" + at.to_bytes(2, "big") + b"\x00"   # itself
        length = b"%d" % len(rows) if self.stm_length is None \
            else self.stm_length
        d = (b"<< /Type /XRef /Size %d /W [1 2 1] /Root %s /Length %s%s >>"
             % (size, self.root, length, self.xrefstm_extra))
        return (b"%d 0 obj" % n + self.eol + d + self.eol + b"stream\n" +
                rows + b"\nendstream" + self.eol + b"endobj" + self.eol)


def incremental(base_pdf, new_page=b"<< /Type /Page /Parent 2 0 R "
                b"/MediaBox [0 0 300 300] /Contents 4 0 R >>"):
    """Append an update that replaces object 3, with /Prev to the old
    section: a file with two cross-reference sections."""
    import re
    old = base_pdf
    prev = int(re.findall(rb"startxref\s+(\d+)", old)[-1])
    out = bytearray(old)
    off3 = len(out)
    out += b"3 0 obj\n" + new_page + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 1\n0000000000 65535 f \n3 1\n%010d 00000 n \n" % off3
    out += b"trailer\n<< /Size 5 /Root 1 0 R /Prev %d >>\n" % prev
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def chain(n):
    """A file with n cross-reference sections linked by /Prev."""
    data = PDF().build()
    for _ in range(n - 1):
        data = incremental(data)
    return data


def hybrid():
    """A hybrid-reference file: a table whose trailer names an (unfiltered)
    xref stream with /XRefStm, as PDF 1.5 writers emit for old readers."""
    objs = basic_objects()
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offs = [0]
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    stm_at = len(out)
    rows = b"\x00\x00\x00\xff" + b"".join(
        b"\x01" + offs[i].to_bytes(2, "big") + b"\x00" for i in range(1, 5))
    rows += b"\x01" + stm_at.to_bytes(2, "big") + b"\x00"
    out += (b"5 0 obj\n<< /Type /XRef /Size 6 /W [1 2 1] /Length %d >>\n"
            b"stream\n" % len(rows)) + rows + b"\nendstream\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 6\n0000000000 65535 f \n"
    for i in range(1, 5):
        out += b"%010d 00000 n \n" % offs[i]
    out += b"%010d 00000 n \n" % stm_at
    out += b"trailer\n<< /Size 6 /Root 1 0 R /XRefStm %d >>\n" % stm_at
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def one_pass(objs, version=b"1.4"):
    """objs, numbered from 1, as a file with a cross-reference table and a
    trailer (/Root 1 0 R), written in one pass: PDF.build is quadratic,
    too slow for the largest test files."""
    parts, offs = [b"%PDF-" + version + b"\n"], []
    at = len(parts[0])
    for i, o in enumerate(objs):
        chunk = b"%d 0 obj\n%s\nendobj\n" % (i + 1, o)
        offs.append(at)
        parts.append(chunk)
        at += len(chunk)
    parts.append(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    parts += [b"%010d 00000 n \n" % o for o in offs]
    parts.append(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n"
                 b"%%%%EOF\n" % (len(objs) + 1, at))
    return b"".join(parts)


def many_objects(n):
    """A file with n objects: a cross-reference table of n+1 entries."""
    objs = basic_objects() + [b"null"] * (n - 4)
    return PDF(objs).build()
