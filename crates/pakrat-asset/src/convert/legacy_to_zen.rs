//! Legacy → zen: [`from_legacy`] and the steps it takes.

use std::collections::{BinaryHeap, HashMap};

use pakrat_io::{Error, Result};

use super::RF_PUBLIC;
use crate::legacy::summary::ue5;
use crate::legacy::{Export as LExport, FName, Layout, LegacyPackage, Summary};
use crate::zen::{
    BulkDataEntry, BulkSection, DependencyBundleHeader, Export as ZExport, ObjectIndex, ObjectRef,
    ScriptObjects, Versioning, ZenLayout, ZenPackage,
};
use pakrat_codec::names::{
    public_export_hash, script_import_index, BatchName, MappedName, NameMapKind,
};

/// Result of [`from_legacy`].
#[derive(Debug)]
pub struct ZenOutput {
    /// The zen header (as it parses back).
    pub package: ZenPackage,
    /// The whole ExportBundleData chunk: header and export data.
    pub chunk: Vec<u8>,
    /// Imported package ids, sorted (the store entry's list).
    pub imported_packages: Vec<u64>,
    /// UE 4.27 layout: the store entry the container header needs (the
    /// package cannot be parsed without it). `None` for UE 5.3+.
    pub store_entry: Option<pakrat_iostore::container_header::StoreEntry>,
}

/// The zen layout to write.
#[derive(Clone, Copy, Debug)]
pub struct ZenTarget {
    /// Verse cell offsets in the header (UE 5.6+).
    pub cells: bool,
    /// Pad before the bulk data map (UE 5.4+).
    pub bulk_pad: bool,
}

impl ZenTarget {
    /// The target for a legacy package's layout.
    pub fn for_layout(l: Layout) -> ZenTarget {
        ZenTarget {
            cells: l.ue5 >= ue5::VERSE_CELLS,
            bulk_pad: l.ue5 >= 1012,
        }
    }
}

/// The zen `CookedHeaderSize` of a legacy package. It is the legacy header
/// size, except that the UE 5.8+ cooker measures the header without what
/// 5.8 added to it: the `PackageName` of every import (8 bytes each) and the
/// import type hierarchies section (count and offset, 8 bytes). That holds
/// for all 20 corpus packages cooked both ways (UE 5.8 and 6.0, tagged and
/// unversioned); the export `CookedSerialOffset`s still count from the
/// full legacy header.
fn cooked_header_size(pkg: &LegacyPackage) -> Result<u32> {
    let s = &pkg.summary;
    let mut size = i64::from(s.total_header_size);
    if pkg.layout.import_package_name == Some(true) {
        size -= 8 * pkg.imports.len() as i64;
        if s.import_type_hierarchies.is_some() {
            size -= 8;
        }
    }
    u32::try_from(size).map_err(|_| {
        Error::Other(format!(
            "{}: header size {} leaves no cooked header size",
            s.package_name, s.total_header_size
        ))
    })
}

/// Convert a cooked legacy package to a zen package (UE 5.3+ layout).
/// `export_data` is the `.uexp` (or the part of the `.uasset` after the
/// header); script imports are checked against `script` when given.
pub fn from_legacy(
    pkg: &LegacyPackage,
    export_data: &[u8],
    script: Option<&ScriptObjects>,
    target: ZenTarget,
) -> Result<ZenOutput> {
    let s = &pkg.summary;
    let name = &s.package_name;
    check_convertible(pkg)?;
    let mut names = NameBatch::new(pkg);
    let export_names = names.export_names(pkg)?;
    let name_mapped = names.store(name, 0, pakrat_io::FString::to_latin1(name).is_none());
    let imports = ImportTables::build(pkg, script)?;
    let exports = zen_exports(pkg, export_data, &imports.imports, &export_names)?;
    let deps = kept_dependencies(pkg, &imports.imports);
    let export_bundle_entries = load_order(&exports, &deps)?;
    let (dependency_bundle_headers, dependency_bundle_entries) = dependency_bundles(pkg, &deps);
    let mut sorted_imported: Vec<ImportedPackage> = imports.imported.clone();
    sorted_imported.sort_by_key(|x| x.id);
    let zen = ZenPackage {
        layout: ZenLayout::Ue5_3 {
            cells: target.cells,
        },
        versioning: versioning_of(s),
        header_size: 0,
        name: name.clone(),
        source_name: None,
        package_flags: s.package_flags,
        cooked_header_size: cooked_header_size(pkg)?,
        names: names.names,
        imported_public_export_hashes: imports.hashes,
        imports: imports.imports,
        exports,
        cell_imports: Vec::new(),
        cell_export_count: 0,
        export_bundle_headers: Vec::new(),
        export_bundle_entries,
        dependency_bundle_headers,
        dependency_bundle_entries,
        imported_package_names: sorted_imported.iter().map(|x| x.name.clone()).collect(),
        graph_packages: Vec::new(),
        name_mapped,
        bulk: bulk_section(pkg, target),
        cell_exports: Vec::new(),
        imported_package_name_parts: sorted_imported
            .iter()
            .map(|x| (x.base.clone(), x.number))
            .collect(),
        imported_package_names_written: true,
    };
    let mut chunk = zen.to_bytes()?;
    chunk.extend_from_slice(export_data);
    let package = crate::zen::parse(&chunk, zen.layout, None)?;
    Ok(ZenOutput {
        package,
        chunk,
        imported_packages: sorted_imported.iter().map(|x| x.id).collect(),
        store_entry: None,
    })
}

/// Refuse what zen cannot hold. Every index and outer chain must resolve
/// (and not loop) before the tables are walked.
fn check_convertible(pkg: &LegacyPackage) -> Result<()> {
    let s = &pkg.summary;
    let name = &s.package_name;
    pkg.check_references()?;
    // Only the UE 5.3+ zen layout is written here (UE 4.27's is
    // `from_legacy_ue4`). UE 4.25–4.27 (container header `Initial`, export
    // bundles, no script-object imports) and UE 5.0–5.1 write other
    // headers; a package of theirs converted to the 5.3 layout would not
    // load, so it is refused by name. (UE 5.2 shares
    // 5.3's file version, 1009, so it cannot be told apart here: the CLI
    // refuses `--ue-version 5.2`.)
    if pkg.layout.ue5 < ue5::DATA_RESOURCES {
        let engine = if pkg.layout.ue5 == 0 {
            format!("UE4 (file version {})", pkg.layout.ue4)
        } else {
            format!("UE 5.0/5.1 (UE5 file version {})", pkg.layout.ue5)
        };
        return Err(Error::unsupported(
            0,
            format!(
                "{name}: a {engine} package; from_legacy writes the UE 5.3+ zen layout only (UE 4.27 packages: from_legacy_ue4; the zen layouts of UE 4.25, 4.26 and 5.0 to 5.2 are not written yet)"
            ),
        ));
    }
    if !crate::legacy::is_cooked(s.package_flags) && pkg.layout.ue5 > 0 {
        return Err(Error::Other(format!(
            "{name}: not cooked (no PKG_Cooked): editor packages cannot become zen packages"
        )));
    }
    if !s.filter_editor_only() {
        return Err(Error::Other(format!(
            "{name}: has editor-only data (no PKG_FilterEditorOnly)"
        )));
    }
    if s.soft_object_paths.is_some_and(|x| x.count > 0) {
        return Err(Error::Other(format!(
            "{name}: soft object paths in the header cannot be represented in zen"
        )));
    }
    if !pkg.cell_imports.is_empty() || !pkg.cell_exports.is_empty() {
        return Err(Error::unsupported(
            0,
            format!("{name}: Verse cell imports/exports are not converted"),
        ));
    }
    Ok(())
}

/// The zen name batch: the names export data uses, then export names and
/// the package name.
struct NameBatch {
    names: Vec<BatchName>,
    lookup: HashMap<String, u32>,
}

impl NameBatch {
    /// The names export data refers to, which keep their indices.
    fn new(pkg: &LegacyPackage) -> NameBatch {
        let nref = pkg
            .summary
            .names_referenced_from_export_data
            .unwrap_or(pkg.names.len() as i32)
            .clamp(0, pkg.names.len() as i32) as usize;
        let names: Vec<BatchName> = pkg.names[..nref]
            .iter()
            .map(|n| BatchName {
                text: n.text.clone(),
                wide: n.wide,
                stored_hash: None,
            })
            .collect();
        let mut lookup: HashMap<String, u32> = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            lookup.entry(n.text.clone()).or_insert(i as u32);
        }
        NameBatch { names, lookup }
    }

    /// `text` as a mapped name, added to the batch when it is not there.
    fn store(&mut self, text: &str, number: u32, wide: bool) -> MappedName {
        let names = &mut self.names;
        let i = *self.lookup.entry(text.to_string()).or_insert_with(|| {
            names.push(BatchName {
                text: text.to_string(),
                wide,
                stored_hash: None,
            });
            names.len() as u32 - 1
        });
        MappedName {
            index: i,
            kind: NameMapKind::Package,
            number,
        }
    }

    /// Every export's object name, stored.
    fn export_names(&mut self, pkg: &LegacyPackage) -> Result<Vec<MappedName>> {
        let name = &pkg.summary.package_name;
        let mut export_names = Vec::with_capacity(pkg.exports.len());
        for e in &pkg.exports {
            let f: FName = e.object_name;
            let n = pkg
                .names
                .get(f.index as usize)
                .ok_or_else(|| Error::Other(format!("{name}: name {} out of range", f.index)))?;
            export_names.push(self.store(&n.text, f.number as u32, n.wide));
        }
        Ok(export_names)
    }
}

/// A package the zen package imports from.
#[derive(Clone)]
struct ImportedPackage {
    /// `FPackageId` of the whole name.
    id: u64,
    /// The whole name (`/Game/Meshes/M_Cube_2`).
    name: String,
    /// The name as the legacy name map holds it, without its number
    /// (`/Game/Meshes/M_Cube`).
    base: BatchName,
    /// The FName number (3 for `_2`, 0 for none): ImportedPackageNames
    /// keeps it apart, as the engine's zen cooks do (UE 5.5 `SM_Cube`
    /// imports `/Game/Meshes/M_Cube` numbers 2 and 3).
    number: i32,
}

/// The zen import map and what it refers to.
struct ImportTables {
    /// Imported packages in the order first met.
    imported: Vec<ImportedPackage>,
    /// Imported public export hashes.
    hashes: Vec<u64>,
    /// The zen import map.
    imports: Vec<ObjectIndex>,
}

/// A legacy import as zen will store it, before the imported packages are
/// sorted.
enum RawImport {
    /// A script object or package import: the stored index as is.
    Direct(u64),
    /// An export of another package: (imported package, hash) positions.
    Package(usize, usize),
}

/// [`ImportTables`] as it is being filled.
#[derive(Default)]
struct ImportBuilder {
    imported: Vec<ImportedPackage>,
    hashes: Vec<u64>,
    // Positions by key: a linear search per import was quadratic (50,000
    // imports took 5.7 s, unoptimised build; now linear).
    imported_at: HashMap<u64, usize>,
    hash_at: HashMap<u64, usize>,
}

impl ImportTables {
    fn build(pkg: &LegacyPackage, script: Option<&ScriptObjects>) -> Result<ImportTables> {
        let mut b = ImportBuilder::default();
        let mut raw = Vec::with_capacity(pkg.imports.len());
        for i in 0..pkg.imports.len() {
            raw.push(b.import(pkg, i, script)?);
        }
        Ok(b.finish(&raw))
    }
}

impl ImportBuilder {
    /// Legacy import `i` as zen will store it.
    fn import(
        &mut self,
        pkg: &LegacyPackage,
        i: usize,
        script: Option<&ScriptObjects>,
    ) -> Result<RawImport> {
        let name = &pkg.summary.package_name;
        let idx = -(i as i32) - 1;
        let path = pkg.path(idx).ok_or_else(|| {
            Error::Other(format!("{name}: import {i} does not resolve to a path"))
        })?;
        let mut top = idx;
        while pkg.outer_of(top) != 0 {
            top = pkg.outer_of(top);
        }
        if top > 0 {
            return Err(Error::Other(format!(
                "{name}: import {i} ({path}) has an export of this package as its outer"
            )));
        }
        let package = pkg.object_name(top).unwrap_or_default();
        if package.starts_with("/Script/") {
            let v = script_import_index(&path);
            if let Some(so) = script {
                if so.get(ObjectIndex(v)).is_none() {
                    return Err(Error::Other(format!(
                        "{name}: script import {path} is not in the global ScriptObjects"
                    )));
                }
            }
            return Ok(RawImport::Direct(v));
        }
        if top == idx {
            return Ok(RawImport::Direct(u64::MAX));
        }
        let id = pakrat_codec::names::package_id(&package);
        let imported = &mut self.imported;
        let p = match self.imported_at.get(&id) {
            Some(&p) => p,
            None => {
                imported.push(imported_package(pkg, top, id, &package)?);
                self.imported_at.insert(id, imported.len() - 1);
                imported.len() - 1
            }
        };
        let rel = path
            .get(package.len() + 1..)
            .ok_or_else(|| {
                Error::Other(format!(
                    "{name}: import {i} ({path}) does not lie inside its package {package}"
                ))
            })?
            .replace([':', '.'], "/");
        let h = public_export_hash(&rel);
        let hashes = &mut self.hashes;
        let hi = *self.hash_at.entry(h).or_insert_with(|| {
            hashes.push(h);
            hashes.len() - 1
        });
        Ok(RawImport::Package(p, hi))
    }

    /// The import map, with imported packages sorted by id (UE
    /// PackageStoreOptimizer).
    fn finish(self, raw: &[RawImport]) -> ImportTables {
        let imported = self.imported;
        let mut order: Vec<usize> = (0..imported.len()).collect();
        order.sort_by_key(|&i| imported[i].id);
        let mut remap = vec![0usize; imported.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = new;
        }
        let imports = raw
            .iter()
            .map(|r| match *r {
                RawImport::Package(pi, hi) => {
                    ObjectIndex((2u64 << 62) | ((remap[pi] as u64) << 32) | hi as u64)
                }
                RawImport::Direct(v) => ObjectIndex(v),
            })
            .collect();
        ImportTables {
            imported,
            hashes: self.hashes,
            imports,
        }
    }
}

/// The imported package that legacy import `top` (a top-level package
/// import) names, with the number its FName carries.
fn imported_package(
    pkg: &LegacyPackage,
    top: i32,
    id: u64,
    package: &str,
) -> Result<ImportedPackage> {
    let f = pkg.imports[(-top - 1) as usize].object_name;
    let n = pkg.names.get(f.index as usize).ok_or_else(|| {
        Error::Other(format!(
            "{}: import name {} out of range",
            pkg.summary.package_name, f.index
        ))
    })?;
    Ok(ImportedPackage {
        id,
        name: package.to_string(),
        base: BatchName {
            text: n.text.clone(),
            wide: n.wide,
            stored_hash: None,
        },
        number: f.number,
    })
}

/// Legacy package index `x` as a zen object index.
fn to_zen(imports: &[ObjectIndex], x: i32) -> ObjectIndex {
    if x > 0 {
        ObjectIndex((x - 1) as u64)
    } else if x < 0 {
        imports
            .get((-x - 1) as usize)
            .copied()
            .unwrap_or(ObjectIndex(u64::MAX))
    } else {
        ObjectIndex(u64::MAX)
    }
}

/// The zen export map.
fn zen_exports(
    pkg: &LegacyPackage,
    export_data: &[u8],
    imports: &[ObjectIndex],
    export_names: &[MappedName],
) -> Result<Vec<ZExport>> {
    let name = &pkg.summary.package_name;
    let ths = i64::from(pkg.summary.total_header_size);
    let mut exports = Vec::with_capacity(pkg.exports.len());
    for (i, e) in pkg.exports.iter().enumerate() {
        let off = e.serial_offset - ths;
        if off < 0
            || e.serial_size < 0
            || off
                .checked_add(e.serial_size)
                .is_none_or(|end| end as u64 > export_data.len() as u64)
        {
            return Err(Error::invalid(
                0,
                format!(
                    "{name}: export {i} data {:#x}+{:#x} outside the export data",
                    e.serial_offset, e.serial_size
                ),
            ));
        }
        exports.push(ZExport {
            serial_offset: off as u64,
            serial_size: e.serial_size as u64,
            name: export_names[i],
            outer: to_zen(imports, e.outer),
            class: to_zen(imports, e.class),
            super_index: to_zen(imports, e.super_index),
            template: to_zen(imports, e.template.unwrap_or(0)),
            public_export_hash: export_hash(pkg, i, e)?,
            object_flags: e.object_flags,
            filter_flags: if e.not_for_server {
                2
            } else if e.not_for_client {
                1
            } else {
                0
            },
        });
    }
    Ok(exports)
}

/// The public export hash of export `i` (0 when it is not public).
fn export_hash(pkg: &LegacyPackage, i: usize, e: &LExport) -> Result<u64> {
    let name = &pkg.summary.package_name;
    let public = e.object_flags & RF_PUBLIC != 0 || e.generate_public_hash == Some(true);
    if !public {
        return Ok(0);
    }
    let p = pkg.path(i as i32 + 1).unwrap_or_default();
    // A public export hangs from this package (an outer chain that
    // ends in an import would put it in another one).
    let rel = p
        .strip_prefix(name.as_str())
        .and_then(|r| r.strip_prefix('.'))
        .ok_or_else(|| {
            Error::Other(format!(
                "{name}: public export {i} ({p}) does not lie inside the package"
            ))
        })?;
    Ok(public_export_hash(&rel.replace([':', '.'], "/")))
}

/// The zen import legacy index `x` (< 0) became.
fn zen_import(imports: &[ObjectIndex], x: i32) -> Option<ObjectRef> {
    imports.get((-x - 1) as usize).map(|o| o.get())
}

/// Dependencies: per export the legacy preload lists as zen keeps them, as
/// [CbC, SbC, CbS, SbS]: exports (itself included) and imports of other
/// packages' exports stay; every script import goes (types and objects
/// alike: the script objects are in memory before any package loads), and
/// so do package imports, which zen stores as Null. retoc's writer keeps
/// the same two kinds; the engine's zen cooks agree on every zenpair twin
/// (the UE 5.5/5.6 `BP_ThirdPersonCharacter` class and CDO list the
/// `Default__Character` subobjects in their legacy preload lists, the zen
/// cook does not) and on the 20 CUE4Parse fixture packages.
fn kept_dependencies(pkg: &LegacyPackage, imports: &[ObjectIndex]) -> Vec<[Vec<i32>; 4]> {
    let keep = |x: i32| -> bool {
        x > 0 || (x < 0 && matches!(zen_import(imports, x), Some(ObjectRef::Package { .. })))
    };
    let mut deps: Vec<[Vec<i32>; 4]> = Vec::with_capacity(pkg.exports.len());
    for e in &pkg.exports {
        let mut g: [Vec<i32>; 4] = Default::default();
        if let Some([sbs, cbs, sbc, cbc]) = e.dependency_ranges() {
            for (slot, r) in [(0, cbc), (1, sbc), (2, cbs), (3, sbs)] {
                g[slot] = pkg.preload_dependencies[r]
                    .iter()
                    .copied()
                    .filter(|&x| keep(x))
                    .collect();
            }
        }
        deps.push(g);
    }
    deps
}

/// The dependency bundle headers and entries of `deps`.
fn dependency_bundles(
    pkg: &LegacyPackage,
    deps: &[[Vec<i32>; 4]],
) -> (Vec<DependencyBundleHeader>, Vec<i32>) {
    let mut headers = Vec::with_capacity(deps.len());
    let mut entries = Vec::new();
    for (e, g) in pkg.exports.iter().zip(deps) {
        // INDEX_NONE when the legacy export recorded no dependencies at all.
        let none = e.dependencies.is_none_or(|d| d[0] < 0);
        headers.push(DependencyBundleHeader {
            first_entry: if none { -1 } else { entries.len() as i32 },
            entry_count: [
                [g[0].len() as u32, g[1].len() as u32],
                [g[2].len() as u32, g[3].len() as u32],
            ],
        });
        for x in g {
            entries.extend_from_slice(x);
        }
    }
    (headers, entries)
}

/// The zen versioning info of a versioned package.
fn versioning_of(s: &Summary) -> Option<Versioning> {
    if s.is_unversioned() {
        return None;
    }
    Some(Versioning {
        zen_version: 3,
        file_version_ue4: s.file_version_ue4,
        file_version_ue5: s.file_version_ue5.unwrap_or(0),
        licensee: s.licensee_version,
        custom_versions: s
            .custom_versions
            .iter()
            .map(|c| (c.key, c.version))
            .collect(),
    })
}

/// The bulk data map, from the data resources of layouts that have them.
fn bulk_section(pkg: &LegacyPackage, target: ZenTarget) -> Option<BulkSection> {
    if pkg.layout.ue5 < ue5::DATA_RESOURCES {
        return None;
    }
    Some(BulkSection {
        pad: if target.bulk_pad { Some(0) } else { None },
        entries: pkg
            .data_resources
            .iter()
            .map(|d| BulkDataEntry {
                serial_offset: d.serial_offset,
                duplicate_serial_offset: d.duplicate_serial_offset,
                serial_size: d.serial_size,
                flags: d.legacy_bulk_data_flags,
                cooked_index: d.cooked_index.unwrap_or(0),
            })
            .collect(),
    })
}
/// Export bundle order: a topological sort of the Create/Serialize nodes of
/// every export over the export-to-export dependencies, always taking the
/// ready node that is (public first, Create before Serialize, lowest export
/// index) — the order UE's package store optimizer produces (retoc
/// `sort_dependencies_in_load_order`).
fn load_order(exports: &[ZExport], deps: &[[Vec<i32>; 4]]) -> Result<Vec<(u32, u32)>> {
    let n = exports.len();
    let node = |e: usize, c: u32| e * 2 + c as usize;
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); 2 * n];
    let mut incoming = vec![0usize; 2 * n];
    for (i, g) in deps.iter().enumerate() {
        // Serialize depends on its own Create.
        dependants[node(i, 0)].push(node(i, 1));
        incoming[node(i, 1)] += 1;
        for (slot, on, from_cmd) in [(0usize, 0u32, 0u32), (1, 0, 1), (2, 1, 0), (3, 1, 1)] {
            for &x in &g[slot] {
                if x > 0 {
                    let d = node((x - 1) as usize, from_cmd);
                    if d < 2 * n {
                        dependants[d].push(node(i, on));
                        incoming[node(i, on)] += 1;
                    }
                }
            }
        }
    }
    #[derive(PartialEq, Eq)]
    struct Key(bool, u32, usize);
    impl Ord for Key {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            // Max-heap: the greatest is public, then Create, then lowest index.
            self.0
                .cmp(&o.0)
                .then(o.1.cmp(&self.1))
                .then(o.2.cmp(&self.2))
        }
    }
    impl PartialOrd for Key {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    let key = |nd: usize| {
        Key(
            exports[nd / 2].public_export_hash != 0,
            (nd % 2) as u32,
            nd / 2,
        )
    };
    let mut heap: BinaryHeap<Key> = (0..2 * n)
        .filter(|&nd| incoming[nd] == 0)
        .map(key)
        .collect();
    let mut out = Vec::with_capacity(2 * n);
    while let Some(Key(_, c, e)) = heap.pop() {
        out.push((e as u32, c));
        for &d in &dependants[node(e, c)] {
            incoming[d] -= 1;
            if incoming[d] == 0 {
                heap.push(key(d));
            }
        }
    }
    if out.len() != 2 * n {
        return Err(Error::Other(
            "export dependencies form a cycle: no load order exists".into(),
        ));
    }
    Ok(out)
}
