//! `FText`: flags, then a history (`ETextHistoryType`) and its fields
//! (UE `TextHistory.cpp`; CUE4Parse `FText.cs` for the version gates).

use super::Ctx;
use crate::props::value::{DateKind, FormatArg, NumberKind, NumberOptions, Text, TextHistory};
use pakrat_io::{Error, Guid, Reader, Result};

/// `VER_UE4_FTEXT_HISTORY`: before it a text is three strings.
pub(crate) const UE4_FTEXT_HISTORY: i32 = 368;
/// `VER_UE4_FTEXT_HISTORY_DATE_TIMEZONE`.
pub(crate) const UE4_FTEXT_HISTORY_DATE_TIMEZONE: i32 = 474;
/// `VER_UE4_ADDED_CURRENCY_CODE_TO_FTEXT`.
pub(crate) const UE4_ADDED_CURRENCY_CODE_TO_FTEXT: i32 = 415;
/// `FEditorObjectVersion`.
pub(crate) const EDITOR: Guid = Guid {
    words: [0xE4B0_68ED, 0xF494_42E9, 0xA231_DA0B, 0x2E46_BB41],
};
/// `FUE5ReleaseStreamObjectVersion`.
pub(crate) const UE5_RELEASE: Guid = Guid {
    words: [0xD89B_5E42, 0x24BD_4D46, 0x8412_ACA8, 0xDF64_1779],
};

impl Ctx<'_, '_> {
    /// One `FText`.
    pub(super) fn text(&mut self, r: &mut Reader<'_>) -> Result<Text> {
        if self.ue4() < UE4_FTEXT_HISTORY && self.ue5() == 0 {
            let source = self.fstr(r, "text source")?;
            let namespace = self.fstr(r, "text namespace")?;
            let key = self.fstr(r, "text key")?;
            let flags = r.u32("text flags")?;
            return Ok(Text {
                flags,
                history: TextHistory::Base {
                    namespace,
                    key,
                    source,
                },
            });
        }
        let flags = r.u32("text flags")?;
        let at = r.offset();
        let kind = r.i8("text history type")?;
        let history = self.nested(r.offset(), |c| c.history(r, kind, at))?;
        Ok(Text { flags, history })
    }

    fn history(&mut self, r: &mut Reader<'_>, kind: i8, at: u64) -> Result<TextHistory> {
        Ok(match kind {
            -1 => {
                // CultureInvariantTextSerializationKeyStability (32).
                let invariant = if self.custom_at_least(EDITOR, 32)
                    && r.u32("has culture-invariant string")? != 0
                {
                    Some(self.fstr(r, "culture-invariant string")?)
                } else {
                    None
                };
                TextHistory::None { invariant }
            }
            0 => TextHistory::Base {
                namespace: self.fstr(r, "text namespace")?,
                key: self.fstr(r, "text key")?,
                source: self.fstr(r, "text source")?,
            },
            1 | 3 => {
                let format = Box::new(self.text(r)?);
                let n = r.i32_count("format arguments", 5)?;
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    let name = self.fstr(r, "format argument name")?;
                    args.push((name, self.format_arg(r, kind == 3)?));
                }
                if kind == 1 {
                    TextHistory::NamedFormat { format, args }
                } else {
                    TextHistory::ArgumentFormat { format, args }
                }
            }
            2 => {
                let format = Box::new(self.text(r)?);
                let n = r.i32_count("format arguments", 1)?;
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.format_arg(r, false)?);
                }
                TextHistory::OrderedFormat { format, args }
            }
            4..=6 => self.number_history(r, kind)?,
            7..=9 => self.date_history(r, kind)?,
            10 => TextHistory::Transform {
                source: Box::new(self.text(r)?),
                transform: r.u8("text transform")?,
            },
            11 => TextHistory::StringTableEntry {
                table: self.fname(r, "string table id")?,
                key: self.fstr(r, "string table key")?,
            },
            12 => {
                let type_id = self.fname(r, "text generator type")?;
                let contents = if type_id != "None" {
                    let n = r.i32_count("text generator contents", 1)?;
                    r.bytes(n as u64, "text generator contents")?.to_vec()
                } else {
                    Vec::new()
                };
                TextHistory::Generator { type_id, contents }
            }
            k => {
                return Err(Error::invalid(
                    at,
                    format!("text history type {k} is not one of -1..=12"),
                ))
            }
        })
    }

    fn number_history(&mut self, r: &mut Reader<'_>, kind: i8) -> Result<TextHistory> {
        let kind = match kind {
            4 => NumberKind::AsNumber,
            5 => NumberKind::AsPercent,
            _ => NumberKind::AsCurrency,
        };
        let currency = if kind == NumberKind::AsCurrency
            && (self.ue4() >= UE4_ADDED_CURRENCY_CODE_TO_FTEXT || self.ue5() > 0)
        {
            Some(self.fstr(r, "currency code")?)
        } else {
            None
        };
        let source = self.format_arg(r, false)?;
        let options = if r.u32("has number format options")? != 0 {
            // AddedAlwaysSignNumberFormattingOption (21).
            let always_sign = self.custom_at_least(EDITOR, 21) && r.u32("always sign")? != 0;
            Some(NumberOptions {
                always_sign,
                use_grouping: r.u32("use grouping")? != 0,
                rounding_mode: r.i8("rounding mode")?,
                minimum_integral_digits: r.i32("minimum integral digits")?,
                maximum_integral_digits: r.i32("maximum integral digits")?,
                minimum_fractional_digits: r.i32("minimum fractional digits")?,
                maximum_fractional_digits: r.i32("maximum fractional digits")?,
            })
        } else {
            None
        };
        let culture = self.fstr(r, "target culture")?;
        Ok(TextHistory::Number {
            kind,
            currency,
            source,
            options,
            culture,
        })
    }

    fn date_history(&mut self, r: &mut Reader<'_>, kind: i8) -> Result<TextHistory> {
        let ticks = r.i64("date ticks")?;
        let (kind, date_style, time_style) = match kind {
            7 => (DateKind::AsDate, Some(r.i8("date style")?), None),
            8 => (DateKind::AsTime, None, Some(r.i8("time style")?)),
            _ => {
                let d = r.i8("date style")?;
                let t = r.i8("time style")?;
                (DateKind::AsDateTime, Some(d), Some(t))
            }
        };
        let time_zone = if kind != DateKind::AsDate
            || self.ue4() >= UE4_FTEXT_HISTORY_DATE_TIMEZONE
            || self.ue5() > 0
        {
            self.fstr(r, "time zone")?
        } else {
            String::new()
        };
        let culture = self.fstr(r, "target culture")?;
        Ok(TextHistory::DateTime {
            kind,
            ticks,
            date_style,
            time_style,
            pattern: None,
            time_zone,
            culture,
        })
    }

    /// `FFormatArgumentValue` (or the value of an `FFormatArgumentData`).
    fn format_arg(&mut self, r: &mut Reader<'_>, argument_data: bool) -> Result<FormatArg> {
        let at = r.offset();
        // TextFormatArgumentDataIsVariant (5): older argument data is text.
        let t = if argument_data && !self.custom_at_least(EDITOR, 6) {
            4
        } else {
            r.i8("format argument type")?
        };
        Ok(match t {
            0 => {
                // TextFormatArgumentData64bitSupport (12).
                if argument_data && !self.custom_at_least(UE5_RELEASE, 12) {
                    FormatArg::Int(i64::from(r.i32("format argument")?))
                } else {
                    FormatArg::Int(r.i64("format argument")?)
                }
            }
            1 => FormatArg::UInt(r.u64("format argument")?),
            2 => FormatArg::Float(r.f32("format argument")?),
            3 => FormatArg::Double(f64::from_bits(r.u64("format argument")?)),
            4 => FormatArg::Text(Box::new(self.text(r)?)),
            5 => FormatArg::Gender(r.u8("format argument gender")?),
            k => {
                return Err(Error::invalid(
                    at,
                    format!("format argument type {k} is not one of 0..=5"),
                ))
            }
        })
    }
}
