//! Helpers shared by the CLI tests. Every test file includes this module,
//! and not every file uses every helper.
#![allow(dead_code)]

pub mod gltf;

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

/// A path as a command-line argument (the tests' paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run `pakrat ARGS`: the exit code (-1 when killed by a signal), stdout
/// and stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    output(pakrat().args(args))
}

/// [`run`] in the folder `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    output(pakrat().current_dir(dir).args(args))
}

fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run `pakrat ARGS`; the exit code and stdout parsed as one JSON value.
pub fn run_json(args: &[&str]) -> (i32, serde_json::Value) {
    let out = pakrat().args(args).output().expect("run pakrat");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON value ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// Run `pakrat ARGS`, require success, and return stdout.
pub fn ok(args: &[&str]) -> String {
    let out = pakrat().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Copy a file, making the folders it goes into.
pub fn copy(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
    std::fs::copy(src, dst)
        .unwrap_or_else(|e| panic!("copy {} -> {}: {e}", src.display(), dst.display()));
}

/// Copy every file below `from` to the same place below `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for (rel, data) in files(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
}

/// The names in a folder (not below it), sorted; none when it cannot be
/// read.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One variant of the CUE4Parse fixture project (UE 5.8 or 6.0, Tagged or
/// Unversioned): its legacy pak, IoStore containers, global container and
/// mappings.
pub struct Fixture {
    /// `UE5_8 Tagged` …
    pub label: String,
    /// The engine release (`--ue-version`).
    pub engine: &'static str,
    /// Tagged (else Unversioned) properties.
    pub tagged: bool,
    /// The uncompressed legacy pak.
    pub legacy_pak: std::path::PathBuf,
    /// The uncompressed IoStore container.
    pub utoc: std::path::PathBuf,
    /// The AES-encrypted Oodle container ([`FIXTURE_KEY`]).
    pub encrypted: std::path::PathBuf,
    /// The global container beside them.
    pub global: std::path::PathBuf,
    /// The project's uncompressed `.usmap`.
    pub usmap: std::path::PathBuf,
}

/// The four fixture variants, `None` without the corpus.
pub fn fixtures() -> Option<Vec<Fixture>> {
    let c = pakrat_testkit::corpus_dir()?;
    let mut v = Vec::new();
    for (engine, release) in [("UE5_8", "5.8"), ("UE6_0", "6.0")] {
        for mode in ["Tagged", "Unversioned"] {
            let io = c.join(format!("iostore/cue4parse/{engine}/IoStore/{mode}"));
            v.push(Fixture {
                label: format!("{engine} {mode}"),
                engine: release,
                tagged: mode == "Tagged",
                legacy_pak: c.join(format!(
                    "pak/cue4parse/{engine}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
                )),
                utoc: io.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
                encrypted: io.join(
                    "OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc",
                ),
                global: io.join("global.utoc"),
                usmap: c.join(format!(
                    "pak/cue4parse/{engine}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
                )),
            });
        }
    }
    Some(v)
}
