//! IoStore container header chunk (UE4 forms, UE5 versions 0-5, the UE 5.8
//! 8-byte shader-map hashes); headers written back read as the same header.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    // A UE4 tie broken by the release the user names (`--ue-version 4.25`).
    use pakrat_iostore::container_header::{parse_with, HeaderForm};
    let _ = ok(parse_with(data, Some(HeaderForm::Ue4PreInitial)));
    if let Some(h) = ok(pakrat_iostore::container_header::parse(data)) {
        let _ = h.form.describe();
        if let Some(bytes) = ok(h.to_bytes()) {
            let back = pakrat_iostore::container_header::parse(&bytes)
                .expect("a written container header reads back");
            assert_eq!(back.package_ids, h.package_ids);
            assert_eq!(back.store_entries, h.store_entries);
            assert_eq!(back.redirects, h.redirects);
            assert!(back.to_bytes().ok() == Some(bytes), "container header write is not stable");
        }
        let _ = ok(pakrat_asset::zen::ZenLayout::for_header(h.form));
    }
});
