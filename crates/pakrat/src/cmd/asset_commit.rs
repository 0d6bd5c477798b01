//! The all-or-nothing write of `pakrat asset rename`: every new file is
//! staged first (a temporary file beside its target), then the run is
//! committed with renames, each one recorded; a step that fails undoes
//! the steps already made, in reverse, so the folder is left as it was.
//! Files replaced or removed are renamed aside (a hidden name beside
//! them) and deleted only once every step has succeeded.
//!
//! Test hook: `PAKRAT_TEST_RENAME_FAIL_AT=N` makes the Nth step (staged
//! writes counted first, then commit steps) fail as an I/O error would.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use pakrat_io::fsutil::{OutputDir, PendingFile};

/// One step made, and how to undo it.
enum Step {
    /// A file that did not exist was put at this path: remove it.
    Created(PathBuf),
    /// A file was renamed: rename it back.
    Renamed { from: PathBuf, to: PathBuf },
}

/// What the run writes, as relative paths below the folder.
#[derive(Default)]
pub(super) struct Work {
    /// Files whose content is replaced in place: (path, bytes).
    pub replace: Vec<(String, Vec<u8>)>,
    /// New files: (path, bytes).
    pub create: Vec<(String, Vec<u8>)>,
    /// Files moved unchanged: (from, to).
    pub moves: Vec<(String, String)>,
    /// Files removed (they were rewritten or moved elsewhere).
    pub remove: Vec<String>,
}

/// A run being written.
struct Txn<'a> {
    root: &'a Path,
    /// Steps made, in order.
    done: Vec<Step>,
    /// Folders this run created (top first), removed on failure.
    made_dirs: Vec<PathBuf>,
    /// Files renamed aside, deleted on success.
    aside: Vec<PathBuf>,
    steps: usize,
    fail_at: Option<usize>,
}

impl Txn<'_> {
    /// Count a step; the injected failure when the hook names it.
    fn step(&mut self, what: &str) -> Result<()> {
        self.steps += 1;
        if self.fail_at == Some(self.steps) {
            return Err(anyhow!(
                "{what}: injected I/O error (PAKRAT_TEST_RENAME_FAIL_AT={})",
                self.steps
            ));
        }
        Ok(())
    }

    /// Record the folders missing above `path` (they are about to be
    /// created), top first.
    fn note_parents(&mut self, path: &Path) {
        let mut missing = Vec::new();
        let mut d = path.parent();
        while let Some(x) = d.filter(|x| x.starts_with(self.root) && *x != self.root) {
            if x.exists() {
                break;
            }
            missing.push(x.to_path_buf());
            d = x.parent();
        }
        for m in missing.into_iter().rev() {
            if !self.made_dirs.contains(&m) {
                self.made_dirs.push(m);
            }
        }
    }

    /// A free hidden name beside `path` to rename it aside to.
    fn aside_name(path: &Path) -> PathBuf {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let pid = std::process::id();
        let mut k = 0u32;
        loop {
            let p = path.with_file_name(format!(".{name}.{pid}-{k}.pakrat-undo"));
            if std::fs::symlink_metadata(&p).is_err() {
                return p;
            }
            k += 1;
        }
    }

    fn rename(&mut self, from: &Path, to: &Path, what: &str) -> Result<()> {
        self.step(what)?;
        if std::fs::symlink_metadata(to).is_ok() {
            return Err(anyhow!("{what}: {} already exists", to.display()));
        }
        std::fs::rename(from, to).with_context(|| what.to_string())?;
        self.done.push(Step::Renamed {
            from: from.to_path_buf(),
            to: to.to_path_buf(),
        });
        Ok(())
    }

    /// Rename `path` aside (kept until the end).
    fn set_aside(&mut self, path: &Path, what: &str) -> Result<()> {
        let to = Self::aside_name(path);
        self.rename(path, &to, what)?;
        self.aside.push(to);
        Ok(())
    }

    fn put(&mut self, p: PendingFile, what: &str) -> Result<()> {
        self.step(what)?;
        let path = p.commit().with_context(|| what.to_string())?;
        self.done.push(Step::Created(path));
        Ok(())
    }

    /// Undo every step made, last first; the folders this run created go
    /// too. Returns the steps that could not be undone.
    fn undo(&mut self) -> Vec<String> {
        let mut left = Vec::new();
        while let Some(s) = self.done.pop() {
            let res = match &s {
                Step::Created(p) => std::fs::remove_file(p),
                Step::Renamed { from, to } => std::fs::rename(to, from),
            };
            if let Err(e) = res {
                left.push(match s {
                    Step::Created(p) => format!("remove {}: {e}", p.display()),
                    Step::Renamed { from, to } => {
                        format!("rename {} back to {}: {e}", to.display(), from.display())
                    }
                });
            }
        }
        for d in self.made_dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
        left
    }
}

/// Stage, then commit `work` below `root`; on any failure the folder is
/// left as it was (the error says so, or names what could not be undone).
pub(super) fn write_all_or_nothing(root: &Path, work: &Work) -> Result<()> {
    let fail_at = std::env::var("PAKRAT_TEST_RENAME_FAIL_AT")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut t = Txn {
        root,
        done: Vec::new(),
        made_dirs: Vec::new(),
        aside: Vec::new(),
        steps: 0,
        fail_at,
    };
    let res =
        stage(&mut t, work).and_then(|(replace, create)| commit(&mut t, work, replace, create));
    match res {
        Ok(()) => {
            for a in &t.aside {
                if let Err(e) = std::fs::remove_file(a) {
                    eprintln!("pakrat: warning: {}: not removed: {e}", a.display());
                }
            }
            Ok(())
        }
        Err(e) => {
            let left = t.undo();
            if left.is_empty() {
                Err(e.context(format!(
                    "{}: the run was undone; the folder is as it was",
                    root.display()
                )))
            } else {
                Err(e.context(format!(
                    "{}: the run failed and could not be fully undone: {}",
                    root.display(),
                    left.join("; ")
                )))
            }
        }
    }
}

type Staged = (Vec<PendingFile>, Vec<PendingFile>);

/// One file's new content in a temporary file beside `rel`.
fn stage_one(t: &mut Txn<'_>, dir: &OutputDir, rel: &str, bytes: &[u8]) -> Result<PendingFile> {
    let what = format!("staging {rel}");
    t.step(&what)?;
    t.note_parents(&dir.resolve(rel)?);
    let mut p = dir.begin(rel).with_context(|| what.clone())?;
    std::io::Write::write_all(&mut p, bytes).with_context(|| what.clone())?;
    p.file().sync_data().with_context(|| what.clone())?;
    Ok(p)
}

/// Every new content written to a temporary file beside its target.
fn stage(t: &mut Txn<'_>, work: &Work) -> Result<Staged> {
    let replace_dir = OutputDir::create(t.root, true)?;
    let fresh_dir = OutputDir::create(t.root, false)?;
    let mut replace = Vec::new();
    for (rel, b) in &work.replace {
        replace.push(stage_one(t, &replace_dir, rel, b)?);
    }
    let mut create = Vec::new();
    for (rel, b) in &work.create {
        create.push(stage_one(t, &fresh_dir, rel, b)?);
    }
    for (_, to) in &work.moves {
        t.note_parents(&fresh_dir.resolve(to)?);
    }
    Ok((replace, create))
}

/// The renames: replaced files set aside and their new content put in
/// place, new files put, moves made, removed files set aside.
fn commit(
    t: &mut Txn<'_>,
    work: &Work,
    replace: Vec<PendingFile>,
    create: Vec<PendingFile>,
) -> Result<()> {
    let root = t.root;
    for ((rel, _), p) in work.replace.iter().zip(replace) {
        t.set_aside(&root.join(rel), &format!("setting {rel} aside"))?;
        t.put(p, &format!("writing {rel}"))?;
    }
    for ((rel, _), p) in work.create.iter().zip(create) {
        t.put(p, &format!("writing {rel}"))?;
    }
    for (from, to) in &work.moves {
        let dest = root.join(to);
        if let Some(d) = dest.parent() {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        t.rename(&root.join(from), &dest, &format!("moving {from} to {to}"))?;
    }
    for rel in &work.remove {
        t.set_aside(&root.join(rel), &format!("removing {rel}"))?;
    }
    Ok(())
}
