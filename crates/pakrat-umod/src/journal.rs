//! The install journal: an intent record that makes `umod install`'s commit
//! recoverable after Ctrl-C, SIGTERM, `kill -9` or a power cut (issue 32
//! item 6).
//!
//! Before the commit changes anything, it writes `<game>/.pakrat-journal`
//! (a temporary file, fsynced, renamed into place, folder fsynced). It lists
//! every step: the folders to create, and each file put in place (`new`:
//! nothing was there; `replace`: a file was there). Each step `n` uses two
//! helper names in its target's folder, derived from the journal's random
//! token (never read from the journal): the staged content
//! `.pakrat-tmp-<pid>-<token>-<n>` and, for a replaced file, a hard link to
//! (or a copy of) the old content `.pakrat-save-<token>-<n>`. Once everything
//! is staged, the journal is rewritten in the `commit` state with the
//! identity (device, inode) of each staged file, saved file and created
//! folder; only then is anything renamed.
//!
//! Recovery (the next `umod install`, `uninstall` or `recover` on that
//! folder, or the commit itself after an error or a signal):
//!
//! * `prepare` state: nothing was renamed. The helper files are deleted, and
//!   the listed folders are removed when empty and changed no earlier than
//!   the journal (so a planted journal cannot remove an empty folder that
//!   was there before it).
//! * `commit` state, every target holds its staged file: the install was
//!   complete; the saved copies are deleted (**completed**).
//! * otherwise (**rolled back**), in reverse order: a target holding its
//!   staged file (same inode) is deleted (`new`) or gets its saved copy
//!   back (`replace`); created folders holding the recorded inode are
//!   removed when empty. Files are matched by inode, never by name alone,
//!   so a journal cannot make pakrat delete or overwrite a file it did not
//!   put there.
//!
//! The journal is hostile input like any other file in the game folder: it
//! must be a regular file of at most [`MAX_JOURNAL`] bytes, every path in
//! it goes through the same checks as install's (relative, no `..`, no
//! symbolic link on the way), and any line that does not parse refuses the
//! whole journal (nothing is done; the message says where).

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use pakrat_io::fsutil::{OutputDir, TEMP_PREFIX};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};
use serde::Serialize;

/// The journal's name, at the game folder's root.
pub const JOURNAL: &str = ".pakrat-journal";
/// Largest journal read (a 60,000-file install writes about 6 MiB).
pub const MAX_JOURNAL: u64 = 64 << 20;
const MAGIC: &str = "pakrat-journal 1";

/// What a step puts in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A folder created.
    Dir,
    /// A new file (nothing was there).
    New,
    /// A file replacing one that was there.
    Replace,
}

/// (device, inode).
pub(crate) type Id = (u64, u64);

/// One step of the journal.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub kind: Kind,
    /// Relative path under the game folder (`/`).
    pub rel: String,
    /// The staged file's (or the created folder's) identity.
    pub id: Option<Id>,
    /// The saved old file's identity (`Replace`).
    pub save: Option<Id>,
}

/// A journal.
#[derive(Clone, Debug)]
pub(crate) struct Journal {
    pub token: String,
    pub pid: u32,
    pub product: String,
    pub commit: bool,
    pub steps: Vec<Step>,
}

/// What a recovery did.
#[derive(Clone, Debug, Serialize)]
pub struct Recovery {
    /// The product whose install was interrupted.
    pub product: String,
    /// `completed` (every file was in place: only the saved copies were
    /// deleted) or `rolled_back` (the folder is as before the install).
    pub outcome: RecoveryOutcome,
    /// Files and folders that could not be put back (empty when the folder
    /// is as it was).
    pub left: Vec<String>,
}

/// See [`Recovery::outcome`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryOutcome {
    /// The install had finished: kept.
    Completed,
    /// Undone.
    RolledBack,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.outcome {
            RecoveryOutcome::Completed => "it had finished: completed (kept)",
            RecoveryOutcome::RolledBack => "rolled back",
        };
        write!(
            f,
            "an interrupted install of {} was found ({JOURNAL}): {what}",
            show(&self.product)
        )?;
        if !self.left.is_empty() {
            write!(
                f,
                "; NOT everything could be put back: {}",
                self.left.join("; ")
            )?;
        }
        Ok(())
    }
}

pub(crate) fn id_of(m: &fs::Metadata) -> Id {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        (0, 0)
    }
}

fn id_at(p: &Path) -> Option<Id> {
    fs::symlink_metadata(p)
        .ok()
        .filter(|m| !m.file_type().is_symlink())
        .map(|m| id_of(&m))
}

/// The staged file of step `n` beside `target`.
pub(crate) fn temp_path(target: &Path, pid: u32, token: &str, n: usize) -> PathBuf {
    target.with_file_name(format!("{TEMP_PREFIX}{pid}-{token}-{n}"))
}

/// The saved old file of step `n` beside `target`.
pub(crate) fn save_path(target: &Path, token: &str, n: usize) -> PathBuf {
    target.with_file_name(format!(".pakrat-save-{token}-{n}"))
}

/// A new random token (16 hex digits).
pub(crate) fn new_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    format!("{:016x}", h.finish())
}

fn fmt_id(id: Option<Id>) -> String {
    id.map_or_else(|| "-".into(), |(d, i)| format!("{d}:{i}"))
}

fn parse_id(s: &str) -> Option<Option<Id>> {
    if s == "-" {
        return Some(None);
    }
    let (d, i) = s.split_once(':')?;
    Some(Some((d.parse().ok()?, i.parse().ok()?)))
}

impl Journal {
    fn to_text(&self) -> String {
        let mut s = format!(
            "{MAGIC}\ntoken\t{}\npid\t{}\nproduct\t{}\nstate\t{}\n",
            self.token,
            self.pid,
            self.product,
            if self.commit { "commit" } else { "prepare" }
        );
        for (n, st) in self.steps.iter().enumerate() {
            let k = match st.kind {
                Kind::Dir => "dir",
                Kind::New => "new",
                Kind::Replace => "replace",
            };
            s.push_str(&format!(
                "{k}\t{n}\t{}\t{}\t{}\n",
                fmt_id(st.id),
                fmt_id(st.save),
                st.rel
            ));
        }
        s.push_str("end\n");
        s
    }

    /// Parse and check a journal (see the module documentation).
    fn parse(text: &str, out: &OutputDir, path: &Path) -> Result<Journal> {
        let bad = |line: usize, why: &str| {
            Error::Other(format!(
                "{}: line {line}: {why}; the journal is not pakrat's or is damaged: nothing was done (look at it, then delete it)",
                path.display()
            ))
        };
        let mut it = text.split('\n').enumerate().map(|(i, l)| (i + 1, l));
        match it.next() {
            Some((_, l)) if l == MAGIC => {}
            _ => return Err(bad(1, &format!("expected \"{MAGIC}\""))),
        }
        let mut get = |name: &str| -> Result<(usize, String)> {
            let (i, l) = it.next().ok_or_else(|| bad(0, "cut short"))?;
            match l.split_once('\t') {
                Some((k, v)) if k == name => Ok((i, v.to_string())),
                _ => Err(bad(i, &format!("expected {name}"))),
            }
        };
        let (i, token) = get("token")?;
        if token.len() != 16 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(i, "the token is not 16 hex digits"));
        }
        let (i, pid) = get("pid")?;
        let pid: u32 = pid.parse().map_err(|_| bad(i, "the pid is not a number"))?;
        let (i, product) = get("product")?;
        if product.chars().any(char::is_control) {
            return Err(bad(i, "control character in the product name"));
        }
        let (i, state) = get("state")?;
        let commit = match state.as_str() {
            "commit" => true,
            "prepare" => false,
            _ => return Err(bad(i, "the state is neither prepare nor commit")),
        };
        let mut steps = Vec::new();
        let mut ended = false;
        for (i, l) in it.by_ref() {
            if l == "end" {
                ended = true;
                break;
            }
            if l.is_empty() {
                return Err(bad(i, "cut short: no end line"));
            }
            let f: Vec<&str> = l.splitn(5, '\t').collect();
            if f.len() != 5 {
                return Err(bad(i, "a step has 5 tab-separated fields"));
            }
            let kind = match f[0] {
                "dir" => Kind::Dir,
                "new" => Kind::New,
                "replace" => Kind::Replace,
                _ => return Err(bad(i, "unknown step")),
            };
            if f[1].parse::<usize>().ok() != Some(steps.len()) {
                return Err(bad(i, "steps are not numbered in order"));
            }
            let id = parse_id(f[2]).ok_or_else(|| bad(i, "bad identity"))?;
            let save = parse_id(f[3]).ok_or_else(|| bad(i, "bad identity"))?;
            let rel = f[4];
            // The same rules as install: relative, no `..`, no drive, no
            // control character, no symbolic link on the way.
            out.resolve(rel)
                .map_err(|e| bad(i, &format!("unsafe path: {e}")))?;
            if rel.eq_ignore_ascii_case(JOURNAL) {
                return Err(bad(i, "a step names the journal itself"));
            }
            if commit && kind != Kind::Dir && id.is_none() {
                return Err(bad(i, "a committed step has no identity"));
            }
            if commit && kind == Kind::Replace && save.is_none() {
                return Err(bad(i, "a committed replacement has no saved copy"));
            }
            steps.push(Step {
                kind,
                rel: rel.to_string(),
                id,
                save,
            });
        }
        if !ended {
            return Err(bad(0, "no end line (cut short)"));
        }
        if it.any(|(_, l)| !l.is_empty()) {
            return Err(bad(0, "text after the end line"));
        }
        Ok(Journal {
            token,
            pid,
            product,
            commit,
            steps,
        })
    }

    /// Write the journal atomically: a temporary file, fsynced, renamed
    /// over `.pakrat-journal`, then the folder fsynced.
    pub(crate) fn write(&self, root: &Path) -> Result<()> {
        let path = root.join(JOURNAL);
        let tmp = root.join(format!(
            "{TEMP_PREFIX}{}-{}-journal",
            std::process::id(),
            self.token
        ));
        let res = (|| -> std::io::Result<()> {
            let mut f = File::create(&tmp)?;
            f.write_all(self.to_text().as_bytes())?;
            f.sync_all()?;
            fs::rename(&tmp, &path)?;
            sync_dir(root)
        })();
        res.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            Error::io(&path, e)
        })
    }
}

/// fsync a folder (so that renames in it reach the disk).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// An exclusive lock on the game folder (`flock` on the folder itself), held
/// while a commit or a recovery runs, so that two pakrat processes never
/// work on one folder's journal at once. Released when dropped, or when the
/// process dies (even by `kill -9`).
pub(crate) struct FolderLock {
    _dir: Option<File>,
}

pub(crate) fn lock(root: &Path) -> Result<FolderLock> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let dir = File::open(root).map_err(|e| Error::io(root, e))?;
        // A holder can be momentary: a process that is exiting, or a child
        // forked by another thread of this process, which shares the
        // descriptor (and so the lock) until it execs. Wait up to 3 s (a
        // real install into the same folder takes longer and is refused).
        let mut rc = -1;
        for attempt in 0..30 {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            // SAFETY: flock on a descriptor this function owns.
            rc = unsafe { libc::flock(dir.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                break;
            }
        }
        if rc != 0 {
            return Err(Error::Other(format!(
                "{}: another pakrat process is installing into this folder (it holds the folder's lock); try again when it has finished",
                root.display()
            )));
        }
        Ok(FolderLock { _dir: Some(dir) })
    }
    #[cfg(not(unix))]
    {
        let _ = root;
        Ok(FolderLock { _dir: None })
    }
}

/// Read and check the journal of `out`, if there is one.
pub(crate) fn load(out: &OutputDir) -> Result<Option<Journal>> {
    let path = out.root().join(JOURNAL);
    let meta = match fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
        Ok(m) => m,
    };
    if !meta.is_file() {
        return Err(Error::Other(format!(
            "{}: is not a regular file (a symbolic link or something else): not read; nothing was done (look at it, then delete it)",
            path.display()
        )));
    }
    let f = pakrat_io::open_regular(&path)?;
    let mut buf = Vec::new();
    f.take(MAX_JOURNAL + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(&path, e))?;
    if buf.len() as u64 > MAX_JOURNAL {
        return Err(Error::Other(format!(
            "{}: larger than a journal may be ({MAX_JOURNAL} bytes): not read; nothing was done (look at it, then delete it)",
            path.display()
        )));
    }
    let text = String::from_utf8(buf).map_err(|e| {
        Error::Other(format!(
            "{}: not UTF-8 at byte {}: not pakrat's journal; nothing was done (look at it, then delete it)",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Journal::parse(&text, out, &path).map(Some)
}

/// Whether a journal is waiting in `game_dir` (without reading it).
pub fn pending(game_dir: &Path) -> bool {
    fs::symlink_metadata(game_dir.join(JOURNAL)).is_ok()
}

/// Roll back (or complete) the interrupted install recorded in `game_dir`'s
/// journal, if there is one; see the module documentation for the policy.
/// `None` when there is no journal.
pub fn recover(game_dir: &Path) -> Result<Option<Recovery>> {
    if !pending(game_dir) {
        return Ok(None);
    }
    let out = OutputDir::create(game_dir, true)?;
    let _lock = lock(out.root())?;
    recover_locked(&out)
}

/// [`recover`] with the folder's lock already held.
pub(crate) fn recover_locked(out: &OutputDir) -> Result<Option<Recovery>> {
    let Some(j) = load(out)? else {
        return Ok(None);
    };
    let root = out.root();
    let journal_path = root.join(JOURNAL);
    let journal_ctime = fs::symlink_metadata(&journal_path)
        .ok()
        .and_then(|m| ctime(&m));
    let mut left = Vec::new();
    let resolve = |rel: &str| out.resolve(rel).ok();
    let remove_helper = |p: &Path, left: &mut Vec<String>| {
        if let Ok(m) = fs::symlink_metadata(p) {
            if m.is_file() {
                if let Err(e) = fs::remove_file(p) {
                    left.push(format!("{} could not be removed ({e})", p.display()));
                }
            }
        }
    };
    let complete = j.commit
        && j.steps.iter().all(|s| match s.kind {
            Kind::Dir => true,
            _ => resolve(&s.rel).and_then(|p| id_at(&p)) == s.id,
        });
    let outcome = if complete {
        for (n, s) in j.steps.iter().enumerate() {
            if s.kind == Kind::Replace {
                if let Some(t) = resolve(&s.rel) {
                    let sp = save_path(&t, &j.token, n);
                    if id_at(&sp).is_some() && id_at(&sp) == s.save {
                        remove_helper(&sp, &mut left);
                    }
                }
            }
        }
        RecoveryOutcome::Completed
    } else {
        for (n, s) in j.steps.iter().enumerate().rev() {
            let Some(target) = resolve(&s.rel) else {
                left.push(format!(
                    "{}: a symbolic link is now on the way: left alone",
                    show(&s.rel)
                ));
                continue;
            };
            match s.kind {
                Kind::Dir => {
                    let Ok(m) = fs::symlink_metadata(&target) else {
                        continue;
                    };
                    let ours = if j.commit {
                        s.id.is_some() && Some(id_of(&m)) == s.id
                    } else {
                        // Changed no earlier than the journal was written:
                        // not a folder that was there before it.
                        matches!((ctime(&m), journal_ctime), (Some(c), Some(jc)) if c >= jc)
                    };
                    if m.is_dir() && ours {
                        // Only when empty: never a user's file lost.
                        let _ = fs::remove_dir(&target);
                    }
                }
                Kind::New | Kind::Replace => {
                    let tp = temp_path(&target, j.pid, &j.token, n);
                    remove_helper(&tp, &mut left);
                    let sp = save_path(&target, &j.token, n);
                    if !j.commit {
                        // Nothing was renamed: the helpers go, targets stay.
                        remove_helper(&sp, &mut left);
                        continue;
                    }
                    let now = id_at(&target);
                    let placed = now.is_some() && now == s.id;
                    if s.kind == Kind::New {
                        if placed {
                            if let Err(e) = fs::remove_file(&target) {
                                left.push(format!("{} could not be removed ({e})", show(&s.rel)));
                            }
                        }
                        continue;
                    }
                    let saved = id_at(&sp).filter(|i| Some(*i) == s.save);
                    if placed || now.is_none() {
                        match saved {
                            Some(_) => {
                                if let Err(e) = fs::rename(&sp, &target) {
                                    left.push(format!(
                                        "{} could not be restored from {} ({e})",
                                        show(&s.rel),
                                        sp.display()
                                    ));
                                }
                            }
                            None => left.push(format!(
                                "{}: its saved copy {} is gone; the new file is left",
                                show(&s.rel),
                                sp.display()
                            )),
                        }
                    } else if saved.is_some() {
                        // Not renamed yet: the old file is in place.
                        remove_helper(&sp, &mut left);
                    }
                }
            }
        }
        RecoveryOutcome::RolledBack
    };
    if left.is_empty() {
        fs::remove_file(&journal_path).map_err(|e| Error::io(&journal_path, e))?;
        let _ = sync_dir(root);
    } else {
        left.push(format!("the journal {} is kept", journal_path.display()));
    }
    Ok(Some(Recovery {
        product: j.product,
        outcome,
        left,
    }))
}

fn ctime(m: &fs::Metadata) -> Option<(i64, i64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.ctime(), m.ctime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// SIGINT/SIGTERM while a commit runs: remembered here, acted on between
/// steps (the commit rolls back and says so).
pub(crate) mod signals {
    use std::sync::atomic::{AtomicI32, Ordering};

    static CAUGHT: AtomicI32 = AtomicI32::new(0);

    /// The signal caught since the guard was made (0: none).
    pub(crate) fn caught() -> i32 {
        CAUGHT.load(Ordering::SeqCst)
    }

    #[cfg(unix)]
    extern "C" fn on_signal(sig: libc::c_int) {
        CAUGHT.store(sig, Ordering::SeqCst); // async-signal-safe
    }

    /// Catches SIGINT and SIGTERM until dropped, then puts the previous
    /// handlers back. A signal the process ignores stays ignored.
    pub(crate) struct Guard {
        #[cfg(unix)]
        old: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl Guard {
        pub(crate) fn new() -> Guard {
            CAUGHT.store(0, Ordering::SeqCst);
            #[cfg(unix)]
            {
                let mut old = Vec::new();
                for sig in [libc::SIGINT, libc::SIGTERM] {
                    // SAFETY: sigaction with a zeroed struct we fill; the
                    // handler only stores to an atomic.
                    unsafe {
                        let mut sa: libc::sigaction = std::mem::zeroed();
                        sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                        libc::sigemptyset(&mut sa.sa_mask);
                        let mut prev: libc::sigaction = std::mem::zeroed();
                        if libc::sigaction(sig, &sa, &mut prev) == 0 {
                            if prev.sa_sigaction == libc::SIG_IGN {
                                // Ignored (a background job of a shell, nohup):
                                // stays ignored.
                                libc::sigaction(sig, &prev, std::ptr::null_mut());
                            } else {
                                old.push((sig, prev));
                            }
                        }
                    }
                }
                Guard { old }
            }
            #[cfg(not(unix))]
            Guard {}
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            #[cfg(unix)]
            for (sig, prev) in self.old.drain(..) {
                // SAFETY: restores the handler saved by Guard::new.
                unsafe {
                    libc::sigaction(sig, &prev, std::ptr::null_mut());
                }
            }
        }
    }
}
