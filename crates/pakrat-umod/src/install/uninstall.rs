//! Uninstalling a product: what its record says pakrat put there goes,
//! what it replaced or added comes back.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::crc::MEM_CRC;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::ini::{Ini, Line, LineEnd, MAX_INI_SIZE};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};
use serde::Serialize;

use super::ini_edit::keep_names;
use super::record::{drop_ref_counts, game_manifest, owned_records, read_regular, Owned};
use super::{
    recover_first, ADDED_INI, MADE_BACKUP, MADE_DIR, MARK_BLANK, MARK_DIRS, MARK_REFCOUNTS,
};
use crate::archive::fold;
use crate::journal::Recovery;
use crate::paths::CaseMap;

/// Size and CRC-32/BZIP2 of a file, read in 1 MiB pieces.
pub(super) fn file_crc(path: &Path) -> Result<(u64, u32)> {
    let mut f = pakrat_io::open_regular(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut d = MEM_CRC.digest();
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if k == 0 {
            return Ok((n, d.finalize()));
        }
        d.update(&buf[..k]);
        n += k as u64;
    }
}
/// One file of an uninstall.
#[derive(Clone, Debug, Serialize)]
pub struct UninstallFile {
    /// As recorded (`File=`).
    pub dest: String,
    /// Removed, kept (still used), or already missing.
    pub action: UninstallAction,
}

/// What happens to one recorded file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UninstallAction {
    /// Deleted.
    Remove,
    /// Kept: another product still uses it.
    Keep {
        /// Remaining reference count.
        refs: i64,
        /// Other products that list it.
        used_by: Vec<String>,
    },
    /// Kept: the product has no record of pakrat putting it there (a file
    /// that was already there, a product the engine's Setup installed, or a
    /// `File=` line pakrat did not write).
    NotOwned,
    /// Kept: its size or CRC is not what the install recorded.
    Changed {
        /// What differs.
        reason: String,
    },
    /// Not on disk any more.
    Missing,
    /// Not a safe path inside the game folder: left alone.
    Refused {
        /// Why.
        reason: String,
    },
}

/// What [`uninstall`] did (or would do).
#[derive(Clone, Debug, Serialize)]
pub struct UninstallReport {
    /// Product section removed.
    pub product: String,
    /// Files.
    pub files: Vec<UninstallFile>,
    /// Folders removed because they became empty (only folders the
    /// install created, for products pakrat recorded them for).
    pub removed_folders: Vec<String>,
    /// Files that `--force` had replaced, put back from their backups.
    pub restored: Vec<String>,
    /// Ini pairs the install had added, removed again.
    pub ini_reverted: Vec<String>,
    /// Nothing was changed.
    pub dry_run: bool,
    /// An interrupted install found in the folder first, and what was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<Recovery>,
}

/// Options for [`uninstall_with`].
#[derive(Clone, Debug, Default)]
pub struct UninstallOptions {
    /// Plan and report only.
    pub dry_run: bool,
    /// Also delete recorded files that have no pakrat ownership record
    /// (the engine's Setup behaviour, for products it installed).
    pub remove_unrecorded: bool,
}

/// Remove an installed product from `game_dir` (see [`uninstall_with`]).
pub fn uninstall(product: &str, game_dir: &Path, dry_run: bool) -> Result<UninstallReport> {
    uninstall_with(
        product,
        game_dir,
        &UninstallOptions {
            dry_run,
            ..Default::default()
        },
    )
}

/// Remove an installed product from `game_dir`: each recorded file loses
/// one reference; one no other product uses is deleted only when the
/// product's ownership record says pakrat put it there and its size and CRC
/// still match (or with `remove_unrecorded`, for a file without a record).
pub fn uninstall_with(
    product: &str,
    game_dir: &Path,
    opts: &UninstallOptions,
) -> Result<UninstallReport> {
    let dry_run = opts.dry_run;
    let recovered = recover_first(game_dir, dry_run)?;
    let mut map = CaseMap::new(game_dir);
    let out = OutputDir::create(game_dir, true)?;
    let (ini_rel, _, ini) = game_manifest(&mut map, &out)?;
    let mut ini = ini.ok_or_else(|| {
        Error::Other(format!(
            "{}: no System\\Manifest.ini, so no installed product is recorded",
            game_dir.display()
        ))
    })?;
    let rec = Record::read(&ini, product)?;
    let users = other_users(&ini, &rec.name);
    let refs_left = drop_ref_counts(&mut ini, &rec.files);
    let mut removal = Removal {
        map: &mut map,
        out: &out,
        rec: &rec,
        opts,
        restored: Vec::new(),
        folders: Vec::new(),
    };
    let mut files = Vec::new();
    for (dest, refs) in rec.files.iter().zip(refs_left) {
        let used_by = users.get(&fold(dest)).cloned().unwrap_or_default();
        files.push(removal.file(dest.clone(), refs, used_by)?);
    }
    let Removal {
        restored,
        mut folders,
        ..
    } = removal;
    if rec.new_style_dirs {
        // Only the folders the install created (a folder that was there
        // before, empty or not, stays).
        folders = rec
            .made_dirs
            .iter()
            .filter_map(|d| map.map(d).and_then(|r| out.resolve(&r)).ok())
            .collect();
    }
    let ini_reverted = revert_ini_pairs(&rec.ini_added, &mut map, &out, dry_run)?;
    let mut removed_folders = Vec::new();
    if !dry_run {
        removed_folders = remove_folders(folders, rec.new_style_dirs, out.root());
        drop_record(&mut ini, &rec);
        keep_names(&mut ini);
        out.write(&ini_rel, &ini.to_bytes())?;
    }
    Ok(UninstallReport {
        product: rec.name,
        files,
        removed_folders,
        restored,
        ini_reverted,
        dry_run,
        recovered,
    })
}

/// What the game's record holds for the product an uninstall removes.
struct Record {
    /// The product's section name, as written.
    name: String,
    /// Ownership records (folded dest → record).
    owned: HashMap<String, Owned>,
    /// The record lists the folders the install created (`PakratDirs=1`).
    new_style_dirs: bool,
    /// Those folders (`PakratDir=`), parents first.
    made_dirs: Vec<String>,
    /// Files `--force` replaced: folded dest → backup (`PakratBackup=`).
    backups: HashMap<String, String>,
    /// Ini pairs the install added (`PakratIni=`).
    ini_added: Vec<String>,
    /// The install added a blank line (`PakratBlank=`, "2": and the line
    /// before had no line end).
    added_blank: Option<String>,
    /// The install created `[RefCounts]`.
    added_refcounts: bool,
    /// The recorded files (`File=`), each once.
    files: Vec<String>,
}

impl Record {
    /// Read `product`'s section; an error lists the recorded products
    /// when there is none.
    fn read(ini: &Ini, product: &str) -> Result<Record> {
        let Some(sec) = ini.section(product) else {
            let groups: Vec<String> = ini
                .section("Setup")
                .map(|s| s.get_all("Group").map(|g| show(g).into_owned()).collect())
                .unwrap_or_default();
            return Err(Error::Other(format!(
                "\"{}\" is not installed here; recorded products: {}",
                show(product),
                groups.join(", ")
            )));
        };
        let mut files: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        for f in sec.get_all("File") {
            if seen.insert(fold(f)) {
                files.push(f.to_string());
            }
        }
        Ok(Record {
            name: sec.name.clone(),
            owned: owned_records(sec),
            new_style_dirs: sec.get(MARK_DIRS).is_some(),
            made_dirs: sec.get_all(MADE_DIR).map(str::to_string).collect(),
            backups: sec
                .get_all(MADE_BACKUP)
                .filter_map(|v| v.split_once('|'))
                .map(|(b, d)| (fold(d), b.to_string()))
                .collect(),
            ini_added: sec.get_all(ADDED_INI).map(str::to_string).collect(),
            added_blank: sec.get(MARK_BLANK).map(str::to_string),
            added_refcounts: sec.get(MARK_REFCOUNTS).is_some(),
            files,
        })
    }
}

/// Which other products list each file (folded): one pass over the
/// record, not one per file (uninstall was quadratic in the product's file
/// count).
fn other_users(ini: &Ini, name: &str) -> HashMap<String, Vec<String>> {
    let mut users: HashMap<String, Vec<String>> = HashMap::new();
    for s in &ini.sections {
        if s.name.eq_ignore_ascii_case(name)
            || s.name.eq_ignore_ascii_case("RefCounts")
            || s.name.eq_ignore_ascii_case("Setup")
        {
            continue;
        }
        let mut mine: HashSet<String> = HashSet::new();
        for f in s.get_all("File") {
            if mine.insert(fold(f)) {
                users.entry(fold(f)).or_default().push(s.name.clone());
            }
        }
    }
    users
}

/// The recorded files' removal, one at a time: the backups restored and
/// the folders of the files removed.
struct Removal<'r> {
    map: &'r mut CaseMap,
    out: &'r OutputDir,
    rec: &'r Record,
    opts: &'r UninstallOptions,
    /// Files put back from their backups.
    restored: Vec<String>,
    /// Folders of removed files (records of older pakrat versions remove
    /// those left empty).
    folders: Vec<PathBuf>,
}

impl Removal<'_> {
    /// One recorded file with `refs` references left and the other
    /// products that list it: kept, or removed when it is this product's.
    fn file(&mut self, dest: String, refs: i64, used_by: Vec<String>) -> Result<UninstallFile> {
        if refs > 0 || !used_by.is_empty() {
            return Ok(UninstallFile {
                dest,
                action: UninstallAction::Keep {
                    refs: refs.max(0),
                    used_by,
                },
            });
        }
        let path = match self.map.map(&dest).and_then(|rel| self.out.resolve(&rel)) {
            Ok(p) => p,
            Err(e) => {
                return Ok(UninstallFile {
                    dest,
                    action: UninstallAction::Refused {
                        reason: e.to_string(),
                    },
                })
            }
        };
        let action = match std::fs::symlink_metadata(&path) {
            Err(_) => UninstallAction::Missing,
            Ok(m) if !m.is_file() => UninstallAction::Refused {
                reason: format!("{} is not a regular file", path.display()),
            },
            Ok(m) => {
                let verdict = self.verdict(&dest, &path, m.len())?;
                if verdict == UninstallAction::Remove {
                    self.remove(&dest, &path)?;
                }
                verdict
            }
        };
        Ok(UninstallFile { dest, action })
    }

    /// Whether the regular file at `path` (`len` bytes) may go: it must be
    /// as the ownership record says (or, with `remove_unrecorded`, have
    /// no record).
    fn verdict(&self, dest: &str, path: &Path, len: u64) -> Result<UninstallAction> {
        Ok(match self.rec.owned.get(&fold(dest)) {
            Some(rec) if len != rec.size => UninstallAction::Changed {
                reason: format!("{len} bytes now, {} when installed", rec.size),
            },
            Some(rec) => {
                let (_, crc) = file_crc(path)?;
                if crc == rec.crc {
                    UninstallAction::Remove
                } else {
                    UninstallAction::Changed {
                        reason: format!("CRC {crc:08x} now, {:08x} when installed", rec.crc),
                    }
                }
            }
            None if self.opts.remove_unrecorded => UninstallAction::Remove,
            None => UninstallAction::NotOwned,
        })
    }

    /// Delete the file (not in a dry run) and put back the file `--force`
    /// replaced, from its backup.
    fn remove(&mut self, dest: &str, path: &Path) -> Result<()> {
        let dry_run = self.opts.dry_run;
        if !dry_run {
            std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
        }
        if let Some(b) = self.rec.backups.get(&fold(dest)) {
            let bp = self.map.map(b).and_then(|rel| self.out.resolve(&rel));
            if let Ok(bp) = bp {
                let is_file = std::fs::symlink_metadata(&bp).is_ok_and(|m| m.is_file());
                if is_file {
                    if !dry_run {
                        std::fs::rename(&bp, path).map_err(|e| Error::io(&bp, e))?;
                    }
                    self.restored.push(format!("{dest} (from {b})"));
                }
            }
        }
        if let Some(p) = path.parent() {
            self.folders.push(p.to_path_buf());
        }
        Ok(())
    }
}

/// Remove the ini pairs the install added (`file|section|key|value`)
/// where they still are; a record or file that cannot be read is passed
/// over. Returns what was removed.
fn revert_ini_pairs(
    ini_added: &[String],
    map: &mut CaseMap,
    out: &OutputDir,
    dry_run: bool,
) -> Result<Vec<String>> {
    let mut ini_reverted = Vec::new();
    for rec in ini_added {
        let mut it = rec.splitn(4, '|');
        let (Some(file), Some(section), Some(key), Some(value)) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            continue;
        };
        let Ok(path) = map.map(file).and_then(|r| out.resolve(&r)) else {
            continue;
        };
        let Ok(bytes) = read_regular(&path, file, MAX_INI_SIZE) else {
            continue;
        };
        let Ok(mut gi) = Ini::try_parse(&bytes) else {
            continue;
        };
        let n = gi
            .section_mut(section)
            .map_or(0, |s| s.remove_pair(key, value));
        if n > 0 {
            if !dry_run {
                out.write(file, &gi.to_bytes())?;
            }
            ini_reverted.push(format!("{file}: [{section}] {key}={value} removed"));
        }
    }
    Ok(ini_reverted)
}

/// Remove the folders that are empty now, below `root`: with a record of
/// the folders the install made (`new_style`), exactly those, deepest
/// first; for records of older pakrat versions, the folders of removed
/// files and their parents, while empty. Returns them, relative to
/// `root`.
fn remove_folders(mut folders: Vec<PathBuf>, new_style: bool, root: &Path) -> Vec<String> {
    let shown = |dir: &Path| dir.strip_prefix(root).unwrap_or(dir).display().to_string();
    let mut removed = Vec::new();
    if new_style {
        for dir in folders.iter().rev() {
            if dir.starts_with(root) && dir != root && std::fs::remove_dir(dir).is_ok() {
                removed.push(shown(dir));
            }
        }
        return removed;
    }
    folders.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
    folders.dedup();
    for mut dir in folders {
        while dir.starts_with(root) && dir != root {
            if std::fs::remove_dir(&dir).is_err() {
                break; // not empty (or not removable): stop here
            }
            removed.push(shown(&dir));
            match dir.parent() {
                Some(p) => dir = p.to_path_buf(),
                None => break,
            }
        }
    }
    removed
}

/// Take the product out of the record: its section, its `[Setup] Group=`,
/// and what the install added around it (an empty `[RefCounts]` it
/// created, the blank line before its section).
fn drop_record(ini: &mut Ini, rec: &Record) {
    ini.remove_section(&rec.name);
    if let Some(s) = ini.section_mut("Setup") {
        s.remove_pair("Group", &rec.name);
    }
    if rec.added_refcounts
        && ini
            .section("RefCounts")
            .is_some_and(|s| s.entries().next().is_none())
    {
        ini.remove_section("RefCounts");
    }
    let Some(mark) = &rec.added_blank else {
        return;
    };
    if let Some(s) = ini.sections.last_mut() {
        if s.lines.last().is_some_and(Line::is_blank) {
            s.lines.pop();
            if mark == "2" {
                if let Some(Line::Entry { end, .. } | Line::Other { end, .. }) = s.lines.last_mut()
                {
                    *end = LineEnd::None;
                }
            }
        }
    }
}
