//! `props set` paths: parsing, and setting the value a path names.

use serde_json::Value as J;

use super::json_in::{key_label, value_from_json};
use super::{fail, label, value_json, Editor, Result};
use crate::props::{ExportProps, PropType, Property, Value};

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// `Name` or `.Name`: a property, a struct field, or a map entry by key.
    Field(String),
    /// `[i]`: an element (of an array, a set or a fixed-size array), or a
    /// map entry whose key is `i`.
    Index(usize),
    /// `["Key"]` or `[Key]`: a map entry by key.
    Key(String),
}

/// Parse `Vector2D.X`, `Tags[2]`, `Map["Key"]`, `Rows.Row_1.Value`.
pub fn parse_path(path: &str) -> Result<Vec<Seg>> {
    let mut out = Vec::new();
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' if !out.is_empty() => {
                i += 1;
                let end = field_end(b, i);
                if end == i {
                    return fail(path, format!("a field name must follow '.' (at {i})"));
                }
                out.push(Seg::Field(path[i..end].to_string()));
                i = end;
            }
            b'[' => {
                let (seg, next) = bracket(path, i)?;
                out.push(seg);
                i = next;
            }
            _ if out.is_empty() => {
                let end = field_end(b, i);
                if end == i {
                    return fail(path, "a path starts with a property name");
                }
                out.push(Seg::Field(path[i..end].to_string()));
                i = end;
            }
            c => return fail(path, format!("unexpected '{}' at {i}", c as char)),
        }
    }
    if out.is_empty() {
        return fail(path, "empty path");
    }
    Ok(out)
}

fn field_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && b[j] != b'.' && b[j] != b'[' {
        j += 1;
    }
    j
}

/// `[i]`, `["Key"]` (with `\"` and `\\` escapes) or `[Key]` at `at`.
fn bracket(path: &str, at: usize) -> Result<(Seg, usize)> {
    let rest = &path[at + 1..];
    if let Some(q) = rest.strip_prefix('"') {
        let mut key = String::new();
        let mut chars = q.char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, e)) => key.push(e),
                    None => break,
                },
                '"' => {
                    if q[k + 1..].starts_with(']') {
                        return Ok((Seg::Key(key), at + 2 + k + 2));
                    }
                    return fail(
                        path,
                        format!("']' must follow the closing quote (at {})", at + 2 + k),
                    );
                }
                _ => key.push(c),
            }
        }
        return fail(path, "unterminated quoted key");
    }
    let Some(end) = rest.find(']') else {
        return fail(path, format!("unclosed '[' at {at}"));
    };
    let inner = &rest[..end];
    let seg = match inner.parse::<usize>() {
        Ok(n) => Seg::Index(n),
        Err(_) if !inner.is_empty() => Seg::Key(inner.to_string()),
        Err(_) => return fail(path, format!("empty '[]' at {at}")),
    };
    Ok((seg, at + 1 + end + 1))
}

/// How a path ends: a value to read by the target's type, or a length.
struct Target<'r> {
    raw: &'r str,
}

/// Set the value `segs` names in `props` to `raw`.
pub(super) fn set_in(
    ed: &mut Editor<'_, '_>,
    props: &mut ExportProps,
    segs: &[Seg],
    path: &str,
    raw: &str,
) -> Result<()> {
    let Seg::Field(name) = &segs[0] else {
        return fail(path, "a path starts with a property name");
    };
    let stored = |l: &[Property]| l.iter().any(|p| p.name.eq_ignore_ascii_case(name));
    let (list, rest, shown, native) =
        if name == "native" && segs.len() > 1 && !has(&props.properties, name) {
            let Seg::Field(n) = &segs[1] else {
                return fail(path, "native. is followed by a native field's name");
            };
            (&mut props.native, &segs[1..], n.clone(), true)
        } else if !stored(&props.properties) && stored(&props.native) {
            // `Rows.Alpha.number`: a native field named without `native.`.
            (&mut props.native, segs, name.clone(), true)
        } else {
            (&mut props.properties, segs, name.clone(), false)
        };
    let (slot, rest, new) = match pick(list, &shown, &rest[1..]) {
        Some((s, r)) => (s, r, false),
        None if native => return missing(ed, list, &shown, path, None),
        None => {
            let class = ed.class();
            match add_missing(ed, &class, list, &shown, &rest[1..]) {
                Some((s, r)) => (s, r, true),
                None => return missing(ed, list, &shown, path, Some(&class)),
            }
        }
    };
    let p = &mut list[slot];
    let prefix = if native { "native." } else { "" };
    let here = format!("{prefix}{}", label(p));
    let ty = p.ty.clone();
    if new {
        return added(ed, &mut p.value, &ty, rest, &here, &Target { raw });
    }
    walk(ed, &mut p.value, &ty, rest, &here, &Target { raw })
}

fn has(list: &[Property], name: &str) -> bool {
    list.iter().any(|p| p.name == name)
}

/// The property `name` of `list` (exact name first, then ignoring case);
/// `[i]` after it picks element `i` of a fixed-size array (when the
/// property is not itself a container). Returns the slot and the segments
/// left.
fn pick<'s>(list: &[Property], name: &str, rest: &'s [Seg]) -> Option<(usize, &'s [Seg])> {
    let find = |idx: u32| {
        list.iter()
            .position(|p| p.name == name && p.index == idx)
            .or_else(|| {
                list.iter()
                    .position(|p| p.name.eq_ignore_ascii_case(name) && p.index == idx)
            })
    };
    let first = find(0)?;
    let container = matches!(
        list[first].ty,
        PropType::Array(_) | PropType::Set(_) | PropType::Map(..)
    );
    let fixed = list
        .iter()
        .any(|p| p.name == list[first].name && p.index > 0);
    match rest.first() {
        Some(Seg::Index(i)) if fixed && !container => {
            let i = u32::try_from(*i).ok()?;
            find(i).map(|s| (s, &rest[1..]))
        }
        _ => Some((first, rest)),
    }
}

/// Add property `name` of `owner` that `list` does not store, from the
/// schema (`[i]` after it picks the element of a fixed-size array): its
/// slot and the segments left.
fn add_missing<'s>(
    ed: &mut Editor<'_, '_>,
    owner: &str,
    list: &mut Vec<Property>,
    name: &str,
    rest: &'s [Seg],
) -> Option<(usize, &'s [Seg])> {
    if let Some(Seg::Index(i)) = rest.first() {
        let i = u32::try_from(*i).ok()?;
        if i > 0 {
            if let Some(s) = ed.add_from_schema(owner, list, name, i) {
                return Some((s, &rest[1..]));
            }
        }
    }
    ed.add_from_schema(owner, list, name, 0).map(|s| (s, rest))
}

/// A property the export does not store, and no schema to add it from:
/// refused, saying why (`owner`: the class or struct it would belong to;
/// `None` for native fields).
fn missing(
    ed: &Editor<'_, '_>,
    list: &[Property],
    name: &str,
    path: &str,
    owner: Option<&str>,
) -> Result<()> {
    let names: Vec<String> = list.iter().take(12).map(label).collect();
    let in_class = owner.is_some_and(|c| ed.class_has(c, name));
    let why = if in_class {
        format!(
            "the export does not store {name} (its {} default applies) and its schema does not type it",
            owner.unwrap_or_default()
        )
    } else if let Some(c) = owner.filter(|c| !ed.has_schema(c)) {
        format!(
            "no property {name} in the export (it stores: {}{}); adding a property needs its type, and there is no schema for {c} (give --usmap mappings that have it)",
            names.join(", "),
            if list.len() > 12 { ", ..." } else { "" }
        )
    } else {
        format!(
            "no property {name} in the export (it stores: {}{})",
            names.join(", "),
            if list.len() > 12 { ", ..." } else { "" }
        )
    };
    fail(path, why)
}

/// Go down `segs` from `v` (of type `ty`), then set what they name.
fn walk(
    ed: &mut Editor<'_, '_>,
    v: &mut Value,
    ty: &PropType,
    segs: &[Seg],
    path: &str,
    t: &Target<'_>,
) -> Result<()> {
    let Some(seg) = segs.first() else {
        return assign(ed, v, ty, path, t);
    };
    let rest = &segs[1..];
    match (v, ty) {
        (Value::Optional(o), PropType::Optional(inner)) => {
            if o.is_none() {
                let z = ed.zero(inner);
                ed.record(path, J::Null, value_json(&z));
                *o = Some(Box::new(z));
            }
            let x = o.as_deref_mut().expect("just filled");
            walk(ed, x, inner, segs, path, t)
        }
        (Value::Struct(fields), _) => {
            let Seg::Field(f) = seg else {
                return fail(path, format!("is a {ty}: name a field with .Field"));
            };
            let names: Vec<String> = fields.iter().map(label).collect();
            let found = match pick(fields, f, rest) {
                Some((s, r)) => Some((s, r, false)),
                None => match ty {
                    PropType::Struct(s) => {
                        add_missing(ed, s, fields, f, rest).map(|(s, r)| (s, r, true))
                    }
                    _ => None,
                },
            };
            let Some((slot, rest, new)) = found else {
                let hint = match ty {
                    PropType::Struct(s) if !ed.has_schema(s) => format!(
                        "; adding a field needs its type, and there is no schema for {s} (give --usmap mappings that have it)"
                    ),
                    _ => String::new(),
                };
                return fail(
                    &format!("{path}.{f}"),
                    format!(
                        "no field {f} in this {ty} (fields: {}){hint}",
                        names.join(", ")
                    ),
                );
            };
            let here = format!("{path}.{}", label(&fields[slot]));
            let fty = fields[slot].ty.clone();
            if new {
                return added(ed, &mut fields[slot].value, &fty, rest, &here, t);
            }
            walk(ed, &mut fields[slot].value, &fty, rest, &here, t)
        }
        (Value::Array(xs) | Value::Set(xs), PropType::Array(inner) | PropType::Set(inner)) => {
            match seg {
                Seg::Field(f) if f == "len" && rest.is_empty() => set_len(ed, xs, inner, path, t),
                Seg::Index(i) => {
                    let i = *i;
                    if i > xs.len() + 100_000 {
                        return fail(
                            path,
                            format!("index {i} is far past the end ({} elements)", xs.len()),
                        );
                    }
                    grow(ed, xs, inner, i, path);
                    let here = format!("{path}[{i}]");
                    if i < xs.len() {
                        return walk(ed, &mut xs[i], inner, rest, &here, t);
                    }
                    let z = ed.zero_like(inner, xs.last());
                    xs.push(z);
                    added(ed, &mut xs[i], inner, rest, &here, t)
                }
                _ => fail(path, format!("is a {ty}: give an index [i] or .len")),
            }
        }
        (Value::Map(es), PropType::Map(kt, vt)) => {
            let key = match seg {
                Seg::Field(f) if f == "len" && rest.is_empty() => {
                    return map_len(ed, es, path, t);
                }
                Seg::Field(f) if f == "remove" && rest.is_empty() => {
                    return map_remove(ed, es, path, t);
                }
                Seg::Field(k) | Seg::Key(k) => k.clone(),
                Seg::Index(i) => i.to_string(),
            };
            if let Some(slot) = es.iter().position(|(k, _)| key_is(k, &key)) {
                let here = format!("{path}[{}]", key_label(&value_json(&es[slot].0)));
                return walk(ed, &mut es[slot].1, vt, rest, &here, t);
            }
            let zk = ed.zero(kt);
            ed.mute += 1;
            let k = value_from_json(ed, path, kt, &zk, &J::String(key.clone()));
            ed.mute -= 1;
            let zv = ed.zero_like(vt, es.last().map(|e| &e.1));
            es.push((k?, zv));
            let slot = es.len() - 1;
            let here = format!("{path}[{}]", key_label(&value_json(&es[slot].0)));
            added(ed, &mut es[slot].1, vt, rest, &here, t)
        }
        (v, _) => {
            let what = match seg {
                Seg::Field(f) => format!(".{f}"),
                Seg::Index(i) => format!("[{i}]"),
                Seg::Key(k) => format!("[{k:?}]"),
            };
            let _ = v;
            fail(path, format!("is a {ty}: it has no {what}"))
        }
    }
}

/// Set a value inside an element or entry just added: one change, from
/// nothing to the element as it ends up.
fn added(
    ed: &mut Editor<'_, '_>,
    v: &mut Value,
    ty: &PropType,
    rest: &[Seg],
    here: &str,
    t: &Target<'_>,
) -> Result<()> {
    ed.mute += 1;
    let r = walk(ed, v, ty, rest, here, t);
    ed.mute -= 1;
    r?;
    ed.record(here, J::Null, value_json(v));
    Ok(())
}

/// Whether map key `k` is the one a path names: a string key by its text
/// (an enum also by its bare entry), a number by its decimal form.
fn key_is(k: &Value, key: &str) -> bool {
    match k {
        Value::Name(s) | Value::Str(s) => s == key,
        Value::Enum(s) => s == key || s.rsplit("::").next() == Some(key),
        Value::Int(n) => n.to_string() == key,
        Value::UInt(n) => n.to_string() == key,
        other => value_json(other).to_string().as_str() == key,
    }
}

/// Grow `xs` to `n` zero-valued elements (recording each as added).
fn grow(ed: &mut Editor<'_, '_>, xs: &mut Vec<Value>, inner: &PropType, n: usize, path: &str) {
    while xs.len() < n {
        let z = ed.zero_like(inner, xs.last());
        let at = format!("{path}[{}]", xs.len());
        ed.record(&at, J::Null, value_json(&z));
        xs.push(z);
    }
}

fn parse_len(path: &str, t: &Target<'_>) -> Result<usize> {
    match t.raw.trim().parse::<usize>() {
        Ok(n) if n <= 1_000_000 => Ok(n),
        _ => fail(
            path,
            format!(".len takes a count (0 to 1000000), not {:?}", t.raw),
        ),
    }
}

fn set_len(
    ed: &mut Editor<'_, '_>,
    xs: &mut Vec<Value>,
    inner: &PropType,
    path: &str,
    t: &Target<'_>,
) -> Result<()> {
    let n = parse_len(path, t)?;
    for (i, old) in xs.iter().enumerate().skip(n) {
        ed.record(&format!("{path}[{i}]"), value_json(old), J::Null);
    }
    xs.truncate(n);
    grow(ed, xs, inner, n, path);
    Ok(())
}

fn map_len(
    ed: &mut Editor<'_, '_>,
    es: &mut Vec<(Value, Value)>,
    path: &str,
    t: &Target<'_>,
) -> Result<()> {
    let n = parse_len(path, t)?;
    if n > es.len() {
        return fail(
            path,
            "a map grows by naming a new key (Map[\"Key\"]=VALUE), not by .len",
        );
    }
    for (k, v) in es.iter().skip(n) {
        ed.record(
            &format!("{path}[{}]", key_label(&value_json(k))),
            value_json(v),
            J::Null,
        );
    }
    es.truncate(n);
    Ok(())
}

/// `Map.remove=KEY`: remove the entry with key `KEY` (quotes optional).
fn map_remove(
    ed: &mut Editor<'_, '_>,
    es: &mut Vec<(Value, Value)>,
    path: &str,
    t: &Target<'_>,
) -> Result<()> {
    let raw = t.raw.trim();
    let key = raw
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or(raw);
    let Some(slot) = es.iter().position(|(k, _)| key_is(k, key)) else {
        let keys: Vec<String> = es
            .iter()
            .take(12)
            .map(|(k, _)| key_label(&value_json(k)))
            .collect();
        return fail(
            path,
            format!("no entry {key:?} to remove (keys: {})", keys.join(", ")),
        );
    };
    let (k, v) = es.remove(slot);
    ed.record(
        &format!("{path}[{}]", key_label(&value_json(&k))),
        value_json(&v),
        J::Null,
    );
    Ok(())
}

/// Set `v` (of type `ty`) from the raw text: read by the type for a leaf,
/// as JSON for a struct, array, set, map or optional.
fn assign(
    ed: &mut Editor<'_, '_>,
    v: &mut Value,
    ty: &PropType,
    path: &str,
    t: &Target<'_>,
) -> Result<()> {
    let raw = t.raw;
    let j = match v {
        Value::Struct(_) | Value::Array(_) | Value::Set(_) | Value::Map(_) => {
            match serde_json::from_str::<J>(raw) {
                Ok(j) => j,
                Err(e) => {
                    return fail(
                        path,
                        format!(
                        "is a {ty}: give its value as JSON, in the shape props --json prints ({e})"
                    ),
                    )
                }
            }
        }
        Value::Optional(_) if matches!(raw, "null" | "none" | "None" | "") => J::Null,
        Value::Optional(_) => {
            serde_json::from_str::<J>(raw).unwrap_or_else(|_| J::String(raw.into()))
        }
        _ => J::String(raw.to_string()),
    };
    let j = match (&*v, &j) {
        // A leaf given as JSON text of its kind (`"quoted"` stays as typed).
        (Value::Text(_), _) if raw.trim_start().starts_with('{') => {
            serde_json::from_str(raw).unwrap_or(j)
        }
        _ => j,
    };
    let old = v.clone();
    *v = value_from_json(ed, path, ty, &old, &j)?;
    Ok(())
}
