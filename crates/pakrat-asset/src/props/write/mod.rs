//! The encoder: the property model → the bytes of an export's property
//! stream, the mirror of the decoder in `read/`.
//!
//! * `tagged`: `FPropertyTag`s (complete type names from UE 5.4, the older
//!   tags before), sizes computed from the encoded values;
//! * `unversioned`: the fragment header and zero mask, values in schema
//!   order;
//! * `values`: values by type, shared by both forms; `text`: `FText`;
//! * `native`: natively serialized structs inside properties;
//! * `tail`: the native data after the properties of data tables, curve
//!   tables, string tables and user-defined enums.
//!
//! What the model does not say (tag flags, property GUIDs, the spelling of
//! type names, zero values written unmasked, bytes pakrat skipped) comes
//! from [`WriteHints`], recorded while decoding; without them the
//! canonical form is written.

mod hints;
mod movie;
mod native;
mod tagged;
mod tail;
#[cfg(test)]
mod tests;
mod text;
mod unversioned;
mod values;

pub(crate) use hints::TagHint;
pub use hints::WriteHints;
pub(crate) use native::encodes_native;
pub use tail::writes_native_tail;

use super::read::{Ctx, MAX_DEPTH};
use super::{Asset, ExportProps, PropType, Schemas, Value};
use pakrat_io::Writer;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// Names and imports an encoding added to the package: what
/// [`encode_properties_into`] may grow, shared by every export of one
/// package. Name `k` of `names` is name-map entry `asset.names.len() + k`;
/// import `k` of `imports` is `FPackageIndex` `-(asset.imports.len() + k +
/// 1)`, its outers added before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Additions {
    /// Names appended to the name map, in order.
    pub names: Vec<String>,
    /// Full paths of imports appended to the import map, in order (a
    /// package before the objects inside it).
    pub imports: Vec<String>,
}

/// Why a property tree could not be encoded: the value's path
/// (`/Name[0]#2`) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// Path of the value: `/Property[index]` per property, `#i` per
    /// container element, `{ik` / `{iv` per map key / value, `?` for an
    /// optional's value.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode {}: {}", self.path, self.reason)
    }
}

impl std::error::Error for EncodeError {}

/// Result of the encoder.
pub type Result<T> = std::result::Result<T, EncodeError>;

/// Which form the stream is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Tagged,
    Unversioned,
}

/// What encoding one export needs.
pub(crate) struct Enc<'a, 'b> {
    asset: &'b Asset<'a>,
    rd: Ctx<'a, 'b>,
    form: Form,
    hints: &'b WriteHints,
    names: HashMap<&'b str, u32>,
    objects: HashMap<&'b str, i32>,
    zeros: HashMap<PropType, Value>,
    /// Strings written per path so far (to find their spelling hints).
    string_counts: HashMap<String, u32>,
    path: String,
    depth: u32,
    /// Where names and imports the package lacks go (`None`: refused).
    adds: Option<RefCell<Additions>>,
}

impl<'a, 'b> Enc<'a, 'b> {
    fn new(asset: &'b Asset<'a>, schemas: &'b dyn Schemas, hints: &'b WriteHints) -> Self {
        let mut names = HashMap::new();
        for (i, n) in asset.names.iter().enumerate() {
            names.entry(n.as_str()).or_insert(i as u32);
        }
        let mut objects = HashMap::new();
        for (i, o) in asset.imports.iter().enumerate() {
            objects.entry(o.path.as_str()).or_insert(-(i as i32) - 1);
        }
        for (i, e) in asset.exports.iter().enumerate() {
            objects.entry(e.path.as_str()).or_insert(i as i32 + 1);
        }
        Enc {
            asset,
            rd: Ctx::for_write(asset, schemas),
            form: if asset.unversioned {
                Form::Unversioned
            } else {
                Form::Tagged
            },
            hints,
            names,
            objects,
            zeros: HashMap::new(),
            string_counts: HashMap::new(),
            path: String::new(),
            depth: 0,
            adds: None,
        }
    }

    /// An error at the current path.
    fn err<T>(&self, reason: impl Into<String>) -> Result<T> {
        Err(EncodeError {
            path: if self.path.is_empty() {
                "/".into()
            } else {
                self.path.clone()
            },
            reason: reason.into(),
        })
    }

    /// Run `f` with `seg` appended to the path, one level deeper.
    fn at<T>(
        &mut self,
        seg: fmt::Arguments<'_>,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return self.err(format!("values nested deeper than {MAX_DEPTH} levels"));
        }
        let len = self.path.len();
        let _ = fmt::Write::write_fmt(&mut self.path, seg);
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        self.path.truncate(len);
        out
    }

    /// An `FName`: the name-map entry, with a `_N` suffix as its number
    /// when the entry without it exists.
    fn fname(&self, w: &mut Writer, name: &str) -> Result<()> {
        if let Some((base, num)) = name.rsplit_once('_') {
            let numeric = !num.is_empty()
                && num.bytes().all(|b| b.is_ascii_digit())
                && (num == "0" || !num.starts_with('0'));
            if let (true, Some(&i), Ok(n)) = (numeric, self.names.get(base), num.parse::<u32>()) {
                if let Some(n) = n.checked_add(1) {
                    w.u32(i).u32(n);
                    return Ok(());
                }
            }
        }
        match self.names.get(name) {
            Some(&i) => {
                w.u32(i).u32(0);
                Ok(())
            }
            None => match &self.adds {
                Some(adds) => {
                    let (i, n) = self.add_name(&mut adds.borrow_mut(), name);
                    w.u32(i).u32(n);
                    Ok(())
                }
                None => self.err(format!("name {name:?} is not in the package's name map")),
            },
        }
    }

    /// Append a name (its base, when it ends in a `_N` number, as the
    /// engine splits it) to the additions: its index and number.
    fn add_name(&self, adds: &mut Additions, name: &str) -> (u32, u32) {
        let (base, number) = match name.rsplit_once('_') {
            Some((b, n))
                if !b.is_empty()
                    && !n.is_empty()
                    && n.bytes().all(|c| c.is_ascii_digit())
                    && (n == "0" || !n.starts_with('0')) =>
            {
                match n.parse::<u32>().ok().and_then(|x| x.checked_add(1)) {
                    Some(x) => (b, x),
                    None => (name, 0),
                }
            }
            _ => (name, 0),
        };
        if let Some(&i) = self.names.get(base) {
            return (i, number);
        }
        let k = match adds.names.iter().position(|n| n == base) {
            Some(k) => k,
            None => {
                adds.names.push(base.to_string());
                adds.names.len() - 1
            }
        };
        ((self.asset.names.len() + k) as u32, number)
    }

    /// Append an import for `path` (and, first, the outers it needs) to
    /// the additions: its `FPackageIndex`.
    fn add_import(&self, adds: &mut Additions, path: &str) -> i32 {
        if let Some(&i) = self.objects.get(path) {
            return i;
        }
        if let Some(k) = adds.imports.iter().position(|p| p == path) {
            return -((self.asset.imports.len() + k) as i32) - 1;
        }
        if let Some(at) = path.rfind([':', '.']) {
            self.add_import(adds, &path[..at]);
        }
        adds.imports.push(path.to_string());
        -((self.asset.imports.len() + adds.imports.len()) as i32)
    }

    /// An `FPackageIndex` for an object path (`None`: null).
    fn object(&self, w: &mut Writer, path: Option<&str>) -> Result<()> {
        let i = match path {
            None => 0,
            Some(p) => match self.objects.get(p) {
                Some(&i) => i,
                None if self.adds.is_some() && p.starts_with('/') => {
                    let adds = self.adds.as_ref().expect("checked");
                    self.add_import(&mut adds.borrow_mut(), p)
                }
                None => {
                    return self.err(format!(
                        "object {p} is neither an import nor an export of the package"
                    ))
                }
            },
        };
        w.i32(i);
        Ok(())
    }

    /// An `FString`, spelled as stored when the hints have it.
    fn fstr(&mut self, w: &mut Writer, s: &str) {
        let n = self.string_counts.entry(self.path.clone()).or_insert(0);
        let ordinal = *n;
        *n += 1;
        match self.hints.strings.get(&(self.path.clone(), ordinal)) {
            Some((orig, raw)) if orig == s => {
                w.bytes(raw);
            }
            _ => fstring(w, s),
        }
    }

    /// The zero value of `ty`, cached.
    fn zero(&mut self, ty: &PropType) -> &Value {
        if !self.zeros.contains_key(ty) {
            let z = self.rd.zero_of(ty);
            self.zeros.insert(ty.clone(), z);
        }
        &self.zeros[ty]
    }

    fn ue4(&self) -> i32 {
        self.rd.versions().0
    }

    fn ue5(&self) -> i32 {
        self.rd.versions().1
    }

    /// The property stream of a class or struct.
    fn properties(
        &mut self,
        w: &mut Writer,
        struct_name: &str,
        props: &[super::Property],
        object: bool,
    ) -> Result<()> {
        match self.form {
            Form::Tagged => {
                if object && self.ue5() >= super::read::UE5_PROPERTY_TAG_EXTENSION {
                    match &self.hints.object_prefix {
                        Some(p) => w.bytes(p),
                        None => w.u8(0),
                    };
                }
                self.tagged_properties(w, props)
            }
            Form::Unversioned => self.unversioned_properties(w, struct_name, props),
        }
    }
}

/// Encode the property stream of export `index` of `asset` from `props`:
/// the bytes `[0, native_start)` of its data (the properties, then the
/// object GUID flag). `hints` (from [`decode_export_for_write`]) make an
/// unedited export come out as its exact bytes; `WriteHints::default()`
/// gives the canonical form.
///
/// Never panics: a value that does not fit its type, a name missing from
/// the name map or an unknown object is an [`EncodeError`] naming it.
pub fn encode_properties(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
) -> Result<Vec<u8>> {
    encode(asset, index, schemas, props, hints, None)
}

/// [`encode_properties`], with names the name map lacks and objects that
/// are neither imports nor exports added to `adds` (and written with the
/// indices they will have) instead of refused.
pub fn encode_properties_into(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
    adds: &mut Additions,
) -> Result<Vec<u8>> {
    // Nothing is added when the encoding fails.
    let mut work = adds.clone();
    let out = encode(asset, index, schemas, props, hints, Some(&mut work))?;
    *adds = work;
    Ok(out)
}

fn encode(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
    adds: Option<&mut Additions>,
) -> Result<Vec<u8>> {
    let Some(export) = asset.exports.get(index) else {
        return Err(EncodeError {
            path: "/".into(),
            reason: format!(
                "export {index} does not exist ({} exports)",
                asset.exports.len()
            ),
        });
    };
    let class = export.class_name().to_string();
    let mut w = Writer::new();
    if super::read::without_properties(&class) {
        return Ok(w.into_inner());
    }
    let mut enc = Enc::new(asset, schemas, hints);
    if let Some(a) = &adds {
        enc.adds = Some(RefCell::new((*a).clone()));
    }
    enc.properties(&mut w, &class, &props.properties, true)?;
    if let (Some(a), Some(cell)) = (adds, enc.adds.take()) {
        *a = cell.into_inner();
    }
    match &hints.trailer {
        Some(t) => {
            w.bytes(t);
        }
        None => {
            let guid = props.native.iter().find(|p| p.name == "ObjectGuid");
            match guid.map(|p| &p.value) {
                Some(Value::Guid(g)) => {
                    w.u32(1).guid(*g);
                }
                _ => {
                    w.u32(0);
                }
            }
        }
    }
    Ok(w.into_inner())
}

/// Encode the native data of export `index` of `asset` after its property
/// stream (the bytes `[native_start, end)` of its data) from
/// `props.native`, for the classes [`writes_native_tail`] names (`None`
/// for any other: their tail is kept as stored). Bytes the decoder left
/// unread after the tail (`native_unread`) are copied from the export.
/// With the `hints` of [`decode_export_for_write`], an unedited tail comes
/// out as its exact bytes.
pub fn encode_native_tail(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
) -> Result<Option<Vec<u8>>> {
    tail_of(asset, index, schemas, props, hints, None)
}

/// [`encode_native_tail`], with new names and imports added to `adds`
/// (as [`encode_properties_into`] does).
pub fn encode_native_tail_into(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
    adds: &mut Additions,
) -> Result<Option<Vec<u8>>> {
    let mut work = adds.clone();
    let out = tail_of(asset, index, schemas, props, hints, Some(&mut work))?;
    *adds = work;
    Ok(out)
}

fn tail_of(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    props: &ExportProps,
    hints: &WriteHints,
    adds: Option<&mut Additions>,
) -> Result<Option<Vec<u8>>> {
    let Some(export) = asset.exports.get(index) else {
        return Err(EncodeError {
            path: "/".into(),
            reason: format!(
                "export {index} does not exist ({} exports)",
                asset.exports.len()
            ),
        });
    };
    let class = export.class_name().to_string();
    if !writes_native_tail(&class) {
        return Ok(None);
    }
    let mut enc = Enc::new(asset, schemas, hints);
    if let Some(a) = &adds {
        enc.adds = Some(RefCell::new((*a).clone()));
    }
    let mut w = Writer::new();
    enc.native_tail(&mut w, &class, &props.native)?;
    if let (Some(a), Some(cell)) = (adds, enc.adds.take()) {
        *a = cell.into_inner();
    }
    let data = export.data;
    let unread = usize::try_from(props.native_unread)
        .ok()
        .filter(|&n| n <= data.len())
        .unwrap_or(0);
    w.bytes(&data[data.len() - unread..]);
    Ok(Some(w.into_inner()))
}

/// Decode export `index` of `asset` as [`super::decode_export`] does, with
/// the [`WriteHints`] that let [`encode_properties`] write it back exactly.
pub fn decode_export_for_write(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
) -> (ExportProps, WriteHints) {
    super::read::decode_export_recording(asset, index, schemas, true)
}

/// An `FString` as the engine writes it: empty as a zero length, 8-bit
/// with a NUL when every character is ASCII, else UTF-16 (negative
/// length).
fn fstring(w: &mut Writer, s: &str) {
    if s.is_empty() {
        w.i32(0);
    } else {
        pakrat_codec::fstring::write_fstring(w, s);
    }
}

/// A value's family name for errors.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "a bool",
        Value::Int(_) => "an integer",
        Value::UInt(_) => "an unsigned integer",
        Value::Float(_) => "a float",
        Value::Double(_) => "a double",
        Value::Enum(_) => "an enum value",
        Value::Name(_) => "a name",
        Value::Str(_) => "a string",
        Value::Text(_) => "a text",
        Value::Object(_) => "an object reference",
        Value::SoftObject { .. } => "a soft object path",
        Value::Guid(_) => "a GUID",
        Value::Delegate { .. } => "a delegate",
        Value::Multicast(_) => "a multicast delegate",
        Value::FieldPath { .. } => "a field path",
        Value::Struct(_) => "a struct",
        Value::Array(_) => "an array",
        Value::Set(_) => "a set",
        Value::Map(_) => "a map",
        Value::Optional(_) => "an optional",
        Value::Skipped { .. } => "an undecoded value",
    }
}
