//! The package summary (file header), `classic.md` §3.1–3.2.

use pakrat_io::{Error, Guid, Reader, Result};
use serde::Serialize;

use crate::flags;

/// The standard package tag (`C1 83 2A 9E` on disk).
pub const TAG: u32 = 0x9E2A_83C1;
/// Killing Floor 1's package tag (`C2 83 2A 9E`), otherwise a standard
/// UT2004 v128/29 header (UEViewer accepts it; KFRT requires it).
pub const TAG_KILLING_FLOOR: u32 = 0x9E2A_83C2;

/// Oldest version read: the Unreal betas from v55 keep the tables' shape
/// (UMR `get_imports`/`get_exports`; versions below are 1998 betas with
/// other layouts).
pub const MIN_VERSION: u16 = 55;
/// Newest version read: 130–179 are "UE2.5"/UE2X licensee builds (Unreal
/// Warfare, Bioshock, UC2, SWRC, DNF 2011…) whose tables mostly keep the
/// UE2 shape; 180 and up are UE3.
pub const MAX_VERSION: u16 = 179;
/// First version UEViewer treats as Unreal Engine 3 (`PACKAGE_V3`).
pub const UE3_VERSION: u16 = 180;

/// How a package's header and tables are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TableLayout {
    /// The layout of Unreal, UT and UT2004, shared by nearly every licensee.
    Standard,
    /// Unreal betas (v55–59) as UMR's `unrealfmt.c` describes them: an
    /// import holds an unknown compact index where later versions have its
    /// package index, and an export has no package index. Unverified (no
    /// sample has it): [`crate::Package::parse_lenient`] reads v55–59 with
    /// the standard tables first, as UEViewer does and a real v55 texture
    /// package needs, and keeps this layout only when those do not read.
    Beta,
    /// Deus Ex: Invisible War and Thief: Deadly Shadows (v95, licensee 69 or
    /// 133): an i32 after the import table position, before the GUID (UELib
    /// `PackageFileSummary.Deserialize`).
    ExtraInt,
    /// Duke Nukem Forever 2011 (v151+, licensee 36): after the generations,
    /// four build-date i32s when flag 0x20 is set, then an FString (UELib,
    /// `BuildName.DNF`).
    Dnf2011,
}

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
    /// How the header and tables are laid out.
    pub layout: TableLayout,
    /// The bytes a licensee layout adds to the header, as stored: the i32
    /// of [`TableLayout::ExtraInt`], the build date and string of
    /// [`TableLayout::Dnf2011`]; empty otherwise.
    #[serde(skip)]
    pub header_extra: Vec<u8>,
    /// The game the version and licensee most likely come from
    /// ([`game_name`]); a label only.
    pub game: Option<&'static str>,
}

/// The game a (version, licensee) pair most likely comes from, as UEViewer
/// (`GameDatabase.cpp`) and UELib (`UnrealPackage.cs` `BuildName`, README)
/// identify them. A label only: different games share pairs, and pakrat
/// never chooses a layout by it alone.
pub fn game_name(tag: u32, version: u16, licensee: u16) -> Option<&'static str> {
    let (v, l) = (version, licensee);
    if tag == TAG_KILLING_FLOOR {
        return Some("Killing Floor / Red Orchestra");
    }
    Some(match (v, l) {
        (69, 227) => "Unreal 227",
        (68, 2) => "Duke Nukem Forever (2001 build)",
        (73, 0) => "Star Trek DS9: The Fallen or Undying",
        (72..=75 | 77 | 78 | 84 | 85, 0) => "Undying",
        (76, 0) => "Harry Potter and the Philosopher's Stone",
        (79, 0) => "Harry Potter and the Chamber of Secrets",
        (80..=83, 0) => "Mobile Forces",
        (95, 69) => "Deus Ex: Invisible War",
        (95, 133) => "Thief: Deadly Shadows",
        (100, 9..=17) => "Splinter Cell",
        (100, 22 | 99 | 120 | 122 | 124) => "Splinter Cell: Chaos Theory",
        (100, 167) => "Splinter Cell: Double Agent",
        (102, 28) => "Splinter Cell: Pandora Tomorrow",
        (102, 116) => "Splinter Cell: Blacklist",
        (100, 58) => "XIII",
        (118, 2) => "Postal 2",
        (118, 11..=14) => "Rainbow Six 3: Raven Shield",
        (118..=120, 4..=8) => "Devastation",
        (119, 28 | 30) => "Unreal Championship",
        (119, 0x9127) => "Pariah",
        (117..=128, 25..=29) => "UT2003/UT2004",
        (128, 32 | 33) => "America's Army 2",
        (128 | 129, 34 | 35) => "Vanguard",
        (129, 27) => "SWAT 4",
        (129, 10) => "Shadow Ops: Red Mercury",
        (129, 3) => "Lemony Snicket",
        (129 | 130, 23..=26) | (130, 27) => "Tribes: Vengeance",
        (130, 4) => "Stargate SG-1: The Alliance",
        (131..=134, 29) => "Land of Chaos Online",
        (130..=143, 56..=59) => "Bioshock",
        (143..=146, 61447) => "Advent Rising",
        (133..=159, 1) => "Star Wars: Republic Commando",
        (151, 0) => "Unreal Championship 2",
        (156, 36) => "Duke Nukem Forever (2011)",
        (159, 29) => "The Chronicles of Spellborn",
        (175, 0) => "Splinter Cell: Chaos Theory Versus",
        (61, 0) => "Unreal",
        (110..=129, 2481..=2609) => "Unreal II",
        _ => return None,
    })
}

/// The header and table layout of a (version, licensee) pair, or why pakrat
/// does not read it: UE3 and later, the 1998 betas, and the licensee builds
/// whose tables are known to differ (UEViewer `UnPackage2.cpp`,
/// `FObjectExport::Serialize2X`, `LoadNameTable2`; UELib
/// `PackageFileSummary`, `UExportTableItem`) are refused with the game and
/// the difference. Every other pair is read with the standard layout, and
/// [`crate::Package::parse`] then checks that the tables hold together.
pub fn table_layout(version: u16, licensee: u16) -> std::result::Result<TableLayout, String> {
    let (v, l) = (version, licensee);
    if v >= UE3_VERSION {
        return Err(format!(
            "package version {v} (licensee {l}) is an Unreal Engine 3 or later package; \
             pakrat reads UE1/UE2 packages (versions {MIN_VERSION}-{MAX_VERSION})"
        ));
    }
    if v < MIN_VERSION {
        return Err(format!(
            "package version {v} (licensee {l}) is a 1998 Unreal beta, whose tables differ \
             by version; pakrat reads versions {MIN_VERSION}-{MAX_VERSION}"
        ));
    }
    let differs = |what: &str| {
        let game = game_name(TAG, v, l).unwrap_or("a licensee build");
        Err(format!(
            "package version {v} with licensee {l} ({game}): {what}; pakrat does not read \
             this layout (refusing rather than misreading)"
        ))
    };
    match (v, l) {
        (100..=102, 9..=17 | 22 | 28 | 99 | 120 | 122 | 124 | 167) => {
            differs("the header holds extra fields and the name table another string form")
        }
        (102, 116) => differs("the LEAD engine header has no GUID and names are 32-bit"),
        (119, 28 | 30) => differs("names are stored with a 16-bit length"),
        (119, 0x9127) => differs("export entries store their fields in another order"),
        (128, 32 | 33) => differs("names are scrambled and imports hold an extra byte"),
        (128 | 129, 34 | 35) => differs("array counts are 32-bit instead of compact indices"),
        (130..=143, 56..=59) => {
            differs("names are UTF-16 with 64-bit flags and exports hold extra fields")
        }
        (143..=146, 61447) => differs("export and import references are 16-bit"),
        (151..=159, 1) => differs("export sizes and offsets are 32-bit"),
        (151, 0) => differs("names and references are 32-bit, no compact indices"),
        (159, 29) => differs("the header has no GUID"),
        (175, _) => differs("strings are XOR-scrambled and names carry an extra index"),
        (95, 69 | 133) => Ok(TableLayout::ExtraInt),
        (151..=179, 36) => Ok(TableLayout::Dnf2011),
        (55..=59, _) => Ok(TableLayout::Beta),
        _ => Ok(TableLayout::Standard),
    }
}

/// Why a (version, licensee) pair is not read, or `None` when pakrat reads
/// its tables ([`table_layout`]).
pub fn unsupported_reason(version: u16, licensee: u16) -> Option<String> {
    table_layout(version, licensee).err()
}

/// True when every object starts with the Vengeance engine's header (SWAT 4,
/// Tribes: Vengeance; v129–130 with licensee 25–27): an i32 3 followed by two
/// i32s, or 4 and one i32 (UEViewer `TRIBES_HDR`, UELib
/// `VengeanceDeserializeHeader`; all 1,143 SWAT 4 exports of the corpus
/// start with `03 00 00 00 00 00 00 00 01 00 00 00`).
pub fn vengeance_header(version: u16, licensee: u16) -> bool {
    matches!((version, licensee), (129 | 130, 25..=27))
}

/// Whether pakrat decodes the objects (properties and native data) of a
/// (version, licensee) pair, or why not: only layouts checked on real files
/// are decoded (stock UE1 61–69, Unreal 227, UE2 99–129 of Epic's builds and
/// UT2003/UT2004-based games with licensees 25–29 other than SWAT 4).
pub fn object_layout(tag: u32, version: u16, licensee: u16) -> std::result::Result<(), String> {
    let (v, l) = (version, licensee);
    // Beyond Epic's builds, the pairs checked on the corpus (every object of
    // the samples decodes to its end): Unreal 227, Deus Ex OpenDX, DNF 2001,
    // Harry Potter, Mobile Forces, Postal 2, Unreal Warfare, SWAT 4 (its
    // 12-byte object header, [`vengeance_header`]), DNF 2011 (its tags,
    // `crate::props::is_dnf2011`), Lineage II's builds (v123 licensee 12 —
    // the Unreal Warfare copy, whose 8 static meshes equal UEViewer's — 37,
    // and v133 licensee 40: their objects keep the UE2 layout; UEViewer
    // special-cases only Lineage II's meshes and materials).
    let known = matches!(
        (v, l),
        (60..=69, 0)
            | (68, 2 | 32)
            | (69, 227)
            | (76 | 79, 0)
            | (80..=83, 0)
            | (99..=144, 0)
            | (118, 2)
            | (129 | 130, 25..=27)
            | (117..=129, 25..=29)
            | (151..=159, 36)
            | (123, 12 | 37)
            | (133, 40)
    );
    if known {
        return Ok(());
    }
    Err(match game_name(tag, v, l) {
        Some(game) => format!("tables only: object layout of {game} (v{v}/lic{l}) is not known"),
        None => format!("tables only: object layout of version {v} with licensee {l} is not known"),
    })
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
        let layout = table_layout(version, licensee).map_err(|why| Error::unsupported(4, why))?;
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
        let mut header_extra = Vec::new();
        if layout == TableLayout::ExtraInt {
            header_extra.extend_from_slice(r.bytes(4, "Invisible War/Thief header field")?);
        }
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
        if layout == TableLayout::Dnf2011 {
            let start = r.pos();
            if package_flags & 0x20 != 0 {
                r.bytes(16, "DNF build date")?;
            }
            r.fstring("DNF header string")?;
            header_extra.extend_from_slice(&data[start..r.pos()]);
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
            layout,
            header_extra,
            game: game_name(tag, version, licensee),
        })
    }

    /// Names of the package flags that are set (unknown bits as `0x…`).
    pub fn package_flag_names(&self) -> Vec<String> {
        flags::package_flag_names(self.package_flags)
    }

    /// `Ok` when pakrat decodes this package's objects, else the
    /// "tables only" reason ([`object_layout`]).
    pub fn object_layout(&self) -> std::result::Result<(), String> {
        object_layout(self.tag, self.version, self.licensee)
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
        assert!(
            e.contains("licensee 32") && e.contains("America's Army 2"),
            "{e}"
        );
        let e = unsupported_reason(141, 56).unwrap();
        assert!(e.contains("Bioshock"), "{e}");
        assert!(unsupported_reason(37, 0).is_some());
        // Read now: licensee builds with the standard tables.
        assert!(unsupported_reason(85, 0).is_none());
        assert!(unsupported_reason(69, 227).is_none());
        assert_eq!(table_layout(156, 36), Ok(TableLayout::Dnf2011));
        assert_eq!(table_layout(95, 133), Ok(TableLayout::ExtraInt));
        assert_eq!(table_layout(57, 0), Ok(TableLayout::Beta));
        assert!(object_layout(TAG, 129, 27).is_ok());
        assert!(object_layout(TAG, 123, 37).is_ok()); // Lineage II
        assert!(object_layout(TAG, 123, 99)
            .unwrap_err()
            .contains("version 123 with licensee 99"));
        assert!(object_layout(TAG, 128, 29).is_ok());
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
