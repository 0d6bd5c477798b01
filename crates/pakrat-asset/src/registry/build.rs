//! A registry for packages a tool converted (`zen from-legacy --into …
//! --registry`): what a cooked package can give, nothing more.
//!
//! Per package: one asset (its public top-level export: package path and
//! name, asset name, class path from the export's class import, the
//! summary's package flags), its package data where the version has it
//! (name, size, file versions, imported classes, extension; hashes are
//! left zero/invalid) and a dependency node whose package dependencies are
//! the packages it imports outside `/Script/`. No tags: a cooked package
//! stores none (its asset registry data section holds a count of 0). The
//! dependency flag bits (`FPropertyCombinationPack3`, 5 bits each) are
//! written as 0: their encoding is not derived here.

use std::collections::BTreeSet;

use pakrat_io::{Error, Result};

use super::asset::Tags;
use super::depends::{AssetIdentifier, DependsNode, OldSplit, PACKAGE_FLAG_WIDTH};
use super::names::{NameRef, Names};
use super::package::FileVersions;
use super::{version, AssetData, AssetRegistry, Dependencies, PackageData, Store};
use crate::legacy::LegacyPackage;

/// What the registry says of one converted package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageEntry {
    /// `/Game/Path/Package`.
    pub package_name: String,
    /// The asset (the public top-level export's name).
    pub asset_name: String,
    /// `/Script/Engine.Texture2D`.
    pub class_path: String,
    /// The summary's `PackageFlags`.
    pub package_flags: u32,
    /// Imported packages outside `/Script/`, sorted.
    pub hard_deps: Vec<String>,
    /// Imported classes (`/Script/Engine.Texture2D`), sorted.
    pub imported_classes: Vec<String>,
    /// `.uasset` or `.umap`.
    pub extension: String,
    /// Size of the package's files.
    pub disk_size: i64,
    /// UE4, UE5 and licensee file versions.
    pub file_versions: (i32, Option<i32>, i32),
}

fn import_path(pkg: &LegacyPackage, index: i32) -> Option<String> {
    let imp = pkg
        .imports
        .get(usize::try_from(-i64::from(index) - 1).ok()?)?;
    let name = pkg.name(imp.object_name)?;
    if imp.outer == 0 {
        return Some(name);
    }
    Some(format!("{}.{name}", import_path(pkg, imp.outer)?))
}

/// The entry of a legacy package named `package_name`: `None` when it has
/// no public top-level export (nothing the registry would list).
pub fn entry_of(
    pkg: &LegacyPackage,
    package_name: &str,
    extension: &str,
    disk_size: i64,
) -> Option<PackageEntry> {
    const RF_PUBLIC: u32 = 0x1;
    let main = pkg
        .exports
        .iter()
        .find(|e| e.outer == 0 && e.object_flags & RF_PUBLIC != 0 && e.is_asset != Some(false))
        .or_else(|| {
            pkg.exports
                .iter()
                .find(|e| e.outer == 0 && e.object_flags & RF_PUBLIC != 0)
        })?;
    let class_path = if main.class < 0 {
        import_path(pkg, main.class)?
    } else {
        return None;
    };
    let mut deps = BTreeSet::new();
    let mut classes = BTreeSet::new();
    for (i, imp) in pkg.imports.iter().enumerate() {
        let class = pkg.name(imp.class_name).unwrap_or_default();
        let Some(path) = import_path(pkg, -(i as i32) - 1) else {
            continue;
        };
        if imp.outer == 0
            && class == "Package"
            && !path.starts_with("/Script/")
            && path != package_name
        {
            deps.insert(path);
        } else if class == "Class" && path.starts_with("/Script/") {
            classes.insert(path);
        }
    }
    let s = &pkg.summary;
    Some(PackageEntry {
        package_name: package_name.to_owned(),
        asset_name: pkg.name(main.object_name)?,
        class_path,
        package_flags: s.package_flags,
        hard_deps: deps.into_iter().collect(),
        imported_classes: classes.into_iter().collect(),
        extension: extension.to_owned(),
        disk_size,
        file_versions: (s.file_version_ue4, s.file_version_ue5, s.licensee_version),
    })
}

struct Builder {
    reg: AssetRegistry,
}

impl Builder {
    fn name(&mut self, text: &str) -> NameRef {
        NameRef {
            index: self.reg.names.intern(text),
            number: 0,
        }
    }

    fn at_least(&self, v: u32) -> bool {
        self.reg.version >= v
    }

    fn asset(&mut self, e: &PackageEntry) -> AssetData {
        let none = self.name("None");
        let path = e
            .package_name
            .rsplit_once('/')
            .map_or("/", |(p, _)| p)
            .to_owned();
        let (class_package, class) = match e.class_path.split_once('.') {
            Some((p, c)) if self.at_least(version::CLASS_PATHS) => {
                (Some(self.name(p)), self.name(c))
            }
            Some((_, c)) => (None, self.name(c)),
            None => (None, self.name(&e.class_path)),
        };
        let object_path = (!self.at_least(version::REMOVE_ASSET_PATH_FNAMES))
            .then(|| self.name(&format!("{}.{}", e.package_name, e.asset_name)));
        let outer = self.at_least(version::REMOVE_ASSET_PATH_FNAMES)
            && !self.reg.filter_editor_only.unwrap_or(false);
        AssetData {
            object_path,
            package_path: self.name(&path),
            class_package,
            class,
            group_names: (!self.at_least(version::REMOVED_MD5_HASH)).then_some(none),
            package_name: self.name(&e.package_name),
            asset_name: self.name(&e.asset_name),
            optional_outer_path: outer.then_some(none),
            tags: if self.reg.store.is_some() {
                Tags::Handle(Tags::make_handle(true, 0, 0))
            } else {
                Tags::Loose(Vec::new())
            },
            bundles: Vec::new(),
            chunk_ids: Vec::new(),
            package_flags: e.package_flags,
        }
    }

    fn package(&mut self, e: &PackageEntry) -> PackageData {
        let v = self.reg.version;
        let (ue4, ue5, licensee) = e.file_versions;
        PackageData {
            package_name: self.name(&e.package_name),
            disk_size: e.disk_size,
            saved_hash: vec![
                0;
                if v >= version::PACKAGE_SAVED_HASH {
                    20
                } else {
                    16
                }
            ],
            cooked_hash: (v >= version::ADDED_COOKED_MD5_HASH).then_some(None),
            chunk_hashes: Vec::new(),
            versions: (v >= version::WORKSPACE_DOMAIN).then(|| FileVersions {
                ue4,
                ue5: (v >= version::PACKAGE_FILE_SUMMARY_VERSION_CHANGE)
                    .then_some(ue5.unwrap_or(0)),
                licensee,
                flags: 0,
                custom_versions: Vec::new(),
            }),
            imported_classes: if v >= version::PACKAGE_IMPORTED_CLASSES {
                e.imported_classes.iter().map(|c| self.name(c)).collect()
            } else {
                Vec::new()
            },
            extension: (v >= version::ASSET_PACKAGE_DATA_HAS_EXTENSION)
                .then(|| super::RegString::new(&e.extension)),
        }
    }

    fn node(&mut self, package: &str) -> usize {
        let id = AssetIdentifier {
            package_name: Some(self.name(package)),
            ..Default::default()
        };
        let nodes = &mut self.reg.dependencies.nodes;
        if let Some(i) = nodes.iter().position(|n| n.identifier == id) {
            return i;
        }
        let old = self.reg.version < version::ADDED_DEPENDENCY_FLAGS;
        nodes.push(DependsNode {
            identifier: id,
            package_deps: Vec::new(),
            package_flags: Vec::new(),
            name_deps: Vec::new(),
            manage_deps: Vec::new(),
            manage_flags: Vec::new(),
            referencers: Vec::new(),
            old_split: old.then_some(OldSplit {
                hard: 0,
                soft_manage: 0,
            }),
        });
        nodes.len() - 1
    }

    fn depends(&mut self, e: &PackageEntry) {
        let me = self.node(&e.package_name);
        let deps: Vec<usize> = e.hard_deps.iter().map(|d| self.node(d)).collect();
        let old = self.reg.version < version::ADDED_DEPENDENCY_FLAGS;
        let nodes = &mut self.reg.dependencies.nodes;
        for &d in &deps {
            if !nodes[d].referencers.contains(&(me as i32)) {
                nodes[d].referencers.push(me as i32);
            }
        }
        let n = &mut nodes[me];
        n.package_deps = deps.iter().map(|&d| d as i32).collect();
        if old {
            n.old_split = Some(OldSplit {
                hard: deps.len(),
                soft_manage: 0,
            });
        } else {
            n.package_flags = vec![0; (PACKAGE_FLAG_WIDTH * deps.len()).div_ceil(32)];
        }
    }
}

/// An empty registry of `version` (`FixedTags`+ with a name batch and an
/// empty tag store; editor-only data filtered from `AddedHeader`, as cooked
/// registries are).
pub fn empty(version: u32) -> Result<AssetRegistry> {
    if !(version::CHANGED_ASSET_DATA..=version::LATEST).contains(&version) {
        return Err(Error::Other(format!(
            "asset registry version {version} is not written"
        )));
    }
    let batch = version >= version::FIXED_TAGS;
    Ok(AssetRegistry {
        version,
        filter_editor_only: (version >= version::ADDED_HEADER).then_some(true),
        names: if batch {
            Names::Batch(Vec::new())
        } else {
            Names::Table(Vec::new())
        },
        store: batch.then(Store::default),
        assets: Vec::new(),
        dependencies: Dependencies::default(),
        packages: Vec::new(),
    })
}

/// The registry of `entries` at `version`.
pub fn build(version: u32, entries: &[PackageEntry]) -> Result<AssetRegistry> {
    let mut b = Builder {
        reg: empty(version)?,
    };
    for e in entries {
        let a = b.asset(e);
        b.reg.assets.push(a);
        let p = b.package(e);
        b.reg.packages.push(p);
        b.depends(e);
    }
    Ok(b.reg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, deps: &[&str]) -> PackageEntry {
        PackageEntry {
            package_name: format!("/Game/Mod/{name}"),
            asset_name: name.to_owned(),
            class_path: "/Script/Engine.Texture2D".to_owned(),
            package_flags: 0x8000_0200,
            hard_deps: deps.iter().map(|d| d.to_string()).collect(),
            imported_classes: vec!["/Script/Engine.Texture2D".to_owned()],
            extension: ".uasset".to_owned(),
            disk_size: 100,
            file_versions: (522, Some(1018), 0),
        }
    }

    #[test]
    fn every_version_builds_a_registry_that_reads_back() {
        let entries = [
            entry("A", &["/Game/Mod/B", "/Game/Other/C"]),
            entry("B", &[]),
        ];
        for v in version::CHANGED_ASSET_DATA..=version::LATEST {
            let r = build(v, &entries).unwrap();
            let bytes = r.to_bytes();
            let back = AssetRegistry::read(&bytes).unwrap_or_else(|e| panic!("version {v}: {e}"));
            assert_eq!(back.to_bytes(), bytes, "version {v}");
            assert_eq!(back.assets.len(), 2);
            assert_eq!(back.dependencies.nodes.len(), 3, "A, B and C");
            let a = &back.assets[0];
            assert_eq!(back.view(a).object_path, "/Game/Mod/A.A", "version {v}");
            let class = if v >= version::CLASS_PATHS {
                "/Script/Engine.Texture2D"
            } else {
                "Texture2D"
            };
            assert_eq!(back.class_path(a), class, "version {v}");
            assert_eq!(back.dependencies.nodes[0].package_deps, vec![1, 2]);
            assert_eq!(back.dependencies.nodes[2].referencers, vec![0]);
        }
        assert!(build(2, &entries).is_err());
    }

    #[test]
    fn merging_the_same_entries_again_changes_nothing() {
        let entries = [entry("A", &["/Game/Mod/B"])];
        let mut game = build(version::LATEST, &[entry("G", &[])]).unwrap();
        let ours = build(version::LATEST, &entries).unwrap();
        super::super::merge::merge(&mut game, &ours).unwrap();
        let once = game.to_bytes();
        let r = super::super::merge::merge(&mut game, &ours).unwrap();
        assert_eq!(game.to_bytes(), once);
        assert_eq!((r.assets_replaced, r.assets_added), (1, 0));
    }
}
