//! Hostile bytes for the property decoder: deterministic mutations of the
//! export data (`.uexp`) of the fixture packages in the LegacyPak paks, UE
//! 5.8 and 6.0, Tagged and Unversioned (decoded with the fixture
//! mappings), must give a tree or an error for every export: never a
//! panic, hang or runaway allocation.

use std::sync::Arc;
use std::time::Duration;

use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::{decode_export, Asset, NoSchemas, Schemas};
use pakrat_asset::usmap::Usmap;
use pakrat_codec::KeyRing;
use pakrat_pak::Pak;
use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

/// Decode every export of a package; the number of export errors.
fn decode_all(asset: &[u8], uexp: &[u8], layout: Option<Layout>, m: Option<&Usmap>) -> usize {
    let Ok(p) = LegacyPackage::read(asset, layout) else {
        return 1;
    };
    let Ok(a) = Asset::from_legacy(&p, asset, Some(uexp)) else {
        return 1;
    };
    let schemas: &dyn Schemas = match m {
        Some(m) => m,
        None => &NoSchemas,
    };
    (0..a.exports.len())
        .filter(|&i| decode_export(&a, i, schemas).error.is_some())
        .count()
}

#[test]
fn mutated_export_data_decodes_or_fails_cleanly() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    ALLOC.set_limit(256 << 20);
    let (mut cases, mut failed) = (0usize, 0usize);
    for v in ["UE5_8", "UE6_0"] {
        let layout = Layout::for_engine(if v == "UE5_8" { "5.8" } else { "6.0" });
        let usmap = Arc::new(
            Usmap::open(dir.join(format!(
                "pak/cue4parse/{v}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
            )))
            .unwrap(),
        );
        for mode in ["Tagged", "Unversioned"] {
            let pak = Pak::open(
                dir.join(format!(
                    "pak/cue4parse/{v}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
                )),
                &KeyRing::default(),
            )
            .unwrap();
            let read = |p: &str| {
                let e = pak.index.entries.iter().find(|e| e.path == p).unwrap();
                pak.read(e).unwrap()
            };
            let mut packages: Vec<&str> = pak
                .index
                .entries
                .iter()
                .filter_map(|e| {
                    e.path
                        .strip_suffix(".uasset")
                        .or(e.path.strip_suffix(".umap"))
                })
                .collect();
            packages.sort();
            assert_eq!(packages.len(), 5, "{v} {mode}");
            for (n, stem) in packages.iter().enumerate() {
                let main = pak
                    .index
                    .entries
                    .iter()
                    .find(|e| {
                        e.path == format!("{stem}.uasset") || e.path == format!("{stem}.umap")
                    })
                    .map(|e| pak.read(e).unwrap())
                    .unwrap();
                let uexp = read(&format!("{stem}.uexp"));
                let m = (mode == "Unversioned").then(|| Arc::clone(&usmap));
                // The unmutated package decodes with no export error.
                assert_eq!(
                    decode_all(&main, &uexp, layout, m.as_deref()),
                    0,
                    "{v} {mode} {stem}"
                );
                let budget = 64 * (main.len() + uexp.len()) + (16 << 20);
                for mu in mutations(&uexp, 0x9A0B ^ n as u64, 60) {
                    ALLOC.reset_peak();
                    let (main, m) = (main.clone(), m.clone());
                    let r = run_case(mu.data, Duration::from_secs(20), move |d| match decode_all(
                        &main,
                        d,
                        layout,
                        m.as_deref(),
                    ) {
                        0 => Ok(()),
                        n => Err(format!("{n} export errors")),
                    });
                    cases += 1;
                    match r {
                        Ok(Ok(())) => {}
                        Ok(Err(_)) => failed += 1,
                        Err(Failure::Panic(p)) => {
                            panic!("{v} {mode} {stem} / {}: panic {p}", mu.name)
                        }
                        Err(other) => panic!("{v} {mode} {stem} / {}: {other:?}", mu.name),
                    }
                    assert!(
                        ALLOC.peak() <= ALLOC.live() + budget,
                        "{v} {mode} {stem} / {}: peak {} over budget",
                        mu.name,
                        ALLOC.peak()
                    );
                }
            }
        }
    }
    assert!(!ALLOC.refused());
    assert!(cases >= 1000, "{cases}");
    // The mutations must reach the decoder's checks, not only pass through.
    assert!(
        failed > cases / 10,
        "only {failed} of {cases} mutations gave an export error"
    );
    eprintln!("props mutations: {cases} cases, {failed} with export errors");
}
