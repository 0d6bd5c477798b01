//! Zen → legacy: [`to_legacy`] and the steps it takes.

use std::collections::HashMap;

use pakrat_io::{Error, Guid, Result};

use super::resolve::{mapped, Nm, Obj, Resolver};
use super::{PackageSource, RF_PUBLIC, RF_STANDALONE};
use crate::legacy::summary::{ue4, ue5, UE3_LATEST};
use crate::legacy::{
    ChunkIds, CustomVersion, DataResource, EngineVersion, Export as LExport, FName, Import, Layout,
    LegacyPackage, NameEntry, Section, Summary,
};
use crate::zen::{Export as ZExport, ObjectIndex, ObjectRef, ZenLayout, ZenPackage};
use pakrat_codec::names::BatchName;

/// A converted legacy package.
#[derive(Debug)]
pub struct LegacyOutput {
    /// The parsed model (as it would read back).
    pub package: LegacyPackage,
    /// `.uasset` bytes.
    pub uasset: Vec<u8>,
    /// `.uexp` bytes (export data and the closing package tag).
    pub uexp: Vec<u8>,
}

/// The bytes of a converted legacy package ([`to_legacy_bytes`]).
#[derive(Debug)]
pub struct LegacyBytes<'a> {
    /// `.uasset` bytes.
    pub uasset: Vec<u8>,
    /// `.uexp` bytes (export data and the closing package tag).
    pub uexp: std::borrow::Cow<'a, [u8]>,
}

impl LegacyBytes<'_> {
    /// Read the header back as a model ([`LegacyOutput`]).
    pub fn read_back(self, layout: Layout) -> Result<LegacyOutput> {
        let package = LegacyPackage::read(&self.uasset, Some(layout))?;
        Ok(LegacyOutput {
            package,
            uasset: self.uasset,
            uexp: self.uexp.into_owned(),
        })
    }
}

pub(super) struct NameTable {
    pub(super) entries: Vec<NameEntry>,
    index: foldhash::HashMap<String, usize>,
    extra: Vec<String>,
}

impl NameTable {
    /// The batch's names, which keep their indices (export data refers to
    /// them).
    pub(super) fn from_batch(batch: &[BatchName]) -> NameTable {
        let mut names = NameTable {
            entries: Vec::with_capacity(batch.len()),
            index: foldhash::HashMap::with_capacity_and_hasher(batch.len(), Default::default()),
            extra: Vec::new(),
        };
        for (i, b) in batch.iter().enumerate() {
            names.entries.push(NameEntry {
                text: b.text.clone(),
                wide: b.wide,
                hashes: Some(crate::legacy::name_hashes(&b.text, b.wide)),
            });
            names.index.entry(b.text.clone()).or_insert(i);
        }
        names
    }

    fn get(&mut self, n: &Nm) -> FName {
        let i = match self.index.get(&n.0) {
            Some(&i) => i,
            None => {
                let i = self.entries.len() + self.extra.len();
                self.index.insert(n.0.clone(), i);
                self.extra.push(n.0.clone());
                i
            }
        };
        FName {
            index: i as i32,
            number: n.1 as i32,
        }
    }

    /// Put the names not in the batch after it in case-insensitive order
    /// and renumber the references to them.
    pub(super) fn append_extra_sorted(&mut self, imports: &mut [Import], exports: &mut [LExport]) {
        let mut extra = std::mem::take(&mut self.extra);
        let order: Vec<usize> = {
            let mut o: Vec<usize> = (0..extra.len()).collect();
            o.sort_by_cached_key(|&i| (extra[i].to_ascii_lowercase(), extra[i].clone()));
            o
        };
        let base = self.entries.len();
        let mut remap = vec![0usize; extra.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = base + new;
        }
        for &i in &order {
            self.entries
                .push(NameEntry::new(&std::mem::take(&mut extra[i])));
        }
        let fix = |f: &mut FName| {
            if f.index as usize >= base {
                f.index = remap[f.index as usize - base] as i32;
            }
        };
        for im in imports {
            fix(&mut im.class_package);
            fix(&mut im.class_name);
            fix(&mut im.object_name);
            if let Some(p) = &mut im.package_name {
                fix(p);
            }
        }
        for e in exports {
            fix(&mut e.object_name);
        }
    }
}

/// Convert a zen package (UE 5.3+ layout; the UE4 layout goes to
/// [`super::to_legacy_ue4`]) to a legacy one. `chunk` is its
/// whole ExportBundleData chunk; `imported` the store entry's imported
/// package ids; `layout` the legacy layout to write (from the package's
/// versioning info when it has one, see [`layout_of`]).
pub fn to_legacy(
    zen: &ZenPackage,
    chunk: &[u8],
    imported: &[u64],
    src: &dyn PackageSource,
    layout: Layout,
) -> Result<LegacyOutput> {
    to_legacy_bytes(zen, chunk, imported, src, layout)?.read_back(layout)
}

/// [`to_legacy`] without reading the written header back: the files'
/// bytes, the `.uexp` borrowed from `chunk` where it is the chunk's tail
/// (what `zen to-legacy` writes; issue 31 item 18).
pub fn to_legacy_bytes<'a>(
    zen: &ZenPackage,
    chunk: &'a [u8],
    imported: &[u64],
    src: &dyn PackageSource,
    layout: Layout,
) -> Result<LegacyBytes<'a>> {
    if zen.layout == ZenLayout::Ue4 {
        return super::zen_to_legacy_ue4::to_legacy_ue4_bytes(zen, chunk, imported, src, layout);
    }
    let hs = check_convertible(zen, chunk)?;
    let r = Resolver::new(src);
    let mut names = NameTable::from_batch(&zen.names);
    let hints = template_hints(zen, imported, &r);
    let slots = ImportSlots::resolve(zen, imported, &r, &hints)?.fill_holes(zen)?;
    let mut imports = slots.legacy_imports(&mut names, layout);
    let map = IndexMap::new(zen);
    let mut exports = ExportTables::build(zen, &map, &mut names, layout)?;
    let uexp = &chunk[hs..];
    if exports.end > uexp.len() as u64 {
        return Err(Error::invalid(
            hs as u64,
            format!(
                "{}: export data ends at {:#x}, past the chunk ({:#x})",
                zen.name,
                exports.end,
                uexp.len()
            ),
        ));
    }
    names.append_extra_sorted(&mut imports, &mut exports.exports);
    let data_resources = data_resources(zen);
    let summary = cooked_summary(
        zen,
        layout,
        names.entries.len(),
        exports.exports.len(),
        exports.end as i64,
    );
    let has_dr = !data_resources.is_empty();
    let package = LegacyPackage {
        summary,
        layout,
        names: names.entries,
        soft_object_path_list: Vec::new(),
        imports,
        exports: exports.exports,
        cell_imports: Vec::new(),
        cell_exports: Vec::new(),
        depends: Vec::new(),
        soft_package_references: Vec::new(),
        asset_registry_data: Vec::new(),
        preload_dependencies: exports.preload,
        data_resource_version: if has_dr { Some(2) } else { None },
        data_resources,
    };
    Ok(LegacyBytes {
        uasset: package.to_bytes()?,
        uexp: std::borrow::Cow::Borrowed(uexp),
    })
}

/// Refuse what cannot be converted; the header size when it can.
fn check_convertible(zen: &ZenPackage, chunk: &[u8]) -> Result<usize> {
    if !matches!(zen.layout, ZenLayout::Ue5_3 { .. }) {
        return Err(Error::unsupported(
            0,
            format!(
                "{}: converting {} zen packages is not supported (no reference files; only UE 5.3+ is checked)",
                zen.name,
                zen.layout.describe()
            ),
        ));
    }
    if !zen.cell_imports.is_empty() || zen.cell_export_count > 0 {
        return Err(Error::unsupported(
            0,
            format!("{}: Verse cell imports/exports are not converted", zen.name),
        ));
    }
    let hs = zen.header_size as usize;
    if hs > chunk.len() {
        return Err(Error::invalid(
            4,
            format!("{}: HeaderSize {hs:#x} past the chunk end", zen.name),
        ));
    }
    Ok(hs)
}

/// Template hints: an import used as an export's template has the
/// export's class.
pub(super) fn template_hints(
    zen: &ZenPackage,
    imported: &[u64],
    r: &Resolver,
) -> HashMap<u64, Obj> {
    let mut hints: HashMap<u64, Obj> = HashMap::new();
    for e in &zen.exports {
        if matches!(e.template.get(), ObjectRef::Script(_)) && !e.class.is_null() {
            if let Ok(c) = r.resolve(zen, imported, e.class, 0) {
                hints.entry(e.template.0).or_insert(Obj {
                    class_package: Nm(
                        c.outer.as_ref().map(|o| o.name.full()).unwrap_or_default(),
                        0,
                    ),
                    class_name: c.name,
                    name: Nm::plain(""),
                    outer: None,
                });
            }
        }
    }
    hints
}

/// The legacy import table as resolved objects: zen import i stays legacy
/// import i; Null entries are the package imports zen drops.
pub(super) struct ImportSlots {
    slots: Vec<Option<Obj>>,
    /// Slot by object path.
    by_path: HashMap<String, usize>,
}

impl ImportSlots {
    /// Resolve every non-null zen import.
    pub(super) fn resolve(
        zen: &ZenPackage,
        imported: &[u64],
        r: &Resolver,
        hints: &HashMap<u64, Obj>,
    ) -> Result<ImportSlots> {
        let mut slots: Vec<Option<Obj>> = vec![None; zen.imports.len()];
        for (i, idx) in zen.imports.iter().enumerate() {
            if idx.is_null() {
                continue;
            }
            let o = match idx.get() {
                ObjectRef::Script(_) => {
                    let hint = hints.get(&idx.0);
                    r.script(*idx, hint)?
                }
                _ => r.resolve(zen, imported, *idx, 0)?,
            };
            slots[i] = Some(o);
        }
        let mut by_path: HashMap<String, usize> = HashMap::new();
        for (i, o) in slots.iter().enumerate() {
            if let Some(o) = o {
                by_path.entry(o.path()).or_insert(i);
            }
        }
        Ok(ImportSlots { slots, by_path })
    }

    /// Outers that are not imports yet, and imported packages with nothing
    /// imported from them (they still have an import), sorted as the cooker
    /// sorts imports: by class, then name.
    fn missing(&self, zen: &ZenPackage) -> Vec<Obj> {
        let mut missing: Vec<Obj> = Vec::new();
        for o in self.slots.iter().flatten() {
            let mut at = o.outer.as_deref();
            while let Some(x) = at {
                let p = x.path();
                if !self.by_path.contains_key(&p) && !missing.iter().any(|m| m.path() == p) {
                    missing.push(x.clone());
                }
                at = x.outer.as_deref();
            }
        }
        for (k, name) in zen.imported_package_names.iter().enumerate() {
            if !self.by_path.contains_key(name) && !missing.iter().any(|m| m.path() == *name) {
                // Keep the FName number ImportedPackageNames stores apart.
                let nm = zen
                    .imported_package_name_parts
                    .get(k)
                    .map(|(b, n)| Nm(b.text.clone(), *n as u32))
                    .filter(|n| n.full() == *name)
                    .unwrap_or_else(|| Nm::plain(name));
                missing.push(Obj::package_nm(nm));
            }
        }
        let key = |o: &Obj| {
            (
                o.class_name.full().to_ascii_lowercase(),
                o.path().to_ascii_lowercase(),
                o.path(),
            )
        };
        missing.sort_by_key(key);
        missing
    }

    /// Refill the empty slots with the missing imports in order (the rest
    /// go at the end); an empty slot left over is an error.
    pub(super) fn fill_holes(mut self, zen: &ZenPackage) -> Result<ImportSlots> {
        let missing = self.missing(zen);
        let n = self.slots.len();
        let mut holes = (0..n)
            .filter(|&i| self.slots[i].is_none())
            .collect::<Vec<_>>()
            .into_iter();
        for m in missing {
            let p = m.path();
            match holes.next() {
                Some(h) => {
                    self.by_path.insert(p, h);
                    self.slots[h] = Some(m);
                }
                None => {
                    self.by_path.insert(p, self.slots.len());
                    self.slots.push(Some(m));
                }
            }
        }
        if let Some(h) = holes.next() {
            return Err(Error::Other(format!(
                "{}: import {h} is empty in the zen package and no package import is left to put there",
                zen.name
            )));
        }
        Ok(self)
    }

    /// The legacy import map, naming through `names`.
    pub(super) fn legacy_imports(&self, names: &mut NameTable, layout: Layout) -> Vec<Import> {
        let import_ref = |o: &Obj| -> i32 { -(self.by_path[&o.path()] as i32) - 1 };
        let mut imports = Vec::with_capacity(self.slots.len());
        let pkg_name = layout.import_package_name.unwrap_or(false);
        for o in self.slots.iter().flatten() {
            let object_name = names.get(&o.name);
            imports.push(Import {
                class_package: names.get(&o.class_package),
                class_name: names.get(&o.class_name),
                outer: o.outer.as_deref().map_or(0, &import_ref),
                object_name,
                package_name: if pkg_name { Some(object_name) } else { None },
                optional: if layout.ue5 >= ue5::OPTIONAL_RESOURCES {
                    Some(false)
                } else {
                    None
                },
            });
        }
        imports
    }
}

/// Zen object indices → legacy package indices.
pub(super) struct IndexMap<'a> {
    zen: &'a ZenPackage,
    /// Legacy import index by zen import (which keeps its position).
    imports: HashMap<u64, i32>,
}

impl<'a> IndexMap<'a> {
    pub(super) fn new(zen: &'a ZenPackage) -> Self {
        let imports = zen
            .imports
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.is_null())
            .map(|(i, x)| (x.0, -(i as i32) - 1))
            .collect();
        IndexMap { zen, imports }
    }

    fn map(&self, x: ObjectIndex) -> Result<i32> {
        let zen = self.zen;
        match x.get() {
            ObjectRef::Null => Ok(0),
            ObjectRef::Export(i) => usize::try_from(i)
                .ok()
                .filter(|&i| i < zen.exports.len())
                .map(|i| i as i32 + 1)
                .ok_or_else(|| {
                    Error::Other(format!(
                        "{}: export index {i} out of range ({} exports)",
                        zen.name,
                        zen.exports.len()
                    ))
                }),
            _ => self.imports.get(&x.0).copied().ok_or_else(|| {
                Error::Other(format!(
                    "{}: object {:#018x} is referenced but not in the import map",
                    zen.name, x.0
                ))
            }),
        }
    }
}

/// The legacy export map and preload dependencies.
pub(super) struct ExportTables {
    pub(super) exports: Vec<LExport>,
    pub(super) preload: Vec<i32>,
    /// Where the last export's data ends.
    pub(super) end: u64,
}

/// An export's references as legacy package indices.
struct ExportRefs {
    class: i32,
    super_index: i32,
    template: i32,
    outer: i32,
}

impl ExportTables {
    pub(super) fn build(
        zen: &ZenPackage,
        map: &IndexMap,
        names: &mut NameTable,
        layout: Layout,
    ) -> Result<ExportTables> {
        let tagged = zen.package_flags & crate::legacy::summary::flags::UNVERSIONED_PROPERTIES == 0;
        let script_serialization = tagged && layout.ue5 >= ue5::SCRIPT_SERIALIZATION_OFFSET;
        let mut t = ExportTables {
            exports: Vec::with_capacity(zen.exports.len()),
            preload: Vec::new(),
            end: 0,
        };
        for (i, e) in zen.exports.iter().enumerate() {
            let refs = ExportRefs {
                class: map.map(e.class)?,
                super_index: map.map(e.super_index)?,
                template: map.map(e.template)?,
                outer: map.map(e.outer)?,
            };
            let dependencies = t.add_preload(zen, i, &refs)?;
            let end = e.serial_offset.checked_add(e.serial_size).ok_or_else(|| {
                Error::invalid(
                    0,
                    format!(
                        "{}: export {i}: serial offset {:#x} + size {:#x} overflows",
                        zen.name, e.serial_offset, e.serial_size
                    ),
                )
            })?;
            t.end = t.end.max(end);
            let object_name = names.get(&mapped(&zen.names, e.name)?);
            t.exports.push(legacy_export(
                e,
                &refs,
                object_name,
                dependencies,
                script_serialization,
            ));
        }
        Ok(t)
    }

    /// Append export `i`'s preload dependencies; its `FirstExportDependency`
    /// and the four counts.
    fn add_preload(&mut self, zen: &ZenPackage, i: usize, refs: &ExportRefs) -> Result<[i32; 5]> {
        // INDEX_NONE: the legacy export had no preload dependencies at all.
        let none = zen
            .dependency_bundle_headers
            .get(i)
            .is_some_and(|h| h.first_entry < 0);
        // [CbC, SbC, CbS, SbS] from the bundle; legacy stores SbS, CbS, SbC, CbC.
        let mut groups = bundle_groups(zen, i)?;
        // Zen keeps only export and package-import dependencies; the outer,
        // class, template and super the loader always needs come back here.
        let add = |g: &mut Vec<i32>, x: i32| {
            if x != 0 && !g.contains(&x) {
                g.push(x);
            }
        };
        if !none {
            add(&mut groups[1], refs.class);
            add(&mut groups[1], refs.template);
            add(&mut groups[3], refs.super_index);
        }
        let [cbc, sbc, cbs, sbs] = groups;
        let total = cbc.len() + sbc.len() + cbs.len() + sbs.len();
        let first = if none && total == 0 {
            -1
        } else {
            self.preload.len() as i32
        };
        for g in [&sbs, &cbs, &sbc, &cbc] {
            self.preload.extend_from_slice(g);
        }
        Ok([
            first,
            sbs.len() as i32,
            cbs.len() as i32,
            sbc.len() as i32,
            cbc.len() as i32,
        ])
    }
}

/// Export `i`'s dependency bundle entries as [CbC, SbC, CbS, SbS] (empty
/// when it has no bundle header).
fn bundle_groups(zen: &ZenPackage, i: usize) -> Result<[Vec<i32>; 4]> {
    let mut groups: [Vec<i32>; 4] = Default::default();
    let Some(h) = zen.dependency_bundle_headers.get(i) else {
        return Ok(groups);
    };
    let mut at = h.first_entry.max(0) as usize;
    let counts = [
        h.entry_count[0][0],
        h.entry_count[0][1],
        h.entry_count[1][0],
        h.entry_count[1][1],
    ];
    for (g, &c) in counts.iter().enumerate() {
        let end = at + c as usize;
        let slice = zen.dependency_bundle_entries.get(at..end).ok_or_else(|| {
            Error::Other(format!(
                "{}: dependency bundle {i} entries {at}..{end} out of range",
                zen.name
            ))
        })?;
        groups[g] = slice.to_vec();
        at = end;
    }
    Ok(groups)
}

/// The legacy export entry for zen export `e`.
fn legacy_export(
    e: &ZExport,
    refs: &ExportRefs,
    object_name: FName,
    dependencies: [i32; 5],
    script_serialization: bool,
) -> LExport {
    LExport {
        class: refs.class,
        super_index: refs.super_index,
        template: Some(refs.template),
        outer: refs.outer,
        object_name,
        object_flags: e.object_flags,
        serial_size: e.serial_size as i64,
        serial_offset: e.serial_offset as i64,
        forced_export: false,
        not_for_client: e.filter_flags == 1,
        not_for_server: e.filter_flags == 2,
        package_guid: None,
        inherited_instance: Some(false),
        package_flags: 0,
        not_always_loaded_for_editor_game: Some(true),
        is_asset: Some(
            e.outer.is_null()
                && e.object_flags & (RF_PUBLIC | RF_STANDALONE) == RF_PUBLIC | RF_STANDALONE,
        ),
        generate_public_hash: Some(e.object_flags & RF_PUBLIC == 0 && e.public_export_hash != 0),
        dependencies: Some(dependencies),
        script_serialization: if script_serialization {
            Some((0, e.serial_size as i64))
        } else {
            None
        },
    }
}

/// The data resources of the zen bulk data map.
fn data_resources(zen: &ZenPackage) -> Vec<DataResource> {
    zen.bulk
        .as_ref()
        .map(|b| {
            b.entries
                .iter()
                .map(|e| DataResource {
                    flags: 0,
                    cooked_index: Some(e.cooked_index),
                    serial_offset: e.serial_offset,
                    duplicate_serial_offset: e.duplicate_serial_offset,
                    serial_size: e.serial_size,
                    raw_size: e.serial_size,
                    outer: 0,
                    legacy_bulk_data_flags: e.flags,
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn cooked_summary(
    zen: &ZenPackage,
    layout: Layout,
    name_count: usize,
    export_count: usize,
    export_end: i64,
) -> Summary {
    let (v4, v5) = (layout.ue4, layout.ue5);
    let legacy = if v5 >= ue5::PACKAGE_SAVED_HASH {
        -9
    } else if v5 > 0 {
        -8
    } else {
        -7
    };
    let (fv4, fv5, lic, custom) = match &zen.versioning {
        Some(v) => (
            v.file_version_ue4,
            v.file_version_ue5,
            v.licensee,
            v.custom_versions
                .iter()
                .map(|(g, n)| CustomVersion {
                    key: *g,
                    version: *n,
                    friendly_name: None,
                })
                .collect(),
        ),
        None => (0, 0, 0, Vec::new()),
    };
    let sec0 = Section {
        count: 0,
        offset: 0,
    };
    Summary {
        legacy_file_version: legacy,
        legacy_ue3_version: Some(if zen.versioning.is_some() {
            UE3_LATEST
        } else {
            0
        }),
        file_version_ue4: fv4,
        file_version_ue5: if legacy <= -8 { Some(fv5) } else { None },
        licensee_version: lic,
        saved_hash: if v5 >= ue5::PACKAGE_SAVED_HASH {
            Some([0; 20])
        } else {
            None
        },
        custom_versions: custom,
        total_header_size: 0,
        package_name: zen.name.clone(),
        package_flags: zen.package_flags,
        names: sec0,
        soft_object_paths: if v5 >= ue5::ADD_SOFTOBJECTPATH_LIST {
            Some(sec0)
        } else {
            None
        },
        localization_id: None,
        gatherable_text: if v4 >= ue4::SERIALIZE_TEXT_IN_PACKAGES {
            Some(sec0)
        } else {
            None
        },
        exports: sec0,
        imports: sec0,
        cells: if v5 >= ue5::VERSE_CELLS {
            Some((sec0, sec0))
        } else {
            None
        },
        metadata_offset: if v5 >= ue5::METADATA_SERIALIZATION_OFFSET {
            Some(0)
        } else {
            None
        },
        depends_offset: 0,
        soft_package_references: if v4 >= ue4::ADD_STRING_ASSET_REFERENCES_MAP {
            Some(sec0)
        } else {
            None
        },
        searchable_names_offset: if v4 >= ue4::ADDED_SEARCHABLE_NAMES {
            Some(0)
        } else {
            None
        },
        thumbnail_table_offset: 0,
        import_type_hierarchies: if v5 >= ue5::IMPORT_TYPE_HIERARCHIES {
            Some(sec0)
        } else {
            None
        },
        guid: if v5 < ue5::PACKAGE_SAVED_HASH {
            Some(Guid::from_bytes([0; 16]))
        } else {
            None
        },
        persistent_guid: None,
        owner_persistent_guid: None,
        generations: vec![(export_count as i32, name_count as i32)],
        saved_by: Some(EngineVersion::default()),
        engine_changelist: None,
        compatible_with: Some(EngineVersion::default()),
        compression_flags: 0,
        package_source: 0,
        additional_packages_to_cook: Vec::new(),
        num_texture_allocations: None,
        asset_registry_data_offset: 0,
        bulk_data_start_offset: export_end,
        world_tile_info_data_offset: Some(0),
        chunk_ids: Some(ChunkIds::Array(Vec::new())),
        preload_dependencies: Some(sec0),
        names_referenced_from_export_data: if v5 >= ue5::NAMES_REFERENCED_FROM_EXPORT_DATA {
            Some(zen.names.len() as i32)
        } else {
            None
        },
        payload_toc_offset: if v5 >= ue5::PAYLOAD_TOC {
            Some(-1)
        } else {
            None
        },
        data_resource_offset: if v5 >= ue5::DATA_RESOURCES {
            Some(-1)
        } else {
            None
        },
    }
}

/// The legacy layout for a zen package: its own versions when it has them,
/// else `fallback` (an engine version from the user), else the newest
/// layout of its zen form.
pub fn layout_of(zen: &ZenPackage, fallback: Option<Layout>) -> Layout {
    let newest = Layout::for_engine("5.8").expect("known engine version");
    match (&zen.versioning, fallback) {
        (Some(v), f) => Layout {
            ue4: v.file_version_ue4,
            ue5: v.file_version_ue5,
            import_package_name: f
                .and_then(|f| f.import_package_name)
                .or(newest.import_package_name),
        },
        (None, Some(f)) => f,
        (None, None) => newest,
    }
}

/// The import map of `zen` as its legacy twin ([`to_legacy`]) lists it:
/// (full path, class path) per import, zen import `i` staying import `i`
/// and the package imports zen drops filling its Null slots (the rest
/// after). For the property view ([`crate::props::Asset::from_zen`]).
pub(crate) fn import_paths(
    zen: &ZenPackage,
    imported: &[u64],
    src: &dyn PackageSource,
) -> Result<Vec<(String, String)>> {
    let r = Resolver::new(src);
    let hints = template_hints(zen, imported, &r);
    let slots = ImportSlots::resolve(zen, imported, &r, &hints)?.fill_holes(zen)?;
    Ok(slots
        .slots
        .iter()
        .flatten()
        .map(|o| {
            (
                o.path(),
                format!("{}.{}", o.class_package.full(), o.class_name.full()),
            )
        })
        .collect())
}

/// One object of `zen` (any index kind) as a full path, or why not.
pub(crate) fn object_path(
    zen: &ZenPackage,
    imported: &[u64],
    src: &dyn PackageSource,
    idx: ObjectIndex,
) -> Result<String> {
    let r = Resolver::new(src);
    Ok(r.resolve(zen, imported, idx, 0)?.path())
}
