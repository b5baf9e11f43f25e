"""A software WebAuthn authenticator and page, for tests only (docs/hub.md,
"Passkeys"): makes the registrations and assertions a browser would send,
ES256 (P-256) or EdDSA (Ed25519), with `cryptography`, and lets a test
spoil any one part (type, challenge, origin, crossOrigin, rpIdHash, the UP
and UV flags, the signature, trailing bytes). The contract's challenge and
passkey id are computed here a second time, independently of the C code."""
import base64
import hashlib
import json
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

ID_DOMAIN = b"lockhub/passkey/v1/id"
DEC_DOMAIN = b"lockhub/passkey/v1/decision"


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


# ---- a minimal CBOR encoder (what WebAuthn uses: ints, bytes, text, maps)

def _head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    if n < 0x100:
        return bytes([major << 5 | 24, n])
    if n < 0x10000:
        return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if n < 0x100000000:
        return bytes([major << 5 | 26]) + struct.pack(">I", n)
    return bytes([major << 5 | 27]) + struct.pack(">Q", n)


def cbor(x):
    if isinstance(x, bool):
        return b"\xf5" if x else b"\xf4"
    if isinstance(x, int):
        return _head(0, x) if x >= 0 else _head(1, -1 - x)
    if isinstance(x, bytes):
        return _head(2, len(x)) + x
    if isinstance(x, str):
        e = x.encode()
        return _head(3, len(e)) + e
    if isinstance(x, list):  # a map given as pairs, in this order
        return _head(5, len(x)) + b"".join(cbor(k) + cbor(v) for k, v in x)
    raise TypeError(type(x))


def decision_challenge(verdict, mute, hashes_):
    return hashlib.sha256(DEC_DOMAIN + b"\0" + bytes([verdict]) +
                          struct.pack(">II", mute, len(hashes_)) +
                          b"".join(hashes_)).digest()


def passkey_id(cose):
    return hashlib.blake2b(ID_DOMAIN + cose, digest_size=32).digest()


class SoftPasskey:
    def __init__(self, alg="es256", seed=1):
        self.alg = alg
        if alg == "es256":
            self.sk = ec.derive_private_key(0x1000 + seed, ec.SECP256R1())
            n = self.sk.public_key().public_numbers()
            self.cose = cbor([(1, 2), (3, -7), (-1, 1),
                              (-2, n.x.to_bytes(32, "big")),
                              (-3, n.y.to_bytes(32, "big"))])
        else:
            self.sk = ed25519.Ed25519PrivateKey.from_private_bytes(
                bytes([seed]) * 32)
            from cryptography.hazmat.primitives import serialization as s
            x = self.sk.public_key().public_bytes(s.Encoding.Raw,
                                                  s.PublicFormat.Raw)
            self.cose = cbor([(1, 1), (3, -8), (-1, 6), (-2, x)])
        self.cred_id = hashlib.sha256(b"cred" + self.cose).digest()
        self.counter = 0

    @property
    def id(self):
        return passkey_id(self.cose)

    def text(self):
        return "cose:" + b64u(self.cose)

    def sign(self, data):
        if self.alg == "es256":
            return self.sk.sign(data, ec.ECDSA(hashes.SHA256()))
        return self.sk.sign(data)

    @staticmethod
    def client_data(type_, challenge, origin, cross=None, extra=None):
        d = {"type": type_, "challenge": b64u(challenge), "origin": origin}
        if cross is not None:
            d["crossOrigin"] = cross
        if extra:
            d.update(extra)
        return json.dumps(d, separators=(",", ":")).encode()

    def authdata(self, rp_id, flags, counter, attested=b""):
        return (hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) +
                struct.pack(">I", counter) + attested)

    def register(self, rp_id, origin, challenge, flags=0x45):
        cdj = self.client_data("webauthn.create", challenge, origin)
        att = (b"\0" * 16 + struct.pack(">H", len(self.cred_id)) +
               self.cred_id + self.cose)
        ad = self.authdata(rp_id, flags, 0, att)
        obj = cbor([("fmt", "none"), ("attStmt", []), ("authData", ad)])
        return obj, cdj

    def assertion(self, rp_id, origin, challenge, counter=None, flags=0x05,
                  type_="webauthn.get", cross=None, sign_rp=None,
                  bad_sig=False, trailing=b"", signer=None):
        """authenticatorData, clientDataJSON, signature. counter None:
        the next one (counter 0 stays 0: a synced passkey)."""
        if counter is None:
            self.counter += 1
            counter = self.counter
        cdj = self.client_data(type_, challenge, origin, cross)
        ad = self.authdata(sign_rp or rp_id, flags, counter) + trailing
        sig = (signer or self).sign(ad + hashlib.sha256(cdj).digest())
        if bad_sig:
            sig = bytearray(sig)
            sig[-1] ^= 1
            sig = bytes(sig)
        return ad, cdj, sig
