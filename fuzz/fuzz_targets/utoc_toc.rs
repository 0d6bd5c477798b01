//! .utoc TOC (versions 1-10): header, chunk ids, offsets, hashes, blocks,
//! IVs, methods, signatures, directory index bytes, metas; then the
//! per-entry helpers and the perfect-hash lookup of every id; and the
//! writer's side: what `to_bytes` makes reads back as the same TOC; the
//! overlap shapes of issue 32 (a block given another's bytes, a chunk
//! given another's blocks) must be found by `read_hazards`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_iostore::{perfect_hash, Toc};

fuzz_target!(|data: &[u8]| {
    let Some(toc) = ok(Toc::parse(data)) else {
        return;
    };
    // Read → write → read is stable (reserved fields are not kept, so the
    // first write may differ from the input; the second may not).
    let once = toc.to_bytes();
    let again = Toc::parse(&once).expect("a written TOC reads back");
    assert!(again.to_bytes() == once, "TOC write is not stable");
    let _ = toc.header.toc_version();
    let _ = toc.header.encryption();
    let _ = toc.header.effective_partition_count();
    let _ = toc.header.effective_partition_size();
    for i in 0..toc.len().min(4096) {
        let _ = toc.chunk_type(i);
        let _ = ok(toc.block_range(i));
        let _ = toc.compressed_size(i);
        let _ = perfect_hash::lookup(
            &toc.perfect_hash_seeds,
            &toc.chunks_without_perfect_hash,
            &toc.chunk_ids,
            &toc.chunk_ids[i],
        );
    }
    let _ = toc.read_hazards().is_empty();
    let b = &toc.blocks;
    if b.len() >= 2 && b[0].uncompressed_size > 0 && b[1].uncompressed_size > 0 {
        let mut t = toc.clone();
        t.blocks[1].offset = t.blocks[0].offset;
        assert!(
            t.read_hazards().overlapping_blocks.is_some(),
            "two blocks over the same bytes not found"
        );
    }
    if toc.len() >= 2 && toc.block_range(0).is_ok_and(|r| !r.is_empty()) {
        let mut t = toc.clone();
        t.offsets[1] = t.offsets[0];
        assert!(
            t.read_hazards().shared_blocks.is_some(),
            "two chunks over the same blocks not found"
        );
    }
    for b in toc.blocks.iter().take(4096) {
        let _ = toc.method_name(b.method_index);
    }
    if !toc.directory_index.is_empty() {
        if let Some(d) = ok(pakrat_iostore::dirindex::DirectoryIndex::parse(
            &toc.directory_index,
            toc.directory_index_offset,
        )) {
            let _ = ok(d.walk());
        }
    }
});
