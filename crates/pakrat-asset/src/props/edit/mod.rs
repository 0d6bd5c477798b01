//! Editing the property model: the two ways `pakrat props apply` and
//! `pakrat props set` change an export's [`ExportProps`] before the package
//! writer turns them back into bytes.
//!
//! * [`apply_json`]: the JSON `pakrat props --json` prints (the whole
//!   document, or one export's object), with values changed. It is walked
//!   beside the decoded model: every type comes from the decoded model (or,
//!   for a new array element or map entry, from the container's inner type),
//!   so a value of the wrong type, a property or field that does not exist,
//!   a changed type name or an undecoded (`Skipped`) value that is touched
//!   refuses the edit with its path. Values equal to the decoded ones leave
//!   the model exactly as decoded.
//! * [`set`]: one `PATH=VALUE` on one export. Paths name a property and go
//!   down with `.Field` (struct fields; map entries by key, as in
//!   `Rows.Row_1.Value`), `[i]` (array, set and fixed-size array elements;
//!   an index past the end grows the array with zero-valued elements),
//!   `["Key"]` or `[Key]` (map entries: a new key adds the entry) and
//!   `.len` on an array, set or map (`Tags.len=1` shrinks or grows it),
//!   `.remove` on a map (`Rows.remove=Beta` removes that entry).
//!   The value is read by the type of what the path names: integers
//!   (range-checked per type), floats (`NaN`, `Infinity` too), `true` /
//!   `false`, strings and names as written, enums by entry name (with or
//!   without the `EName::` prefix; checked against the enum's schema when
//!   one is known), object references by full path (`None`, `null` or
//!   nothing clears them), soft references as `/Game/P.A[:Sub]`, texts as a
//!   plain string (a localized text keeps its namespace and key, anything
//!   else becomes a culture-invariant string), and structs, arrays and maps
//!   as JSON in the shape `props --json` prints.
//!
//! Both return the [`Change`]s made (path, old and new value as JSON). A
//! property (or struct field) the export does not store, whose class
//! default applies, is added when the class's (or struct's) schema types
//! it (mappings, or the package's own classes), in schema order; without a
//! schema it is refused, naming the class. Native fields (`Rows` of a data
//! table, …) are named as `native.Rows…` or, when no property has that
//! name, as `Rows…`.

mod json_in;
mod path;
#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value as J;

use super::json::ValueJson;
use super::read::Ctx;
use super::{decode_export, Asset, ExportProps, PropType, Property, Schemas, Value};

pub use path::{parse_path, Seg};

/// One value changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Index of the export.
    pub export: usize,
    /// The value's path: `Nested.Samples[1]`, `Map["Key"]`,
    /// `native.Rows["Row_1"].Value` for native fields.
    pub path: String,
    /// The value before, as `props --json` prints it (`null` for an array
    /// element or map entry that was added).
    pub old: J,
    /// The value after (`null` for an element removed).
    pub new: J,
}

/// Why an edit was refused: the path of the value and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError {
    /// Where (`Export:Property.Field[2]`), empty for the whole document.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.path, self.reason)
        }
    }
}

impl std::error::Error for EditError {}

/// Result of an edit.
pub type Result<T> = std::result::Result<T, EditError>;

fn fail<T>(path: &str, reason: impl Into<String>) -> Result<T> {
    Err(EditError {
        path: path.to_string(),
        reason: reason.into(),
    })
}

/// An export after editing: its new properties and what changed.
#[derive(Clone, Debug)]
pub struct EditedExport {
    /// Index of the export.
    pub export: usize,
    /// The properties after the edit (equal to the decoded ones when
    /// `changes` is empty).
    pub props: ExportProps,
    /// The values changed, in document order.
    pub changes: Vec<Change>,
}

/// The JSON of a value, as `props --json` prints it.
pub fn value_json(v: &Value) -> J {
    serde_json::to_value(ValueJson(v)).unwrap_or(J::Null)
}

/// What walking a value needs: zero values of types (new elements), enum
/// schemas, and the changes found so far.
pub(crate) struct Editor<'a, 'b> {
    asset: &'b Asset<'a>,
    ctx: Ctx<'a, 'b>,
    schemas: &'b dyn Schemas,
    export: usize,
    changes: Vec<Change>,
    /// Above 0 while filling a new element: its leaves are not changes
    /// of their own.
    mute: u32,
}

impl<'a, 'b> Editor<'a, 'b> {
    fn new(asset: &'b Asset<'a>, schemas: &'b dyn Schemas, export: usize) -> Self {
        Editor {
            asset,
            ctx: Ctx::for_write(asset, schemas),
            schemas,
            export,
            changes: Vec::new(),
            mute: 0,
        }
    }

    /// The zero value of `ty` (a new array element, map entry or optional
    /// value).
    fn zero(&mut self, ty: &PropType) -> Value {
        self.ctx.zero_of(ty)
    }

    /// The zero value of `ty`, shaped like `sample` (an element of the
    /// same container) when the type alone gives no fields: a tagged
    /// package's struct without a schema takes its sibling's fields, each
    /// at zero (an enum whose zero entry is not known: the sibling's).
    fn zero_like(&mut self, ty: &PropType, sample: Option<&Value>) -> Value {
        match (self.zero(ty), sample) {
            (Value::Struct(f), Some(Value::Struct(sf))) if f.is_empty() && !sf.is_empty() => {
                Value::Struct(
                    sf.iter()
                        .map(|p| Property {
                            value: self.zero_like(&p.ty, Some(&p.value)),
                            ..p.clone()
                        })
                        .collect(),
                )
            }
            // An enum whose entry for 0 no schema names (a tagged package
            // without mappings) takes its neighbour's entry rather than a
            // made-up name.
            (Value::Enum(z), Some(Value::Enum(x))) if z.ends_with("(0)") => Value::Enum(x.clone()),
            (z, _) => z,
        }
    }

    /// The short name of the export's class.
    fn class(&self) -> String {
        let c = &self.asset.exports[self.export].class;
        c.rsplit(['.', '/']).next().unwrap_or(c).to_string()
    }

    /// Whether class `class` (or a super-class) has a property `name`,
    /// by its schema.
    fn class_has(&self, class: &str, name: &str) -> bool {
        let mut at = Some(class.to_string());
        for _ in 0..64 {
            let Some(s) = at.as_deref().and_then(|c| self.schemas.find_struct(c)) else {
                return false;
            };
            if s.properties
                .iter()
                .any(|p| p.name.eq_ignore_ascii_case(name))
            {
                return true;
            }
            at = s.super_name.clone();
        }
        false
    }

    /// Add the property `name` (element `index` of a fixed-size array)
    /// that struct or class `owner` has by its schema but `list` does not
    /// store, with its type's zero value, in schema order (the order the
    /// engine writes properties in): its slot, or `None` when no schema
    /// types it.
    fn add_from_schema(
        &mut self,
        owner: &str,
        list: &mut Vec<Property>,
        name: &str,
        index: u32,
    ) -> Option<usize> {
        let flat = self.ctx.flat_of(owner)?;
        let pos = flat
            .iter()
            .position(|(n, e, _)| n.eq_ignore_ascii_case(name) && *e == index)?;
        let (n, e, ty) = flat[pos].clone();
        if matches!(ty, PropType::Unknown(_)) || list.iter().any(|p| p.name == n && p.index == e) {
            return None;
        }
        let rank = |p: &Property| {
            flat.iter()
                .position(|(f, fe, _)| f.eq_ignore_ascii_case(&p.name) && *fe == p.index)
        };
        let at = list
            .iter()
            .rposition(|p| rank(p).is_some_and(|r| r < pos))
            .map_or(0, |k| k + 1);
        let value = self.zero(&ty);
        list.insert(
            at,
            Property {
                name: n,
                index: e,
                ty,
                value,
            },
        );
        Some(at)
    }

    /// Whether a schema for struct or class `owner` is known.
    fn has_schema(&self, owner: &str) -> bool {
        self.schemas.find_struct(owner).is_some()
    }

    fn record(&mut self, path: &str, old: J, new: J) {
        if self.mute == 0 && old != new {
            self.changes.push(Change {
                export: self.export,
                path: path.to_string(),
                old,
                new,
            });
        }
    }
}

/// The label of a property in paths and JSON: `Name`, or `Name[i]` for
/// element `i > 0` of a fixed-size array.
fn label(p: &Property) -> String {
    if p.index > 0 {
        format!("{}[{}]", p.name, p.index)
    } else {
        p.name.clone()
    }
}

/// Apply `edited` (the JSON of `props --json`: the whole document, or one
/// export's object) to the exports of `asset` it names (by `path`, else by
/// `name`). Each named export is decoded, then its `properties` (and
/// `native.fields`) are walked beside the decoded ones; values left as
/// printed stay exactly as decoded. Returns one [`EditedExport`] per export
/// the document names, in document order.
pub fn apply_json(
    asset: &Asset<'_>,
    schemas: &dyn Schemas,
    edited: &J,
) -> Result<Vec<EditedExport>> {
    let exports: Vec<&J> = match edited {
        J::Object(o) if o.contains_key("exports") => match &o["exports"] {
            J::Array(a) => a.iter().collect(),
            _ => return fail("exports", "is not an array"),
        },
        J::Object(o) if o.contains_key("properties") => vec![edited],
        _ => {
            return fail(
                "",
                "not the JSON of `pakrat props --json`: an object with \"exports\", or one export's object with \"properties\"",
            )
        }
    };
    if let Some(J::String(p)) = edited.get("package") {
        if !p.eq_ignore_ascii_case(&asset.package) {
            return fail(
                "package",
                format!(
                    "the JSON is of package {p}, this package is {}",
                    asset.package
                ),
            );
        }
    }
    let mut out = Vec::new();
    for (k, e) in exports.iter().enumerate() {
        let i = find_export(asset, e, k)?;
        if out.iter().any(|x: &EditedExport| x.export == i) {
            return fail(&asset.exports[i].path, "named twice in the JSON");
        }
        let decoded = decode_export(asset, i, schemas);
        let mut ed = Editor::new(asset, schemas, i);
        let props = json_in::export_from_json(&mut ed, &asset.exports[i].path, &decoded, e)?;
        out.push(EditedExport {
            export: i,
            props,
            changes: ed.changes,
        });
    }
    Ok(out)
}

/// The export an object of the JSON names: by `path`, else by `name`.
fn find_export(asset: &Asset<'_>, e: &J, k: usize) -> Result<usize> {
    let at = format!("exports[{k}]");
    if let Some(p) = e.get("path").and_then(J::as_str) {
        return asset
            .exports
            .iter()
            .position(|x| x.path == p)
            .map_or_else(|| fail(&at, format!("no export {p} in the package")), Ok);
    }
    let Some(n) = e.get("name").and_then(J::as_str) else {
        return fail(&at, "has neither \"path\" nor \"name\"");
    };
    let hits: Vec<usize> = (0..asset.exports.len())
        .filter(|&i| asset.exports[i].name.eq_ignore_ascii_case(n))
        .collect();
    match hits[..] {
        [i] => Ok(i),
        [] => fail(&at, format!("no export named {n}")),
        _ => fail(
            &at,
            format!("{} exports are named {n}: give \"path\"", hits.len()),
        ),
    }
}

/// Set the value at `path` (see the module) of `props`, the decoded
/// properties of export `export`, to `value`. Returns the change (its old
/// value `null` when the path added an element or entry).
pub fn set(
    asset: &Asset<'_>,
    schemas: &dyn Schemas,
    export: usize,
    props: &mut ExportProps,
    path: &str,
    value: &str,
) -> Result<Vec<Change>> {
    if let Some(e) = &props.error {
        return fail(
            path,
            format!("the export did not decode fully ({e}): it cannot be edited"),
        );
    }
    let segs = parse_path(path)?;
    let mut ed = Editor::new(asset, schemas, export);
    path::set_in(&mut ed, props, &segs, path, value)?;
    Ok(ed.changes)
}
