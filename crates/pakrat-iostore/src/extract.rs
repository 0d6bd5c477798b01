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
fn copy_stored(
    c: &Container,
    j: &Job,
    out: &OutputDir,
) -> Option<pakrat_io::Result<std::path::PathBuf>> {
    let (p, offset, len) = c.stored_extent(j.index)?;
    if len < COPY_MIN {
        return None;
    }
    let mut f = c.partitions().get(p)?.source.as_ref()?.open_at(offset)?;
    Some(out.write_from_file_range(&j.name, &mut f, offset, len))
}

/// Bytes of decoded windows that may wait for a writer, per writer thread.
const QUEUE_BYTES: usize = 8 << 20;

/// Writer threads [`extract`] starts beside a pool of `pool_threads`
/// decoders: one per four (a writer copies into the page cache several
/// times faster than one thread decodes).
pub fn writer_threads(pool_threads: usize) -> usize {
    pool_threads.div_ceil(4).max(1)
}

/// Write every job; `on_progress` receives uncompressed bytes as they are written.
///
/// Two stages: the rayon pool decodes (chunks in parallel, the blocks of a
/// window in parallel), and dedicated writer threads (one per four pool
/// threads) fill and commit the files, so that the kernel's cost of copying
/// into the page cache runs beside decoding instead of in turn with it. A
/// decoder blocks only when its writer's queue is full, and the writers
/// never wait for the pool, so the two cannot deadlock. Buffers go back to
/// a shared pool after writing; memory stays at the queues
/// ([`QUEUE_BYTES`] per writer) plus one window per pool thread.
pub fn extract(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
) -> Summary {
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
    };
    std::thread::scope(|s| {
        let mut txs = Vec::new();
        for n in 0..writer_threads(threads) {
            let (tx, rx) = sync_channel::<Msg>(queue);
            txs.push(tx);
            let st = &st;
            let spawned = std::thread::Builder::new()
                .name(format!("pakrat-writer-{n}"))
                .spawn_scoped(s, move || st.writer(rx));
            if let Err(e) = spawned {
                st.error(format!("cannot start a writer thread: {e}"));
                return;
            }
        }
        jobs.par_iter()
            .enumerate()
            .for_each(|(k, j)| st.decode(k, j, out, window, &txs[k % txs.len()]));
        // Dropping the senders ends the writers once their queues are empty.
        drop(txs);
    });
    let mut errors = st.errors.into_inner().unwrap_or_default();
    errors.sort();
    Summary {
        files: st.files.into_inner(),
        bytes: st.bytes.into_inner(),
        errors,
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

    fn take_buf(&self) -> Vec<u8> {
        self.pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_default()
    }

    /// Decoder side (on the rayon pool): open job `k`'s file and send its
    /// bytes to the writer.
    fn decode(&self, k: usize, j: &Job, out: &OutputDir, window: usize, tx: &SyncSender<Msg<'a>>) {
        if let Some(res) = copy_stored(self.c, j, out) {
            match res {
                Ok(_) => {
                    (self.on_progress)(j.size);
                    self.done(j.size);
                }
                Err(e) => self.error(format!("{}: {e}", j.name)),
            }
            return;
        }
        let pending = match out.begin(&j.name) {
            Ok(p) => p,
            Err(e) => {
                self.error(format!("{}: {e}", j.name));
                return;
            }
        };
        let gone = || pakrat_io::Error::Other("the writer thread stopped".into());
        if tx.send(Msg::Start(k, pending)).is_err() {
            self.error(format!("{}: {}", j.name, gone()));
            return;
        }
        let res = self.c.stream_chunk_pieces(
            j.index,
            window,
            || self.take_buf(),
            |piece| {
                if self.failed[k].load(Ordering::Relaxed) {
                    // The writer has reported this file already.
                    return Err(pakrat_io::Error::Other("write failed".into()));
                }
                tx.send(Msg::Data(k, piece)).map_err(|_| gone())
            },
        );
        let last = match res {
            Ok(()) => Msg::End(k),
            Err(e) => Msg::Fail(k, e.to_string()),
        };
        if tx.send(last).is_err() {
            self.error(format!("{}: {}", j.name, gone()));
        }
    }

    /// Writer side (a dedicated thread): fill, commit or discard files as
    /// the messages come, until every sender is gone.
    fn writer(&self, rx: Receiver<Msg<'a>>) {
        let mut open: HashMap<usize, PendingFile> = HashMap::new();
        for m in rx {
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
                    // Done with this chunk's part of the mapped .ucas.
                    self.c.release(self.jobs[k].index);
                }
                Msg::Fail(k, e) => {
                    if open.remove(&k).is_some() {
                        self.error(format!("{}: {e}", self.jobs[k].name));
                    }
                    self.c.release(self.jobs[k].index);
                }
            }
        }
    }
}
