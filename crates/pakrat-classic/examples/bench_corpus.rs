//! Benchmark over every UE1/UE2 package of the shared corpus:
//! tables parsed per second and property bytes decoded per second, single-
//! and multi-threaded (rayon), next to the time `cat` needs to read the
//! same files.
//!
//! Run: `cargo run --release -p pakrat-classic --example bench_corpus [ROUNDS]`
//! (the corpus is found like the tests find it: `PAKRAT_CORPUS` or
//! `../shared/corpus`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pakrat_classic::props::read_object;
use pakrat_classic::Package;
use pakrat_io::Source;
use rayon::prelude::*;

#[derive(Default, Clone, Copy)]
struct Tally {
    packages: u64,
    entries: u64,
    prop_bytes: u64,
    props: u64,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            packages: self.packages + o.packages,
            entries: self.entries + o.entries,
            prop_bytes: self.prop_bytes + o.prop_bytes,
            props: self.props + o.props,
        }
    }
}

/// Open + parse header and tables (the file is mapped, only what the tables
/// need is touched).
fn tables(path: &PathBuf) -> Tally {
    let src = Source::open(path).expect("open");
    let p = Package::parse(&src).expect("parse");
    Tally {
        packages: 1,
        entries: (p.names.len() + p.imports.len() + p.exports.len()) as u64,
        ..Default::default()
    }
}

/// Open + parse + decode the state frame and tagged properties of every export.
fn properties(path: &PathBuf) -> Tally {
    let src = Source::open(path).expect("open");
    let p = Package::parse(&src).expect("parse");
    let mut t = Tally {
        packages: 1,
        ..Default::default()
    };
    for i in 0..p.exports.len() {
        if let Ok(o) = read_object(&p, i) {
            t.prop_bytes += o.header_len as u64;
            t.props += o.properties.len() as u64;
        }
    }
    t
}

fn best_of<F: FnMut() -> Tally>(rounds: usize, mut f: F) -> (Duration, Tally) {
    let mut best = Duration::MAX;
    let mut tally = Tally::default();
    for _ in 0..rounds {
        let t0 = Instant::now();
        tally = f();
        best = best.min(t0.elapsed());
    }
    (best, tally)
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("corpus manifest");
    let files: Vec<PathBuf> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            let kind = f.next()?;
            let path = f.next()?;
            let name = path.rsplit('/').next()?;
            ((kind == "ue1" || kind == "ue2")
                && !name.starts_with("FUZZ_")
                && !name.starts_with("BADMAGIC_"))
            .then(|| dir.join(path))
        })
        .collect();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    println!(
        "corpus: {} UE1/UE2 packages, {:.1} MiB; best of {rounds} rounds, {} rayon threads",
        files.len(),
        bytes as f64 / 1048576.0,
        rayon::current_num_threads()
    );

    // Warm the page cache, then time `cat` of the same files.
    let cat = || {
        let st = std::process::Command::new("cat")
            .args(&files)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run cat");
        assert!(st.success());
        Tally::default()
    };
    cat();
    let (t_cat, _) = best_of(rounds, cat);
    println!(
        "cat (all files > /dev/null)      {:>9.2} ms  {:>8.0} MiB/s",
        t_cat.as_secs_f64() * 1e3,
        bytes as f64 / 1048576.0 / t_cat.as_secs_f64()
    );

    let report = |label: &str, d: Duration, t: Tally, props: bool| {
        let s = d.as_secs_f64();
        if props {
            println!(
                "{label:<32} {:>9.2} ms  {:>8.1} MiB/s of property data ({} bytes, {:.0} properties/s)  {:.2}x cat",
                s * 1e3,
                t.prop_bytes as f64 / 1048576.0 / s,
                t.prop_bytes,
                t.props as f64 / s,
                t_cat.as_secs_f64() / s
            );
        } else {
            println!(
                "{label:<32} {:>9.2} ms  {:>8.0} packages/s  {:>10.0} table entries/s  {:.2}x cat",
                s * 1e3,
                t.packages as f64 / s,
                t.entries as f64 / s,
                t_cat.as_secs_f64() / s
            );
        }
    };
    let (d, t) = best_of(rounds, || {
        files
            .iter()
            .map(tables)
            .fold(Tally::default(), |a, b| a + b)
    });
    report("tables, 1 thread", d, t, false);
    let (d, t) = best_of(rounds, || {
        files
            .par_iter()
            .map(tables)
            .reduce(Tally::default, |a, b| a + b)
    });
    report("tables, rayon", d, t, false);
    let (d, t) = best_of(rounds, || {
        files
            .iter()
            .map(properties)
            .fold(Tally::default(), |a, b| a + b)
    });
    report("tables + properties, 1 thread", d, t, true);
    let (d, t) = best_of(rounds, || {
        files
            .par_iter()
            .map(properties)
            .reduce(Tally::default, |a, b| a + b)
    });
    report("tables + properties, rayon", d, t, true);
}
