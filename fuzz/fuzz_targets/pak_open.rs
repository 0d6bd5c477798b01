//! A whole .pak (issue 10): footer, index, path-hash and directory indexes
//! (nested and flat), entries, then `verify` (data headers, SHA-1, block
//! bounds, decoding) with the corpus keys.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_iostore::pak::{self, Pak};

fuzz_target!(|data: &[u8]| {
    let mut keys = pakrat_iostore::KeyRing::new();
    for k in [
        "0x435545345061727365466978747572654145534b657930313233343536373839",
        "lNJbw660IOC+kU7cnVQ1oeqrXyhk4J6UAZrCBbcnp94=",
    ] {
        if let Ok(k) = pakrat_iostore::AesKey::parse(k) {
            keys.add(k);
        }
    }
    let src = pakrat_io::Source::from_vec("fuzz.pak", data.to_vec());
    if let Some(p) = ok(Pak::from_source(std::path::Path::new("fuzz.pak"), src, &keys)) {
        let r = pak::verify::verify(&p);
        for x in &r.problems {
            pakrat_fuzz::clear(&x.message);
        }
    }
});
