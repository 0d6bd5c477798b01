//! Scan-rate benchmark: `cargo run --release -p pakrat-system --example scan_bench [DIR] [ROUNDS]`.
//!
//! Scans DIR (default: the corpus's `ue1` and `ue2` folders) ROUNDS times
//! (default 5) with all cores, then once on one thread, and prints
//! packages/s and MB/s (file bytes of the packages read, 10^6 bytes per MB).
//! The first round warms the page cache and is not counted.

use std::path::PathBuf;
use std::time::Instant;

use pakrat_system::scan;

fn main() {
    let mut args = std::env::args().skip(1);
    let dirs: Vec<PathBuf> = match args.next() {
        Some(d) => vec![PathBuf::from(d)],
        None => {
            let Some(c) = pakrat_testkit::corpus_dir() else {
                eprintln!("no corpus; pass a folder");
                return;
            };
            vec![c.join("ue1"), c.join("ue2")]
        }
    };
    let rounds: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let run = |label: &str, rounds: u32| {
        let mut pk = 0usize;
        let mut bytes = 0u64;
        let mut secs = 0f64;
        for round in 0..=rounds {
            let t = Instant::now();
            let mut p = 0;
            let mut b = 0;
            for d in &dirs {
                let r = scan::scan(d, &|_| {}).expect("scan");
                p += r.packages.len();
                b += r.bytes;
            }
            if round > 0 {
                secs += t.elapsed().as_secs_f64();
                pk += p;
                bytes += b;
            }
        }
        println!(
            "{label}: {} packages, {:.1} MB per round; {:.0} packages/s, {:.0} MB/s ({rounds} rounds, {:.3} s)",
            pk / rounds as usize,
            bytes as f64 / rounds as f64 / 1e6,
            pk as f64 / secs,
            bytes as f64 / 1e6 / secs,
            secs
        );
    };
    run(
        &format!("all cores ({})", rayon::current_num_threads()),
        rounds,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    pool.install(|| run("1 thread", rounds));
}
