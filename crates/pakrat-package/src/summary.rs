//! The package summary (file header), `classic.md` §3.1–3.2.

use pakrat_io::{Error, Guid, Reader, Result};
use serde::Serialize;

use crate::flags;

/// The standard package tag (`C1 83 2A 9E` on disk).
pub const TAG: u32 = 0x9E2A_83C1;
/// Killing Floor 1's package tag (`C2 83 2A 9E`), otherwise a standard
/// UT2004 v128/29 header (UEViewer accepts it; KFRT requires it).
pub const TAG_KILLING_FLOOR: u32 = 0x9E2A_83C2;

/// Oldest version read: Unreal 227's `PACKAGE_MIN_VERSION` (older betas lack
/// the import/export `PackageIndex`).
pub const MIN_VERSION: u16 = 60;
/// Newest version read. 130–179 are "UE2.5"/UE2X licensee builds with
/// different layouts (Bioshock, UC2, SWRC…); 180 and up are UE3.
pub const MAX_VERSION: u16 = 129;
/// First version UEViewer treats as Unreal Engine 3 (`PACKAGE_V3`).
pub const UE3_VERSION: u16 = 180;

/// Tag variant of a package.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TagKind {
    /// `0x9E2A83C1`.
    Standard,
    /// `0x9E2A83C2` (Killing Floor 1).
    KillingFloor,
}

/// One entry of the generation table (ver ≥ 68): counts when the package
/// was saved in an earlier generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Generation {
    /// Export count of that generation.
    pub export_count: i32,
    /// Name count of that generation.
    pub name_count: i32,
}

/// A table's position in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TableRef {
    /// Number of entries.
    pub count: u32,
    /// Absolute file offset of the first entry.
    pub offset: u32,
}

/// The package summary: everything in the header, validated against the
/// file size. Cheap to parse (see [`Summary::parse`]).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The raw tag.
    pub tag: u32,
    /// Which tag variant.
    pub tag_kind: TagKind,
    /// File version (low 16 bits of the version field).
    pub version: u16,
    /// Licensee version (high 16 bits).
    pub licensee: u16,
    /// Raw package flags.
    pub package_flags: u32,
    /// Name table.
    pub names: TableRef,
    /// Export table.
    pub exports: TableRef,
    /// Import table.
    pub imports: TableRef,
    /// ver < 68: the heritage table position (its GUIDs are in `heritage`).
    pub heritage_table: Option<TableRef>,
    /// ver < 68: every heritage GUID, oldest first (the last is the package's).
    pub heritage: Vec<Guid>,
    /// The package GUID: stored directly from ver 68, else the last heritage
    /// GUID (zero when the heritage table is empty).
    pub guid: Guid,
    /// ver ≥ 68: the generation table.
    pub generations: Vec<Generation>,
    /// Bytes used by the header itself (44 for ver < 68, `56 + 8·generations` else).
    pub header_size: u32,
}

/// Explain why a (version, licensee) pair is not read, or `None` when its
/// layout is the standard one pakrat reads exactly.
///
/// Accepted: versions 60–69 and 99–129 with licensee 0 (Epic's own builds:
/// Unreal, UT99, early UE2 builds, UT2003/2004 tools), and versions 117–129
/// with licensees 25–29 (UT2003/UT2004 and games built on them, Killing Floor
/// included). Everything else is refused with the reason.
pub fn unsupported_reason(version: u16, licensee: u16) -> Option<String> {
    let v = version;
    let l = licensee;
    if v >= UE3_VERSION {
        return Some(format!(
            "package version {v} (licensee {l}) is an Unreal Engine 3 or later package; \
             pakrat reads UE1/UE2 packages (versions {MIN_VERSION}-69 and 99-{MAX_VERSION})"
        ));
    }
    if v > MAX_VERSION {
        return Some(format!(
            "package version {v} (licensee {l}) is a UE2.5/UE2X licensee build (Bioshock, \
             Unreal Championship 2, SWRC, ...) whose layout differs; pakrat reads versions \
             {MIN_VERSION}-69 and 99-{MAX_VERSION}"
        ));
    }
    if v < MIN_VERSION {
        return Some(format!(
            "package version {v} (licensee {l}) is older than {MIN_VERSION} (Unreal beta \
             layout without the outer index); not supported"
        ));
    }
    if (70..99).contains(&v) {
        return Some(format!(
            "package version {v} (licensee {l}) belongs to a UE1 licensee game (DS9, Undying, \
             Harry Potter, Mobile Forces, Deus Ex IW/Thief 3...) whose object layout is not \
             verified; not supported"
        ));
    }
    if l == 0 || ((117..=MAX_VERSION).contains(&v) && (25..=29).contains(&l)) {
        return None;
    }
    Some(format!(
        "package version {v} with licensee {l}: unknown licensee layout (pakrat reads licensee \
         0, and licensees 25-29 for versions 117-{MAX_VERSION}); refusing rather than misreading"
    ))
}

impl Summary {
    /// Parse the header of `data` (the whole file, or at least its header and
    /// heritage table). Reads only the header, the generation table and (ver
    /// < 68) the heritage GUIDs; checks every table's count and offset against
    /// `file_len` (pass `data.len()` for a whole file).
    ///
    /// Refuses big-endian packages, UE3+ packages and unknown licensee layouts
    /// with a message naming version and licensee ([`unsupported_reason`]).
    pub fn parse(data: &[u8]) -> Result<Summary> {
        Self::parse_with_len(data, data.len() as u64)
    }

    /// Like [`Summary::parse`], for when `data` is only the start of a file
    /// of `file_len` bytes (table bounds are checked against `file_len`).
    pub fn parse_with_len(data: &[u8], file_len: u64) -> Result<Summary> {
        let mut r = Reader::new(data);
        let tag = r.u32("package tag")?;
        let tag_kind = match tag {
            TAG => TagKind::Standard,
            TAG_KILLING_FLOOR => TagKind::KillingFloor,
            0xC183_2A9E | 0xC283_2A9E => {
                return Err(Error::unsupported(
                    0,
                    "big-endian (console) package: byte-swapped tag 0x9E2A83C1",
                ))
            }
            other => {
                return Err(Error::invalid(
                    0,
                    format!(
                        "expected package tag 0x9E2A83C1 (or 0x9E2A83C2 for Killing Floor), \
                         found {other:#010x}"
                    ),
                ))
            }
        };
        let version = r.u16("package version")?;
        let licensee = r.u16("licensee version")?;
        if let Some(why) = unsupported_reason(version, licensee) {
            return Err(Error::unsupported(4, why));
        }
        let package_flags = r.u32("package flags")?;
        let table = |r: &mut Reader<'_>, what: &str| -> Result<(i32, i32, u64)> {
            let at = r.offset();
            let count = r.i32(&format!("{what} count"))?;
            let offset = r.i32(&format!("{what} offset"))?;
            Ok((count, offset, at))
        };
        let names = table(&mut r, "name table")?;
        let exports = table(&mut r, "export table")?;
        let imports = table(&mut r, "import table")?;
        let mut heritage_table = None;
        let mut heritage = Vec::new();
        let mut generations = Vec::new();
        let guid;
        if version < 68 {
            let (count, offset, at) = table(&mut r, "heritage table")?;
            let t = check_table(at, "heritage table", count, offset, 16, file_len)?;
            let mut h = Reader::new(data).at(u64::from(t.offset), "heritage table")?;
            h.check_count(i64::from(t.count), 16, "heritage table")?;
            heritage.reserve(t.count as usize);
            for _ in 0..t.count {
                heritage.push(h.guid("heritage GUID")?);
            }
            guid = heritage.last().copied().unwrap_or_default();
            heritage_table = Some(t);
        } else {
            guid = r.guid("package GUID")?;
            let at = r.offset();
            let n = r.i32("generation count")?;
            let n = r
                .check_count(i64::from(n), 8, "generation table")
                .map_err(|e| Error::invalid(at, e.to_string()))?;
            generations.reserve(n);
            for _ in 0..n {
                generations.push(Generation {
                    export_count: r.i32("generation export count")?,
                    name_count: r.i32("generation name count")?,
                });
            }
        }
        let header_size = r.pos() as u32;
        let check = |(count, offset, at): (i32, i32, u64), what: &str, min: u64| {
            check_table(at, what, count, offset, min, file_len)
        };
        Ok(Summary {
            tag,
            tag_kind,
            version,
            licensee,
            package_flags,
            names: check(names, "name table", MIN_NAME_SIZE)?,
            exports: check(exports, "export table", MIN_EXPORT_SIZE)?,
            imports: check(imports, "import table", MIN_IMPORT_SIZE)?,
            heritage_table,
            heritage,
            guid,
            generations,
            header_size,
        })
    }

    /// Names of the package flags that are set (unknown bits as `0x…`).
    pub fn package_flag_names(&self) -> Vec<String> {
        flags::package_flag_names(self.package_flags)
    }

    /// True for UE2-era packages (version ≥ 100, UEViewer's `PACKAGE_V2`).
    pub fn is_ue2(&self) -> bool {
        self.version >= 100
    }
}

/// Smallest name entry: empty string (1 byte) + u32 flags.
pub(crate) const MIN_NAME_SIZE: u64 = 5;
/// Smallest import entry: 3 one-byte compact names + i32 outer.
pub(crate) const MIN_IMPORT_SIZE: u64 = 7;
/// Smallest export entry: 4 one-byte compacts + i32 outer + u32 flags.
pub(crate) const MIN_EXPORT_SIZE: u64 = 12;

fn check_table(
    at: u64,
    what: &str,
    count: i32,
    offset: i32,
    min_size: u64,
    file_len: u64,
) -> Result<TableRef> {
    if count < 0 {
        return Err(Error::invalid(
            at,
            format!("{what}: negative count {count}"),
        ));
    }
    if offset < 0 || offset as u64 > file_len {
        return Err(Error::invalid(
            at + 4,
            format!("{what}: offset {offset:#x} lies outside the file ({file_len:#x} bytes)"),
        ));
    }
    let room = file_len - offset as u64;
    if count as u64 * min_size > room {
        return Err(Error::invalid(
            at,
            format!(
                "{what}: {count} entries of at least {min_size} bytes cannot fit in the \
                 {room} bytes after offset {offset:#x}"
            ),
        ));
    }
    Ok(TableRef {
        count: count as u32,
        offset: offset as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_version_and_licensee() {
        assert!(unsupported_reason(69, 0).is_none());
        assert!(unsupported_reason(128, 29).is_none());
        assert!(unsupported_reason(61, 0).is_none());
        let e = unsupported_reason(868, 0).unwrap();
        assert!(
            e.contains("868") && e.contains("licensee 0") && e.contains("Engine 3"),
            "{e}"
        );
        let e = unsupported_reason(128, 32).unwrap();
        assert!(e.contains("licensee 32"), "{e}");
        assert!(unsupported_reason(141, 56).is_some());
        assert!(unsupported_reason(37, 0).is_some());
        assert!(unsupported_reason(85, 0).is_some());
    }

    #[test]
    fn bad_tags() {
        let e = Summary::parse(b"PK\x03\x04rest of it").unwrap_err();
        assert!(e.to_string().contains("expected package tag"), "{e}");
        let e = Summary::parse(&[0x9E, 0x2A, 0x83, 0xC1, 0, 0]).unwrap_err();
        assert!(e.to_string().contains("big-endian"), "{e}");
        let e = Summary::parse(&[0xC1, 0x83, 0x2A]).unwrap_err();
        assert!(e.to_string().contains("package tag"), "{e}");
    }
}
