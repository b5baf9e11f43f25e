#!/usr/bin/python3
"""Write the seed corpus of fuzz_passkey (tests/fuzz/corpus/passkey): one
CARD, DECISION-PK and DECISION-P, both COSE keys, a registration and an
assertion of each algorithm, prefixed by the byte that picks the parser
(tests/fuzz/fuzz_passkey.c). Signatures are dummies where the fuzzer only
reads the framing."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "hub"))
import softpasskey as sp  # noqa: E402

OUT = os.path.join(HERE, "..", "fuzz", "corpus", "passkey")
RP, ORIGIN = "localhost", "https://localhost:8443"


def f(b):
    return struct.pack(">I", len(b)) + b


def lst(items):
    return f(struct.pack(">I", len(items)) + b"".join(f(f(i)) for i in items))


def hdr(magic):
    return magic + struct.pack(">H", 1)


def u16(b):
    return struct.pack(">H", len(b)) + b


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    seeds["card-0"] = b"\0" + hdr(b"LHCARDLN") + f(b"box-1") + \
        f(b"t_" + b"0" * 32) + f(bytes(32)) + \
        lst([b"Approve this plan?", b"", b"  key: a.pdf"]) + f(bytes(64))
    k = sp.SoftPasskey("es256")
    e = sp.SoftPasskey("eddsa")
    hs = [bytes(32)]
    chal = sp.decision_challenge(1, 0, hs)
    ad, cdj, sig = k.assertion(RP, ORIGIN, chal, counter=1)
    pk = hdr(b"LHDECPKY") + f(b"\1") + f(struct.pack(">I", 0)) + \
        lst(hs) + f(k.id) + f(k.cred_id) + f(ad) + f(cdj) + f(sig)
    seeds["pk-0"] = b"\1" + pk
    hub = hdr(b"LHDECHUB") + f(bytes(32)) * 2 + f(b"t_" + b"0" * 32) + \
        f(b"alice") + f(struct.pack(">I", 1)) + f(bytes(8)) + f(bytes(64))
    seeds["decp-0"] = b"\2" + hdr(b"LHDECPSK") + f(pk) + f(hub)
    seeds["cose-es256"] = b"\3" + k.cose
    seeds["cose-eddsa"] = b"\3" + e.cose
    for key in (k, e):
        att, rcdj = key.register(RP, ORIGIN, bytes([100]) + bytes(31))
        seeds["reg-" + key.alg] = b"\4" + u16(att) + u16(rcdj)
        ad, cdj, sig = key.assertion(RP, ORIGIN, chal, counter=2)
        seeds["assert-" + key.alg] = b"\5" + u16(ad) + u16(cdj) + u16(sig)
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as fh:
            fh.write(data)


main()
