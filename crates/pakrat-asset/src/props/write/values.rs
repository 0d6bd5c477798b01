//! Values by type, shared by both forms (the mirror of `read/values.rs`):
//! enums are names in tagged data and numbers in unversioned data.

use super::{kind, Enc, Form, Result};
use crate::props::read::{
    FORTNITE_FIELD_PATH_OWNER, FORTNITE_MAIN, FORTNITE_SOFT_PATH_UTF8, RELEASE,
    RELEASE_FIELD_PATH_OWNER, UE4_ADDED_SOFT_OBJECT_PATH, UE4_INNER_ARRAY_TAG_INFO,
    UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME, UE5_SOFT_OBJECT_PATH_TOP_LEVEL,
};
use crate::props::{PropType, Value};
use pakrat_io::Writer;

impl Enc<'_, '_> {
    /// One value of `ty`.
    pub(super) fn value(&mut self, w: &mut Writer, ty: &PropType, v: &Value) -> Result<()> {
        match (ty, v) {
            (PropType::Bool, Value::Bool(b)) => {
                w.u8(u8::from(*b));
            }
            (PropType::Int8, Value::Int(i)) => {
                w.u8(self.fit::<i64, i8>(*i, "Int8")? as u8);
            }
            (PropType::Int16, Value::Int(i)) => {
                w.i16(self.fit(*i, "Int16")?);
            }
            (PropType::Int, Value::Int(i)) => {
                w.i32(self.fit(*i, "Int")?);
            }
            (PropType::Int64, Value::Int(i)) => {
                w.i64(*i);
            }
            (PropType::UInt16, Value::UInt(u)) => {
                w.u16(self.fit(*u, "UInt16")?);
            }
            (PropType::UInt32, Value::UInt(u)) => {
                w.u32(self.fit(*u, "UInt32")?);
            }
            (PropType::UInt64, Value::UInt(u)) => {
                w.u64(*u);
            }
            (PropType::Byte(None), Value::UInt(u)) => {
                w.u8(self.fit(*u, "Byte")?);
            }
            (PropType::Float, Value::Float(f)) => {
                w.f32(*f);
            }
            (PropType::Double, Value::Double(d)) => {
                w.u64(d.to_bits());
            }
            (PropType::Byte(e), Value::Enum(s)) => {
                let e = e.clone().unwrap_or_default();
                self.enum_value(w, &e, None, s)?
            }
            (PropType::Enum { name, underlying }, Value::Enum(s)) => {
                self.enum_value(w, name, underlying.as_deref(), s)?
            }
            (PropType::Name, Value::Name(n)) => self.fname(w, n)?,
            (PropType::Str, Value::Str(s)) => self.fstr(w, s),
            (PropType::Utf8Str | PropType::AnsiStr, Value::Str(s)) => self.narrow(w, s)?,
            (PropType::Text, Value::Text(t)) => self.text(w, t)?,
            (
                PropType::Object | PropType::Class | PropType::WeakObject | PropType::Interface,
                Value::Object(o),
            ) => self.object(w, o.as_deref())?,
            (PropType::LazyObject, Value::Guid(g)) => {
                w.guid(*g);
            }
            (PropType::SoftObject | PropType::SoftClass, Value::SoftObject { path, sub_path }) => {
                self.soft_path(w, path, sub_path)?
            }
            (PropType::Delegate, Value::Delegate { object, function }) => {
                self.object(w, object.as_deref())?;
                self.fname(w, function)?;
            }
            (
                PropType::MulticastDelegate
                | PropType::MulticastInlineDelegate
                | PropType::MulticastSparseDelegate,
                Value::Multicast(list),
            ) => {
                w.i32(self.count(list.len())?);
                for (i, d) in list.iter().enumerate() {
                    self.at(format_args!("#{i}"), |e| e.value(w, &PropType::Delegate, d))?;
                }
            }
            (PropType::FieldPath, Value::FieldPath { path, owner }) => {
                w.i32(self.count(path.len())?);
                for n in path {
                    self.fname(w, n)?;
                }
                if self.rd.custom_ge(FORTNITE_MAIN, FORTNITE_FIELD_PATH_OWNER)
                    || self.rd.custom_ge(RELEASE, RELEASE_FIELD_PATH_OWNER)
                {
                    self.object(w, owner.as_deref())?;
                }
            }
            (PropType::Struct(name), v) => self.struct_value(w, name, v)?,
            (PropType::Array(inner), Value::Array(items)) => self.array(w, inner, items)?,
            (PropType::Set(inner), Value::Set(items)) => {
                w.i32(0).i32(self.count(items.len())?);
                for (i, x) in items.iter().enumerate() {
                    self.at(format_args!("#{i}"), |e| e.value(w, inner, x))?;
                }
            }
            (PropType::Map(k, t), Value::Map(entries)) => {
                w.i32(0).i32(self.count(entries.len())?);
                for (i, (key, x)) in entries.iter().enumerate() {
                    self.at(format_args!("{{{i}k"), |e| e.value(w, k, key))?;
                    self.at(format_args!("{{{i}v"), |e| e.value(w, t, x))?;
                }
            }
            (PropType::Optional(inner), Value::Optional(o)) => match o {
                None => {
                    w.u32(0);
                }
                Some(x) => {
                    w.u32(1);
                    self.at(format_args!("?"), |e| e.value(w, inner, x))?;
                }
            },
            (_, Value::Skipped { .. }) => self.raw(w, v)?,
            (PropType::Unknown(n), _) => {
                return self.err(format!("property type {n} is not known to pakrat"))
            }
            (ty, v) => return self.err(format!("type {ty} cannot hold {}", kind(v))),
        }
        Ok(())
    }

    /// A number that must fit the property's width.
    fn fit<S: Copy + std::fmt::Display, T: TryFrom<S>>(&self, v: S, ty: &str) -> Result<T> {
        T::try_from(v).or_else(|_| self.err(format!("{v} does not fit a {ty}Property")))
    }

    /// An element count.
    pub(super) fn count(&self, n: usize) -> Result<i32> {
        i32::try_from(n).or_else(|_| self.err(format!("{n} elements do not fit an i32 count")))
    }

    /// `Utf8StrProperty` / `AnsiStrProperty`: byte count, then the bytes.
    fn narrow(&mut self, w: &mut Writer, s: &str) -> Result<()> {
        // The reader drops one trailing NUL: a string that ends in one
        // gets another, so that it reads back whole.
        if s.ends_with('\0') {
            w.i32(self.count(s.len() + 1)?).bytes(s.as_bytes()).u8(0);
        } else {
            w.i32(self.count(s.len())?).bytes(s.as_bytes());
        }
        Ok(())
    }

    /// An enum value: its entry name in tagged data, its number in
    /// unversioned data (through the enum's schema).
    fn enum_value(
        &mut self,
        w: &mut Writer,
        name: &str,
        underlying: Option<&PropType>,
        s: &str,
    ) -> Result<()> {
        let entry = s
            .strip_prefix(name)
            .and_then(|x| x.strip_prefix("::"))
            .filter(|_| !name.is_empty());
        if self.form == Form::Tagged {
            return match entry {
                // Stored qualified when the name map has that form.
                Some(bare) if !self.names.contains_key(s) => self.fname(w, bare),
                _ => self.fname(w, s),
            };
        }
        let Some(entry) = entry else {
            return self.err(format!("{s} is not a value of enum {name}"));
        };
        let number = if let Some(n) = entry.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            n.parse::<i64>().ok()
        } else {
            self.rd.enum_number(name, entry)
        };
        let Some(n) = number else {
            return self.err(format!("{s} is not a value of enum {name}"));
        };
        match underlying {
            Some(PropType::Int8) => w.u8(self.fit::<i64, i8>(n, "Int8")? as u8),
            Some(PropType::Int16) => w.i16(self.fit(n, "Int16")?),
            Some(PropType::UInt16) => w.u16(self.fit(n, "UInt16")?),
            Some(PropType::Int) => w.i32(self.fit(n, "Int")?),
            Some(PropType::UInt32) => w.u32(self.fit(n, "UInt32")?),
            Some(PropType::Int64) => w.i64(n),
            Some(PropType::UInt64) => w.u64(n as u64),
            _ => w.u8(self.fit(n, "Byte")?),
        };
        Ok(())
    }

    /// `FSoftObjectPath`.
    fn soft_path(&mut self, w: &mut Writer, path: &str, sub_path: &str) -> Result<()> {
        let (ue4, ue5) = self.rd.versions();
        if ue4 < UE4_ADDED_SOFT_OBJECT_PATH && ue5 == 0 {
            self.fstr(w, path);
            return Ok(());
        }
        let or_none = |s: &str| {
            if s.is_empty() {
                "None".to_string()
            } else {
                s.to_string()
            }
        };
        if ue5 >= UE5_SOFT_OBJECT_PATH_TOP_LEVEL {
            let (package, asset) = path.split_once('.').unwrap_or((path, ""));
            self.fname(w, &or_none(package))?;
            self.fname(w, &or_none(asset))?;
        } else {
            self.fname(w, &or_none(path))?;
        }
        if self.rd.custom_ge(FORTNITE_MAIN, FORTNITE_SOFT_PATH_UTF8) {
            self.narrow(w, sub_path)
        } else {
            self.fstr(w, sub_path);
            Ok(())
        }
    }

    /// Array elements (tagged arrays of structs before UE 5.4 first write
    /// one inner tag).
    fn array(&mut self, w: &mut Writer, inner: &PropType, items: &[Value]) -> Result<()> {
        w.i32(self.count(items.len())?);
        let mut body = Writer::new();
        for (i, x) in items.iter().enumerate() {
            self.at(format_args!("#{i}"), |e| e.value(&mut body, inner, x))?;
        }
        if self.form == Form::Tagged
            && self.ue5() < UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME
            && matches!(inner, PropType::Struct(_))
            && self.ue4() >= UE4_INNER_ARRAY_TAG_INFO
        {
            self.inner_struct_tag(w, inner, body.len())?;
        }
        w.bytes(body.as_slice());
        Ok(())
    }

    /// Whether a value is kept as stored bytes at the current path.
    pub(super) fn has_raw(&self, v: &Value) -> bool {
        matches!(self.hints.raw.get(&self.path), Some((orig, _)) if orig == v)
    }

    /// A value kept as its stored bytes, while it is unchanged.
    pub(super) fn raw(&mut self, w: &mut Writer, v: &Value) -> Result<()> {
        match self.hints.raw.get(&self.path) {
            Some((orig, bytes)) if orig == v => {
                w.bytes(bytes);
                Ok(())
            }
            _ => self.err(format!(
                "{} was not decoded, and its stored bytes are not available",
                kind(v)
            )),
        }
    }
}
