//! A game folder: its ini's `[Core.System]` settings and package lookup.
//!
//! Lookup follows the engine's `appFindPackageFile` (UE1/UE2 `Core/Src/UnMisc.cpp`):
//!
//! 1. every `Paths` entry in order, replacing the `*` of e.g. `../Maps/*.unr`
//!    with the name and trying the name as given, then with the entry's
//!    extension appended;
//! 2. the same again, matching file names case-insensitively (the engine's
//!    second pass, for Linux installs that mix case);
//! 3. when a GUID is known (the server sent it), `<CachePath>/<GUID><CacheExt>`.
//!
//! The engine consults the cache only with a GUID and only after `Paths`.
//! An import table carries no GUID, so for a dependency walk pakrat adds one
//! last step: a `cache.ini` entry whose original name matches (what 227's
//! `FindMatchingFile` does), so packages that exist only in the cache are
//! still found and reported as coming from it.
//!
//! `Paths` entries are relative to the `System` folder, the engine's working
//! folder. Every folder component is also matched case-insensitively.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pakrat_io::{nocase, Error, Guid, Result};
use serde::Serialize;

use crate::cache::CacheIni;
use crate::generation::PkgVersion;
use pakrat_io::ini::Ini;

/// Ini files tried in `System/` when none is given, in this order.
pub const DEFAULT_INIS: &[&str] = &[
    "UnrealTournament.ini",
    "UT2004.ini",
    "UT2003.ini",
    "Unreal.ini",
    "KillingFloor.ini",
    "DeusEx.ini",
    "Rune.ini",
    "Default.ini",
];

/// `[Core.System] Paths` used when no ini is found (UT99 and UT2004 defaults together).
pub const BUILTIN_PATHS: &[&str] = &[
    "../System/*.u",
    "../Maps/*.unr",
    "../Maps/*.ut2",
    "../Textures/*.utx",
    "../Sounds/*.uax",
    "../Music/*.umx",
    "../StaticMeshes/*.usx",
    "../Animations/*.ukx",
];

/// One `Paths` entry.
#[derive(Clone, Debug, Serialize)]
pub struct SearchPath {
    /// The entry as written in the ini (e.g. `../Maps/*.unr`).
    pub pattern: String,
    /// The folder part, resolved under the System folder (case-insensitively
    /// where it exists; as written otherwise).
    pub dir: PathBuf,
    /// Text after the `*` (e.g. `.unr`), if any.
    pub ext: Option<String>,
    /// False for entries this machine cannot use (Windows drive letters).
    pub usable: bool,
}

/// How a package was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The name was a path to an existing file.
    Direct,
    /// `Paths[index]`, exact spelling.
    Path(usize),
    /// `Paths[index]`, matched case-insensitively.
    PathNoCase(usize),
    /// `<CachePath>/<GUID><CacheExt>` for a known GUID.
    CacheGuid,
    /// A `cache.ini` entry whose original name matches.
    CacheIni,
    /// A plain folder of packages (no System folder, no ini): a package
    /// file of that name anywhere under the root, as `scan` pairs names.
    Folder,
}

/// The package files of a plain folder by package name: built once when
/// the folder is opened (one pass over its listing), so that resolving a
/// name costs a hash lookup instead of a scan of every file (9,000
/// packages once took 3.4 s in `deps`).
#[derive(Debug, Default)]
pub struct NameIndex {
    by_name: HashMap<String, Vec<PathBuf>>,
}

impl NameIndex {
    /// Index `files` (kept in the order given) by file name without the
    /// extension, ignoring ASCII case as the engine's `appStricmp` does.
    pub fn build(files: &[PathBuf]) -> NameIndex {
        let mut by_name: HashMap<String, Vec<PathBuf>> = HashMap::new();
        for f in files {
            if let Some(stem) = f.file_stem() {
                by_name
                    .entry(stem.to_string_lossy().to_ascii_lowercase())
                    .or_default()
                    .push(f.clone());
            }
        }
        NameIndex { by_name }
    }

    /// The files named `name` (without extension), in the order indexed.
    pub fn candidates(&self, name: &str) -> &[PathBuf] {
        self.by_name
            .get(&name.to_ascii_lowercase())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// How many names are indexed.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True when no file is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// A resolved package file.
#[derive(Clone, Debug, Serialize)]
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Which rule found it.
    pub via: Via,
}

/// Cached folder listings (names only), shared between threads.
#[derive(Default, Debug)]
pub struct DirIndex {
    map: Mutex<HashMap<PathBuf, Arc<Vec<String>>>>,
}

impl DirIndex {
    /// The entry names of `dir` (empty when it cannot be read).
    pub fn list(&self, dir: &Path) -> Arc<Vec<String>> {
        if let Ok(map) = self.map.lock() {
            if let Some(v) = map.get(dir) {
                return v.clone();
            }
        }
        let names = Arc::new(nocase::list_names(dir));
        if let Ok(mut map) = self.map.lock() {
            map.insert(dir.to_path_buf(), names.clone());
        }
        names
    }

    /// The entry of `dir` named `name`: exact spelling first, then ignoring
    /// case ([`nocase::pick`]; the engine's `appStricmp`).
    pub fn find(&self, dir: &Path, name: &str) -> Option<PathBuf> {
        let names = self.list(dir);
        nocase::pick(&names, name).map(|n| dir.join(n))
    }
}

/// Join `rel` (with `/` or `\` separators, `..` allowed) under `base`,
/// matching each existing component case-insensitively. Returns `None` for
/// a Windows drive path this machine cannot have.
pub fn join_nocase(index: &DirIndex, base: &Path, rel: &str) -> Option<PathBuf> {
    if rel.len() >= 2 && rel.as_bytes()[1] == b':' {
        return None;
    }
    let mut cur = if rel.starts_with('/') || rel.starts_with('\\') {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for comp in rel.split(['/', '\\']) {
        match comp {
            "" | "." => {}
            ".." => {
                if !cur.pop() {
                    cur.push("..");
                }
            }
            c => {
                cur = match index.find(&cur, c) {
                    Some(p) => p,
                    None => cur.join(c),
                };
            }
        }
    }
    Some(cur)
}

/// A game installation as the engine sees it.
#[derive(Debug)]
pub struct GameDir {
    /// The root given by the user.
    pub root: PathBuf,
    /// The System folder (the engine's working folder).
    pub system_dir: PathBuf,
    /// The ini the settings came from (`None`: built-in defaults).
    pub ini_path: Option<PathBuf>,
    /// `[Core.System] Paths`, in order.
    pub paths: Vec<SearchPath>,
    /// `[Core.System] CachePath`, resolved.
    pub cache_dir: PathBuf,
    /// `[Core.System] CacheExt` (with its dot, e.g. `.uxx`).
    pub cache_ext: String,
    /// The cache folder's `cache.ini` (empty when missing).
    pub cache_ini: CacheIni,
    /// No System folder and no ini: a plain folder of packages. Names then
    /// also resolve to package files anywhere under the root
    /// ([`Via::Folder`]), after the built-in `Paths`.
    pub plain_folder: bool,
    /// The files under the root by name, indexed once for a plain folder.
    plain: NameIndex,
    index: DirIndex,
}

impl GameDir {
    /// Open a game folder; `ini` overrides the ini search. The System folder
    /// is `root/System` (any case), or `root` itself when it is named
    /// `System`.
    pub fn open(root: &Path, ini: Option<&Path>) -> Result<GameDir> {
        let index = DirIndex::default();
        if !root.is_dir() {
            return Err(Error::Other(format!(
                "{}: not a folder (expected a game folder holding System/)",
                root.display()
            )));
        }
        let named_system = root
            .file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("System"));
        let has_system = index.find(root, "System").is_some_and(|p| p.is_dir());
        let system_dir = match index.find(root, "System") {
            Some(p) if p.is_dir() => p,
            // The user pointed at the System folder itself.
            _ if named_system => root.to_path_buf(),
            // No System folder yet: Paths (`../Maps/...`) still start from where it would be.
            _ => root.join("System"),
        };
        let ini_path = match ini {
            Some(p) => Some(p.to_path_buf()),
            None => find_ini(&index, &system_dir),
        };
        let parsed = match &ini_path {
            Some(p) => Ini::load(p)?,
            None => Ini::default(),
        };
        let mut patterns: Vec<String> = parsed
            .array("Core.System", "Paths")
            .into_iter()
            .map(str::to_string)
            .collect();
        if ini_path.is_none() {
            patterns = BUILTIN_PATHS.iter().map(|s| s.to_string()).collect();
        } else if patterns.is_empty() {
            let p = ini_path.as_deref().unwrap_or(Path::new("?"));
            return Err(Error::Other(format!(
                "{}: no [Core.System] Paths entries (Paths[n]= or Paths=)",
                p.display()
            )));
        }
        let paths = patterns
            .iter()
            .map(|pat| parse_search_path(&index, &system_dir, pat))
            .collect();
        let cache_rel = parsed.get("Core.System", "CachePath").unwrap_or("../Cache");
        let cache_dir =
            join_nocase(&index, &system_dir, cache_rel).unwrap_or_else(|| system_dir.join(".."));
        let cache_ext = match parsed.get("Core.System", "CacheExt") {
            Some(e) if !e.is_empty() => e.to_string(),
            _ => ".uxx".to_string(),
        };
        let cache_ini = match index.find(&cache_dir, "cache.ini") {
            Some(p) if p.is_file() => CacheIni::load(&p)?,
            _ => CacheIni::default(),
        };
        let plain_folder = ini_path.is_none() && !has_system && !named_system;
        let plain = if plain_folder {
            NameIndex::build(&crate::scan::list_files(root)?)
        } else {
            NameIndex::default()
        };
        Ok(GameDir {
            root: root.to_path_buf(),
            system_dir,
            ini_path,
            paths,
            cache_dir,
            cache_ext,
            cache_ini,
            plain_folder,
            plain,
            index,
        })
    }

    /// The shared folder-listing cache.
    pub fn index(&self) -> &DirIndex {
        &self.index
    }

    /// Find package `name` (with or without extension) the way the engine
    /// does; see the module documentation for the order.
    pub fn resolve(&self, name: &str, guid: Option<Guid>) -> Option<Found> {
        self.resolve_for(name, guid, None)
    }

    /// [`GameDir::resolve`] for an import of a package of version
    /// `importer`: in a plain folder, where no `Paths` order decides, a
    /// file of the importer's generation is preferred to the first one in
    /// path order ([`PkgVersion::mismatch`]). Elsewhere the engine's order
    /// decides, and a mismatch is for the caller to report.
    pub fn resolve_for(
        &self,
        name: &str,
        guid: Option<Guid>,
        importer: Option<PkgVersion>,
    ) -> Option<Found> {
        if !is_plain_name(name) || is_library(name) {
            return None;
        }
        // Pass 1: exact spelling, as appFindPackageFile's first loop.
        for (i, sp) in self.paths.iter().enumerate().filter(|(_, s)| s.usable) {
            let plain = sp.dir.join(name);
            if plain.is_file() {
                return Some(Found {
                    path: plain,
                    via: Via::Path(i),
                });
            }
            if let Some(ext) = &sp.ext {
                let with = sp.dir.join(format!("{name}{ext}"));
                if with.is_file() {
                    return Some(Found {
                        path: with,
                        via: Via::Path(i),
                    });
                }
            }
        }
        // Pass 2: case-insensitive, as its "Try case-insensitive search" loop.
        for (i, sp) in self.paths.iter().enumerate().filter(|(_, s)| s.usable) {
            let names = self.index.list(&sp.dir);
            let with_ext = sp.ext.as_ref().map(|e| format!("{name}{e}"));
            let hit = names.iter().find(|n| {
                n.eq_ignore_ascii_case(name)
                    || with_ext.as_ref().is_some_and(|w| n.eq_ignore_ascii_case(w))
            });
            if let Some(n) = hit {
                let p = sp.dir.join(n);
                if p.is_file() {
                    return Some(Found {
                        path: p,
                        via: Via::PathNoCase(i),
                    });
                }
            }
        }
        // A plain folder: the first package file (in path order) whose name
        // without the extension is the package name, of the importer's
        // generation when there is one.
        let base = name.split('.').next().unwrap_or(name);
        let mut first = None;
        for p in self.plain.candidates(base) {
            let fits_name = base == name
                || p.file_name()
                    .is_some_and(|f| f.to_string_lossy().eq_ignore_ascii_case(name));
            if !fits_name || !crate::scan::has_package_tag(p) {
                continue;
            }
            first.get_or_insert(p);
            match importer {
                None => break,
                Some(imp) => {
                    if PkgVersion::read(p).is_some_and(|v| v.mismatch(imp).is_none()) {
                        first = Some(p);
                        break;
                    }
                }
            }
        }
        if let Some(p) = first {
            return Some(Found {
                path: p.clone(),
                via: Via::Folder,
            });
        }
        if let Some(g) = guid {
            if let Some(p) = self.cache_file(g) {
                return Some(Found {
                    path: p,
                    via: Via::CacheGuid,
                });
            }
        }
        for e in &self.cache_ini.entries {
            if e.package_name().eq_ignore_ascii_case(base) {
                if let Some(g) = e.guid {
                    if let Some(p) = self.cache_file(g) {
                        return Some(Found {
                            path: p,
                            via: Via::CacheIni,
                        });
                    }
                }
            }
        }
        None
    }

    /// `<CachePath>/<GUID><CacheExt>` when it exists (any case).
    pub fn cache_file(&self, guid: Guid) -> Option<PathBuf> {
        let name = format!("{guid}{}", self.cache_ext);
        self.index
            .find(&self.cache_dir, &name)
            .filter(|p| p.is_file())
    }

    /// The folder a file with this extension is installed into: the folder
    /// of the first `Paths` entry ending in that extension (compared
    /// case-insensitively, as `FString ==` does), as the engine's
    /// `MoveCacheEntry` picks it.
    pub fn folder_for_extension(&self, ext: &str) -> Option<&SearchPath> {
        let want = format!(".{}", ext.trim_start_matches('.'));
        self.paths.iter().filter(|s| s.usable).find(|s| {
            s.pattern.len() >= want.len()
                && s.pattern
                    .get(s.pattern.len() - want.len()..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(&want))
        })
    }
}

/// Package names come from import tables, i.e. from untrusted files: only a
/// plain file name is ever looked up (no folder separators, no `..`, no
/// drive letter, no control characters), so a hostile import cannot make
/// pakrat open a file outside the `Paths` folders.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= pakrat_io::fsutil::MAX_COMPONENT
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', ':'])
        && !name.chars().any(|c| c.is_control())
}

/// True for names the engine refuses to treat as packages (native libraries).
fn is_library(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.ends_with(".dll") || l.ends_with(".so")
}

fn parse_search_path(index: &DirIndex, system_dir: &Path, pattern: &str) -> SearchPath {
    let (dir_part, ext) = match pattern.find('*') {
        Some(star) => (&pattern[..star], Some(pattern[star + 1..].to_string())),
        None => (pattern, None),
    };
    // The engine concatenates the text before `*` with the name, so the folder
    // is everything up to the last separator of that prefix.
    let cut = dir_part.rfind(['/', '\\']).map(|i| i + 1).unwrap_or(0);
    let folder = &dir_part[..cut];
    let dir = join_nocase(index, system_dir, folder);
    SearchPath {
        pattern: pattern.to_string(),
        usable: dir.is_some(),
        dir: dir.unwrap_or_else(|| PathBuf::from(folder)),
        ext: ext.filter(|e| !e.is_empty()),
    }
}

fn find_ini(index: &DirIndex, system_dir: &Path) -> Option<PathBuf> {
    let has_paths = |p: &Path| {
        Ini::load(p)
            .map(|i| !i.array("Core.System", "Paths").is_empty())
            .unwrap_or(false)
    };
    for name in DEFAULT_INIS {
        if let Some(p) = index.find(system_dir, name) {
            if p.is_file() && has_paths(&p) {
                return Some(p);
            }
        }
    }
    index
        .list(system_dir)
        .iter()
        .filter(|n| n.to_ascii_lowercase().ends_with(".ini"))
        .map(|n| system_dir.join(n))
        .find(|p| p.is_file() && has_paths(p))
}
