//! Property tests (round trips on random data) and hostile-input tests
//! (mutated real files must give a clear error, never a panic, hang or
//! runaway allocation).

use std::time::Duration;

use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};
use pakrat_uz::{
    compress, decompress, decompress_as, decompress_with, CompressOptions, Limits, UzFormat,
    UzSignature,
};
use proptest::prelude::*;

/// Any single allocation over 256 MiB is refused (and aborts the test run):
/// decoders must size buffers from checked values only.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn all_options() -> Vec<CompressOptions> {
    let mut v = vec![
        CompressOptions::new(UzFormat::Uz, "Prop.u"),
        CompressOptions::new(UzFormat::Uz2, ""),
        CompressOptions::new(UzFormat::Uz3, ""),
    ];
    let mut o = CompressOptions::new(UzFormat::Uz, "Prop.u");
    o.signature = UzSignature::S1234;
    v.push(o);
    v
}

fn check_round_trip(data: &[u8]) -> Result<(), TestCaseError> {
    for o in all_options() {
        let c = compress(data, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // An empty input makes an empty .uz2, which no content sniffing can
        // tell apart from nothing: decode it as what it is.
        let d = if c.is_empty() {
            prop_assert!(data.is_empty() && o.format == UzFormat::Uz2);
            prop_assert!(pakrat_uz::detect(&c).is_none());
            decompress_as(o.format, &c, &Limits::default())
        } else {
            decompress(&c)
        }
        .map_err(|e| TestCaseError::fail(format!("{:?}: {e}", o.format)))?;
        prop_assert_eq!(d.info.format, o.format);
        prop_assert_eq!(&d.data[..], data);
    }
    Ok(())
}

/// Data with long runs (RLE split at 255, MTF zeros) mixed with noise.
fn runs() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec((any::<u8>(), 1usize..700), 0..20).prop_map(|v| {
        v.into_iter()
            .flat_map(|(b, n)| std::iter::repeat_n(b, n))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_round_trip(data in prop::collection::vec(any::<u8>(), 0..3000)) {
        check_round_trip(&data)?;
    }

    #[test]
    fn small_alphabet_round_trip(data in prop::collection::vec(0u8..3, 0..5000)) {
        check_round_trip(&data)?;
    }

    #[test]
    fn runs_round_trip(data in runs()) {
        check_round_trip(&data)?;
    }

    #[test]
    fn random_input_never_panics(data in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = decompress(&data);
        // Also as if it carried each header.
        for head in [&1234i32.to_le_bytes()[..], &5678i32.to_le_bytes()[..]] {
            let mut v = head.to_vec();
            v.push(6);
            v.extend_from_slice(b"abc.u\0");
            v.extend_from_slice(&data);
            let _ = decompress_with(&v, &Limits { max_output: 1 << 24 });
        }
    }
}

#[test]
fn edge_cases_round_trip() {
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        vec![255],
        vec![0; 5],
        vec![0; 255],
        vec![0; 256],
        vec![9; 260],
        vec![1; 100_000],
        (0..=255).collect(),
        (0..=255).rev().collect(),
        // Just over one BWT block and one uz2 chunk.
        (0..0x40000 + 17).map(|i| (i % 251) as u8).collect(),
        (0..32_769).map(|i| (i * 7 % 256) as u8).collect(),
    ];
    for c in &cases {
        check_round_trip(c).unwrap();
    }
}

#[test]
fn larger_than_input_is_possible_and_reported_by_size() {
    // Incompressible data grows under every format; callers compare sizes.
    let mut x = 0x1234_5678u32;
    let noise: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    for o in all_options() {
        let c = compress(&noise, &o).unwrap();
        assert!(c.len() > noise.len(), "{:?}", o.format);
    }
}

/// Every mutation of a real compressed file either decodes or fails with a
/// clear error, within a time limit and without huge allocations.
#[test]
fn mutated_files_fail_cleanly() {
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(uz) = pakrat_testkit::entries("uz") {
        for e in uz.iter().filter(|e| e.size < 100_000) {
            inputs.push((e.local_path.clone(), std::fs::read(&e.path).unwrap()));
        }
    }
    let pkg: Vec<u8> = (0..20_000u32).map(|i| (i * i % 97) as u8).collect();
    for o in all_options() {
        inputs.push((
            format!("synthetic {:?}", o.format),
            compress(&pkg, &o).unwrap(),
        ));
    }
    ALLOC.set_limit(256 << 20);
    let mut cases = 0;
    let mut errors = 0;
    for (name, data) in &inputs {
        for m in mutations(data, 0x5EED, 48) {
            cases += 1;
            let limit = 64 << 20;
            let r = run_case(m.data, Duration::from_secs(20), move |d| {
                decompress_with(d, &Limits { max_output: limit })
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            match r {
                Ok(Ok(())) => {}
                Ok(Err(msg)) => {
                    errors += 1;
                    assert!(
                        msg.contains("offset") || msg.contains("uz"),
                        "{name} / {}: unclear error {msg:?}",
                        m.name
                    );
                }
                Err(Failure::Panic(p)) => panic!("{name} / {}: panic {p}", m.name),
                Err(f) => panic!("{name} / {}: {f:?}", m.name),
            }
        }
    }
    assert!(!ALLOC.refused());
    assert!(cases >= 48 * 4);
    assert!(
        errors > cases / 4,
        "only {errors} of {cases} mutations were rejected"
    );
}
