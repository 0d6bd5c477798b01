//! What the files alone cost (issue 31 items 17 and 18): the floor under
//! any tool that writes or reads the same files on this machine.
//!
//! ```text
//! cargo run --release -p pakrat-io --example files_floor -- write DIR [RUNS]
//! cargo run --release -p pakrat-io --example files_floor -- read DIR [RUNS]
//! ```
//!
//! `write` reads every file under `DIR` into memory (not timed), then
//! writes them again `RUNS` times (default 5) into a new folder beside
//! `DIR`, as `extract` and `zen to-legacy` do: the folders first, then each
//! file created with `O_EXCL`, written whole and closed, the files shared
//! by one thread per core. No parsing, no hashing, no conversion: what is
//! left is the kernel's work for the new files and the copy of their bytes.
//!
//! `read` reads every file under `DIR` (open, read whole, close) on one
//! thread per core while one more thread writes a single file of the same
//! total size in 1 MiB pieces, as `zen from-legacy --into` reads a legacy
//! folder and writes one `.ucas`.
//!
//! Each run prints its wall time and CPU-seconds (user + system of this
//! process), then the medians. Compare them with a tool's time on the same
//! files: the difference is the most that tool's own work can be cut to.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Every regular file under `dir`, relative, in walk order.
fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .expect("read the folder")
        .map(|e| e.expect("read an entry"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let r = rel.join(e.file_name());
        let t = e.file_type().expect("file type");
        if t.is_dir() {
            walk(dir, &r, out);
        } else if t.is_file() {
            out.push(r);
        }
    }
}

/// User + system CPU-seconds of this process so far (`getrusage`).
#[cfg(target_os = "linux")]
fn cpu() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// Not measured off Linux.
#[cfg(not(target_os = "linux"))]
fn cpu() -> f64 {
    f64::NAN
}

/// Run `work` on one thread per core, each taking the next index.
fn parallel(n: usize, work: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |t| t.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                work(i);
            });
        }
    });
}

/// One `write` run into `out`: (wall, CPU-s).
fn write_run(files: &[(PathBuf, Vec<u8>)], dirs: &[PathBuf], out: &Path) -> (f64, f64) {
    let (c0, t0) = (cpu(), Instant::now());
    std::fs::create_dir(out).expect("create the output folder");
    for d in dirs {
        std::fs::create_dir_all(out.join(d)).expect("create a folder");
    }
    parallel(files.len(), |i| {
        let (rel, data) = &files[i];
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(out.join(rel))
            .expect("create a file");
        f.write_all(data).expect("write a file");
    });
    let r = (t0.elapsed().as_secs_f64(), cpu() - c0);
    std::fs::remove_dir_all(out).expect("remove the output folder");
    r
}

/// One `read` run: (wall, CPU-s).
fn read_run(dir: &Path, files: &[PathBuf], total: u64, out: &Path) -> (f64, f64) {
    let (c0, t0) = (cpu(), Instant::now());
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut f = std::fs::File::create(out).expect("create the output file");
            let piece = vec![0x5au8; 1 << 20];
            let mut left = total;
            while left > 0 {
                let n = left.min(piece.len() as u64) as usize;
                f.write_all(&piece[..n]).expect("write");
                left -= n as u64;
            }
        });
        parallel(files.len(), |i| {
            let mut f = std::fs::File::open(dir.join(&files[i])).expect("open a file");
            let mut v = Vec::new();
            f.read_to_end(&mut v).expect("read a file");
        });
    });
    let r = (t0.elapsed().as_secs_f64(), cpu() - c0);
    std::fs::remove_file(out).expect("remove the output file");
    r
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(dir)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: files_floor write|read DIR [RUNS]");
        std::process::exit(2);
    };
    let dir = PathBuf::from(dir);
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut rels = Vec::new();
    walk(&dir, Path::new(""), &mut rels);
    let total: u64 = rels
        .iter()
        .map(|r| std::fs::metadata(dir.join(r)).map_or(0, |m| m.len()))
        .sum();
    let mut dirs: Vec<PathBuf> = rels
        .iter()
        .filter_map(|r| r.parent())
        .map(Path::to_path_buf)
        .collect();
    dirs.sort();
    dirs.dedup();
    println!(
        "{}: {} files, {} folders, {} bytes",
        dir.display(),
        rels.len(),
        dirs.len(),
        total
    );
    let out = dir.with_extension(format!("floor-{}", std::process::id()));
    let files: Vec<(PathBuf, Vec<u8>)> = if mode == "write" {
        rels.iter()
            .map(|r| (r.clone(), std::fs::read(dir.join(r)).expect("read a file")))
            .collect()
    } else {
        Vec::new()
    };
    let mut rows = Vec::new();
    for _ in 0..runs {
        let r = match mode.as_str() {
            "write" => write_run(&files, &dirs, &out),
            "read" => read_run(&dir, &rels, total, &out),
            _ => {
                eprintln!("mode: write or read");
                std::process::exit(2);
            }
        };
        println!("{mode}: {:.3} s, {:.2} CPU-s", r.0, r.1);
        rows.push(r);
    }
    println!(
        "{mode} median: {:.3} s, {:.2} CPU-s",
        median(rows.iter().map(|r| r.0).collect()),
        median(rows.iter().map(|r| r.1).collect())
    );
}
