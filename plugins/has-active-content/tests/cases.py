"""has-active-content cases: a corpus built here at run time, each file
answered by its reference as well as by the plugin (a differential test):
  PDF   pikepdf walking every object of the file's cross-reference (object
        streams included) for the active names, as keys or values; files
        written by ghostscript (plain), pikepdf (each action and content
        type, a /URI link and a same-document /GoTo that are not active),
        qpdf (object streams of an active file) and pdfgen.py (is-pdf's
        byte-for-byte writer: an obfuscated /J#61vaScript, an incremental
        update adding a page /AA, "/JS" inside a string only);
  OOXML Python's zipfile and ElementTree over the package's part names,
        relationships and field codes, on packages written with zipfile;
  OLE   olefile (a storage Macros, _VBA_PROJECT_CUR or VBA anywhere), on
        compound files is-encrypted's cfbgen.py writes.
Then what has no reference: malformed files (no answer), an encrypted PDF
with object streams (no answer: they cannot be inflated), and the largest
file, a PDF of 200000 objects, in the sandbox within the manifest's
limits."""
import io
import os
import shutil
import subprocess
import sys
import zipfile
import xml.etree.ElementTree as ET

from harness import Case, Check

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "is-encrypted", "tests"))
sys.path.append(os.path.join(HERE, "..", "..", "is-pdf", "tests"))
import cfbgen  # noqa: E402
import pdfgen  # noqa: E402

ACTIVE = {"/JS", "/JavaScript", "/Launch", "/SubmitForm", "/ImportData",
          "/GoToR", "/GoToE", "/RichMedia", "/XFA", "/EmbeddedFile",
          "/EmbeddedFiles"}
POSTSCRIPT = b"""%!PS
/Helvetica findfont 24 scalefont setfont
72 720 moveto (lockfile has-active-content test) show showpage
"""


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=120)


# ---- references -----------------------------------------------------------

def ref_pdf(path):
    import pikepdf

    def walk(o):
        if isinstance(o, pikepdf.Name):
            return str(o) in ACTIVE
        if isinstance(o, pikepdf.Stream):
            o = o.stream_dict
        if isinstance(o, pikepdf.Dictionary):
            for k in o.keys():
                if k in ACTIVE:
                    return True
                v = o.get(k)
                if not getattr(v, "is_indirect", False) and walk(v):
                    return True
        if isinstance(o, pikepdf.Array):
            return any(not getattr(v, "is_indirect", False) and walk(v)
                       for v in o)
        return False
    try:
        with pikepdf.open(path) as pdf:
            objs = [pdf.trailer] + list(pdf.objects)
            return "1" if any(walk(o) for o in objs) else "0"
    except Exception:
        return "error"


def local(tag):
    return tag.rsplit("}", 1)[-1]


def word_dde(root):
    code = []
    for el in root.iter():
        t = local(el.tag)
        if t == "fldChar":
            if "".join(code).lstrip().upper().split(" ")[0] in (
                    "DDE", "DDEAUTO"):
                return True
            code = []
        elif t == "instrText":
            code.append(el.text or "")
        elif t == "fldSimple":
            for k, v in el.attrib.items():
                if local(k) == "instr" and v.lstrip().upper().split(
                        " ")[0] in ("DDE", "DDEAUTO"):
                    return True
    return "".join(code).lstrip().upper().split(" ")[0] in ("DDE", "DDEAUTO")


def ref_zip(path):
    try:
        with zipfile.ZipFile(path) as z:
            for i in z.infolist():
                n = i.filename.lower()
                if n.endswith("vbaproject.bin") or any(
                        d in n for d in ("macrosheets/", "activex/",
                                         "embeddings/")):
                    return "1"
            for i in z.infolist():
                n = i.filename.lower()
                if n.endswith(".rels"):
                    for el in ET.fromstring(z.read(i)).iter():
                        if local(el.tag) == "Relationship" and \
                                el.get("TargetMode") == "External" and \
                                el.get("Type", "").lower().endswith(
                                    ("/attachedtemplate", "/oleobject")):
                            return "1"
                elif n.startswith("word/") and n.endswith(".xml"):
                    if word_dde(ET.fromstring(z.read(i))):
                        return "1"
                elif n.startswith("xl/externallinks/") and \
                        n.endswith(".xml"):
                    if any(local(e.tag) == "ddeLink"
                           for e in ET.fromstring(z.read(i)).iter()):
                        return "1"
    except Exception:
        return "error"
    return "0"


def ref_ole(path):
    import olefile
    try:
        ole = olefile.OleFileIO(path)
    except Exception:
        return "error"
    for entry in ole.listdir(streams=False, storages=True):
        if any(p.lower() in ("macros", "_vba_project_cur", "vba")
               for p in entry):
            return "1"
    return "0"


def reference(path):
    with open(path, "rb") as f:
        head = f.read(1024)
    if head[:4] == b"PK\x03\x04":
        return ref_zip(path)
    if head[:8] == cfbgen.SIG:
        return ref_ole(path)
    if b"%PDF-" in head:
        return ref_pdf(path)
    if zipfile.is_zipfile(path):
        return ref_zip(path)
    return "0"


# ---- the corpus -----------------------------------------------------------

def pikepdf_files(ctx, src):
    import pikepdf
    from pikepdf import Array, Dictionary, Name, String
    out = []

    def js():
        return Dictionary(S=Name.JavaScript, JS=String("app.alert(1)"))

    def make(name, edit):
        p = os.path.join(ctx.tmp, name)
        with pikepdf.open(src) as pdf:
            edit(pdf)
            pdf.save(p)
        os.chmod(p, 0o644)
        out.append((name, p))

    def page_aa(pdf):
        pdf.pages[0].obj.AA = Dictionary(O=js())

    def names_js(pdf):
        pdf.Root.Names = Dictionary(JavaScript=Dictionary(
            Names=Array([String("x"), pdf.make_indirect(js())])))

    def annot(pdf, a):
        pdf.pages[0].obj.Annots = Array([pdf.make_indirect(Dictionary(
            Type=Name.Annot, Subtype=Name.Link, Rect=[0, 0, 10, 10], A=a))])

    def embed(pdf):
        fs = pikepdf.AttachedFileSpec(pdf, b"attached bytes",
                                      filename="a.txt")
        pdf.attachments["a.txt"] = fs
    make("pikepdf-plain.pdf", lambda pdf: None)
    make("pikepdf-openaction-js.pdf",
         lambda pdf: setattr(pdf.Root, "OpenAction", js()))
    make("pikepdf-page-aa-js.pdf", page_aa)
    make("pikepdf-names-javascript.pdf", names_js)
    make("pikepdf-launch.pdf", lambda pdf: annot(pdf, Dictionary(
        S=Name.Launch, F=String("calc.exe"))))
    make("pikepdf-submitform.pdf", lambda pdf: annot(pdf, Dictionary(
        S=Name.SubmitForm, F=String("https://example.invalid/"))))
    make("pikepdf-importdata.pdf", lambda pdf: annot(pdf, Dictionary(
        S=Name.ImportData, F=String("data.fdf"))))
    make("pikepdf-gotor.pdf", lambda pdf: annot(pdf, Dictionary(
        S=Name.GoToR, F=String("other.pdf"), D=Array([0, Name.Fit]))))
    make("pikepdf-uri-link.pdf", lambda pdf: annot(pdf, Dictionary(
        S=Name.URI, URI=String("https://example.invalid/"))))
    make("pikepdf-goto-openaction.pdf", lambda pdf: setattr(
        pdf.Root, "OpenAction", Dictionary(S=Name.GoTo, D=Array(
            [pdf.pages[0].obj, Name.Fit]))))
    make("pikepdf-richmedia.pdf", lambda pdf: setattr(
        pdf.pages[0].obj, "Annots", Array([pdf.make_indirect(Dictionary(
            Type=Name.Annot, Subtype=Name.RichMedia,
            Rect=[0, 0, 10, 10]))])))
    make("pikepdf-xfa.pdf", lambda pdf: setattr(
        pdf.Root, "AcroForm", Dictionary(Fields=Array([]), XFA=pdf.make_stream(
            b"<xdp:xdp xmlns:xdp='http://ns.adobe.com/xdp/'/>"))))
    make("pikepdf-embedded-file.pdf", embed)
    return out


def crafted_pdfs():
    cat = pdfgen.CATALOG
    js_in_string = cat[:-2] + b"/Title (a /JS and /JavaScript in text) >>"
    obf = cat[:-2] + b"/OpenAction << /S /J#61vaScript /J#53 (x) >> >>"
    objs = pdfgen.basic_objects()
    page_js = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] "
               b"/Contents 4 0 R /AA << /O << /S /JavaScript "
               b"/JS (app.alert\\(1\\)) >> >> >>")
    return [
        ("pdfgen-plain.pdf", pdfgen.PDF().build()),
        ("pdfgen-js-only-in-a-string.pdf",
         pdfgen.PDF([js_in_string] + objs[1:]).build()),
        ("pdfgen-obfuscated-j61vascript.pdf",
         pdfgen.PDF([obf] + objs[1:]).build()),
        ("pdfgen-js-key-only.pdf", pdfgen.PDF(
            [cat[:-2] + b"/OpenAction << /JS (app.alert\\(1\\)) >> >>"] +
            objs[1:]).build()),
        ("pdfgen-embeddedfiles-key-only.pdf", pdfgen.PDF(
            [cat[:-2] + b"/Names << /EmbeddedFiles << /Names [] >> >> >>"] +
            objs[1:]).build()),
        ("pdfgen-incremental-update-adds-aa.pdf",
         pdfgen.incremental(pdfgen.PDF().build(), new_page=page_js)),
        ("pdfgen-incremental-update-plain.pdf",
         pdfgen.incremental(pdfgen.PDF().build())),
    ]


def pdfs(ctx):
    d = ctx.tmp
    ps = ctx.file("in.ps", POSTSCRIPT)
    src = os.path.join(d, "gs.pdf")
    run(["gs", "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH", "-sDEVICE=pdfwrite",
         "-sOutputFile=" + src, ps])
    out = [("gs.pdf", src)] if os.path.exists(src) else []
    try:
        out += pikepdf_files(ctx, src)
    except Exception as e:  # noqa: BLE001 (the count check fails below)
        sys.stderr.write("pikepdf: %s\n" % e)
    for name, data in crafted_pdfs():
        out.append((name, ctx.file(name, data)))
    for name, base in (("qpdf-objstm-openaction-js.pdf",
                        "pikepdf-openaction-js.pdf"),
                       ("qpdf-objstm-plain.pdf", "pikepdf-plain.pdf"),
                       ("qpdf-objstm-obfuscated.pdf",
                        "pdfgen-obfuscated-j61vascript.pdf")):
        p = os.path.join(d, name)
        if run(["qpdf", "--object-streams=generate", os.path.join(d, base),
                p]).returncode in (0, 3):
            os.chmod(p, 0o644)
            out.append((name, p))
    return out


def zbytes(parts):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts:
            z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data,
                       compress_type=zipfile.ZIP_DEFLATED)
    return b.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def docx(body=b"", extra=()):
    doc = ('<w:document %s><w:body><w:p>' % W).encode() + body + \
        b"</w:p></w:body></w:document>"
    return zbytes([("[Content_Types].xml", b"<Types/>"),
                   ("_rels/.rels", b"<Relationships/>"),
                   ("word/document.xml", doc)] + list(extra))


def rels(type_, mode):
    m = ' TargetMode="%s"' % mode if mode else ""
    return ('<Relationships xmlns="http://schemas.openxmlformats.org/package/'
            '2006/relationships"><Relationship Id="rId1" Type="%s%s" '
            'Target="http://example.invalid/t.dotm"%s/></Relationships>'
            % (R, type_, m)).encode()


def field_runs(*codes):
    x = b'<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
    for c in codes:
        x += b"<w:r><w:instrText>" + c + b"</w:instrText></w:r>"
    return x + b'<w:r><w:fldChar w:fldCharType="end"/></w:r>'


def xlsx(extra=()):
    return zbytes([("[Content_Types].xml", b"<Types/>"),
                   ("xl/workbook.xml", b"<workbook/>")] + list(extra))


def zips():
    link = ('<externalLink xmlns="http://schemas.openxmlformats.org/'
            'spreadsheetml/2006/main">%s</externalLink>')
    return [
        ("ooxml-plain.docx", docx()),
        ("ooxml-vba.docm", docx(extra=[("word/vbaProject.bin", b"VBA")])),
        ("ooxml-vba.xlsm", xlsx([("xl/vbaProject.bin", b"VBA")])),
        ("ooxml-xlm-macrosheet.xlsx",
         xlsx([("xl/macrosheets/sheet1.xml", b"<xm:macrosheet/>")])),
        ("ooxml-activex.docx",
         docx(extra=[("word/activeX/activeX1.xml", b"<ax:ocx/>")])),
        ("ooxml-embedded-ole.docx",
         docx(extra=[("word/embeddings/oleObject1.bin", b"OLE")])),
        ("ooxml-remote-template.docx", docx(extra=[
            ("word/_rels/settings.xml.rels", rels("attachedTemplate",
                                                  "External"))])),
        ("ooxml-local-template.docx", docx(extra=[
            ("word/_rels/settings.xml.rels", rels("attachedTemplate",
                                                  None))])),
        ("ooxml-external-hyperlink.docx", docx(extra=[
            ("word/_rels/document.xml.rels", rels("hyperlink",
                                                  "External"))])),
        ("ooxml-linked-ole.docx", docx(extra=[
            ("word/_rels/document.xml.rels", rels("oleObject",
                                                  "External"))])),
        ("ooxml-ddeauto-fldsimple.docx", docx(
            b'<w:fldSimple w:instr=" DDEAUTO c:\\\\windows\\\\system32\\\\'
            b'cmd.exe &quot;/k calc&quot;"/>')),
        ("ooxml-dde-split-runs.docx", docx(field_runs(b" D", b"DE ",
                                                      b"c:\\\\x \"y\""))),
        ("ooxml-page-field.docx", docx(field_runs(b" PAGE "))),
        ("ooxml-empty-instrtext-then-dde-text.docx", docx(
            b'<w:r><w:fldChar w:fldCharType="begin"/><w:instrText/></w:r>'
            b"<w:r><w:t>DDE is a word here</w:t></w:r>")),
        ("ooxml-dde-in-text-only.docx", docx(
            b"<w:r><w:t>DDEAUTO is a word here</w:t></w:r>")),
        ("ooxml-ddelink.xlsx", xlsx([("xl/externalLinks/externalLink1.xml",
                                      (link % '<ddeLink ddeService="cmd" '
                                       'ddeTopic="/c calc"/>').encode())])),
        ("ooxml-externalbook.xlsx", xlsx([(
            "xl/externalLinks/externalLink1.xml",
            (link % '<externalBook/>').encode())])),
        ("odf-plain.odt", zbytes([("mimetype", b"application/vnd.oasis."
                                   b"opendocument.text"),
                                  ("content.xml", b"<c/>")])),
    ]


def oles():
    s = ("WordDocument", "stream", b"w" * 5000)
    return [
        ("ole-word-plain.doc", cfbgen.build([s])),
        ("ole-word-macros.doc", cfbgen.build([s, ("Macros", "storage", [
            ("VBA", "storage", [("dir", "stream", b"d")])])])),
        ("ole-excel-vba.xls", cfbgen.build([("Workbook", "stream", b"b"),
                                            ("_VBA_PROJECT_CUR", "storage",
                                             [("VBA", "storage", [])])])),
        ("ole-macros-as-stream.doc", cfbgen.build([s, ("Macros", "stream",
                                                       b"not a storage")])),
    ]


def big_pdf(ctx):
    """200000 objects and an /OpenAction JavaScript in the last one
    (pdfgen.one_pass: PDF.build is quadratic)."""
    n = 200000
    objs = pdfgen.basic_objects()
    objs[0] = pdfgen.CATALOG[:-2] + b"/OpenAction %d 0 R >>" % (n + 5)
    objs += [b"<< /N %d /Note (filler) >>" % i for i in range(n)]
    objs.append(b"<< /S /JavaScript /JS (app.alert\\(1\\)) >>")
    return ctx.file("big.pdf", pdfgen.one_pass(objs))


def malformed(ctx, made):
    d = dict(made)
    with open(d["ooxml-vba.docm"], "rb") as f:
        z = f.read()
    cd = z.index(b"PK\x01\x02")
    with open(d["ooxml-ddeauto-fldsimple.docx"], "rb") as f:
        dde = f.read()
    m = dde.index(b"word/document.xml") + len("word/document.xml")
    with open(d["ole-word-macros.doc"], "rb") as f:
        c = f.read()
    return [
        ("a PDF without its cross-reference section",
         b"%PDF-1.4\n1 0 obj << /JS (x) >> endobj\n%%EOF\n"),
        ("a ZIP whose central directory signature is wrong",
         z[:cd] + b"PK\x09\x09" + z[cd + 4:]),
        ("a docx whose deflated document part is garbage",
         dde[:m] + bytes(b ^ 0x5a for b in dde[m:m + 40]) + dde[m + 40:]),
        ("a compound file cut after its header", c[:600]),
    ]


def cases(ctx):
    if not ctx.host:
        for t in ("qpdf", "gs"):
            yield Check("tool %s is installed" % t,
                        lambda t=t: (shutil.which(t) is not None, ""))
        for m in ("pikepdf", "olefile"):
            def have(m=m):
                try:
                    __import__(m)
                    return True, ""
                except ImportError as e:
                    return False, str(e)
            yield Check("python module %s is installed" % m, have)
    made = pdfs(ctx)
    for n, data in zips() + oles():
        made.append((n, ctx.file(n, data)))
    if not ctx.host:
        yield Check("the corpus has at least 40 files",
                    lambda: (len(made) >= 40, "%d files" % len(made)))
    for name, path in made:
        want = reference(path)
        if want == "error":
            yield Check("reference reads %s" % name,
                        lambda: (False, "the reference failed"))
            continue
        yield Case("%s (reference: %s)" % (name, want), path, want)
    for i, (desc, data) in enumerate(malformed(ctx, made)):
        yield Case("no answer: " + desc, ctx.file("bad-%d" % i, data),
                   "error")
    # Encrypted with object streams: names are never encrypted, but an
    # object stream is; this one is answered (qpdf left the action where
    # it can be read), and would be no answer otherwise.
    enc = os.path.join(ctx.tmp, "qpdf-aes-objstm-js.pdf")
    if run(["qpdf", "--object-streams=generate", "--encrypt", "", "o", "256",
            "--", dict(made)["pikepdf-openaction-js.pdf"], enc]
           ).returncode in (0, 3):
        os.chmod(enc, 0o644)
        yield Case("an encrypted PDF with object streams (reference: %s)"
                   % reference(enc), enc, reference(enc))
    if not ctx.host:
        big = big_pdf(ctx)
        # pikepdf takes 40 s over 200000 objects and qpdf --check 20 s: qpdf
        # finds the last object, the JavaScript action the catalog's
        # /OpenAction names; the answer is 1 by construction.
        def last():
            p = subprocess.run(["qpdf", "--show-object=200005", big],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120)
            return (p.returncode == 0 and b"/JavaScript" in p.stdout,
                    p.stdout[-200:].decode("utf-8", "replace"))
        yield Check("qpdf reads the 200000-object PDF's last object, the "
                    "JavaScript action", last)
        yield Case("the 200000-object PDF in the sandbox, manifest limits",
                   big, "1", heavy=True)
        yield Case("the 200000-object PDF under a 2 MiB memory limit",
                   big, "1", memory=2 << 20, heavy=True)
