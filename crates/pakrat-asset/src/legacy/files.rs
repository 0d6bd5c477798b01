//! A legacy package as files on disk: the `.uasset`/`.umap` header, the
//! `.uexp` export data beside it and the bulk data files (`.ubulk`,
//! `.uptnl`, `.m.ubulk`), and the checks `pakrat verify` runs over them.

use std::path::{Path, PathBuf};

use super::LegacyPackage;

/// `BULKDATA_PayloadInSeperateFile` (UE `EBulkDataFlags`, spelled as in UE).
pub const BULKDATA_PAYLOAD_IN_SEPARATE_FILE: u32 = 1 << 8;
/// `BULKDATA_OptionalPayload`: the payload is in the `.uptnl`.
pub const BULKDATA_OPTIONAL_PAYLOAD: u32 = 1 << 11;
/// `BULKDATA_MemoryMappedPayload`: the payload is in the `.m.ubulk`.
pub const BULKDATA_MEMORY_MAPPED_PAYLOAD: u32 = 1 << 12;

/// Which bulk data file a payload lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BulkFile {
    /// `.ubulk`.
    Bulk,
    /// `.uptnl` (optional payloads).
    Optional,
    /// `.m.ubulk` (memory-mapped payloads).
    MemoryMapped,
}

impl BulkFile {
    /// All three.
    pub const ALL: [BulkFile; 3] = [BulkFile::Bulk, BulkFile::Optional, BulkFile::MemoryMapped];

    /// The file a payload with these `EBulkDataFlags` is in, or `None` when
    /// it is inline (in the `.uexp`).
    pub fn of_flags(f: u32) -> Option<BulkFile> {
        if f & BULKDATA_PAYLOAD_IN_SEPARATE_FILE == 0 {
            None
        } else if f & BULKDATA_OPTIONAL_PAYLOAD != 0 {
            Some(BulkFile::Optional)
        } else if f & BULKDATA_MEMORY_MAPPED_PAYLOAD != 0 {
            Some(BulkFile::MemoryMapped)
        } else {
            Some(BulkFile::Bulk)
        }
    }

    /// Its extension.
    pub fn ext(self) -> &'static str {
        match self {
            BulkFile::Bulk => "ubulk",
            BulkFile::Optional => "uptnl",
            BulkFile::MemoryMapped => "m.ubulk",
        }
    }
}

/// `X.uasset` → `X.<ext>`.
pub fn companion(path: &Path, ext: &str) -> PathBuf {
    path.with_extension(ext)
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Problems, each naming what and where.
    pub problems: Vec<String>,
    /// Export data ranges checked.
    pub exports_checked: usize,
    /// Data resources checked against their bulk file.
    pub resources_checked: usize,
}

/// Check a legacy package against its files: every reference resolves,
/// every export's data lies in the `.uexp` (or the file itself), a `.uexp`
/// ends with the package tag, and every data resource stored in a bulk
/// file lies inside that file. `bulk` gives each bulk file's size, if
/// the file is there.
pub fn verify(
    pkg: &LegacyPackage,
    asset: &[u8],
    uexp: Option<&[u8]>,
    bulk: &dyn Fn(BulkFile) -> Option<u64>,
) -> Report {
    let mut r = Report::default();
    if let Err(e) = pkg.check_references() {
        r.problems.push(format!("references: {e}"));
    }
    for i in 0..pkg.exports.len() {
        match pkg.export_data(i, asset, uexp) {
            Ok(_) => r.exports_checked += 1,
            Err(e) => r.problems.push(e.to_string()),
        }
    }
    if let Some(u) = uexp {
        let tag = super::summary::PACKAGE_FILE_TAG.to_le_bytes();
        if u.len() < 4 || u[u.len() - 4..] != tag {
            r.problems.push(format!(
                ".uexp ({} bytes) does not end with the package tag C1 83 2A 9E",
                u.len()
            ));
        }
    }
    for (i, d) in pkg.data_resources.iter().enumerate() {
        let Some(kind) = BulkFile::of_flags(d.legacy_bulk_data_flags) else {
            continue;
        };
        let Some(size) = bulk(kind) else {
            r.problems.push(format!(
                "data resource {i}: its payload is in the .{} (bulk data flags {:#x}), which is missing",
                kind.ext(),
                d.legacy_bulk_data_flags
            ));
            continue;
        };
        let end = d.serial_offset.checked_add(d.serial_size);
        match end {
            Some(end) if d.serial_offset >= 0 && d.serial_size >= 0 && end as u64 <= size => {
                r.resources_checked += 1
            }
            _ => r.problems.push(format!(
                "data resource {i}: {:#x}+{:#x} lies outside the .{} ({size} bytes)",
                d.serial_offset,
                d.serial_size,
                kind.ext()
            )),
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_file_of_flags() {
        assert_eq!(BulkFile::of_flags(0x1), None);
        assert_eq!(BulkFile::of_flags(0x100), Some(BulkFile::Bulk));
        assert_eq!(BulkFile::of_flags(0x900), Some(BulkFile::Optional));
        assert_eq!(BulkFile::of_flags(0x1100), Some(BulkFile::MemoryMapped));
        assert_eq!(
            companion(Path::new("a/B.uasset"), "m.ubulk"),
            Path::new("a/B.m.ubulk")
        );
    }
}
