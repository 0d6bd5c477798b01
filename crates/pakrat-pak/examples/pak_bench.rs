//! Pak benchmark (issue 10; run with `--release`):
//!
//! ```text
//! cargo run --release -p pakrat-iostore --example pak_bench [-- GIB]
//! ```
//!
//! Builds three paks of at least GIB GiB (default 2) from the real files of
//! `../shared/corpus` (every file, repeated under `rK/` prefixes until the
//! size is reached): Zlib with the default (fast, libdeflate) encoder, Zlib as
//! UnrealPak makes it (`zlib-unrealpak`: the reference zlib at level 6), and
//! stored; all with 64 KiB blocks. Reports, each in a fresh process with 1 and 2 threads:
//! creating the pak (next to `cat` of the same files into one file), and
//! extracting it (next to the single-thread zlib decode speed of its own
//! blocks, and `cat` of the pak for the stored one), with CPU seconds and
//! peak RSS (`VmHWM`), split into anonymous memory (`RssAnon`, what pakrat
//! allocates) and file-backed pages (`RssFile`: the mapped pak, released as
//! the work passes it, and the binary), both peaks sampled every 5 ms.
//! Everything is written under `BENCH_DIR` (default: the temp folder) and
//! deleted at the end. `pak_bench build OUT.pak GIB zlib|zlib-unrealpak|none` keeps one
//! pak; `pak_bench decode OUT.pak` then times only the pipeline without
//! writing files (SHA-1 check and decoding), next to the codec alone.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pakrat_testkit::bench::cpu_secs;

use pakrat_codec::compress::{decompress, Method, ZlibEncoder};
use pakrat_codec::KeyRing;
use pakrat_pak::{self as pak, write, Pak};

/// Every corpus file, repeated under `rK/` until `bytes` are reached.
fn inputs(root: &Path, bytes: u64) -> Vec<write::Input> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((rel, p, e.metadata().unwrap().len()));
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    let mut total = 0;
    let mut k = 0;
    while total < bytes {
        for (rel, p, n) in &files {
            out.push(write::Input {
                path: format!("r{k}/{rel}"),
                source: p.clone(),
            });
            total += n;
        }
        k += 1;
    }
    out
}

/// Child process: `create GIB OUT METHOD`, `extract PAK OUT`, `decode PAK`
/// or `verify PAK`; prints `seconds bytes peak_anon_kib cpu_seconds
/// peak_file_kib vm_hwm_kib`.
fn worker(args: &[String]) {
    let threads: usize = args[2].parse().unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let (stop, h) = pakrat_testkit::bench::rss_sampler();
    let start = Instant::now();
    let bytes = match args[1].as_str() {
        "create" => {
            let root = pakrat_testkit::corpus_dir().unwrap();
            let ins = inputs(
                &root,
                (args[3].parse::<f64>().unwrap() * (1u64 << 30) as f64) as u64,
            );
            let o = write::Options {
                version: 11,
                mount_point: "../../../Bench/".into(),
                compression: if args[5].starts_with("zlib") {
                    Method::Zlib
                } else {
                    Method::None
                },
                zlib: if args[5] == "zlib-unrealpak" {
                    ZlibEncoder::UnrealPak
                } else {
                    ZlibEncoder::Fast
                },
                ..write::Options::default()
            };
            let f = std::fs::File::create(&args[4]).unwrap();
            let w = write::write(&ins, &o, &f, "bench.pak").unwrap();
            f.sync_all().ok();
            w.input_bytes
        }
        "decode" => {
            // The extraction pipeline without writing files: SHA-1 check
            // and decoding of every file, in parallel.
            use rayon::prelude::*;
            let p = Pak::open(&args[3], &KeyRing::new()).unwrap();
            p.index
                .entries
                .par_iter()
                .map(|e| {
                    assert_eq!(p.stored_hash(e).unwrap(), p.recorded_hash(e).unwrap());
                    let mut n = 0u64;
                    p.read_to(e, &mut |b| {
                        n += b.len() as u64;
                        Ok(())
                    })
                    .unwrap();
                    n
                })
                .sum()
        }
        "verify" => {
            // `pakrat verify`: headers, SHA-1 and decoding of every file.
            let p = Pak::open(&args[3], &KeyRing::new()).unwrap();
            let r = pak::verify::verify(&p);
            assert!(r.ok(), "{:?}", &r.problems[..r.problems.len().min(3)]);
            r.bytes
        }
        _ => {
            let p = Pak::open(&args[3], &KeyRing::new()).unwrap();
            let sel: Vec<&pak::PakEntry> = p.index.entries.iter().collect();
            let out = pakrat_io::fsutil::OutputDir::create(&args[4], false).unwrap();
            let s =
                pak::extract::extract(&p, &sel, &out, &|_| {}, &pak::extract::Options::default());
            assert!(
                s.errors.is_empty(),
                "{:?}",
                &s.errors[..s.errors.len().min(3)]
            );
            s.bytes
        }
    };
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = h.join().unwrap();
    println!(
        "{secs} {bytes} {} {} {} {}",
        peak.anon,
        cpu_secs("/proc/self/stat"),
        peak.file,
        pakrat_testkit::bench::status_kib("VmHWM:")
    );
}

/// Peak memory of a worker, in KiB.
struct Rss {
    anon: u64,
    file: u64,
    hwm: u64,
}

impl std::fmt::Display for Rss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "peak RSS {:.1} MiB (anonymous {:.1} MiB, file-backed {:.1} MiB)",
            self.hwm as f64 / 1024.0,
            self.anon as f64 / 1024.0,
            self.file as f64 / 1024.0
        )
    }
}

fn run(args: &[&str]) -> (f64, u64, Rss, f64) {
    let o = Command::new(std::env::current_exe().unwrap())
        .arg("worker")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    let v: Vec<&str> = s.split_whitespace().collect();
    (
        v[0].parse().unwrap(),
        v[1].parse().unwrap(),
        Rss {
            anon: v[2].parse().unwrap(),
            file: v[4].parse().unwrap(),
            hwm: v[5].parse().unwrap(),
        },
        v[3].parse().unwrap(),
    )
}

/// Single-thread zlib decode speed (wall, per CPU second) of a pak's blocks.
fn codec_speed(p: &Pak) -> (f64, f64) {
    let mut blocks = Vec::new();
    for e in p.index.entries.iter().filter(|e| e.compressed()).take(2000) {
        let mut left = e.uncompressed_size;
        for b in &e.blocks {
            let n = left.min(u64::from(e.block_size));
            left -= n;
            blocks.push((&p.bytes()[b.start as usize..b.end as usize], n as usize));
        }
    }
    let mut out = vec![0u8; 1 << 16];
    let cpu0 = cpu_secs("/proc/thread-self/stat");
    let start = Instant::now();
    let mut bytes = 0u64;
    while start.elapsed().as_secs_f64() < 3.0 {
        for (b, n) in &blocks {
            decompress(&Method::Zlib, b, &mut out[..*n]).unwrap();
            bytes += *n as u64;
        }
    }
    let cpu = cpu_secs("/proc/thread-self/stat") - cpu0;
    (
        bytes as f64 / start.elapsed().as_secs_f64(),
        bytes as f64 / cpu.max(0.01),
    )
}

fn gbs(b: f64) -> String {
    format!("{:.3} GB/s", b / 1e9)
}

fn cat_speed(files: &[PathBuf], out: &Path) -> f64 {
    let start = Instant::now();
    let mut bytes = 0u64;
    let mut w = std::fs::File::create(out).unwrap();
    for f in files {
        let mut r = std::fs::File::open(f).unwrap();
        bytes += std::io::copy(&mut r, &mut w).unwrap();
    }
    w.sync_all().ok();
    let r = bytes as f64 / start.elapsed().as_secs_f64();
    std::fs::remove_file(out).unwrap();
    r
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("worker") {
        worker(&args[1..]);
        return;
    }
    if args.get(1).map(String::as_str) == Some("decode") {
        // pak_bench decode PAK: only the decode rows, on a pak built before
        // (keep one with `pak_bench build OUT.pak GIB zlib|none`).
        for threads in [1usize, 2] {
            let (s, b, anon, cpu) = run(&["decode", &threads.to_string(), &args[2], "-"]);
            println!(
                "decode {threads} thread(s): {:.2} s, {} of output, {:.1} CPU-s ({} per CPU-s), {anon}",
                s,
                gbs(b as f64 / s),
                cpu,
                gbs(b as f64 / cpu.max(0.01))
            );
        }
        let p = Pak::open(&args[2], &KeyRing::new()).unwrap();
        let (wall, per_cpu) = codec_speed(&p);
        println!(
            "zlib decode, 1 thread: {} ({} per CPU-s)",
            gbs(wall),
            gbs(per_cpu)
        );
        return;
    }
    if args.get(1).map(String::as_str) == Some("build") {
        let (s, b, _, cpu) = run(&["create", "2", &args[3], &args[2], &args[4]]);
        println!(
            "built {}: {:.2} s, {b} bytes of input, {cpu:.1} CPU-s",
            args[2], s
        );
        return;
    }
    let gib: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let Some(root) = pakrat_testkit::corpus_dir() else {
        eprintln!("no corpus");
        return;
    };
    let tmp = tempfile::Builder::new()
        .prefix("pakrat-pak-bench-")
        .tempdir_in(
            std::env::var_os("BENCH_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
        )
        .unwrap();
    let ins = inputs(&root, (gib * (1u64 << 30) as f64) as u64);
    let sources: Vec<PathBuf> = ins.iter().map(|i| i.source.clone()).collect();
    let total: u64 = sources
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    println!(
        "input: {} files, {total} bytes (the corpus files, repeated)",
        ins.len()
    );
    let cat_in = cat_speed(&sources, &tmp.path().join("cat.out"));
    println!("cat of the input files into one file: {}", gbs(cat_in));
    for method in ["zlib", "zlib-unrealpak", "none"] {
        let pakf = tmp.path().join(format!("{method}.pak"));
        for threads in [1usize, 2] {
            let _ = std::fs::remove_file(&pakf);
            let (s, b, anon, cpu) = run(&[
                "create",
                &threads.to_string(),
                &gib.to_string(),
                pakf.to_str().unwrap(),
                method,
            ]);
            println!(
                "create {method:14} {threads} thread(s): {:.2} s, {} of input, {:.1} CPU-s, {anon}",
                s,
                gbs(b as f64 / s),
                cpu
            );
        }
        let len = std::fs::metadata(&pakf).unwrap().len();
        let _ = Command::new("cat")
            .arg(&pakf)
            .stdout(std::process::Stdio::null())
            .status();
        let reference = if method == "none" {
            format!(
                "cat (pak -> file): {}",
                gbs(cat_speed(
                    std::slice::from_ref(&pakf),
                    &tmp.path().join("c.out")
                ))
            )
        } else {
            let p = Pak::open(&pakf, &KeyRing::new()).unwrap();
            let (wall, per_cpu) = codec_speed(&p);
            format!(
                "zlib decode, 1 thread: {} ({} per CPU-s)",
                gbs(wall),
                gbs(per_cpu)
            )
        };
        println!("pak {method}: {len} bytes; {reference}");
        for threads in [1usize, 2] {
            let out = tmp.path().join(format!("x-{method}-{threads}"));
            let (s, b, anon, cpu) = run(&[
                "extract",
                &threads.to_string(),
                pakf.to_str().unwrap(),
                out.to_str().unwrap(),
            ]);
            println!(
                "extract {method:14} {threads} thread(s): {:.2} s, {} of output, {:.1} CPU-s ({} of output per CPU-s), {anon}",
                s,
                gbs(b as f64 / s),
                cpu,
                gbs(b as f64 / cpu.max(0.01))
            );
            std::fs::remove_dir_all(&out).unwrap();
        }
        let (s, b, anon, cpu) = run(&["verify", "2", pakf.to_str().unwrap()]);
        println!(
            "verify  {method:4} 2 thread(s): {:.2} s, {} decoded, {:.1} CPU-s, {anon}",
            s,
            gbs(b as f64 / s),
            cpu
        );
        std::fs::remove_file(&pakf).unwrap();
    }
}
