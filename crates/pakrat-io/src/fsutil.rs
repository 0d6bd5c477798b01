//! Safe output: every format that writes files goes through here.
//!
//! * [`sanitize_relative`] turns an archive member name into a relative path
//!   or refuses it: `..`, `.`, empty components, absolute paths, drive letters
//!   (`C:`), NUL and other control characters, over-long components.
//!   Both `/` and `\` separate folders (Unreal archives use `\`).
//! * [`OutputDir`] joins such paths under a root, refuses to pass through a
//!   symlink that already exists inside the root, refuses to overwrite unless
//!   `force`, and writes each file atomically (temp file in the same folder,
//!   then rename), so an interrupted run leaves no half-written file under the
//!   final name.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use crate::{Error, Result};

/// Longest accepted path component, in bytes (common file-system limit).
pub const MAX_COMPONENT: usize = 255;
/// Longest accepted relative path, in bytes.
pub const MAX_PATH: usize = 4096;

/// Prefix of temporary files; a leftover one is never a finished output.
pub const TEMP_PREFIX: &str = ".pakrat-tmp-";

/// Split an archive member name on `/` and `\` and check every component.
pub fn sanitize_relative(name: &str) -> Result<PathBuf> {
    let bad = |why: &str| Error::Other(format!("refusing unsafe member name {name:?}: {why}"));
    if name.is_empty() {
        return Err(bad("empty name"));
    }
    if name.len() > MAX_PATH {
        return Err(bad("name is too long"));
    }
    if name.starts_with('/') || name.starts_with('\\') {
        return Err(bad("absolute path"));
    }
    let mut out = PathBuf::new();
    for comp in name.split(['/', '\\']) {
        if comp.is_empty() {
            return Err(bad("empty path component"));
        }
        if comp == "." || comp == ".." {
            return Err(bad("parent or current folder component"));
        }
        if comp.contains(':') {
            return Err(bad("drive letter or stream name (':')"));
        }
        if comp.chars().any(|c| c.is_control()) {
            return Err(bad("control character or NUL"));
        }
        if comp.len() > MAX_COMPONENT {
            return Err(bad("path component longer than 255 bytes"));
        }
        // Belt and braces: the std parser must agree this is one normal component.
        let mut parts = Path::new(comp).components();
        match (parts.next(), parts.next()) {
            (Some(Component::Normal(_)), None) => {}
            _ => return Err(bad("not a plain file or folder name")),
        }
        out.push(comp);
    }
    Ok(out)
}

/// A folder that receives extracted files.
#[derive(Clone, Debug)]
pub struct OutputDir {
    root: PathBuf,
    force: bool,
    /// Folders below `root` that this run made, or found to be plain
    /// folders (not symbolic links), shared by the clones: a file in a
    /// known folder costs one `lstat` of its own path instead of an
    /// `lstat`, `mkdir` and `lstat` per folder above it (issue 31 item 17:
    /// 17 `statx` and 4 `mkdir` a file, for 10,300 files in 2,800 folders).
    /// Output folders are not expected to change under a running command;
    /// if one is removed, [`OutputDir::begin`] forgets them all and checks
    /// the path again.
    known: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<PathBuf>>>,
    /// Set for a fresh folder ([`OutputDir::create_fresh`]): files are
    /// written in place, and the folder is renamed into place at the end.
    pub(crate) fresh: Option<std::sync::Arc<crate::fresh::Fresh>>,
}

impl OutputDir {
    /// Create (if needed) and open `root`. With `force`, existing files may be
    /// replaced; otherwise writing over one is an error.
    pub fn create(root: impl AsRef<Path>, force: bool) -> Result<Self> {
        let root = root.as_ref();
        if root.exists() && !root.is_dir() {
            return Err(Error::Other(format!(
                "{}: exists and is not a folder; give a folder to write into (it is made if missing)",
                root.display()
            )));
        }
        fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
        let root = fs::canonicalize(root).map_err(|e| Error::io(root, e))?;
        Ok(OutputDir {
            root,
            force,
            known: Default::default(),
            fresh: None,
        })
    }

    /// Whether `dir` is a folder this run made or checked.
    fn is_known(&self, dir: &Path) -> bool {
        self.known.lock().is_ok_and(|k| k.contains(dir))
    }

    fn set_known(&self, dir: &Path) {
        if let Ok(mut k) = self.known.lock() {
            k.insert(dir.to_path_buf());
        }
    }

    /// Forget the folders made or checked so far (some were removed): the
    /// next files check their whole path again.
    pub(crate) fn forget_folders(&self) {
        if let Ok(mut k) = self.known.lock() {
            k.clear();
        }
    }

    /// The (canonical) root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether existing files may be replaced.
    pub fn force(&self) -> bool {
        self.force
    }

    /// Where `name` would be written, after all checks; creates no folder.
    pub fn resolve(&self, name: &str) -> Result<PathBuf> {
        self.resolve_checking(name, true)
    }

    /// [`OutputDir::resolve`]; the last component is checked only with
    /// `last` (else the caller checks it: see [`OutputDir::begin`]).
    fn resolve_checking(&self, name: &str, last: bool) -> Result<PathBuf> {
        let rel = sanitize_relative(name)?;
        let full = self.root.join(&rel);
        // Folders become known root first, so a known parent means every
        // folder on the way is known: only the file itself is left.
        if full.parent().is_some_and(|p| self.is_known(p)) {
            if last {
                if let Ok(meta) = fs::symlink_metadata(&full) {
                    if meta.file_type().is_symlink() {
                        return Err(symlink_refused(name, &full));
                    }
                }
            }
            return Ok(full);
        }
        let mut cur = self.root.clone();
        let n = rel.components().count();
        for (i, comp) in rel.components().enumerate() {
            cur.push(comp);
            let is_last = i + 1 == n;
            if (is_last && !last) || (!is_last && self.is_known(&cur)) {
                continue; // a plain folder, made or checked by this run
            }
            if let Ok(meta) = fs::symlink_metadata(&cur) {
                if meta.file_type().is_symlink() {
                    return Err(symlink_refused(name, &cur));
                }
            }
        }
        Ok(cur)
    }

    /// Make the parent folders of a resolved path, refusing symlinks.
    fn make_parents(&self, path: &Path) -> Result<()> {
        self.make_parents_noting(path, |_| {})
    }

    /// [`OutputDir::make_parents`], calling `created` with each folder it
    /// made (so that a stage can remove them again).
    pub(crate) fn make_parents_noting(
        &self,
        path: &Path,
        mut created: impl FnMut(&Path),
    ) -> Result<()> {
        let parent = path.parent().unwrap_or(&self.root);
        if self.is_known(parent) {
            return Ok(()); // and so is every folder above it
        }
        let rel = parent.strip_prefix(&self.root).unwrap_or(Path::new(""));
        let mut cur = self.root.clone();
        for comp in rel.components() {
            cur.push(comp);
            if self.is_known(&cur) {
                continue;
            }
            match fs::create_dir(&cur) {
                Ok(()) => {
                    // A new, empty folder holds no leftovers to sweep.
                    mark_swept(&cur);
                    created(&cur);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let meta = fs::symlink_metadata(&cur).map_err(|e| Error::io(&cur, e))?;
                    if !meta.is_dir() || meta.file_type().is_symlink() {
                        return Err(Error::Other(format!(
                            "{} exists and is not a plain folder",
                            cur.display()
                        )));
                    }
                }
                Err(e) => return Err(Error::io(&cur, e)),
            }
            self.set_known(&cur);
        }
        Ok(())
    }

    /// Write `data` to `name` atomically. Returns the final path.
    pub fn write(&self, name: &str, data: &[u8]) -> Result<PathBuf> {
        // One write of the whole buffer: no 64 KiB buffer for a small file.
        self.write_file_with(name, |mut f| f.write_all(data))
    }

    /// Write `name` atomically with a callback that streams the content.
    pub fn write_with(
        &self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<PathBuf> {
        self.write_file_with(name, |f| {
            // 64 KiB: small writes are gathered, and larger ones (whole
            // blocks or windows) go straight to the file.
            let mut buf = io::BufWriter::with_capacity(64 << 10, f);
            fill(&mut buf)?;
            buf.flush()
        })
    }

    /// Start writing `name` (same checks as [`OutputDir::write_with`]: a
    /// safe relative name, no symbolic link on the way, no existing file
    /// without `force`); the data goes in through the returned
    /// [`PendingFile`], which [`PendingFile::commit`] puts in place.
    pub fn begin(&self, name: &str) -> Result<PendingFile> {
        let path = self.resolve_checking(name, false)?;
        self.make_parents(&path)?;
        if let Some(f) = &self.fresh {
            // A folder this run made and nobody else sees yet: the file is
            // created in place (O_EXCL: no existing file or link is used).
            if let Some(d) = crate::fresh::DirectFile::create(&path)? {
                return Ok(PendingFile {
                    inner: Inner::Direct(d),
                    path: f.shown(&path),
                    force: self.force,
                    faults: crate::mapguard::faults(),
                });
            }
            if !self.force {
                return Err(already_exists(&f.shown(&path)));
            }
        }
        // One `lstat` of the file's own path: a link there is refused, as
        // on the way; an existing file too, without `force`.
        if let Ok(meta) = fs::symlink_metadata(&path) {
            if meta.file_type().is_symlink() {
                return Err(symlink_refused(name, &path));
            }
            if !self.force {
                return Err(already_exists(&path));
            }
        }
        match PendingFile::open_in_folder(&path, self.force) {
            Err(Error::Io { ref source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                // A folder this run knew was removed: check the path anew.
                self.forget_folders();
                let path = self.resolve(name)?;
                self.make_parents(&path)?;
                PendingFile::begin(&path, self.force)
            }
            res => res,
        }
    }

    /// Write `name` atomically with a callback that gets the open (temporary)
    /// [`File`], with the same checks as [`OutputDir::write_with`]; see
    /// [`write_atomic_file`].
    pub fn write_file_with(
        &self,
        name: &str,
        fill: impl FnOnce(&File) -> io::Result<()>,
    ) -> Result<PathBuf> {
        let pending = self.begin(name)?;
        fill(pending.file()).map_err(|e| Error::io(pending.path(), e))?;
        pending.commit()
    }

    /// Write `name` atomically with `len` bytes of `src` starting at
    /// `offset`, copied file to file (`std::io::copy`, which is
    /// `copy_file_range` inside the kernel on Linux), with the same checks as
    /// [`OutputDir::write_with`]. `src` is left positioned after the copied
    /// range. Fails, leaving no file, if `src` holds fewer bytes than asked.
    pub fn write_from_file_range(
        &self,
        name: &str,
        src: &mut File,
        offset: u64,
        len: u64,
    ) -> Result<PathBuf> {
        let pending = self.begin(name)?;
        pending.preallocate(len)?;
        copy_range(src, offset, len, pending.file()).map_err(|e| Error::io(pending.path(), e))?;
        pending.commit()
    }
}

/// Copy `len` bytes of `src` from `offset` to the current position of `dst`.
fn copy_range(src: &mut File, offset: u64, len: u64, mut dst: &File) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    src.seek(SeekFrom::Start(offset))?;
    let n = io::copy(&mut src.take(len), &mut dst)?;
    if n != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("source holds only {n} of {len} bytes at offset {offset}"),
        ));
    }
    Ok(())
}

/// Write `path` through a temporary file in the same folder and rename it
/// into place. Without `force` an existing file is left alone and reported;
/// the no-clobber rename is atomic where the file system supports hard links.
pub fn write_atomic(
    path: &Path,
    force: bool,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    write_atomic_file(path, force, |f| {
        // 64 KiB: small writes are gathered, and larger ones (whole blocks or
        // windows) go straight to the file instead of being copied first.
        let mut buf = io::BufWriter::with_capacity(64 << 10, f);
        fill(&mut buf)?;
        buf.flush()
    })
}

/// Like [`write_atomic`], but `fill` gets the open temporary [`File`]
/// itself (unbuffered), so it can copy into it from another file with
/// `std::io::copy` (which the standard library turns into `copy_file_range`
/// on Linux).
pub fn write_atomic_file(
    path: &Path,
    force: bool,
    fill: impl FnOnce(&File) -> io::Result<()>,
) -> Result<()> {
    let pending = PendingFile::begin(path, force)?;
    fill(pending.file()).map_err(|e| Error::io(path, e))?;
    pending.commit().map(|_| ())
}

/// Smallest file [`PendingFile::preallocate`] reserves space for.
pub const PREALLOCATE_MIN: u64 = 256 << 10;

/// A file being written atomically: a temporary file in the folder of its
/// final path, renamed into place by [`PendingFile::commit`]. Dropped
/// without a commit (an error, a panic, a stage that gave up), it is
/// deleted, so no half-written file ever carries the final name. It can be
/// moved to another thread, which lets one stage open files and another
/// fill and commit them.
#[derive(Debug)]
pub struct PendingFile {
    inner: Inner,
    /// The final path (as shown in messages).
    path: PathBuf,
    force: bool,
    /// [`crate::mapguard::faults`] at the start: the commit is refused if
    /// an input changed size since (its content may be zeros).
    faults: u64,
}

/// How a [`PendingFile`] gets its name.
#[derive(Debug)]
enum Inner {
    /// A temporary file, renamed at the commit.
    Temp(tempfile::NamedTempFile),
    /// A file in a fresh folder, written under its own name (removed if
    /// not committed).
    Direct(crate::fresh::DirectFile),
}

impl PendingFile {
    /// Open a temporary file for `path`, creating its folder (and the
    /// folders above it) when missing, as extraction does. Without `force`
    /// an existing `path` is refused now, and again at the commit.
    pub fn begin(path: &Path, force: bool) -> Result<PendingFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        Self::begin_in_folder(path, force)
    }

    /// [`PendingFile::begin`] when the folder of `path` exists (else the
    /// error is the temporary file's `NotFound`).
    fn begin_in_folder(path: &Path, force: bool) -> Result<PendingFile> {
        if !force && fs::symlink_metadata(path).is_ok() {
            return Err(already_exists(path));
        }
        Self::open_in_folder(path, force)
    }

    /// [`PendingFile::begin_in_folder`] without the check for an existing
    /// file (the caller made it; the commit checks again).
    fn open_in_folder(path: &Path, force: bool) -> Result<PendingFile> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let faults = crate::mapguard::faults();
        let tmp = temp_file_in(dir)?;
        Ok(PendingFile {
            inner: Inner::Temp(tmp),
            path: path.to_path_buf(),
            force,
            faults,
        })
    }

    /// Reserve disk space for `len` bytes before writing them (Linux
    /// `fallocate` with `FALLOC_FL_KEEP_SIZE`: the file size still grows
    /// only with what is written). A full disk is reported now, before any
    /// work is spent on the content; file systems that cannot preallocate
    /// are simply written as usual. On ext4 this also spares the kernel its
    /// per-page delayed-allocation bookkeeping during the writes. Files
    /// under [`PREALLOCATE_MIN`] are written without it: for them the
    /// system call costs more than it saves, and a full disk shows at
    /// their write just as early.
    pub fn preallocate(&self, len: u64) -> Result<()> {
        if len < PREALLOCATE_MIN {
            return Ok(());
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let Ok(n) = libc::off_t::try_from(len) else {
                return Ok(());
            };
            if n == 0 {
                return Ok(());
            }
            // SAFETY: a plain system call on a file descriptor this value
            // owns; no memory is passed.
            let rc = unsafe {
                libc::fallocate(self.file().as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, n)
            };
            #[cfg(test)]
            let rc = if FAKE_ENOSPC.with(|f| f.get()) {
                // SAFETY: sets this thread's errno, as the call would.
                unsafe { *libc::__errno_location() = libc::ENOSPC };
                -1
            } else {
                rc
            };
            if rc != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::ENOSPC) {
                    // fallocate can say ENOSPC while the space is there:
                    // ext4 counts other writers' delayed allocations and
                    // its reserved clusters against a reservation, and
                    // quotas or tmpfs limits differ from statvfs. Fail only
                    // when the file system really lacks the bytes; else
                    // write without a reservation (as before fallocate).
                    if let Some(free) = free_bytes(self.file()) {
                        if free < len {
                            return Err(Error::Other(format!(
                                "{}: not enough disk space for {len} bytes ({free} bytes free)",
                                self.path.display()
                            )));
                        }
                    }
                }
                // EOPNOTSUPP, EINVAL, ...: no preallocation on this file system.
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = len;
        Ok(())
    }

    /// The open temporary file (write through `&File`, or copy into it).
    pub fn file(&self) -> &File {
        match &self.inner {
            Inner::Temp(t) => t.as_file(),
            Inner::Direct(d) => &d.file,
        }
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Rename the temporary file to its final path (without `force`, only
    /// if that path still does not exist: atomic where the file system
    /// supports hard links). Returns the final path. Refused (and the
    /// temporary file deleted) if a mapped input changed size since
    /// [`PendingFile::begin`] ([`crate::mapguard::changed_since`]).
    pub fn commit(self) -> Result<PathBuf> {
        let PendingFile {
            inner,
            path,
            force,
            faults,
        } = self;
        crate::mapguard::changed_since(faults)?;
        let tmp = match inner {
            Inner::Temp(t) => t,
            Inner::Direct(mut d) => {
                d.kept = true;
                return Ok(path);
            }
        };
        let res = if force {
            tmp.persist(&path).map(|_| ())
        } else {
            tmp.persist_noclobber(&path).map(|_| ())
        };
        match res {
            Ok(()) => Ok(path),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Err(already_exists(&path)),
            Err(e) => Err(Error::io(&path, e.error)),
        }
    }
}

impl Write for PendingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: make this thread's next `fallocate` calls fail with ENOSPC.
    static FAKE_ENOSPC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Bytes an unprivileged writer may still use on the file system of `f`.
#[cfg(target_os = "linux")]
#[allow(clippy::useless_conversion)] // u64 here, u32 on 32-bit targets
fn free_bytes(f: &File) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatvfs fills the zeroed struct we own; fd is open.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::fstatvfs(f.as_raw_fd(), &mut st) };
    (rc == 0).then(|| u64::from(st.f_bavail).saturating_mul(u64::from(st.f_frsize)))
}

/// Leftover temporary files removed by this run (see [`temp_file_in`]).
static LEFTOVERS_REMOVED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many temporary files of interrupted earlier runs (a process that
/// no longer exists) this process has removed so far.
pub fn leftovers_removed() -> usize {
    LEFTOVERS_REMOVED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether process `pid` exists (a process we may not signal exists too).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(p) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if p <= 0 {
            return true; // never ours to judge
        }
        // SAFETY: signal 0 only checks that the process exists.
        let rc = unsafe { libc::kill(p, 0) };
        rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// The pid in a temporary file's name (`.pakrat-tmp-<pid>-…`), if any.
pub fn temp_owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, tail) = rest.split_once('-')?;
    if tail.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Folders swept (or made) by this run: see [`sweep_leftovers`].
static SWEPT: std::sync::Mutex<Option<std::collections::HashSet<PathBuf>>> =
    std::sync::Mutex::new(None);

/// Note that `dir` needs no sweep: this run has just made it.
fn mark_swept(dir: &Path) {
    if let Ok(mut g) = SWEPT.lock() {
        g.get_or_insert_with(Default::default)
            .insert(dir.to_path_buf());
    }
}

/// This process's id, asked of the kernel once (`getpid` is a system call).
fn own_pid() -> u32 {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID.get_or_init(std::process::id)
}

/// Remove, once per folder and run, the temporary files that a process
/// which no longer exists left in `dir` (killed in the middle of a write).
/// Only regular files (and the fresh output folders of
/// [`OutputDir::create_fresh`]) named `.pakrat-tmp-<pid>-…` with a dead
/// `<pid>` are removed; a live process's files and every other name are
/// left alone.
pub fn sweep_leftovers(dir: &Path) -> usize {
    {
        let Ok(mut g) = SWEPT.lock() else {
            return 0;
        };
        if !g
            .get_or_insert_with(Default::default)
            .insert(dir.to_path_buf())
        {
            return 0;
        }
    }
    let me = own_pid();
    let Ok(rd) = fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        if pid == me || process_alive(pid) {
            continue;
        }
        let Ok(t) = e.file_type() else { continue };
        // A folder of that name is a fresh output folder of a killed run
        // (`OutputDir::create_fresh`); `remove_dir_all` follows no link.
        if (t.is_file() && fs::remove_file(e.path()).is_ok())
            || (t.is_dir() && fs::remove_dir_all(e.path()).is_ok())
        {
            n += 1;
        }
    }
    LEFTOVERS_REMOVED.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    n
}

/// A new temporary file in `dir`, named `.pakrat-tmp-<pid>-<random>` so
/// that a later run can tell a leftover of a killed process from a file
/// another running pakrat is writing ([`sweep_leftovers`], done here once
/// per folder). It gets a new file's usual mode (0666 less the umask), not
/// the 0600 temporary files are normally created with, since it becomes an
/// output as it is.
pub(crate) fn temp_file_in(dir: &Path) -> Result<tempfile::NamedTempFile> {
    sweep_leftovers(dir);
    static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let prefix = PREFIX.get_or_init(|| format!("{TEMP_PREFIX}{}-", own_pid()));
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // The error names the folder, not the temporary name (tempfile's
    // message adds `at path ".pakrat-tmp-..."`, which means nothing to a user).
    builder.tempfile_in(dir).map_err(|e| {
        let plain = match e.raw_os_error() {
            Some(code) => io::Error::from_raw_os_error(code),
            None => io::Error::new(e.kind(), "cannot create a temporary file"),
        };
        Error::io(dir, plain)
    })
}

/// "refusing to write NAME: PATH is a symbolic link".
fn symlink_refused(name: &str, at: &Path) -> Error {
    Error::Other(format!(
        "refusing to write {name:?}: {} is a symbolic link",
        at.display()
    ))
}

/// "PATH already exists (use --force to replace it)".
pub(crate) fn already_exists(path: &Path) -> Error {
    Error::Other(format!(
        "{} already exists (use --force to replace it)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_escapes() {
        for bad in [
            "../x",
            "a/../../x",
            "..\\x",
            "/etc/passwd",
            "\\x",
            "C:\\x",
            "c:x",
            "a\0b",
            "a//b",
            "",
            ".",
            "a/./b",
        ] {
            assert!(sanitize_relative(bad).is_err(), "{bad:?} accepted");
        }
        assert!(sanitize_relative(&"a".repeat(300)).is_err());
        assert_eq!(
            sanitize_relative("System\\Foo.u").unwrap(),
            Path::new("System").join("Foo.u")
        );
    }

    #[test]
    fn pending_files_commit_or_vanish() {
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("out"), false).unwrap();
        let temps = || {
            fs::read_dir(out.root().join("d"))
                .unwrap()
                .filter(|e| {
                    let n = e.as_ref().unwrap().file_name();
                    n.to_string_lossy().starts_with(TEMP_PREFIX)
                })
                .count()
        };
        // Dropped without a commit: nothing under the final name, no temp.
        let mut p = out.begin("d/a.bin").unwrap();
        p.write_all(b"half").unwrap();
        assert_eq!(temps(), 1);
        drop(p);
        assert_eq!(temps(), 0);
        assert!(!out.root().join("d/a.bin").exists());
        // Committed from another thread; space reserved beyond what is
        // written does not change the size.
        let mut p = out.begin("d/a.bin").unwrap();
        p.preallocate(1 << 20).unwrap();
        p.write_all(b"whole").unwrap();
        let path = std::thread::spawn(move || p.commit())
            .join()
            .unwrap()
            .unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"whole");
        assert_eq!(fs::metadata(&path).unwrap().len(), 5);
        // Without force: refused at begin, and at commit when the file
        // appeared in between (the earlier content stays).
        assert!(out.begin("d/a.bin").is_err());
        let p = out.begin("d/b.bin").unwrap();
        fs::write(out.root().join("d/b.bin"), b"theirs").unwrap();
        let e = p.commit().unwrap_err().to_string();
        assert!(e.contains("already exists"), "{e}");
        assert_eq!(fs::read(out.root().join("d/b.bin")).unwrap(), b"theirs");
        assert_eq!(temps(), 0);
        assert!(out.begin("../x").is_err());
    }

    #[test]
    fn atomic_no_clobber_and_symlinks() {
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("out"), false).unwrap();
        let p = out.write("A\\b.txt", b"one").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one");
        assert!(out.write("A/b.txt", b"two").is_err());
        assert_eq!(fs::read(&p).unwrap(), b"one");
        let forced = OutputDir::create(t.path().join("out"), true).unwrap();
        forced.write("A/b.txt", b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        #[cfg(unix)]
        {
            let outside = t.path().join("outside");
            fs::create_dir(&outside).unwrap();
            std::os::unix::fs::symlink(&outside, out.root().join("link")).unwrap();
            assert!(forced.write("link/x", b"x").is_err());
            assert!(fs::read_dir(&outside).unwrap().next().is_none());
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_ne!(
                mode, 0o600,
                "outputs must not keep the temp file's private mode"
            );
        }
        // Range copy from a file: same checks, exact bytes, short source refused.
        let src_path = t.path().join("src.bin");
        fs::write(&src_path, b"0123456789").unwrap();
        let mut src = File::open(&src_path).unwrap();
        let q = out
            .write_from_file_range("A/range.bin", &mut src, 3, 4)
            .unwrap();
        assert_eq!(fs::read(&q).unwrap(), b"3456");
        assert!(out
            .write_from_file_range("A/range.bin", &mut src, 0, 1)
            .is_err());
        assert!(out
            .write_from_file_range("A/short.bin", &mut src, 8, 5)
            .is_err());
        assert!(!out.root().join("A/short.bin").exists());
        assert!(out.write_from_file_range("../esc", &mut src, 0, 1).is_err());
        #[cfg(unix)]
        assert!(forced
            .write_from_file_range("link/y", &mut src, 0, 1)
            .is_err());
        let leftovers: Vec<_> = fs::read_dir(out.root().join("A"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
            .collect();
        assert!(leftovers.is_empty());
    }

    /// Issue 31 item 17: folders are checked once per run, but only the
    /// folders that were checked: a symbolic link planted next to a known
    /// folder is still refused, and a known folder removed meanwhile is
    /// made again instead of failing the write.
    #[cfg(unix)]
    #[test]
    fn known_folders_skip_checks_but_not_links_or_removals() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        fs::create_dir(&outside).unwrap();
        let out = OutputDir::create(t.path().join("out"), false).unwrap();
        out.write("d/e/one", b"1").unwrap();
        assert!(out.is_known(&out.root().join("d/e")));
        std::os::unix::fs::symlink(&outside, out.root().join("d/link")).unwrap();
        let e = out.write("d/link/two", b"2").unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        out.write("d/e/three", b"3").unwrap();
        // Removed behind the cache's back: made again.
        fs::remove_dir_all(out.root().join("d")).unwrap();
        out.write("d/e/four", b"4").unwrap();
        assert_eq!(fs::read(out.root().join("d/e/four")).unwrap(), b"4");
        let p = out.begin("d/f/five").unwrap();
        fs::remove_dir_all(out.root().join("d")).unwrap();
        drop(p);
        let mut p = out.begin("d/f/five").unwrap();
        p.write_all(b"5").unwrap();
        p.commit().unwrap();
        assert_eq!(fs::read(out.root().join("d/f/five")).unwrap(), b"5");
        // Clones (one per thread) share what was learnt.
        let twin = out.clone();
        assert!(twin.is_known(&out.root().join("d/f")));
    }

    #[test]
    fn temp_names_carry_the_pid() {
        assert_eq!(temp_owner(".pakrat-tmp-1234-abcDEF"), Some(1234));
        assert_eq!(temp_owner(".pakrat-tmp-abcDEF"), None); // older runs
        assert_eq!(temp_owner(".pakrat-tmp-12-"), None);
        assert_eq!(temp_owner("x.pakrat-tmp-12-a"), None);
        let t = tempfile::tempdir().unwrap();
        let f = temp_file_in(t.path()).unwrap();
        let name = f.path().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(temp_owner(&name), Some(std::process::id()), "{name}");
    }

    /// Issue 16 finding 15: leftovers of a killed run are removed by the
    /// next write into the folder; a live process's are not.
    #[cfg(unix)]
    #[test]
    fn leftovers_of_dead_processes_are_swept() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("o"), false).unwrap();
        let dead_tmp = out.root().join(format!("{TEMP_PREFIX}{dead}-xYz123"));
        let live_tmp = out.root().join(format!("{TEMP_PREFIX}1-xYz123")); // init
        let mine = out
            .root()
            .join(format!("{TEMP_PREFIX}{}-aaaaaa", std::process::id()));
        let old_style = out.root().join(format!("{TEMP_PREFIX}AbC123"));
        for p in [&dead_tmp, &live_tmp, &mine, &old_style] {
            fs::write(p, vec![0u8; 4096]).unwrap();
        }
        let before = leftovers_removed();
        out.write("new.bin", b"data").unwrap();
        assert!(!dead_tmp.exists(), "a dead process's leftover stays");
        assert!(live_tmp.exists() && mine.exists() && old_style.exists());
        assert!(leftovers_removed() > before);
        assert_eq!(fs::read(out.root().join("new.bin")).unwrap(), b"data");
    }

    /// Issue 16 finding 17: an ENOSPC from fallocate while the space is
    /// there falls back to plain writes; a real shortage is still reported.
    #[cfg(target_os = "linux")]
    #[test]
    fn spurious_enospc_from_fallocate_falls_back() {
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path(), false).unwrap();
        FAKE_ENOSPC.with(|f| f.set(true));
        let mut p = out.begin("a.bin").unwrap();
        p.preallocate(1 << 20).unwrap();
        p.write_all(&vec![7u8; 1 << 20]).unwrap();
        let path = p.commit().unwrap();
        assert_eq!(fs::read(path).unwrap(), vec![7u8; 1 << 20]);
        let p = out.begin("b.bin").unwrap();
        let err = p.preallocate(1 << 60).unwrap_err();
        FAKE_ENOSPC.with(|f| f.set(false));
        assert!(err.to_string().contains("not enough disk space"), "{err}");
    }
}
