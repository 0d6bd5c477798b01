use super::*;

#[test]
fn chunk_id_parts() {
    let c = ChunkId::new(0x1122334455667788, 0x0102, 3, 6);
    assert_eq!(c.id(), 0x1122334455667788);
    assert_eq!(c.index(), 0x0102);
    assert_eq!(c.0[8], 1, "index is big-endian");
    assert_eq!(c.chunk_type(Numbering::Ue5), ChunkType::ContainerHeader);
    assert_eq!(c.chunk_type(Numbering::Ue4), ChunkType::LoaderGlobalMeta);
    assert_eq!(ChunkId::from_hex(&c.to_hex()), Some(c));
    assert_eq!(ChunkType::ContainerHeader.to_raw(Numbering::Ue4), Some(10));
    assert_eq!(ChunkType::ScriptObjects.to_raw(Numbering::Ue4), None);
}

#[test]
fn rejects_bad_headers() {
    let mut h = vec![0u8; 0x90];
    assert!(Toc::parse(&h).is_err());
    h[..16].copy_from_slice(TOC_MAGIC);
    h[0x10] = 11;
    let e = Toc::parse(&h).unwrap_err().to_string();
    assert!(e.contains("TOC version 11"), "{e}");
    h[0x10] = 8;
    h[0x14] = 0x90;
    h[0x20] = 12;
    h[0x2C] = 0; // block size 0 is fine with no entries
    let t = Toc::parse(&h).unwrap();
    assert_eq!(t.len(), 0);
    h.push(0);
    let e = Toc::parse(&h).unwrap_err().to_string();
    assert!(e.contains("1 bytes after"), "{e}");
    h.pop();
    h[0x18] = 0xFF; // 255 entries that are not there
    h[0x19] = 0xFF;
    assert!(Toc::parse(&h).is_err());
}

/// A synthetic TOC of `version` with 2 entries and 3 blocks, with every
/// optional part the version and flags call for.
fn synth(
    version: u8,
    fl: u8,
    seeds: usize,
    overflow: usize,
    sig: i32,
    ondemand: bool,
    src_hashes: u32,
) -> Vec<u8> {
    let n = 2u32;
    let nb = 3u32;
    let ivs = if version >= 10 && fl & flags::ENCRYPTED != 0 {
        nb + 1
    } else {
        0
    };
    let dir: Vec<u8> = if fl & flags::INDEXED != 0 {
        vec![0; 32]
    } else {
        vec![]
    };
    let mut h = Vec::new();
    h.extend_from_slice(TOC_MAGIC);
    h.extend_from_slice(&[version, 0, 0, 0]);
    for v in [0x90u32, n, nb, 12, 1, 32, 0x10000, dir.len() as u32, 1] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&7u64.to_le_bytes());
    h.extend_from_slice(&[0u8; 16]);
    h.extend_from_slice(&[fl, if ivs > 0 { 2 } else { 0 }, 0, 0]);
    h.extend_from_slice(&(seeds as u32).to_le_bytes());
    h.extend_from_slice(&u64::MAX.to_le_bytes());
    h.extend_from_slice(&(overflow as u32).to_le_bytes());
    h.extend_from_slice(&src_hashes.to_le_bytes());
    h.extend_from_slice(&ivs.to_le_bytes());
    h.extend_from_slice(&[0u8; 36]);
    assert_eq!(h.len(), 0x90);
    h.extend_from_slice(&ChunkId::new(1, 0, 0, 1).0);
    h.extend_from_slice(&ChunkId::new(7, 0, 0, 10).0);
    h.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 1, 0, 0]); // offset 0, length 0x10000
    h.extend_from_slice(&[0, 0, 1, 0, 0, 0, 0, 0, 0, 5]); // offset 0x10000, length 5
    if version >= 4 {
        h.extend(std::iter::repeat_n(0u8, seeds * 4));
    }
    if version >= 5 {
        h.extend(std::iter::repeat_n(0u8, overflow * 4));
    }
    for i in 0..nb as u8 {
        h.extend_from_slice(&[i, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 1]);
    }
    h.extend(std::iter::repeat_n(0u8, ivs as usize * 12));
    let mut name = [0u8; 32];
    name[..4].copy_from_slice(b"Zlib");
    h.extend_from_slice(&name);
    if fl & flags::SIGNED != 0 {
        h.extend_from_slice(&sig.to_le_bytes());
        h.extend(std::iter::repeat_n(
            0xAAu8,
            sig as usize * 2 + nb as usize * 20,
        ));
    }
    h.extend_from_slice(&dir);
    let meta = if version >= 8 { 24 } else { 33 };
    h.extend(std::iter::repeat_n(0u8, n as usize * meta));
    if ondemand {
        h.extend(std::iter::repeat_n(0u8, (n + nb) as usize * 20));
    }
    h
}

#[test]
fn every_version_layout() {
    for v in 1..=10u8 {
        let fl = if v >= 2 {
            flags::INDEXED | flags::COMPRESSED
        } else {
            flags::COMPRESSED
        };
        let seeds = if v >= 4 { 1 } else { 0 };
        let over = if v >= 5 { 2 } else { 0 };
        let t = Toc::parse(&synth(v, fl, seeds, over, 0, false, 0))
            .unwrap_or_else(|e| panic!("v{v}: {e}"));
        assert_eq!(t.len(), 2);
        assert_eq!(t.blocks.len(), 3);
        assert_eq!(t.blocks[2].offset, 2);
        assert_eq!(t.blocks[2].compressed_size, 0x1000);
        assert_eq!(t.blocks[2].uncompressed_size, 0x10000);
        assert_eq!(
            t.offsets[1],
            OffsetLength {
                offset: 0x10000,
                length: 5
            }
        );
        assert_eq!(t.perfect_hash_seeds.len(), seeds);
        assert_eq!(t.chunks_without_perfect_hash.len(), over);
        assert_eq!(t.method_names, vec!["Zlib".to_string()]);
        assert_eq!(t.directory_index.len(), if v >= 2 { 32 } else { 0 });
        assert_eq!(t.metas[0].hash_len, if v >= 8 { 20 } else { 32 });
        assert_eq!(t.block_range(0).unwrap(), 0..1);
        assert_eq!(t.block_range(1).unwrap(), 1..2);
        // The container header (id 7 = ContainerId) decides the numbering:
        // raw type 10 is UE4's ContainerHeader.
        assert_eq!(t.numbering, Numbering::Ue4, "v{v}");
        assert_eq!(t.chunk_type(1), ChunkType::ContainerHeader);
        assert_eq!(t.chunk_type(0), ChunkType::InstallManifest);
        // One byte too many or too few is refused, naming the version.
        let mut d = synth(v, fl, seeds, over, 0, false, 0);
        d.push(0);
        let e = Toc::parse(&d).unwrap_err().to_string();
        assert!(e.contains(&format!("TOC v{v}")), "{e}");
        d.truncate(d.len() - 2);
        assert!(Toc::parse(&d).is_err());
    }
    // v1 cannot carry a directory index.
    let e = Toc::parse(&synth(1, flags::INDEXED, 0, 0, 0, false, 0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("v1"), "{e}");
    // Signed: hash size, two signatures, one SHA-1 per block.
    let t = Toc::parse(&synth(8, flags::SIGNED, 0, 0, 256, false, 0)).unwrap();
    let s = t.signatures.unwrap();
    assert_eq!(s.toc_signature.len(), 256);
    assert_eq!(s.block_hashes.len(), 3);
    // v6 OnDemand extras; v7 has none.
    let od = synth(6, flags::ON_DEMAND, 0, 0, 0, true, 0);
    let t = Toc::parse(&od).unwrap();
    assert_eq!(t.on_demand.len(), 100);
    assert_eq!(t.to_bytes(), od, "v6 OnDemand TOC round trip");
    let sig = synth(8, flags::SIGNED, 0, 0, 256, false, 0);
    assert_eq!(
        Toc::parse(&sig).unwrap().to_bytes(),
        sig,
        "signed TOC round trip"
    );
    assert!(Toc::parse(&synth(7, flags::ON_DEMAND, 0, 0, 0, true, 0)).is_err());
    assert!(Toc::parse(&synth(7, flags::ON_DEMAND, 0, 0, 0, false, 0)).is_ok());
    // v9 source hashes have no known layout: refused by name.
    let e = Toc::parse(&synth(9, 0, 0, 0, 0, false, 3))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("AddedSourceHashes") && e.contains("source hashes"),
        "{e}"
    );
    // v10 AES-CTR: one IV per block plus the directory index's.
    let t = Toc::parse(&synth(
        10,
        flags::ENCRYPTED | flags::INDEXED,
        0,
        0,
        0,
        false,
        0,
    ))
    .unwrap();
    assert_eq!(t.encryption_ivs.len(), 4);
    assert_eq!(t.header.encryption(), EncryptionMethod::AesCtr);
    let t = Toc::parse(&synth(8, flags::ENCRYPTED, 0, 0, 0, false, 0)).unwrap();
    assert_eq!(t.header.encryption(), EncryptionMethod::AesEcb);
}
