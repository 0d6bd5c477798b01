//! Zen ↔ legacy conversion speed on the largest corpus container that holds
//! packages, next to extracting the same container.
//!
//! For each of ROUNDS rounds (default 20), in this order:
//! * `extract`: every chunk with a path written to a fresh folder (what
//!   `pakrat extract` does);
//! * `to-legacy`: every package converted and its files written (what
//!   `pakrat zen to-legacy` does: chunk read, conversion, bulk files);
//! * `to-legacy (memory)`: the same without writing;
//! * `from-legacy (memory)`: the legacy packages made above read and
//!   converted back to zen.
//!
//! Wall time and process CPU time per step, packages (or files) per second.
//! Packages that import content the corpus lacks are refused the same way
//! every round and counted apart.
//!
//! Run: `cargo run --release -p pakrat-iostore --example zen_legacy_bench [-- ROUNDS]`
//! (corpus from `PAKRAT_CORPUS` or `../shared/corpus`).

use std::path::PathBuf;
use std::time::Instant;

use pakrat_asset::convert::files::package_to_legacy;
use pakrat_asset::convert::{from_legacy, Packages, ZenTarget};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{load_script_objects, ContainerPackages};
use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::extract::{extract, Job};
use pakrat_iostore::Container;
use pakrat_testkit::bench::cpu_secs;
use rayon::prelude::*;

fn cpu() -> f64 {
    cpu_secs("/proc/self/stat")
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let corpus = std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    // The largest container (by .ucas bytes) among those with packages.
    let mut best: Option<(u64, PathBuf, PathBuf, &str)> = None;
    for (engine, release) in [("UE5_8", "5.8"), ("UE6_0", "6.0")] {
        for cook in ["Tagged", "Unversioned"] {
            for v in ["Uncompressed", "Zlib", "Oodle"] {
                let dir = corpus.join(format!("iostore/cue4parse/{engine}/IoStore/{cook}"));
                let utoc = dir.join(format!("{v}/CUE4ParseFixtures-Minimal-{v}-Windows.utoc"));
                let size = std::fs::metadata(utoc.with_extension("ucas"))
                    .map(|m| m.len())
                    .unwrap_or(0);
                if best.as_ref().is_none_or(|b| size > b.0) {
                    best = Some((size, utoc, dir.join("global.utoc"), release));
                }
            }
        }
    }
    let (size, utoc, global, release) = best.expect("corpus containers");
    let keys = KeyRing::default();
    let c = Container::open(&utoc, &keys).expect("open container");
    let g = Container::open(&global, &keys).expect("open global");
    let cp = ContainerPackages::read(&c).expect("packages");
    let src = Packages::from_containers(&[&cp], Some(load_script_objects(&g).unwrap()));
    let layout = Layout::for_engine(release);
    let n = cp.packages.len();
    println!(
        "{}: {} packages, {} chunks, .ucas {:.1} MiB; {rounds} rounds; {} threads",
        utoc.display(),
        n,
        c.toc().len(),
        size as f64 / (1 << 20) as f64,
        rayon::current_num_threads()
    );
    let tmp = tempfile::tempdir().unwrap();
    let jobs: Vec<Job> = c
        .chunks()
        .into_iter()
        .filter_map(|x| {
            Some(Job {
                name: x.path?,
                index: x.index,
                size: x.size,
            })
        })
        .collect();
    let report = |what: &str, items: usize, unit: &str, wall: f64, cpu: f64| {
        println!(
            "{what:<22} {:>9.0} {unit}/s   wall {:>7.3} s   cpu {:>7.3} s   ({} {unit} per round)",
            (items * rounds) as f64 / wall,
            wall,
            cpu,
            items
        );
    };

    // extract
    let (t, c0) = (Instant::now(), cpu());
    for r in 0..rounds {
        let out = OutputDir::create(tmp.path().join(format!("x{r}")), false).unwrap();
        let s = extract(&c, &jobs, &out, &|_| {});
        assert!(s.errors.is_empty(), "{:?}", s.errors);
    }
    report(
        "extract",
        jobs.len(),
        "files",
        t.elapsed().as_secs_f64(),
        cpu() - c0,
    );
    println!(
        "{:<22} {:>9.0} pkgs/s  (packages in the files extracted per second)",
        "",
        (n * rounds) as f64 / t.elapsed().as_secs_f64()
    );

    // to-legacy, written like the command does
    let (t, c0) = (Instant::now(), cpu());
    let mut refused = 0;
    for r in 0..rounds {
        let out = OutputDir::create(tmp.path().join(format!("l{r}")), false).unwrap();
        refused = cp
            .packages
            .par_iter()
            .map(|e| match package_to_legacy(&c, &cp, e, &src, layout) {
                Ok(lf) => {
                    for (name, data) in &lf.files {
                        out.write(name, data).unwrap();
                    }
                    0
                }
                Err(_) => 1,
            })
            .sum::<usize>();
    }
    report(
        "to-legacy",
        n - refused,
        "pkgs",
        t.elapsed().as_secs_f64(),
        cpu() - c0,
    );

    // to-legacy in memory
    let (t, c0) = (Instant::now(), cpu());
    let mut made = Vec::new();
    for r in 0..rounds {
        let v: Vec<_> = cp
            .packages
            .par_iter()
            .filter_map(|e| package_to_legacy(&c, &cp, e, &src, layout).ok())
            .collect();
        if r == 0 {
            made = v;
        }
    }
    report(
        "to-legacy (memory)",
        made.len(),
        "pkgs",
        t.elapsed().as_secs_f64(),
        cpu() - c0,
    );

    // from-legacy in memory
    let (t, c0) = (Instant::now(), cpu());
    for _ in 0..rounds {
        made.par_iter().for_each(|lf| {
            let (asset, uexp) = (&lf.files[0].1, &lf.files[1].1);
            let p = LegacyPackage::read(asset, layout).unwrap();
            from_legacy(
                &p,
                uexp,
                src.script.as_ref(),
                ZenTarget::for_layout(p.layout),
            )
            .unwrap();
        });
    }
    report(
        "from-legacy (memory)",
        made.len(),
        "pkgs",
        t.elapsed().as_secs_f64(),
        cpu() - c0,
    );
    println!("refused each round (imports the corpus lacks): {refused}");
}
