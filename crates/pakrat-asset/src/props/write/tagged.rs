//! Tagged properties: one `FPropertyTag` per value, then `None`. From
//! UE 5.4 the type is a complete type name (`FPropertyTypeName`) and a
//! flags byte; before, a type name with its extras.

use super::{Enc, Result, TagHint};
use crate::props::read::{
    UE4_ARRAY_PROPERTY_INNER_TAGS, UE4_PROPERTY_GUID_IN_PROPERTY_TAG,
    UE4_PROPERTY_TAG_SET_MAP_SUPPORT, UE4_STRUCT_GUID_IN_PROPERTY_TAG,
    UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME, UE5_PROPERTY_TAG_EXTENSION,
};
use crate::props::{PropType, Property, Value};
use pakrat_io::Writer;

/// `EPropertyTagFlags`.
mod flag {
    pub const HAS_ARRAY_INDEX: u8 = 0x01;
    pub const BINARY_OR_NATIVE: u8 = 0x08;
    pub const BOOL_TRUE: u8 = 0x10;
    pub const SKIPPED: u8 = 0x20;
}

impl Enc<'_, '_> {
    /// Tags up to `None`.
    pub(super) fn tagged_properties(&mut self, w: &mut Writer, props: &[Property]) -> Result<()> {
        for p in props {
            self.at(format_args!("/{}[{}]", p.name, p.index), |e| {
                e.tagged_property(w, p)
            })?;
        }
        self.fname(w, "None")
    }

    /// The stored tag of the property at the current path, while it still
    /// describes the property.
    fn tag_hint(&self, p: &Property) -> Option<&TagHint> {
        let h = self.hints.tags.get(&self.path)?;
        let same_bool = match &p.value {
            Value::Bool(b) => *b == h.bool_value,
            _ => true,
        };
        (h.ty == p.ty && h.index == p.index && same_bool && h.size_at + 4 <= h.bytes.len())
            .then_some(h)
    }

    fn tagged_property(&mut self, w: &mut Writer, p: &Property) -> Result<()> {
        let hint = self.tag_hint(p).cloned();
        let native = match &hint {
            Some(h) => h.native,
            None => match &p.ty {
                PropType::Struct(s) => {
                    self.rd.native_known(s) || self.hints.native_structs.contains(s)
                }
                _ => false,
            },
        };
        let mut body = Writer::new();
        self.tagged_value(&mut body, p, native)?;
        let size = i32::try_from(body.len()).or_else(|_| self.err("value larger than 2 GiB"))?;
        match hint {
            Some(mut h) => {
                h.bytes[h.size_at..h.size_at + 4].copy_from_slice(&size.to_le_bytes());
                w.bytes(&h.bytes);
            }
            None => self.write_tag(w, p, size, native)?,
        }
        w.bytes(body.as_slice());
        Ok(())
    }

    /// The value of a tag (nothing for a bool: its value is in the tag).
    fn tagged_value(&mut self, w: &mut Writer, p: &Property, native: bool) -> Result<()> {
        match (&p.ty, &p.value) {
            (PropType::Bool, Value::Bool(_)) => Ok(()),
            (_, Value::Skipped { .. }) => self.raw(w, &p.value),
            (PropType::Struct(name), Value::Struct(fields))
                if self.ue5() >= UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME
                    && !name.is_empty()
                    && !self.has_raw(&p.value) =>
            {
                if native && !self.rd.native_known(name) {
                    self.tagged_properties(w, fields)
                } else if !native {
                    self.properties(w, name, fields, false)
                } else {
                    self.value(w, &p.ty, &p.value)
                }
            }
            (ty, v) => self.value(w, ty, v),
        }
    }

    fn write_tag(&mut self, w: &mut Writer, p: &Property, size: i32, native: bool) -> Result<()> {
        self.fname(w, &p.name)?;
        if self.ue5() >= UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME {
            self.type_name(w, &p.ty, 0)?;
            w.i32(size);
            let mut flags = 0;
            if p.index != 0 {
                flags |= flag::HAS_ARRAY_INDEX;
            }
            if native {
                flags |= flag::BINARY_OR_NATIVE;
            }
            if matches!(p.value, Value::Bool(true)) {
                flags |= flag::BOOL_TRUE;
            }
            if matches!(p.value, Value::Skipped { .. }) {
                flags |= flag::SKIPPED;
            }
            w.u8(flags);
            if p.index != 0 {
                w.u32(p.index);
            }
            return Ok(());
        }
        self.fname(w, p.ty.type_name())?;
        w.i32(size).u32(p.index);
        self.classic_extras(w, &p.ty, &p.value)?;
        if self.ue4() >= UE4_PROPERTY_GUID_IN_PROPERTY_TAG {
            w.u8(0);
        }
        if self.ue5() >= UE5_PROPERTY_TAG_EXTENSION {
            w.u8(0);
        }
        Ok(())
    }

    /// What an old tag stores after the array index for its type.
    fn classic_extras(&mut self, w: &mut Writer, ty: &PropType, v: &Value) -> Result<()> {
        match ty {
            PropType::Struct(s) => {
                self.fname(w, s)?;
                if self.ue4() >= UE4_STRUCT_GUID_IN_PROPERTY_TAG {
                    w.zeros(16);
                }
            }
            PropType::Bool => {
                w.u8(u8::from(matches!(v, Value::Bool(true))));
            }
            PropType::Byte(e) => self.fname(w, e.as_deref().unwrap_or("None"))?,
            PropType::Enum { name, .. } => self.fname(w, name)?,
            PropType::Array(t) if self.ue4() >= UE4_ARRAY_PROPERTY_INNER_TAGS => {
                self.fname(w, t.type_name())?
            }
            PropType::Optional(t) => self.fname(w, t.type_name())?,
            PropType::Set(t) if self.ue4() >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
                self.fname(w, t.type_name())?
            }
            PropType::Map(k, t) if self.ue4() >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
                self.fname(w, k.type_name())?;
                self.fname(w, t.type_name())?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The inner tag of a tagged array of structs before UE 5.4.
    pub(super) fn inner_struct_tag(
        &mut self,
        w: &mut Writer,
        ty: &PropType,
        size: usize,
    ) -> Result<()> {
        let name = self
            .path
            .rsplit('/')
            .next()
            .and_then(|s| s.split('[').next())
            .unwrap_or("None")
            .to_string();
        let size = i32::try_from(size).or_else(|_| self.err("array larger than 2 GiB"))?;
        self.fname(w, &name)?;
        self.fname(w, ty.type_name())?;
        w.i32(size).u32(0);
        self.classic_extras(w, ty, &Value::Bool(false))?;
        if self.ue4() >= UE4_PROPERTY_GUID_IN_PROPERTY_TAG {
            w.u8(0);
        }
        if self.ue5() >= UE5_PROPERTY_TAG_EXTENSION {
            w.u8(0);
        }
        Ok(())
    }

    /// `FPropertyTypeName`: (name, parameter count) nodes in pre-order.
    fn type_name(&mut self, w: &mut Writer, ty: &PropType, depth: u32) -> Result<()> {
        if depth > crate::props::read::MAX_DEPTH {
            return self.err("property type nested too deep");
        }
        let params: Vec<&PropType> = match ty {
            PropType::Struct(s) => {
                self.fname(w, "StructProperty")?;
                w.i32(1);
                return self.path_node(w, s);
            }
            PropType::Byte(Some(e)) => {
                self.fname(w, "ByteProperty")?;
                w.i32(1);
                return self.path_node(w, e);
            }
            PropType::Enum { name, underlying } => {
                self.fname(w, "EnumProperty")?;
                w.i32(1 + i32::from(underlying.is_some()));
                self.path_node(w, name)?;
                if let Some(u) = underlying {
                    self.type_name(w, u, depth + 1)?;
                }
                return Ok(());
            }
            PropType::Array(t) | PropType::Set(t) | PropType::Optional(t) => vec![t],
            PropType::Map(k, v) => vec![k, v],
            _ => Vec::new(),
        };
        self.fname(w, ty.type_name())?;
        w.i32(params.len() as i32);
        for t in params {
            self.type_name(w, t, depth + 1)?;
        }
        Ok(())
    }

    /// A struct or enum in a type name: its short name with its package as
    /// parameter (`Vector(/Script/CoreUObject)`), when the export's other
    /// type names or the package's imports or exports say where it lives.
    fn path_node(&mut self, w: &mut Writer, short: &str) -> Result<()> {
        self.fname(w, short)?;
        let suffix = format!(".{short}");
        let package = self
            .hints
            .type_packages
            .get(short)
            .cloned()
            .or_else(|| self.package_of(&suffix));
        match package {
            Some(p) => {
                w.i32(1);
                self.fname(w, &p)?;
                w.i32(0);
            }
            None => {
                w.i32(0);
            }
        }
        Ok(())
    }

    /// The package of the import or export whose path ends in `suffix`.
    fn package_of(&self, suffix: &str) -> Option<String> {
        self.asset
            .imports
            .iter()
            .map(|o| o.path.as_str())
            .chain(self.asset.exports.iter().map(|e| e.path.as_str()))
            .find_map(|p| p.strip_suffix(suffix))
            .filter(|p| !p.contains('.'))
            .map(str::to_string)
    }
}
