//! Helpers shared by the CLI tests. Every test file includes this module,
//! and not every file uses every helper.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

/// The AES key of the CUE4Parse encrypted fixtures: ASCII
/// `CUE4ParseFixtureAESKey0123456789` (corpus README, from CUE4Parse's
/// `FixtureTestUtilities.cs`).
pub const FIXTURE_KEY: &str = "0x435545345061727365466978747572654145534b657930313233343536373839";

/// The `pakrat` binary of this build.
pub fn pakrat() -> Command {
    Command::cargo_bin("pakrat").expect("pakrat binary")
}

/// Run `pakrat ARGS`, require success, and parse stdout as JSON.
pub fn json_ok(args: &[&str]) -> serde_json::Value {
    let out = pakrat().args(args).output().expect("run pakrat");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Every file below `dir` (not folders), by `/`-separated relative path,
/// with its bytes.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(dir, dir, &mut m);
    m
}

/// The relative paths of [`files`], sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    files(dir).into_keys().collect()
}
