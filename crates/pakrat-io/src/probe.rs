//! The first and last bytes of a file: what format detection reads
//! (`pakrat-detect`), and nothing more.
//!
//! Every format pakrat reads is told by a magic at its start (packages,
//! IoStore TOCs, `.uz` files) or its end (`.pak` footers, UMOD trailers).
//! A [`Probe`] holds the first [`Probe::HEAD`] and the last [`Probe::TAIL`]
//! bytes, and reads a few more bytes at a given offset when a header
//! points somewhere else (a signed UMOD `.exe` keeps its trailer before the
//! Authenticode certificate the PE header points to).

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::{Error, Result};

/// Where [`Probe::read_at`] reads from.
enum Body<'a> {
    File(File),
    Bytes(&'a [u8]),
}

/// The head and tail of a file (see the module docs).
pub struct Probe<'a> {
    head: Cow<'a, [u8]>,
    tail: Cow<'a, [u8]>,
    len: u64,
    body: Body<'a>,
}

impl std::fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("len", &self.len)
            .field("head", &self.head.len())
            .field("tail", &self.tail.len())
            .finish()
    }
}

impl Probe<'static> {
    /// Read the head and tail of the regular file at `path` (see
    /// [`crate::open_regular`]): at most `HEAD + TAIL` bytes, whatever its size.
    pub fn open(path: &Path) -> Result<Probe<'static>> {
        let mut file = crate::open_regular(path)?;
        let io = |e: std::io::Error| Error::io(path, e);
        let len = file.metadata().map_err(io)?.len();
        let mut head = Vec::with_capacity(len.min(Self::HEAD as u64) as usize);
        (&mut file)
            .take(Self::HEAD as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        let tail_len = len.min(Self::TAIL as u64);
        let mut tail = vec![0u8; tail_len as usize];
        file.seek(SeekFrom::Start(len - tail_len)).map_err(io)?;
        // A file cut short since its size was taken keeps what it still has.
        let got = read_full(&mut file, &mut tail).map_err(io)?;
        tail.truncate(got);
        Ok(Probe {
            head: Cow::Owned(head),
            tail: Cow::Owned(tail),
            len,
            body: Body::File(file),
        })
    }
}

impl<'a> Probe<'a> {
    /// Bytes read from the start of a file: one page. Every magic pakrat
    /// knows sits in the first few hundred bytes (the longest, a `.uz`
    /// header's file name), and the viewer probes every file of a folder.
    pub const HEAD: usize = 4 << 10;
    /// Bytes read from the end of a file: one page (a `.pak` footer is at
    /// most 221 bytes, a UMOD trailer 20).
    pub const TAIL: usize = 4 << 10;
    /// The most [`Probe::read_at`] reads at once.
    pub const MAX_READ: usize = 4096;

    /// A probe of bytes already in memory (a mapped file, an entry read
    /// from a container): the same view of them as [`Probe::open`] gives.
    pub fn of_bytes(data: &'a [u8]) -> Probe<'a> {
        Probe {
            head: Cow::Borrowed(&data[..data.len().min(Self::HEAD)]),
            tail: Cow::Borrowed(&data[data.len().saturating_sub(Self::TAIL)..]),
            len: data.len() as u64,
            body: Body::Bytes(data),
        }
    }

    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first bytes (all of them for a file up to [`Probe::HEAD`]).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The last bytes (all of them for a file up to [`Probe::TAIL`]).
    pub fn tail(&self) -> &[u8] {
        &self.tail
    }

    /// Whether the head holds the whole file.
    pub fn is_whole(&self) -> bool {
        self.head.len() as u64 == self.len
    }

    /// `n` bytes at `offset` (`n` up to [`Probe::MAX_READ`]), from the head
    /// or tail when they hold them, else read from the file; `None` when the
    /// range is not in the file.
    pub fn read_at(&self, offset: u64, n: usize) -> Option<Cow<'_, [u8]>> {
        let end = offset.checked_add(n as u64)?;
        if n > Self::MAX_READ || end > self.len {
            return None;
        }
        if end <= self.head.len() as u64 {
            return Some(Cow::Borrowed(&self.head[offset as usize..end as usize]));
        }
        let tail_at = self.len - self.tail.len() as u64;
        if offset >= tail_at {
            let a = (offset - tail_at) as usize;
            return self.tail.get(a..a + n).map(Cow::Borrowed);
        }
        match &self.body {
            Body::Bytes(d) => d.get(offset as usize..end as usize).map(Cow::Borrowed),
            Body::File(f) => {
                let mut f = f;
                let mut buf = vec![0u8; n];
                f.seek(SeekFrom::Start(offset)).ok()?;
                (read_full(&mut f, &mut buf).ok()? == n).then_some(Cow::Owned(buf))
            }
        }
    }

    /// The little-endian `u32` at `offset`, if the file has it.
    pub fn le32_at(&self, offset: u64) -> Option<u32> {
        let b = self.read_at(offset, 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Fill `buf` as far as the reader goes; the count read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_and_its_bytes_probe_alike() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let t = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(t.path(), &data).unwrap();
        let f = Probe::open(t.path()).unwrap();
        let b = Probe::of_bytes(&data);
        assert_eq!(f.len(), 300_000);
        assert_eq!(f.head(), b.head());
        assert_eq!(f.tail(), b.tail());
        assert!(!f.is_whole());
        for off in [0u64, 65_530, 100_000, 299_996, 299_997] {
            assert_eq!(f.read_at(off, 4), b.read_at(off, 4), "at {off}");
        }
        assert_eq!(f.read_at(150_000, 8).unwrap(), &data[150_000..150_008]);
        assert!(f.read_at(299_999, 4).is_none());
        assert!(f.read_at(u64::MAX - 1, 4).is_none());
        assert!(f.read_at(0, Probe::MAX_READ + 1).is_none());
        assert_eq!(f.le32_at(0), Some(u32::from_le_bytes([0, 1, 2, 3])));
    }

    #[test]
    fn a_small_file_is_whole() {
        let p = Probe::of_bytes(b"abc");
        assert!(p.is_whole());
        assert_eq!(p.tail(), b"abc");
        assert!(Probe::of_bytes(b"").is_empty());
    }
}
