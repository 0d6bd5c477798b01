//! `tests/ue_props_ref.py`, an independent reader of tagged UE4/UE5
//! properties written from the format notes (not from pakrat's code), reads
//! the tagged fixture packages; every value it reads must equal what
//! `pakrat props --json` prints. The LegacyPak fixtures (UE 5.8 and 6.0,
//! Uncompressed pak extracted), and the IoStore fixtures converted to legacy
//! packages by `zen to-legacy`.
//!
//! Object paths are compared with `:` and `.` alike below the first `:`:
//! the engine writes `Map.Map:PersistentLevel.Actor` (`:` before the first
//! subobject only), pakrat `Map.Map:PersistentLevel:Actor`.

mod common;

use std::path::{Path, PathBuf};

use common::{files, json_ok, ok, run, s};
use serde_json::Value;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ue_props_ref.py")
}

/// Object paths with every separator after the first `:` as `:`.
fn norm(s: &str) -> String {
    match (s.starts_with('/'), s.split_once(':')) {
        (true, Some((a, b))) => format!("{a}:{}", b.replace('.', ":")),
        _ => s.to_string(),
    }
}

/// JSON values equal, numbers by value (5 and 5.0 alike), strings with
/// [`norm`].
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::String(x), Value::String(y)) => norm(x) == norm(y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[derive(Debug, Default)]
struct Counts {
    packages: usize,
    exports: usize,
    /// Exports the reference reader could not read (a class with data
    /// before its properties).
    exports_unread: usize,
    compared: usize,
    skipped: usize,
    mismatches: Vec<String>,
}

/// Compare the reference reader and pakrat on every package below `dir`.
fn compare(dir: &Path, n: &mut Counts) {
    let pkgs: Vec<PathBuf> = files(dir)
        .into_keys()
        .filter(|r| r.ends_with(".uasset") || r.ends_with(".umap"))
        .map(|r| dir.join(r))
        .collect();
    let out = std::process::Command::new("python3")
        .arg(script())
        .args(&pkgs)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), pkgs.len());
    for (got, f) in lines.iter().zip(&pkgs) {
        assert!(got.get("error").is_none(), "{}: {got}", f.display());
        let want = json_ok(&["props", "--json", s(f)]);
        n.packages += 1;
        assert_eq!(got["package"], want["package"], "{}", f.display());
        let (ge, we) = (
            got["exports"].as_array().unwrap(),
            want["exports"].as_array().unwrap(),
        );
        assert_eq!(ge.len(), we.len(), "{}", f.display());
        for (g, w) in ge.iter().zip(we) {
            n.exports += 1;
            let at = format!("{} {}", f.display(), w["path"]);
            assert!(same(&g["path"], &w["path"]), "{at}: path {}", g["path"]);
            assert_eq!(g["class"], w["class"], "{at}");
            if g.get("error").is_some() {
                n.exports_unread += 1;
                continue;
            }
            let wp = w["properties"].as_array().unwrap();
            for (i, p) in g["properties"].as_array().unwrap().iter().enumerate() {
                if p.get("skipped").is_some() {
                    n.skipped += 1;
                    continue;
                }
                let q = wp.get(i).cloned().unwrap_or(Value::Null);
                let keys = ["name", "index", "type", "value"];
                if keys.iter().all(|k| same(&p[*k], &q[*k])) {
                    n.compared += 1;
                } else {
                    n.mismatches
                        .push(format!("{at}: reference {p} vs pakrat {q}"));
                }
            }
        }
    }
}

#[test]
fn the_reference_reader_agrees_on_the_legacy_pak_fixtures() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut n = Counts::default();
    for v in ["UE5_8", "UE6_0"] {
        let t = tempfile::tempdir().unwrap();
        let pak = c.join(format!(
            "pak/cue4parse/{v}/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
        ));
        ok(&["extract", "-q", s(&pak), "-o", s(t.path())]);
        compare(t.path(), &mut n);
    }
    eprintln!("LegacyPak: {n:?}");
    assert!(n.mismatches.is_empty(), "{:#?}", n.mismatches);
    // 5 packages a release; what the reference reader leaves (text
    // histories other than none/base, instanced structs) is counted.
    assert_eq!(n.packages, 10);
    assert_eq!(n.exports_unread, 0);
    assert!(n.compared >= 140, "{n:?}");
    assert!(n.skipped <= 12, "{n:?}");
}

#[test]
fn the_reference_reader_agrees_on_the_converted_iostore_fixtures() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut n = Counts::default();
    for (v, ue) in [("UE5_8", "5.8"), ("UE6_0", "6.0")] {
        let t = tempfile::tempdir().unwrap();
        let utoc = c.join(format!(
            "iostore/cue4parse/{v}/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
        ));
        // Packages importing engine packages outside the container are
        // not converted (exit code 1); the others are compared.
        let (_, out, err) = run(&[
            "zen",
            "to-legacy",
            "-q",
            "--ue-version",
            ue,
            s(&utoc),
            "-o",
            s(t.path()),
        ]);
        assert!(out.contains("converted"), "{out}{err}");
        compare(t.path(), &mut n);
    }
    eprintln!("IoStore converted: {n:?}");
    assert!(n.mismatches.is_empty(), "{:#?}", n.mismatches);
    assert!(n.packages >= 170, "{n:?}");
    assert!(n.compared >= 2000, "{n:?}");
    // Control Rig hierarchies and VMs, an NNE model: native data before
    // or inside the properties the reference reader does not know.
    assert!(n.exports_unread <= 10, "{n:?}");
}

#[test]
fn the_reference_reader_reads_what_asset_rename_wrote() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let utoc = c.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc");
    let (_, out, err) = run(&[
        "zen",
        "to-legacy",
        "-q",
        "--ue-version",
        "5.8",
        s(&utoc),
        "-o",
        s(t.path()),
    ]);
    assert!(out.contains("converted"), "{out}{err}");
    // Headers rewritten (27 packages) and moved (21).
    let v = json_ok(&[
        "asset",
        "rename",
        "/Game/Fixtures/Textures",
        "/Game/ModTextures",
        s(t.path()),
        "--json",
    ]);
    assert_eq!(v["packages_changed"], 27);
    let mut n = Counts::default();
    compare(t.path(), &mut n);
    eprintln!("after asset rename: {n:?}");
    assert!(n.mismatches.is_empty(), "{:#?}", n.mismatches);
    assert_eq!(n.packages, 90);
    assert!(n.compared >= 1000, "{n:?}");
}

/// The reference reader's values of export `name` of `file`, by property
/// name (`Name[i]` for a static array element past the first).
fn reference_values(file: &Path, name: &str) -> serde_json::Map<String, Value> {
    let out = std::process::Command::new("python3")
        .arg(script())
        .arg(file)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["path"]
                .as_str()
                .is_some_and(|p| p.ends_with(&format!(".{name}")))
        })
        .unwrap_or_else(|| panic!("{}: no export {name}: {j}", file.display()));
    e["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.get("skipped").is_none())
        .map(|p| {
            let n = p["name"].as_str().unwrap();
            let key = match p.get("index").and_then(Value::as_u64) {
                Some(i) if i > 0 => format!("{n}[{i}]"),
                _ => n.to_string(),
            };
            (key, p["value"].clone())
        })
        .collect()
}

/// Issue 26's edits, made with `props set` on the tagged UE 5.8
/// `DA_AllProperties` (a scalar, a longer string, a grown array, a new map
/// entry, a new name, a new object reference), read back by the
/// reference reader: each has its new value, every other value it reads is
/// unchanged, and the whole package still agrees with `pakrat props`.
#[test]
fn the_reference_reader_reads_what_props_set_wrote() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let pak = c.join(
        "pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak",
    );
    let src = t.path().join("src");
    ok(&["extract", "-q", s(&pak), "-o", s(&src)]);
    let da = src.join("Properties/DA_AllProperties.uasset");
    let out = t.path().join("out");
    let edited = out.join("DA_AllProperties.uasset");
    let before = reference_values(&da, "DA_AllProperties");
    ok(&[
        "props",
        "set",
        s(&da),
        "Integer=7",
        "String=A string made much longer than it was",
        "IntegerArray[4]=55",
        "IntegerMap[\"Added\"]=9",
        "Name=A_Brand_New_Name",
        "HardTextureReference=/Game/Fixtures/Textures/T_BC6H.T_BC6H",
        "-o",
        s(&edited),
    ]);
    let after = reference_values(&edited, "DA_AllProperties");
    let mut want = before.clone();
    want["Integer"] = 7.into();
    want["String"] = "A string made much longer than it was".into();
    let arr = want["IntegerArray"].as_array_mut().unwrap();
    assert_eq!(arr.len(), 4, "the fixture's array");
    arr.push(55.into());
    want["Name"] = "A_Brand_New_Name".into();
    want["HardTextureReference"] = "/Game/Fixtures/Textures/T_BC6H.T_BC6H".into();
    // The map entry: the reference reader's own form of the map, with the
    // new pair last.
    let map = after["IntegerMap"]
        .as_array()
        .expect("a map the reader reads");
    let old = before["IntegerMap"].as_array().unwrap();
    assert_eq!(map.len(), old.len() + 1, "{map:?}");
    assert_eq!(&map[..old.len()], &old[..]);
    let last = serde_json::to_string(&map[old.len()]).unwrap();
    assert!(last.contains("\"Added\"") && last.contains('9'), "{last}");
    want["IntegerMap"] = after["IntegerMap"].clone();
    assert_eq!(after.len(), want.len(), "the same properties");
    for (k, v) in &want {
        assert!(
            after.get(k).is_some_and(|a| same(a, v)),
            "{k}: reference reads {:?}, expected {v}",
            after.get(k)
        );
    }
    // And the whole edited package agrees with pakrat's reading of it.
    let mut n = Counts::default();
    compare(&out, &mut n);
    assert!(n.mismatches.is_empty(), "{:#?}", n.mismatches);
    assert_eq!(n.packages, 1);
}
