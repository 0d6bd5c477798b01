//! Typed decoding of dynamic arrays (`Array` tagged properties).
//!
//! In UE1/UE2 the tag of an `Array` property does not say what its elements
//! are: that comes from the class definition, i.e. the `ArrayProperty`
//! export named like the property whose outer is the object's class (or one
//! of its superclasses), and its `Inner` property. When that definition is
//! in the same package, the elements are decoded by the `Inner`'s class;
//! otherwise, or when the elements do not use exactly the property's bytes,
//! the array keeps its raw form ([`Value::Array`]).
//!
//! Serialised layout of a property export's data (after its empty tagged
//! list): `UField` = SuperField (CIdx), Next (CIdx); `UProperty` = ArrayDim
//! (i32), PropertyFlags (u32), Category (name CIdx), RepOffset (u16, only
//! when `CPF_Net` = 0x20 is set); then `UArrayProperty` = Inner (CIdx) and
//! `UStructProperty` = Struct (CIdx) (UT432 `UnProp.cpp`
//! `UProperty::Serialize`; UELib `UProperty.Deserialize`). pakrat accepts
//! the `Inner` only when these fields use the export's data exactly and
//! the `Inner` is an export whose outer is the array property itself.

use pakrat_io::{Reader, Result};

use crate::package::{ObjRef, Package, Target};
use crate::props::{read_name, read_obj, read_object, read_struct, read_tagged, struct_is_tagged};
use crate::props::{Property, StructValue, Value};

/// `CPF_Net`: the property is replicated and a RepOffset follows.
const CPF_NET: u32 = 0x20;

/// Longest superclass chain followed (real chains are < 20 deep).
pub(crate) const MAX_SUPER_DEPTH: usize = 64;

/// The element type of an array, from its `Inner` property's class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `ByteProperty`: one byte.
    Byte,
    /// `IntProperty`: i32.
    Int,
    /// `BoolProperty`: one byte, 0 or 1.
    Bool,
    /// `FloatProperty`: f32.
    Float,
    /// `ObjectProperty`: object reference (CIdx).
    Object,
    /// `ClassProperty`: class reference (CIdx).
    Class,
    /// `NameProperty`: name index (CIdx).
    Name,
    /// `StrProperty`: FString.
    Str,
    /// `StructProperty`, by struct name: binary for the structs that stay
    /// binary, a tagged list (up to `None`) per element from version 118.
    Struct(String),
}

/// Read a property export's `UField` + `UProperty` fields; the reader is
/// left after them (at the subclass's own fields).
pub(crate) fn property_fields<'a>(pkg: &Package<'a>, i: usize) -> Option<Reader<'a>> {
    let od = read_object(pkg, i).ok()?;
    // The object's own tagged list is skipped: it is not part of the
    // UField layout (UT v469 `Actor.Touching` carries one).
    if od.class.is_some() {
        return None;
    }
    let mut r = od.native;
    read_obj(pkg, &mut r, "SuperField").ok()?;
    read_obj(pkg, &mut r, "Next").ok()?;
    r.i32("ArrayDim").ok()?;
    let flags = r.u32("PropertyFlags").ok()?;
    read_name(pkg, &mut r, "Category").ok()?;
    if flags & CPF_NET != 0 {
        r.u16("RepOffset").ok()?;
    }
    Some(r)
}

/// The export holding property `name` declared directly in struct/class
/// export `owner`, if its class is `class`.
pub(crate) fn find_member(
    pkg: &Package<'_>,
    owner: usize,
    prop: &str,
    class: &str,
) -> Option<usize> {
    pkg.exports.iter().enumerate().find_map(|(j, e)| {
        (e.outer == ObjRef::export(owner)
            && pkg.name(e.object_name).eq_ignore_ascii_case(prop)
            && pkg
                .export_class_name(j)
                .is_ok_and(|c| c.eq_ignore_ascii_case(class)))
        .then_some(j)
    })
}

/// Where the definition of an array property was looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Found in this package: the element type.
    Found(Elem),
    /// Not declared in this package's part of the class chain; the chain
    /// continues with this imported class (`(package, class)`).
    Super(String, String),
    /// The definition was found but is not usable, or the chain ended.
    Unknown,
}

/// Look up the element type of array property `name` declared in class
/// export `class` or its superclasses within `pkg` (bounded, cycle-safe).
pub fn lookup(pkg: &Package<'_>, class: usize, name: &str) -> Lookup {
    let mut cur = class;
    let mut seen = Vec::new();
    for _ in 0..MAX_SUPER_DEPTH {
        if seen.contains(&cur) {
            return Lookup::Unknown;
        }
        seen.push(cur);
        if let Some(j) = find_member(pkg, cur, name, "ArrayProperty") {
            return element_type(pkg, j).map_or(Lookup::Unknown, Lookup::Found);
        }
        let Some(e) = pkg.exports.get(cur) else {
            return Lookup::Unknown;
        };
        match pkg.check_ref(e.super_) {
            Ok(Target::Export(s)) => cur = s,
            Ok(Target::Import(s)) => return import_class(pkg, s),
            _ => return Lookup::Unknown,
        }
    }
    Lookup::Unknown
}

/// `(package, class)` of an imported class.
fn import_class(pkg: &Package<'_>, i: usize) -> Lookup {
    match (pkg.import_package(i), pkg.imports.get(i)) {
        (Ok(p), Some(im)) => Lookup::Super(p.to_string(), pkg.name(im.object_name).to_string()),
        _ => Lookup::Unknown,
    }
}

/// Supplies class definitions from other packages (e.g. `Engine.u` for a
/// map or a mod): the element type of array property `property` of class
/// `class` in package `package`, looked up through its superclasses.
pub trait ClassResolver {
    /// The element type, or `None` when the definition is not available.
    fn element_type(&self, package: &str, class: &str, property: &str) -> Option<Elem>;
}

/// A [`ClassResolver`] over a set of parsed packages, each under its
/// package name (the file name without extension, e.g. `Engine`).
pub struct PackageSet<'p, 'a> {
    packages: Vec<(String, &'p Package<'a>)>,
}

impl<'p, 'a> PackageSet<'p, 'a> {
    /// An empty set.
    pub fn new() -> Self {
        PackageSet {
            packages: Vec::new(),
        }
    }

    /// Add a package under its name (case-insensitive lookups).
    pub fn add(&mut self, name: &str, pkg: &'p Package<'a>) {
        self.packages.push((name.to_string(), pkg));
    }

    fn get(&self, name: &str) -> Option<&'p Package<'a>> {
        self.packages
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p)| *p)
    }
}

impl Default for PackageSet<'_, '_> {
    fn default() -> Self {
        Self::new()
    }
}

impl ClassResolver for PackageSet<'_, '_> {
    fn element_type(&self, package: &str, class: &str, property: &str) -> Option<Elem> {
        let (mut pkg_name, mut class_name) = (package.to_string(), class.to_string());
        // Each step crosses into another package: bounded like a chain.
        for _ in 0..MAX_SUPER_DEPTH {
            let pkg = self.get(&pkg_name)?;
            let c = top_level_class(pkg, &class_name)?;
            match lookup(pkg, c, property) {
                Lookup::Found(t) => return Some(t),
                Lookup::Super(p, c) => (pkg_name, class_name) = (p, c),
                Lookup::Unknown => return None,
            }
        }
        None
    }
}

/// The class export named `name` at the top level of `pkg`.
fn top_level_class(pkg: &Package<'_>, name: &str) -> Option<usize> {
    pkg.exports.iter().position(|e| {
        e.class.is_none() && e.outer.is_none() && pkg.name(e.object_name).eq_ignore_ascii_case(name)
    })
}

/// The element type of `ArrayProperty` export `arr`.
fn element_type(pkg: &Package<'_>, arr: usize) -> Option<Elem> {
    let mut r = property_fields(pkg, arr)?;
    let inner = read_obj(pkg, &mut r, "Inner").ok()?;
    if r.remaining() != 0 {
        return None;
    }
    let Ok(Target::Export(k)) = pkg.check_ref(inner) else {
        return None;
    };
    if pkg.exports.get(k)?.outer != ObjRef::export(arr) {
        return None;
    }
    let class = pkg.export_class_name(k).ok()?;
    let is = |s: &str| class.eq_ignore_ascii_case(s);
    Some(if is("ByteProperty") {
        Elem::Byte
    } else if is("IntProperty") {
        Elem::Int
    } else if is("BoolProperty") {
        Elem::Bool
    } else if is("FloatProperty") {
        Elem::Float
    } else if is("ObjectProperty") {
        Elem::Object
    } else if is("ClassProperty") {
        Elem::Class
    } else if is("NameProperty") {
        Elem::Name
    } else if is("StrProperty") {
        Elem::Str
    } else if is("StructProperty") {
        let mut r = property_fields(pkg, k)?;
        let s = read_obj(pkg, &mut r, "Struct").ok()?;
        if r.remaining() != 0 || s.is_none() {
            return None;
        }
        Elem::Struct(pkg.object_name(s).ok()?.to_string())
    } else {
        return None;
    })
}

/// Binary size of the structs UE2 keeps binary inside arrays.
fn binary_struct_size(name: &str) -> Option<usize> {
    let is = |s: &str| name.eq_ignore_ascii_case(s);
    if is("Vector") || is("Rotator") {
        Some(12)
    } else if is("Color") {
        Some(4)
    } else if is("Plane") || is("Quat") || is("Sphere") || is("Guid") {
        Some(16)
    } else if is("Range") || is("Vector2D") {
        Some(8)
    } else if is("RangeVector") {
        Some(24)
    } else if is("Scale") {
        Some(17)
    } else if is("Box") || is("BoundingBox") {
        Some(25)
    } else {
        None
    }
}

fn read_elem<'a>(pkg: &Package<'a>, r: &mut Reader<'a>, t: &Elem) -> Result<Value<'a>> {
    Ok(match t {
        Elem::Byte => Value::Byte(r.u8("byte element")?),
        Elem::Int => Value::Int(r.i32("int element")?),
        Elem::Bool => {
            let at = r.offset();
            match r.u8("bool element")? {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                b => {
                    return Err(pakrat_io::Error::invalid(
                        at,
                        format!("bool element {b}, expected 0 or 1"),
                    ))
                }
            }
        }
        Elem::Float => Value::Float(r.f32("float element")?),
        Elem::Object => Value::Object(read_obj(pkg, r, "object element")?),
        Elem::Class => Value::Class(read_obj(pkg, r, "class element")?),
        Elem::Name => Value::Name(read_name(pkg, r, "name element")?),
        Elem::Str => Value::Str(r.fstring("string element")?),
        Elem::Struct(name) => {
            let size = binary_struct_size(name);
            if struct_is_tagged(pkg, name, size.unwrap_or(0) as u32) {
                let props: Vec<Property<'a>> = read_tagged(pkg, r, 1)?;
                Value::Struct(Box::new(StructValue::Tagged(props)))
            } else {
                let Some(n) = size else {
                    return Err(pakrat_io::Error::Other(format!(
                        "struct {name}: binary layout not known"
                    )));
                };
                let b = r.bytes(n as u64, "struct element")?;
                let mut sr = Reader::with_base(b, r.base() + (r.pos() - n) as u64);
                let v = read_struct(pkg, &mut sr, name)?;
                if matches!(v, StructValue::Raw(_)) || sr.remaining() != 0 {
                    return Err(pakrat_io::Error::Other(format!(
                        "struct {name}: not decoded"
                    )));
                }
                Value::Struct(Box::new(v))
            }
        }
    })
}

/// Decode `count` elements of type `t` from `data`; `None` unless every
/// element decodes and together they use exactly `data`.
fn decode<'a>(
    pkg: &Package<'a>,
    data: &'a [u8],
    base: u64,
    count: u32,
    t: &Elem,
) -> Option<Vec<Value<'a>>> {
    // Every element uses at least one byte: a count above the byte count
    // cannot tie out (and bounds the allocation).
    if count as usize > data.len() {
        return None;
    }
    let mut r = Reader::with_base(data, base);
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        out.push(read_elem(pkg, &mut r, t).ok()?);
    }
    (r.remaining() == 0).then_some(out)
}

/// Replace the raw `Array` values among the top-level properties of
/// export `i` by typed ones where the element type is known: from this
/// package's class chain, then (when the chain leaves the package) from
/// `resolver`. Arrays whose elements do not use exactly the property's
/// bytes stay raw. [`crate::props::read_object`] already does the
/// in-package part; call this to add other packages' definitions.
pub fn type_arrays_with<'a>(
    pkg: &Package<'a>,
    i: usize,
    props: &mut [Property<'a>],
    resolver: Option<&dyn ClassResolver>,
) {
    let Some(e) = pkg.exports.get(i) else {
        return;
    };
    // Where the chain starts: a local class, or an imported one.
    let start = if e.class.is_none() {
        Some(i)
    } else {
        match pkg.check_ref(e.class) {
            Ok(Target::Export(c)) => Some(c),
            _ => None,
        }
    };
    let imported = match pkg.check_ref(e.class) {
        Ok(Target::Import(c)) => Some(import_class(pkg, c)),
        _ => None,
    };
    for p in props.iter_mut() {
        let Value::Array { count, data, .. } = p.value else {
            continue;
        };
        let prop = pkg.name(p.name);
        let found = match (start, &imported) {
            (Some(c), _) => lookup(pkg, c, prop),
            (None, Some(l)) => l.clone(),
            (None, None) => Lookup::Unknown,
        };
        let t = match found {
            Lookup::Found(t) => t,
            Lookup::Super(pk, cl) => match resolver.and_then(|r| r.element_type(&pk, &cl, prop)) {
                Some(t) => t,
                None => continue,
            },
            Lookup::Unknown => continue,
        };
        // `data` borrows from the package's bytes: its file offset.
        let base = (data.as_ptr() as usize).wrapping_sub(pkg.data().as_ptr() as usize) as u64;
        if let Some(elems) = decode(pkg, data, base, count, &t) {
            p.value = Value::TypedArray {
                elem: t,
                elems,
                data,
            };
        }
    }
}
