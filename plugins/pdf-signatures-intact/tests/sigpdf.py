"""Signed PDFs for the pdf-signatures-intact tests, made here: a test CA
and its certificates (python3-cryptography), the signatures by `openssl
cms -sign` and document timestamps by `openssl ts -reply` over the byte
range, the structure written byte for byte as an incremental update
(a signature dictionary, a signature field, the catalog's /AcroForm and
the page's /Annots), so each test can break exactly one rule.

    pki = PKI(dir)                 # CA, signer, expired, self-signed, TSA
    doc = Doc(base_pdf_bytes)      # a PDF with an xref table or stream
    doc.sign(pki.signer)           # appends a signed revision
    doc.timestamp(pki)             # appends a document timestamp
    doc.append_update(...)         # appends an unsigned revision
    doc.data                       # the bytes
"""
import datetime
import os
import re
import subprocess

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

PLACE = b"[0 0000000000 0000000000 0000000000]"


def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


class Cred:
    def __init__(self, d, tag, key, cert, chain=()):
        self.key = os.path.join(d, tag + ".key")
        self.cert = os.path.join(d, tag + ".pem")
        self.chain = os.path.join(d, tag + "-chain.pem") if chain else None
        with open(self.key, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(self.cert, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        if chain:
            with open(self.chain, "wb") as f:
                for c in chain:
                    f.write(c.public_bytes(serialization.Encoding.PEM))


class PKI:
    def __init__(self, d):
        os.makedirs(d, exist_ok=True)
        self.dir = d
        now = datetime.datetime(2025, 1, 1)
        year = datetime.timedelta(days=365)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca = self._cert(_name("lockfile test CA"), ca_key.public_key(),
                        _name("lockfile test CA"), ca_key, now - year,
                        now + 20 * year, ca=True)

        def issued(tag, cn, key, start, end, eku=None):
            c = self._cert(_name(cn), key.public_key(), ca.subject, ca_key,
                           start, end, eku=eku)
            return Cred(d, tag, key, c, [ca])
        self.ca = Cred(d, "ca", ca_key, ca)
        self.signer = issued("signer", "Signer", rsa.generate_private_key(
            65537, 2048), now - year, now + 10 * year)
        self.ec_signer = issued("ec-signer", "EC signer",
                                ec.generate_private_key(ec.SECP256R1()),
                                now - year, now + 10 * year)
        self.expired = issued("expired", "Expired signer",
                              ec.generate_private_key(ec.SECP256R1()),
                              now - 3 * year, now - 2 * year)
        self.tsa = issued("tsa", "Test TSA",
                          ec.generate_private_key(ec.SECP256R1()),
                          now - year, now + 10 * year,
                          eku=ExtendedKeyUsageOID.TIME_STAMPING)
        sk = ec.generate_private_key(ec.SECP256R1())
        self.self_signed = Cred(d, "self", sk, self._cert(
            _name("Self-signed"), sk.public_key(), _name("Self-signed"), sk,
            now - year, now + year))
        self.other = issued("other", "Other signer",
                            ec.generate_private_key(ec.SECP256R1()),
                            now - year, now + 10 * year)
        with open(os.path.join(d, "serial"), "w") as f:
            f.write("01\n")
        self.ts_conf = os.path.join(d, "ts.cnf")
        with open(self.ts_conf, "w") as f:
            f.write("[tsa]\ndefault_tsa = tsa_config\n[tsa_config]\n"
                    "serial = %s\ndefault_policy = 1.2.3.4.1\n"
                    "digests = sha256, sha384, sha512\n"
                    "accuracy = secs:1\ness_cert_id_alg = sha256\n"
                    "signer_digest = sha256\n"
                    % os.path.join(d, "serial"))

    @staticmethod
    def _cert(subject, pub, issuer, key, start, end, ca=False, eku=None):
        b = (x509.CertificateBuilder().subject_name(subject)
             .issuer_name(issuer).public_key(pub)
             .serial_number(x509.random_serial_number())
             .not_valid_before(start).not_valid_after(end)
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None),
                            critical=True))
        if eku is not None:
            b = b.add_extension(x509.ExtendedKeyUsage([eku]), critical=True)
        return b.sign(key, hashes.SHA256())


def _run(cmd, data=None):
    p = subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (cmd[:3], p.stderr.decode()[-300:]))
    return p.stdout


def cms_sign(cred, content, cades=False):
    """A detached CMS SignedData (DER) over content."""
    cmd = ["openssl", "cms", "-sign", "-binary", "-outform", "DER",
           "-signer", cred.cert, "-inkey", cred.key, "-md", "sha256"]
    if cred.chain:
        cmd += ["-certfile", cred.chain]
    if cades:
        cmd.append("-cades")
    return _run(cmd, content)


def ts_token(pki, content, d):
    """An RFC 3161 timestamp token (CMS SignedData of a TSTInfo)."""
    q = os.path.join(d, "q.tsq")
    data = os.path.join(d, "q.data")
    with open(data, "wb") as f:
        f.write(content)
    _run(["openssl", "ts", "-query", "-data", data, "-sha256", "-cert",
          "-no_nonce", "-out", q])
    return _run(["openssl", "ts", "-reply", "-config", pki.ts_conf,
                 "-queryfile", q, "-signer", pki.tsa.cert, "-inkey",
                 pki.tsa.key, "-chain", pki.tsa.chain, "-token_out",
                 "-out", "/dev/stdout"])


class Doc:
    def __init__(self, base, root=1, pages=2, page=3, contents=4):
        self.root, self.pages, self.pg, self.contents = \
            root, pages, page, contents
        self.data = bytes(base)
        self.size = int(re.findall(rb"/Size (\d+)", self.data)[-1])
        self.fields = []

    def prev(self):
        return int(re.findall(rb"startxref\s+(\d+)", self.data)[-1])

    def _update(self, objects):
        """Append objects {num: body} and an xref table section."""
        out = bytearray(self.data)
        if not out.endswith(b"\n"):
            out += b"\n"
        offs = {}
        for num in sorted(objects):
            offs[num] = len(out)
            out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 1\n0000000000 65535 f \n"
        for num in sorted(offs):
            out += b"%d 1\n%010d 00000 n \n" % (num, offs[num])
        size = max([self.size] + [n + 1 for n in objects])
        out += (b"trailer\n<< /Size %d /Root %d 0 R /Prev %d >>\n"
                b"startxref\n%d\n%%%%EOF\n" % (size, self.root,
                                                  self.prev(), xref))
        self.size = size
        self.data = bytes(out)

    def catalog(self, extra=b""):
        fields = b" ".join(b"%d 0 R" % f for f in self.fields)
        return (b"<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [%s] "
                b"/SigFlags 3 >>%s >>" % (self.pages, fields, extra))

    def page(self):
        annots = b" ".join(b"%d 0 R" % f for f in self.fields)
        return (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Contents %d 0 R /Annots [%s] >>"
                % (self.pages, self.contents, annots))

    def sign(self, cred=None, pki=None, kind="adbe.pkcs7.detached",
             contents_len=8192, sig_extra=b"", catalog_extra=b"",
             tamper=None, range_fn=None, byterange_key=b"/ByteRange",
             type_=b"/Sig", hex_prefix=b"", gap_key=b"/Contents"):
        """Append a revision with one signature (or, for ETSI.RFC3161, a
        document timestamp). tamper(data) may change the signed bytes
        after signing; range_fn(a, b, size) may return another
        ByteRange to write and sign."""
        sig, field = self.size, self.size + 1
        self.fields.append(field)
        sd = (b"<< %s/Filter /Adobe.PPKLite /SubFilter /%s "
              b"%s %s %s <%s> /M (D:20250101000000Z)%s >>"
              % (b"/Type %s " % type_ if type_ else b"", kind.encode(),
                 byterange_key, PLACE, gap_key,
                 b"0" * (2 * contents_len), sig_extra))
        if gap_key != b"/Contents":
            sd = sd[:-2] + b"/Contents <00> >>"
        objs = {
            self.root: self.catalog(catalog_extra),
            self.pg: self.page(),
            sig: sd,
            field: (b"<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig%d) "
                    b"/V %d 0 R /F 132 /Rect [0 0 0 0] /P %d 0 R >>"
                    % (len(self.fields), sig, self.pg)),
        }
        self._update(objs)
        d = self.data
        at = d.rindex(b"%d 0 obj\n" % sig)
        a = d.index(gap_key + b" <", at) + len(gap_key) + 1
        b = a + 2 + 2 * contents_len
        rng = [0, a, b, len(d) - b]
        if range_fn is not None:
            rng = range_fn(a, b, len(d))
        text = b"[%d %d %d %d]" % tuple(rng)
        text = text[:-1] + b" " * (len(PLACE) - len(text)) + b"]"
        p = d.index(PLACE, at)
        d = d[:p] + text + d[p + len(PLACE):]
        content = d[rng[0]:rng[0] + rng[1]] + d[rng[2]:rng[2] + rng[3]]
        if kind == "ETSI.RFC3161":
            der = ts_token(pki, content, pki.dir)
        else:
            der = cms_sign(cred, content, kind == "ETSI.CAdES.detached")
        hexd = hex_prefix + der.hex().encode()
        if len(hexd) > 2 * contents_len:
            raise RuntimeError("signature larger than its placeholder")
        d = d[:a + 1] + hexd + d[a + 1 + len(hexd):]
        self.data = tamper(d) if tamper else d
        return self

    def timestamp(self, pki, **kw):
        return self.sign(pki=pki, kind="ETSI.RFC3161", type_=b"/DocTimeStamp",
                         **kw)

    def append_update(self, objects=None):
        """An unsigned revision after the signatures (form data, a DSS)."""
        self._update(objects or {self.pg: self.page()[:-2] +
                                 b"/Rotate 90 >>"})
        return self
