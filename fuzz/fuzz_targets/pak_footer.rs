//! .pak footer (versions 1-15) from the end of the input.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let _ = ok(pakrat_pak::parse(data, data.len() as u64));
    // Only the tail of a large file (as `Source` readers pass it).
    let _ = ok(pakrat_pak::parse(data, data.len() as u64 + 1000));
});
