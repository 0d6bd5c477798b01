//! Names of an asset registry: the name batch (from `FixedTags`, UE 4.27+)
//! or the older name table at the end of the file, and the `FName`
//! references into them.

use pakrat_codec::names::{read_name_batch, write_name_batch, BatchName};
use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use super::{Ctx, RegString};

/// Set on a batch-form name index when a number follows (UE
/// `AssetRegistryNumberedNameBit`).
const NUMBERED_BIT: u32 = 0x8000_0000;

/// An `FName` as stored: an index into the registry's names and a number
/// (0 = none; `n` shows as `_{n-1}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct NameRef {
    /// Index into [`Names`].
    pub index: u32,
    /// The instance number (0 when the name has none).
    pub number: u32,
}

/// One entry of the older name table (before `FixedTags`): an `FString` and
/// the two 16-bit hashes UE4 stores beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableName {
    /// The text.
    pub text: RegString,
    /// The non-case-preserving and case-preserving hashes, kept as read.
    pub hashes: [u16; 2],
}

/// The registry's names in the form the file stores them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "form", content = "names", rename_all = "snake_case")]
pub enum Names {
    /// The UE5 name batch (`FixedTags` and later), stored before the tag store.
    Batch(Vec<BatchName>),
    /// The name table that an `i64` offset after the header points at.
    Table(Vec<TableName>),
}

impl Names {
    /// How many names there are.
    pub fn len(&self) -> usize {
        match self {
            Names::Batch(v) => v.len(),
            Names::Table(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of name `index`, if it exists.
    pub fn text(&self, index: u32) -> Option<&str> {
        match self {
            Names::Batch(v) => v.get(index as usize).map(|n| n.text.as_str()),
            Names::Table(v) => v.get(index as usize).map(|n| n.text.text.as_str()),
        }
    }

    /// The index of `text` (exact match), if present.
    pub fn find(&self, text: &str) -> Option<u32> {
        let pos = match self {
            Names::Batch(v) => v.iter().position(|n| n.text == text),
            Names::Table(v) => v.iter().position(|n| n.text.text == text),
        };
        pos.map(|p| p as u32)
    }

    /// Add `text` (if missing) and give its index.
    pub fn intern(&mut self, text: &str) -> u32 {
        if let Some(i) = self.find(text) {
            return i;
        }
        match self {
            Names::Batch(v) => v.push(BatchName {
                text: text.to_owned(),
                wide: text.chars().any(|c| u32::from(c) > 0xFF),
                stored_hash: None,
            }),
            // The two hashes of a new table entry are not recomputed.
            Names::Table(v) => v.push(TableName {
                text: RegString::new(text),
                hashes: [0, 0],
            }),
        }
        self.len() as u32 - 1
    }

    /// The text of a name reference with its number (`Name_2`), or a
    /// placeholder naming the bad index.
    pub fn show(&self, n: NameRef) -> String {
        match self.text(n.index) {
            Some(t) if n.number == 0 => t.to_owned(),
            Some(t) => pakrat_codec::names::with_number(t, n.number),
            None => format!("<name {}>", n.index),
        }
    }
}

/// Read the name batch that follows the header in `FixedTags`+ registries.
pub(super) fn read_batch(r: &mut Reader<'_>) -> Result<Names> {
    Ok(Names::Batch(
        read_name_batch(r).map_err(|e| e.context("asset registry name batch"))?,
    ))
}

/// Write a name batch. A name read from a file keeps the hash stored with
/// it (so a file writes back as it was); a new name gets the engine's hash.
pub(super) fn write_batch(w: &mut Writer, names: &[BatchName]) {
    let mut tmp = Writer::new();
    write_name_batch(&mut tmp, names);
    let mut out = tmp.into_inner();
    if !names.is_empty() {
        // u32 count, u32 string bytes, u64 algorithm id, then the hashes.
        for (i, n) in names.iter().enumerate() {
            if let Some(h) = n.stored_hash {
                let at = 16 + i * 8;
                out[at..at + 8].copy_from_slice(&h.to_le_bytes());
            }
        }
    }
    w.bytes(&out);
}

/// Read the older name table (`i32 count; {FString; u16 hash[2]} entries`).
pub(super) fn read_table(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Names> {
    let n = r.i32_count("name table count", 8)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let text = RegString::read(r, ctx, "name table entry")?;
        let a = r.u16("name hash (case-insensitive)")?;
        let b = r.u16("name hash (case-preserving)")?;
        out.push(TableName {
            text,
            hashes: [a, b],
        });
    }
    Ok(Names::Table(out))
}

/// Write the older name table.
pub(super) fn write_table(w: &mut Writer, names: &[TableName], ctx: &Ctx) {
    w.i32(names.len() as i32);
    for n in names {
        n.text.write(w, ctx);
        w.u16(n.hashes[0]).u16(n.hashes[1]);
    }
}

impl NameRef {
    /// Read a name reference: batch form `u32 index (| bit 31 → u32
    /// number)`, table form `i32 index, i32 number`.
    pub(super) fn read(r: &mut Reader<'_>, ctx: &Ctx, what: &str) -> Result<NameRef> {
        let at = r.offset();
        let (index, number) = if ctx.batch {
            let raw = r.u32(what)?;
            if raw & NUMBERED_BIT != 0 {
                let number = r.u32(what)?;
                if number == 0 {
                    return Err(Error::invalid(
                        at,
                        format!("{what}: numbered name with number 0"),
                    ));
                }
                (raw & !NUMBERED_BIT, number)
            } else {
                (raw, 0)
            }
        } else {
            (r.u32(what)?, r.u32(what)?)
        };
        if index as usize >= ctx.name_count {
            return Err(Error::invalid(
                at,
                format!(
                    "{what}: name index {index} is past the {} names",
                    ctx.name_count
                ),
            ));
        }
        Ok(NameRef { index, number })
    }

    /// Write a name reference in the form `ctx` says.
    pub(super) fn write(self, w: &mut Writer, ctx: &Ctx) {
        if ctx.batch {
            if self.number != 0 {
                w.u32(self.index | NUMBERED_BIT).u32(self.number);
            } else {
                w.u32(self.index);
            }
        } else {
            w.u32(self.index).u32(self.number);
        }
    }
}

/// An optional name present only from some version on.
pub(super) fn read_opt(
    r: &mut Reader<'_>,
    ctx: &Ctx,
    present: bool,
    what: &str,
) -> Result<Option<NameRef>> {
    if present {
        NameRef::read(r, ctx, what).map(Some)
    } else {
        Ok(None)
    }
}

/// Write an optional name.
pub(super) fn write_opt(w: &mut Writer, ctx: &Ctx, n: Option<NameRef>) {
    if let Some(n) = n {
        n.write(w, ctx);
    }
}
