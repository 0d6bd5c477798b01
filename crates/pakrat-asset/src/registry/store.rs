//! The fixed tag store (UE `FixedTagPrivate::FStore`, `FixedTags`+): every
//! tag value of every asset, deduplicated and typed, and the key/value pairs
//! the assets' map handles point into.
//!
//! Two orders exist, told apart by the begin magic: the older one keeps the
//! texts between the export paths and the string offsets; the newer one
//! (`0x12345679`) puts a `u32` (the texts' byte size) after the counts and
//! the texts first. From `MemoryMappedTagDataStore` (24) every array starts
//! on a 16-byte boundary of the file (the fixtures' zero padding shows it).

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use super::names::NameRef;
use super::{version, Ctx, RegString};

const OLD_BEGIN_MAGIC: u32 = 0x1234_5678;
const BEGIN_MAGIC: u32 = 0x1234_5679;
const END_MAGIC: u32 = 0x8765_4321;

/// `FNumberlessExportPath`: name indices without numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct NumberlessExportPath {
    /// The class's package (from `ClassPaths`, 14).
    pub class_package: Option<u32>,
    /// The class name.
    pub class: u32,
    /// The object name.
    pub object: u32,
    /// The package name.
    pub package: u32,
}

/// `FAssetRegistryExportPath`: the numbered form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ExportPath {
    /// The class's package (from `ClassPaths`, 14).
    pub class_package: Option<NameRef>,
    /// The class name.
    pub class: NameRef,
    /// The object name.
    pub object: NameRef,
    /// The package name.
    pub package: NameRef,
}

/// The kind of a tag value (`FValueId`'s low 3 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// A NUL-terminated 8-bit string in the ANSI pool.
    AnsiString,
    /// A NUL-terminated UTF-16 string in the wide pool.
    WideString,
    /// A name index without number.
    NumberlessName,
    /// A name reference.
    Name,
    /// A numberless export path.
    NumberlessExportPath,
    /// An export path.
    ExportPath,
    /// A localized text (its serialized string).
    LocalizedText,
}

/// A tag value reference: kind and index (`FValueId`: `index << 3 | kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ValueId(pub u32);

impl ValueId {
    /// The kind, or `None` for the unused kind 7.
    pub fn kind(self) -> Option<ValueKind> {
        use ValueKind::*;
        [
            AnsiString,
            WideString,
            NumberlessName,
            Name,
            NumberlessExportPath,
            ExportPath,
            LocalizedText,
        ]
        .get((self.0 & 7) as usize)
        .copied()
    }

    /// The index into the kind's array.
    pub fn index(self) -> usize {
        (self.0 >> 3) as usize
    }

    /// Build one.
    pub fn new(kind: ValueKind, index: usize) -> Self {
        ValueId(((index as u32) << 3) | kind as u32)
    }
}

/// The store.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Store {
    /// Begin magic `0x12345679` (texts first) rather than `0x12345678`.
    pub text_first: bool,
    /// The `u32` after the counts in the texts-first order (the texts' size).
    pub text_bytes: u32,
    /// Name indices.
    pub numberless_names: Vec<u32>,
    /// Names with numbers.
    pub names: Vec<NameRef>,
    /// Export paths without numbers.
    pub numberless_export_paths: Vec<NumberlessExportPath>,
    /// Export paths.
    pub export_paths: Vec<ExportPath>,
    /// Localized texts, as serialized strings.
    pub texts: Vec<RegString>,
    /// Byte offsets into `ansi_strings`.
    pub ansi_offsets: Vec<u32>,
    /// Byte offsets into `wide_strings`.
    pub wide_offsets: Vec<u32>,
    /// The ANSI pool (NUL-terminated strings).
    pub ansi_strings: Vec<u8>,
    /// The UTF-16 pool, as bytes (NUL-terminated strings).
    pub wide_strings: Vec<u8>,
    /// `(name index, value)` pairs of maps whose keys have no number.
    pub numberless_pairs: Vec<(u32, ValueId)>,
    /// `(name, value)` pairs.
    pub pairs: Vec<(NameRef, ValueId)>,
}

fn align16(r: &mut Reader<'_>, ctx: &Ctx) -> Result<()> {
    if !ctx.at_least(version::MEMORY_MAPPED_TAG_DATA_STORE) {
        return Ok(());
    }
    let pad = (16 - (r.offset() % 16)) % 16;
    let at = r.offset();
    let b = r.bytes(pad, "tag store alignment")?;
    if b.iter().any(|&x| x != 0) {
        return Err(Error::invalid(
            at,
            "tag store alignment: padding is not zero",
        ));
    }
    Ok(())
}

fn walign(w: &mut Writer, ctx: &Ctx) {
    if ctx.at_least(version::MEMORY_MAPPED_TAG_DATA_STORE) {
        w.align(16);
    }
}

fn check_name(r: &Reader<'_>, ctx: &Ctx, i: u32, what: &str) -> Result<u32> {
    if i as usize >= ctx.name_count {
        return Err(r.invalid(format!(
            "{what}: name index {i} is past the {} names",
            ctx.name_count
        )));
    }
    Ok(i)
}

impl Store {
    /// Read the store.
    pub fn read(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Self> {
        align16(r, ctx)?;
        let at = r.offset();
        let text_first = match r.u32("tag store begin magic")? {
            BEGIN_MAGIC => true,
            OLD_BEGIN_MAGIC => false,
            m => {
                return Err(Error::invalid(
                    at,
                    format!("tag store begin magic {m:#x}, expected {BEGIN_MAGIC:#x} or {OLD_BEGIN_MAGIC:#x}"),
                ))
            }
        };
        let mut nums = [0u32; 11];
        for n in &mut nums {
            *n = r.u32("tag store count")?;
        }
        let mut s = Store {
            text_first,
            ..Store::default()
        };
        let class_paths = ctx.at_least(version::CLASS_PATHS);
        let count = |r: &Reader<'_>, i: usize, size: usize, what: &str| {
            r.check_count(i64::from(nums[i]), size, what)
        };
        if text_first {
            s.text_bytes = r.u32("tag store text size")?;
            align16(r, ctx)?;
            s.texts = read_texts(r, ctx, count(r, 4, 4, "text count")?)?;
        }
        align16(r, ctx)?;
        for _ in 0..count(r, 0, 4, "numberless name count")? {
            let i = r.u32("numberless name")?;
            s.numberless_names
                .push(check_name(r, ctx, i, "numberless name")?);
        }
        align16(r, ctx)?;
        for _ in 0..count(r, 1, 4, "name count")? {
            s.names.push(NameRef::read(r, ctx, "store name")?);
        }
        align16(r, ctx)?;
        for _ in 0..count(r, 2, 12, "numberless export path count")? {
            let mut next = |what| -> Result<u32> {
                let i = r.u32(what)?;
                check_name(r, ctx, i, what)
            };
            let class_package = if class_paths {
                Some(next("export path class package")?)
            } else {
                None
            };
            s.numberless_export_paths.push(NumberlessExportPath {
                class_package,
                class: next("export path class")?,
                object: next("export path object")?,
                package: next("export path package")?,
            });
        }
        align16(r, ctx)?;
        for _ in 0..count(r, 3, 12, "export path count")? {
            let class_package =
                super::names::read_opt(r, ctx, class_paths, "export path class package")?;
            s.export_paths.push(ExportPath {
                class_package,
                class: NameRef::read(r, ctx, "export path class")?,
                object: NameRef::read(r, ctx, "export path object")?,
                package: NameRef::read(r, ctx, "export path package")?,
            });
        }
        if !text_first {
            s.texts = read_texts(r, ctx, count(r, 4, 4, "text count")?)?;
        }
        align16(r, ctx)?;
        s.ansi_offsets = read_u32s(
            r,
            count(r, 5, 4, "ANSI string count")?,
            "ANSI string offset",
        )?;
        align16(r, ctx)?;
        s.wide_offsets = read_u32s(
            r,
            count(r, 6, 4, "wide string count")?,
            "wide string offset",
        )?;
        align16(r, ctx)?;
        s.ansi_strings = r.bytes(u64::from(nums[7]), "ANSI string pool")?.to_vec();
        align16(r, ctx)?;
        s.wide_strings = r
            .bytes(u64::from(nums[8]) * 2, "wide string pool")?
            .to_vec();
        align16(r, ctx)?;
        for _ in 0..count(r, 9, 8, "numberless pair count")? {
            let k = r.u32("numberless pair key")?;
            let k = check_name(r, ctx, k, "numberless pair key")?;
            s.numberless_pairs.push((k, ValueId(r.u32("pair value")?)));
        }
        align16(r, ctx)?;
        for _ in 0..count(r, 10, 8, "pair count")? {
            let k = NameRef::read(r, ctx, "pair key")?;
            s.pairs.push((k, ValueId(r.u32("pair value")?)));
        }
        let at = r.offset();
        let m = r.u32("tag store end magic")?;
        if m != END_MAGIC {
            return Err(Error::invalid(
                at,
                format!("tag store end magic {m:#x}, expected {END_MAGIC:#x}"),
            ));
        }
        s.check_values(at)?;
        Ok(s)
    }

    /// Every pair value and string offset points inside its array.
    fn check_values(&self, at: u64) -> Result<()> {
        for &o in &self.ansi_offsets {
            if o as usize >= self.ansi_strings.len().max(1)
                && !(o == 0 && self.ansi_strings.is_empty())
            {
                return Err(Error::invalid(
                    at,
                    format!("tag store: ANSI string offset {o} is past the pool"),
                ));
            }
        }
        for &o in &self.wide_offsets {
            if o as usize * 2 > self.wide_strings.len() {
                return Err(Error::invalid(
                    at,
                    format!("tag store: wide string offset {o} is past the pool"),
                ));
            }
        }
        let values = self
            .numberless_pairs
            .iter()
            .map(|p| p.1)
            .chain(self.pairs.iter().map(|p| p.1));
        for v in values {
            if self.value_len(v).is_none_or(|n| v.index() >= n) {
                return Err(Error::invalid(
                    at,
                    format!("tag store: value {:#x} points past its array", v.0),
                ));
            }
        }
        Ok(())
    }

    fn value_len(&self, v: ValueId) -> Option<usize> {
        Some(match v.kind()? {
            ValueKind::AnsiString => self.ansi_offsets.len(),
            ValueKind::WideString => self.wide_offsets.len(),
            ValueKind::NumberlessName => self.numberless_names.len(),
            ValueKind::Name => self.names.len(),
            ValueKind::NumberlessExportPath => self.numberless_export_paths.len(),
            ValueKind::ExportPath => self.export_paths.len(),
            ValueKind::LocalizedText => self.texts.len(),
        })
    }

    /// Write the store.
    pub fn write(&self, w: &mut Writer, ctx: &Ctx) {
        walign(w, ctx);
        w.u32(if self.text_first {
            BEGIN_MAGIC
        } else {
            OLD_BEGIN_MAGIC
        });
        for n in [
            self.numberless_names.len(),
            self.names.len(),
            self.numberless_export_paths.len(),
            self.export_paths.len(),
            self.texts.len(),
            self.ansi_offsets.len(),
            self.wide_offsets.len(),
            self.ansi_strings.len(),
            self.wide_strings.len() / 2,
            self.numberless_pairs.len(),
            self.pairs.len(),
        ] {
            w.u32(n as u32);
        }
        if self.text_first {
            w.u32(self.text_bytes);
            walign(w, ctx);
            for t in &self.texts {
                t.write(w, ctx);
            }
        }
        walign(w, ctx);
        for &n in &self.numberless_names {
            w.u32(n);
        }
        walign(w, ctx);
        for n in &self.names {
            n.write(w, ctx);
        }
        walign(w, ctx);
        for p in &self.numberless_export_paths {
            if let Some(c) = p.class_package {
                w.u32(c);
            }
            w.u32(p.class).u32(p.object).u32(p.package);
        }
        walign(w, ctx);
        for p in &self.export_paths {
            super::names::write_opt(w, ctx, p.class_package);
            p.class.write(w, ctx);
            p.object.write(w, ctx);
            p.package.write(w, ctx);
        }
        if !self.text_first {
            for t in &self.texts {
                t.write(w, ctx);
            }
        }
        walign(w, ctx);
        self.ansi_offsets.iter().for_each(|&o| {
            w.u32(o);
        });
        walign(w, ctx);
        self.wide_offsets.iter().for_each(|&o| {
            w.u32(o);
        });
        walign(w, ctx);
        w.bytes(&self.ansi_strings);
        walign(w, ctx);
        w.bytes(&self.wide_strings);
        walign(w, ctx);
        for &(k, v) in &self.numberless_pairs {
            w.u32(k).u32(v.0);
        }
        walign(w, ctx);
        for &(k, v) in &self.pairs {
            k.write(w, ctx);
            w.u32(v.0);
        }
        w.u32(END_MAGIC);
    }

    /// The ANSI string `i`.
    pub fn ansi(&self, i: usize) -> Option<String> {
        let start = *self.ansi_offsets.get(i)? as usize;
        let rest = self.ansi_strings.get(start..)?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Some(pakrat_io::FString::from_latin1(&rest[..end]))
    }

    /// The wide string `i`.
    pub fn wide(&self, i: usize) -> Option<String> {
        let start = *self.wide_offsets.get(i)? as usize * 2;
        let units: Vec<u16> = self
            .wide_strings
            .get(start..)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        Some(String::from_utf16_lossy(&units))
    }
}

fn read_u32s(r: &mut Reader<'_>, n: usize, what: &str) -> Result<Vec<u32>> {
    (0..n).map(|_| r.u32(what)).collect()
}

fn read_texts(r: &mut Reader<'_>, ctx: &Ctx, n: usize) -> Result<Vec<RegString>> {
    (0..n)
        .map(|_| RegString::read(r, ctx, "localized text"))
        .collect()
}
