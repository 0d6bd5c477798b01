//! The decoder: an export's bytes → [`ExportProps`].
//!
//! Layout of an export (`UObject::Serialize`, checked on the UE 5.8/6.0
//! fixtures): the property stream (tagged: UE 5.2+ objects first write one
//! `EClassSerializationControlExtension` byte, then tags up to `None`;
//! unversioned: a fragment header and the values), then for objects that
//! are not class defaults an `i32` bool and maybe the object's GUID, then
//! the class's native data.

mod native;
mod tagged;
mod text;
mod unversioned;
mod ustruct;
mod values;

pub(crate) use native::{
    row_seg, table, without_properties, EXTRAPOLATION, F, FORTNITE_FLOAT_CHANNEL_SHOW_CURVE,
    INTERP, SEQUENCER, SEQUENCER_FLOAT_CHANNEL_COMPLETELY, STRING_TABLE_SEG, TANGENT,
    TANGENT_WEIGHT,
};
pub(crate) use tagged::{
    UE4_ARRAY_PROPERTY_INNER_TAGS, UE4_PROPERTY_GUID_IN_PROPERTY_TAG,
    UE4_PROPERTY_TAG_SET_MAP_SUPPORT, UE4_STRUCT_GUID_IN_PROPERTY_TAG,
};
pub(crate) use text::{
    EDITOR, UE4_ADDED_CURRENCY_CODE_TO_FTEXT, UE4_FTEXT_HISTORY, UE4_FTEXT_HISTORY_DATE_TIMEZONE,
    UE5_RELEASE,
};
pub(crate) use ustruct::struct_def;
pub(crate) use values::{
    FORTNITE_FIELD_PATH_OWNER, FORTNITE_MAIN, FORTNITE_SOFT_PATH_UTF8, RELEASE,
    RELEASE_FIELD_PATH_OWNER, UE4_ADDED_SOFT_OBJECT_PATH, UE4_INNER_ARRAY_TAG_INFO,
};

use super::schema::{SchemaProperty, Schemas};
use super::write::WriteHints;
use super::{Asset, ExportProps, PropType, Property, Value};
use pakrat_io::{Error, Guid, Reader, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// `EUnrealEngineObjectUE5Version::LARGE_WORLD_COORDINATES`: vectors,
/// rotators, quats … are doubles from here on.
pub(crate) const UE5_LARGE_WORLD_COORDINATES: i32 = 1004;
/// `PROPERTY_TAG_EXTENSION_AND_OVERRIDABLE_SERIALIZATION`.
pub(crate) const UE5_PROPERTY_TAG_EXTENSION: i32 = 1011;
/// `PROPERTY_TAG_COMPLETE_TYPE_NAME` (UE 5.4).
pub(crate) const UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME: i32 = 1012;
/// `FSOFTOBJECTPATH_REMOVE_ASSET_PATH_FNAMES` (UE 5.1).
pub(crate) const UE5_SOFT_OBJECT_PATH_TOP_LEVEL: i32 = 1007;

/// The schema entry of an index no property covers.
static HOLE: std::sync::LazyLock<SchemaProperty> = std::sync::LazyLock::new(|| SchemaProperty {
    index: 0,
    array_dim: 1,
    name: String::new(),
    ty: PropType::Unknown("(no property at this schema index)".into()),
});

/// Deepest nesting of structs and containers accepted.
pub(crate) const MAX_DEPTH: u32 = 64;

/// Whether values carry tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Tagged,
    Unversioned,
}

/// A schema flattened with its super-structs: one entry per schema index.
type Flat<'s> = Rc<Vec<(&'s SchemaProperty, u32)>>;

/// What decoding one package needs, with caches.
pub(crate) struct Ctx<'a, 'b> {
    asset: &'b Asset<'a>,
    schemas: &'b dyn Schemas,
    form: Form,
    lwc: bool,
    depth: u32,
    /// Fields an all-zero struct may still expand into (a hostile schema
    /// that nests a struct in itself twice would otherwise grow as 2^depth).
    zero_budget: u32,
    flat: RefCell<HashMap<String, Option<Flat<'b>>>>,
    /// Write hints being recorded ([`decode_export_for_write`]).
    rec: Option<Box<WriteHints>>,
    /// Path of the value being read (only kept while recording).
    path: String,
}

/// What the encoder borrows from the decoder: schemas flattened, zero
/// values, which structs are native, version gates.
impl<'a, 'b> Ctx<'a, 'b> {
    /// A decoder context for the encoder's questions.
    pub(crate) fn for_write(asset: &'b Asset<'a>, schemas: &'b dyn Schemas) -> Self {
        Ctx::new(asset, schemas)
    }

    /// The flattened schema of `name`: (property name, element, type) per
    /// schema index.
    pub(crate) fn flat_of(&self, name: &str) -> Option<Vec<(String, u32, PropType)>> {
        self.flat_schema(name).map(|f| {
            f.iter()
                .map(|(p, e)| (p.name.clone(), *e, p.ty.clone()))
                .collect()
        })
    }

    /// The value a zero-masked property of `ty` decodes to.
    pub(crate) fn zero_of(&mut self, ty: &PropType) -> Value {
        self.zero_value(ty)
    }

    /// Whether struct `name` is serialized natively by a serializer pakrat
    /// reads.
    pub(crate) fn native_known(&self, name: &str) -> bool {
        self.is_native(name)
    }

    /// Package file versions (UE4, UE5).
    pub(crate) fn versions(&self) -> (i32, i32) {
        (self.ue4(), self.ue5())
    }

    /// Whether custom version `key` is at least `v`.
    pub(crate) fn custom_ge(&self, key: Guid, v: i32) -> bool {
        self.custom_at_least(key, v)
    }

    /// The number of entry `entry` (bare name) of enum `name`.
    pub(crate) fn enum_number(&self, name: &str, entry: &str) -> Option<i64> {
        let e = self.schemas.find_enum(name)?;
        e.entries
            .iter()
            .find(|(_, n)| n.rsplit("::").next() == Some(entry))
            .map(|(v, _)| *v)
    }

    /// Whether reals are doubles (large world coordinates).
    pub(crate) fn lwc(&self) -> bool {
        self.lwc
    }
}

/// `FName` as stored in export data: name-map index and number.
fn read_fname(ctx: &Ctx<'_, '_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let index = r.u32(what)?;
    let number = r.u32(what)?;
    ctx.asset.name(index, number).ok_or_else(|| {
        Error::invalid(
            at,
            format!(
                "{what}: name index {index} is outside the name map ({} names)",
                ctx.asset.names.len()
            ),
        )
    })
}

impl<'a, 'b> Ctx<'a, 'b> {
    fn new(asset: &'b Asset<'a>, schemas: &'b dyn Schemas) -> Self {
        Ctx {
            asset,
            schemas,
            form: if asset.unversioned {
                Form::Unversioned
            } else {
                Form::Tagged
            },
            lwc: asset.versions.ue5 >= UE5_LARGE_WORLD_COORDINATES,
            depth: 0,
            zero_budget: 100_000,
            flat: RefCell::new(HashMap::new()),
            rec: None,
            path: String::new(),
        }
    }

    /// Run `f` with `seg` appended to the recorded path.
    fn with_seg<T>(&mut self, seg: std::fmt::Arguments<'_>, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.rec.is_none() {
            return f(self);
        }
        let len = self.path.len();
        let _ = std::fmt::Write::write_fmt(&mut self.path, seg);
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// An `FString`; while recording, one not spelled as the encoder
    /// would write it (an empty string with its NUL …) is kept.
    fn fstr(&mut self, r: &mut Reader<'_>, what: &str) -> Result<String> {
        let start = r.clone();
        let s = pakrat_codec::fstring::read_fstring(r, what)?;
        if let Some(rec) = self.rec.as_deref_mut() {
            let raw = &start.rest()[..r.pos() - start.pos()];
            rec.string_read(&self.path, &s, raw);
        }
        Ok(s)
    }

    /// Record what `f` does with the hints being recorded, if any.
    fn record(&mut self, f: impl FnOnce(&mut WriteHints, &str)) {
        if let Some(rec) = self.rec.as_deref_mut() {
            f(rec, &self.path);
        }
    }

    fn fname(&self, r: &mut Reader<'_>, what: &str) -> Result<String> {
        read_fname(self, r, what)
    }

    /// An `FPackageIndex` resolved to a path (`None` for null).
    fn object(&self, r: &mut Reader<'_>, what: &str) -> Result<Option<String>> {
        let at = r.offset();
        let i = r.i32(what)?;
        if i == 0 {
            return Ok(None);
        }
        match self.asset.object(i) {
            Some(p) => Ok(Some(p.to_string())),
            None => Err(Error::invalid(
                at,
                format!(
                    "{what}: object index {i} is outside the tables ({} imports, {} exports)",
                    self.asset.imports.len(),
                    self.asset.exports.len()
                ),
            )),
        }
    }

    fn ue4(&self) -> i32 {
        self.asset.versions.ue4
    }

    fn ue5(&self) -> i32 {
        self.asset.versions.ue5
    }

    fn custom_at_least(&self, key: Guid, v: i32) -> bool {
        self.asset.versions.custom_at_least(key, v)
    }

    /// Run `f` one level deeper, refusing past [`MAX_DEPTH`].
    fn nested<T>(&mut self, at: u64, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(Error::invalid(
                at,
                format!("values nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// The schema of a struct or class, one entry per schema index:
    /// (property, element index). A struct's own properties come first,
    /// then its super-struct's (the order of `PropertyLink`; the fixture
    /// mappings and CUE4Parse `MappingsSchema.TryGetValue` agree).
    fn flat_schema(&self, name: &str) -> Option<Flat<'b>> {
        if let Some(f) = self.flat.borrow().get(name) {
            return f.clone();
        }
        let built = self.build_flat(name);
        self.flat
            .borrow_mut()
            .insert(name.to_string(), built.clone());
        built
    }

    fn build_flat(&self, name: &str) -> Option<Flat<'b>> {
        let mut chain = Vec::new();
        let mut cur = Some(name.to_string());
        while let Some(n) = cur {
            if chain.len() > 256 {
                return None; // a cycle of super-structs
            }
            let s = self.schemas.find_struct(&n)?;
            chain.push(s);
            cur = s.super_name.clone();
        }
        let mut flat = Vec::new();
        for s in &chain {
            let mut mine = vec![None; s.property_count as usize];
            for p in &s.properties {
                for e in 0..p.array_dim.max(1) as usize {
                    if let Some(slot) = mine.get_mut(p.index as usize + e) {
                        *slot = Some((p, e as u32));
                    }
                }
            }
            flat.extend(mine);
        }
        // An index no property covers cannot be decoded: it becomes a
        // marker that fails only if the data refers to it.
        Some(Rc::new(
            flat.into_iter().map(|e| e.unwrap_or((&*HOLE, 0))).collect(),
        ))
    }

    /// The property stream of a class or struct, tagged or unversioned.
    fn properties(
        &mut self,
        r: &mut Reader<'_>,
        struct_name: &str,
        object: bool,
    ) -> Result<Vec<Property>> {
        match self.form {
            Form::Tagged => {
                if object && self.ue5() >= UE5_PROPERTY_TAG_EXTENSION {
                    let start = r.clone();
                    let ext = r.u8("class serialization control")?;
                    if ext & 0x02 != 0 {
                        r.u8("overridable serialization operation")?;
                    }
                    let prefix = start.rest()[..r.pos() - start.pos()].to_vec();
                    self.record(|h, _| h.object_prefix = Some(prefix));
                }
                self.tagged_properties(r)
            }
            Form::Unversioned => self.unversioned_properties(r, struct_name, object),
        }
    }
}

/// Decode export `index` of `asset`.
pub(crate) fn decode_export(asset: &Asset<'_>, index: usize, schemas: &dyn Schemas) -> ExportProps {
    decode_export_recording(asset, index, schemas, false).0
}

/// Decode export `index` of `asset` and, when `record`, what writing it
/// back exactly needs.
pub(crate) fn decode_export_recording(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    record: bool,
) -> (ExportProps, WriteHints) {
    let mut ctx = Ctx::new(asset, schemas);
    if record {
        ctx.rec = Some(Box::default());
    }
    let out = decode_with(&mut ctx, index);
    (out, ctx.rec.map(|b| *b).unwrap_or_default())
}

fn decode_with(ctx: &mut Ctx<'_, '_>, index: usize) -> ExportProps {
    let asset = ctx.asset;
    let Some(export) = asset.exports.get(index) else {
        return ExportProps {
            error: Some(format!(
                "export {index} does not exist ({} exports)",
                asset.exports.len()
            )),
            ..ExportProps::default()
        };
    };
    let mut out = ExportProps::default();
    let mut r = Reader::with_base(export.data, export.offset);
    let class = export.class_name().to_string();
    if !native::without_properties(&class) {
        if let Err(e) = object_properties(ctx, &mut r, export, &class, &mut out) {
            out.error = Some(e);
            return out;
        }
    }
    out.native_start = r.pos() as u64;
    native::decode_tail(ctx, &mut r, index, &class, &mut out);
    out
}

/// A struct decoder handed to native-data readers: reads the named struct
/// through its property stream (tagged or unversioned, as the package's
/// properties are), for native data that embeds property structs (a sound
/// wave's cue points).
pub(crate) type StructDecoder<'d> = dyn FnMut(&mut Reader<'_>, &str) -> Result<Value> + 'd;

/// Export `index` of `asset` read as a `what` (a class `is` accepts): its
/// properties decoded once (through `schemas` when unversioned), its
/// native data not decoded by the property reader, then `f` given the
/// properties, a reader at the native data and a struct decoder. Errors
/// name the export's path.
pub(crate) fn read_native_as<T>(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    what: &str,
    is: fn(&str) -> bool,
    f: impl FnOnce(&[Property], &mut Reader<'_>, &mut StructDecoder<'_>) -> Result<T>,
) -> Result<T> {
    let e = asset
        .exports
        .get(index)
        .ok_or_else(|| Error::Other(format!("export {index} does not exist")))?;
    let class = e.class_name();
    if !is(class) {
        return Err(Error::Other(format!("{} is a {class}, not {what}", e.path)));
    }
    let mut ctx = Ctx::new(asset, schemas);
    let mut r = Reader::with_base(e.data, e.offset);
    let mut out = ExportProps::default();
    if !native::without_properties(class) {
        object_properties(&mut ctx, &mut r, e, class, &mut out)
            .map_err(|err| Error::Other(format!("{}: {err}", e.path)))?;
    }
    f(&out.properties, &mut r, &mut |r, name| {
        ctx.struct_fields(r, name)
    })
    .map_err(|err| Error::Other(format!("{}: {err}", e.path)))
}

impl Ctx<'_, '_> {
    /// A struct read through its property stream, as a value.
    pub(super) fn struct_fields(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Value> {
        let at = r.offset();
        self.nested(at, |c| c.properties(r, name, false))
            .map(Value::Struct)
    }
}

/// The property stream of an object, then its GUID flag (and GUID).
fn object_properties(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    export: &super::ExportInfo<'_>,
    class: &str,
    out: &mut ExportProps,
) -> std::result::Result<(), String> {
    out.properties = ctx.properties(r, class, true).map_err(|e| e.to_string())?;
    let start = r.clone();
    let res = object_guid(r, export, out);
    let trailer = start.rest()[..r.pos() - start.pos()].to_vec();
    ctx.record(|h, _| h.trailer = Some(trailer));
    res
}

/// The object GUID flag (and GUID) after an object's properties.
fn object_guid(
    r: &mut Reader<'_>,
    export: &super::ExportInfo<'_>,
    out: &mut ExportProps,
) -> std::result::Result<(), String> {
    // `FLazyObjectPtr::PossiblySerializeObjectGuid`: every object writes an
    // i32 bool (and maybe its GUID) after its properties; the fixtures' class
    // defaults and component templates have it too. A class default whose
    // next word is not a bool is left to its native data.
    let cdo_without_flag =
        export.is_class_default() && !matches!(r.rest().get(..4), Some([0 | 1, 0, 0, 0]));
    if !cdo_without_flag && r.remaining() >= 4 {
        let at = r.offset();
        match r.u32("object GUID flag") {
            Ok(0) => {}
            Ok(1) if r.remaining() >= 16 => {
                if let Ok(g) = r.guid("object GUID") {
                    out.native.push(Property {
                        name: "ObjectGuid".into(),
                        index: 0,
                        ty: PropType::Struct("Guid".into()),
                        value: Value::Guid(g),
                    });
                }
            }
            Ok(v) => {
                return Err(Error::invalid(
                    at,
                    format!("object GUID flag is {v}, expected 0 or 1"),
                )
                .to_string());
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
