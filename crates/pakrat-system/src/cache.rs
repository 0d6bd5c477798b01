//! The GUID download cache: `Cache/<GUID><CacheExt>` files and `cache.ini`
//! (`classic.md` §5).
//!
//! * A cache file is named `FGuid::String()` + `CacheExt`: the GUID's four
//!   little-endian `u32` words printed `%08X` each (not the hex of the raw
//!   bytes), e.g. `4F4BE10E11D67991….uxx`.
//! * `cache.ini` has a `[Cache]` section of `GUID=OriginalFileName` lines.
//!   The original names come from whatever server the client visited, so they
//!   are hostile input: [`safe_file_name`] accepts only a plain file name.
//! * Restoring follows the engine's `MoveCacheEntry` (UT99/UT2004
//!   `UnScript.cpp`): the destination is the folder of the first `Paths`
//!   entry that ends with the file's extension.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pakrat_classic::Summary;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::{Error, Guid, Result, Source};
use serde::Serialize;

use crate::game::{DirIndex, GameDir};
use pakrat_io::ini::Ini;

/// One `[Cache]` line.
#[derive(Clone, Debug, Serialize)]
pub struct CacheEntry {
    /// The key as written.
    pub key: String,
    /// The key parsed as a GUID (`None`: not 32 hex digits).
    pub guid: Option<Guid>,
    /// The original file name as written (untrusted).
    pub name: String,
}

impl CacheEntry {
    /// The package name: the original name up to its first `.` (as 227's
    /// `FindMatchingFile` compares it).
    pub fn package_name(&self) -> &str {
        self.name.split('.').next().unwrap_or(&self.name)
    }
}

/// A parsed `cache.ini`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CacheIni {
    /// The file it came from.
    pub path: Option<PathBuf>,
    /// `[Cache]` entries in file order.
    pub entries: Vec<CacheEntry>,
}

impl CacheIni {
    /// Read `cache.ini`.
    pub fn load(path: &Path) -> Result<CacheIni> {
        let ini = Ini::load(path)?;
        let mut c = CacheIni::from_ini(&ini);
        c.path = Some(path.to_path_buf());
        Ok(c)
    }

    /// The `[Cache]` section of a parsed ini.
    pub fn from_ini(ini: &Ini) -> CacheIni {
        // Every [Cache] section (a repeated header continues it, as in the engine).
        let entries = ini
            .entries("Cache")
            .map(|(k, v)| CacheEntry {
                key: k.to_string(),
                guid: Guid::parse(k),
                name: v.to_string(),
            })
            .collect();
        CacheIni {
            path: None,
            entries,
        }
    }
}

/// Accept `name` only if it is one plain file name: no folder separators,
/// no `.`/`..`, no drive letter or stream (`:`), no control characters, at
/// most 255 bytes, and with an extension (to choose its folder).
pub fn safe_file_name(name: &str) -> std::result::Result<&str, String> {
    let n = name.trim();
    if n.is_empty() {
        return Err("empty name".into());
    }
    if n.contains(['/', '\\']) {
        return Err("contains a folder separator".into());
    }
    if n == "." || n == ".." || n.starts_with("..") {
        return Err("parent or current folder".into());
    }
    if n.contains(':') {
        return Err("contains ':' (drive letter or stream)".into());
    }
    if n.chars().any(|c| c.is_control()) {
        return Err("contains a control character".into());
    }
    if n.len() > pakrat_io::fsutil::MAX_COMPONENT {
        return Err("longer than 255 bytes".into());
    }
    match n.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() => Ok(n),
        _ => Err("has no extension".into()),
    }
}

/// The state of one cache entry or file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// File present, a package, and its GUID equals its name.
    Ok,
    /// `cache.ini` names a GUID whose file is missing.
    NoFile,
    /// A cache file no `cache.ini` entry mentions.
    Orphan,
    /// The file's GUID differs from the GUID in its name.
    GuidMismatch,
    /// The file is not a readable package.
    BadPackage,
    /// The `cache.ini` key is not a GUID.
    BadKey,
    /// The original name is unsafe (path separators, `..`, …).
    UnsafeName,
}

impl Status {
    /// A short word for listings (`ok`, `no-file`, `orphan`, ...).
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::NoFile => "no-file",
            Status::Orphan => "orphan",
            Status::GuidMismatch => "guid-mismatch",
            Status::BadPackage => "bad-package",
            Status::BadKey => "bad-key",
            Status::UnsafeName => "unsafe-name",
        }
    }
}

/// One checked cache item: an entry, a file, or both.
#[derive(Clone, Debug, Serialize)]
pub struct CacheItem {
    /// The GUID from the entry key or file name.
    pub guid: Option<Guid>,
    /// The `cache.ini` key as written.
    pub key: Option<String>,
    /// The original name from `cache.ini` (untrusted, as written).
    pub name: Option<String>,
    /// The cache file, when present.
    pub file: Option<PathBuf>,
    /// File size in bytes.
    pub size: Option<u64>,
    /// GUID read from the package header.
    pub package_guid: Option<Guid>,
    /// Package version.
    pub version: Option<u16>,
    /// Verdict.
    pub status: Status,
    /// Details for anything but `Ok`.
    pub detail: Option<String>,
}

/// A checked cache folder.
#[derive(Clone, Debug, Serialize)]
pub struct CacheReport {
    /// The cache folder.
    pub dir: PathBuf,
    /// `cache.ini`, if found.
    pub ini: Option<PathBuf>,
    /// The extension of cache files (`.uxx`).
    pub ext: String,
    /// Entries in `cache.ini` order, then orphan files by name.
    pub items: Vec<CacheItem>,
}

impl CacheReport {
    /// Items whose status is not `Ok`.
    pub fn problems(&self) -> impl Iterator<Item = &CacheItem> {
        self.items.iter().filter(|i| i.status != Status::Ok)
    }
}

/// Read a package header's GUID and version.
fn read_guid(path: &Path) -> Result<(Guid, u16)> {
    let src = Source::open(path)?;
    let s = Summary::parse(&src).map_err(|e| e.in_file(path))?;
    Ok((s.guid, s.version))
}

/// Check a cache folder: every `cache.ini` entry and every `*<ext>` file.
/// `ext` is `CacheExt` (default `.uxx`).
pub fn check_cache(dir: &Path, ext: &str) -> Result<CacheReport> {
    if !dir.is_dir() {
        return Err(Error::Other(format!("{}: not a folder", dir.display())));
    }
    let index = DirIndex::default();
    let ini_path = index.find(dir, "cache.ini").filter(|p| p.is_file());
    let ini = match &ini_path {
        Some(p) => CacheIni::load(p)?,
        None => CacheIni::default(),
    };
    let ext_l = ext.to_ascii_lowercase();
    // Cache files by GUID (names that are not GUID + ext are ignored: the
    // engine also keeps *.tmp downloads and cache.ini there).
    let mut files: HashMap<Guid, String> = HashMap::new();
    for n in index.list(dir).iter() {
        let l = n.to_ascii_lowercase();
        if let Some(stem) = l.strip_suffix(&ext_l) {
            if let Some(g) = Guid::parse(stem) {
                if dir.join(n).is_file() {
                    files.insert(g, n.clone());
                }
            }
        }
    }
    let mut items = Vec::new();
    let mut seen: HashMap<Guid, ()> = HashMap::new();
    for e in &ini.entries {
        let mut item = CacheItem {
            guid: e.guid,
            key: Some(e.key.clone()),
            name: Some(e.name.clone()),
            file: None,
            size: None,
            package_guid: None,
            version: None,
            status: Status::Ok,
            detail: None,
        };
        let Some(g) = e.guid else {
            item.status = Status::BadKey;
            item.detail = Some(format!("key {:?} is not a 32-hex-digit GUID", e.key));
            items.push(item);
            continue;
        };
        seen.insert(g, ());
        match files.get(&g) {
            None => {
                item.status = Status::NoFile;
                item.detail = Some(format!("{g}{ext} is missing"));
            }
            Some(n) => {
                check_file(&mut item, &dir.join(n), g);
                if item.status == Status::Ok {
                    if let Err(why) = safe_file_name(&e.name) {
                        item.status = Status::UnsafeName;
                        item.detail = Some(format!("original name {:?}: {why}", e.name));
                    }
                }
            }
        }
        items.push(item);
    }
    let mut orphans: Vec<(&Guid, &String)> = files
        .iter()
        .filter(|(g, _)| !seen.contains_key(g))
        .collect();
    orphans.sort_by(|a, b| a.1.cmp(b.1));
    for (g, n) in orphans {
        let mut item = CacheItem {
            guid: Some(*g),
            key: None,
            name: None,
            file: None,
            size: None,
            package_guid: None,
            version: None,
            status: Status::Ok,
            detail: None,
        };
        check_file(&mut item, &dir.join(n), *g);
        if item.status == Status::Ok {
            item.status = Status::Orphan;
            item.detail = Some("no cache.ini entry names this file".into());
        }
        items.push(item);
    }
    Ok(CacheReport {
        dir: dir.to_path_buf(),
        ini: ini_path,
        ext: ext.to_string(),
        items,
    })
}

fn check_file(item: &mut CacheItem, path: &Path, g: Guid) {
    item.file = Some(path.to_path_buf());
    item.size = std::fs::metadata(path).ok().map(|m| m.len());
    match read_guid(path) {
        Ok((pg, v)) => {
            item.package_guid = Some(pg);
            item.version = Some(v);
            if pg != g {
                item.status = Status::GuidMismatch;
                item.detail = Some(format!("file is named {g} but the package GUID is {pg}"));
            }
        }
        Err(e) => {
            item.status = Status::BadPackage;
            item.detail = Some(e.to_string());
        }
    }
}

/// What restoring one cache entry did (or would do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Copied (or would copy) to `dest`.
    Copy,
    /// `dest` already holds the same package (same GUID); nothing to do.
    AlreadyThere,
    /// Replaced (or would replace, with `--force`) a different package at `dest`.
    Replace,
    /// Not restored; see `detail`.
    Skip,
}

/// One restore decision.
#[derive(Clone, Debug, Serialize)]
pub struct RestoreItem {
    /// Cache GUID.
    pub guid: Option<Guid>,
    /// Original name (as written in `cache.ini`).
    pub name: Option<String>,
    /// The cache file.
    pub source: Option<PathBuf>,
    /// Where it goes.
    pub dest: Option<PathBuf>,
    /// What happens.
    pub action: Action,
    /// Why, for `Skip` and `Replace`.
    pub detail: Option<String>,
}

/// Restore plan or result.
#[derive(Clone, Debug, Serialize)]
pub struct RestoreReport {
    /// True when nothing was written.
    pub dry_run: bool,
    /// One line per cache entry or orphan.
    pub items: Vec<RestoreItem>,
}

/// Copy every valid cache entry back under its original name into the
/// folder its extension belongs to. Without `force` a different existing
/// package (another GUID, or not a package) is never replaced. With
/// `dry_run` nothing is written. Each copy is atomic (temp file + rename).
pub fn restore(report: &CacheReport, game: &GameDir, dry_run: bool, force: bool) -> RestoreReport {
    let mut items = Vec::new();
    let mut planned: HashMap<PathBuf, Guid> = HashMap::new();
    for it in &report.items {
        let mut r = RestoreItem {
            guid: it.guid,
            name: it.name.clone(),
            source: it.file.clone(),
            dest: None,
            action: Action::Skip,
            detail: None,
        };
        let skip = |r: &mut RestoreItem, why: String| {
            r.action = Action::Skip;
            r.detail = Some(why);
        };
        match it.status {
            Status::Ok => {}
            _ => {
                let why = it
                    .detail
                    .clone()
                    .unwrap_or_else(|| format!("{:?}", it.status));
                skip(&mut r, format!("{}: {why}", it.status.word()));
                items.push(r);
                continue;
            }
        }
        let (Some(name), Some(src), Some(g)) = (&it.name, &it.file, it.guid) else {
            skip(&mut r, "incomplete entry".into());
            items.push(r);
            continue;
        };
        let name = match safe_file_name(name) {
            Ok(n) => n,
            Err(why) => {
                skip(&mut r, format!("unsafe original name: {why}"));
                items.push(r);
                continue;
            }
        };
        let ext = name.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        let Some(sp) = game.folder_for_extension(ext) else {
            skip(
                &mut r,
                format!("no Paths entry ends with .{ext}, so its folder is unknown"),
            );
            items.push(r);
            continue;
        };
        // Existing file with this name in any case (Linux installs mix case).
        let dest = game
            .index()
            .find(&sp.dir, name)
            .unwrap_or_else(|| sp.dir.join(name));
        r.dest = Some(dest.clone());
        if let Some(prev) = planned.get(&dest) {
            if *prev != g {
                skip(
                    &mut r,
                    format!("another cache entry ({prev}) already restores to this name"),
                );
                items.push(r);
                continue;
            }
        }
        let mut replacing = false;
        if std::fs::symlink_metadata(&dest).is_ok() {
            match read_guid(&dest) {
                Ok((eg, _)) if eg == g => {
                    r.action = Action::AlreadyThere;
                    r.detail = Some("an identical package (same GUID) is installed".into());
                    items.push(r);
                    continue;
                }
                Ok((eg, _)) => {
                    r.detail = Some(format!("installed package has GUID {eg}"));
                }
                Err(e) => {
                    r.detail = Some(format!("installed file is not a readable package: {e}"));
                }
            }
            if !force {
                r.action = Action::Skip;
                r.detail = r
                    .detail
                    .map(|d| format!("{d}; a different package is in the way (use --force)"));
                items.push(r);
                continue;
            }
            replacing = true;
        }
        planned.insert(dest.clone(), g);
        r.action = if replacing {
            Action::Replace
        } else {
            Action::Copy
        };
        if !dry_run {
            if let Err(e) = copy_atomic(game, src, &dest, replacing) {
                skip(&mut r, format!("copy failed: {e}"));
            }
        }
        items.push(r);
    }
    RestoreReport { dry_run, items }
}

/// Copy `src` to `dest` through [`OutputDir`] rooted at the game folder (the
/// parent of `System/`), so a symlink anywhere between the game folder and
/// the destination is refused instead of followed out of the game folder.
fn copy_atomic(game: &GameDir, src: &Path, dest: &Path, force: bool) -> Result<()> {
    let root = game.system_dir.parent().unwrap_or(&game.root);
    let (root_n, dest_n) = (lexical(root), lexical(dest));
    let rel = dest_n
        .strip_prefix(&root_n)
        .ok()
        .and_then(|r| r.to_str())
        .filter(|r| !r.is_empty())
        .ok_or_else(|| {
            Error::Other(format!(
                "refusing to restore to {}: it is outside the game folder {}",
                dest.display(),
                root.display()
            ))
        })?;
    let out = OutputDir::create(root, force)?;
    let data = Source::open(src)?;
    out.write_with(rel, |w| w.write_all(&data))?;
    Ok(())
}

/// Resolve `.` and `..` without touching the file system.
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let up = matches!(
                    out.components().next_back(),
                    None | Some(Component::ParentDir)
                );
                if up {
                    out.push("..");
                } else if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir | Component::Prefix(_))
                ) {
                    out.pop();
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names() {
        for bad in [
            "",
            "..",
            "../System/Core.u",
            "..\\x.u",
            "a/b.u",
            "C:x.u",
            "x\0.u",
            "noext",
            ".u",
            "..u",
        ] {
            assert!(safe_file_name(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(safe_file_name("DM-Deck16][.unr"), Ok("DM-Deck16][.unr"));
        assert_eq!(
            safe_file_name("Q3 Texture base floor.utx"),
            Ok("Q3 Texture base floor.utx")
        );
    }

    #[test]
    fn cache_ini_entries() {
        let ini = Ini::parse(
            b"[Cache]\r\n4F4BE10E11D67991AABBCCDD00112233=Foo.utx\r\nnot-a-guid=Bar.u\r\n",
        );
        let c = CacheIni::from_ini(&ini);
        assert_eq!(c.entries.len(), 2);
        assert_eq!(
            c.entries[0].guid.map(|g| g.words),
            Some([0x4F4BE10E, 0x11D67991, 0xAABBCCDD, 0x00112233])
        );
        assert_eq!(c.entries[0].package_name(), "Foo");
        assert!(c.entries[1].guid.is_none());
    }

    // Moved from the old pakrat-system ini reader's tests (the ini part now
    // lives in pakrat_io::ini); the cache half stays here.
    proptest::proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            // The ini half (parse/array/get never panic) is in pakrat_io::ini.
            let c = CacheIni::from_ini(&Ini::parse(&data));
            for e in &c.entries {
                let _ = safe_file_name(&e.name);
                let _ = e.package_name();
            }
        }
    }
}
