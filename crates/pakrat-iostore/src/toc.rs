//! The table of contents (`.utoc`): header, chunk ids, offsets, blocks, metas.
//!
//! Layout and field meanings: UE `IoStore.h`/`IoStore.cpp`
//! (`FIoStoreTocHeader`, `FIoStoreTocResourceView::Read`), CUE4Parse
//! `FIoStoreTocHeader.cs`/`FIoStoreTocResource.cs` for versions 9 and 10.
//! Every part is read in file order and the parts must add up to the file
//! size exactly; anything else is refused with a message naming the version.

use std::fmt;

use pakrat_io::{Error, Guid, Reader, Result, Writer};

/// The 16-byte magic at the start of every `.utoc`.
pub const TOC_MAGIC: &[u8; 16] = b"-==--==--==--==-";
/// Size of `FIoStoreTocHeader`.
pub const TOC_HEADER_SIZE: u32 = 0x90;
/// Newest TOC version this reader knows.
pub const LATEST_VERSION: u8 = 10;

/// `EIoStoreTocVersion` (UE `IoStore.h`; 9 and 10 from CUE4Parse).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TocVersion {
    /// 1: base layout (UE 4.25).
    Initial = 1,
    /// 2: directory index.
    DirectoryIndex = 2,
    /// 3: partition count/size honoured.
    PartitionSize = 3,
    /// 4: perfect-hash seeds.
    PerfectHash = 4,
    /// 5: overflow list for the perfect hash.
    PerfectHashWithOverflow = 5,
    /// 6: on-demand metadata arrays.
    OnDemandMetaData = 6,
    /// 7: on-demand arrays removed again.
    RemovedOnDemandMetaData = 7,
    /// 8: 24-byte chunk metas holding an `FIoHash`.
    ReplaceIoChunkHashWithIoHash = 8,
    /// 9: source hash count in the header.
    AddedSourceHashes = 9,
    /// 10: encryption method and per-block IVs.
    ContainerEncryptionMethod = 10,
}

impl TocVersion {
    /// The version for a raw byte, if known.
    pub fn from_u8(v: u8) -> Option<Self> {
        use TocVersion::*;
        Some(match v {
            1 => Initial,
            2 => DirectoryIndex,
            3 => PartitionSize,
            4 => PerfectHash,
            5 => PerfectHashWithOverflow,
            6 => OnDemandMetaData,
            7 => RemovedOnDemandMetaData,
            8 => ReplaceIoChunkHashWithIoHash,
            9 => AddedSourceHashes,
            10 => ContainerEncryptionMethod,
            _ => return None,
        })
    }

    /// The engine's name for this version.
    pub fn name(self) -> &'static str {
        use TocVersion::*;
        match self {
            Initial => "Initial",
            DirectoryIndex => "DirectoryIndex",
            PartitionSize => "PartitionSize",
            PerfectHash => "PerfectHash",
            PerfectHashWithOverflow => "PerfectHashWithOverflow",
            OnDemandMetaData => "OnDemandMetaData",
            RemovedOnDemandMetaData => "RemovedOnDemandMetaData",
            ReplaceIoChunkHashWithIoHash => "ReplaceIoChunkHashWithIoHash",
            AddedSourceHashes => "AddedSourceHashes",
            ContainerEncryptionMethod => "ContainerEncryptionMethod",
        }
    }
}

/// `EIoContainerFlags` (UE `IoDispatcher.h`).
pub mod flags {
    /// Some blocks are compressed.
    pub const COMPRESSED: u8 = 0x01;
    /// Blocks (and the directory index) are AES-encrypted.
    pub const ENCRYPTED: u8 = 0x02;
    /// A signature table follows the method names.
    pub const SIGNED: u8 = 0x04;
    /// A directory index is present.
    pub const INDEXED: u8 = 0x08;
    /// On-demand container (v6 adds hash arrays).
    pub const ON_DEMAND: u8 = 0x10;
    /// All bits this reader knows.
    pub const KNOWN: u8 = 0x1F;

    /// `Compressed|Encrypted|...` text, or `none`.
    pub fn describe(f: u8) -> String {
        let mut parts = Vec::new();
        for (bit, name) in [
            (COMPRESSED, "Compressed"),
            (ENCRYPTED, "Encrypted"),
            (SIGNED, "Signed"),
            (INDEXED, "Indexed"),
            (ON_DEMAND, "OnDemand"),
        ] {
            if f & bit != 0 {
                parts.push(name.to_string());
            }
        }
        if f & !KNOWN != 0 {
            parts.push(format!("unknown({:#x})", f & !KNOWN));
        }
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join("|")
        }
    }
}

/// How the blocks are encrypted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncryptionMethod {
    /// Not encrypted.
    None,
    /// AES-256 ECB over each 16-aligned block (every version before 10, and v10 method 1).
    AesEcb,
    /// AES-256 CTR with one 12-byte IV per block (v10 method 2).
    AesCtr,
}

/// `FIoStoreTocHeader`, 0x90 bytes.
#[derive(Clone, Debug)]
pub struct TocHeader {
    /// Raw version byte (1..=10).
    pub version: u8,
    /// Number of TOC entries (chunks).
    pub entry_count: u32,
    /// Number of compression blocks.
    pub block_count: u32,
    /// Number of compression method names (index 0 "None" is implicit).
    pub method_name_count: u32,
    /// Length of each method name field (32).
    pub method_name_length: u32,
    /// Uncompressed size of a block (0x10000 in practice).
    pub block_size: u32,
    /// Size of the (possibly encrypted, padded) directory index.
    pub directory_index_size: u32,
    /// Partition count (1 before v3).
    pub partition_count: u32,
    /// Container id (CityHash64 of the file stem; `~0` for global).
    pub container_id: u64,
    /// Key GUID choosing the AES key (zero = default key).
    pub encryption_key_guid: Guid,
    /// `EIoContainerFlags`.
    pub flags: u8,
    /// Raw byte 0x51 (v10: encryption method).
    pub encryption_method_raw: u8,
    /// Number of perfect-hash seeds (v4+).
    pub perfect_hash_seeds_count: u32,
    /// Partition size (`~0` when one partition, and before v3).
    pub partition_size: u64,
    /// Number of chunks without a perfect hash (v5+).
    pub chunks_without_perfect_hash_count: u32,
    /// Source hash count (v9+).
    pub source_hash_count: u32,
    /// Number of encryption IVs (v10).
    pub encryption_iv_count: u32,
}

impl TocHeader {
    /// The version as an enum (always known once parsed).
    pub fn toc_version(&self) -> TocVersion {
        TocVersion::from_u8(self.version).unwrap_or(TocVersion::Initial)
    }

    /// True when the flag bit is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// How the blocks are encrypted.
    pub fn encryption(&self) -> EncryptionMethod {
        if !self.has(flags::ENCRYPTED) {
            return EncryptionMethod::None;
        }
        if self.version >= 10 && self.encryption_method_raw == 2 {
            EncryptionMethod::AesCtr
        } else {
            EncryptionMethod::AesEcb
        }
    }

    /// Partition count as the engine uses it (1 before v3 or when 0).
    pub fn effective_partition_count(&self) -> u32 {
        if self.version < 3 {
            1
        } else {
            self.partition_count.max(1)
        }
    }

    /// Partition size as the engine uses it (`~0` before v3 or when 0).
    pub fn effective_partition_size(&self) -> u64 {
        if self.version < 3 || self.partition_size == 0 {
            u64::MAX
        } else {
            self.partition_size
        }
    }

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

/// Which engine's `EIoChunkType` numbering a container uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numbering {
    /// UE 4.25–4.27.
    Ue4,
    /// UE 5.0 and later.
    Ue5,
}

/// `EIoChunkType`, with the names of both engine generations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkType {
    /// 0 in both.
    Invalid,
    /// UE4 1.
    InstallManifest,
    /// UE5 1, UE4 2: a zen package.
    ExportBundleData,
    /// UE5 2, UE4 3.
    BulkData,
    /// UE5 3, UE4 4.
    OptionalBulkData,
    /// UE5 4, UE4 5.
    MemoryMappedBulkData,
    /// UE5 5 (global container).
    ScriptObjects,
    /// UE5 6, UE4 10.
    ContainerHeader,
    /// UE5 7.
    ExternalFile,
    /// UE5 8, UE4 11 (retoc).
    ShaderCodeLibrary,
    /// UE5 9, UE4 12 (retoc).
    ShaderCode,
    /// UE5 10.
    PackageStoreEntry,
    /// UE5 11.
    DerivedData,
    /// UE5 12.
    EditorDerivedData,
    /// UE5 13.
    PackageResource,
    /// UE4 6.
    LoaderGlobalMeta,
    /// UE4 7.
    LoaderInitialLoadMeta,
    /// UE4 8.
    LoaderGlobalNames,
    /// UE4 9.
    LoaderGlobalNameHashes,
    /// A value neither numbering names.
    Unknown(u8),
}

impl ChunkType {
    /// Decode a raw type byte (UE `IoChunkId.h`; UE4 from CUE4Parse `FIoChunkId.cs`, retoc `lib.rs`).
    pub fn from_raw(raw: u8, numbering: Numbering) -> ChunkType {
        use ChunkType::*;
        match numbering {
            Numbering::Ue5 => match raw {
                0 => Invalid,
                1 => ExportBundleData,
                2 => BulkData,
                3 => OptionalBulkData,
                4 => MemoryMappedBulkData,
                5 => ScriptObjects,
                6 => ContainerHeader,
                7 => ExternalFile,
                8 => ShaderCodeLibrary,
                9 => ShaderCode,
                10 => PackageStoreEntry,
                11 => DerivedData,
                12 => EditorDerivedData,
                13 => PackageResource,
                n => Unknown(n),
            },
            Numbering::Ue4 => match raw {
                0 => Invalid,
                1 => InstallManifest,
                2 => ExportBundleData,
                3 => BulkData,
                4 => OptionalBulkData,
                5 => MemoryMappedBulkData,
                6 => LoaderGlobalMeta,
                7 => LoaderInitialLoadMeta,
                8 => LoaderGlobalNames,
                9 => LoaderGlobalNameHashes,
                10 => ContainerHeader,
                11 => ShaderCodeLibrary,
                12 => ShaderCode,
                n => Unknown(n),
            },
        }
    }

    /// The raw byte for this type in a numbering, if it exists there.
    pub fn to_raw(self, numbering: Numbering) -> Option<u8> {
        (0..=255u8)
            .find(|&r| {
                ChunkType::from_raw(r, numbering) == self && !matches!(self, ChunkType::Unknown(_))
            })
            .or(match self {
                ChunkType::Unknown(n) => Some(n),
                _ => None,
            })
    }

    /// The engine's name.
    pub fn name(self) -> String {
        match self {
            ChunkType::Unknown(n) => format!("Unknown{n}"),
            other => format!("{other:?}"),
        }
    }
}

impl fmt::Display for ChunkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// `FIoChunkId`: 12 bytes `u64 Id (LE) | u16 ChunkIndex (BE) | u8 | u8 type` (UE `IoChunkId.h`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ChunkId(pub [u8; 12]);

impl ChunkId {
    /// Build from the parts (index stored big-endian, as UE does).
    pub fn new(id: u64, index: u16, byte10: u8, raw_type: u8) -> ChunkId {
        let mut b = [0u8; 12];
        b[..8].copy_from_slice(&id.to_le_bytes());
        b[8..10].copy_from_slice(&index.to_be_bytes());
        b[10] = byte10;
        b[11] = raw_type;
        ChunkId(b)
    }

    /// The 64-bit id (package id, container id, ...).
    pub fn id(&self) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&self.0[..8]);
        u64::from_le_bytes(b)
    }

    /// The chunk index (big-endian on disk; the bulk-data MultiOutputIndex).
    pub fn index(&self) -> u16 {
        u16::from_be_bytes([self.0[8], self.0[9]])
    }

    /// Byte 10 (the bulk-data chunk group).
    pub fn byte10(&self) -> u8 {
        self.0[10]
    }

    /// The raw type byte.
    pub fn raw_type(&self) -> u8 {
        self.0[11]
    }

    /// The type under a numbering.
    pub fn chunk_type(&self, numbering: Numbering) -> ChunkType {
        ChunkType::from_raw(self.raw_type(), numbering)
    }

    /// 24 lower-case hex digits of the 12 raw bytes.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parse 24 hex digits.
    pub fn from_hex(s: &str) -> Option<ChunkId> {
        let s = s.trim();
        if s.len() != 24 || !s.is_ascii() {
            return None;
        }
        let mut b = [0u8; 12];
        for (i, x) in b.iter_mut().enumerate() {
            *x = u8::from_str_radix(&s[i * 2..i * 2 + 2], 16).ok()?;
        }
        Some(ChunkId(b))
    }
}

impl fmt::Debug for ChunkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChunkId({})", self.to_hex())
    }
}

impl fmt::Display for ChunkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// `FIoOffsetAndLength`: offset and length in the uncompressed address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetLength {
    /// Uncompressed offset (40 bits).
    pub offset: u64,
    /// Uncompressed length (40 bits).
    pub length: u64,
}

/// `FIoStoreTocCompressedBlockEntry` (12 bytes, bit-packed little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressedBlock {
    /// Offset across all partitions (40 bits).
    pub offset: u64,
    /// Stored size before the 16-byte padding (24 bits).
    pub compressed_size: u32,
    /// Decompressed size (24 bits).
    pub uncompressed_size: u32,
    /// 0 = none, `k` = method name `k - 1`.
    pub method_index: u8,
}

impl CompressedBlock {
    /// Bytes the block occupies on disk (compressed size rounded up to 16).
    pub fn disk_size(&self) -> u64 {
        align16(u64::from(self.compressed_size))
    }
}

/// Layout facts that would make reading a container decode more than its
/// `.ucas` files honestly hold ([`Toc::read_hazards`]). Without any, every
/// block's compressed bytes are read for one chunk only and decode to at most
/// the block size, so the bytes decoded from a container are at most
/// (blocks with distinct bytes) × block size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadHazards {
    /// Chunks whose block ranges overlap (a block entry read for several chunks).
    pub shared_blocks: Option<String>,
    /// Blocks whose compressed byte ranges overlap.
    pub overlapping_blocks: Option<String>,
    /// Blocks that claim to decode to more than the block size.
    pub oversized_blocks: Option<String>,
}

impl ReadHazards {
    /// Every hazard found, as messages.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        [
            &self.shared_blocks,
            &self.overlapping_blocks,
            &self.oversized_blocks,
        ]
        .into_iter()
        .filter_map(|m| m.as_deref())
    }

    /// None found.
    pub fn is_empty(&self) -> bool {
        self.messages().next().is_none()
    }
}

/// Round up to a multiple of 16 (AES block size; every block is padded so).
pub fn align16(n: u64) -> u64 {
    n.div_ceil(16) * 16
}

/// Chunk meta flags (`FIoStoreTocEntryMetaFlags`).
pub mod meta_flags {
    /// At least one block of the chunk is compressed.
    pub const COMPRESSED: u8 = 0x1;
    /// Stored for memory mapping.
    pub const MEMORY_MAPPED: u8 = 0x2;
}

/// `FIoStoreTocEntryMeta`: chunk hash and flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkMeta {
    /// The hash field: 32 bytes before v8 (`FIoChunkHash`), 20 bytes
    /// (`FIoHash`) from v8, zero-extended here.
    pub hash: [u8; 32],
    /// Meaningful bytes of `hash` (20 from v8, 32 before).
    pub hash_len: u8,
    /// `meta_flags`.
    pub flags: u8,
}

impl ChunkMeta {
    /// The hash bytes as stored.
    pub fn hash_bytes(&self) -> &[u8] {
        &self.hash[..usize::from(self.hash_len)]
    }
}

/// The signature table (flag Signed).
#[derive(Clone, Debug, Default)]
pub struct Signatures {
    /// RSA signature of the header hash.
    pub toc_signature: Vec<u8>,
    /// RSA signature of the hash of all block hashes.
    pub block_signature: Vec<u8>,
    /// SHA-1 of each block's on-disk (padded, encrypted) bytes.
    pub block_hashes: Vec<[u8; 20]>,
}

/// A parsed `.utoc`.
#[derive(Clone, Debug)]
pub struct Toc {
    /// The header.
    pub header: TocHeader,
    /// Chunk ids, one per entry.
    pub chunk_ids: Vec<ChunkId>,
    /// Offset/length of each entry.
    pub offsets: Vec<OffsetLength>,
    /// Perfect-hash seeds (v4+).
    pub perfect_hash_seeds: Vec<i32>,
    /// Entries not covered by the perfect hash (v5+).
    pub chunks_without_perfect_hash: Vec<i32>,
    /// Compression blocks.
    pub blocks: Vec<CompressedBlock>,
    /// Per-block AES-CTR IVs (v10); the last one belongs to the directory index.
    pub encryption_ivs: Vec<[u8; 12]>,
    /// Method names (index 0 of this list = block method index 1).
    pub method_names: Vec<String>,
    /// Signature table, when flag Signed.
    pub signatures: Option<Signatures>,
    /// Absolute offset of the directory index in the `.utoc`.
    pub directory_index_offset: u64,
    /// The raw (possibly encrypted) directory index, when flag Indexed.
    pub directory_index: Vec<u8>,
    /// Chunk metas, one per entry.
    pub metas: Vec<ChunkMeta>,
    /// The v6 on-demand arrays, kept as they are (their layout is not
    /// checked: no sample).
    pub on_demand: Vec<u8>,
    /// Chunk type numbering this container uses.
    pub numbering: Numbering,
    /// `compressed_prefix[i]` = sum of the compressed sizes of blocks `..i`.
    pub(crate) compressed_prefix: Vec<u64>,
}

impl Toc {
    /// Parse a whole `.utoc` file.
    pub fn parse(data: &[u8]) -> Result<Toc> {
        let mut r = Reader::new(data);
        let header = TocHeader::parse(&mut r)?;
        let v = header.version;
        let n = header.entry_count as i64;
        let count = |r: &Reader<'_>, n: u32, size: usize, what: &str| -> Result<usize> {
            r.check_count(i64::from(n), size, what)
        };
        count(&r, header.entry_count, 12, "chunk ids")?;
        let mut chunk_ids = Vec::with_capacity(n as usize);
        for _ in 0..n {
            chunk_ids.push(ChunkId(r.array("chunk id")?));
        }
        count(&r, header.entry_count, 10, "offset/length pairs")?;
        let mut offsets = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let offset = r.u40_be("chunk offset")?;
            let length = r.u40_be("chunk length")?;
            offsets.push(OffsetLength { offset, length });
        }
        let mut perfect_hash_seeds = Vec::new();
        if v >= TocVersion::PerfectHash as u8 {
            let c = count(&r, header.perfect_hash_seeds_count, 4, "perfect-hash seeds")?;
            perfect_hash_seeds.reserve(c);
            for _ in 0..c {
                perfect_hash_seeds.push(r.i32("perfect-hash seed")?);
            }
        }
        let mut chunks_without_perfect_hash = Vec::new();
        if v >= TocVersion::PerfectHashWithOverflow as u8 {
            let c = count(
                &r,
                header.chunks_without_perfect_hash_count,
                4,
                "chunks without perfect hash",
            )?;
            chunks_without_perfect_hash.reserve(c);
            for _ in 0..c {
                chunks_without_perfect_hash.push(r.i32("chunk index without perfect hash")?);
            }
        }
        let c = count(&r, header.block_count, 12, "compression blocks")?;
        let mut blocks = Vec::with_capacity(c);
        for _ in 0..c {
            let b: [u8; 12] = r.array("compression block")?;
            let offset = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], 0, 0, 0]);
            let compressed_size = u32::from_le_bytes([b[5], b[6], b[7], 0]);
            let uncompressed_size = u32::from_le_bytes([b[8], b[9], b[10], 0]);
            blocks.push(CompressedBlock {
                offset,
                compressed_size,
                uncompressed_size,
                method_index: b[11],
            });
        }
        let mut encryption_ivs = Vec::new();
        if v >= TocVersion::ContainerEncryptionMethod as u8 {
            let c = count(&r, header.encryption_iv_count, 12, "encryption IVs")?;
            encryption_ivs.reserve(c);
            for _ in 0..c {
                encryption_ivs.push(r.array("encryption IV")?);
            }
        }
        let mut method_names = Vec::new();
        if header.method_name_count > 0 {
            let c = r.check_count(
                i64::from(header.method_name_count),
                header.method_name_length as usize,
                "compression method names",
            )?;
            for _ in 0..c {
                let raw = r.bytes(
                    u64::from(header.method_name_length),
                    "compression method name",
                )?;
                let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
                method_names.push(String::from_utf8_lossy(&raw[..end]).into_owned());
            }
        }
        let mut signatures = None;
        if header.has(flags::SIGNED) {
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
            let c = count(&r, header.block_count, 20, "block SHA-1 signatures")?;
            let mut block_hashes = Vec::with_capacity(c);
            for _ in 0..c {
                block_hashes.push(r.array("block SHA-1")?);
            }
            signatures = Some(Signatures {
                toc_signature,
                block_signature,
                block_hashes,
            });
        }
        let mut directory_index = Vec::new();
        let directory_index_offset = r.offset();
        if header.has(flags::INDEXED) {
            if v < TocVersion::DirectoryIndex as u8 {
                return Err(Error::unsupported(
                    0x50,
                    format!("TOC v{v} (Initial) with flag Indexed: a directory index needs v2+"),
                ));
            }
            directory_index = r
                .bytes(u64::from(header.directory_index_size), "directory index")?
                .to_vec();
        }
        let meta_size = if v >= TocVersion::ReplaceIoChunkHashWithIoHash as u8 {
            24
        } else {
            33
        };
        count(&r, header.entry_count, meta_size, "chunk metas")?;
        let mut metas = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let mut hash = [0u8; 32];
            let (hash_len, flags) = if meta_size == 24 {
                hash[..20].copy_from_slice(r.bytes(20, "chunk meta hash")?);
                let f = r.u8("chunk meta flags")?;
                r.skip(3, "chunk meta padding")?;
                (20u8, f)
            } else {
                hash.copy_from_slice(r.bytes(32, "chunk meta hash")?);
                (32u8, r.u8("chunk meta flags")?)
            };
            metas.push(ChunkMeta {
                hash,
                hash_len,
                flags,
            });
        }
        let mut on_demand = Vec::new();
        if v == TocVersion::OnDemandMetaData as u8 && header.has(flags::ON_DEMAND) {
            // CUE4Parse reads EntryCount + BlockCount 20-byte hashes here.
            let n = (u64::from(header.entry_count) + u64::from(header.block_count)) * 20;
            on_demand = r.bytes(n, "v6 on-demand chunk and block hashes")?.to_vec();
        }
        if header.source_hash_count > 0 {
            return Err(Error::unsupported(
                0x64,
                format!(
                    "TOC v{v} ({}) with {} source hashes: their layout is not known",
                    header.toc_version().name(),
                    header.source_hash_count
                ),
            ));
        }
        if r.remaining() != 0 {
            return Err(Error::unsupported(
                r.offset(),
                format!(
                    "TOC v{v} ({}): {} bytes after the last known part; this layout is not known",
                    header.toc_version().name(),
                    r.remaining()
                ),
            ));
        }
        // Every partition file holds at least one block (UE's writer opens a
        // new one only for a block that does not fit); this also bounds the
        // number of files a reader tries to open.
        if header.effective_partition_count() as usize > blocks.len().max(1) {
            return Err(Error::invalid(
                0x34,
                format!(
                    "{} partitions for {} blocks",
                    header.effective_partition_count(),
                    blocks.len()
                ),
            ));
        }
        let numbering = guess_numbering(&header, &chunk_ids);
        let mut compressed_prefix = Vec::with_capacity(blocks.len() + 1);
        let mut sum = 0u64;
        compressed_prefix.push(0);
        for b in &blocks {
            sum += u64::from(b.compressed_size);
            compressed_prefix.push(sum);
        }
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
            numbering,
            compressed_prefix,
        })
    }

    /// Serialize the TOC: the mirror of [`Toc::parse`], so that
    /// `Toc::parse(b)?.to_bytes() == b` for every TOC pakrat reads (checked
    /// on all corpus TOCs). Counts in the header are taken from the arrays,
    /// and the parts a version does not have are left out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = &self.header;
        let v = h.version;
        let n = self.chunk_ids.len();
        let mut w = Writer::with_capacity(0x90 + n * 60 + self.blocks.len() * 12);
        w.bytes(TOC_MAGIC).u8(v).u8(0).u16(0).u32(TOC_HEADER_SIZE);
        w.u32(n as u32).u32(self.blocks.len() as u32).u32(12);
        w.u32(self.method_names.len() as u32);
        w.u32(h.method_name_length);
        w.u32(h.block_size);
        w.u32(self.directory_index.len() as u32);
        w.u32(h.partition_count);
        w.u64(h.container_id);
        w.guid(h.encryption_key_guid);
        w.u8(h.flags).u8(h.encryption_method_raw).u16(0);
        w.u32(if v >= 4 {
            self.perfect_hash_seeds.len() as u32
        } else {
            h.perfect_hash_seeds_count
        });
        w.u64(h.partition_size);
        w.u32(if v >= 5 {
            self.chunks_without_perfect_hash.len() as u32
        } else {
            h.chunks_without_perfect_hash_count
        });
        w.u32(h.source_hash_count);
        w.u32(if v >= 10 {
            self.encryption_ivs.len() as u32
        } else {
            h.encryption_iv_count
        });
        w.zeros(36);
        for id in &self.chunk_ids {
            w.bytes(&id.0);
        }
        for ol in &self.offsets {
            w.u40_be(ol.offset).u40_be(ol.length);
        }
        if v >= TocVersion::PerfectHash as u8 {
            for &s in &self.perfect_hash_seeds {
                w.i32(s);
            }
        }
        if v >= TocVersion::PerfectHashWithOverflow as u8 {
            for &s in &self.chunks_without_perfect_hash {
                w.i32(s);
            }
        }
        for b in &self.blocks {
            let mut e = [0u8; 12];
            e[..5].copy_from_slice(&b.offset.to_le_bytes()[..5]);
            e[5..8].copy_from_slice(&b.compressed_size.to_le_bytes()[..3]);
            e[8..11].copy_from_slice(&b.uncompressed_size.to_le_bytes()[..3]);
            e[11] = b.method_index;
            w.bytes(&e);
        }
        if v >= TocVersion::ContainerEncryptionMethod as u8 {
            for iv in &self.encryption_ivs {
                w.bytes(iv);
            }
        }
        let name_len = h.method_name_length as usize;
        for name in &self.method_names {
            let mut raw = vec![0u8; name_len];
            // NUL-terminated when it fits; cut on a character boundary.
            let mut k = name.len().min(name_len.saturating_sub(1));
            while !name.is_char_boundary(k) {
                k -= 1;
            }
            raw[..k].copy_from_slice(&name.as_bytes()[..k]);
            w.bytes(&raw);
        }
        if let Some(sig) = &self.signatures {
            w.i32(sig.toc_signature.len() as i32);
            w.bytes(&sig.toc_signature).bytes(&sig.block_signature);
            for hsh in &sig.block_hashes {
                w.bytes(hsh);
            }
        }
        w.bytes(&self.directory_index);
        for m in &self.metas {
            if v >= TocVersion::ReplaceIoChunkHashWithIoHash as u8 {
                w.bytes(&m.hash[..20]).u8(m.flags).zeros(3);
            } else {
                w.bytes(&m.hash).u8(m.flags);
            }
        }
        w.bytes(&self.on_demand);
        w.into_inner()
    }

    /// Recompute the derived lookup data after the arrays were filled in
    /// by a writer (the block prefix sums and the chunk type numbering).
    pub(crate) fn finish(mut self) -> Toc {
        let mut sum = 0u64;
        self.compressed_prefix = std::iter::once(0)
            .chain(self.blocks.iter().map(|b| {
                sum += u64::from(b.compressed_size);
                sum
            }))
            .collect();
        self.numbering = guess_numbering(&self.header, &self.chunk_ids);
        self
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.chunk_ids.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.chunk_ids.is_empty()
    }

    /// Type of entry `i` under this container's numbering.
    pub fn chunk_type(&self, i: usize) -> ChunkType {
        self.chunk_ids
            .get(i)
            .map_or(ChunkType::Invalid, |c| c.chunk_type(self.numbering))
    }

    /// Range of block indices (`first..end`) holding entry `i`, checked
    /// against the block table.
    pub fn block_range(&self, i: usize) -> Result<std::ops::Range<usize>> {
        let ol = self.offsets.get(i).ok_or_else(|| {
            Error::Other(format!(
                "chunk index {i} is out of range ({} entries)",
                self.len()
            ))
        })?;
        let bs = u64::from(self.header.block_size.max(1));
        if ol.length == 0 {
            let f = (ol.offset / bs) as usize;
            return Ok(f..f);
        }
        let first = ol.offset / bs;
        let end = (ol.offset + ol.length).div_ceil(bs);
        if end > self.blocks.len() as u64 {
            return Err(Error::Other(format!(
                "chunk {i} ({}): offset {:#x} + length {:#x} needs blocks {first}..{end} but the TOC has {} blocks",
                self.chunk_ids[i],
                ol.offset,
                ol.length,
                self.blocks.len()
            )));
        }
        Ok(first as usize..end as usize)
    }

    /// What would let a reader decode more than the `.ucas` honestly holds
    /// (see [`ReadHazards`]). Sorts the chunks' block ranges and the blocks'
    /// byte ranges once: O(n log n) in entries and blocks.
    pub fn read_hazards(&self) -> ReadHazards {
        let mut h = ReadHazards::default();
        // Chunks whose block ranges overlap: one block entry decoded for
        // several chunks (UE starts every chunk on a block boundary).
        let mut ranges: Vec<(usize, usize, usize)> = (0..self.len())
            .filter_map(|i| {
                let r = self.block_range(i).ok()?;
                (!r.is_empty()).then_some((r.start, r.end, i))
            })
            .collect();
        ranges.sort_unstable();
        let mut n = 0u64;
        let mut first = None;
        let mut reach: Option<(usize, usize)> = None; // (end, chunk)
        for &(a, z, i) in &ranges {
            if let Some((end, j)) = reach {
                if a < end {
                    n += 1;
                    first.get_or_insert((i, a, z.min(end), j));
                }
            }
            if reach.is_none_or(|(end, _)| z > end) {
                reach = Some((z, i));
            }
        }
        if let Some((i, a, z, j)) = first {
            h.shared_blocks = Some(format!(
                "chunks share blocks ({n} chunk(s) use blocks of another; first: chunk {i} ({}) and chunk {j} ({}) both use blocks {a}..{z})",
                self.chunk_ids[i], self.chunk_ids[j]
            ));
        }
        // Blocks whose compressed bytes overlap: the same `.ucas` bytes
        // decoded several times. A block that decodes to something covers at
        // least one byte, so empty compressed ranges count too.
        let mut spans: Vec<(u64, u64, usize)> = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.uncompressed_size > 0)
            .map(|(i, b)| {
                let len = u64::from(b.compressed_size.max(1));
                (b.offset, b.offset.saturating_add(len), i)
            })
            .collect();
        spans.sort_unstable();
        let mut n = 0u64;
        let mut first = None;
        let mut reach: Option<(u64, usize)> = None;
        for &(a, z, i) in &spans {
            if let Some((end, j)) = reach {
                if a < end {
                    n += 1;
                    first.get_or_insert((i, j));
                }
            }
            if reach.is_none_or(|(end, _)| z > end) {
                reach = Some((z, i));
            }
        }
        if let Some((i, j)) = first {
            let (bi, bj) = (self.blocks[i], self.blocks[j]);
            h.overlapping_blocks = Some(format!(
                "blocks overlap in the .ucas ({n} block(s) start inside the bytes of another; first: block {i} ({} bytes at {:#x}) and block {j} ({} bytes at {:#x})): the same bytes would be decoded more than once",
                bi.compressed_size, bi.offset, bj.compressed_size, bj.offset
            ));
        }
        let bs = self.header.block_size;
        let big: Vec<usize> = (0..self.blocks.len())
            .filter(|&i| self.blocks[i].uncompressed_size > bs)
            .collect();
        if let Some(&i) = big.first() {
            h.oversized_blocks = Some(format!(
                "{} block(s) claim more than the block size {bs} (first: block {i}, {} bytes)",
                big.len(),
                self.blocks[i].uncompressed_size
            ));
        }
        h
    }

    /// Stored (compressed, unpadded) size of entry `i`: the sum of its blocks.
    pub fn compressed_size(&self, i: usize) -> u64 {
        self.block_range(i)
            .ok()
            .and_then(|r| {
                Some(self.compressed_prefix.get(r.end)? - self.compressed_prefix.get(r.start)?)
            })
            .unwrap_or(0)
    }

    /// Name of a block's compression method (`None` for index 0).
    pub fn method_name(&self, method_index: u8) -> Option<&str> {
        if method_index == 0 {
            Some("None")
        } else {
            self.method_names
                .get(usize::from(method_index) - 1)
                .map(|s| s.as_str())
        }
    }
}

/// Decide the chunk type numbering. The TOC version alone is not decisive
/// (UnrealReZen writes UE5 types into v3 TOCs): the container header chunk
/// (id = ContainerId) has type 6 in UE5 and 10 in UE4; otherwise versions up
/// to 3 are UE4 and later ones UE5 (as retoc guesses).
fn guess_numbering(h: &TocHeader, ids: &[ChunkId]) -> Numbering {
    for c in ids {
        if c.id() == h.container_id && c.index() == 0 {
            match c.raw_type() {
                6 => return Numbering::Ue5,
                10 => return Numbering::Ue4,
                _ => {}
            }
        }
    }
    if h.version <= TocVersion::PartitionSize as u8 {
        Numbering::Ue4
    } else {
        Numbering::Ue5
    }
}

#[cfg(test)]
mod tests {
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
}
