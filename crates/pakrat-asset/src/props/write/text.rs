//! `FText`: flags, history type and its fields (the mirror of
//! `read/text.rs`, with the same version gates).

use super::{Enc, Result};
use crate::props::read::{
    EDITOR, UE4_ADDED_CURRENCY_CODE_TO_FTEXT, UE4_FTEXT_HISTORY, UE4_FTEXT_HISTORY_DATE_TIMEZONE,
    UE5_RELEASE,
};
use crate::props::value::{DateKind, FormatArg, NumberKind, Text, TextHistory};
use pakrat_io::Writer;

impl Enc<'_, '_> {
    /// One `FText`.
    pub(super) fn text(&mut self, w: &mut Writer, t: &Text) -> Result<()> {
        if self.ue4() < UE4_FTEXT_HISTORY && self.ue5() == 0 {
            let TextHistory::Base {
                namespace,
                key,
                source,
            } = &t.history
            else {
                return self.err("texts before FTextHistory can only be localized strings");
            };
            self.fstr(w, source);
            self.fstr(w, namespace);
            self.fstr(w, key);
            w.u32(t.flags);
            return Ok(());
        }
        w.u32(t.flags);
        self.at(format_args!(""), |e| e.history(w, &t.history))
    }

    fn history(&mut self, w: &mut Writer, h: &TextHistory) -> Result<()> {
        match h {
            TextHistory::None { invariant } => {
                w.u8(0xff);
                if self.rd.custom_ge(EDITOR, 32) {
                    match invariant {
                        Some(s) => {
                            w.u32(1);
                            self.fstr(w, s);
                        }
                        None => {
                            w.u32(0);
                        }
                    }
                }
            }
            TextHistory::Base {
                namespace,
                key,
                source,
            } => {
                w.u8(0);
                self.fstr(w, namespace);
                self.fstr(w, key);
                self.fstr(w, source);
            }
            TextHistory::NamedFormat { format, args }
            | TextHistory::ArgumentFormat { format, args } => {
                let data = matches!(h, TextHistory::ArgumentFormat { .. });
                w.u8(if data { 3 } else { 1 });
                self.text(w, format)?;
                w.i32(self.count(args.len())?);
                for (name, a) in args {
                    self.fstr(w, name);
                    self.format_arg(w, a, data)?;
                }
            }
            TextHistory::OrderedFormat { format, args } => {
                w.u8(2);
                self.text(w, format)?;
                w.i32(self.count(args.len())?);
                for a in args {
                    self.format_arg(w, a, false)?;
                }
            }
            TextHistory::Number {
                kind,
                currency,
                source,
                options,
                culture,
            } => {
                w.u8(match kind {
                    NumberKind::AsNumber => 4,
                    NumberKind::AsPercent => 5,
                    NumberKind::AsCurrency => 6,
                });
                if *kind == NumberKind::AsCurrency
                    && (self.ue4() >= UE4_ADDED_CURRENCY_CODE_TO_FTEXT || self.ue5() > 0)
                {
                    self.fstr(w, currency.as_deref().unwrap_or(""));
                }
                self.format_arg(w, source, false)?;
                match options {
                    None => {
                        w.u32(0);
                    }
                    Some(o) => {
                        w.u32(1);
                        if self.rd.custom_ge(EDITOR, 21) {
                            w.u32(u32::from(o.always_sign));
                        }
                        w.u32(u32::from(o.use_grouping))
                            .u8(o.rounding_mode as u8)
                            .i32(o.minimum_integral_digits)
                            .i32(o.maximum_integral_digits)
                            .i32(o.minimum_fractional_digits)
                            .i32(o.maximum_fractional_digits);
                    }
                }
                self.fstr(w, culture);
            }
            TextHistory::DateTime {
                kind,
                ticks,
                date_style,
                time_style,
                time_zone,
                culture,
                ..
            } => {
                w.u8(match kind {
                    DateKind::AsDate => 7,
                    DateKind::AsTime => 8,
                    DateKind::AsDateTime => 9,
                });
                w.i64(*ticks);
                if *kind != DateKind::AsTime {
                    w.u8(date_style.unwrap_or(0) as u8);
                }
                if *kind != DateKind::AsDate {
                    w.u8(time_style.unwrap_or(0) as u8);
                }
                if *kind != DateKind::AsDate
                    || self.ue4() >= UE4_FTEXT_HISTORY_DATE_TIMEZONE
                    || self.ue5() > 0
                {
                    self.fstr(w, time_zone);
                }
                self.fstr(w, culture);
            }
            TextHistory::Transform { source, transform } => {
                w.u8(10);
                self.text(w, source)?;
                w.u8(*transform);
            }
            TextHistory::StringTableEntry { table, key } => {
                w.u8(11);
                self.fname(w, table)?;
                self.fstr(w, key);
            }
            TextHistory::Generator { type_id, contents } => {
                w.u8(12);
                self.fname(w, type_id)?;
                if type_id != "None" {
                    w.i32(self.count(contents.len())?).bytes(contents);
                }
            }
        }
        Ok(())
    }

    /// `FFormatArgumentValue` (or the value of an `FFormatArgumentData`).
    fn format_arg(&mut self, w: &mut Writer, a: &FormatArg, argument_data: bool) -> Result<()> {
        let typed = !argument_data || self.rd.custom_ge(EDITOR, 6);
        if !typed {
            let FormatArg::Text(t) = a else {
                return self.err("format arguments of this version can only be texts");
            };
            return self.text(w, t);
        }
        match a {
            FormatArg::Int(i) => {
                w.u8(0);
                if argument_data && !self.rd.custom_ge(UE5_RELEASE, 12) {
                    let v = i32::try_from(*i)
                        .or_else(|_| self.err(format!("{i} does not fit a 32-bit argument")))?;
                    w.i32(v);
                } else {
                    w.i64(*i);
                }
            }
            FormatArg::UInt(u) => {
                w.u8(1).u64(*u);
            }
            FormatArg::Float(f) => {
                w.u8(2).f32(*f);
            }
            FormatArg::Double(d) => {
                w.u8(3).u64(d.to_bits());
            }
            FormatArg::Text(t) => {
                w.u8(4);
                self.text(w, t)?;
            }
            FormatArg::Gender(g) => {
                w.u8(5).u8(*g);
            }
        }
        Ok(())
    }
}
