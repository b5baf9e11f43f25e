"""cardwire: the phone page's layouts in Python, a second implementation
beside src/hubwire (docs/hub.md, "Approving from a phone"; the contract is
CARD `LHCARDLN`, DECISION-PK `LHDECPKY`, DECISION-P `LHDECPSK`), and a
checker of a passkey decision's WebAuthn assertion with `cryptography`
(ES256 and EdDSA), so the tests check what the hub filed without trusting
the hub's C.

    card = enc_card("inst", ticket_id, h(ticket_bytes), ["line", ...], inst_sk)
    pk, hub = dec_decp(body); d = dec_decpk(pk)
    check_assertion(d, cose, rp_id, origin)
"""
import hashlib
import json
import struct

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

import hubwire
from hubwire import Reader, field, lst, sign, text, u32, u8

M_CARD = b"LHCARDLN"
M_DECPK = b"LHDECPKY"
M_DECP = b"LHDECPSK"
DOMAIN = b"lockhub/passkey/v1/decision"
ID_DOMAIN = b"lockhub/passkey/v1/id"


def header(magic):
    return magic + struct.pack(">H", 1)


def enc_card(instance, ticket_id, ticket_hash, lines, sk):
    msg = (header(M_CARD) + text(instance) + text(ticket_id) +
           field(ticket_hash) + lst([text(l) for l in lines]))
    return sign(msg, sk)


def dec_card(b):
    r = Reader(b)
    r.header(M_CARD)
    out = {"instance": r.text(), "id": r.text(), "hash": r.field()}
    out["lines"] = [i.text() for i in r.items()]
    out["sig"] = r.sig()
    r.end()
    return out


def dec_decpk(b):
    r = Reader(b)
    r.header(M_DECPK)
    d = {"verdict": r.u8(), "minutes": r.u32()}
    d["hashes"] = []
    for ir in r.items():
        d["hashes"].append(ir.fixed(32))
        ir.end()
    d["passkey_id"] = r.field()
    d["cred"] = r.field()
    d["authdata"] = r.field()
    d["cdj"] = r.field()
    d["sig"] = r.field()
    r.end()
    return d


def dec_decp(b):
    r = Reader(b)
    r.header(M_DECP)
    pk, hub = r.field(), r.field()
    r.end()
    return pk, hub


def challenge(verdict, minutes, hashes):
    return hashlib.sha256(DOMAIN + b"\0" + bytes([verdict]) +
                          struct.pack(">II", minutes, len(hashes)) +
                          b"".join(hashes)).digest()


# ---- COSE keys (a minimal CBOR reader: maps of int keys, ints, bytes) ----

def _cbor(b, o):
    ib = b[o]
    major, info = ib >> 5, ib & 31
    o += 1
    if info < 24:
        val = info
    elif info in (24, 25, 26, 27):
        n = 1 << (info - 24)
        val = int.from_bytes(b[o:o + n], "big")
        o += n
    else:
        raise ValueError("cbor")
    if major == 0:
        return val, o
    if major == 1:
        return -1 - val, o
    if major in (2, 3):
        return b[o:o + val], o + val
    if major == 5:
        m = {}
        for _ in range(val):
            k, o = _cbor(b, o)
            v, o = _cbor(b, o)
            m[k] = v
        return m, o
    raise ValueError("cbor major %d" % major)


def cose_public_key(cose):
    m, o = _cbor(cose, 0)
    assert o == len(cose)
    if m[3] == -7:
        return ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), b"\x04" + m[-2] + m[-3])
    if m[3] == -8:
        return ed25519.Ed25519PublicKey.from_public_bytes(m[-2])
    raise ValueError("alg")


def passkey_id(cose):
    return hashlib.blake2b(ID_DOMAIN + cose, digest_size=32).digest()


def cose_from_text(t):
    assert t.startswith("cose:")
    return hubwire.b64d(t[5:])


def check_assertion(d, cose, rp_id, origin):
    """What the console checks of a DECISION-PK's WebAuthn part; raises
    AssertionError or InvalidSignature."""
    cd = json.loads(d["cdj"])
    assert cd["type"] == "webauthn.get", cd
    want = challenge(d["verdict"], d["minutes"], d["hashes"])
    assert hubwire.b64d(cd["challenge"]) == want, "challenge"
    assert cd["origin"] == origin, cd["origin"]
    assert not cd.get("crossOrigin", False)
    ad = d["authdata"]
    assert ad[:32] == hashlib.sha256(rp_id.encode()).digest(), "rpIdHash"
    assert ad[32] & 0x01 and ad[32] & 0x04, "UP and UV"
    assert d["passkey_id"] == passkey_id(cose)
    signed = ad + hashlib.sha256(d["cdj"]).digest()
    key = cose_public_key(cose)
    if isinstance(key, ed25519.Ed25519PublicKey):
        key.verify(d["sig"], signed)
    else:
        key.verify(d["sig"], signed, ec.ECDSA(hashes.SHA256()))
    return True


__all__ = ["enc_card", "dec_card", "dec_decpk", "dec_decp", "challenge",
           "cose_public_key", "passkey_id", "cose_from_text",
           "check_assertion", "InvalidSignature", "u8", "u32"]
