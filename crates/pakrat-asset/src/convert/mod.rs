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
mod legacy_to_zen;
mod legacy_to_zen_ue4;
pub mod loose;
mod resolve;
mod ue4_store;
mod zen_to_legacy;
mod zen_to_legacy_ue4;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use crate::zen::{ScriptObjects, ZenPackage};

pub use legacy_to_zen::{from_legacy, ZenOutput, ZenTarget};
pub use legacy_to_zen_ue4::from_legacy_ue4;
pub use ue4_store::ue4_store_header;
pub(crate) use zen_to_legacy::{import_paths, object_path};
pub use zen_to_legacy::{layout_of, to_legacy, to_legacy_bytes, LegacyBytes, LegacyOutput};
pub use zen_to_legacy_ue4::to_legacy_ue4;

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
    /// UE4: the export whose `GlobalImportIndex` is `index` (the package
    /// import index of its full path), with its package and that package's
    /// imported package ids. `None` unless the source indexes UE4 packages.
    fn global_import(&self, index: u64) -> Option<(&ZenPackage, &[u64], usize)> {
        let _ = index;
        None
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
    pub by_id: HashMap<u64, (Arc<ZenPackage>, Vec<u64>)>,
    /// Global script objects.
    pub script: Option<ScriptObjects>,
    /// [`PackageSource::cdo_classes`], made once.
    classes: OnceLock<HashSet<u64>>,
    /// UE4 `GlobalImportIndex` → (package id, export index), made once.
    global: OnceLock<HashMap<u64, (u64, usize)>>,
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
                    by_id
                        .entry(p.id)
                        .or_insert_with(|| (Arc::clone(h), imported));
                }
            }
        }
        Packages {
            by_id,
            script: global,
            classes: OnceLock::new(),
            global: OnceLock::new(),
        }
    }

    /// Add one package (kept when its id is new); what a folder of loose
    /// zen packages gives.
    pub fn insert(&mut self, id: u64, header: ZenPackage, imported: Vec<u64>) {
        self.by_id.entry(id).or_insert((Arc::new(header), imported));
        self.global = OnceLock::new();
    }
}

impl PackageSource for Packages {
    fn package(&self, id: u64) -> Option<(&ZenPackage, &[u64])> {
        self.by_id.get(&id).map(|(p, i)| (&**p, i.as_slice()))
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
    fn global_import(&self, index: u64) -> Option<(&ZenPackage, &[u64], usize)> {
        let map = self.global.get_or_init(|| {
            let mut m = HashMap::new();
            for (id, (p, _)) in &self.by_id {
                if p.layout != crate::zen::ZenLayout::Ue4 {
                    continue;
                }
                for (ei, e) in p.exports.iter().enumerate() {
                    if e.public_export_hash != u64::MAX && e.public_export_hash != 0 {
                        m.entry(e.public_export_hash).or_insert((*id, ei));
                    }
                }
            }
            m
        });
        let &(id, ei) = map.get(&index)?;
        self.by_id.get(&id).map(|(p, i)| (&**p, i.as_slice(), ei))
    }
}
