//! Parallel extraction of chunks into an [`OutputDir`]: chunks in parallel,
//! and inside each chunk windows of blocks decoded in parallel
//! ([`Container::stream_chunk`]), each file written atomically. Memory stays
//! at about one window plus one write buffer per worker thread. Large stored
//! (uncompressed, unencrypted) entries are copied `.ucas` → file inside the
//! kernel instead ([`COPY_MIN`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pakrat_io::fsutil::OutputDir;
use rayon::prelude::*;

use crate::container::{ChunkInfo, Container};

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

/// Write every job; `on_progress` receives uncompressed bytes as they are written.
pub fn extract(
    c: &Container,
    jobs: &[Job],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
) -> Summary {
    let files = AtomicU64::new(0);
    let bytes = AtomicU64::new(0);
    let errors = Mutex::new(Vec::new());
    // With enough files to keep every thread busy, decode a few blocks at a
    // time and write them while they are still in the CPU cache; a lone big
    // file keeps wide windows so its blocks are decoded in parallel.
    let window = if jobs.len() >= 4 * rayon::current_num_threads() {
        SMALL_WINDOW
    } else {
        crate::container::WINDOW_BLOCKS
    };
    jobs.par_iter().for_each(|j| {
        if let Some(res) = copy_stored(c, j, out) {
            match res {
                Ok(_) => {
                    on_progress(j.size);
                    files.fetch_add(1, Ordering::Relaxed);
                    bytes.fetch_add(j.size, Ordering::Relaxed);
                }
                Err(e) => {
                    if let Ok(mut v) = errors.lock() {
                        v.push(format!("{}: {e}", j.name));
                    }
                }
            }
            return;
        }
        let res = out.write_with(&j.name, |w| {
            c.stream_chunk_windowed(j.index, window, |b| {
                w.write_all(b)
                    .map_err(|e| pakrat_io::Error::Other(e.to_string()))?;
                on_progress(b.len() as u64);
                Ok(())
            })
            .map_err(std::io::Error::other)
        });
        // Done with this chunk's part of the mapped .ucas.
        c.release(j.index);
        match res {
            Ok(_) => {
                files.fetch_add(1, Ordering::Relaxed);
                bytes.fetch_add(j.size, Ordering::Relaxed);
            }
            Err(e) => {
                if let Ok(mut v) = errors.lock() {
                    v.push(format!("{}: {e}", j.name));
                }
            }
        }
    });
    let mut errors = errors.into_inner().unwrap_or_default();
    errors.sort();
    Summary {
        files: files.into_inner(),
        bytes: bytes.into_inner(),
        errors,
    }
}
