//! Zen package header, every layout (UE4.25-4.27, UE5.0-5.2, UE5.3+, UE5.6+
//! with Verse cells), without and with a store entry; and the UE4 name
//! alone (`package_name`, which needs no store entry).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_iostore::container_header::StoreEntry;
use pakrat_asset::zen::{package_name, parse, ZenLayout};

fuzz_target!(|data: &[u8]| {
    let _ = ok(package_name(data, ZenLayout::Ue4));
    let store = StoreEntry {
        export_bundles_size: Some(data.len() as u64),
        export_count: Some(4),
        export_bundle_count: Some(1),
        load_order: Some(0),
        imported_packages: vec![1, 2],
        shader_map_hashes: Vec::new(),
    };
    for layout in [
        ZenLayout::Ue4,
        ZenLayout::Ue5_0,
        ZenLayout::Ue5_3 { cells: false },
        ZenLayout::Ue5_3 { cells: true },
    ] {
        for s in [None, Some(&store)] {
            if let Some(p) = ok(parse(data, layout, s)) {
                let _ = p.name_hash_mismatches();
            }
        }
    }
});
