//! A whole .pak (issue 10): footer, index, path-hash and directory indexes
//! (nested and flat), entries, then `verify` (data headers, SHA-1, block
//! bounds, decoding) with the corpus keys; the overlap shapes of issue 32
//! (an entry over another's bytes, one entry's blocks all over its first)
//! must be found.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_pak::{self as pak, Pak};

fuzz_target!(|data: &[u8]| {
    let mut keys = pakrat_codec::KeyRing::new();
    for k in [
        "0x435545345061727365466978747572654145534b657930313233343536373839",
        "lNJbw660IOC+kU7cnVQ1oeqrXyhk4J6UAZrCBbcnp94=",
    ] {
        if let Ok(k) = pakrat_codec::AesKey::parse(k) {
            keys.add(k);
        }
    }
    let src = pakrat_io::Source::from_vec("fuzz.pak", data.to_vec());
    if let Some(p) = ok(Pak::from_source(
        std::path::Path::new("fuzz.pak"),
        src,
        &keys,
    )) {
        let all: Vec<&pak::PakEntry> = p.index.entries.iter().collect();
        let _ = p.overlapping_entries();
        let _ = p.check_layout(&all);
        if let Some(e) = p.index.entries.iter().find(|e| !e.deleted()) {
            let mut twin = e.clone();
            twin.path.push_str(".twin");
            assert!(
                p.entry_overlap(&twin).is_some(),
                "an entry over another's bytes not found"
            );
            if e.blocks.len() >= 2 {
                let mut r = e.clone();
                let b0 = r.blocks[0];
                r.blocks.iter_mut().for_each(|b| *b = b0);
                assert!(p.block_problem(&r).is_some(), "repeated blocks not found");
            }
        }
        let r = pak::verify::verify(&p);
        for x in &r.problems {
            pakrat_fuzz::clear(&x.message);
        }
    }
});
