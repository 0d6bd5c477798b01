//! Writing paks of every version the engine mounts (1–15; v9 with a normal,
//! not frozen, index), laid out as UnrealPak lays them out. Checked byte for
//! byte against the corpus paks of UnrealPak 4.21–4.27 (`pak/repak_tests`):
//!
//! * files in the order given (sorted by path by default), each as a data
//!   header (the full [`PakEntry`] with offset 0) then its bytes, back to
//!   back, no alignment;
//! * compressed files in blocks of `block_size` (64 KiB), block offsets
//!   relative to the entry from v5; `CompressionBlockSize` is the file size
//!   when it fits one block; a file that does not shrink is stored (from
//!   v10, one that does not shrink by 1024 bytes: UE 4.26+ UnrealPak's
//!   `CompressionMinBytesSaved`, seen in the corpus paks);
//! * encrypted data padded to 16 bytes by repeating it from its start (each
//!   compressed block on its own), then AES-256-ECB (or CTR with an IV per
//!   entry for v15 `--cipher ctr`); the entry hash is SHA-1 of the stored
//!   bytes up to `Size` (ciphertext for encrypted entries);
//! * the index (and from v10 the path-hash index and full directory index
//!   behind it), each padded the same way and encrypted on its own with
//!   `encrypt_index`, hashed before encryption; then the footer.
//!
//! Zlib blocks match UnrealPak's only with [`ZlibEncoder::UnrealPak`] (the
//! reference zlib at level 6); the default, [`ZlibEncoder::Fast`]
//! (libdeflate at level 1), makes other (valid) streams at about a fifth
//! of the CPU time of a whole `pak create`.
//!
//! Small files are compressed in parallel in batches ([`BATCH_BYTES`]),
//! big ones block by block in windows ([`WINDOW`] blocks), so memory stays
//! bounded whatever the input.
//!
//! UnrealPak 4.20 (v5) pads encrypted stored files with bytes picked from
//! the file at random; pakrat pads them like later versions do, so those
//! paks match except in the padding.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::PathBuf;

use pakrat_io::{Error, Guid, Result, Writer};
use rayon::prelude::*;
use sha1::{Digest, Sha1};

use super::entry::{align16, Block, Layout, PakEntry, FLAG_ENCRYPTED};
use super::footer::{footer_size, PAK_MAGIC};
use super::index::{self, write_string};
use super::{pad_cyclic, sha1, Cipher};
use pakrat_codec::compress::{Method, ZlibEncoder};
use pakrat_codec::keys::AesKey;

/// Default compression block size (UnrealPak's).
pub const DEFAULT_BLOCK_SIZE: u32 = 64 * 1024;

/// What to write.
#[derive(Clone, Debug)]
pub struct Options {
    /// Pak version, 1–15.
    pub version: u32,
    /// Compression-method slots in a v8 footer: 4 (UE 4.22) or 5 (4.23+).
    pub method_slots: usize,
    /// Mount point (`../../../MyGame/Content/` and the like).
    pub mount_point: String,
    /// Compression of every file that shrinks.
    pub compression: Method,
    /// Compression level (codec's own scale; `None`: the encoder's default).
    pub level: Option<i32>,
    /// Zlib encoder: fast by default; [`ZlibEncoder::UnrealPak`] for
    /// UnrealPak's blocks byte for byte.
    pub zlib: ZlibEncoder,
    /// Compression block size.
    pub block_size: u32,
    /// Encrypt the files' data.
    pub encrypt: bool,
    /// Encrypt the index.
    pub encrypt_index: bool,
    /// The AES key (needed for either encryption).
    pub key: Option<AesKey>,
    /// The key's GUID, written to the footer (v7+).
    pub key_guid: Guid,
    /// Cipher (CTR only for v15).
    pub cipher: Cipher,
    /// Path hash seed (v10+); `None`: CRC-32 of the pak's lower-cased
    /// file name, as UnrealPak derives it.
    pub path_hash_seed: Option<u64>,
    /// Pakchunk index written to v14+ footers.
    pub pakchunk_index: i32,
    /// Store a file uncompressed unless compression saves this many bytes;
    /// `None`: UnrealPak's behaviour for the version (1024 from v10, UE
    /// 4.26's `-CompressionMinBytesSaved`; any saving before).
    pub min_bytes_saved: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            version: 11,
            method_slots: 5,
            mount_point: "../../../".into(),
            compression: Method::None,
            level: None,
            zlib: ZlibEncoder::default(),
            block_size: DEFAULT_BLOCK_SIZE,
            encrypt: false,
            encrypt_index: false,
            key: None,
            key_guid: Guid::default(),
            cipher: Cipher::Ecb,
            path_hash_seed: None,
            pakchunk_index: -1,
            min_bytes_saved: None,
        }
    }
}

/// One file to pack.
#[derive(Clone, Debug)]
pub struct Input {
    /// Path below the mount point (`/`-separated).
    pub path: String,
    /// Where its bytes are.
    pub source: PathBuf,
}

/// What was written.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// Entries written (with their final offsets and blocks).
    pub entries: Vec<PakEntry>,
    /// Bytes of file data read.
    pub input_bytes: u64,
    /// Size of the pak.
    pub pak_bytes: u64,
    /// Files stored uncompressed because compression did not shrink them.
    pub stored_uncompressed: u64,
}

/// UnrealPak's path hash seed for a pak file name: `FCrc::StrCrc32` (CRC-32
/// over the characters as 32-bit units) of the lower-cased name.
pub fn default_seed(file_name: &str) -> u64 {
    let mut bytes = Vec::new();
    for c in file_name.to_lowercase().chars() {
        bytes.extend_from_slice(&u32::from(c).to_le_bytes());
    }
    u64::from(crc32_ieee(&bytes))
}

fn crc32_ieee(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Check options before anything is read.
pub fn check(o: &Options) -> Result<()> {
    let bad = |m: String| Err(Error::Other(m));
    if !(1..=super::LATEST_VERSION).contains(&o.version) {
        return bad(format!(
            "pak version {} (pakrat writes 1–{})",
            o.version,
            super::LATEST_VERSION
        ));
    }
    if o.version == 8 && !matches!(o.method_slots, 4 | 5) {
        return bad("a v8 pak has 4 (UE 4.22) or 5 (UE 4.23+) method slots".into());
    }
    match &o.compression {
        Method::Oodle => {
            return bad("Oodle cannot be encoded: its encoder is Epic's closed library (pakrat only decodes Oodle); use zlib, gzip, lz4 or zstd".into())
        }
        Method::Unknown(n) => return bad(format!("unknown compression method {n:?}")),
        Method::None => {}
        m => {
            if o.version < 3 {
                return bad("compression needs pak version 3 or later".into());
            }
            if o.version < 8 && !matches!(m, Method::Zlib | Method::Gzip) {
                return bad("before pak version 8 only zlib and gzip can be named (LZ4 and Zstd need v8+)".into());
            }
        }
    }
    if o.block_size == 0 || o.block_size > super::MAX_BLOCK_SIZE {
        return bad(format!(
            "block size {} (1 to {} bytes)",
            o.block_size,
            super::MAX_BLOCK_SIZE
        ));
    }
    if (o.encrypt || o.encrypt_index) && o.key.is_none() {
        return bad("encryption needs a key (--keys Crypto.json or --aes-key)".into());
    }
    if o.encrypt && o.version < 3 {
        return bad("encrypted files need pak version 3 or later".into());
    }
    if o.encrypt_index && o.version < 4 {
        return bad("an encrypted index needs pak version 4 or later".into());
    }
    if o.cipher == Cipher::Ctr && o.version < 15 {
        return bad("AES-CTR needs pak version 15".into());
    }
    Ok(())
}

fn encrypt_in_place(o: &Options, data: &mut [u8], iv: Option<&[u8; 12]>, at: u64) -> Result<()> {
    let key = o
        .key
        .as_ref()
        .ok_or_else(|| Error::Other("no key".into()))?;
    match (o.cipher, iv) {
        (Cipher::Ctr, Some(iv)) => {
            key.apply_ctr_at(iv, at, data);
            Ok(())
        }
        _ => key.encrypt_ecb(data),
    }
}

/// A deterministic IV: never reused for different bytes under one key.
fn derive_iv(o: &Options, what: &[u8], digest: &[u8]) -> [u8; 12] {
    let mut h = Sha1::new();
    h.update(b"pakrat pak iv");
    if let Some(k) = &o.key {
        h.update(k.0);
    }
    h.update(what);
    h.update(digest);
    let d: [u8; 20] = h.finalize().into();
    let mut iv = [0u8; 12];
    iv.copy_from_slice(&d[..12]);
    iv
}

/// The method field of an entry.
fn method_field(o: &Options) -> u32 {
    match (&o.compression, o.version >= 8) {
        (Method::None, _) => 0,
        (_, true) => 1,
        (Method::Gzip, false) => 2,
        (_, false) => 1,
    }
}

fn method_name(m: &Method) -> &'static str {
    match m {
        Method::Zlib => "Zlib",
        Method::Gzip => "Gzip",
        Method::Lz4 => "LZ4",
        Method::Zstd => "Zstd",
        _ => "",
    }
}

/// Blocks of one big file compressed at a time (bounds memory to this
/// many blocks).
pub const WINDOW: usize = 64;

/// Input bytes of small files compressed together, in parallel across
/// files (files of at most [`WINDOW`] blocks go in batches).
pub const BATCH_BYTES: u64 = 32 << 20;

/// Most files in one batch (each stays mapped until it is written).
const BATCH_FILES: usize = 512;

/// Compressed blocks of one file, or of one window of a file.
type Compressed = Vec<Result<Vec<u8>>>;

fn compress_blocks(o: &Options, blocks: &[&[u8]]) -> Compressed {
    blocks
        .par_iter()
        .map(|c| pakrat_codec::compress::compress_with(&o.compression, o.level, o.zlib, c))
        .collect()
}

/// Write one file's entry at `offset` of `out`; returns the entry. `pre`:
/// its blocks, already compressed (else they are compressed here, window
/// by window).
#[allow(clippy::too_many_arguments)]
fn write_entry(
    mut out: &File,
    o: &Options,
    l: Layout,
    offset: u64,
    path: &str,
    data: &[u8],
    pre: Option<Compressed>,
    stored_count: &mut u64,
) -> Result<PakEntry> {
    let io = |e: std::io::Error| Error::Other(format!("writing the pak: {e}"));
    let usize_ = data.len() as u64;
    let mut e = PakEntry {
        path: path.to_string(),
        offset,
        size: usize_,
        uncompressed_size: usize_,
        method: 0,
        timestamp: (o.version < 2).then_some(0),
        hash: [0; 20],
        blocks: Vec::new(),
        flags: if o.encrypt { FLAG_ENCRYPTED } else { 0 },
        block_size: 0,
        iv: None,
        encoded: false,
    };
    if o.encrypt && o.cipher == Cipher::Ctr {
        e.iv = Some(derive_iv(o, path.as_bytes(), &sha1(data)));
    }
    let mut hasher = Sha1::new();
    if o.compression != Method::None && !data.is_empty() {
        let bs = o.block_size as usize;
        let n = data.len().div_ceil(bs);
        e.method = method_field(o);
        e.block_size = if n == 1 { usize_ as u32 } else { o.block_size };
        let hdr = l.full_size(true, n);
        let mut at = offset + hdr;
        out.seek(SeekFrom::Start(at)).map_err(io)?;
        let mut stored = 0u64;
        let first = at;
        let chunks: Vec<&[u8]> = data.chunks(bs).collect();
        let windows: Box<dyn Iterator<Item = Compressed>> = match pre {
            Some(p) => Box::new(std::iter::once(p)),
            None => Box::new(chunks.chunks(WINDOW).map(|w| compress_blocks(o, w))),
        };
        for comp in windows {
            for c in comp {
                let mut c = c?;
                let len = c.len() as u64;
                if o.encrypt {
                    pad_cyclic(&mut c);
                    encrypt_in_place(o, &mut c, e.iv.as_ref(), at - first)?;
                }
                hasher.update(&c);
                out.write_all(&c).map_err(io)?;
                e.blocks.push(Block {
                    start: at,
                    end: at + len,
                });
                at += c.len() as u64;
                stored += c.len() as u64;
            }
        }
        let min_saved = o
            .min_bytes_saved
            .unwrap_or(if o.version >= 10 { 1024 } else { 1 })
            .max(1);
        if stored < usize_ && usize_ - stored >= min_saved {
            e.size = stored;
            e.hash = hasher.finalize().into();
            let mut w = Writer::with_capacity(hdr as usize);
            e.write_full(&mut w, l, 0);
            out.seek(SeekFrom::Start(offset)).map_err(io)?;
            out.write_all(w.as_slice()).map_err(io)?;
            out.seek(SeekFrom::Start(at)).map_err(io)?;
            return Ok(e);
        }
        // It did not shrink: store it, as UnrealPak does.
        *stored_count += 1;
        e.method = 0;
        e.block_size = 0;
        e.blocks.clear();
        hasher = Sha1::new();
    }
    let hdr = l.full_size(false, 0);
    out.seek(SeekFrom::Start(offset + hdr)).map_err(io)?;
    const STEP: usize = 1 << 20;
    let mut done = 0usize;
    let mut buf = Vec::new();
    while done < data.len() {
        let n = STEP.min(data.len() - done);
        let piece = &data[done..done + n];
        if o.encrypt {
            buf.clear();
            buf.extend_from_slice(piece);
            if done + n == data.len() {
                // Pad the tail from the start of the whole file.
                let want = align16(data.len() as u64) as usize - data.len();
                for i in 0..want {
                    buf.push(data[i % data.len()]);
                }
            }
            encrypt_in_place(o, &mut buf, e.iv.as_ref(), done as u64)?;
            // The hash covers the ciphertext up to the file's size.
            hasher.update(&buf[..n]);
            out.write_all(&buf).map_err(io)?;
        } else {
            hasher.update(piece);
            out.write_all(piece).map_err(io)?;
        }
        done += n;
    }
    e.hash = hasher.finalize().into();
    let mut w = Writer::with_capacity(hdr as usize);
    e.write_full(&mut w, l, 0);
    out.seek(SeekFrom::Start(offset)).map_err(io)?;
    out.write_all(w.as_slice()).map_err(io)?;
    out.seek(SeekFrom::Start(offset + hdr + e.stored_extent()))
        .map_err(io)?;
    Ok(e)
}

/// Pad, hash and encrypt one index part: returns (stored bytes, hash).
fn seal(o: &Options, mut part: Vec<u8>, iv: Option<&[u8; 12]>) -> Result<(Vec<u8>, [u8; 20])> {
    if !o.encrypt_index {
        let h = sha1(&part);
        return Ok((part, h));
    }
    pad_cyclic(&mut part);
    let h = sha1(&part);
    encrypt_in_place(o, &mut part, iv, 0)?;
    Ok((part, h))
}

/// Write a pak of `inputs` (in that order) to `out`, which must be empty.
/// `file_name` gives the default path hash seed.
pub fn write(inputs: &[Input], o: &Options, out: &File, file_name: &str) -> Result<Written> {
    write_with(inputs, o, out, file_name, &|_| {})
}

/// [`write()`], calling `on_progress` with the bytes of each file packed.
pub fn write_with(
    inputs: &[Input],
    o: &Options,
    mut out: &File,
    file_name: &str,
    on_progress: &dyn Fn(u64),
) -> Result<Written> {
    check(o)?;
    let l = Layout::of(o.version, if o.version == 8 { o.method_slots } else { 5 });
    let io = |e: std::io::Error| Error::Other(format!("writing the pak: {e}"));
    let mut written = Written::default();
    let index_offset = write_files(inputs, o, l, out, &mut written, on_progress)?;
    out.seek(SeekFrom::Start(index_offset)).map_err(io)?;
    let index = SealedIndex::build(o, l, &written.entries, index_offset, file_name)?;
    out.write_all(&index.primary).map_err(io)?;
    out.write_all(&index.tail).map_err(io)?;
    out.write_all(&footer(o, index_offset, &index))
        .map_err(io)?;
    let end = out.stream_position().map_err(io)?;
    out.set_len(end).map_err(io)?;
    written.pak_bytes = end;
    Ok(written)
}

/// Every file's entry and data, batch by batch; the offset where the data
/// ends (the index's offset).
fn write_files(
    inputs: &[Input],
    o: &Options,
    l: Layout,
    out: &File,
    written: &mut Written,
    on_progress: &dyn Fn(u64),
) -> Result<u64> {
    let mut offset = 0u64;
    let mut i = 0;
    while i < inputs.len() {
        let batch = next_batch(inputs, i, o)?;
        let pre = precompress(o, &batch);
        for (src, pre) in batch.into_iter().zip(pre) {
            let inp = &inputs[i];
            i += 1;
            let res = write_entry(
                out,
                o,
                l,
                offset,
                &inp.path,
                &src,
                pre,
                &mut written.stored_uncompressed,
            );
            // A file cut short while it was read is the real cause of whatever
            // went wrong (zeros, or EFAULT from a write of its bytes).
            src.check()?;
            let e = res.map_err(|e| e.in_file(&inp.source))?;
            written.input_bytes += src.len() as u64;
            on_progress(src.len() as u64);
            offset = e.data_start(l) + e.stored_extent();
            written.entries.push(e);
        }
    }
    Ok(offset)
}

/// The next batch from input `i`: files up to BATCH_BYTES/BATCH_FILES, or
/// one big file (compressed window by window in write_entry).
fn next_batch(inputs: &[Input], i: usize, o: &Options) -> Result<Vec<pakrat_io::Source>> {
    let big = u64::from(o.block_size) * WINDOW as u64;
    let mut batch: Vec<pakrat_io::Source> = Vec::new();
    let mut bytes = 0u64;
    while i + batch.len() < inputs.len() && batch.len() < BATCH_FILES && bytes < BATCH_BYTES {
        let inp = &inputs[i + batch.len()];
        let src = pakrat_io::Source::open(&inp.source)?;
        let len = src.len() as u64;
        if o.compression != Method::None && len > big && !batch.is_empty() {
            break;
        }
        bytes += len;
        batch.push(src);
        if o.compression == Method::None || len > big {
            break;
        }
    }
    Ok(batch)
}

/// A batch of several small files compressed together (their blocks in one
/// parallel pass), each file's share; `None` each when the batch is one file
/// or nothing is compressed.
fn precompress(o: &Options, batch: &[pakrat_io::Source]) -> Vec<Option<Compressed>> {
    if o.compression == Method::None || batch.len() < 2 {
        return batch.iter().map(|_| None).collect();
    }
    let bs = o.block_size as usize;
    let blocks: Vec<&[u8]> = batch.iter().flat_map(|s| s.chunks(bs)).collect();
    let mut all = compress_blocks(o, &blocks).into_iter();
    batch
        .iter()
        .map(|s| Some(all.by_ref().take(s.len().div_ceil(bs)).collect()))
        .collect()
}

/// The index as stored: the primary index (sealed), what follows it (the
/// v10+ path-hash and directory indexes), its hash and the CTR IVs.
struct SealedIndex {
    primary: Vec<u8>,
    tail: Vec<u8>,
    hash: [u8; 20],
    ivs: [[u8; 12]; 3],
}

impl SealedIndex {
    fn build(
        o: &Options,
        l: Layout,
        entries: &[PakEntry],
        index_offset: u64,
        file_name: &str,
    ) -> Result<SealedIndex> {
        let ctr = o.cipher == Cipher::Ctr;
        let mut ivs = [[0u8; 12]; 3];
        let mut w = Writer::new();
        write_string(&mut w, &o.mount_point, false);
        w.i32(entries.len() as i32);
        let mut tail = Vec::new();
        if o.version < 10 {
            for e in entries {
                write_string(&mut w, &e.path, false);
                e.write_full(&mut w, l, e.offset);
            }
        } else {
            tail = write_v10_index(o, l, entries, index_offset, file_name, &mut w, &mut ivs)?;
        }
        let primary = w.into_inner();
        if o.encrypt_index && ctr {
            ivs[0] = derive_iv(o, b"index", &sha1(&primary));
        }
        let (primary, hash) = seal(o, primary, Some(&ivs[0]))?;
        Ok(SealedIndex {
            primary,
            tail,
            hash,
            ivs,
        })
    }
}

/// The v10+ primary index after its entry count (seed, the two secondary
/// indexes' places, encoded and full entries) into `w`; the secondary
/// indexes, sealed, to write after it.
fn write_v10_index(
    o: &Options,
    l: Layout,
    entries: &[PakEntry],
    index_offset: u64,
    file_name: &str,
    w: &mut Writer,
    ivs: &mut [[u8; 12]; 3],
) -> Result<Vec<u8>> {
    let ctr = o.cipher == Cipher::Ctr;
    let seed = o.path_hash_seed.unwrap_or_else(|| default_seed(file_name));
    let mut enc = Vec::new();
    let mut full: Vec<&PakEntry> = Vec::new();
    let mut locs: Vec<(&str, i32)> = Vec::new();
    for e in entries {
        match e.write_encoded(l, ctr) {
            Some(b) => {
                locs.push((&e.path, enc.len() as i32));
                enc.extend_from_slice(&b);
            }
            None => {
                full.push(e);
                locs.push((&e.path, -(full.len() as i32)));
            }
        }
    }
    let phi = index::write_path_hash_index(&locs, seed, o.version);
    let fdi = if o.version >= 13 {
        index::write_flat(&locs, seed, o.version)
    } else {
        index::write_nested(&locs, o.version)
    };
    if o.encrypt_index && ctr {
        ivs[1] = derive_iv(o, b"path hash index", &sha1(&phi));
        ivs[2] = derive_iv(o, b"directory index", &sha1(&fdi));
    }
    let (phi, phi_hash) = seal(o, phi, Some(&ivs[1]))?;
    let (fdi, fdi_hash) = seal(o, fdi, Some(&ivs[2]))?;
    // The primary index's size is known before the offsets are filled in.
    let mut primary_len = w.len() as u64 + 8 + 2 * (4 + 8 + 8 + 20) + 4 + enc.len() as u64 + 4;
    for e in &full {
        primary_len += e.header_size(l) + if ctr { 12 } else { 0 };
    }
    if o.encrypt_index {
        primary_len = align16(primary_len);
    }
    let phi_at = index_offset + primary_len;
    let fdi_at = phi_at + phi.len() as u64;
    w.u64(seed);
    w.u32(1).u64(phi_at).u64(phi.len() as u64).bytes(&phi_hash);
    w.u32(1).u64(fdi_at).u64(fdi.len() as u64).bytes(&fdi_hash);
    w.i32(enc.len() as i32).bytes(&enc);
    w.i32(full.len() as i32);
    for e in &full {
        e.write_full(w, l, e.offset);
    }
    if ctr {
        for e in &full {
            w.bytes(&e.iv.unwrap_or([0; 12]));
        }
    }
    let mut tail = phi;
    tail.extend_from_slice(&fdi);
    Ok(tail)
}

/// The footer of a pak whose index starts at `index_offset`.
fn footer(o: &Options, index_offset: u64, index: &SealedIndex) -> Vec<u8> {
    let ctr = o.cipher == Cipher::Ctr;
    let mut f = Writer::new();
    if o.version >= 7 {
        f.guid(o.key_guid);
    }
    if o.version >= 4 {
        f.u8(u8::from(o.encrypt_index));
    }
    f.u32(PAK_MAGIC)
        .u32(o.version)
        .u64(index_offset)
        .u64(index.primary.len() as u64)
        .bytes(&index.hash);
    if o.version == 9 {
        f.u8(0);
    }
    let slots = match o.version {
        0..=7 => 0,
        8 => o.method_slots,
        _ => 5,
    };
    for i in 0..slots {
        let mut name = [0u8; 32];
        if i == 0 {
            let n = method_name(&o.compression).as_bytes();
            name[..n.len()].copy_from_slice(n);
        }
        f.bytes(&name);
    }
    if o.version >= 14 {
        f.i32(o.pakchunk_index);
    }
    if o.version >= 15 {
        f.u8(if ctr { 2 } else { 1 });
        for iv in &index.ivs {
            f.bytes(iv);
        }
    }
    debug_assert_eq!(f.len(), footer_size(o.version, slots));
    f.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small files go in parallel batches, big ones window by window: a
    /// mix across several batches (more than BATCH_FILES files, big files
    /// between small ones, empty and incompressible ones) reads back in
    /// order, byte for byte, with good hashes.
    #[test]
    fn batches_keep_order_and_bytes() {
        let t = tempfile::tempdir().unwrap();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut inputs = Vec::new();
        let mut want = Vec::new();
        for i in 0..(BATCH_FILES + 150) {
            let len = match i % 97 {
                0 => 0,
                5 | 60 => 4096 * WINDOW + 12_345, // bigger than a window
                _ => (i * 131) % 9000 + 1,
            };
            let data: Vec<u8> = (0..len)
                .map(|j| {
                    if i % 11 == 3 {
                        // incompressible: stored
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        seed as u8
                    } else {
                        (j / 3 % 23) as u8 ^ i as u8
                    }
                })
                .collect();
            let path = t.path().join(format!("f{i}"));
            std::fs::write(&path, &data).unwrap();
            inputs.push(Input {
                path: format!("d/f{i}.bin"),
                source: path,
            });
            want.push(data);
        }
        let o = Options {
            compression: Method::Zlib,
            block_size: 4096,
            ..Options::default()
        };
        let out = t.path().join("x.pak");
        let f = File::create(&out).unwrap();
        let w = write(&inputs, &o, &f, "x.pak").unwrap();
        drop(f);
        assert!(w.stored_uncompressed > 0);
        let p = super::super::Pak::open(&out, &crate::KeyRing::new()).unwrap();
        assert_eq!(p.index.entries.len(), inputs.len());
        let mut by_offset: Vec<&PakEntry> = p.index.entries.iter().collect();
        by_offset.sort_by_key(|e| e.offset);
        for (k, e) in by_offset.iter().enumerate() {
            assert_eq!(e.path, inputs[k].path);
            assert_eq!(p.stored_hash(e).unwrap(), p.recorded_hash(e).unwrap());
            assert!(p.read(e).unwrap() == want[k], "{}", e.path);
        }
    }
}
