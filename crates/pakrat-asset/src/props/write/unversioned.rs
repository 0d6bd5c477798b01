//! Unversioned properties (the mirror of `read/unversioned.rs`): values
//! placed at their schema index, a fragment header of (skip, values,
//! has-zeroes, is-last), the zero mask, then the values that are not
//! zero-masked. A value equal to its type's zero is masked unless the
//! hints say it was written.

use super::{Enc, Result};
use crate::props::{Property, Value};
use pakrat_io::Writer;

/// Most properties one fragment can skip or hold (7 bits each).
const FRAGMENT_MAX: u32 = 127;

/// One fragment of the header.
#[derive(Default)]
struct Fragment {
    skip: u32,
    values: u32,
    zeroes: bool,
}

/// The header being built, as the engine's `FUnversionedHeaderBuilder`
/// does: one call per schema index, in order.
struct Builder {
    frags: Vec<Fragment>,
    /// Zero bits of fragments closed with zeroes.
    mask: Vec<bool>,
    /// Zero bits of the open fragment.
    open: Vec<bool>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            frags: Vec::new(),
            mask: Vec::new(),
            open: Vec::new(),
        }
    }

    /// Start a new fragment, keeping the open one's zero bits when it has
    /// zeroes.
    fn close(&mut self) {
        if self.frags.last().is_some_and(|f| f.zeroes) {
            self.mask.append(&mut self.open);
        }
        self.open.clear();
    }

    fn last(&mut self) -> &mut Fragment {
        if self.frags.is_empty() {
            self.frags.push(Fragment::default());
        }
        let n = self.frags.len() - 1;
        &mut self.frags[n]
    }

    fn exclude(&mut self) {
        let l = self.last();
        if l.values > 0 || l.skip == FRAGMENT_MAX {
            self.close();
            self.frags.push(Fragment::default());
        }
        self.last().skip += 1;
    }

    fn include(&mut self, zero: bool) {
        if self.last().values == FRAGMENT_MAX {
            self.close();
            self.frags.push(Fragment::default());
        }
        let l = self.last();
        l.values += 1;
        l.zeroes |= zero;
        self.open.push(zero);
    }

    fn finish(mut self) -> (Vec<Fragment>, Vec<bool>) {
        self.last();
        self.close();
        // Trailing skips are dropped, unless no value came before them.
        if self.frags.len() > 1 && self.frags.last().is_some_and(|f| f.values == 0) {
            self.frags.pop();
        }
        (self.frags, self.mask)
    }
}

/// The header for values at schema `indices` (ascending) of a schema of
/// `len` indices, `zero[i]` for the value at `indices[i]`: fragments and
/// the zero mask bits. Like the engine, the properties after the last
/// value are not skipped, but a stream of no values skips them all.
fn header(indices: &[usize], zero: &[bool], len: usize) -> (Vec<Fragment>, Vec<bool>) {
    let mut b = Builder::new();
    let mut next = 0usize;
    for (&at, &z) in indices.iter().zip(zero) {
        while next < at {
            b.exclude();
            next += 1;
        }
        b.include(z);
        next += 1;
    }
    while next < len {
        b.exclude();
        next += 1;
    }
    b.finish()
}

impl Enc<'_, '_> {
    /// The values of struct or class `name` by its schema.
    pub(super) fn unversioned_properties(
        &mut self,
        w: &mut Writer,
        name: &str,
        props: &[Property],
    ) -> Result<()> {
        if props.is_empty() {
            if let Some(h) = self.hints.empty_headers.get(&self.path) {
                w.bytes(h);
                return Ok(());
            }
        }
        let Some(flat) = self.rd.flat_of(name) else {
            if props.is_empty() {
                w.u16(0x0100);
                return Ok(());
            }
            return self.err(format!("needs mappings for {name}"));
        };
        // Schema index of every property, in schema order.
        let mut placed = Vec::with_capacity(props.len());
        for p in props {
            let Some(i) = flat
                .iter()
                .position(|(n, e, _)| *n == p.name && *e == p.index)
            else {
                return self.err(format!(
                    "{name} has no property {}[{}] in the mappings",
                    p.name, p.index
                ));
            };
            if flat[i].2.normalized() != p.ty.normalized() {
                return self.err(format!(
                    "{name}.{} is {} in the mappings, not {}",
                    p.name, flat[i].2, p.ty
                ));
            }
            placed.push((i, p));
        }
        placed.sort_by_key(|(i, _)| *i);
        if let Some(d) = placed.windows(2).find(|d| d[0].0 == d[1].0) {
            return self.err(format!(
                "{name}.{}[{}] is given twice",
                d[0].1.name, d[0].1.index
            ));
        }
        let mut zero = Vec::with_capacity(placed.len());
        for (_, p) in &placed {
            let written = self.at(format_args!("/{}[{}]", p.name, p.index), |e| {
                Ok(e.hints.written_zero.contains(&e.path))
            })?;
            zero.push(!written && same_bits(self.zero(&p.ty), &p.value));
        }
        let indices: Vec<usize> = placed.iter().map(|(i, _)| *i).collect();
        let (frags, mask) = header(&indices, &zero, flat.len());
        let n = frags.len();
        for (k, f) in frags.iter().enumerate() {
            let packed = f.skip as u16
                | if f.zeroes { 0x80 } else { 0 }
                | if k + 1 == n { 0x100 } else { 0 }
                | (f.values as u16) << 9;
            w.u16(packed);
        }
        write_mask(w, &mask);
        for ((_, p), z) in placed.iter().zip(&zero) {
            if !z {
                self.at(format_args!("/{}[{}]", p.name, p.index), |e| {
                    e.value(w, &p.ty, &p.value)
                })?;
            }
        }
        Ok(())
    }
}

/// The zero mask: one byte up to 8 bits, two up to 16, then `u32` words.
fn write_mask(w: &mut Writer, bits: &[bool]) {
    let len = match bits.len() {
        0 => 0,
        1..=8 => 1,
        9..=16 => 2,
        n => n.div_ceil(32) * 4,
    };
    let mut bytes = vec![0u8; len];
    for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
        bytes[i / 8] |= 1 << (i % 8);
    }
    w.bytes(&bytes);
}

/// Equal, floats by their bits: a `-0.0` is not masked as zero (it would
/// read back as `0.0`).
fn same_bits(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Struct(x), Value::Struct(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    p.name == q.name
                        && p.index == q.index
                        && p.ty == q.ty
                        && same_bits(&p.value, &q.value)
                })
        }
        (Value::Array(x), Value::Array(y)) | (Value::Set(x), Value::Set(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_bits(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, v), (l, w))| same_bits(k, l) && same_bits(v, w))
        }
        (Value::Optional(Some(x)), Value::Optional(Some(y))) => same_bits(x, y),
        _ => a == b,
    }
}
