//! Edited property trees back into whole packages: [`write_edited`] takes
//! an opened package and the new property trees of some of its exports and
//! gives the package's bytes, legacy (`.uasset` + `.uexp`) or zen (the
//! package chunk), with everything that points at export data moved.
//!
//! * An export not edited, or edited to the tree it decodes to, keeps its
//!   bytes; a package without edits comes back byte for byte.
//! * An edited export's property stream is encoded again
//!   ([`crate::props::encode_properties`] with the hints of
//!   [`crate::props::decode_export_for_write`], so unchanged values keep
//!   their stored form); its native tail (the bytes after the properties)
//!   is kept as it is, or encoded from `props.native` when that changed
//!   for a class [`crate::props::writes_native_tail`] names (data, curve
//!   and string tables, user-defined enums).
//! * What moves when an export changes size: its serial size, the serial
//!   offsets of the exports after it, `BulkDataStartOffset`, data resource
//!   offsets inside the package file, `ScriptSerializationEndOffset`
//!   (legacy); `CookedSerialOffset`/`CookedSerialSize` (zen).
//! * A name the tree uses that the name map lacks is appended to it; an
//!   object reference that is neither an import nor an export becomes a
//!   new import (legacy).
//!
//! `legacy` and `zen` lay the files out; `layout` moves export data and
//! maps old offsets to new ones.

mod layout;
mod legacy;
mod zen;

use std::fmt;

use crate::props::open::{Opened, PackageForm};
use crate::props::{
    decode_export_for_write, encode_native_tail_into, encode_properties_into, writes_native_tail,
    Additions, Asset, ExportProps, Property, Schemas, Value,
};

/// The new property tree of one export.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportEdit {
    /// The export (0-based).
    pub export: usize,
    /// Its whole new property tree. The native tail (the bytes after the
    /// property stream) is kept as stored when `props.native` is the
    /// decoded one or empty; otherwise it is written from `props.native`
    /// (only for the classes [`crate::props::writes_native_tail`] names).
    pub props: ExportProps,
}

/// A package written back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditedPackage {
    /// The `.uasset`/`.umap` bytes, or the zen package chunk.
    pub main: Vec<u8>,
    /// The `.uexp` of a split legacy package.
    pub uexp: Option<Vec<u8>>,
    /// Companion files that changed, by extension (`ubulk`, …); usually
    /// empty (bulk payloads are never edited, only moved inside the
    /// package's own files).
    pub bulk: Vec<(String, Vec<u8>)>,
    /// Names appended to the name map.
    pub new_names: Vec<String>,
    /// Imports added (their full paths, with the class assumed).
    pub new_imports: Vec<String>,
    /// Exports whose size changed: (export index, change in bytes).
    pub resized: Vec<(usize, i64)>,
    /// Zen: the package's imported package ids after a new reference added
    /// a package, sorted, for the container header's store entry (which
    /// must list them; `None`: unchanged).
    pub imported_packages: Option<Vec<u64>>,
}

/// Why a package could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError {
    /// The export concerned (0-based), when one is.
    pub export: Option<usize>,
    /// Its full path, when known.
    pub path: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl EditError {
    fn package(reason: impl Into<String>) -> EditError {
        EditError {
            export: None,
            path: None,
            reason: reason.into(),
        }
    }

    fn export(asset: &Asset<'_>, i: usize, reason: impl Into<String>) -> EditError {
        EditError {
            export: Some(i),
            path: asset.exports.get(i).map(|e| e.path.clone()),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.export, &self.path) {
            (Some(i), Some(p)) => write!(f, "export {i} ({p}): {}", self.reason),
            (Some(i), None) => write!(f, "export {i}: {}", self.reason),
            _ => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for EditError {}

/// Write `opened` with the exports of `edits` replaced by their new
/// property trees (unversioned streams through `schemas`). Nothing is
/// written to disk: the caller gets the bytes.
///
/// An edit whose properties are the decoded ones changes nothing: the
/// export keeps its stored bytes.
///
/// Refused, with the export and the reason: an export index out of range
/// or edited twice; an edited export that does not decode fully (a
/// decoding error, a skipped value); a changed native part of a class
/// whose tail pakrat does not write or of a composite table, or a changed
/// `ObjectGuid`; a value that does not encode; a layout
/// pakrat does not write (zen packages before UE 5.3, uncooked legacy
/// packages) when something changed.
pub fn write_edited(
    opened: &Opened,
    schemas: &dyn Schemas,
    edits: &[ExportEdit],
) -> Result<EditedPackage, EditError> {
    let asset = opened.asset();
    let mut adds = Additions::default();
    let new_data = encode_edits(&asset, schemas, edits, &mut adds)?;
    let deps = import_users(&asset, edits, &adds);
    match opened.form() {
        Some(PackageForm::Legacy(pkg)) => {
            legacy::write(opened, pkg, &asset, &new_data, &adds, &deps)
        }
        Some(PackageForm::Zen(z)) => zen::write(opened, z, &asset, &new_data, &adds, &deps),
        None => Err(EditError::package(format!(
            "{}: the package's header was not kept when it was opened",
            opened.origin
        ))),
    }
}

/// The new bytes of an export.
#[derive(Clone, Debug)]
pub(crate) struct NewData {
    /// The whole export.
    pub data: Vec<u8>,
    /// Where its old property stream ended (its native tail started):
    /// offsets at or after it move with the change in size.
    pub props_end: u64,
    /// The change in size of the property stream alone (the native tail
    /// may have changed too).
    pub props_delta: i64,
}

/// The new bytes of every export that changed (`None`: keep its bytes).
fn encode_edits(
    asset: &Asset<'_>,
    schemas: &dyn Schemas,
    edits: &[ExportEdit],
    adds: &mut Additions,
) -> Result<Vec<Option<NewData>>, EditError> {
    let mut out: Vec<Option<NewData>> = vec![None; asset.exports.len()];
    let mut seen = vec![false; asset.exports.len()];
    for e in edits {
        let i = e.export;
        if i >= asset.exports.len() {
            return Err(EditError::package(format!(
                "export {i} does not exist (the package has {})",
                asset.exports.len()
            )));
        }
        if std::mem::replace(&mut seen[i], true) {
            return Err(EditError::export(asset, i, "edited twice"));
        }
        let (orig, hints) = decode_export_for_write(asset, i, schemas);
        let class = asset.exports[i].class_name();
        let native_changed = !e.props.native.is_empty() && orig.native != e.props.native;
        if native_changed {
            native_editable(asset, i, class, &orig.native, &e.props.native)?;
        }
        // Nothing to write: the stored bytes stay, whatever the encoder
        // would make of them.
        let props_changed = orig.properties != e.props.properties;
        if !props_changed && !native_changed {
            continue;
        }
        if let Some(err) = &orig.error {
            return Err(EditError::export(
                asset,
                i,
                format!("it does not decode fully, so it cannot be written again: {err}"),
            ));
        }
        if let Some(p) = skipped(&e.props.properties).or_else(|| skipped(&e.props.native)) {
            return Err(EditError::export(
                asset,
                i,
                format!("{p} was skipped when decoding (pakrat does not know its type), so the export cannot be written again"),
            ));
        }
        let data = asset.exports[i].data;
        let start = usize::try_from(orig.native_start)
            .ok()
            .filter(|&s| s <= data.len())
            .ok_or_else(|| EditError::export(asset, i, "its native data starts past its end"))?;
        let mut bytes = if props_changed {
            encode_properties_into(asset, i, schemas, &e.props, &hints, adds)
                .map_err(|err| EditError::export(asset, i, err.to_string()))?
        } else {
            data[..start].to_vec()
        };
        let props_delta = bytes.len() as i64 - start as i64;
        if native_changed {
            let tail = encode_native_tail_into(asset, i, schemas, &e.props, &hints, adds)
                .map_err(|err| EditError::export(asset, i, format!("native data: {err}")))?
                .ok_or_else(|| EditError::export(asset, i, "its native data is not written"))?;
            bytes.extend_from_slice(&tail);
        } else {
            bytes.extend_from_slice(&data[start..]);
        }
        if bytes != data {
            out[i] = Some(NewData {
                data: bytes,
                props_end: orig.native_start,
                props_delta,
            });
        }
    }
    Ok(out)
}

/// Per edited export, the new imports (objects, not packages) its tree
/// refers to, as `FPackageIndex` values: each becomes a create-before-
/// serialize dependency of the export (the loader must have created a
/// referenced object before the export's properties are read), as the
/// cooker records for the references it saw.
fn import_users(
    asset: &Asset<'_>,
    edits: &[ExportEdit],
    adds: &Additions,
) -> Vec<(usize, Vec<i32>)> {
    fn walk(v: &Value, f: &mut dyn FnMut(&str)) {
        match v {
            Value::Object(Some(p)) => f(p),
            Value::Delegate {
                object: Some(p), ..
            } => f(p),
            Value::Struct(ps) => ps.iter().for_each(|p| walk(&p.value, f)),
            Value::Array(vs) | Value::Set(vs) | Value::Multicast(vs) => {
                vs.iter().for_each(|x| walk(x, f))
            }
            Value::Map(es) => es.iter().for_each(|(k, x)| {
                walk(k, f);
                walk(x, f)
            }),
            Value::Optional(Some(x)) => walk(x, f),
            _ => {}
        }
    }
    if adds.imports.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for e in edits {
        let mut used = Vec::new();
        for p in &e.props.properties {
            walk(&p.value, &mut |path| {
                if let Some(k) = adds.imports.iter().position(|x| x == path) {
                    let idx = -((asset.imports.len() + k) as i32) - 1;
                    if path.contains('.') && !used.contains(&idx) {
                        used.push(idx);
                    }
                }
            });
        }
        if !used.is_empty() {
            out.push((e.export, used));
        }
    }
    out
}

/// Whether the native part of export `i` may be written from `new`:
/// the classes whose tail pakrat encodes, the object GUID unchanged, and
/// not a composite table: when the engine loads one,
/// `UCompositeDataTable::Serialize` (and `UCompositeCurveTable`'s) reads
/// the stored rows, then calls `OnParentTablesUpdated`, whose
/// `UpdateCachedRowMap` empties the table and adds the rows of each
/// parent table in turn, so stored rows are never used. Its
/// `ParentTables` property is edited like any other.
fn native_editable(
    asset: &Asset<'_>,
    i: usize,
    class: &str,
    orig: &[Property],
    new: &[Property],
) -> Result<(), EditError> {
    let guid = |l: &[Property]| l.iter().find(|p| p.name == "ObjectGuid").cloned();
    if guid(orig) != guid(new) {
        return Err(EditError::export(
            asset,
            i,
            "its ObjectGuid was changed; the object GUID is not written from the model",
        ));
    }
    if matches!(class, "CompositeDataTable" | "CompositeCurveTable") {
        return Err(EditError::export(
            asset,
            i,
            format!(
                "a {class}'s rows are rebuilt from its ParentTables when the engine loads it (U{class}::Serialize calls OnParentTablesUpdated, which empties the rows and adds the parents'): edit ParentTables or the parent tables"
            ),
        ));
    }
    if !writes_native_tail(class) {
        return Err(EditError::export(
            asset,
            i,
            format!(
                "its native data (the part after the properties) was changed; pakrat writes the native data of \
                 DataTable, CurveTable, StringTable and UserDefinedEnum exports only, a {class}'s is kept as stored"
            ),
        ));
    }
    Ok(())
}

/// The path of the first skipped value of a tree, if any.
fn skipped(props: &[crate::props::Property]) -> Option<String> {
    fn in_value(v: &Value) -> bool {
        match v {
            Value::Skipped { .. } => true,
            Value::Struct(ps) => ps.iter().any(|p| in_value(&p.value)),
            Value::Array(vs) | Value::Set(vs) | Value::Multicast(vs) => vs.iter().any(in_value),
            Value::Map(es) => es.iter().any(|(k, v)| in_value(k) || in_value(v)),
            Value::Optional(Some(v)) => in_value(v),
            _ => false,
        }
    }
    props
        .iter()
        .find(|p| in_value(&p.value))
        .map(|p| format!("property {}", p.name))
}
