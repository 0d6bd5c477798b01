//! Natively serialized structs inside properties (the mirror of
//! `read/native.rs`): the table-driven ones, `Guid`, soft object paths,
//! gameplay tag containers, instanced structs, frame ranges, time warps,
//! MovieScene float/double channels (in `movie`) and per-platform values
//! are encoded; the
//! others are written back from their stored bytes while unchanged.

use super::{kind, Enc, Result};
use crate::props::asset::short_name;
use crate::props::read::{table, F};
use crate::props::{PropType, Property, Value};
use pakrat_io::Writer;

/// Coded native structs the encoder writes itself (the table-driven ones
/// always are).
const ENCODED: &[&str] = &[
    "Guid",
    "SoftObjectPath",
    "SoftClassPath",
    "StringAssetReference",
    "StringClassReference",
    "GameplayTagContainer",
    "InstancedStruct",
    "MovieSceneFrameRange",
    "MovieSceneTimeWarpVariant",
    "MovieSceneFloatChannel",
    "MovieSceneDoubleChannel",
    "PerPlatformFloat",
    "PerPlatformInt",
    "PerPlatformBool",
];

/// Whether the encoder writes native struct `name` (else its stored bytes
/// are kept while decoding for writing).
pub(crate) fn encodes_native(name: &str) -> bool {
    table(name).is_some() || ENCODED.contains(&name)
}

/// `EMovieSceneTimeWarpType` entries and their payload structs (as the
/// decoder names them).
const TIME_WARP: [(&str, &str); 8] = [
    ("FixedPlayRate", ""),
    ("Custom", ""),
    ("FixedTime", "MovieSceneTimeWarpFixedFrame"),
    ("FrameRate", "FrameRate"),
    ("Loop", "MovieSceneTimeWarpLoop"),
    ("Clamp", "MovieSceneTimeWarpClamp"),
    ("LoopFloat", "MovieSceneTimeWarpLoopFloat"),
    ("ClampFloat", "MovieSceneTimeWarpClampFloat"),
];

/// Field `name` of a struct value, or an error naming it.
pub(super) fn field<'v>(
    enc: &Enc<'_, '_>,
    fields: &'v [Property],
    name: &str,
) -> Result<&'v Value> {
    match fields.iter().find(|p| p.name == name) {
        Some(p) => Ok(&p.value),
        None => enc.err(format!("the struct has no field {name}")),
    }
}

impl Enc<'_, '_> {
    /// A struct value: native when it is one, else its property stream.
    pub(super) fn struct_value(&mut self, w: &mut Writer, name: &str, v: &Value) -> Result<()> {
        if self.has_raw(v) {
            return self.raw(w, v);
        }
        if let Some(fields) = table(name) {
            return self.table_struct(w, name, fields, v);
        }
        match (name, v) {
            ("Guid", Value::Guid(g)) => {
                w.guid(*g);
            }
            (
                "SoftObjectPath"
                | "SoftClassPath"
                | "StringAssetReference"
                | "StringClassReference",
                _,
            ) => self.value(w, &PropType::SoftObject, v)?,
            ("GameplayTagContainer", Value::Struct(f)) => {
                let tags = field(self, f, "GameplayTags")?.clone();
                self.value(w, &PropType::Array(Box::new(PropType::Name)), &tags)?;
            }
            ("InstancedStruct", Value::Struct(f)) => self.instanced_struct(w, f)?,
            ("MovieSceneFrameRange", Value::Struct(f)) => {
                for bound in ["LowerBound", "UpperBound"] {
                    let Value::Struct(b) = field(self, f, bound)?.clone() else {
                        return self.err(format!("{bound} is not a struct"));
                    };
                    let t = field(self, &b, "Type")?.clone();
                    let v = field(self, &b, "Value")?.clone();
                    self.value(w, &PropType::Byte(None), &t)?;
                    self.value(w, &PropType::Int, &v)?;
                }
            }
            ("MovieSceneTimeWarpVariant", Value::Struct(f)) => self.time_warp(w, f)?,
            ("MovieSceneFloatChannel", Value::Struct(f)) => {
                self.movie_channel(w, name, f, false)?
            }
            ("MovieSceneDoubleChannel", Value::Struct(f)) => {
                self.movie_channel(w, name, f, true)?
            }
            ("PerPlatformFloat", Value::Struct(f)) => self.per_platform(w, f, PropType::Float)?,
            ("PerPlatformInt", Value::Struct(f)) => self.per_platform(w, f, PropType::Int)?,
            ("PerPlatformBool", Value::Struct(f)) => self.per_platform(w, f, PropType::Bool)?,
            (n, _) if self.rd.native_known(n) => {
                return self.err(format!(
                    "struct {n} is serialized natively and pakrat cannot write an edited one yet"
                ))
            }
            ("", _) => return self.err("a struct whose type is not named"),
            (_, Value::Struct(fields)) => self.properties(w, name, fields, false)?,
            (_, v) => return self.err(format!("struct {name} cannot hold {}", kind(v))),
        }
        Ok(())
    }

    fn table_struct(
        &mut self,
        w: &mut Writer,
        name: &str,
        layout: &[(&str, F)],
        v: &Value,
    ) -> Result<()> {
        let Value::Struct(fields) = v else {
            return self.err(format!("struct {name} cannot hold {}", kind(v)));
        };
        for (fname, f) in layout {
            let x = field(self, fields, fname)?;
            let ty = match f {
                F::Real if self.rd.lwc() => PropType::Double,
                F::Real | F::F32 => PropType::Float,
                F::F64 => PropType::Double,
                F::I32 => PropType::Int,
                F::U32 => PropType::UInt32,
                F::I64 => PropType::Int64,
                F::U8 => PropType::Byte(None),
                F::S(s) => PropType::Struct((*s).to_string()),
            };
            self.at(format_args!("/{fname}[0]"), |e| e.value(w, &ty, x))?;
        }
        Ok(())
    }

    /// `FInstancedStruct`: the struct's type, the size of its value, then
    /// the value (read at the same path as the decoder reads it).
    fn instanced_struct(&mut self, w: &mut Writer, f: &[Property]) -> Result<()> {
        let ty = match field(self, f, "ScriptStruct")? {
            Value::Object(o) => o.clone(),
            v => return self.err(format!("ScriptStruct cannot hold {}", kind(v))),
        };
        self.object(w, ty.as_deref())?;
        let mut body = Writer::new();
        if let Some(path) = &ty {
            let inner = field(self, f, "StructInstance")?.clone();
            // One level deeper, at the same path.
            self.at(format_args!(""), |e| {
                e.struct_value(&mut body, short_name(path), &inner)
            })?;
        }
        w.i32(self.count(body.len())?).bytes(body.as_slice());
        Ok(())
    }

    /// `FMovieSceneTimeWarpVariant`: a fixed play rate as a literal (flag
    /// 1, then the rate), anything else as flag 0, type byte, payload.
    fn time_warp(&mut self, w: &mut Writer, f: &[Property]) -> Result<()> {
        let Value::Enum(kind) = field(self, f, "Type")?.clone() else {
            return self.err("Type is not an enum value");
        };
        let entry = kind.rsplit("::").next().unwrap_or("");
        let Some(t) = TIME_WARP.iter().position(|(n, _)| *n == entry) else {
            return self.err(format!("{kind} is not a time warp type"));
        };
        if t == 0 {
            w.u32(1);
            let rate = field(self, f, "PlayRate")?.clone();
            return self.value(w, &PropType::Double, &rate);
        }
        w.u32(0).u8(t as u8);
        if t == 1 {
            let o = field(self, f, "Custom")?.clone();
            return self.value(w, &PropType::Object, &o);
        }
        let payload = field(self, f, "Payload")?.clone();
        self.at(format_args!(""), |e| {
            e.struct_value(w, TIME_WARP[t].1, &payload)
        })
    }

    /// `FPerPlatformFloat` …: cooked flag, default, then (not cooked) the
    /// per-platform overrides.
    fn per_platform(&mut self, w: &mut Writer, f: &[Property], ty: PropType) -> Result<()> {
        let cooked = matches!(field(self, f, "bCooked")?, Value::Bool(true));
        w.u32(u32::from(cooked));
        let default = field(self, f, "Default")?.clone();
        self.platform_value(w, &ty, &default)?;
        if !cooked {
            let Value::Map(m) = field(self, f, "PerPlatform")?.clone() else {
                return self.err("PerPlatform is not a map");
            };
            w.i32(self.count(m.len())?);
            for (k, x) in &m {
                self.value(w, &PropType::Name, k)?;
                self.platform_value(w, &ty, x)?;
            }
        }
        Ok(())
    }

    fn platform_value(&mut self, w: &mut Writer, ty: &PropType, v: &Value) -> Result<()> {
        match (ty, v) {
            (PropType::Bool, Value::Bool(b)) => {
                w.u32(u32::from(*b));
                Ok(())
            }
            _ => self.value(w, ty, v),
        }
    }
}
