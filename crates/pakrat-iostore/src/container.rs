//! An opened container: the TOC, its `.ucas` partitions (memory-mapped), the
//! chosen AES key and the decoded directory index; reading blocks and chunks.
//!
//! Reading chunk `(offset, length)` with block size `BS` (UE `IoStore.cpp`;
//! CUE4Parse `IoStoreReader.cs`): blocks `offset / BS ..= (offset + length - 1) / BS`;
//! each block occupies `Align(CompressedSize, 16)` bytes at
//! `Offset % PartitionSize` in partition `Offset / PartitionSize`; decrypt,
//! decompress, join, and cut `[offset % BS, offset % BS + length)`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pakrat_io::{Error, Result, Source};
use rayon::prelude::*;

use crate::dirindex::{DirectoryIndex, IndexedFile};
use crate::perfect_hash;
use crate::toc::{flags, ChunkId, ChunkType, CompressedBlock, EncryptionMethod, ReadHazards, Toc};
use pakrat_codec::compress::{self, Method};
use pakrat_codec::keys::{AesKey, KeyRing};

/// Blocks decoded together (in parallel) while streaming a chunk.
pub const WINDOW_BLOCKS: usize = 32;
/// Uncompressed bytes after which a window is closed early (hostile TOCs can
/// claim blocks of up to 16 MiB).
pub const WINDOW_BYTES: usize = 4 << 20;

/// Decoded bytes of a chunk, as handed out by [`Container::stream_chunk_pieces`].
#[derive(Debug)]
pub enum Piece<'a> {
    /// A window decoded into an owned buffer; the chunk's bytes are the range.
    Owned(Vec<u8>, std::ops::Range<usize>),
    /// Stored bytes, straight from the mapped `.ucas`.
    Mapped(&'a [u8]),
}

/// One `.ucas` file.
pub struct Partition {
    /// Where it should be.
    pub path: PathBuf,
    /// Its bytes, when the file exists.
    pub source: Option<Source>,
    /// Why it could not be opened.
    pub error: Option<String>,
}

/// A chunk as listed: id, type, path and sizes.
#[derive(Clone, Debug)]
pub struct ChunkInfo {
    /// TOC entry index.
    pub index: usize,
    /// The chunk id.
    pub id: ChunkId,
    /// Its type under the container's numbering.
    pub chunk_type: ChunkType,
    /// Path from the directory index (mount point included, leading `../` removed).
    pub path: Option<String>,
    /// Offset in the uncompressed address space.
    pub offset: u64,
    /// Uncompressed size.
    pub size: u64,
    /// Sum of the compressed sizes of its blocks (unpadded).
    pub compressed_size: u64,
}

/// An opened IoStore container.
pub struct Container {
    path: PathBuf,
    toc: Toc,
    methods: Vec<Method>,
    partitions: Vec<Partition>,
    key: Option<AesKey>,
    directory: Option<DirectoryIndex>,
    files: Vec<IndexedFile>,
    directory_error: Option<String>,
    path_of: Vec<Option<u32>>,
    fallback: OnceLock<HashMap<ChunkId, usize>>,
    overflow: HashMap<ChunkId, usize>,
    hazards: OnceLock<ReadHazards>,
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("path", &self.path)
            .field("entries", &self.toc.len())
            .finish_non_exhaustive()
    }
}

/// Path of partition `p` of a container whose `.utoc` is `utoc`
/// (`Name.ucas`, `Name_s1.ucas`, ...; UE `IoStore.cpp`).
pub fn partition_path(utoc: &Path, p: u32) -> PathBuf {
    if p == 0 {
        utoc.with_extension("ucas")
    } else {
        let stem = utoc
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        utoc.with_file_name(format!("{stem}_s{p}.ucas"))
    }
}

/// The mount point without leading `../` and `/`, e.g. `Proj/Content/`.
pub fn relative_mount_point(mount: &str) -> &str {
    let mut m = mount;
    loop {
        if let Some(r) = m.strip_prefix("../") {
            m = r;
        } else if let Some(r) = m.strip_prefix('/') {
            m = r;
        } else {
            return m;
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl Container {
    /// Open a container from its `.utoc` (a `.ucas` path is accepted and
    /// mapped to its `.utoc`). Missing `.ucas` files are not an error here
    /// (TOC-only containers can be listed); reading their data is.
    ///
    /// For encrypted containers the key is chosen by the header's key GUID
    /// among `keys`; a key that does not decode the directory index (or the
    /// first compressed block) is reported as the wrong key. Without any key
    /// the container opens, but its directory and data cannot be read.
    pub fn open(path: impl AsRef<Path>, keys: &KeyRing) -> Result<Container> {
        let mut path = path.as_ref().to_path_buf();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ucas"))
        {
            path = path.with_extension("utoc");
        }
        let src = Source::open(&path)?;
        let toc = Toc::parse(&src).map_err(|e| e.in_file(&path))?;
        drop(src);
        let methods = std::iter::once(Method::None)
            .chain(toc.method_names.iter().map(|n| Method::from_name(n)))
            .collect();
        let partitions = (0..toc.header.effective_partition_count())
            .map(|p| {
                let pp = partition_path(&path, p);
                match Source::open(&pp) {
                    Ok(s) => Partition {
                        path: pp,
                        source: Some(s),
                        error: None,
                    },
                    Err(e) => Partition {
                        path: pp,
                        source: None,
                        error: Some(e.to_string()),
                    },
                }
            })
            .collect();
        let mut c = Container {
            path,
            path_of: vec![None; toc.len()],
            toc,
            methods,
            partitions,
            key: None,
            directory: None,
            files: Vec::new(),
            directory_error: None,
            fallback: OnceLock::new(),
            overflow: HashMap::new(),
            hazards: OnceLock::new(),
        };
        // Index the overflow list once (the engine searches it linearly).
        for &o in &c.toc.chunks_without_perfect_hash {
            if let Some(id) = usize::try_from(o).ok().and_then(|i| c.toc.chunk_ids.get(i)) {
                c.overflow.entry(*id).or_insert(o as usize);
            }
        }
        c.choose_key(keys)?;
        c.load_directory();
        Ok(c)
    }

    fn choose_key(&mut self, keys: &KeyRing) -> Result<()> {
        if self.toc.header.encryption() == EncryptionMethod::None {
            return Ok(());
        }
        let guid = self.toc.header.encryption_key_guid;
        let candidates = keys.candidates(guid);
        if candidates.is_empty() {
            return Ok(());
        }
        let mut last = String::new();
        for k in &candidates {
            match self.check_key(k) {
                Ok(()) => {
                    self.key = Some(*k);
                    return Ok(());
                }
                Err(e) => last = e.to_string(),
            }
        }
        Err(Error::Other(format!(
            "{}: wrong AES key: none of the {} key(s) given decrypts this container (key GUID {}): {last}",
            self.path.display(),
            candidates.len(),
            guid_text(guid),
        )))
    }

    /// Test a key: it must decode the directory index, or (without one) the
    /// first compressed block whose data is present.
    fn check_key(&self, k: &AesKey) -> Result<()> {
        if !self.toc.directory_index.is_empty() {
            return self.decode_directory(Some(k)).map(|_| ());
        }
        let first = self
            .toc
            .blocks
            .iter()
            .position(|b| b.method_index != 0 && b.compressed_size > 0);
        if let Some(i) = first {
            let b = self.toc.blocks[i];
            if self.block_bytes(i, &b, true).is_ok() {
                let mut out = vec![0u8; b.uncompressed_size as usize];
                return self.decode_block_with(i, &mut out, Some(k));
            }
        }
        // Nothing to test against (uncompressed and unindexed): accept;
        // `verify` still checks every chunk hash.
        Ok(())
    }

    fn decode_directory(&self, key: Option<&AesKey>) -> Result<DirectoryIndex> {
        let raw = &self.toc.directory_index;
        let base = self.toc.directory_index_offset;
        match self.toc.header.encryption() {
            EncryptionMethod::None => DirectoryIndex::parse(raw, base),
            m => {
                let k =
                    key.ok_or_else(|| Error::Other(self.need_key_message("directory index")))?;
                let mut d = raw.clone();
                if m == EncryptionMethod::AesCtr {
                    // The last IV belongs to the directory index (CUE4Parse `IoStoreReader.cs`).
                    let iv = self
                        .toc
                        .encryption_ivs
                        .get(self.toc.blocks.len())
                        .ok_or_else(|| {
                            Error::invalid(
                                0x68,
                                format!(
                                    "AES-CTR container has {} IVs; the directory index needs IV {}",
                                    self.toc.encryption_ivs.len(),
                                    self.toc.blocks.len()
                                ),
                            )
                        })?;
                    k.apply_ctr(iv, &mut d);
                } else {
                    k.decrypt_ecb(&mut d)?;
                }
                DirectoryIndex::parse(&d, base).map_err(|e| {
                    Error::Other(format!(
                        "the directory index does not decode after decryption ({e})"
                    ))
                })
            }
        }
    }

    fn need_key_message(&self, what: &str) -> String {
        format!(
            "{}: the {what} is encrypted: give the AES key with --aes-key or --keys (key GUID {})",
            self.path.display(),
            guid_text(self.toc.header.encryption_key_guid)
        )
    }

    fn load_directory(&mut self) {
        if !self.toc.header.has(flags::INDEXED) || self.toc.directory_index.is_empty() {
            return;
        }
        let res = self
            .decode_directory(self.key.as_ref())
            .and_then(|d| d.walk().map(|w| (d, w)));
        match res {
            Ok((d, files)) => {
                for (fi, f) in files.iter().enumerate() {
                    if let Some(slot) = self.path_of.get_mut(f.toc_index as usize) {
                        if slot.is_none() {
                            *slot = Some(fi as u32);
                        }
                    }
                }
                self.directory = Some(d);
                self.files = files;
            }
            Err(e) => self.directory_error = Some(e.to_string()),
        }
    }

    /// The `.utoc` path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed TOC.
    pub fn toc(&self) -> &Toc {
        &self.toc
    }

    /// The `.ucas` partitions.
    pub fn partitions(&self) -> &[Partition] {
        &self.partitions
    }

    /// True when every partition file is present.
    pub fn has_data(&self) -> bool {
        self.partitions.iter().all(|p| p.source.is_some())
    }

    /// The AES key in use, if the container is encrypted and a key was given.
    pub fn key(&self) -> Option<&AesKey> {
        self.key.as_ref()
    }

    /// Method of each method index (0 = None).
    pub fn methods(&self) -> &[Method] {
        &self.methods
    }

    /// The decoded directory index, or why it is not available.
    pub fn directory(&self) -> Result<Option<&DirectoryIndex>> {
        if let Some(e) = &self.directory_error {
            return Err(Error::Other(e.clone()));
        }
        Ok(self.directory.as_ref())
    }

    /// Why the directory index could not be read, if it could not.
    pub fn directory_error(&self) -> Option<&str> {
        self.directory_error.as_deref()
    }

    /// Files of the directory index (path below the mount point, TOC index).
    pub fn indexed_files(&self) -> &[IndexedFile] {
        &self.files
    }

    /// Mount point (as stored), if indexed and readable.
    pub fn mount_point(&self) -> Option<&str> {
        self.directory.as_ref().map(|d| d.mount_point.as_str())
    }

    /// Full path of entry `i` (mount point without leading `../` + path).
    pub fn path_of(&self, i: usize) -> Option<String> {
        let fi = (*self.path_of.get(i)?)?;
        let f = self.files.get(fi as usize)?;
        let mount = self.mount_point().map(relative_mount_point).unwrap_or("");
        Some(format!("{mount}{}", f.path))
    }

    /// Every entry with its id, type, path and sizes.
    pub fn chunks(&self) -> Vec<ChunkInfo> {
        (0..self.toc.len())
            .map(|i| ChunkInfo {
                index: i,
                id: self.toc.chunk_ids[i],
                chunk_type: self.toc.chunk_type(i),
                path: self.path_of(i),
                offset: self.toc.offsets[i].offset,
                size: self.toc.offsets[i].length,
                compressed_size: self.toc.compressed_size(i),
            })
            .collect()
    }

    /// Find an entry by chunk id: the perfect hash when the TOC has seeds,
    /// else (or when the hash misses) a map built from the id array.
    pub fn find_chunk(&self, id: &ChunkId) -> Option<usize> {
        let t = &self.toc;
        if let Some(i) = self.perfect_hash_slot(id) {
            return Some(i);
        }
        self.fallback
            .get_or_init(|| {
                let mut m = HashMap::with_capacity(t.len());
                for (i, c) in t.chunk_ids.iter().enumerate() {
                    m.entry(*c).or_insert(i);
                }
                m
            })
            .get(id)
            .copied()
    }

    /// The slot the perfect hash (seeds, then the overflow list) gives `id`.
    pub fn perfect_hash_slot(&self, id: &ChunkId) -> Option<usize> {
        let t = &self.toc;
        match perfect_hash::probe(&t.perfect_hash_seeds, &t.chunk_ids, id) {
            perfect_hash::Probe::Slot(s) => Some(s),
            perfect_hash::Probe::Absent => None,
            perfect_hash::Probe::Overflow => self.overflow.get(id).copied(),
        }
    }

    /// The first entry of a type (e.g. the container header), if any.
    pub fn find_by_type(&self, ty: ChunkType) -> Option<usize> {
        (0..self.toc.len()).find(|&i| self.toc.chunk_type(i) == ty)
    }

    fn encryption_error(&self, what: &str) -> Option<Error> {
        if self.toc.header.encryption() != EncryptionMethod::None && self.key.is_none() {
            Some(Error::Other(self.need_key_message(what)))
        } else {
            None
        }
    }

    /// The layout facts that would let a reader decode more than the
    /// `.ucas` honestly holds (shared blocks, overlapping block bytes,
    /// blocks over the block size): computed on first use, then kept.
    pub fn read_hazards(&self) -> &ReadHazards {
        self.hazards.get_or_init(|| self.toc.read_hazards())
    }

    /// `Err` when the container has a [`Container::read_hazards`] fact:
    /// every reader of chunk data (and so `extract`, `verify`, `packages`,
    /// `zen to-legacy`, the container header) refuses such a container, so
    /// that a few kilobytes cannot decode to gigabytes.
    pub fn check_readable(&self) -> Result<()> {
        let h = self.read_hazards();
        if h.is_empty() {
            return Ok(());
        }
        Err(Error::Other(format!(
            "{}: refusing to read chunk data: {}",
            self.path.display(),
            h.messages().collect::<Vec<_>>().join("; ")
        )))
    }

    /// The on-disk bytes of block `i`: `CompressedSize` bytes, or the
    /// 16-aligned size when `aligned` (needed for decryption).
    pub fn block_bytes(&self, i: usize, b: &CompressedBlock, aligned: bool) -> Result<&[u8]> {
        let psize = self.toc.header.effective_partition_size();
        let p = b.offset / psize;
        let off = b.offset % psize;
        let part = self.partitions.get(p as usize).ok_or_else(|| {
            Error::Other(format!(
                "{}: block {i} lies in partition {p} but the container has {}",
                self.path.display(),
                self.partitions.len()
            ))
        })?;
        let data = part.source.as_deref().ok_or_else(|| {
            Error::Other(format!(
                "{}: data file missing ({})",
                part.path.display(),
                part.error.as_deref().unwrap_or("not found")
            ))
        })?;
        let len = if aligned {
            b.disk_size()
        } else {
            u64::from(b.compressed_size)
        };
        let end = off.checked_add(len).filter(|&e| e <= data.len() as u64);
        match end {
            Some(end) => Ok(&data[off as usize..end as usize]),
            None => Err(Error::invalid(
                off,
                format!(
                    "block {i}: {len} bytes at {off:#x} lie outside {} ({} bytes)",
                    part.path.display(),
                    data.len()
                ),
            )
            .in_file(&part.path)),
        }
    }

    /// Decrypt and decompress block `i` into `out` (exactly its uncompressed size).
    pub fn read_block(&self, i: usize, out: &mut [u8]) -> Result<()> {
        self.check_readable()?;
        if let Some(e) = self.encryption_error("data") {
            return Err(e);
        }
        self.decode_block_with(i, out, self.key.as_ref())?;
        if let Some(b) = self.toc.blocks.get(i) {
            self.passed(b.offset, b.disk_size());
        }
        Ok(())
    }

    /// Count `len` bytes of the `.ucas` at `offset` (in the container's
    /// address space) as read: see [`Source::passed`], which keeps a pass
    /// over many small chunks from leaving the whole container resident.
    pub fn passed(&self, offset: u64, len: u64) {
        let psize = self.toc.header.effective_partition_size();
        if let Some(src) = self
            .partitions
            .get((offset / psize) as usize)
            .and_then(|p| p.source.as_ref())
        {
            src.passed(len);
        }
    }

    fn decode_block_with(&self, i: usize, out: &mut [u8], key: Option<&AesKey>) -> Result<()> {
        let b = *self.toc.blocks.get(i).ok_or_else(|| {
            Error::Other(format!(
                "block {i} does not exist ({} blocks)",
                self.toc.blocks.len()
            ))
        })?;
        if out.len() != b.uncompressed_size as usize {
            return Err(Error::Other(format!(
                "block {i}: output of {} bytes for an uncompressed size of {}",
                out.len(),
                b.uncompressed_size
            )));
        }
        let method = self
            .methods
            .get(usize::from(b.method_index))
            .ok_or_else(|| {
                Error::Other(format!(
                    "{}: block {i} uses compression method index {} but the TOC names {} methods",
                    self.path.display(),
                    b.method_index,
                    self.methods.len() - 1
                ))
            })?;
        let enc = self.toc.header.encryption();
        let ctx = |e: Error| -> Error {
            let hint = if enc != EncryptionMethod::None {
                " (after decryption: wrong AES key?)"
            } else {
                ""
            };
            Error::Other(format!(
                "{}: block {i} ({} bytes at {:#x}, method {}): {e}{hint}",
                self.path.display(),
                b.compressed_size,
                b.offset,
                self.toc.method_name(b.method_index).unwrap_or("?")
            ))
        };
        if enc == EncryptionMethod::None {
            let raw = self.block_bytes(i, &b, false)?;
            return compress::decompress(method, raw, out).map_err(ctx);
        }
        let key = key.ok_or_else(|| Error::Other(self.need_key_message("data")))?;
        let raw = self.block_bytes(i, &b, true)?;
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.clear();
            s.extend_from_slice(raw);
            if enc == EncryptionMethod::AesCtr {
                let iv = self.toc.encryption_ivs.get(i).ok_or_else(|| {
                    Error::Other(format!(
                        "{}: block {i} has no AES-CTR IV ({} IVs)",
                        self.path.display(),
                        self.toc.encryption_ivs.len()
                    ))
                })?;
                key.apply_ctr(iv, &mut s);
            } else {
                key.decrypt_ecb(&mut s)?;
            }
            compress::decompress(method, &s[..b.compressed_size as usize], out).map_err(ctx)
        })
    }

    /// Decode the blocks of entry `index` window by window (blocks of a window
    /// in parallel) and hand the chunk's bytes, in order, to `sink`. Memory
    /// stays at one window (`WINDOW_BLOCKS` blocks) per call.
    pub fn stream_chunk(&self, index: usize, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        self.stream_chunk_windowed(index, WINDOW_BLOCKS, sink)
    }

    /// [`Container::stream_chunk`] with windows of at most `window_blocks`
    /// blocks (at least 1; still closed early after `WINDOW_BYTES`). Small
    /// windows keep the decoded bytes in the CPU cache until they are
    /// written, which pays when many chunks are already decoded in parallel.
    pub fn stream_chunk_windowed(
        &self,
        index: usize,
        window_blocks: usize,
        mut sink: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        // One buffer, reused window after window.
        let slot = std::cell::Cell::new(Vec::new());
        self.stream_chunk_pieces(
            index,
            window_blocks,
            || slot.take(),
            |piece| match piece {
                Piece::Mapped(b) => sink(b),
                Piece::Owned(buf, r) => {
                    let res = sink(&buf[r]);
                    slot.set(buf);
                    res
                }
            },
        )
    }

    /// The engine of [`Container::stream_chunk_windowed`] for callers that
    /// hand the decoded bytes to another thread: each window is decoded
    /// into a buffer from `take_buf` (any length; it is resized) and passed
    /// to `sink` by value with the range that belongs to the chunk, so the
    /// buffer can be written elsewhere and given back for reuse. Stored,
    /// unencrypted runs come as slices of the mapped `.ucas` instead.
    pub fn stream_chunk_pieces<'a>(
        &'a self,
        index: usize,
        window_blocks: usize,
        mut take_buf: impl FnMut() -> Vec<u8>,
        mut sink: impl FnMut(Piece<'a>) -> Result<()>,
    ) -> Result<()> {
        let window_blocks = window_blocks.clamp(1, WINDOW_BLOCKS);
        self.check_readable()?;
        if let Some(e) = self.encryption_error("data") {
            return Err(e);
        }
        let range = self
            .toc
            .block_range(index)
            .map_err(|e| e.in_file(&self.path))?;
        let ol = self.toc.offsets[index];
        if ol.length == 0 {
            return Ok(());
        }
        let bs = u64::from(self.toc.header.block_size);
        let start = ol.offset % bs;
        let end = start + ol.length;
        let blocks = &self.toc.blocks[range.clone()];
        let total: u64 = blocks.iter().map(|b| u64::from(b.uncompressed_size)).sum();
        if total < end {
            return Err(Error::Other(format!(
                "{}: chunk {} ({}) needs {end} bytes from blocks {}..{} but they hold {total}",
                self.path.display(),
                index,
                self.toc.chunk_ids[index],
                range.start,
                range.end
            )));
        }
        if let Some(raw) = self.stored_run(range.clone()) {
            // Zero-copy: unencrypted stored blocks lying back to back.
            let data = raw
                .get(start as usize..end as usize)
                .ok_or_else(|| Error::Other(format!("chunk {index}: stored run too short")))?;
            let first = self.toc.blocks[range.start].offset;
            for piece in data.chunks(window_blocks * self.toc.header.block_size as usize) {
                sink(Piece::Mapped(piece))?;
                self.passed(first, piece.len() as u64);
            }
            return Ok(());
        }
        let mut pos = 0u64; // position of the window start in the joined blocks
        let mut w = range.start;
        while w < range.end {
            if pos >= end {
                break;
            }
            // A window ends after WINDOW_BLOCKS blocks or WINDOW_BYTES bytes,
            // whichever comes first (block sizes come from the file).
            let mut wend = w;
            let mut wbytes = 0usize;
            while wend < range.end
                && wend - w < window_blocks
                && (wend == w || wbytes < WINDOW_BYTES)
            {
                wbytes += self.toc.blocks[wend].uncompressed_size as usize;
                wend += 1;
            }
            let wblocks = &self.toc.blocks[w..wend];
            let wlen: usize = wblocks.iter().map(|b| b.uncompressed_size as usize).sum();
            let mut buf = take_buf();
            buf.resize(wlen, 0);
            let mut slices: Vec<(usize, &mut [u8])> = Vec::with_capacity(wblocks.len());
            let mut rest: &mut [u8] = &mut buf;
            for (k, b) in wblocks.iter().enumerate() {
                let (head, tail) = rest.split_at_mut(b.uncompressed_size as usize);
                slices.push((w + k, head));
                rest = tail;
            }
            if slices.len() == 1 {
                let (bi, out) = slices.pop().expect("one slice");
                self.read_block(bi, out)?;
            } else {
                slices
                    .into_par_iter()
                    .try_for_each(|(bi, out)| self.read_block(bi, out))?;
            }
            let wstart = pos;
            let wstop = pos + wlen as u64;
            let a = start.max(wstart);
            let z = end.min(wstop);
            if a < z {
                sink(Piece::Owned(
                    buf,
                    (a - wstart) as usize..(z - wstart) as usize,
                ))?;
            }
            pos = wstop;
            w = wend;
        }
        Ok(())
    }

    /// When every block of `range` is stored (method 0), unencrypted, in one
    /// partition and back to back on disk, their bytes as one slice.
    fn stored_run(&self, range: std::ops::Range<usize>) -> Option<&[u8]> {
        if self.toc.header.encryption() != EncryptionMethod::None || range.is_empty() {
            return None;
        }
        let blocks = self.toc.blocks.get(range.clone())?;
        let first = blocks.first()?;
        let mut next = first.offset;
        for b in blocks {
            if b.method_index != 0 || b.offset != next || b.compressed_size != b.uncompressed_size {
                return None;
            }
            next = b.offset + u64::from(b.compressed_size);
        }
        let psize = self.toc.header.effective_partition_size();
        if next == first.offset || first.offset / psize != (next - 1) / psize {
            return None;
        }
        let data = self
            .partitions
            .get((first.offset / psize) as usize)?
            .source
            .as_deref()?;
        let a = (first.offset % psize) as usize;
        data.get(a..a + (next - first.offset) as usize)
    }

    /// When entry `index` is stored (every block method 0, unencrypted, back
    /// to back in one partition), where its bytes lie: (partition, offset in
    /// that partition's file, length). Lets an extractor copy the bytes file
    /// to file in the kernel. `None` otherwise (or when the blocks do not
    /// cover the entry; [`Container::stream_chunk`] reports that).
    pub fn stored_extent(&self, index: usize) -> Option<(usize, u64, u64)> {
        self.check_readable().ok()?;
        let range = self.toc.block_range(index).ok()?;
        let ol = *self.toc.offsets.get(index)?;
        let bs = u64::from(self.toc.header.block_size);
        if ol.length == 0 || bs == 0 {
            return None;
        }
        let start = ol.offset % bs;
        let end = start.checked_add(ol.length)?;
        let run = self.stored_run(range.clone())?;
        if end > run.len() as u64 {
            return None;
        }
        let first = self.toc.blocks.get(range.start)?;
        let psize = self.toc.header.effective_partition_size();
        Some((
            (first.offset / psize) as usize,
            first.offset % psize + start,
            ol.length,
        ))
    }

    /// Tell the OS that the mapped `.ucas` pages of entry `index` are no
    /// longer needed by this process, so that a long extraction does not
    /// keep the whole container resident (the pages stay in the page cache;
    /// a later read simply maps them again). Best effort; a no-op off Linux.
    pub fn release(&self, index: usize) {
        let Ok(range) = self.toc.block_range(index) else {
            return;
        };
        let (Some(first), Some(last)) = (
            self.toc.blocks.get(range.start),
            range
                .end
                .checked_sub(1)
                .and_then(|l| self.toc.blocks.get(l)),
        ) else {
            return;
        };
        let psize = self.toc.header.effective_partition_size();
        let (a, z) = (first.offset, last.offset + last.disk_size());
        if a / psize != (z.saturating_sub(1)) / psize || z <= a {
            return;
        }
        if let Some(data) = self
            .partitions
            .get((a / psize) as usize)
            .and_then(|p| p.source.as_deref())
        {
            let start = (a % psize) as usize;
            let end = (start + (z - a) as usize).min(data.len());
            if start < end {
                release_pages(&data[start..end]);
            }
        }
    }

    /// The whole uncompressed bytes of entry `index`.
    pub fn read_chunk(&self, index: usize) -> Result<Vec<u8>> {
        let len = self
            .toc
            .offsets
            .get(index)
            .ok_or_else(|| {
                Error::Other(format!(
                    "chunk index {index} is out of range ({} entries)",
                    self.toc.len()
                ))
            })?
            .length;
        self.check_readable()?;
        // Bound the allocation by what the chunk's blocks can hold.
        let range = self
            .toc
            .block_range(index)
            .map_err(|e| e.in_file(&self.path))?;
        let held: u64 = self.toc.blocks[range]
            .iter()
            .map(|b| u64::from(b.uncompressed_size))
            .sum();
        let mut out = Vec::new();
        out.try_reserve_exact(len.min(held) as usize)
            .map_err(|_| Error::Other(format!("chunk {index}: cannot allocate {len} bytes")))?;
        self.stream_chunk(index, |b| {
            out.extend_from_slice(b);
            Ok(())
        })?;
        Ok(out)
    }

    /// The whole uncompressed bytes of entry `index`, borrowed from the
    /// mapped `.ucas` when its blocks are stored, unencrypted and back to
    /// back (no copy), else decoded as by [`Container::read_chunk`].
    pub fn chunk_bytes(&self, index: usize) -> Result<std::borrow::Cow<'_, [u8]>> {
        use std::borrow::Cow;
        let Some(ol) = self.toc.offsets.get(index).copied() else {
            return self.read_chunk(index).map(Cow::Owned);
        };
        self.check_readable()?;
        let range = self
            .toc
            .block_range(index)
            .map_err(|e| e.in_file(&self.path))?;
        let bs = u64::from(self.toc.header.block_size);
        let start = if bs == 0 { 0 } else { ol.offset % bs };
        let end = start.saturating_add(ol.length);
        if ol.length > 0 && self.encryption_error("data").is_none() {
            if let Some(raw) = self.stored_run(range.clone()) {
                if let Some(data) = usize::try_from(end)
                    .ok()
                    .and_then(|e| raw.get(start as usize..e))
                {
                    self.passed(self.toc.blocks[range.start].offset, ol.length);
                    return Ok(Cow::Borrowed(data));
                }
            }
        }
        // Everything else, errors included, as `read_chunk` has it.
        self.read_chunk(index).map(Cow::Owned)
    }

    /// The bytes of the chunk with this id.
    pub fn read_chunk_by_id(&self, id: &ChunkId) -> Result<Vec<u8>> {
        let i = self
            .find_chunk(id)
            .ok_or_else(|| Error::Other(format!("{}: no chunk {id}", self.path.display())))?;
        self.read_chunk(i)
    }
}

/// A key GUID as `%08X%08X%08X%08X`.
pub fn guid_text(g: pakrat_io::Guid) -> String {
    g.words.iter().map(|w| format!("{w:08X}")).collect()
}

/// `madvise(MADV_DONTNEED)` on the whole pages inside `data`, which must be
/// part of a read-only file mapping (a `Source`): the pages leave this
/// process's resident set and are faulted in again from the file if read.
#[cfg(target_os = "linux")]
fn release_pages(data: &[u8]) {
    const PAGE: usize = 4096;
    const MADV_DONTNEED: std::ffi::c_int = 4;
    unsafe extern "C" {
        fn madvise(
            addr: *mut std::ffi::c_void,
            len: usize,
            advice: std::ffi::c_int,
        ) -> std::ffi::c_int;
    }
    let p = data.as_ptr() as usize;
    let a = p.div_ceil(PAGE) * PAGE;
    let z = (p + data.len()) / PAGE * PAGE;
    if z > a {
        // SAFETY: [a, z) lies inside `data`, a read-only shared file mapping
        // owned by a `Source` that outlives this call. DONTNEED on such a
        // mapping only drops page-table entries: the contents seen through
        // the slice are unchanged (they are re-read from the same file), so
        // no Rust reference observes a change. Errors are ignored.
        unsafe {
            madvise(a as *mut std::ffi::c_void, z - a, MADV_DONTNEED);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn release_pages(_data: &[u8]) {}
