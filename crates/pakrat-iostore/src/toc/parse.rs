//! Reading a `.utoc`: the header, then every part in file order.

use pakrat_io::{Error, Reader, Result};

use super::{
    flags, ChunkId, ChunkMeta, CompressedBlock, Numbering, OffsetLength, Signatures, Toc,
    TocHeader, TocVersion, LATEST_VERSION, TOC_HEADER_SIZE, TOC_MAGIC,
};

impl TocHeader {
    fn parse(r: &mut Reader<'_>) -> Result<TocHeader> {
        let magic = r.array::<16>("TOC magic")?;
        if &magic != TOC_MAGIC {
            return Err(Error::invalid(
                0,
                "not an IoStore TOC: expected magic \"-==--==--==--==-\"",
            ));
        }
        let version = r.u8("TOC version")?;
        if TocVersion::from_u8(version).is_none() {
            return Err(Error::unsupported(
                0x10,
                format!(
                    "TOC version {version} (this reader knows versions 1 Initial to {LATEST_VERSION} ContainerEncryptionMethod)"
                ),
            ));
        }
        r.skip(3, "reserved")?;
        let at = r.offset();
        let header_size = r.u32("TocHeaderSize")?;
        if header_size != TOC_HEADER_SIZE {
            return Err(Error::unsupported(
                at,
                format!("TOC header size {header_size:#x} (expected 0x90) in TOC v{version}"),
            ));
        }
        let entry_count = r.u32("TocEntryCount")?;
        let block_count = r.u32("TocCompressedBlockEntryCount")?;
        let at = r.offset();
        let block_entry_size = r.u32("TocCompressedBlockEntrySize")?;
        if block_entry_size != 12 {
            return Err(Error::unsupported(
                at,
                format!("compressed block entry size {block_entry_size} (expected 12) in TOC v{version}"),
            ));
        }
        let method_name_count = r.u32("CompressionMethodNameCount")?;
        let at = r.offset();
        let method_name_length = r.u32("CompressionMethodNameLength")?;
        if method_name_count > 0 && !(1..=1024).contains(&method_name_length) {
            return Err(Error::invalid(
                at,
                format!("compression method name length {method_name_length} (expected 32)"),
            ));
        }
        let at = r.offset();
        let block_size = r.u32("CompressionBlockSize")?;
        if block_size == 0 && entry_count > 0 {
            return Err(Error::invalid(at, "compression block size is 0"));
        }
        let directory_index_size = r.u32("DirectoryIndexSize")?;
        let partition_count = r.u32("PartitionCount")?;
        let container_id = r.u64("ContainerId")?;
        let encryption_key_guid = r.guid("EncryptionKeyGuid")?;
        let flags = r.u8("ContainerFlags")?;
        let encryption_method_raw = r.u8("EncryptionMethod/Reserved3")?;
        r.skip(2, "Reserved4")?;
        let perfect_hash_seeds_count = r.u32("TocChunkPerfectHashSeedsCount")?;
        let partition_size = r.u64("PartitionSize")?;
        let chunks_without_perfect_hash_count = r.u32("TocChunksWithoutPerfectHashCount")?;
        let source_hash_count = r.u32("TocSourceHashCount/Reserved7")?;
        let encryption_iv_count = r.u32("EncryptionIVCount/Reserved8")?;
        r.skip(36, "Reserved8")?;
        let mut h = TocHeader {
            version,
            entry_count,
            block_count,
            method_name_count,
            method_name_length,
            block_size,
            directory_index_size,
            partition_count,
            container_id,
            encryption_key_guid,
            flags,
            encryption_method_raw,
            perfect_hash_seeds_count,
            partition_size,
            chunks_without_perfect_hash_count,
            source_hash_count,
            encryption_iv_count,
        };
        // Fields that were still "reserved" in older versions mean nothing there.
        if version < 4 {
            h.perfect_hash_seeds_count = 0;
        }
        if version < 5 {
            h.chunks_without_perfect_hash_count = 0;
        }
        if version < 9 {
            h.source_hash_count = 0;
        }
        if version < 10 {
            h.encryption_iv_count = 0;
        }
        if version >= 10 && h.has(flags::ENCRYPTED) && encryption_method_raw > 2 {
            return Err(Error::unsupported(
                0x51,
                format!("TOC v{version}: encryption method {encryption_method_raw} (known: 0 None, 1 AES-ECB, 2 AES-CTR)"),
            ));
        }
        if h.effective_partition_count() > 1 && h.effective_partition_size() == u64::MAX {
            return Err(Error::invalid(
                0x58,
                format!(
                    "{} partitions but no partition size",
                    h.effective_partition_count()
                ),
            ));
        }
        Ok(h)
    }
}

impl Toc {
    /// Parse a whole `.utoc` file.
    pub fn parse(data: &[u8]) -> Result<Toc> {
        let mut r = Reader::new(data);
        let header = TocHeader::parse(&mut r)?;
        let p = Parts {
            h: &header,
            v: header.version,
        };
        let chunk_ids = p.chunk_ids(&mut r)?;
        let offsets = p.offsets(&mut r)?;
        let perfect_hash_seeds = p.i32s(
            &mut r,
            TocVersion::PerfectHash,
            header.perfect_hash_seeds_count,
            "perfect-hash seeds",
            "perfect-hash seed",
        )?;
        let chunks_without_perfect_hash = p.i32s(
            &mut r,
            TocVersion::PerfectHashWithOverflow,
            header.chunks_without_perfect_hash_count,
            "chunks without perfect hash",
            "chunk index without perfect hash",
        )?;
        let blocks = p.blocks(&mut r)?;
        let encryption_ivs = p.encryption_ivs(&mut r)?;
        let method_names = p.method_names(&mut r)?;
        let signatures = p.signatures(&mut r)?;
        let directory_index_offset = r.offset();
        let directory_index = p.directory_index(&mut r)?;
        let metas = p.metas(&mut r)?;
        let on_demand = p.on_demand(&mut r)?;
        p.check_end(&r, blocks.len())?;
        Ok(Toc {
            header,
            chunk_ids,
            offsets,
            perfect_hash_seeds,
            chunks_without_perfect_hash,
            blocks,
            encryption_ivs,
            method_names,
            signatures,
            directory_index_offset,
            directory_index,
            metas,
            on_demand,
            // Both set by `finish` from the arrays.
            numbering: Numbering::Ue5,
            compressed_prefix: Vec::new(),
        }
        .finish())
    }
}

/// `n` items read by `one`, after checking that `n` items of `size`
/// bytes fit in what is left (no allocation for a count the file cannot
/// hold).
fn read_n<'a, T>(
    r: &mut Reader<'a>,
    n: u32,
    size: usize,
    what: &str,
    mut one: impl FnMut(&mut Reader<'a>) -> Result<T>,
) -> Result<Vec<T>> {
    let c = r.check_count(i64::from(n), size, what)?;
    let mut v = Vec::with_capacity(c);
    for _ in 0..c {
        v.push(one(r)?);
    }
    Ok(v)
}

/// The parts after the header, read in file order; which ones a TOC has
/// depends on its version `v` and the header's flags and counts.
struct Parts<'h> {
    h: &'h TocHeader,
    v: u8,
}

impl Parts<'_> {
    fn chunk_ids(&self, r: &mut Reader<'_>) -> Result<Vec<ChunkId>> {
        read_n(r, self.h.entry_count, 12, "chunk ids", |r| {
            Ok(ChunkId(r.array("chunk id")?))
        })
    }

    fn offsets(&self, r: &mut Reader<'_>) -> Result<Vec<OffsetLength>> {
        read_n(r, self.h.entry_count, 10, "offset/length pairs", |r| {
            let offset = r.u40_be("chunk offset")?;
            let length = r.u40_be("chunk length")?;
            Ok(OffsetLength { offset, length })
        })
    }

    /// An `i32` array of `n` entries that TOCs have from version `since`:
    /// the perfect-hash seeds (v4+), the entries outside the perfect hash
    /// (v5+).
    fn i32s(
        &self,
        r: &mut Reader<'_>,
        since: TocVersion,
        n: u32,
        what: &str,
        each: &str,
    ) -> Result<Vec<i32>> {
        if self.v < since as u8 {
            return Ok(Vec::new());
        }
        read_n(r, n, 4, what, |r| r.i32(each))
    }

    /// `FIoStoreTocCompressedBlockEntry`: 5-byte offset, 3-byte sizes,
    /// method index.
    fn blocks(&self, r: &mut Reader<'_>) -> Result<Vec<CompressedBlock>> {
        read_n(r, self.h.block_count, 12, "compression blocks", |r| {
            let b: [u8; 12] = r.array("compression block")?;
            Ok(CompressedBlock {
                offset: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], 0, 0, 0]),
                compressed_size: u32::from_le_bytes([b[5], b[6], b[7], 0]),
                uncompressed_size: u32::from_le_bytes([b[8], b[9], b[10], 0]),
                method_index: b[11],
            })
        })
    }

    /// Per-block AES-CTR IVs (v10).
    fn encryption_ivs(&self, r: &mut Reader<'_>) -> Result<Vec<[u8; 12]>> {
        if self.v < TocVersion::ContainerEncryptionMethod as u8 {
            return Ok(Vec::new());
        }
        read_n(r, self.h.encryption_iv_count, 12, "encryption IVs", |r| {
            r.array("encryption IV")
        })
    }

    /// Fixed-length, NUL-padded compression method names.
    fn method_names(&self, r: &mut Reader<'_>) -> Result<Vec<String>> {
        if self.h.method_name_count == 0 {
            return Ok(Vec::new());
        }
        let len = self.h.method_name_length;
        read_n(
            r,
            self.h.method_name_count,
            len as usize,
            "compression method names",
            |r| {
                let raw = r.bytes(u64::from(len), "compression method name")?;
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                Ok(String::from_utf8_lossy(&raw[..end]).into_owned())
            },
        )
    }

    /// The signature table, when flag Signed.
    fn signatures(&self, r: &mut Reader<'_>) -> Result<Option<Signatures>> {
        if !self.h.has(flags::SIGNED) {
            return Ok(None);
        }
        let at = r.offset();
        let hash_size = r.i32("signature hash size")?;
        if !(0..=65536).contains(&hash_size) {
            return Err(Error::invalid(
                at,
                format!("signature hash size {hash_size} (expected 0..=65536)"),
            ));
        }
        let toc_signature = r.bytes(hash_size as u64, "TOC signature")?.to_vec();
        let block_signature = r.bytes(hash_size as u64, "block signature")?.to_vec();
        let block_hashes = read_n(r, self.h.block_count, 20, "block SHA-1 signatures", |r| {
            r.array("block SHA-1")
        })?;
        Ok(Some(Signatures {
            toc_signature,
            block_signature,
            block_hashes,
        }))
    }

    /// The raw directory index, when flag Indexed (v2+).
    fn directory_index(&self, r: &mut Reader<'_>) -> Result<Vec<u8>> {
        if !self.h.has(flags::INDEXED) {
            return Ok(Vec::new());
        }
        let v = self.v;
        if v < TocVersion::DirectoryIndex as u8 {
            return Err(Error::unsupported(
                0x50,
                format!("TOC v{v} (Initial) with flag Indexed: a directory index needs v2+"),
            ));
        }
        Ok(
            r.bytes(u64::from(self.h.directory_index_size), "directory index")?
                .to_vec(),
        )
    }

    /// Chunk metas: a 20-byte `FIoHash`, flags and padding from v8, a
    /// 32-byte `FIoChunkHash` and flags before.
    fn metas(&self, r: &mut Reader<'_>) -> Result<Vec<ChunkMeta>> {
        let io_hash = self.v >= TocVersion::ReplaceIoChunkHashWithIoHash as u8;
        let size = if io_hash { 24 } else { 33 };
        read_n(r, self.h.entry_count, size, "chunk metas", |r| {
            let mut hash = [0u8; 32];
            let (hash_len, flags) = if io_hash {
                hash[..20].copy_from_slice(r.bytes(20, "chunk meta hash")?);
                let f = r.u8("chunk meta flags")?;
                r.skip(3, "chunk meta padding")?;
                (20u8, f)
            } else {
                hash.copy_from_slice(r.bytes(32, "chunk meta hash")?);
                (32u8, r.u8("chunk meta flags")?)
            };
            Ok(ChunkMeta {
                hash,
                hash_len,
                flags,
            })
        })
    }

    /// The v6 on-demand arrays, kept as they are.
    fn on_demand(&self, r: &mut Reader<'_>) -> Result<Vec<u8>> {
        if self.v != TocVersion::OnDemandMetaData as u8 || !self.h.has(flags::ON_DEMAND) {
            return Ok(Vec::new());
        }
        // CUE4Parse reads EntryCount + BlockCount 20-byte hashes here.
        let n = (u64::from(self.h.entry_count) + u64::from(self.h.block_count)) * 20;
        Ok(r.bytes(n, "v6 on-demand chunk and block hashes")?.to_vec())
    }

    /// Nothing may be left, nor be of a layout not known; the partitions
    /// must fit the `blocks`.
    fn check_end(&self, r: &Reader<'_>, blocks: usize) -> Result<()> {
        let (h, v) = (self.h, self.v);
        if h.source_hash_count > 0 {
            return Err(Error::unsupported(
                0x64,
                format!(
                    "TOC v{v} ({}) with {} source hashes: their layout is not known",
                    h.toc_version().name(),
                    h.source_hash_count
                ),
            ));
        }
        if r.remaining() != 0 {
            return Err(Error::unsupported(
                r.offset(),
                format!(
                    "TOC v{v} ({}): {} bytes after the last known part; this layout is not known",
                    h.toc_version().name(),
                    r.remaining()
                ),
            ));
        }
        // Every partition file holds at least one block (UE's writer opens a
        // new one only for a block that does not fit); this also bounds the
        // number of files a reader tries to open.
        if h.effective_partition_count() as usize > blocks.max(1) {
            return Err(Error::invalid(
                0x34,
                format!(
                    "{} partitions for {blocks} blocks",
                    h.effective_partition_count(),
                ),
            ));
        }
        Ok(())
    }
}
