//! Human and JSON views of decoded properties, with names and object
//! references resolved.
//!
//! Text follows the engine's T3D style: `USize=256`, `bMasked=True`,
//! `Palette=Palette'Group.Pal'`, `Location=(X=1.0,Y=2.0,Z=3.0)`, array
//! elements as `Name(3)=…`.

use serde_json::{json, Value as Json};

use crate::package::{ObjRef, Package};
use crate::props::{Property, StructValue, Value};

fn obj_text(pkg: &Package<'_>, r: ObjRef) -> String {
    if r.is_none() {
        return "None".into();
    }
    let class = pkg.class_name(r).unwrap_or("?");
    let path = pkg.object_path(r).unwrap_or_else(|e| format!("<{e}>"));
    format!("{class}'{path}'")
}

fn float_text(f: f32) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

fn hex_preview(b: &[u8]) -> String {
    let shown: Vec<String> = b.iter().take(32).map(|x| format!("{x:02x}")).collect();
    let more = if b.len() > 32 { "…" } else { "" };
    format!("{}{more}", shown.join(""))
}

fn list_text(names: &[&str], vals: &[String]) -> String {
    let parts: Vec<String> = names
        .iter()
        .zip(vals)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    format!("({})", parts.join(","))
}

/// The value as T3D-like text.
pub fn value_text(pkg: &Package<'_>, v: &Value<'_>) -> String {
    match v {
        Value::Byte(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Float(f) => float_text(*f),
        Value::Object(r) | Value::Class(r) => obj_text(pkg, *r),
        Value::Name(n) => pkg.name(*n).to_string(),
        Value::FixedString(s) => format!("{:?}", pakrat_io::FString::from_latin1(s)),
        Value::Str(s) => format!("{:?}", s.text),
        Value::Vector(v) => list_text(&["X", "Y", "Z"], &v.map(float_text)),
        Value::Rotator(r) => list_text(&["Pitch", "Yaw", "Roll"], &r.map(|x| x.to_string())),
        Value::Array {
            count,
            elem_size,
            data,
        } => match elem_size {
            Some(s) => format!("<array of {count} x {s} bytes: {}>", hex_preview(data)),
            None => format!(
                "<array of {count}, {} bytes: {}>",
                data.len(),
                hex_preview(data)
            ),
        },
        Value::TypedArray { elems, .. } => {
            let parts: Vec<String> = elems.iter().map(|e| value_text(pkg, e)).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Raw(b) => format!("<{} bytes: {}>", b.len(), hex_preview(b)),
        Value::Struct(s) => struct_text(pkg, s),
    }
}

fn struct_text(pkg: &Package<'_>, s: &StructValue<'_>) -> String {
    match s {
        StructValue::Vector(v) => list_text(&["X", "Y", "Z"], &v.map(float_text)),
        StructValue::Rotator(r) => list_text(&["Pitch", "Yaw", "Roll"], &r.map(|x| x.to_string())),
        StructValue::Color(c) => list_text(&["R", "G", "B", "A"], &c.map(|x| x.to_string())),
        StructValue::Floats(f) => {
            let parts: Vec<String> = f.iter().map(|x| float_text(*x)).collect();
            format!("({})", parts.join(","))
        }
        StructValue::Guid(g) => format!("({g})"),
        StructValue::Scale {
            scale,
            sheer_rate,
            sheer_axis,
        } => format!(
            "(Scale={},SheerRate={},SheerAxis={sheer_axis})",
            list_text(&["X", "Y", "Z"], &scale.map(float_text)),
            float_text(*sheer_rate)
        ),
        StructValue::Box { min, max, valid } => format!(
            "(Min={},Max={},IsValid={valid})",
            list_text(&["X", "Y", "Z"], &min.map(float_text)),
            list_text(&["X", "Y", "Z"], &max.map(float_text))
        ),
        StructValue::PointRegion {
            zone,
            leaf,
            zone_number,
        } => format!(
            "(Zone={},iLeaf={leaf},ZoneNumber={zone_number})",
            obj_text(pkg, *zone)
        ),
        StructValue::Tagged(props) => {
            let parts: Vec<String> = props.iter().map(|p| property_text(pkg, p)).collect();
            format!("({})", parts.join(","))
        }
        StructValue::Raw(b) => format!("<{} bytes: {}>", b.len(), hex_preview(b)),
    }
}

/// `Name=Value` or `Name(i)=Value`.
pub fn property_text(pkg: &Package<'_>, p: &Property<'_>) -> String {
    let name = pkg.name(p.name);
    let v = value_text(pkg, &p.value);
    if p.array_index > 0 {
        format!("{name}({})={v}", p.array_index)
    } else {
        format!("{name}={v}")
    }
}

fn obj_json(pkg: &Package<'_>, r: ObjRef) -> Json {
    if r.is_none() {
        return Json::Null;
    }
    json!({
        "ref": r.0,
        "class": pkg.class_name(r).unwrap_or("?"),
        "path": pkg.object_path(r).unwrap_or_else(|e| format!("<{e}>")),
    })
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The value as JSON.
pub fn value_json(pkg: &Package<'_>, v: &Value<'_>) -> Json {
    match v {
        Value::Byte(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Bool(b) => json!(b),
        Value::Float(f) => json!(f),
        Value::Object(r) | Value::Class(r) => obj_json(pkg, *r),
        Value::Name(n) => json!(pkg.name(*n)),
        Value::FixedString(s) => json!(pakrat_io::FString::from_latin1(s)),
        Value::Str(s) => json!(s.text),
        Value::Vector(v) => json!({"X": v[0], "Y": v[1], "Z": v[2]}),
        Value::Rotator(r) => json!({"Pitch": r[0], "Yaw": r[1], "Roll": r[2]}),
        Value::Array {
            count,
            elem_size,
            data,
        } => json!({"count": count, "element_size": elem_size, "hex": hex(data)}),
        Value::TypedArray { elems, .. } => {
            Json::Array(elems.iter().map(|e| value_json(pkg, e)).collect())
        }
        Value::Raw(b) => json!({"hex": hex(b)}),
        Value::Struct(s) => struct_json(pkg, s),
    }
}

fn struct_json(pkg: &Package<'_>, s: &StructValue<'_>) -> Json {
    match s {
        StructValue::Vector(v) => json!({"X": v[0], "Y": v[1], "Z": v[2]}),
        StructValue::Rotator(r) => json!({"Pitch": r[0], "Yaw": r[1], "Roll": r[2]}),
        StructValue::Color(c) => json!({"R": c[0], "G": c[1], "B": c[2], "A": c[3]}),
        StructValue::Floats(f) => json!(f),
        StructValue::Guid(g) => json!(g.to_string()),
        StructValue::Scale {
            scale,
            sheer_rate,
            sheer_axis,
        } => json!({"Scale": {"X": scale[0], "Y": scale[1], "Z": scale[2]},
                     "SheerRate": sheer_rate, "SheerAxis": sheer_axis}),
        StructValue::Box { min, max, valid } => json!({
            "Min": {"X": min[0], "Y": min[1], "Z": min[2]},
            "Max": {"X": max[0], "Y": max[1], "Z": max[2]},
            "IsValid": valid}),
        StructValue::PointRegion {
            zone,
            leaf,
            zone_number,
        } => json!({"Zone": obj_json(pkg, *zone), "iLeaf": leaf, "ZoneNumber": zone_number}),
        StructValue::Tagged(props) => properties_json(pkg, props),
        StructValue::Raw(b) => json!({"hex": hex(b)}),
    }
}

/// One property as a JSON object.
pub fn property_json(pkg: &Package<'_>, p: &Property<'_>) -> Json {
    let mut o = json!({
        "name": pkg.name(p.name),
        "type": p.kind,
        "size": p.size,
        "offset": p.offset,
        "value": value_json(pkg, &p.value),
    });
    if let Some(s) = p.struct_name {
        o["struct"] = json!(pkg.name(s));
    }
    if p.array_index > 0 {
        o["index"] = json!(p.array_index);
    }
    if p.actual_size != p.size {
        o["actual_size"] = json!(p.actual_size);
    }
    o
}

/// A property list as a JSON array.
pub fn properties_json(pkg: &Package<'_>, props: &[Property<'_>]) -> Json {
    Json::Array(props.iter().map(|p| property_json(pkg, p)).collect())
}
