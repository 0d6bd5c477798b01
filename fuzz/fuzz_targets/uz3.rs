//! .uz3 (UE3): 0x162E, size, one zlib stream.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let limits = pakrat_uz::Limits {
        max_output: 64 << 20,
    };
    let _ = ok(pakrat_uz::uz3::read_header(data));
    let _ = ok(pakrat_uz::uz3::decompress(data, &limits));
    let _ = ok(pakrat_uz::uz3::decompress_to(data, &mut std::io::sink()));
});
