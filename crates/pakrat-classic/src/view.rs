//! The text view of decoded properties, with names and object references
//! resolved (the JSON view is [`crate::json`]).
//!
//! Text follows the engine's T3D style: `USize=256`, `bMasked=True`,
//! `Palette=Palette'Group.Pal'`, `Location=(X=1.0,Y=2.0,Z=3.0)`, array
//! elements as `Name(3)=…`.

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
