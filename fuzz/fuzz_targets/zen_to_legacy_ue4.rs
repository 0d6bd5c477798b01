//! Zen → legacy in the UE 4.27 layout, and the loose-package name reader:
//! a UE4 zen package that parses (with a store entry of one or two export
//! bundles) and converts gives a legacy header that reads back with every
//! reference resolving and a `.uexp` ending in the package tag. Script
//! imports resolve through the corpus's UE 4.27 loader chunks when
//! `../shared/corpus` is there (run from the repository root).
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pakrat_asset::convert::{to_legacy_ue4, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{self, ScriptObjects, ZenLayout};
use pakrat_fuzz::ok;
use pakrat_iostore::container_header::StoreEntry;

fn source() -> &'static Packages {
    static SRC: OnceLock<Packages> = OnceLock::new();
    SRC.get_or_init(|| {
        let d = "../shared/corpus/zenpair/retoc/UE4.27";
        let rd = |n: &str| std::fs::read(format!("{d}/{n}")).ok();
        let so = (|| {
            ScriptObjects::parse_ue4(
                &rd("LoaderInitialLoadMeta_1.bin")?,
                &rd("LoaderGlobalNames_1.bin")?,
                &rd("LoaderGlobalNameHashes_1.bin")?,
            )
            .ok()
        })();
        Packages::from_containers(&[], so)
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = zen::package_name(data, ZenLayout::Ue4);
    let src = source();
    for bundles in [1, 2] {
        let store = StoreEntry {
            export_bundles_size: Some(data.len() as u64),
            export_count: None,
            export_bundle_count: Some(bundles),
            load_order: None,
            imported_packages: Vec::new(),
            shader_map_hashes: Vec::new(),
        };
        let Some(z) = ok(zen::parse(data, ZenLayout::Ue4, Some(&store))) else {
            continue;
        };
        let layout = Layout::for_engine("4.27").unwrap();
        if let Some(out) = ok(to_legacy_ue4(&z, data, &[], src, layout)) {
            let back = LegacyPackage::read(&out.uasset, Some(layout))
                .expect("a written legacy header reads back");
            back.check_references().expect("its references resolve");
            assert_eq!(back.exports.len(), z.exports.len());
            assert!(out.uexp.ends_with(&[0xC1, 0x83, 0x2A, 0x9E]));
        }
    }
});
