//! Issue 32, item 2: `.pak` amplification. N entries over the same data,
//! or one entry whose N blocks all point at one zlib stream, made a few KB
//! decode to gigabytes. Both are refused by `extract` before anything is
//! written, by `verify`, and by `read` (the viewer's reading API). Each
//! test builds its pak with the writer, then patches the index (and the
//! footer's index hash, so that only the overlap is wrong).

use std::path::{Path, PathBuf};

use pakrat_codec::compress::Method;
use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_pak::{self as pak, extract, sha1, write, Pak, PakEntry};
use pakrat_testkit::mutate::CountingAlloc;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

/// Heap a refusal may use.
const PEAK: usize = 1 << 20;
const BS: usize = 64 << 10;

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A v8 zlib pak of `files` (path, bytes); returns its path and entries.
fn build(dir: &Path, files: &[(&str, Vec<u8>)]) -> (PathBuf, Vec<PakEntry>) {
    let src = dir.join("src");
    let inputs: Vec<write::Input> = files
        .iter()
        .map(|(n, d)| {
            let p = src.join(n);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, d).unwrap();
            write::Input {
                path: n.to_string(),
                source: p,
            }
        })
        .collect();
    let o = write::Options {
        version: 8,
        compression: Method::Zlib,
        ..write::Options::default()
    };
    let path = dir.join("a.pak");
    let f = std::fs::File::create(&path).unwrap();
    let w = write::write(&inputs, &o, &f, "a.pak").unwrap();
    (path, w.entries)
}

/// Replace every occurrence of `from` in `region` of `data` by `to`;
/// returns how many.
fn patch(data: &mut [u8], region: std::ops::Range<usize>, from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = region.start;
    while i + from.len() <= region.end {
        if &data[i..i + from.len()] == from {
            data[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

/// Apply `f` to the index bytes, then put the index's new SHA-1 in the footer.
fn edit_index(path: &Path, f: impl FnOnce(&mut Vec<u8>, std::ops::Range<usize>)) {
    let p = Pak::open(path, &KeyRing::new()).unwrap();
    let (io, is) = (p.footer.index_offset as usize, p.footer.index_size as usize);
    drop(p);
    let mut d = std::fs::read(path).unwrap();
    let old = sha1(&d[io..io + is]);
    f(&mut d, io..io + is);
    let new = sha1(&d[io..io + is]);
    let len = d.len();
    assert_eq!(patch(&mut d, io + is..len, &old, &new), 1);
    std::fs::write(path, d).unwrap();
}

fn refused(p: &Pak, dir: &Path, want: &str) {
    let r = pak::verify::verify(p);
    assert!(!r.ok());
    assert!(
        r.problems.iter().any(|x| x.message.contains(want)),
        "{:?}",
        r.problems
    );
    let sel: Vec<&PakEntry> = p.index.entries.iter().collect();
    let out = OutputDir::create(dir.join("out"), false).unwrap();
    ALLOC.reset_peak();
    let base = ALLOC.live();
    let s = extract::extract(p, &sel, &out, &|_| {}, &extract::Options::default());
    assert!(
        ALLOC.peak() - base < PEAK,
        "extract peak {}",
        ALLOC.peak() - base
    );
    assert_eq!((s.files, s.bytes), (0, 0), "{:?}", s.errors);
    assert!(
        s.errors.len() == 1 && s.errors[0].contains("nothing was written"),
        "{:?}",
        s.errors
    );
    assert_eq!(std::fs::read_dir(out.root()).unwrap().count(), 0);
    for e in &sel {
        ALLOC.reset_peak();
        let base = ALLOC.live();
        let err = p.read(e).unwrap_err().to_string();
        assert!(err.contains(want), "{err}");
        assert!(
            ALLOC.peak() - base < PEAK,
            "read peak {}",
            ALLOC.peak() - base
        );
    }
}

#[test]
fn entries_over_the_same_data_are_refused_before_writing() {
    // 64 entries of 256 KiB of zeros, all pointed at the first one's data:
    // `extract` wrote them all (16 MiB; 1 GiB from a 66 KB pak with bigger
    // numbers), `verify` said "overlaps".
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let files: Vec<(String, Vec<u8>)> = (0..64)
        .map(|i| (format!("f{i:02}.bin"), vec![0u8; 4 * BS]))
        .collect();
    let refs: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, d)| (n.as_str(), d.clone())).collect();
    let (path, entries) = build(t.path(), &refs);
    let first = entries[0].offset.to_le_bytes();
    edit_index(&path, |d, idx| {
        for e in &entries[1..] {
            // FString path, then the record's Offset.
            let mut key = e.path.as_bytes().to_vec();
            key.push(0);
            key.extend_from_slice(&e.offset.to_le_bytes());
            let mut to = key.clone();
            to[key.len() - 8..].copy_from_slice(&first);
            assert_eq!(patch(d, idx.clone(), &key, &to), 1, "{}", e.path);
        }
    });
    let p = Pak::open(&path, &KeyRing::new()).unwrap();
    assert_eq!(p.overlapping_entries(), 64);
    refused(&p, t.path(), "overlaps");
}

#[test]
fn one_entry_whose_blocks_repeat_one_stream_is_refused() {
    // One entry of 256 blocks of zeros, every block pointed at the first
    // block's zlib stream (in the index and in the data header): `verify`
    // said OK and `extract` decoded the one stream 256 times.
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let (path, entries) = build(t.path(), &[("big.bin", vec![0u8; 256 * BS])]);
    let e = &entries[0];
    assert_eq!(e.blocks.len(), 256);
    let rel = |x: u64| (x - e.offset).to_le_bytes();
    let mut from = Vec::new();
    let mut to = Vec::new();
    for b in &e.blocks {
        from.extend_from_slice(&rel(b.start));
        from.extend_from_slice(&rel(b.end));
        to.extend_from_slice(&rel(e.blocks[0].start));
        to.extend_from_slice(&rel(e.blocks[0].end));
    }
    // The data header's copy first (it is not in the index).
    let mut d = std::fs::read(&path).unwrap();
    let hdr = e.offset as usize..e.blocks[0].start as usize;
    assert_eq!(patch(&mut d, hdr, &from, &to), 1);
    std::fs::write(&path, d).unwrap();
    edit_index(&path, |d, idx| assert_eq!(patch(d, idx, &from, &to), 1));
    let p = Pak::open(&path, &KeyRing::new()).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 64 << 10);
    assert_eq!(p.overlapping_entries(), 0);
    refused(&p, t.path(), "inside block 0");
}

#[test]
fn abutting_entries_and_blocks_are_read() {
    // UnrealPak's own layout: entries and blocks back to back.
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..3 * BS).map(|i| (i % 7) as u8).collect();
    let (path, _) = build(
        t.path(),
        &[("a.bin", data.clone()), ("b.bin", data.clone())],
    );
    let p = Pak::open(&path, &KeyRing::new()).unwrap();
    assert_eq!(p.overlapping_entries(), 0);
    assert!(pak::verify::verify(&p).ok());
    for e in &p.index.entries {
        assert!(p.block_problem(e).is_none());
        assert_eq!(p.read(e).unwrap(), data);
        // A copy of an entry is that entry, not another over its bytes.
        assert!(p.entry_overlap(&e.clone()).is_none());
        let mut twin = e.clone();
        twin.path = "twin.bin".into();
        assert!(p.entry_overlap(&twin).is_some());
    }
}
