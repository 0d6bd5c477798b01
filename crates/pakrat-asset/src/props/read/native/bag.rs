//! `FInstancedPropertyBag` (StructUtils, also `RigVMPropertyBag`): the
//! descriptions of the bag's properties, then the bag's values as a struct
//! built from them. Layout and gates: UE `PropertyBag.cpp`
//! (`FInstancedPropertyBag::Serialize`, `FPropertyBagPropertyDesc`),
//! cross-checked on the UE 5.8/6.0 fixtures.

use super::field;
use crate::props::read::{Ctx, Form};
use crate::props::{PropType, Property, Value};
use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Error, Guid, Reader, Result};

/// `FPropertyBagCustomVersion`.
const PROPERTY_BAG: Guid = Guid {
    words: [0x134A_157E, 0xD5E2_49A3, 0x8D4E_843C, 0x98FE_9E31],
};
/// `FPropertyBagCustomVersion::ContainerTypes` (the bag's own version
/// byte goes away, a property's container types become a list).
const BAG_CONTAINER_TYPES: i32 = 1;
/// `FPropertyBagCustomVersion::MetaClass`.
const BAG_META_CLASS: i32 = 3;
/// `FPropertyBagCustomVersion::PropertyFlags`.
const BAG_PROPERTY_FLAGS: i32 = 4;
/// `FPropertyBagCustomVersion::KeyTypes`.
const BAG_KEY_TYPES: i32 = 5;

/// `EPropertyBagPropertyType`.
const VALUE_TYPES: [&str; 18] = [
    "None",
    "Bool",
    "Byte",
    "Int32",
    "Int64",
    "Float",
    "Double",
    "Name",
    "String",
    "Text",
    "Enum",
    "Struct",
    "Object",
    "SoftObject",
    "Class",
    "SoftClass",
    "UInt32",
    "UInt64",
];

fn bag_type(r: &mut Reader<'_>, what: &str) -> Result<Property> {
    let v = r.u8(what)?;
    let entry = match VALUE_TYPES.get(usize::from(v)) {
        Some(e) => format!("EPropertyBagPropertyType::{e}"),
        None => format!("EPropertyBagPropertyType::({v})"),
    };
    Ok(field(
        what,
        PropType::Byte(Some("EPropertyBagPropertyType".into())),
        Value::Enum(entry),
    ))
}

pub(super) fn bool32(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    let at = r.offset();
    match r.u32(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Error::invalid(
            at,
            format!("{what} is {v}, expected 0 or 1"),
        )),
    }
}

impl Ctx<'_, '_> {
    /// `FInstancedPropertyBag`.
    pub(super) fn property_bag(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let container_list = self.custom_at_least(PROPERTY_BAG, BAG_CONTAINER_TYPES);
        // Before container types the bag wrote its own version byte
        // (0 initial, 1 with the struct's size).
        let sized = container_list || r.u8("property bag version")? >= 1;
        if !bool32(r, "property bag has-data flag")? {
            return Ok(Value::Struct(Vec::new()));
        }
        let n = r.i32_count("property bag descriptions", 34)?;
        let mut descs = Vec::with_capacity(n);
        for _ in 0..n {
            descs.push(Value::Struct(self.bag_desc(r, container_list)?));
        }
        let mut out = vec![field(
            "PropertyDescs",
            PropType::Array(Box::new(PropType::Struct("PropertyBagPropertyDesc".into()))),
            Value::Array(descs),
        )];
        if !sized {
            return Err(r.unsupported("a property bag without its size (initial version)"));
        }
        let size = r.i32_count("property bag values", 1)?;
        let mut body = r.sub(r.pos() as u64, size as u64, "property bag values")?;
        r.skip(size as u64, "property bag values")?;
        let unversioned = self.form == Form::Unversioned;
        if unversioned && n != 0 {
            return Err(body.unsupported(
                "the values of a property bag in unversioned data (its schema is the descriptions)",
            ));
        }
        let values = self.nested(body.offset(), |c| {
            if unversioned {
                // No property: an empty header.
                c.unversioned_properties(&mut body, "PropertyBag", false)
            } else {
                c.tagged_properties(&mut body)
            }
        })?;
        if body.remaining() != 0 {
            return Err(body.invalid(format!(
                "property bag: {} bytes left after its values",
                body.remaining()
            )));
        }
        out.push(field(
            "Value",
            PropType::Struct("PropertyBag".into()),
            Value::Struct(values),
        ));
        Ok(Value::Struct(out))
    }

    /// `FPropertyBagPropertyDesc`.
    fn bag_desc(&mut self, r: &mut Reader<'_>, container_list: bool) -> Result<Vec<Property>> {
        let type_object = self.object(r, "property bag value type object")?;
        let id = r.guid("property bag property id")?;
        let name = self.fname(r, "property bag property name")?;
        let mut out = vec![
            field(
                "ValueTypeObject",
                PropType::Object,
                Value::Object(type_object),
            ),
            field("ID", PropType::Struct("Guid".into()), Value::Guid(id)),
            field("Name", PropType::Name, Value::Name(name)),
            bag_type(r, "ValueType")?,
        ];
        let count = if container_list {
            usize::from(r.u8("container type count")?)
        } else {
            1
        };
        let mut containers = Vec::with_capacity(count);
        for _ in 0..count {
            containers.push(Value::UInt(u64::from(r.u8("container type")?)));
        }
        out.push(field(
            "ContainerTypes",
            PropType::Array(Box::new(PropType::Byte(None))),
            Value::Array(containers),
        ));
        if bool32(r, "property bag metadata flag")? {
            let m = r.i32_count("property bag metadata", 12)?;
            let mut meta = Vec::with_capacity(m);
            for _ in 0..m {
                let k = self.fname(r, "metadata key")?;
                let v = read_fstring(r, "metadata value")?;
                meta.push((Value::Name(k), Value::Str(v)));
            }
            out.push(field(
                "MetaData",
                PropType::Map(Box::new(PropType::Name), Box::new(PropType::Str)),
                Value::Map(meta),
            ));
            if self.custom_at_least(PROPERTY_BAG, BAG_META_CLASS) {
                let c = self.object(r, "property bag meta class")?;
                out.push(field("MetaClass", PropType::Object, Value::Object(c)));
            }
        }
        if self.custom_at_least(PROPERTY_BAG, BAG_PROPERTY_FLAGS) {
            let f = r.u64("property bag property flags")?;
            out.push(field("PropertyFlags", PropType::UInt64, Value::UInt(f)));
        }
        if self.custom_at_least(PROPERTY_BAG, BAG_KEY_TYPES) {
            out.push(bag_type(r, "KeyType")?);
            let o = self.object(r, "property bag key type object")?;
            out.push(field("KeyTypeObject", PropType::Object, Value::Object(o)));
        }
        Ok(out)
    }
}
