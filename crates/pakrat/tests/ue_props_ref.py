#!/usr/bin/env python3
"""Independent reader of tagged UE4/UE5 properties in legacy packages, for
checking what pakrat reads and writes. Written from the format notes
(shared/formats/iostore.md, the engine's FPackageFileSummary /
FObjectImport / FObjectExport / FPropertyTag layouts as UAssetAPI and
CUE4Parse document them), not from pakrat's code.

Usage: python3 ue_props_ref.py [--ue4 N --ue5 N] FILE.uasset|.umap...
  -> one JSON object per file and line:
  {"file", "package", "exports": [{"name", "path", "class",
    "properties": [{"name", "index"?, "type", "value"} |
                   {"name", "index"?, "type", "skipped": reason}],
    "error"?}]}
  or {"file", "error"}.

The `.uexp` beside the file holds the export data (offsets count from the
start of the .uasset as if both were one file). Values are in the JSON shape
`pakrat props --json` documents (docs/properties.md). Read: bool, integers,
float/double (floats printed as the shortest text that reads back to the same
f32), str, name, enum (EnumProperty and ByteProperty with an enum), object
references (full paths), soft object paths, structs (tagged, and the common
native ones: Vector, Vector2D, Vector4, Rotator, Quat, LinearColor, Color,
Guid, IntPoint, IntVector, Box, Box2D, Plane, DateTime, Timespan, FrameNumber,
MovieSceneFrameRange, SoftObjectPath, SoftClassPath), arrays, sets, maps. Anything else (text,
delegates, field paths, unknown native structs, struct map keys in the
pre-5.4 form) is reported as "skipped" with its reason: its bytes are jumped
over with the tag's size. An unversioned package (all versions 0) needs its
object versions given: --ue4 522 --ue5 0 for UE 4.27, --ue5 1012 for UE 5.4
(EUnrealEngineObjectUE4Version / EUnrealEngineObjectUE5Version values).
"""
import json
import struct
import sys

TAG = 0x9E2A83C1
# EUnrealEngineObjectUE4Version / UE5Version values used below.
UE4_NAME_HASHES = 504
UE4_TEMPLATE_INDEX = 508
UE4_64BIT_SERIAL = 511
UE4_LOAD_FOR_EDITOR_GAME = 365
UE4_COOKED_ASSETS_IN_EDITOR = 485
UE4_PRELOAD_DEPS = 507
UE4_LOCALIZATION_ID = 516
UE4_TEXT_IN_PACKAGES = 459
UE4_STRUCT_GUID_IN_TAG = 441
UE4_PROPERTY_GUID_IN_TAG = 503
UE5_LWC = 1004
UE5_REMOVE_EXPORT_GUID = 1005
UE5_TRACK_INHERITED = 1006
UE5_SOFTPATH_NO_FNAMES = 1007
UE5_SOFTPATH_LIST = 1008
UE5_OPTIONAL_RESOURCES = 1003
UE5_SCRIPT_SERIALIZATION = 1010
UE5_TAG_EXTENSION = 1011
UE5_COMPLETE_TYPE_NAME = 1012
UE5_METADATA_OFFSET = 1014
UE5_VERSE_CELLS = 1015
UE5_SAVED_HASH = 1016
PKG_FILTER_EDITOR_ONLY = 0x80000000
PKG_UNVERSIONED_PROPERTIES = 0x2000


class Skip(Exception):
    """A value this reader does not decode: skipped with the tag's size."""


class R:
    def __init__(self, b, o=0, end=None):
        self.b, self.o = b, o
        self.end = len(b) if end is None else end

    def take(self, n):
        if n < 0 or self.o + n > self.end:
            raise ValueError(f"short read of {n} at {self.o:#x}")
        v = self.b[self.o:self.o + n]
        self.o += n
        return v

    def u8(self): return self.take(1)[0]
    def i8(self): return struct.unpack("<b", self.take(1))[0]
    def i16(self): return struct.unpack("<h", self.take(2))[0]
    def u16(self): return struct.unpack("<H", self.take(2))[0]
    def i32(self): return struct.unpack("<i", self.take(4))[0]
    def u32(self): return struct.unpack("<I", self.take(4))[0]
    def i64(self): return struct.unpack("<q", self.take(8))[0]
    def u64(self): return struct.unpack("<Q", self.take(8))[0]
    def f32(self): return struct.unpack("<f", self.take(4))[0]
    def f64(self): return struct.unpack("<d", self.take(8))[0]

    def fstring(self):
        # i32 length counting the NUL; negative: UTF-16 code units.
        n = self.i32()
        if n == 0:
            return ""
        if n > 0:
            return self.take(n)[:-1].decode("latin-1")
        return self.take(-2 * n)[:-2].decode("utf-16-le")

    def guid(self):
        return "".join(f"{self.u32():08X}" for _ in range(4))


def f32_text(v):
    """The shortest decimal that reads back to the same f32, as a number."""
    if v != v or v in (float("inf"), float("-inf")):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    want = struct.pack("<f", v)
    for p in range(1, 18):
        t = float(f"{v:.{p}g}")
        if struct.pack("<f", t) == want:
            return int(t) if t == int(t) and abs(t) < 2**53 else t
    return v


def f64_val(v):
    if v != v or v in (float("inf"), float("-inf")):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    return int(v) if v == int(v) and abs(v) < 2**53 else v


def big(v):
    return v if abs(v) <= 2**53 else str(v)


class Package:
    def __init__(self, head, uexp, versions=None):
        self.given = versions
        self.head = head
        self.data = head + (uexp or b"")
        r = R(head)
        self.summary(r)
        self.read_names()
        self.read_imports()
        self.read_exports()

    # -- summary -----------------------------------------------------------
    def summary(self, r):
        if r.u32() != TAG:
            raise ValueError("not a package (tag)")
        lfv = r.i32()
        if lfv >= 0 or lfv < -9:
            raise ValueError(f"legacy file version {lfv} not read")
        if lfv != -4:
            r.i32()  # LegacyUE3Version
        self.ue4 = r.i32()
        self.ue5 = r.i32() if lfv <= -8 else 0
        r.i32()  # licensee
        if self.ue4 == 0 and self.ue5 == 0:
            if not self.given:
                raise ValueError("unversioned package: give its versions (--ue4 N --ue5 N)")
            self.ue4, self.ue5 = self.given
        if self.ue5 >= UE5_SAVED_HASH:
            r.take(20)
            self.total_header = r.i32()
        n = r.i32()  # custom versions
        for _ in range(n):
            if lfv == -2:
                r.take(8)
            elif lfv >= -5:
                r.take(20)
                r.fstring()
            else:
                r.take(20)
        if self.ue5 < UE5_SAVED_HASH:
            self.total_header = r.i32()
        self.package_name = r.fstring()
        self.flags = r.u32()
        if self.flags & PKG_UNVERSIONED_PROPERTIES:
            raise ValueError("unversioned properties: this reader reads tagged ones")
        self.name_count, self.name_offset = r.i32(), r.i32()
        self.soft_paths = (0, 0)
        if self.ue5 >= UE5_SOFTPATH_LIST:
            self.soft_paths = (r.i32(), r.i32())
        if not (self.flags & PKG_FILTER_EDITOR_ONLY) and self.ue4 >= UE4_LOCALIZATION_ID:
            r.fstring()
        if self.ue4 >= UE4_TEXT_IN_PACKAGES:
            r.i32(), r.i32()
        self.export_count, self.export_offset = r.i32(), r.i32()
        self.import_count, self.import_offset = r.i32(), r.i32()

    # -- tables ------------------------------------------------------------
    def read_names(self):
        r = R(self.head, self.name_offset)
        self.names = []
        for _ in range(self.name_count):
            self.names.append(r.fstring())
            if self.ue4 >= UE4_NAME_HASHES:
                r.take(4)

    def fname(self, r):
        i, n = r.i32(), r.i32()
        if not 0 <= i < len(self.names):
            raise ValueError(f"name index {i} outside the {len(self.names)} names")
        base = self.names[i]
        return base if n == 0 else f"{base}_{n - 1}"

    def read_imports(self):
        # Entry size from the gap to the export map (the cooker writes
        # exports right after imports): 28 bytes, + 8 for PackageName,
        # + 4 for bImportOptional.
        self.imports = []
        if self.import_count == 0:
            return
        size = (self.export_offset - self.import_offset) // self.import_count
        if size not in (28, 32, 36, 40):
            raise ValueError(f"import entries of {size} bytes")
        r = R(self.head, self.import_offset)
        for _ in range(self.import_count):
            start = r.o
            cpkg, cname = self.fname(r), self.fname(r)
            outer = r.i32()
            name = self.fname(r)
            r.o = start + size
            self.imports.append({"class": f"{cpkg}.{cname}", "outer": outer, "name": name})

    def read_exports(self):
        r = R(self.head, self.export_offset)
        self.exports = []
        for _ in range(self.export_count):
            e = {"class": r.i32(), "super": r.i32()}
            if self.ue4 >= UE4_TEMPLATE_INDEX:
                r.i32()
            e["outer"] = r.i32()
            e["name"] = self.fname(r)
            r.u32()  # object flags
            if self.ue4 >= UE4_64BIT_SERIAL:
                e["size"], e["offset"] = r.i64(), r.i64()
            else:
                e["size"], e["offset"] = r.i32(), r.i32()
            r.take(12)  # forced export, not for client, not for server
            if self.ue5 < UE5_REMOVE_EXPORT_GUID:
                r.take(16)
            if self.ue5 >= UE5_TRACK_INHERITED:
                r.take(4)
            r.u32()  # package flags
            if self.ue4 >= UE4_LOAD_FOR_EDITOR_GAME:
                r.take(4)
            if self.ue4 >= UE4_COOKED_ASSETS_IN_EDITOR:
                r.take(4)
            if self.ue5 >= UE5_OPTIONAL_RESOURCES:
                r.take(4)
            if self.ue4 >= UE4_PRELOAD_DEPS:
                r.take(20)
            if self.ue5 >= UE5_SCRIPT_SERIALIZATION:
                r.take(16)
            self.exports.append(e)

    # -- object paths --------------------------------------------------------
    def outer_of(self, i):
        if i < 0:
            return self.imports[-i - 1]["outer"]
        return self.exports[i - 1]["outer"] if i > 0 else 0

    def name_of(self, i):
        return self.imports[-i - 1]["name"] if i < 0 else self.exports[i - 1]["name"]

    def path(self, i):
        """Full path: the package, '.', the top-level object, then ':' before
        the first subobject and '.' below it (UE's SUBOBJECT_DELIMITER)."""
        if i == 0:
            return None
        chain = []
        at = i
        while at != 0 and len(chain) <= len(self.imports) + len(self.exports):
            chain.append(at)
            at = self.outer_of(at)
        chain.reverse()
        if chain[0] < 0:
            out, rest = self.name_of(chain[0]), chain[1:]
        else:
            out, rest = self.package_name, chain
        for k, c in enumerate(rest):
            out += "." if k == 0 else (":" if k == 1 else ".")
            out += self.name_of(c)
        return out

    def class_path(self, e):
        c = e["class"]
        if c == 0:
            return "/Script/CoreUObject.Class"
        if c < 0:
            return self.path(c)
        return self.path(c)


# -- property types -----------------------------------------------------------
class Ty:
    """A property type: its name and its parameters (5.4+ complete type
    name, or what an older tag says)."""

    def __init__(self, name, params=()):
        self.name, self.params = name, list(params)

    def text(self):
        # Short names, as pakrat prints them: the struct / enum name without
        # its package, containers with their inner types.
        n = self.name
        if n in ("StructProperty", "ByteProperty") and self.params:
            return f"{n}({self.params[0].name})"
        if n == "EnumProperty" and self.params:
            # The enum, then (5.4+) its underlying integer type.
            return f"{n}({','.join(p.name for p in self.params)})"
        if n in ("ArrayProperty", "SetProperty", "OptionalProperty", "MapProperty") and self.params:
            return f"{n}({','.join(p.text() for p in self.params)})"
        return n


def read_type_name(pkg, r):
    """FPropertyTypeName: nodes (FName, i32 inner count), pre-order."""
    name = pkg.fname(r)
    n = r.i32()
    return Ty(name, [read_type_name(pkg, r) for _ in range(n)])


NATIVE = {"Vector", "Vector2D", "Vector4", "Rotator", "Quat", "LinearColor", "Color",
          "Guid", "IntPoint", "IntVector", "Box", "Box2D", "Plane", "DateTime", "Timespan",
          "FrameNumber", "MovieSceneFrameRange", "SoftObjectPath", "SoftClassPath", "Vector3f", "Vector3d",
          "Vector2f", "Rotator3f", "IntVector2", "UintPoint"}


class Reader:
    def __init__(self, pkg):
        self.pkg = pkg
        self.lwc = pkg.ue5 >= UE5_LWC
        self.complete = pkg.ue5 >= UE5_COMPLETE_TYPE_NAME

    # One tag of the stream; None at "None".
    def tag(self, r):
        p = self.pkg
        name = p.fname(r)
        if name == "None":
            return None
        t = {"name": name, "index": 0, "bool": None, "native": False}
        if self.complete:
            t["ty"] = read_type_name(p, r)
            t["size"] = r.i32()
            flags = r.u8()
            if flags & 0x01:
                t["index"] = r.i32()
            if flags & 0x02:
                r.take(16)
            if flags & 0x04:
                ext = r.u8()
                if ext & 0x02:
                    r.take(2)
            t["bool"] = bool(flags & 0x10)
            t["native"] = bool(flags & 0x08)
            t["skipped_ser"] = bool(flags & 0x20)
            return t
        ty = p.fname(r)
        t["size"], t["index"] = r.i32(), r.i32()
        params = []
        if ty == "StructProperty":
            params = [Ty(p.fname(r))]
            if p.ue4 >= UE4_STRUCT_GUID_IN_TAG:
                r.take(16)
        elif ty == "BoolProperty":
            t["bool"] = r.u8() != 0
        elif ty in ("ByteProperty", "EnumProperty"):
            en = p.fname(r)
            params = [] if en == "None" else [Ty(en)]
        elif ty in ("ArrayProperty", "SetProperty", "OptionalProperty"):
            params = [Ty(p.fname(r))]
        elif ty == "MapProperty":
            params = [Ty(p.fname(r)), Ty(p.fname(r))]
        if p.ue4 >= UE4_PROPERTY_GUID_IN_TAG and r.u8():
            r.take(16)
        if p.ue5 >= UE5_TAG_EXTENSION:
            ext = r.u8()
            if ext & 0x02:
                r.take(2)
        t["ty"] = Ty(ty, params)
        return t

    def stream(self, r, top=False):
        """A tagged property stream up to "None": list of entries."""
        if top and self.pkg.ue5 >= UE5_TAG_EXTENSION:
            ctl = r.u8()  # EClassSerializationControlExtension
            if ctl & 0x02:
                r.u8()
        out = []
        while True:
            try:
                t = self.tag(r)
            except ValueError as err:
                last = out[-1]["name"] if out else "the start"
                raise ValueError(f"tag after {last}: {err}") from err
            if t is None:
                return out
            e = {"name": t["name"]}
            if t["index"]:
                e["index"] = t["index"]
            e["type"] = t["ty"].text()
            start = r.o
            end = start + t["size"]
            try:
                if t["ty"].name == "BoolProperty":
                    e["value"] = bool(t["bool"])
                else:
                    sub = R(r.b, start, end)
                    e["value"] = self.value(sub, t["ty"], t, top_tag=True)
                    if sub.o != end:
                        raise Skip(f"value read {sub.o - start} of {t['size']} bytes")
            except Skip as s:
                e.pop("value", None)
                e["skipped"] = str(s)
            except ValueError as err:
                raise ValueError(f"{t['name']}: {err}") from err
            r.o = end
            out.append(e)

    def struct_value(self, r, sname, native_flag):
        f = r.f64 if self.lwc else r.f32
        def fl(): return f64_val(r.f64()) if self.lwc else f32_text(r.f32())
        def f3(): return f32_text(r.f32())
        if sname in ("Vector", "Vector3d"):
            return {"X": fl(), "Y": fl(), "Z": fl()} if sname == "Vector" else {"X": f64_val(r.f64()), "Y": f64_val(r.f64()), "Z": f64_val(r.f64())}
        if sname == "Vector3f":
            return {"X": f3(), "Y": f3(), "Z": f3()}
        if sname == "Vector2D":
            return {"X": fl(), "Y": fl()}
        if sname == "Vector2f":
            return {"X": f3(), "Y": f3()}
        if sname in ("Vector4", "Quat", "Plane"):
            k = "XYZW"
            return {c: fl() for c in k}
        if sname == "Rotator":
            return {"Pitch": fl(), "Yaw": fl(), "Roll": fl()}
        if sname == "Rotator3f":
            return {"Pitch": f3(), "Yaw": f3(), "Roll": f3()}
        if sname == "LinearColor":
            return {c: f3() for c in "RGBA"}
        if sname == "Color":
            b, g, rr, a = r.take(4)
            return {"B": b, "G": g, "R": rr, "A": a}
        if sname == "Guid":
            return r.guid()
        if sname in ("IntPoint", "IntVector2"):
            return {"X": r.i32(), "Y": r.i32()}
        if sname == "UintPoint":
            return {"X": r.u32(), "Y": r.u32()}
        if sname == "IntVector":
            return {"X": r.i32(), "Y": r.i32(), "Z": r.i32()}
        if sname == "Box":
            mn = {"X": fl(), "Y": fl(), "Z": fl()}
            mx = {"X": fl(), "Y": fl(), "Z": fl()}
            return {"Min": mn, "Max": mx, "IsValid": r.u8()}
        if sname == "Box2D":
            mn = {"X": fl(), "Y": fl()}
            mx = {"X": fl(), "Y": fl()}
            return {"Min": mn, "Max": mx, "bIsValid": r.u8()}
        if sname in ("DateTime", "Timespan"):
            return {"Ticks": big(r.i64())}
        if sname == "MovieSceneFrameRange":
            # TRange<FFrameNumber>: each bound a u8 ERangeBoundTypes and an
            # i32 frame.
            lo = {"Type": r.u8(), "Value": r.i32()}
            return {"LowerBound": lo, "UpperBound": {"Type": r.u8(), "Value": r.i32()}}
        if sname == "FrameNumber":
            return {"Value": r.i32()}
        if sname in ("SoftObjectPath", "SoftClassPath"):
            return self.soft_path(r)
        if native_flag:
            raise Skip(f"native struct {sname}")
        try:
            return self.fields(self.stream(r))
        except ValueError as err:
            # A struct with a native serializer this reader does not know.
            raise Skip(f"struct {sname} is not a tagged stream ({err})") from err

    def fields(self, entries):
        """A tagged struct's entries as an object keyed by field name."""
        out = {}
        for e in entries:
            if "skipped" in e:
                raise Skip(f"field {e['name']}: {e['skipped']}")
            k = e["name"] if not e.get("index") else f"{e['name']}[{e['index']}]"
            out[k] = e["value"]
        return out

    def soft_path(self, r):
        p = self.pkg
        if p.soft_paths[0] > 0:
            raise Skip("soft object path list of the header")
        if p.ue5 >= UE5_SOFTPATH_NO_FNAMES:
            pk, asset = p.fname(r), p.fname(r)
            path = "" if pk == "None" else (pk if asset == "None" else f"{pk}.{asset}")
        else:
            path = p.fname(r)
            path = "" if path == "None" else path
        sub = self.sub_path(r)
        if not path:
            return None
        return f"{path}:{sub}" if sub else path

    def sub_path(self, r):
        """The sub path: an i32 length, then the characters; UE 5.5+ stores
        it as UTF-8 whose length does not count a terminating NUL."""
        n = r.i32()
        if n < 0:
            return r.take(-2 * n).decode("utf-16-le").rstrip("\0")
        raw = r.take(n)
        return (raw[:-1] if raw.endswith(b"\0") else raw).decode("utf-8")

    def value(self, r, ty, tag=None, top_tag=False):
        p = self.pkg
        n = ty.name
        if n == "BoolProperty":
            return r.u8() != 0
        ints = {"Int8Property": r.i8, "Int16Property": r.i16, "IntProperty": r.i32,
                "UInt16Property": r.u16, "UInt32Property": r.u32}
        if n in ints:
            return ints[n]()
        if n == "Int64Property":
            return big(r.i64())
        if n == "UInt64Property":
            return big(r.u64())
        if n == "FloatProperty":
            return f32_text(r.f32())
        if n == "DoubleProperty":
            return f64_val(r.f64())
        if n == "StrProperty":
            return r.fstring()
        if n in ("Utf8StrProperty", "AnsiStrProperty"):
            # i32 byte count, then the bytes (UTF-8 / 8-bit).
            k = r.i32()
            raw = r.take(k) if k > 0 else b""
            raw = raw[:-1] if raw.endswith(b"\0") else raw
            return raw.decode("utf-8" if n[0] == "U" else "latin-1")
        if n == "NameProperty":
            return p.fname(r)
        if n in ("ByteProperty", "EnumProperty"):
            if not ty.params or ty.params[0].name == "None":
                if n == "EnumProperty":
                    raise Skip("enum property without its enum")
                return r.u8()
            # The entry's name; shown as Enum::Entry.
            v = p.fname(r)
            return v if "::" in v else f"{ty.params[0].name}::{v}"
        if n in ("ObjectProperty", "ClassProperty", "WeakObjectProperty", "InterfaceProperty"):
            return p.path(r.i32())
        if n == "LazyObjectProperty":
            return r.guid()
        if n == "DelegateProperty":
            return self.delegate(r)
        if n in ("MulticastInlineDelegateProperty", "MulticastSparseDelegateProperty",
                 "MulticastDelegateProperty"):
            k = r.i32()
            if k < 0 or k > r.end - r.o:
                raise ValueError(f"delegate count {k}")
            return [self.delegate(r) for _ in range(k)]
        if n == "FieldPathProperty":
            k = r.i32()
            if k < 0 or k > r.end - r.o:
                raise ValueError(f"field path length {k}")
            names = [p.fname(r) for _ in range(k)]
            return {"path": names, "owner": p.path(r.i32())}
        if n == "TextProperty":
            return self.text(r)
        if n in ("SoftObjectProperty", "SoftClassProperty"):
            return self.soft_path(r)
        if n == "StructProperty":
            if not ty.params:
                raise Skip("struct without its name (pre-5.4 container element)")
            native = bool(tag and tag.get("native"))
            return self.struct_value(r, ty.params[0].name, native)
        if n in ("ArrayProperty", "SetProperty"):
            return self.array(r, ty, n == "SetProperty")
        if n == "MapProperty":
            return self.map(r, ty)
        if n == "OptionalProperty":
            # A 32-bit bool (FArchive's), then the value when set.
            if r.u32() == 0:
                return None
            return self.value(r, ty.params[0])
        raise Skip(f"{n} not read by this reader")

    def delegate(self, r):
        obj = self.pkg.path(r.i32())
        return {"object": obj, "function": self.pkg.fname(r)}

    def text(self, r):
        """FText: i32 flags, i8 history type; read: -1 (none, with an
        optional culture-invariant string) and 0 (base: namespace, key,
        source)."""
        flags = r.u32()
        kind = r.i8()
        out = {"history": None}
        if kind == -1:
            has = r.u32()
            out = {"history": "None", "invariant": r.fstring() if has else None}
        elif kind == 0:
            out = {"history": "Base", "namespace": r.fstring(), "key": r.fstring(),
                   "source": r.fstring()}
        else:
            raise Skip(f"text history {kind} not read by this reader")
        if flags:
            out["flags"] = flags
        return out

    def element_type(self, r, inner):
        """Before 5.4, an array of structs stores one inner tag first."""
        if inner.name == "StructProperty" and not self.complete:
            t = self.tag(r)
            if t is None or t["ty"].name != "StructProperty":
                raise ValueError("array of structs without its inner tag")
            return t["ty"]
        return inner

    def array(self, r, ty, is_set):
        inner = ty.params[0] if ty.params else None
        if inner is None:
            raise Skip("container without its element type")
        if is_set:
            removed = r.i32()
            for _ in range(removed):
                self.value(r, inner)
        n = r.i32()
        if n < 0 or n > r.end - r.o:
            raise ValueError(f"element count {n}")
        et = inner if is_set else self.element_type(r, inner)
        if et.name == "StructProperty" and is_set and not self.complete:
            raise Skip("set of structs in the pre-5.4 form (the struct is not named)")
        if et.name == "BoolProperty":
            return [r.u8() != 0 for _ in range(n)]
        return [self.value(r, et) for _ in range(n)]

    def map(self, r, ty):
        if len(ty.params) != 2:
            raise Skip("map without its key and value types")
        kt, vt = ty.params
        if not self.complete and "StructProperty" in (kt.name, vt.name):
            raise Skip("map of structs in the pre-5.4 form (the struct is not named)")
        removed = r.i32()
        for _ in range(removed):
            self.value(r, kt)
        n = r.i32()
        if n < 0 or n > r.end - r.o:
            raise ValueError(f"map entry count {n}")
        return [{"key": self.value(r, kt), "value": self.value(r, vt)} for _ in range(n)]


def read_file(path, versions=None):
    head = open(path, "rb").read()
    uexp = None
    stem = path.rsplit(".", 1)[0]
    try:
        uexp = open(stem + ".uexp", "rb").read()
    except FileNotFoundError:
        pass
    pkg = Package(head, uexp, versions)
    rd = Reader(pkg)
    out = {"file": path, "package": pkg.package_name, "exports": []}
    for i, e in enumerate(pkg.exports):
        x = {"name": e["name"], "path": pkg.path(i + 1), "class": pkg.class_path(e)}
        r = R(pkg.data, e["offset"], e["offset"] + e["size"])
        try:
            x["properties"] = rd.stream(r, top=True)
        except (ValueError, struct.error, IndexError, Skip, UnicodeDecodeError) as err:
            x["properties"] = []
            x["error"] = str(err)
        out["exports"].append(x)
    return out


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    versions = None
    if argv[:1] == ["--ue4"] and len(argv) >= 4 and argv[2] == "--ue5":
        versions = (int(argv[1]), int(argv[3]))
        argv = argv[4:]
    for f in argv:
        try:
            o = read_file(f, versions)
        except (ValueError, struct.error, IndexError, OSError, UnicodeDecodeError) as err:
            o = {"file": f, "error": str(err)}
        print(json.dumps(o, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
