//! Enums of `byte` properties, from the class definitions in the package.
//!
//! Like an array's element type ([`crate::arrays`]), a byte's enum is not in
//! its tag: the class declares it. The `ByteProperty` export named like the
//! property, in the object's class or one of its superclasses, holds after
//! the `UProperty` fields an `Enum` reference (CIdx, 0 for a plain byte);
//! an `Enum` export holds after its `UField` fields (SuperField, Next) its
//! value names, a `TArray<FName>` (compact count, compact name indices)
//! (UT432 `UnProp.cpp` `UByteProperty::Serialize`, `UnClass.cpp`
//! `UEnum::Serialize`). pakrat accepts both only when these fields use the
//! export's data exactly. An enum imported from another package is known
//! by name only.

use crate::arrays::{find_member, property_fields, MAX_SUPER_DEPTH};
use crate::package::{ObjRef, Package, Target};
use crate::props::{read_name, read_obj, read_object};

/// The enum of a byte property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteEnum {
    /// The enum's object name (`ETextureFormat`).
    pub name: String,
    /// Its value names in order (`TEXF_P8`, ...); empty when the enum is
    /// defined in another package.
    pub values: Vec<String>,
}

impl ByteEnum {
    /// `EName::Value` for `b`, when the value has a name.
    pub fn value_text(&self, b: u8) -> Option<String> {
        self.values
            .get(usize::from(b))
            .map(|v| format!("{}::{v}", self.name))
    }
}

/// Where the class chain of export `i` starts within the package: the
/// export itself for a class, its class when that is a local export.
pub fn chain_start(pkg: &Package<'_>, i: usize) -> Option<usize> {
    let e = pkg.exports.get(i)?;
    if e.class.is_none() {
        return Some(i);
    }
    match pkg.check_ref(e.class) {
        Ok(Target::Export(c)) => Some(c),
        _ => None,
    }
}

/// The enum of byte property `prop` declared in struct or class export
/// `owner` or (following `super_`) in its superclasses within `pkg`
/// (bounded, cycle-safe). `None` for a plain byte or an unknown definition.
pub fn byte_enum(pkg: &Package<'_>, owner: usize, prop: &str) -> Option<ByteEnum> {
    let mut cur = owner;
    let mut seen = Vec::new();
    for _ in 0..MAX_SUPER_DEPTH {
        if seen.contains(&cur) {
            return None;
        }
        seen.push(cur);
        if let Some(j) = find_member(pkg, cur, prop, "ByteProperty") {
            return enum_of_property(pkg, j);
        }
        match pkg.check_ref(pkg.exports.get(cur)?.super_) {
            Ok(Target::Export(s)) => cur = s,
            _ => return None,
        }
    }
    None
}

/// The enum a `ByteProperty` export names.
fn enum_of_property(pkg: &Package<'_>, j: usize) -> Option<ByteEnum> {
    let mut r = property_fields(pkg, j)?;
    let e = read_obj(pkg, &mut r, "Enum").ok()?;
    if r.remaining() != 0 || e.is_none() {
        return None;
    }
    match pkg.check_ref(e).ok()? {
        Target::Export(k) => read_enum(pkg, k),
        Target::Import(_) => Some(ByteEnum {
            name: pkg.object_name(e).ok()?.to_string(),
            values: Vec::new(),
        }),
        Target::None => None,
    }
}

/// Read `Enum` export `k`: its name and value names.
pub fn read_enum(pkg: &Package<'_>, k: usize) -> Option<ByteEnum> {
    if !pkg.export_class_name(k).ok()?.eq_ignore_ascii_case("Enum") {
        return None;
    }
    let od = read_object(pkg, k).ok()?;
    let mut r = od.native;
    read_obj(pkg, &mut r, "SuperField").ok()?;
    read_obj(pkg, &mut r, "Next").ok()?;
    // Each name is at least one byte: the count is checked against them.
    let n = r.compact_count("enum value count", 1).ok()?;
    let mut values = Vec::with_capacity(n);
    for _ in 0..n {
        values.push(
            pkg.name(read_name(pkg, &mut r, "enum value").ok()?)
                .to_string(),
        );
    }
    if r.remaining() != 0 {
        return None;
    }
    Some(ByteEnum {
        name: pkg.object_name(ObjRef::export(k)).ok()?.to_string(),
        values,
    })
}
