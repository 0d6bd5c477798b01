//! Package-header listing speed: parse every zen package header of the
//! CUE4Parse fixture containers (header bytes already in memory) many times,
//! then time `ContainerPackages::read` end to end (decode + parse).
//!
//! Run: `cargo run --release -p pakrat-iostore --example packages_bench`
//! (corpus from `PAKRAT_CORPUS` or `../shared/corpus`).

use std::path::PathBuf;
use std::time::Instant;

use pakrat_asset::zen::{self, ContainerPackages};
use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::Container;

fn main() {
    let corpus = std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    let mut keys = KeyRing::new();
    keys.add(
        AesKey::parse("435545345061727365466978747572654145534b657930313233343536373839").unwrap(),
    );
    let mut containers = Vec::new();
    for engine in ["UE5_8", "UE6_0"] {
        for cook in ["Tagged", "Unversioned"] {
            for v in [
                "Oodle",
                "Zlib",
                "Uncompressed",
                "OodleEncrypted",
                "OodlePartitioned",
            ] {
                let p = corpus.join(format!(
                    "iostore/cue4parse/{engine}/IoStore/{cook}/{v}/CUE4ParseFixtures-Minimal-{v}-Windows.utoc"
                ));
                containers.push(Container::open(&p, &keys).expect("open fixture"));
            }
        }
    }
    // 1. Parse only: header bytes in memory.
    let mut inputs = Vec::new();
    for c in &containers {
        let all = ContainerPackages::read(c).expect("read packages");
        for p in &all.packages {
            let data = c.read_chunk(p.chunk_index).unwrap();
            let n = p.header.as_ref().unwrap().header_size as usize;
            inputs.push((
                data[..n].to_vec(),
                all.header.store_entry(p.id).cloned(),
                all.layout,
            ));
        }
    }
    let bytes: usize = inputs.iter().map(|i| i.0.len()).sum();
    let rounds = 200;
    let t = Instant::now();
    let mut exports = 0usize;
    for _ in 0..rounds {
        for (d, s, l) in &inputs {
            exports += zen::parse(d, *l, s.as_ref()).unwrap().exports.len();
        }
    }
    let dt = t.elapsed().as_secs_f64();
    let n = (inputs.len() * rounds) as f64;
    println!(
        "parse: {} headers x {rounds}: {:.0} headers/s, {:.1} MB/s of header bytes ({exports} exports)",
        inputs.len(),
        n / dt,
        (bytes * rounds) as f64 / dt / 1e6
    );
    // 2. End to end per container (block decode of the header blocks + parse).
    let t = Instant::now();
    let mut pk = 0;
    for _ in 0..10 {
        for c in &containers {
            pk += ContainerPackages::read(c).unwrap().packages.len();
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "list: {} containers x 10: {:.1} ms per container, {:.0} packages/s ({} threads)",
        containers.len(),
        dt * 1e3 / (containers.len() * 10) as f64,
        pk as f64 / dt,
        rayon::current_num_threads()
    );
}
