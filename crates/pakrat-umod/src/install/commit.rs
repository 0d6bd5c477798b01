//! Committing a plan: every file staged beside its target and renamed
//! into place under the journal ([`crate::journal`]), rolled back on
//! failure.

use std::collections::HashSet;
use std::fs::File;
use std::path::PathBuf;

use pakrat_io::fsutil::OutputDir;
use pakrat_io::text::show;
use pakrat_io::{Error, Result};

use super::plan::{decode_uz, Payload, Plan};
use super::{nothing_changed, FileAction, InstallOptions, InstallReport};
use crate::archive::Umod;
use crate::extract::copy_entry_to_file;
use crate::journal::{self, Journal, Kind, Step, JOURNAL};

/// Where a staged file's bytes come from.
pub(super) enum Content<'p, 'a> {
    /// A planned file.
    Payload(&'p Payload<'a>),
    /// A copy of an existing file (a backup).
    CopyOf(PathBuf),
    /// Bytes made while planning (an ini file, the record).
    Bytes(&'p [u8]),
}

/// Test hooks of [`commit_plan`]: each change to the disk is one "tick".
pub(super) struct Ticks<'o> {
    n: usize,
    opts: &'o InstallOptions,
}

impl Ticks<'_> {
    /// One change done: stop here if a test asked.
    fn tick(&mut self) {
        #[cfg(unix)]
        {
            if self.opts.kill_at_tick == Some(self.n) {
                // SAFETY: sends SIGKILL to this process (a test's kill -9).
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
            }
            if self.opts.signal_at_tick == Some(self.n) {
                // SAFETY: raises SIGINT in this process (a test's Ctrl-C).
                unsafe {
                    libc::raise(libc::SIGINT);
                }
            }
        }
        self.n += 1;
    }
}

pub(super) fn interrupted() -> Result<()> {
    match journal::signals::caught() {
        0 => Ok(()),
        sig => Err(Error::Other(format!(
            "interrupted by {}",
            if sig == 2 {
                "Ctrl-C (SIGINT)"
            } else {
                "SIGTERM"
            }
        ))),
    }
}

pub(super) fn commit_plan(
    umod: &Umod<'_>,
    plan: Plan<'_>,
    opts: &InstallOptions,
    on_progress: &dyn Fn(u64),
) -> Result<InstallReport> {
    let Plan {
        report,
        payloads,
        out,
        ini_writes,
        manifest_rel,
        manifest_bytes,
    } = plan;
    let root = out.root().to_path_buf();
    let _lock = journal::lock(&root)?;
    let _signals = opts.handle_signals.then(journal::signals::Guard::new);

    // Every file put in place, in order: backups, files, ini files, and
    // the record last. (relative path, replaces a file, content)
    let mut files: Vec<(String, bool, Content<'_, '_>)> = Vec::new();
    for f in &report.files {
        if let FileAction::Replace { backup } = &f.action {
            files.push((
                backup.clone(),
                false,
                Content::CopyOf(out.resolve(&f.path)?),
            ));
        }
    }
    for (f, p) in report.files.iter().zip(&payloads) {
        match f.action {
            FileAction::Unchanged | FileAction::Conflict => {}
            FileAction::Create => files.push((f.path.clone(), false, Content::Payload(p))),
            FileAction::Replace { .. } => files.push((f.path.clone(), true, Content::Payload(p))),
        }
    }
    let mut writes: Vec<(&str, &[u8])> = ini_writes
        .iter()
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    writes.push((&manifest_rel, &manifest_bytes));
    for (rel, bytes) in writes {
        let exists = std::fs::symlink_metadata(out.resolve(rel)?).is_ok();
        files.push((rel.to_string(), exists, Content::Bytes(bytes)));
    }
    // Folders to create, parents first.
    let mut dirs: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (rel, _, _) in &files {
        let comps: Vec<&str> = rel.split(['/', '\\']).collect();
        let mut cur = String::new();
        for c in &comps[..comps.len().saturating_sub(1)] {
            if !cur.is_empty() {
                cur.push('/');
            }
            cur.push_str(c);
            if seen.contains(&cur) {
                continue;
            }
            if std::fs::symlink_metadata(out.resolve(&cur)?).is_err() {
                seen.insert(cur.clone());
                dirs.push(cur.clone());
            }
        }
    }
    let mut j = Journal {
        token: journal::new_token(),
        pid: std::process::id(),
        product: report.product.clone(),
        commit: false,
        steps: dirs
            .iter()
            .map(|d| Step {
                kind: Kind::Dir,
                rel: d.clone(),
                id: None,
                save: None,
            })
            .chain(files.iter().map(|(rel, rep, _)| Step {
                kind: if *rep { Kind::Replace } else { Kind::New },
                rel: rel.clone(),
                id: None,
                save: None,
            }))
            .collect(),
    };
    let mut ticks = Ticks { n: 0, opts };
    j.write(&root).map_err(nothing_changed)?;
    ticks.tick();
    let res = run_steps(umod, &out, &mut j, &files, opts, on_progress, &mut ticks);
    match res {
        Ok(()) => Ok(report),
        Err(e) => {
            let rec = journal::recover_locked(&out);
            Err(Error::Other(match rec {
                Ok(Some(r)) if r.left.is_empty() => format!(
                    "installing {} failed: {e}; every change was rolled back, the game folder is as it was",
                    show(&report.product)
                ),
                Ok(Some(r)) => format!(
                    "installing {} failed: {e}; rolling back failed too, the game folder is NOT as it was: {}",
                    show(&report.product),
                    r.left.join("; ")
                ),
                Ok(None) => format!("installing {} failed: {e}", show(&report.product)),
                Err(re) => format!(
                    "installing {} failed: {e}; rolling back failed too ({re}); the journal {} is kept: run pakrat umod recover --game-dir {}",
                    show(&report.product),
                    root.join(JOURNAL).display(),
                    root.display()
                ),
            }))
        }
    }
}

/// The journaled steps of an install (see [`crate::journal`]): folders,
/// staged files and saved copies, the journal's commit state, the renames,
/// then the clean-up. An error leaves the journal for the caller to roll
/// back.
pub(super) fn run_steps(
    umod: &Umod<'_>,
    out: &OutputDir,
    j: &mut Journal,
    files: &[(String, bool, Content<'_, '_>)],
    opts: &InstallOptions,
    on_progress: &dyn Fn(u64),
    ticks: &mut Ticks<'_>,
) -> Result<()> {
    let root = out.root();
    let ndirs = j.steps.len() - files.len();
    for n in 0..ndirs {
        interrupted()?;
        let p = out.resolve(&j.steps[n].rel)?;
        std::fs::create_dir(&p).map_err(|e| Error::io(&p, e))?;
        j.steps[n].id = std::fs::symlink_metadata(&p)
            .ok()
            .map(|m| journal::id_of(&m));
        ticks.tick();
    }
    // Stage every file and save every file about to be replaced.
    let mut targets = Vec::with_capacity(files.len());
    for (k, (rel, replaces, content)) in files.iter().enumerate() {
        interrupted()?;
        let n = ndirs + k;
        let target = out.resolve(rel)?;
        let tp = journal::temp_path(&target, j.pid, &j.token, n);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&tp)
            .map_err(|e| Error::io(&tp, e))?;
        let mut w = &file;
        let filled = match content {
            Content::Payload(Payload::Member(e)) => copy_entry_to_file(umod, e, &file),
            Content::Payload(Payload::Uz(e)) => {
                // One decoded member in memory at a time.
                let d = decode_uz(umod, e)?;
                std::io::Write::write_all(&mut w, &d.data)
            }
            Content::Payload(Payload::Bytes(b)) => std::io::Write::write_all(&mut w, b),
            Content::Bytes(b) => std::io::Write::write_all(&mut w, b),
            Content::CopyOf(src) => {
                // Through the regular-file check: a FIFO or device planted
                // in the game folder must not hang or flood the install.
                pakrat_io::open_regular(src)
                    .map_err(std::io::Error::other)
                    .and_then(|mut r| std::io::copy(&mut r, &mut w).map(|_| ()))
            }
        };
        filled.map_err(|e| Error::io(&target, e))?;
        let meta = file.metadata().map_err(|e| Error::io(&tp, e))?;
        j.steps[n].id = Some(journal::id_of(&meta));
        on_progress(meta.len());
        ticks.tick();
        if *replaces {
            let sp = journal::save_path(&target, &j.token, n);
            if std::fs::hard_link(&target, &sp).is_err() {
                std::fs::copy(&target, &sp).map_err(|e| Error::io(&target, e))?;
            }
            let m = std::fs::symlink_metadata(&sp).map_err(|e| Error::io(&sp, e))?;
            j.steps[n].save = Some(journal::id_of(&m));
            ticks.tick();
        }
        targets.push((target, tp));
    }
    interrupted()?;
    j.commit = true;
    j.write(root)?;
    ticks.tick();
    // Rename into place.
    for (k, ((target, tp), (_, replaces, _))) in targets.iter().zip(files).enumerate() {
        interrupted()?;
        if opts.fail_after_renames == Some(k) {
            return Err(Error::Other(format!(
                "{}: injected failure (test hook)",
                target.display()
            )));
        }
        if !replaces && std::fs::symlink_metadata(target).is_ok() {
            return Err(Error::Other(format!(
                "{} appeared while installing; not replaced",
                target.display()
            )));
        }
        std::fs::rename(tp, target).map_err(|e| Error::io(target, e))?;
        ticks.tick();
    }
    // Done: the saved copies and the journal go. An interruption from here
    // on is recovered as "completed".
    for (k, (target, _)) in targets.iter().enumerate() {
        if files[k].1 {
            let _ = std::fs::remove_file(journal::save_path(target, &j.token, ndirs + k));
            ticks.tick();
        }
    }
    let jp = root.join(JOURNAL);
    std::fs::remove_file(&jp).map_err(|e| Error::io(&jp, e))?;
    let _ = journal::sync_dir(root);
    ticks.tick();
    Ok(())
}
