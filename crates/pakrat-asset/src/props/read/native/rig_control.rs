//! Control Rig hierarchy elements beyond bones: control settings, curves,
//! connectors, and element metadata. Layout and version gates
//! (`FControlRigObjectVersion`): CUE4Parse `RigHierarchyElements.cs` and
//! `RigHierarchyMetadata.cs` (read for facts). The fixture has none of
//! these; hand-built bytes test them.

use super::bag::bool32;
use super::field;
use super::rig::{key_ty, Elems, CR_PARENT_LABEL, CR_STORES_METADATA};
use crate::props::{PropType, Property, Value};
use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Error, Reader, Result};

/// `ControlRigObjectVersion` gates used here.
const CR_SPACE_FAVORITES: i32 = 9;
const CR_MIN_MAX_AS_FLOATS: i32 = 10;
const CR_PER_CHANNEL_LIMITS: i32 = 13;
const CR_CURVE_VALUE_FLAG: i32 = 16;
const CR_ANIMATION_TYPE: i32 = 17;
const CR_PREFERRED_EULER: i32 = 19;
const CR_RESTRICT_SPACE_SWITCHING: i32 = 22;
const CR_CHANNEL_FILTERING: i32 = 23;
const CR_ROTATION_ORDER: i32 = 26;
const CR_ROTATION_ORDER_FLAG: i32 = 27;
const CR_CONNECTOR_TYPE: i32 = 29;
const CR_ARRAY_CONNECTORS: i32 = 36;
const CR_POST_CONSTRUCTION_CONNECTORS: i32 = 39;

/// Floats of an `FRigControlValue` (its float storage, as stored).
const CONTROL_VALUE_FLOATS: usize = 32;

/// `ERigMetadataType`: scalar kinds; an odd type is the array of the
/// kind before it.
const META_KINDS: [&str; 10] = [
    "Bool",
    "Float",
    "Int32",
    "Name",
    "Vector",
    "Rotator",
    "Quat",
    "Transform",
    "LinearColor",
    "RigElementKey",
];

fn boolf(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    Ok(field(name, PropType::Bool, Value::Bool(bool32(r, name)?)))
}

fn bytef(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    let v = r.u8(name)?;
    Ok(field(name, PropType::Byte(None), Value::UInt(u64::from(v))))
}

impl Elems<'_, '_, '_> {
    fn namef(&self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        Ok(field(
            name,
            PropType::Name,
            Value::Name(self.name(r, name)?),
        ))
    }

    /// A control's static data: settings, offset and shape poses, and
    /// the preferred euler angles.
    pub(super) fn control_data(
        &mut self,
        r: &mut Reader<'_>,
        out: &mut Vec<Property>,
    ) -> Result<()> {
        let settings = self.control_settings(r)?;
        out.push(field(
            "Settings",
            PropType::Struct("RigControlSettings".into()),
            Value::Struct(settings),
        ));
        out.push(self.pose_field(r, "Offset")?);
        out.push(self.pose_field(r, "Shape")?);
        if self.s.version >= CR_PREFERRED_EULER {
            let order = self.namef(r, "RotationOrder")?;
            let current = self.table_field(r, "Current", "Vector")?;
            let initial = self.table_field(r, "Initial", "Vector")?;
            out.push(field(
                "PreferredEulerAngles",
                PropType::Struct("RigPreferredEulerAngles".into()),
                Value::Struct(vec![order, current, initial]),
            ));
        }
        Ok(())
    }

    /// `FRigControlSettings`.
    fn control_settings(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let v = self.s.version;
        let mut out = Vec::new();
        if v >= CR_ANIMATION_TYPE {
            out.push(self.namef(r, "AnimationType")?);
        }
        out.push(self.namef(r, "ControlType")?);
        out.push(self.namef(r, "DisplayName")?);
        out.push(self.namef(r, "PrimaryAxis")?);
        out.push(boolf(r, "bIsCurve")?);
        if v < CR_ANIMATION_TYPE {
            out.push(boolf(r, "bAnimatable")?);
        }
        if v < CR_PER_CHANNEL_LIMITS {
            for n in ["bLimitTranslation", "bLimitRotation", "bLimitScale"] {
                out.push(boolf(r, n)?);
            }
        } else {
            let n = r.i32_count("control limits", 8)?;
            let mut limits = Vec::with_capacity(n);
            for _ in 0..n {
                limits.push(Value::Struct(vec![
                    boolf(r, "bMinimum")?,
                    boolf(r, "bMaximum")?,
                ]));
            }
            out.push(field(
                "LimitEnabled",
                PropType::Array(Box::new(PropType::Struct("RigControlLimitEnabled".into()))),
                Value::Array(limits),
            ));
        }
        out.push(boolf(r, "bDrawLimits")?);
        for name in ["MinimumValue", "MaximumValue"] {
            if v >= CR_MIN_MAX_AS_FLOATS {
                let mut f = Vec::with_capacity(CONTROL_VALUE_FLOATS);
                for _ in 0..CONTROL_VALUE_FLOATS {
                    f.push(Value::Float(r.f32(name)?));
                }
                out.push(field(
                    name,
                    PropType::Array(Box::new(PropType::Float)),
                    Value::Array(f),
                ));
            } else {
                let t = self.transform(r)?;
                out.push(field(name, PropType::Struct("Transform".into()), t));
            }
        }
        if v < CR_ANIMATION_TYPE {
            out.push(boolf(r, "bShapeEnabled")?);
        }
        out.push(boolf(r, "bShapeVisible")?);
        if v >= CR_ANIMATION_TYPE {
            out.push(self.namef(r, "ShapeVisibility")?);
        }
        out.push(self.namef(r, "ShapeName")?);
        out.push(self.table_field(r, "ShapeColor", "LinearColor")?);
        out.push(boolf(r, "bIsTransientControl")?);
        let e = read_fstring(r, "control enum path")?;
        out.push(field("ControlEnum", PropType::Str, Value::Str(e)));
        self.control_settings_tail(r, &mut out)?;
        Ok(out)
    }

    /// The settings after the control enum: spaces, driven controls,
    /// channel filters, rotation order.
    fn control_settings_tail(&mut self, r: &mut Reader<'_>, out: &mut Vec<Property>) -> Result<()> {
        let v = self.s.version;
        if v >= CR_PARENT_LABEL {
            let n = r.i32_count("available spaces", self.key_size() + self.name_size())?;
            let mut spaces = Vec::with_capacity(n);
            for _ in 0..n {
                let key = self.key_field(r, "Key")?;
                let label = self.namef(r, "Label")?;
                spaces.push(Value::Struct(vec![key, label]));
            }
            out.push(field(
                "AvailableSpaces",
                PropType::Array(Box::new(PropType::Struct("RigElementKeyWithLabel".into()))),
                Value::Array(spaces),
            ));
        } else if v >= CR_SPACE_FAVORITES {
            out.push(self.key_array(r, "AvailableSpaces")?);
        }
        if v >= CR_ANIMATION_TYPE {
            out.push(self.key_array(r, "DrivenControls")?);
            out.push(boolf(r, "bGroupWithParentControl")?);
        }
        if v >= CR_RESTRICT_SPACE_SWITCHING {
            out.push(boolf(r, "bRestrictSpaceSwitching")?);
        }
        if v >= CR_CHANNEL_FILTERING {
            let n = r.i32_count("filtered channels", 1)?;
            let mut ch = Vec::with_capacity(n);
            for _ in 0..n {
                ch.push(Value::UInt(u64::from(r.u8("filtered channel")?)));
            }
            out.push(field(
                "FilteredChannels",
                PropType::Array(Box::new(PropType::Byte(None))),
                Value::Array(ch),
            ));
        }
        if v >= CR_ROTATION_ORDER {
            out.push(bytef(r, "PreferredRotationOrder")?);
        }
        if v >= CR_ROTATION_ORDER_FLAG {
            out.push(boolf(r, "bUsePreferredRotationOrder")?);
        }
        Ok(())
    }

    fn key_array(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        let n = r.i32_count(name, self.key_size())?;
        let mut keys = Vec::with_capacity(n);
        for _ in 0..n {
            keys.push(self.key(r)?.1);
        }
        Ok(field(
            name,
            PropType::Array(Box::new(key_ty())),
            Value::Array(keys),
        ))
    }

    /// A curve's static data: whether its value is set, and the value.
    pub(super) fn curve_data(&mut self, r: &mut Reader<'_>, out: &mut Vec<Property>) -> Result<()> {
        if self.s.version >= CR_CURVE_VALUE_FLAG {
            out.push(boolf(r, "bIsValueSet")?);
        }
        let v = r.f32("curve value")?;
        out.push(field("Value", PropType::Float, Value::Float(v)));
        Ok(())
    }

    /// `FRigConnectorSettings`.
    pub(super) fn connector_settings(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let v = self.s.version;
        let d = read_fstring(r, "connector description")?;
        let mut out = vec![field("Description", PropType::Str, Value::Str(d))];
        if v >= CR_CONNECTOR_TYPE {
            out.push(bytef(r, "Type")?);
            out.push(boolf(r, "bOptional")?);
        }
        if v >= CR_ARRAY_CONNECTORS {
            out.push(boolf(r, "bIsArray")?);
        }
        if v >= CR_POST_CONSTRUCTION_CONNECTORS {
            out.push(boolf(r, "bPostConstruction")?);
        }
        let n = r.i32_count("connection rules", 8)?;
        let mut rules = Vec::with_capacity(n);
        for _ in 0..n {
            let path = read_fstring(r, "rule struct path")?;
            let text = read_fstring(r, "rule exported text")?;
            rules.push(Value::Struct(vec![
                field("ScriptStructPath", PropType::Str, Value::Str(path)),
                field("ExportedText", PropType::Str, Value::Str(text)),
            ]));
        }
        out.push(field(
            "Rules",
            PropType::Array(Box::new(PropType::Struct("RigConnectionRuleStash".into()))),
            Value::Array(rules),
        ));
        Ok(Value::Struct(out))
    }

    /// Metadata inside an element (versions before it moved to the
    /// hierarchy): per entry two names, then the metadata with its type
    /// as a name.
    pub(super) fn old_metadata(&mut self, r: &mut Reader<'_>) -> Result<Property> {
        self.metadata_list(r, "Metadata", false)
    }

    /// `LoadedElementMetadata`: element key → its metadata.
    pub(super) fn element_metadata(&mut self, r: &mut Reader<'_>) -> Result<Property> {
        debug_assert!(self.s.version >= CR_STORES_METADATA);
        let n = r.i32_count("element metadata", self.key_size() + 4)?;
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.key(r)?.1;
            let v = self.metadata_list(r, "Metadata", true)?.value;
            m.push((k, v));
        }
        Ok(field(
            "ElementMetadata",
            PropType::Map(Box::new(key_ty()), Box::new(meta_list_ty())),
            Value::Map(m),
        ))
    }

    /// A list of metadata: count, then per entry the name and type name,
    /// then the metadata itself (name, type, value).
    fn metadata_list(&mut self, r: &mut Reader<'_>, name: &str, storage: bool) -> Result<Property> {
        let min = 3 * self.name_size() + 1;
        let n = r.i32_count("metadata entries", min)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let _name = self.name(r, "metadata name")?;
            let _type = self.name(r, "metadata type name")?;
            out.push(self.metadata(r, storage)?);
        }
        Ok(field(name, meta_list_ty(), Value::Array(out)))
    }

    /// `FRigBaseMetadata`: name, type (a byte in storage, else an
    /// `ERigMetadataType` name), value.
    fn metadata(&mut self, r: &mut Reader<'_>, storage: bool) -> Result<Value> {
        let name = self.name(r, "metadata name")?;
        let at = r.offset();
        let t = if storage {
            usize::from(r.u8("metadata type")?)
        } else {
            let n = self.name(r, "metadata type")?;
            let short = n.strip_prefix("ERigMetadataType::").unwrap_or(&n);
            meta_type_index(short).ok_or_else(|| {
                Error::invalid(
                    at,
                    format!("metadata type {n:?} is not an ERigMetadataType"),
                )
            })?
        };
        let Some(kind) = META_KINDS.get(t / 2) else {
            return Err(Error::invalid(
                at,
                format!("metadata type {t} (known: 0..=19)"),
            ));
        };
        let array = t % 2 == 1;
        let tname = format!("{kind}{}", if array { "Array" } else { "" });
        let (ty, value) = if array {
            let n = r.i32_count("metadata values", self.meta_min(t / 2))?;
            let mut items = Vec::with_capacity(n);
            let mut ty = PropType::Bool;
            for _ in 0..n {
                let (t1, v) = self.meta_scalar(r, t / 2)?;
                ty = t1;
                items.push(v);
            }
            if n == 0 {
                ty = self.meta_scalar_ty(t / 2);
            }
            (PropType::Array(Box::new(ty)), Value::Array(items))
        } else {
            self.meta_scalar(r, t / 2)?
        };
        Ok(Value::Struct(vec![
            field("Name", PropType::Name, Value::Name(name)),
            field(
                "Type",
                PropType::Enum {
                    name: "ERigMetadataType".into(),
                    underlying: None,
                },
                Value::Enum(format!("ERigMetadataType::{tname}")),
            ),
            field("Value", ty, value),
        ]))
    }

    fn meta_min(&self, kind: usize) -> usize {
        match kind {
            3 => self.name_size(),
            9 => self.key_size(),
            4 | 5 => 12,
            6 | 8 => 16,
            7 => 40,
            _ => 4,
        }
    }

    fn meta_scalar_ty(&self, kind: usize) -> PropType {
        match kind {
            0 => PropType::Bool,
            1 => PropType::Float,
            2 => PropType::Int,
            3 => PropType::Name,
            9 => key_ty(),
            k => PropType::Struct(META_KINDS[k].into()),
        }
    }

    fn meta_scalar(&mut self, r: &mut Reader<'_>, kind: usize) -> Result<(PropType, Value)> {
        let ty = self.meta_scalar_ty(kind);
        let v = match kind {
            0 => Value::Bool(bool32(r, "metadata bool")?),
            1 => Value::Float(r.f32("metadata float")?),
            2 => Value::Int(i64::from(r.i32("metadata int")?)),
            3 => Value::Name(self.name(r, "metadata name value")?),
            7 => self.transform(r)?,
            9 => self.key(r)?.1,
            k => self.table_field(r, "", META_KINDS[k])?.value,
        };
        Ok((ty, v))
    }
}

fn meta_list_ty() -> PropType {
    PropType::Array(Box::new(PropType::Struct("RigBaseMetadata".into())))
}

/// The `ERigMetadataType` number of a name (`FloatArray` → 3).
fn meta_type_index(name: &str) -> Option<usize> {
    let (base, array) = match name.strip_suffix("Array") {
        Some(b) => (b, 1),
        None => (name, 0),
    };
    META_KINDS
        .iter()
        .position(|k| *k == base)
        .map(|i| i * 2 + array)
}
