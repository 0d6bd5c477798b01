//! Extraction benchmark (not a test): builds a large UMOD in a temporary
//! folder, extracts it, and compares with a plain copy of the same bytes.
//!
//! ```sh
//! cargo run --release -p pakrat-umod --example bench_extract -- [--mib 1100] [--files 4000] [--dir /tmp]
//! ```
//!
//! Reports: build time, plain-copy time (`std::fs::copy`, which uses
//! `copy_file_range`, and a 1 MiB read/write loop), extraction time
//! (CRC check + every member written atomically through `OutputDir`),
//! throughput, the ratio to the copy, and the peak resident set (VmHWM)
//! of a fresh process that does nothing but the extraction. Targets:
//! extraction ≥ 0.8× the copy, peak memory < 64 MiB. Everything generated
//! is deleted at the end.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use pakrat_io::fsutil::OutputDir;
use pakrat_umod::create::{self, CreateOptions};
use pakrat_umod::{extract, ExtractOptions, Umod, UmodFile};

fn vm_hwm_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn sync() {
    let _ = Command::new("sync").status();
}

/// Child mode: extract and report `secs hwm_kib`.
fn child(umod: &Path, out: &Path) {
    let t = Instant::now();
    let file = UmodFile::open(umod).expect("open");
    let u = Umod::parse_file(&file).expect("parse");
    if std::env::var_os("BENCH_DEBUG").is_some() {
        eprintln!("after parse: {:?} KiB", vm_hwm_kib());
        let t = Instant::now();
        let c = u.compute_crc();
        eprintln!(
            "crc {c:#x} in {:.3} s: {:?} KiB",
            t.elapsed().as_secs_f64(),
            vm_hwm_kib()
        );
    }
    let dir = OutputDir::create(out, false).expect("out");
    let rep = extract(&u, &dir, &ExtractOptions::default()).expect("extract");
    let secs = t.elapsed().as_secs_f64();
    if std::env::var_os("BENCH_DEBUG").is_some() {
        let st = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        for l in st
            .lines()
            .filter(|l| l.starts_with("Rss") || l.starts_with("VmHWM"))
        {
            eprintln!("{l}");
        }
    }
    println!("{secs} {} {}", vm_hwm_kib().unwrap_or(0), rep.files.len());
}

fn fill(buf: &mut [u8], mut seed: u64) {
    for chunk in buf.chunks_mut(8) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let b = seed.to_le_bytes();
        chunk.copy_from_slice(&b[..chunk.len()]);
    }
}

fn generate(src: &Path, total: u64, files: usize) -> u64 {
    let folders = ["System", "Maps", "Textures", "Sounds", "Music"];
    for f in folders {
        std::fs::create_dir_all(src.join(f)).unwrap();
    }
    let mut pattern = vec![0u8; 4 << 20];
    fill(&mut pattern, 0x9E37_79B9_7F4A_7C15);
    let avg = total / files as u64;
    let mut records = String::new();
    let mut written = 0u64;
    let mut seed = 12345u64;
    for i in 0..files {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Sizes from 0 to 2×avg (mean ≈ avg), a few tiny files among them.
        let size = if i % 97 == 0 {
            (seed >> 40) % 300
        } else {
            (seed >> 20) % (2 * avg)
        };
        let folder = folders[i % folders.len()];
        let name = format!("{folder}\\File{i:05}.bin");
        let path = src.join(folder).join(format!("File{i:05}.bin"));
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut left = size;
        let mut at = (seed as usize) % (pattern.len() / 2);
        while left > 0 {
            let k = left.min((pattern.len() - at) as u64) as usize;
            f.write_all(&pattern[at..at + k]).unwrap();
            left -= k as u64;
            at = 0;
        }
        f.flush().unwrap();
        written += size;
        records.push_str(&format!("File=(Src={name},Size={size})\r\n"));
    }
    std::fs::write(
        src.join("System/Manifest.ini"),
        format!("[Setup]\r\nProduct=Bench\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\n{records}"),
    )
    .unwrap();
    std::fs::write(
        src.join("System/Manifest.int"),
        "[Setup]\r\nLocalProduct=Bench\r\n",
    )
    .unwrap();
    written
}

fn rw_copy(from: &Path, to: &Path) {
    let mut r = std::fs::File::open(from).unwrap();
    let mut w = std::fs::File::create(to).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        w.write_all(&buf[..n]).unwrap();
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        child(Path::new(&args[2]), Path::new(&args[3]));
        return;
    }
    let mut mib = 1100u64;
    let mut files = 4000usize;
    let mut base: PathBuf = std::env::temp_dir();
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--mib" => mib = args[i + 1].parse().expect("--mib N"),
            "--files" => files = args[i + 1].parse().expect("--files N"),
            "--dir" => base = PathBuf::from(&args[i + 1]),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    let tmp = tempfile::Builder::new()
        .prefix("pakrat-bench-")
        .tempdir_in(&base)
        .unwrap();
    let src = tmp.path().join("src");
    println!(
        "generating {files} files, about {mib} MiB, in {}",
        tmp.path().display()
    );
    let payload = generate(&src, mib << 20, files);
    let umod = tmp.path().join("big.umod");
    let build = timed(|| {
        create::create(&src, &umod, false, &CreateOptions::default()).unwrap();
    });
    std::fs::remove_dir_all(&src).unwrap();
    let size = std::fs::metadata(&umod).unwrap().len();
    let gib = size as f64 / (1u64 << 30) as f64;
    println!(
        "built {} ({size} bytes, {:.2} GiB, {} members, payload {payload} bytes) in {build:.2} s",
        umod.display(),
        gib,
        files + 2
    );
    if std::env::var_os("BENCH_KEEP").is_some() {
        println!("kept {}", umod.display());
        let _ = tmp.keep();
        return;
    }
    // Warm the page cache so every run reads from memory.
    let _ = std::fs::read(&umod).map(|v| v.len());
    sync();

    let exe = std::env::current_exe().unwrap();
    let mut best_copy = f64::MAX;
    let mut best_rw = f64::MAX;
    let mut best_x = f64::MAX;
    let mut best_tree = f64::MAX;
    let mut peak = 0u64;
    let run_extract = |out: &Path| -> (f64, u64) {
        let o = Command::new(&exe)
            .arg("--child")
            .arg(&umod)
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let line = String::from_utf8_lossy(&o.stdout);
        let mut it = line.split_whitespace();
        let t_x: f64 = it.next().unwrap().parse().unwrap();
        let hwm: u64 = it.next().unwrap().parse().unwrap();
        let n: usize = it.next().unwrap().parse().unwrap();
        assert_eq!(n, files + 2);
        (t_x, hwm)
    };
    // An untimed extraction gives the tree that the file-by-file copy copies.
    let reference = tmp.path().join("reference");
    run_extract(&reference);
    sync();
    for round in 1..=3 {
        let c = tmp.path().join("copy.umod");
        let t_copy = timed(|| {
            std::fs::copy(&umod, &c).unwrap();
        });
        let c2 = tmp.path().join("copy2.umod");
        let t_rw = timed(|| rw_copy(&umod, &c2));
        sync();
        // The same bytes as the same files: copy the extracted tree file by
        // file (what `cp -r` does), which pays the same file-creation cost.
        // Files are only deleted at the end of a round and the order
        // alternates: on this ext4, creating files right after thousands
        // were deleted is much slower (the inode allocator skips recently
        // deleted inodes), which would otherwise favour whichever runs second.
        let out = tmp.path().join("out");
        let tree = tmp.path().join("tree");
        let (t_x, hwm, t_tree) = if round % 2 == 1 {
            let (t_x, hwm) = run_extract(&out);
            sync();
            let t_tree = timed(|| copy_tree(&reference, &tree));
            (t_x, hwm, t_tree)
        } else {
            let t_tree = timed(|| copy_tree(&reference, &tree));
            sync();
            let (t_x, hwm) = run_extract(&out);
            (t_x, hwm, t_tree)
        };
        for p in [&c, &c2] {
            std::fs::remove_file(p).unwrap();
        }
        std::fs::remove_dir_all(&out).unwrap();
        std::fs::remove_dir_all(&tree).unwrap();
        sync();
        println!(
            "round {round}: fs::copy {t_copy:.3} s ({:.0} MiB/s) | read/write copy {t_rw:.3} s ({:.0} MiB/s) | tree copy {t_tree:.3} s ({:.0} MiB/s) | extract {t_x:.3} s ({:.0} MiB/s), peak RSS {:.1} MiB",
            size as f64 / 1048576.0 / t_copy,
            size as f64 / 1048576.0 / t_rw,
            size as f64 / 1048576.0 / t_tree,
            size as f64 / 1048576.0 / t_x,
            hwm as f64 / 1024.0
        );
        best_copy = best_copy.min(t_copy);
        best_rw = best_rw.min(t_rw);
        best_tree = best_tree.min(t_tree);
        best_x = best_x.min(t_x);
        peak = peak.max(hwm);
    }
    println!(
        "best: extract {:.0} MiB/s = {:.2}x fs::copy of the archive ({:.0} MiB/s), {:.2}x read/write copy ({:.0} MiB/s), {:.2}x file-by-file copy of the extracted tree ({:.0} MiB/s); peak RSS of the extracting process {:.1} MiB (targets: >= 0.8x, < 64 MiB)",
        size as f64 / 1048576.0 / best_x,
        best_copy / best_x,
        size as f64 / 1048576.0 / best_copy,
        best_rw / best_x,
        size as f64 / 1048576.0 / best_rw,
        best_tree / best_x,
        size as f64 / 1048576.0 / best_tree,
        peak as f64 / 1024.0
    );
    drop(tmp); // deletes the archive and everything else generated
}
