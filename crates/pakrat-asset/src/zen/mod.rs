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

mod container;
mod read;
mod script;
#[cfg(test)]
mod tests;

use pakrat_io::{Error, Guid, Result, Writer};
use serde::Serialize;

use pakrat_codec::names::{write_name_batch, BatchName, MappedName};
use pakrat_iostore::container_header::HeaderForm;

pub use container::{ContainerPackages, PackageEntry, Resolver};
pub use read::{package_name, parse};
pub use script::{load_script_objects, ScriptObject, ScriptObjects};

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
