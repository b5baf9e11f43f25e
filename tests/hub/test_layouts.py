"""The second implementation of the layouts (hubwire.py) against the test
vectors src/hubwire produced (tests/hubwire/vectors.txt): each vector
decodes, re-encodes to the same bytes, and its signatures verify under the
fixed keys; the box opens with the fixed one-use key. Two implementations
that agree byte for byte on every layout keep docs/hub.md honest."""
import os

import hubwire as hw  # noqa: E402

import nacl.bindings  # noqa: E402
import nacl.public  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INST, DEV, HUB = (hw.Key(bytes([b]) * 32) for b in (1, 2, 3))
# crypto_box_seed_keypair, as the C samples make it
BOX = nacl.public.PrivateKey(nacl.bindings.crypto_box_seed_keypair(b"\x04" * 32)[1])


def vectors():
    out = {}
    with open(os.path.join(ROOT, "tests/hubwire/vectors.txt")) as f:
        for line in f:
            if not line.startswith("#") and " " in line:
                name, hexs = line.split()
                out[name] = bytes.fromhex(hexs)
    return out


V = vectors()


def test_ticket():
    t = hw.dec_ticket(V["ticket"])
    assert t["id"] == "t_00112233445566778899aabbccddeeff"
    assert t["instance"] == "invoices-desk" and t["instance_key"] == INST.pk
    assert t["box_pk"] == bytes(BOX.public_key)
    assert [p["name"] for p in t["screen"]["plugins"]] == ["is-pdf", "contains"]
    assert t["placeholders"] == [dict(name="email", kind=2, max_bytes=256)]
    assert t["approvers"] == [DEV.pk]      # who may decide (version 2)
    assert V["ticket"][8:10] == b"\x00\x02"
    assert hw.verify(V["ticket"], t["signed_len"], t["sig"], INST.pk)
    assert not hw.verify(V["ticket"], t["signed_len"], t["sig"], DEV.pk)
    again = hw.enc_ticket(t, INST.seed)
    assert again == V["ticket"]
    assert t["agent_commit"] == hw.agent_commit(b"\x05" * 32, t["id"], b"uid:1000")


def test_decisions():
    d = hw.dec_dev(V["decision-dev"])
    assert d["ticket_hash"] == hw.h(V["ticket"]) and d["box_hash"] == hw.h(V["box"])
    assert d["verdict"] == hw.APPROVE and d["device_key"] == DEV.pk
    assert hw.verify(V["decision-dev"], d["signed_len"], d["sig"], DEV.pk)
    assert hw.enc_dev(d, DEV.seed) == V["decision-dev"]
    x = hw.dec_hub(V["decision-hub"])
    assert x["dev_hash"] == hw.h(V["decision-dev"]) and x["approver"] == "alice"
    assert hw.verify(V["decision-hub"], x["signed_len"], x["sig"], HUB.pk)
    assert hw.enc_hub(x, HUB.seed) == V["decision-hub"]
    e = hw.dec_decision(V["decision"])
    assert (e["dev"], e["hub"], e["box"]) == (V["decision-dev"], V["decision-hub"], V["box"])
    assert hw.enc_decision(e["dev"], e["hub"], e["box"]) == V["decision"]


def test_box_and_values():
    assert hw.unseal(V["box"], bytes(BOX)) == V["values"]
    assert hw.enc_values([("email", b"alice@example.org")]) == V["values"]


def test_request():
    q = hw.dec_request(V["request"])
    assert q["method"] == "POST" and q["key"] == DEV.pk
    assert q["body_hash"] == hw.h(b"")
    assert hw.verify(V["request"], q["signed_len"], q["sig"], DEV.pk)
    assert hw.enc_request(q["method"], q["path"], b"", DEV, time_ms=q["time_ms"],
                          nonce=q["nonce"]) == V["request"]


def test_fingerprint():
    assert DEV.fingerprint().encode() == V["device-fingerprint"]


def test_decisionlist():
    """DECISIONLIST (a ticket's decisions, arrival order) byte for byte."""
    assert hw.dec_declist(V["decisionlist"]) == [V["decision"]]
    assert hw.enc_declist([V["decision"]]) == V["decisionlist"]
    assert hw.dec_declist(hw.enc_declist([])) == []
