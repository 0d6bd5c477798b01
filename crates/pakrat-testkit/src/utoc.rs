//! Minimal `.utoc` files for tests and benchmarks: TOC version 8, one
//! partition, no directory index, no perfect hash, no encryption, at most
//! one compression method, zeroed chunk metas. Layout as `pakrat-iostore`'s
//! `toc.rs` reads it (FIoStoreTocHeader is 0x90 bytes).

/// One compression block: where it lies in the `.ucas`, its sizes, and its
/// method (0 = stored, 1 = the TOC's one method).
#[derive(Clone, Copy, Debug)]
pub struct Block {
    /// Offset in the `.ucas`.
    pub offset: u64,
    /// Bytes on disk (before padding).
    pub compressed: u32,
    /// Bytes once decoded.
    pub uncompressed: u32,
    /// Method index (0 = none).
    pub method: u8,
}

/// A TOC v8 to write with [`TocV8::bytes`].
#[derive(Clone, Debug)]
pub struct TocV8 {
    /// The header's container id.
    pub container_id: u64,
    /// Uncompressed bytes per block.
    pub block_size: u32,
    /// The one compression method's name (`"Zlib"`, `"Oodle"`), or none.
    pub method: Option<String>,
    /// Per entry: its 12-byte chunk id and (offset, length) in the
    /// uncompressed address space.
    pub entries: Vec<([u8; 12], u64, u64)>,
    /// The compression blocks, in order.
    pub blocks: Vec<Block>,
}

/// A chunk id (`FIoChunkId`): u64 id, u16 index (big-endian), padding, type.
pub fn chunk_id(id: u64, index: u16, chunk_type: u8) -> [u8; 12] {
    let mut b = [0u8; 12];
    b[..8].copy_from_slice(&id.to_le_bytes());
    b[8..10].copy_from_slice(&index.to_be_bytes());
    b[11] = chunk_type;
    b
}

impl TocV8 {
    /// An uncompressed container: `nblocks` full stored blocks of
    /// `block_size` laid end to end in the `.ucas`, and one chunk per
    /// `(offset, length)` of `entries` (ids 1, 2, … of type 2).
    pub fn stored(
        container_id: u64,
        block_size: u32,
        nblocks: u64,
        entries: &[(u64, u64)],
    ) -> Self {
        TocV8 {
            container_id,
            block_size,
            method: None,
            entries: entries
                .iter()
                .enumerate()
                .map(|(i, &(o, l))| (chunk_id(i as u64 + 1, 0, 2), o, l))
                .collect(),
            blocks: (0..nblocks)
                .map(|b| Block {
                    offset: b * u64::from(block_size),
                    compressed: block_size,
                    uncompressed: block_size,
                    method: 0,
                })
                .collect(),
        }
    }

    /// The `.utoc` bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let n = self.entries.len();
        let compressed = self.method.is_some();
        let mut t = Vec::new();
        t.extend_from_slice(b"-==--==--==--==-");
        t.extend_from_slice(&[8, 0, 0, 0]); // version, 3 reserved bytes
        for v in [
            0x90u32,                  // header size
            n as u32,                 // entries
            self.blocks.len() as u32, // compressed blocks
            12,                       // block entry size
            u32::from(compressed),    // method names
            32,                       // method name length
            self.block_size,
            0, // directory index size
            1, // partition count
        ] {
            t.extend_from_slice(&v.to_le_bytes());
        }
        t.extend_from_slice(&self.container_id.to_le_bytes());
        t.extend_from_slice(&[0u8; 16]); // encryption key GUID
        t.extend_from_slice(&[u8::from(compressed), 0, 0, 0]); // flags: Compressed
        t.extend_from_slice(&0u32.to_le_bytes()); // perfect hash seeds
        t.extend_from_slice(&u64::MAX.to_le_bytes()); // partition size
        t.extend_from_slice(&[0u8; 48]); // chunks without perfect hash, reserved
        debug_assert_eq!(t.len(), 0x90);
        for (id, _, _) in &self.entries {
            t.extend_from_slice(id);
        }
        for &(_, o, l) in &self.entries {
            // Two big-endian 40-bit values.
            t.extend_from_slice(&o.to_be_bytes()[3..]);
            t.extend_from_slice(&l.to_be_bytes()[3..]);
        }
        for b in &self.blocks {
            t.extend_from_slice(&b.offset.to_le_bytes()[..5]);
            t.extend_from_slice(&b.compressed.to_le_bytes()[..3]);
            t.extend_from_slice(&b.uncompressed.to_le_bytes()[..3]);
            t.push(b.method);
        }
        if let Some(m) = &self.method {
            let mut name = [0u8; 32];
            let k = m.len().min(32);
            name[..k].copy_from_slice(&m.as_bytes()[..k]);
            t.extend_from_slice(&name);
        }
        t.extend(std::iter::repeat_n(0u8, n * 24)); // chunk metas (v8: 24 bytes)
        t
    }

    /// [`TocV8::bytes`] with each entry's chunk hash (v8 metas: the first
    /// 20 bytes of BLAKE3-256 of the chunk, then flags and padding).
    pub fn bytes_with_hashes(&self, hashes: &[[u8; 20]]) -> Vec<u8> {
        let mut t = self.bytes();
        let start = t.len() - self.entries.len() * 24;
        for (i, h) in hashes.iter().enumerate().take(self.entries.len()) {
            t[start + i * 24..start + i * 24 + 20].copy_from_slice(h);
        }
        t
    }
}
