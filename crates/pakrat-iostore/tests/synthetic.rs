//! A container built here, with what the corpus lacks: a UE4-numbered v3 TOC,
//! LZ4, Zstd and Gzip blocks next to stored ones, AES-ECB, two partitions, a
//! nested directory index, SHA-1 chunk hashes (as UnrealReZen writes them).

use std::io::Write;
use std::path::{Path, PathBuf};

use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::toc::{flags, TOC_MAGIC};
use pakrat_iostore::{verify, ChunkId, ChunkType, Container, Numbering};
use sha1::Digest;

const BS: usize = 0x1000;
const PSIZE: u64 = 0x1000;
const KEY: [u8; 32] = *b"CUE4ParseFixtureAESKey0123456789";
const CONTAINER_ID: u64 = 0x1122_3344_5566_7788;

fn fstring(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

fn compress(method: u8, data: &[u8]) -> Vec<u8> {
    match method {
        0 => data.to_vec(),
        1 => lz4_flex::block::compress(data),
        2 => zstd::bulk::compress(data, 3).unwrap(),
        _ => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

/// Build the container in `dir`; returns the .utoc path and the chunks' data.
fn build(dir: &Path) -> (PathBuf, Vec<Vec<u8>>) {
    let chunks: Vec<Vec<u8>> = vec![
        (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect(),
        b"container header bytes".repeat(40),
        (0..5000u32).map(|i| (i / 13) as u8).collect(),
    ];
    let ids = [
        ChunkId::new(0xAAAA, 0, 0, 2),        // UE4 ExportBundleData
        ChunkId::new(CONTAINER_ID, 0, 0, 10), // UE4 ContainerHeader
        ChunkId::new(0xBBBB, 0x0102, 3, 3),   // UE4 BulkData, index 0x102
    ];
    let key = AesKey(KEY);
    let mut parts: Vec<Vec<u8>> = vec![Vec::new()];
    let mut blocks = Vec::new();
    let mut offsets = Vec::new();
    let mut virt = 0u64;
    let mut n = 0u8;
    for c in &chunks {
        offsets.push((virt, c.len() as u64));
        for piece in c.chunks(BS) {
            let method = n % 4;
            n += 1;
            let comp = compress(method, piece);
            // Pad cyclically to 16 (UE writer rule), then encrypt.
            let mut disk = comp.clone();
            let mut k = 0;
            while !disk.len().is_multiple_of(16) {
                disk.push(comp[k % comp.len()]);
                k += 1;
            }
            key.encrypt_ecb(&mut disk).unwrap();
            if parts.last().unwrap().len() as u64 + disk.len() as u64 > PSIZE {
                parts.push(Vec::new());
            }
            let p = parts.len() - 1;
            let off = p as u64 * PSIZE + parts[p].len() as u64;
            parts[p].extend_from_slice(&disk);
            let mut e = Vec::new();
            e.extend_from_slice(&off.to_le_bytes()[..5]);
            e.extend_from_slice(&(comp.len() as u32).to_le_bytes()[..3]);
            e.extend_from_slice(&(piece.len() as u32).to_le_bytes()[..3]);
            e.push(method);
            blocks.push(e);
        }
        virt += (c.len() as u64).div_ceil(BS as u64) * BS as u64;
    }
    // Directory index: root -> "Sub" -> files a.uasset (0), b.ubulk (2).
    let mut di = Vec::new();
    fstring(&mut di, "../../../Game/");
    let none = u32::MAX;
    di.extend_from_slice(&2i32.to_le_bytes());
    for v in [none, 1, none, none, 0, none, none, 0] {
        di.extend_from_slice(&v.to_le_bytes());
    }
    di.extend_from_slice(&2i32.to_le_bytes());
    for v in [1u32, 1, 0, 2, none, 2] {
        di.extend_from_slice(&v.to_le_bytes());
    }
    di.extend_from_slice(&3i32.to_le_bytes());
    for s in ["Sub", "a.uasset", "b.ubulk"] {
        fstring(&mut di, s);
    }
    let plain_len = di.len();
    let mut k = 0;
    while di.len() % 16 != 0 {
        di.push(di[k % plain_len]);
        k += 1;
    }
    key.encrypt_ecb(&mut di).unwrap();

    let mut t = Vec::new();
    t.extend_from_slice(TOC_MAGIC);
    t.extend_from_slice(&[3, 0, 0, 0]);
    let names = ["LZ4", "Zstd", "Gzip"];
    for v in [
        0x90u32,
        3,
        blocks.len() as u32,
        12,
        names.len() as u32,
        32,
        BS as u32,
        di.len() as u32,
        parts.len() as u32,
    ] {
        t.extend_from_slice(&v.to_le_bytes());
    }
    t.extend_from_slice(&CONTAINER_ID.to_le_bytes());
    t.extend_from_slice(&[0u8; 16]);
    t.extend_from_slice(&[
        flags::COMPRESSED | flags::ENCRYPTED | flags::INDEXED,
        0,
        0,
        0,
    ]);
    t.extend_from_slice(&0u32.to_le_bytes());
    t.extend_from_slice(&PSIZE.to_le_bytes());
    t.extend_from_slice(&[0u8; 48]);
    for id in &ids {
        t.extend_from_slice(&id.0);
    }
    for (o, l) in &offsets {
        t.extend_from_slice(&o.to_be_bytes()[3..]);
        t.extend_from_slice(&l.to_be_bytes()[3..]);
    }
    for b in &blocks {
        t.extend_from_slice(b);
    }
    for nm in names {
        let mut f = [0u8; 32];
        f[..nm.len()].copy_from_slice(nm.as_bytes());
        t.extend_from_slice(&f);
    }
    t.extend_from_slice(&di);
    for c in &chunks {
        let mut h = [0u8; 32];
        h[..20].copy_from_slice(&sha1::Sha1::digest(c));
        t.extend_from_slice(&h);
        t.push(1);
    }
    let utoc = dir.join("Synth.utoc");
    std::fs::write(&utoc, t).unwrap();
    for (p, data) in parts.iter().enumerate() {
        let name = if p == 0 {
            "Synth.ucas".to_string()
        } else {
            format!("Synth_s{p}.ucas")
        };
        std::fs::write(dir.join(name), data).unwrap();
    }
    (utoc, chunks)
}

fn ring() -> KeyRing {
    let mut k = KeyRing::new();
    k.add(AesKey(KEY));
    k
}

#[test]
fn synthetic_ue4_container_reads_and_verifies() {
    let t = tempfile::tempdir().unwrap();
    let (utoc, chunks) = build(t.path());
    let c = Container::open(&utoc, &ring()).unwrap();
    assert!(
        c.partitions().len() >= 3,
        "{} partitions",
        c.partitions().len()
    );
    assert!(c.has_data());
    assert_eq!(c.toc().numbering, Numbering::Ue4);
    assert_eq!(c.toc().chunk_type(0), ChunkType::ExportBundleData);
    assert_eq!(c.toc().chunk_type(1), ChunkType::ContainerHeader);
    assert_eq!(c.toc().chunk_type(2), ChunkType::BulkData);
    assert_eq!(c.toc().chunk_ids[2].index(), 0x0102);
    assert_eq!(c.path_of(0).as_deref(), Some("Game/Sub/a.uasset"));
    assert_eq!(c.path_of(2).as_deref(), Some("Game/Sub/b.ubulk"));
    assert_eq!(c.path_of(1), None);
    for (i, data) in chunks.iter().enumerate() {
        assert_eq!(&c.read_chunk(i).unwrap(), data, "chunk {i}");
        assert_eq!(c.find_chunk(&c.toc().chunk_ids[i]), Some(i));
    }
    let r = verify::verify(&c, &|_| {});
    assert!(r.ok(), "{:#?}", r.failures);
    assert!(r.warnings.is_empty(), "{:#?}", r.warnings);
    assert_eq!(r.chunk_hashes_ok, 3);

    // Without the key: readable TOC, no data; with a wrong key: refused.
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    assert!(c.read_chunk(0).is_err());
    assert!(!verify::verify(&c, &|_| {}).ok());
    let mut wrong = KeyRing::new();
    wrong.add(AesKey([1; 32]));
    let e = Container::open(&utoc, &wrong).unwrap_err().to_string();
    assert!(e.contains("wrong AES key"), "{e}");

    // One flipped byte in the last partition: the chunk it belongs to fails.
    let last = c.partitions().last().unwrap().path.clone();
    let mut d = std::fs::read(&last).unwrap();
    d[5] ^= 0x40;
    std::fs::write(&last, d).unwrap();
    let c = Container::open(&utoc, &ring()).unwrap();
    let r = verify::verify(&c, &|_| {});
    assert!(!r.ok());
    assert!(
        r.failures.iter().any(|f| f.area.starts_with("chunk")),
        "{:#?}",
        r.failures
    );
}
