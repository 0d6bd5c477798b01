//! `props --json`: the property shape shared with UE4/UE5 packages
//! (`docs/properties.md`).
//!
//! One entry per export: `{"name", "path", "class", "outer", "properties",
//! "native"}` (and `"error"` when the export does not decode). A property
//! is `{"name", "type", "value"}`, with `"index"` when its array index is
//! not 0. Types are the engine's names (`IntProperty`,
//! `StructProperty(Vector)`, `ArrayProperty(NameProperty)`,
//! `ByteProperty(ETextureFormat)`); object references are full paths
//! (`Package.Group.Name`) or `null`; floats print so that they read back
//! to the same bits (`"NaN"`, `"Infinity"`, `"-Infinity"` as strings); a
//! byte whose enum is known is `"EName::Value"`; a struct is an object of
//! its fields; what pakrat cannot decode is `{"skipped": bytes, "reason"}`.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value as Json};

use crate::arrays::Elem;
use crate::enums::{byte_enum, chain_start, ByteEnum};
use crate::package::{ObjRef, Package, Target};
use crate::props::{ObjectData, PropType, Property, StructValue, Value};

/// A float as JSON: the shortest decimal that reads back to the same `f32`
/// bits; NaN and infinities as the strings `"NaN"`, `"Infinity"`,
/// `"-Infinity"`.
pub fn f32_json(f: f32) -> Json {
    if f.is_nan() {
        return json!("NaN");
    }
    if f.is_infinite() {
        return json!(if f > 0.0 { "Infinity" } else { "-Infinity" });
    }
    // `Display` writes the shortest decimal that reads back to `f`; the
    // JSON number is the f64 nearest to it, which prints as that decimal.
    Json::from(f.to_string().parse::<f64>().unwrap_or(f64::from(f)))
}

/// Writes the shared property shape for one package, with its object
/// references as full paths (`Package.Group.Name`).
pub struct PropsJson<'p, 'a> {
    pkg: &'p Package<'a>,
    package: String,
    enums: RefCell<HashMap<(usize, String), Option<ByteEnum>>>,
    links: RefCell<BTreeMap<String, usize>>,
}

impl<'p, 'a> PropsJson<'p, 'a> {
    /// The writer for `pkg`, whose package name (its file name without the
    /// extension, as the engine names it) is `package`.
    pub fn new(pkg: &'p Package<'a>, package: &str) -> Self {
        PropsJson {
            pkg,
            package: package.to_string(),
            enums: RefCell::default(),
            links: RefCell::default(),
        }
    }

    /// The package name.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// Full path of a reference (`Package.Group.Name`; an import's path
    /// starts with its own package), `None` for reference 0.
    pub fn path(&self, r: ObjRef) -> Option<String> {
        if r.is_none() {
            return None;
        }
        let p = self.pkg.object_path(r).unwrap_or_else(|e| format!("<{e}>"));
        Some(match self.pkg.check_ref(r) {
            Ok(Target::Export(i)) => {
                // Without a package name (a library caller that has none),
                // the path within the package.
                let full = if self.package.is_empty() {
                    p
                } else {
                    format!("{}.{p}", self.package)
                };
                self.links.borrow_mut().insert(full.clone(), i);
                full
            }
            _ => p,
        })
    }

    fn path_json(&self, r: ObjRef) -> Json {
        self.path(r).map_or(Json::Null, Json::String)
    }

    /// The exports of this package that the references written so far
    /// point at: full path → export index (the viewer links them).
    pub fn links(&self) -> BTreeMap<String, usize> {
        self.links.borrow().clone()
    }

    /// Full path of the class of `exports[i]` (`Engine.Texture`;
    /// `Core.Class` for a class).
    pub fn class_path(&self, i: usize) -> String {
        match self.pkg.exports.get(i) {
            Some(e) if e.class.is_none() => "Core.Class".into(),
            Some(e) => self.path(e.class).unwrap_or_default(),
            None => String::new(),
        }
    }

    /// One export's entry: `obj` is what [`crate::props::read_object`]
    /// returned for it (its error becomes `"error"`).
    pub fn export(&self, i: usize, obj: Result<&ObjectData<'a>, String>) -> Json {
        let e = self.pkg.exports.get(i);
        let name = e.map_or("?", |e| self.pkg.name(e.object_name));
        let mut o = json!({
            "name": name,
            "path": self.path(ObjRef::export(i)),
            "class": self.class_path(i),
            "outer": e.map_or(Json::Null, |e| self.path_json(e.outer)),
        });
        match obj {
            Ok(d) => {
                o["properties"] = self.properties(chain_start(self.pkg, i), &d.properties);
                o["native"] = json!({"fields": [], "unread": d.native.remaining()});
            }
            Err(err) => {
                o["properties"] = json!([]);
                o["native"] = Json::Null;
                o["error"] = json!(err);
            }
        }
        o
    }

    /// A property list as a JSON array; `owner` is the class or struct
    /// export that declares the properties, when it is in this package
    /// (byte enums are looked up there).
    pub fn properties(&self, owner: Option<usize>, props: &[Property<'a>]) -> Json {
        Json::Array(props.iter().map(|p| self.property(owner, p)).collect())
    }

    /// One property: `{"name", "index" (when not 0), "type", "value"}`.
    pub fn property(&self, owner: Option<usize>, p: &Property<'a>) -> Json {
        let en = match (p.kind, owner) {
            (PropType::Byte, Some(c)) => self.byte_enum(c, self.pkg.name(p.name)),
            _ => None,
        };
        let mut o = Map::new();
        o.insert("name".into(), json!(self.pkg.name(p.name)));
        if p.array_index > 0 {
            o.insert("index".into(), json!(p.array_index));
        }
        o.insert("type".into(), json!(self.type_name(p, en.as_ref())));
        let sname = p.struct_name.map(|s| self.pkg.name(s));
        let v = match (&p.value, &en) {
            (Value::Byte(b), Some(en)) => en.value_text(*b).map_or(json!(b), Json::String),
            (v, _) => self.value(v, sname),
        };
        o.insert("value".into(), v);
        Json::Object(o)
    }

    fn byte_enum(&self, owner: usize, prop: &str) -> Option<ByteEnum> {
        let key = (owner, prop.to_ascii_lowercase());
        if let Some(e) = self.enums.borrow().get(&key) {
            return e.clone();
        }
        let e = byte_enum(self.pkg, owner, prop);
        self.enums.borrow_mut().insert(key, e.clone());
        e
    }

    /// The engine's type name of a property (`StructProperty(Vector)`,
    /// `ArrayProperty(IntProperty)` when the element type is known).
    pub fn type_name(&self, p: &Property<'_>, en: Option<&ByteEnum>) -> String {
        match (p.kind, &p.value) {
            (PropType::Byte, _) => match en {
                Some(e) => format!("ByteProperty({})", e.name),
                None => "ByteProperty".into(),
            },
            (PropType::Struct, _) => format!(
                "StructProperty({})",
                self.pkg.name(p.struct_name.unwrap_or(u32::MAX))
            ),
            (PropType::Array, Value::TypedArray { elem, .. }) => {
                format!("ArrayProperty({})", elem_type_name(elem))
            }
            (k, _) => tag_type_name(k).into(),
        }
    }

    /// A value as JSON; `sname` is the struct's name for struct values.
    pub fn value(&self, v: &Value<'a>, sname: Option<&str>) -> Json {
        match v {
            Value::Byte(b) => json!(b),
            Value::Int(i) => json!(i),
            Value::Bool(b) => json!(b),
            Value::Float(f) => f32_json(*f),
            Value::Object(r) | Value::Class(r) => self.path_json(*r),
            Value::Name(n) => json!(self.pkg.name(*n)),
            Value::FixedString(s) => json!(pakrat_io::FString::from_latin1(s)),
            Value::Str(s) => json!(s.text),
            Value::Vector(v) => xyz(v),
            Value::Rotator(r) => json!({"Pitch": r[0], "Yaw": r[1], "Roll": r[2]}),
            Value::Array { count, data, .. } => skipped(
                data.len() as u64,
                format!(
                    "array of {count} element(s): the class definitions in this package do not give their type, or they do not decode as it"
                ),
            ),
            Value::TypedArray { elem, elems, .. } => {
                let sname = match elem {
                    Elem::Struct(s) => Some(s.as_str()),
                    _ => None,
                };
                Json::Array(elems.iter().map(|e| self.value(e, sname)).collect())
            }
            Value::Raw(b) => skipped(
                b.len() as u64,
                "map or fixed array: its element types are not decoded".into(),
            ),
            Value::Struct(s) => self.struct_value(s, sname.unwrap_or("?")),
        }
    }

    fn struct_value(&self, s: &StructValue<'a>, sname: &str) -> Json {
        match s {
            StructValue::Vector(v) => xyz(v),
            StructValue::Rotator(r) => json!({"Pitch": r[0], "Yaw": r[1], "Roll": r[2]}),
            StructValue::Color(c) => json!({"R": c[0], "G": c[1], "B": c[2], "A": c[3]}),
            StructValue::Floats(f) => floats(sname, f),
            StructValue::Guid(g) => json!(g.to_string()),
            StructValue::Scale {
                scale,
                sheer_rate,
                sheer_axis,
            } => json!({"Scale": xyz(scale), "SheerRate": f32_json(*sheer_rate),
                        "SheerAxis": sheer_axis}),
            StructValue::Box { min, max, valid } => {
                json!({"Min": xyz(min), "Max": xyz(max), "IsValid": valid})
            }
            StructValue::PointRegion {
                zone,
                leaf,
                zone_number,
            } => json!({"Zone": self.path_json(*zone), "iLeaf": leaf, "ZoneNumber": zone_number}),
            StructValue::Tagged(props) => {
                let mut o = Map::new();
                for p in props {
                    let key = match p.array_index {
                        0 => self.pkg.name(p.name).to_string(),
                        i => format!("{}[{i}]", self.pkg.name(p.name)),
                    };
                    let v = self.value(&p.value, p.struct_name.map(|s| self.pkg.name(s)));
                    o.insert(key, v);
                }
                Json::Object(o)
            }
            StructValue::Raw(b) => skipped(
                b.len() as u64,
                format!("binary layout of struct {sname} not known"),
            ),
        }
    }
}

/// `{"skipped": bytes, "reason": why}`.
fn skipped(bytes: u64, reason: String) -> Json {
    json!({"skipped": bytes, "reason": reason})
}

fn xyz(v: &[f32; 3]) -> Json {
    json!({"X": f32_json(v[0]), "Y": f32_json(v[1]), "Z": f32_json(v[2])})
}

/// The float structs by their fields (`crate::props::read_struct` decodes
/// them by name and size): Plane/Sphere/Quat (X, Y, Z, W), Range (Min,
/// Max), Vector2D (X, Y), RangeVector (X, Y, Z ranges), Coords (Origin
/// and three axes), Matrix (four planes).
fn floats(sname: &str, f: &[f32]) -> Json {
    let j = |i: usize| f.get(i).map_or(Json::Null, |x| f32_json(*x));
    let is = |s: &str| sname.eq_ignore_ascii_case(s);
    let range = |i: usize| json!({"Min": j(i), "Max": j(i + 1)});
    let vec = |i: usize| json!({"X": j(i), "Y": j(i + 1), "Z": j(i + 2)});
    let plane = |i: usize| json!({"X": j(i), "Y": j(i + 1), "Z": j(i + 2), "W": j(i + 3)});
    match f.len() {
        2 if is("Range") => range(0),
        2 => json!({"X": j(0), "Y": j(1)}),
        4 => plane(0),
        6 => json!({"X": range(0), "Y": range(2), "Z": range(4)}),
        12 => json!({"Origin": vec(0), "XAxis": vec(3), "YAxis": vec(6), "ZAxis": vec(9)}),
        16 => {
            json!({"XPlane": plane(0), "YPlane": plane(4), "ZPlane": plane(8), "WPlane": plane(12)})
        }
        _ => Json::Array(f.iter().map(|x| f32_json(*x)).collect()),
    }
}

/// The engine's name of a tag type (`classic.md` §3.6: the info byte's
/// type 1–15 are `NAME_ByteProperty` … `NAME_FixedArrayProperty`).
pub fn tag_type_name(k: PropType) -> &'static str {
    match k {
        PropType::Byte => "ByteProperty",
        PropType::Int => "IntProperty",
        PropType::Bool => "BoolProperty",
        PropType::Float => "FloatProperty",
        PropType::Object => "ObjectProperty",
        PropType::Name => "NameProperty",
        PropType::String => "StringProperty",
        PropType::Class => "ClassProperty",
        PropType::Array => "ArrayProperty",
        PropType::Struct => "StructProperty",
        PropType::Vector => "VectorProperty",
        PropType::Rotator => "RotatorProperty",
        PropType::Str => "StrProperty",
        PropType::Map => "MapProperty",
        PropType::FixedArray => "FixedArrayProperty",
    }
}

/// The engine's type name of an array element type.
pub fn elem_type_name(e: &Elem) -> String {
    match e {
        Elem::Byte => "ByteProperty".into(),
        Elem::Int => "IntProperty".into(),
        Elem::Bool => "BoolProperty".into(),
        Elem::Float => "FloatProperty".into(),
        Elem::Object => "ObjectProperty".into(),
        Elem::Class => "ClassProperty".into(),
        Elem::Name => "NameProperty".into(),
        Elem::Str => "StrProperty".into(),
        Elem::Struct(s) => format!("StructProperty({s})"),
    }
}
