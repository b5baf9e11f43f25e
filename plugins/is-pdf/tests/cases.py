"""is-pdf cases: real PDFs from independent writers (ghostscript, qpdf,
mupdf, poppler) and their mutations, files built byte for byte by pdfgen.py
that each break one rule, committed fixtures, and a sparse file with its
cross-reference section past 5 GiB under a small memory limit."""
import os
import re
import shutil
import subprocess
import sys

from harness import Case, Check

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pdfgen  # noqa: E402
from pdfgen import PDF  # noqa: E402

TOOLS = ("gs", "qpdf", "mutool", "pdfunite", "pdfseparate")

POSTSCRIPT = b"""%!PS
/Helvetica findfont 24 scalefont setfont
72 720 moveto (lockfile is-pdf test, page one) show showpage
72 720 moveto (page two) show showpage
"""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=120, **kw)


def tool_pdfs(ctx):
    """(name, path) of PDFs written by the tools found on this machine."""
    d = ctx.tmp
    ps = ctx.file("in.ps", POSTSCRIPT)
    out = []

    def made(name, cmd):
        path = os.path.join(d, name)
        if run(cmd).returncode == 0 and os.path.exists(path):
            os.chmod(path, 0o644)
            out.append((name, path))
    gs = ["gs", "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH", "-sDEVICE=pdfwrite"]
    made("gs.pdf", gs + ["-sOutputFile=" + os.path.join(d, "gs.pdf"), ps])
    for lvl in ("1.3", "1.4", "2.0"):
        made("gs-%s.pdf" % lvl, gs + ["-dCompatibilityLevel=" + lvl,
             "-sOutputFile=" + os.path.join(d, "gs-%s.pdf" % lvl), ps])
    src = os.path.join(d, "gs.pdf")
    for name, args in [
        ("qpdf-objstm.pdf", ["--object-streams=generate"]),
        ("qpdf-objstm-plain.pdf", ["--object-streams=generate",
                                   "--compress-streams=n"]),
        ("qpdf-nostm.pdf", ["--object-streams=disable"]),
        ("qpdf-linear.pdf", ["--linearize"]),
        ("qpdf-linear-objstm.pdf", ["--linearize",
                                    "--object-streams=generate"]),
        ("qpdf-qdf.pdf", ["--qdf"]),
        ("qpdf-aes256.pdf", ["--encrypt", "u", "o", "256", "--"]),
        ("qpdf-rc4.pdf", ["--allow-weak-crypto", "--encrypt", "u", "o",
                          "128", "--use-aes=n", "--"]),
    ]:
        made(name, ["qpdf"] + args + [src, os.path.join(d, name)])
    for name, args in [("mutool-clean.pdf", []), ("mutool-gc.pdf", ["-gggg"]),
                       ("mutool-deflate.pdf", ["-z"]),
                       ("mutool-decomp.pdf", ["-d"]),
                       ("mutool-ascii.pdf", ["-a"]),
                       ("mutool-linear.pdf", ["-l"])]:
        made(name, ["mutool", "clean"] + args + [src, os.path.join(d, name)])
    made("pdfunite.pdf", ["pdfunite", src, src, os.path.join(d, "pdfunite.pdf")])
    made("pdfseparate-1.pdf", ["pdfseparate", "-f", "1", "-l", "1", src,
                               os.path.join(d, "pdfseparate-%d.pdf")])
    return out


def startxref(data):
    m = list(re.finditer(rb"startxref(\s+)(\d+)", data))[-1]
    return m


def mutations(data):
    """(desc, bytes) that must all be refused."""
    m = startxref(data)
    off = int(m.group(2))

    def with_sx(v):
        return data[:m.start(2)] + v + data[m.end(2):]
    last_eof = data.rindex(b"%%EOF")
    return [
        ("cut to half", data[:len(data) // 2]),
        ("cut just before %%EOF", data[:last_eof]),
        ("cut inside the last cross-reference section",
         data[:off + (m.start() - off) // 2]),
        ("startxref + 1", with_sx(b"%d" % (off + 1))),
        ("startxref - 1", with_sx(b"%d" % (off - 1))),
        ("startxref 0", with_sx(b"0")),
        ("%%EOF misspelt", data[:last_eof] + b"%%EOX" + data[last_eof + 5:]),
        ("2000 bytes of junk after %%EOF",
         data + b"\n" + b"junk " * 400),
    ]


def qpdf_clean(path):
    """qpdf --check without errors or warnings (exit 0)."""
    if shutil.which("qpdf") is None:
        return False, "qpdf not installed"
    p = subprocess.run(["qpdf", "--check", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120)
    return p.returncode == 0, p.stdout.decode("utf-8", "replace")[-300:]


def crafted_yes():
    long_info = b"(a (nested) string with \\) escapes and \\\\ slashes)"
    return [
        ("a minimal classic file", PDF().build(), True),
        ("CR LF line ends and CR LF entries",
         PDF(eol=b"\r\n", entry_eol=b"\r\n").build(), True),
        ("entries ending in space CR", PDF(entry_eol=b" \r").build(), True),
        ("a PDF 1.0 header", PDF(version=b"1.0").build(), True),
        ("a PDF 1.7 header", PDF(version=b"1.7").build(), True),
        ("a PDF 2.0 header", PDF(version=b"2.0").build(), True),
        ("two subsections in one table",
         PDF(subsections=[(0, 1), (1, 4)]).build(), True),
        ("an incremental update (/Prev)",
         pdfgen.incremental(PDF().build()), True),
        ("100 sections chained by /Prev", pdfgen.chain(100), True),
        ("a cross-reference stream (PDF 1.5, unfiltered)",
         PDF(version=b"1.5", xref="stream").build(), True),
        ("a cross-reference stream with /Index",
         PDF(version=b"1.5", xref="stream",
             xrefstm_extra=b" /Index [0 6]").build(), True),
        ("a hybrid-reference file (/XRefStm)", pdfgen.hybrid(), True),
        ("a trailer with /ID, /Info, comments and strings",
         PDF(trailer=b"<< /Size 5 % a comment\n /Root 1 0 R /ID "
             b"[<0123ABCD><0123abcd>] /Info << /Title " + long_info +
             b" /Ratio 1.5 /Neg -2 /Flag true /Nil null >> >>").build(), True),
        ("blank lines and spaces before 'trailer'",
         PDF().build().replace(b"trailer", b"\n  \r\n\ntrailer"), True),
        ("junk after %%EOF within the last 1024 bytes",
         PDF(tail=b"\x00" * 500).build(), True),
        ("junk before the header, offsets from the file's start",
         PDF(junk=b"X" * 100).build(), None),
        ("junk before the header, offsets from the header (Acrobat)",
         PDF(junk=b"X" * 100, relative=True).build(), None),
        ("20000 objects", pdfgen.many_objects(20000), True),
    ]


def crafted_no():
    good = PDF().build()
    big_dict = b"<< /Size 5 /Root 1 0 R /Junk (" + b"x" * (70 * 1024) + \
        b") >>"
    deep = b"<< /Size 5 /Root 1 0 R /Deep " + b"[" * 40 + b"]" * 40 + b" >>"
    objs10 = pdfgen.basic_objects() + [b"null"] * 8
    ten = PDF(objs10, version=b"1.5", xref="stream").build()
    m = startxref(ten)
    bad_root = PDF(root=b"2 0 R").build()
    entry1 = b"%010d 00000 n" % good.index(b"1 0 obj")
    stream = PDF(version=b"1.5", xref="stream").build()
    return [
        ("an empty file", b""),
        ("one byte", b"%"),
        ("only a header", b"%PDF-1.4\n"),
        ("a text file starting with %PDF-",
         b"%PDF-1.4\nThis is plain text, not a PDF.\n%%EOF\n"),
        ("a PNG signature", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100),
        ("header %PDF-1.8", PDF(version=b"1.8").build()),
        ("header %PDF-3.0", PDF(version=b"3.0").build()),
        ("header %PDF-1.x", PDF(version=b"1.x").build()),
        ("header not followed by whitespace", good.replace(b"%PDF-1.4\n",
                                                           b"%PDF-1.4x", 1)),
        ("the header beyond the first 1024 bytes",
         PDF(junk=b"X" * 1100, relative=True).build()),
        ("no %%EOF", PDF(eof=b"").build()),
        ("startxref beyond the file", PDF(startxref=10 ** 9).build()),
        ("startxref with 21 digits", PDF(startxref=b"9" * 21).build()),
        ("a negative startxref", PDF(startxref=b"-5").build()),
        ("no startxref", good.replace(b"startxref", b"startxrex")),
        ("19-byte entries (LF only)", PDF(entry_eol=b"\n").build()),
        ("an entry of type x", good.replace(b"00000 n \n", b"00000 x \n", 1)),
        ("an entry with a letter in its offset",
         good.replace(b" 00000 n", b" 0000O n", 1)),
        ("a subsection header with one number",
         good.replace(b"xref\n0 5\n", b"xref\n0\n")),
        ("a subsection that claims more entries than it has",
         good.replace(b"xref\n0 5\n", b"xref\n0 9\n")),
        ("an in-use offset beyond the file",
         good.replace(entry1, b"9999999999 00000 n")),
        ("no trailer keyword", good.replace(b"trailer", b"trailex")),
        ("a trailer without /Root", PDF(trailer=b"<< /Size 5 >>").build()),
        ("a trailer without /Size", PDF(trailer=b"<< /Root 1 0 R >>").build()),
        ("/Size as a string", PDF(trailer=b"<< /Size (5) /Root 1 0 R >>"
                                  ).build()),
        ("/Root as a number", PDF(trailer=b"<< /Size 5 /Root 1 >>").build()),
        ("/Root twice", PDF(trailer=b"<< /Size 5 /Root 1 0 R /Root 2 0 R >>"
                            ).build()),
        ("/Root naming a page, not the catalog's object", bad_root.replace(
            b"%010d 00000 n" % bad_root.index(b"2 0 obj"),
            b"%010d 00000 n" % bad_root.index(b"3 0 obj"))),
        ("/Root naming a free entry",
         good.replace(entry1, entry1[:-1] + b"f")),
        ("/Prev pointing at its own section", re.sub(
            rb"/Root 1 0 R", b"/Root 1 0 R /Prev %d" % int(
                startxref(good).group(2)), good)),
        ("/Prev beyond the file", PDF(trailer=b"<< /Size 5 /Root 1 0 R "
                                      b"/Prev 99999999 >>").build()),
        ("300 sections chained by /Prev (over the 256 limit)",
         pdfgen.chain(300)),
        ("a trailer dictionary over 64 KiB", PDF(trailer=big_dict).build()),
        ("a trailer nested 40 deep (over the limit of 32)",
         PDF(trailer=deep).build()),
        ("an unterminated string in the trailer",
         PDF(trailer=b"<< /Size 5 /Root 1 0 R /T (open >>").build()),
        ("a bad #xx escape in a name",
         PDF(trailer=b"<< /Size 5 /Root 1 0 R /A#zz 1 >>").build()),
        ("an xref stream whose /Type is not /XRef",
         stream.replace(b"/Type /XRef", b"/Type /XRoo")),
        ("an xref stream with two /W fields",
         stream.replace(b"/W [1 2 1]", b"/W [3 1]  ")),
        ("an xref stream with a 9-byte /W field",
         stream.replace(b"/W [1 2 1]", b"/W [1 9 1]")),
        ("an xref stream whose /Length misses endstream",
         PDF(version=b"1.5", xref="stream", stm_length=b"23").build()),
        ("an unfiltered xref stream with too few rows",
         PDF(version=b"1.5", xref="stream",
             xrefstm_extra=b" /Index [0 3]").build()),
        ("an xref stream with an indirect /Length",
         PDF(version=b"1.5", xref="stream", stm_length=b"9 0 R").build()),
        ("startxref one byte into the xref stream's object number",
         ten[:m.start(2)] + b"%d" % (int(m.group(2)) + 1) + ten[m.end(2):]),
        ("an xref stream object without its dictionary",
         stream.replace(b"<< /Type /XRef", b"[ /Type /XRef")),
        ("2000 spaces between an xref stream's dictionary and 'stream' "
         "(over the 1024-byte gap limit)",
         stream.replace(b">>\nstream\n", b">>" + b" " * 2000 + b"\nstream\n")),
        ("2000 newlines before 'trailer' (over the gap limit)",
         good.replace(b"trailer", b"\n" * 2000 + b"trailer")),
        ("/XRefStm naming a table", re.sub(
            rb"/XRefStm \d+", b"/XRefStm %d" % int(startxref(
                pdfgen.hybrid()).group(2)), pdfgen.hybrid())),
    ]


def sparse_pdf(ctx, at):
    """A file whose body is at the start and whose cross-reference table,
    trailer and startxref sit at offset `at` (a sparse hole between)."""
    data = PDF().build()
    xref = data.index(b"xref\n")
    head, tail = data[:xref], data[xref:]
    tail = re.sub(rb"startxref\n\d+", b"startxref\n%d" % at, tail)
    return ctx.sparse("sparse-%d.pdf" % at, at + len(tail),
                      [(0, head), (at, tail)])


def cases(ctx):
    for exp, desc, path, _ in ctx.fixtures():
        yield Case(desc, path, exp)

    if not ctx.host:
        for t in TOOLS:
            yield Check("tool %s is installed (scripts/install-deps.d/"
                        "plugins.sh)" % t,
                        lambda t=t: (shutil.which(t) is not None, ""))
    made = tool_pdfs(ctx)
    if not ctx.host:
        yield Check("the PDF tools wrote at least 20 files",
                    lambda: (len(made) >= 20, "%d files" % len(made)))
    for name, path in made:
        yield Case("real PDF %s" % name, path, "1")
        with open(path, "rb") as f:
            data = f.read()
        for i, (desc, bad) in enumerate(mutations(data)):
            yield Case("%s, %s" % (name, desc),
                       ctx.file("%s.mut%d" % (name, i), bad), "0")

    for i, (desc, data, qpdf_ok) in enumerate(crafted_yes()):
        path = ctx.file("yes-%d.pdf" % i, data)
        yield Case("crafted: " + desc, path, "1")
        if qpdf_ok and not ctx.host:
            yield Check("qpdf --check agrees: " + desc,
                        lambda path=path: qpdf_clean(path))
    for i, (desc, data) in enumerate(crafted_no()):
        yield Case("crafted: " + desc, ctx.file("no-%d.pdf" % i, data), "0")

    # Bounded memory and 64-bit offsets: the cross-reference table 5 GiB
    # into a sparse file, read under a 2 MiB data limit.
    if not ctx.host:
        lim = dict(memory=2 << 20, heavy=True)
        yield Case("sparse: xref table at 5 GiB, 2 MiB memory limit",
                   sparse_pdf(ctx, 5 << 30), "1", **lim)
        big = ctx.sparse("sparse-noeof.pdf", 6 << 30,
                         [(0, PDF().build())])
        yield Case("sparse: a valid PDF followed by a 6 GiB hole (no "
                   "%%EOF near the end)", big, "0", **lim)
