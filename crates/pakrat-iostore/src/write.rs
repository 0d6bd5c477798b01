//! Writing IoStore containers (`.utoc` + `.ucas` partitions), the mirror of
//! [`crate::container`]: it lays chunks out as UE's writer does (UE
//! `IoStoreWriter.cpp`), so a container rebuilt from another one gets the
//! same TOC tables, and for stored data the same `.ucas` bytes.
//!
//! What the engine's layout is, checked on every corpus container:
//! * Each chunk starts on a `CompressionBlockSize` boundary of the
//!   uncompressed address space and is cut into blocks of that size.
//! * In the `.ucas` a block takes `Align(CompressedSize, 16)` bytes; the pad
//!   repeats the block's own bytes from its start (cyclic), gaps are zeros.
//! * A chunk whose blocks would cross a 2048-byte boundary
//!   (`CompressionBlockAlignment`) starts on the next one; smaller chunks
//!   are packed (so chunks over 2 KiB always start aligned).
//! * With partitions, a chunk that does not fit in the rest of the current
//!   partition (and fits in an empty one) starts the next partition.
//! * Ids, offsets and metas are stored in perfect-hash slot order (v4+,
//!   [`crate::perfect_hash::build`]); the directory index adds files in slot
//!   order ([`DirectoryIndex::build`]).
//!
//! Not written: signatures (the flag Signed needs the game's private RSA
//! key), v6 on-demand arrays, v9 source hashes.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use pakrat_io::{Error, Guid, Result};
use rayon::prelude::*;
use sha1::{Digest, Sha1};

use crate::container::Container;
use crate::dirindex::{common_mount_point, DirectoryIndex};
use crate::perfect_hash;
use crate::toc::{
    flags, meta_flags, ChunkId, ChunkMeta, CompressedBlock, Numbering, OffsetLength, Toc,
    TocHeader, TocVersion,
};
use pakrat_codec::compress::{self, Method, ZlibEncoder};
use pakrat_codec::keys::AesKey;
use pakrat_codec::keys::{pad_cyclic, Cipher};

#[path = "write_pipe.rs"]
mod pipe;

/// Largest chunk size and offset a TOC can hold (40 bits).
pub const MAX_40_BIT: u64 = (1 << 40) - 1;

/// UE's `CompressionBlockAlignment` on the desktop builds in the corpus.
pub const DEFAULT_BLOCK_ALIGNMENT: u32 = 2048;

/// Lowest TOC version the writer makes (v3 PartitionSize; UE 4.27).
pub const MIN_WRITE_VERSION: u8 = 3;

/// How to write a container.
#[derive(Clone, Debug)]
pub struct Options {
    /// TOC version, 3 to 10.
    pub version: u8,
    /// `ContainerId` (CityHash64 of the lower-cased file stem for the engine).
    pub container_id: u64,
    /// Block compression; stored when it does not save `min_bytes_saved`.
    pub compression: Method,
    /// Codec level (the codec's default when `None`).
    pub level: Option<i32>,
    /// Zlib encoder: fast by default; [`ZlibEncoder::UnrealPak`] for the
    /// engine's blocks byte for byte.
    pub zlib: ZlibEncoder,
    /// A block is stored unless compression saves more than this many bytes.
    pub min_bytes_saved: u64,
    /// `CompressionBlockSize` (64 KiB in every corpus container).
    pub block_size: u32,
    /// `CompressionBlockAlignment` of chunks in the `.ucas` (0 = none).
    pub block_alignment: u32,
    /// Split the `.ucas` into partitions of at most this many bytes.
    pub partition_size: Option<u64>,
    /// Encrypt blocks and the directory index with this key.
    pub key: Option<AesKey>,
    /// `EncryptionKeyGuid` (zero = the game's default key).
    pub key_guid: Guid,
    /// AES mode; CTR needs v10.
    pub cipher: Cipher,
    /// Mount point; `None` = the common folder of all paths.
    pub mount_point: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            version: 8,
            container_id: 0,
            compression: Method::None,
            level: None,
            zlib: ZlibEncoder::default(),
            min_bytes_saved: 0,
            block_size: 64 * 1024,
            block_alignment: DEFAULT_BLOCK_ALIGNMENT,
            partition_size: None,
            key: None,
            key_guid: Guid::default(),
            cipher: Cipher::Ecb,
            mount_point: None,
        }
    }
}

/// Where a chunk's bytes come from.
#[derive(Clone, Debug)]
pub enum Data {
    /// Bytes in memory (generated chunks such as the container header).
    Bytes(Vec<u8>),
    /// Bytes in memory shared with the caller (no copy is made).
    Shared(std::sync::Arc<Vec<u8>>),
    /// A whole file (memory-mapped while it is written).
    File(PathBuf),
    /// Entry `n` of the source container given to [`write()`].
    Chunk(usize),
}

/// One chunk to write.
#[derive(Clone, Debug)]
pub struct ChunkSpec {
    /// Its id.
    pub id: ChunkId,
    /// Full path (with the mount point) for the directory index, if any.
    pub path: Option<String>,
    /// Its bytes.
    pub data: Data,
    /// Size in bytes (checked against what `data` gives).
    pub size: u64,
    /// Stored uncompressed for memory mapping (chunk meta flag).
    pub memory_mapped: bool,
}

/// What [`write()`] made.
#[derive(Clone, Debug)]
pub struct Written {
    /// The TOC, as read back from its bytes.
    pub toc: Toc,
    /// The `.utoc` bytes.
    pub utoc: Vec<u8>,
    /// Uncompressed bytes of all chunks.
    pub input_bytes: u64,
    /// Bytes written to the `.ucas` partitions.
    pub ucas_bytes: u64,
    /// Blocks stored because compression did not save enough.
    pub stored_blocks: u64,
}

/// Check options alone (before anything is read or written).
pub fn check(o: &Options) -> Result<()> {
    let bad = |m: String| Err(Error::Other(m));
    if !(MIN_WRITE_VERSION..=crate::toc::LATEST_VERSION).contains(&o.version) {
        return bad(format!(
            "TOC version {} cannot be written (pakrat writes versions {MIN_WRITE_VERSION} to {})",
            o.version,
            crate::toc::LATEST_VERSION
        ));
    }
    if !o.block_size.is_power_of_two() || !(1024..=8 << 20).contains(&o.block_size) {
        return bad(format!(
            "block size {} is not a power of two from 1 KiB to 8 MiB",
            o.block_size
        ));
    }
    if o.block_alignment != 0 && !o.block_alignment.is_power_of_two() {
        return bad(format!(
            "block alignment {} is not a power of two",
            o.block_alignment
        ));
    }
    match &o.compression {
        Method::Oodle => {
            return bad(
                "Oodle can only be decoded: pakrat has no Oodle encoder. Use --compress zlib, gzip, lz4 or zstd (the engine reads them all)"
                    .into(),
            )
        }
        Method::Unknown(n) => return bad(format!("unknown compression method {n:?}")),
        _ => {}
    }
    if let Some(ps) = o.partition_size {
        if ps < u64::from(o.block_size) * 2 || ps % 16 != 0 || ps > MAX_40_BIT {
            return bad(format!(
                "partition size {ps} must be a multiple of 16, at least two blocks ({}) and below 2^40",
                u64::from(o.block_size) * 2
            ));
        }
    }
    if o.cipher == Cipher::Ctr && o.version < TocVersion::ContainerEncryptionMethod as u8 {
        return bad("AES-CTR needs TOC version 10".into());
    }
    if o.key.is_none() && o.key_guid != Guid::default() {
        return bad("a key GUID was given without a key".into());
    }
    Ok(())
}

/// A block after compression, padding and encryption.
struct Done {
    data: Vec<u8>,
    compressed_size: u32,
    uncompressed_size: u32,
    method_index: u8,
    iv: [u8; 12],
}

/// One block waiting for the codec.
struct Job {
    first: bool,
    last: bool,
    raw: Vec<u8>,
}

/// Places finished blocks in the partitions (see the module notes).
struct Placer<'a> {
    open: &'a mut dyn FnMut(u32) -> Result<File>,
    files: Vec<File>,
    part: u64,
    align: u64,
    pos: u64,
    blocks: Vec<CompressedBlock>,
    ivs: Vec<[u8; 12]>,
    pending: Vec<Done>,
    pending_bytes: u64,
    chunk_start: Option<u64>,
    chunk_first_block: usize,
    written: u64,
}

impl<'a> Placer<'a> {
    /// A placer at the start of partition 0 (opened now).
    fn new(open: &'a mut dyn FnMut(u32) -> Result<File>, o: &Options) -> Result<Self> {
        let mut p = Placer {
            open,
            files: Vec::new(),
            part: o.partition_size.unwrap_or(u64::MAX),
            align: u64::from(o.block_alignment),
            pos: 0,
            blocks: Vec::new(),
            ivs: Vec::new(),
            pending: Vec::new(),
            pending_bytes: 0,
            chunk_start: None,
            chunk_first_block: 0,
            written: 0,
        };
        p.file(0)?;
        Ok(p)
    }

    fn io(e: std::io::Error) -> Error {
        Error::Other(format!("writing the .ucas: {e}"))
    }

    fn file(&mut self, p: u64) -> Result<&mut File> {
        while self.files.len() as u64 <= p {
            let f = (self.open)(self.files.len() as u32)?;
            self.files.push(f);
        }
        Ok(&mut self.files[p as usize])
    }

    fn split(&self, pos: u64) -> (u64, u64) {
        if self.part == u64::MAX {
            (0, pos)
        } else {
            (pos / self.part, pos % self.part)
        }
    }

    fn crosses(&self, pos: u64, len: u64) -> bool {
        self.part != u64::MAX && len > 0 && pos / self.part != (pos + len - 1) / self.part
    }

    fn next_partition(&self, pos: u64) -> u64 {
        (pos / self.part + 1) * self.part
    }

    fn begin_chunk(&mut self) {
        self.pending.clear();
        self.pending_bytes = 0;
        self.chunk_start = None;
        self.chunk_first_block = self.blocks.len();
    }

    fn push(&mut self, d: Done, last: bool) -> Result<()> {
        if self.chunk_start.is_some() {
            return self.put(d);
        }
        self.pending_bytes += d.data.len() as u64;
        self.pending.push(d);
        let room = if self.align == 0 {
            u64::MAX
        } else {
            self.align - self.pos % self.align
        };
        if !last && self.pending_bytes <= room {
            return Ok(());
        }
        let mut start = self.pos;
        if self.pending_bytes > room {
            start = self.pos.div_ceil(self.align) * self.align;
        }
        if last && self.crosses(start, self.pending_bytes) && self.pending_bytes <= self.part {
            start = self.next_partition(start);
        }
        self.pos = start;
        self.chunk_start = Some(start);
        for d in std::mem::take(&mut self.pending) {
            self.put(d)?;
        }
        Ok(())
    }

    /// Write one block of the current chunk at the current position.
    fn put(&mut self, d: Done) -> Result<()> {
        let len = d.data.len() as u64;
        if self.crosses(self.pos, len) {
            let start = self.chunk_start.unwrap_or(self.pos);
            let same = self.split(start).0 == self.split(self.pos).0;
            let so_far = self.pos - start;
            if same && !start.is_multiple_of(self.part) && so_far + len <= self.part {
                self.relocate_chunk(start)?;
            } else {
                self.pos = self.next_partition(self.pos);
            }
        }
        let (p, off) = self.split(self.pos);
        let f = self.file(p)?;
        f.seek(SeekFrom::Start(off)).map_err(Self::io)?;
        f.write_all(&d.data).map_err(Self::io)?;
        self.blocks.push(CompressedBlock {
            offset: self.pos,
            compressed_size: d.compressed_size,
            uncompressed_size: d.uncompressed_size,
            method_index: d.method_index,
        });
        self.ivs.push(d.iv);
        self.pos += len;
        self.written += len;
        Ok(())
    }

    /// The chunk begun at `start` turned out not to fit in its partition:
    /// move what was written of it to the start of the next one.
    fn relocate_chunk(&mut self, start: u64) -> Result<()> {
        let (p, off) = self.split(start);
        let n = self.pos - start;
        let mut buf = vec![0u8; n as usize];
        {
            let f = self.file(p)?;
            f.seek(SeekFrom::Start(off)).map_err(Self::io)?;
            f.read_exact(&mut buf).map_err(Self::io)?;
            f.set_len(off).map_err(Self::io)?;
        }
        let to = self.next_partition(start);
        let (q, qoff) = self.split(to);
        let f = self.file(q)?;
        f.seek(SeekFrom::Start(qoff)).map_err(Self::io)?;
        f.write_all(&buf).map_err(Self::io)?;
        for b in &mut self.blocks[self.chunk_first_block..] {
            b.offset = b.offset - start + to;
        }
        self.chunk_start = Some(to);
        self.pos = to + n;
        Ok(())
    }
}

/// A deterministic IV for AES-CTR: it depends on the key, the container,
/// the block's place and its bytes, so one key never encrypts two different
/// plaintexts under the same IV.
fn derive_iv(key: &AesKey, container_id: u64, what: u64, data: &[u8]) -> [u8; 12] {
    let mut h = Sha1::new();
    h.update(b"pakrat utoc iv");
    h.update(key.0);
    h.update(container_id.to_le_bytes());
    h.update(what.to_le_bytes());
    h.update(blake3::hash(data).as_bytes());
    let d: [u8; 20] = h.finalize().into();
    let mut iv = [0u8; 12];
    iv.copy_from_slice(&d[..12]);
    iv
}

fn encrypt(o: &Options, data: &mut Vec<u8>, what: u64) -> Result<[u8; 12]> {
    let Some(key) = &o.key else {
        return Ok([0; 12]);
    };
    pad_cyclic(data);
    if o.cipher == Cipher::Ctr {
        let iv = derive_iv(key, o.container_id, what, data);
        key.apply_ctr(&iv, data);
        Ok(iv)
    } else {
        key.encrypt_ecb(data)?;
        Ok([0; 12])
    }
}

/// Compress (unless `stored`), pad and encrypt one block (runs on the
/// rayon pool).
fn process(o: &Options, job: &mut Job, stored: bool, index: u64) -> Result<Done> {
    let usize_ = job.raw.len() as u32;
    let mut method_index = 0u8;
    let mut data = None;
    if o.compression != Method::None && !stored {
        let c = compress::compress_with(&o.compression, o.level, o.zlib, &job.raw)?;
        if (c.len() as u64).saturating_add(o.min_bytes_saved) < job.raw.len() as u64 {
            method_index = 1;
            data = Some(c);
        }
    }
    // A stored block takes the raw buffer itself (no copy).
    let mut data = data.unwrap_or_else(|| std::mem::take(&mut job.raw));
    let compressed_size = data.len() as u32;
    pad_cyclic(&mut data);
    let iv = encrypt(o, &mut data, index)?;
    Ok(Done {
        data,
        compressed_size,
        uncompressed_size: usize_,
        method_index,
        iv,
    })
}

/// Blocks handed to the codec at once: enough for every core, small
/// enough that memory stays at a few MiB.
const WINDOW_BLOCKS: usize = 64;

/// Hands [`write_stream()`] its chunks, a group at a time in layout order;
/// `None` ends.
pub type NextChunks<'a> = dyn FnMut() -> Option<Result<Vec<ChunkSpec>>> + Send + 'a;

/// Write `chunks`, in this order in the `.ucas`, reading [`Data::Chunk`]
/// entries from `from`. `open_partition(p)` gives the empty file for
/// partition `p` (called once per partition, in order); the `.utoc` bytes
/// come back in [`Written::utoc`] for the caller to store. `progress` gets
/// the uncompressed bytes of each block written.
pub fn write(
    chunks: &[ChunkSpec],
    from: Option<&Container>,
    o: &Options,
    open_partition: &mut dyn FnMut(u32) -> Result<File>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Written> {
    check(o)?;
    check_chunks(chunks, o)?;
    let mut placer = Placer::new(open_partition, o)?;
    let t = pipe::place_all(pipe::Chunks::All(chunks), from, o, &mut placer, progress)?;
    finish(placer, chunks, o, t)
}

/// [`write()`] for chunks that are made while the ones before them are
/// written (`zen from-legacy --into` converts packages a group at a time):
/// `next` hands them over in layout order, on a thread of its own, and
/// each group's data is dropped once it is written, so memory holds a few
/// groups, not the container. The checks [`write()`] makes first
/// (duplicate ids, sizes, paths) are made on the whole list at the end,
/// before the TOC is built; an error from `next` stops the writing. The
/// caller writes into staged files, which an error discards. Returns the
/// chunks as written, without their data.
pub fn write_stream(
    next: &mut NextChunks<'_>,
    o: &Options,
    open_partition: &mut dyn FnMut(u32) -> Result<File>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Written, Vec<ChunkSpec>)> {
    check(o)?;
    let mut placer = Placer::new(open_partition, o)?;
    let mut t = pipe::place_all(pipe::Chunks::Stream(next), None, o, &mut placer, progress)?;
    let chunks = std::mem::take(&mut t.streamed);
    check_chunks(&chunks, o)?;
    let w = finish(placer, &chunks, o, t)?;
    Ok((w, chunks))
}

/// Flush the partitions and build the TOC of what was placed.
fn finish(
    mut placer: Placer<'_>,
    chunks: &[ChunkSpec],
    o: &Options,
    t: pipe::Totals,
) -> Result<Written> {
    let pipe::Totals {
        hashes,
        input_bytes,
        stored_blocks,
        ..
    } = t;
    let partitions = placer.files.len() as u32;
    for f in &mut placer.files {
        f.flush().map_err(Placer::io)?;
    }
    let ucas_bytes = placer.written;
    let blocks = std::mem::take(&mut placer.blocks);
    let mut ivs = std::mem::take(&mut placer.ivs);
    drop(placer);
    let utoc = assemble(chunks, o, &hashes, blocks, &mut ivs, partitions)?;
    let toc = Toc::parse(&utoc).map_err(|e| {
        Error::Other(format!(
            "the TOC just built does not read back (a pakrat bug): {e}"
        ))
    })?;
    Ok(Written {
        toc,
        utoc,
        input_bytes,
        ucas_bytes,
        stored_blocks,
    })
}

/// Stream one large chunk into the `.ucas`, `WINDOW_BLOCKS` blocks at a
/// time through the pool: its hash and the blocks stored uncompressed.
fn stream_one(
    spec: &ChunkSpec,
    from: Option<&Container>,
    o: &Options,
    placer: &mut Placer<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<([u8; 32], u64)> {
    let bs = u64::from(o.block_size);
    let stored = spec.memory_mapped || is_container_header(spec, o);
    let mut window: Vec<Job> = Vec::with_capacity(WINDOW_BLOCKS);
    let mut stored_blocks = 0u64;
    let mut flush = |window: &mut Vec<Job>, placer: &mut Placer<'_>| -> Result<()> {
        let first_index = placer.blocks.len() as u64 + placer.pending.len() as u64;
        let done: Vec<Result<Done>> = window
            .par_iter_mut()
            .enumerate()
            .map(|(k, j)| {
                let n = j.raw.len() as u64;
                let r = process(o, j, stored, first_index + k as u64);
                progress(n);
                r
            })
            .collect();
        for (j, d) in window.drain(..).zip(done) {
            let d = d?;
            if d.method_index == 0 && o.compression != Method::None {
                stored_blocks += 1;
            }
            if j.first {
                placer.begin_chunk();
            }
            placer.push(d, j.last)?;
        }
        Ok(())
    };
    let h = cut_chunk(spec, from, bs, &mut |job| {
        window.push(job);
        if window.len() == WINDOW_BLOCKS {
            flush(&mut window, placer)?;
        }
        Ok(())
    })?;
    flush(&mut window, placer)?;
    Ok((h, stored_blocks))
}

/// Reads a chunk's bytes once (from memory, a file or another container):
/// checks that it gives exactly the size it had when the list was made,
/// hashes it (BLAKE3, the first 20 bytes kept, as the TOC stores them) and
/// cuts it into blocks of `bs` bytes, handed to `on_block` in order. Each
/// block's buffer has room for its 16-byte pad, so padding never reallocates.
fn cut_chunk(
    spec: &ChunkSpec,
    from: Option<&Container>,
    bs: u64,
    on_block: &mut dyn FnMut(Job) -> Result<()>,
) -> Result<[u8; 32]> {
    if let Data::File(p) = &spec.data {
        return cut_file(p, spec.size, bs, on_block).map_err(|e| e.in_file(p));
    }
    let n_blocks = spec.size.div_ceil(bs);
    let mut hasher = blake3::Hasher::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut k = 0u64;
    let mut seen = 0u64;
    let mut feed = |mut b: &[u8]| -> Result<()> {
        seen += b.len() as u64;
        if seen > spec.size {
            return Err(Error::Other(format!(
                "gives more than the {} bytes it had when the list was made (did it change?)",
                spec.size
            )));
        }
        hasher.update(b);
        while !b.is_empty() {
            if cur.capacity() == 0 {
                let left = spec.size - k * bs;
                cur.reserve_exact(left.min(bs).next_multiple_of(16) as usize);
            }
            let take = (bs as usize - cur.len()).min(b.len());
            cur.extend_from_slice(&b[..take]);
            b = &b[take..];
            if cur.len() as u64 == bs || (k + 1 == n_blocks && seen == spec.size && b.is_empty()) {
                on_block(Job {
                    first: k == 0,
                    last: k + 1 == n_blocks,
                    raw: std::mem::take(&mut cur),
                })?;
                k += 1;
            }
        }
        Ok(())
    };
    match &spec.data {
        Data::Bytes(b) => feed(b),
        Data::Shared(b) => feed(b),
        // Read block by block by `cut_file` above.
        Data::File(_) => Ok(()),
        Data::Chunk(i) => {
            let c = from.ok_or_else(|| Error::Other("no source container".into()))?;
            c.stream_chunk(*i, &mut feed)
        }
    }?;
    if seen != spec.size {
        return Err(Error::Other(format!(
            "gave {seen} bytes, not the {} it had when the list was made (did it change?)",
            spec.size
        )));
    }
    Ok(toc_hash(&hasher))
}

/// The hash as the TOC stores it: BLAKE3, the first 20 bytes kept.
fn toc_hash(hasher: &blake3::Hasher) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[..20].copy_from_slice(&hasher.finalize().as_bytes()[..20]);
    h
}

/// [`cut_chunk`] for a file: read block by block with `read` into each
/// block's own buffer (the one copy the block needs anyway). Mapping the
/// file instead cost a page fault per 64 KiB and an `munmap` per file with
/// its TLB flush on every core: 5 % of `zen from-legacy --into`'s CPU on
/// 1,300 bulk files (issue 31 item 18). The file must hold exactly `size`
/// bytes, as when the list was made.
fn cut_file(
    p: &std::path::Path,
    size: u64,
    bs: u64,
    on_block: &mut dyn FnMut(Job) -> Result<()>,
) -> Result<[u8; 32]> {
    use std::io::Read;
    let file = pakrat_io::open_regular(p)?;
    let mut r = &file;
    let mut hasher = blake3::Hasher::new();
    let n_blocks = size.div_ceil(bs);
    for k in 0..n_blocks {
        let want = (size - k * bs).min(bs);
        let mut raw = Vec::with_capacity(want.next_multiple_of(16) as usize);
        (&mut r)
            .take(want)
            .read_to_end(&mut raw)
            .map_err(|e| Error::io(p, e))?;
        if raw.len() as u64 != want {
            return Err(Error::Other(format!(
                "gave {} bytes, not the {size} it had when the list was made (did it change?)",
                k * bs + raw.len() as u64
            )));
        }
        hasher.update(&raw);
        on_block(Job {
            first: k == 0,
            last: k + 1 == n_blocks,
            raw,
        })?;
    }
    let mut more = [0u8; 1];
    if r.read(&mut more).map_err(|e| Error::io(p, e))? != 0 {
        return Err(Error::Other(format!(
            "gives more than the {size} bytes it had when the list was made (did it change?)"
        )));
    }
    Ok(toc_hash(&hasher))
}

/// UE stores the container header chunk uncompressed (checked: it is the
/// one stored block of each Zlib fixture that zlib would shrink).
fn is_container_header(c: &ChunkSpec, o: &Options) -> bool {
    c.id.id() == o.container_id && c.id.index() == 0 && matches!(c.id.raw_type(), 6 | 10)
}

fn in_chunk(e: Error, spec: &ChunkSpec) -> Error {
    let what = spec.path.clone().unwrap_or_else(|| spec.id.to_hex());
    Error::Other(format!("chunk {what}: {e}"))
}

/// Refuse what no container can hold: duplicate ids, chunks or totals past
/// 40 bits, paths outside the mount point.
fn check_chunks(chunks: &[ChunkSpec], o: &Options) -> Result<()> {
    if chunks.len() > i32::MAX as usize {
        return Err(Error::Other(format!(
            "{} chunks is more than a TOC holds",
            chunks.len()
        )));
    }
    let mut seen = std::collections::HashMap::with_capacity(chunks.len());
    let mut total = 0u64;
    let bs = u64::from(o.block_size);
    for (i, c) in chunks.iter().enumerate() {
        if let Some(j) = seen.insert(c.id, i) {
            let name = |k: usize| {
                chunks[k]
                    .path
                    .clone()
                    .unwrap_or_else(|| chunks[k].id.to_hex())
            };
            return Err(Error::Other(format!(
                "two chunks have the id {}: {} and {}",
                c.id,
                name(j),
                name(i)
            )));
        }
        if c.size > MAX_40_BIT {
            return Err(in_chunk(
                Error::Other(format!(
                    "{} bytes is over the 40-bit size limit of a TOC entry ({MAX_40_BIT})",
                    c.size
                )),
                c,
            ));
        }
        total = total.saturating_add(c.size.div_ceil(bs) * bs);
        if let Some(p) = &c.path {
            // Past the mount point's leading `../` run, a path names a file
            // below it: no `..`, `.`, empty parts, backslashes or drives.
            let rest = crate::container::relative_mount_point(p);
            let bad = rest
                .split('/')
                .any(|s| s == ".." || s == "." || s.is_empty())
                || rest.contains('\\')
                || rest.contains(':');
            if bad {
                return Err(in_chunk(
                    Error::Other(format!(
                        "its path {p:?} climbs out with .. or is not a plain relative path"
                    )),
                    c,
                ));
            }
        }
    }
    if total > MAX_40_BIT {
        return Err(Error::Other(format!(
            "the chunks add up to {total} bytes, over the 40-bit offset limit of a TOC ({MAX_40_BIT})"
        )));
    }
    Ok(())
}

/// Build the `.utoc` bytes from what was written.
fn assemble(
    chunks: &[ChunkSpec],
    o: &Options,
    hashes: &[[u8; 32]],
    blocks: Vec<CompressedBlock>,
    ivs: &mut Vec<[u8; 12]>,
    partitions: u32,
) -> Result<Vec<u8>> {
    let v = o.version;
    let bs = u64::from(o.block_size);
    let mut offsets = Vec::with_capacity(chunks.len());
    let mut off = 0u64;
    for c in chunks {
        offsets.push(OffsetLength {
            offset: off,
            length: c.size,
        });
        off += c.size.div_ceil(bs) * bs;
    }
    let metas: Vec<ChunkMeta> = chunks
        .iter()
        .zip(&offsets)
        .zip(hashes)
        .map(|((c, ol), h)| {
            let first = (ol.offset / bs) as usize;
            let end = (ol.offset + ol.length).div_ceil(bs) as usize;
            let mut flags = 0;
            if blocks[first..end].iter().any(|b| b.method_index != 0) {
                flags |= meta_flags::COMPRESSED;
            }
            if c.memory_mapped {
                flags |= meta_flags::MEMORY_MAPPED;
            }
            ChunkMeta {
                hash: *h,
                hash_len: if v >= TocVersion::ReplaceIoChunkHashWithIoHash as u8 {
                    20
                } else {
                    32
                },
                flags,
            }
        })
        .collect();
    // Slot order.
    let ids: Vec<ChunkId> = chunks.iter().map(|c| c.id).collect();
    let (order, seeds, overflow) = if v >= TocVersion::PerfectHash as u8 {
        let ph = perfect_hash::build(&ids);
        let order = ph.order();
        if v < TocVersion::PerfectHashWithOverflow as u8 && !ph.overflow.is_empty() {
            return Err(Error::Other(format!(
                "no perfect-hash seed fits {} of the chunk ids, and TOC v{v} has no overflow list: write v5 or later",
                ph.overflow.len()
            )));
        }
        let overflow = ph.overflow;
        (order, ph.seeds, overflow)
    } else {
        ((0..chunks.len()).collect(), Vec::new(), Vec::new())
    };
    let mut header_flags = 0u8;
    let method_names = if o.compression == Method::None {
        Vec::new()
    } else {
        header_flags |= flags::COMPRESSED;
        vec![compress_name(&o.compression).to_string()]
    };
    // Directory index.
    let paths: Vec<(usize, &str)> = order
        .iter()
        .enumerate()
        .filter_map(|(slot, &i)| chunks[i].path.as_deref().map(|p| (slot, p)))
        .collect();
    let mut directory_index = Vec::new();
    if !paths.is_empty() {
        header_flags |= flags::INDEXED;
        let mount = match &o.mount_point {
            Some(m) => m.clone(),
            None => common_mount_point(paths.iter().map(|p| p.1)),
        };
        let mut rel = Vec::with_capacity(paths.len());
        for (slot, p) in &paths {
            let r = p.strip_prefix(mount.as_str()).ok_or_else(|| {
                Error::Other(format!("path {p} is not under the mount point {mount}"))
            })?;
            rel.push((r, *slot as u32));
        }
        directory_index = DirectoryIndex::build(&mount, rel).to_bytes();
    }
    let mut encryption_method = 0u8;
    if o.key.is_some() {
        header_flags |= flags::ENCRYPTED;
        if !directory_index.is_empty() {
            let iv = encrypt(o, &mut directory_index, u64::MAX)?;
            ivs.push(iv);
        }
        if v >= TocVersion::ContainerEncryptionMethod as u8 {
            encryption_method = if o.cipher == Cipher::Ctr { 2 } else { 1 };
        }
    }
    let encryption_ivs = if encryption_method == 2 {
        std::mem::take(ivs)
    } else {
        Vec::new()
    };
    let (partition_count, partition_size) = match o.partition_size {
        Some(ps) => (partitions, ps),
        None => (1, u64::MAX),
    };
    let header = TocHeader {
        version: v,
        entry_count: chunks.len() as u32,
        block_count: blocks.len() as u32,
        method_name_count: method_names.len() as u32,
        method_name_length: 32,
        block_size: o.block_size,
        directory_index_size: directory_index.len() as u32,
        partition_count,
        container_id: o.container_id,
        encryption_key_guid: o.key_guid,
        flags: header_flags,
        encryption_method_raw: encryption_method,
        perfect_hash_seeds_count: seeds.len() as u32,
        partition_size,
        chunks_without_perfect_hash_count: overflow.len() as u32,
        source_hash_count: 0,
        encryption_iv_count: encryption_ivs.len() as u32,
    };
    let toc = Toc {
        header,
        chunk_ids: order.iter().map(|&i| ids[i]).collect(),
        offsets: order.iter().map(|&i| offsets[i]).collect(),
        perfect_hash_seeds: seeds,
        chunks_without_perfect_hash: overflow,
        blocks,
        encryption_ivs,
        method_names,
        signatures: None,
        directory_index_offset: 0,
        directory_index,
        metas: order.iter().map(|&i| metas[i]).collect(),
        on_demand: Vec::new(),
        numbering: Numbering::Ue5,
        compressed_prefix: Vec::new(),
    }
    .finish();
    Ok(toc.to_bytes())
}

/// The FName the engine uses for a method.
pub fn compress_name(m: &Method) -> &'static str {
    match m {
        Method::Zlib => "Zlib",
        Method::Gzip => "Gzip",
        Method::Lz4 => "LZ4",
        Method::Zstd => "Zstd",
        Method::Oodle => "Oodle",
        _ => "None",
    }
}

/// The options that rebuild `c` as it is: its version, id, block size,
/// method, partition size, key (the one it was opened with), cipher and
/// mount point. An Oodle container keeps `Method::Oodle`, which [`check`]
/// refuses: the caller must pick another method.
pub fn options_of(c: &Container) -> Options {
    let h = &c.toc().header;
    let compression = c
        .toc()
        .method_names
        .first()
        .map_or(Method::None, |n| Method::from_name(n));
    Options {
        version: h.version,
        container_id: h.container_id,
        compression,
        level: None,
        zlib: ZlibEncoder::default(),
        min_bytes_saved: 0,
        block_size: h.block_size,
        block_alignment: DEFAULT_BLOCK_ALIGNMENT,
        partition_size: (h.effective_partition_count() > 1).then(|| h.effective_partition_size()),
        key: if h.has(flags::ENCRYPTED) {
            c.key().cloned()
        } else {
            None
        },
        key_guid: if h.has(flags::ENCRYPTED) {
            h.encryption_key_guid
        } else {
            Guid::default()
        },
        cipher: if h.encryption() == crate::toc::EncryptionMethod::AesCtr {
            Cipher::Ctr
        } else {
            Cipher::Ecb
        },
        mount_point: c.mount_point().map(str::to_string),
    }
}

/// Every chunk of `c` in its `.ucas` layout order (by offset), with its
/// path under the stored mount point, read from `c` ([`Data::Chunk`]).
pub fn chunks_of(c: &Container) -> Vec<ChunkSpec> {
    let toc = c.toc();
    let mount = c.mount_point().unwrap_or("");
    let mut path: Vec<Option<String>> = vec![None; toc.len()];
    for f in c.indexed_files() {
        if let Some(p) = path.get_mut(f.toc_index as usize) {
            *p = Some(format!("{mount}{}", f.path));
        }
    }
    let mut order: Vec<usize> = (0..toc.len()).collect();
    order.sort_by_key(|&i| (toc.offsets[i].offset, i));
    order
        .into_iter()
        .map(|i| ChunkSpec {
            id: toc.chunk_ids[i],
            path: path[i].take(),
            data: Data::Chunk(i),
            size: toc.offsets[i].length,
            memory_mapped: toc.metas[i].flags & meta_flags::MEMORY_MAPPED != 0,
        })
        .collect()
}

#[cfg(test)]
mod tests;
