//! Issue 32, item 1: IoStore amplification. Blocks whose compressed bytes
//! overlap (distinct block entries over the same `.ucas` bytes, for several
//! chunks or within one) made a few KB decode to gigabytes, with the right
//! chunk hashes. Every reader refuses such a container now, and the peak
//! heap stays small while it does. Each test builds its container.

use std::path::{Path, PathBuf};

use pakrat_codec::compress::{compress, Method};
use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::extract::{extract, Job};
use pakrat_iostore::{verify, Container};
use pakrat_testkit::mutate::CountingAlloc;
use pakrat_testkit::utoc::{chunk_id, Block, TocV8};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const BS: u32 = 65536;
/// Blocks over the one zlib stream.
const N: u64 = 256;
/// Heap a refusal may use (the hostile chunk decodes to N × 64 KiB = 16 MiB).
const PEAK: usize = 1 << 20;

/// The heap counter is process-wide: the tests take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn blake3_160(d: &[u8]) -> [u8; 20] {
    let mut h = [0u8; 20];
    h.copy_from_slice(&blake3::hash(d).as_bytes()[..20]);
    h
}

/// A zlib container whose `N` blocks all point at one zlib stream of 64 KiB
/// of zeros (one `.ucas` of ~100 bytes). `entries`: chunk (type, offset,
/// length) in the uncompressed space; chunk hashes are right.
fn build(dir: &Path, entries: &[(u8, u64, u64)]) -> PathBuf {
    let zeros = vec![0u8; BS as usize];
    let z = compress(&Method::Zlib, None, &zeros).unwrap();
    let mut ucas = z.clone();
    ucas.resize(z.len().div_ceil(16) * 16, 0);
    std::fs::write(dir.join("A.ucas"), &ucas).unwrap();
    let toc = TocV8 {
        container_id: 7,
        block_size: BS,
        method: Some("Zlib".into()),
        entries: entries
            .iter()
            .enumerate()
            .map(|(i, &(t, o, l))| (chunk_id(i as u64 + 1, 0, t), o, l))
            .collect(),
        blocks: (0..N)
            .map(|_| Block {
                offset: 0,
                compressed: z.len() as u32,
                uncompressed: BS,
                method: 1,
            })
            .collect(),
    };
    let hashes: Vec<[u8; 20]> = entries
        .iter()
        .map(|&(_, _, l)| blake3_160(&vec![0u8; l as usize]))
        .collect();
    let path = dir.join("A.utoc");
    let bytes = toc.bytes_with_hashes(&hashes);
    assert!(bytes.len() < 16 << 10, "a few KB: {}", bytes.len());
    std::fs::write(&path, bytes).unwrap();
    path
}

fn is_overlap(msg: &str) -> bool {
    msg.contains("blocks overlap in the .ucas")
}

fn refused_everywhere(c: &Container, dir: &Path, n: usize) {
    // verify: a layout failure, and no data read.
    let r = verify::verify(c, &|_| {});
    assert!(!r.ok());
    assert!(
        r.failures.iter().any(|f| is_overlap(&f.message)),
        "{:?}",
        r.failures
    );
    assert!(!r.data_checked);
    assert!(verify::layout(c).iter().any(|f| is_overlap(&f.message)));
    // extract: refused, nothing written, little heap.
    let out = OutputDir::create(dir.join("out"), false).unwrap();
    let jobs: Vec<Job> = (0..n)
        .map(|i| Job {
            name: format!("f{i}"),
            index: i,
            size: c.toc().offsets[i].length,
        })
        .collect();
    ALLOC.reset_peak();
    let base = ALLOC.live();
    let s = extract(c, &jobs, &out, &|_| {});
    assert!(
        ALLOC.peak() - base < PEAK,
        "extract peak {}",
        ALLOC.peak() - base
    );
    assert_eq!((s.files, s.bytes), (0, 0), "{:?}", s.errors);
    assert!(
        s.errors.len() == 1 && is_overlap(&s.errors[0]),
        "{:?}",
        s.errors
    );
    assert_eq!(std::fs::read_dir(out.root()).unwrap().count(), 0);
    // Every chunk reader.
    for i in 0..n {
        ALLOC.reset_peak();
        let base = ALLOC.live();
        let e = c.read_chunk(i).unwrap_err().to_string();
        assert!(is_overlap(&e), "{e}");
        let mut got = 0usize;
        let e = c
            .stream_chunk(i, |b| {
                got += b.len();
                Ok(())
            })
            .unwrap_err()
            .to_string();
        assert!(is_overlap(&e), "{e}");
        assert_eq!(got, 0);
        assert!(c.stored_extent(i).is_none());
        assert!(
            ALLOC.peak() - base < PEAK,
            "read peak {}",
            ALLOC.peak() - base
        );
    }
    let mut one = vec![0u8; BS as usize];
    assert!(c.read_block(0, &mut one).is_err());
}

#[test]
fn chunks_over_the_same_block_bytes_are_refused_by_every_reader() {
    // N chunks of one block each, every block over the same 80 bytes: the
    // old code verified it OK and extracted N × 64 KiB.
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let entries: Vec<(u8, u64, u64)> = (0..N)
        .map(|i| (2, i * u64::from(BS), u64::from(BS)))
        .collect();
    let c = Container::open(build(t.path(), &entries), &KeyRing::new()).unwrap();
    assert!(c.read_hazards().shared_blocks.is_none());
    refused_everywhere(&c, t.path(), N as usize);
}

#[test]
fn one_chunk_whose_blocks_repeat_the_same_bytes_is_refused() {
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let c = Container::open(
        build(t.path(), &[(2, 0, N * u64::from(BS))]),
        &KeyRing::new(),
    )
    .unwrap();
    refused_everywhere(&c, t.path(), 1);
}

#[test]
fn a_container_header_over_repeated_blocks_is_refused_before_decoding() {
    // `packages` and `zen to-legacy` read the container header chunk whole
    // through `read_chunk` (the old code held all N × 64 KiB of it before
    // parsing); pakrat-asset's `ContainerPackages::read` starts here.
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let c = Container::open(
        build(t.path(), &[(6, 0, N * u64::from(BS))]),
        &KeyRing::new(),
    )
    .unwrap();
    ALLOC.reset_peak();
    let base = ALLOC.live();
    let hi = c
        .find_by_type(pakrat_iostore::ChunkType::ContainerHeader)
        .expect("a container header chunk");
    let Err(e) = c.read_chunk(hi) else {
        panic!("read a container header over repeated blocks");
    };
    let e = e.to_string();
    assert!(is_overlap(&e), "{e}");
    assert!(ALLOC.peak() - base < PEAK, "peak {}", ALLOC.peak() - base);
}

#[test]
fn blocks_that_abut_are_fine() {
    // Distinct, back-to-back block bytes (the UE layout) are no hazard.
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..4 * BS).map(|i| (i % 251) as u8).collect();
    std::fs::write(t.path().join("B.ucas"), &data).unwrap();
    let toc = TocV8::stored(
        1,
        BS,
        4,
        &[(0, 2 * u64::from(BS)), (2 * u64::from(BS), 100)],
    );
    std::fs::write(t.path().join("B.utoc"), toc.bytes()).unwrap();
    let c = Container::open(t.path().join("B.utoc"), &KeyRing::new()).unwrap();
    assert!(c.read_hazards().is_empty(), "{:?}", c.read_hazards());
    assert_eq!(c.read_chunk(1).unwrap(), &data[2 * BS as usize..][..100]);
}

#[test]
fn blocks_over_the_block_size_are_refused_by_readers() {
    let _g = serial();
    let t = tempfile::tempdir().unwrap();
    let data = vec![1u8; 2 * BS as usize];
    std::fs::write(t.path().join("C.ucas"), &data).unwrap();
    let mut toc = TocV8::stored(1, BS, 1, &[(0, u64::from(BS))]);
    toc.blocks[0].compressed = 2 * BS;
    toc.blocks[0].uncompressed = 2 * BS;
    std::fs::write(t.path().join("C.utoc"), toc.bytes()).unwrap();
    let c = Container::open(t.path().join("C.utoc"), &KeyRing::new()).unwrap();
    let e = c.read_chunk(0).unwrap_err().to_string();
    assert!(e.contains("more than the block size"), "{e}");
}
