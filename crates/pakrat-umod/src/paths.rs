//! Case-insensitive placement of archive paths on a case-sensitive disk.
//!
//! Unreal treats `System\Foo.u`, `system/foo.u` and `SYSTEM\FOO.U` as the same
//! file (`appToNormal`). On Linux, game folders mix case (`System`, `Maps`,
//! `textures`), so writing `Textures\X.utx` into a folder that holds
//! `textures/` must reuse that folder, not create a twin. [`CaseMap`] picks,
//! for each path component, the spelling that already exists on disk
//! ([`pakrat_io::nocase::pick`]: exact match preferred), else the first
//! spelling seen in this run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pakrat_io::fsutil::OutputDir;
use pakrat_io::text::show;
use pakrat_io::{fsutil, nocase, Error, Result};

/// Maps archive names to the relative paths to use under a root.
pub struct CaseMap {
    root: PathBuf,
    /// folded relative path → chosen relative path (with `/`).
    chosen: HashMap<String, String>,
    /// chosen relative folder → names on disk, indexed.
    listings: HashMap<String, Listing>,
}

/// One folder's names with the indexes [`nocase::pick`] would scan for:
/// a lookup costs one hash probe, not a pass over the folder (a folder of
/// 20,000 files made every install plan quadratic).
struct Listing {
    /// Sorted, as [`nocase::list_names`] gives them.
    names: Vec<String>,
    /// ASCII-lower-cased name → first such name in sorted order.
    ascii: HashMap<String, usize>,
    /// Lower-cased non-ASCII name → first such name in sorted order.
    wide: HashMap<String, usize>,
}

impl Listing {
    fn new(names: Vec<String>) -> Listing {
        let mut ascii = HashMap::new();
        let mut wide = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            ascii.entry(n.to_ascii_lowercase()).or_insert(i);
            if !n.is_ascii() {
                wide.entry(n.to_lowercase()).or_insert(i);
            }
        }
        Listing { names, ascii, wide }
    }

    /// What [`nocase::pick`] gives: the exact spelling, else the first
    /// equal ignoring ASCII case, else (for a non-ASCII name) the first
    /// non-ASCII name equal ignoring Unicode case.
    fn pick(&self, name: &str) -> Option<&str> {
        if let Ok(i) = self.names.binary_search_by(|n| n.as_str().cmp(name)) {
            return Some(&self.names[i]);
        }
        if let Some(&i) = self.ascii.get(&name.to_ascii_lowercase()) {
            return Some(&self.names[i]);
        }
        if name.is_ascii() {
            return None;
        }
        self.wide
            .get(&name.to_lowercase())
            .map(|&i| self.names[i].as_str())
    }
}

impl CaseMap {
    /// Map paths under `root` (which may not exist yet).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        CaseMap {
            root: root.into(),
            chosen: HashMap::new(),
            listings: HashMap::new(),
        }
    }

    fn listing(&mut self, dir: &str) -> &Listing {
        let root = &self.root;
        self.listings.entry(dir.to_string()).or_insert_with(|| {
            Listing::new(if dir.is_empty() {
                nocase::list_names(root)
            } else {
                nocase::list_names(&root.join(dir))
            })
        })
    }

    /// The relative path (with `/`) to use for archive name `name`; refuses
    /// unsafe names (`..`, absolute, drive letters...).
    pub fn map(&mut self, name: &str) -> Result<String> {
        let rel = fsutil::sanitize_relative(name)?;
        let comps: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut actual = String::new();
        let mut folded = String::new();
        for comp in comps {
            if !folded.is_empty() {
                folded.push('/');
            }
            folded.push_str(&comp.to_lowercase());
            if let Some(c) = self.chosen.get(&folded) {
                actual = c.clone();
                continue;
            }
            let list = self.listing(&actual);
            let pick = list.pick(&comp).unwrap_or(&comp).to_string();
            if !actual.is_empty() {
                actual.push('/');
            }
            actual.push_str(&pick);
            self.chosen.insert(folded.clone(), actual.clone());
        }
        Ok(actual)
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Check the way to `path` (relative `rel`) under the game folder: every
/// existing parent must be a plain folder; the file itself must be absent or
/// a regular file. Symbolic links were refused by [`OutputDir::resolve`].
pub(crate) fn check_way(out: &OutputDir, rel: &str, path: &Path) -> Result<()> {
    let mut cur = out.root().to_path_buf();
    let inner = path.strip_prefix(out.root()).unwrap_or(path);
    let n = inner.components().count();
    for (i, c) in inner.components().enumerate() {
        cur.push(c);
        let Ok(meta) = std::fs::symlink_metadata(&cur) else {
            return Ok(()); // the rest does not exist yet
        };
        let last = i + 1 == n;
        if !last && !meta.is_dir() {
            return Err(Error::Other(format!(
                "{} is a file where writing {} needs a folder",
                show(
                    &cur.strip_prefix(out.root())
                        .unwrap_or(&cur)
                        .display()
                        .to_string()
                ),
                show(rel)
            )));
        }
        if last && !meta.is_file() {
            return Err(Error::Other(format!(
                "{} exists and is {} where a file goes",
                show(rel),
                if meta.is_dir() {
                    "a folder"
                } else {
                    "not a regular file"
                }
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_existing_and_first_spelling() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("system")).unwrap();
        std::fs::write(t.path().join("system/Foo.U"), b"x").unwrap();
        let mut m = CaseMap::new(t.path());
        assert_eq!(m.map("System\\foo.u").unwrap(), "system/Foo.U");
        assert_eq!(m.map("Maps\\A.unr").unwrap(), "Maps/A.unr");
        assert_eq!(m.map("MAPS/b.unr").unwrap(), "Maps/b.unr");
        assert!(m.map("..\\x").is_err());
        assert!(m.map("C:\\x").is_err());
    }

    #[test]
    fn indexed_pick_is_nocase_pick() {
        let names: Vec<String> = [
            "Caf\u{e9}.u",
            "SYSTEM",
            "System",
            "maps",
            "\u{c9}t\u{e9}",
            "a",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut sorted = names.clone();
        sorted.sort();
        let l = Listing::new(sorted.clone());
        for q in [
            "System",
            "system",
            "SYSTEM",
            "sYSTEM",
            "Maps",
            "caf\u{e9}.U",
            "CAF\u{c9}.u",
            "\u{e9}t\u{c9}",
            "A",
            "b",
            "Caf\u{c9}",
        ] {
            assert_eq!(l.pick(q), nocase::pick(&sorted, q), "{q}");
        }
    }
}
