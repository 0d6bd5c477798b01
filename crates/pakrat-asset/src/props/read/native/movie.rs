//! MovieScene structs the engine serializes natively: key channels, time
//! warps, evaluation trees and sequence ids. Layouts and version gates:
//! UE `MovieScene` (`FMovieSceneFloatChannel::Serialize`,
//! `TMovieSceneEvaluationTree`, `FMovieSceneTimeWarpVariant::Serialize`),
//! cross-checked on the UE 5.8/6.0 fixtures (each tagged value's size).

use super::field;
use crate::props::read::values::{FORTNITE_MAIN, RELEASE};
use crate::props::read::Ctx;
use crate::props::{PropType, Property, Value};
use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Error, Guid, Reader, Result};

/// `FSequencerObjectVersion`.
pub(crate) const SEQUENCER: Guid = Guid {
    words: [0x7B5A_E74C, 0xD270_4C10, 0xA958_5798, 0x0B21_2A5A],
};
/// `FSequencerObjectVersion::SerializeFloatChannelCompletely`.
pub(crate) const SEQUENCER_FLOAT_CHANNEL_COMPLETELY: i32 = 12;
/// `FFortniteMainBranchObjectVersion::SerializeFloatChannelShowCurve`.
pub(crate) const FORTNITE_FLOAT_CHANNEL_SHOW_CURVE: i32 = 53;
/// `FReleaseObjectVersion::AddedSubSequenceEntryWarpCounter`.
const RELEASE_SUB_SEQUENCE_WARP_COUNTER: i32 = 42;
/// `FFortniteMainBranchObjectVersion::AddedSubSequenceEntryWarpCounter`.
const FORTNITE_SUB_SEQUENCE_WARP_COUNTER: i32 = 55;
/// `ASSETREGISTRY_PACKAGEBUILDDEPENDENCIES`, the first UE 5.5 package
/// version: sub-sequence tree entries no longer carry a warp counter.
const UE5_5: i32 = 1013;

/// `ERichCurveExtrapolation`.
pub(crate) const EXTRAPOLATION: [&str; 6] = [
    "RCCE_Cycle",
    "RCCE_CycleWithOffset",
    "RCCE_Oscillate",
    "RCCE_Linear",
    "RCCE_Constant",
    "RCCE_None",
];
/// `ERichCurveInterpMode`.
pub(crate) const INTERP: [&str; 4] = ["RCIM_Linear", "RCIM_Constant", "RCIM_Cubic", "RCIM_None"];
/// `ERichCurveTangentMode`.
pub(crate) const TANGENT: [&str; 5] = [
    "RCTM_Auto",
    "RCTM_User",
    "RCTM_Break",
    "RCTM_None",
    "RCTM_SmartAuto",
];
/// `ERichCurveTangentWeightMode`.
pub(crate) const TANGENT_WEIGHT: [&str; 4] = [
    "RCTWM_WeightedNone",
    "RCTWM_WeightedArrive",
    "RCTWM_WeightedLeave",
    "RCTWM_WeightedBoth",
];
/// `EMovieSceneTimeWarpType` and the struct each payload is.
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

/// A byte-sized engine enum as `Enum::Entry` (a number out of range stays
/// visible as `Enum::(n)`).
fn enum_byte(r: &mut Reader<'_>, name: &str, entries: &[&str]) -> Result<(PropType, Value)> {
    let v = r.u8(name)?;
    let entry = match entries.get(usize::from(v)) {
        Some(e) => format!("{name}::{e}"),
        None => format!("{name}::({v})"),
    };
    Ok((PropType::Byte(Some(name.into())), Value::Enum(entry)))
}

fn int(name: &str, v: i32) -> Property {
    field(name, PropType::Int, Value::Int(i64::from(v)))
}

fn bool32(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    let at = r.offset();
    match r.u32(name)? {
        v @ (0 | 1) => Ok(field(name, PropType::Bool, Value::Bool(v == 1))),
        v => Err(Error::invalid(
            at,
            format!("{name} is {v}, expected 0 or 1"),
        )),
    }
}

/// An `i32` element size written before a bulk array, checked against the
/// layout pakrat reads.
fn element_size(r: &mut Reader<'_>, what: &str, want: i32) -> Result<()> {
    let at = r.offset();
    let got = r.i32(what)?;
    if got != want {
        return Err(Error::unsupported(
            at,
            format!("{what} is {got} bytes, pakrat reads {want}-byte elements"),
        ));
    }
    Ok(())
}

impl Ctx<'_, '_> {
    /// `FMovieSceneFloatChannel` / `FMovieSceneDoubleChannel`: extrapolation,
    /// key times and key values (bulk arrays behind their element size),
    /// default value, tick resolution and (newer) the show-curve flag.
    /// Before full manual serialization the channel is its properties.
    pub(super) fn movie_channel(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
        double: bool,
    ) -> Result<Value> {
        let show_curve = self.custom_at_least(FORTNITE_MAIN, FORTNITE_FLOAT_CHANNEL_SHOW_CURVE);
        if !show_curve && !self.custom_at_least(SEQUENCER, SEQUENCER_FLOAT_CHANNEL_COMPLETELY) {
            return Ok(Value::Struct(self.properties(r, name, false)?));
        }
        let mut out = Vec::with_capacity(8);
        for n in ["PreInfinityExtrap", "PostInfinityExtrap"] {
            let (ty, v) = enum_byte(r, "ERichCurveExtrapolation", &EXTRAPOLATION)?;
            out.push(field(n, ty, v));
        }
        element_size(r, "channel key time size", 4)?;
        let n = r.i32_count("channel key times", 4)?;
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            times.push(Value::Int(i64::from(r.i32("key time")?)));
        }
        out.push(field(
            "Times",
            PropType::Array(Box::new(PropType::Int)),
            Value::Array(times),
        ));
        let (value_ty, size) = if double {
            (PropType::Double, 32)
        } else {
            (PropType::Float, 28)
        };
        element_size(r, "channel key value size", size)?;
        let n = r.i32_count("channel key values", size as usize)?;
        let mut values = Vec::with_capacity(n);
        for _ in 0..n {
            values.push(self.channel_value(r, double)?);
        }
        let value_struct = if double {
            "MovieSceneDoubleValue"
        } else {
            "MovieSceneFloatValue"
        };
        out.push(field(
            "Values",
            PropType::Array(Box::new(PropType::Struct(value_struct.into()))),
            Value::Array(values),
        ));
        let default = channel_number(r, double, "channel default value")?;
        out.push(field("DefaultValue", value_ty, default));
        out.push(bool32(r, "bHasDefaultValue")?);
        let num = r.i32("tick resolution numerator")?;
        let den = r.i32("tick resolution denominator")?;
        out.push(field(
            "TickResolution",
            PropType::Struct("FrameRate".into()),
            Value::Struct(vec![int("Numerator", num), int("Denominator", den)]),
        ));
        if show_curve {
            out.push(bool32(r, "bShowCurve")?);
        }
        Ok(Value::Struct(out))
    }

    /// One key value in its in-memory layout: the value, tangents
    /// (arrive, leave, their weights, weight mode, 3 padding bytes), interp
    /// and tangent modes, 2 padding bytes.
    fn channel_value(&mut self, r: &mut Reader<'_>, double: bool) -> Result<Value> {
        let value = channel_number(r, double, "key value")?;
        let mut tangent = Vec::with_capacity(5);
        for n in [
            "ArriveTangent",
            "LeaveTangent",
            "ArriveTangentWeight",
            "LeaveTangentWeight",
        ] {
            tangent.push(field(n, PropType::Float, Value::Float(r.f32(n)?)));
        }
        let (ty, v) = enum_byte(r, "ERichCurveTangentWeightMode", &TANGENT_WEIGHT)?;
        tangent.push(field("TangentWeightMode", ty, v));
        r.skip(3, "tangent padding")?;
        let (interp_ty, interp) = enum_byte(r, "ERichCurveInterpMode", &INTERP)?;
        let (tangent_ty, tangent_mode) = enum_byte(r, "ERichCurveTangentMode", &TANGENT)?;
        r.skip(2, "key value padding")?;
        let value_ty = if double {
            PropType::Double
        } else {
            PropType::Float
        };
        Ok(Value::Struct(vec![
            field("Value", value_ty, value),
            field(
                "Tangent",
                PropType::Struct("MovieSceneTangentData".into()),
                Value::Struct(tangent),
            ),
            field("InterpMode", interp_ty, interp),
            field("TangentMode", tangent_ty, tangent_mode),
        ]))
    }

    /// `FMovieSceneTimeWarpVariant`: a literal flag (4 bytes) and a play
    /// rate, or the warp type and its payload (an object, or a struct).
    pub(super) fn time_warp(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let literal = bool32(r, "time warp literal flag")?;
        let is_literal = matches!(literal.value, Value::Bool(true));
        let ty = PropType::Byte(Some("EMovieSceneTimeWarpType".into()));
        let kind = |i: usize| Value::Enum(format!("EMovieSceneTimeWarpType::{}", TIME_WARP[i].0));
        if is_literal {
            let rate = f64::from_bits(r.u64("time warp play rate")?);
            return Ok(Value::Struct(vec![
                field("Type", ty, kind(0)),
                field("PlayRate", PropType::Double, Value::Double(rate)),
            ]));
        }
        let at = r.offset();
        let t = usize::from(r.u8("time warp type")?);
        let payload = match t {
            0 => field(
                "PlayRate",
                PropType::Double,
                Value::Double(f64::from_bits(r.u64("time warp play rate")?)),
            ),
            1 => field(
                "Custom",
                PropType::Object,
                Value::Object(self.object(r, "time warp getter")?),
            ),
            2..=7 => {
                let s = TIME_WARP[t].1;
                let v = self.nested(r.offset(), |c| c.struct_value(r, s))?;
                field("Payload", PropType::Struct(s.into()), v)
            }
            _ => {
                return Err(Error::invalid(
                    at,
                    format!("time warp type {t} is not one of 0..=7"),
                ))
            }
        };
        Ok(Value::Struct(vec![field("Type", ty, kind(t)), payload]))
    }

    /// `FMovieSceneSequenceInstanceDataPtr`: the data's struct path (empty
    /// for none), then that struct.
    pub(super) fn instance_data_ptr(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let path = read_fstring(r, "instance data type")?;
        if path.is_empty() {
            return Ok(Value::Struct(Vec::new()));
        }
        let name = path.rsplit('.').next().unwrap_or_default().to_string();
        let v = self.nested(r.offset(), |c| c.struct_value(r, &name))?;
        Ok(Value::Struct(vec![
            field("Type", PropType::Str, Value::Str(path)),
            field("Data", PropType::Struct(name), v),
        ]))
    }

    /// `FMovieSceneEvaluationFieldEntityTree`: an evaluation tree whose
    /// data are (entity index, metadata index) pairs.
    pub(super) fn entity_tree(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let tree = self.evaluation_tree(r, "MovieSceneEntityAndMetaDataIndex", 8, |_, r| {
            let e = r.i32("entity index")?;
            let m = r.i32("metadata index")?;
            Ok(Value::Struct(vec![
                int("EntityIndex", e),
                int("MetaDataIndex", m),
            ]))
        })?;
        Ok(Value::Struct(vec![field(
            "SerializedData",
            PropType::Struct("MovieSceneEvaluationTree".into()),
            tree,
        )]))
    }

    /// `FMovieSceneSubSequenceTree`: an evaluation tree of (sequence id,
    /// flags) entries; UE 5.3/5.4 entries add a warp counter.
    pub(super) fn sub_sequence_tree(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let counter = self.ue5() < UE5_5
            && self.asset.versions.custom_from_package
            && (self.custom_at_least(RELEASE, RELEASE_SUB_SEQUENCE_WARP_COUNTER)
                || self.custom_at_least(FORTNITE_MAIN, FORTNITE_SUB_SEQUENCE_WARP_COUNTER));
        let tree = self.evaluation_tree(r, "MovieSceneSubSequenceTreeEntry", 5, |c, r| {
            let id = r.u32("sub-sequence id")?;
            let flags = r.u8("section evaluation flags")?;
            let mut out = vec![
                field(
                    "SequenceID",
                    PropType::Struct("MovieSceneSequenceID".into()),
                    Value::Struct(vec![field(
                        "Value",
                        PropType::UInt32,
                        Value::UInt(u64::from(id)),
                    )]),
                ),
                field("Flags", PropType::Byte(None), Value::UInt(u64::from(flags))),
            ];
            if counter {
                let v = c.nested(r.offset(), |c| c.struct_value(r, "MovieSceneWarpCounter"))?;
                out.push(field(
                    "RootToSequenceWarpCounter",
                    PropType::Struct("MovieSceneWarpCounter".into()),
                    v,
                ));
            }
            Ok(Value::Struct(out))
        })?;
        Ok(Value::Struct(vec![field(
            "Data",
            PropType::Struct("MovieSceneEvaluationTree".into()),
            tree,
        )]))
    }

    /// `TMovieSceneEvaluationTree<T>`: the root node, the child nodes and
    /// the data, each container as (entries, items).
    fn evaluation_tree(
        &mut self,
        r: &mut Reader<'_>,
        item: &str,
        item_min: usize,
        mut read_item: impl FnMut(&mut Self, &mut Reader<'_>) -> Result<Value>,
    ) -> Result<Value> {
        let node_ty = || PropType::Struct("MovieSceneEvaluationTreeNode".into());
        let root = tree_node(r)?;
        let children = entry_container(r, "MovieSceneEvaluationTreeNode", 26, tree_node)?;
        let data = self.nested(r.offset(), |c| {
            entry_container(r, item, item_min, |r| read_item(c, r))
        })?;
        let container = |t: &str| PropType::Struct(format!("EvaluationTreeEntryContainer<{t}>"));
        Ok(Value::Struct(vec![
            field("RootNode", node_ty(), root),
            field(
                "ChildNodes",
                container("MovieSceneEvaluationTreeNode"),
                children,
            ),
            field("Data", container(item), data),
        ]))
    }
}

/// A key value or default: `f32`, or `f64` in a double channel.
fn channel_number(r: &mut Reader<'_>, double: bool, what: &str) -> Result<Value> {
    Ok(if double {
        Value::Double(f64::from_bits(r.u64(what)?))
    } else {
        Value::Float(r.f32(what)?)
    })
}

/// `FMovieSceneEvaluationTreeNode`: the range (two bounds of type byte and
/// frame), the parent handle (children entry, index), children and data
/// entry handles. 26 bytes.
fn tree_node(r: &mut Reader<'_>) -> Result<Value> {
    let bound = |r: &mut Reader<'_>, name: &str| -> Result<Property> {
        let t = r.u8("range bound type")?;
        let v = r.i32("range bound value")?;
        Ok(field(
            name,
            PropType::Struct("FrameNumberRangeBound".into()),
            Value::Struct(vec![
                field("Type", PropType::Byte(None), Value::UInt(u64::from(t))),
                int("Value", v),
            ]),
        ))
    };
    let range = vec![bound(r, "LowerBound")?, bound(r, "UpperBound")?];
    let parent_children = r.i32("parent children handle")?;
    let parent_index = r.i32("parent index")?;
    let children = r.i32("children entry")?;
    let data = r.i32("data entry")?;
    Ok(Value::Struct(vec![
        field(
            "Range",
            PropType::Struct("FrameNumberRange".into()),
            Value::Struct(range),
        ),
        field(
            "Parent",
            PropType::Struct("MovieSceneEvaluationTreeNodeHandle".into()),
            Value::Struct(vec![
                int("ChildrenHandle", parent_children),
                int("Index", parent_index),
            ]),
        ),
        int("ChildrenID", children),
        int("DataID", data),
    ]))
}

/// `TEvaluationTreeEntryContainer<T>`: entries (start, size, capacity)
/// then the items.
fn entry_container(
    r: &mut Reader<'_>,
    item: &str,
    item_min: usize,
    mut read_item: impl FnMut(&mut Reader<'_>) -> Result<Value>,
) -> Result<Value> {
    let n = r.i32_count("tree entries", 12)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let start = r.i32("entry start")?;
        let size = r.i32("entry size")?;
        let capacity = r.i32("entry capacity")?;
        entries.push(Value::Struct(vec![
            int("StartIndex", start),
            int("Size", size),
            int("Capacity", capacity),
        ]));
    }
    let n = r.i32_count("tree items", item_min)?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        items.push(read_item(r)?);
    }
    Ok(Value::Struct(vec![
        field(
            "Entries",
            PropType::Array(Box::new(PropType::Struct(
                "EvaluationTreeEntryContainerEntry".into(),
            ))),
            Value::Array(entries),
        ),
        field(
            "Items",
            PropType::Array(Box::new(PropType::Struct(item.into()))),
            Value::Array(items),
        ),
    ]))
}
