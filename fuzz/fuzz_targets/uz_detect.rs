//! Format detection + decoding as `pakrat decompress` does it (all
//! candidate formats, streaming and in-memory paths).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let limits = pakrat_uz::Limits {
        max_output: 64 << 20,
    };
    let _ = pakrat_uz::candidates(data);
    let _ = ok(pakrat_uz::inspect(data));
    if let Some(d) = ok(pakrat_uz::decompress_with(data, &limits)) {
        let _ = d.is_package();
    }
    let _ = ok(pakrat_uz::decompress_to(
        data,
        &mut std::io::sink(),
        &limits,
    ));
});
