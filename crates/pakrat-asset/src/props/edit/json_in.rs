//! JSON in the shape `props --json` prints → the model, walked beside the
//! decoded values (which give every type).

use serde_json::Value as J;

use super::{fail, label, value_json, Editor, Result};
use crate::props::schema::qualify_enum;
use crate::props::{ExportProps, PropType, Property, Text, TextHistory, Value};
use pakrat_io::Guid;

/// The export's properties after `e` (one export's JSON object).
pub(super) fn export_from_json(
    ed: &mut Editor<'_, '_>,
    at: &str,
    decoded: &ExportProps,
    e: &J,
) -> Result<ExportProps> {
    let mut out = decoded.clone();
    let props = match e.get("properties") {
        Some(J::Array(a)) => a,
        Some(_) => return fail(&format!("{at}: properties"), "is not an array"),
        None => return fail(at, "has no \"properties\""),
    };
    out.properties = props_from_json(ed, at, "", &decoded.properties, props)?;
    match e.get("native") {
        Some(J::Object(n)) => {
            if let Some(J::Array(f)) = n.get("fields") {
                out.native = props_from_json(ed, at, "native.", &decoded.native, f)?;
            }
        }
        Some(J::Null) | None => {}
        Some(_) => return fail(&format!("{at}: native"), "is not an object or null"),
    }
    if !ed.changes.is_empty() {
        if let Some(err) = &decoded.error {
            return fail(
                at,
                format!("the export did not decode fully ({err}): it cannot be edited"),
            );
        }
    }
    Ok(out)
}

/// A list of `{"name", "index"?, "type", "value"}` beside the decoded
/// properties: matched by name and index; a property the JSON leaves out
/// keeps its value.
fn props_from_json(
    ed: &mut Editor<'_, '_>,
    at: &str,
    prefix: &str,
    decoded: &[Property],
    list: &[J],
) -> Result<Vec<Property>> {
    let mut out = decoded.to_vec();
    for (k, p) in list.iter().enumerate() {
        let here = format!("{at}: {prefix}properties[{k}]");
        let Some(name) = p.get("name").and_then(J::as_str) else {
            return fail(&here, "has no \"name\"");
        };
        let index = match p.get("index") {
            None => 0,
            Some(i) => match i.as_u64().and_then(|i| u32::try_from(i).ok()) {
                Some(i) => i,
                None => return fail(&here, "\"index\" is not a small unsigned integer"),
            },
        };
        let (slot, new) = match out.iter().position(|q| q.name == name && q.index == index) {
            Some(s) => (s, false),
            None => {
                let class = ed.class();
                let added = if prefix.is_empty() {
                    ed.add_from_schema(&class, &mut out, name, index)
                } else {
                    None
                };
                match added {
                    Some(s) => (s, true),
                    None if prefix.is_empty() && !ed.has_schema(&class) => {
                        return fail(
                            &format!("{at}: {name}"),
                            format!("the export does not store it, and adding a property needs its type: there is no schema for {class} (give --usmap mappings that have it)"),
                        )
                    }
                    None => {
                        return fail(
                            &format!("{at}: {prefix}{name}"),
                            "no such property in the export or its class",
                        )
                    }
                }
            }
        };
        let path = format!("{prefix}{}", label(&out[slot]));
        if let Some(t) = p.get("type").and_then(J::as_str) {
            let ty = out[slot].ty.to_string();
            if t != ty {
                return fail(
                    &format!("{at}: {path}"),
                    format!("is a {ty}; the JSON says {t} (types cannot be changed)"),
                );
            }
        }
        let Some(v) = p.get("value") else {
            return fail(&format!("{at}: {path}"), "has no \"value\"");
        };
        let ty = out[slot].ty.clone();
        let old = out[slot].value.clone();
        if new {
            ed.mute += 1;
            let x = value_from_json(ed, &path, &ty, &old, v);
            ed.mute -= 1;
            out[slot].value = x?;
            ed.record(&path, J::Null, v.clone());
        } else {
            out[slot].value = value_from_json(ed, &path, &ty, &old, v)?;
        }
    }
    Ok(out)
}

/// `Name` or `Name[i]`: the name and element index.
fn split_label(k: &str) -> (&str, u32) {
    if let Some((n, i)) = k.strip_suffix(']').and_then(|x| x.rsplit_once('[')) {
        if let Ok(i) = i.parse() {
            return (n, i);
        }
    }
    (k, 0)
}

/// A value of type `ty` from its JSON `j`, `old` giving the shape. Equal
/// JSON gives `old` itself.
pub(super) fn value_from_json(
    ed: &mut Editor<'_, '_>,
    path: &str,
    ty: &PropType,
    old: &Value,
    j: &J,
) -> Result<Value> {
    let was = value_json(old);
    if was == *j {
        return Ok(old.clone());
    }
    let new = match old {
        Value::Skipped { reason, .. } => {
            return fail(
                path,
                format!("this value was not decoded ({reason}): it cannot be edited"),
            )
        }
        Value::Struct(fields) => Value::Struct(struct_from_json(ed, path, ty, fields, j)?),
        Value::Array(xs) | Value::Set(xs) => {
            let inner = match ty {
                PropType::Array(t) | PropType::Set(t) => t.as_ref().clone(),
                _ => return fail(path, format!("{ty} holds no elements")),
            };
            let v = elements_from_json(ed, path, &inner, xs, j)?;
            if matches!(old, Value::Set(_)) {
                Value::Set(v)
            } else {
                Value::Array(v)
            }
        }
        Value::Map(es) => Value::Map(map_from_json(ed, path, ty, es, j)?),
        Value::Optional(o) => {
            let PropType::Optional(inner) = ty else {
                return fail(path, format!("{ty} is not optional"));
            };
            if j.is_null() {
                ed.record(path, was, J::Null);
                return Ok(Value::Optional(None));
            }
            let base = match o {
                Some(v) => v.as_ref().clone(),
                None => ed.zero(inner),
            };
            ed.mute += u32::from(o.is_none());
            let v = value_from_json(ed, path, inner, &base, j);
            ed.mute -= u32::from(o.is_none());
            if o.is_none() {
                ed.record(path, J::Null, j.clone());
            }
            Value::Optional(Some(Box::new(v?)))
        }
        _ => {
            let v = scalar_from_json(ed, path, ty, old, j)?;
            ed.record(path, was, value_json(&v));
            v
        }
    };
    Ok(new)
}

/// A struct's fields: the JSON object's keys name fields (`Name` or
/// `Name[i]`); fields it leaves out keep their values.
fn struct_from_json(
    ed: &mut Editor<'_, '_>,
    path: &str,
    ty: &PropType,
    fields: &[Property],
    j: &J,
) -> Result<Vec<Property>> {
    let J::Object(o) = j else {
        return fail(path, format!("is a {ty}: give a JSON object of its fields"));
    };
    let mut out = fields.to_vec();
    for (k, v) in o {
        let (f, new) = match out.iter().position(|p| label(p) == *k) {
            Some(f) => (f, false),
            None => {
                let (n, i) = split_label(k);
                let added = match ty {
                    PropType::Struct(s) => ed.add_from_schema(s, &mut out, n, i),
                    _ => None,
                };
                match added {
                    Some(f) => (f, true),
                    None => {
                        let names: Vec<String> = out.iter().map(label).collect();
                        return fail(
                            &format!("{path}.{k}"),
                            format!(
                                "no field {k} in this {ty} or its schema (fields: {})",
                                names.join(", ")
                            ),
                        );
                    }
                }
            }
        };
        let fty = out[f].ty.clone();
        let old = out[f].value.clone();
        let here = format!("{path}.{k}");
        if new {
            ed.mute += 1;
            let x = value_from_json(ed, &here, &fty, &old, v);
            ed.mute -= 1;
            out[f].value = x?;
            ed.record(&here, J::Null, v.clone());
        } else {
            out[f].value = value_from_json(ed, &here, &fty, &old, v)?;
        }
    }
    Ok(out)
}

/// Array or set elements: element `i` of the JSON beside decoded element
/// `i`; more elements grow it (zero-valued, then filled), fewer shrink it.
fn elements_from_json(
    ed: &mut Editor<'_, '_>,
    path: &str,
    inner: &PropType,
    xs: &[Value],
    j: &J,
) -> Result<Vec<Value>> {
    let J::Array(a) = j else {
        return fail(path, "is an array: give a JSON array");
    };
    let mut out = Vec::with_capacity(a.len());
    for (i, v) in a.iter().enumerate() {
        let here = format!("{path}[{i}]");
        match xs.get(i) {
            Some(old) => out.push(value_from_json(ed, &here, inner, old, v)?),
            None => {
                let z = ed.zero_like(inner, xs.last());
                ed.mute += 1;
                let x = value_from_json(ed, &here, inner, &z, v);
                ed.mute -= 1;
                out.push(x?);
                ed.record(&here, J::Null, v.clone());
            }
        }
    }
    for (i, old) in xs.iter().enumerate().skip(a.len()) {
        ed.record(&format!("{path}[{i}]"), value_json(old), J::Null);
    }
    Ok(out)
}

/// Map entries: `[{"key", "value"}…]`, entry `i` beside decoded entry `i`.
fn map_from_json(
    ed: &mut Editor<'_, '_>,
    path: &str,
    ty: &PropType,
    es: &[(Value, Value)],
    j: &J,
) -> Result<Vec<(Value, Value)>> {
    let PropType::Map(kt, vt) = ty else {
        return fail(path, format!("{ty} is not a map"));
    };
    let J::Array(a) = j else {
        return fail(
            path,
            "is a map: give a JSON array of {\"key\", \"value\"} objects",
        );
    };
    let mut out = Vec::with_capacity(a.len());
    for (i, e) in a.iter().enumerate() {
        let (Some(jk), Some(jv)) = (e.get("key"), e.get("value")) else {
            return fail(
                &format!("{path}[{i}]"),
                "is not a {\"key\", \"value\"} object",
            );
        };
        let here = format!("{path}[{}]", key_label(jk));
        match es.get(i) {
            Some((k, v)) => {
                let k = value_from_json(ed, &format!("{here}.key"), kt, k, jk)?;
                let v = value_from_json(ed, &here, vt, v, jv)?;
                out.push((k, v));
            }
            None => {
                let (zk, zv) = (ed.zero(kt), ed.zero_like(vt, es.last().map(|e| &e.1)));
                ed.mute += 1;
                let k = value_from_json(ed, &here, kt, &zk, jk);
                let v = value_from_json(ed, &here, vt, &zv, jv);
                ed.mute -= 1;
                out.push((k?, v?));
                ed.record(&here, J::Null, e.clone());
            }
        }
    }
    for (k, v) in es.iter().skip(a.len()) {
        let here = format!("{path}[{}]", key_label(&value_json(k)));
        ed.record(&here, value_json(v), J::Null);
    }
    Ok(out)
}

/// A map key in a path: `"Key"` for a string, the JSON text otherwise.
pub(super) fn key_label(k: &J) -> String {
    k.to_string()
}

/// A leaf value: the old value's variant says what the JSON must be.
pub(super) fn scalar_from_json(
    ed: &mut Editor<'_, '_>,
    path: &str,
    ty: &PropType,
    old: &Value,
    j: &J,
) -> Result<Value> {
    let want = |what: &str| fail::<Value>(path, format!("is a {ty}: give {what}, not {j}"));
    let number = || match float_of(j) {
        Some(v) => Ok(v),
        None => fail(path, format!("is a {ty}: give a number, not {j}")),
    };
    Ok(match old {
        Value::Bool(_) => match j {
            J::Bool(b) => Value::Bool(*b),
            J::String(s) if s == "true" || s == "false" => Value::Bool(s == "true"),
            _ => return want("true or false"),
        },
        Value::Int(_) => Value::Int(int_in_range(path, ty, j)?),
        Value::UInt(_) => Value::UInt(uint_in_range(path, ty, j)?),
        Value::Float(_) => {
            let v = number()?;
            if v.is_finite() && (v as f32).is_infinite() {
                return fail(path, format!("{v} is out of range for {ty}"));
            }
            Value::Float(v as f32)
        }
        Value::Double(_) => Value::Double(number()?),
        Value::Enum(_) => match j {
            J::String(s) => Value::Enum(enum_entry(ed, path, ty, s)?),
            _ => return want("an enum entry name"),
        },
        Value::Name(_) => match j {
            J::String(s) if !s.is_empty() => Value::Name(s.clone()),
            _ => return want("a name (a non-empty string)"),
        },
        Value::Str(_) => match j {
            J::String(s) => Value::Str(s.clone()),
            _ => return want("a string"),
        },
        Value::Text(t) => Value::Text(Box::new(text_from_json(path, t, j)?)),
        Value::Object(_) => match j {
            J::Null => Value::Object(None),
            J::String(s) if s.is_empty() || s == "None" || s == "null" => Value::Object(None),
            J::String(s) if s.starts_with('/') => Value::Object(Some(s.clone())),
            _ => return want("an object's full path (/Game/P.A, /Script/M.C) or null"),
        },
        Value::SoftObject { .. } => match j {
            J::Null => soft("", ""),
            J::String(s) if s.is_empty() || s == "None" || s == "null" => soft("", ""),
            J::String(s) if s.starts_with('/') => match s.split_once(':') {
                Some((p, sub)) => soft(p, sub),
                None => soft(s, ""),
            },
            _ => return want("an asset path (/Game/P.A or /Game/P.A:Sub) or null"),
        },
        Value::Guid(_) => match j.as_str().and_then(Guid::parse) {
            Some(g) => Value::Guid(g),
            None => return want("a GUID of 32 hex digits"),
        },
        Value::Delegate { .. }
        | Value::Multicast(_)
        | Value::FieldPath { .. }
        | Value::Skipped { .. } => return fail(path, format!("editing a {ty} is not supported")),
        Value::Struct(_) | Value::Array(_) | Value::Set(_) | Value::Map(_) | Value::Optional(_) => {
            return fail(path, format!("is a {ty}: give JSON"))
        }
    })
}

fn soft(path: &str, sub: &str) -> Value {
    Value::SoftObject {
        path: path.into(),
        sub_path: sub.into(),
    }
}

/// An integer from a JSON number or a decimal string.
fn int_of(j: &J) -> Option<i128> {
    match j {
        J::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        J::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn int_in_range(path: &str, ty: &PropType, j: &J) -> Result<i64> {
    let (lo, hi): (i128, i128) = match ty {
        PropType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        PropType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        PropType::Int => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    };
    in_range(path, ty, j, lo, hi).map(|v| v as i64)
}

fn uint_in_range(path: &str, ty: &PropType, j: &J) -> Result<u64> {
    let hi: i128 = match ty {
        PropType::Byte(_) => u8::MAX.into(),
        PropType::UInt16 => u16::MAX.into(),
        PropType::UInt32 => u32::MAX.into(),
        _ => u64::MAX.into(),
    };
    in_range(path, ty, j, 0, hi).map(|v| v as u64)
}

fn in_range(path: &str, ty: &PropType, j: &J, lo: i128, hi: i128) -> Result<i128> {
    match int_of(j) {
        Some(v) if (lo..=hi).contains(&v) => Ok(v),
        Some(v) => fail(path, format!("{v} is out of range for {ty} ({lo} to {hi})")),
        None => fail(path, format!("is a {ty}: give an integer, not {j}")),
    }
}

/// A float from a number, a numeric string, or `NaN` / `Infinity` /
/// `-Infinity`.
fn float_of(j: &J) -> Option<f64> {
    match j {
        J::Number(n) => n.as_f64(),
        J::String(s) => match s.trim() {
            "NaN" => Some(f64::NAN),
            "Infinity" | "inf" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            t => t.parse().ok().filter(|v: &f64| v.is_finite()),
        },
        _ => None,
    }
}

/// An enum entry as `EName::Entry`, from `Entry` or `EName::Entry`,
/// checked against the enum's schema when one is known.
fn enum_entry(ed: &Editor<'_, '_>, path: &str, ty: &PropType, s: &str) -> Result<String> {
    let name = match ty {
        PropType::Byte(Some(e)) | PropType::Enum { name: e, .. } => e.as_str(),
        _ => "",
    };
    let (prefix, bare) = match s.rsplit_once("::") {
        Some((p, b)) => (Some(p), b),
        None => (None, s),
    };
    if let (Some(p), false) = (prefix, name.is_empty()) {
        if p != name {
            return fail(path, format!("{s} is not an entry of {name}"));
        }
    }
    if bare.is_empty() {
        return fail(path, format!("is a {ty}: give an entry name"));
    }
    if name.is_empty() {
        return Ok(s.to_string());
    }
    if let Some(schema) = ed.schemas.find_enum(name) {
        let entries: Vec<&str> = schema
            .entries
            .iter()
            .map(|(_, n)| n.rsplit("::").next().unwrap_or(n))
            .collect();
        if !entries.contains(&bare) {
            return fail(
                path,
                format!(
                    "{name} has no entry {bare} (entries: {})",
                    entries.join(", ")
                ),
            );
        }
    }
    Ok(qualify_enum(name, bare))
}

/// A text from a plain string (a localized text keeps its namespace and
/// key and takes it as its source string; any other becomes a
/// culture-invariant string), or from the `{"history": "Base"|"None", …}`
/// object `props --json` prints.
pub(super) fn text_from_json(path: &str, old: &Text, j: &J) -> Result<Text> {
    let s = |k: &str| j.get(k).and_then(J::as_str).map(str::to_string);
    let history =
        match j {
            J::String(s) => match &old.history {
                TextHistory::Base { namespace, key, .. } => TextHistory::Base {
                    namespace: namespace.clone(),
                    key: key.clone(),
                    source: s.clone(),
                },
                _ => TextHistory::None {
                    invariant: Some(s.clone()),
                },
            },
            J::Object(_) => match j.get("history").and_then(J::as_str) {
                Some("Base") => match (s("namespace"), s("key"), s("source")) {
                    (Some(namespace), Some(key), Some(source)) => TextHistory::Base {
                        namespace,
                        key,
                        source,
                    },
                    _ => {
                        return fail(
                            path,
                            "a Base text needs \"namespace\", \"key\" and \"source\" strings",
                        )
                    }
                },
                Some("None") => TextHistory::None {
                    invariant: s("invariant"),
                },
                _ => return fail(
                    path,
                    "only Base and None texts can be given as JSON objects: give a plain string",
                ),
            },
            _ => return fail(path, "is a TextProperty: give a string"),
        };
    let flags = match j.get("flags") {
        Some(f) => match f.as_u64().and_then(|f| u32::try_from(f).ok()) {
            Some(f) => f,
            None => return fail(path, "\"flags\" is not a 32-bit unsigned integer"),
        },
        None if j.is_object() => 0,
        None => old.flags,
    };
    Ok(Text { flags, history })
}
