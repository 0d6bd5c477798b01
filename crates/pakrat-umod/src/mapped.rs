//! A memory-mapped input whose pages can be dropped after they were streamed.
//!
//! Mapped file pages count towards a process's resident set. Streaming a large
//! archive through a plain mapping therefore makes the resident set grow to the
//! size of the archive even though every byte is used once. [`UmodFile`] maps
//! the file read-only and lets the readers in this crate hand consumed ranges
//! back to the kernel (`MADV_DONTNEED`), which keeps peak memory flat whatever
//! the archive size. The bytes stay in the page cache, so re-reading is cheap.

use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use pakrat_io::{Error, Result};

/// A read-only input file, memory-mapped when possible.
pub struct UmodFile {
    path: PathBuf,
    data: Data,
    /// (device, inode, length) of the mapped file, to reopen it safely.
    id: Option<(u64, u64, u64)>,
}

enum Data {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl UmodFile {
    /// Open and map `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<UmodFile> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::io(
                path,
                std::io::Error::other("is a folder, not a file"),
            ));
        }
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            Some((meta.dev(), meta.ino(), meta.len()))
        };
        #[cfg(not(unix))]
        let id = None;
        let data = if meta.len() == 0 || !meta.is_file() {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut v).map_err(|e| Error::io(path, e))?;
            Data::Owned(v)
        } else {
            // SAFETY: read-only map. Like every mmap-based reader we cannot
            // defend against another process truncating the file meanwhile.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            Data::Map(map)
        };
        Ok(UmodFile {
            path: path.to_path_buf(),
            data,
            id,
        })
    }

    /// Wrap bytes already in memory (`path` is used in messages only).
    pub fn from_vec(path: impl Into<PathBuf>, data: Vec<u8>) -> UmodFile {
        UmodFile {
            path: path.into(),
            data: Data::Owned(data),
            id: None,
        }
    }

    /// The path given to [`UmodFile::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh handle on the same file (same device, inode and length as
    /// when it was mapped), positioned at `offset`; `None` if the path now
    /// names something else or the data is in memory. Lets members be copied
    /// file-to-file in the kernel (`std::io::copy` uses `copy_file_range`).
    pub fn open_at(&self, offset: u64) -> Option<File> {
        use std::io::{Seek, SeekFrom};
        let want = self.id?;
        let f = File::open(&self.path).ok()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = f.metadata().ok()?;
            if (m.dev(), m.ino(), m.len()) != want {
                return None;
            }
        }
        #[cfg(not(unix))]
        let _ = want;
        (&f).seek(SeekFrom::Start(offset)).ok()?;
        Some(f)
    }

    /// Tell the kernel that `start..start+len` was consumed, so its pages can
    /// leave this process's resident set. A no-op for in-memory data.
    pub fn release(&self, start: usize, len: usize) {
        if let Data::Map(m) = &self.data {
            let end = start.saturating_add(len).min(m.len());
            if start >= end {
                return;
            }
            // SAFETY: the mapping is a read-only shared file mapping, so
            // MADV_DONTNEED only unmaps the pages from this process: the next
            // access faults them back in from the file (page cache) with the
            // same content. No Rust reference observes different bytes.
            #[cfg(unix)]
            unsafe {
                let _ = m.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    start,
                    end - start,
                );
            }
        }
    }
}

impl Deref for UmodFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Map(m) => m,
            Data::Owned(v) => v,
        }
    }
}
