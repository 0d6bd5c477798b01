//! The `.usmap` reader: header, payload decompression, then the name
//! table, enums, structs and extensions of the payload.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read as _;

use pakrat_codec::compress::{decompress, Method};
use pakrat_io::{Error, Reader, Result};

use super::{Compression, Extension, Usmap, UsmapVersion, Versioning, MAGIC};
use crate::props::{EnumSchema, PropType, SchemaProperty, StructSchema};

/// The largest decompressed payload accepted (256 MiB). The biggest
/// mappings in circulation (whole live-service games) decompress to tens
/// of MiB; a header that claims more is refused before anything is
/// allocated.
pub const MAX_DECOMPRESSED: u32 = 256 << 20;

/// The largest decompressed/compressed ratio accepted for a compressed
/// payload (mappings compress about 3.5:1). A few bytes cannot make the
/// reader allocate more than this many times their size.
pub const MAX_RATIO: u64 = 128;

/// How deep property types may nest (`MapProperty(…, ArrayProperty(…))`
/// is 2; the engine's deepest real types are 3 or 4).
pub const MAX_TYPE_DEPTH: usize = 32;

/// `CEXT` as a little-endian `u32`: the extension blocks follow.
const CEXT: u32 = u32::from_le_bytes(*b"CEXT");

/// The header, up to the payload.
struct Header {
    version: UsmapVersion,
    versioning: Option<Versioning>,
    compression: Compression,
    compressed_size: u32,
    decompressed_size: u32,
}

fn read_header(r: &mut Reader<'_>) -> Result<Header> {
    let magic = r.u16("usmap magic (0x30C4)")?;
    if magic != MAGIC {
        return Err(Error::invalid(
            0,
            format!("not a .usmap file: magic {magic:#06x}, expected {MAGIC:#06x}"),
        ));
    }
    let at = r.offset();
    let v = r.u8("usmap version")?;
    let version = UsmapVersion::from_u8(v).ok_or_else(|| {
        Error::unsupported(
            at,
            format!(
                "usmap version {v} (this reader knows 0-{}, up to {})",
                UsmapVersion::LATEST.number(),
                UsmapVersion::LATEST.name()
            ),
        )
    })?;
    let versioning = if version >= UsmapVersion::PackageVersioning {
        read_versioning(r)?
    } else {
        None
    };
    let at = r.offset();
    let c = r.u8("compression method")?;
    let compression = Compression::from_u8(c).ok_or_else(|| {
        Error::unsupported(
            at,
            format!("compression method {c} (known: 0 none, 1 Oodle, 2 Brotli, 3 Zstandard)"),
        )
    })?;
    let compressed_size = r.u32("compressed payload size")?;
    let decompressed_size = r.u32("decompressed payload size")?;
    Ok(Header {
        version,
        versioning,
        compression,
        compressed_size,
        decompressed_size,
    })
}

/// `bHasVersioning` (a 4-byte boolean) and, when set, the versions.
fn read_versioning(r: &mut Reader<'_>) -> Result<Option<Versioning>> {
    let at = r.offset();
    match r.i32("bHasVersioning (4-byte boolean)")? {
        0 => return Ok(None),
        1 => {}
        n => {
            return Err(Error::invalid(
                at,
                format!("bHasVersioning is {n}, expected 0 or 1"),
            ))
        }
    }
    let ue4 = r.i32("UE4 package file version")?;
    let ue5 = r.i32("UE5 package file version")?;
    let n = r.i32("custom version count")?;
    let n = r.check_count(i64::from(n), 20, "custom versions")?;
    let mut custom_versions = Vec::with_capacity(n);
    for _ in 0..n {
        let key = r.guid("custom version key")?;
        let v = r.i32("custom version")?;
        custom_versions.push((key, v));
    }
    let net_cl = r.u32("net changelist")?;
    Ok(Some(Versioning {
        ue4,
        ue5,
        custom_versions,
        net_cl,
    }))
}

/// See [`super::expected_file_size`].
pub(super) fn expected_file_size(head: &[u8]) -> Option<u64> {
    let mut r = Reader::new(head);
    let h = read_header(&mut r).ok()?;
    Some(r.offset() + u64::from(h.compressed_size))
}

pub(super) fn parse(data: &[u8]) -> Result<Usmap> {
    let mut r = Reader::new(data);
    let h = read_header(&mut r)?;
    let sizes_at = r.offset() - 8;
    let payload_at = r.offset();
    let stored = r.bytes(u64::from(h.compressed_size), "stored payload")?;
    if r.remaining() > 0 {
        return Err(r.invalid(format!(
            "{} bytes after the payload (the header says it is {} bytes)",
            r.remaining(),
            h.compressed_size
        )));
    }
    let payload = unpack(&h, stored, sizes_at)?;
    let body = match &payload {
        // Stored: errors name file offsets.
        Cow::Borrowed(b) => Reader::with_base(b, payload_at),
        Cow::Owned(b) => Reader::new(b),
    };
    let mut u = read_payload(body, h.version).map_err(|e| match &payload {
        Cow::Borrowed(_) => e,
        Cow::Owned(_) => Error::invalid(
            payload_at,
            format!(
                "in the {} payload, decompressed to {} bytes: {e}",
                h.compression.name(),
                h.decompressed_size
            ),
        ),
    })?;
    u.version = h.version;
    u.versioning = h.versioning;
    u.compression = h.compression;
    u.compressed_size = h.compressed_size;
    u.decompressed_size = h.decompressed_size;
    Ok(u.index())
}

/// The payload, decompressed into exactly the size the header gives.
fn unpack<'a>(h: &Header, stored: &'a [u8], sizes_at: u64) -> Result<Cow<'a, [u8]>> {
    let (c, d) = (h.compressed_size, h.decompressed_size);
    if h.compression == Compression::None {
        if c != d {
            return Err(Error::invalid(
                sizes_at,
                format!("stored payload: compressed size {c} differs from decompressed size {d}"),
            ));
        }
        return Ok(Cow::Borrowed(stored));
    }
    if d > MAX_DECOMPRESSED || u64::from(d) > u64::from(c).saturating_mul(MAX_RATIO) {
        return Err(Error::invalid(
            sizes_at,
            format!(
                "{} payload of {c} bytes claims {d} bytes decompressed: more than {MAX_RATIO} times its size or {} MiB, which no mappings file needs",
                h.compression.name(),
                MAX_DECOMPRESSED >> 20
            ),
        ));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(d as usize)
        .map_err(|_| Error::Other(format!("cannot allocate {d} bytes for the payload")))?;
    out.resize(d as usize, 0);
    let at = sizes_at + 8;
    let what = |e: Error| Error::invalid(at, format!("{} payload: {e}", h.compression.name()));
    match h.compression {
        Compression::None => unreachable!("handled above"),
        Compression::Oodle => {
            if !Method::Oodle.supported() {
                return Err(Error::unsupported(
                    at,
                    "Oodle-compressed mappings: this build of pakrat has no Oodle decoder (built without the `oodle` feature)",
                ));
            }
            decompress(&Method::Oodle, stored, &mut out).map_err(what)?;
        }
        Compression::Zstandard => decompress(&Method::Zstd, stored, &mut out).map_err(what)?,
        Compression::Brotli => brotli(stored, &mut out).map_err(what)?,
    }
    Ok(Cow::Owned(out))
}

/// One Brotli stream that must decode to exactly `out.len()` bytes.
fn brotli(input: &[u8], out: &mut [u8]) -> Result<()> {
    let mut d = brotli_decompressor::Decompressor::new(input, 64 << 10);
    d.read_exact(out).map_err(|e| {
        Error::Other(format!(
            "Brotli stream does not decode to {} bytes: {e}",
            out.len()
        ))
    })?;
    let mut extra = [0u8; 1];
    match d.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => Err(Error::Other(format!(
            "Brotli stream holds more than {} bytes",
            out.len()
        ))),
        Err(e) => Err(Error::Other(format!("Brotli stream does not decode: {e}"))),
    }
}

/// Names, enums, structs, extensions.
fn read_payload(mut r: Reader<'_>, version: UsmapVersion) -> Result<Usmap> {
    let names = read_names(&mut r, version)?;
    let mut enums = read_enums(&mut r, version, &names)?;
    let n = r.u32("struct count")?;
    let n = r.check_count(i64::from(n), 12, "structs")?;
    let mut structs = Vec::with_capacity(n);
    for _ in 0..n {
        structs.push(read_struct(&mut r, &names)?);
    }
    let extensions = read_extensions(&mut r, &names, &mut enums)?;
    Ok(Usmap {
        version,
        versioning: None,
        compression: Compression::None,
        compressed_size: 0,
        decompressed_size: 0,
        names,
        enums,
        structs,
        extensions,
        enum_by_name: HashMap::new(),
        struct_by_name: HashMap::new(),
        enum_by_lower: HashMap::new(),
        struct_by_lower: HashMap::new(),
    })
}

fn read_names(r: &mut Reader<'_>, version: UsmapVersion) -> Result<Vec<String>> {
    let long = version >= UsmapVersion::LongFName;
    let n = r.u32("name count")?;
    let n = r.check_count(i64::from(n), if long { 2 } else { 1 }, "names")?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        let len = if long {
            r.u16("name length")? as u64
        } else {
            r.u8("name length")? as u64
        };
        let at = r.offset();
        let raw = r.bytes(len, "name")?;
        let s = std::str::from_utf8(raw)
            .map_err(|e| Error::invalid(at, format!("name #{} is not UTF-8: {e}", names.len())))?;
        names.push(s.to_string());
    }
    Ok(names)
}

/// A name index (`i32`); `None` for -1.
fn name_or_none(r: &mut Reader<'_>, names: &[String], what: &str) -> Result<Option<String>> {
    let at = r.offset();
    let i = r.i32(what)?;
    if i == -1 {
        return Ok(None);
    }
    match usize::try_from(i).ok().and_then(|i| names.get(i)) {
        Some(s) => Ok(Some(s.clone())),
        None => Err(Error::invalid(
            at,
            format!(
                "{what}: name index {i} is outside the name table ({} names)",
                names.len()
            ),
        )),
    }
}

/// A name index that must name something.
fn name(r: &mut Reader<'_>, names: &[String], what: &str) -> Result<String> {
    let at = r.offset();
    name_or_none(r, names, what)?.ok_or_else(|| {
        Error::invalid(
            at,
            format!("{what}: name index -1 (none) where a name is needed"),
        )
    })
}

fn read_enums(
    r: &mut Reader<'_>,
    version: UsmapVersion,
    names: &[String],
) -> Result<Vec<EnumSchema>> {
    let large = version >= UsmapVersion::LargeEnums;
    let explicit = version >= UsmapVersion::ExplicitEnumValues;
    let n = r.u32("enum count")?;
    let n = r.check_count(i64::from(n), if large { 6 } else { 5 }, "enums")?;
    let mut enums = Vec::with_capacity(n);
    for _ in 0..n {
        let name = name(r, names, "enum name")?;
        let count = if large {
            r.u16("enum entry count")? as usize
        } else {
            r.u8("enum entry count")? as usize
        };
        let count = r.check_count(count as i64, if explicit { 12 } else { 4 }, "enum entries")?;
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            let value = if explicit {
                r.u64("enum entry value")? as i64
            } else {
                i as i64
            };
            entries.push((value, self::name(r, names, "enum entry name")?));
        }
        enums.push(EnumSchema { name, entries });
    }
    Ok(enums)
}

fn read_struct(r: &mut Reader<'_>, names: &[String]) -> Result<StructSchema> {
    let at = r.offset();
    let name = name(r, names, "struct name")?;
    let super_name = name_or_none(r, names, "super-struct name")?;
    let property_count = r.u16("property count")?;
    let n = r.u16("serializable property count")?;
    let n = r.check_count(i64::from(n), 8, "properties")?;
    let mut properties = Vec::with_capacity(n);
    for _ in 0..n {
        let pat = r.offset();
        let index = r.u16("property schema index")?;
        let array_dim = r.u8("property array dim")?;
        let pname = self::name(r, names, "property name")?;
        let ty = read_type(r, names, 1)?;
        if array_dim == 0 || u32::from(index) + u32::from(array_dim) > u32::from(property_count) {
            return Err(Error::invalid(
                pat,
                format!(
                    "{name}.{pname}: schema indices {index}+{array_dim} lie outside the struct's {property_count}"
                ),
            ));
        }
        properties.push(SchemaProperty {
            index,
            array_dim,
            name: pname,
            ty,
        });
    }
    properties.sort_by_key(|p| p.index);
    for w in properties.windows(2) {
        if u32::from(w[0].index) + u32::from(w[0].array_dim) > u32::from(w[1].index) {
            return Err(Error::invalid(
                at,
                format!(
                    "{name}: properties {} and {} share schema index {}",
                    w[0].name, w[1].name, w[1].index
                ),
            ));
        }
    }
    Ok(StructSchema {
        name,
        super_name,
        property_count,
        properties,
    })
}

/// One `EPropertyType` tree, at nesting `depth` (1 for a property's own
/// type).
fn read_type(r: &mut Reader<'_>, names: &[String], depth: usize) -> Result<PropType> {
    let at = r.offset();
    if depth > MAX_TYPE_DEPTH {
        return Err(Error::invalid(
            at,
            format!("property type nested deeper than {MAX_TYPE_DEPTH} levels"),
        ));
    }
    let code = r.u8("property type")?;
    let inner = |r: &mut Reader<'_>| read_type(r, names, depth + 1).map(Box::new);
    Ok(match code {
        0 => PropType::Byte(None),
        1 => PropType::Bool,
        2 => PropType::Int,
        3 => PropType::Float,
        4 => PropType::Object,
        5 => PropType::Name,
        6 => PropType::Delegate,
        7 => PropType::Double,
        8 => PropType::Array(inner(r)?),
        9 => PropType::Struct(name(r, names, "struct type name")?),
        10 => PropType::Str,
        11 => PropType::Text,
        12 => PropType::Interface,
        13 => PropType::MulticastDelegate,
        14 => PropType::WeakObject,
        15 => PropType::LazyObject,
        16 | 17 => PropType::SoftObject,
        18 => PropType::UInt64,
        19 => PropType::UInt32,
        20 => PropType::UInt16,
        21 => PropType::Int64,
        22 => PropType::Int16,
        23 => PropType::Int8,
        24 => {
            let k = inner(r)?;
            PropType::Map(k, inner(r)?)
        }
        25 => PropType::Set(inner(r)?),
        26 => {
            let underlying = inner(r)?;
            PropType::Enum {
                name: name(r, names, "enum type name")?,
                underlying: Some(underlying),
            }
        }
        27 => PropType::FieldPath,
        28 => PropType::Optional(inner(r)?),
        29 => PropType::Utf8Str,
        30 => PropType::AnsiStr,
        // CUE4Parse's additions, which no public dumper is known to write.
        31 => PropType::Class,
        32 => PropType::MulticastInlineDelegate,
        33 => PropType::SoftClass,
        34 => PropType::Unknown("VerseStringProperty".into()),
        35 => PropType::Unknown("VerseDynamicProperty".into()),
        36 => PropType::Unknown("VerseFunctionProperty".into()),
        0xFD => PropType::Unknown("CustomProperty_FD".into()),
        0xFE => PropType::Unknown("CustomProperty_FE".into()),
        0xFF => PropType::Unknown("Unknown".into()),
        n => {
            return Err(Error::invalid(
                at,
                format!("property type code {n} is not one the format defines (0-36, 253-255)"),
            ))
        }
    })
}

/// The optional data after the structs.
fn read_extensions(
    r: &mut Reader<'_>,
    names: &[String],
    enums: &mut [EnumSchema],
) -> Result<Vec<Extension>> {
    if r.remaining() == 0 {
        return Ok(Vec::new());
    }
    let at = r.offset();
    let magic = r.u32("extension magic (CEXT)")?;
    if magic == 1 {
        return Ok(vec![Extension {
            id: "MODL".into(),
            size: r.remaining() as u64,
            applied: false,
        }]);
    }
    if magic != CEXT {
        return Err(Error::invalid(
            at,
            format!(
                "{} bytes after the structs that are not extensions (no CEXT magic)",
                r.remaining() + 4
            ),
        ));
    }
    let at = r.offset();
    let layout = r.u8("extension layout version")?;
    if layout != 0 {
        return Err(Error::unsupported(
            at,
            format!("extension layout version {layout}"),
        ));
    }
    let n = r.i32("extension count")?;
    let n = r.check_count(i64::from(n), 8, "extensions")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id_at = r.offset();
        let id = r.array::<4>("extension id")?;
        let id = String::from_utf8(id.to_vec())
            .map_err(|_| Error::invalid(id_at, "extension id is not text"))?;
        let size = r.u32("extension size")?;
        let body_at = r.offset();
        let body = r.bytes(u64::from(size), "extension")?;
        let mut applied = false;
        if id == "ENVP" {
            let b = Reader::with_base(body, body_at);
            applied = apply_envp(b, names, enums)?;
        }
        out.push(Extension {
            id,
            size: u64::from(size),
            applied,
        });
    }
    if r.remaining() > 0 {
        return Err(r.invalid(format!("{} bytes after the extensions", r.remaining())));
    }
    Ok(out)
}

/// `ENVP`: version `u8` 0, `i32` enum count (every enum, in file order),
/// then per enum an `i32` entry count and (name index, `i64` value)
/// pairs, which replace the enum's entries. Other versions are left
/// unapplied.
fn apply_envp(mut r: Reader<'_>, names: &[String], enums: &mut [EnumSchema]) -> Result<bool> {
    if r.u8("ENVP version")? != 0 {
        return Ok(false);
    }
    let at = r.offset();
    let n = r.i32("ENVP enum count")?;
    if usize::try_from(n).ok() != Some(enums.len()) {
        return Err(Error::invalid(
            at,
            format!("ENVP has {n} enums, the file {}", enums.len()),
        ));
    }
    for e in enums.iter_mut() {
        let c = r.i32("ENVP entry count")?;
        let c = r.check_count(i64::from(c), 12, "ENVP entries")?;
        let mut entries = Vec::with_capacity(c);
        for _ in 0..c {
            let nm = name(&mut r, names, "ENVP entry name")?;
            entries.push((r.i64("ENVP entry value")?, nm));
        }
        e.entries = entries;
    }
    if r.remaining() > 0 {
        return Err(r.invalid(format!("{} bytes after the ENVP entries", r.remaining())));
    }
    Ok(true)
}
