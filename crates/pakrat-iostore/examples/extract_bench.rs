//! Extraction benchmark (run with `--release`):
//!
//! ```text
//! cargo run --release -p pakrat-iostore --example extract_bench [-- GIB]
//! ```
//!
//! Builds large containers (default 2 GiB of output each) in a temp folder
//! from real blocks of the corpus fixtures (Oodle, Zlib, and the same data
//! stored uncompressed), then extracts them with 1 and 2 threads in a fresh
//! process each time and reports throughput and peak memory, next to the
//! single-thread decode speed of the codec and `cat` for the uncompressed
//! case. "decode" rows run the same pipeline (read, decrypt, decompress)
//! without writing files, "extract" rows write every chunk to a file like
//! `pakrat extract`: "N thread(s)" is the rayon pool that decodes, "+ 1
//! writer" the thread that fills and commits the files beside it when the
//! pool leaves a core free (`extract::writer_threads`). Everything
//! it writes is deleted at the end. Set `BENCH_DIR` to choose where the
//! temporary files go; `extract_bench build DIR [GIB]` only builds the
//! containers (and keeps them) for profiling the worker by hand.
//! `BENCH_NO_VERIFY=1` extracts without the chunk-hash check (BLAKE3 of
//! every byte, on by default since issue 16), to measure what it costs.
//! The "verify" row runs `verify` (every block decoded, every chunk hashed).
//! Peak RSS is reported whole (`VmHWM`) and split as the kernel splits it
//! (peaks of `RssAnon` and `RssFile`, sampled every 5 ms): anonymous memory
//! is what pakrat allocates; file-backed pages are the mapped `.ucas` (and
//! the binary), which a pass releases as it goes (issue 31 item 16).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pakrat_testkit::bench::{cpu_secs, status_kib};

use pakrat_codec::compress::{decompress, Method};
use pakrat_codec::KeyRing;
use pakrat_iostore::extract::{extract, Job};
use pakrat_iostore::Container;
use pakrat_testkit::utoc;

const BS: usize = 65536;
const CHUNK_BLOCKS: usize = 128; // 8 MiB chunks

struct SrcBlock {
    disk: Vec<u8>,
    csize: u32,
    plain: Vec<u8>,
}

fn fixture(root: &Path, v: &str) -> PathBuf {
    root.join(format!(
        "iostore/cue4parse/UE5_8/IoStore/Tagged/{v}/CUE4ParseFixtures-Minimal-{v}-Windows.utoc"
    ))
}

/// Full compressed blocks of a corpus container, with their decoded bytes.
fn source_blocks(utoc: &Path) -> (Vec<SrcBlock>, String) {
    let c = Container::open(utoc, &KeyRing::new()).expect("open fixture");
    let name = c.toc().method_names.first().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (i, b) in c.toc().blocks.iter().enumerate() {
        if b.method_index == 0 || b.uncompressed_size as usize != BS {
            continue;
        }
        let disk = c.block_bytes(i, b, true).expect("block").to_vec();
        let mut plain = vec![0u8; BS];
        c.read_block(i, &mut plain).expect("decode");
        out.push(SrcBlock {
            disk,
            csize: b.compressed_size,
            plain,
        });
    }
    (out, name)
}

/// Write `Name.utoc` + `Name.ucas` (TOC v8) holding `nblocks` blocks cycled
/// from `src`, in chunks of `CHUNK_BLOCKS` blocks. `method` None stores the
/// decoded bytes.
fn build(dir: &Path, src: &[SrcBlock], method: Option<&str>, nblocks: usize) -> PathBuf {
    let utoc = dir.join("Bench.utoc");
    let mut cas = BufWriter::with_capacity(
        8 << 20,
        std::fs::File::create(dir.join("Bench.ucas")).unwrap(),
    );
    let mut blocks = Vec::with_capacity(nblocks);
    let mut off = 0u64;
    for i in 0..nblocks {
        let s = &src[i % src.len()];
        let (bytes, csize, midx): (&[u8], u32, u8) = match method {
            Some(_) => (&s.disk, s.csize, 1),
            None => (&s.plain, BS as u32, 0),
        };
        cas.write_all(bytes).unwrap();
        blocks.push(utoc::Block {
            offset: off,
            compressed: csize,
            uncompressed: BS as u32,
            method: midx,
        });
        off += bytes.len() as u64;
    }
    // On disk before anything is timed: otherwise the first runs compete
    // with the kernel writing back the freshly built .ucas (dirty-page
    // throttling), which made 1-thread runs look slower than they are.
    cas.into_inner().unwrap().sync_all().unwrap();
    let chunk = (CHUNK_BLOCKS * BS) as u64;
    let toc = utoc::TocV8 {
        container_id: 0x1234_5678,
        block_size: BS as u32,
        method: method.map(str::to_string),
        entries: (0..nblocks / CHUNK_BLOCKS)
            .map(|i| (utoc::chunk_id(i as u64 + 1, 0, 2), i as u64 * chunk, chunk))
            .collect(),
        blocks,
    };
    // Real chunk hashes, so that extract checks them and verify passes.
    let hashes: Vec<[u8; 20]> = (0..nblocks / CHUNK_BLOCKS)
        .map(|k| {
            let mut h = blake3::Hasher::new();
            for b in 0..CHUNK_BLOCKS {
                h.update(&src[(k * CHUNK_BLOCKS + b) % src.len()].plain);
            }
            h.finalize().as_bytes()[..20].try_into().unwrap()
        })
        .collect();
    std::fs::write(&utoc, toc.bytes_with_hashes(&hashes)).unwrap();
    utoc
}

/// Child process: extract (or `decode`, or `verify`) `utoc` into `out`
/// with `threads` threads, print `seconds bytes peak_anon_kib
/// peak_file_kib vm_hwm_kib cpu_seconds`.
fn worker(utoc: &str, out: &str, threads: usize, mode: &str) {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let (stop, sampler) = pakrat_testkit::bench::rss_sampler();
    let start = Instant::now();
    let c = Container::open(utoc, &KeyRing::new()).unwrap();
    let jobs: Vec<Job> = c
        .chunks()
        .iter()
        .map(|x| Job {
            name: format!("c{}.bin", x.index),
            index: x.index,
            size: x.size,
        })
        .collect();
    let dir = pakrat_io::fsutil::OutputDir::create(out, false).unwrap();
    let s = if mode == "verify" {
        // `pakrat verify`: every block decoded and every chunk hashed.
        let r = pakrat_iostore::verify::verify(&c, &|_| {});
        assert!(r.ok(), "verify failed");
        pakrat_iostore::extract::Summary {
            files: jobs.len() as u64,
            bytes: jobs.iter().map(|j| j.size).sum(),
            errors: vec![],
            unhashed: 0,
        }
    } else if mode == "decode" {
        // The same read + decrypt + decompress pipeline, writing nothing:
        // separates our work from the kernel's cost of writing files.
        use rayon::prelude::*;
        jobs.par_iter().for_each(|j| {
            c.stream_chunk(j.index, |_| Ok(())).unwrap();
            c.release(j.index);
        });
        pakrat_iostore::extract::Summary {
            files: jobs.len() as u64,
            bytes: jobs.iter().map(|j| j.size).sum(),
            errors: vec![],
            unhashed: 0,
        }
    } else if std::env::var_os("BENCH_NO_VERIFY").is_some() {
        // The same extraction without the chunk-hash check, to measure it.
        let opts = pakrat_iostore::extract::Options {
            verify_hashes: false,
            writers: None,
        };
        pakrat_iostore::extract::extract_with(&c, &jobs, &dir, &|_| {}, &opts)
    } else {
        extract(&c, &jobs, &dir, &|_| {})
    };
    let secs = start.elapsed().as_secs_f64();
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    println!(
        "{secs} {} {} {} {} {}",
        s.bytes,
        peak.anon,
        peak.file,
        status_kib("VmHWM:"),
        cpu_secs("/proc/self/stat")
    );
}

/// What one worker run measured.
struct Run {
    secs: f64,
    bytes: u64,
    anon_kib: u64,
    file_kib: u64,
    hwm_kib: u64,
    cpu: f64,
}

fn run_worker(utoc: &Path, out: &Path, threads: usize, mode: &str) -> Run {
    let exe = std::env::current_exe().unwrap();
    let o = Command::new(exe)
        .args([
            "worker",
            utoc.to_str().unwrap(),
            out.to_str().unwrap(),
            &threads.to_string(),
            mode,
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8_lossy(&o.stdout);
    let v: Vec<&str> = s.split_whitespace().collect();
    Run {
        secs: v[0].parse().unwrap(),
        bytes: v[1].parse().unwrap(),
        anon_kib: v[2].parse().unwrap(),
        file_kib: v[3].parse().unwrap(),
        hwm_kib: v[4].parse().unwrap(),
        cpu: v[5].parse().unwrap(),
    }
}

/// (wall-clock, per-CPU-second) decode speed on one thread.
fn codec_speed(src: &[SrcBlock], m: &Method) -> (f64, f64) {
    let mut out = vec![0u8; BS];
    let cpu0 = cpu_secs("/proc/thread-self/stat");
    let start = Instant::now();
    let mut bytes = 0u64;
    while start.elapsed().as_secs_f64() < 2.0 {
        for s in src {
            decompress(m, &s.disk[..s.csize as usize], &mut out).unwrap();
            bytes += BS as u64;
        }
    }
    let cpu = cpu_secs("/proc/thread-self/stat") - cpu0;
    (
        bytes as f64 / start.elapsed().as_secs_f64(),
        bytes as f64 / cpu.max(0.01),
    )
}

/// Blocks for `gib` GiB of output, a whole number of chunks.
fn blocks_for(gib: f64) -> usize {
    ((gib * (1u64 << 30) as f64) as usize / BS).div_ceil(CHUNK_BLOCKS) * CHUNK_BLOCKS
}

fn gbs(bytes: f64) -> String {
    format!("{:.3} GB/s", bytes / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("worker") {
        worker(&args[2], &args[3], args[4].parse().unwrap(), &args[5]);
        return;
    }
    if args.get(1).map(String::as_str) == Some("build") {
        // Build the containers under DIR and keep them (for profiling the
        // worker by hand): extract_bench build DIR [GIB]
        let dir = PathBuf::from(&args[2]);
        let gib: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2.0);
        let nblocks = blocks_for(gib);
        let root = pakrat_testkit::corpus_dir().expect("corpus");
        for (label, v, stored) in [
            ("Oodle", "Oodle", false),
            ("Zlib", "Zlib", false),
            ("None", "Oodle", true),
        ] {
            let (src, name) = source_blocks(&fixture(&root, v));
            let d = dir.join(label);
            std::fs::create_dir_all(&d).unwrap();
            let utoc = build(&d, &src, (!stored).then_some(name.as_str()), nblocks);
            println!("{}", utoc.display());
        }
        return;
    }
    let gib: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let nblocks = blocks_for(gib);
    let Some(root) = pakrat_testkit::corpus_dir() else {
        eprintln!("no corpus");
        return;
    };
    let tmp = tempfile::Builder::new()
        .prefix("pakrat-bench-")
        .tempdir_in(
            std::env::var_os("BENCH_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(std::env::temp_dir),
        )
        .unwrap();
    println!(
        "output per container: {} bytes ({} chunks of {} MiB); blocks of 64 KiB from the UE 5.8 fixtures",
        nblocks * BS,
        nblocks / CHUNK_BLOCKS,
        (CHUNK_BLOCKS * BS) >> 20
    );
    for (label, v, stored) in [
        ("Oodle", "Oodle", false),
        ("Zlib", "Zlib", false),
        ("None", "Oodle", true),
    ] {
        let (src, name) = source_blocks(&fixture(&root, v));
        let dir = tmp.path().join(label);
        std::fs::create_dir_all(&dir).unwrap();
        let utoc = build(&dir, &src, (!stored).then_some(name.as_str()), nblocks);
        let ucas = utoc.with_extension("ucas");
        let cas_len = std::fs::metadata(&ucas).unwrap().len();
        // Warm the page cache like a second run would.
        let _ = Command::new("cat")
            .arg(&ucas)
            .stdout(std::process::Stdio::null())
            .status();
        let reference = if stored {
            let out = dir.join("cat.out");
            let start = Instant::now();
            let st = Command::new("sh")
                .arg("-c")
                .arg(format!("cat '{}' > '{}'", ucas.display(), out.display()))
                .status()
                .unwrap();
            assert!(st.success());
            let r = cas_len as f64 / start.elapsed().as_secs_f64();
            std::fs::remove_file(&out).unwrap();
            format!("cat (ucas -> file): {}", gbs(r))
        } else {
            let m = Method::from_name(&name);
            let (wall, cpu) = codec_speed(&src, &m);
            format!(
                "single-thread {name} decode: {} wall-clock, {} per CPU-second",
                gbs(wall),
                gbs(cpu)
            )
        };
        println!(
            "\n[{label}] {} source blocks, .ucas {} bytes; {reference}",
            src.len(),
            cas_len
        );
        for (mode, threads) in [
            ("decode", 1),
            ("decode", 2),
            ("extract", 1),
            ("extract", 2),
            ("verify", 2),
        ] {
            if stored && mode == "decode" {
                continue; // stored blocks are handed out zero-copy: nothing to decode
            }
            let out = dir.join(format!("out{threads}"));
            let r = run_worker(&utoc, &out, threads, mode);
            if mode == "extract" {
                // Check the first chunk against the source blocks.
                let first = std::fs::read(out.join("c0.bin")).unwrap();
                assert_eq!(first.len(), CHUNK_BLOCKS * BS);
                for (k, blk) in first.chunks(BS).enumerate() {
                    assert!(
                        blk == src[k % src.len()].plain.as_slice(),
                        "chunk 0 block {k} differs"
                    );
                }
            }
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let writers = match pakrat_iostore::extract::writer_threads(threads, cores) {
                n if n > 0 && mode == "extract" => format!(" + {n} writer"),
                _ => String::new(),
            };
            println!(
                "  {mode:<7} {threads} thread(s){writers}: {} B in {:.2} s = {} wall-clock, {} per CPU-second ({:.2} CPU-s); peak RSS {:.1} MiB (VmHWM): anonymous {:.1} MiB, file-backed (mapped .ucas, binary) {:.1} MiB",
                r.bytes,
                r.secs,
                gbs(r.bytes as f64 / r.secs),
                gbs(r.bytes as f64 / r.cpu.max(0.01)),
                r.cpu,
                r.hwm_kib as f64 / 1024.0,
                r.anon_kib as f64 / 1024.0,
                r.file_kib as f64 / 1024.0
            );
            let _ = std::fs::remove_dir_all(&out);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
