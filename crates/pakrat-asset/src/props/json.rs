//! The JSON form of decoded properties (`pakrat props --json`, the
//! viewer), as `docs/properties.md` writes it down:
//!
//! `{"package": "/Game/…", "exports": [{"name", "path", "class", "outer",
//! "properties": [{"name", "index"?, "type", "value"}…], "native":
//! {"fields": […], "unread": N} | null, "error"?}…]}`.
//!
//! Each wrapper implements [`Serialize`], keeping the order of the fields
//! (serde_json's own map would sort them). Rules: integers are numbers,
//! 64-bit ones beyond ±2^53 decimal strings; floats print the shortest text
//! that reads back to the same bits (an `f32` as an `f32`); NaN and the
//! infinities are the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;

use super::{
    Asset, DateKind, ExportInfo, ExportProps, FormatArg, NumberKind, Property, Text, TextHistory,
    Value,
};

/// The whole document: the package and the exports printed.
pub struct PackageJson<'a> {
    /// Package name.
    pub package: &'a str,
    /// The exports, in order.
    pub exports: Vec<ExportJson<'a>>,
}

impl<'a> PackageJson<'a> {
    /// The document for `asset`'s exports `decoded` ((index, result) pairs).
    pub fn new(asset: &'a Asset<'a>, decoded: &'a [(usize, ExportProps)]) -> Self {
        PackageJson {
            package: &asset.package,
            exports: decoded
                .iter()
                .filter_map(|(i, p)| {
                    Some(ExportJson {
                        info: asset.exports.get(*i)?,
                        props: p,
                    })
                })
                .collect(),
        }
    }
}

impl Serialize for PackageJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("package", self.package)?;
        m.serialize_entry("exports", &self.exports)?;
        m.end()
    }
}

/// One export: what it is and what it holds.
pub struct ExportJson<'a> {
    /// Where it is.
    pub info: &'a ExportInfo<'a>,
    /// What decoding found.
    pub props: &'a ExportProps,
}

impl Serialize for ExportJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (i, p) = (self.info, self.props);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &i.name)?;
        m.serialize_entry("path", &i.path)?;
        m.serialize_entry("class", &i.class)?;
        m.serialize_entry("outer", &i.outer)?;
        m.serialize_entry("properties", &Props(&p.properties))?;
        if p.native.is_empty() && p.native_unread == 0 {
            m.serialize_entry("native", &())?;
        } else {
            m.serialize_entry("native", &Native(p))?;
        }
        if let Some(e) = &p.error {
            m.serialize_entry("error", e)?;
        }
        m.end()
    }
}

struct Native<'a>(&'a ExportProps);

impl Serialize for Native<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("fields", &Props(&self.0.native))?;
        m.serialize_entry("unread", &self.0.native_unread)?;
        m.end()
    }
}

/// A list of properties: `[{"name", "index"?, "type", "value"}…]`.
pub struct Props<'a>(pub &'a [Property]);

impl Serialize for Props<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut q = s.serialize_seq(Some(self.0.len()))?;
        for p in self.0 {
            q.serialize_element(&PropJson(p))?;
        }
        q.end()
    }
}

/// One property.
pub struct PropJson<'a>(pub &'a Property);

impl Serialize for PropJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &p.name)?;
        if p.index != 0 {
            m.serialize_entry("index", &p.index)?;
        }
        m.serialize_entry("type", &p.ty.to_string())?;
        m.serialize_entry("value", &ValueJson(&p.value))?;
        m.end()
    }
}

/// The largest integer a JSON reader that keeps numbers as doubles holds
/// exactly.
const EXACT: u64 = 1 << 53;

fn int<S: Serializer>(s: S, v: i64) -> Result<S::Ok, S::Error> {
    if v.unsigned_abs() > EXACT {
        s.serialize_str(&v.to_string())
    } else {
        s.serialize_i64(v)
    }
}

fn uint<S: Serializer>(s: S, v: u64) -> Result<S::Ok, S::Error> {
    if v > EXACT {
        s.serialize_str(&v.to_string())
    } else {
        s.serialize_u64(v)
    }
}

fn non_finite<S: Serializer>(s: S, v: f64) -> Result<S::Ok, S::Error> {
    s.serialize_str(if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    })
}

fn float<S: Serializer>(s: S, v: f32) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f32(v)
    } else {
        non_finite(s, f64::from(v))
    }
}

fn double<S: Serializer>(s: S, v: f64) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(v)
    } else {
        non_finite(s, v)
    }
}

/// A value, by the rules of the module.
pub struct ValueJson<'a>(pub &'a Value);

impl Serialize for ValueJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(v) => int(s, *v),
            Value::UInt(v) => uint(s, *v),
            Value::Float(v) => float(s, *v),
            Value::Double(v) => double(s, *v),
            Value::Enum(t) | Value::Name(t) | Value::Str(t) => s.serialize_str(t),
            Value::Text(t) => TextJson(t).serialize(s),
            Value::Object(o) => o.serialize(s),
            Value::SoftObject { path, sub_path } => {
                if path.is_empty() && sub_path.is_empty() {
                    s.serialize_none()
                } else if sub_path.is_empty() {
                    s.serialize_str(path)
                } else {
                    s.serialize_str(&format!("{path}:{sub_path}"))
                }
            }
            Value::Guid(g) => s.serialize_str(&g.to_string()),
            Value::Delegate { object, function } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("object", object)?;
                m.serialize_entry("function", function)?;
                m.end()
            }
            Value::Multicast(v) | Value::Array(v) | Value::Set(v) => {
                let mut q = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    q.serialize_element(&ValueJson(x))?;
                }
                q.end()
            }
            Value::FieldPath { path, owner } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("path", path)?;
                m.serialize_entry("owner", owner)?;
                m.end()
            }
            Value::Struct(fields) => {
                let mut m = s.serialize_map(Some(fields.len()))?;
                for f in fields {
                    if f.index == 0 {
                        m.serialize_entry(&f.name, &ValueJson(&f.value))?;
                    } else {
                        m.serialize_entry(
                            &format!("{}[{}]", f.name, f.index),
                            &ValueJson(&f.value),
                        )?;
                    }
                }
                m.end()
            }
            Value::Map(entries) => {
                let mut q = s.serialize_seq(Some(entries.len()))?;
                for (k, v) in entries {
                    q.serialize_element(&Entry(k, v))?;
                }
                q.end()
            }
            Value::Optional(o) => match o {
                Some(v) => ValueJson(v).serialize(s),
                None => s.serialize_none(),
            },
            Value::Skipped { size, reason } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("skipped", size)?;
                m.serialize_entry("reason", reason)?;
                m.end()
            }
        }
    }
}

struct Entry<'a>(&'a Value, &'a Value);

impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("key", &ValueJson(self.0))?;
        m.serialize_entry("value", &ValueJson(self.1))?;
        m.end()
    }
}

/// The history kind's name, as `ETextHistoryType` spells it.
pub fn history_kind(h: &TextHistory) -> &'static str {
    match h {
        TextHistory::None { .. } => "None",
        TextHistory::Base { .. } => "Base",
        TextHistory::NamedFormat { .. } => "NamedFormat",
        TextHistory::OrderedFormat { .. } => "OrderedFormat",
        TextHistory::ArgumentFormat { .. } => "ArgumentFormat",
        TextHistory::Number { kind, .. } => match kind {
            NumberKind::AsNumber => "AsNumber",
            NumberKind::AsPercent => "AsPercent",
            NumberKind::AsCurrency => "AsCurrency",
        },
        TextHistory::DateTime { kind, .. } => match kind {
            DateKind::AsDate => "AsDate",
            DateKind::AsTime => "AsTime",
            DateKind::AsDateTime => "AsDateTime",
        },
        TextHistory::Transform { .. } => "Transform",
        TextHistory::StringTableEntry { .. } => "StringTableEntry",
        TextHistory::Generator { .. } => "TextGenerator",
    }
}

/// A text: `{"history": kind, "flags"?: n, …the kind's fields}`.
pub struct TextJson<'a>(pub &'a Text);

struct NamedArgs<'a>(&'a [(String, FormatArg)]);

impl Serialize for NamedArgs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, &ArgJson(v))?;
        }
        m.end()
    }
}

impl Serialize for TextJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("history", history_kind(&t.history))?;
        if t.flags != 0 {
            m.serialize_entry("flags", &t.flags)?;
        }
        match &t.history {
            TextHistory::None { invariant } => m.serialize_entry("invariant", invariant)?,
            TextHistory::Base {
                namespace,
                key,
                source,
            } => {
                m.serialize_entry("namespace", namespace)?;
                m.serialize_entry("key", key)?;
                m.serialize_entry("source", source)?;
            }
            TextHistory::NamedFormat { format, args }
            | TextHistory::ArgumentFormat { format, args } => {
                m.serialize_entry("format", &TextJson(format))?;
                m.serialize_entry("args", &NamedArgs(args))?;
            }
            TextHistory::OrderedFormat { format, args } => {
                m.serialize_entry("format", &TextJson(format))?;
                let args: Vec<ArgJson<'_>> = args.iter().map(ArgJson).collect();
                m.serialize_entry("args", &args)?;
            }
            TextHistory::Number {
                kind,
                currency,
                source,
                options,
                culture,
            } => {
                m.serialize_entry("source", &ArgJson(source))?;
                m.serialize_entry("options", options)?;
                m.serialize_entry("culture", culture)?;
                if *kind == NumberKind::AsCurrency {
                    m.serialize_entry("currency", currency)?;
                }
            }
            TextHistory::DateTime {
                kind,
                ticks,
                date_style,
                time_style,
                pattern,
                time_zone,
                culture,
            } => {
                m.serialize_entry("ticks", &Int(*ticks))?;
                if *kind != DateKind::AsTime {
                    m.serialize_entry("date_style", date_style)?;
                }
                if *kind != DateKind::AsDate {
                    m.serialize_entry("time_style", time_style)?;
                }
                if *kind == DateKind::AsDateTime {
                    m.serialize_entry("pattern", pattern)?;
                }
                m.serialize_entry("time_zone", time_zone)?;
                m.serialize_entry("culture", culture)?;
            }
            TextHistory::Transform { source, transform } => {
                m.serialize_entry("source", &TextJson(source))?;
                m.serialize_entry(
                    "transform",
                    match transform {
                        0 => "ToLower",
                        1 => "ToUpper",
                        _ => "Unknown",
                    },
                )?;
            }
            TextHistory::StringTableEntry { table, key } => {
                m.serialize_entry("table", table)?;
                m.serialize_entry("key", key)?;
            }
            TextHistory::Generator { type_id, contents } => {
                m.serialize_entry("type_id", type_id)?;
                let hex: String = contents.iter().map(|b| format!("{b:02x}")).collect();
                m.serialize_entry("contents", &hex)?;
            }
        }
        m.end()
    }
}

struct Int(i64);

impl Serialize for Int {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        int(s, self.0)
    }
}

/// A format argument: `{"type": "Int"|"UInt"|"Float"|"Double"|"Text"|"Gender", "value"}`.
pub struct ArgJson<'a>(pub &'a FormatArg);

impl Serialize for ArgJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        match self.0 {
            FormatArg::Int(v) => {
                m.serialize_entry("type", "Int")?;
                m.serialize_entry("value", &ValueJson(&Value::Int(*v)))?;
            }
            FormatArg::UInt(v) => {
                m.serialize_entry("type", "UInt")?;
                m.serialize_entry("value", &ValueJson(&Value::UInt(*v)))?;
            }
            FormatArg::Float(v) => {
                m.serialize_entry("type", "Float")?;
                m.serialize_entry("value", &ValueJson(&Value::Float(*v)))?;
            }
            FormatArg::Double(v) => {
                m.serialize_entry("type", "Double")?;
                m.serialize_entry("value", &ValueJson(&Value::Double(*v)))?;
            }
            FormatArg::Text(t) => {
                m.serialize_entry("type", "Text")?;
                m.serialize_entry("value", &TextJson(t))?;
            }
            FormatArg::Gender(g) => {
                m.serialize_entry("type", "Gender")?;
                m.serialize_entry("value", g)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::props::{NumberOptions, PropType};

    fn j(v: Value) -> String {
        serde_json::to_string(&ValueJson(&v)).unwrap()
    }

    fn prop(name: &str, index: u32, ty: PropType, value: Value) -> Property {
        Property {
            name: name.into(),
            index,
            ty,
            value,
        }
    }

    #[test]
    fn big_integers_are_strings() {
        assert_eq!(j(Value::Int(1 << 53)), "9007199254740992");
        assert_eq!(j(Value::Int(-(1 << 53))), "-9007199254740992");
        assert_eq!(j(Value::Int((1 << 53) + 1)), "\"9007199254740993\"");
        assert_eq!(j(Value::Int(i64::MIN)), "\"-9223372036854775808\"");
        assert_eq!(j(Value::UInt(u64::MAX)), "\"18446744073709551615\"");
        assert_eq!(j(Value::UInt(38144718)), "38144718");
    }

    #[test]
    fn floats_read_back_to_the_same_bits() {
        for v in [
            0.1f32,
            1.0 / 3.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            -0.0,
            1e-45,
            16777217.0,
        ] {
            let s = j(Value::Float(v));
            let back: f64 = s.parse().unwrap();
            assert_eq!((back as f32).to_bits(), v.to_bits(), "{v} printed {s}");
        }
        assert_eq!(
            j(Value::Float(0.1)),
            "0.1",
            "shortest f32 text, not 0.10000000149011612"
        );
        for v in [0.1f64, 1.0 / 3.0, f64::MAX, 5e-324, 123456789.12345679] {
            let s = j(Value::Double(v));
            assert_eq!(
                s.parse::<f64>().unwrap().to_bits(),
                v.to_bits(),
                "{v} printed {s}"
            );
        }
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(j(Value::Float(f32::NAN)), "\"NaN\"");
        assert_eq!(j(Value::Double(f64::INFINITY)), "\"Infinity\"");
        assert_eq!(j(Value::Float(f32::NEG_INFINITY)), "\"-Infinity\"");
    }

    #[test]
    fn containers_references_and_structs() {
        let m = Value::Map(vec![(Value::Name("A".into()), Value::Int(1))]);
        assert_eq!(j(m), r#"[{"key":"A","value":1}]"#);
        assert_eq!(j(Value::Set(vec![Value::Bool(true)])), "[true]");
        assert_eq!(j(Value::Object(None)), "null");
        assert_eq!(j(Value::Object(Some("/Game/P.A".into()))), r#""/Game/P.A""#);
        let soft = |p: &str, s: &str| Value::SoftObject {
            path: p.into(),
            sub_path: s.into(),
        };
        assert_eq!(j(soft("/Game/P.A", "")), r#""/Game/P.A""#);
        assert_eq!(j(soft("/Game/P.A", "Sub")), r#""/Game/P.A:Sub""#);
        assert_eq!(j(soft("", "")), "null");
        assert_eq!(j(Value::Optional(None)), "null");
        assert_eq!(j(Value::Optional(Some(Box::new(Value::Int(2))))), "2");
        let d = Value::Delegate {
            object: None,
            function: "F".into(),
        };
        assert_eq!(
            j(Value::Multicast(vec![d])),
            r#"[{"object":null,"function":"F"}]"#
        );
        let fp = Value::FieldPath {
            path: vec!["X".into()],
            owner: Some("/Script/M.S".into()),
        };
        assert_eq!(j(fp), r#"{"path":["X"],"owner":"/Script/M.S"}"#);
        // Field order is kept; element i > 0 of a fixed array is Name[i].
        let s = Value::Struct(vec![
            prop("Z", 0, PropType::Float, Value::Float(1.5)),
            prop("A", 0, PropType::Int, Value::Int(1)),
            prop("A", 1, PropType::Int, Value::Int(2)),
        ]);
        assert_eq!(j(s), r#"{"Z":1.5,"A":1,"A[1]":2}"#);
        assert_eq!(
            j(Value::Skipped {
                size: 4,
                reason: "r".into()
            }),
            r#"{"skipped":4,"reason":"r"}"#
        );
        assert_eq!(
            j(Value::Guid(pakrat_io::Guid::default())),
            format!("\"{}\"", "0".repeat(32))
        );
    }

    #[test]
    fn fixed_arrays_carry_their_index_and_types_their_full_name() {
        let p = [
            prop("Fixed", 0, PropType::Int, Value::Int(1)),
            prop("Fixed", 1, PropType::Int, Value::Int(2)),
            prop(
                "M",
                0,
                PropType::Map(Box::new(PropType::Name), Box::new(PropType::Int)),
                Value::Map(vec![]),
            ),
            prop(
                "E",
                0,
                PropType::Byte(Some("EFixtureEnum".into())),
                Value::Enum("EFixtureEnum::Beta".into()),
            ),
        ];
        assert_eq!(
            serde_json::to_string(&Props(&p)).unwrap(),
            r#"[{"name":"Fixed","type":"IntProperty","value":1},{"name":"Fixed","index":1,"type":"IntProperty","value":2},{"name":"M","type":"MapProperty(NameProperty,IntProperty)","value":[]},{"name":"E","type":"ByteProperty(EFixtureEnum)","value":"EFixtureEnum::Beta"}]"#
        );
    }

    fn t(history: TextHistory) -> Text {
        Text { flags: 0, history }
    }

    fn tj(x: Text) -> String {
        serde_json::to_string(&TextJson(&x)).unwrap()
    }

    #[test]
    fn text_kinds() {
        let base = t(TextHistory::Base {
            namespace: "N".into(),
            key: "K".into(),
            source: "S".into(),
        });
        assert_eq!(
            tj(base.clone()),
            r#"{"history":"Base","namespace":"N","key":"K","source":"S"}"#
        );
        let flagged = Text {
            flags: 2,
            history: TextHistory::None { invariant: None },
        };
        assert_eq!(
            tj(flagged),
            r#"{"history":"None","flags":2,"invariant":null}"#
        );
        let named = t(TextHistory::NamedFormat {
            format: Box::new(base.clone()),
            args: vec![("X".into(), FormatArg::Int(3))],
        });
        assert!(tj(named).ends_with(r#""args":{"X":{"type":"Int","value":3}}}"#));
        let ordered = t(TextHistory::OrderedFormat {
            format: Box::new(base.clone()),
            args: vec![FormatArg::Gender(1), FormatArg::Double(0.5)],
        });
        assert!(tj(ordered)
            .ends_with(r#""args":[{"type":"Gender","value":1},{"type":"Double","value":0.5}]}"#));
        let cur = t(TextHistory::Number {
            kind: NumberKind::AsCurrency,
            currency: Some("EUR".into()),
            source: FormatArg::Float(1.25),
            options: Some(NumberOptions {
                always_sign: false,
                use_grouping: true,
                rounding_mode: 0,
                minimum_integral_digits: 1,
                maximum_integral_digits: 9,
                minimum_fractional_digits: 0,
                maximum_fractional_digits: 3,
            }),
            culture: "en".into(),
        });
        let c = tj(cur);
        assert!(c.starts_with(r#"{"history":"AsCurrency","source":{"type":"Float","value":1.25},"options":{"always_sign":false"#), "{c}");
        assert!(c.ends_with(r#""culture":"en","currency":"EUR"}"#), "{c}");
        let pct = t(TextHistory::Number {
            kind: NumberKind::AsPercent,
            currency: None,
            source: FormatArg::UInt(7),
            options: None,
            culture: String::new(),
        });
        assert_eq!(
            tj(pct),
            r#"{"history":"AsPercent","source":{"type":"UInt","value":7},"options":null,"culture":""}"#
        );
        let date = |kind| {
            tj(t(TextHistory::DateTime {
                kind,
                ticks: 1,
                date_style: Some(2),
                time_style: Some(3),
                pattern: None,
                time_zone: "UTC".into(),
                culture: "".into(),
            }))
        };
        assert_eq!(
            date(DateKind::AsDate),
            r#"{"history":"AsDate","ticks":1,"date_style":2,"time_zone":"UTC","culture":""}"#
        );
        assert_eq!(
            date(DateKind::AsTime),
            r#"{"history":"AsTime","ticks":1,"time_style":3,"time_zone":"UTC","culture":""}"#
        );
        assert_eq!(
            date(DateKind::AsDateTime),
            r#"{"history":"AsDateTime","ticks":1,"date_style":2,"time_style":3,"pattern":null,"time_zone":"UTC","culture":""}"#
        );
        let tr = t(TextHistory::Transform {
            source: Box::new(base),
            transform: 1,
        });
        assert!(tj(tr).ends_with(r#""transform":"ToUpper"}"#));
        let st = t(TextHistory::StringTableEntry {
            table: "/Game/ST.ST".into(),
            key: "K".into(),
        });
        assert_eq!(
            tj(st),
            r#"{"history":"StringTableEntry","table":"/Game/ST.ST","key":"K"}"#
        );
        let g = t(TextHistory::Generator {
            type_id: "G".into(),
            contents: vec![0xab, 1],
        });
        assert_eq!(
            tj(g),
            r#"{"history":"TextGenerator","type_id":"G","contents":"ab01"}"#
        );
    }

    #[test]
    fn export_envelope() {
        let info = ExportInfo {
            name: "A".into(),
            path: "/Game/P.A".into(),
            class: "/Script/Engine.DataAsset".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data: &[],
        };
        let props = ExportProps {
            properties: vec![prop("Marker", 0, PropType::Int, Value::Int(38144718))],
            error: Some("needs mappings for class X".into()),
            ..ExportProps::default()
        };
        assert_eq!(
            serde_json::to_string(&ExportJson {
                info: &info,
                props: &props
            })
            .unwrap(),
            r#"{"name":"A","path":"/Game/P.A","class":"/Script/Engine.DataAsset","outer":null,"properties":[{"name":"Marker","type":"IntProperty","value":38144718}],"native":null,"error":"needs mappings for class X"}"#
        );
        let native = ExportProps {
            native_unread: 12,
            ..ExportProps::default()
        };
        let s = serde_json::to_string(&ExportJson {
            info: &info,
            props: &native,
        })
        .unwrap();
        assert!(
            s.ends_with(r#""properties":[],"native":{"fields":[],"unread":12}}"#),
            "{s}"
        );
    }
}
