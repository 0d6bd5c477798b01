//! .uz2 (UE2): chunk headers and independent zlib streams.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let limits = pakrat_uz::Limits {
        max_output: 64 << 20,
    };
    let _ = ok(pakrat_uz::uz2::chunks(data));
    let _ = ok(pakrat_uz::uz2::decompress(data, &limits));
    let _ = ok(pakrat_uz::uz2::decompress_to(data, &mut std::io::sink()));
});
