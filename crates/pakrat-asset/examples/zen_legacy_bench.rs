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
//! Run: `cargo run --release -p pakrat-asset --example zen_legacy_bench [-- ROUNDS]`
//! (corpus from `PAKRAT_CORPUS` or `../shared/corpus`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use pakrat_asset::convert::files::{package_to_legacy, LegacyFiles};
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
    let (size, utoc, global, release) = largest_container(&corpus);
    let keys = KeyRing::default();
    let c = Container::open(&utoc, &keys).expect("open container");
    let g = Container::open(&global, &keys).expect("open global");
    let cp = ContainerPackages::read(&c).expect("packages");
    let src = Packages::from_containers(&[&cp], Some(load_script_objects(&g).unwrap()));
    println!(
        "{}: {} packages, {} chunks, .ucas {:.1} MiB; {rounds} rounds; {} threads",
        utoc.display(),
        cp.packages.len(),
        c.toc().len(),
        size as f64 / (1 << 20) as f64,
        rayon::current_num_threads()
    );
    let b = Bench {
        rounds,
        c: &c,
        cp: &cp,
        src: &src,
        layout: Layout::for_engine(release),
        tmp: tempfile::tempdir().unwrap(),
    };
    b.extract();
    let refused = b.to_legacy_written();
    let made = b.to_legacy_in_memory();
    b.back_to_zen_in_memory(&made);
    println!("refused each round (imports the corpus lacks): {refused}");
}

/// The largest container (by .ucas bytes) among those with packages: its
/// size, .utoc, global.utoc and engine release.
fn largest_container(corpus: &Path) -> (u64, PathBuf, PathBuf, &'static str) {
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
    best.expect("corpus containers")
}

/// What every step runs on.
struct Bench<'a> {
    rounds: usize,
    c: &'a Container,
    cp: &'a ContainerPackages,
    src: &'a Packages,
    layout: Option<Layout>,
    tmp: tempfile::TempDir,
}

impl Bench<'_> {
    fn report(&self, what: &str, items: usize, unit: &str, t: Instant, c0: f64) {
        let (wall, cpu) = (t.elapsed().as_secs_f64(), cpu() - c0);
        println!(
            "{what:<22} {:>9.0} {unit}/s   wall {:>7.3} s   cpu {:>7.3} s   ({} {unit} per round)",
            (items * self.rounds) as f64 / wall,
            wall,
            cpu,
            items
        );
    }

    /// Every chunk with a path, written to a fresh folder each round.
    fn extract(&self) {
        let jobs: Vec<Job> = self
            .c
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
        let (t, c0) = (Instant::now(), cpu());
        for r in 0..self.rounds {
            let out = OutputDir::create(self.tmp.path().join(format!("x{r}")), false).unwrap();
            let s = extract(self.c, &jobs, &out, &|_| {});
            assert!(s.errors.is_empty(), "{:?}", s.errors);
        }
        self.report("extract", jobs.len(), "files", t, c0);
        println!(
            "{:<22} {:>9.0} pkgs/s  (packages in the files extracted per second)",
            "",
            (self.cp.packages.len() * self.rounds) as f64 / t.elapsed().as_secs_f64()
        );
    }

    /// to-legacy, written like the command does; the packages refused.
    fn to_legacy_written(&self) -> usize {
        let (t, c0) = (Instant::now(), cpu());
        let mut refused = 0;
        for r in 0..self.rounds {
            let out = OutputDir::create(self.tmp.path().join(format!("l{r}")), false).unwrap();
            refused = self
                .cp
                .packages
                .par_iter()
                .map(
                    |e| match package_to_legacy(self.c, self.cp, e, self.src, self.layout) {
                        Ok(lf) => {
                            for (name, data) in &lf.files {
                                out.write(name, data).unwrap();
                            }
                            0
                        }
                        Err(_) => 1,
                    },
                )
                .sum::<usize>();
        }
        self.report("to-legacy", self.cp.packages.len() - refused, "pkgs", t, c0);
        refused
    }

    /// to-legacy in memory; the first round's packages.
    fn to_legacy_in_memory(&self) -> Vec<LegacyFiles<'_>> {
        let (t, c0) = (Instant::now(), cpu());
        let mut made = Vec::new();
        for r in 0..self.rounds {
            let v: Vec<_> = self
                .cp
                .packages
                .par_iter()
                .filter_map(|e| package_to_legacy(self.c, self.cp, e, self.src, self.layout).ok())
                .collect();
            if r == 0 {
                made = v;
            }
        }
        self.report("to-legacy (memory)", made.len(), "pkgs", t, c0);
        made
    }

    /// The legacy packages `made` read and converted back to zen.
    fn back_to_zen_in_memory(&self, made: &[LegacyFiles]) {
        let (t, c0) = (Instant::now(), cpu());
        for _ in 0..self.rounds {
            made.par_iter().for_each(|lf| {
                let (asset, uexp) = (&lf.files[0].1, &lf.files[1].1);
                let p = LegacyPackage::read(asset, self.layout).unwrap();
                from_legacy(
                    &p,
                    uexp,
                    self.src.script.as_ref(),
                    ZenTarget::for_layout(p.layout),
                )
                .unwrap();
            });
        }
        self.report("from-legacy (memory)", made.len(), "pkgs", t, c0);
    }
}
