//! AssetRegistry.bin (versions 3-24: name table or name batch, fixed tag
//! store, assets, dependencies, package data): a registry that reads writes
//! back to the bytes it came from, its tags resolve, and merging it into
//! itself changes no byte.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::registry::{merge::merge, AssetRegistry};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let Some(reg) = ok(AssetRegistry::read(data)) else {
        return;
    };
    let bytes = reg.to_bytes();
    assert!(bytes == data, "a registry that reads writes back other bytes");
    for a in reg.assets.iter().take(64) {
        let _ = reg.view(a);
    }
    let mut merged = reg.clone();
    if ok(merge(&mut merged, &reg)).is_some() {
        let again = merged.to_bytes();
        let back = AssetRegistry::read(&again).expect("a merged registry reads back");
        assert!(back.to_bytes() == again, "a merged registry writes back other bytes");
    }
});
