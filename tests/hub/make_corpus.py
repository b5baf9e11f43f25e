"""Write the fuzz seeds of fuzz_hubwire and fuzz_hub_api (checked in under
tests/fuzz/corpus/hubwire and hub-api): each a selector byte and a message,
from tests/hubwire/vectors.txt and hubwire.py. Run from the repository
root: /usr/bin/python3 tests/hub/make_corpus.py"""
import os

import hubwire as hw  # noqa: E402

import nacl.public  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def vectors():
    out = {}
    with open(os.path.join(ROOT, "tests/hubwire/vectors.txt")) as f:
        for line in f:
            if line.startswith("#") or " " not in line:
                continue
            name, hexs = line.split()
            out[name] = bytes.fromhex(hexs)
    return out


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    v = vectors()
    wire = os.path.join(ROOT, "tests/fuzz/corpus/hubwire")
    api = os.path.join(ROOT, "tests/fuzz/corpus/hub-api")
    inst, dev = hw.Key(b"\x01" * 32), hw.Key(b"\x02" * 32)
    box = nacl.public.PrivateKey.generate()
    t = hw.new_ticket("desk", inst.pk, bytes(box.public_key),
                      placeholders=[dict(name="email", kind=2, max_bytes=64)],
                      approvers=[dev.pk])
    t["screen"]["plugins"] = [hw.plugin(), hw.plugin(
        name="contains", bindings=[dict(input="needle", placeholder="email")])]
    t["screen"]["reveals"] = 2
    failed = dict(t, id="t_" + "ab" * 16)
    failed["screen"] = dict(t["screen"], content=hw.CONTENT_FAILED)
    renewal = dict(t, renews=t["id"])
    renewal["screen"] = dict(t["screen"], content=hw.CONTENT_UNCHECKED,
                             moved=["plugin contains: version"],
                             ledger=[("answers on this key", 3)])
    tickets = [v["ticket"], hw.enc_ticket(t, inst.seed),
               hw.enc_ticket(failed, inst.seed),
               hw.enc_ticket(renewal, inst.seed)]
    for i, tb in enumerate(tickets):
        write(wire, "ticket-%d" % i, b"\x00" + tb)
        write(api, "post-ticket-%d" % i, b"\x00" + tb)
    write(wire, "dev-0", b"\x01" + v["decision-dev"])
    write(wire, "hub-0", b"\x02" + v["decision-hub"])
    write(wire, "decision-0", b"\x03" + v["decision"])
    d = hw.dec_decision(v["decision"])
    devpost = hw.enc_devpost(d["dev"], d["box"])
    write(wire, "devpost-0", b"\x04" + devpost)
    write(api, "post-decision-0", b"\x01" + devpost)
    deny, dbox = hw.decide(tickets[1], dev, verdict=hw.DENY)
    write(api, "post-decision-1", b"\x01" + hw.enc_devpost(deny, dbox))
    write(wire, "values-0", b"\x05" + v["values"])
    write(wire, "values-1", b"\x05" + hw.enc_values([]))
    write(wire, "request-0", b"\x06" + v["request"])
    write(api, "auth-0", b"\x02" + hw.b64(v["request"]).encode())
    write(wire, "list-0", b"\x07" + hw.enc_list(9, [(3, tickets[1]), (9, v["ticket"])]))
    write(wire, "list-1", b"\x07" + hw.enc_list(0, []))
    write(wire, "declist-0", b"\x08" + v["decisionlist"])
    write(wire, "declist-1", b"\x08" + hw.enc_declist([v["decision"], v["decision"]]))
    write(wire, "declist-2", b"\x08" + hw.enc_declist([]))
    for i, p in enumerate(["/v1/pending", "/v1/pending/after/17", "/v1/health",
                           "/v1/tickets/t_00112233445566778899aabbccddeeff/decision",
                           "/v1/tickets/t_00112233445566778899aabbccddeeff/decisions/after/1",
                           "/v1/tickets"]):
        write(api, "path-%d" % i, b"\x03" + p.encode())


if __name__ == "__main__":
    main()
