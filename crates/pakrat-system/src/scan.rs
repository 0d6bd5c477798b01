//! Scan a folder tree of packages (in parallel) and report what would break
//! the engine's name-based loading: base-name collisions across extensions,
//! one name with several GUIDs, missing dependencies, and import cycles
//! among `.u` packages.
//!
//! Packages are recognised by content (the package tag), not by extension;
//! files with a package extension that are not packages are reported as
//! errors. Symbolic links are not followed, and the walk depth is bounded.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::{Error, Guid, Result};
use rayon::prelude::*;
use serde::Serialize;

use crate::cache::{safe_file_name, CacheIni};
use crate::generation::PkgVersion;
use crate::graph;

/// Deepest folder nesting followed.
pub const MAX_DEPTH: usize = 64;

/// Extensions that normally hold packages (a file with one of these that is
/// not a package is reported).
pub const PACKAGE_EXTS: &[&str] = &[
    "u", "utx", "uax", "umx", "unr", "usx", "ukx", "ut2", "uxx", "upx", "uvx", "dx", "ums",
];

/// One package found.
#[derive(Clone, Debug, Serialize)]
pub struct ScannedPackage {
    /// Path relative to the scanned folder.
    pub path: PathBuf,
    /// Package name (file name up to the first `.`, as the engine names it).
    pub name: String,
    /// Extension (without dot; empty if none).
    pub ext: String,
    /// For a download-cache file `<GUID>.uxx` listed in the `cache.ini`
    /// beside it: its original file name (then `name` and `ext` are the
    /// original's, so it takes part in the name checks as the engine sees it).
    pub cached_as: Option<String>,
    /// File size.
    pub size: u64,
    /// Package version.
    pub version: u16,
    /// Licensee version.
    pub licensee: u16,
    /// Package flags.
    pub flags: u32,
    /// Package GUID.
    pub guid: Guid,
    /// Names of the packages it imports.
    pub imports: Vec<String>,
}

/// A file that looked like a package but could not be read.
#[derive(Clone, Debug, Serialize)]
pub struct ScanError {
    /// Path relative to the scanned folder.
    pub path: PathBuf,
    /// What went wrong.
    pub error: String,
}

/// Several files share a package name but not an extension.
#[derive(Clone, Debug, Serialize)]
pub struct Collision {
    /// The shared name.
    pub name: String,
    /// The files.
    pub files: Vec<PathBuf>,
}

/// One file name present with different GUIDs.
#[derive(Clone, Debug, Serialize)]
pub struct Duplicate {
    /// The file name (name + extension).
    pub name: String,
    /// `(file, GUID)` pairs.
    pub copies: Vec<(PathBuf, Guid)>,
}

/// An imported package that no scanned file provides.
#[derive(Clone, Debug, Serialize)]
pub struct MissingDep {
    /// The package name.
    pub name: String,
    /// Names of the packages that import it.
    pub needed_by: Vec<String>,
}

/// An import whose name only files of another engine generation or game
/// provide ([`PkgVersion::mismatch`]): the engine that loads the importers
/// cannot load any of them.
#[derive(Clone, Debug, Serialize)]
pub struct GenMismatch {
    /// The imported package name.
    pub name: String,
    /// Names of the packages that import it and fit none of the files.
    pub needed_by: Vec<String>,
    /// The files of that name, with their versions.
    pub found: Vec<(PathBuf, PkgVersion)>,
    /// In words, for the first importer (e.g. `Engine: found Engine.u but
    /// it is UE1 v69, the importer is UE2 v126/29 (DM-Gael)`).
    pub message: String,
}

/// Everything a scan found.
#[derive(Clone, Debug, Serialize)]
pub struct ScanReport {
    /// Packages, sorted by path.
    pub packages: Vec<ScannedPackage>,
    /// Unreadable files, sorted by path.
    pub errors: Vec<ScanError>,
    /// Base-name collisions across extensions.
    pub collisions: Vec<Collision>,
    /// Same file name, different GUIDs.
    pub duplicates: Vec<Duplicate>,
    /// Imports no scanned package satisfies.
    pub missing: Vec<MissingDep>,
    /// Imports satisfied only by packages of another generation or game.
    pub mismatches: Vec<GenMismatch>,
    /// Import cycles among `.u` packages (package names).
    pub cycles: Vec<Vec<String>>,
    /// Files looked at.
    pub files_seen: u64,
    /// Bytes of the packages read.
    pub bytes: u64,
}

/// Every regular file under `root` (symlinks not followed; depth bounded),
/// sorted.
pub fn list_files(root: &Path) -> Result<Vec<PathBuf>> {
    if !root.is_dir() {
        return Err(Error::Other(format!("{}: not a folder", root.display())));
    }
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if dir == root => return Err(Error::io(&dir, e)),
            Err(_) => continue,
        };
        for e in rd.filter_map(|e| e.ok()) {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if depth < MAX_DEPTH {
                    stack.push((e.path(), depth + 1));
                }
            } else if ft.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Whether the file starts with an Unreal package tag (either byte order).
pub fn has_package_tag(path: &Path) -> bool {
    let mut b = [0u8; pakrat_classic::lineage::HEADER_LEN];
    // Regular files only: a named pipe in a game folder must not hang the scan.
    let Ok(mut f) = pakrat_io::open_regular(path) else {
        return false;
    };
    let mut n = 0;
    while n < b.len() {
        match f.read(&mut b[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n >= 4
        && (matches!(
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            0x9E2A_83C1 | 0x9E2A_83C2 | 0xC183_2A9E | 0xC283_2A9E
        ) || pakrat_classic::lineage::header_version(&b[..n]).is_some())
}

fn ext_of(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Package name of a file: its name without the extension (package names
/// cannot contain `.`, which separates object paths).
pub fn package_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `cache.ini` files of the scanned tree, by folder: a cache file
/// `<GUID>.uxx` is analysed under its original name.
fn cache_names(files: &[PathBuf]) -> HashMap<PathBuf, HashMap<Guid, String>> {
    let mut out = HashMap::new();
    for f in files {
        let is_ini = f
            .file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("cache.ini"));
        let Some(dir) = f.parent() else { continue };
        if !is_ini {
            continue;
        }
        if let Ok(ini) = CacheIni::load(f) {
            let map: HashMap<Guid, String> = ini
                .entries
                .into_iter()
                .filter_map(|e| Some((e.guid?, e.name)))
                .filter(|(_, n)| safe_file_name(n).is_ok())
                .collect();
            out.insert(dir.to_path_buf(), map);
        }
    }
    out
}

/// Scan `root`. `progress` is called once per file with its size in bytes.
pub fn scan(root: &Path, progress: &(dyn Fn(u64) + Sync)) -> Result<ScanReport> {
    let files = list_files(root)?;
    scan_files(root, &files, progress)
}

/// Scan a list of files found under `root`.
pub fn scan_files(
    root: &Path,
    files: &[PathBuf],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ScanReport> {
    let caches = cache_names(files);
    let results: Vec<Option<std::result::Result<ScannedPackage, ScanError>>> = files
        .par_iter()
        .map(|path| {
            let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            let ext = ext_of(path);
            let r = if has_package_tag(path) {
                let cached = path
                    .parent()
                    .and_then(|d| caches.get(d))
                    .and_then(|m| m.get(&Guid::parse(&package_name(path))?));
                Some(read_one(path, rel, size, ext, cached.cloned()))
            } else if PACKAGE_EXTS.iter().any(|e| e.eq_ignore_ascii_case(&ext)) {
                Some(Err(ScanError {
                    path: rel,
                    error: "has a package extension but no package tag (0x9E2A83C1)".into(),
                }))
            } else {
                None
            };
            progress(size);
            r
        })
        .collect();
    let mut packages = Vec::new();
    let mut errors = Vec::new();
    for r in results.into_iter().flatten() {
        match r {
            Ok(p) => packages.push(p),
            Err(e) => errors.push(e),
        }
    }
    let bytes = packages.iter().map(|p| p.size).sum();
    let mut report = ScanReport {
        packages,
        errors,
        collisions: Vec::new(),
        duplicates: Vec::new(),
        missing: Vec::new(),
        mismatches: Vec::new(),
        cycles: Vec::new(),
        files_seen: files.len() as u64,
        bytes,
    };
    report.analyse();
    Ok(report)
}

fn read_one(
    path: &Path,
    rel: PathBuf,
    size: u64,
    ext: String,
    cached_as: Option<String>,
) -> std::result::Result<ScannedPackage, ScanError> {
    let err = |e: Error| ScanError {
        path: rel.clone(),
        error: e.to_string(),
    };
    let src = pakrat_classic::lineage::open(path).map_err(err)?;
    let pkg = pakrat_classic::Package::parse_lenient(&src).map_err(err)?;
    let (name, ext) = match &cached_as {
        Some(orig) => (package_name(Path::new(orig)), ext_of(Path::new(orig))),
        None => (package_name(path), ext),
    };
    Ok(ScannedPackage {
        name,
        ext,
        cached_as,
        size,
        version: pkg.summary.version,
        licensee: pkg.summary.licensee,
        flags: pkg.summary.package_flags,
        guid: pkg.summary.guid,
        imports: pkg
            .imported_packages()
            .into_iter()
            .map(str::to_string)
            .collect(),
        path: rel,
    })
}

impl ScanReport {
    fn analyse(&mut self) {
        // Group by package name, case-insensitively (BTreeMap: stable order).
        let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, p) in self.packages.iter().enumerate() {
            by_name
                .entry(p.name.to_ascii_lowercase())
                .or_default()
                .push(i);
        }
        for idx in by_name.values() {
            let mut exts: Vec<String> = idx
                .iter()
                .map(|&i| self.packages[i].ext.to_ascii_lowercase())
                .collect();
            exts.sort();
            exts.dedup();
            if exts.len() > 1 {
                self.collisions.push(Collision {
                    name: self.packages[idx[0]].name.clone(),
                    files: idx.iter().map(|&i| self.packages[i].path.clone()).collect(),
                });
            }
            // Same name + extension, more than one GUID.
            let mut by_ext: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (k, &i) in idx.iter().enumerate() {
                by_ext
                    .entry(self.packages[i].ext.to_ascii_lowercase())
                    .or_default()
                    .push(k);
            }
            for ks in by_ext.values() {
                let copies: Vec<(PathBuf, Guid)> = ks
                    .iter()
                    .map(|&k| {
                        let p = &self.packages[idx[k]];
                        (p.path.clone(), p.guid)
                    })
                    .collect();
                let mut guids: Vec<Guid> = copies.iter().map(|c| c.1).collect();
                guids.sort();
                guids.dedup();
                if guids.len() > 1 {
                    let p = &self.packages[idx[ks[0]]];
                    self.duplicates.push(Duplicate {
                        name: format!("{}.{}", p.name, p.ext),
                        copies,
                    });
                }
            }
        }
        // Missing imports, and imports only another generation provides
        // (`by_name` is the one name index: a lookup per import).
        let mut missing: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
        let mut wrong: BTreeMap<String, GenMismatch> = BTreeMap::new();
        let version = |p: &ScannedPackage| PkgVersion {
            version: p.version,
            licensee: p.licensee,
        };
        for p in &self.packages {
            let me = version(p);
            for imp in &p.imports {
                let key = imp.to_ascii_lowercase();
                let Some(found) = by_name.get(&key) else {
                    let e = missing
                        .entry(key)
                        .or_insert_with(|| (imp.clone(), Vec::new()));
                    if !e.1.iter().any(|n| n.eq_ignore_ascii_case(&p.name)) {
                        e.1.push(p.name.clone());
                    }
                    continue;
                };
                let why = found
                    .iter()
                    .map(|&i| version(&self.packages[i]).mismatch(me))
                    .collect::<Option<Vec<String>>>();
                let Some(why) = why else { continue };
                let e = wrong.entry(key).or_insert_with(|| {
                    let files: Vec<String> = found
                        .iter()
                        .map(|&i| self.packages[i].path.display().to_string())
                        .collect();
                    GenMismatch {
                        name: imp.clone(),
                        needed_by: Vec::new(),
                        found: found
                            .iter()
                            .map(|&i| (self.packages[i].path.clone(), version(&self.packages[i])))
                            .collect(),
                        message: format!(
                            "{imp}: found {} but {} ({})",
                            files.join(", "),
                            why.join("; "),
                            p.name
                        ),
                    }
                });
                if !e.needed_by.iter().any(|n| n.eq_ignore_ascii_case(&p.name)) {
                    e.needed_by.push(p.name.clone());
                }
            }
        }
        self.missing = missing
            .into_values()
            .map(|(name, needed_by)| MissingDep { name, needed_by })
            .collect();
        self.mismatches = wrong.into_values().collect();
        // Cycles among .u packages (one node per package name).
        let mut u_index: HashMap<String, usize> = HashMap::new();
        let mut u_names: Vec<String> = Vec::new();
        for p in self
            .packages
            .iter()
            .filter(|p| p.ext.eq_ignore_ascii_case("u"))
        {
            let key = p.name.to_ascii_lowercase();
            if let std::collections::hash_map::Entry::Vacant(e) = u_index.entry(key) {
                e.insert(u_names.len());
                u_names.push(p.name.clone());
            }
        }
        let mut adj = vec![Vec::new(); u_names.len()];
        for p in self
            .packages
            .iter()
            .filter(|p| p.ext.eq_ignore_ascii_case("u"))
        {
            let Some(&a) = u_index.get(&p.name.to_ascii_lowercase()) else {
                continue;
            };
            for imp in &p.imports {
                if let Some(&b) = u_index.get(&imp.to_ascii_lowercase()) {
                    if a != b && !adj[a].contains(&b) {
                        adj[a].push(b);
                    }
                }
            }
        }
        self.cycles = graph::cycles(&adj)
            .into_iter()
            .map(|c| c.into_iter().map(|i| u_names[i].clone()).collect())
            .collect();
    }
}
