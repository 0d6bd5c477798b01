//! The native data after the properties, for the classes whose tail is
//! made of values the model holds whole: data tables and curve tables
//! (row name, then the row struct's property stream), string tables
//! (namespace, entries, metadata) and user-defined enums (entries, C++
//! form, underlying type). The mirror of `read::native::decode_tail` for
//! those classes; every other class's tail is kept as stored.

use super::{Enc, Result};
use crate::props::read::{row_seg, STRING_TABLE_SEG};
use crate::props::{PropType, Property, Value};
use pakrat_io::Writer;

/// Whether pakrat writes the native data of `class` from the model.
pub fn writes_native_tail(class: &str) -> bool {
    matches!(
        class,
        "DataTable"
            | "CompositeDataTable"
            | "CurveTable"
            | "CompositeCurveTable"
            | "StringTable"
            | "UserDefinedEnum"
    )
}

/// The native field `name` of a tail.
fn field<'p>(e: &Enc<'_, '_>, native: &'p [Property], name: &str) -> Result<&'p Value> {
    match native.iter().find(|p| p.name == name) {
        Some(p) => Ok(&p.value),
        None => e.err(format!("the native data has no {name}")),
    }
}

fn count(e: &Enc<'_, '_>, n: usize, what: &str) -> Result<i32> {
    i32::try_from(n).or_else(|_| e.err(format!("too many {what} ({n})")))
}

fn byte(e: &Enc<'_, '_>, v: &Value, what: &str) -> Result<u8> {
    match v {
        Value::UInt(n) if *n <= 255 => Ok(*n as u8),
        Value::Int(n) if (0..=255).contains(n) => Ok(*n as u8),
        other => e.err(format!("{what} is {other:?}, not a byte")),
    }
}

impl Enc<'_, '_> {
    /// The native data of `class` from its decoded fields.
    pub(super) fn native_tail(
        &mut self,
        w: &mut Writer,
        class: &str,
        native: &[Property],
    ) -> Result<()> {
        match class {
            "DataTable" | "CompositeDataTable" => {
                let rows = field(self, native, "Rows")?;
                let row_struct = match native.iter().find(|p| p.name == "Rows").map(|p| &p.ty) {
                    Some(PropType::Map(_, v)) => match &**v {
                        PropType::Struct(s) => s.clone(),
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                self.rows(w, rows, &row_struct)
            }
            "CurveTable" | "CompositeCurveTable" => {
                let mode = byte(
                    self,
                    field(self, native, "CurveTableMode")?,
                    "CurveTableMode",
                )?;
                let rows = field(self, native, "Rows")?;
                let Value::Map(es) = rows else {
                    return self.err("Rows is not a map");
                };
                w.i32(count(self, es.len(), "rows")?);
                w.u8(mode);
                let curve = if mode == 1 {
                    "SimpleCurve"
                } else {
                    "RichCurve"
                };
                self.row_list(w, es, curve)
            }
            "StringTable" => self.at(format_args!("{STRING_TABLE_SEG}"), |e| {
                e.string_table(w, native)
            }),
            "UserDefinedEnum" => self.enum_tail(w, native),
            _ => self.err(format!(
                "pakrat does not write the native data of a {class}"
            )),
        }
    }

    /// A data table's rows: count, then (name, property stream) pairs.
    fn rows(&mut self, w: &mut Writer, rows: &Value, row_struct: &str) -> Result<()> {
        let Value::Map(es) = rows else {
            return self.err("Rows is not a map");
        };
        w.i32(count(self, es.len(), "rows")?);
        self.row_list(w, es, row_struct)
    }

    fn row_list(&mut self, w: &mut Writer, es: &[(Value, Value)], row_struct: &str) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (k, v) in es {
            let Value::Name(name) = k else {
                return self.err(format!("a row name is {k:?}, not a name"));
            };
            if !seen.insert(name.to_ascii_lowercase()) {
                return self.err(format!("row {name} is given twice"));
            }
            let Value::Struct(fields) = v else {
                return self.err(format!("row {name} is not a struct"));
            };
            self.fname(w, name)?;
            self.at(format_args!("{}", row_seg(name)), |e| {
                e.properties(w, row_struct, fields, false)
            })?;
        }
        Ok(())
    }

    /// `FStringTable`: namespace, entries, metadata.
    fn string_table(&mut self, w: &mut Writer, native: &[Property]) -> Result<()> {
        let Value::Str(ns) = field(self, native, "TableNamespace")? else {
            return self.err("TableNamespace is not a string");
        };
        let ns = ns.clone();
        self.fstr(w, &ns);
        let Value::Map(es) = field(self, native, "Entries")? else {
            return self.err("Entries is not a map");
        };
        w.i32(count(self, es.len(), "entries")?);
        for (k, v) in es {
            let (Value::Str(k), Value::Str(v)) = (k, v) else {
                return self.err("a string table entry is not (string, string)");
            };
            self.fstr(w, k);
            self.fstr(w, v);
        }
        let Value::Map(meta) = field(self, native, "KeysToMetaData")? else {
            return self.err("KeysToMetaData is not a map");
        };
        w.i32(count(self, meta.len(), "metadata keys")?);
        for (k, m) in meta {
            let (Value::Str(k), Value::Map(inner)) = (k, m) else {
                return self.err("a metadata entry is not (string, map)");
            };
            self.fstr(w, k);
            w.i32(count(self, inner.len(), "metadata")?);
            for (id, v) in inner {
                let (Value::Name(id), Value::Str(v)) = (id, v) else {
                    return self.err("a metadata value is not (name, string)");
                };
                self.fname(w, id)?;
                self.fstr(w, v);
            }
        }
        Ok(())
    }

    /// `UEnum`: (name, value) entries, the C++ form, the underlying type.
    fn enum_tail(&mut self, w: &mut Writer, native: &[Property]) -> Result<()> {
        let Value::Map(es) = field(self, native, "Names")? else {
            return self.err("Names is not a map");
        };
        w.i32(count(self, es.len(), "enum entries")?);
        for (k, v) in es {
            let (Value::Name(k), Value::Int(v)) = (k, v) else {
                return self.err("an enum entry is not (name, integer)");
            };
            self.fname(w, k)?;
            w.i64(*v);
        }
        w.u8(byte(self, field(self, native, "CppForm")?, "CppForm")?);
        if let Some(p) = native.iter().find(|p| p.name == "UnderlyingType") {
            w.u8(byte(self, &p.value, "UnderlyingType")?);
        }
        Ok(())
    }
}
