//! The Khronos glTF-Validator (`tools/gltf-validate`, npm `gltf-validator`)
//! for the mesh export tests: skipped loudly without node and the npm
//! package, a failure under CI=true.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// The validator script, if node and the npm package are installed.
pub fn validator() -> Option<(PathBuf, PathBuf)> {
    let dir = pakrat_testkit::repo_root().join("tools/gltf-validate");
    let node = ["/usr/bin/node", "/usr/local/bin/node"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    let ok = dir.join("node_modules/gltf-validator").is_dir();
    match node {
        Some(n) if ok => Some((n, dir.join("validate.js"))),
        _ => {
            let why = format!(
                "glTF validator missing (node: {}, {}/node_modules/gltf-validator: {}); run `npm ci` in tools/gltf-validate",
                node.is_some(),
                dir.display(),
                ok
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{why} (CI=true: the validator must run)");
            }
            eprintln!("\n**** SKIPPING glTF validation: {why} ****\n");
            None
        }
    }
}

/// Validator reports, one per file (empty when the validator is missing
/// outside CI).
pub fn validate(files: &[PathBuf]) -> Vec<Value> {
    let Some((node, script)) = validator() else {
        return Vec::new();
    };
    let o = Command::new(node).arg(script).args(files).output().unwrap();
    assert!(
        o.status.success(),
        "validator: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
