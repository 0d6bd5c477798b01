//! Zen ↔ legacy package conversion (UE 5.3+ zen layout).
//!
//! [`to_legacy`] rebuilds a `.uasset` + `.uexp` from a zen package: the
//! name map from the name batch, imports resolved to full paths (script
//! imports through the global ScriptObjects, package imports through the
//! imported packages' public export hashes), the export map and preload
//! dependencies from the dependency bundles; export data is copied as is.
//! [`from_legacy`] goes the other way. Facts taken from UE
//! `PackageStoreOptimizer.cpp` / `AsyncLoading2.cpp` as described by retoc
//! (`zen_asset_conversion.rs`, `asset_conversion.rs`) and checked against
//! the CUE4Parse fixtures, which hold the same packages cooked both ways
//! (docs/zen-legacy.md lists what matches and what cannot be recovered).

pub mod files;

use std::borrow::Cow;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::OnceLock;

use pakrat_io::{Error, Guid, Result};

use crate::legacy::summary::{ue4, ue5, UE3_LATEST};
use crate::legacy::{
    ChunkIds, CustomVersion, DataResource, EngineVersion, Export as LExport, FName, Import, Layout,
    LegacyPackage, NameEntry, Section, Summary,
};
use crate::zen::{
    BulkDataEntry, BulkSection, DependencyBundleHeader, Export as ZExport, ObjectIndex, ObjectRef,
    ScriptObjects, Versioning, ZenLayout, ZenPackage,
};
use pakrat_codec::names::{
    public_export_hash, script_import_index, BatchName, MappedName, NameMapKind,
};

/// `RF_Public`.
const RF_PUBLIC: u32 = 0x1;
/// `RF_Standalone`.
const RF_STANDALONE: u32 = 0x2;
const CORE: &str = "/Script/CoreUObject";

/// What a conversion can look other packages up in.
pub trait PackageSource {
    /// The zen header of a package by id, and its store entry's imported
    /// package ids.
    fn package(&self, id: u64) -> Option<(&ZenPackage, &[u64])>;
    /// The global script objects.
    fn script_objects(&self) -> Option<&ScriptObjects>;
    /// The script objects some CDO names as its class (the classes among
    /// them). Computed from [`PackageSource::script_objects`] on each call
    /// unless the source keeps it, as [`Packages`] does.
    fn cdo_classes(&self) -> Cow<'_, HashSet<u64>> {
        Cow::Owned(cdo_classes_of(self.script_objects()))
    }
}

fn cdo_classes_of(so: Option<&ScriptObjects>) -> HashSet<u64> {
    so.map(|s| {
        s.objects
            .iter()
            .filter(|o| !o.cdo_class.is_null())
            .map(|o| o.cdo_class.0)
            .collect()
    })
    .unwrap_or_default()
}

/// A [`PackageSource`] over headers collected from containers.
#[derive(Default)]
pub struct Packages {
    /// Headers and imported package ids by package id.
    pub by_id: HashMap<u64, (ZenPackage, Vec<u64>)>,
    /// Global script objects.
    pub script: Option<ScriptObjects>,
    /// [`PackageSource::cdo_classes`], made once.
    classes: OnceLock<HashSet<u64>>,
}

impl Packages {
    /// Collect the package headers of `containers` (a package found in
    /// several keeps the first) and the script objects of `global`.
    pub fn from_containers(
        containers: &[&crate::zen::ContainerPackages],
        global: Option<ScriptObjects>,
    ) -> Packages {
        let mut by_id = HashMap::new();
        for cp in containers {
            for p in &cp.packages {
                if let Ok(h) = &p.header {
                    let imported = cp
                        .store_entry(p.id)
                        .map(|s| s.imported_packages.clone())
                        .unwrap_or_default();
                    by_id.entry(p.id).or_insert_with(|| (h.clone(), imported));
                }
            }
        }
        Packages {
            by_id,
            script: global,
            classes: OnceLock::new(),
        }
    }
}

impl PackageSource for Packages {
    fn package(&self, id: u64) -> Option<(&ZenPackage, &[u64])> {
        self.by_id.get(&id).map(|(p, i)| (p, i.as_slice()))
    }
    fn script_objects(&self) -> Option<&ScriptObjects> {
        self.script.as_ref()
    }
    fn cdo_classes(&self) -> Cow<'_, HashSet<u64>> {
        Cow::Borrowed(
            self.classes
                .get_or_init(|| cdo_classes_of(self.script.as_ref())),
        )
    }
}

/// A name as base text and number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Nm(String, u32);

impl Nm {
    fn plain(s: &str) -> Nm {
        Nm(s.to_string(), 0)
    }
    fn full(&self) -> String {
        pakrat_codec::names::with_number(&self.0, self.1)
    }
}

/// An object resolved to names: what a legacy import needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Obj {
    class_package: Nm,
    class_name: Nm,
    name: Nm,
    outer: Option<Box<Obj>>,
}

impl Obj {
    fn package(name: &str) -> Obj {
        Obj {
            class_package: Nm::plain(CORE),
            class_name: Nm::plain("Package"),
            name: Nm::plain(name),
            outer: None,
        }
    }
    fn path(&self) -> String {
        match &self.outer {
            None => self.name.full(),
            Some(o) => {
                let sep = if o.outer.is_none() { '.' } else { ':' };
                format!("{}{sep}{}", o.path(), self.name.full())
            }
        }
    }
}

fn mapped(names: &[BatchName], n: MappedName) -> Result<Nm> {
    let b = names.get(n.index as usize).ok_or_else(|| {
        Error::Other(format!(
            "name index {} outside the name map ({} names)",
            n.index,
            names.len()
        ))
    })?;
    Ok(Nm(b.text.clone(), n.number))
}

struct Resolver<'a> {
    src: &'a dyn PackageSource,
    /// Script objects that some CDO names as its class.
    classes: Cow<'a, HashSet<u64>>,
}

impl<'a> Resolver<'a> {
    fn new(src: &'a dyn PackageSource) -> Self {
        Resolver {
            src,
            classes: src.cdo_classes(),
        }
    }

    fn script(&self, idx: ObjectIndex, hint_class: Option<&Obj>) -> Result<Obj> {
        let so = self.src.script_objects().ok_or_else(|| {
            Error::Other(
                "script imports need the global container's ScriptObjects (--global global.utoc)"
                    .into(),
            )
        })?;
        let o = so.get(idx).ok_or_else(|| {
            Error::Other(format!(
                "script import {:#018x} is not in the global ScriptObjects",
                idx.0
            ))
        })?;
        let name = mapped(&so.names, o.name)?;
        if o.outer.is_null() {
            return Ok(Obj {
                class_package: Nm::plain(CORE),
                class_name: Nm::plain("Package"),
                name,
                outer: None,
            });
        }
        let outer = self.script(o.outer, None)?;
        let top = outer.outer.is_none();
        let (cp, cn) = if self.classes.contains(&idx.0) {
            (CORE.to_string(), Nm::plain("Class"))
        } else if top && name.0.starts_with("Default__") && !o.cdo_class.is_null() {
            let c = self.script(o.cdo_class, None)?;
            let pkg = c.outer.as_ref().map(|p| p.name.full()).unwrap_or_default();
            (pkg, c.name)
        } else if let Some(h) = hint_class {
            (h.class_package.full(), h.class_name.clone())
        } else if (!top && outer.class_name.0 == "Class")
            || (top && name.0.ends_with("__DelegateSignature"))
        {
            (CORE.to_string(), Nm::plain("Function"))
        } else if top && is_enum_name(&name.0) {
            (CORE.to_string(), Nm::plain("Enum"))
        } else if top {
            (CORE.to_string(), Nm::plain("ScriptStruct"))
        } else {
            (CORE.to_string(), Nm::plain("Object"))
        };
        Ok(Obj {
            class_package: Nm(cp, 0),
            class_name: cn,
            name,
            outer: Some(Box::new(outer)),
        })
    }

    /// Resolve `idx` as seen from package `pkg` (imported ids `imported`).
    fn resolve(
        &self,
        pkg: &ZenPackage,
        imported: &[u64],
        idx: ObjectIndex,
        depth: usize,
    ) -> Result<Obj> {
        if depth > 64 {
            return Err(Error::Other(format!(
                "object references of {} nest deeper than 64",
                pkg.name
            )));
        }
        match idx.get() {
            ObjectRef::Script(_) => self.script(idx, None),
            ObjectRef::Null => Ok(Obj::package(&pkg.name)),
            ObjectRef::Export(i) => {
                let e = pkg.exports.get(i as usize).ok_or_else(|| {
                    Error::Other(format!("{}: export {i} out of range", pkg.name))
                })?;
                self.export_obj(pkg, imported, e, depth)
            }
            ObjectRef::Package { package, hash, .. } => {
                let id = *imported.get(package as usize).ok_or_else(|| {
                    Error::Other(format!(
                        "{}: imported package {package} outside its {} imported packages",
                        pkg.name,
                        imported.len()
                    ))
                })?;
                let h = *pkg
                    .imported_public_export_hashes
                    .get(hash as usize)
                    .ok_or_else(|| {
                        Error::Other(format!(
                            "{}: public export hash {hash} outside the {} stored",
                            pkg.name,
                            pkg.imported_public_export_hashes.len()
                        ))
                    })?;
                let want = pkg.imported_package_names.get(package as usize).cloned();
                let (other, other_imported) = self.src.package(id).ok_or_else(|| {
                    Error::Other(format!(
                        "{}: imports from package {} ({id:016X}), which is in none of the containers given (add it with --with)",
                        pkg.name,
                        want.as_deref().unwrap_or("?")
                    ))
                })?;
                let e = other
                    .exports
                    .iter()
                    .find(|e| e.public_export_hash == h)
                    .ok_or_else(|| {
                        Error::Other(format!(
                            "{}: no export of {} has public hash {h:016X}",
                            pkg.name, other.name
                        ))
                    })?;
                self.export_obj(other, other_imported, e, depth + 1)
            }
        }
    }

    fn export_obj(
        &self,
        pkg: &ZenPackage,
        imported: &[u64],
        e: &ZExport,
        depth: usize,
    ) -> Result<Obj> {
        let class = if e.class.is_null() {
            Obj {
                class_package: Nm::plain(CORE),
                class_name: Nm::plain("Class"),
                name: Nm::plain("Class"),
                outer: Some(Box::new(Obj::package(CORE))),
            }
        } else {
            self.resolve(pkg, imported, e.class, depth + 1)?
        };
        let outer = self.resolve(pkg, imported, e.outer, depth + 1)?;
        Ok(Obj {
            class_package: Nm(
                class
                    .outer
                    .as_ref()
                    .map(|o| o.name.full())
                    .unwrap_or_default(),
                0,
            ),
            class_name: class.name,
            name: mapped(&pkg.names, e.name)?,
            outer: Some(Box::new(outer)),
        })
    }
}

/// UE enums keep their `E` prefix in reflection (`EFixtureEnum`); structs
/// lose their `F`. An inference: zen does not store an import's class.
fn is_enum_name(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() > 1 && b[0] == b'E' && b[1].is_ascii_uppercase()
}

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

struct NameTable {
    entries: Vec<NameEntry>,
    index: HashMap<String, usize>,
    extra: Vec<String>,
}

impl NameTable {
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
}

/// Convert a zen package (UE 5.3+ layout) to a legacy one. `chunk` is its
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
    let r = Resolver::new(src);
    // Names: the batch keeps its indices (export data refers to them).
    let mut names = NameTable {
        entries: Vec::new(),
        index: HashMap::new(),
        extra: Vec::new(),
    };
    for (i, b) in zen.names.iter().enumerate() {
        names.entries.push(NameEntry {
            text: b.text.clone(),
            wide: b.wide,
            hashes: Some(crate::legacy::name_hashes(&b.text, b.wide)),
        });
        names.index.entry(b.text.clone()).or_insert(i);
    }

    // Template hints: an import used as an export's template has the
    // export's class.
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

    // Imports: zen import i stays legacy import i; Null entries are the
    // package imports zen drops, refilled in name order (the cooker sorts
    // imports by class, then name).
    let n = zen.imports.len();
    let mut slots: Vec<Option<Obj>> = vec![None; n];
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
    // Outers that are not imports yet.
    let mut missing: Vec<Obj> = Vec::new();
    for o in slots.iter().flatten() {
        let mut at = o.outer.as_deref();
        while let Some(x) = at {
            let p = x.path();
            if !by_path.contains_key(&p) && !missing.iter().any(|m| m.path() == p) {
                missing.push(x.clone());
            }
            at = x.outer.as_deref();
        }
    }
    // Imported packages with nothing imported from them still have an import.
    for name in &zen.imported_package_names {
        if !by_path.contains_key(name) && !missing.iter().any(|m| m.path() == *name) {
            missing.push(Obj::package(name));
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
    let mut holes = (0..n)
        .filter(|&i| slots[i].is_none())
        .collect::<Vec<_>>()
        .into_iter();
    for m in missing {
        let p = m.path();
        match holes.next() {
            Some(h) => {
                by_path.insert(p, h);
                slots[h] = Some(m);
            }
            None => {
                by_path.insert(p, slots.len());
                slots.push(Some(m));
            }
        }
    }
    if let Some(h) = holes.next() {
        return Err(Error::Other(format!(
            "{}: import {h} is empty in the zen package and no package import is left to put there",
            zen.name
        )));
    }
    let import_ref = |o: &Obj| -> i32 { -(by_path[&o.path()] as i32) - 1 };
    let mut imports = Vec::with_capacity(slots.len());
    let pkg_name = layout.import_package_name.unwrap_or(false);
    for o in slots.iter().flatten() {
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
    let zen_to_legacy: HashMap<u64, i32> = zen
        .imports
        .iter()
        .enumerate()
        .filter(|(_, x)| !x.is_null())
        .map(|(i, x)| (x.0, -(i as i32) - 1))
        .collect();
    let map_index = |x: ObjectIndex| -> Result<i32> {
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
            _ => zen_to_legacy.get(&x.0).copied().ok_or_else(|| {
                Error::Other(format!(
                    "{}: object {:#018x} is referenced but not in the import map",
                    zen.name, x.0
                ))
            }),
        }
    };

    // Exports and preload dependencies.
    let tagged = zen.package_flags & crate::legacy::summary::flags::UNVERSIONED_PROPERTIES == 0;
    let mut exports = Vec::with_capacity(zen.exports.len());
    let mut preload = Vec::new();
    let mut export_end = 0u64;
    for (i, e) in zen.exports.iter().enumerate() {
        let (class, super_index, template, outer) = (
            map_index(e.class)?,
            map_index(e.super_index)?,
            map_index(e.template)?,
            map_index(e.outer)?,
        );
        // [CbC, SbC, CbS, SbS] from the bundle; legacy stores SbS, CbS, SbC, CbC.
        let mut groups: [Vec<i32>; 4] = Default::default();
        // INDEX_NONE: the legacy export had no preload dependencies at all.
        let none = zen
            .dependency_bundle_headers
            .get(i)
            .is_some_and(|h| h.first_entry < 0);
        if let Some(h) = zen.dependency_bundle_headers.get(i) {
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
        }
        // Zen keeps only export and package-import dependencies; the outer,
        // class, template and super the loader always needs come back here.
        let add = |g: &mut Vec<i32>, x: i32| {
            if x != 0 && !g.contains(&x) {
                g.push(x);
            }
        };
        if !none {
            add(&mut groups[1], class);
            add(&mut groups[1], template);
            add(&mut groups[3], super_index);
        }
        let [cbc, sbc, cbs, sbs] = groups;
        let total = cbc.len() + sbc.len() + cbs.len() + sbs.len();
        let first = if none && total == 0 {
            -1
        } else {
            preload.len() as i32
        };
        for g in [&sbs, &cbs, &sbc, &cbc] {
            preload.extend_from_slice(g);
        }
        let end = e.serial_offset.checked_add(e.serial_size).ok_or_else(|| {
            Error::invalid(
                0,
                format!(
                    "{}: export {i}: serial offset {:#x} + size {:#x} overflows",
                    zen.name, e.serial_offset, e.serial_size
                ),
            )
        })?;
        export_end = export_end.max(end);
        exports.push(LExport {
            class,
            super_index,
            template: Some(template),
            outer,
            object_name: names.get(&mapped(&zen.names, e.name)?),
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
            generate_public_hash: Some(
                e.object_flags & RF_PUBLIC == 0 && e.public_export_hash != 0,
            ),
            dependencies: Some([
                first,
                sbs.len() as i32,
                cbs.len() as i32,
                sbc.len() as i32,
                cbc.len() as i32,
            ]),
            script_serialization: if tagged && layout.ue5 >= ue5::SCRIPT_SERIALIZATION_OFFSET {
                Some((0, e.serial_size as i64))
            } else {
                None
            },
        });
    }
    let uexp = chunk[hs..].to_vec();
    if export_end > uexp.len() as u64 {
        return Err(Error::invalid(
            hs as u64,
            format!(
                "{}: export data ends at {export_end:#x}, past the chunk ({:#x})",
                zen.name,
                uexp.len()
            ),
        ));
    }
    // Names not in the batch go after it in case-insensitive order.
    let mut extra = std::mem::take(&mut names.extra);
    let order: Vec<usize> = {
        let mut o: Vec<usize> = (0..extra.len()).collect();
        o.sort_by_key(|&i| (extra[i].to_ascii_lowercase(), extra[i].clone()));
        o
    };
    let base = names.entries.len();
    let mut remap = vec![0usize; extra.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = base + new;
    }
    let sorted: Vec<String> = order
        .iter()
        .map(|&i| std::mem::take(&mut extra[i]))
        .collect();
    for t in &sorted {
        names.entries.push(NameEntry::new(t));
    }
    let fix = |f: &mut FName| {
        if f.index as usize >= base {
            f.index = remap[f.index as usize - base] as i32;
        }
    };
    for im in &mut imports {
        fix(&mut im.class_package);
        fix(&mut im.class_name);
        fix(&mut im.object_name);
        if let Some(p) = &mut im.package_name {
            fix(p);
        }
    }
    for e in &mut exports {
        fix(&mut e.object_name);
    }

    let data_resources: Vec<DataResource> = zen
        .bulk
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
        .unwrap_or_default();

    let summary = cooked_summary(
        zen,
        layout,
        names.entries.len(),
        exports.len(),
        export_end as i64,
    );
    let has_dr = !data_resources.is_empty();
    let package = LegacyPackage {
        summary,
        layout,
        names: names.entries,
        imports,
        exports,
        cell_imports: Vec::new(),
        cell_exports: Vec::new(),
        depends: Vec::new(),
        soft_package_references: Vec::new(),
        asset_registry_data: Vec::new(),
        preload_dependencies: preload,
        data_resource_version: if has_dr { Some(2) } else { None },
        data_resources,
    };
    let uasset = package.to_bytes()?;
    let package = LegacyPackage::read(&uasset, Some(layout))?;
    Ok(LegacyOutput {
        package,
        uasset,
        uexp,
    })
}

fn cooked_summary(
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

/// Result of [`from_legacy`].
#[derive(Debug)]
pub struct ZenOutput {
    /// The zen header (as it parses back).
    pub package: ZenPackage,
    /// The whole ExportBundleData chunk: header and export data.
    pub chunk: Vec<u8>,
    /// Imported package ids, sorted (the store entry's list).
    pub imported_packages: Vec<u64>,
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
    // Every index and outer chain must resolve (and not loop) before the
    // tables are walked.
    pkg.check_references()?;
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
    let ths = i64::from(s.total_header_size);
    // Names: the ones export data uses, then export names and the package name.
    let nref = s
        .names_referenced_from_export_data
        .unwrap_or(pkg.names.len() as i32)
        .clamp(0, pkg.names.len() as i32) as usize;
    let mut names: Vec<BatchName> = pkg.names[..nref]
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
    let mut store =
        |text: &str, number: u32, wide: bool, names: &mut Vec<BatchName>| -> MappedName {
            let i = *lookup.entry(text.to_string()).or_insert_with(|| {
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
        };
    let fname = |f: FName| -> Result<(&NameEntry, u32)> {
        let e = pkg
            .names
            .get(f.index as usize)
            .ok_or_else(|| Error::Other(format!("{name}: name {} out of range", f.index)))?;
        Ok((e, f.number as u32))
    };
    let mut export_names = Vec::with_capacity(pkg.exports.len());
    for e in &pkg.exports {
        let (n, num) = fname(e.object_name)?;
        export_names.push(store(&n.text, num, n.wide, &mut names));
    }
    let name_mapped = store(
        name,
        0,
        pakrat_io::FString::to_latin1(name).is_none(),
        &mut names,
    );

    // Imports.
    let mut imported: Vec<(u64, String)> = Vec::new();
    let mut hashes: Vec<u64> = Vec::new();
    // Positions by key: a linear search per import was quadratic (50,000
    // imports took 5.7 s, unoptimised build; now linear).
    let mut imported_at: HashMap<u64, usize> = HashMap::new();
    let mut hash_at: HashMap<u64, usize> = HashMap::new();
    let mut raw: Vec<(Option<(usize, usize)>, u64)> = Vec::with_capacity(pkg.imports.len());
    for i in 0..pkg.imports.len() {
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
            raw.push((None, v));
        } else if top == idx {
            raw.push((None, u64::MAX));
        } else {
            let id = pakrat_codec::names::package_id(&package);
            let p = *imported_at.entry(id).or_insert_with(|| {
                imported.push((id, package.clone()));
                imported.len() - 1
            });
            let rel = path
                .get(package.len() + 1..)
                .ok_or_else(|| {
                    Error::Other(format!(
                        "{name}: import {i} ({path}) does not lie inside its package {package}"
                    ))
                })?
                .replace([':', '.'], "/");
            let h = public_export_hash(&rel);
            let hi = *hash_at.entry(h).or_insert_with(|| {
                hashes.push(h);
                hashes.len() - 1
            });
            raw.push((Some((p, hi)), 0));
        }
    }
    // Imported packages are sorted by id (UE PackageStoreOptimizer).
    let mut order: Vec<usize> = (0..imported.len()).collect();
    order.sort_by_key(|&i| imported[i].0);
    let mut remap = vec![0usize; imported.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    let imports: Vec<ObjectIndex> = raw
        .iter()
        .map(|(p, v)| match p {
            Some((pi, hi)) => ObjectIndex((2u64 << 62) | ((remap[*pi] as u64) << 32) | *hi as u64),
            None => ObjectIndex(*v),
        })
        .collect();
    let to_zen = |x: i32| -> ObjectIndex {
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
    };

    // Exports.
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
        let public = e.object_flags & RF_PUBLIC != 0 || e.generate_public_hash == Some(true);
        let hash = if public {
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
            public_export_hash(&rel.replace([':', '.'], "/"))
        } else {
            0
        };
        exports.push(ZExport {
            serial_offset: off as u64,
            serial_size: e.serial_size as u64,
            name: export_names[i],
            outer: to_zen(e.outer),
            class: to_zen(e.class),
            super_index: to_zen(e.super_index),
            template: to_zen(e.template.unwrap_or(0)),
            public_export_hash: hash,
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

    // Dependencies: per export the legacy preload lists as zen keeps them
    // (checked on the UE 5.8/6.0 fixtures): exports (itself included) and
    // package imports stay, and so do script imports of objects (CDOs);
    // script imports of types (classes, structs, enums, functions: always
    // in memory) go, and so do a script class and template among the
    // serialize-before-create ones (the zen loader always waits for those).
    let is_type = |x: i32| -> bool {
        let Some(im) = pkg.imports.get((-x - 1) as usize) else {
            return false;
        };
        let class = pkg.name(im.class_name).unwrap_or_default();
        pkg.name(im.class_package).as_deref() == Some(CORE)
            && matches!(
                class.as_str(),
                "Class"
                    | "ScriptStruct"
                    | "Enum"
                    | "Function"
                    | "Package"
                    | "DelegateFunction"
                    | "SparseDelegateFunction"
            )
    };
    let keep = |x: i32| -> bool {
        if x > 0 {
            true
        } else if x < 0 {
            match imports.get((-x - 1) as usize).map(|o| o.get()) {
                Some(ObjectRef::Package { .. }) => true,
                Some(ObjectRef::Script(_)) => !is_type(x),
                _ => false,
            }
        } else {
            false
        }
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
            // Only script ones: a class or template from another package
            // stays (BP_ComponentsChild's templates from BP_Components do).
            let implied = [e.class, e.template.unwrap_or(0)];
            let script = |x: i32| {
                x < 0
                    && matches!(
                        imports.get((-x - 1) as usize).map(|o| o.get()),
                        Some(ObjectRef::Script(_))
                    )
            };
            g[1].retain(|&x| !(implied.contains(&x) && script(x)));
        }
        deps.push(g);
    }
    let export_bundle_entries = load_order(&exports, &deps)?;
    let mut dependency_bundle_headers = Vec::with_capacity(exports.len());
    let mut dependency_bundle_entries = Vec::new();
    for (e, g) in pkg.exports.iter().zip(&deps) {
        // INDEX_NONE when the legacy export recorded no dependencies at all.
        let none = e.dependencies.is_none_or(|d| d[0] < 0);
        dependency_bundle_headers.push(DependencyBundleHeader {
            first_entry: if none {
                -1
            } else {
                dependency_bundle_entries.len() as i32
            },
            entry_count: [
                [g[0].len() as u32, g[1].len() as u32],
                [g[2].len() as u32, g[3].len() as u32],
            ],
        });
        for x in g {
            dependency_bundle_entries.extend_from_slice(x);
        }
    }

    let versioning = if s.is_unversioned() {
        None
    } else {
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
    };
    let bulk = if pkg.layout.ue5 >= ue5::DATA_RESOURCES {
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
    } else {
        None
    };
    let mut sorted_imported: Vec<(u64, String)> = imported.clone();
    sorted_imported.sort_by_key(|x| x.0);
    let zen = ZenPackage {
        layout: ZenLayout::Ue5_3 {
            cells: target.cells,
        },
        versioning,
        header_size: 0,
        name: name.clone(),
        source_name: None,
        package_flags: s.package_flags,
        cooked_header_size: cooked_header_size(pkg)?,
        names,
        imported_public_export_hashes: hashes,
        imports,
        exports,
        cell_imports: Vec::new(),
        cell_export_count: 0,
        export_bundle_headers: Vec::new(),
        export_bundle_entries,
        dependency_bundle_headers,
        dependency_bundle_entries,
        imported_package_names: sorted_imported.iter().map(|x| x.1.clone()).collect(),
        graph_packages: Vec::new(),
        name_mapped,
        bulk,
        cell_exports: Vec::new(),
        imported_package_name_parts: sorted_imported
            .iter()
            .map(|x| {
                (
                    BatchName {
                        text: x.1.clone(),
                        wide: pakrat_io::FString::to_latin1(&x.1).is_none(),
                        stored_hash: None,
                    },
                    0,
                )
            })
            .collect(),
        imported_package_names_written: true,
    };
    let mut chunk = zen.to_bytes()?;
    chunk.extend_from_slice(export_data);
    let package = crate::zen::parse(&chunk, zen.layout, None)?;
    Ok(ZenOutput {
        package,
        chunk,
        imported_packages: sorted_imported.iter().map(|x| x.0).collect(),
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
