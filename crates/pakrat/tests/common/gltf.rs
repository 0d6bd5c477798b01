//! The Khronos glTF-Validator (`tools/gltf-validate`, npm `gltf-validator`)
//! for the mesh export tests: skipped loudly without node and the npm
//! package, a failure under CI=true. Also a `.glb` reader (JSON and
//! binary chunks, accessors) and the winding check of the UE4/UE5 tests.

use std::path::{Path, PathBuf};
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

/// The JSON and BIN chunks of a `.glb`.
pub fn glb(path: &Path) -> (Value, Vec<u8>) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"glTF");
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&b[20..20 + n]).unwrap();
    let at = 20 + n;
    let m = u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    (json, b[at + 8..at + 8 + m].to_vec())
}

/// An accessor's values as f32 (`FLOAT`) or u32 (`UNSIGNED_INT`/`SHORT`).
pub fn accessor(j: &Value, bin: &[u8], i: u64) -> Vec<f64> {
    let a = &j["accessors"][i as usize];
    let v = &j["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start =
        (v["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let comps = match a["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        t => panic!("{t}"),
    };
    let n = a["count"].as_u64().unwrap() as usize * comps;
    let ct = a["componentType"].as_u64().unwrap();
    let size = match ct {
        5126 | 5125 => 4,
        5123 => 2,
        5121 => 1,
        _ => panic!("{ct}"),
    };
    let stride = v["byteStride"].as_u64().map(|s| s as usize);
    (0..n)
        .map(|k| {
            let at = match stride {
                Some(s) => start + (k / comps) * s + (k % comps) * size,
                None => start + k * size,
            };
            let b = &bin[at..at + size];
            match ct {
                5126 => f64::from(f32::from_le_bytes(b.try_into().unwrap())),
                5125 => f64::from(u32::from_le_bytes(b.try_into().unwrap())),
                5123 => f64::from(u16::from_le_bytes(b.try_into().unwrap())),
                _ => f64::from(b[0]),
            }
        })
        .collect()
}

/// Triangles whose counter-clockwise face normal points the way of the
/// stored vertex normals, of all.
pub fn winding(j: &Value, bin: &[u8]) -> (usize, usize) {
    let (mut agree, mut all) = (0, 0);
    for p in j["meshes"][0]["primitives"].as_array().unwrap() {
        let pos = accessor(j, bin, p["attributes"]["POSITION"].as_u64().unwrap());
        let nrm = accessor(j, bin, p["attributes"]["NORMAL"].as_u64().unwrap());
        let idx = accessor(j, bin, p["indices"].as_u64().unwrap());
        for t in idx.chunks_exact(3) {
            let v = |k: usize| {
                let i = t[k] as usize * 3;
                [pos[i], pos[i + 1], pos[i + 2]]
            };
            let (a, b, c) = (v(0), v(1), v(2));
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let f = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            let n: f64 = (0..3)
                .map(|k| {
                    let i = t[k] as usize * 3;
                    (0..3).map(|d| nrm[i + d] * f[d]).sum::<f64>()
                })
                .sum();
            all += 1;
            if n > 0.0 {
                agree += 1;
            }
        }
    }
    (agree, all)
}
