//! Zen → legacy: a zen package (UE 5.3+ layout) that parses and converts
//! gives a legacy header that reads back with every reference resolving.
//! Imports resolve through the corpus fixture container and its global
//! ScriptObjects when `../shared/corpus` is there (run from the repository
//! root, as fuzz/run_all.sh does); without it only packages with no imports
//! get through.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_asset::convert::{to_legacy, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages, ZenLayout};
use pakrat_iostore::Container;
use pakrat_codec::KeyRing;

fn source() -> &'static Packages {
    static SRC: OnceLock<Packages> = OnceLock::new();
    SRC.get_or_init(|| {
        let base = "../shared/corpus/iostore/cue4parse/UE5_8/IoStore/Tagged";
        let load = || -> Option<Packages> {
            let c = Container::open(
                format!("{base}/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
                &KeyRing::default(),
            )
            .ok()?;
            let g = Container::open(format!("{base}/global.utoc"), &KeyRing::default()).ok()?;
            let cp = ContainerPackages::read(&c).ok()?;
            Some(Packages::from_containers(&[&cp], load_script_objects(&g).ok()))
        };
        load().unwrap_or_default()
    })
}

fuzz_target!(|data: &[u8]| {
    let src = source();
    for cells in [true, false] {
        let Some(z) = ok(zen::parse(data, ZenLayout::Ue5_3 { cells }, None)) else {
            continue;
        };
        let imported: Vec<u64> = z
            .imported_package_names
            .iter()
            .map(|n| pakrat_codec::names::package_id(n))
            .collect();
        let layout = Layout::for_engine("5.8").unwrap();
        if let Some(out) = ok(to_legacy(&z, data, &imported, src, layout)) {
            let back = LegacyPackage::read(&out.uasset, Some(out.package.layout))
                .expect("a written legacy header reads back");
            back.check_references().expect("its references resolve");
            assert_eq!(back.exports.len(), z.exports.len());
        }
    }
});
