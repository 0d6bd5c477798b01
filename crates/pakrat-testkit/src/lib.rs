//! Test support: locate the shared corpus and read its manifest.
//!
//! The corpus lives in `../shared/corpus` next to the repository root (or
//! wherever `PAKRAT_CORPUS` points). Under `CI=true` a missing corpus is a
//! test failure; elsewhere corpus tests print a loud SKIP line and pass.
#![deny(missing_docs)]

pub mod bench;
pub mod mutate;
pub mod utoc;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crate sits in crates/")
        .to_path_buf()
}

/// The corpus folder, or `None` (after a loud message) when it is missing
/// outside CI.
///
/// # Panics
/// When `CI` is set to `true` (or `1`) and the corpus is missing: corpus tests
/// must run in CI.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PAKRAT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if ci {
        panic!(
            "corpus not found at {} (CI=true: corpus tests must run)",
            dir.display()
        );
    }
    skip_report(&dir);
    None
}

/// Say, once per test binary, that its corpus tests are skipped. The line
/// goes straight to the process's stderr, not through `eprintln!`, which the
/// test harness captures and hides for tests that pass: a skip must show in
/// the output of a plain `cargo test`.
fn skip_report(dir: &Path) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    if SAID.swap(true, Ordering::Relaxed) {
        return;
    }
    let exe = std::env::current_exe().ok();
    let binary = exe
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Test binaries are named `NAME-HASH`.
    let binary = binary.rsplit_once('-').map_or(binary.as_str(), |x| x.0);
    // One write, so the line is not cut by the harness's own output.
    let line = format!(
        "\n**** SKIPPED: the corpus tests of `{binary}` pass without running: no corpus at {} \
         (set PAKRAT_CORPUS; under CI=true this fails) ****\n",
        dir.display()
    );
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// One row of `MANIFEST.tsv`.
#[derive(Clone, Debug)]
pub struct Entry {
    /// `umod`, `ue1`, `ue2`, `ue3`, `uz`, `iostore`.
    pub kind: String,
    /// Path below the corpus folder.
    pub local_path: String,
    /// Full path on this machine.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Facts read independently of pakrat.
    pub detail: String,
}

impl Entry {
    /// The value of a `key=value` token in `detail` (first match).
    pub fn detail_value(&self, key: &str) -> Option<&str> {
        detail_value(&self.detail, key)
    }

    /// True for files broken on purpose upstream (`FUZZ_`, `BADMAGIC_`).
    pub fn is_negative(&self) -> bool {
        let name = self.local_path.rsplit('/').next().unwrap_or("");
        name.starts_with("FUZZ_") || name.starts_with("BADMAGIC_")
    }
}

/// The value of a `key=value` token in a detail string.
pub fn detail_value<'a>(detail: &'a str, key: &str) -> Option<&'a str> {
    detail
        .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
        .find_map(|tok| tok.strip_prefix(key)?.strip_prefix('='))
}

/// Every row of the manifest, or `None` when the corpus is missing (see
/// [`corpus_dir`]).
pub fn manifest() -> Option<Vec<Entry>> {
    let dir = corpus_dir()?;
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("read MANIFEST.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col: HashMap<&str, usize> = header.iter().enumerate().map(|(i, h)| (*h, i)).collect();
    let get = |f: &[&str], k: &str| f.get(col[k]).copied().unwrap_or("").to_string();
    Some(
        lines
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                let local_path = get(&f, "local_path");
                Entry {
                    kind: get(&f, "kind"),
                    path: dir.join(&local_path),
                    local_path,
                    size: get(&f, "size_bytes").parse().unwrap_or(0),
                    detail: get(&f, "detail"),
                }
            })
            .collect(),
    )
}

/// Manifest rows of one kind.
pub fn entries(kind: &str) -> Option<Vec<Entry>> {
    Some(manifest()?.into_iter().filter(|e| e.kind == kind).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn detail_tokens() {
        let d = "package v61 lic0 flags=0x1 names=73 exports=12 imports=28";
        assert_eq!(super::detail_value(d, "names"), Some("73"));
        assert_eq!(super::detail_value(d, "flags"), Some("0x1"));
        assert_eq!(super::detail_value(d, "nope"), None);
    }

    #[test]
    fn manifest_matches_files() {
        let Some(rows) = super::manifest() else {
            return;
        };
        assert!(rows.len() > 200, "manifest has {} rows", rows.len());
        for r in rows {
            let meta = std::fs::metadata(&r.path).expect("corpus file exists");
            assert_eq!(meta.len(), r.size, "{}", r.local_path);
        }
    }
}
