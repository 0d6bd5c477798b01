//! `FPackageFileSummary`: the header of a legacy (UE4/UE5) `.uasset`.
//!
//! Field order and the versions that add or remove fields follow UE
//! `PackageFileSummary.cpp` (`operator<<(FStructuredArchive::FSlot,
//! FPackageFileSummary&)`), cross-checked with CUE4Parse
//! `FPackageFileSummary.cs` and retoc `legacy_asset.rs`. Every field that a
//! version writes is kept (`Option` = "not written at this version"), so
//! [`Summary::write`] reproduces the bytes [`Summary::read`] saw.

use pakrat_io::{Guid, Reader, Result, Writer};
use serde::Serialize;

use pakrat_codec::fstring::read_fstring;

mod read;
use read::{read_custom_versions, CookInfo, Tables, Versions};

/// `PACKAGE_FILE_TAG`.
pub const PACKAGE_FILE_TAG: u32 = 0x9E2A_83C1;
/// The UE3 version a UE4+ saver writes for old loaders (`VER_LAST_ENGINE_UE3`).
pub const UE3_LATEST: i32 = 864;

/// `EUnrealEngineObjectUE4Version` values that change the summary or tables
/// (UE `ObjectVersion.h`).
pub mod ue4 {
    /// Oldest package UE4 loads.
    pub const OLDEST_LOADABLE_PACKAGE: i32 = 214;
    /// `WorldTileInfoDataOffset`.
    pub const WORLD_LEVEL_INFO: i32 = 224;
    /// A single `ChunkID`.
    pub const ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE: i32 = 278;
    /// `ChunkIDs` array.
    pub const CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS: i32 = 326;
    /// `FEngineVersion SavedByEngineVersion` (was an `i32` changelist).
    pub const ENGINE_VERSION_OBJECT: i32 = 336;
    /// Export `bNotAlwaysLoadedForEditorGame`.
    pub const LOAD_FOR_EDITOR_GAME: i32 = 365;
    /// Soft package references.
    pub const ADD_STRING_ASSET_REFERENCES_MAP: i32 = 384;
    /// `CompatibleWithEngineVersion`.
    pub const PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION: i32 = 444;
    /// Gatherable text data.
    pub const SERIALIZE_TEXT_IN_PACKAGES: i32 = 459;
    /// Export `bIsAsset`.
    pub const COOKED_ASSETS_IN_EDITOR_SUPPORT: i32 = 485;
    /// Name map entries carry two 16-bit hashes.
    pub const NAME_HASHES_SERIALIZED: i32 = 504;
    /// Preload dependencies.
    pub const PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS: i32 = 507;
    /// Export `TemplateIndex`.
    pub const TEMPLATE_INDEX_IN_COOKED_EXPORTS: i32 = 508;
    /// `SearchableNamesOffset`.
    pub const ADDED_SEARCHABLE_NAMES: i32 = 510;
    /// Export serial size/offset become `i64`.
    pub const EXPORTMAP_64BIT_SERIALSIZES: i32 = 511;
    /// Soft package references become `FName`s.
    pub const ADDED_SOFT_OBJECT_PATH: i32 = 514;
    /// `LocalizationId`.
    pub const ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID: i32 = 516;
    /// `PersistentGuid` / `OwnerPersistentGuid`.
    pub const ADDED_PACKAGE_OWNER: i32 = 518;
    /// Import `PackageName`; `OwnerPersistentGuid` removed.
    pub const NON_OUTER_PACKAGE_IMPORT: i32 = 520;
    /// The last UE4 version (`CORRECT_LICENSEE_FLAG`).
    pub const LATEST: i32 = 522;
}

/// `EUnrealEngineObjectUE5Version` values (UE `ObjectVersion.h`).
pub mod ue5 {
    /// First UE5 version.
    pub const INITIAL_VERSION: i32 = 1000;
    /// `NamesReferencedFromExportDataCount`.
    pub const NAMES_REFERENCED_FROM_EXPORT_DATA: i32 = 1001;
    /// `PayloadTocOffset`.
    pub const PAYLOAD_TOC: i32 = 1002;
    /// Import `bImportOptional`, export `bGeneratePublicHash`.
    pub const OPTIONAL_RESOURCES: i32 = 1003;
    /// Export `PackageGuid` removed.
    pub const REMOVE_OBJECT_EXPORT_PACKAGE_GUID: i32 = 1005;
    /// Export `bIsInheritedInstance`.
    pub const TRACK_OBJECT_EXPORT_IS_INHERITED: i32 = 1006;
    /// Soft object path list.
    pub const ADD_SOFTOBJECTPATH_LIST: i32 = 1008;
    /// `DataResourceOffset`.
    pub const DATA_RESOURCES: i32 = 1009;
    /// Export script serialization offsets (versioned properties only).
    pub const SCRIPT_SERIALIZATION_OFFSET: i32 = 1010;
    /// `MetaDataOffset`.
    pub const METADATA_SERIALIZATION_OFFSET: i32 = 1014;
    /// Verse cell import/export maps.
    pub const VERSE_CELLS: i32 = 1015;
    /// `SavedHash`; `TotalHeaderSize` moves before the custom versions;
    /// the package `Guid` goes.
    pub const PACKAGE_SAVED_HASH: i32 = 1016;
    /// Import type hierarchies (count/offset).
    pub const IMPORT_TYPE_HIERARCHIES: i32 = 1018;
    /// The newest version pakrat knows.
    pub const LATEST: i32 = 1018;
}

/// Package flags this reader and the converters look at (UE `EPackageFlags`).
pub mod flags {
    /// `PKG_Cooked`.
    pub const COOKED: u32 = 0x0000_0200;
    /// `PKG_UnversionedProperties`.
    pub const UNVERSIONED_PROPERTIES: u32 = 0x0000_2000;
    /// `PKG_FilterEditorOnly`.
    pub const FILTER_EDITOR_ONLY: u32 = 0x8000_0000;
    /// `PKG_ContainsMap`: the package holds a `UWorld` (a `.umap`).
    pub const CONTAINS_MAP: u32 = 0x0002_0000;

    /// UE4/UE5 `EPackageFlags` by bit (as CUE4Parse `EPackageFlags.cs`
    /// lists them; bits 12, 19 and 23–26 are unused).
    const NAMES: [(u32, &str); 24] = [
        (0x0000_0001, "NewlyCreated"),
        (0x0000_0002, "ClientOptional"),
        (0x0000_0004, "ServerSideOnly"),
        (0x0000_0010, "CompiledIn"),
        (0x0000_0020, "ForDiffing"),
        (0x0000_0040, "EditorOnly"),
        (0x0000_0080, "Developer"),
        (0x0000_0100, "UncookedOnly"),
        (0x0000_0200, "Cooked"),
        (0x0000_0400, "ContainsNoAsset"),
        (0x0000_0800, "NotExternallyReferenceable"),
        (0x0000_2000, "UnversionedProperties"),
        (0x0000_4000, "ContainsMapData"),
        (0x0000_8000, "IsSaving"),
        (0x0001_0000, "Compiling"),
        (0x0002_0000, "ContainsMap"),
        (0x0004_0000, "RequiresLocalizationGather"),
        (0x0010_0000, "PlayInEditor"),
        (0x0020_0000, "ContainsScript"),
        (0x0040_0000, "DisallowExport"),
        (0x0800_0000, "CookGenerated"),
        (0x1000_0000, "DynamicImports"),
        (0x2000_0000, "RuntimeGenerated"),
        (0x8000_0000, "FilterEditorOnly"),
    ];

    /// The names of the flags set in `f`; an unknown bit is shown as hex.
    pub fn names(f: u32) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = f;
        for (bit, name) in NAMES {
            if f & bit != 0 {
                out.push(name.to_string());
                rest &= !bit;
            }
        }
        // ReloadingForCooker (0x40000000) is never saved; show it raw too.
        if rest != 0 {
            out.push(format!("{rest:#x}"));
        }
        out
    }
}

/// Object versions that decide the layout of a package's header and tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// `FileVersionUE4`.
    pub ue4: i32,
    /// `FileVersionUE5` (0 before UE5).
    pub ue5: i32,
    /// Imports carry `PackageName` even in cooked packages (UE 5.8+; the
    /// object version did not change, CUE4Parse `ObjectResource.cs` gates it
    /// on the engine version). `None`: decide from the import map's size.
    pub import_package_name: Option<bool>,
}

impl Layout {
    /// The layout of an engine release, `"4.0"` … `"6.0"` (also `"5"`,
    /// `"5.4.2"`: extra parts are ignored).
    ///
    /// The object versions each release shipped with, as both CUE4Parse
    /// (`EGame.cs` `GetVersion`) and retoc (`version.rs`) list them; where
    /// only one covers a release (UE4 before 4.25) it is CUE4Parse's.
    pub fn for_engine(v: &str) -> Option<Layout> {
        let mut parts = v.trim().split('.');
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = match parts.next() {
            Some(m) => m.parse().ok()?,
            None => 0,
        };
        let ue4 = match (major, minor) {
            (4, 0) => 342,
            (4, 1) => 352,
            (4, 2) => 363,
            (4, 3) => 382,
            (4, 4) => 385,
            (4, 5) => 401,
            (4, 6) => 413,
            (4, 7) => 434,
            (4, 8) => 451,
            (4, 9 | 10) => 482,
            (4, 11) => 498,
            (4, 12) => 504,
            (4, 13) => 505,
            (4, 14) => 508,
            (4, 15) => 510,
            (4, 16 | 17) => 513,
            (4, 18) => 514,
            (4, 19 | 20) => 516,
            (4, 21..=23) => 517,
            (4, 24 | 25) => 518,
            (4, 26 | 27) => 522,
            (5 | 6, _) => ue4::LATEST,
            _ => return None,
        };
        let ue5 = match (major, minor) {
            (4, _) => 0,
            (5, 0) => 1004,
            (5, 1) => 1008,
            (5, 2 | 3) => 1009,
            (5, 4) => 1012,
            (5, 5) => 1013,
            (5, 6) => 1017,
            _ => ue5::LATEST,
        };
        Some(Layout {
            ue4,
            ue5,
            import_package_name: Some(major > 5 || (major == 5 && minor >= 8)),
        })
    }
}

/// How custom versions are stored (by `LegacyFileVersion`).
fn custom_version_form(legacy: i32) -> u8 {
    match legacy {
        -2 => 0,      // enum tags: u32 tag, i32 version
        -5..=-3 => 1, // guid, i32 version, FString friendly name
        _ => 2,       // guid, i32 version
    }
}

/// One custom version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CustomVersion {
    /// Key (the enum tag of the `-2` form sits in the first word).
    pub key: Guid,
    /// Version.
    pub version: i32,
    /// Friendly name (`-3`…`-5` forms only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
}

/// `FEngineVersion`.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
pub struct EngineVersion {
    /// Major.
    pub major: u16,
    /// Minor.
    pub minor: u16,
    /// Patch.
    pub patch: u16,
    /// Changelist (top bit: licensee changelist).
    pub changelist: u32,
    /// Branch name.
    pub branch: String,
}

/// A `(count, offset)` pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub struct Section {
    /// Number of entries.
    pub count: i32,
    /// Offset from the start of the `.uasset`.
    pub offset: i32,
}

/// `ChunkIDs` in either stored form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ChunkIds {
    /// UE4 326+: an array.
    Array(Vec<i32>),
    /// UE4 278–325: one id (-1 = none).
    Single(i32),
}

/// `FPackageFileSummary`, every field as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// `LegacyFileVersion` (-2 … -9).
    pub legacy_file_version: i32,
    /// `LegacyUE3Version` (absent at -4).
    pub legacy_ue3_version: Option<i32>,
    /// `FileVersionUE4` as stored (0 when unversioned).
    pub file_version_ue4: i32,
    /// `FileVersionUE5` as stored (-8 and later).
    pub file_version_ue5: Option<i32>,
    /// `FileVersionLicenseeUE4`.
    pub licensee_version: i32,
    /// `SavedHash` (UE5 `PACKAGE_SAVED_HASH`).
    pub saved_hash: Option<[u8; 20]>,
    /// Custom versions.
    pub custom_versions: Vec<CustomVersion>,
    /// `TotalHeaderSize`: the bytes of the `.uasset` header; exports follow.
    pub total_header_size: i32,
    /// `PackageName` (the "folder name").
    pub package_name: String,
    /// `PackageFlags`.
    pub package_flags: u32,
    /// Name map.
    pub names: Section,
    /// Soft object paths (UE5 1008+).
    pub soft_object_paths: Option<Section>,
    /// `LocalizationId` (uncooked packages, UE4 516+).
    pub localization_id: Option<String>,
    /// Gatherable text data (UE4 459+).
    pub gatherable_text: Option<Section>,
    /// Export map.
    pub exports: Section,
    /// Import map.
    pub imports: Section,
    /// Verse cell exports and imports (UE5 1015+).
    pub cells: Option<(Section, Section)>,
    /// `MetaDataOffset` (UE5 1014+).
    pub metadata_offset: Option<i32>,
    /// `DependsOffset`.
    pub depends_offset: i32,
    /// Soft package references (UE4 384+).
    pub soft_package_references: Option<Section>,
    /// `SearchableNamesOffset` (UE4 510+).
    pub searchable_names_offset: Option<i32>,
    /// `ThumbnailTableOffset`.
    pub thumbnail_table_offset: i32,
    /// Import type hierarchies (UE5 1018+).
    pub import_type_hierarchies: Option<Section>,
    /// Package `Guid` (before UE5 1016).
    pub guid: Option<Guid>,
    /// `PersistentGuid` (uncooked, UE4 518+).
    pub persistent_guid: Option<Guid>,
    /// `OwnerPersistentGuid` (uncooked, UE4 518–519).
    pub owner_persistent_guid: Option<Guid>,
    /// Generations: `(ExportCount, NameCount)`.
    pub generations: Vec<(i32, i32)>,
    /// `SavedByEngineVersion` (UE4 336+) …
    pub saved_by: Option<EngineVersion>,
    /// … or, before, `EngineChangelist`.
    pub engine_changelist: Option<i32>,
    /// `CompatibleWithEngineVersion` (UE4 444+).
    pub compatible_with: Option<EngineVersion>,
    /// `CompressionFlags` (must be 0: package-level compression is gone).
    pub compression_flags: u32,
    /// `PackageSource`.
    pub package_source: u32,
    /// `AdditionalPackagesToCook`.
    pub additional_packages_to_cook: Vec<String>,
    /// `NumTextureAllocations` (before -7; must be 0).
    pub num_texture_allocations: Option<i32>,
    /// `AssetRegistryDataOffset`.
    pub asset_registry_data_offset: i32,
    /// `BulkDataStartOffset`.
    pub bulk_data_start_offset: i64,
    /// `WorldTileInfoDataOffset` (UE4 224+).
    pub world_tile_info_data_offset: Option<i32>,
    /// `ChunkIDs` (UE4 326+) or the single `ChunkID` (278–325).
    pub chunk_ids: Option<ChunkIds>,
    /// Preload dependencies (UE4 507+).
    pub preload_dependencies: Option<Section>,
    /// `NamesReferencedFromExportDataCount` (UE5 1001+).
    pub names_referenced_from_export_data: Option<i32>,
    /// `PayloadTocOffset` (UE5 1002+).
    pub payload_toc_offset: Option<i64>,
    /// `DataResourceOffset` (UE5 1009+).
    pub data_resource_offset: Option<i32>,
}

impl Summary {
    /// True when the stored versions are all zero: the layout comes from
    /// elsewhere (`--ue-version`, a zen container).
    pub fn is_unversioned(&self) -> bool {
        self.file_version_ue4 == 0
            && self.file_version_ue5.unwrap_or(0) == 0
            && self.licensee_version == 0
    }

    /// `PKG_FilterEditorOnly`.
    pub fn filter_editor_only(&self) -> bool {
        self.package_flags & flags::FILTER_EDITOR_ONLY != 0
    }

    /// `PKG_UnversionedProperties`.
    pub fn unversioned_properties(&self) -> bool {
        self.package_flags & flags::UNVERSIONED_PROPERTIES != 0
    }

    /// Read a summary from the start of a `.uasset`. `fallback` gives the
    /// layout of an unversioned package (required then).
    pub fn read(r: &mut Reader<'_>, fallback: Option<Layout>) -> Result<(Summary, Layout)> {
        let (v, layout) = Versions::read(r, fallback)?;
        // UE checks the version here; the -9 legacy bump came with it.
        let saved_hash_form = layout.ue5 >= ue5::PACKAGE_SAVED_HASH;
        let mut total_header_size = 0;
        let saved_hash = if saved_hash_form {
            let h = r.array::<20>("SavedHash")?;
            total_header_size = r.i32("TotalHeaderSize")?;
            Some(h)
        } else {
            None
        };
        let custom_versions = read_custom_versions(r, v.legacy)?;
        if !saved_hash_form {
            total_header_size = r.i32("TotalHeaderSize")?;
        }
        let package_name = read_fstring(r, "PackageName")?;
        let package_flags = r.u32("PackageFlags")?;
        let filter = package_flags & flags::FILTER_EDITOR_ONLY != 0;
        let t = Tables::read(r, layout, filter)?;
        let c = CookInfo::read(r, layout, v.legacy)?;
        Ok((
            Summary {
                legacy_file_version: v.legacy,
                legacy_ue3_version: v.legacy_ue3_version,
                file_version_ue4: v.file_version_ue4,
                file_version_ue5: v.file_version_ue5,
                licensee_version: v.licensee_version,
                saved_hash,
                custom_versions,
                total_header_size,
                package_name,
                package_flags,
                names: t.names,
                soft_object_paths: t.soft_object_paths,
                localization_id: t.localization_id,
                gatherable_text: t.gatherable_text,
                exports: t.exports,
                imports: t.imports,
                cells: t.cells,
                metadata_offset: t.metadata_offset,
                depends_offset: t.depends_offset,
                soft_package_references: t.soft_package_references,
                searchable_names_offset: t.searchable_names_offset,
                thumbnail_table_offset: t.thumbnail_table_offset,
                import_type_hierarchies: t.import_type_hierarchies,
                guid: t.guid,
                persistent_guid: t.persistent_guid,
                owner_persistent_guid: t.owner_persistent_guid,
                generations: c.generations,
                saved_by: c.saved_by,
                engine_changelist: c.engine_changelist,
                compatible_with: c.compatible_with,
                compression_flags: c.compression_flags,
                package_source: c.package_source,
                additional_packages_to_cook: c.additional_packages_to_cook,
                num_texture_allocations: c.num_texture_allocations,
                asset_registry_data_offset: c.asset_registry_data_offset,
                bulk_data_start_offset: c.bulk_data_start_offset,
                world_tile_info_data_offset: c.world_tile_info_data_offset,
                chunk_ids: c.chunk_ids,
                preload_dependencies: c.preload_dependencies,
                names_referenced_from_export_data: c.names_referenced_from_export_data,
                payload_toc_offset: c.payload_toc_offset,
                data_resource_offset: c.data_resource_offset,
            },
            layout,
        ))
    }

    /// Write the summary: the mirror of [`Summary::read`] (the fields that
    /// are `Some` are the ones written).
    pub fn write(&self, w: &mut Writer) {
        w.u32(PACKAGE_FILE_TAG).i32(self.legacy_file_version);
        if let Some(v) = self.legacy_ue3_version {
            w.i32(v);
        }
        w.i32(self.file_version_ue4);
        if let Some(v) = self.file_version_ue5 {
            w.i32(v);
        }
        w.i32(self.licensee_version);
        if let Some(h) = &self.saved_hash {
            w.bytes(h).i32(self.total_header_size);
        }
        w.i32(self.custom_versions.len() as i32);
        let form = custom_version_form(self.legacy_file_version);
        for cv in &self.custom_versions {
            if form == 0 {
                w.bytes(&cv.key.to_bytes()[..4]);
            } else {
                w.guid(cv.key);
            }
            w.i32(cv.version);
            if form == 1 {
                write_fstring(w, cv.friendly_name.as_deref().unwrap_or(""), false);
            }
        }
        if self.saved_hash.is_none() {
            w.i32(self.total_header_size);
        }
        write_fstring(w, &self.package_name, false);
        w.u32(self.package_flags);
        let sec = |w: &mut Writer, s: &Section| {
            w.i32(s.count).i32(s.offset);
        };
        sec(w, &self.names);
        if let Some(s) = &self.soft_object_paths {
            sec(w, s);
        }
        if let Some(s) = &self.localization_id {
            write_fstring(w, s, false);
        }
        if let Some(s) = &self.gatherable_text {
            sec(w, s);
        }
        sec(w, &self.exports);
        sec(w, &self.imports);
        if let Some((e, i)) = &self.cells {
            sec(w, e);
            sec(w, i);
        }
        if let Some(v) = self.metadata_offset {
            w.i32(v);
        }
        w.i32(self.depends_offset);
        if let Some(s) = &self.soft_package_references {
            sec(w, s);
        }
        if let Some(v) = self.searchable_names_offset {
            w.i32(v);
        }
        w.i32(self.thumbnail_table_offset);
        if let Some(s) = &self.import_type_hierarchies {
            sec(w, s);
        }
        if let Some(g) = self.guid {
            w.guid(g);
        }
        if let Some(g) = self.persistent_guid {
            w.guid(g);
        }
        if let Some(g) = self.owner_persistent_guid {
            w.guid(g);
        }
        w.i32(self.generations.len() as i32);
        for (e, n) in &self.generations {
            w.i32(*e).i32(*n);
        }
        if let Some(v) = &self.saved_by {
            write_engine_version(w, v);
        }
        if let Some(c) = self.engine_changelist {
            w.i32(c);
        }
        if let Some(v) = &self.compatible_with {
            write_engine_version(w, v);
        }
        w.u32(self.compression_flags)
            .i32(0)
            .u32(self.package_source);
        w.i32(self.additional_packages_to_cook.len() as i32);
        for p in &self.additional_packages_to_cook {
            write_fstring(w, p, false);
        }
        if let Some(n) = self.num_texture_allocations {
            w.i32(n);
        }
        w.i32(self.asset_registry_data_offset)
            .i64(self.bulk_data_start_offset);
        if let Some(v) = self.world_tile_info_data_offset {
            w.i32(v);
        }
        match &self.chunk_ids {
            Some(ChunkIds::Array(ids)) => {
                w.i32(ids.len() as i32);
                for &id in ids {
                    w.i32(id);
                }
            }
            Some(ChunkIds::Single(id)) => {
                w.i32(*id);
            }
            None => {}
        }
        if let Some(s) = &self.preload_dependencies {
            sec(w, s);
        }
        if let Some(v) = self.names_referenced_from_export_data {
            w.i32(v);
        }
        if let Some(v) = self.payload_toc_offset {
            w.i64(v);
        }
        if let Some(v) = self.data_resource_offset {
            w.i32(v);
        }
    }
}

fn read_engine_version(r: &mut Reader<'_>) -> Result<EngineVersion> {
    Ok(EngineVersion {
        major: r.u16("engine version major")?,
        minor: r.u16("engine version minor")?,
        patch: r.u16("engine version patch")?,
        changelist: r.u32("engine changelist")?,
        branch: read_fstring(r, "engine branch")?,
    })
}

fn write_engine_version(w: &mut Writer, v: &EngineVersion) {
    w.u16(v.major).u16(v.minor).u16(v.patch).u32(v.changelist);
    write_fstring(w, &v.branch, false);
}

/// Write an `FString` with an `i32` length: 8-bit when every character fits
/// in Latin-1 and `wide` is not asked for, UTF-16LE otherwise.
pub fn write_fstring(w: &mut Writer, s: &str, wide: bool) {
    if s.is_empty() && !wide {
        w.i32(0);
        return;
    }
    match (wide, pakrat_io::FString::to_latin1(s)) {
        (false, Some(b)) => {
            w.i32(b.len() as i32 + 1).bytes(&b).u8(0);
        }
        _ => {
            let units: Vec<u16> = s.encode_utf16().collect();
            w.i32(-(units.len() as i32 + 1));
            for u in units {
                w.u16(u);
            }
            w.u16(0);
        }
    }
}
