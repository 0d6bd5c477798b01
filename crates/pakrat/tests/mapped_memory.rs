//! Issue 31 item 16: `extract` and `verify` read their archive through a
//! memory map, and mapped pages count in the resident set. Without releasing
//! them as the work passes them, the peak RSS of a pass over an archive grew
//! with the archive (1.67 GiB measured on real paks and containers). Each
//! test here builds a 384 MiB archive of many entries (small and large,
//! none page-aligned), runs the command in a child process and bounds the
//! child's peak RSS (`ru_maxrss` from `wait4`: anonymous and file-backed
//! pages together) far below the archive's size. The bounds are generous
//! byte counts, not timings.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::{Command, Stdio};

use pakrat_pak::write;
use pakrat_testkit::utoc::{chunk_id, Block, TocV8};

const MIB: u64 = 1 << 20;
/// Archive size: large against the bound, small enough for a test.
const ARCHIVE: u64 = 384 * MIB;
/// Peak RSS allowed for a pass over it. Measured on 256 MiB archives:
/// 10-20 MiB with the release (anonymous and mapped together; once 72 MiB
/// for a pak's `verify`). Before, up to the archive's size: 263 MiB for the
/// pak, whose pages were never released; 88 MiB for the container, whose
/// `verify` released none in its block pass and only whole pages inside
/// each chunk in its chunk pass, which leaves tens of KiB per small chunk
/// (a page fault maps the neighbouring cached pages too).
const BOUND: u64 = 96 * MIB;

/// Deterministic bytes that no codec shrinks (xorshift64).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(len);
    v
}

/// Run `pakrat ARGS` and return its exit status and peak RSS in bytes
/// (`ru_maxrss` of this very child, from `wait4`).
fn peak_rss(args: &[&str]) -> (i32, u64, String) {
    let err = tempfile::NamedTempFile::new().unwrap();
    // PAKRAT_TEST_BIN runs another build (to check that this test fails
    // on one without the release).
    let bin =
        std::env::var_os("PAKRAT_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_pakrat").into());
    let child = Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err.reopen().unwrap())
        .spawn()
        .expect("run pakrat");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain wait4 on our own child, with valid out-pointers; the
    // `Child` is never waited on afterwards.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let stderr = std::fs::read_to_string(err.path()).unwrap_or_default();
    (code, ru.ru_maxrss as u64 * 1024, stderr)
}

fn check(what: &str, args: &[&str]) {
    let (code, peak, stderr) = peak_rss(args);
    assert_eq!(code, 0, "{what}: {stderr}");
    eprintln!("{what}: peak RSS {:.1} MiB", peak as f64 / MIB as f64);
    assert!(
        peak < BOUND,
        "{what}: peak RSS {:.1} MiB for a {} MiB archive (bound {} MiB): mapped pages were kept",
        peak as f64 / MIB as f64,
        ARCHIVE / MIB,
        BOUND / MIB
    );
}

/// Entry sizes taken in turn from `cycle` up to `total` bytes.
fn sizes(cycle: &[u64], total: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut sum = 0;
    for k in 0.. {
        let s = cycle[k % cycle.len()];
        if sum + s > total {
            break;
        }
        v.push(s);
        sum += s;
    }
    v
}

#[test]
fn pak_extract_and_verify_release_mapped_pages() {
    let t = tempfile::tempdir().unwrap();
    // One source file per distinct size; the pak holds each many times.
    // From a few KiB to a few MiB, none a page multiple.
    let sizes = sizes(
        &[3_001, 41_000, 130_003, 700_001, 9_999, 2_500_007],
        ARCHIVE,
    );
    let mut inputs = Vec::new();
    for (k, &s) in sizes.iter().enumerate() {
        let src = t.path().join(format!("src{s}.bin"));
        if !src.exists() {
            std::fs::write(&src, noise(s as usize, s)).unwrap();
        }
        inputs.push(write::Input {
            path: format!("d{}/f{k}.bin", k % 7),
            source: src,
        });
    }
    let pak = t.path().join("Big.pak");
    let out = std::fs::File::create_new(&pak).unwrap();
    write::write(&inputs, &write::Options::default(), &out, "Big.pak").unwrap();
    drop(out);
    assert!(std::fs::metadata(&pak).unwrap().len() > ARCHIVE * 9 / 10);
    let p = pak.to_str().unwrap();
    check("pak verify", &["verify", p]);
    let o = t.path().join("out");
    check("pak extract", &["extract", p, "-o", o.to_str().unwrap()]);
    assert_eq!(std::fs::read_dir(o.join("d3")).unwrap().count(), {
        (0..inputs.len()).filter(|k| k % 7 == 3).count()
    });
}

#[test]
fn iostore_extract_and_verify_release_mapped_pages() {
    const BS: u64 = 64 << 10;
    let t = tempfile::tempdir().unwrap();
    // As UE lays a container out: each chunk starts a new block, its last
    // block is partial, and each block is padded to 16 bytes on disk with
    // its own bytes repeated; so chunks sit back to back in the `.ucas`,
    // not on page boundaries. Mostly chunks of one block (as most chunks
    // of a game are), and some large enough to be copied file to file.
    let cycle = [3_001, 41_000, 9_999, 60_001, 17_003, 30_011, 700_001];
    let ucas = t.path().join("Big.ucas");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&ucas).unwrap());
    let (mut entries, mut blocks, mut hashes) = (Vec::new(), Vec::new(), Vec::new());
    let mut disk = 0u64;
    for k in 0.. {
        let s: u64 = cycle[k % cycle.len()];
        if disk + s + 16 * s.div_ceil(BS) > ARCHIVE {
            break;
        }
        entries.push((chunk_id(k as u64 + 1, 0, 2), blocks.len() as u64 * BS, s));
        let d = noise(s as usize, k as u64 + 7);
        hashes.push(blake3::hash(&d).as_bytes()[..20].try_into().unwrap());
        for b in d.chunks(BS as usize) {
            let n = b.len();
            let padded: Vec<u8> = (0..n.div_ceil(16) * 16).map(|j| b[j % n]).collect();
            f.write_all(&padded).unwrap();
            blocks.push(Block {
                offset: disk,
                compressed: n as u32,
                uncompressed: n as u32,
                method: 0,
            });
            disk += padded.len() as u64;
        }
    }
    f.into_inner().unwrap().sync_all().unwrap();
    let toc = TocV8 {
        container_id: 0x5151,
        block_size: BS as u32,
        method: None,
        entries,
        blocks,
    };
    let utoc = t.path().join("Big.utoc");
    std::fs::write(&utoc, toc.bytes_with_hashes(&hashes)).unwrap();
    let u = utoc.to_str().unwrap();
    check("iostore verify", &["verify", u]);
    let o = t.path().join("out");
    check(
        "iostore extract",
        &["extract", u, "--chunks", "-o", o.to_str().unwrap()],
    );
    assert_eq!(
        std::fs::read_dir(o.join("_chunks")).unwrap().count(),
        toc.entries.len()
    );
}
