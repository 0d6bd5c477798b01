//! IoStore writer benchmark (issue 11; run with `--release`):
//!
//! ```text
//! cargo run --release -p pakrat-iostore --example iostore_write_bench [-- GIB]
//! ```
//!
//! Builds containers of at least GIB GiB (default 2) from the real files of
//! `../shared/corpus` (every file, repeated under `rK/` prefixes until the
//! size is reached), stored, Zlib and LZ4, each in a fresh process with 1
//! and 2 threads. Reports wall-clock throughput, CPU seconds and peak
//! anonymous memory (`RssAnon`; mapped input files are file-backed), next
//! to the codec alone (single-thread compression of the same 64 KiB blocks,
//! per CPU second) and `cat` of the same files into one file. The CPU ratio
//! is the job's CPU seconds over the codec's for the same bytes. Output goes
//! under `BENCH_DIR` (default: the temp folder) and is deleted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pakrat_testkit::bench::cpu_secs;

use pakrat_codec::compress::{compress, Method};
use pakrat_iostore::toc::ChunkId;
use pakrat_iostore::write::{self, ChunkSpec, Data, Options};

/// Every corpus file (path, size), sorted.
fn corpus_files() -> Vec<(String, PathBuf, u64)> {
    let root = pakrat_testkit::corpus_dir().expect("the corpus");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((rel, p, e.metadata().unwrap().len()));
            }
        }
    }
    files.sort();
    files
}

/// Chunks of the corpus files repeated until `bytes`.
fn chunks(bytes: u64) -> Vec<ChunkSpec> {
    let files = corpus_files();
    let mut out = Vec::new();
    let (mut total, mut k) = (0u64, 0u64);
    while total < bytes {
        for (rel, p, n) in &files {
            let id = pakrat_codec::names::cityhash64(format!("r{k}/{rel}").as_bytes());
            out.push(ChunkSpec {
                id: ChunkId::new(id, 0, 0, 2),
                path: Some(format!("../../../Bench/r{k}/{rel}")),
                data: Data::File(p.clone()),
                size: *n,
                memory_mapped: false,
            });
            total += n;
        }
        k += 1;
    }
    out
}

fn method(m: &str) -> Method {
    match m {
        "zlib" => Method::Zlib,
        "lz4" => Method::Lz4,
        _ => Method::None,
    }
}

/// Child: `write THREADS GIB METHOD OUT.utoc`; prints
/// `seconds bytes peak_anon_kib cpu_seconds`.
fn worker(args: &[String]) {
    let threads: usize = args[1].parse().unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let specs = chunks((args[2].parse::<f64>().unwrap() * (1u64 << 30) as f64) as u64);
    let (stop, sampler) = pakrat_testkit::bench::anon_sampler();
    let utoc = PathBuf::from(&args[4]);
    let o = Options {
        compression: method(&args[3]),
        container_id: 1,
        ..Options::default()
    };
    let start = Instant::now();
    let mut open = |p: u32| -> pakrat_io::Result<std::fs::File> {
        let path = pakrat_iostore::container::partition_path(&utoc, p);
        std::fs::File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| pakrat_io::Error::io(&path, e))
    };
    let w = write::write(&specs, None, &o, &mut open, &|_| {}).unwrap();
    std::fs::write(&utoc, &w.utoc).unwrap();
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let anon = sampler.join().unwrap();
    println!(
        "{secs} {} {anon} {}",
        w.input_bytes,
        cpu_secs("/proc/self/stat")
    );
}

fn run(args: &[&str]) -> (f64, u64, u64, f64) {
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
        v[2].parse().unwrap(),
        v[3].parse().unwrap(),
    )
}

/// Single-thread compression of 64 KiB blocks of the corpus files, in
/// bytes per CPU second (up to 256 MiB or 5 s).
fn codec_rate(m: &Method) -> f64 {
    if *m == Method::None {
        return f64::INFINITY;
    }
    let mut blocks = Vec::new();
    let mut total = 0usize;
    for (_, p, _) in corpus_files() {
        let data = std::fs::read(p).unwrap();
        for b in data.chunks(1 << 16) {
            blocks.push(b.to_vec());
            total += b.len();
        }
        if total > 256 << 20 {
            break;
        }
    }
    let cpu0 = cpu_secs("/proc/thread-self/stat");
    let start = Instant::now();
    let mut bytes = 0u64;
    for b in &blocks {
        std::hint::black_box(compress(m, None, b).unwrap());
        bytes += b.len() as u64;
        if start.elapsed().as_secs_f64() > 5.0 {
            break;
        }
    }
    bytes as f64 / (cpu_secs("/proc/thread-self/stat") - cpu0).max(0.01)
}

fn cat_speed(gib: f64, out: &Path) -> f64 {
    let specs = chunks((gib * (1u64 << 30) as f64) as u64);
    let start = Instant::now();
    let mut bytes = 0u64;
    let mut w = std::fs::File::create(out).unwrap();
    for s in &specs {
        if let Data::File(p) = &s.data {
            bytes += std::io::copy(&mut std::fs::File::open(p).unwrap(), &mut w).unwrap();
        }
    }
    w.sync_all().ok();
    let r = bytes as f64 / start.elapsed().as_secs_f64();
    std::fs::remove_file(out).unwrap();
    r
}

fn gbs(b: f64) -> String {
    format!("{:.3} GB/s", b / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("worker") {
        worker(&args[1..]);
        return;
    }
    let gib: f64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2.0);
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let work = dir.join(format!("pakrat-iostore-write-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    println!(
        "cat of the same files: {}",
        gbs(cat_speed(gib, &work.join("cat.bin")))
    );
    for m in ["none", "lz4", "zlib"] {
        let rate = codec_rate(&method(m));
        if rate.is_finite() {
            println!("{m}: codec alone, 1 thread: {} per CPU-s", gbs(rate));
        }
        for threads in [1usize, 2] {
            let utoc = work.join(format!("{m}{threads}.utoc"));
            let (s, b, anon, cpu) = run(&[
                &threads.to_string(),
                &gib.to_string(),
                m,
                utoc.to_str().unwrap(),
            ]);
            let ratio = if rate.is_finite() {
                format!(", CPU ratio {:.2}", cpu / (b as f64 / rate))
            } else {
                String::new()
            };
            println!(
                "{m}, {threads} thread(s): {:.1} GiB in {s:.2} s = {}, {cpu:.1} CPU-s{ratio}, peak anon {:.1} MiB",
                b as f64 / (1u64 << 30) as f64,
                gbs(b as f64 / s),
                anon as f64 / 1024.0
            );
            for e in std::fs::read_dir(&work).unwrap().flatten() {
                if e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{m}{threads}"))
                {
                    std::fs::remove_file(e.path()).ok();
                }
            }
        }
    }
    std::fs::remove_dir_all(&work).ok();
}
