//! Legacy (non-zen) UE4/UE5 packages: `.uasset` / `.umap` headers with their
//! `.uexp` export data and `.ubulk` / `.uptnl` / `.m.ubulk` bulk files.
//!
//! [`LegacyPackage::read`] parses the summary ([`summary::Summary`]), the
//! name, import and export maps, cell maps, depends map, soft package
//! references, preload dependencies and data resources, bounding every count
//! by the bytes that remain and checking every reference.
//! [`LegacyPackage::to_bytes`] writes a cooked header back: read → write
//! gives the same bytes for the corpus files.

pub mod files;
mod read;
pub mod summary;
mod write;

use pakrat_io::{Error, Guid, Result};
use serde::Serialize;

use summary::flags;
pub use summary::{ChunkIds, CustomVersion, EngineVersion, Layout, Section, Summary};

/// An `FName` as stored in a legacy package: name map index and number
/// (0 = none, else the suffix `_{number-1}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub struct FName {
    /// Index into the name map.
    pub index: i32,
    /// Number.
    pub number: i32,
}

/// One name map entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameEntry {
    /// The text.
    pub text: String,
    /// Stored as UTF-16.
    pub wide: bool,
    /// `(NonCasePreservingHash, CasePreservingHash)` (UE4 504+).
    pub hashes: Option<(u16, u16)>,
}

impl NameEntry {
    /// A new entry with the engine's hashes.
    pub fn new(text: &str) -> Self {
        let wide = pakrat_io::FString::to_latin1(text).is_none();
        NameEntry {
            text: text.to_string(),
            wide,
            hashes: Some(name_hashes(text, wide)),
        }
    }
}

/// The two 16-bit hashes UE stores after each name (`FNameEntrySerialized`):
/// `Strihash_DEPRECATED` (ASCII upper case, MSB-first CRC table, one byte per
/// 8-bit char or two per UTF-16 unit) and `StrCrc32` (CRC-32 over each
/// character widened to 32 bits). Checked on every corpus name (710).
pub fn name_hashes(text: &str, wide: bool) -> (u16, u16) {
    let t = hash_tables();
    let mut h: u32 = 0;
    let mut crc: u32 = !0;
    // One pass over the units, no buffer (this runs for every name of
    // every package `zen to-legacy` writes: issue 31 item 18).
    let mut step = |u: u16| {
        let upper = if (u16::from(b'a')..=u16::from(b'z')).contains(&u) {
            u - 32
        } else {
            u
        };
        let [lo, hi] = upper.to_le_bytes();
        h = ((h >> 8) & 0x00FF_FFFF) ^ t.strihash[((h ^ u32::from(lo)) & 0xFF) as usize];
        if wide {
            h = ((h >> 8) & 0x00FF_FFFF) ^ t.strihash[((h ^ u32::from(hi)) & 0xFF) as usize];
        }
        // CRC-32 (ISO-HDLC, reflected) of the unit widened to four
        // little-endian bytes, the four bytes at once (slicing by 4).
        let c = crc ^ u32::from(u);
        crc = t.crc[3][(c & 0xFF) as usize]
            ^ t.crc[2][((c >> 8) & 0xFF) as usize]
            ^ t.crc[1][((c >> 16) & 0xFF) as usize]
            ^ t.crc[0][(c >> 24) as usize];
    };
    if wide {
        text.encode_utf16().for_each(&mut step);
    } else {
        text.chars().for_each(|c| step(c as u16));
    }
    (h as u16, !crc as u16)
}

/// The tables of [`name_hashes`]: the MSB-first CRC table of
/// `Strihash_DEPRECATED`, and the reflected CRC-32 table with its three
/// slicing-by-4 companions (`crc[k][i]`: byte `i` followed by `k` zeros).
struct HashTables {
    strihash: [u32; 256],
    crc: [[u32; 256]; 4],
}

fn hash_tables() -> &'static HashTables {
    static TABLES: std::sync::OnceLock<HashTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut strihash = [0u32; 256];
        let mut crc = [[0u32; 256]; 4];
        for i in 0..256u32 {
            let mut c = i << 24;
            let mut r = i;
            for _ in 0..8 {
                c = if c & 0x8000_0000 != 0 {
                    (c << 1) ^ 0x04C1_1DB7
                } else {
                    c << 1
                };
                r = if r & 1 != 0 {
                    (r >> 1) ^ 0xEDB8_8320
                } else {
                    r >> 1
                };
            }
            strihash[i as usize] = c;
            crc[0][i as usize] = r;
        }
        for k in 1..4 {
            for i in 0..256 {
                let p = crc[k - 1][i];
                crc[k][i] = (p >> 8) ^ crc[0][(p & 0xFF) as usize];
            }
        }
        HashTables { strihash, crc }
    })
}

/// `FObjectImport`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Import {
    /// Package of the class (`/Script/CoreUObject`).
    pub class_package: FName,
    /// Class name (`Class`, `Package`, …).
    pub class_name: FName,
    /// Outer (`FPackageIndex`: 0 none, <0 import, >0 export).
    pub outer: i32,
    /// Object name.
    pub object_name: FName,
    /// `PackageName` (uncooked UE4 520+, and UE 5.8+ always).
    pub package_name: Option<FName>,
    /// `bImportOptional` (UE5 1003+).
    pub optional: Option<bool>,
}

/// `FObjectExport`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Export {
    /// Class (`FPackageIndex`).
    pub class: i32,
    /// Super struct.
    pub super_index: i32,
    /// Template / archetype (UE4 508+).
    pub template: Option<i32>,
    /// Outer.
    pub outer: i32,
    /// Object name.
    pub object_name: FName,
    /// `EObjectFlags`.
    pub object_flags: u32,
    /// Bytes of export data.
    pub serial_size: i64,
    /// Offset of the export data in `.uasset` + `.uexp` taken as one file.
    pub serial_offset: i64,
    /// `bForcedExport`.
    pub forced_export: bool,
    /// `bNotForClient`.
    pub not_for_client: bool,
    /// `bNotForServer`.
    pub not_for_server: bool,
    /// `PackageGuid` (before UE5 1005).
    pub package_guid: Option<Guid>,
    /// `bIsInheritedInstance` (UE5 1006+).
    pub inherited_instance: Option<bool>,
    /// `PackageFlags` (of forced exports).
    pub package_flags: u32,
    /// `bNotAlwaysLoadedForEditorGame` (UE4 365+).
    pub not_always_loaded_for_editor_game: Option<bool>,
    /// `bIsAsset` (UE4 485+).
    pub is_asset: Option<bool>,
    /// `bGeneratePublicHash` (UE5 1003+).
    pub generate_public_hash: Option<bool>,
    /// `FirstExportDependency` and the four counts
    /// (serialize-before-serialize, create-before-serialize,
    /// serialize-before-create, create-before-create) (UE4 507+).
    pub dependencies: Option<[i32; 5]>,
    /// Script serialization start/end (UE5 1010+, versioned properties).
    pub script_serialization: Option<(i64, i64)>,
}

impl Export {
    /// Preload dependency ranges of this export, in stored order:
    /// `[serialize-before-serialize, create-before-serialize,
    /// serialize-before-create, create-before-create]` as `start..end` into
    /// the preload list.
    pub fn dependency_ranges(&self) -> Option<[std::ops::Range<usize>; 4]> {
        let d = self.dependencies?;
        if d[0] < 0 {
            return None;
        }
        let mut at = d[0] as usize;
        let mut out: [std::ops::Range<usize>; 4] = Default::default();
        for (i, o) in out.iter_mut().enumerate() {
            let n = d[i + 1].max(0) as usize;
            *o = at..at + n;
            at += n;
        }
        Some(out)
    }
}

/// `FCellImport` (Verse).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CellImport {
    /// Package index of the owning package import.
    pub package_index: i32,
    /// Verse path.
    pub verse_path: String,
}

/// `FCellExport` (Verse).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CellExport {
    /// C++ class info.
    pub cpp_class_info: FName,
    /// Verse path.
    pub verse_path: String,
    /// Serial offset.
    pub serial_offset: i64,
    /// Serial layout size.
    pub serial_layout_size: i64,
    /// Serial size.
    pub serial_size: i64,
    /// First dependency, serialize-before-serialize, create-before-serialize.
    pub dependencies: [i32; 3],
}

/// `FObjectDataResource` (UE5 1009+): where a bulk data payload lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DataResource {
    /// Resource flags.
    pub flags: u32,
    /// Cooked index (resource version 2+).
    pub cooked_index: Option<u8>,
    /// Offset.
    pub serial_offset: i64,
    /// Offset of the duplicate (or -1).
    pub duplicate_serial_offset: i64,
    /// Stored size.
    pub serial_size: i64,
    /// Uncompressed size.
    pub raw_size: i64,
    /// Owning object.
    pub outer: i32,
    /// `EBulkDataFlags`.
    pub legacy_bulk_data_flags: u32,
}

/// A soft package reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum SoftPackageRef {
    /// UE4 514+.
    Name(FName),
    /// Before: a string.
    Text(String),
}

/// One entry of the header's soft object path list (UE5 1008+,
/// `SoftObjectPathsCount`/`Offset` in the summary): an
/// `FTopLevelAssetPath` (package and asset names) and a sub path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SoftObjectPathEntry {
    /// The package's name (`/Game/A/B`).
    pub package: FName,
    /// The asset's name inside it (`B`), or `None`.
    pub asset: FName,
    /// The sub path (`PersistentLevel.Actor`), as stored.
    pub sub_path: String,
    /// Whether the sub path is stored as UTF-16.
    pub sub_path_wide: bool,
}

/// A parsed legacy package header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegacyPackage {
    /// The summary.
    pub summary: Summary,
    /// The layout the tables were read with.
    pub layout: Layout,
    /// Name map.
    pub names: Vec<NameEntry>,
    /// The soft object path list (UE5 1008+; its names are name-map
    /// entries, renamed with them).
    pub soft_object_path_list: Vec<SoftObjectPathEntry>,
    /// Import map.
    pub imports: Vec<Import>,
    /// Export map.
    pub exports: Vec<Export>,
    /// Verse cell imports.
    pub cell_imports: Vec<CellImport>,
    /// Verse cell exports.
    pub cell_exports: Vec<CellExport>,
    /// Depends map (one list per export).
    pub depends: Vec<Vec<i32>>,
    /// Soft package references.
    pub soft_package_references: Vec<SoftPackageRef>,
    /// The asset registry data section as stored (cooked: an `i32` 0).
    pub asset_registry_data: Vec<u8>,
    /// Preload dependencies.
    pub preload_dependencies: Vec<i32>,
    /// Data resource map version (`EObjectDataResourceVersion`).
    pub data_resource_version: Option<u32>,
    /// Data resources.
    pub data_resources: Vec<DataResource>,
}

impl LegacyPackage {
    /// The text of a name, `None` when out of range.
    pub fn name(&self, n: FName) -> Option<String> {
        let base = &self.names.get(usize::try_from(n.index).ok()?)?.text;
        Some(pakrat_codec::names::with_number(
            base,
            u32::try_from(n.number).ok()?,
        ))
    }

    fn check_name(&self, n: FName, what: &Label) -> Result<()> {
        if n.index < 0 || n.index as usize >= self.names.len() || n.number < 0 {
            return Err(Error::invalid(
                0,
                format!(
                    "{what}: name index {} (number {}) outside the name map ({} names)",
                    n.index,
                    n.number,
                    self.names.len()
                ),
            ));
        }
        Ok(())
    }

    fn check_index(&self, i: i32, what: &Label) -> Result<()> {
        let ok = match i {
            0 => true,
            i if i < 0 => ((-i64::from(i)) as usize) <= self.imports.len(),
            i => (i as usize) <= self.exports.len(),
        };
        if !ok {
            return Err(Error::invalid(
                0,
                format!(
                    "{what}: object index {i} outside the {} imports and {} exports",
                    self.imports.len(),
                    self.exports.len()
                ),
            ));
        }
        Ok(())
    }

    /// Every name, object reference and preload range resolves; outer chains
    /// end (no cycles).
    pub fn check_references(&self) -> Result<()> {
        for (i, e) in self.soft_object_path_list.iter().enumerate() {
            let w = Label("soft object path", i);
            self.check_name(e.package, &w)?;
            self.check_name(e.asset, &w)?;
        }
        for (i, im) in self.imports.iter().enumerate() {
            let w = Label("import", i);
            self.check_name(im.class_package, &w)?;
            self.check_name(im.class_name, &w)?;
            self.check_name(im.object_name, &w)?;
            if let Some(p) = im.package_name {
                self.check_name(p, &w)?;
            }
            self.check_index(im.outer, &w)?;
        }
        for (i, e) in self.exports.iter().enumerate() {
            let w = Label("export", i);
            self.check_name(e.object_name, &w)?;
            for x in [e.class, e.super_index, e.template.unwrap_or(0), e.outer] {
                self.check_index(x, &w)?;
            }
            if let Some(rs) = e.dependency_ranges() {
                for r in rs {
                    if r.end > self.preload_dependencies.len() {
                        return Err(Error::invalid(
                            0,
                            format!(
                                "{w}: preload dependencies {}..{} outside the {} stored",
                                r.start,
                                r.end,
                                self.preload_dependencies.len()
                            ),
                        ));
                    }
                }
            }
            if e.serial_size < 0 || e.serial_offset < 0 {
                return Err(Error::invalid(
                    0,
                    format!("{w}: negative serial size or offset"),
                ));
            }
        }
        for (i, &p) in self.preload_dependencies.iter().enumerate() {
            self.check_index(p, &Label("preload dependency", i))?;
        }
        for (i, d) in self.depends.iter().enumerate() {
            for &x in d {
                self.check_index(x, &Label("depends of export", i))?;
            }
        }
        // Outer chains end within (imports + exports) steps.
        let limit = self.imports.len() + self.exports.len() + 1;
        for start in
            (1..=self.exports.len() as i32).chain((1..=self.imports.len() as i32).map(|i| -i))
        {
            let mut at = start;
            let mut steps = 0;
            while at != 0 {
                steps += 1;
                if steps > limit {
                    return Err(Error::invalid(
                        0,
                        format!("object {start}: its outer chain loops"),
                    ));
                }
                at = self.outer_of(at);
            }
        }
        Ok(())
    }

    /// The outer of an object index (0 when none or out of range).
    pub fn outer_of(&self, i: i32) -> i32 {
        if i < 0 {
            self.imports.get((-i - 1) as usize).map_or(0, |x| x.outer)
        } else if i > 0 {
            self.exports.get((i - 1) as usize).map_or(0, |x| x.outer)
        } else {
            0
        }
    }

    /// The object's own name.
    pub fn object_name(&self, i: i32) -> Option<String> {
        if i < 0 {
            self.name(self.imports.get((-i - 1) as usize)?.object_name)
        } else if i > 0 {
            self.name(self.exports.get((i - 1) as usize)?.object_name)
        } else {
            None
        }
    }

    /// Full path of an object index: `/Pkg/Name.Object:Sub` for an export
    /// and for an import (whose outermost import is its package).
    pub fn path(&self, i: i32) -> Option<String> {
        let mut chain = Vec::new();
        let mut at = i;
        while at != 0 && chain.len() <= self.imports.len() + self.exports.len() {
            chain.push(at);
            at = self.outer_of(at);
        }
        chain.reverse();
        let (mut out, rest) = if chain.first().is_some_and(|&c| c < 0) {
            (self.object_name(chain[0])?, &chain[1..])
        } else {
            (self.summary.package_name.clone(), &chain[..])
        };
        for (k, &c) in rest.iter().enumerate() {
            out.push(if k == 0 { '.' } else { ':' });
            out.push_str(&self.object_name(c)?);
        }
        Some(out)
    }

    /// `ClassPackage.ClassName` of an import, or the class path of an export.
    pub fn class_path(&self, i: i32) -> Option<String> {
        if i < 0 {
            let im = self.imports.get((-i - 1) as usize)?;
            Some(format!(
                "{}.{}",
                self.name(im.class_package)?,
                self.name(im.class_name)?
            ))
        } else if i > 0 {
            let c = self.exports.get((i - 1) as usize)?.class;
            if c == 0 {
                Some("/Script/CoreUObject.Class".into())
            } else {
                self.path(c)
            }
        } else {
            None
        }
    }

    /// The export data of export `i`: from `uexp` when the exports were
    /// split off (offsets count from the start of the `.uasset`), else from
    /// `asset` itself.
    pub fn export_data<'a>(
        &self,
        i: usize,
        asset: &'a [u8],
        uexp: Option<&'a [u8]>,
    ) -> Result<&'a [u8]> {
        let e = self
            .exports
            .get(i)
            .ok_or_else(|| Error::Other(format!("export {i} out of range")))?;
        let ths = self.summary.total_header_size as i64;
        let (data, start) = match uexp {
            Some(u) => (u, e.serial_offset - ths),
            None => (asset, e.serial_offset),
        };
        if start < 0
            || e.serial_size < 0
            || (start as u64).saturating_add(e.serial_size as u64) > data.len() as u64
        {
            return Err(Error::invalid(
                e.serial_offset as u64,
                format!(
                    "export {i} data {:#x}+{:#x} lies outside the {} ({} bytes)",
                    e.serial_offset,
                    e.serial_size,
                    if uexp.is_some() { ".uexp" } else { ".uasset" },
                    data.len()
                ),
            ));
        }
        Ok(&data[start as usize..(start + e.serial_size) as usize])
    }
}

/// True for the package file tag at the start of `data`.
pub fn is_legacy_package(data: &[u8]) -> bool {
    data.len() >= 8
        && u32::from_le_bytes([data[0], data[1], data[2], data[3]]) == summary::PACKAGE_FILE_TAG
        && i32::from_le_bytes([data[4], data[5], data[6], data[7]]) < 0
}

/// `PKG_Cooked`.
pub fn is_cooked(package_flags: u32) -> bool {
    package_flags & flags::COOKED != 0
}

/// What a checked reference belongs to (`import 3`), formatted only when
/// a check fails: [`LegacyPackage::check_references`] runs for every
/// package converted, and formatting a label per table row was about 1 %
/// of `zen from-legacy`'s time (issue 31 item 18).
struct Label(&'static str, usize);

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

#[cfg(test)]
mod hash_tests {
    use super::name_hashes;

    /// The sliced CRC-32 and the Strihash against a plain byte-at-a-time
    /// computation (the `crc` crate for the CRC), for ASCII, Latin-1 and
    /// UTF-16 names.
    #[test]
    fn name_hashes_match_the_plain_computation() {
        const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
        let plain = |text: &str, wide: bool| {
            let units: Vec<u16> = if wide {
                text.encode_utf16().collect()
            } else {
                text.chars().map(|c| c as u16).collect()
            };
            let mut h: u32 = 0;
            for &u in &units {
                let up = if (97..=122).contains(&u) { u - 32 } else { u };
                let bytes = up.to_le_bytes();
                for &b in if wide { &bytes[..] } else { &bytes[..1] } {
                    // MSB-first table entry computed on the spot.
                    let mut c = (h ^ u32::from(b)) & 0xFF;
                    c <<= 24;
                    for _ in 0..8 {
                        c = if c & 0x8000_0000 != 0 {
                            (c << 1) ^ 0x04C1_1DB7
                        } else {
                            c << 1
                        };
                    }
                    h = ((h >> 8) & 0x00FF_FFFF) ^ c;
                }
            }
            let mut d = CRC32.digest();
            for &u in &units {
                d.update(&u32::from(u).to_le_bytes());
            }
            (h as u16, d.finalize() as u16)
        };
        for (text, wide) in [
            ("None", false),
            ("", false),
            ("/Script/CoreUObject", false),
            ("Café_résumé", false),
            ("日本語の名前", true),
            ("Mixed Case 123 zZ", false),
        ] {
            assert_eq!(name_hashes(text, wide), plain(text, wide), "{text}");
        }
    }
}
