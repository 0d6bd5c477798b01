//! .uz (UE1 `ucc compress`) with signature 5678 forced into the first four
//! bytes: header, Huffman, RLE, MTF, inverse BWT, RLE stages.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let mut v = Vec::with_capacity(data.len() + 4);
    v.extend_from_slice(&5678i32.to_le_bytes());
    v.extend_from_slice(data.get(4..).unwrap_or(&[]));
    let limits = pakrat_uz::Limits {
        max_output: 64 << 20,
    };
    if let Some(h) = ok(pakrat_uz::uz1::read_header(&v)) {
        let _ = ok(pakrat_uz::safe_file_name(&h.original_name.text));
    }
    let _ = ok(pakrat_uz::uz1::decompress(&v, &limits));
});
