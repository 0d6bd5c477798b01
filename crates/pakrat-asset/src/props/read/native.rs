//! Structs the engine serializes natively (`WithSerializer`: no tags and
//! no schema, in both forms), and the native data of classes after their
//! properties. Simple structs are a table of fields; the rest are code:
//! here, in `misc` (frame ranges, Niagara variables, fonts, MIDI events),
//! `movie` (MovieScene channels, time warps, evaluation trees), `bag`
//! (property bags), and the classes with no property stream: `nne` (NNE
//! model data), `rig` and `rig_control` (Control Rig hierarchies),
//! `rigvm` (RigVM bytecode and memory). Sources: UE `Core`/`CoreUObject` serializers; CUE4Parse
//! `FScriptStruct.cs` for the list of natively serialized structs.

mod bag;
mod misc;
mod movie;
pub(crate) use movie::{
    EXTRAPOLATION, FORTNITE_FLOAT_CHANNEL_SHOW_CURVE, INTERP, SEQUENCER,
    SEQUENCER_FLOAT_CHANNEL_COMPLETELY, TANGENT, TANGENT_WEIGHT,
};
mod nne;
mod rig;
mod rig_control;
#[cfg(test)]
mod rig_tests;
mod rigvm;
#[cfg(test)]
mod tests;

use super::Ctx;
use crate::props::asset::short_name;
use crate::props::{ExportProps, PropType, Property, Value};
use pakrat_io::{Reader, Result};

/// A field of a table-driven native struct.
#[derive(Clone, Copy)]
pub(crate) enum F {
    /// `FReal`: double with large world coordinates (UE 5.0+), else float.
    Real,
    F32,
    F64,
    I32,
    U32,
    I64,
    U8,
    /// A nested native struct.
    S(&'static str),
}

/// Natively serialized structs made of plain fields.
const TABLE: &[(&str, &[(&str, F)])] = &[
    ("Vector", &[("X", F::Real), ("Y", F::Real), ("Z", F::Real)]),
    ("Vector2D", &[("X", F::Real), ("Y", F::Real)]),
    ("DeprecateSlateVector2D", &[("X", F::F32), ("Y", F::F32)]),
    (
        "Vector4",
        &[
            ("X", F::Real),
            ("Y", F::Real),
            ("Z", F::Real),
            ("W", F::Real),
        ],
    ),
    ("Vector2f", &[("X", F::F32), ("Y", F::F32)]),
    ("Vector3f", &[("X", F::F32), ("Y", F::F32), ("Z", F::F32)]),
    ("Vector3d", &[("X", F::F64), ("Y", F::F64), ("Z", F::F64)]),
    (
        "Vector4f",
        &[("X", F::F32), ("Y", F::F32), ("Z", F::F32), ("W", F::F32)],
    ),
    (
        "Vector4d",
        &[("X", F::F64), ("Y", F::F64), ("Z", F::F64), ("W", F::F64)],
    ),
    (
        "Rotator",
        &[("Pitch", F::Real), ("Yaw", F::Real), ("Roll", F::Real)],
    ),
    (
        "Rotator3f",
        &[("Pitch", F::F32), ("Yaw", F::F32), ("Roll", F::F32)],
    ),
    (
        "Rotator3d",
        &[("Pitch", F::F64), ("Yaw", F::F64), ("Roll", F::F64)],
    ),
    (
        "Quat",
        &[
            ("X", F::Real),
            ("Y", F::Real),
            ("Z", F::Real),
            ("W", F::Real),
        ],
    ),
    (
        "Quat4f",
        &[("X", F::F32), ("Y", F::F32), ("Z", F::F32), ("W", F::F32)],
    ),
    (
        "Quat4d",
        &[("X", F::F64), ("Y", F::F64), ("Z", F::F64), ("W", F::F64)],
    ),
    (
        "Plane",
        &[
            ("X", F::Real),
            ("Y", F::Real),
            ("Z", F::Real),
            ("W", F::Real),
        ],
    ),
    (
        "Plane4f",
        &[("X", F::F32), ("Y", F::F32), ("Z", F::F32), ("W", F::F32)],
    ),
    (
        "Plane4d",
        &[("X", F::F64), ("Y", F::F64), ("Z", F::F64), ("W", F::F64)],
    ),
    ("Sphere", &[("Center", F::S("Vector")), ("W", F::Real)]),
    (
        "TwoVectors",
        &[("v1", F::S("Vector")), ("v2", F::S("Vector"))],
    ),
    (
        "Box",
        &[
            ("Min", F::S("Vector")),
            ("Max", F::S("Vector")),
            ("IsValid", F::U8),
        ],
    ),
    (
        "Box2D",
        &[
            ("Min", F::S("Vector2D")),
            ("Max", F::S("Vector2D")),
            ("bIsValid", F::U8),
        ],
    ),
    (
        "Box2f",
        &[
            ("Min", F::S("Vector2f")),
            ("Max", F::S("Vector2f")),
            ("bIsValid", F::U8),
        ],
    ),
    (
        "Box3f",
        &[
            ("Min", F::S("Vector3f")),
            ("Max", F::S("Vector3f")),
            ("IsValid", F::U8),
        ],
    ),
    (
        "Color",
        &[("B", F::U8), ("G", F::U8), ("R", F::U8), ("A", F::U8)],
    ),
    (
        "LinearColor",
        &[("R", F::F32), ("G", F::F32), ("B", F::F32), ("A", F::F32)],
    ),
    ("IntPoint", &[("X", F::I32), ("Y", F::I32)]),
    ("Int32Point", &[("X", F::I32), ("Y", F::I32)]),
    ("IntVector2", &[("X", F::I32), ("Y", F::I32)]),
    ("Int32Vector2", &[("X", F::I32), ("Y", F::I32)]),
    ("UintVector2", &[("X", F::U32), ("Y", F::U32)]),
    ("Uint32Point", &[("X", F::U32), ("Y", F::U32)]),
    ("IntVector", &[("X", F::I32), ("Y", F::I32), ("Z", F::I32)]),
    ("UintVector", &[("X", F::U32), ("Y", F::U32), ("Z", F::U32)]),
    (
        "IntVector4",
        &[("X", F::I32), ("Y", F::I32), ("Z", F::I32), ("W", F::I32)],
    ),
    (
        "UintVector4",
        &[("X", F::U32), ("Y", F::U32), ("Z", F::U32), ("W", F::U32)],
    ),
    ("Int64Point", &[("X", F::I64), ("Y", F::I64)]),
    ("Int64Vector2", &[("X", F::I64), ("Y", F::I64)]),
    (
        "Int64Vector",
        &[("X", F::I64), ("Y", F::I64), ("Z", F::I64)],
    ),
    ("DateTime", &[("Ticks", F::I64)]),
    ("Timespan", &[("Ticks", F::I64)]),
    ("FrameNumber", &[("Value", F::I32)]),
    ("MovieSceneSequenceID", &[("Value", F::U32)]),
    ("MovieSceneTrackIdentifier", &[("Value", F::U32)]),
    (
        "MovieSceneSegmentIdentifier",
        &[("IdentifierIndex", F::I32)],
    ),
    (
        "MovieSceneEvaluationKey",
        &[
            ("SequenceID", F::S("MovieSceneSequenceID")),
            ("TrackIdentifier", F::S("MovieSceneTrackIdentifier")),
            ("SectionIndex", F::U32),
        ],
    ),
    ("NavAgentSelector", &[("PackedBits", F::U32)]),
    (
        "FontCharacter",
        &[
            ("StartU", F::I32),
            ("StartV", F::I32),
            ("USize", F::I32),
            ("VSize", F::I32),
            ("TextureIndex", F::U8),
            ("VerticalOffset", F::I32),
        ],
    ),
    ("SimpleCurveKey", &[("Time", F::F32), ("Value", F::F32)]),
    (
        "RichCurveKey",
        &[
            ("InterpMode", F::U8),
            ("TangentMode", F::U8),
            ("TangentWeightMode", F::U8),
            ("Time", F::F32),
            ("Value", F::F32),
            ("ArriveTangent", F::F32),
            ("ArriveTangentWeight", F::F32),
            ("LeaveTangent", F::F32),
            ("LeaveTangentWeight", F::F32),
        ],
    ),
];

/// Natively serialized structs read by code below.
const CODED: &[&str] = &[
    "Guid",
    "SoftObjectPath",
    "SoftClassPath",
    "StringAssetReference",
    "StringClassReference",
    "GameplayTagContainer",
    "InstancedStruct",
    "PerPlatformFloat",
    "PerPlatformInt",
    "PerPlatformBool",
    "MovieSceneFrameRange",
    "MovieSceneFloatChannel",
    "MovieSceneDoubleChannel",
    "MovieSceneTimeWarpVariant",
    "MovieSceneEvaluationFieldEntityTree",
    "MovieSceneSubSequenceTree",
    "MovieSceneSequenceInstanceDataPtr",
    "InstancedPropertyBag",
    "RigVMPropertyBag",
    "NiagaraVariableBase",
    "NiagaraVariable",
    "NiagaraVariableWithOffset",
    "FontData",
    "MidiEvent",
    "SkeletalMeshSamplingLODBuiltData",
    "SkeletalMeshSamplingRegionBuiltData",
];

pub(crate) fn table(name: &str) -> Option<&'static [(&'static str, F)]> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn field(name: &str, ty: PropType, value: Value) -> Property {
    Property {
        name: name.to_string(),
        index: 0,
        ty,
        value,
    }
}

impl Ctx<'_, '_> {
    /// Whether `name` is serialized natively and pakrat reads it.
    pub(super) fn is_native(&self, name: &str) -> bool {
        table(name).is_some() || CODED.contains(&name)
    }

    /// A native struct, or `None` when `name` is not one pakrat knows.
    pub(super) fn native_struct(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
    ) -> Result<Option<Value>> {
        if let Some(fields) = table(name) {
            return self.table_struct(r, fields).map(Some);
        }
        Ok(Some(match name {
            "Guid" => Value::Guid(r.guid("GUID")?),
            "SoftObjectPath"
            | "SoftClassPath"
            | "StringAssetReference"
            | "StringClassReference" => self.value(r, &PropType::SoftObject)?,
            "GameplayTagContainer" => {
                let tags = self.array(r, &PropType::Name)?;
                Value::Struct(vec![field(
                    "GameplayTags",
                    PropType::Array(Box::new(PropType::Name)),
                    Value::Array(tags),
                )])
            }
            "InstancedStruct" => self.instanced_struct(r)?,
            "PerPlatformFloat" => self.per_platform(r, PropType::Float)?,
            "PerPlatformInt" => self.per_platform(r, PropType::Int)?,
            "PerPlatformBool" => self.per_platform(r, PropType::Bool)?,
            "MovieSceneFrameRange" => self.frame_range(r)?,
            "MovieSceneFloatChannel" => self.movie_channel(r, name, false)?,
            "MovieSceneDoubleChannel" => self.movie_channel(r, name, true)?,
            "MovieSceneTimeWarpVariant" => self.time_warp(r)?,
            "MovieSceneEvaluationFieldEntityTree" => self.entity_tree(r)?,
            "MovieSceneSubSequenceTree" => self.sub_sequence_tree(r)?,
            "MovieSceneSequenceInstanceDataPtr" => self.instance_data_ptr(r)?,
            "InstancedPropertyBag" | "RigVMPropertyBag" => self.property_bag(r)?,
            "NiagaraVariableBase" | "NiagaraVariable" | "NiagaraVariableWithOffset" => {
                self.niagara_variable(r, name)?
            }
            "FontData" => self.font_data(r)?,
            "MidiEvent" => self.midi_event(r)?,
            "SkeletalMeshSamplingLODBuiltData" => self.mesh_sampling(r, false)?,
            "SkeletalMeshSamplingRegionBuiltData" => self.mesh_sampling(r, true)?,
            _ => return Ok(None),
        }))
    }

    fn table_struct(&mut self, r: &mut Reader<'_>, fields: &[(&str, F)]) -> Result<Value> {
        let mut out = Vec::with_capacity(fields.len());
        for (name, f) in fields {
            let (ty, value) = match f {
                F::Real if self.lwc => (
                    PropType::Double,
                    Value::Double(f64::from_bits(r.u64(name)?)),
                ),
                F::Real | F::F32 => (PropType::Float, Value::Float(r.f32(name)?)),
                F::F64 => (
                    PropType::Double,
                    Value::Double(f64::from_bits(r.u64(name)?)),
                ),
                F::I32 => (PropType::Int, Value::Int(i64::from(r.i32(name)?))),
                F::U32 => (PropType::UInt32, Value::UInt(u64::from(r.u32(name)?))),
                F::I64 => (PropType::Int64, Value::Int(r.i64(name)?)),
                F::U8 => (PropType::Byte(None), Value::UInt(u64::from(r.u8(name)?))),
                F::S(s) => {
                    let sub = table(s).unwrap_or(&[]);
                    (PropType::Struct((*s).into()), self.table_struct(r, sub)?)
                }
            };
            out.push(field(name, ty, value));
        }
        Ok(Value::Struct(out))
    }

    /// `FInstancedStruct` (UE 5.0+ with its custom version): the struct's
    /// type, its serialized size, then the struct.
    fn instanced_struct(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let ty = self.object(r, "instanced struct type")?;
        let size = r.i32_count("instanced struct", 1)?;
        let mut body = r.sub(r.pos() as u64, size as u64, "instanced struct")?;
        r.skip(size as u64, "instanced struct")?;
        let value = match &ty {
            Some(path) => {
                let name = short_name(path).to_string();
                let v = self.nested(body.offset(), |c| c.struct_value(&mut body, &name))?;
                if body.remaining() != 0 {
                    return Err(body.invalid(format!(
                        "instanced struct {name}: {} bytes left after its value",
                        body.remaining()
                    )));
                }
                v
            }
            None => Value::Struct(Vec::new()),
        };
        Ok(Value::Struct(vec![
            field("ScriptStruct", PropType::Object, Value::Object(ty.clone())),
            field(
                "StructInstance",
                PropType::Struct(ty.as_deref().map(short_name).unwrap_or("").into()),
                value,
            ),
        ]))
    }

    /// `TPerPlatformProperty`: cooked flag, default, and (not cooked) the
    /// per-platform overrides.
    fn per_platform(&mut self, r: &mut Reader<'_>, ty: PropType) -> Result<Value> {
        let cooked = r.u32("per-platform cooked flag")? != 0;
        let default = match ty {
            PropType::Bool => Value::Bool(r.u32("per-platform default")? != 0),
            _ => self.value(r, &ty)?,
        };
        let mut out = vec![
            field("bCooked", PropType::Bool, Value::Bool(cooked)),
            field("Default", ty.clone(), default),
        ];
        if !cooked {
            let map_ty = PropType::Map(Box::new(PropType::Name), Box::new(ty.clone()));
            let n = r.i32_count("per-platform overrides", 9)?;
            let mut m = Vec::with_capacity(n);
            for _ in 0..n {
                let k = Value::Name(self.fname(r, "platform")?);
                let v = match ty {
                    PropType::Bool => Value::Bool(r.u32("per-platform value")? != 0),
                    _ => self.value(r, &ty)?,
                };
                m.push((k, v));
            }
            out.push(field("PerPlatform", map_ty, Value::Map(m)));
        }
        Ok(Value::Struct(out))
    }
}

/// The class's native data after the properties: decoded for the classes
/// below, otherwise counted as unread bytes (not an error).
pub(super) fn decode_tail(
    ctx: &mut Ctx<'_, '_>,
    r: &mut Reader<'_>,
    export: usize,
    class: &str,
    out: &mut ExportProps,
) {
    let before = r.clone();
    let res = match class {
        c if crate::sound::is_sound_class(c) => {
            let asset = ctx.asset;
            crate::sound::read(asset, export, r, &mut |r| {
                ctx.struct_fields(r, "SoundWaveCuePoint")
            })
            .map(|w| crate::sound::to_properties(&w))
        }
        c if crate::texture::is_texture_class(c) => {
            crate::texture::read(ctx.asset, export, c, &out.properties, r)
                .map(|t| crate::texture::to_properties(&t))
        }
        "NNEModelData" => ctx.nne_model_data(r),
        "RigHierarchy" => ctx.rig_hierarchy(r).and_then(|f| all_read(r, f)),
        "RigVM" => ctx.rig_vm(r).and_then(|f| all_read(r, f)),
        "DataTable" | "CompositeDataTable" => ctx.data_table(r, &out.properties),
        "StringTable" => ctx.string_table(r),
        "CurveTable" | "CompositeCurveTable" => ctx.curve_table(r),
        "UserDefinedEnum" => ctx.enum_tail(r),
        c if crate::props::own::defines_struct(c) || super::ustruct::is_function(c) => {
            ctx.ustruct_tail(r, c, &out.properties)
        }
        _ => Ok(Vec::new()),
    };
    match res {
        Ok(fields) => out.native.extend(fields),
        Err(e) => {
            *r = before;
            out.error = Some(format!("native data of {class}: {e}"));
        }
    }
    out.native_unread = r.remaining() as u64;
}

/// Classes whose `Serialize` writes only their own data: no property
/// stream and no object GUID, the whole export is the native data.
pub(crate) fn without_properties(class: &str) -> bool {
    matches!(class, "NNEModelData" | "RigHierarchy" | "RigVM")
}

/// A class whose layout is known to the end: no byte may be left.
fn all_read(r: &Reader<'_>, fields: Vec<Property>) -> Result<Vec<Property>> {
    if r.remaining() != 0 {
        return Err(r.invalid(format!(
            "{} bytes left after the data pakrat knows",
            r.remaining()
        )));
    }
    Ok(fields)
}

/// The hint path segment of a table row (the rows of data and curve
/// tables are property streams: their write hints are kept per row name,
/// apart from the export's own properties).
pub(crate) fn row_seg(name: &str) -> String {
    format!("~Rows{{{name}")
}

/// The hint path segment of a string table's strings.
pub(crate) const STRING_TABLE_SEG: &str = "~StringTable";

/// The short name an object property holds, if it is set.
fn object_name<'p>(props: &'p [Property], name: &str) -> Option<&'p str> {
    props.iter().find_map(|p| match &p.value {
        Value::Object(Some(path)) if p.name == name => Some(short_name(path)),
        _ => None,
    })
}

impl Ctx<'_, '_> {
    /// `UDataTable`: row count, then (row name, row struct) pairs.
    fn data_table(&mut self, r: &mut Reader<'_>, props: &[Property]) -> Result<Vec<Property>> {
        let row_struct = object_name(props, "RowStruct")
            .unwrap_or_default()
            .to_string();
        let n = r.i32_count("data table rows", 9)?;
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.fname(r, "row name")?;
            let v = self.with_seg(format_args!("{}", row_seg(&name)), |c| {
                c.nested(r.offset(), |c| c.properties(r, &row_struct, false))
            })?;
            rows.push((Value::Name(name), Value::Struct(v)));
        }
        Ok(vec![field(
            "Rows",
            PropType::Map(
                Box::new(PropType::Name),
                Box::new(PropType::Struct(row_struct)),
            ),
            Value::Map(rows),
        )])
    }

    /// `FStringTable`: namespace, entries (key → source string) and their
    /// metadata (key → (name → string)).
    fn string_table(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        self.with_seg(format_args!("{STRING_TABLE_SEG}"), |c| c.string_table_in(r))
    }

    fn string_table_in(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let namespace = self.fstr(r, "string table namespace")?;
        let n = r.i32_count("string table entries", 8)?;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.fstr(r, "string table key")?;
            let v = self.fstr(r, "string table value")?;
            entries.push((Value::Str(k), Value::Str(v)));
        }
        let n = r.i32_count("string table metadata", 8)?;
        let mut meta = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.fstr(r, "string table metadata key")?;
            let m = r.i32_count("metadata", 12)?;
            let mut inner = Vec::with_capacity(m);
            for _ in 0..m {
                let id = self.fname(r, "metadata id")?;
                let v = self.fstr(r, "metadata value")?;
                inner.push((Value::Name(id), Value::Str(v)));
            }
            meta.push((Value::Str(k), Value::Map(inner)));
        }
        let str_map = || PropType::Map(Box::new(PropType::Str), Box::new(PropType::Str));
        Ok(vec![
            field("TableNamespace", PropType::Str, Value::Str(namespace)),
            field("Entries", str_map(), Value::Map(entries)),
            field(
                "KeysToMetaData",
                PropType::Map(
                    Box::new(PropType::Str),
                    Box::new(PropType::Map(
                        Box::new(PropType::Name),
                        Box::new(PropType::Str),
                    )),
                ),
                Value::Map(meta),
            ),
        ])
    }

    /// `UCurveTable`: row count, the curve mode (0 empty, 1 simple, 2 rich
    /// curves), then (row name, curve struct) pairs.
    fn curve_table(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let n = r.i32_count("curve table rows", 9)?;
        let mode = r.u8("curve table mode")?;
        let curve = if mode == 1 {
            "SimpleCurve"
        } else {
            "RichCurve"
        };
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.fname(r, "row name")?;
            let v = self.with_seg(format_args!("{}", row_seg(&name)), |c| {
                c.nested(r.offset(), |c| c.properties(r, curve, false))
            })?;
            rows.push((Value::Name(name), Value::Struct(v)));
        }
        Ok(vec![
            field(
                "CurveTableMode",
                PropType::Byte(None),
                Value::UInt(u64::from(mode)),
            ),
            field(
                "Rows",
                PropType::Map(
                    Box::new(PropType::Name),
                    Box::new(PropType::Struct(curve.into())),
                ),
                Value::Map(rows),
            ),
        ])
    }

    /// `UEnum`: (name, value) entries, the C++ form and (newer) the
    /// underlying type.
    fn enum_tail(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let n = r.i32_count("enum entries", 16)?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.fname(r, "enum entry")?;
            let v = r.i64("enum value")?;
            names.push((Value::Name(name), Value::Int(v)));
        }
        let form = r.u8("enum C++ form")?;
        let mut out = vec![
            field(
                "Names",
                PropType::Map(Box::new(PropType::Name), Box::new(PropType::Int64)),
                Value::Map(names),
            ),
            field(
                "CppForm",
                PropType::Byte(None),
                Value::UInt(u64::from(form)),
            ),
        ];
        if r.remaining() == 1 {
            let t = r.u8("enum underlying type")?;
            out.push(field(
                "UnderlyingType",
                PropType::Byte(None),
                Value::UInt(u64::from(t)),
            ));
        }
        Ok(out)
    }
}
