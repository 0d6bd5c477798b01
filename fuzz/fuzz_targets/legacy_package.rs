//! Legacy .uasset headers (summary, name/import/export maps, soft object
//! path list, preload dependencies, data resources): a header that reads writes back to bytes
//! that read as the same package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_asset::legacy::{Layout, LegacyPackage};

fuzz_target!(|data: &[u8]| {
    for fallback in [None, Layout::for_engine("5.8"), Layout::for_engine("4.27")] {
        if let Some(p) = ok(LegacyPackage::read(data, fallback)) {
            for i in 0..p.exports.len() {
                let _ = p.export_data(i, data, None);
                let _ = p.path(i as i32 + 1);
            }
            if let Some(bytes) = ok(p.to_bytes()) {
                let back = LegacyPackage::read(&bytes, Some(p.layout)).expect("a written header reads back");
                assert_eq!(back.names, p.names);
                assert_eq!(back.soft_object_path_list, p.soft_object_path_list);
                assert_eq!(back.imports, p.imports);
                assert_eq!(back.preload_dependencies, p.preload_dependencies);
                assert_eq!(back.exports.len(), p.exports.len());
            }
        }
    }
});
