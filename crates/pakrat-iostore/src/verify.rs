//! `verify`: every structural rule of the TOC, then (when the `.ucas` files
//! are present) every block's bounds, padding and signature hash, and every
//! chunk's hash.
//!
//! Chunk hashes: from v8 the meta holds `FIoHash` = the first 20 bytes of
//! BLAKE3-256 of the uncompressed chunk (UE `IoHash.h`); v5–v7 metas hold the
//! same 20 bytes followed by 12 zero bytes (checked on real files). For v1–v4
//! nothing is in the corpus; UnrealReZen writes SHA-1 there, so both forms
//! are accepted and the report says which one matched.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;
use sha1::Digest;

use crate::container::Container;
use crate::toc::{flags, EncryptionMethod, TocVersion};

/// What went wrong, by area.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// Area: `toc`, `block`, `chunk-hash`, `perfect-hash`, `directory`, `signature`, `data`.
    pub area: &'static str,
    /// What was found, naming the block or chunk.
    pub message: String,
}

/// Summary of a verification.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    /// Entries in the TOC.
    pub chunks: usize,
    /// Chunk hashes that matched.
    pub chunk_hashes_ok: u64,
    /// Blocks whose bounds were checked against the `.ucas` files.
    pub blocks_checked: u64,
    /// Block SHA-1s that matched the signature table.
    pub block_signatures_ok: u64,
    /// Entries resolved through the perfect hash.
    pub perfect_hash_ok: u64,
    /// Directory index files checked.
    pub directory_files: u64,
    /// Which hash the chunk metas hold (`blake3-160`, `sha1`...).
    pub hash_kind: String,
    /// Whether the data (`.ucas`) could be checked.
    pub data_checked: bool,
    /// Failures.
    pub failures: Vec<Finding>,
    /// Things that are unusual but valid.
    pub warnings: Vec<Finding>,
}

impl Report {
    /// True when nothing failed.
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

struct Sink {
    failures: Mutex<Vec<Finding>>,
    warnings: Mutex<Vec<Finding>>,
}

impl Sink {
    fn fail(&self, area: &'static str, message: String) {
        if let Ok(mut f) = self.failures.lock() {
            f.push(Finding { area, message });
        }
    }
    fn warn(&self, area: &'static str, message: String) {
        if let Ok(mut f) = self.warnings.lock() {
            f.push(Finding { area, message });
        }
    }
}

/// The layout rules that make extraction safe and bounded: block methods,
/// sizes and partitions, chunk block ranges, no block shared between
/// chunks (a 10 KB TOC whose chunks all point at the same blocks once made
/// `extract` write 8 GiB), no two blocks over the same `.ucas` bytes.
/// Returns true when chunks share blocks or blocks share bytes (the data is
/// then not read).
fn check_layout(c: &Container, sink: &Sink) -> bool {
    let toc = c.toc();
    let h = &toc.header;
    let bs = u64::from(h.block_size);
    // Blocks: method index, sizes, partitions.
    let psize = h.effective_partition_size();
    for (i, b) in toc.blocks.iter().enumerate() {
        if usize::from(b.method_index) > toc.method_names.len() {
            sink.fail(
                "block",
                format!(
                    "block {i}: method index {} but the TOC names {} methods",
                    b.method_index,
                    toc.method_names.len()
                ),
            );
        } else if let Some(m) = c.methods().get(usize::from(b.method_index)) {
            if !m.supported() {
                sink.fail(
                    "block",
                    format!(
                        "block {i}: compression method {:?} cannot be decoded by this build",
                        toc.method_name(b.method_index).unwrap_or("?")
                    ),
                );
            }
        }
        if u64::from(b.uncompressed_size) > bs {
            sink.fail(
                "block",
                format!(
                    "block {i}: uncompressed size {} exceeds the block size {bs}",
                    b.uncompressed_size
                ),
            );
        }
        if b.method_index == 0 && b.compressed_size != b.uncompressed_size {
            sink.fail(
                "block",
                format!(
                    "block {i}: stored block with compressed size {} != uncompressed size {}",
                    b.compressed_size, b.uncompressed_size
                ),
            );
        }
        let p = b.offset / psize;
        if p >= u64::from(h.effective_partition_count()) {
            sink.fail(
                "block",
                format!(
                    "block {i}: offset {:#x} lies in partition {p} of {}",
                    b.offset,
                    h.effective_partition_count()
                ),
            );
        } else if psize != u64::MAX && b.offset % psize + b.disk_size() > psize {
            sink.fail(
                "block",
                format!("block {i}: crosses the end of partition {p}"),
            );
        }
    }
    if h.encryption() == EncryptionMethod::AesCtr {
        let need = toc.blocks.len() + usize::from(!toc.directory_index.is_empty());
        if toc.encryption_ivs.len() < need {
            sink.fail(
                "toc",
                format!(
                    "AES-CTR container has {} IVs but needs {need}",
                    toc.encryption_ivs.len()
                ),
            );
        }
    }

    // Chunks: block ranges, full middle blocks, sizes. UE's writer starts
    // every chunk on a block boundary and gives every block its own bytes,
    // so no two chunks share a block and no two blocks share bytes; a TOC
    // that breaks either would decode the same bytes many times (a 2 KB
    // TOC wrote 1 GiB), so it is reported, not walked chunk by chunk (a
    // hostile one could make that quadratic), and its data is not read.
    let hz = c.read_hazards();
    if let Some(m) = &hz.shared_blocks {
        sink.fail("toc", format!("{m}: chunk data not checked"));
    }
    if let Some(m) = &hz.overlapping_blocks {
        sink.fail("block", format!("{m}: chunk data not checked"));
    }
    let shared = hz.shared_blocks.is_some();
    let mut covered = vec![false; toc.blocks.len()];
    for i in (0..toc.len()).filter(|_| !shared) {
        let r = match toc.block_range(i) {
            Ok(r) => r,
            Err(e) => {
                sink.fail("toc", e.to_string());
                continue;
            }
        };
        let ol = toc.offsets[i];
        let mut total = 0u64;
        for bi in r.clone() {
            covered[bi] = true;
            let b = toc.blocks[bi];
            total += u64::from(b.uncompressed_size);
            if bi + 1 < r.end && u64::from(b.uncompressed_size) != bs {
                sink.fail(
                    "block",
                    format!("chunk {i} ({}): block {bi} in the middle of the chunk holds {} bytes, not the block size {bs}", toc.chunk_ids[i], b.uncompressed_size),
                );
            }
        }
        if ol.length > 0 && total < ol.offset % bs + ol.length {
            sink.fail(
                "block",
                format!(
                    "chunk {i} ({}): its blocks hold {total} bytes, fewer than the {} it needs",
                    toc.chunk_ids[i],
                    ol.offset % bs + ol.length
                ),
            );
        }
    }
    let uncovered = covered.iter().filter(|c| !**c).count();
    if uncovered > 0 {
        sink.warn("block", format!("{uncovered} blocks belong to no chunk"));
    }

    shared || hz.overlapping_blocks.is_some()
}

/// The failures of the layout rules [`verify`] checks before any data
/// (see `check_layout`): [`crate::extract`] refuses a container that has any,
/// so that it never writes what `verify` would call broken.
pub fn layout(c: &Container) -> Vec<Finding> {
    let sink = Sink {
        failures: Mutex::new(Vec::new()),
        warnings: Mutex::new(Vec::new()),
    };
    check_layout(c, &sink);
    let mut f = sink.failures.into_inner().unwrap_or_default();
    f.sort_by(|a, b| (a.area, &a.message).cmp(&(b.area, &b.message)));
    f
}

/// Options of [`verify_with`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Accept a container in which no chunk has a hash (otherwise a
    /// failure: such a container cannot be verified at all).
    pub allow_unhashed: bool,
}

/// Inputs of [`ChunkHasher::update`] at least this large are hashed in
/// parallel when asked (below about 128 KiB BLAKE3's rayon mode is slower
/// than one thread, as its documentation says).
pub const PARALLEL_HASH_MIN: usize = 1 << 20;

/// A chunk hash being computed as its bytes stream by: BLAKE3 (every
/// version), and SHA-1 too where old writers stored it (before v5).
pub struct ChunkHasher {
    b3: blake3::Hasher,
    s1: Option<sha1::Sha1>,
    parallel: bool,
}

impl ChunkHasher {
    /// A hasher for a container of TOC version `version`.
    pub fn new(version: u8) -> Self {
        ChunkHasher {
            b3: blake3::Hasher::new(),
            s1: (version < TocVersion::PerfectHashWithOverflow as u8).then(sha1::Sha1::new),
            parallel: false,
        }
    }

    /// Hash large inputs with BLAKE3's rayon mode ([`PARALLEL_HASH_MIN`]):
    /// for a caller that works on one chunk while the pool has threads to
    /// spare. Off by default: when every thread of the pool is busy with
    /// chunks of its own, splitting a hash only adds work (measured: more
    /// CPU-seconds for `verify`, no shorter wall time).
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    /// Add the next bytes (in parallel, see [`ChunkHasher::parallel`]:
    /// parts of `d` on the threads of the current pool that are free).
    pub fn update(&mut self, d: &[u8]) {
        if self.parallel && d.len() >= PARALLEL_HASH_MIN {
            self.b3.update_rayon(d);
        } else {
            self.b3.update(d);
        }
        if let Some(s) = self.s1.as_mut() {
            s.update(d);
        }
    }

    /// Compare with the stored meta hash: `None` when nothing is stored
    /// (all zero), else whether it matches; the computed BLAKE3-160 in hex.
    pub fn check(self, stored: &[u8]) -> (Option<bool>, String) {
        let mut want_b3 = [0u8; 32];
        want_b3[..20].copy_from_slice(&self.b3.finalize().as_bytes()[..20]);
        let computed = hex(&want_b3[..20]);
        if stored.iter().all(|&x| x == 0) {
            return (None, computed);
        }
        let matches = |cand: &[u8; 32]| stored == &cand[..stored.len().min(32)];
        let mut ok = matches(&want_b3);
        if !ok {
            if let Some(s) = self.s1 {
                let mut want = [0u8; 32];
                want[..20].copy_from_slice(&s.finalize());
                ok = matches(&want);
            }
        }
        (Some(ok), computed)
    }
}

/// Check a container. `on_progress` is called with uncompressed bytes done.
pub fn verify(c: &Container, on_progress: &(dyn Fn(u64) + Sync)) -> Report {
    verify_with(c, on_progress, &Options::default())
}

/// [`verify`] with options: the TOC's own checks, then the blocks and the
/// chunk hashes when the data can be read.
pub fn verify_with(c: &Container, on_progress: &(dyn Fn(u64) + Sync), opts: &Options) -> Report {
    let toc = c.toc();
    let h = &toc.header;
    let sink = Sink {
        failures: Mutex::new(Vec::new()),
        warnings: Mutex::new(Vec::new()),
    };
    let mut report = Report {
        chunks: toc.len(),
        ..Report::default()
    };
    if h.flags & !flags::KNOWN != 0 {
        sink.warn(
            "toc",
            format!("unknown container flag bits {:#x}", h.flags & !flags::KNOWN),
        );
    }
    let shared = check_layout(c, &sink);
    check_chunk_ids(c, &sink);
    report.perfect_hash_ok = check_perfect_hash(c, &sink);
    report.directory_files = check_directory(c, &sink);
    report.hash_kind = hash_kind(h.version).to_string();
    match data_unreadable(c, shared) {
        Some(Some(why)) => sink.fail("data", why),
        Some(None) => {}
        None => {
            report.data_checked = true;
            let (blocks, signatures) = check_blocks(c, &sink);
            report.blocks_checked = blocks;
            report.block_signatures_ok = signatures;
            report.chunk_hashes_ok = check_chunk_hashes(c, &sink, on_progress, opts);
        }
    }
    report.failures = sink.failures.into_inner().unwrap_or_default();
    report.warnings = sink.warnings.into_inner().unwrap_or_default();
    // Parallel checks finish in any order; report in a stable one.
    report
        .failures
        .sort_by(|a, b| (a.area, &a.message).cmp(&(b.area, &b.message)));
    report
        .warnings
        .sort_by(|a, b| (a.area, &a.message).cmp(&(b.area, &b.message)));
    report
}

/// Chunk ids are unique.
fn check_chunk_ids(c: &Container, sink: &Sink) {
    let toc = c.toc();
    let mut seen = std::collections::HashMap::with_capacity(toc.len());
    for (i, id) in toc.chunk_ids.iter().enumerate() {
        if let Some(j) = seen.insert(*id, i) {
            sink.fail(
                "toc",
                format!("chunk id {id} appears twice (entries {j} and {i})"),
            );
        }
    }
}

/// The perfect hash resolves every id to its own slot; the count that do.
fn check_perfect_hash(c: &Container, sink: &Sink) -> u64 {
    let toc = c.toc();
    let h = &toc.header;
    if toc.perfect_hash_seeds.is_empty() {
        if h.version >= TocVersion::PerfectHash as u8 && !toc.is_empty() {
            sink.warn(
                "perfect-hash",
                "no perfect-hash seeds: the engine falls back to an imperfect hash map".into(),
            );
        }
        return 0;
    }
    let expect = toc.len().div_ceil(2).max(1);
    if toc.perfect_hash_seeds.len() != expect {
        sink.warn(
            "perfect-hash",
            format!(
                "{} seeds for {} entries (the UE writer makes {expect})",
                toc.perfect_hash_seeds.len(),
                toc.len()
            ),
        );
    }
    for &o in &toc.chunks_without_perfect_hash {
        if o < 0 || o as usize >= toc.len() {
            sink.fail(
                "perfect-hash",
                format!("overflow entry {o} is outside the {} entries", toc.len()),
            );
        }
    }
    let mut ok = 0u64;
    for (i, id) in toc.chunk_ids.iter().enumerate() {
        match c.perfect_hash_slot(id) {
            Some(s) if s == i => ok += 1,
            Some(s) => sink.fail(
                "perfect-hash",
                format!("chunk {i} ({id}) resolves to slot {s}"),
            ),
            None => sink.fail(
                "perfect-hash",
                format!("chunk {i} ({id}) is not found through the perfect hash"),
            ),
        }
    }
    ok
}

/// Every file of the directory index points at its own TOC entry; the
/// count of indexed files.
fn check_directory(c: &Container, sink: &Sink) -> u64 {
    let toc = c.toc();
    if !toc.header.has(flags::INDEXED) {
        return 0;
    }
    match c.directory() {
        Err(e) => sink.fail("directory", e.to_string()),
        Ok(None) => {}
        Ok(Some(_)) => {
            let mut files = 0;
            let mut owner = vec![None; toc.len()];
            for f in c.indexed_files() {
                files += 1;
                match owner.get_mut(f.toc_index as usize) {
                    None => sink.fail(
                        "directory",
                        format!(
                            "{}: points at TOC entry {} but there are {}",
                            f.path,
                            f.toc_index,
                            toc.len()
                        ),
                    ),
                    Some(Some(prev)) => sink.fail(
                        "directory",
                        format!(
                            "{} and {prev} both point at TOC entry {}",
                            f.path, f.toc_index
                        ),
                    ),
                    Some(slot) => *slot = Some(f.path.clone()),
                }
            }
            return files;
        }
    }
    0
}

/// The chunk hash a TOC of this version stores.
fn hash_kind(version: u8) -> &'static str {
    if version >= TocVersion::ReplaceIoChunkHashWithIoHash as u8 {
        "blake3-160"
    } else if version >= TocVersion::PerfectHashWithOverflow as u8 {
        "blake3-160 (zero-extended to 32 bytes)"
    } else {
        "blake3-160 or sha1 (zero-extended)"
    }
}

/// Why the data cannot be checked: `None` when it can, `Some(None)` when
/// there is nothing to say (no data to miss, or the layout failure already
/// said it), `Some(Some(message))` for a failure.
fn data_unreadable(c: &Container, shared: bool) -> Option<Option<String>> {
    let toc = c.toc();
    let missing: Vec<String> = c
        .partitions()
        .iter()
        .filter(|p| p.source.is_none())
        .map(|p| p.path.display().to_string())
        .collect();
    let encrypted_no_key = toc.header.encryption() != EncryptionMethod::None && c.key().is_none();
    // A container with no blocks and no chunk data has nothing in its
    // .ucas to check: a missing one is no failure.
    let no_data = toc.blocks.is_empty() && toc.offsets.iter().all(|o| o.length == 0);
    if !missing.is_empty() && no_data {
        Some(None)
    } else if !missing.is_empty() {
        Some(Some(format!(
            "data file(s) missing, blocks and chunk hashes not checked: {}",
            missing.join(", ")
        )))
    } else if shared {
        Some(None)
    } else if encrypted_no_key {
        Some(Some(
            "the container is encrypted and no key was given: blocks and chunk hashes not checked"
                .into(),
        ))
    } else {
        None
    }
}

/// Counters of the block pass.
#[derive(Default)]
struct BlockTally {
    checked: AtomicU64,
    signatures_ok: AtomicU64,
    bad_padding: AtomicU64,
    short_padding: AtomicU64,
}

/// Every block: readable, its signature hash where the TOC has one, and its
/// padding; (blocks checked, signatures that match).
fn check_blocks(c: &Container, sink: &Sink) -> (u64, u64) {
    let toc = c.toc();
    let tally = BlockTally::default();
    (0..toc.blocks.len()).into_par_iter().for_each(|i| {
        check_block(c, i, sink, &tally);
        // Done with its mapped bytes (see `Source::passed`).
        let b = toc.blocks[i];
        c.passed(b.offset, b.disk_size());
    });
    let bp = tally.bad_padding.into_inner();
    if bp > 0 {
        sink.warn("block", format!("{bp} blocks are not padded with the UE writer's cyclic rule (valid, but not byte-identical to UE output)"));
    }
    let sp = tally.short_padding.into_inner();
    if sp > 0 {
        sink.warn(
            "block",
            format!("{sp} blocks are not padded to 16 bytes at the end of their file"),
        );
    }
    if toc.signatures.is_some() {
        sink.warn(
            "signature",
            "the RSA TOC and block signatures are not checked (they need the game's public key)"
                .into(),
        );
    }
    (tally.checked.into_inner(), tally.signatures_ok.into_inner())
}

/// One block of [`check_blocks`].
fn check_block(c: &Container, i: usize, sink: &Sink, tally: &BlockTally) {
    let toc = c.toc();
    let b = toc.blocks[i];
    let raw = match c.block_bytes(i, &b, true) {
        Ok(r) => r,
        Err(_) => match c.block_bytes(i, &b, false) {
            Ok(r) => {
                tally.short_padding.fetch_add(1, Ordering::Relaxed);
                r
            }
            Err(e) => {
                sink.fail("block", e.to_string());
                return;
            }
        },
    };
    tally.checked.fetch_add(1, Ordering::Relaxed);
    if let Some(want) = toc.signatures.as_ref().and_then(|s| s.block_hashes.get(i)) {
        let got = sha1::Sha1::digest(raw);
        if got.as_slice() == want {
            tally.signatures_ok.fetch_add(1, Ordering::Relaxed);
        } else {
            sink.fail(
                "signature",
                format!("block {i}: SHA-1 of its on-disk bytes does not match the signature table"),
            );
        }
    }
    // Padding: the UE writer repeats the block's own bytes cyclically
    // (UE `IoStoreWriter.cpp`); other writers differ, so this is a warning.
    let n = b.compressed_size as usize;
    if n > 0 && raw.len() > n {
        let Some(plain) = decrypted_block(c, i, raw) else {
            return;
        };
        let cyclic = plain[n..]
            .iter()
            .enumerate()
            .all(|(j, &x)| x == plain[j % n]);
        if !cyclic {
            tally.bad_padding.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A block's bytes as the writer laid them out (decrypted); `None` when
/// they cannot be decrypted.
fn decrypted_block<'a>(
    c: &Container,
    i: usize,
    raw: &'a [u8],
) -> Option<std::borrow::Cow<'a, [u8]>> {
    let toc = c.toc();
    match (toc.header.encryption(), c.key()) {
        (EncryptionMethod::None, _) => Some(raw.into()),
        (EncryptionMethod::AesEcb, Some(k)) => {
            let mut v = raw.to_vec();
            k.decrypt_ecb(&mut v).ok()?;
            Some(v.into())
        }
        (EncryptionMethod::AesCtr, Some(k)) => {
            let iv = toc.encryption_ivs.get(i)?;
            let mut v = raw.to_vec();
            k.apply_ctr(iv, &mut v);
            Some(v.into())
        }
        _ => None,
    }
}

/// Every chunk streamed and hashed against the TOC's meta hash; the count
/// that match.
fn check_chunk_hashes(
    c: &Container,
    sink: &Sink,
    on_progress: &(dyn Fn(u64) + Sync),
    opts: &Options,
) -> u64 {
    let toc = c.toc();
    let hashes_ok = AtomicU64::new(0);
    let unhashed = AtomicU64::new(0);
    let version = toc.header.version;
    (0..toc.len()).into_par_iter().for_each(|i| {
        let meta = toc.metas[i];
        let mut hasher = ChunkHasher::new(version);
        let res = c.stream_chunk(i, |d| {
            hasher.update(d);
            on_progress(d.len() as u64);
            Ok(())
        });
        c.release(i);
        if let Err(e) = res {
            sink.fail("chunk", format!("chunk {i} ({}): {e}", toc.chunk_ids[i]));
            return;
        }
        let stored = meta.hash_bytes();
        match hasher.check(stored) {
            (None, _) => {
                unhashed.fetch_add(1, Ordering::Relaxed);
                sink.warn(
                    "chunk-hash",
                    format!(
                        "chunk {i} ({}): no hash stored (all zero)",
                        toc.chunk_ids[i]
                    ),
                );
            }
            (Some(true), _) => {
                hashes_ok.fetch_add(1, Ordering::Relaxed);
            }
            (Some(false), computed) => sink.fail(
                "chunk-hash",
                format!(
                    "chunk {i} ({}{}): hash mismatch: stored {}, computed BLAKE3-160 {computed}",
                    toc.chunk_ids[i],
                    c.path_of(i).map(|p| format!(", {p}")).unwrap_or_default(),
                    hex(&stored[..20.min(stored.len())]),
                ),
            ),
        }
    });
    let unhashed = unhashed.into_inner();
    if unhashed > 0 && unhashed == toc.len() as u64 && !opts.allow_unhashed {
        sink.fail(
            "chunk-hash",
            format!(
                "no chunk has a hash ({unhashed} of {unhashed} are all zero): the data cannot be verified (--allow-unhashed accepts it)"
            ),
        );
    }
    hashes_ok.into_inner()
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
