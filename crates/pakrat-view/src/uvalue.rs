//! UE4/UE5 property trees for the page: long arrays cut to
//! [`MAX_ELEMENTS`] with their counts, and the references among the values
//! collected so that `/api/asset` can say where each one leads.

use pakrat_asset::props::{ExportProps, Property, TextHistory, Value};

/// Most elements of one array, set, map or multicast delegate the page is
/// sent; the rest are cut, and `cut` (JSON pointer → element count) says
/// where and how many there were. `pakrat props --json` prints them all.
pub const MAX_ELEMENTS: usize = 1000;

/// JSON pointer escaping (RFC 6901): `~` → `~0`, `/` → `~1`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The key a struct field has in the JSON of `props --json`.
fn field_key(p: &Property) -> String {
    if p.index == 0 {
        p.name.clone()
    } else {
        format!("{}[{}]", p.name, p.index)
    }
}

/// Cut every long array of the export's properties and native fields to
/// [`MAX_ELEMENTS`]; (JSON pointer into the export's JSON, element count)
/// for each one cut, in tree order.
pub(crate) fn cut_long_arrays(p: &mut ExportProps) -> Vec<(String, usize)> {
    let mut cut = Vec::new();
    for (i, prop) in p.properties.iter_mut().enumerate() {
        cut_value(&mut prop.value, format!("/properties/{i}/value"), &mut cut);
    }
    for (i, prop) in p.native.iter_mut().enumerate() {
        cut_value(
            &mut prop.value,
            format!("/native/fields/{i}/value"),
            &mut cut,
        );
    }
    cut
}

fn cut_value(v: &mut Value, at: String, cut: &mut Vec<(String, usize)>) {
    match v {
        Value::Array(xs) | Value::Set(xs) | Value::Multicast(xs) => {
            if xs.len() > MAX_ELEMENTS {
                cut.push((at.clone(), xs.len()));
                xs.truncate(MAX_ELEMENTS);
            }
            for (k, x) in xs.iter_mut().enumerate() {
                cut_value(x, format!("{at}/{k}"), cut);
            }
        }
        Value::Map(entries) => {
            if entries.len() > MAX_ELEMENTS {
                cut.push((at.clone(), entries.len()));
                entries.truncate(MAX_ELEMENTS);
            }
            for (k, (key, val)) in entries.iter_mut().enumerate() {
                cut_value(key, format!("{at}/{k}/key"), cut);
                cut_value(val, format!("{at}/{k}/value"), cut);
            }
        }
        Value::Struct(fields) => {
            for f in fields {
                let key = escape(&field_key(f));
                cut_value(&mut f.value, format!("{at}/{key}"), cut);
            }
        }
        Value::Optional(Some(x)) => cut_value(x, at, cut),
        _ => {}
    }
}

/// A reference found among the values: the string the JSON shows for it
/// and the object path it names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    /// The value as the JSON writes it (`/Game/P.A`, `/Game/P.A:Sub`).
    pub shown: String,
    /// The object's path (a soft path's asset path with its sub-path).
    pub object: String,
}

/// Every object reference, soft path, delegate object, field path owner
/// and string table of the export's values (each shown string once).
pub(crate) fn references(p: &ExportProps) -> Vec<Reference> {
    let mut out = Vec::new();
    for prop in p.properties.iter().chain(&p.native) {
        refs_in(&prop.value, &mut out);
    }
    out.sort_by(|a, b| a.shown.cmp(&b.shown));
    out.dedup_by(|a, b| a.shown == b.shown);
    out
}

fn push(out: &mut Vec<Reference>, shown: &str, object: &str) {
    if shown.starts_with('/') {
        out.push(Reference {
            shown: shown.to_string(),
            object: object.to_string(),
        });
    }
}

fn refs_in(v: &Value, out: &mut Vec<Reference>) {
    match v {
        Value::Object(Some(o)) => push(out, o, o),
        Value::SoftObject { path, sub_path } if !path.is_empty() => {
            if sub_path.is_empty() {
                push(out, path, path);
            } else {
                let full = format!("{path}:{sub_path}");
                push(out, &full, &full);
            }
        }
        Value::Delegate {
            object: Some(o), ..
        } => push(out, o, o),
        Value::FieldPath { owner: Some(o), .. } => push(out, o, o),
        Value::Text(t) => {
            if let TextHistory::StringTableEntry { table, .. } = &t.history {
                push(out, table, table);
            }
        }
        Value::Array(xs) | Value::Set(xs) | Value::Multicast(xs) => {
            for x in xs {
                refs_in(x, out);
            }
        }
        Value::Map(entries) => {
            for (k, x) in entries {
                refs_in(k, out);
                refs_in(x, out);
            }
        }
        Value::Struct(fields) => {
            for f in fields {
                refs_in(&f.value, out);
            }
        }
        Value::Optional(Some(x)) => refs_in(x, out),
        _ => {}
    }
}

/// The package an object path lies in: `/Game/P/A.A:Sub` → `/Game/P/A`
/// (a path without `.` or `:` is a package path already).
pub(crate) fn package_of(object: &str) -> &str {
    let end = object.find(['.', ':']).unwrap_or(object.len());
    &object[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pakrat_asset::props::PropType;

    fn prop(name: &str, index: u32, value: Value) -> Property {
        Property {
            name: name.into(),
            index,
            ty: PropType::Int,
            value,
        }
    }

    #[test]
    fn long_arrays_are_cut_with_their_pointer_and_count() {
        let big = Value::Array((0..2500).map(Value::Int).collect());
        let inner = Value::Struct(vec![prop("a/b", 1, big.clone())]);
        let mut p = ExportProps {
            properties: vec![
                prop("Small", 0, Value::Array(vec![Value::Int(1)])),
                prop("Big", 0, big.clone()),
                prop(
                    "Nested",
                    0,
                    Value::Map(vec![(Value::Name("k".into()), inner)]),
                ),
            ],
            native: vec![prop(
                "Rows",
                0,
                Value::Set((0..1001).map(Value::Int).collect()),
            )],
            ..Default::default()
        };
        let cut = cut_long_arrays(&mut p);
        assert_eq!(
            cut,
            vec![
                ("/properties/1/value".to_string(), 2500),
                ("/properties/2/value/0/value/a~1b[1]".to_string(), 2500),
                ("/native/fields/0/value".to_string(), 1001),
            ]
        );
        let Value::Array(xs) = &p.properties[1].value else {
            panic!()
        };
        assert_eq!(xs.len(), MAX_ELEMENTS);
        assert_eq!(xs[999], Value::Int(999));
    }

    #[test]
    fn references_are_collected_once_with_their_packages() {
        let p = ExportProps {
            properties: vec![
                prop("A", 0, Value::Object(Some("/Game/P/A.A:Sub".into()))),
                prop("B", 0, Value::Object(Some("/Game/P/A.A:Sub".into()))),
                prop(
                    "S",
                    0,
                    Value::SoftObject {
                        path: "/Game/Q.Q".into(),
                        sub_path: "Inner".into(),
                    },
                ),
                prop("N", 0, Value::Object(None)),
            ],
            ..Default::default()
        };
        let r = references(&p);
        let shown: Vec<&str> = r.iter().map(|r| r.shown.as_str()).collect();
        assert_eq!(shown, ["/Game/P/A.A:Sub", "/Game/Q.Q:Inner"]);
        assert_eq!(package_of(&r[0].object), "/Game/P/A");
        assert_eq!(package_of("/Game/Q"), "/Game/Q");
    }
}
