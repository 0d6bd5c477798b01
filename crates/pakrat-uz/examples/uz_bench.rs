//! Redirect-compression benchmark over the corpus packages (`ue1/`, `ue2/`).
//!
//! ```text
//! cargo run --release -p pakrat-uz --example uz_bench [-- --formats uz,uz1234,uz2,uz3 --reps N]
//! ```
//!
//! For each format it compresses every package and decompresses the result,
//! once on one thread (a one-thread rayon pool, so the library's own block
//! parallelism is off too) and once on all cores (files in parallel, and the
//! BWT blocks / uz2 chunks inside each file). Rates are MB/s (10^6 bytes) of
//! *uncompressed* package data, for both directions, from wall time; the
//! single-thread rates are also given from the worker thread's CPU time
//! (`/proc/thread-self/schedstat`), which other load on the machine does not
//! distort. Every round trip is checked byte for byte.

use std::time::{Duration, Instant};

use pakrat_uz::{compress, decompress, CompressOptions, UzFormat, UzSignature};
use rayon::prelude::*;

struct Variant {
    label: &'static str,
    opts: fn(&str) -> CompressOptions,
}

fn variants() -> Vec<Variant> {
    vec![
        Variant {
            label: "uz",
            opts: |n| CompressOptions::new(UzFormat::Uz, n),
        },
        Variant {
            label: "uz1234",
            opts: |n| {
                let mut o = CompressOptions::new(UzFormat::Uz, n);
                o.signature = UzSignature::S1234;
                o
            },
        },
        Variant {
            label: "uz2",
            opts: |n| CompressOptions::new(UzFormat::Uz2, n),
        },
        Variant {
            label: "uz3",
            opts: |n| CompressOptions::new(UzFormat::Uz3, n),
        },
    ]
}

/// CPU time used so far by the calling thread (Linux), so that single-thread
/// rates can be given independently of other load on the machine.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

fn mbps(bytes: u64, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn main() {
    let mut formats: Vec<String> = vec!["uz".into(), "uz1234".into(), "uz2".into(), "uz3".into()];
    let mut reps = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--formats" => {
                formats = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(str::to_string)
                    .collect()
            }
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).unwrap_or(1),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let Some(mut entries) = pakrat_testkit::entries("ue1") else {
        eprintln!("no corpus");
        std::process::exit(1);
    };
    entries.extend(pakrat_testkit::entries("ue2").unwrap_or_default());
    let files: Vec<(String, Vec<u8>)> = entries
        .iter()
        .map(|e| {
            let name = e.local_path.rsplit('/').next().unwrap_or("x").to_string();
            (name, std::fs::read(&e.path).expect("read corpus file"))
        })
        .collect();
    let total: u64 = files.iter().map(|(_, d)| d.len() as u64).sum();
    let cores = rayon::current_num_threads();
    println!(
        "corpus: {} packages, {:.1} MB; all cores = {cores} threads; best of {reps}",
        files.len(),
        total as f64 / 1e6
    );
    println!(
        "{:<8} {:>9} {:>14} {:>14} {:>14} {:>14}",
        "format", "ratio", "comp 1 thread", "comp all", "decomp 1 thr", "decomp all"
    );
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    for v in variants()
        .into_iter()
        .filter(|v| formats.iter().any(|f| f == v.label))
    {
        let comp_seq = |files: &[(String, Vec<u8>)]| -> Vec<Vec<u8>> {
            files
                .iter()
                .map(|(n, d)| compress(d, &(v.opts)(n)).expect("compress"))
                .collect()
        };
        let comp_par = |files: &[(String, Vec<u8>)]| -> Vec<Vec<u8>> {
            files
                .par_iter()
                .map(|(n, d)| compress(d, &(v.opts)(n)).expect("compress"))
                .collect()
        };
        let (mut c1, mut cn, mut d1, mut dn) =
            (Duration::MAX, Duration::MAX, Duration::MAX, Duration::MAX);
        let (mut c1_cpu, mut d1_cpu) = (Duration::MAX, Duration::MAX);
        let mut packed = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            let (p, cpu) = one.install(|| {
                let c0 = thread_cpu();
                let p = comp_seq(&files);
                (p, thread_cpu().zip(c0).map(|(b, a)| b - a))
            });
            packed = p;
            c1 = c1.min(t.elapsed());
            if let Some(c) = cpu {
                c1_cpu = c1_cpu.min(c);
            }
            let t = Instant::now();
            let p2 = comp_par(&files);
            cn = cn.min(t.elapsed());
            assert!(p2 == packed, "parallel output differs");
            let t = Instant::now();
            let (out, cpu) = one.install(|| {
                let c0 = thread_cpu();
                let out: Vec<Vec<u8>> = packed
                    .iter()
                    .map(|c| decompress(c).expect("decompress").data)
                    .collect();
                (out, thread_cpu().zip(c0).map(|(b, a)| b - a))
            });
            d1 = d1.min(t.elapsed());
            if let Some(c) = cpu {
                d1_cpu = d1_cpu.min(c);
            }
            let t = Instant::now();
            let out2: Vec<Vec<u8>> = packed
                .par_iter()
                .map(|c| decompress(c).expect("decompress").data)
                .collect();
            dn = dn.min(t.elapsed());
            for ((o, o2), (n, d)) in out.iter().zip(&out2).zip(&files) {
                assert!(o == d && o2 == d, "{n}: round trip differs");
            }
        }
        let packed_total: u64 = packed.iter().map(|p| p.len() as u64).sum();
        println!(
            "{:<8} {:>8.1}% {:>9.2} MB/s {:>9.2} MB/s {:>9.2} MB/s {:>9.2} MB/s   (1 thread by CPU time: comp {:.2}, decomp {:.2} MB/s)",
            v.label,
            packed_total as f64 * 100.0 / total as f64,
            mbps(total, c1),
            mbps(total, cn),
            mbps(total, d1),
            mbps(total, dn),
            mbps(total, c1_cpu),
            mbps(total, d1_cpu)
        );
    }
}
