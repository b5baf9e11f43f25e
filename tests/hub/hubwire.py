"""A second, independent implementation of the hub's layouts (docs/hub.md,
"Layouts"), for the tests: the hostile hub test double forges with it, the
lockhub tests sign requests with it, and test_layouts.py checks that it and
src/hubwire agree byte for byte on tests/hubwire/vectors.txt.

Encoders take plain Python values; decoders return dicts and raise
ValueError on anything the C parser refuses (they are deliberately lax
about alphabets: the tests need to build messages the C side must refuse).
"""
import hashlib
import os
import struct
import time

import nacl.bindings
import nacl.public
import nacl.signing

VERSION = 1
VERSION_TICKET = 2      # names who may decide (issue 26 item 1)
M_TICKET = b"LHTICKET"
M_DEV = b"LHDECDEV"
M_HUB = b"LHDECHUB"
M_DECISION = b"LHDECISN"
M_DEVPOST = b"LHDEVPST"
M_VALUES = b"LHVALUES"
M_REQUEST = b"LHREQUST"
M_LIST = b"LHTKLIST"
M_DECLIST = b"LHDECLST"
M_SECKEY = b"LHSECKEY"

CONTENT_FETCHED, CONTENT_FAILED, CONTENT_UNCHECKED = 0, 1, 2
KIND_TEXT, KIND_EMAIL = 1, 2
DENY, APPROVE = 0, 1


def h(data):
    """BLAKE2b-256, the hash every layout uses."""
    return hashlib.blake2b(data, digest_size=32).digest()


# ---- framing ----

def field(b):
    return struct.pack(">I", len(b)) + b


def header(magic):
    return magic + struct.pack(">H", VERSION_TICKET if magic == M_TICKET
                               else VERSION)


def u64(v):
    return field(struct.pack(">Q", v))


def u32(v):
    return field(struct.pack(">I", v))


def u8(v):
    return field(bytes([v]))


def text(s):
    return field(s.encode() if isinstance(s, str) else s)


def lst(items):
    """A list field: count, then each item (already its fields) as a field."""
    return field(struct.pack(">I", len(items)) + b"".join(field(i) for i in items))


def sign(msg, sk):
    """Append the signature field over every byte before it."""
    return msg + field(nacl.signing.SigningKey(sk).sign(msg).signature)


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def header(self, magic):
        if self.d[self.o:self.o + 8] != magic:
            raise ValueError("magic")
        want = VERSION_TICKET if magic == M_TICKET else VERSION
        if struct.unpack(">H", self.d[self.o + 8:self.o + 10])[0] != want:
            raise ValueError("version")
        self.o += 10

    def field(self):
        if len(self.d) - self.o < 4:
            raise ValueError("short")
        n = struct.unpack(">I", self.d[self.o:self.o + 4])[0]
        if len(self.d) - self.o - 4 < n:
            raise ValueError("short")
        b = self.d[self.o + 4:self.o + 4 + n]
        self.o += 4 + n
        return b

    def fixed(self, n):
        b = self.field()
        if len(b) != n:
            raise ValueError("length")
        return b

    def u64(self):
        return struct.unpack(">Q", self.fixed(8))[0]

    def u32(self):
        return struct.unpack(">I", self.fixed(4))[0]

    def u8(self):
        return self.fixed(1)[0]

    def text(self):
        return self.field().decode("utf-8", "surrogateescape")

    def items(self):
        b = self.field()
        n = struct.unpack(">I", b[:4])[0]
        r = Reader(b[4:])
        out = [Reader(r.field()) for _ in range(n)]
        r.end()
        return out

    def sig(self):
        at = self.o
        return at, self.fixed(64)

    def end(self):
        if self.o != len(self.d):
            raise ValueError("trailing")


# ---- keys ----

class Key:
    """An Ed25519 key pair (seed given or fresh)."""

    def __init__(self, seed=None):
        self.sk = nacl.signing.SigningKey(seed or os.urandom(32))
        self.pk = bytes(self.sk.verify_key)
        self.seed = bytes(self.sk)

    def text(self):
        return "ed25519:" + self.pk.hex()

    def fingerprint(self):
        d = hashlib.blake2b(b"lockhub/fp/v1" + self.pk, digest_size=16).hexdigest()
        return "-".join(d[i:i + 4] for i in range(0, 32, 4))

    def keyfile(self, role):
        return header(M_SECKEY) + u8(role) + field(self.seed) + field(self.pk)


def verify(msg, signed_len, sig, pk):
    try:
        nacl.signing.VerifyKey(pk).verify(msg[:signed_len], sig)
        return True
    except Exception:
        return False


# ---- TICKET ----

def plugin(name="is-pdf", version="1.0.0", official=True,
           question="Is the file a well-formed PDF?",
           one="it is a well-formed PDF", zero="it is not a well-formed PDF",
           bindings=()):
    return dict(name=name, version=version, official=official,
                question=question, one=one, zero=zero, bindings=list(bindings))


def enc_screen(s):
    content = s.get("content", CONTENT_FETCHED)
    plugins = []
    for p in s["plugins"]:
        binds = [text(b["input"]) + text(b["placeholder"]) +
                 u8(1 if b.get("held") else 0) + u32(b.get("replayed", 0))
                 for b in p["bindings"]]
        plugins.append(text(p["name"]) + text(p["version"]) +
                       u8(1 if p["official"] else 0) + text(p["question"]) +
                       text(p["one"]) + text(p["zero"]) + lst(binds))
    return field(
        text(s["profile"]) + u8(1 if s.get("production") else 0) +
        text(s["key"]) + text(s.get("typed", "")) + text(s.get("handle", "")) +
        u8(content) +
        field(b"" if content == CONTENT_FAILED else s.get("sha256", b"\x13" * 32)) +
        u64(0 if content == CONTENT_FAILED else s.get("size", 0)) +
        u32(s.get("reveals", len(s["plugins"]))) +
        u32(s.get("left_before", 8)) +
        lst(plugins) +
        lst([text(m) for m in s.get("moved", [])]) +
        lst([text(l) + u32(c) for l, c in s.get("ledger", [])]))


def enc_ticket(t, sk):
    phs = [text(p["name"]) + u8(p.get("kind", KIND_TEXT)) + u32(p.get("max_bytes", 256))
           for p in t.get("placeholders", [])]
    msg = (header(M_TICKET) + text(t["instance"]) + field(t["instance_key"]) +
           text(t["id"]) + field(t["nonce"]) + u64(t["created_ms"]) +
           u64(t["expires_ms"]) + field(t["plan_hash"]) + field(t["policy_fp"]) +
           field(t["agent_commit"]) + text(t["agent_label"]) + field(t["box_pk"]) +
           text(t.get("renews", "")) + enc_screen(t["screen"]) + lst(phs) +
           lst([field(k) for k in t.get("approvers", [])]))
    return sign(msg, sk)


def dec_ticket(b):
    r = Reader(b)
    r.header(M_TICKET)
    t = dict(instance=r.text(), instance_key=r.fixed(32), id=r.text(),
             nonce=r.fixed(32), created_ms=r.u64(), expires_ms=r.u64(),
             plan_hash=r.fixed(32), policy_fp=r.fixed(32),
             agent_commit=r.fixed(32), agent_label=r.text(), box_pk=r.fixed(32),
             renews=r.text())
    s = Reader(r.field())
    sc = dict(profile=s.text(), production=bool(s.u8()), key=s.text(),
              typed=s.text(), handle=s.text(), content=s.u8())
    sc["sha256"] = s.field()
    sc["size"] = s.u64()
    sc["reveals"] = s.u32()
    sc["left_before"] = s.u32()
    sc["plugins"] = []
    for p in s.items():
        d = dict(name=p.text(), version=p.text(), official=bool(p.u8()),
                 question=p.text(), one=p.text(), zero=p.text(), bindings=[])
        for b in p.items():
            d["bindings"].append(dict(input=b.text(), placeholder=b.text(),
                                      held=bool(b.u8()), replayed=b.u32()))
            b.end()
        p.end()
        sc["plugins"].append(d)
    sc["moved"] = []
    for m in s.items():
        sc["moved"].append(m.text())
        m.end()
    sc["ledger"] = []
    for l in s.items():
        sc["ledger"].append((l.text(), l.u32()))
        l.end()
    s.end()
    t["screen"] = sc
    t["placeholders"] = []
    for p in r.items():
        t["placeholders"].append(dict(name=p.text(), kind=p.u8(), max_bytes=p.u32()))
        p.end()
    t["approvers"] = []
    for a in r.items():
        t["approvers"].append(a.fixed(32))
        a.end()
    if len(t["approvers"]) > 16 or len(set(t["approvers"])) != len(t["approvers"]):
        raise ValueError("approvers")
    t["signed_len"], t["sig"] = r.sig()
    r.end()
    return t


def new_ticket(instance, instance_key, box_pk, ttl_ms=300000, **kw):
    """A well-formed ticket dict with fresh random fields; approvers=[pk,
    ...] names the devices that may decide it (none unless given)."""
    now = int(time.time() * 1000)
    t = dict(instance=instance, instance_key=instance_key,
             id="t_" + os.urandom(16).hex(), nonce=os.urandom(32),
             created_ms=now, expires_ms=now + ttl_ms, plan_hash=os.urandom(32),
             policy_fp=os.urandom(32), agent_commit=os.urandom(32),
             agent_label="uid 1000 (agent)", box_pk=box_pk, renews="",
             screen=dict(profile="invoices", production=False, key="2024/a.pdf",
                         typed="", handle="", content=CONTENT_FETCHED,
                         sha256=os.urandom(32), size=1234, reveals=1,
                         left_before=8, plugins=[plugin()]),
             placeholders=[], approvers=[])
    t.update(kw)
    return t


# ---- decisions ----

def enc_dev(d, sk):
    msg = (header(M_DEV) + field(d["ticket_hash"]) + field(d["instance_key"]) +
           text(d["ticket"]) + field(d["nonce"]) + u8(d["verdict"]) +
           u64(d["time_ms"]) + field(d["device_key"]) + field(d["box_hash"]))
    return sign(msg, sk)


def dec_dev(b):
    r = Reader(b)
    r.header(M_DEV)
    d = dict(ticket_hash=r.fixed(32), instance_key=r.fixed(32), ticket=r.text(),
             nonce=r.fixed(32), verdict=r.u8(), time_ms=r.u64(),
             device_key=r.fixed(32), box_hash=r.fixed(32))
    d["signed_len"], d["sig"] = r.sig()
    r.end()
    return d


def enc_hub(x, sk):
    msg = (header(M_HUB) + field(x["dev_hash"]) + field(x["hub_key"]) +
           text(x["ticket"]) + text(x["approver"]) + u32(x.get("quorum", 1)) +
           u64(x["time_ms"]))
    return sign(msg, sk)


def dec_hub(b):
    r = Reader(b)
    r.header(M_HUB)
    x = dict(dev_hash=r.fixed(32), hub_key=r.fixed(32), ticket=r.text(),
             approver=r.text(), quorum=r.u32(), time_ms=r.u64())
    x["signed_len"], x["sig"] = r.sig()
    r.end()
    return x


def enc_decision(dev, hub, box):
    return header(M_DECISION) + field(dev) + field(hub) + field(box)


def dec_decision(b):
    r = Reader(b)
    r.header(M_DECISION)
    out = dict(dev=r.field(), hub=r.field(), box=r.field())
    r.end()
    return out


def enc_devpost(dev, box):
    return header(M_DEVPOST) + field(dev) + field(box)


def dec_devpost(b):
    r = Reader(b)
    r.header(M_DEVPOST)
    out = dict(dev=r.field(), box=r.field())
    r.end()
    return out


def enc_values(values):
    """values: [(name, bytes)]: the plaintext sealed in the box."""
    return header(M_VALUES) + lst([text(n) + field(v) for n, v in values])


def seal(values, box_pk):
    return nacl.public.SealedBox(nacl.public.PublicKey(box_pk)).encrypt(
        enc_values(values))


def unseal(box, box_sk):
    return nacl.public.SealedBox(nacl.public.PrivateKey(box_sk)).decrypt(box)


def decide(ticket_bytes, device, verdict=APPROVE, values=(), box=None,
           **override):
    """A DEV decision on a signed ticket by device: (dev bytes, box)."""
    t = dec_ticket(ticket_bytes)
    if box is None:
        box = seal(list(values), t["box_pk"])
    d = dict(ticket_hash=h(ticket_bytes), instance_key=t["instance_key"],
             ticket=t["id"], nonce=t["nonce"], verdict=verdict,
             time_ms=int(time.time() * 1000), device_key=device.pk,
             box_hash=h(box))
    d.update(override)
    return enc_dev(d, device.seed), box


def countersign(dev, hub, approver="alice", **override):
    d = dec_dev(dev)
    x = dict(dev_hash=h(dev), hub_key=hub.pk, ticket=d["ticket"],
             approver=approver, quorum=1, time_ms=int(time.time() * 1000))
    x.update(override)
    return enc_hub(x, hub.seed)


# ---- REQUEST, TICKETLIST ----

def enc_request(method, path, body, key, time_ms=None, nonce=None):
    msg = (header(M_REQUEST) + text(method) + text(path) + field(h(body)) +
           u64(int(time.time() * 1000) if time_ms is None else time_ms) +
           field(nonce or os.urandom(16)) + field(key.pk))
    return sign(msg, key.seed)


def dec_request(b):
    r = Reader(b)
    r.header(M_REQUEST)
    q = dict(method=r.text(), path=r.text(), body_hash=r.fixed(32),
             time_ms=r.u64(), nonce=r.fixed(16), key=r.fixed(32))
    q["signed_len"], q["sig"] = r.sig()
    r.end()
    return q


def enc_list(seq, items):
    return header(M_LIST) + u64(seq) + lst([u64(s) + field(t) for s, t in items])


def dec_list(b):
    r = Reader(b)
    r.header(M_LIST)
    seq = r.u64()
    items = []
    for it in r.items():
        items.append((it.u64(), it.field()))
        it.end()
    r.end()
    return seq, items


def enc_declist(envelopes):
    """DECISIONLIST: a ticket's decisions, each one envelope's bytes."""
    return header(M_DECLIST) + lst([field(e) for e in envelopes])


def dec_declist(b):
    r = Reader(b)
    r.header(M_DECLIST)
    out = []
    for it in r.items():
        e = it.field()
        if len(e) < 10:
            raise ValueError("an item shorter than a header")
        out.append(e)
        it.end()
    if len(out) > 16:
        raise ValueError("more than 16 decisions")
    r.end()
    return out


def agent_commit(key, ticket, token):
    return hashlib.blake2b(b"lockhub/agent/v1" + ticket.encode() + token,
                           digest_size=32, key=key).digest()


def b64(b):
    import base64
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def b64d(s):
    import base64
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


# ---- passkeys: CARD, DECISION-PK, DECISION-P (docs/hub.md, "Passkeys") ----

M_CARD = b"LHCARDLN"
M_PK = b"LHDECPKY"
M_DECP = b"LHDECPSK"
DENY_MUTE = 2


def enc_card(c, sk):
    msg = (header(M_CARD) + text(c["instance"]) + text(c["ticket"]) +
           field(c["ticket_hash"]) + lst([text(x) for x in c["lines"]]))
    return sign(msg, sk)


def dec_card(b):
    r = Reader(b)
    r.header(M_CARD)
    c = dict(instance=r.text(), ticket=r.text(), ticket_hash=r.fixed(32))
    c["lines"] = [i.text() for i in r.items()]
    c["signed_len"], c["sig"] = r.sig()
    r.end()
    return c


def enc_pk(verdict, mute, hashes, passkey_id, cred_id, authdata, cdj, sig):
    """A DECISION-PK (not Ed25519-signed: the assertion is inside)."""
    return (header(M_PK) + u8(verdict) + u32(mute) +
            lst([field(x) for x in hashes]) + field(passkey_id) +
            field(cred_id) + field(authdata) + field(cdj) + field(sig))


def enc_decp(pk, hub):
    return header(M_DECP) + field(pk) + field(hub)
