//! Small coded native structs: frame ranges, Niagara variables, font data
//! and MIDI events (sources as in the parent module; `FMidiMsg` from the
//! Harmonix plugin: its type is one bit per kind of message).

use super::field;
use crate::props::read::Ctx;
use crate::props::{PropType, Property, Value};
use pakrat_io::{Reader, Result};

impl Ctx<'_, '_> {
    /// `TRange<FFrameNumber>`: two bounds of (`ERangeBoundTypes` byte,
    /// frame number).
    pub(super) fn frame_range(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let bound = |r: &mut Reader<'_>, name: &str| -> Result<Property> {
            let t = r.u8("range bound type")?;
            let v = r.i32("range bound value")?;
            Ok(field(
                name,
                PropType::Struct("FrameNumberRangeBound".into()),
                Value::Struct(vec![
                    field("Type", PropType::Byte(None), Value::UInt(u64::from(t))),
                    field("Value", PropType::Int, Value::Int(i64::from(v))),
                ]),
            ))
        };
        let lower = bound(r, "LowerBound")?;
        let upper = bound(r, "UpperBound")?;
        Ok(Value::Struct(vec![lower, upper]))
    }

    /// `FNiagaraVariableBase`: name and type definition (a property
    /// struct); `FNiagaraVariable` adds its bytes, `…WithOffset` an offset.
    pub(super) fn niagara_variable(&mut self, r: &mut Reader<'_>, kind: &str) -> Result<Value> {
        let name = self.fname(r, "Niagara variable name")?;
        let type_def = self.nested(r.offset(), |c| {
            c.properties(r, "NiagaraTypeDefinition", false)
        })?;
        let mut out = vec![
            field("Name", PropType::Name, Value::Name(name)),
            field(
                "TypeDef",
                PropType::Struct("NiagaraTypeDefinition".into()),
                Value::Struct(type_def),
            ),
        ];
        match kind {
            "NiagaraVariable" => {
                let data = self.array(r, &PropType::Byte(None))?;
                out.push(field(
                    "VarData",
                    PropType::Array(Box::new(PropType::Byte(None))),
                    Value::Array(data),
                ));
            }
            "NiagaraVariableWithOffset" => {
                let o = r.i32("Niagara variable offset")?;
                out.push(field("Offset", PropType::Int, Value::Int(i64::from(o))));
            }
            _ => {}
        }
        Ok(Value::Struct(out))
    }

    /// `FFontData` (cooked): the font face asset, or file name, hinting and
    /// loading policy; then the sub-face index.
    pub(super) fn font_data(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let cooked = r.u32("font data cooked flag")? != 0;
        let mut out = vec![field("bIsCooked", PropType::Bool, Value::Bool(cooked))];
        if cooked {
            let face = self.object(r, "font face asset")?;
            let null = face.is_none();
            out.push(field(
                "FontFaceAsset",
                PropType::Object,
                Value::Object(face),
            ));
            if null {
                let file = pakrat_codec::fstring::read_fstring(r, "font file name")?;
                out.push(field("FontFilename", PropType::Str, Value::Str(file)));
                let h = r.u8("font hinting")?;
                out.push(field(
                    "Hinting",
                    PropType::Byte(None),
                    Value::UInt(u64::from(h)),
                ));
                let l = r.u8("font loading policy")?;
                out.push(field(
                    "LoadingPolicy",
                    PropType::Byte(None),
                    Value::UInt(u64::from(l)),
                ));
            }
            let sub = r.i32("font sub-face index")?;
            out.push(field(
                "SubFaceIndex",
                PropType::Int,
                Value::Int(i64::from(sub)),
            ));
        }
        Ok(Value::Struct(out))
    }

    /// `FMidiEvent`: tick and a message whose type (`FMidiMsg::EType`, one
    /// bit each: standard, tempo, time signature, text, runtime) says what
    /// follows.
    pub(super) fn midi_event(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        const TYPES: [(u8, &str); 5] = [
            (1, "Std"),
            (2, "Tempo"),
            (4, "TimeSig"),
            (8, "Text"),
            (16, "Runtime"),
        ];
        let tick = r.i32("MIDI tick")?;
        let at = r.offset();
        let t = r.u8("MIDI message type")?;
        let Some((_, type_name)) = TYPES.iter().find(|(v, _)| *v == t) else {
            return Err(pakrat_io::Error::invalid(
                at,
                format!("MIDI message type {t} is not one of 1, 2, 4, 8, 16"),
            ));
        };
        let mut msg = vec![field(
            "Type",
            PropType::Byte(Some("EMidiMsgType".into())),
            Value::Enum(format!("EMidiMsgType::{type_name}")),
        )];
        let byte = |r: &mut Reader<'_>, n: &str| -> Result<Property> {
            Ok(field(
                n,
                PropType::Byte(None),
                Value::UInt(u64::from(r.u8(n)?)),
            ))
        };
        let short = |r: &mut Reader<'_>, n: &str| -> Result<Property> {
            Ok(field(
                n,
                PropType::UInt16,
                Value::UInt(u64::from(r.u16(n)?)),
            ))
        };
        match t {
            1 => {
                msg.push(byte(r, "Status")?);
                msg.push(byte(r, "Data1")?);
                msg.push(byte(r, "Data2")?);
            }
            2 => {
                msg.push(byte(r, "MicsPerQuarterNoteH")?);
                msg.push(short(r, "MicsPerQuarterNoteL")?);
            }
            4 => {
                msg.push(byte(r, "Numerator")?);
                msg.push(byte(r, "Denominator")?);
            }
            8 => {
                msg.push(byte(r, "TextType")?);
                msg.push(short(r, "TextIndex")?);
            }
            _ => {}
        }
        Ok(Value::Struct(vec![
            field("Tick", PropType::Int, Value::Int(i64::from(tick))),
            field(
                "Message",
                PropType::Struct("MidiMsg".into()),
                Value::Struct(msg),
            ),
        ]))
    }

    /// `FSkeletalMeshSamplingLODBuiltData` (an area-weighted triangle
    /// sampler: probabilities, aliases, total weight) and
    /// `FSkeletalMeshSamplingRegionBuiltData` (triangle and bone indices,
    /// the sampler, then the vertices).
    pub(super) fn mesh_sampling(&mut self, r: &mut Reader<'_>, region: bool) -> Result<Value> {
        let ints = || PropType::Array(Box::new(PropType::Int));
        let mut out = Vec::new();
        if region {
            let t = self.array(r, &PropType::Int)?;
            out.push(field("TriangleIndices", ints(), Value::Array(t)));
            let b = self.array(r, &PropType::Int)?;
            out.push(field("BoneIndices", ints(), Value::Array(b)));
        }
        let prob = self.array(r, &PropType::Float)?;
        let alias = self.array(r, &PropType::Int)?;
        let total = r.f32("sampler total weight")?;
        let sampler = Value::Struct(vec![
            field(
                "Prob",
                PropType::Array(Box::new(PropType::Float)),
                Value::Array(prob),
            ),
            field("Alias", ints(), Value::Array(alias)),
            field("TotalWeight", PropType::Float, Value::Float(total)),
        ]);
        let name = if region {
            "AreaWeightedSampler"
        } else {
            "AreaWeightedTriangleSampler"
        };
        out.push(field(
            name,
            PropType::Struct("SkeletalMeshAreaWeightedTriangleSampler".into()),
            sampler,
        ));
        if region {
            let v = self.array(r, &PropType::Int)?;
            out.push(field("Vertices", ints(), Value::Array(v)));
        }
        Ok(Value::Struct(out))
    }
}
