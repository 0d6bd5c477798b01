//! The extractor, with writer threads committing files beside the rayon
//! decoders or with the decoders writing themselves: every file must hold exactly what `read_chunk`
//! decodes whatever the number of threads and windows, a chunk with a
//! corrupt block must fail alone and leave no file (not even a temporary
//! one), and an existing file must survive a run without `force`.

use std::path::{Path, PathBuf};

use pakrat_codec::KeyRing;
use pakrat_io::fsutil::{OutputDir, TEMP_PREFIX};
use pakrat_iostore::extract::{extract, extract_with_writers, Job};
use pakrat_iostore::Container;
use pakrat_testkit::utoc;

const BS: usize = 4096;

/// Pseudo-random but compressible bytes for chunk `i`.
fn chunk_data(i: usize) -> Vec<u8> {
    let len = 1 + (i * 7919) % (9 * BS); // 1 byte to 9 blocks, often mid-block
    (0..len)
        .map(|k| {
            let x = (k / 3 + i * 31) as u32;
            (x.wrapping_mul(2_654_435_761) >> 27) as u8
        })
        .collect()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A TOC v8 container of `n` zlib chunks (each chunk starts on a block
/// boundary, as in real containers). Returns the .utoc and, per block, its
/// offset in the .ucas (to corrupt one).
fn build(dir: &Path, n: usize) -> (PathBuf, Vec<(u64, usize)>) {
    let mut cas = Vec::new();
    let mut blocks = Vec::new();
    let mut entries = Vec::new();
    let mut upos = 0u64;
    for i in 0..n {
        let data = chunk_data(i);
        entries.push((utoc::chunk_id(i as u64 + 1, 0, 2), upos, data.len() as u64));
        for piece in data.chunks(BS) {
            let mut plain = piece.to_vec();
            plain.resize(BS, 0); // every block decodes to BS bytes
            let z = zlib(&plain);
            blocks.push(utoc::Block {
                offset: cas.len() as u64,
                compressed: z.len() as u32,
                uncompressed: BS as u32,
                method: 1,
            });
            cas.extend_from_slice(&z);
            cas.resize(cas.len().next_multiple_of(16), 0);
        }
        upos += (data.len().div_ceil(BS) * BS) as u64;
    }
    std::fs::write(dir.join("T.ucas"), &cas).unwrap();
    let where_ = blocks
        .iter()
        .map(|b| (b.offset, b.compressed as usize))
        .collect();
    let toc = utoc::TocV8 {
        container_id: 9,
        block_size: BS as u32,
        method: Some("Zlib".into()),
        entries,
        blocks,
    };
    let path = dir.join("T.utoc");
    std::fs::write(&path, toc.bytes()).unwrap();
    (path, where_)
}

fn jobs(c: &Container) -> Vec<Job> {
    c.chunks()
        .iter()
        .map(|x| Job {
            name: format!("d{}/c{}.bin", x.index % 5, x.index),
            index: x.index,
            size: x.size,
        })
        .collect()
}

fn temp_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(TEMP_PREFIX))
            {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn every_thread_count_writes_what_read_chunk_decodes() {
    let t = tempfile::tempdir().unwrap();
    // 40 chunks: with 1–8 threads both the small-window path (many files
    // per thread) and the wide-window path (few files) run.
    for n in [40usize, 3] {
        let dir = t.path().join(format!("n{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let (utoc, _) = build(&dir, n);
        let c = Container::open(&utoc, &KeyRing::new()).unwrap();
        let js = jobs(&c);
        for (threads, writers) in [
            (1usize, 1usize),
            (1, 0),
            (2, 0),
            (2, 1),
            (3, 2),
            (8, 0),
            (8, 3),
        ] {
            let out_path = dir.join(format!("out{threads}-{writers}"));
            let out = OutputDir::create(&out_path, false).unwrap();
            let progress = std::sync::atomic::AtomicU64::new(0);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let s = pool.install(|| {
                extract_with_writers(
                    &c,
                    &js,
                    &out,
                    &|b| {
                        progress.fetch_add(b, std::sync::atomic::Ordering::Relaxed);
                    },
                    writers,
                )
            });
            assert!(s.errors.is_empty(), "{threads} threads: {:?}", s.errors);
            assert_eq!(s.files, n as u64);
            let total: u64 = js.iter().map(|j| j.size).sum();
            assert_eq!(s.bytes, total);
            assert_eq!(progress.into_inner(), total, "progress counts every byte");
            for j in &js {
                let got = std::fs::read(out_path.join(&j.name)).unwrap();
                assert_eq!(got, chunk_data(j.index), "{threads} threads: {}", j.name);
                assert_eq!(got, c.read_chunk(j.index).unwrap());
            }
            assert!(temp_files(&out_path).is_empty());
        }
    }
}

#[test]
fn a_corrupt_block_fails_its_file_alone_and_leaves_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (utoc, blocks) = build(t.path(), 30);
    let c0 = Container::open(&utoc, &KeyRing::new()).unwrap();
    // Corrupt the last block of chunk 7 (so earlier windows of the same
    // file have already been written when the failure comes).
    let victim = 7usize;
    let last_block = (0..=victim)
        .map(|i| chunk_data(i).len().div_ceil(BS))
        .sum::<usize>()
        - 1;
    drop(c0);
    let (off, len) = blocks[last_block];
    let cas = t.path().join("T.ucas");
    let mut bytes = std::fs::read(&cas).unwrap();
    for b in &mut bytes[off as usize + 2..off as usize + len] {
        *b ^= 0x5a;
    }
    std::fs::write(&cas, bytes).unwrap();
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    let js = jobs(&c);
    for (threads, writers) in [(1usize, 0usize), (1, 1), (2, 0), (2, 1)] {
        let out_path = t.path().join(format!("out{threads}-{writers}"));
        let out = OutputDir::create(&out_path, false).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let s = pool.install(|| extract_with_writers(&c, &js, &out, &|_| {}, writers));
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        let name = &js[victim].name;
        assert!(
            s.errors[0].starts_with(&format!("{name}: ")),
            "{:?}",
            s.errors
        );
        assert!(s.errors[0].contains("block"), "{:?}", s.errors);
        assert_eq!(s.files, 29);
        assert!(!out_path.join(name).exists());
        assert!(
            temp_files(&out_path).is_empty(),
            "{:?}",
            temp_files(&out_path)
        );
        for j in js.iter().filter(|j| j.index != victim) {
            assert_eq!(
                std::fs::read(out_path.join(&j.name)).unwrap(),
                chunk_data(j.index)
            );
        }
    }
}

#[test]
fn existing_files_survive_without_force_and_are_replaced_with_it() {
    let t = tempfile::tempdir().unwrap();
    let (utoc, _) = build(t.path(), 12);
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    let js = jobs(&c);
    let out_path = t.path().join("out");
    let keep = out_path.join(&js[4].name);
    std::fs::create_dir_all(keep.parent().unwrap()).unwrap();
    std::fs::write(&keep, b"mine").unwrap();
    let s = extract(
        &c,
        &js,
        &OutputDir::create(&out_path, false).unwrap(),
        &|_| {},
    );
    assert_eq!(s.files, 11);
    assert_eq!(s.errors.len(), 1);
    assert!(s.errors[0].contains("already exists"), "{:?}", s.errors);
    assert_eq!(std::fs::read(&keep).unwrap(), b"mine");
    let s = extract(
        &c,
        &js,
        &OutputDir::create(&out_path, true).unwrap(),
        &|_| {},
    );
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(std::fs::read(&keep).unwrap(), chunk_data(4));
    assert!(temp_files(&out_path).is_empty());
}
