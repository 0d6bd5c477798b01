//! MovieScene float and double channels (the mirror of the decoder's
//! `movie_channel`): extrapolation bytes, key times, key values in their
//! in-memory layout (padding written as zeros), default, tick resolution.

use super::native::field;
use super::{Enc, Result};
use crate::props::read::{
    EXTRAPOLATION, FORTNITE_FLOAT_CHANNEL_SHOW_CURVE, FORTNITE_MAIN, INTERP, SEQUENCER,
    SEQUENCER_FLOAT_CHANNEL_COMPLETELY, TANGENT, TANGENT_WEIGHT,
};
use crate::props::{PropType, Property, Value};
use pakrat_io::Writer;

impl Enc<'_, '_> {
    /// `FMovieSceneFloatChannel` / `FMovieSceneDoubleChannel`.
    pub(super) fn movie_channel(
        &mut self,
        w: &mut Writer,
        name: &str,
        f: &[Property],
        double: bool,
    ) -> Result<()> {
        let show_curve = self
            .rd
            .custom_ge(FORTNITE_MAIN, FORTNITE_FLOAT_CHANNEL_SHOW_CURVE);
        if !show_curve
            && !self
                .rd
                .custom_ge(SEQUENCER, SEQUENCER_FLOAT_CHANNEL_COMPLETELY)
        {
            return self.properties(w, name, f, false);
        }
        for n in ["PreInfinityExtrap", "PostInfinityExtrap"] {
            let v = field(self, f, n)?.clone();
            self.enum_byte(w, &v, "ERichCurveExtrapolation", &EXTRAPOLATION)?;
        }
        let Value::Array(times) = field(self, f, "Times")?.clone() else {
            return self.err("Times is not an array");
        };
        w.i32(4).i32(self.count(times.len())?);
        for t in &times {
            self.value(w, &PropType::Int, t)?;
        }
        let Value::Array(values) = field(self, f, "Values")?.clone() else {
            return self.err("Values is not an array");
        };
        let number = if double {
            PropType::Double
        } else {
            PropType::Float
        };
        w.i32(if double { 32 } else { 28 })
            .i32(self.count(values.len())?);
        for (i, v) in values.iter().enumerate() {
            self.at(format_args!("#{i}"), |e| e.channel_value(w, v, &number))?;
        }
        let default = field(self, f, "DefaultValue")?.clone();
        self.value(w, &number, &default)?;
        let has = field(self, f, "bHasDefaultValue")?.clone();
        self.bool32(w, &has)?;
        let Value::Struct(rate) = field(self, f, "TickResolution")?.clone() else {
            return self.err("TickResolution is not a struct");
        };
        for n in ["Numerator", "Denominator"] {
            let v = field(self, &rate, n)?.clone();
            self.value(w, &PropType::Int, &v)?;
        }
        if show_curve {
            let v = field(self, f, "bShowCurve")?.clone();
            self.bool32(w, &v)?;
        }
        Ok(())
    }

    /// One key value: value, four tangent floats, weight mode, 3 padding
    /// bytes, interp and tangent modes, 2 padding bytes.
    fn channel_value(&mut self, w: &mut Writer, v: &Value, number: &PropType) -> Result<()> {
        let Value::Struct(f) = v else {
            return self.err("a channel key value is not a struct");
        };
        let value = field(self, f, "Value")?.clone();
        self.value(w, number, &value)?;
        let Value::Struct(t) = field(self, f, "Tangent")?.clone() else {
            return self.err("Tangent is not a struct");
        };
        for n in [
            "ArriveTangent",
            "LeaveTangent",
            "ArriveTangentWeight",
            "LeaveTangentWeight",
        ] {
            let x = field(self, &t, n)?.clone();
            self.value(w, &PropType::Float, &x)?;
        }
        let mode = field(self, &t, "TangentWeightMode")?.clone();
        self.enum_byte(w, &mode, "ERichCurveTangentWeightMode", &TANGENT_WEIGHT)?;
        w.zeros(3);
        let interp = field(self, f, "InterpMode")?.clone();
        self.enum_byte(w, &interp, "ERichCurveInterpMode", &INTERP)?;
        let tangent = field(self, f, "TangentMode")?.clone();
        self.enum_byte(w, &tangent, "ERichCurveTangentMode", &TANGENT)?;
        w.zeros(2);
        Ok(())
    }

    /// An enum stored as its index in `entries` (`Name::Entry`, or
    /// `Name::(N)` for a number no entry has).
    fn enum_byte(&mut self, w: &mut Writer, v: &Value, name: &str, entries: &[&str]) -> Result<()> {
        let Value::Enum(s) = v else {
            return self.err(format!("{name} value is not an enum value"));
        };
        let entry = s.strip_prefix(name).and_then(|x| x.strip_prefix("::"));
        let index = entry.and_then(|e| {
            entries.iter().position(|x| *x == e).or_else(|| {
                e.strip_prefix('(')
                    .and_then(|x| x.strip_suffix(')'))
                    .and_then(|n| n.parse::<usize>().ok())
            })
        });
        match index.and_then(|i| u8::try_from(i).ok()) {
            Some(i) => {
                w.u8(i);
                Ok(())
            }
            None => self.err(format!("{s} is not a value of {name}")),
        }
    }

    /// A bool stored in 4 bytes.
    fn bool32(&mut self, w: &mut Writer, v: &Value) -> Result<()> {
        match v {
            Value::Bool(b) => {
                w.u32(u32::from(*b));
                Ok(())
            }
            v => self.err(format!("expected a bool, found {}", super::kind(v))),
        }
    }
}
