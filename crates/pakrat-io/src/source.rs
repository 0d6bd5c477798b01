use std::fs::File;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The bytes of an input file, memory-mapped when possible (read once into
/// memory otherwise, e.g. for empty files or pipes).
///
/// Mapped pages count towards the process's resident set, so a reader that
/// streams a large file once can hand consumed ranges back with
/// [`Source::release`], or count what it has read with [`Source::passed`]
/// (peak memory then stays flat whatever the size), and
/// [`Source::open_at`] reopens the same file for kernel-side copies.
pub struct Source {
    path: PathBuf,
    data: Data,
    /// (device, inode, length) of the mapped file, to reopen it safely.
    id: Option<(u64, u64, u64)>,
    /// Bytes counted by [`Source::passed`].
    passed: std::sync::atomic::AtomicU64,
}

/// Bytes counted by [`Source::passed`] between two releases of a whole
/// mapping: with it, the mapped pages of an input read once stay under
/// about this much plus what the readers hold at that moment.
pub const RELEASE_EVERY: u64 = 16 << 20;

enum Data {
    /// The guard is declared first: it unregisters the mapping before the
    /// mapping is unmapped.
    Map(crate::mapguard::Guard, memmap2::Mmap),
    Owned(Vec<u8>),
}

/// What a non-regular file is, for messages.
fn kind_of(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        return "a folder";
    }
    "not a regular file"
}

/// Open `path` for reading only if it is a regular file. Pipes, devices,
/// sockets and folders are refused before opening (opening a FIFO would
/// block until a writer comes; `/dev/zero` never ends), with a message that
/// says what the path is.
pub fn open_regular(path: &Path) -> Result<File> {
    let check = |meta: std::fs::Metadata| {
        if meta.is_file() {
            return Ok(());
        }
        Err(Error::io(
            path,
            std::io::Error::other(format!(
                "is {}, not a file: pakrat reads regular files only",
                kind_of(&meta.file_type())
            )),
        ))
    };
    check(std::fs::metadata(path).map_err(|e| Error::io(path, e))?)?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    // The path may have changed between the two looks: check the handle.
    check(file.metadata().map_err(|e| Error::io(path, e))?)?;
    Ok(file)
}

/// Read whole a file that a folder walk found regular
/// ([`crate::walk::walk`], whose directory entry said what it is): no look
/// at the path before opening it, as [`open_regular`] takes. A file put in
/// its place since cannot make the open wait or take a terminal (Unix:
/// `O_NONBLOCK`, which a regular file ignores, and `O_NOCTTY`), and the
/// open handle is checked as [`open_regular`] checks it, so a pipe or a
/// device is still refused and never read. One path lookup per file
/// instead of two (`zen from-legacy` reads 18,000 this way; the lookups
/// were 7 % of its CPU time, issue 31 item 18).
pub fn read_walked(path: &Path) -> Result<Vec<u8>> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NOFOLLOW: a symbolic link put in the file's place since the
        // walk (which refuses links) is not followed either.
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW);
    }
    let file = opts.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return Error::io(
                path,
                std::io::Error::other(
                    "is a symbolic link now (it was a file when the folder was walked); refused",
                ),
            );
        }
        Error::io(path, e)
    })?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::io(
            path,
            std::io::Error::other(format!(
                "is {}, not a file: pakrat reads regular files only",
                kind_of(&meta.file_type())
            )),
        ));
    }
    read_open(&file, meta.len(), path)
}

/// Size caps of the small files pakrat reads whole (a regular file only, see
/// [`open_regular`]; larger ones are refused before any byte is read).
pub mod caps {
    /// A keys file (`--keys`: JSON of GUIDs and AES keys).
    pub const KEYS_FILE: u64 = 1 << 20;
    /// A file order list (`--order-from`): half a million paths.
    pub const ORDER_LIST: u64 = 64 << 20;
    /// An ini or UMOD manifest (`Manifest.ini`, `Manifest.int`).
    pub const INI: u64 = crate::ini::MAX_INI_SIZE;
}

/// Read the whole of `path`, a regular file (see [`open_regular`]) of at most
/// `cap` bytes; `what` names its kind in the message ("a keys file"). A
/// larger file is refused from its size before reading, and a file that
/// grows past `cap` while it is read (or a special file posing as a regular
/// one, like a `/proc` file) is cut off at `cap + 1` bytes and refused: a
/// FIFO never blocks and `/dev/zero` never fills memory.
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let too_big = |n: &str| {
        Error::io(
            path,
            std::io::Error::other(format!(
                "{n} bytes is too large for {what} (at most {cap} bytes are read)"
            )),
        )
    };
    if len > cap {
        return Err(too_big(&len.to_string()));
    }
    let mut v = Vec::with_capacity(len as usize);
    (&file)
        .take(cap.saturating_add(1))
        .read_to_end(&mut v)
        .map_err(|e| Error::io(path, e))?;
    if v.len() as u64 > cap {
        return Err(too_big("more than"));
    }
    Ok(v)
}

/// [`read_capped`] for a text file: UTF-8 (an optional BOM is dropped), or
/// an error naming the file and the offset of the first bad byte.
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> Result<String> {
    let v = read_capped(path, cap, what)?;
    let body = v.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&v);
    match std::str::from_utf8(body) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => Err(Error::invalid(
            (e.valid_up_to() + v.len() - body.len()) as u64,
            format!("{what} must be UTF-8 text"),
        )
        .in_file(path)),
    }
}

/// Read the whole of `path`, a regular file (see [`open_regular`]), as long
/// as it was when opened: a data file. Refused if it grows while read.
pub fn read_regular(path: &Path) -> Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    read_open(&file, len, path)
}

/// Read the whole of an open file of `len` bytes (when it was opened);
/// refused if it holds more by the time it is read.
fn read_open(file: &std::fs::File, len: u64, path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut v = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len.saturating_add(1))
        .read_to_end(&mut v)
        .map_err(|e| Error::io(path, e))?;
    if v.len() as u64 > len {
        return Err(Error::io(
            path,
            std::io::Error::other(format!("grew past its {len} bytes while it was read")),
        ));
    }
    Ok(v)
}

impl Source {
    /// Open and map `path` (a regular file: see [`open_regular`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Source> {
        let path = path.as_ref();
        let file = open_regular(path)?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
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
            // SAFETY: the map is read-only. Another process may truncate the
            // file underneath us: a read past its new end then raises SIGBUS,
            // which the guard's handler turns into zero pages and a flag that
            // `check` (and every atomic output) reports (see `mapguard`).
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            let guard = crate::mapguard::register(path, map.as_ptr(), map.len())?;
            test_hook_shrink(path);
            Data::Map(guard, map)
        };
        Ok(Source {
            path: path.to_path_buf(),
            data,
            id,
            passed: Default::default(),
        })
    }

    /// Wrap bytes already in memory (the path is used in messages only).
    pub fn from_vec(path: impl Into<PathBuf>, data: Vec<u8>) -> Source {
        Source {
            path: path.into(),
            data: Data::Owned(data),
            id: None,
            passed: Default::default(),
        }
    }

    /// `Err` naming the file if it changed size while it was read (a read
    /// past its new end, which saw zeros instead of the file: see
    /// [`crate::mapguard`]). Call it after the bytes were used and before
    /// anything made from them is kept.
    pub fn check(&self) -> Result<()> {
        match &self.data {
            Data::Map(g, _) if g.truncated() => Err(g.error()),
            _ => Ok(()),
        }
    }

    /// The file name given to [`Source::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh handle on the same file (same device, inode and length as
    /// when it was opened), positioned at `offset`; `None` if the path now
    /// names something else or the data is in memory. Lets ranges be copied
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
    /// leave this process's resident set (`MADV_DONTNEED`; the bytes stay in
    /// the page cache, so reading them again is cheap). A no-op for data in
    /// memory or out of range.
    pub fn release(&self, start: usize, len: usize) {
        if let Data::Map(_, m) = &self.data {
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

    /// Count `n` bytes of the mapping as read (by any thread) and no longer
    /// needed. Each time the count passes a multiple of [`RELEASE_EVERY`],
    /// the whole mapping is released ([`Source::release`]): for readers
    /// that go through a large input once in many small pieces (pak
    /// entries, IoStore blocks), whose pages could not be released one
    /// piece at a time (a page, and the neighbours the kernel maps with it
    /// on a fault, are shared with the next piece). Pages still in use by
    /// another thread are mapped again from the page cache on their next
    /// read, with the same bytes, so this is safe at any moment. A no-op
    /// for data in memory.
    pub fn passed(&self, n: u64) {
        use std::sync::atomic::Ordering;
        if !matches!(self.data, Data::Map(..)) || n == 0 {
            return;
        }
        let before = self.passed.fetch_add(n, Ordering::Relaxed);
        if before / RELEASE_EVERY != before.saturating_add(n) / RELEASE_EVERY {
            self.release(0, self.len());
        }
    }
}

/// Test hook (`PAKRAT_TEST_SHRINK_AFTER_MAP=NAME:LEN`): right after a file
/// named NAME is mapped, cut it to LEN bytes, as another process could, so
/// tests can make an input shrink at a known point. Read once per process.
fn test_hook_shrink(path: &Path) {
    static HOOK: std::sync::OnceLock<Option<(String, u64)>> = std::sync::OnceLock::new();
    let hook = HOOK.get_or_init(|| {
        let v = std::env::var("PAKRAT_TEST_SHRINK_AFTER_MAP").ok()?;
        let (name, len) = v.rsplit_once(':')?;
        Some((name.to_string(), len.parse().ok()?))
    });
    if let Some((name, len)) = hook {
        if path.file_name().is_some_and(|n| n == name.as_str()) {
            if let Ok(f) = std::fs::OpenOptions::new().write(true).open(path) {
                let _ = f.set_len(*len);
            }
        }
    }
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Map(_, m) => m,
            Data::Owned(v) => v,
        }
    }
}

impl AsRef<[u8]> for Source {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

#[cfg(all(test, unix))]
mod walked_tests {
    use super::read_walked;

    #[test]
    fn read_walked_reads_files_and_refuses_a_pipe_without_waiting() {
        let dir = std::env::temp_dir().join(format!("pakrat-walked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.uexp");
        std::fs::write(&file, b"export data").unwrap();
        assert_eq!(read_walked(&file).unwrap(), b"export data");
        // A pipe put where the walk saw a file: refused, and the open does
        // not wait for a writer (the test would hang).
        let fifo = dir.join("b.uexp");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_walked(&fifo).unwrap_err().to_string();
        assert!(e.contains("a named pipe (FIFO)"), "{e}");
        assert!(read_walked(&dir.join("none")).is_err());
        // A symbolic link put where the walk saw a file: not followed.
        let link = dir.join("c.uexp");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let e = read_walked(&link).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link now"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
