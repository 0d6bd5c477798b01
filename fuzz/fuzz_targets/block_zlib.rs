//! IoStore block decompressor: Zlib. The first four bytes (little-endian,
//! modulo 256 KiB + 1) give the expected output size, the rest is the block.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::{ok, take_len, MAX_BLOCK_OUT};
use pakrat_codec::compress::{decompress, Method};

fuzz_target!(|data: &[u8]| {
    let (n, block) = take_len(data, MAX_BLOCK_OUT);
    let mut out = vec![0u8; n];
    let _ = ok(decompress(&Method::Zlib, block, &mut out));
});
