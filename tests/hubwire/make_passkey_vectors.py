#!/usr/bin/python3
"""Write tests/hubwire/passkey_vectors.txt: registrations and assertions by
the software authenticator (tests/hub/softpasskey.py), ES256 and EdDSA, a
good one each and one spoiled in each way the console must refuse, with
the pk_status name the C code must answer (test_passkey reads it).

    /usr/bin/python3 tests/hubwire/make_passkey_vectors.py > tests/hubwire/passkey_vectors.txt

ES256 signatures are randomised: regenerating changes the bytes, not the
verdicts."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "hub"))
import softpasskey as sp  # noqa: E402

RP, ORIGIN = "localhost", "https://localhost:8443"
H1, H2 = bytes(range(32)), bytes(range(32, 64))


def line(*parts):
    print(" ".join(parts))


def keys():
    es, ed = sp.SoftPasskey("es256"), sp.SoftPasskey("eddsa")
    for name, k in (("es256", es), ("eddsa", ed)):
        line("key", name, "ok", k.cose.hex(), k.id.hex(), k.text())
    x = es.cose[10:42]
    y = es.cose[45:77]
    edx = ed.cose[10:42]
    bad = {
        "trailing": es.cose + b"\0",
        "crv-p384": sp.cbor([(1, 2), (3, -7), (-1, 2), (-2, x), (-3, y)]),
        "alg-es384": sp.cbor([(1, 2), (3, -35), (-1, 1), (-2, x), (-3, y)]),
        "extra-label": sp.cbor([(1, 2), (3, -7), (-1, 1), (-2, x), (-3, y),
                                (-4, b"")]),
        "dup-label": sp.cbor([(1, 2), (3, -7), (-1, 1), (-2, x), (-2, y)]),
        "short-x": sp.cbor([(1, 2), (3, -7), (-1, 1), (-2, x[1:]), (-3, y)]),
        "off-curve": sp.cbor([(1, 2), (3, -7), (-1, 1), (-2, x),
                              (-3, bytes(32))]),
        "okp-with-y": sp.cbor([(1, 1), (3, -8), (-1, 6), (-2, edx),
                               (-3, edx)]),
        "okp-x25519": sp.cbor([(1, 1), (3, -8), (-1, 4), (-2, edx)]),
        "text-label": sp.cbor([(1, 1), ("3", -8), (-1, 6), (-2, edx)]),
        "array": b"\x84\x01\x01\x03\x27",
        "rsa": sp.cbor([(1, 3), (3, -257), (-1, b"\1"), (-2, b"\1\0\1")]),
    }
    for name, c in bad.items():
        line("key", name, "key", c.hex(), "-", "-")
    return es, ed


def assertions(k, other):
    chal = sp.decision_challenge(1, 0, [H1, H2])
    deny = sp.decision_challenge(0, 0, [H1, H2])
    kc = k.cose.hex()
    cases = {
        "good": ("ok", dict(counter=7)),
        "good-counter0": ("ok", dict(counter=0)),
        "wrong-type": ("type", dict(type_="webauthn.create")),
        "wrong-challenge": ("challenge", dict(challenge=deny)),
        "wrong-origin": ("origin", dict(origin="https://evil.example")),
        "cross-origin": ("origin", dict(cross=True)),
        "wrong-rpidhash": ("rp", dict(sign_rp="evil.example")),
        "up-off": ("no-up", dict(flags=0x04)),
        "uv-off": ("no-uv", dict(flags=0x01)),
        "bad-signature": ("signature", dict(bad_sig=True)),
        "trailing-authdata": ("format", dict(trailing=b"\0")),
        "at-flag": ("format", dict(flags=0x45)),
        "other-signer": ("signature", dict(signer=other)),
    }
    for name, (status, kw) in cases.items():
        c = kw.pop("challenge", chal)
        o = kw.pop("origin", ORIGIN)
        ad, cdj, sig = k.assertion(RP, o, c, **kw)
        counter = str(kw.get("counter", 0)) if status == "ok" else "0"
        line("assert", k.alg + "-" + name, status, counter, kc, RP, ORIGIN,
             chal.hex(), ad.hex(), cdj.hex(), sig.hex())
    ad, cdj, sig = k.assertion(RP, ORIGIN, chal, counter=3)
    line("assert", k.alg + "-trailing-cdj", "format", "0", kc, RP, ORIGIN,
         chal.hex(), ad.hex(), (cdj + b" x").hex(), sig.hex())
    # The other algorithm's key pinned: the signature does not verify.
    line("assert", k.alg + "-key-of-other-alg", "signature", "0",
         other.cose.hex(), RP, ORIGIN, chal.hex(), ad.hex(), cdj.hex(),
         sig.hex())


def registrations(k):
    chal = bytes(range(100, 132))
    good_att, good_cdj = k.register(RP, ORIGIN, chal)
    cases = [("good", "ok", good_att, good_cdj)]
    att, _ = k.register(RP, ORIGIN, chal, flags=0x41)
    cases.append(("uv-off", "no-uv", att, good_cdj))
    att, _ = k.register("evil.example", ORIGIN, chal)
    cases.append(("wrong-rp", "rp", att, good_cdj))
    cases.append(("trailing", "format", good_att + b"\0", good_cdj))
    cases.append(("wrong-type", "type", good_att,
                  k.client_data("webauthn.get", chal, ORIGIN)))
    cases.append(("wrong-origin", "origin", good_att,
                  k.client_data("webauthn.create", chal, "https://x.test")))
    cases.append(("wrong-challenge", "challenge", good_att,
                  k.client_data("webauthn.create", bytes(32), ORIGIN)))
    att, _ = k.register(RP, ORIGIN, chal, flags=0x05)
    cases.append(("no-at", "format", att, good_cdj))
    for name, status, att, cdj in cases:
        line("reg", k.alg + "-" + name, status, RP, ORIGIN, chal.hex(),
             att.hex(), cdj.hex(), k.cose.hex(), k.cred_id.hex())


def challenges():
    for v, m, hs in ((1, 0, [H1]), (0, 0, [H1, H2]), (2, 60, [H2])):
        line("challenge", str(v), str(m), b"".join(hs).hex(),
             sp.decision_challenge(v, m, hs).hex())


print("# passkey test vectors: tests/hubwire/make_passkey_vectors.py")
es, ed = keys()
assertions(es, ed)
assertions(ed, es)
registrations(es)
registrations(ed)
challenges()
