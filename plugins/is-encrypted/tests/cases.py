"""is-encrypted cases: a corpus built here at run time, each file answered
by its reference as well as by the plugin (a differential test):
  PDF   qpdf --is-encrypted (exit 0 encrypted, 2 not), on files written by
        ghostscript, qpdf (RC4 40/128, AES-128/256, owner-only, object
        streams, linearized, decrypted) and pikepdf;
  ZIP   Python's zipfile (flag bit 0 of any entry), on archives written by
        zip(1) (-P: ZipCrypto), Python's zipfile (plain, stored, ZIP64,
        a self-extracting stub, a WinZip AES layout patched in) and ODF
        packages whose META-INF/manifest.xml ElementTree searches for
        encryption-data;
  OLE   olefile (a stream EncryptedPackage under the root), on compound
        files cfbgen.py writes (Debian's msoffcrypto-tool 5.0 decrypts
        only: no encrypting writer of OOXML is packaged here).
Then what has no reference: files malformed enough for no answer, and the
largest file, a 5 GiB sparse ZIP, in the sandbox within the manifest's
limits."""
import io
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import xml.etree.ElementTree as ET

from harness import Case, Check

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cfbgen  # noqa: E402

TOOLS = ("qpdf", "gs", "zip")
PYMODS = ("pikepdf", "olefile")
CFB_SIG = cfbgen.SIG

POSTSCRIPT = b"""%!PS
/Helvetica findfont 24 scalefont setfont
72 720 moveto (lockfile is-encrypted test) show showpage
"""

ODF_NS = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, timeout=120, **kw)


def reference(path):
    """The reference's answer: "1", "0", or "error" (it cannot read it)."""
    with open(path, "rb") as f:
        head = f.read(1024)
    if head[:4] == b"PK\x03\x04":
        return ref_zip(path)
    if head[:8] == CFB_SIG:
        import olefile
        try:
            ole = olefile.OleFileIO(path)
        except Exception:
            return "error"
        ok = ole.exists("EncryptedPackage") and \
            ole.get_type("EncryptedPackage") == olefile.STGTY_STREAM
        return "1" if ok else "0"
    if b"%PDF-" in head:
        rc = subprocess.run(["qpdf", "--is-encrypted", path],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        return {0: "1", 2: "0"}.get(rc, "error")
    if zipfile.is_zipfile(path):
        return ref_zip(path)
    return "0"


def ref_zip(path):
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if any(i.flag_bits & 1 for i in infos):
                return "1"
            if "META-INF/manifest.xml" not in z.namelist():
                return "0"
            root = ET.fromstring(z.read("META-INF/manifest.xml"))
    except Exception:
        return "error"
    for el in root.iter():
        if el.tag.rsplit("}", 1)[-1] == "encryption-data":
            return "1"
    return "0"


def pdfs(ctx):
    """(name, path) written by gs, qpdf and pikepdf."""
    d = ctx.tmp
    out = []

    def made(name, cmd):
        path = os.path.join(d, name)
        if run(cmd).returncode in (0, 3) and os.path.exists(path):
            os.chmod(path, 0o644)
            out.append((name, path))
    ps = ctx.file("in.ps", POSTSCRIPT)
    src = os.path.join(d, "gs.pdf")
    made("gs.pdf", ["gs", "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH",
                    "-sDEVICE=pdfwrite", "-sOutputFile=" + src, ps])
    weak = ["--allow-weak-crypto"]
    for name, args in [
        ("qpdf-aes256.pdf", ["--encrypt", "u", "o", "256", "--"]),
        ("qpdf-aes128.pdf", ["--encrypt", "u", "o", "128", "--use-aes=y",
                             "--"]),
        ("qpdf-rc4-128.pdf", weak + ["--encrypt", "u", "o", "128",
                                     "--use-aes=n", "--"]),
        ("qpdf-rc4-40.pdf", weak + ["--encrypt", "u", "o", "40", "--"]),
        ("qpdf-owner-only.pdf", ["--encrypt", "", "owner", "256", "--"]),
        ("qpdf-aes256-objstm.pdf", ["--object-streams=generate",
                                    "--encrypt", "u", "o", "256", "--"]),
        ("qpdf-aes256-linear.pdf", ["--linearize", "--encrypt", "u", "o",
                                    "256", "--"]),
        ("qpdf-objstm.pdf", ["--object-streams=generate"]),
        ("qpdf-linear.pdf", ["--linearize"]),
    ]:
        made(name, ["qpdf"] + args + [src, os.path.join(d, name)])
    made("qpdf-decrypted.pdf", ["qpdf", "--password=u", "--decrypt",
                                os.path.join(d, "qpdf-aes256.pdf"),
                                os.path.join(d, "qpdf-decrypted.pdf")])
    try:
        import pikepdf
        for name, enc in [("pikepdf-plain.pdf", None),
                          ("pikepdf-owner.pdf",
                           pikepdf.Encryption(owner="o", user="")),
                          ("pikepdf-r4.pdf", pikepdf.Encryption(
                              owner="o", user="u", R=4))]:
            p = os.path.join(d, name)
            with pikepdf.open(src) as pdf:
                pdf.save(p, encryption=enc or False)
            os.chmod(p, 0o644)
            out.append((name, p))
    except Exception as e:  # noqa: BLE001 (a missing pikepdf fails below)
        sys.stderr.write("pikepdf: %s\n" % e)
    return out


def zip_bytes(members, **kw):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", **kw) as z:
        for name, data, method in members:
            z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data,
                       compress_type=method)
    return b.getvalue()


def zip64_bytes(members):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for name, data, method in members:
            zi = zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0))
            zi.compress_type = method
            with z.open(zi, "w", force_zip64=True) as f:
                f.write(data)
    return b.getvalue()


def patch_flags(data, bit=1, method=None):
    """Set a flag bit (and a method) in every local and central header."""
    b = bytearray(data)
    for sig, fl, me in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        i = b.find(sig)
        while i >= 0:
            b[i + fl] |= bit
            if method is not None:
                b[i + me:i + me + 2] = struct.pack("<H", method)
            i = b.find(sig, i + 4)
    return bytes(b)


def manifest_xml(encrypted, prefix="manifest"):
    enc = ""
    if encrypted:
        enc = ('<%s:encryption-data %s:checksum-type="SHA1/1K" '
               '%s:checksum="AAAA"><%s:algorithm %s:algorithm-name='
               '"Blowfish CFB" %s:initialisation-vector="AAAA"/>'
               '</%s:encryption-data>' % ((prefix,) * 7))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<%s:manifest '
            'xmlns:%s="%s" %s:version="1.2"><%s:file-entry %s:full-path="/" '
            '%s:media-type="application/vnd.oasis.opendocument.text"/>'
            '<%s:file-entry %s:full-path="content.xml" %s:media-type='
            '"text/xml">%s</%s:file-entry></%s:manifest>' % (
                prefix, prefix, ODF_NS, prefix, prefix, prefix, prefix,
                prefix, prefix, prefix, enc, prefix, prefix)).encode()


def odf(manifest, method=zipfile.ZIP_DEFLATED):
    return zip_bytes([
        ("mimetype", b"application/vnd.oasis.opendocument.text",
         zipfile.ZIP_STORED),
        ("content.xml", b"<office:document-content/>" * 20,
         zipfile.ZIP_DEFLATED),
        ("META-INF/manifest.xml", manifest, method)])


def zips(ctx):
    """(name, bytes) of ZIP-based files."""
    plain = [("a.txt", b"hello " * 1000, zipfile.ZIP_DEFLATED),
             ("b.bin", bytes(range(256)) * 10, zipfile.ZIP_STORED)]
    z = zip_bytes(plain)
    out = [
        ("zipfile-deflated.zip", z),
        ("zipfile-stored.zip", zip_bytes([(n, d, zipfile.ZIP_STORED)
                                          for n, d, _ in plain])),
        ("zipfile-empty.zip", zip_bytes([])),
        ("zipfile-forced-zip64.zip", zip64_bytes(plain)),
        ("zipfile-flagged-zipcrypto.zip", patch_flags(z)),
        ("zipfile-winzip-aes-layout.zip", patch_flags(
            zip_bytes([("a.txt", b"x" * 100, zipfile.ZIP_STORED)]),
            method=99)),
        ("sfx-stub-plain.zip", b"MZ" + b"\x00" * 4000 + z),
        ("sfx-stub-flagged.zip", b"MZ" + b"\x00" * 4000 + patch_flags(z)),
        ("zip-comment.zip", z[:-2] + struct.pack("<H", 300) + b"c" * 300),
        ("odf-encrypted.odt", odf(manifest_xml(True))),
        ("odf-encrypted-stored-manifest.odt", odf(manifest_xml(True),
                                                  zipfile.ZIP_STORED)),
        ("odf-encrypted-prefix-m.odt", odf(manifest_xml(True, "m"))),
        ("odf-plain.odt", odf(manifest_xml(False))),
        ("ooxml-plain.docx", zip_bytes([
            ("[Content_Types].xml", b"<Types/>", zipfile.ZIP_DEFLATED),
            ("word/document.xml", b"<w:document/>", zipfile.ZIP_DEFLATED)])),
        ("jar-plain.jar", zip_bytes([
            ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\n",
             zipfile.ZIP_DEFLATED)])),
    ]
    # zip(1): real ZipCrypto, with and without a password.
    t = ctx.file("zip-in.txt", b"secret text\n" * 100)
    for name, args in (("infozip-zipcrypto.zip", ["-P", "pw"]),
                       ("infozip-plain.zip", [])):
        p = os.path.join(ctx.tmp, name)
        if run(["zip", "-q", "-j"] + args + [p, t]).returncode == 0:
            with open(p, "rb") as f:
                out.append((name, f.read()))
    return out


def cfbs(ctx):
    """(name, bytes) of compound files."""
    pkg = [("EncryptionInfo", "stream", b"\x04\x00\x04\x00" + b"i" * 100),
           ("EncryptedPackage", "stream", b"p" * 6000)]
    out = [
        ("cfb-encrypted-package-v3.docx", cfbgen.build(pkg)),
        ("cfb-encrypted-package-v4.docx", cfbgen.build(pkg, 4)),
        ("cfb-lowercase-name.docx", cfbgen.build([
            ("encryptedpackage", "stream", b"p" * 5000)])),
        ("cfb-word97-plain.doc", cfbgen.build([
            ("WordDocument", "stream", b"w" * 5000),
            ("1Table", "stream", b"t" * 5000)])),
        ("cfb-package-as-storage.doc", cfbgen.build([
            ("EncryptedPackage", "storage", [("X", "stream", b"x")])])),
        ("cfb-package-nested.doc", cfbgen.build([
            ("Sub", "storage", [("EncryptedPackage", "stream", b"p")])])),
    ]
    return out


def others():
    return [("text.txt", b"plain text, not encrypted\n" * 10),
            ("empty", b""),
            ("png.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100),
            ("zip-word-in-text.txt", b"a text that says PK and PDF\n")]


def malformed(made):
    """(desc, bytes): a PDF, ZIP or compound file too broken to follow."""
    z = dict(made)["zipfile-deflated.zip"]
    cd = z.index(b"PK\x01\x02")
    o = odf(manifest_xml(True))
    m = o.index(b"META-INF/manifest.xml") + len("META-INF/manifest.xml")
    c = dict(made)["cfb-encrypted-package-v3.docx"]
    return [
        ("a PDF without its cross-reference section",
         b"%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n"),
        ("a ZIP whose central directory is cut",
         z[:cd] + z[cd + 10:]),
        ("a ZIP whose central directory signature is wrong",
         z[:cd] + b"PK\x09\x09" + z[cd + 4:]),
        ("an ODF whose deflated manifest is garbage",
         o[:m] + bytes(b ^ 0x5a for b in o[m:m + 40]) + o[m + 40:]),
        ("a compound file with a byte-order mark other than FFFE",
         c[:0x1c] + b"\xff\xff" + c[0x1e:]),
        ("a compound file whose directory chain points outside",
         c[:0x30] + struct.pack("<I", 999999) + c[0x34:]),
        ("a compound file cut after its header", c[:600]),
    ]


def big_zip(ctx):
    """A 5 GiB sparse ZIP64: one stored entry of 5 GiB of zeros (a hole;
    sizes in its ZIP64 extra field), then an entry flagged encrypted whose
    local header is past 4 GiB (offset in its ZIP64 extra field), then the
    ZIP64 end records."""
    size = 5 << 30
    crc = 0     # not checked by anyone here: nothing inflates or reads it

    def lfh(name, flags, n32, extra):
        return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45, flags, 0, 0,
                           0, crc, n32, n32, len(name), len(extra)) + \
            name + extra

    def cdh(name, flags, n32, off32, extra):
        return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45,
                           flags, 0, 0, 0, crc, n32, n32, len(name),
                           len(extra), 0, 0, 0, 0, off32) + name + extra
    big = lfh(b"big.bin", 0, 0xFFFFFFFF, struct.pack("<HHQQ", 1, 16, size,
                                                      size))
    at2 = len(big) + size
    small = lfh(b"x.txt", 1, 4, b"") + b"tiny"
    cdo = at2 + len(small)
    cd = cdh(b"big.bin", 0, 0xFFFFFFFF, 0,
             struct.pack("<HHQQ", 1, 16, size, size)) + \
        cdh(b"x.txt", 1, 4, 0xFFFFFFFF, struct.pack("<HHQ", 1, 8, at2))
    eocd64 = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, 2,
                         2, len(cd), cdo)
    loc = struct.pack("<4sIQI", b"PK\x06\x07", 0, cdo + len(cd), 1)
    eocd = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF,
                       0xFFFFFFFF, 0xFFFFFFFF, 0)
    tail = small + cd + eocd64 + loc + eocd
    return ctx.sparse("big-5gib.zip", at2 + len(tail),
                      [(0, big), (at2, tail)])


def cases(ctx):
    if not ctx.host:
        for t in TOOLS:
            yield Check("tool %s is installed (scripts/install-deps.d/"
                        "plugins.sh)" % t,
                        lambda t=t: (shutil.which(t) is not None, ""))
        for m in PYMODS:
            def have(m=m):
                try:
                    __import__(m)
                    return True, ""
                except ImportError as e:
                    return False, str(e)
            yield Check("python module %s is installed" % m, have)
    made = [(n, p) for n, p in pdfs(ctx)]
    for n, data in zips(ctx) + cfbs(ctx) + others():
        made.append((n, ctx.file(n, data)))
    if not ctx.host:
        yield Check("the corpus has at least 40 files from the tools",
                    lambda: (len(made) >= 40, "%d files" % len(made)))
    # The differential: the reference's answer is the expected one.
    for name, path in made:
        want = reference(path)
        if want == "error":
            yield Check("reference reads %s" % name,
                        lambda: (False, "the reference failed"))
            continue
        yield Case("%s (reference: %s)" % (name, want), path, want)
    for i, (desc, data) in enumerate(malformed(
            [(n, open(p, "rb").read()) for n, p in made])):
        yield Case("no answer: " + desc, ctx.file("bad-%d" % i, data),
                   "error")
    if not ctx.host:
        big = big_zip(ctx)
        yield Check("reference (zipfile) reads the 5 GiB sparse ZIP",
                    lambda: (ref_zip(big) == "1", ref_zip(big)))
        yield Case("the 5 GiB sparse ZIP64 in the sandbox, manifest limits",
                   big, "1", heavy=True)
        yield Case("the 5 GiB sparse ZIP64 under a 2 MiB memory limit",
                   big, "1", memory=2 << 20, heavy=True)
