//! The script fields a header is written from: properties, functions,
//! enums and constants, read from the field exports of a package.
//!
//! Layouts (UT432 `Core/Inc/UnClass.h`, `UnObjBas.h`; UELib `UField`,
//! `UStruct`, `UFunction`, `UProperty` and subclasses, `UConst`):
//! - `UField`: SuperField (CIdx), Next (CIdx). A struct's fields are the
//!   chain `Children` → `Next` → … as the compiler linked them.
//! - `UStruct`: + ScriptText (CIdx), Children (CIdx), FriendlyName (name),
//!   CppText (CIdx, v120+), Line, TextPos, ScriptSize (i32 each), bytecode.
//! - `UFunction` after the bytecode: (v ≤ 63: ParmsSize u16) iNative u16,
//!   (v ≤ 63: NumParms u8) OperPrecedence u8, (v ≤ 63: ReturnValueOffset
//!   u16) FunctionFlags u32, RepOffset u16 when `FUNC_Net`. The bytecode's
//!   stored size is not recorded, so these are read from the end of the
//!   object.
//! - `UProperty`: ArrayDim i32, PropertyFlags u32, Category (name),
//!   RepOffset u16 when `CPF_Net`; then Enum (byte), PropertyClass (object),
//!   PropertyClass + MetaClass (class), Struct (struct), Inner (array),
//!   Inner + Count (fixed array), Key + Value (map), Function (delegate).
//! - `UConst`: Value (FString); `UEnum`: value names ([`crate::enums`]).
//!
//! Every read is bounds-checked; a field that does not parse is reported
//! as [`FieldKind::Unreadable`] with the reason, never guessed.

use pakrat_io::{Reader, Result};

use crate::package::{ObjRef, Package, Target};
use crate::props::{read_name, read_obj, read_object};

/// `CPF_Net`.
pub const CPF_NET: u32 = 0x20;
/// `CPF_Parm`.
pub const CPF_PARM: u32 = 0x80;
/// `CPF_OutParm`.
pub const CPF_OUT_PARM: u32 = 0x100;
/// `CPF_ReturnParm`.
pub const CPF_RETURN_PARM: u32 = 0x400;
/// `FUNC_Net`.
pub const FUNC_NET: u32 = 0x40;
/// `FUNC_Native`.
pub const FUNC_NATIVE: u32 = 0x400;
/// `FUNC_Event`.
pub const FUNC_EVENT: u32 = 0x800;
/// `FUNC_NoExport`.
pub const FUNC_NO_EXPORT: u32 = 0x4000;
/// `FUNC_Delegate` (UE2).
pub const FUNC_DELEGATE: u32 = 0x0010_0000;

/// Longest field chain followed (Engine's Actor has a few hundred).
const MAX_CHAIN: usize = 100_000;

/// What a property holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropKind {
    /// `byte`, with its enum's name when it has one.
    Byte(Option<String>),
    /// `int`.
    Int,
    /// `bool`.
    Bool,
    /// `float`.
    Float,
    /// An object reference: the class name and whether it is an actor.
    Object(String, bool),
    /// A class reference (`class<Meta>`), with its meta class's name.
    Class(String),
    /// `name`.
    Name,
    /// `string` (FString).
    Str,
    /// UE1 fixed-length `string[N]`.
    FixedString,
    /// A struct, by name.
    Struct(String),
    /// A dynamic array of the inner property.
    Array(Box<PropKind>),
    /// UE2 `delegate`.
    Delegate,
    /// UE2 `pointer`.
    Pointer,
    /// A map or fixed array (no C++ form known here).
    Other(String),
}

/// A property field.
#[derive(Clone, Debug)]
pub struct Prop {
    /// Its name.
    pub name: String,
    /// `ArrayDim` (1 for a scalar).
    pub array_dim: i32,
    /// `PropertyFlags`.
    pub flags: u32,
    /// The type.
    pub kind: PropKind,
}

/// A function field.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its object name (`Touch`, `Multiply_ColorFloat`).
    pub name: String,
    /// `iNative` (0 when not bound to a number).
    pub native: u16,
    /// Whether it overrides a function of a superclass (`SuperField` set):
    /// the engine writes events only where they are first declared.
    pub overrides: bool,
    /// `FunctionFlags`.
    pub flags: u32,
    /// Its parameters and locals, in chain order.
    pub props: Vec<Prop>,
}

/// A field of a class.
#[derive(Clone, Debug)]
pub enum FieldKind {
    /// A property (member variable).
    Prop(Prop),
    /// A function (or event).
    Func(Func),
    /// An enum and its value names.
    Enum(String, Vec<String>),
    /// A constant and its text.
    Const(String, String),
    /// A struct, state or other field (not written here).
    Other(String),
    /// A field whose data did not parse: its name and why.
    Unreadable(String, String),
}

/// The header of a `UStruct` export (class, struct, function, state).
#[derive(Clone, Debug)]
pub struct StructHeader<'a> {
    /// `Children`: the first field.
    pub children: ObjRef,
    /// `CppText` (v120+).
    pub cpp_text: ObjRef,
    /// `FriendlyName` (an operator's symbol, else the object name).
    pub friendly_name: u32,
    /// `ScriptText`.
    pub script_text: ObjRef,
    /// `ScriptSize`.
    pub script_size: i32,
    /// After `ScriptSize`: the bytecode and the subclass's fields.
    pub rest: Reader<'a>,
}

fn is_class_export(pkg: &Package<'_>, i: usize) -> bool {
    pkg.exports.get(i).is_some_and(|e| e.class.is_none())
}

/// A reader at the `UField` data of export `i` (after the tagged list; a
/// class has none).
pub(crate) fn field_reader<'a>(pkg: &Package<'a>, i: usize) -> Option<Reader<'a>> {
    if is_class_export(pkg, i) {
        let e = pkg.exports.get(i)?;
        let data = pkg.export_data(i).ok()?;
        let mut r = Reader::with_base(data, u64::from(e.serial_offset));
        if crate::summary::vengeance_header(pkg.summary.version, pkg.summary.licensee) {
            match r.i32("Vengeance object header").ok()? {
                3 => r.bytes(8, "Vengeance object header").ok()?,
                4 => r.bytes(4, "Vengeance object header").ok()?,
                _ => return None,
            };
        }
        return Some(r);
    }
    Some(read_object(pkg, i).ok()?.native)
}

/// Read the `UField` + `UStruct` fields of export `i`.
pub fn struct_header<'a>(pkg: &Package<'a>, i: usize) -> Option<StructHeader<'a>> {
    let mut r = field_reader(pkg, i)?;
    read_obj(pkg, &mut r, "SuperField").ok()?;
    read_obj(pkg, &mut r, "Next").ok()?;
    let script_text = read_obj(pkg, &mut r, "ScriptText").ok()?;
    let children = read_obj(pkg, &mut r, "Children").ok()?;
    let friendly_name = read_name(pkg, &mut r, "FriendlyName").ok()?;
    let (v, lic) = (pkg.summary.version, pkg.summary.licensee);
    // UT2003/UT2004 and the games built on them (the "UE2.5" builds,
    // licensee 25–29) write no CppText; from licensee 26 a u32
    // StructFlags takes its place (UELib `UStruct.Deserialize`: "UT2004'
    // derived games do not include this despite reporting version 128+";
    // checked on the corpus's ut2004_Engine.u, whose function headers only
    // parse this way).
    // The Vengeance engine (SWAT 4 129/27, Tribes: Vengeance 130/27) is not
    // one of them: it keeps CppText, then StructFlags (licensee 2+), an
    // object from licensee 29, and ProcessedText from licensee 14 (UELib
    // `UStruct.Deserialize`, its `Vengeance` branches). Read as UE2.5, its
    // ScriptSize came out 2 bytes early (CppText and ProcessedText, both 0).
    let vengeance = crate::summary::vengeance_header(v, lic);
    let ue25 = (119..=129).contains(&v) && (25..=29).contains(&lic) && !vengeance;
    let cpp_text = if v >= 120 && !ue25 {
        read_obj(pkg, &mut r, "CppText").ok()?
    } else {
        ObjRef::NONE
    };
    if ue25 && lic >= 26 {
        r.u32("StructFlags").ok()?;
    }
    if vengeance {
        if lic >= 2 {
            r.u32("StructFlags").ok()?;
        }
        if lic >= 29 {
            read_obj(pkg, &mut r, "Vengeance object").ok()?;
        }
        if lic >= 14 {
            read_obj(pkg, &mut r, "ProcessedText").ok()?;
        }
    }
    r.i32("Line").ok()?;
    r.i32("TextPos").ok()?;
    let script_size = r.i32("ScriptSize").ok()?;
    Some(StructHeader {
        children,
        cpp_text,
        friendly_name,
        script_text,
        script_size,
        rest: r,
    })
}

/// The `Next` of field export `i` (any `UField`).
pub fn field_next(pkg: &Package<'_>, i: usize) -> Option<ObjRef> {
    let mut r = field_reader(pkg, i)?;
    read_obj(pkg, &mut r, "SuperField").ok()?;
    read_obj(pkg, &mut r, "Next").ok()
}

/// The field exports of struct export `owner`, in chain order (bounded,
/// cycle-safe; stops at a reference that is not an export of `owner`).
pub fn children(pkg: &Package<'_>, owner: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(h) = struct_header(pkg, owner) else {
        return out;
    };
    let mut cur = h.children;
    while out.len() < MAX_CHAIN {
        let Ok(Target::Export(k)) = pkg.check_ref(cur) else {
            break;
        };
        if out.contains(&k) || pkg.exports[k].outer != ObjRef::export(owner) {
            break;
        }
        out.push(k);
        match field_next(pkg, k) {
            Some(n) => cur = n,
            None => break,
        }
    }
    out
}

/// Whether class `r` is `Actor` or derives from it (followed within the
/// package; an imported class counts when it is named `Actor`).
pub fn is_actor(pkg: &Package<'_>, mut r: ObjRef) -> bool {
    for _ in 0..crate::arrays::MAX_SUPER_DEPTH {
        match pkg.check_ref(r) {
            Ok(Target::Export(k)) => {
                if pkg
                    .name(pkg.exports[k].object_name)
                    .eq_ignore_ascii_case("Actor")
                {
                    return true;
                }
                r = pkg.exports[k].super_;
            }
            Ok(Target::Import(k)) => {
                return pkg
                    .name(pkg.imports[k].object_name)
                    .eq_ignore_ascii_case("Actor")
            }
            _ => return false,
        }
    }
    false
}

fn obj_name(pkg: &Package<'_>, r: ObjRef) -> Option<String> {
    Some(pkg.object_name(r).ok()?.to_string())
}

/// Read property export `i`.
pub fn read_prop(pkg: &Package<'_>, i: usize) -> Result<Prop> {
    let bad = |what: &str| pakrat_io::Error::Other(format!("property export {i}: {what}"));
    let class = pkg.export_class_name(i)?.to_string();
    let mut r = field_reader(pkg, i).ok_or_else(|| bad("object data does not parse"))?;
    let (array_dim, flags) = prop_base(pkg, &mut r)?;
    let kind = prop_kind(pkg, &class, &mut r, 0)?;
    Ok(Prop {
        name: pkg.name(pkg.exports[i].object_name).to_string(),
        array_dim,
        flags,
        kind,
    })
}

/// The type of a property of class `class` whose own fields `r` is at.
fn prop_kind(pkg: &Package<'_>, class: &str, r: &mut Reader<'_>, depth: u32) -> Result<PropKind> {
    let is = |s: &str| class.eq_ignore_ascii_case(s);
    let named = |o: ObjRef| obj_name(pkg, o).unwrap_or_else(|| "Object".into());
    Ok(if is("ByteProperty") {
        let e = read_obj(pkg, r, "Enum")?;
        PropKind::Byte((!e.is_none()).then(|| named(e)))
    } else if is("IntProperty") {
        PropKind::Int
    } else if is("BoolProperty") {
        PropKind::Bool
    } else if is("FloatProperty") {
        PropKind::Float
    } else if is("NameProperty") {
        PropKind::Name
    } else if is("StrProperty") {
        PropKind::Str
    } else if is("StringProperty") {
        PropKind::FixedString
    } else if is("ObjectProperty") {
        let c = read_obj(pkg, r, "PropertyClass")?;
        PropKind::Object(named(c), is_actor(pkg, c))
    } else if is("ClassProperty") {
        read_obj(pkg, r, "PropertyClass")?;
        PropKind::Class(named(read_obj(pkg, r, "MetaClass")?))
    } else if is("StructProperty") {
        PropKind::Struct(named(read_obj(pkg, r, "Struct")?))
    } else if is("ArrayProperty") && depth < 4 {
        let inner = read_obj(pkg, r, "Inner")?;
        let Ok(Target::Export(k)) = pkg.check_ref(inner) else {
            return Ok(PropKind::Other("ArrayProperty".into()));
        };
        let p = read_prop_depth(pkg, k, depth + 1)?;
        PropKind::Array(Box::new(p))
    } else if is("DelegateProperty") {
        PropKind::Delegate
    } else if is("PointerProperty") {
        PropKind::Pointer
    } else {
        PropKind::Other(class.to_string())
    })
}

fn read_prop_depth(pkg: &Package<'_>, i: usize, depth: u32) -> Result<PropKind> {
    let class = pkg.export_class_name(i)?.to_string();
    let mut r = field_reader(pkg, i)
        .ok_or_else(|| pakrat_io::Error::Other(format!("property export {i}: no data")))?;
    prop_base(pkg, &mut r)?;
    prop_kind(pkg, &class, &mut r, depth)
}

/// The `UField` and `UProperty` fields every property starts with, up to
/// its type's own fields: `(ArrayDim, PropertyFlags)`. Vengeance builds
/// (SWAT 4, Tribes: Vengeance) add two names (the editor's combo type and
/// display) and a comment string after RepOffset (UELib
/// `UProperty.Deserialize`, `VENGEANCE`).
fn prop_base(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<(i32, u32)> {
    read_obj(pkg, r, "SuperField")?;
    read_obj(pkg, r, "Next")?;
    let array_dim = r.i32("ArrayDim")?;
    let flags = r.u32("PropertyFlags")?;
    read_name(pkg, r, "Category")?;
    if flags & CPF_NET != 0 {
        r.u16("RepOffset")?;
    }
    if crate::summary::vengeance_header(pkg.summary.version, pkg.summary.licensee) {
        read_name(pkg, r, "EditComboType")?;
        read_name(pkg, r, "EditDisplay")?;
        r.fstring("property comment")?;
    }
    Ok((array_dim, flags))
}

/// Flag bits a UE1/UE2 function can have (UT432 `EFunctionFlags` and the
/// UE2 additions up to `FUNC_Delegate` 0x100000).
const FUNC_KNOWN: u32 = 0x001F_FFFF;

/// `(iNative, FunctionFlags)` of function export `i`, read from the end of
/// its data. With `FUNC_Net` a RepOffset follows the flags. The reading
/// with `FUNC_Net` is taken when its flags are plausible (only known bits):
/// a function without it would need an operator precedence with bit 0x40
/// for that; otherwise the reading without `FUNC_Net`.
pub fn function_tail(pkg: &Package<'_>, i: usize) -> Option<(u16, u32)> {
    let h = struct_header(pkg, i)?;
    let rest = h.rest.rest();
    let old = pkg.summary.version <= 63;
    // Bytes from the first tail field to the end of the flags.
    let fixed = if old { 12 } else { 7 };
    let at = |end: usize| -> Option<(u16, u32)> {
        let s = rest.get(end.checked_sub(fixed)?..end)?;
        let native_at = if old { 2 } else { 0 };
        let native = u16::from_le_bytes([s[native_at], s[native_at + 1]]);
        let f = &s[fixed - 4..];
        Some((native, u32::from_le_bytes([f[0], f[1], f[2], f[3]])))
    };
    let n = rest.len();
    let plausible = |t: &(u16, u32)| t.1 & !FUNC_KNOWN == 0;
    let plain = at(n).filter(|t| t.1 & FUNC_NET == 0 && plausible(t));
    let net = n
        .checked_sub(2)
        .and_then(at)
        .filter(|t| t.1 & FUNC_NET != 0 && plausible(t));
    // An empty script leaves exactly the tail.
    if h.script_size == 0 {
        return if n == fixed {
            plain
        } else {
            net.filter(|_| n == fixed + 2)
        };
    }
    net.or(plain)
}

/// Read field export `i` as the kind its class names.
pub fn read_field(pkg: &Package<'_>, i: usize) -> FieldKind {
    let name = pkg.name(pkg.exports[i].object_name).to_string();
    let class = pkg.export_class_name(i).unwrap_or("").to_string();
    let is = |s: &str| class.eq_ignore_ascii_case(s);
    if class.ends_with("Property") {
        return match read_prop(pkg, i) {
            Ok(p) => FieldKind::Prop(p),
            Err(e) => FieldKind::Unreadable(name, e.to_string()),
        };
    }
    if is("Function") {
        let Some((native, flags)) = function_tail(pkg, i) else {
            return FieldKind::Unreadable(name, "function flags not located".into());
        };
        let mut props = Vec::new();
        // Only properties: no recursion into fields nested deeper.
        for k in children(pkg, i) {
            if pkg
                .export_class_name(k)
                .is_ok_and(|c| c.ends_with("Property"))
            {
                if let Ok(p) = read_prop(pkg, k) {
                    props.push(p);
                }
            }
        }
        let overrides = field_reader(pkg, i)
            .and_then(|mut r| read_obj(pkg, &mut r, "SuperField").ok())
            .is_some_and(|s| !s.is_none());
        return FieldKind::Func(Func {
            name,
            native,
            overrides,
            flags,
            props,
        });
    }
    if is("Enum") {
        return match crate::enums::read_enum(pkg, i) {
            Some(e) => FieldKind::Enum(e.name, e.values),
            None => FieldKind::Unreadable(name, "enum values do not parse".into()),
        };
    }
    if is("Const") {
        let value = field_reader(pkg, i).and_then(|mut r| {
            read_obj(pkg, &mut r, "SuperField").ok()?;
            read_obj(pkg, &mut r, "Next").ok()?;
            let v = r.fstring("Const value").ok()?;
            (r.remaining() == 0).then(|| v.to_string())
        });
        return match value {
            Some(v) => FieldKind::Const(name, v),
            None => FieldKind::Unreadable(name, "constant value does not parse".into()),
        };
    }
    FieldKind::Other(class)
}

/// `RepOffset` of property export `i` (present with `CPF_Net`): the
/// memory offset, in its class's script, of its replication condition.
pub fn prop_rep_offset(pkg: &Package<'_>, i: usize) -> Option<u16> {
    let mut r = field_reader(pkg, i)?;
    read_obj(pkg, &mut r, "SuperField").ok()?;
    read_obj(pkg, &mut r, "Next").ok()?;
    r.i32("ArrayDim").ok()?;
    let flags = r.u32("PropertyFlags").ok()?;
    read_name(pkg, &mut r, "Category").ok()?;
    if flags & CPF_NET == 0 {
        return None;
    }
    r.u16("RepOffset").ok()
}

/// `RepOffset` of function export `i` (the two bytes after its flags when
/// `FUNC_Net` is set).
pub fn function_rep_offset(pkg: &Package<'_>, i: usize) -> Option<u16> {
    let (_, flags) = function_tail(pkg, i)?;
    if flags & FUNC_NET == 0 {
        return None;
    }
    let rest = struct_header(pkg, i)?.rest.rest();
    let n = rest.len();
    Some(u16::from_le_bytes([
        *rest.get(n.checked_sub(2)?)?,
        *rest.get(n - 1)?,
    ]))
}

/// Whether function export `i` overrides a function of a superclass
/// (`SuperField` set).
pub fn function_overrides(pkg: &Package<'_>, i: usize) -> bool {
    field_reader(pkg, i)
        .and_then(|mut r| read_obj(pkg, &mut r, "SuperField").ok())
        .is_some_and(|s| !s.is_none())
}
