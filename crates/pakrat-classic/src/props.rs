//! Object data: the state frame and tagged properties (`classic.md` §3.6).
//!
//! ```text
//! [FStateFrame if RF_HasStack]  (Node, StateNode CIdx; ProbeMask i64; LatentAction i32; Offset CIdx if Node)
//! { Name PropName; u8 Info; [Name StructName]; [u8|u16|i32 size]; [array index]; payload }*  until `None`
//! native data of the class
//! ```
//! Info byte: bits 0–3 type, bits 4–6 size code (0–4 = 1/2/4/12/16 bytes,
//! 5/6/7 = a u8/u16/i32 size follows), bit 7 array flag — for bools the
//! value itself, with no payload. Array index: `b < 0x80` → `b`; `10xxxxxx`
//! → 14 bits; `11xxxxxx` → 30 bits (Epic's encoding; UEViewer masks to 22).
//!
//! Structs: before version 118 every struct payload is the struct's binary
//! form; from 118 only `Vector`, `Rotator`, `Color` (and `PointRegion`, as
//! UT2004 writes it) stay binary and every other struct is a nested tagged
//! list (UELib `CanSerializeStructUsingTags`/`IsStructImmutable`). A struct
//! whose binary layout pakrat does not know keeps its raw bytes.
//!
//! Class objects (`Class` exports) store no tagged list here: their default
//! properties follow the class's own fields and bytecode ([`crate::class`]).

use pakrat_io::{Error, Reader, Result};

use crate::flags::RF_HAS_STACK;
use crate::package::{ObjRef, Package};

/// Deepest nesting of tagged structs accepted (real data nests 2–3 levels).
pub const MAX_STRUCT_DEPTH: u32 = 16;

/// Version from which non-immutable structs are tagged lists.
pub const STRUCT_TAGS_VERSION: u16 = 118;

/// A property's type (bits 0–3 of the info byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[repr(u8)]
pub enum PropType {
    /// 1: `byte`.
    Byte = 1,
    /// 2: `int`.
    Int = 2,
    /// 3: `bool` (value in the array bit).
    Bool = 3,
    /// 4: `float`.
    Float = 4,
    /// 5: object reference.
    Object = 5,
    /// 6: name.
    Name = 6,
    /// 7: fixed-length 8-bit string (UE1 `StringProperty`).
    String = 7,
    /// 8: class reference.
    Class = 8,
    /// 9: dynamic array.
    Array = 9,
    /// 10: struct (its name follows the info byte).
    Struct = 10,
    /// 11: vector.
    Vector = 11,
    /// 12: rotator.
    Rotator = 12,
    /// 13: `string` (FString).
    Str = 13,
    /// 14: map.
    Map = 14,
    /// 15: fixed array.
    FixedArray = 15,
}

impl PropType {
    /// The type for bits 0–3 of an info byte (0 is invalid).
    pub fn from_bits(b: u8) -> Option<PropType> {
        use PropType::*;
        Some(match b & 0x0F {
            1 => Byte,
            2 => Int,
            3 => Bool,
            4 => Float,
            5 => Object,
            6 => Name,
            7 => String,
            8 => Class,
            9 => Array,
            10 => Struct,
            11 => Vector,
            12 => Rotator,
            13 => Str,
            14 => Map,
            15 => FixedArray,
            _ => return None,
        })
    }
}

/// The state frame of an object with `RF_HasStack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StateFrame {
    /// The function or state whose code runs.
    pub node: ObjRef,
    /// The current state.
    pub state_node: ObjRef,
    /// Probe mask.
    pub probe_mask: u64,
    /// Latent action.
    pub latent_action: i32,
    /// Code offset (only stored when `node` is not 0).
    pub offset: Option<i32>,
}

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// `byte`.
    Byte(u8),
    /// `int`.
    Int(i32),
    /// `bool`.
    Bool(bool),
    /// `float`.
    Float(f32),
    /// Object reference.
    Object(ObjRef),
    /// Name index.
    Name(u32),
    /// Class reference.
    Class(ObjRef),
    /// Fixed 8-bit string (UE1), without its NUL padding.
    FixedString(&'a [u8]),
    /// `string` (FString).
    Str(pakrat_io::FString),
    /// Vector (X, Y, Z).
    Vector([f32; 3]),
    /// Rotator (Pitch, Yaw, Roll).
    Rotator([i32; 3]),
    /// A struct.
    Struct(Box<StructValue<'a>>),
    /// A dynamic array: its element type is defined by the class, so the
    /// elements stay raw; `elem_size` is set when the bytes divide evenly.
    Array {
        /// Element count.
        count: u32,
        /// Element size when `data.len()` is a multiple of `count`.
        elem_size: Option<u32>,
        /// The element bytes.
        data: &'a [u8],
    },
    /// A dynamic array whose element type was found in the class
    /// definition ([`crate::arrays`]); the elements used exactly the
    /// property's bytes.
    TypedArray {
        /// The element type the elements were decoded as.
        elem: crate::arrays::Elem,
        /// The decoded elements (as many as the stored count).
        elems: Vec<Value<'a>>,
        /// The element bytes they were decoded from (after the count).
        data: &'a [u8],
    },
    /// Map or fixed array (element types come from the class): raw bytes.
    Raw(&'a [u8]),
}

/// A struct's value.
#[derive(Clone, Debug, PartialEq)]
pub enum StructValue<'a> {
    /// `Vector`.
    Vector([f32; 3]),
    /// `Rotator` (Pitch, Yaw, Roll).
    Rotator([i32; 3]),
    /// `Color` (R, G, B, A as stored).
    Color([u8; 4]),
    /// `Plane`, `Sphere`, `Quat` (four floats).
    Floats(Vec<f32>),
    /// `Guid`.
    Guid(pakrat_io::Guid),
    /// `Scale` (vector, sheer rate, sheer axis).
    Scale {
        /// Scale vector.
        scale: [f32; 3],
        /// Sheer rate.
        sheer_rate: f32,
        /// Sheer axis.
        sheer_axis: u8,
    },
    /// `Box`/`BoundingBox` (min, max, valid).
    Box {
        /// Min corner.
        min: [f32; 3],
        /// Max corner.
        max: [f32; 3],
        /// IsValid byte.
        valid: u8,
    },
    /// `PointRegion` (zone object, leaf, zone number).
    PointRegion {
        /// Zone actor.
        zone: ObjRef,
        /// BSP leaf.
        leaf: i32,
        /// Zone number.
        zone_number: u8,
    },
    /// A nested tagged property list (UE2 structs).
    Tagged(Vec<Property<'a>>),
    /// A struct whose binary layout is not known: raw bytes.
    Raw(&'a [u8]),
}

/// One tagged property.
#[derive(Clone, Debug, PartialEq)]
pub struct Property<'a> {
    /// Name index of the property.
    pub name: u32,
    /// Type from the info byte.
    pub kind: PropType,
    /// Struct name index (struct properties only).
    pub struct_name: Option<u32>,
    /// Array index (0 unless the array flag was set on a non-bool).
    pub array_index: u32,
    /// Payload size from the tag.
    pub size: u32,
    /// Bytes the payload really used: equal to `size` except for tagged
    /// structs, which are read up to their `None` like the engine does.
    pub actual_size: u32,
    /// File offset of the tag.
    pub offset: u64,
    /// The value.
    pub value: Value<'a>,
}

/// An export's data split into its parts.
#[derive(Clone, Debug)]
pub struct ObjectData<'a> {
    /// The state frame (objects with `RF_HasStack`).
    pub state_frame: Option<StateFrame>,
    /// Tagged properties, in file order (for classes: the default properties).
    pub properties: Vec<Property<'a>>,
    /// Bytes used by the state frame and the property list (including `None`).
    pub header_len: usize,
    /// The class-specific data after the properties.
    pub native: Reader<'a>,
    /// For `Class` exports: the class fields located after the bytecode
    /// (their default properties are in `properties`).
    pub class: Option<Box<crate::class::ClassTail<'a>>>,
}

impl<'a> ObjectData<'a> {
    /// First property with this name (case-insensitive) and array index 0.
    pub fn get(&self, pkg: &Package<'_>, name: &str) -> Option<&Property<'a>> {
        self.properties
            .iter()
            .find(|p| p.array_index == 0 && pkg.name(p.name).eq_ignore_ascii_case(name))
    }
}

/// Read the data of `exports[i]`: state frame, tagged properties, and a
/// reader positioned at the class's native data.
pub fn read_object<'a>(pkg: &Package<'a>, i: usize) -> Result<ObjectData<'a>> {
    let e = *pkg.export(i)?;
    if let Err(why) = pkg.summary.object_layout() {
        return Err(Error::unsupported(u64::from(e.serial_offset), why));
    }
    let data = pkg.export_data(i)?;
    let mut r = Reader::with_base(data, u64::from(e.serial_offset));
    if e.serial_size > 0
        && crate::summary::vengeance_header(pkg.summary.version, pkg.summary.licensee)
    {
        let at = r.offset();
        match r.i32("Vengeance object header")? {
            3 => {
                r.bytes(8, "Vengeance object header")?;
            }
            4 => {
                r.bytes(4, "Vengeance object header")?;
            }
            other => {
                return Err(Error::invalid(
                    at,
                    format!("Vengeance (SWAT 4) object header: expected 3 or 4, found {other}"),
                ))
            }
        }
    }
    let state_frame = if e.flags & RF_HAS_STACK != 0 {
        let node = ObjRef(r.compact("state frame node")?);
        let state_node = ObjRef(r.compact("state frame state node")?);
        let probe_mask = r.u64("state frame probe mask")?;
        let latent_action = r.i32("state frame latent action")?;
        if is_dnf2011(pkg) {
            r.u32("DNF state frame field")?;
        }
        let offset = if node.is_none() {
            None
        } else {
            Some(r.compact("state frame code offset")?)
        };
        Some(StateFrame {
            node,
            state_node,
            probe_mask,
            latent_action,
            offset,
        })
    } else {
        None
    };
    if e.class.is_none() && e.serial_size > 0 {
        // A UClass: no tagged list here (UObject::Serialize skips it); its
        // default properties end the object, after the bytecode.
        let mut tail = crate::class::read_class_tail(pkg, i)?;
        let mut properties = std::mem::take(&mut tail.defaults);
        crate::arrays::type_arrays_with(pkg, i, &mut properties, None);
        let end = Reader::with_base(
            &data[data.len()..],
            u64::from(e.serial_offset) + data.len() as u64,
        );
        return Ok(ObjectData {
            state_frame,
            properties,
            header_len: (u64::from(e.serial_offset) + data.len() as u64 - tail.defaults_offset)
                as usize,
            native: end,
            class: Some(Box::new(tail)),
        });
    }
    let mut properties = if e.serial_size == 0 {
        // Size 0: no data at all (stripped script text, server packages).
        Vec::new()
    } else {
        read_tagged(pkg, &mut r, 0)?
    };
    if properties
        .iter()
        .any(|p| matches!(p.value, Value::Array { .. }))
    {
        crate::arrays::type_arrays_with(pkg, i, &mut properties, None);
    }
    Ok(ObjectData {
        state_frame,
        properties,
        header_len: r.pos(),
        native: r,
        class: None,
    })
}

/// Read a tagged property list up to and including its `None`.
pub fn read_tagged<'a>(
    pkg: &Package<'a>,
    r: &mut Reader<'a>,
    depth: u32,
) -> Result<Vec<Property<'a>>> {
    let mut out = Vec::new();
    loop {
        let offset = r.offset();
        let name = read_name(pkg, r, "property name")?;
        // Compare text, not index: some packages hold `None` twice and the
        // engine compares FNames (`Activates.uax`).
        if pkg.name(name).eq_ignore_ascii_case("None") {
            return Ok(out);
        }
        let info = r.u8("property info byte")?;
        let kind = PropType::from_bits(info).ok_or_else(|| {
            Error::invalid(
                offset,
                format!(
                    "property {}: info byte {info:#04x} has type 0, expected 1-15",
                    pakrat_io::text::name(pkg.name(name))
                ),
            )
        })?;
        let struct_name = if kind == PropType::Struct {
            Some(read_name(pkg, r, "struct name")?)
        } else {
            None
        };
        if kind == PropType::Array && is_dnf2011(pkg) {
            // The element type's name, e.g. `StrProperty`.
            read_name(pkg, r, "DNF array inner type")?;
        }
        let size = match (info >> 4) & 7 {
            0 => 1,
            1 => 2,
            2 => 4,
            3 => 12,
            4 => 16,
            5 => u32::from(r.u8("property size (u8)")?),
            6 => u32::from(r.u16("property size (u16)")?),
            _ => {
                let at = r.offset();
                let s = r.i32("property size (i32)")?;
                u32::try_from(s)
                    .map_err(|_| Error::invalid(at, format!("negative property size {s}")))?
            }
        };
        let array_bit = info & 0x80 != 0;
        let mut array_index = 0;
        if kind != PropType::Bool && array_bit {
            let b = r.u8("array index")?;
            array_index = if b & 0x80 == 0 {
                u32::from(b)
            } else if b & 0xC0 == 0x80 {
                (u32::from(b & 0x7F) << 8) | u32::from(r.u8("array index")?)
            } else {
                let rest: [u8; 3] = r.array("array index")?;
                (u32::from(b & 0x3F) << 24)
                    | (u32::from(rest[0]) << 16)
                    | (u32::from(rest[1]) << 8)
                    | u32::from(rest[2])
            };
        }
        let mut actual_size = size;
        let value = if kind == PropType::Bool {
            Value::Bool(array_bit)
        } else if kind == PropType::Struct
            && struct_is_tagged(pkg, pkg.name(struct_name.unwrap_or(u32::MAX)), size)
        {
            // A tagged struct is read up to its own `None`, like the engine
            // (which ignores the tag size here). UT2004 writes some nested
            // `Range` tags with a size one short of the real 17 bytes
            // (`XGame.u` emitters); `actual_size` records what was used.
            if depth >= MAX_STRUCT_DEPTH {
                return Err(Error::invalid(
                    offset,
                    format!(
                        "struct property {} nests deeper than {MAX_STRUCT_DEPTH} levels",
                        pakrat_io::text::name(pkg.name(name))
                    ),
                ));
            }
            let start = r.pos();
            let props = read_tagged(pkg, r, depth + 1).map_err(|e| {
                Error::invalid(
                    e.offset().unwrap_or(offset),
                    format!(
                        "property {} (Struct): {}",
                        pakrat_io::text::name(pkg.name(name)),
                        strip(&e)
                    ),
                )
            })?;
            actual_size = (r.pos() - start) as u32;
            Value::Struct(Box::new(StructValue::Tagged(props)))
        } else {
            let at = r.pos() as u64;
            let payload = r.bytes(u64::from(size), "property payload").map_err(|_| {
                Error::invalid(
                    offset,
                    format!(
                        "property {} ({kind:?}) claims {size} bytes but only {} remain in the object",
                        pakrat_io::text::name(pkg.name(name)),
                        r.remaining()
                    ),
                )
            })?;
            let mut pr = Reader::with_base(payload, r.base() + at);
            let v = read_value(pkg, &mut pr, kind, struct_name).map_err(|e| {
                Error::invalid(
                    e.offset().unwrap_or(offset),
                    format!(
                        "property {} ({kind:?}): {}",
                        pakrat_io::text::name(pkg.name(name)),
                        strip(&e)
                    ),
                )
            })?;
            if pr.remaining() != 0 && !matches!(v, Value::Raw(_)) {
                return Err(Error::invalid(
                    offset,
                    format!(
                        "property {} ({kind:?}): value used {} of its {size} bytes",
                        pakrat_io::text::name(pkg.name(name)),
                        pr.pos()
                    ),
                ));
            }
            v
        };
        out.push(Property {
            name,
            kind,
            struct_name,
            array_index,
            size,
            actual_size,
            offset,
            value,
        });
    }
}

/// An error's message without its "at offset" prefix (the caller re-wraps
/// it with the same offset).
pub(crate) fn strip(e: &Error) -> String {
    match e {
        Error::Invalid { what, .. } | Error::Unsupported { what, .. } => what.clone(),
        Error::Truncated {
            what,
            needed,
            available,
            ..
        } => format!("expected {what} ({needed} bytes) but only {available} bytes remain"),
        e => e.to_string(),
    }
}

pub(crate) fn read_name(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<u32> {
    let at = r.offset();
    let i = r.compact(what)?;
    if i < 0 || i as usize >= pkg.names.len() {
        return Err(Error::invalid(
            at,
            format!(
                "{what}: name index {i} is outside the name table (0..{})",
                pkg.names.len()
            ),
        ));
    }
    Ok(i as u32)
}

pub(crate) fn read_obj(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<ObjRef> {
    let at = r.offset();
    let v = ObjRef(r.compact(what)?);
    pkg.check_ref(v)
        .map_err(|e| Error::invalid(at, format!("{what}: {}", strip(&e))))?;
    Ok(v)
}

fn vec3(r: &mut Reader<'_>) -> Result<[f32; 3]> {
    Ok([r.f32("X")?, r.f32("Y")?, r.f32("Z")?])
}

fn rot3(r: &mut Reader<'_>) -> Result<[i32; 3]> {
    Ok([r.i32("Pitch")?, r.i32("Yaw")?, r.i32("Roll")?])
}

fn read_value<'a>(
    pkg: &Package<'a>,
    r: &mut Reader<'a>,
    kind: PropType,
    struct_name: Option<u32>,
) -> Result<Value<'a>> {
    Ok(match kind {
        PropType::Byte => Value::Byte(r.u8("byte value")?),
        PropType::Int => Value::Int(r.i32("int value")?),
        // Bools carry their value in the info byte; the caller handles them.
        PropType::Bool => Value::Bool(false),
        PropType::Float => Value::Float(r.f32("float value")?),
        PropType::Object => Value::Object(read_obj(pkg, r, "object reference")?),
        PropType::Class => Value::Class(read_obj(pkg, r, "class reference")?),
        PropType::Name => Value::Name(read_name(pkg, r, "name value")?),
        PropType::String => {
            let raw = r.bytes(r.remaining() as u64, "fixed string")?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            Value::FixedString(&raw[..end])
        }
        PropType::Str => Value::Str(r.fstring("string value")?),
        PropType::Vector => Value::Vector(vec3(r)?),
        PropType::Rotator => Value::Rotator(rot3(r)?),
        PropType::Array => {
            let count = r.compact_count("array count", 0)? as u32;
            let data = r.bytes(r.remaining() as u64, "array elements")?;
            let elem_size = if count > 0 && data.len() % count as usize == 0 {
                Some((data.len() / count as usize) as u32)
            } else {
                None
            };
            Value::Array {
                count,
                elem_size,
                data,
            }
        }
        PropType::Map | PropType::FixedArray => {
            Value::Raw(r.bytes(r.remaining() as u64, "raw value")?)
        }
        PropType::Struct => {
            let sname = pkg.name(struct_name.unwrap_or(u32::MAX));
            Value::Struct(Box::new(read_struct(pkg, r, sname)?))
        }
    })
}

/// True when a struct payload is a nested tagged list: from version 118,
/// except the structs UE2 keeps binary (Vector, Rotator, Color of their
/// binary size, and PointRegion).
pub(crate) fn struct_is_tagged(pkg: &Package<'_>, sname: &str, size: u32) -> bool {
    if pkg.summary.version < STRUCT_TAGS_VERSION {
        return false;
    }
    // DNF 2011 tags every struct, Color included (UELib
    // `CanSerializeStructUsingBinary`; its Color is a 17-byte tagged list).
    if is_dnf2011(pkg) {
        return true;
    }
    let is = |s: &str| sname.eq_ignore_ascii_case(s);
    !((is("Vector") || is("Rotator")) && size == 12
        || is("Color") && size == 4
        || is("PointRegion"))
}

/// Duke Nukem Forever 2011 (v151+, licensee 36): array tags name their
/// inner type, every struct is tagged, and state frames hold one more u32
/// (UELib `DeserializeTagUE1`, `UStateFrame`, `BuildName.DNF`).
pub(crate) fn is_dnf2011(pkg: &Package<'_>) -> bool {
    pkg.summary.layout == crate::summary::TableLayout::Dnf2011
}

/// Read a binary struct payload of known size (the whole of `r`).
pub(crate) fn read_struct<'a>(
    pkg: &Package<'a>,
    r: &mut Reader<'a>,
    sname: &str,
) -> Result<StructValue<'a>> {
    let n = r.remaining();
    let is = |s: &str| sname.eq_ignore_ascii_case(s);
    // Binary in every version (UELib: immutable before UE3).
    if is("Vector") && n == 12 {
        return Ok(StructValue::Vector(vec3(r)?));
    }
    if (is("Rotator") || is("Rotation")) && n == 12 {
        return Ok(StructValue::Rotator(rot3(r)?));
    }
    if is("Color") && n == 4 {
        return Ok(StructValue::Color(r.array("Color")?));
    }
    if is("PointRegion") || is("Region") {
        let mut t = r.clone();
        if let Ok(v) = (|| -> Result<StructValue<'a>> {
            Ok(StructValue::PointRegion {
                zone: read_obj(pkg, &mut t, "PointRegion zone")?,
                leaf: t.i32("PointRegion leaf")?,
                zone_number: t.u8("PointRegion zone number")?,
            })
        })() {
            if t.remaining() == 0 {
                *r = t;
                return Ok(v);
            }
        }
    }
    // Before 118: binary structs; decode the layouts we know when the size agrees.
    let v = match n {
        16 if is("Plane") || is("Sphere") || is("Quat") => StructValue::Floats(vec![
            r.f32("struct float")?,
            r.f32("struct float")?,
            r.f32("struct float")?,
            r.f32("struct float")?,
        ]),
        8 if is("Range") || is("Vector2D") => {
            StructValue::Floats(vec![r.f32("struct float")?, r.f32("struct float")?])
        }
        24 if is("RangeVector") => StructValue::Floats(
            (0..6)
                .map(|_| r.f32("struct float"))
                .collect::<Result<_>>()?,
        ),
        48 if is("Coords") => StructValue::Floats(
            (0..12)
                .map(|_| r.f32("struct float"))
                .collect::<Result<_>>()?,
        ),
        64 if is("Matrix") => StructValue::Floats(
            (0..16)
                .map(|_| r.f32("struct float"))
                .collect::<Result<_>>()?,
        ),
        16 if is("Guid") => StructValue::Guid(r.guid("Guid")?),
        17 if is("Scale") => StructValue::Scale {
            scale: vec3(r)?,
            sheer_rate: r.f32("SheerRate")?,
            sheer_axis: r.u8("SheerAxis")?,
        },
        25 if is("Box") || is("BoundingBox") => StructValue::Box {
            min: vec3(r)?,
            max: vec3(r)?,
            valid: r.u8("IsValid")?,
        },
        _ => StructValue::Raw(r.bytes(n as u64, "struct bytes")?),
    };
    Ok(v)
}
