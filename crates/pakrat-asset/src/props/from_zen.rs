//! [`Asset`] from a zen package: its header, its ExportBundleData chunk and
//! what resolves its imports (the container's other packages and the
//! global script objects), named exactly as the legacy twin
//! ([`crate::convert::to_legacy`]) names them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use pakrat_io::{Error, Result};

use super::{Asset, ExportInfo, ObjectInfo, Versions};
use crate::convert::{import_paths, object_path, PackageSource};
use crate::legacy::summary::{flags, ue4, ue5};
use crate::legacy::Layout;
use crate::zen::{ContainerPackages, ObjectIndex, ObjectRef, ScriptObjects, ZenLayout, ZenPackage};

/// A [`PackageSource`] over one container's packages (by reference: no
/// header is copied) and the global script objects.
pub struct ContainerSource<'c> {
    packages: &'c ContainerPackages,
    script: Option<&'c ScriptObjects>,
    by_id: HashMap<u64, usize>,
    classes: HashSet<u64>,
}

impl<'c> ContainerSource<'c> {
    /// Index the packages of `packages` by id.
    pub fn new(packages: &'c ContainerPackages, script: Option<&'c ScriptObjects>) -> Self {
        let mut by_id = HashMap::with_capacity(packages.packages.len());
        for (i, p) in packages.packages.iter().enumerate() {
            if p.header.is_ok() {
                by_id.entry(p.id).or_insert(i);
            }
        }
        let classes = script
            .map(|s| {
                s.objects
                    .iter()
                    .filter(|o| !o.cdo_class.is_null())
                    .map(|o| o.cdo_class.0)
                    .collect()
            })
            .unwrap_or_default();
        ContainerSource {
            packages,
            script,
            by_id,
            classes,
        }
    }

    /// The imported package ids of a package (its store entry's).
    pub fn imported(&self, id: u64) -> &'c [u64] {
        self.packages
            .store_entry(id)
            .map(|s| s.imported_packages.as_slice())
            .unwrap_or(&[])
    }
}

impl PackageSource for ContainerSource<'_> {
    fn package(&self, id: u64) -> Option<(&ZenPackage, &[u64])> {
        let p = self.packages.packages.get(*self.by_id.get(&id)?)?;
        Some((p.header.as_ref().ok()?, self.imported(id)))
    }
    fn script_objects(&self) -> Option<&ScriptObjects> {
        self.script
    }
    fn cdo_classes(&self) -> Cow<'_, HashSet<u64>> {
        Cow::Borrowed(&self.classes)
    }
}

/// A [`PackageSource`] over the packages of several containers (each a
/// [`ContainerSource`], by reference): a package found in several is taken
/// from the first; the script objects are the first container's that has
/// them.
pub struct Containers<'c> {
    sources: Vec<ContainerSource<'c>>,
}

impl<'c> Containers<'c> {
    /// Over `sources`, in priority order.
    pub fn new(sources: Vec<ContainerSource<'c>>) -> Self {
        Containers { sources }
    }
}

impl PackageSource for Containers<'_> {
    fn package(&self, id: u64) -> Option<(&ZenPackage, &[u64])> {
        self.sources.iter().find_map(|s| s.package(id))
    }
    fn script_objects(&self) -> Option<&ScriptObjects> {
        self.sources.iter().find_map(|s| s.script)
    }
    fn cdo_classes(&self) -> Cow<'_, HashSet<u64>> {
        match self.sources.iter().find(|s| s.script.is_some()) {
            Some(s) => Cow::Borrowed(&s.classes),
            None => Cow::Owned(HashSet::new()),
        }
    }
}

impl<'a> Asset<'a> {
    /// The asset of a zen package. `chunk` is its whole ExportBundleData
    /// chunk, `imported` its store entry's imported package ids, `src`
    /// where other packages and script objects are found, `engine` the
    /// release to assume when the package carries no versions (`None`:
    /// the latest).
    ///
    /// An import that does not resolve (its package is not in `src`, no
    /// script objects) gets a `<...>` placeholder path naming why, rather
    /// than failing the whole package.
    pub fn from_zen(
        zen: &ZenPackage,
        chunk: &'a [u8],
        imported: &[u64],
        src: &dyn PackageSource,
        engine: Option<Layout>,
    ) -> Result<Asset<'a>> {
        let names = zen.names.iter().map(|n| n.text.clone()).collect();
        let imports: Vec<ObjectInfo> = match import_paths(zen, imported, src) {
            Ok(v) => v
                .into_iter()
                .map(|(path, class)| ObjectInfo { path, class })
                .collect(),
            Err(_) => zen
                .imports
                .iter()
                .enumerate()
                .map(|(i, idx)| ObjectInfo {
                    path: match object_path(zen, imported, src, *idx) {
                        _ if idx.is_null() => format!("<import {i}: a package import>"),
                        Ok(p) => p,
                        Err(e) => format!("<import {i} unresolved: {e}>"),
                    },
                    class: String::new(),
                })
                .collect(),
        };
        let by_value: HashMap<u64, usize> = zen
            .imports
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.is_null())
            .map(|(i, x)| (x.0, i))
            .collect();
        let paths = export_paths(zen);
        let object = |idx: ObjectIndex| -> Option<String> {
            match idx.get() {
                ObjectRef::Null => None,
                ObjectRef::Export(i) => Some(
                    paths
                        .get(i as usize)
                        .cloned()
                        .unwrap_or_else(|| format!("<export {i} out of range>")),
                ),
                _ => Some(match by_value.get(&idx.0) {
                    Some(&i) => imports[i].path.clone(),
                    None => object_path(zen, imported, src, idx)
                        .unwrap_or_else(|e| format!("<object {:#018x} unresolved: {e}>", idx.0)),
                }),
            }
        };
        let slices = export_slices(zen, chunk)?;
        let mut exports = Vec::with_capacity(zen.exports.len());
        for (i, e) in zen.exports.iter().enumerate() {
            let (offset, data) = slices[i];
            exports.push(ExportInfo {
                name: zen.name_of(e.name),
                path: paths[i].clone(),
                class: object(e.class).unwrap_or_else(|| "/Script/CoreUObject.Class".into()),
                outer: object(e.outer),
                super_struct: object(e.super_index),
                template: object(e.template),
                object_flags: e.object_flags,
                offset: if zen.layout == ZenLayout::Ue4 {
                    e.serial_offset
                } else {
                    offset
                },
                data,
            });
        }
        Ok(Asset {
            package: zen.name.clone(),
            names,
            imports,
            exports,
            soft_object_paths: Vec::new(),
            versions: versions(zen, engine),
            unversioned: zen.package_flags & flags::UNVERSIONED_PROPERTIES != 0,
            bulk: crate::bulk::BulkMeta {
                map: zen
                    .bulk
                    .iter()
                    .flat_map(|b| &b.entries)
                    .map(|e| crate::bulk::BulkMapEntry {
                        flags: e.flags,
                        offset: e.serial_offset,
                        size: e.serial_size,
                        raw_size: e.serial_size,
                        cooked_index: e.cooked_index,
                    })
                    .collect(),
                start_offset: 0,
                header_size: 0,
            },
        })
    }
}

/// The package's versions, else the engine's, else the latest.
fn versions(zen: &ZenPackage, engine: Option<Layout>) -> Versions {
    match (&zen.versioning, engine) {
        (Some(v), _) => Versions {
            ue4: v.file_version_ue4,
            ue5: v.file_version_ue5,
            licensee: v.licensee,
            custom: v.custom_versions.clone(),
            custom_from_package: true,
        },
        (None, Some(l)) => Versions {
            ue4: l.ue4,
            ue5: l.ue5,
            ..Versions::default()
        },
        (None, None) => Versions {
            ue4: ue4::LATEST,
            ue5: ue5::LATEST,
            ..Versions::default()
        },
    }
}

/// Full path of every export: the package name, `.` before a top-level
/// object, `:` below (outer chains bounded by the export count).
fn export_paths(zen: &ZenPackage) -> Vec<String> {
    let n = zen.exports.len();
    (0..n)
        .map(|i| {
            let mut chain = vec![i];
            let mut at = zen.exports[i].outer;
            while let ObjectRef::Export(o) = at.get() {
                let o = o as usize;
                if o >= n || chain.len() > n {
                    break;
                }
                chain.push(o);
                at = zen.exports[o].outer;
            }
            let mut s = zen.name.clone();
            for (k, &e) in chain.iter().rev().enumerate() {
                s.push(if k == 0 { '.' } else { ':' });
                s.push_str(&zen.name_of(zen.exports[e].name));
            }
            s
        })
        .collect()
}

/// Where each export's bytes are in the chunk: (offset in the chunk, data).
/// UE 5.3+: `CookedSerialOffset` counts from the end of the header. Before,
/// export data follows the header in export bundle order, one serialize
/// entry after the other.
fn export_slices<'a>(zen: &ZenPackage, chunk: &'a [u8]) -> Result<Vec<(u64, &'a [u8])>> {
    let hs = zen.header_size as u64;
    let slice = |i: usize, start: u64, size: u64| -> Result<(u64, &'a [u8])> {
        match start.checked_add(size) {
            Some(end) if end <= chunk.len() as u64 => {
                Ok((start, &chunk[start as usize..end as usize]))
            }
            _ => Err(Error::invalid(
                start,
                format!(
                    "{}: export {i} data {start:#x}+{size:#x} lies outside the package chunk ({:#x} bytes)",
                    zen.name,
                    chunk.len()
                ),
            )),
        }
    };
    let mut out = vec![(hs, &chunk[0..0]); zen.exports.len()];
    if matches!(zen.layout, ZenLayout::Ue5_3 { .. }) {
        for (i, e) in zen.exports.iter().enumerate() {
            out[i] = slice(i, hs.saturating_add(e.serial_offset), e.serial_size)?;
        }
        return Ok(out);
    }
    let mut at = hs;
    for &(i, command) in &zen.export_bundle_entries {
        let i = i as usize;
        if command != 1 {
            continue;
        }
        let e = zen.exports.get(i).ok_or_else(|| {
            Error::invalid(
                0,
                format!(
                    "{}: export bundle entry names export {i} of {}",
                    zen.name,
                    zen.exports.len()
                ),
            )
        })?;
        out[i] = slice(i, at, e.serial_size)?;
        at = at.saturating_add(e.serial_size);
    }
    Ok(out)
}
