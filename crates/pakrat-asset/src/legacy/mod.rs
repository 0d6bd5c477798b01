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
pub mod summary;

use pakrat_io::{Error, Guid, Reader, Result, Writer};
use serde::Serialize;

use summary::{flags, ue4, ue5, write_fstring};
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
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = (i as u32) << 24;
            for _ in 0..8 {
                c = if c & 0x8000_0000 != 0 {
                    (c << 1) ^ 0x04C1_1DB7
                } else {
                    c << 1
                };
            }
            *e = c;
        }
        t
    });
    let units: Vec<u16> = if wide {
        text.encode_utf16().collect()
    } else {
        text.chars().map(|c| c as u16).collect()
    };
    let mut h: u32 = 0;
    for &u in &units {
        let u = if (u16::from(b'a')..=u16::from(b'z')).contains(&u) {
            u - 32
        } else {
            u
        };
        let bytes: &[u8] = &u.to_le_bytes();
        for &b in if wide { bytes } else { &bytes[..1] } {
            h = ((h >> 8) & 0x00FF_FFFF) ^ t[((h ^ u32::from(b)) & 0xFF) as usize];
        }
    }
    const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    let mut crc = CRC32.digest();
    for &u in &units {
        crc.update(&u32::from(u).to_le_bytes());
    }
    (h as u16, crc.finalize() as u16)
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

/// A parsed legacy package header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegacyPackage {
    /// The summary.
    pub summary: Summary,
    /// The layout the tables were read with.
    pub layout: Layout,
    /// Name map.
    pub names: Vec<NameEntry>,
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

fn read_fname(r: &mut Reader<'_>, what: &str) -> Result<FName> {
    Ok(FName {
        index: r.i32(what)?,
        number: r.i32(what)?,
    })
}

fn read_bool(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    let at = r.offset();
    match r.u32(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Error::invalid(
            at,
            format!("{what}: boolean {v}, expected 0 or 1"),
        )),
    }
}

/// An `FString` with its stored width.
fn read_fstring_wide(r: &mut Reader<'_>, what: &str) -> Result<(String, bool)> {
    let at = r.offset();
    let len = r.i32(what)?;
    r.seek(at - r.base(), what)?;
    let s = pakrat_codec::fstring::read_fstring(r, what)?;
    Ok((s, len < 0))
}

fn read_utf8(r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let n = i64::from(r.i32(what)?);
    let n = r.check_count(n, 1, what)?;
    let b = r.bytes(n as u64, what)?;
    let b = b.strip_suffix(&[0]).unwrap_or(b);
    String::from_utf8(b.to_vec()).map_err(|_| Error::invalid(at, format!("{what}: not UTF-8")))
}

fn section<'a>(
    all: &Reader<'a>,
    s: Section,
    min: usize,
    end: usize,
    what: &str,
) -> Result<Reader<'a>> {
    if s.count < 0 {
        return Err(Error::invalid(
            0,
            format!("{what}: negative count {}", s.count),
        ));
    }
    if s.count == 0 {
        return all.sub(0, 0, what);
    }
    if s.offset < 0 || s.offset as usize > end {
        return Err(Error::invalid(
            0,
            format!(
                "{what}: offset {:#x} lies outside the header (TotalHeaderSize {end:#x})",
                s.offset
            ),
        ));
    }
    let r = all.sub(s.offset as u64, (end - s.offset as usize) as u64, what)?;
    r.check_count(i64::from(s.count), min, what)?;
    Ok(r)
}

impl LegacyPackage {
    /// Parse the header of a `.uasset`/`.umap` (`data` is the whole file;
    /// export data may follow in it or live in the `.uexp`). `fallback` is
    /// the layout for unversioned packages.
    pub fn read(data: &[u8], fallback: Option<Layout>) -> Result<LegacyPackage> {
        let all = Reader::new(data);
        let mut r = all.clone();
        let (summary, mut layout) = Summary::read(&mut r, fallback)?;
        let summary_end = r.pos();
        let ths = summary.total_header_size;
        if ths < summary_end as i32 || ths as usize > data.len() {
            return Err(Error::invalid(
                0,
                format!(
                    "TotalHeaderSize {ths:#x} outside {summary_end:#x}..={:#x} (the summary's end and the file's)",
                    data.len()
                ),
            ));
        }
        let end = ths as usize;
        let s = &summary;
        let filter = s.filter_editor_only();
        let (v4, v5) = (layout.ue4, layout.ue5);

        // Names.
        let mut nr = section(&all, s.names, 4, end, "name map")?;
        let mut names = Vec::with_capacity(s.names.count as usize);
        for _ in 0..s.names.count {
            let (text, wide) = read_fstring_wide(&mut nr, "name")?;
            let hashes = if v4 >= ue4::NAME_HASHES_SERIALIZED {
                Some((nr.u16("name hash")?, nr.u16("name hash")?))
            } else {
                None
            };
            names.push(NameEntry { text, wide, hashes });
        }

        // Imports: the record size is fixed by the layout, except that UE
        // 5.8 writes PackageName in cooked packages too; an unknown layout
        // decides by the space between the import and export maps.
        let optional = v5 >= ue5::OPTIONAL_RESOURCES;
        let base = 28 + if optional { 4 } else { 0 };
        let editor_pkg_name = v4 >= ue4::NON_OUTER_PACKAGE_IMPORT && !filter;
        let with_pkg_name = editor_pkg_name
            || match layout.import_package_name {
                Some(b) => b,
                None => {
                    let span = i64::from(s.exports.offset) - i64::from(s.imports.offset);
                    let n = i64::from(s.imports.count);
                    let guess =
                        n > 0 && span == n * (base as i64 + 8) && s.legacy_file_version <= -9;
                    layout.import_package_name = Some(guess);
                    guess
                }
            };
        let isize = base + if with_pkg_name { 8 } else { 0 };
        let mut ir = section(&all, s.imports, isize, end, "import map")?;
        let mut imports = Vec::with_capacity(s.imports.count as usize);
        for _ in 0..s.imports.count {
            imports.push(Import {
                class_package: read_fname(&mut ir, "import class package")?,
                class_name: read_fname(&mut ir, "import class name")?,
                outer: ir.i32("import outer")?,
                object_name: read_fname(&mut ir, "import object name")?,
                package_name: if with_pkg_name {
                    Some(read_fname(&mut ir, "import package name")?)
                } else {
                    None
                },
                optional: if optional {
                    Some(read_bool(&mut ir, "import bImportOptional")?)
                } else {
                    None
                },
            });
        }

        // Exports.
        let script = v5 >= ue5::SCRIPT_SERIALIZATION_OFFSET && !s.unversioned_properties();
        let mut er = section(&all, s.exports, 40, end, "export map")?;
        let mut exports = Vec::with_capacity(s.exports.count as usize);
        for _ in 0..s.exports.count {
            let class = er.i32("export class")?;
            let super_index = er.i32("export super")?;
            let template = if v4 >= ue4::TEMPLATE_INDEX_IN_COOKED_EXPORTS {
                Some(er.i32("export template")?)
            } else {
                None
            };
            let outer = er.i32("export outer")?;
            let object_name = read_fname(&mut er, "export name")?;
            let object_flags = er.u32("export object flags")?;
            let (serial_size, serial_offset) = if v4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES {
                (
                    er.i64("export serial size")?,
                    er.i64("export serial offset")?,
                )
            } else {
                (
                    i64::from(er.i32("export serial size")?),
                    i64::from(er.i32("export serial offset")?),
                )
            };
            let forced_export = read_bool(&mut er, "export bForcedExport")?;
            let not_for_client = read_bool(&mut er, "export bNotForClient")?;
            let not_for_server = read_bool(&mut er, "export bNotForServer")?;
            let package_guid = if v5 < ue5::REMOVE_OBJECT_EXPORT_PACKAGE_GUID {
                Some(er.guid("export package guid")?)
            } else {
                None
            };
            let inherited_instance = if v5 >= ue5::TRACK_OBJECT_EXPORT_IS_INHERITED {
                Some(read_bool(&mut er, "export bIsInheritedInstance")?)
            } else {
                None
            };
            let package_flags = er.u32("export package flags")?;
            let not_always_loaded_for_editor_game = if v4 >= ue4::LOAD_FOR_EDITOR_GAME {
                Some(read_bool(&mut er, "export bNotAlwaysLoadedForEditorGame")?)
            } else {
                None
            };
            let is_asset = if v4 >= ue4::COOKED_ASSETS_IN_EDITOR_SUPPORT {
                Some(read_bool(&mut er, "export bIsAsset")?)
            } else {
                None
            };
            let generate_public_hash = if optional {
                Some(read_bool(&mut er, "export bGeneratePublicHash")?)
            } else {
                None
            };
            let dependencies = if v4 >= ue4::PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS {
                let mut d = [0i32; 5];
                for x in &mut d {
                    *x = er.i32("export preload dependency")?;
                }
                Some(d)
            } else {
                None
            };
            let script_serialization = if script {
                Some((er.i64("export script start")?, er.i64("export script end")?))
            } else {
                None
            };
            exports.push(Export {
                class,
                super_index,
                template,
                outer,
                object_name,
                object_flags,
                serial_size,
                serial_offset,
                forced_export,
                not_for_client,
                not_for_server,
                package_guid,
                inherited_instance,
                package_flags,
                not_always_loaded_for_editor_game,
                is_asset,
                generate_public_hash,
                dependencies,
                script_serialization,
            });
        }

        // Verse cells.
        let mut cell_imports = Vec::new();
        let mut cell_exports = Vec::new();
        if let Some((ce, ci)) = s.cells {
            let mut cr = section(&all, ci, 8, end, "cell import map")?;
            for _ in 0..ci.count {
                cell_imports.push(CellImport {
                    package_index: cr.i32("cell import package")?,
                    verse_path: read_utf8(&mut cr, "cell import verse path")?,
                });
            }
            let mut cr = section(&all, ce, 48, end, "cell export map")?;
            for _ in 0..ce.count {
                cell_exports.push(CellExport {
                    cpp_class_info: read_fname(&mut cr, "cell export class")?,
                    verse_path: read_utf8(&mut cr, "cell export verse path")?,
                    serial_offset: cr.i64("cell export offset")?,
                    serial_layout_size: cr.i64("cell export layout size")?,
                    serial_size: cr.i64("cell export size")?,
                    dependencies: [
                        cr.i32("cell dep")?,
                        cr.i32("cell dep")?,
                        cr.i32("cell dep")?,
                    ],
                });
            }
        }

        // Depends map: one TArray<FPackageIndex> per export.
        let mut depends = Vec::new();
        if !exports.is_empty() && s.depends_offset > 0 {
            let ds = Section {
                count: exports.len() as i32,
                offset: s.depends_offset,
            };
            let mut dr = section(&all, ds, 4, end, "depends map")?;
            for _ in 0..exports.len() {
                let n = i64::from(dr.i32("depends count")?);
                let n = dr.check_count(n, 4, "depends count")?;
                depends.push(
                    (0..n)
                        .map(|_| dr.i32("depends entry"))
                        .collect::<Result<Vec<_>>>()?,
                );
            }
        }

        // Soft package references.
        let mut soft_package_references = Vec::new();
        if let Some(sp) = s.soft_package_references {
            let mut sr = section(&all, sp, 4, end, "soft package references")?;
            for _ in 0..sp.count {
                soft_package_references.push(if v4 >= ue4::ADDED_SOFT_OBJECT_PATH {
                    SoftPackageRef::Name(read_fname(&mut sr, "soft package reference")?)
                } else {
                    SoftPackageRef::Text(pakrat_codec::fstring::read_fstring(
                        &mut sr,
                        "soft package reference",
                    )?)
                });
            }
        }

        // Preload dependencies.
        let mut preload_dependencies = Vec::new();
        if let Some(p) = s.preload_dependencies {
            if p.count > 0 {
                let mut pr = section(&all, p, 4, end, "preload dependencies")?;
                for _ in 0..p.count {
                    preload_dependencies.push(pr.i32("preload dependency")?);
                }
            }
        }

        // Data resources.
        let mut data_resource_version = None;
        let mut data_resources = Vec::new();
        if let Some(off) = s.data_resource_offset.filter(|&o| o > 0) {
            let mut dr = section(
                &all,
                Section {
                    count: 1,
                    offset: off,
                },
                8,
                end,
                "data resources",
            )?;
            let at = dr.offset();
            let v = dr.u32("data resource version")?;
            if !(1..=2).contains(&v) {
                return Err(Error::unsupported(
                    at,
                    format!("data resource version {v}, expected 1 or 2"),
                ));
            }
            data_resource_version = Some(v);
            let n = i64::from(dr.i32("data resource count")?);
            let n = dr.check_count(n, if v >= 2 { 45 } else { 44 }, "data resource count")?;
            for _ in 0..n {
                data_resources.push(DataResource {
                    flags: dr.u32("data resource flags")?,
                    cooked_index: if v >= 2 {
                        Some(dr.u8("data resource cooked index")?)
                    } else {
                        None
                    },
                    serial_offset: dr.i64("data resource offset")?,
                    duplicate_serial_offset: dr.i64("data resource duplicate offset")?,
                    serial_size: dr.i64("data resource size")?,
                    raw_size: dr.i64("data resource raw size")?,
                    outer: dr.i32("data resource outer")?,
                    legacy_bulk_data_flags: dr.u32("data resource bulk flags")?,
                });
            }
        }

        // Asset registry data: from its offset to the next section.
        let mut asset_registry_data = Vec::new();
        let ar = s.asset_registry_data_offset;
        if ar > 0 && (ar as usize) <= end {
            let next = [
                s.preload_dependencies
                    .map(|p| p.offset)
                    .filter(|&o| p_nonempty(s.preload_dependencies) && o >= ar),
                s.data_resource_offset.filter(|&o| o >= ar),
                s.world_tile_info_data_offset.filter(|&o| o > ar),
                Some(ths),
            ]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(ths);
            asset_registry_data = data[ar as usize..next as usize].to_vec();
        }

        let pkg = LegacyPackage {
            summary,
            layout,
            names,
            imports,
            exports,
            cell_imports,
            cell_exports,
            depends,
            soft_package_references,
            asset_registry_data,
            preload_dependencies,
            data_resource_version,
            data_resources,
        };
        pkg.check_references()?;
        Ok(pkg)
    }

    /// The text of a name, `None` when out of range.
    pub fn name(&self, n: FName) -> Option<String> {
        let base = &self.names.get(usize::try_from(n.index).ok()?)?.text;
        Some(pakrat_codec::names::with_number(
            base,
            u32::try_from(n.number).ok()?,
        ))
    }

    fn check_name(&self, n: FName, what: &str) -> Result<()> {
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

    fn check_index(&self, i: i32, what: &str) -> Result<()> {
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
        for (i, im) in self.imports.iter().enumerate() {
            let w = format!("import {i}");
            self.check_name(im.class_package, &w)?;
            self.check_name(im.class_name, &w)?;
            self.check_name(im.object_name, &w)?;
            if let Some(p) = im.package_name {
                self.check_name(p, &w)?;
            }
            self.check_index(im.outer, &w)?;
        }
        for (i, e) in self.exports.iter().enumerate() {
            let w = format!("export {i}");
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
            self.check_index(p, &format!("preload dependency {i}"))?;
        }
        for (i, d) in self.depends.iter().enumerate() {
            for &x in d {
                self.check_index(x, &format!("depends of export {i}"))?;
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

    /// Write the header of a cooked package back, laying the sections out as
    /// the cooker does (names, imports, exports, cell maps, depends, asset
    /// registry data, preload dependencies, data resources) and updating
    /// every offset, `TotalHeaderSize`, the export serial offsets and
    /// `BulkDataStartOffset` to the new header size.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let s0 = &self.summary;
        if !s0.filter_editor_only() {
            return Err(Error::Other(
                "writing uncooked (editor) packages is not supported: their thumbnails, gatherable text and searchable names are not modelled".into(),
            ));
        }
        if s0.soft_object_paths.is_some_and(|s| s.count > 0)
            || s0.gatherable_text.is_some_and(|s| s.count > 0)
        {
            return Err(Error::Other("packages with header soft object paths or gatherable text are not written (cooked packages have none)".into()));
        }
        let mut s = s0.clone();
        let v4 = self.layout.ue4;
        let mut w = Writer::new();
        s.write(&mut w);
        let pos = |w: &Writer| w.len() as i32;
        // Names.
        s.names = Section {
            count: self.names.len() as i32,
            offset: pos(&w),
        };
        for n in &self.names {
            write_fstring(&mut w, &n.text, n.wide);
            if v4 >= ue4::NAME_HASHES_SERIALIZED {
                let (a, b) = n.hashes.unwrap_or_else(|| name_hashes(&n.text, n.wide));
                w.u16(a).u16(b);
            }
        }
        if let Some(sp) = &mut s.soft_object_paths {
            *sp = Section {
                count: 0,
                offset: pos(&w),
            };
        }
        // Imports.
        s.imports = Section {
            count: self.imports.len() as i32,
            offset: pos(&w),
        };
        for im in &self.imports {
            let f = |w: &mut Writer, n: FName| {
                w.i32(n.index).i32(n.number);
            };
            f(&mut w, im.class_package);
            f(&mut w, im.class_name);
            w.i32(im.outer);
            f(&mut w, im.object_name);
            if let Some(p) = im.package_name {
                f(&mut w, p);
            }
            if let Some(o) = im.optional {
                w.u32(u32::from(o));
            }
        }
        // Exports (offsets patched below, once the header size is known).
        s.exports = Section {
            count: self.exports.len() as i32,
            offset: pos(&w),
        };
        let mut serial_at = Vec::with_capacity(self.exports.len());
        for e in &self.exports {
            w.i32(e.class).i32(e.super_index);
            if let Some(t) = e.template {
                w.i32(t);
            }
            w.i32(e.outer)
                .i32(e.object_name.index)
                .i32(e.object_name.number)
                .u32(e.object_flags);
            serial_at.push(w.len());
            if v4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES {
                w.i64(e.serial_size).i64(e.serial_offset);
            } else {
                w.i32(e.serial_size as i32).i32(e.serial_offset as i32);
            }
            w.u32(u32::from(e.forced_export))
                .u32(u32::from(e.not_for_client))
                .u32(u32::from(e.not_for_server));
            if let Some(g) = e.package_guid {
                w.guid(g);
            }
            if let Some(b) = e.inherited_instance {
                w.u32(u32::from(b));
            }
            w.u32(e.package_flags);
            for b in [
                e.not_always_loaded_for_editor_game,
                e.is_asset,
                e.generate_public_hash,
            ]
            .into_iter()
            .flatten()
            {
                w.u32(u32::from(b));
            }
            if let Some(d) = e.dependencies {
                for x in d {
                    w.i32(x);
                }
            }
            if let Some((a, b)) = e.script_serialization {
                w.i64(a).i64(b);
            }
        }
        // Verse cells.
        if let Some(cells) = &mut s.cells {
            cells.1 = Section {
                count: self.cell_imports.len() as i32,
                offset: pos(&w),
            };
            for c in &self.cell_imports {
                w.i32(c.package_index);
                write_utf8(&mut w, &c.verse_path);
            }
            cells.0 = Section {
                count: self.cell_exports.len() as i32,
                offset: pos(&w),
            };
            for c in &self.cell_exports {
                w.i32(c.cpp_class_info.index).i32(c.cpp_class_info.number);
                write_utf8(&mut w, &c.verse_path);
                w.i64(c.serial_offset)
                    .i64(c.serial_layout_size)
                    .i64(c.serial_size);
                for d in c.dependencies {
                    w.i32(d);
                }
            }
        } else if !self.cell_imports.is_empty() || !self.cell_exports.is_empty() {
            return Err(Error::Other(format!(
                "Verse cells need UE5 {} or later",
                ue5::VERSE_CELLS
            )));
        }
        // Depends map.
        s.depends_offset = pos(&w);
        for i in 0..self.exports.len() {
            let d = self.depends.get(i).map(Vec::as_slice).unwrap_or(&[]);
            w.i32(d.len() as i32);
            for &x in d {
                w.i32(x);
            }
        }
        if let Some(sp) = &mut s.soft_package_references {
            *sp = if self.soft_package_references.is_empty() {
                Section {
                    count: 0,
                    offset: 0,
                }
            } else {
                Section {
                    count: self.soft_package_references.len() as i32,
                    offset: pos(&w),
                }
            };
            for r in &self.soft_package_references {
                match r {
                    SoftPackageRef::Name(n) => {
                        w.i32(n.index).i32(n.number);
                    }
                    SoftPackageRef::Text(t) => write_fstring(&mut w, t, false),
                }
            }
        }
        // Asset registry data (cooked: an empty list).
        s.asset_registry_data_offset = pos(&w);
        if self.asset_registry_data.is_empty() {
            w.i32(0);
        } else {
            w.bytes(&self.asset_registry_data);
        }
        if let Some(p) = &mut s.preload_dependencies {
            *p = Section {
                count: self.preload_dependencies.len() as i32,
                offset: pos(&w),
            };
            for &x in &self.preload_dependencies {
                w.i32(x);
            }
        }
        if let Some(d) = &mut s.data_resource_offset {
            if self.data_resources.is_empty() && self.data_resource_version.is_none() {
                *d = -1;
            } else {
                *d = pos(&w);
                let v = self.data_resource_version.unwrap_or(2);
                w.u32(v).i32(self.data_resources.len() as i32);
                for r in &self.data_resources {
                    w.u32(r.flags);
                    if v >= 2 {
                        w.u8(r.cooked_index.unwrap_or(0));
                    }
                    w.i64(r.serial_offset)
                        .i64(r.duplicate_serial_offset)
                        .i64(r.serial_size)
                        .i64(r.raw_size)
                        .i32(r.outer)
                        .u32(r.legacy_bulk_data_flags);
                }
            }
        } else if !self.data_resources.is_empty() {
            return Err(Error::Other(format!(
                "data resources need UE5 {} or later",
                ue5::DATA_RESOURCES
            )));
        }
        // Header size and everything that depends on it.
        let ths = w.len() as i64;
        let delta = ths - i64::from(s0.total_header_size);
        s.total_header_size = ths as i32;
        s.bulk_data_start_offset =
            s0.bulk_data_start_offset
                .checked_add(delta)
                .ok_or_else(|| {
                    Error::Other("BulkDataStartOffset overflows with the new header size".into())
                })?;
        let mut out = w.into_inner();
        let mut head = Writer::new();
        s.write(&mut head);
        let head = head.into_inner();
        out[..head.len()].copy_from_slice(&head);
        let wide = v4 >= ue4::EXPORTMAP_64BIT_SERIALSIZES;
        for (i, (e, &at)) in self.exports.iter().zip(&serial_at).enumerate() {
            let off = e.serial_offset.checked_add(delta).ok_or_else(|| {
                Error::Other("an export serial offset overflows with the new header size".into())
            })?;
            // Export data lies after the header: an offset inside the old
            // header (which the new size could move below zero) is no
            // cooked package's, and the narrow form holds 32 bits.
            if e.serial_offset < i64::from(s0.total_header_size)
                || off < 0
                || (!wide && off > i64::from(i32::MAX))
            {
                return Err(Error::Other(format!(
                    "export {i}: serial offset {:#x} lies inside the header ({:#x} bytes); cannot move it",
                    e.serial_offset, s0.total_header_size
                )));
            }
            if wide {
                out[at + 8..at + 16].copy_from_slice(&off.to_le_bytes());
            } else {
                out[at + 4..at + 8].copy_from_slice(&(off as i32).to_le_bytes());
            }
        }
        Ok(out)
    }
}

fn p_nonempty(s: Option<Section>) -> bool {
    s.is_some_and(|s| s.count > 0)
}

fn write_utf8(w: &mut Writer, s: &str) {
    w.i32(s.len() as i32 + 1).bytes(s.as_bytes()).u8(0);
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
