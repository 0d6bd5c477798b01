//! Values by type, shared by both forms. Where tagged and unversioned data
//! differ it is said at the type: enums are names in tagged data and
//! numbers in unversioned data; a struct's fields are tags or a schema.

use super::{Ctx, UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME, UE5_SOFT_OBJECT_PATH_TOP_LEVEL};
use crate::props::schema::qualify_enum;
use crate::props::{PropType, Property, Value};
use pakrat_io::{Error, Guid, Reader, Result};

/// `VER_UE4_ADDED_SOFT_OBJECT_PATH`: before it a soft reference is a string.
pub(crate) const UE4_ADDED_SOFT_OBJECT_PATH: i32 = 514;
/// `VER_UE4_INNER_ARRAY_TAG_INFO`: arrays of structs carry an inner tag.
pub(crate) const UE4_INNER_ARRAY_TAG_INFO: i32 = 500;
/// `FFortniteMainBranchObjectVersion`.
pub(crate) const FORTNITE_MAIN: Guid = Guid {
    words: [0x601D_1886, 0xAC64_4F84, 0xAA16_D3DE, 0x0DEA_C7D6],
};
/// `FReleaseObjectVersion`.
pub(crate) const RELEASE: Guid = Guid {
    words: [0x9C54_D522, 0xA826_4FBE, 0x9421_0746, 0x61B4_82D0],
};
/// `FFortniteMainBranchObjectVersion::SoftObjectPathUtf8SubPaths`.
pub(crate) const FORTNITE_SOFT_PATH_UTF8: i32 = 192;
/// `FFortniteMainBranchObjectVersion::FFieldPathOwnerSerialization`.
pub(crate) const FORTNITE_FIELD_PATH_OWNER: i32 = 33;
/// `FReleaseObjectVersion::FFieldPathOwnerSerialization`.
pub(crate) const RELEASE_FIELD_PATH_OWNER: i32 = 30;

/// Smallest number of bytes one element of `ty` can take (for checking
/// counts before allocating).
fn min_size(ty: &PropType) -> usize {
    match ty {
        PropType::Int16 | PropType::UInt16 => 2,
        PropType::Int | PropType::UInt32 | PropType::Float | PropType::Object => 4,
        PropType::Int64 | PropType::UInt64 | PropType::Double | PropType::Name => 8,
        PropType::Str | PropType::Utf8Str | PropType::AnsiStr => 4,
        _ => 1,
    }
}

impl Ctx<'_, '_> {
    /// One value of `ty` (inside a container, or unversioned, or the body
    /// of a tagged value).
    pub(super) fn value(&mut self, r: &mut Reader<'_>, ty: &PropType) -> Result<Value> {
        Ok(match ty {
            PropType::Bool => Value::Bool(r.u8("bool")? != 0),
            PropType::Int8 => Value::Int(i64::from(r.i8("int8")?)),
            PropType::Int16 => Value::Int(i64::from(r.i16("int16")?)),
            PropType::Int => Value::Int(i64::from(r.i32("int32")?)),
            PropType::Int64 => Value::Int(r.i64("int64")?),
            PropType::UInt16 => Value::UInt(u64::from(r.u16("uint16")?)),
            PropType::UInt32 => Value::UInt(u64::from(r.u32("uint32")?)),
            PropType::UInt64 => Value::UInt(r.u64("uint64")?),
            PropType::Float => Value::Float(r.f32("float")?),
            PropType::Double => Value::Double(f64::from_bits(r.u64("double")?)),
            PropType::Byte(e) => self.byte_value(r, e.as_deref())?,
            PropType::Enum { name, underlying } => {
                self.enum_value(r, name, underlying.as_deref())?
            }
            PropType::Name => Value::Name(self.fname(r, "name")?),
            PropType::Str => Value::Str(self.fstr(r, "string")?),
            PropType::Utf8Str | PropType::AnsiStr => Value::Str(self.narrow_string(r)?),
            PropType::Text => Value::Text(Box::new(self.text(r)?)),
            PropType::Object | PropType::Class | PropType::WeakObject | PropType::Interface => {
                Value::Object(self.object(r, "object reference")?)
            }
            PropType::LazyObject => Value::Guid(r.guid("lazy object GUID")?),
            PropType::SoftObject | PropType::SoftClass => self.soft_path(r)?,
            PropType::Delegate => self.delegate(r)?,
            PropType::MulticastDelegate
            | PropType::MulticastInlineDelegate
            | PropType::MulticastSparseDelegate => {
                let n = r.i32_count("multicast delegate", 12)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.delegate(r)?);
                }
                Value::Multicast(v)
            }
            PropType::FieldPath => self.field_path(r)?,
            PropType::Struct(name) => {
                let name = name.clone();
                self.nested(r.offset(), |c| c.struct_value(r, &name))?
            }
            PropType::Array(inner) => {
                let inner = (**inner).clone();
                self.nested(r.offset(), |c| c.array(r, &inner).map(Value::Array))?
            }
            PropType::Set(inner) => {
                let inner = (**inner).clone();
                self.nested(r.offset(), |c| c.set(r, &inner))?
            }
            PropType::Map(k, v) => {
                let (k, v) = ((**k).clone(), (**v).clone());
                self.nested(r.offset(), |c| c.map(r, &k, &v))?
            }
            PropType::Optional(inner) => {
                let inner = (**inner).clone();
                // `FOptionalProperty::SerializeItem`: a bool (4 bytes in
                // a binary archive), then the value when set.
                if r.u32("optional is-set flag")? != 0 {
                    let v = self.nested(r.offset(), |c| {
                        c.with_seg(format_args!("?"), |c| c.value(r, &inner))
                    })?;
                    Value::Optional(Some(Box::new(v)))
                } else {
                    Value::Optional(None)
                }
            }
            PropType::Unknown(n) => {
                return Err(Error::unsupported(
                    r.offset(),
                    format!("property type {n} is not known to pakrat"),
                ))
            }
        })
    }

    /// `Utf8StrProperty`/`AnsiStrProperty`: `i32` byte count, then bytes.
    fn narrow_string(&mut self, r: &mut Reader<'_>) -> Result<String> {
        let at = r.offset();
        let n = r.i32_count("string", 1)?;
        let b = r.bytes(n as u64, "string")?;
        let b = b.strip_suffix(&[0]).unwrap_or(b);
        String::from_utf8(b.to_vec())
            .map_err(|_| Error::invalid(at, "UTF-8 string is not valid UTF-8"))
    }

    fn byte_value(&mut self, r: &mut Reader<'_>, e: Option<&str>) -> Result<Value> {
        match e {
            // Tagged data writes an enum-typed byte as the entry's name.
            Some(en) if self.tagged() => {
                let n = self.fname(r, "enum value")?;
                Ok(Value::Enum(qualify_enum(en, &n)))
            }
            Some(en) => {
                let v = r.u8("enum byte")?;
                Ok(Value::Enum(self.enum_name(en, i64::from(v))))
            }
            None => Ok(Value::UInt(u64::from(r.u8("byte")?))),
        }
    }

    fn enum_value(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
        underlying: Option<&PropType>,
    ) -> Result<Value> {
        if self.tagged() {
            let n = self.fname(r, "enum value")?;
            return Ok(Value::Enum(if name.is_empty() {
                n
            } else {
                qualify_enum(name, &n)
            }));
        }
        let v = match underlying {
            Some(PropType::Int8) => i64::from(r.i8("enum value")?),
            Some(PropType::Int16) => i64::from(r.i16("enum value")?),
            Some(PropType::UInt16) => i64::from(r.u16("enum value")?),
            Some(PropType::Int) => i64::from(r.i32("enum value")?),
            Some(PropType::UInt32) => i64::from(r.u32("enum value")?),
            Some(PropType::Int64) => r.i64("enum value")?,
            Some(PropType::UInt64) => r.u64("enum value")? as i64,
            _ => i64::from(r.u8("enum value")?),
        };
        Ok(Value::Enum(self.enum_name(name, v)))
    }

    /// `EName::Value` for a number, through the schemas.
    pub(super) fn enum_name(&self, name: &str, v: i64) -> String {
        match self.schemas.find_enum(name) {
            Some(e) => e.name_of(v),
            None => format!("{name}::({v})"),
        }
    }

    /// `FSoftObjectPath` (cooked packages write it inline).
    fn soft_path(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        if self.ue4() < UE4_ADDED_SOFT_OBJECT_PATH && self.ue5() == 0 {
            let s = self.fstr(r, "soft object path")?;
            return Ok(Value::SoftObject {
                path: s,
                sub_path: String::new(),
            });
        }
        let path = if self.ue5() >= UE5_SOFT_OBJECT_PATH_TOP_LEVEL {
            let package = self.fname(r, "soft path package")?;
            let asset = self.fname(r, "soft path asset")?;
            match (package.as_str(), asset.as_str()) {
                ("None", _) => String::new(),
                (p, "None") => p.to_string(),
                (p, a) => format!("{p}.{a}"),
            }
        } else {
            let p = self.fname(r, "soft path")?;
            if p == "None" {
                String::new()
            } else {
                p
            }
        };
        let sub_path = if self.custom_at_least(FORTNITE_MAIN, FORTNITE_SOFT_PATH_UTF8) {
            self.narrow_string(r)?
        } else {
            self.fstr(r, "soft path sub path")?
        };
        Ok(Value::SoftObject { path, sub_path })
    }

    fn delegate(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let object = self.object(r, "delegate object")?;
        let function = self.fname(r, "delegate function")?;
        Ok(Value::Delegate { object, function })
    }

    /// `FFieldPath`: names, then (newer files) the resolved owner.
    fn field_path(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let n = r.i32_count("field path", 8)?;
        let mut path = Vec::with_capacity(n);
        for _ in 0..n {
            path.push(self.fname(r, "field path name")?);
        }
        let owner = if self.custom_at_least(FORTNITE_MAIN, FORTNITE_FIELD_PATH_OWNER)
            || self.custom_at_least(RELEASE, RELEASE_FIELD_PATH_OWNER)
        {
            self.object(r, "field path owner")?
        } else {
            None
        };
        Ok(Value::FieldPath { path, owner })
    }

    /// Array elements. Tagged arrays of structs before UE 5.4 carry one
    /// inner tag that names the struct.
    pub(super) fn array(&mut self, r: &mut Reader<'_>, inner: &PropType) -> Result<Vec<Value>> {
        let n = r.i32_count("array", min_size(inner))?;
        let mut inner = inner.clone();
        if self.tagged() && self.ue5() < UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME {
            if matches!(inner, PropType::Struct(_)) && self.ue4() >= UE4_INNER_ARRAY_TAG_INFO {
                let tag = self
                    .read_tag(r)?
                    .ok_or_else(|| r.invalid("array of structs: inner tag is None"))?;
                inner = tag.ty;
            } else if inner == PropType::Byte(None) && n > 0 && r.remaining() == n * 8 {
                // Enum names (the tag does not say which enum).
                inner = PropType::Enum {
                    name: String::new(),
                    underlying: None,
                };
            }
        }
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(self.with_seg(format_args!("#{i}"), |c| c.value(r, &inner))?);
        }
        Ok(v)
    }

    /// `TSet`: elements to remove (tagged deltas), then elements.
    fn set(&mut self, r: &mut Reader<'_>, inner: &PropType) -> Result<Value> {
        let removed = r.i32_count("set removals", min_size(inner))?;
        for _ in 0..removed {
            self.value(r, inner)?;
        }
        let n = r.i32_count("set", min_size(inner))?;
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(self.with_seg(format_args!("#{i}"), |c| c.value(r, inner))?);
        }
        Ok(Value::Set(v))
    }

    /// `TMap`: keys to remove (tagged deltas), then entries.
    fn map(&mut self, r: &mut Reader<'_>, k: &PropType, v: &PropType) -> Result<Value> {
        let removed = r.i32_count("map removals", min_size(k))?;
        for _ in 0..removed {
            self.value(r, k)?;
        }
        let n = r.i32_count("map", min_size(k) + min_size(v))?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let key = self.with_seg(format_args!("{{{i}k"), |c| c.value(r, k))?;
            let value = self.with_seg(format_args!("{{{i}v"), |c| c.value(r, v))?;
            out.push((key, value));
        }
        Ok(Value::Map(out))
    }

    /// A struct: native when pakrat knows its serializer, else its
    /// properties (tags, or the schema's order).
    pub(super) fn struct_value(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Value> {
        let start = r.clone();
        if let Some(v) = self.native_struct(r, name)? {
            if self.rec.is_some() && !crate::props::write::encodes_native(name) {
                let raw = start.rest()[..r.pos() - start.pos()].to_vec();
                let v = v.clone();
                self.record(|h, path| {
                    h.raw.insert(path.to_string(), (v, raw));
                });
            }
            return Ok(v);
        }
        if name.is_empty() {
            return Err(r.unsupported(
                "a struct whose type the tag does not name (map/set of structs before UE 5.4)",
            ));
        }
        let props: Vec<Property> = self.properties(r, name, false)?;
        Ok(Value::Struct(props))
    }
}
