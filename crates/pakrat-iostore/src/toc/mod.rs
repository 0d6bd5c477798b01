//! The table of contents (`.utoc`): header, chunk ids, offsets, blocks, metas.
//!
//! Layout and field meanings: UE `IoStore.h`/`IoStore.cpp`
//! (`FIoStoreTocHeader`, `FIoStoreTocResourceView::Read`), CUE4Parse
//! `FIoStoreTocHeader.cs`/`FIoStoreTocResource.cs` for versions 9 and 10.
//! Every part is read in file order and the parts must add up to the file
//! size exactly; anything else is refused with a message naming the version.

mod hazards;
mod parse;
mod write;

use std::fmt;

use pakrat_io::{Error, Guid, Result};

pub use hazards::ReadHazards;

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
mod tests;
