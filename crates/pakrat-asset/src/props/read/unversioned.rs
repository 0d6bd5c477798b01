//! Unversioned properties (`FUnversionedHeader`, UE 4.25+ cooked data):
//! fragments of (skip, value count, has-zeroes, is-last) packed in a
//! `u16`, a zero mask over the values of fragments that have zeroes (one
//! byte up to 8 values, two up to 16, then `u32` words), then the values
//! that are not zero, in schema order: the super-struct's properties
//! first, a fixed-size array taking one index per element (CUE4Parse
//! `FUnversionedHeader.cs`, UE `UnversionedPropertySerialization.cpp`).

use super::Ctx;
use crate::props::{PropType, Property, Text, TextHistory, Value};
use pakrat_io::{Error, Guid, Reader, Result};

/// One fragment of the header.
struct Fragment {
    skip: u32,
    values: u32,
    zeroes: bool,
}

/// The header: fragments and the zero mask.
struct Header {
    fragments: Vec<Fragment>,
    mask: Vec<u8>,
}

fn read_header(r: &mut Reader<'_>) -> Result<Header> {
    let mut fragments = Vec::new();
    let mut masked = 0usize;
    loop {
        let packed = r.u16("unversioned header fragment")?;
        let f = Fragment {
            skip: u32::from(packed & 0x7f),
            zeroes: packed & 0x80 != 0,
            values: u32::from(packed >> 9),
        };
        if f.zeroes {
            masked += f.values as usize;
        }
        fragments.push(f);
        if packed & 0x100 != 0 {
            break;
        }
    }
    let mask_len = match masked {
        0 => 0,
        1..=8 => 1,
        9..=16 => 2,
        n => n.div_ceil(32) * 4,
    };
    let mask = r.bytes(mask_len as u64, "unversioned zero mask")?.to_vec();
    Ok(Header { fragments, mask })
}

impl Ctx<'_, '_> {
    /// The values of struct or class `name`, by its schema.
    pub(super) fn unversioned_properties(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
        object: bool,
    ) -> Result<Vec<Property>> {
        let at = r.offset();
        let start = r.clone();
        let header = read_header(r)?;
        let total: u32 = header.fragments.iter().map(|f| f.values).sum();
        if total == 0 {
            let bytes = start.rest()[..r.pos() - start.pos()].to_vec();
            self.record(|h, path| {
                h.empty_headers.insert(path.to_string(), bytes);
            });
            return Ok(Vec::new());
        }
        let flat = self.flat_schema(name).ok_or_else(|| {
            let kind = if object { "class" } else { "struct" };
            Error::Other(format!(
                "needs mappings for {kind} {name} (unversioned data at offset {at:#x})"
            ))
        })?;
        let mut out = Vec::new();
        let mut index = 0usize;
        let mut bit = 0usize;
        for f in &header.fragments {
            index += f.skip as usize;
            for _ in 0..f.values {
                let zero = f.zeroes && {
                    let b = header.mask[bit / 8] >> (bit % 8) & 1 != 0;
                    bit += 1;
                    b
                };
                let Some((p, element)) = flat.get(index) else {
                    return Err(Error::invalid(
                        r.offset(),
                        format!(
                            "unversioned property index {index} is past the {} properties of {name} in the mappings",
                            flat.len()
                        ),
                    ));
                };
                let value = self.with_seg(format_args!("/{}[{}]", p.name, element), |c| {
                    if zero {
                        return Ok(c.zero_value(&p.ty));
                    }
                    let v = c
                        .value(r, &p.ty)
                        .map_err(|e| e.context(&format!("{name}.{} ({})", p.name, p.ty)))?;
                    if c.rec.is_some() && v == c.zero_value(&p.ty) {
                        c.record(|h, path| {
                            h.written_zero.insert(path.to_string());
                        });
                    }
                    Ok::<_, Error>(v)
                })?;
                out.push(Property {
                    name: p.name.clone(),
                    index: *element,
                    ty: p.ty.clone(),
                    value,
                });
                index += 1;
            }
        }
        Ok(out)
    }

    /// The value an all-zero property of `ty` has.
    pub(super) fn zero_value(&mut self, ty: &PropType) -> Value {
        match ty {
            PropType::Bool => Value::Bool(false),
            PropType::Int8 | PropType::Int16 | PropType::Int | PropType::Int64 => Value::Int(0),
            PropType::UInt16 | PropType::UInt32 | PropType::UInt64 | PropType::Byte(None) => {
                Value::UInt(0)
            }
            PropType::Float => Value::Float(0.0),
            PropType::Double => Value::Double(0.0),
            PropType::Byte(Some(e)) | PropType::Enum { name: e, .. } => {
                Value::Enum(self.enum_name(e, 0))
            }
            PropType::Name => Value::Name("None".into()),
            PropType::Str | PropType::Utf8Str | PropType::AnsiStr => Value::Str(String::new()),
            PropType::Text => Value::Text(Box::new(Text {
                flags: 0,
                history: TextHistory::None { invariant: None },
            })),
            PropType::Object | PropType::Class | PropType::WeakObject | PropType::Interface => {
                Value::Object(None)
            }
            PropType::LazyObject => Value::Guid(Guid::default()),
            PropType::SoftObject | PropType::SoftClass => Value::SoftObject {
                path: String::new(),
                sub_path: String::new(),
            },
            PropType::Delegate => Value::Delegate {
                object: None,
                function: "None".into(),
            },
            PropType::MulticastDelegate
            | PropType::MulticastInlineDelegate
            | PropType::MulticastSparseDelegate => Value::Multicast(Vec::new()),
            PropType::FieldPath => Value::FieldPath {
                path: Vec::new(),
                owner: None,
            },
            PropType::Struct(name) => self.zero_struct(name),
            PropType::Array(_) => Value::Array(Vec::new()),
            PropType::Set(_) => Value::Set(Vec::new()),
            PropType::Map(..) => Value::Map(Vec::new()),
            PropType::Optional(_) => Value::Optional(None),
            PropType::Unknown(n) => Value::Skipped {
                size: 0,
                reason: format!("zero value of unknown type {n}"),
            },
        }
    }

    /// An all-zero struct: a native struct read from zeros, otherwise
    /// every field of its schema at zero.
    fn zero_struct(&mut self, name: &str) -> Value {
        if self.depth >= super::MAX_DEPTH {
            return Value::Struct(Vec::new());
        }
        if self.is_native(name) {
            let zeros = [0u8; 256];
            let mut r = Reader::new(&zeros);
            if let Ok(Some(v)) = self.native_struct(&mut r, name) {
                return v;
            }
        }
        let Some(flat) = self.flat_schema(name) else {
            return Value::Struct(Vec::new());
        };
        if self.zero_budget < flat.len() as u32 {
            return Value::Struct(Vec::new());
        }
        self.zero_budget -= flat.len() as u32;
        self.depth += 1;
        let fields = flat
            .iter()
            .map(|(p, e)| Property {
                name: p.name.clone(),
                index: *e,
                ty: p.ty.clone(),
                value: self.zero_value(&p.ty),
            })
            .collect();
        self.depth -= 1;
        Value::Struct(fields)
    }
}
