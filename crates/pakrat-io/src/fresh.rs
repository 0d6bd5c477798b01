//! Output into a folder that does not exist yet, made whole at the end.
//!
//! [`OutputDir::create_fresh`] makes a hidden temporary folder
//! (`.pakrat-tmp-<pid>-…`) beside the requested one and writes every file
//! straight into it (one `open(O_CREAT | O_EXCL)` a file, no temporary name
//! and rename per file); [`OutputDir::publish`] renames the whole folder into
//! place (without replacing anything that appeared there meanwhile). Nothing
//! shows under the requested name until then, so the extraction as a whole
//! is atomic, and a file that fails (a hash mismatch, a full disk) is removed
//! before the folder is published. A folder left by a killed run is removed
//! by the next [`OutputDir::create_fresh`] in the same parent folder (its
//! process no longer exists: see [`crate::fsutil::sweep_leftovers`]).
//! When the requested folder exists already, [`OutputDir::create_fresh`] is
//! [`OutputDir::create`], and every file is written through its own
//! temporary file as usual.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fsutil::{OutputDir, TEMP_PREFIX};
use crate::{Error, Result};

/// The two names of a fresh output folder.
#[derive(Debug)]
pub(crate) struct Fresh {
    /// The hidden folder files are written into (canonical).
    pub(crate) tmp: PathBuf,
    /// Where [`OutputDir::publish`] puts it.
    pub(crate) target: PathBuf,
    /// Renamed into place already.
    published: AtomicBool,
}

impl Fresh {
    /// `path` (under the hidden folder) as it will be named once published.
    pub(crate) fn shown(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.tmp) {
            Ok(rel) => self.target.join(rel),
            Err(_) => path.to_path_buf(),
        }
    }
}

/// A file opened in place in a fresh folder: removed on drop unless kept.
#[derive(Debug)]
pub(crate) struct DirectFile {
    pub(crate) file: File,
    /// Its real path (under the hidden folder).
    pub(crate) at: PathBuf,
    pub(crate) kept: bool,
}

impl DirectFile {
    /// Create `at`, which must not exist (`O_EXCL`: not even as a symbolic
    /// link, which is never followed). `Ok(None)` when it exists.
    pub(crate) fn create(at: &Path) -> Result<Option<DirectFile>> {
        let mut o = fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o666)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
        }
        match o.open(at) {
            Ok(file) => Ok(Some(DirectFile {
                file,
                at: at.to_path_buf(),
                kept: false,
            })),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(Error::io(at, e)),
        }
    }
}

impl Drop for DirectFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.at);
        }
    }
}

impl OutputDir {
    /// [`OutputDir::create`] when `root` exists; otherwise a hidden folder
    /// beside it receives the files, each written in place, and
    /// [`OutputDir::publish`] gives it the name `root` at the end (see the
    /// module documentation).
    pub fn create_fresh(root: impl AsRef<Path>, force: bool) -> Result<Self> {
        let root = root.as_ref();
        if fs::symlink_metadata(root).is_ok() {
            return OutputDir::create(root, force);
        }
        let name = root.file_name().ok_or_else(|| {
            Error::Other(format!("{}: not a folder name to create", root.display()))
        })?;
        let parent = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        let parent = fs::canonicalize(parent).map_err(|e| Error::io(parent, e))?;
        crate::fsutil::sweep_leftovers(&parent);
        let tmp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .tempdir_in(&parent)
            .map_err(|e| Error::io(&parent, e))?
            .keep();
        #[cfg(unix)]
        {
            // A new folder's usual mode (0777 less the umask), not 0700.
            use std::os::unix::fs::PermissionsExt;
            let mode = 0o777 & !umask();
            let _ = fs::set_permissions(&tmp, fs::Permissions::from_mode(mode));
        }
        let mut out = OutputDir::create(&tmp, force)?;
        out.fresh = Some(std::sync::Arc::new(Fresh {
            tmp: out.root().to_path_buf(),
            target: parent.join(name),
            published: AtomicBool::new(false),
        }));
        Ok(out)
    }

    /// Whether files go into a fresh hidden folder, each written in place.
    pub fn is_fresh(&self) -> bool {
        self.fresh.is_some()
    }

    /// Where the files end up: the root, or for a fresh folder the name it
    /// gets when published.
    pub fn target(&self) -> &Path {
        match &self.fresh {
            Some(f) => &f.target,
            None => self.root(),
        }
    }

    /// Give a fresh folder its name (once; a no-op for other folders) and
    /// return [`OutputDir::target`]. Refused, leaving the files in the
    /// hidden folder (named in the error), if something appeared under that
    /// name during the run.
    pub fn publish(&self) -> Result<PathBuf> {
        let Some(f) = &self.fresh else {
            return Ok(self.root().to_path_buf());
        };
        if f.published.swap(true, Ordering::AcqRel) {
            return Ok(f.target.clone());
        }
        rename_noreplace(&f.tmp, &f.target).map_err(|e| {
            f.published.store(false, Ordering::Release);
            Error::Other(format!(
                "{}: cannot put the extracted folder in place ({e}); the files are in {}",
                f.target.display(),
                f.tmp.display()
            ))
        })?;
        Ok(f.target.clone())
    }
}

/// The process's umask (read by setting it and setting it back).
#[cfg(unix)]
#[allow(clippy::useless_conversion)] // mode_t is u32 here, u16 on macOS
fn umask() -> u32 {
    static MASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *MASK.get_or_init(|| {
        // SAFETY: umask only swaps the process's mask; it is set back at once.
        let old = unsafe { libc::umask(0o022) };
        unsafe { libc::umask(old) };
        u32::from(old)
    })
}

/// Rename `from` to `to` unless `to` exists (atomically on Linux).
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let a = CString::new(from.as_os_str().as_bytes())?;
        let b = CString::new(to.as_os_str().as_bytes())?;
        // SAFETY: two NUL-terminated paths that outlive the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINVAL) && e.raw_os_error() != Some(libc::ENOSYS) {
            return Err(e);
        }
    }
    // No atomic no-replace rename here: check, then rename.
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "it exists now (made during the run)",
        ));
    }
    fs::rename(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_folder_appears_whole_and_failed_files_vanish() {
        let base = tempfile::tempdir().unwrap();
        let target = base.path().join("out");
        let out = OutputDir::create_fresh(&target, false).unwrap();
        assert!(out.is_fresh());
        assert!(!target.exists(), "nothing under the name before publish");
        out.write("a/b.txt", b"hello").unwrap();
        // A second write of one name is refused without force.
        assert!(out.write("a/b.txt", b"again").is_err());
        // A file dropped without commit leaves nothing.
        let p = out.begin("a/c.txt").unwrap();
        drop(p);
        // Hostile names are refused as usual.
        assert!(out.write("../x", b"x").is_err());
        assert_eq!(out.publish().unwrap(), target);
        assert_eq!(fs::read(target.join("a/b.txt")).unwrap(), b"hello");
        assert!(!target.join("a/c.txt").exists());
        let left: Vec<_> = fs::read_dir(base.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "only the published folder remains");
        // An existing folder: the usual per-file atomic writes.
        let again = OutputDir::create_fresh(&target, false).unwrap();
        assert!(!again.is_fresh());
        assert!(again.write("a/b.txt", b"x").is_err());
    }

    #[test]
    fn publish_refuses_a_folder_made_meanwhile() {
        let base = tempfile::tempdir().unwrap();
        let target = base.path().join("out");
        let out = OutputDir::create_fresh(&target, true).unwrap();
        out.write("f", b"1").unwrap();
        fs::create_dir(&target).unwrap();
        let e = out.publish().unwrap_err().to_string();
        assert!(e.contains("the files are in"), "{e}");
        assert!(fs::read_dir(&target).unwrap().next().is_none());
    }
}
