#!/usr/bin/env python3
"""Independent reader of UE1/UE2 package tables, for checking what pakrat
writes. Written from shared/formats/classic.md (sections 1.1, 1.2, 3.1-3.5),
not from pakrat's code.

Usage: classic_ref.py FILE...  -> one JSON object per file and line:
{"file", "version", "licensee", "flags", "guid", "generations", "heritage",
 "names": [[text, flags]], "imports": [[cls_pkg, cls, outer, name]],
 "exports": [[class, super, outer, name, flags, size, offset]]}
or {"file", "error"}. Standard layout only (versions 60-129).
"""
import json, struct, sys


class R:
    def __init__(self, b, o=0):
        self.b, self.o = b, o

    def take(self, n):
        if n < 0 or self.o + n > len(self.b):
            raise ValueError(f"short read at {self.o:#x}")
        v = self.b[self.o:self.o + n]
        self.o += n
        return v

    def u8(self): return self.take(1)[0]
    def u32(self): return struct.unpack("<I", self.take(4))[0]
    def i32(self): return struct.unpack("<i", self.take(4))[0]

    def cidx(self):
        # Byte 0: sign (0x80), more (0x40), 6 value bits; bytes 1-3: more
        # (0x80) and 7 value bits; byte 4: a full byte at shift 27.
        b = self.u8()
        neg, more, v = b & 0x80, b & 0x40, b & 0x3F
        for shift in (6, 13, 20):
            if not more:
                break
            b = self.u8()
            v |= (b & 0x7F) << shift
            more = b & 0x80
        else:
            if more:
                v |= self.u8() << 27
        return -v if neg else v

    def name(self, ver):
        if ver < 64:
            end = self.b.index(b"\0", self.o)
            t = self.b[self.o:end].decode("latin-1")
            self.o = end + 1
            return t
        n = self.cidx()
        if n < 0:
            t = self.take(-2 * n).decode("utf-16-le")
        else:
            t = self.take(n).decode("latin-1")
        return t.rstrip("\0") if t.endswith("\0") else t


def guid(b):
    return "".join(f"{w:08X}" for w in struct.unpack("<4I", b))


def read(path):
    b = open(path, "rb").read()
    r = R(b)
    tag = r.u32()
    if tag not in (0x9E2A83C1, 0x9E2A83C2):
        raise ValueError(f"tag {tag:#x}")
    ver = struct.unpack("<H", r.take(2))[0]
    lic = struct.unpack("<H", r.take(2))[0]
    flags = r.u32()
    nc, no, ec, eo, ic, io = (r.i32() for _ in range(6))
    out = {"version": ver, "licensee": lic, "flags": flags, "generations": [], "heritage": []}
    if ver < 68:
        hc, ho = r.i32(), r.i32()
        h = R(b, ho)
        out["heritage"] = [guid(h.take(16)) for _ in range(hc)]
        out["guid"] = out["heritage"][-1] if hc else "0" * 32
    else:
        out["guid"] = guid(r.take(16))
        out["generations"] = [[r.i32(), r.i32()] for _ in range(r.i32())]
    t = R(b, no)
    names = []
    for _ in range(nc):
        text = t.name(ver)
        names.append([text, t.u32()])
    t = R(b, io)
    imports = []
    for _ in range(ic):
        imports.append([t.cidx(), t.cidx(), t.i32(), t.cidx()])
    t = R(b, eo)
    exports = []
    for _ in range(ec):
        cls, sup, outer, name, fl, size = t.cidx(), t.cidx(), t.i32(), t.cidx(), t.u32(), t.cidx()
        off = t.cidx() if size > 0 else 0
        if size < 0 or off < 0 or off + size > len(b):
            raise ValueError(f"export data {off:#x}+{size:#x} outside the file")
        exports.append([cls, sup, outer, name, fl, size, off])
    for e in exports:
        for ref in e[:3]:
            if not (-ic <= ref <= ec):
                raise ValueError(f"reference {ref} out of range")
    out.update(names=names, imports=imports, exports=exports)
    return out


for p in sys.argv[1:]:
    try:
        o = read(p)
    except Exception as e:  # one line per file, whatever happens
        o = {"error": str(e)}
    o["file"] = p
    print(json.dumps(o))
