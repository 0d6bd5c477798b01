//! UE4/UE5 property trees for the page: long arrays cut to
//! [`MAX_ELEMENTS`] with their counts, and the references among the values
//! collected so that `/api/asset` can say where each one leads.

use pakrat_asset::props::{ExportProps, Property, TextHistory, Value};

/// Most elements of one array, set, map or multicast delegate the page is
/// sent at once, unless `PAKRAT_VIEW_MAX_ELEMENTS` says otherwise
/// ([`max_elements`]); the rest are cut, and `cut` (JSON pointer → element
/// count) says where and how many there were; `at`/`from` fetch the next
/// ones. `pakrat props --json` prints them all.
pub const MAX_ELEMENTS: usize = 1000;

/// Elements sent per array: `PAKRAT_VIEW_MAX_ELEMENTS` (1 to 100,000),
/// else [`MAX_ELEMENTS`]; read once.
pub fn max_elements() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        std::env::var("PAKRAT_VIEW_MAX_ELEMENTS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .map_or(MAX_ELEMENTS, |n| n.clamp(1, 100_000))
    })
}

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
/// [`max_elements`]; (JSON pointer into the export's JSON, element count)
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
            if xs.len() > max_elements() {
                cut.push((at.clone(), xs.len()));
                xs.truncate(max_elements());
            }
            for (k, x) in xs.iter_mut().enumerate() {
                cut_value(x, format!("{at}/{k}"), cut);
            }
        }
        Value::Map(entries) => {
            if entries.len() > max_elements() {
                cut.push((at.clone(), entries.len()));
                entries.truncate(max_elements());
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

/// Page `from` of the long array at JSON pointer `at` (as `cut` names
/// it): its elements `from..from + max_elements()` (a map's entries as a
/// map), each cut as [`cut_long_arrays`] cuts, with pointers that go on
/// from `at`; the element count; and the cuts. `None` when `at` does not
/// name an array, set, map or multicast delegate of the export.
pub(crate) fn page(p: &mut ExportProps, at: &str, from: usize) -> Option<Page> {
    let mut tokens = at
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"));
    let list = match tokens.next()?.as_str() {
        "properties" => &mut p.properties,
        "native" if tokens.next()? == "fields" => &mut p.native,
        _ => return None,
    };
    let i: usize = tokens.next()?.parse().ok()?;
    if tokens.next()? != "value" {
        return None;
    }
    let mut v = &mut list.get_mut(i)?.value;
    while let Some(t) = tokens.next() {
        while let Value::Optional(Some(x)) = v {
            v = x;
        }
        v = match v {
            Value::Struct(fields) => &mut fields.iter_mut().find(|f| field_key(f) == t)?.value,
            Value::Array(xs) | Value::Set(xs) | Value::Multicast(xs) => {
                xs.get_mut(t.parse::<usize>().ok()?)?
            }
            Value::Map(entries) => {
                let e = entries.get_mut(t.parse::<usize>().ok()?)?;
                match tokens.next()?.as_str() {
                    "key" => &mut e.0,
                    "value" => &mut e.1,
                    _ => return None,
                }
            }
            _ => return None,
        };
    }
    while let Value::Optional(Some(x)) = v {
        v = x;
    }
    let mut cut = Vec::new();
    let (elements, total) = match v {
        Value::Array(xs) | Value::Set(xs) | Value::Multicast(xs) => {
            let total = xs.len();
            let mut part: Vec<Value> = xs.iter().skip(from).take(max_elements()).cloned().collect();
            for (k, x) in part.iter_mut().enumerate() {
                cut_value(x, format!("{at}/{}", from + k), &mut cut);
            }
            (Value::Array(part), total)
        }
        Value::Map(entries) => {
            let total = entries.len();
            let mut part: Vec<(Value, Value)> = entries
                .iter()
                .skip(from)
                .take(max_elements())
                .cloned()
                .collect();
            for (k, (key, val)) in part.iter_mut().enumerate() {
                cut_value(key, format!("{at}/{}/key", from + k), &mut cut);
                cut_value(val, format!("{at}/{}/value", from + k), &mut cut);
            }
            (Value::Map(part), total)
        }
        _ => return None,
    };
    Some(Page {
        elements,
        total,
        cut,
    })
}

/// One page of a long array.
pub(crate) struct Page {
    /// The elements (an array, or a map's entries).
    pub elements: Value,
    /// How many the array has.
    pub total: usize,
    /// The arrays cut inside them: (JSON pointer, count).
    pub cut: Vec<(String, usize)>,
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
    dedup(out)
}

/// The references of one value (a page of an array).
pub(crate) fn references_in(v: &Value) -> Vec<Reference> {
    let mut out = Vec::new();
    refs_in(v, &mut out);
    dedup(out)
}

fn dedup(mut out: Vec<Reference>) -> Vec<Reference> {
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
    fn pages_go_on_where_the_cut_was() {
        let rows = Value::Map(
            (0..2500)
                .map(|k| {
                    let inner = Value::Array((0..1200).map(Value::Int).collect());
                    (Value::Int(k), Value::Struct(vec![prop("Cells", 0, inner)]))
                })
                .collect(),
        );
        let mut p = ExportProps {
            native: vec![prop("Rows", 0, rows)],
            ..Default::default()
        };
        let mut whole = p.clone();
        let cut = cut_long_arrays(&mut whole);
        assert_eq!(cut[0], ("/native/fields/0/value".to_string(), 2500));
        let pg = page(&mut p, "/native/fields/0/value", 2000).unwrap();
        assert_eq!(pg.total, 2500);
        let Value::Map(entries) = &pg.elements else {
            panic!()
        };
        assert_eq!(entries.len(), 500);
        assert_eq!(entries[0].0, Value::Int(2000));
        // The rows' own long arrays are cut, their pointers counting from
        // the whole map.
        assert_eq!(pg.cut.len(), 500);
        assert_eq!(
            pg.cut[0],
            ("/native/fields/0/value/2000/value/Cells".to_string(), 1200)
        );
        // That inner array pages too; a pointer that names no list is None.
        let inner = page(&mut p, "/native/fields/0/value/2000/value/Cells", 1000).unwrap();
        assert_eq!(inner.total, 1200);
        assert_eq!(
            inner.elements,
            Value::Array((1000..1200).map(Value::Int).collect())
        );
        assert!(page(&mut p, "/native/fields/0/value/2000/key", 0).is_none());
        assert!(page(&mut p, "/properties/0/value", 0).is_none());
        assert!(page(&mut p, "/native/fields/0/value/9999/value/Cells", 0).is_none());
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
