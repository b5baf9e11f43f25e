"""pdf-signatures-intact cases: a corpus built here at run time, each file
answered by its reference as well as by the plugin (a differential test).

Where the files come from: a test CA, signers (RSA, EC, expired,
self-signed) and a TSA made with python3-cryptography (sigpdf.PKI); the
signatures by `openssl cms -sign` (adbe.pkcs7.detached, ETSI.CAdES.detached
with -cades), the document timestamps by `openssl ts -reply`; the base
documents by is-pdf's pdfgen.py (byte for byte), pikepdf (its writer),
qpdf (an xref stream and object streams) and ghostscript; the signed
revisions appended by sigpdf.py.

The reference is `pdfsig -nocert` (poppler-utils): 1 when it lists at
least one signature, each "Signature is Valid.", and one of them "Total
document signed". pdfsig 22.12 cannot validate a document timestamp
("Unable to validate this type of signature"): for those the reference
is pikepdf (the dictionary's /ByteRange and /Contents) with `openssl ts
-verify` over the range, the rest of pdfsig's verdict unchanged.

The coverage rule: every reason the plugin answers 0 (docs/plugins.md)
has a case, and every disagreement with pdfsig is a case whose expected
answer is the plugin's, with why in its description (DISAGREE below)."""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

from harness import Case, Check

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "..", "is-pdf", "tests"))
import pdfgen  # noqa: E402
import sigpdf  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120, **kw)


# ---- the reference -----------------------------------------------------------

def pdfsig(path):
    """[(type, total, valid)] as pdfsig -nocert lists them, or None."""
    p = run(["pdfsig", "-nocert", path])
    out = p.stdout.decode("utf-8", "replace")
    if "does not contain any signatures" in out:
        return []
    sigs = []
    for block in re.split(r"\nSignature #\d+:\n", out)[1:]:
        t = re.search(r"Signature Type: (\S+)", block)
        sigs.append({
            "type": t.group(1) if t else "",
            "total": "- Total document signed" in block,
            "valid": "Signature Validation: Signature is Valid." in block,
            "unverified": "has not yet been verified" in block,
        })
    return sigs if sigs or p.returncode == 0 else None


def ts_valid(path, pki, index):
    """The index-th signature dictionary (file order), a document
    timestamp: pikepdf reads it, openssl ts -verify checks the token."""
    import pikepdf
    with open(path, "rb") as f:
        data = f.read()
    with pikepdf.open(path) as pdf:
        dicts = [o for o in pdf.objects if isinstance(o, pikepdf.Dictionary)
                 and o.get("/Type") == pikepdf.Name.DocTimeStamp]
        if index >= len(dicts):
            return False
        d = dicts[index]
        r = [int(x) for x in d.ByteRange]
        token = bytes(d.Contents)
    content = data[r[0]:r[0] + r[1]] + data[r[2]:r[2] + r[3]]
    tmp = path + ".ref"
    with open(tmp + ".data", "wb") as f:
        f.write(content)
    with open(tmp + ".tok", "wb") as f:
        f.write(token.rstrip(b"\0"))
    p = run(["openssl", "ts", "-verify", "-data", tmp + ".data", "-in",
             tmp + ".tok", "-token_in", "-CAfile", pki.ca.cert, "-untrusted",
             pki.tsa.cert])
    return p.returncode == 0


def reference(path, pki):
    sigs = pdfsig(path)
    if sigs is None:
        return "error"
    if not sigs:
        return "0"
    ts = 0
    for s in sigs:
        if s["unverified"] and s["type"] == "unknown":
            s["valid"] = ts_valid(path, pki, ts)
            ts += 1
    ok = all(s["valid"] for s in sigs) and any(s["total"] for s in sigs)
    return "1" if ok else "0"


# ---- the corpus --------------------------------------------------------------

def flip_at(data, needle, delta=1):
    """Change one byte of the first needle (same length)."""
    i = data.index(needle)
    return data[:i] + bytes([data[i] ^ delta]) + data[i + 1:]


def zero_contents(data):
    a = data.rindex(b"/Contents <") + len(b"/Contents <")
    b = data.index(b">", a)
    return data[:a] + b"0" * (b - a) + data[b:]


DSS = (b"<< /Type /DSS /Certs [] /OCSPs [] /CRLs [] >>")


def other_writers(ctx):
    """(name, bytes, object numbers) of unsigned PDFs written by pikepdf
    (a table) and by qpdf from it (object streams, an xref stream)."""
    import pikepdf
    p = os.path.join(ctx.tmp, "pikepdf-base.pdf")
    pdf = pikepdf.new()
    pdf.add_blank_page()
    pdf.pages[0].Contents = pdf.make_stream(pdfgen.CONTENT)
    pdf.save(p, static_id=True)
    q = os.path.join(ctx.tmp, "qpdf-objstm-base.pdf")
    run(["qpdf", "--object-streams=generate", p, q])
    out = []
    for name, f in (("pikepdf", p), ("qpdf object streams", q)):
        with pikepdf.open(f) as pdf:
            nums = dict(root=pdf.Root.objgen[0],
                        pages=pdf.Root.Pages.objgen[0],
                        page=pdf.pages[0].objgen[0],
                        contents=pdf.pages[0].Contents.objgen[0])
        with open(f, "rb") as fh:
            out.append((name, fh.read(), nums))
    return out


def corpus(ctx, pki):
    d = pdfgen.PDF().build()
    S = sigpdf.Doc

    def two_first_broken():
        doc = S(d).sign(pki.signer)
        doc.data = flip_at(doc.data, b"Hello from pdfgen")
        return doc.sign(pki.ec_signer).data

    def certified_then_filled():
        doc = S(d).sign(pki.signer, sig_extra=(
            b" /Reference [<< /Type /SigRef /TransformMethod /DocMDP "
            b"/TransformParams << /Type /TransformParams /P 2 /V /1.2 >> >>]"),
            catalog_extra=b" /Perms << /DocMDP 5 0 R >>")
        return doc.append_update({6: (
            b"<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /V 5 0 R "
            b"/F 132 /Rect [0 0 0 0] /P 3 0 R /TU (filled in) >>")}).data

    def blt():
        doc = S(d).sign(pki.signer)
        n = doc.size
        return doc.append_update({1: doc.catalog(b" /DSS %d 0 R" % n),
                                  n: DSS})

    def shadow_replace():
        # hide-and-replace: the signed file carries an unused content
        # stream; an update points the page at it
        doc = S(pdfgen.PDF(pdfgen.basic_objects() + [pdfgen.stream_obj(
            b"BT /F1 12 Tf 72 712 Td (PAY 1000000) Tj ET")]).build())
        doc.sign(pki.signer)
        return doc.append_update({3: doc.page().replace(
            b"/Contents 4 0 R", b"/Contents 5 0 R")}).data

    items = [
        ("pdfgen, unsigned", d),
        ("pdfgen, an RSA signer, adbe.pkcs7.detached",
         S(d).sign(pki.signer).data),
        ("pdfgen, an EC signer, ETSI.CAdES.detached",
         S(d).sign(pki.ec_signer, kind="ETSI.CAdES.detached").data),
        ("two signatures, each valid, the second covering all",
         S(d).sign(pki.signer).sign(pki.ec_signer).data),
        ("an expired signer certificate",
         S(d).sign(pki.expired).data),
        ("a self-signed signer certificate",
         S(d).sign(pki.self_signed).data),
        ("a signature then a document timestamp (PAdES B-LTA shape)",
         S(d).sign(pki.signer).timestamp(pki).data),
        ("a document timestamp alone", S(d).timestamp(pki).data),
        ("validation data (DSS) appended after the signature, no timestamp "
         "(PAdES B-LT)", blt().data),
        ("validation data (DSS) then a document timestamp",
         blt().timestamp(pki).data),
        ("a certified (DocMDP P=2) form filled in afterwards",
         certified_then_filled()),
        ("incremental saving attack: an update after the signature",
         S(d).sign(pki.signer).append_update().data),
        ("shadow attack (hide-and-replace): an update shows a signed, "
         "hidden stream", shadow_replace()),
        ("one signed byte changed after signing",
         S(d).sign(pki.signer, tamper=lambda b: flip_at(
             b, b"Hello from pdfgen")).data),
        ("one byte of the signature value changed",
         S(d).sign(pki.signer, tamper=lambda b: b.replace(
             b"/Contents <3082", b"/Contents <3083", 1)).data),
        ("the first of two signatures broken before the second",
         two_first_broken()),
        ("the last 10 bytes outside the ByteRange",
         S(d).sign(pki.signer, range_fn=lambda a, b, n: [
             0, a, b, n - b - 10]).data),
        ("a byte appended after %%EOF",
         S(d).sign(pki.signer).data + b"\n"),
        ("an obfuscated key /Byte#52ange, valid",
         S(d).sign(pki.signer, byterange_key=b"/Byte#52ange").data),
        ("universal signature forgery: the gap 10 bytes wider than /Contents",
         S(d).sign(pki.signer, range_fn=lambda a, b, n: [
             0, a - 10, b, n - b]).data),
        ("universal signature forgery: the gap starts 2 bytes into "
         "/Contents, whose hex is 00 then the DER signed over that range",
         S(d).sign(pki.signer, hex_prefix=b"00", range_fn=lambda a, b, n: [
             0, a + 2, b, n - b]).data),
        ("universal signature forgery: the gap is another hex string of "
         "the dictionary (/Cert), /Contents is signed as <00>",
         S(d).sign(pki.signer, gap_key=b"/Cert").data),
        ("an obfuscated /Byte#52ange in a dictionary without /Type, valid",
         S(d).sign(pki.signer, byterange_key=b"/Byte#52ange",
                   type_=None).data),
        ("another SubFilter, adbe.x509.rsa_sha1",
         S(d).sign(pki.signer, kind="adbe.x509.rsa_sha1").data),
        ("universal signature forgery: /ByteRange renamed away (the "
         "dictionary is still /Type /Sig)",
         S(d).sign(pki.signer, tamper=lambda b: b.replace(
             b"/ByteRange [", b"/ByteRangX [", 1)).data),
        ("universal signature forgery: /Contents all zeros",
         S(d).sign(pki.signer, tamper=zero_contents).data),
        ("a /ByteRange reaching past the end of the file",
         S(d).sign(pki.signer, range_fn=lambda a, b, n: [
             0, a, b, n - b + 100]).data),
        ("a document timestamp, then one signed byte changed",
         S(d).timestamp(pki, tamper=lambda b: flip_at(
             b, b"Hello from pdfgen")).data),
        ("a /Contents of 300000 bytes (beyond is-pdf's 64 KiB dictionary)",
         S(d).sign(pki.signer, contents_len=150000).data),
    ]
    try:
        for name, base, nums in other_writers(ctx):
            items.append(("a %s base, signed" % name,
                          S(base, **nums).sign(pki.signer).data))
            items.append(("a %s base, signed twice" % name,
                          S(base, **nums).sign(pki.signer).sign(
                              pki.ec_signer).data))
    except Exception as e:  # noqa: BLE001 (the count check fails)
        sys.stderr.write("pikepdf: %s\n" % e)
    return items


# Disagreements with pdfsig: the plugin's answer, and why.
def disagreements(ctx, pki):
    d = pdfgen.PDF().build()
    S = sigpdf.Doc
    return [
        ("a ByteRange not starting at 0: the first byte is unsigned, so the "
         "file is not what was signed (pdfsig checks the signature over the "
         "stated range and calls it total when it reaches the end)",
         S(d).sign(pki.signer, range_fn=lambda a, b, n: [
             1, a - 1, b, n - b]).data, "0"),
        ("a /Type /Foo signature dictionary: ISO 32000 allows only /Sig or "
         "/DocTimeStamp, and the plugin does not guess what a dictionary "
         "that says otherwise is (pdfsig reads the field's /V whatever it "
         "says)",
         S(d).sign(pki.signer, type_=b"/Foo").data, "0"),
        ("/SubFilter named twice: keys are unique in ISO 32000 and readers "
         "differ on which one they take, so the plugin answers 0 (pdfsig "
         "takes one)",
         S(d).sign(pki.signer, sig_extra=b" /SubFilter /adbe.pkcs7.detached"
                   ).data, "0"),
    ]


def unanswerable(ctx, pki):
    d = sigpdf.Doc(pdfgen.PDF().build()).sign(pki.signer).data
    return [
        ("a signed file cut before its cross-reference section",
         d[:d.rindex(b"xref")]),
    ]


def big_pdf(ctx, pki, mib=16):
    """The largest test file: 20000 objects and a 16 MiB stream, signed
    (pdfgen.one_pass: PDF.build is quadratic)."""
    objs = pdfgen.basic_objects()
    objs += [b"<< /N %d /Note (filler) >>" % i for i in range(20000)]
    objs.append(pdfgen.stream_obj(bytes(range(256)) * (mib << 12)))
    return sigpdf.Doc(pdfgen.one_pass(objs, b"1.7")).sign(pki.signer).data


def cases(ctx):
    if not ctx.host:
        for t in ("pdfsig", "qpdf", "openssl"):
            yield Check("tool %s is installed" % t,
                        lambda t=t: (shutil.which(t) is not None, ""))
    pki = sigpdf.PKI(os.path.join(ctx.tmp, "pki"))
    made = corpus(ctx, pki)
    if not ctx.host:
        yield Check("the corpus has at least 15 files",
                    lambda: (len(made) >= 15, "%d files" % len(made)))
    paths = [ctx.file("sig-%02d.pdf" % i, data)
             for i, (desc, data) in enumerate(made)]
    # pdfsig is mostly start-up: ask it about every file at once
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        wants = list(pool.map(lambda p: reference(p, pki), paths))
    for (desc, data), path, want in zip(made, paths, wants):
        if want == "error":
            yield Check("reference reads %s" % desc,
                        lambda: (False, "the reference failed"))
            continue
        yield Case("%s (reference: %s)" % (desc, want), path, want)
    for i, (desc, data, mine) in enumerate(disagreements(ctx, pki)):
        path = ctx.file("dis-%02d.pdf" % i, data)
        want = reference(path, pki)
        yield Check("pdfsig disagrees on: %s" % desc,
                    lambda want=want, mine=mine: (
                        want != mine, "pdfsig %s, plugin expected %s"
                        % (want, mine)))
        yield Case("%s (pdfsig: %s)" % (desc, want), path, mine)
    # No reference reads a file that is not a PDF: by the question, 0.
    yield Case("a text file, not a PDF (by the question)",
               ctx.file("not-a-pdf.txt", b"plain text, no signature\n"), "0")
    for i, (desc, data) in enumerate(unanswerable(ctx, pki)):
        yield Case("no answer: " + desc, ctx.file("bad-%d.pdf" % i, data),
                   "error")
    if not ctx.host:
        big = ctx.file("big.pdf", big_pdf(ctx, pki))
        yield Check("pdfsig: the 16 MiB signed PDF is valid and total",
                    lambda: (reference(big, pki) == "1", ""))
        yield Case("the 16 MiB signed PDF in the sandbox, manifest limits",
                   big, "1", heavy=True)
        yield Case("the 16 MiB signed PDF under a 4 MiB memory limit",
                   big, "1", memory=4 << 20, heavy=True)
