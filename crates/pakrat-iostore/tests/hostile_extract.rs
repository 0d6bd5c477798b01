//! Issue 16: hostile containers against `extract` (findings 13 and 16)
//! and the all-zero-hash rule of `verify`. Each test builds its container.

use std::path::{Path, PathBuf};

use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::extract::{dedupe_jobs, extract, extract_with, Job, Options, COPY_MIN};
use pakrat_iostore::{verify, Container};
use pakrat_testkit::utoc;

const BS: u64 = 65536;

fn blake3_160(d: &[u8]) -> [u8; 20] {
    let mut h = [0u8; 20];
    h.copy_from_slice(&blake3::hash(d).as_bytes()[..20]);
    h
}

/// A stored (uncompressed) container of `nblocks` blocks holding `entries`
/// ((offset, length) in the data), with real chunk hashes unless `zero`.
fn build(dir: &Path, nblocks: u64, entries: &[(u64, u64)], zero: bool) -> (PathBuf, Vec<u8>) {
    let data: Vec<u8> = (0..nblocks * BS)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    std::fs::write(dir.join("H.ucas"), &data).unwrap();
    let toc = utoc::TocV8::stored(9, BS as u32, nblocks, entries);
    let hashes: Vec<[u8; 20]> = if zero {
        Vec::new()
    } else {
        entries
            .iter()
            .map(|&(o, l)| blake3_160(&data[o as usize..(o + l) as usize]))
            .collect()
    };
    let path = dir.join("H.utoc");
    std::fs::write(&path, toc.bytes_with_hashes(&hashes)).unwrap();
    (path, data)
}

fn jobs(n: usize, c: &Container) -> Vec<Job> {
    (0..n)
        .map(|i| Job {
            name: format!("f{i}.bin"),
            index: i,
            size: c.toc().offsets[i].length,
        })
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn f13_chunks_sharing_blocks_are_refused_before_writing() {
    // 300 entries over the same 2 blocks: verify refuses it, and extract
    // (which wrote 300 x 128 KiB here, 8 GiB with bigger numbers) too.
    let t = tempfile::tempdir().unwrap();
    let entries = vec![(0, 2 * BS); 300];
    let (utoc, _) = build(t.path(), 2, &entries, false);
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    assert!(!verify::verify(&c, &|_| {}).ok());
    assert!(!verify::layout(&c).is_empty());
    let out = OutputDir::create(t.path().join("out"), false).unwrap();
    let s = extract(&c, &jobs(300, &c), &out, &|_| {});
    assert_eq!(s.files, 0);
    assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
    assert!(
        s.errors[0].contains("chunks share blocks"),
        "{:?}",
        s.errors
    );
    assert!(s.errors[0].contains("nothing was written"));
    assert!(names(out.root()).is_empty());
}

#[test]
fn f16_a_flipped_byte_fails_its_file_and_writes_nothing_under_its_name() {
    // Entry 0 is large (kernel copy path), entry 1 small (streamed),
    // entry 2 stays intact.
    let entries = [(0, 5 * BS), (5 * BS, 1000), (6 * BS, 5000)];
    assert!(entries[0].1 >= COPY_MIN && entries[1].1 < COPY_MIN);
    for flip in [100u64, 5 * BS + 10] {
        let t = tempfile::tempdir().unwrap();
        let (utoc, mut data) = build(t.path(), 7, &entries, false);
        data[flip as usize] ^= 0x40;
        std::fs::write(t.path().join("H.ucas"), &data).unwrap();
        let c = Container::open(&utoc, &KeyRing::new()).unwrap();
        let bad = if flip < 5 * BS { 0 } else { 1 };
        for writers in [Some(0), Some(1)] {
            let out = OutputDir::create(t.path().join(format!("out{writers:?}")), false).unwrap();
            let opts = Options {
                verify_hashes: true,
                writers,
            };
            let s = extract_with(&c, &jobs(3, &c), &out, &|_| {}, &opts);
            assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
            assert!(
                s.errors[0].starts_with(&format!("f{bad}.bin: "))
                    && s.errors[0].contains("chunk hash mismatch"),
                "{:?}",
                s.errors
            );
            let want: Vec<String> = (0..3)
                .filter(|&i| i != bad)
                .map(|i| format!("f{i}.bin"))
                .collect();
            assert_eq!(
                names(out.root()),
                want,
                "no file (nor temp file) for the bad chunk"
            );
        }
        // --no-verify writes the bytes as they are.
        let out = OutputDir::create(t.path().join("raw"), false).unwrap();
        let opts = Options {
            verify_hashes: false,
            writers: None,
        };
        let s = extract_with(&c, &jobs(3, &c), &out, &|_| {}, &opts);
        assert!(s.errors.is_empty(), "{:?}", s.errors);
        let (o, l) = entries[bad];
        assert_eq!(
            std::fs::read(out.root().join(format!("f{bad}.bin"))).unwrap(),
            &data[o as usize..(o + l) as usize]
        );
    }
}

#[test]
fn all_zero_hashes_are_unverifiable() {
    let t = tempfile::tempdir().unwrap();
    let entries = [(0, BS), (BS, 10)];
    let (utoc, _) = build(t.path(), 2, &entries, true);
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    let r = verify::verify(&c, &|_| {});
    assert!(!r.ok());
    assert!(
        r.failures
            .iter()
            .any(|f| f.message.contains("no chunk has a hash")),
        "{:?}",
        r.failures
    );
    let opts = verify::Options {
        allow_unhashed: true,
    };
    assert!(verify::verify_with(&c, &|_| {}, &opts).ok());
    // Extract writes them, and says how many were unchecked.
    let out = OutputDir::create(t.path().join("out"), false).unwrap();
    let s = extract(&c, &jobs(2, &c), &out, &|_| {});
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!((s.files, s.unhashed), (2, 2));
    // With hashes, verify is clean and nothing is unhashed.
    let t = tempfile::tempdir().unwrap();
    let (utoc, _) = build(t.path(), 2, &entries, false);
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    assert!(verify::verify(&c, &|_| {}).ok());
    let out = OutputDir::create(t.path().join("out"), false).unwrap();
    assert_eq!(extract(&c, &jobs(2, &c), &out, &|_| {}).unhashed, 0);
}

#[test]
fn duplicate_paths_keep_the_last_entry() {
    let j = |name: &str, index| Job {
        name: name.into(),
        index,
        size: 1,
    };
    let (kept, msgs) = dedupe_jobs(vec![j("a", 0), j("b", 1), j("a", 2), j("a", 3)]);
    let got: Vec<(String, usize)> = kept.into_iter().map(|j| (j.name, j.index)).collect();
    assert_eq!(got, [("b".to_string(), 1), ("a".to_string(), 3)]);
    assert_eq!(msgs.len(), 1);
    assert!(msgs[0].contains("0, 2 and 3"), "{msgs:?}");
}
