"""A minimal compound file writer ([MS-CFB]) for is-encrypted's tests: a
root storage with named streams and storages, every stream at least 4096
bytes (so in regular sectors, no mini stream), siblings chained through
their right pointers. olefile (the reference) reads what it writes."""
import struct

FREE, END, FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
SIG = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _entry(name, kind, left, right, child, start, size):
    n = name.encode("utf-16-le") + b"\x00\x00"
    assert len(n) <= 64
    return (n.ljust(64, b"\x00") + struct.pack("<HBB", len(n), kind, 1) +
            struct.pack("<III", left, right, child) + b"\x00" * 16 +
            struct.pack("<I", 0) + b"\x00" * 16 +
            struct.pack("<IQ", start, size))


def build(tree, version=3):
    """tree: list of (name, "stream", bytes) or (name, "storage", tree)."""
    shift = 9 if version == 3 else 12
    ss = 1 << shift
    flat = [("Root Entry", 5, None, [])]     # (name, type, data, kid idx)

    def add(items, parent):
        for name, kind, val in items:
            flat.append((name, 2 if kind == "stream" else 1,
                         val if kind == "stream" else None, []))
            idx = len(flat) - 1
            flat[parent][3].append(idx)
            if kind == "storage":
                add(val, idx)
    add(tree, 0)
    per = ss // 128
    ndir = -(-len(flat) // per)
    datas = {i: e[2].ljust(max(len(e[2]), 4096), b"\x00")
             for i, e in enumerate(flat) if e[1] == 2}
    nsect = 1 + ndir + sum(-(-len(d) // ss) for d in datas.values())
    assert nsect <= ss // 4, "one FAT sector only"
    fat = [FREE] * (ss // 4)
    fat[0] = FATSECT
    for k in range(ndir):
        fat[1 + k] = 1 + k + 1 if k + 1 < ndir else END
    nxt = 1 + ndir
    start = {}
    for i, d in datas.items():
        n = -(-len(d) // ss)
        start[i] = nxt
        for k in range(n):
            fat[nxt + k] = nxt + k + 1 if k + 1 < n else END
        nxt += n
    right, child = {}, {}
    for i, e in enumerate(flat):
        kids = e[3]
        child[i] = kids[0] if kids else FREE
        for a, b in zip(kids, kids[1:]):
            right[a] = b
    dirb = b""
    for i, (name, kind, data, kids) in enumerate(flat):
        dirb += _entry(name, kind, FREE, right.get(i, FREE), child[i],
                       start.get(i, END if kind == 5 else 0),
                       len(datas[i]) if i in datas else 0)
    empty = b"\x00" * 64 + struct.pack("<HBB", 0, 0, 0) + \
        struct.pack("<III", FREE, FREE, FREE) + b"\x00" * 48
    dirb = dirb.ljust(ndir * ss, b"\x00")
    dirb = b"".join(dirb[k:k + 128] if dirb[k:k + 68] != b"\x00" * 68
                    else empty for k in range(0, len(dirb), 128))
    hdr = (SIG + b"\x00" * 16 + struct.pack("<HHHHH", 0x3E, version, 0xFFFE,
                                            shift, 6) + b"\x00" * 6 +
           struct.pack("<IIIIIIIII", ndir if version == 4 else 0, 1, 1, 0,
                       4096, END, 0, END, 0) +
           struct.pack("<I", 0) + struct.pack("<I", FREE) * 108)
    assert len(hdr) == 512
    out = hdr.ljust(ss, b"\x00") + struct.pack("<%dI" % len(fat), *fat) + dirb
    for i in sorted(datas, key=lambda i: start[i]):
        d = datas[i]
        out += d.ljust(-(-len(d) // ss) * ss, b"\x00")
    return out
