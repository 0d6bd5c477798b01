//! Parallel extraction of chunks into an [`OutputDir`]: chunks in parallel,
//! and inside each chunk windows of blocks decoded in parallel
//! ([`Container::stream_chunk`]), each file written atomically. Memory stays
//! at about one window plus one write buffer per worker thread.

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
    jobs.par_iter().for_each(|j| {
        let res = out.write_with(&j.name, |w| {
            c.stream_chunk(j.index, |b| {
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
