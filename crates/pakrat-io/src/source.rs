use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The bytes of an input file, memory-mapped when possible (read once into
/// memory otherwise, e.g. for empty files or pipes).
pub struct Source {
    path: PathBuf,
    data: Data,
}

enum Data {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Source {
    /// Open and map `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Source> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::io(
                path,
                std::io::Error::other("is a folder, not a file"),
            ));
        }
        let data = if meta.len() == 0 || !meta.is_file() {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut v).map_err(|e| Error::io(path, e))?;
            Data::Owned(v)
        } else {
            // SAFETY: the map is read-only; like every mmap-based reader we
            // accept that another process truncating the file underneath us
            // is outside what we can defend against.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            Data::Map(map)
        };
        Ok(Source {
            path: path.to_path_buf(),
            data,
        })
    }

    /// Wrap bytes already in memory (the path is used in messages only).
    pub fn from_vec(path: impl Into<PathBuf>, data: Vec<u8>) -> Source {
        Source {
            path: path.into(),
            data: Data::Owned(data),
        }
    }

    /// The file name given to [`Source::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Map(m) => m,
            Data::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for Source {
    fn as_ref(&self) -> &[u8] {
        self
    }
}
