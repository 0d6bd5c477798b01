//! Property decoding speed on one core: every export of every package of
//! the fixture containers (UE 5.8 and 6.0, Tagged, and Unversioned with
//! the fixture mappings), decoded `ROUNDS` times. Reports packages/s and
//! MB/s of export data for the decoder alone (the chunks are read and the
//! package views built once, outside the timing), and for view + decode.
//!
//! `cargo run --release -p pakrat-asset --example props_bench [CORPUS]`
//! (default `../shared/corpus`). Target (issue 25): ≥ 5,000 packages/s.

use std::path::PathBuf;
use std::time::Instant;

use pakrat_asset::props::{decode_export, Asset, ContainerSource, NoSchemas, Schemas};
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{load_script_objects, ContainerPackages};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

const ROUNDS: usize = 20;

fn main() {
    let corpus = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"));
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .ok();
    for v in ["UE5_8", "UE6_0"] {
        let usmap = Usmap::open(corpus.join(format!(
            "pak/cue4parse/{v}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
        )))
        .expect("mappings");
        for mode in ["Tagged", "Unversioned"] {
            let base = corpus.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
            let keys = KeyRing::default();
            let c = Container::open(
                base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
                &keys,
            )
            .expect("container");
            let global = Container::open(base.join("global.utoc"), &keys).expect("global");
            let script = load_script_objects(&global).expect("script objects");
            let cp = ContainerPackages::read(&c).expect("packages");
            let src = ContainerSource::new(&cp, Some(&script));
            let chunks: Vec<_> = cp
                .packages
                .iter()
                .filter_map(|p| {
                    let z = p.header.as_ref().ok()?;
                    Some((z, p.id, c.read_chunk(p.chunk_index).ok()?))
                })
                .collect();
            let layout =
                pakrat_asset::legacy::Layout::for_engine(if v == "UE5_8" { "5.8" } else { "6.0" });
            let schemas: &dyn Schemas = if mode == "Tagged" { &NoSchemas } else { &usmap };
            // Views once, then decoding alone.
            let t = Instant::now();
            let assets: Vec<Asset<'_>> = chunks
                .iter()
                .map(|(z, id, chunk)| {
                    Asset::from_zen(z, chunk, src.imported(*id), &src, layout).expect("asset")
                })
                .collect();
            let view_s = t.elapsed().as_secs_f64();
            let bytes: usize = assets
                .iter()
                .flat_map(|a| a.exports.iter().map(|e| e.data.len()))
                .sum();
            let exports: usize = assets.iter().map(|a| a.exports.len()).sum();
            let (mut errors, mut props) = (0usize, 0usize);
            let t = Instant::now();
            for _ in 0..ROUNDS {
                errors = 0;
                props = 0;
                for a in &assets {
                    // As `props` does: the package's own types, then the mappings.
                    let with = pakrat_asset::props::schemas_with_package(a, schemas);
                    for i in 0..a.exports.len() {
                        let p = decode_export(a, i, &with);
                        props += p.properties.len();
                        errors += usize::from(p.error.is_some());
                    }
                }
            }
            let s = t.elapsed().as_secs_f64() / ROUNDS as f64;
            println!(
                "{v} {mode:<11}: {} packages, {exports} exports, {:.2} MB export data, {props} top-level properties, {errors} export errors",
                assets.len(),
                bytes as f64 / 1e6,
            );
            println!(
                "    decode: {:.2} ms/round = {:.0} packages/s, {:.1} MB/s; views: {:.2} ms ({:.0} packages/s with views)",
                s * 1e3,
                assets.len() as f64 / s,
                bytes as f64 / 1e6 / s,
                view_s * 1e3,
                assets.len() as f64 / (s + view_s),
            );
        }
    }
}
