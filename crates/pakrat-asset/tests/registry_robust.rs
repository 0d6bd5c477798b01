//! Hostile bytes for the asset registry reader: deterministic mutations of
//! the corpus registries (UE 5.8 and 6.0) are read, written back, listed
//! and merged into themselves; each must end in an error or a result, never
//! a panic, hang or runaway allocation, and a mutated file that still reads
//! must write back to its own bytes.

use std::time::Duration;

use pakrat_asset::registry::{merge::merge, AssetRegistry};
use pakrat_codec::KeyRing;
use pakrat_pak::Pak;
use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn case(data: &[u8]) -> Result<(), String> {
    let reg = AssetRegistry::read(data).map_err(|e| e.to_string())?;
    assert!(
        reg.to_bytes() == data,
        "a mutated registry that reads writes back other bytes"
    );
    for a in &reg.assets {
        let _ = reg.view(a);
    }
    let mut merged = reg.clone();
    merge(&mut merged, &reg).map_err(|e| e.to_string())?;
    let bytes = merged.to_bytes();
    AssetRegistry::read(&bytes).expect("a merged registry reads back");
    Ok(())
}

#[test]
fn mutated_registries_end_cleanly() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut inputs = Vec::new();
    for v in ["UE5_8", "UE6_0"] {
        let pak = Pak::open(
            dir.join(format!(
                "pak/cue4parse/{v}/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak"
            )),
            &KeyRing::default(),
        )
        .unwrap();
        let e = pak
            .index
            .entries
            .iter()
            .find(|e| e.path == "AssetRegistry.bin")
            .unwrap();
        inputs.push((v, pak.read(e).unwrap()));
    }
    ALLOC.set_limit(256 << 20);
    let started = std::time::Instant::now();
    let (mut cases, mut errors) = (0usize, 0usize);
    for (n, (v, data)) in inputs.iter().enumerate() {
        assert_eq!(case(data), Ok(()), "{v}");
        let budget = 64 * data.len() + (8 << 20);
        for m in mutations(data, 0xA55E7 ^ n as u64, 150) {
            ALLOC.reset_peak();
            let r = run_case(m.data, Duration::from_secs(20), case);
            cases += 1;
            match r {
                Ok(Ok(())) => {}
                Ok(Err(msg)) => {
                    errors += 1;
                    assert!(!msg.is_empty(), "{v} / {}: empty error", m.name);
                }
                Err(Failure::Panic(p)) => panic!("{v} / {}: panic {p}", m.name),
                Err(other) => panic!("{v} / {}: {other:?}", m.name),
            }
            assert!(
                ALLOC.peak() <= ALLOC.live() + budget,
                "{v} / {}: peak {} over budget",
                m.name,
                ALLOC.peak()
            );
        }
    }
    assert!(!ALLOC.refused());
    assert!(cases >= 300, "{cases}");
    assert!(
        errors > cases / 5,
        "only {errors} of {cases} mutations were rejected"
    );
    eprintln!(
        "registry mutations: {cases} cases, {errors} refused, {:.1?}",
        started.elapsed()
    );
}
