//! Parallel extraction of chunks into an [`OutputDir`]: chunks in parallel,
//! and inside each chunk windows of blocks decoded in parallel
//! ([`Container::stream_chunk`]), each file written atomically. Memory stays
//! at about one window plus one write buffer per worker thread. Large stored
//! (uncompressed, unencrypted) entries are copied `.ucas` → file inside the
//! kernel instead ([`COPY_MIN`]).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Mutex;

use pakrat_io::fsutil::{OutputDir, PendingFile};
use rayon::prelude::*;

use crate::container::{ChunkInfo, Container, Piece};
use crate::verify::ChunkHasher;

/// One file to write: a (sanitised on write) relative name and a TOC entry.
#[derive(Clone, Debug)]
pub struct Job {
    /// Relative output path (`/`-separated).
    pub name: String,
    /// TOC entry index.
    pub index: usize,
    /// Uncompressed size (for progress and ordering).
    pub size: u64,
}

/// What an extraction did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files written.
    pub files: u64,
    /// Bytes written.
    pub bytes: u64,
    /// `name: error` for each file that failed (sorted).
    pub errors: Vec<String>,
    /// Files whose chunk has no stored hash (all zero), written unchecked.
    pub unhashed: u64,
}

/// How [`extract_with`] works.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Check every chunk's hash (from the TOC metas) while extracting and
    /// fail a file that does not match, leaving nothing under its name.
    pub verify_hashes: bool,
    /// Writer threads (`None`: [`writer_threads`] for this machine).
    pub writers: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            verify_hashes: true,
            writers: None,
        }
    }
}

/// Keep one job per output path: the last in the given (TOC) order, as
/// the later entry would win a sequential write. Returns the kept jobs (in
/// their order) and one message per duplicate path naming the entries.
pub fn dedupe_jobs(jobs: Vec<Job>) -> (Vec<Job>, Vec<String>) {
    let mut last: HashMap<String, usize> = HashMap::with_capacity(jobs.len());
    for (k, j) in jobs.iter().enumerate() {
        last.insert(j.name.clone(), k);
    }
    if last.len() == jobs.len() {
        return (jobs, Vec::new());
    }
    let mut dropped: HashMap<String, Vec<usize>> = HashMap::new();
    let mut kept = Vec::with_capacity(last.len());
    for (k, j) in jobs.into_iter().enumerate() {
        if last.get(&j.name) == Some(&k) {
            kept.push(j);
        } else {
            dropped.entry(j.name).or_default().push(j.index);
        }
    }
    let mut msgs: Vec<String> = dropped
        .into_iter()
        .map(|(name, idx)| {
            let winner = kept.iter().find(|j| j.name == name).map_or(0, |j| j.index);
            format!(
                "{name}: TOC entries {} and {winner} have the same path; the last ({winner}) is written",
                idx.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    msgs.sort();
    (kept, msgs)
}

/// Name used for a chunk that has no path (`_chunks/<id>.<Type>`).
pub fn chunk_file_name(x: &ChunkInfo) -> String {
    format!("_chunks/{}.{}", x.id, x.chunk_type.name())
}

/// Blocks per window when many files are extracted in parallel.
pub const SMALL_WINDOW: usize = 4;

/// Stored entries at least this large are copied file to file.
pub const COPY_MIN: u64 = 256 << 10;

/// A stored, unencrypted entry whose bytes lie in one piece of one `.ucas`
/// file is copied file to file inside the kernel (`copy_file_range`), with
/// the same output checks as every other write. `None` when the entry is not
/// such a run, is small, or the `.ucas` cannot be reopened as the very file
/// that is mapped (then the caller streams it as usual).
/// With `verify`, the chunk hash is computed on the mapped bytes while the
/// kernel copies them (`rayon::join`: on two threads when the pool has one
/// free), and the file gets its name only if the hash matches; a mismatch
/// leaves nothing. Returns whether a hash was checked.
fn copy_stored(
    c: &Container,
    j: &Job,
    out: &OutputDir,
    verify: bool,
    parallel: bool,
) -> Option<pakrat_io::Result<bool>> {
    let (p, offset, len) = c.stored_extent(j.index)?;
    if len < COPY_MIN {
        return None;
    }
    let src = c.partitions().get(p)?.source.as_ref()?;
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    let bytes = src.get(start..end)?;
    let mut f = src.open_at(offset)?;
    if !verify {
        return Some(
            out.write_from_file_range(&j.name, &mut f, offset, len)
                .map(|_| false),
        );
    }
    let pending = match out
        .begin(&j.name)
        .and_then(|p| p.preallocate(len).map(|()| p))
    {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let (copied, checked) = rayon::join(
        || copy_exact(&mut f, len, pending.file()),
        || {
            // Part by part, each released once hashed: a large chunk does
            // not stay resident while the rest is hashed.
            let mut h = ChunkHasher::new(c.toc().header.version).parallel(parallel);
            for (k, part) in bytes.chunks(HASH_PART).enumerate() {
                h.update(part);
                src.release(start + k * HASH_PART, part.len());
            }
            src.passed(len);
            hash_verdict(c, j.index, h)
        },
    );
    let res = copied
        .map_err(|e| pakrat_io::Error::io(pending.path(), e))
        .and(checked)
        .and_then(|checked| pending.commit().map(|_| checked));
    Some(res)
}

/// Bytes of a stored chunk hashed between two releases of its mapped pages.
const HASH_PART: usize = 4 << 20;

/// Copy the next `len` bytes of `src` to `dst` (`copy_file_range` inside
/// the kernel on Linux); an error if `src` holds fewer.
fn copy_exact(src: &mut std::fs::File, len: u64, mut dst: &std::fs::File) -> std::io::Result<()> {
    use std::io::Read;
    let n = std::io::copy(&mut src.take(len), &mut dst)?;
    if n != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("the .ucas holds only {n} of the {len} bytes to copy"),
        ));
    }
    Ok(())
}

/// Compare a chunk's computed hash with the TOC: `Ok(true)` checked,
/// `Ok(false)` nothing stored, `Err` a mismatch (naming both hashes).
fn hash_verdict(c: &Container, index: usize, h: ChunkHasher) -> pakrat_io::Result<bool> {
    let Some(meta) = c.toc().metas.get(index) else {
        return Ok(false);
    };
    let stored = meta.hash_bytes();
    match h.check(stored) {
        (None, _) => Ok(false),
        (Some(true), _) => Ok(true),
        (Some(false), computed) => Err(pakrat_io::Error::Other(format!(
            "chunk hash mismatch: the TOC records {}, the data gives BLAKE3-160 {computed} (corrupt container; nothing written; --no-verify writes the bytes as they are)",
            crate::verify::hex(&stored[..20.min(stored.len())])
        ))),
    }
}

/// Smallest chunk whose mapped pages are released as soon as it is written.
pub const RELEASE_MIN: u64 = 1 << 20;

/// Bytes of decoded windows that may wait for a writer, per writer thread.
pub const QUEUE_BYTES: usize = 8 << 20;

/// Writer threads [`extract`] starts beside a pool of `pool_threads`
/// decoders on a machine with `cores` cores: none when the pool already
/// fills every core (a writer would only take turns with the decoders and
/// make the decoded bytes cross between cores: measured about 10 % slower
/// at 2 threads on 2 cores), otherwise one per four decoders (a writer
/// copies into the page cache several times faster than one thread
/// decodes), on cores the pool leaves free.
pub fn writer_threads(pool_threads: usize, cores: usize) -> usize {
    if pool_threads >= cores {
        0
    } else {
        pool_threads.div_ceil(4).min(cores - pool_threads)
    }
}

/// Write every job; `on_progress` receives uncompressed bytes as they are written.
///
/// The rayon pool decodes (chunks in parallel, the blocks of a window in
/// parallel). When the pool leaves cores free ([`writer_threads`]),
/// dedicated writer threads fill and commit the files, so that the
/// kernel's cost of copying into the page cache runs beside decoding
/// instead of in turn with it; otherwise each decoder writes its own file.
/// A decoder blocks only when its writer's queue is full, and the writers
/// never wait for the pool, so the two cannot deadlock. Buffers go back to
/// a shared pool after writing; memory stays at the queues
/// ([`QUEUE_BYTES`] per writer) plus one window per pool thread.
///
/// Chunk hashes are checked ([`Options::verify_hashes`]), and a container
/// whose layout `verify` rejects (blocks shared between chunks, blocks out
/// of their partition, chunks longer than their blocks...) is refused
/// before anything is written.
pub fn extract(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
) -> Summary {
    extract_with(c, jobs, out, on_progress, &Options::default())
}

/// [`extract`] with options.
pub fn extract_with(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
    opts: &Options,
) -> Summary {
    let writers = opts.writers.unwrap_or_else(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        writer_threads(rayon::current_num_threads(), cores)
    });
    run(c, jobs, out, on_progress, writers, opts.verify_hashes)
}

/// The layout failures that make [`extract`] refuse a container, as one
/// error; `Ok` when there are none.
pub fn check_layout(c: &Container) -> pakrat_io::Result<()> {
    let bad = crate::verify::layout(c);
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = bad.iter().take(5).map(|f| f.message.clone()).collect();
    Err(pakrat_io::Error::Other(format!(
        "refusing to extract: the container's layout is broken ({} problem(s), as `verify` reports: {}{}); nothing was written",
        bad.len(),
        shown.join("; "),
        if bad.len() > 5 { "; ..." } else { "" }
    )))
}

/// [`extract`] with a chosen number of writer threads (0: every decoder
/// writes its own files).
pub fn extract_with_writers(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
    writers: usize,
) -> Summary {
    run(c, jobs, out, on_progress, writers, true)
}

fn run(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
    writers: usize,
    verify: bool,
) -> Summary {
    if let Err(e) = check_layout(c) {
        return Summary {
            errors: vec![e.to_string()],
            ..Summary::default()
        };
    }
    let threads = rayon::current_num_threads();
    // With enough files to keep every thread busy, decode a few blocks at a
    // time and write them while they are still in the CPU cache; a lone big
    // file keeps wide windows so its blocks are decoded in parallel.
    let window = if jobs.len() >= 4 * threads {
        SMALL_WINDOW
    } else {
        crate::container::WINDOW_BLOCKS
    };
    let window_bytes =
        (window * c.toc().header.block_size.max(1) as usize).min(crate::container::WINDOW_BYTES);
    let queue = (QUEUE_BYTES / window_bytes).clamp(2, 64);
    let st = Stage {
        c,
        jobs,
        on_progress,
        files: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        errors: Mutex::new(Vec::new()),
        pool: Mutex::new(Vec::new()),
        failed: jobs.iter().map(|_| AtomicBool::new(false)).collect(),
        verify,
        unhashed: AtomicU64::new(0),
    };
    std::thread::scope(|s| {
        let mut txs = Vec::new();
        for n in 0..writers {
            let (tx, rx) = sync_channel::<Msg>(queue);
            let st = &st;
            let spawned = std::thread::Builder::new()
                .name(format!("pakrat-writer-{n}"))
                .spawn_scoped(s, move || st.writer(rx));
            if spawned.is_err() {
                break; // fewer writers (or none: decoders write themselves)
            }
            txs.push(tx);
        }
        jobs.par_iter().enumerate().for_each(|(k, j)| {
            let tx = (!txs.is_empty()).then(|| &txs[k % txs.len()]);
            st.decode(k, j, out, window, tx)
        });
        // Dropping the senders ends the writers once their queues are empty.
        drop(txs);
    });
    let mut errors = st.errors.into_inner().unwrap_or_default();
    errors.sort();
    Summary {
        files: st.files.into_inner(),
        bytes: st.bytes.into_inner(),
        errors,
        unhashed: st.unhashed.into_inner(),
    }
}

/// What a decoder tells a writer about job `k` (messages of one job come
/// from one decoder, in order).
enum Msg<'a> {
    /// The opened output of job `k`.
    Start(usize, PendingFile),
    /// The next bytes of job `k`.
    Data(usize, Piece<'a>),
    /// Job `k` is complete: commit it.
    End(usize),
    /// Job `k` failed while decoding: discard it.
    Fail(usize, String),
}

/// State shared by the decoders and the writers of one [`extract`].
struct Stage<'a> {
    c: &'a Container,
    jobs: &'a [Job],
    on_progress: &'a (dyn Fn(u64) + Sync),
    files: AtomicU64,
    bytes: AtomicU64,
    errors: Mutex<Vec<String>>,
    /// Window buffers given back by the writers.
    pool: Mutex<Vec<Vec<u8>>>,
    /// Set by a writer when job `k`'s file failed, so its decoder stops.
    failed: Vec<AtomicBool>,
    /// Check chunk hashes.
    verify: bool,
    /// Files written without a stored hash to check.
    unhashed: AtomicU64,
}

impl<'a> Stage<'a> {
    fn error(&self, e: String) {
        if let Ok(mut v) = self.errors.lock() {
            v.push(e);
        }
    }

    fn done(&self, size: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(size, Ordering::Relaxed);
    }

    /// Done with job `k`'s part of the mapped `.ucas`: release its pages
    /// when it is large. Small chunks are left to `Source::passed`, which
    /// releases the whole mapping every 16 MiB read: one `madvise` (and its
    /// TLB flush on every core) per small file cost more than it saved
    /// (issue 31 item 17).
    fn release(&self, k: usize) {
        if self.jobs[k].size >= RELEASE_MIN {
            self.c.release(self.jobs[k].index);
        }
    }

    fn take_buf(&self) -> Vec<u8> {
        self.pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default()
    }

    /// Decoder side (on the rayon pool): open job `k`'s file and hand its
    /// bytes to the writer `tx`, or write them here when there is none.
    fn decode(
        &self,
        k: usize,
        j: &Job,
        out: &OutputDir,
        window: usize,
        tx: Option<&SyncSender<Msg<'a>>>,
    ) {
        // Few, large files: the pool has threads to spare for the hash.
        let parallel = window == crate::container::WINDOW_BLOCKS;
        if let Some(res) = copy_stored(self.c, j, out, self.verify, parallel) {
            match res {
                Ok(hashed) => {
                    if self.verify && !hashed {
                        self.unhashed.fetch_add(1, Ordering::Relaxed);
                    }
                    (self.on_progress)(j.size);
                    self.done(j.size);
                }
                Err(e) => self.error(format!("{}: {e}", j.name)),
            }
            return;
        }
        // Reserve the space first: a full disk shows before decoding, and
        // ext4 writes into reserved space with less work per page.
        let pending = match out
            .begin(&j.name)
            .and_then(|p| p.preallocate(j.size).map(|()| p))
        {
            Ok(p) => p,
            Err(e) => {
                self.error(format!("{}: {e}", j.name));
                return;
            }
        };
        let mut open = HashMap::new();
        let mut send = |m: Msg<'a>| match tx {
            Some(tx) => tx.send(m).is_ok(),
            None => {
                self.handle(&mut open, m);
                true
            }
        };
        let gone = || pakrat_io::Error::Other("the writer thread stopped".into());
        if !send(Msg::Start(k, pending)) {
            self.error(format!("{}: {}", j.name, gone()));
            return;
        }
        let mut hasher = self
            .verify
            .then(|| ChunkHasher::new(self.c.toc().header.version).parallel(parallel));
        let res = self.c.stream_chunk_pieces(
            j.index,
            window,
            || self.take_buf(),
            |piece| {
                if let Some(h) = hasher.as_mut() {
                    h.update(match &piece {
                        Piece::Owned(b, r) => b.get(r.clone()).unwrap_or_default(),
                        Piece::Mapped(b) => b,
                    });
                }
                if self.failed[k].load(Ordering::Relaxed) {
                    // The writer has reported this file already.
                    return Err(pakrat_io::Error::Other("write failed".into()));
                }
                if send(Msg::Data(k, piece)) {
                    Ok(())
                } else {
                    Err(gone())
                }
            },
        );
        // The hash decides before the writer commits (messages of one job
        // are handled in order), so a corrupt chunk never gets its name.
        let res = res.and_then(|()| match hasher {
            Some(h) => hash_verdict(self.c, j.index, h).map(|checked| {
                if !checked {
                    self.unhashed.fetch_add(1, Ordering::Relaxed);
                }
            }),
            None => Ok(()),
        });
        let last = match res {
            Ok(()) => Msg::End(k),
            Err(e) => Msg::Fail(k, e.to_string()),
        };
        if !send(last) {
            self.error(format!("{}: {}", j.name, gone()));
        }
    }

    /// Writer side (a dedicated thread): fill, commit or discard files as
    /// the messages come, until every sender is gone.
    fn writer(&self, rx: Receiver<Msg<'a>>) {
        let mut open: HashMap<usize, PendingFile> = HashMap::new();
        for m in rx {
            self.handle(&mut open, m);
        }
    }

    /// Act on one message: `open` holds the files started and not yet
    /// committed or discarded.
    fn handle(&self, open: &mut HashMap<usize, PendingFile>, m: Msg<'a>) {
        match m {
            Msg::Start(k, f) => {
                open.insert(k, f);
            }
            Msg::Data(k, piece) => {
                let bytes = match &piece {
                    Piece::Owned(b, r) => b.get(r.clone()).unwrap_or_default(),
                    Piece::Mapped(b) => b,
                };
                if let Some(f) = open.get_mut(&k) {
                    match f.write_all(bytes) {
                        Ok(()) => (self.on_progress)(bytes.len() as u64),
                        Err(e) => {
                            let e = pakrat_io::Error::io(f.path(), e);
                            open.remove(&k); // deletes the temporary file
                            self.failed[k].store(true, Ordering::Relaxed);
                            self.error(format!("{}: {e}", self.jobs[k].name));
                        }
                    }
                }
                if let Piece::Owned(b, _) = piece {
                    if let Ok(mut p) = self.pool.lock() {
                        p.push(b);
                    }
                }
            }
            Msg::End(k) => {
                if let Some(f) = open.remove(&k) {
                    match f.commit() {
                        Ok(_) => self.done(self.jobs[k].size),
                        Err(e) => self.error(format!("{}: {e}", self.jobs[k].name)),
                    }
                }
                self.release(k);
            }
            Msg::Fail(k, e) => {
                if open.remove(&k).is_some() {
                    self.error(format!("{}: {e}", self.jobs[k].name));
                }
                self.release(k);
            }
        }
    }
}
