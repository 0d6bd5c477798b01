//! All-or-nothing output of many files into an [`OutputDir`].
//!
//! [`Staging::stage`] writes a file into a temporary file next to its final
//! place (same folder, so the final rename is atomic), with the same path
//! checks as [`OutputDir::write_with`] (sanitised relative name, no symbolic
//! link on the way, parents created as plain folders). Nothing appears under a
//! final name until [`Staging::commit`]; [`Staging::abort`] deletes the
//! temporary files and the folders staging created, if they are empty. This
//! lets a reader write while an integrity check (such as a CRC over the whole
//! input) is still running, and publish the files only when it passes.
//! The fill callback gets the open [`File`], so it can use `std::io::copy`
//! from another file (which the standard library turns into
//! `copy_file_range` on Linux).

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::fsutil::{already_exists, temp_file_in, OutputDir};
use crate::{Error, Result};

/// One staged file: a temporary file and the final path it will get.
#[derive(Debug)]
pub struct Staged {
    temp: tempfile::TempPath,
    path: PathBuf,
}

impl Staged {
    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Stages files into an [`OutputDir`]; see the module documentation.
#[derive(Debug)]
pub struct Staging<'o> {
    out: &'o OutputDir,
    created: Mutex<Vec<PathBuf>>,
    /// [`crate::mapguard::faults`] at the start (see [`Staging::commit`]).
    faults: u64,
}

impl<'o> Staging<'o> {
    /// Stage into `out` (its `force` decides whether commit may replace files).
    pub fn new(out: &'o OutputDir) -> Self {
        Staging {
            out,
            created: Mutex::new(Vec::new()),
            faults: crate::mapguard::faults(),
        }
    }

    fn make_parents(&self, path: &Path) -> Result<()> {
        self.out.make_parents_noting(path, |dir| {
            if let Ok(mut c) = self.created.lock() {
                c.push(dir.to_path_buf());
            }
        })
    }

    /// Write `name` into a temporary file beside its final place. Fails
    /// (writing nothing) when the name is unsafe, a symbolic link is on the
    /// way, or, without `force`, the final file already exists.
    pub fn stage(&self, name: &str, fill: impl FnOnce(&File) -> io::Result<()>) -> Result<Staged> {
        let path = self.out.resolve(name)?;
        if !self.out.force() && fs::symlink_metadata(&path).is_ok() {
            return Err(already_exists(&path));
        }
        self.make_parents(&path)?;
        let dir = path.parent().unwrap_or(self.out.root());
        let tmp = temp_file_in(dir)?;
        fill(tmp.as_file()).map_err(|e| Error::io(&path, e))?;
        Ok(Staged {
            temp: tmp.into_temp_path(),
            path,
        })
    }

    /// Like [`Staging::stage`], but hand back the open temporary file, for
    /// writers that fill several files at once or seek around in them.
    pub fn stage_file(&self, name: &str) -> Result<(Staged, File)> {
        let path = self.out.resolve(name)?;
        if !self.out.force() && fs::symlink_metadata(&path).is_ok() {
            return Err(already_exists(&path));
        }
        self.make_parents(&path)?;
        let dir = path.parent().unwrap_or(self.out.root());
        let tmp = temp_file_in(dir)?;
        let file = tmp.as_file().try_clone().map_err(|e| Error::io(&path, e))?;
        Ok((
            Staged {
                temp: tmp.into_temp_path(),
                path,
            },
            file,
        ))
    }

    /// Give every staged file its final name (refusing to replace an existing
    /// file unless the output was opened with `force`). Returns the paths.
    /// On an error, files not yet renamed are deleted. Nothing is renamed
    /// if a mapped input changed size since [`Staging::new`]
    /// ([`crate::mapguard::changed_since`]).
    pub fn commit(&self, files: Vec<Staged>) -> Result<Vec<PathBuf>> {
        crate::mapguard::changed_since(self.faults)?;
        let mut done = Vec::with_capacity(files.len());
        for s in files {
            let res = if self.out.force() {
                s.temp.persist(&s.path)
            } else {
                s.temp.persist_noclobber(&s.path)
            };
            res.map_err(|e| {
                if e.error.kind() == io::ErrorKind::AlreadyExists {
                    already_exists(&s.path)
                } else {
                    Error::io(&s.path, e.error)
                }
            })?;
            done.push(s.path);
        }
        Ok(done)
    }

    /// Delete the staged files and remove the folders staging created, when
    /// they are empty (deepest first).
    pub fn abort(&self, files: Vec<Staged>) {
        drop(files); // TempPath deletes its file on drop
        let mut dirs = self.created.lock().map(|c| c.clone()).unwrap_or_default();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            let _ = fs::remove_dir(d);
        }
        // The output may have cached them as made.
        self.out.forget_folders();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn commit_and_abort() {
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("out"), false).unwrap();
        let st = Staging::new(&out);
        let a = st.stage("A\\b.txt", |mut f| f.write_all(b"one")).unwrap();
        assert!(!out.root().join("A/b.txt").exists());
        let paths = st.commit(vec![a]).unwrap();
        assert_eq!(fs::read(&paths[0]).unwrap(), b"one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The mode of any new file here (0666 less the umask).
            let plain = out.root().join("plain");
            fs::write(&plain, b"").unwrap();
            let want = fs::metadata(&plain).unwrap().permissions().mode();
            fs::remove_file(&plain).unwrap();
            let mode = fs::metadata(&paths[0]).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, want & 0o777);
        }
        assert!(st.stage("A/b.txt", |_| Ok(())).is_err()); // exists, no force
        assert!(st.stage("../x", |_| Ok(())).is_err());

        let st = Staging::new(&out);
        let c = st.stage("C/D/e.txt", |mut f| f.write_all(b"x")).unwrap();
        st.abort(vec![c]);
        assert!(!out.root().join("C").exists());
        let names: Vec<_> = fs::read_dir(out.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["A"]);
    }
}
