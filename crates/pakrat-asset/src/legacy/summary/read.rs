//! The steps of [`Summary::read`](super::Summary::read): version fields,
//! custom versions, table offsets and cook info.

use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Error, Guid, Reader, Result};

use super::{
    custom_version_form, read_engine_version, ue4, ue5, ChunkIds, CustomVersion, EngineVersion,
    Layout, Section, PACKAGE_FILE_TAG,
};

/// The version fields at the start of a summary.
pub(super) struct Versions {
    pub(super) legacy: i32,
    pub(super) legacy_ue3_version: Option<i32>,
    pub(super) file_version_ue4: i32,
    pub(super) file_version_ue5: Option<i32>,
    pub(super) licensee_version: i32,
}

impl Versions {
    /// The package tag and version fields, and the layout they give (or
    /// `fallback`, for an unversioned package), checked against the known
    /// ranges.
    pub(super) fn read(r: &mut Reader<'_>, fallback: Option<Layout>) -> Result<(Versions, Layout)> {
        let at = r.offset();
        let tag = r.u32("package tag")?;
        if tag != PACKAGE_FILE_TAG {
            return Err(Error::invalid(
                at,
                format!("package tag {tag:#010x}, expected {PACKAGE_FILE_TAG:#010x} (not a UE4/UE5 .uasset)"),
            ));
        }
        let at = r.offset();
        let legacy = r.i32("LegacyFileVersion")?;
        if !(-9..=-2).contains(&legacy) {
            return Err(if legacy >= 0 {
                Error::unsupported(
                    at,
                    format!(
                        "LegacyFileVersion {legacy}: a UE3 package (UE4+ packages store -2 … -9)"
                    ),
                )
            } else {
                Error::unsupported(
                    at,
                    format!("LegacyFileVersion {legacy}: newer than -9, layout not known"),
                )
            });
        }
        let legacy_ue3_version = if legacy != -4 {
            Some(r.i32("LegacyUE3Version")?)
        } else {
            None
        };
        let file_version_ue4 = r.i32("FileVersionUE4")?;
        let file_version_ue5 = if legacy <= -8 {
            Some(r.i32("FileVersionUE5")?)
        } else {
            None
        };
        let licensee_version = r.i32("FileVersionLicenseeUE4")?;
        let v = Versions {
            legacy,
            legacy_ue3_version,
            file_version_ue4,
            file_version_ue5,
            licensee_version,
        };
        let layout = v.layout(fallback, at)?;
        Ok((v, layout))
    }

    /// The layout these versions give (`at`: where the versions are, for
    /// errors).
    fn layout(&self, fallback: Option<Layout>, at: u64) -> Result<Layout> {
        let unversioned = self.file_version_ue4 == 0
            && self.file_version_ue5.unwrap_or(0) == 0
            && self.licensee_version == 0;
        let layout = if unversioned {
            fallback.ok_or_else(|| {
                Error::unsupported(
                    at,
                    "unversioned package (all versions 0): give the engine version (--ue-version, e.g. 5.4)",
                )
            })?
        } else {
            Layout {
                ue4: self.file_version_ue4,
                ue5: self.file_version_ue5.unwrap_or(0),
                import_package_name: fallback.and_then(|f| f.import_package_name),
            }
        };
        if layout.ue4 < ue4::OLDEST_LOADABLE_PACKAGE || layout.ue4 > ue4::LATEST {
            return Err(Error::unsupported(
                at,
                format!(
                    "FileVersionUE4 {} outside the known range {}..={}",
                    layout.ue4,
                    ue4::OLDEST_LOADABLE_PACKAGE,
                    ue4::LATEST
                ),
            ));
        }
        if layout.ue5 != 0 && !(ue5::INITIAL_VERSION..=ue5::LATEST).contains(&layout.ue5) {
            return Err(Error::unsupported(
                at,
                format!(
                    "FileVersionUE5 {} outside the known range {}..={}",
                    layout.ue5,
                    ue5::INITIAL_VERSION,
                    ue5::LATEST
                ),
            ));
        }
        Ok(layout)
    }
}

/// The custom version container, in the form `legacy` gives.
pub(super) fn read_custom_versions(r: &mut Reader<'_>, legacy: i32) -> Result<Vec<CustomVersion>> {
    let form = custom_version_form(legacy);
    let n = i64::from(r.i32("custom version count")?);
    let n = r.check_count(n, if form == 0 { 8 } else { 20 }, "custom version count")?;
    let mut custom_versions = Vec::with_capacity(n);
    for _ in 0..n {
        let cv = match form {
            0 => {
                let tag = r.u32("custom version tag")?;
                let mut b = [0u8; 16];
                b[..4].copy_from_slice(&tag.to_le_bytes());
                CustomVersion {
                    key: Guid::from_bytes(b),
                    version: r.i32("custom version")?,
                    friendly_name: None,
                }
            }
            1 => CustomVersion {
                key: r.guid("custom version key")?,
                version: r.i32("custom version")?,
                friendly_name: Some(read_fstring(r, "custom version name")?),
            },
            _ => CustomVersion {
                key: r.guid("custom version key")?,
                version: r.i32("custom version")?,
                friendly_name: None,
            },
        };
        custom_versions.push(cv);
    }
    Ok(custom_versions)
}

/// A section's count and offset.
fn read_section(r: &mut Reader<'_>, what: &str) -> Result<Section> {
    Ok(Section {
        count: r.i32(what)?,
        offset: r.i32(what)?,
    })
}

/// The summary fields from the name map to the package GUIDs: where the
/// header's tables are.
pub(super) struct Tables {
    pub(super) names: Section,
    pub(super) soft_object_paths: Option<Section>,
    pub(super) localization_id: Option<String>,
    pub(super) gatherable_text: Option<Section>,
    pub(super) exports: Section,
    pub(super) imports: Section,
    pub(super) cells: Option<(Section, Section)>,
    pub(super) metadata_offset: Option<i32>,
    pub(super) depends_offset: i32,
    pub(super) soft_package_references: Option<Section>,
    pub(super) searchable_names_offset: Option<i32>,
    pub(super) thumbnail_table_offset: i32,
    pub(super) import_type_hierarchies: Option<Section>,
    pub(super) guid: Option<Guid>,
    pub(super) persistent_guid: Option<Guid>,
    pub(super) owner_persistent_guid: Option<Guid>,
}

impl Tables {
    /// `filter`: the package has `PKG_FilterEditorOnly`.
    pub(super) fn read(r: &mut Reader<'_>, layout: Layout, filter: bool) -> Result<Tables> {
        let (v4, v5) = (layout.ue4, layout.ue5);
        let sec = read_section;
        let names = sec(r, "name map count/offset")?;
        let soft_object_paths = if v5 >= ue5::ADD_SOFTOBJECTPATH_LIST {
            Some(sec(r, "soft object paths")?)
        } else {
            None
        };
        let localization_id = if !filter && v4 >= ue4::ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID {
            Some(read_fstring(r, "LocalizationId")?)
        } else {
            None
        };
        let gatherable_text = if v4 >= ue4::SERIALIZE_TEXT_IN_PACKAGES {
            Some(sec(r, "gatherable text data")?)
        } else {
            None
        };
        let exports = sec(r, "export map count/offset")?;
        let imports = sec(r, "import map count/offset")?;
        let cells = if v5 >= ue5::VERSE_CELLS {
            Some((sec(r, "cell export map")?, sec(r, "cell import map")?))
        } else {
            None
        };
        let metadata_offset = if v5 >= ue5::METADATA_SERIALIZATION_OFFSET {
            Some(r.i32("MetaDataOffset")?)
        } else {
            None
        };
        let depends_offset = r.i32("DependsOffset")?;
        let soft_package_references = if v4 >= ue4::ADD_STRING_ASSET_REFERENCES_MAP {
            Some(sec(r, "soft package references")?)
        } else {
            None
        };
        let searchable_names_offset = if v4 >= ue4::ADDED_SEARCHABLE_NAMES {
            Some(r.i32("SearchableNamesOffset")?)
        } else {
            None
        };
        let thumbnail_table_offset = r.i32("ThumbnailTableOffset")?;
        let import_type_hierarchies = if v5 >= ue5::IMPORT_TYPE_HIERARCHIES {
            Some(sec(r, "import type hierarchies")?)
        } else {
            None
        };
        let guid = if v5 < ue5::PACKAGE_SAVED_HASH {
            Some(r.guid("package Guid")?)
        } else {
            None
        };
        let (persistent_guid, owner_persistent_guid) = if !filter && v4 >= ue4::ADDED_PACKAGE_OWNER
        {
            let p = r.guid("PersistentGuid")?;
            let o = if v4 < ue4::NON_OUTER_PACKAGE_IMPORT {
                Some(r.guid("OwnerPersistentGuid")?)
            } else {
                None
            };
            (Some(p), o)
        } else {
            (None, None)
        };
        Ok(Tables {
            names,
            soft_object_paths,
            localization_id,
            gatherable_text,
            exports,
            imports,
            cells,
            metadata_offset,
            depends_offset,
            soft_package_references,
            searchable_names_offset,
            thumbnail_table_offset,
            import_type_hierarchies,
            guid,
            persistent_guid,
            owner_persistent_guid,
        })
    }
}

/// The summary fields from the generations to the end: engine versions,
/// cook settings and the offsets of the later sections.
pub(super) struct CookInfo {
    pub(super) generations: Vec<(i32, i32)>,
    pub(super) saved_by: Option<EngineVersion>,
    pub(super) engine_changelist: Option<i32>,
    pub(super) compatible_with: Option<EngineVersion>,
    pub(super) compression_flags: u32,
    pub(super) package_source: u32,
    pub(super) additional_packages_to_cook: Vec<String>,
    pub(super) num_texture_allocations: Option<i32>,
    pub(super) asset_registry_data_offset: i32,
    pub(super) bulk_data_start_offset: i64,
    pub(super) world_tile_info_data_offset: Option<i32>,
    pub(super) chunk_ids: Option<ChunkIds>,
    pub(super) preload_dependencies: Option<Section>,
    pub(super) names_referenced_from_export_data: Option<i32>,
    pub(super) payload_toc_offset: Option<i64>,
    pub(super) data_resource_offset: Option<i32>,
}

impl CookInfo {
    pub(super) fn read(r: &mut Reader<'_>, layout: Layout, legacy: i32) -> Result<CookInfo> {
        let (v4, v5) = (layout.ue4, layout.ue5);
        let n = i64::from(r.i32("generation count")?);
        let n = r.check_count(n, 8, "generation count")?;
        let mut generations = Vec::with_capacity(n);
        for _ in 0..n {
            generations.push((
                r.i32("generation export count")?,
                r.i32("generation name count")?,
            ));
        }
        let (saved_by, engine_changelist) = if v4 >= ue4::ENGINE_VERSION_OBJECT {
            (Some(read_engine_version(r)?), None)
        } else {
            (None, Some(r.i32("EngineChangelist")?))
        };
        let compatible_with = if v4 >= ue4::PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION {
            Some(read_engine_version(r)?)
        } else {
            None
        };
        let at = r.offset();
        let compression_flags = r.u32("CompressionFlags")?;
        let chunks = r.i32("compressed chunk count")?;
        if chunks != 0 {
            return Err(Error::unsupported(at + 4, format!("{chunks} compressed chunks: package-level compression (UE3 style) is not supported by UE4+ either")));
        }
        let package_source = r.u32("PackageSource")?;
        let n = i64::from(r.i32("AdditionalPackagesToCook count")?);
        let n = r.check_count(n, 4, "AdditionalPackagesToCook count")?;
        let mut additional_packages_to_cook = Vec::with_capacity(n);
        for _ in 0..n {
            additional_packages_to_cook.push(read_fstring(r, "AdditionalPackagesToCook")?);
        }
        let num_texture_allocations = if legacy > -7 {
            let at = r.offset();
            let n = r.i32("NumTextureAllocations")?;
            if n != 0 {
                return Err(Error::unsupported(at, format!("NumTextureAllocations {n}: texture allocation info is not supported (expected 0)")));
            }
            Some(n)
        } else {
            None
        };
        let asset_registry_data_offset = r.i32("AssetRegistryDataOffset")?;
        let bulk_data_start_offset = r.i64("BulkDataStartOffset")?;
        let world_tile_info_data_offset = if v4 >= ue4::WORLD_LEVEL_INFO {
            Some(r.i32("WorldTileInfoDataOffset")?)
        } else {
            None
        };
        let chunk_ids = read_chunk_ids(r, v4)?;
        let preload_dependencies = if v4 >= ue4::PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS {
            Some(read_section(r, "preload dependencies")?)
        } else {
            None
        };
        let names_referenced_from_export_data = if v5 >= ue5::NAMES_REFERENCED_FROM_EXPORT_DATA {
            Some(r.i32("NamesReferencedFromExportDataCount")?)
        } else {
            None
        };
        let payload_toc_offset = if v5 >= ue5::PAYLOAD_TOC {
            Some(r.i64("PayloadTocOffset")?)
        } else {
            None
        };
        let data_resource_offset = if v5 >= ue5::DATA_RESOURCES {
            Some(r.i32("DataResourceOffset")?)
        } else {
            None
        };
        Ok(CookInfo {
            generations,
            saved_by,
            engine_changelist,
            compatible_with,
            compression_flags,
            package_source,
            additional_packages_to_cook,
            num_texture_allocations,
            asset_registry_data_offset,
            bulk_data_start_offset,
            world_tile_info_data_offset,
            chunk_ids,
            preload_dependencies,
            names_referenced_from_export_data,
            payload_toc_offset,
            data_resource_offset,
        })
    }
}

/// The chunk ids: an array from UE4
/// `CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS`, one before, none earlier.
fn read_chunk_ids(r: &mut Reader<'_>, v4: i32) -> Result<Option<ChunkIds>> {
    Ok(if v4 >= ue4::CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS {
        let n = i64::from(r.i32("ChunkIDs count")?);
        let n = r.check_count(n, 4, "ChunkIDs count")?;
        Some(ChunkIds::Array(
            (0..n)
                .map(|_| r.i32("ChunkID"))
                .collect::<Result<Vec<_>>>()?,
        ))
    } else if v4 >= ue4::ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE {
        Some(ChunkIds::Single(r.i32("ChunkID")?))
    } else {
        None
    })
}
