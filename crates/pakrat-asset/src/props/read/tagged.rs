//! Tagged properties: `FPropertyTag` from UE 4.0 to UE 6.0.
//!
//! Before UE 5.4 a tag is name, type name, size, array index, then the
//! type's extras (struct name and GUID, bool value, enum name, inner and
//! value types), a property GUID and (5.2+) an extension byte. From 5.4
//! (`PROPERTY_TAG_COMPLETE_TYPE_NAME`) the type is a complete type name
//! (`FPropertyTypeName`: (name, inner count) nodes in pre-order), then the
//! size and a flags byte that says what follows (CUE4Parse
//! `FPropertyTag.cs`; checked on the UE 5.8/6.0 fixtures).

use super::{Ctx, Form, UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME, UE5_PROPERTY_TAG_EXTENSION};
use crate::props::asset::short_name;
use crate::props::write::TagHint;
use crate::props::{PropType, Property, Value};
use pakrat_io::{Error, Reader, Result};

/// `VER_UE4_STRUCT_GUID_IN_PROPERTY_TAG`.
pub(crate) const UE4_STRUCT_GUID_IN_PROPERTY_TAG: i32 = 441;
/// `VER_UE4_ARRAY_PROPERTY_INNER_TAGS`.
pub(crate) const UE4_ARRAY_PROPERTY_INNER_TAGS: i32 = 282;
/// `VER_UE4_PROPERTY_TAG_SET_MAP_SUPPORT`.
pub(crate) const UE4_PROPERTY_TAG_SET_MAP_SUPPORT: i32 = 509;
/// `VER_UE4_PROPERTY_GUID_IN_PROPERTY_TAG`.
pub(crate) const UE4_PROPERTY_GUID_IN_PROPERTY_TAG: i32 = 503;

/// `EPropertyTagFlags`.
mod flag {
    pub const HAS_ARRAY_INDEX: u8 = 0x01;
    pub const HAS_PROPERTY_GUID: u8 = 0x02;
    pub const HAS_PROPERTY_EXTENSIONS: u8 = 0x04;
    pub const BINARY_OR_NATIVE: u8 = 0x08;
    pub const BOOL_TRUE: u8 = 0x10;
    pub const SKIPPED: u8 = 0x20;
}

/// A property tag.
pub(super) struct Tag {
    pub name: String,
    pub ty: PropType,
    pub size: u64,
    pub index: u32,
    pub bool_value: bool,
    /// The value was written by a native serializer (5.4+ flag).
    pub native: bool,
    pub skipped: bool,
    /// Reader position of the `i32` size.
    pub size_pos: usize,
}

impl Ctx<'_, '_> {
    /// Tags up to `None`.
    pub(super) fn tagged_properties(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let mut out = Vec::new();
        loop {
            let tag_start = r.clone();
            let Some(tag) = self.read_tag(r)? else { break };
            let start = r.pos() as u64;
            let mut body = r.sub(start, tag.size, &format!("value of {}", tag.name))?;
            r.skip(tag.size, "property value")?;
            let value = self.with_seg(format_args!("/{}[{}]", tag.name, tag.index), |c| {
                let value = c.tagged_value(&mut body, &tag);
                if c.rec.is_some() {
                    let hint = TagHint {
                        bytes: tag_start.rest()[..start as usize - tag_start.pos()].to_vec(),
                        size_at: tag.size_pos - tag_start.pos(),
                        ty: tag.ty.clone(),
                        index: tag.index,
                        bool_value: tag.bool_value,
                        native: tag.native,
                    };
                    let raw = matches!(value, Value::Skipped { .. }).then(|| {
                        let b = &tag_start.data()[start as usize..][..tag.size as usize];
                        (value.clone(), b.to_vec())
                    });
                    let native_struct = match (&tag.ty, tag.native) {
                        (PropType::Struct(n), true) if !c.is_native(n) => Some(n.clone()),
                        _ => None,
                    };
                    c.record(|h, path| {
                        h.native_structs.extend(native_struct);
                        h.tags.insert(path.to_string(), hint);
                        if let Some(raw) = raw {
                            h.raw.insert(path.to_string(), raw);
                        }
                    });
                }
                value
            });
            out.push(Property {
                name: tag.name,
                index: tag.index,
                ty: tag.ty,
                value,
            });
        }
        Ok(out)
    }

    /// One tagged value: decoded, or skipped by its size with the reason.
    fn tagged_value(&mut self, body: &mut Reader<'_>, tag: &Tag) -> Value {
        if tag.skipped {
            return Value::Skipped {
                size: tag.size,
                reason: "the engine skipped this value (SkippedSerialize)".into(),
            };
        }
        let res = match (&tag.ty, tag.native) {
            (PropType::Bool, _) => Ok(Value::Bool(tag.bool_value)),
            (PropType::Struct(name), true) if !self.is_native(name) => {
                self.native_flagged_struct(body, &name.clone())
            }
            // UE 5.4+ tags say when a struct was not written natively.
            (PropType::Struct(name), false)
                if self.ue5() >= UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME && !name.is_empty() =>
            {
                let name = name.clone();
                self.nested(body.offset(), |c| {
                    c.properties(body, &name, false).map(Value::Struct)
                })
            }
            (ty, _) => self.value(body, ty),
        };
        match res {
            Ok(v) if body.remaining() == 0 => v,
            Ok(_) => Value::Skipped {
                size: tag.size,
                reason: format!(
                    "{} of {} bytes left after the value of {} ({})",
                    body.remaining(),
                    tag.size,
                    tag.name,
                    tag.ty
                ),
            },
            Err(e) => Value::Skipped {
                size: tag.size,
                reason: e.to_string(),
            },
        }
    }

    /// A struct the tag marks as natively serialized that pakrat has no
    /// layout for. Many such serializers (`FConstraintInstance`,
    /// `FPoseDataContainer`, …) only register custom versions and let the
    /// engine write the struct's tags: accepted when the tags read cleanly
    /// and end exactly at the value's end, refused otherwise.
    fn native_flagged_struct(&mut self, body: &mut Reader<'_>, name: &str) -> Result<Value> {
        let start = body.clone();
        match self.nested(body.offset(), |c| c.tagged_properties(body)) {
            Ok(props) if body.remaining() == 0 => Ok(Value::Struct(props)),
            _ => {
                *body = start;
                Err(Error::unsupported(
                    body.offset(),
                    format!("struct {name} is serialized natively and pakrat cannot decode it yet"),
                ))
            }
        }
    }

    /// One tag, `None` at the `None` terminator.
    pub(super) fn read_tag(&mut self, r: &mut Reader<'_>) -> Result<Option<Tag>> {
        let name = self.fname(r, "property name")?;
        if name == "None" {
            return Ok(None);
        }
        if self.ue5() >= UE5_PROPERTY_TAG_COMPLETE_TYPE_NAME {
            self.read_tag_complete(r, name).map(Some)
        } else {
            self.read_tag_classic(r, name).map(Some)
        }
    }

    fn check_size(r: &Reader<'_>, size: i32, name: &str) -> Result<u64> {
        if size < 0 || size as usize > r.remaining() {
            return Err(Error::invalid(
                r.offset(),
                format!(
                    "property {name}: size {size} does not fit in the {} bytes that remain",
                    r.remaining()
                ),
            ));
        }
        Ok(size as u64)
    }

    fn read_tag_complete(&mut self, r: &mut Reader<'_>, name: String) -> Result<Tag> {
        let ty = self.read_type_name(r, 0)?;
        let size_pos = r.pos();
        let size = r.i32("property size")?;
        let flags = r.u8("property tag flags")?;
        let index = if flags & flag::HAS_ARRAY_INDEX != 0 {
            r.u32("array index")?
        } else {
            0
        };
        if flags & flag::HAS_PROPERTY_GUID != 0 {
            r.guid("property GUID")?;
        }
        if flags & flag::HAS_PROPERTY_EXTENSIONS != 0 {
            self.tag_extensions(r)?;
        }
        let size = Self::check_size(r, size, &name)?;
        Ok(Tag {
            name,
            ty,
            size,
            index,
            bool_value: flags & flag::BOOL_TRUE != 0,
            native: flags & flag::BINARY_OR_NATIVE != 0,
            skipped: flags & flag::SKIPPED != 0,
            size_pos,
        })
    }

    /// `EPropertyTagExtension`: with `OverridableInformation`, the
    /// override operation and a bool.
    fn tag_extensions(&mut self, r: &mut Reader<'_>) -> Result<()> {
        let ext = r.u8("property tag extension")?;
        if ext & 0x02 != 0 {
            r.u8("overridden property operation")?;
            r.u8("experimental overridable logic")?;
        }
        Ok(())
    }

    /// `FPropertyTypeName`: a node and its parameters, pre-order.
    fn read_type_name(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<PropType> {
        let (name, params) = self.read_type_node(r, depth)?;
        if self.rec.is_some() {
            let mut found = Vec::new();
            type_packages(&params, &mut found);
            self.record(|h, _| h.type_packages.extend(found));
        }
        Ok(self.type_from_node(&name, params))
    }

    fn read_type_node(&mut self, r: &mut Reader<'_>, depth: u32) -> Result<(String, Vec<Node>)> {
        if depth > super::MAX_DEPTH {
            return Err(r.invalid("property type name nested too deep"));
        }
        let name = self.fname(r, "property type name")?;
        let at = r.offset();
        let count = r.i32("property type parameter count")?;
        let count = r
            .check_count(i64::from(count), 12, "property type parameters")
            .map_err(|_| Error::invalid(at, format!("type {name}: bad parameter count {count}")))?;
        let mut params = Vec::with_capacity(count);
        for _ in 0..count {
            let (n, p) = self.read_type_node(r, depth + 1)?;
            params.push(Node { name: n, params: p });
        }
        Ok((name, params))
    }

    fn type_from_node(&self, name: &str, params: Vec<Node>) -> PropType {
        if let Some(t) = PropType::leaf(name) {
            return t;
        }
        let param = |i: usize| params.get(i);
        let inner = |i: usize| {
            Box::new(
                param(i)
                    .map(|n| self.type_from_node(&n.name, n.params.clone()))
                    .unwrap_or(PropType::Unknown("(missing)".into())),
            )
        };
        match name {
            "StructProperty" => PropType::Struct(
                param(0)
                    .map(|n| short_name(&n.name).to_string())
                    .unwrap_or_default(),
            ),
            "ByteProperty" => PropType::Byte(param(0).map(|n| short_name(&n.name).to_string())),
            "EnumProperty" => PropType::Enum {
                name: param(0)
                    .map(|n| short_name(&n.name).to_string())
                    .unwrap_or_default(),
                underlying: param(1).map(|_| inner(1)),
            },
            "ArrayProperty" => PropType::Array(inner(0)),
            "SetProperty" => PropType::Set(inner(0)),
            "OptionalProperty" => PropType::Optional(inner(0)),
            "MapProperty" => PropType::Map(inner(0), inner(1)),
            other => PropType::Unknown(other.to_string()),
        }
    }

    /// Before UE 5.4: type name, size, index, the type's extras, GUID.
    fn read_tag_classic(&mut self, r: &mut Reader<'_>, name: String) -> Result<Tag> {
        let type_name = self.fname(r, "property type")?;
        let size_pos = r.pos();
        let size = r.i32("property size")?;
        let index = r.u32("array index")?;
        let mut bool_value = false;
        let ty = match type_name.as_str() {
            "StructProperty" => {
                let s = self.fname(r, "struct name")?;
                if self.ue4() >= UE4_STRUCT_GUID_IN_PROPERTY_TAG {
                    r.guid("struct GUID")?;
                }
                PropType::Struct(s)
            }
            "BoolProperty" => {
                bool_value = r.u8("bool value")? != 0;
                PropType::Bool
            }
            "ByteProperty" => {
                let e = self.fname(r, "enum name")?;
                PropType::Byte((e != "None").then_some(e))
            }
            "EnumProperty" => PropType::Enum {
                name: self.fname(r, "enum name")?,
                underlying: None,
            },
            "ArrayProperty" if self.ue4() >= UE4_ARRAY_PROPERTY_INNER_TAGS => {
                PropType::Array(Box::new(self.classic_inner(r, "array inner type")?))
            }
            "OptionalProperty" => {
                PropType::Optional(Box::new(self.classic_inner(r, "optional inner type")?))
            }
            "SetProperty" if self.ue4() >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
                PropType::Set(Box::new(self.classic_inner(r, "set element type")?))
            }
            "MapProperty" if self.ue4() >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
                let k = self.classic_inner(r, "map key type")?;
                let v = self.classic_inner(r, "map value type")?;
                PropType::Map(Box::new(k), Box::new(v))
            }
            other => PropType::leaf(other).unwrap_or_else(|| PropType::Unknown(other.into())),
        };
        if self.ue4() >= UE4_PROPERTY_GUID_IN_PROPERTY_TAG && r.u8("has property GUID")? != 0 {
            r.guid("property GUID")?;
        }
        if self.ue5() >= UE5_PROPERTY_TAG_EXTENSION {
            self.tag_extensions(r)?;
        }
        let size = Self::check_size(r, size, &name)?;
        Ok(Tag {
            name,
            ty,
            size,
            index,
            bool_value,
            native: false,
            skipped: false,
            size_pos,
        })
    }

    /// An inner type name of an old tag: struct names and enum names are
    /// not stored (an array's struct comes from its inner tag).
    fn classic_inner(&mut self, r: &mut Reader<'_>, what: &str) -> Result<PropType> {
        let n = self.fname(r, what)?;
        Ok(match n.as_str() {
            "StructProperty" => PropType::Struct(String::new()),
            "ByteProperty" => PropType::Byte(None),
            "EnumProperty" => PropType::Enum {
                name: String::new(),
                underlying: None,
            },
            other => PropType::leaf(other).unwrap_or_else(|| PropType::Unknown(other.into())),
        })
    }

    /// Whether tagged data is read (as opposed to unversioned).
    pub(super) fn tagged(&self) -> bool {
        self.form == Form::Tagged
    }
}

/// The (struct or enum name, package) pairs of a type name's parameters:
/// every node with exactly one parameter that has none itself
/// (`Vector(/Script/CoreUObject)`).
fn type_packages(params: &[Node], out: &mut Vec<(String, String)>) {
    for n in params {
        match n.params.as_slice() {
            [p] if p.params.is_empty() && p.name.starts_with('/') => {
                out.push((n.name.clone(), p.name.clone()));
            }
            ps => type_packages(ps, out),
        }
    }
}

/// A parameter node of a complete type name.
#[derive(Clone)]
pub(super) struct Node {
    name: String,
    params: Vec<Node>,
}
