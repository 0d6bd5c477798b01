//! Zen package headers (the start of an ExportBundleData chunk) and the
//! global ScriptObjects table (`iostore.md` §15; UE `AsyncLoading2.h`,
//! `ZenPackageHeader.cpp`; CUE4Parse `FZenPackageSummary.cs`,
//! `FPackageSummary.cs`, `IoPackage.cs`; retoc `zen.rs`, `script_objects.rs`).
//!
//! The header layout follows the engine that cooked the container, which the
//! container header tells us ([`ZenLayout::for_header`]):
//! * UE 4.25–4.27 (container header without signature): 64-byte
//!   `FPackageSummary`, names + hashes buffers, export bundles from the store
//!   entry, graph data.
//! * UE 5.0–5.2 (container header v1–v2): 44-byte summary, name batch,
//!   `GraphDataOffset` with export bundle headers and dependency arcs.
//! * UE 5.3+ (container header v3–v5): 52-byte summary, dependency bundles and
//!   imported package names; from v5 (UE 5.6) the Verse cell map offsets
//!   follow the versioning info.
//!
//! Container header version 0 (signature-bearing "Initial") has no known
//! package layout and is refused. Array counts come from offset differences;
//! every offset is checked against the chunk and its neighbours before use,
//! and every count against the bytes it needs.

use std::collections::HashMap;

use pakrat_io::{Error, Guid, Reader, Result, Writer};
use serde::Serialize;

use rayon::prelude::*;

use pakrat_codec::names::{
    read_name_batch, read_name_batch_parts, with_number, write_name_batch, BatchName, MappedName,
};
use pakrat_iostore::container::Container;
use pakrat_iostore::container_header::{ContainerHeader, HeaderForm, StoreEntry};
use pakrat_iostore::toc::ChunkType;

/// `EUnrealEngineObjectUE5Version::VERSE_CELLS` (UE 5.6).
pub const UE5_VERSE_CELLS: i32 = 1015;

/// Size of an `FExportMapEntry`.
pub const EXPORT_ENTRY_SIZE: usize = 72;
/// Size of an `FCellExportMapEntry`.
pub const CELL_EXPORT_ENTRY_SIZE: usize = 40;
/// Size of an `FDependencyBundleHeader`.
pub const DEPENDENCY_BUNDLE_HEADER_SIZE: usize = 20;

/// Which package header layout a container uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ZenLayout {
    /// UE 4.25–4.27 `FPackageSummary`.
    Ue4,
    /// UE 5.0–5.2: single graph data offset.
    Ue5_0,
    /// UE 5.3 and later: dependency bundles, imported package names.
    Ue5_3 {
        /// UE 5.6+ (container header v5): Verse cell maps may follow the
        /// versioning info.
        cells: bool,
    },
}

impl ZenLayout {
    /// The layout for packages of a container with this header form.
    pub fn for_header(form: HeaderForm) -> Result<Self> {
        Ok(match form {
            HeaderForm::Ue4 | HeaderForm::Ue4PreInitial => ZenLayout::Ue4,
            HeaderForm::Ue5(0) => {
                return Err(Error::unsupported(
                    0,
                    "zen packages of a container header version 0 (UE5 early access): layout not known exactly",
                ))
            }
            HeaderForm::Ue5(1 | 2) => ZenLayout::Ue5_0,
            HeaderForm::Ue5(v) => ZenLayout::Ue5_3 { cells: v >= 5 },
        })
    }

    /// Engine range, for people.
    pub fn describe(self) -> &'static str {
        match self {
            ZenLayout::Ue4 => "UE4.25-4.27",
            ZenLayout::Ue5_0 => "UE5.0-5.2",
            ZenLayout::Ue5_3 { cells: false } => "UE5.3-5.5",
            ZenLayout::Ue5_3 { cells: true } => "UE5.6+",
        }
    }
}

/// `FPackageObjectIndex`: a `u64` whose top two bits are the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ObjectIndex(pub u64);

/// What an [`ObjectIndex`] points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectRef {
    /// An export of this package.
    Export(u32),
    /// A script object (global ScriptObjects table), by its full index value.
    Script(u64),
    /// UE5: an export of an imported package, by the package's position in
    /// the imported package list and the hash's position in
    /// ImportedPublicExportHashes. UE4: a global import hash (`raw`).
    Package {
        /// Position in the package's imported packages.
        package: u32,
        /// Position in ImportedPublicExportHashes.
        hash: u32,
        /// The whole value.
        raw: u64,
    },
    /// No object.
    Null,
}

impl ObjectIndex {
    /// Decode the kind.
    pub fn get(self) -> ObjectRef {
        match self.0 >> 62 {
            _ if self.0 == u64::MAX => ObjectRef::Null,
            0 => ObjectRef::Export(self.0 as u32),
            1 => ObjectRef::Script(self.0),
            2 => ObjectRef::Package {
                package: ((self.0 & ((1 << 62) - 1)) >> 32) as u32,
                hash: self.0 as u32,
                raw: self.0,
            },
            _ => ObjectRef::Null,
        }
    }

    /// True for the Null index.
    pub fn is_null(self) -> bool {
        matches!(self.get(), ObjectRef::Null)
    }
}

/// `FZenPackageVersioningInfo`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Versioning {
    /// `EZenPackageVersion` (0 Initial … 3 ExportDependencies).
    pub zen_version: u32,
    /// `FileVersionUE4`.
    pub file_version_ue4: i32,
    /// `FileVersionUE5`.
    pub file_version_ue5: i32,
    /// Licensee version.
    pub licensee: i32,
    /// Custom versions (key, version).
    #[serde(skip)]
    pub custom_versions: Vec<(Guid, i32)>,
}

/// `FExportMapEntry` (72 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Export {
    /// `CookedSerialOffset` (UE 5.3+: relative to the export data; before: the
    /// legacy file offset).
    pub serial_offset: u64,
    /// `CookedSerialSize`.
    pub serial_size: u64,
    /// Object name.
    pub name: MappedName,
    /// Outer object.
    pub outer: ObjectIndex,
    /// Class.
    pub class: ObjectIndex,
    /// Super struct.
    pub super_index: ObjectIndex,
    /// Template (archetype).
    pub template: ObjectIndex,
    /// UE5: `PublicExportHash`; UE4: `GlobalImportIndex`.
    pub public_export_hash: u64,
    /// `EObjectFlags`.
    pub object_flags: u32,
    /// `EExportFilterFlags` (0 none, 1 not for client, 2 not for server).
    pub filter_flags: u8,
}

/// `FExportBundleHeader` (before UE 5.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExportBundleHeader {
    /// Serial offset (UE 5.0–5.2 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial_offset: Option<u64>,
    /// First entry in the bundle-entry array.
    pub first_entry: u32,
    /// Number of entries.
    pub entry_count: u32,
}

/// `FDependencyBundleHeader` (UE 5.3+).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DependencyBundleHeader {
    /// First entry in the dependency entry array.
    pub first_entry: i32,
    /// `EntryCount[Create|Serialize][Create|Serialize]`.
    pub entry_count: [[u32; 2]; 2],
}

/// A parsed zen package header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ZenPackage {
    /// Layout used.
    pub layout: ZenLayout,
    /// Versioning info, when the package carries it (UE5 "versioned").
    pub versioning: Option<Versioning>,
    /// Size of the header; export data starts here.
    pub header_size: u32,
    /// Package name (resolved).
    pub name: String,
    /// UE4 only: the source package name, when different from `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// `EPackageFlags`.
    pub package_flags: u32,
    /// Size of the matching legacy `.uasset` header.
    pub cooked_header_size: u32,
    /// The package's name map.
    pub names: Vec<BatchName>,
    /// `ImportedPublicExportHashes` (UE5).
    pub imported_public_export_hashes: Vec<u64>,
    /// Import map.
    pub imports: Vec<ObjectIndex>,
    /// Export map.
    pub exports: Vec<Export>,
    /// Verse cell imports (UE 5.6+).
    pub cell_imports: Vec<ObjectIndex>,
    /// Number of Verse cell exports (UE 5.6+).
    pub cell_export_count: usize,
    /// Export bundle headers (before UE 5.3).
    pub export_bundle_headers: Vec<ExportBundleHeader>,
    /// Export bundle entries: (local export index, command 0 Create / 1 Serialize).
    pub export_bundle_entries: Vec<(u32, u32)>,
    /// Dependency bundle headers (UE 5.3+).
    pub dependency_bundle_headers: Vec<DependencyBundleHeader>,
    /// Dependency bundle entries, `FPackageIndex` values (UE 5.3+).
    pub dependency_bundle_entries: Vec<i32>,
    /// Imported package names (UE 5.3+), with their numbers applied.
    pub imported_package_names: Vec<String>,
    /// UE4: ids of the packages in the graph data (dependency arcs).
    pub graph_packages: Vec<u64>,
    /// The package name as stored (index into [`ZenPackage::names`]).
    #[serde(skip)]
    pub name_mapped: MappedName,
    /// Bulk data map (UE 5.2+), when the section parses.
    #[serde(skip)]
    pub bulk: Option<BulkSection>,
    /// Verse cell export records (40 bytes each), as stored.
    #[serde(skip)]
    pub cell_exports: Vec<[u8; CELL_EXPORT_ENTRY_SIZE]>,
    /// Imported package names as stored: base name and number.
    #[serde(skip)]
    pub imported_package_name_parts: Vec<(BatchName, i32)>,
    /// The imported package names section is present (an empty name batch
    /// is still its 4-byte count; some packages leave the section out).
    #[serde(skip)]
    pub imported_package_names_written: bool,
}

/// `FBulkDataMapEntry` (32 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BulkDataEntry {
    /// `SerialOffset`.
    pub serial_offset: i64,
    /// `DuplicateSerialOffset`.
    pub duplicate_serial_offset: i64,
    /// `SerialSize`.
    pub serial_size: i64,
    /// `EBulkDataFlags`.
    pub flags: u32,
    /// `CookedIndex`.
    pub cooked_index: u8,
}

/// The bulk data map section after the name batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BulkSection {
    /// UE 5.4+: `u64 PadLen` and that many zero bytes, which 8-align the
    /// position after the length (checked on the UE 5.8/6.0 fixtures).
    pub pad: Option<u64>,
    /// Entries.
    pub entries: Vec<BulkDataEntry>,
}

/// Size of an `FBulkDataMapEntry`.
pub const BULK_DATA_ENTRY_SIZE: usize = 32;

/// Parse the bulk data section in `[from, to)`: with the UE 5.4+ pad first,
/// then without; `None` when neither form fills the range exactly.
fn parse_bulk(all: &Reader<'_>, from: usize, to: usize) -> Option<BulkSection> {
    let try_form = |pad: bool| -> Option<BulkSection> {
        let mut r = all
            .sub(from as u64, (to - from) as u64, "bulk data map")
            .ok()?;
        let pad = if pad {
            let n = r.u64("pad length").ok()?;
            if n > 7 || r.bytes(n, "pad").ok()?.iter().any(|&b| b != 0) {
                return None;
            }
            Some(n)
        } else {
            None
        };
        let size = r.i64("BulkDataMapSize").ok()?;
        if size < 0
            || !(size as usize).is_multiple_of(BULK_DATA_ENTRY_SIZE)
            || size as usize != r.remaining()
        {
            return None;
        }
        let n = size as usize / BULK_DATA_ENTRY_SIZE;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let e = BulkDataEntry {
                serial_offset: r.i64("bulk offset").ok()?,
                duplicate_serial_offset: r.i64("bulk duplicate offset").ok()?,
                serial_size: r.i64("bulk size").ok()?,
                flags: r.u32("bulk flags").ok()?,
                cooked_index: r.u8("bulk cooked index").ok()?,
            };
            r.skip(3, "bulk pad").ok()?;
            entries.push(e);
        }
        Some(BulkSection { pad, entries })
    };
    if to < from {
        return None;
    }
    try_form(true).or_else(|| try_form(false))
}

impl ZenPackage {
    /// Write the header of a UE 5.3+ package (the mirror of [`parse`] for
    /// that layout): every offset is recomputed from the tables, so a parsed
    /// header comes back byte for byte and a built one is consistent.
    /// `HeaderSize` in the result is the returned length.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let cells = match self.layout {
            ZenLayout::Ue5_3 { cells } => {
                cells
                    && self
                        .versioning
                        .as_ref()
                        .is_none_or(|v| v.file_version_ue5 >= UE5_VERSE_CELLS)
            }
            other => {
                return Err(Error::Other(format!(
                    "writing {} zen package headers is not supported (only UE 5.3 and later)",
                    other.describe()
                )))
            }
        };
        if !cells && (!self.cell_imports.is_empty() || !self.cell_exports.is_empty()) {
            return Err(Error::Other("Verse cells need the UE 5.6+ layout".into()));
        }
        let mut w = Writer::new();
        w.u32(u32::from(self.versioning.is_some())).u32(0);
        self.name_mapped.write(&mut w);
        w.u32(self.package_flags).u32(self.cooked_header_size);
        let offsets_at = w.len();
        w.zeros(7 * 4);
        if let Some(v) = &self.versioning {
            w.u32(v.zen_version)
                .i32(v.file_version_ue4)
                .i32(v.file_version_ue5)
                .i32(v.licensee);
            w.i32(v.custom_versions.len() as i32);
            for (g, n) in &v.custom_versions {
                w.guid(*g).i32(*n);
            }
        }
        let cell_offsets_at = w.len();
        if cells {
            w.zeros(8);
        }
        write_name_batch(&mut w, &self.names);
        if let Some(b) = &self.bulk {
            if b.pad.is_some() {
                let pad = (8 - (w.len() + 8) % 8) % 8;
                w.u64(pad as u64).zeros(pad);
            }
            w.i64((b.entries.len() * BULK_DATA_ENTRY_SIZE) as i64);
            for e in &b.entries {
                w.i64(e.serial_offset)
                    .i64(e.duplicate_serial_offset)
                    .i64(e.serial_size)
                    .u32(e.flags)
                    .u8(e.cooked_index)
                    .zeros(3);
            }
        }
        let mut off = [0i32; 7];
        off[0] = w.len() as i32;
        for h in &self.imported_public_export_hashes {
            w.u64(*h);
        }
        off[1] = w.len() as i32;
        for i in &self.imports {
            w.u64(i.0);
        }
        off[2] = w.len() as i32;
        for e in &self.exports {
            w.u64(e.serial_offset).u64(e.serial_size);
            e.name.write(&mut w);
            w.u64(e.outer.0)
                .u64(e.class.0)
                .u64(e.super_index.0)
                .u64(e.template.0)
                .u64(e.public_export_hash)
                .u32(e.object_flags)
                .u8(e.filter_flags)
                .zeros(3);
        }
        let ci = w.len() as i32;
        for i in &self.cell_imports {
            w.u64(i.0);
        }
        let ce = w.len() as i32;
        for c in &self.cell_exports {
            w.bytes(c);
        }
        off[3] = w.len() as i32;
        for (i, c) in &self.export_bundle_entries {
            w.u32(*i).u32(*c);
        }
        off[4] = w.len() as i32;
        for h in &self.dependency_bundle_headers {
            w.i32(h.first_entry);
            for row in h.entry_count {
                for c in row {
                    w.u32(c);
                }
            }
        }
        off[5] = w.len() as i32;
        for e in &self.dependency_bundle_entries {
            w.i32(*e);
        }
        off[6] = w.len() as i32;
        if self.imported_package_names_written || !self.imported_package_name_parts.is_empty() {
            let base: Vec<BatchName> = self
                .imported_package_name_parts
                .iter()
                .map(|(b, _)| b.clone())
                .collect();
            write_name_batch(&mut w, &base);
            for (_, n) in &self.imported_package_name_parts {
                w.i32(*n);
            }
        }
        let size = w.len() as u32;
        let mut out = w.into_inner();
        out[4..8].copy_from_slice(&size.to_le_bytes());
        for (k, o) in off.iter().enumerate() {
            out[offsets_at + 4 * k..offsets_at + 4 * k + 4].copy_from_slice(&o.to_le_bytes());
        }
        if cells {
            out[cell_offsets_at..cell_offsets_at + 4].copy_from_slice(&ci.to_le_bytes());
            out[cell_offsets_at + 4..cell_offsets_at + 8].copy_from_slice(&ce.to_le_bytes());
        }
        Ok(out)
    }

    /// Resolve a mapped name of this package (`?` markers when out of range).
    pub fn name_of(&self, n: MappedName) -> String {
        n.resolve(&self.names)
            .unwrap_or_else(|| format!("<name #{} out of range>", n.index))
    }

    /// Names whose stored hash differs from the one computed from their text.
    pub fn name_hash_mismatches(&self) -> usize {
        self.names.iter().filter(|n| n.hash_mismatch()).count()
    }
}

/// Check a header offset: within `[lo, header_end]`; returns it as usize.
fn offset(v: i32, lo: usize, end: usize, what: &str, at: u64) -> Result<usize> {
    if v < 0 || (v as usize) < lo || v as usize > end {
        return Err(Error::invalid(
            at,
            format!("{what} {v:#x} lies outside {lo:#x}..={end:#x}"),
        ));
    }
    Ok(v as usize)
}

/// Number of `size`-byte records in `[from, to)`, which must divide exactly.
fn records(from: usize, to: usize, size: usize, what: &str, at: u64) -> Result<usize> {
    if to < from || !(to - from).is_multiple_of(size) {
        return Err(Error::invalid(
            at,
            format!(
                "{what}: {:#x}..{:#x} is not a whole number of {size}-byte records",
                from, to
            ),
        ));
    }
    Ok((to - from) / size)
}

fn read_versioning(r: &mut Reader<'_>) -> Result<Versioning> {
    let zen_version = r.u32("zen package version")?;
    let file_version_ue4 = r.i32("FileVersionUE4")?;
    let file_version_ue5 = r.i32("FileVersionUE5")?;
    let licensee = r.i32("licensee version")?;
    let n = i64::from(r.i32("custom version count")?);
    let n = r.check_count(n, 20, "custom version count")?;
    let mut custom_versions = Vec::with_capacity(n);
    for _ in 0..n {
        custom_versions.push((r.guid("custom version key")?, r.i32("custom version")?));
    }
    Ok(Versioning {
        zen_version,
        file_version_ue4,
        file_version_ue5,
        licensee,
        custom_versions,
    })
}

fn read_indices(data: &Reader<'_>, from: usize, n: usize, what: &str) -> Result<Vec<ObjectIndex>> {
    let mut r = data.sub(from as u64, n as u64 * 8, what)?;
    (0..n).map(|_| Ok(ObjectIndex(r.u64(what)?))).collect()
}

fn read_exports(data: &Reader<'_>, from: usize, n: usize) -> Result<Vec<Export>> {
    let mut r = data.sub(from as u64, (n * EXPORT_ENTRY_SIZE) as u64, "export map")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let e = Export {
            serial_offset: r.u64("export CookedSerialOffset")?,
            serial_size: r.u64("export CookedSerialSize")?,
            name: MappedName::read(&mut r)?,
            outer: ObjectIndex(r.u64("export outer index")?),
            class: ObjectIndex(r.u64("export class index")?),
            super_index: ObjectIndex(r.u64("export super index")?),
            template: ObjectIndex(r.u64("export template index")?),
            public_export_hash: r.u64("export public hash")?,
            object_flags: r.u32("export object flags")?,
            filter_flags: r.u8("export filter flags")?,
        };
        r.skip(3, "export padding")?;
        out.push(e);
    }
    Ok(out)
}

fn read_pairs(data: &Reader<'_>, from: usize, n: usize, what: &str) -> Result<Vec<(u32, u32)>> {
    let mut r = data.sub(from as u64, n as u64 * 8, what)?;
    (0..n)
        .map(|_| {
            let at = r.offset();
            let idx = r.u32(what)?;
            let cmd = r.u32(what)?;
            if cmd > 1 {
                return Err(Error::invalid(
                    at + 4,
                    format!("{what}: command type {cmd}, expected 0 (Create) or 1 (Serialize)"),
                ));
            }
            Ok((idx, cmd))
        })
        .collect()
}

/// Parse a zen package header from the start of its ExportBundleData chunk.
///
/// `store` is the package's store entry from the container header; it is
/// required before UE 5.3 (export bundle count, imported packages).
pub fn parse(data: &[u8], layout: ZenLayout, store: Option<&StoreEntry>) -> Result<ZenPackage> {
    match layout {
        ZenLayout::Ue4 => parse_ue4(data, store),
        ZenLayout::Ue5_0 | ZenLayout::Ue5_3 { .. } => parse_ue5(data, layout, store),
    }
}

fn parse_ue5(data: &[u8], layout: ZenLayout, store: Option<&StoreEntry>) -> Result<ZenPackage> {
    let all = Reader::new(data);
    let mut r = all.clone();
    let has_versioning = r.u32("bHasVersioningInfo")?;
    let hs_at = r.offset();
    let header_size = r.u32("HeaderSize")?;
    if header_size as usize > data.len() {
        return Err(Error::invalid(
            hs_at,
            format!(
                "HeaderSize {header_size:#x} is larger than the chunk ({:#x})",
                data.len()
            ),
        ));
    }
    let hend = header_size as usize;
    let name = MappedName::read(&mut r)?;
    let package_flags = r.u32("PackageFlags")?;
    let cooked_header_size = r.u32("CookedHeaderSize")?;
    let mut raw = Vec::new();
    let fields = if matches!(layout, ZenLayout::Ue5_0) {
        5
    } else {
        7
    };
    for _ in 0..fields {
        raw.push((r.offset(), r.i32("header offset")?));
    }
    let summary_end = r.pos();
    let versioning = match has_versioning {
        0 => None,
        1 => Some(read_versioning(&mut r)?),
        v => {
            return Err(Error::invalid(
                0,
                format!("bHasVersioningInfo {v}, expected 0 or 1"),
            ))
        }
    };
    let cells = match (layout, &versioning) {
        (ZenLayout::Ue5_3 { cells: true }, Some(v)) => v.file_version_ue5 >= UE5_VERSE_CELLS,
        (ZenLayout::Ue5_3 { cells }, None) => cells,
        _ => false,
    };
    let cell_offsets = if cells {
        Some((
            (r.offset(), r.i32("CellImportMapOffset")?),
            (r.offset(), r.i32("CellExportMapOffset")?),
        ))
    } else {
        None
    };
    let names = read_name_batch(&mut r)?;
    let names_end = r.pos();
    let _ = summary_end;

    // Offsets in file order; each must be >= the previous one.
    let (hashes_at, hashes_off) = raw[0];
    let hashes_off = offset(
        hashes_off,
        names_end,
        hend,
        "ImportedPublicExportHashesOffset",
        hashes_at,
    )?;
    let (a, v) = raw[1];
    let import_off = offset(v, hashes_off, hend, "ImportMapOffset", a)?;
    let (a, v) = raw[2];
    let export_off = offset(v, import_off, hend, "ExportMapOffset", a)?;
    let (a, v) = raw[3];
    let bundle_off = offset(v, export_off, hend, "ExportBundleEntriesOffset", a)?;
    let hash_count = records(
        hashes_off,
        import_off,
        8,
        "ImportedPublicExportHashes",
        hashes_at,
    )?;
    let mut h = all.sub(
        hashes_off as u64,
        hash_count as u64 * 8,
        "imported public export hashes",
    )?;
    let imported_public_export_hashes = (0..hash_count)
        .map(|_| h.u64("imported public export hash"))
        .collect::<Result<Vec<_>>>()?;
    let import_count = records(import_off, export_off, 8, "import map", raw[1].0)?;
    let imports = read_indices(&all, import_off, import_count, "import map")?;
    let (exports_end, cell_imports, cell_export_count) = match cell_offsets {
        Some(((ia, iv), (ea, ev))) => {
            let ci = offset(iv, export_off, bundle_off, "CellImportMapOffset", ia)?;
            let ce = offset(ev, ci, bundle_off, "CellExportMapOffset", ea)?;
            let n = records(ci, ce, 8, "cell import map", ia)?;
            let cell_imports = read_indices(&all, ci, n, "cell import map")?;
            let m = records(
                ce,
                bundle_off,
                CELL_EXPORT_ENTRY_SIZE,
                "cell export map",
                ea,
            )?;
            (ci, cell_imports, m)
        }
        None => (bundle_off, Vec::new(), 0),
    };
    let export_count = records(
        export_off,
        exports_end,
        EXPORT_ENTRY_SIZE,
        "export map",
        raw[2].0,
    )?;
    let exports = read_exports(&all, export_off, export_count)?;

    let mut pkg = ZenPackage {
        layout,
        versioning,
        header_size,
        name: String::new(),
        source_name: None,
        package_flags,
        cooked_header_size,
        names,
        imported_public_export_hashes,
        imports,
        exports,
        cell_imports,
        cell_export_count,
        export_bundle_headers: Vec::new(),
        export_bundle_entries: Vec::new(),
        dependency_bundle_headers: Vec::new(),
        dependency_bundle_entries: Vec::new(),
        imported_package_names: Vec::new(),
        graph_packages: Vec::new(),
        name_mapped: name,
        bulk: None,
        cell_exports: Vec::new(),
        imported_package_name_parts: Vec::new(),
        imported_package_names_written: false,
    };
    pkg.bulk = parse_bulk(&all, names_end, hashes_off);
    if let Some((_, (_, ev))) = cell_offsets {
        let ce = ev as usize;
        let mut cr = all.sub(
            ce as u64,
            (pkg.cell_export_count * CELL_EXPORT_ENTRY_SIZE) as u64,
            "cell export map",
        )?;
        for _ in 0..pkg.cell_export_count {
            pkg.cell_exports
                .push(cr.array::<CELL_EXPORT_ENTRY_SIZE>("cell export")?);
        }
    }
    pkg.name = name.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            8,
            format!(
                "package name index {} is outside the name map ({} names)",
                name.index,
                pkg.names.len()
            ),
        )
    })?;

    if let ZenLayout::Ue5_3 { .. } = layout {
        let (a, v) = raw[4];
        let dep_h = offset(v, bundle_off, hend, "DependencyBundleHeadersOffset", a)?;
        let (a2, v) = raw[5];
        let dep_e = offset(v, dep_h, hend, "DependencyBundleEntriesOffset", a2)?;
        let (a3, v) = raw[6];
        let names_off = offset(v, dep_e, hend, "ImportedPackageNamesOffset", a3)?;
        let n = records(bundle_off, dep_h, 8, "export bundle entries", raw[3].0)?;
        let expect = 2 * (pkg.exports.len() + pkg.cell_export_count);
        if n != expect {
            return Err(Error::invalid(
                raw[3].0,
                format!(
                    "{n} export bundle entries for {} exports (+{} cell exports), expected {expect}",
                    pkg.exports.len(),
                    pkg.cell_export_count
                ),
            ));
        }
        pkg.export_bundle_entries = read_pairs(&all, bundle_off, n, "export bundle entry")?;
        let nh = records(
            dep_h,
            dep_e,
            DEPENDENCY_BUNDLE_HEADER_SIZE,
            "dependency bundle headers",
            a,
        )?;
        if nh != pkg.exports.len() && nh != pkg.exports.len() + pkg.cell_export_count {
            return Err(Error::invalid(
                a,
                format!(
                    "{nh} dependency bundle headers for {} exports",
                    pkg.exports.len()
                ),
            ));
        }
        let mut d = all.sub(
            dep_h as u64,
            (nh * DEPENDENCY_BUNDLE_HEADER_SIZE) as u64,
            "dependency bundle headers",
        )?;
        for _ in 0..nh {
            let first_entry = d.i32("dependency bundle first entry")?;
            let mut entry_count = [[0u32; 2]; 2];
            for row in &mut entry_count {
                for c in row.iter_mut() {
                    *c = d.u32("dependency bundle entry count")?;
                }
            }
            pkg.dependency_bundle_headers.push(DependencyBundleHeader {
                first_entry,
                entry_count,
            });
        }
        let ne = records(dep_e, names_off, 4, "dependency bundle entries", a2)?;
        let mut d = all.sub(dep_e as u64, ne as u64 * 4, "dependency bundle entries")?;
        pkg.dependency_bundle_entries = (0..ne)
            .map(|_| d.i32("dependency bundle entry"))
            .collect::<Result<_>>()?;
        // Each header's entries must lie within the entry array.
        for (i, hdr) in pkg.dependency_bundle_headers.iter().enumerate() {
            let total: u64 = hdr
                .entry_count
                .iter()
                .flatten()
                .map(|&c| u64::from(c))
                .sum();
            // An empty bundle may say INDEX_NONE (-1) (seen on the UE 5.8 fixtures).
            if total > 0 && (hdr.first_entry < 0 || hdr.first_entry as u64 + total > ne as u64) {
                return Err(Error::invalid(
                    dep_h as u64 + (i * DEPENDENCY_BUNDLE_HEADER_SIZE) as u64,
                    format!(
                        "dependency bundle {i}: entries {}+{total} outside the {ne} entries",
                        hdr.first_entry
                    ),
                ));
            }
        }
        // Imported package names: a name batch and one i32 number each.
        let mut nr = all.sub(
            names_off as u64,
            (hend - names_off) as u64,
            "imported package names",
        )?;
        // An empty section (offset = HeaderSize) means no names were written.
        pkg.imported_package_names_written = !nr.is_empty();
        let base = if nr.is_empty() {
            Vec::new()
        } else {
            read_name_batch(&mut nr)?
        };
        let n = nr.check_count(base.len() as i64, 4, "imported package name numbers")?;
        for b in base.iter().take(n) {
            let num = nr.i32("imported package name number")?;
            pkg.imported_package_names
                .push(with_number(&b.text, u32::try_from(num).unwrap_or(0)));
            pkg.imported_package_name_parts.push((b.clone(), num));
        }
        if nr.remaining() != 0 {
            return Err(Error::invalid(
                nr.offset(),
                format!(
                    "{} unexpected bytes between the imported package names and HeaderSize",
                    nr.remaining()
                ),
            ));
        }
    } else {
        // UE 5.0–5.2: bundle entries up to GraphDataOffset, then graph data.
        let (a, v) = raw[4];
        let graph = offset(v, bundle_off, hend, "GraphDataOffset", a)?;
        let n = records(bundle_off, graph, 8, "export bundle entries", raw[3].0)?;
        pkg.export_bundle_entries = read_pairs(&all, bundle_off, n, "export bundle entry")?;
        let store = store.ok_or_else(|| {
            Error::Other("UE 5.0-5.2 zen packages need their container header store entry".into())
        })?;
        let bundles = store.export_bundle_count.unwrap_or(0);
        let mut g = all.sub(graph as u64, (hend - graph) as u64, "graph data")?;
        let nb = g.check_count(i64::from(bundles), 16, "export bundle count (store entry)")?;
        for _ in 0..nb {
            pkg.export_bundle_headers.push(ExportBundleHeader {
                serial_offset: Some(g.u64("export bundle serial offset")?),
                first_entry: g.u32("export bundle first entry")?,
                entry_count: g.u32("export bundle entry count")?,
            });
        }
        check_bundles(&pkg, a)?;
        // Internal arcs {i32 from, i32 to}, then per imported package external
        // arcs {i32 import, u8 command, i32 to bundle}.
        let n = i64::from(g.i32("internal arc count")?);
        let n = g.check_count(n, 8, "internal arc count")?;
        g.skip(n as u64 * 8, "internal arcs")?;
        for _ in &store.imported_packages {
            let n = i64::from(g.i32("external arc count")?);
            let n = g.check_count(n, 9, "external arc count")?;
            g.skip(n as u64 * 9, "external arcs")?;
        }
        pkg.graph_packages = store.imported_packages.clone();
        if g.remaining() != 0 {
            return Err(Error::invalid(
                g.offset(),
                format!(
                    "{} unexpected bytes between the graph data and HeaderSize",
                    g.remaining()
                ),
            ));
        }
    }
    Ok(pkg)
}

/// Bundle headers must cover the entry array exactly, in order, and
/// reference only existing exports.
fn check_bundles(pkg: &ZenPackage, at: u64) -> Result<()> {
    let mut next = 0u64;
    for (i, b) in pkg.export_bundle_headers.iter().enumerate() {
        if u64::from(b.first_entry) != next {
            return Err(Error::invalid(
                at,
                format!(
                    "export bundle {i} starts at entry {}, expected {next}",
                    b.first_entry
                ),
            ));
        }
        next += u64::from(b.entry_count);
    }
    if next != pkg.export_bundle_entries.len() as u64 {
        return Err(Error::invalid(
            at,
            format!(
                "export bundles cover {next} entries but there are {}",
                pkg.export_bundle_entries.len()
            ),
        ));
    }
    if let Some((i, _)) = pkg
        .export_bundle_entries
        .iter()
        .find(|(e, _)| *e as usize >= pkg.exports.len())
    {
        return Err(Error::invalid(
            at,
            format!(
                "export bundle entry {i} names an export outside the {} exports",
                pkg.exports.len()
            ),
        ));
    }
    Ok(())
}

fn parse_ue4(data: &[u8], store: Option<&StoreEntry>) -> Result<ZenPackage> {
    let all = Reader::new(data);
    let mut r = all.clone();
    let name = MappedName::read(&mut r)?;
    let source = MappedName::read(&mut r)?;
    let package_flags = r.u32("PackageFlags")?;
    let cooked_header_size = r.u32("CookedHeaderSize")?;
    let mut raw = Vec::new();
    for _ in 0..9 {
        raw.push((r.offset(), r.i32("summary offset")?));
    }
    r.skip(4, "summary padding")?;
    let summary_end = r.pos(); // 64
    let (ga, graph_size) = raw[8];
    let (_, graph_off) = raw[7];
    let header_end = i64::from(graph_off) + i64::from(graph_size);
    if graph_off < 0 || graph_size < 0 || header_end > data.len() as i64 {
        return Err(Error::invalid(
            ga,
            format!(
                "graph data {graph_off:#x}+{graph_size:#x} lies outside the chunk ({:#x})",
                data.len()
            ),
        ));
    }
    let hend = header_end as usize;
    let (na, v) = raw[0];
    let names_off = offset(v, summary_end, hend, "NameMapNamesOffset", na)?;
    let names_size = raw[1].1;
    let (ha, v) = raw[2];
    let hashes_off = offset(v, summary_end, hend, "NameMapHashesOffset", ha)?;
    let hashes_size = raw[3].1;
    if names_size < 0 || hashes_size < 0 {
        return Err(Error::invalid(na, "negative name map size"));
    }
    let names_r = all.sub(names_off as u64, names_size as u64, "name map names")?;
    let hashes_r = all.sub(hashes_off as u64, hashes_size as u64, "name map hashes")?;
    let names = read_name_batch_parts(names_r, Some(hashes_r))?;
    let map_start = (names_off + names_size as usize).max(hashes_off + hashes_size as usize);
    let (a, v) = raw[4];
    let import_off = offset(v, map_start, hend, "ImportMapOffset", a)?;
    let (a, v) = raw[5];
    let export_off = offset(v, import_off, hend, "ExportMapOffset", a)?;
    let (a, v) = raw[6];
    let bundles_off = offset(v, export_off, hend, "ExportBundlesOffset", a)?;
    let graph = offset(graph_off, bundles_off, hend, "GraphDataOffset", raw[7].0)?;
    let import_count = records(import_off, export_off, 8, "import map", raw[4].0)?;
    let imports = read_indices(&all, import_off, import_count, "import map")?;
    let export_count = records(
        export_off,
        bundles_off,
        EXPORT_ENTRY_SIZE,
        "export map",
        raw[5].0,
    )?;
    let exports = read_exports(&all, export_off, export_count)?;
    let store = store.ok_or_else(|| {
        Error::Other("UE4 zen packages need their container header store entry".into())
    })?;
    let mut pkg = ZenPackage {
        layout: ZenLayout::Ue4,
        versioning: None,
        header_size: hend as u32,
        name: String::new(),
        source_name: None,
        package_flags,
        cooked_header_size,
        names,
        imported_public_export_hashes: Vec::new(),
        imports,
        exports,
        cell_imports: Vec::new(),
        cell_export_count: 0,
        export_bundle_headers: Vec::new(),
        export_bundle_entries: Vec::new(),
        dependency_bundle_headers: Vec::new(),
        dependency_bundle_entries: Vec::new(),
        imported_package_names: Vec::new(),
        graph_packages: Vec::new(),
        name_mapped: name,
        bulk: None,
        cell_exports: Vec::new(),
        imported_package_name_parts: Vec::new(),
        imported_package_names_written: false,
    };
    pkg.name = name.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            0,
            format!("package name index {} is outside the name map", name.index),
        )
    })?;
    let src = source.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            8,
            format!("source name index {} is outside the name map", source.index),
        )
    })?;
    if src != "None" && src != pkg.name {
        pkg.source_name = Some(src);
    }
    // Export bundles: headers {u32 first, u32 count} × store count, then entries.
    let mut b = all.sub(
        bundles_off as u64,
        (graph - bundles_off) as u64,
        "export bundles",
    )?;
    let nb = b.check_count(
        i64::from(store.export_bundle_count.unwrap_or(0)),
        8,
        "export bundle count (store entry)",
    )?;
    for _ in 0..nb {
        pkg.export_bundle_headers.push(ExportBundleHeader {
            serial_offset: None,
            first_entry: b.u32("export bundle first entry")?,
            entry_count: b.u32("export bundle entry count")?,
        });
    }
    let total: u64 = pkg
        .export_bundle_headers
        .iter()
        .map(|h| u64::from(h.entry_count))
        .sum();
    let n = b.check_count(total as i64, 8, "export bundle entries")?;
    pkg.export_bundle_entries = read_pairs(&b, b.pos(), n, "export bundle entry")?;
    b.skip(n as u64 * 8, "export bundle entries")?;
    if b.remaining() != 0 {
        return Err(Error::invalid(
            b.offset(),
            format!(
                "{} unexpected bytes between the export bundles and the graph data",
                b.remaining()
            ),
        ));
    }
    check_bundles(&pkg, raw[6].0)?;
    // Graph data: i32 package count, {u64 id; TArray<{i32, i32}> arcs}.
    let mut g = all.sub(graph as u64, (hend - graph) as u64, "graph data")?;
    let n = i64::from(g.i32("graph package count")?);
    let n = g.check_count(n, 12, "graph package count")?;
    for _ in 0..n {
        pkg.graph_packages.push(g.u64("graph package id")?);
        let k = i64::from(g.i32("graph arc count")?);
        let k = g.check_count(k, 8, "graph arc count")?;
        g.skip(k as u64 * 8, "graph arcs")?;
    }
    if g.remaining() != 0 {
        return Err(Error::invalid(
            g.offset(),
            format!("{} unexpected bytes after the graph data", g.remaining()),
        ));
    }
    Ok(pkg)
}

/// One `FScriptObjectEntry` (32 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptObject {
    /// Name in the global name map.
    pub name: MappedName,
    /// Its own index value (what imports refer to).
    pub global_index: ObjectIndex,
    /// Outer object (Null for packages such as `/Script/Engine`).
    pub outer: ObjectIndex,
    /// Class of the class default object, for CDOs.
    pub cdo_class: ObjectIndex,
}

/// The global ScriptObjects table.
#[derive(Clone, Debug, Default)]
pub struct ScriptObjects {
    /// Global name map.
    pub names: Vec<BatchName>,
    /// Entries in file order.
    pub objects: Vec<ScriptObject>,
    by_index: HashMap<u64, usize>,
}

impl ScriptObjects {
    /// UE5: the ScriptObjects chunk (`NameBatch; TArray<FScriptObjectEntry>`).
    pub fn parse(data: &[u8]) -> Result<Self> {
        let mut r = Reader::new(data);
        let names = read_name_batch(&mut r)?;
        Self::finish(names, r)
    }

    /// UE4: LoaderInitialLoadMeta (`TArray<FScriptObjectEntry>`) with the
    /// LoaderGlobalNames and LoaderGlobalNameHashes chunks.
    pub fn parse_ue4(meta: &[u8], names: &[u8], hashes: &[u8]) -> Result<Self> {
        let names = read_name_batch_parts(Reader::new(names), Some(Reader::new(hashes)))?;
        Self::finish(names, Reader::new(meta))
    }

    fn finish(names: Vec<BatchName>, mut r: Reader<'_>) -> Result<Self> {
        let n = i64::from(r.i32("script object count")?);
        let n = r.check_count(n, 32, "script object count")?;
        let mut objects = Vec::with_capacity(n);
        let mut by_index = HashMap::with_capacity(n);
        for i in 0..n {
            let o = ScriptObject {
                name: MappedName::read(&mut r)?,
                global_index: ObjectIndex(r.u64("script object index")?),
                outer: ObjectIndex(r.u64("script object outer")?),
                cdo_class: ObjectIndex(r.u64("script object CDO class")?),
            };
            by_index.entry(o.global_index.0).or_insert(i);
            objects.push(o);
        }
        if r.remaining() != 0 {
            return Err(Error::invalid(
                r.offset(),
                format!(
                    "{} unexpected bytes after the script objects",
                    r.remaining()
                ),
            ));
        }
        Ok(ScriptObjects {
            names,
            objects,
            by_index,
        })
    }

    /// The entry with this index value.
    pub fn get(&self, index: ObjectIndex) -> Option<&ScriptObject> {
        self.by_index
            .get(&index.0)
            .and_then(|&i| self.objects.get(i))
    }

    /// The object's name (`None` if unknown).
    pub fn name(&self, index: ObjectIndex) -> Option<String> {
        self.get(index).and_then(|o| o.name.resolve(&self.names))
    }

    /// The full object path, e.g. `/Script/Engine.Texture2D` (outer chain
    /// followed at most 32 levels; `.` after the package, `:` below objects).
    pub fn path(&self, index: ObjectIndex) -> Option<String> {
        let mut parts = Vec::new();
        let mut cur = index;
        for _ in 0..32 {
            let o = self.get(cur)?;
            parts.push(o.name.resolve(&self.names)?);
            if o.outer.is_null() {
                parts.reverse();
                let mut s = String::new();
                for (i, p) in parts.iter().enumerate() {
                    match i {
                        0 => {}
                        1 => s.push('.'),
                        _ => s.push(':'),
                    }
                    s.push_str(p);
                }
                return Some(s);
            }
            cur = o.outer;
        }
        None
    }
}

/// One package of a container: where it is and its parsed header (or why it
/// could not be read).
#[derive(Debug)]
pub struct PackageEntry {
    /// TOC entry index of its ExportBundleData chunk.
    pub chunk_index: usize,
    /// Package id (the chunk id's `Id`).
    pub id: u64,
    /// Path from the directory index, if indexed.
    pub path: Option<String>,
    /// The parsed header, or the error.
    pub header: Result<ZenPackage>,
}

/// The packages of a container: the container header and every zen package.
#[derive(Debug)]
pub struct ContainerPackages {
    /// The container header.
    pub header: ContainerHeader,
    /// Layout of its packages.
    pub layout: ZenLayout,
    /// Every ExportBundleData chunk with index 0, in TOC order.
    pub packages: Vec<PackageEntry>,
    /// Package id → position in the container header's package ids.
    store_index: HashMap<u64, usize>,
}

impl ContainerPackages {
    /// Read the container header and parse every package header (in parallel).
    /// A container without a container header chunk (e.g. `global.utoc`) has
    /// no packages to list and is an error naming that.
    pub fn read(c: &Container) -> Result<Self> {
        let hi = c.find_by_type(ChunkType::ContainerHeader).ok_or_else(|| {
            Error::Other(format!(
                "{}: no container header chunk: not a container of zen packages",
                c.path().display()
            ))
        })?;
        let hdata = c.read_chunk(hi)?;
        let header = pakrat_iostore::container_header::parse(&hdata)
            .map_err(|e| Error::Other(format!("container header chunk: {e}")).in_file(c.path()))?;
        let layout = ZenLayout::for_header(header.form).map_err(|e| e.in_file(c.path()))?;
        let mut store_index = HashMap::with_capacity(header.package_ids.len());
        for (i, id) in header.package_ids.iter().enumerate() {
            store_index.entry(*id).or_insert(i);
        }
        let store = |id: u64| {
            store_index
                .get(&id)
                .and_then(|&i| header.store_entries.get(i))
                .or_else(|| header.store_entry(id))
        };
        let toc = c.toc();
        let idx: Vec<usize> = (0..toc.len())
            .filter(|&i| {
                let id = toc.chunk_ids[i];
                toc.chunk_type(i) == ChunkType::ExportBundleData
                    && id.index() == 0
                    && id.byte10() == 0
            })
            .collect();
        let packages = idx
            .par_iter()
            .map(|&i| {
                let id = toc.chunk_ids[i].id();
                let header =
                    read_header_bytes(c, i, layout).and_then(|d| parse(&d, layout, store(id)));
                PackageEntry {
                    chunk_index: i,
                    id,
                    path: c.path_of(i),
                    header,
                }
            })
            .collect();
        Ok(ContainerPackages {
            header,
            layout,
            packages,
            store_index,
        })
    }

    /// The store entry of a package id (hash lookup; optional-segment
    /// packages by a linear search).
    pub fn store_entry(&self, id: u64) -> Option<&StoreEntry> {
        self.store_index
            .get(&id)
            .and_then(|&i| self.header.store_entries.get(i))
            .or_else(|| self.header.store_entry(id))
    }

    /// Find a package by name (case-insensitive), directory path, id (16 hex
    /// digits, with or without `0x`), or a bare object name that only one
    /// package ends with.
    pub fn find(&self, query: &str) -> Option<&PackageEntry> {
        let q = query.trim();
        let hex = q
            .strip_prefix("0x")
            .or_else(|| q.strip_prefix("0X"))
            .unwrap_or(q);
        let as_id = if hex.len() == 16 {
            u64::from_str_radix(hex, 16).ok()
        } else {
            None
        };
        let as_name = pakrat_codec::names::package_id(q);
        let exact = self.packages.iter().find(|p| {
            Some(p.id) == as_id
                || p.id == as_name
                || p.path.as_deref().is_some_and(|path| {
                    path.eq_ignore_ascii_case(q)
                        || path
                            .rsplit_once('.')
                            .is_some_and(|(stem, _)| stem.eq_ignore_ascii_case(q))
                })
        });
        if exact.is_some() {
            return exact;
        }
        // A bare object name (`T_BC1`) when exactly one package ends with it.
        let mut hits = self.packages.iter().filter(|p| {
            p.header.as_ref().is_ok_and(|h| {
                h.name
                    .rsplit('/')
                    .next()
                    .is_some_and(|leaf| leaf.eq_ignore_ascii_case(q))
            })
        });
        match (hits.next(), hits.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Index of public exports across the container: (package id, public
    /// export hash) → (package position, export index); UE4 global import
    /// indices are also keyed as (0, index).
    pub fn public_exports(&self) -> HashMap<(u64, u64), (usize, usize)> {
        let mut m = HashMap::new();
        for (pi, p) in self.packages.iter().enumerate() {
            if let Ok(h) = &p.header {
                for (ei, e) in h.exports.iter().enumerate() {
                    if e.public_export_hash != 0 {
                        m.entry((p.id, e.public_export_hash)).or_insert((pi, ei));
                        if h.layout == ZenLayout::Ue4 {
                            // UE4 global import indices are container-wide.
                            m.entry((0, e.public_export_hash)).or_insert((pi, ei));
                        }
                    }
                }
            }
        }
        m
    }
}

/// How many bytes of a package chunk its header needs, once the first 64
/// bytes are known: UE5 `HeaderSize` (offset 4), UE4 `GraphDataOffset +
/// GraphDataSize` (offsets 52 and 56).
fn header_len(start: &[u8], layout: ZenLayout) -> Option<usize> {
    let at = |o: usize| {
        start
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    match layout {
        ZenLayout::Ue4 => Some(at(52)?.saturating_add(at(56)?)),
        _ => at(4),
    }
}

/// The first bytes of a package chunk, up to the end of its header: the
/// blocks after it are not decoded (export data can be megabytes).
fn read_header_bytes(c: &Container, i: usize, layout: ZenLayout) -> Result<Vec<u8>> {
    const STOP: &str = "\u{0}pakrat: package header complete";
    let mut out = Vec::new();
    let mut need: Option<usize> = None;
    let r = c.stream_chunk(i, |b| {
        out.extend_from_slice(b);
        if need.is_none() && out.len() >= 64 {
            need = header_len(&out, layout);
        }
        match need {
            Some(n) if out.len() >= n => Err(Error::Other(STOP.into())),
            _ => Ok(()),
        }
    });
    match r {
        Ok(()) => Ok(out),
        Err(Error::Other(m)) if m == STOP => Ok(out),
        Err(e) => Err(e),
    }
}

/// Load the script objects of a global container (UE5 ScriptObjects chunk,
/// or the UE4 LoaderInitialLoadMeta + LoaderGlobalNames + hashes chunks).
pub fn load_script_objects(global: &Container) -> Result<ScriptObjects> {
    let path = global.path().to_path_buf();
    if let Some(i) = global.find_by_type(ChunkType::ScriptObjects) {
        return ScriptObjects::parse(&global.read_chunk(i)?).map_err(|e| e.in_file(&path));
    }
    let find = |t: ChunkType| {
        global.find_by_type(t).ok_or_else(|| {
            Error::Other(format!(
                "{}: no ScriptObjects chunk (UE5) nor {t} chunk (UE4): not a global container",
                path.display()
            ))
        })
    };
    let meta = global.read_chunk(find(ChunkType::LoaderInitialLoadMeta)?)?;
    let names = global.read_chunk(find(ChunkType::LoaderGlobalNames)?)?;
    let hashes = global.read_chunk(find(ChunkType::LoaderGlobalNameHashes)?)?;
    ScriptObjects::parse_ue4(&meta, &names, &hashes).map_err(|e| e.in_file(&path))
}

/// Resolves object indices of one package to readable names.
pub struct Resolver<'a> {
    /// All packages of the container.
    pub all: &'a ContainerPackages,
    /// Script objects, when a global container was loaded.
    pub script: Option<&'a ScriptObjects>,
    /// Public export index of the container.
    pub public: &'a HashMap<(u64, u64), (usize, usize)>,
}

impl Resolver<'_> {
    /// Readable name of `index` as seen from package `pkg` (id `pkg_id`).
    pub fn name(&self, pkg: &ZenPackage, pkg_id: u64, index: ObjectIndex) -> String {
        match index.get() {
            ObjectRef::Null => String::new(),
            ObjectRef::Export(i) => pkg
                .exports
                .get(i as usize)
                .map(|e| pkg.name_of(e.name))
                .unwrap_or_else(|| format!("<export {i} out of range>")),
            ObjectRef::Script(v) => self
                .script
                .and_then(|s| s.path(index))
                .unwrap_or_else(|| format!("<script {v:#018x}>")),
            ObjectRef::Package { package, hash, raw } => {
                if pkg.layout == ZenLayout::Ue4 {
                    // UE4: a global import index shared by all packages.
                    return match self.public.get(&(0, raw)) {
                        Some(&(pi, ei)) => self.export_path(pi, ei),
                        None => format!("<import {raw:#018x}>"),
                    };
                }
                let pid = self
                    .all
                    .store_entry(pkg_id)
                    .and_then(|s| s.imported_packages.get(package as usize).copied())
                    .or_else(|| {
                        pkg.imported_package_names
                            .get(package as usize)
                            .map(|n| pakrat_codec::names::package_id(n))
                    });
                let h = pkg
                    .imported_public_export_hashes
                    .get(hash as usize)
                    .copied();
                match (pid, h) {
                    (Some(pid), Some(h)) => match self.public.get(&(pid, h)) {
                        Some(&(pi, ei)) => self.export_path(pi, ei),
                        None => {
                            let pname = pkg
                                .imported_package_names
                                .get(package as usize)
                                .cloned()
                                .unwrap_or_else(|| format!("{pid:016X}"));
                            format!("{pname}.<{h:016x}>")
                        }
                    },
                    _ => format!("<import {raw:#018x} out of range>"),
                }
            }
        }
    }

    fn export_path(&self, pi: usize, ei: usize) -> String {
        match self.all.packages.get(pi).map(|p| &p.header) {
            Some(Ok(h)) => match h.exports.get(ei) {
                Some(e) => format!("{}.{}", h.name, h.name_of(e.name)),
                None => h.name.clone(),
            },
            _ => "<unreadable package>".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pakrat_codec::names::{name_hash, NAME_HASH_ALGORITHM_ID};
    use pakrat_io::Writer;

    fn name_batch(w: &mut Writer, names: &[&str]) {
        w.u32(names.len() as u32);
        if names.is_empty() {
            return;
        }
        w.u32(names.iter().map(|s| s.len() as u32).sum());
        w.u64(NAME_HASH_ALGORITHM_ID);
        for s in names {
            w.u64(name_hash(s, false));
        }
        for s in names {
            w.u8(0).u8(s.len() as u8);
        }
        for s in names {
            w.bytes(s.as_bytes());
        }
    }

    /// A minimal unversioned UE 5.6+ package with one export.
    fn ue56() -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(0).u32(0); // versioning, header size (patched)
        w.u32(0).u32(0); // name: index 0
        w.u32(0).u32(0x100); // flags, cooked header size
        for _ in 0..7 {
            w.i32(0); // patched below
        }
        w.i32(0).i32(0); // cell offsets (patched)
        name_batch(&mut w, &["/Game/Foo", "Foo"]);
        let hashes = w.len();
        w.u64(0xAB); // one imported public export hash
        let imports = w.len();
        w.u64(u64::MAX); // one Null import
        w.u64(1 << 62 | 5); // one script import
        let exports = w.len();
        w.u64(0).u64(10); // serial offset, size
        w.u32(1).u32(0); // name "Foo"
        w.u64(u64::MAX).u64(1 << 62 | 5).u64(u64::MAX).u64(u64::MAX);
        w.u64(0x1234).u32(1).u8(0).bytes(&[0, 0, 0]);
        let cells = w.len();
        let bundles = w.len();
        w.u32(0).u32(0).u32(0).u32(1);
        let dep_h = w.len();
        w.i32(0).u32(0).u32(0).u32(0).u32(1);
        let dep_e = w.len();
        w.i32(-2);
        let pnames = w.len();
        name_batch(&mut w, &["/Script/Engine"]);
        w.i32(0);
        let end = w.len();
        let mut v = w.into_inner();
        let put = |v: &mut Vec<u8>, at: usize, x: usize| {
            v[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes())
        };
        put(&mut v, 4, end);
        for (i, x) in [hashes, imports, exports, bundles, dep_h, dep_e, pnames]
            .iter()
            .enumerate()
        {
            put(&mut v, 24 + 4 * i, *x);
        }
        put(&mut v, 52, cells);
        put(&mut v, 56, cells);
        v.extend_from_slice(&[0u8; 10]); // export data
        v
    }

    #[test]
    fn reads_ue56_package() {
        let d = ue56();
        let p = parse(&d, ZenLayout::Ue5_3 { cells: true }, None).unwrap();
        assert_eq!(p.name, "/Game/Foo");
        assert_eq!(p.exports.len(), 1);
        assert_eq!(p.name_of(p.exports[0].name), "Foo");
        assert_eq!(p.imports.len(), 2);
        assert!(p.imports[0].is_null());
        assert_eq!(p.imports[1].get(), ObjectRef::Script(1 << 62 | 5));
        assert_eq!(p.imported_public_export_hashes, vec![0xAB]);
        assert_eq!(p.export_bundle_entries, vec![(0, 0), (0, 1)]);
        assert_eq!(p.dependency_bundle_entries, vec![-2]);
        assert_eq!(p.imported_package_names, vec!["/Script/Engine".to_string()]);
        assert_eq!(p.name_hash_mismatches(), 0);
        // Without the cell offsets (5.3-5.5 layout) the same bytes do not parse.
        assert!(parse(&d, ZenLayout::Ue5_3 { cells: false }, None).is_err());
    }

    /// A minimal unversioned UE 5.0-5.2 package: one export in one bundle,
    /// one imported package with one external arc.
    fn ue50() -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(0).u32(0); // versioning, header size (patched)
        w.u32(0).u32(0); // name index 0
        w.u32(0).u32(0x80);
        for _ in 0..5 {
            w.i32(0);
        }
        name_batch(&mut w, &["/Game/Bar", "Bar"]);
        let hashes = w.len();
        let imports = w.len();
        w.u64(2 << 62); // package import 0, hash 0
        let exports = w.len();
        w.u64(0x80).u64(4).u32(1).u32(0);
        w.u64(u64::MAX).u64(u64::MAX).u64(u64::MAX).u64(u64::MAX);
        w.u64(0x99).u32(1).u8(0).bytes(&[0, 0, 0]);
        let bundles = w.len();
        w.u32(0).u32(0).u32(0).u32(1);
        let graph = w.len();
        w.u64(0).u32(0).u32(2); // one bundle header: entries 0..2
        w.i32(0); // internal arcs
        w.i32(1).i32(0).u8(1).i32(0); // one external arc for the imported package
        let end = w.len();
        let mut v = w.into_inner();
        let put = |v: &mut Vec<u8>, at: usize, x: usize| {
            v[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes())
        };
        put(&mut v, 4, end);
        for (i, x) in [hashes, imports, exports, bundles, graph]
            .iter()
            .enumerate()
        {
            put(&mut v, 24 + 4 * i, *x);
        }
        v
    }

    #[test]
    fn reads_ue50_package_with_its_store_entry() {
        let d = ue50();
        let store = StoreEntry {
            export_count: Some(1),
            export_bundle_count: Some(1),
            imported_packages: vec![0x1234],
            ..Default::default()
        };
        let p = parse(&d, ZenLayout::Ue5_0, Some(&store)).unwrap();
        assert_eq!(p.name, "/Game/Bar");
        assert_eq!(p.exports.len(), 1);
        assert_eq!(p.export_bundle_headers.len(), 1);
        assert_eq!(p.export_bundle_entries, vec![(0, 0), (0, 1)]);
        assert_eq!(p.graph_packages, vec![0x1234]);
        assert_eq!(
            p.imports[0].get(),
            ObjectRef::Package {
                package: 0,
                hash: 0,
                raw: 2 << 62
            }
        );
        // Without the store entry, or with the wrong bundle or import count,
        // the graph data does not add up.
        assert!(parse(&d, ZenLayout::Ue5_0, None).is_err());
        let two = StoreEntry {
            export_bundle_count: Some(2),
            ..store.clone()
        };
        assert!(parse(&d, ZenLayout::Ue5_0, Some(&two)).is_err());
        let none = StoreEntry {
            imported_packages: vec![],
            ..store
        };
        assert!(parse(&d, ZenLayout::Ue5_0, Some(&none)).is_err());
    }

    #[test]
    fn hostile_bytes_are_errors() {
        let d = ue56();
        for n in 0..d.len() - 10 {
            assert!(
                parse(&d[..n], ZenLayout::Ue5_3 { cells: true }, None).is_err(),
                "{n}"
            );
        }
        // Flip every byte of the header in turn: never a panic.
        for i in 0..d.len() - 10 {
            let mut m = d.clone();
            m[i] ^= 0xFF;
            let _ = parse(&m, ZenLayout::Ue5_3 { cells: true }, None);
            let _ = parse(&m, ZenLayout::Ue5_0, Some(&StoreEntry::default()));
            let _ = parse(&m, ZenLayout::Ue4, Some(&StoreEntry::default()));
        }
    }

    #[test]
    fn script_objects() {
        let mut w = Writer::new();
        name_batch(&mut w, &["/Script/Engine", "Texture2D"]);
        let pkg = pakrat_codec::names::script_import_index("/Script/Engine");
        let cls = pakrat_codec::names::script_import_index("/Script/Engine.Texture2D");
        w.i32(2);
        w.u32(0x8000_0000)
            .u32(0)
            .u64(pkg)
            .u64(u64::MAX)
            .u64(u64::MAX);
        w.u32(0x8000_0001).u32(0).u64(cls).u64(pkg).u64(u64::MAX);
        let s = ScriptObjects::parse(&w.into_inner()).unwrap();
        assert_eq!(
            s.path(ObjectIndex(cls)).as_deref(),
            Some("/Script/Engine.Texture2D")
        );
        assert_eq!(s.name(ObjectIndex(cls)).as_deref(), Some("Texture2D"));
        assert!(s.path(ObjectIndex(7)).is_none());
    }

    #[test]
    fn script_object_cycles_end() {
        let mut w = Writer::new();
        name_batch(&mut w, &["A"]);
        w.i32(1);
        w.u32(0x8000_0000)
            .u32(0)
            .u64(1 << 62 | 1)
            .u64(1 << 62 | 1)
            .u64(u64::MAX);
        let s = ScriptObjects::parse(&w.into_inner()).unwrap();
        assert!(s.path(ObjectIndex(1 << 62 | 1)).is_none());
    }

    #[test]
    fn layouts_follow_the_container_header() {
        assert_eq!(
            ZenLayout::for_header(HeaderForm::Ue4).unwrap(),
            ZenLayout::Ue4
        );
        assert_eq!(
            ZenLayout::for_header(HeaderForm::Ue5(2)).unwrap(),
            ZenLayout::Ue5_0
        );
        assert_eq!(
            ZenLayout::for_header(HeaderForm::Ue5(4)).unwrap(),
            ZenLayout::Ue5_3 { cells: false }
        );
        assert_eq!(
            ZenLayout::for_header(HeaderForm::Ue5(5)).unwrap(),
            ZenLayout::Ue5_3 { cells: true }
        );
        assert!(ZenLayout::for_header(HeaderForm::Ue5(0)).is_err());
    }
}
