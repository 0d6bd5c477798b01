//! IoStore container header chunk (UE4 forms, UE5 versions 0-5).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    if let Some(h) = ok(pakrat_iostore::container_header::parse(data)) {
        let _ = h.form.describe();
        let _ = ok(pakrat_iostore::zen::ZenLayout::for_header(h.form));
    }
});
