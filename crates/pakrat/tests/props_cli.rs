//! `pakrat props` on UE4/UE5 packages in every form (issue 25 items 4 and
//! 5): a loose `.uasset`/`.umap`, a package in a `.pak` or a folder of
//! paks, a zen package in an IoStore container (plain and encrypted), each
//! found by package path or file path; and the errors: no such package, no
//! global container, no such object, a container without a package
//! argument. What the exports hold is `props_decode_cli.rs`'s; here the
//! envelope: the same exports (paths, classes, outers) from every form.

mod common;

use std::path::Path;

use common::{fixtures, pakrat, run, s, FIXTURE_KEY};
use serde_json::Value;

const DA: &str = "/Game/Fixtures/Properties/DA_AllProperties";

/// The JSON of a run that may exit 0 or 1 (1: an export has an error,
/// which the decoder decides); anything else fails the test.
fn props_json(args: &[&str]) -> Value {
    let out = pakrat().args(args).arg("--json").output().unwrap();
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "{args:?}: exit {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// (name, path, class, outer) of each export.
fn envelope(j: &Value) -> Vec<[String; 4]> {
    j["exports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            [
                e["name"].as_str().unwrap().to_string(),
                e["path"].as_str().unwrap().to_string(),
                e["class"].as_str().unwrap().to_string(),
                e["outer"].as_str().unwrap_or("null").to_string(),
            ]
        })
        .collect()
}

fn extract(pak: &Path, to: &Path) {
    let (code, _, err) = run(&["extract", s(pak), "-o", s(to), "--force", "-q"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn every_form_finds_the_same_exports() {
    let Some(fs) = fixtures() else { return };
    for f in &fs {
        let ue = ["--ue-version", f.engine];
        let zen = props_json(&["props", s(&f.utoc), DA]);
        assert_eq!(zen["kind"], "iostore", "{}", f.label);
        assert_eq!(zen["package"], DA, "{}", f.label);
        let exports = envelope(&zen);
        let root = format!("{DA}.DA_AllProperties");
        assert!(
            exports.iter().any(|e| e[1] == root
                && e[2] == "/Script/CUE4ParseFixtures.ParserFixtureData"
                && e[3] == "null"),
            "{}: {exports:?}",
            f.label
        );
        assert!(
            exports
                .iter()
                .any(|e| e[1] == format!("{root}:InlineFixture") && e[3] == root),
            "{}: {exports:?}",
            f.label
        );
        // The same from the encrypted container, with the key.
        let enc = props_json(&["props", s(&f.encrypted), DA, "--aes-key", FIXTURE_KEY]);
        assert_eq!(envelope(&enc), exports, "{} encrypted", f.label);
        // The legacy pak, by package path and by file path; a folder of paks.
        let mut a = vec!["props", s(&f.legacy_pak), DA];
        a.extend(ue);
        let pak = props_json(&a);
        assert_eq!(pak["kind"], "pak");
        let mut sorted = envelope(&pak);
        sorted.sort();
        let mut want = exports.clone();
        want.sort();
        assert_eq!(sorted, want, "{} pak", f.label);
        // The encrypted, Oodle-compressed legacy pak, with the key.
        let enc_pak = s(&f.legacy_pak).replace("Uncompressed", "OodleEncrypted");
        let mut a = vec!["props", &enc_pak, DA, "--aes-key", FIXTURE_KEY];
        a.extend(ue);
        assert_eq!(
            envelope(&props_json(&a)),
            envelope(&pak),
            "{} encrypted pak",
            f.label
        );
        let mut a = vec![
            "props",
            s(&f.legacy_pak),
            "Properties/DA_AllProperties.uasset",
        ];
        a.extend(ue);
        assert_eq!(
            envelope(&props_json(&a)),
            envelope(&pak),
            "{} by file",
            f.label
        );
        let dir = f.legacy_pak.parent().unwrap();
        let mut a = vec!["props", s(dir), DA];
        a.extend(ue);
        assert_eq!(
            envelope(&props_json(&a)),
            envelope(&pak),
            "{} folder",
            f.label
        );
        // Loose files, the .uexp beside.
        let t = tempfile::tempdir().unwrap();
        extract(&f.legacy_pak, t.path());
        let loose = t.path().join("Properties/DA_AllProperties.uasset");
        let mut a = vec!["props", s(&loose)];
        a.extend(ue);
        let l = props_json(&a);
        assert_eq!(l["kind"], "legacy");
        assert_eq!(envelope(&l), envelope(&pak), "{} loose", f.label);
        // A folder of loose packages, by package path or file path.
        for q in [DA, "Properties/DA_AllProperties.uasset"] {
            let mut a = vec!["props", s(t.path()), q];
            a.extend(ue);
            let j = props_json(&a);
            assert_eq!(j["kind"], "legacy", "{q}");
            assert_eq!(envelope(&j), envelope(&pak), "{} loose folder {q}", f.label);
        }
        let mut a = vec!["props", s(dir), DA];
        a.extend(ue);
        assert_eq!(props_json(&a)["kind"], "pak");
        // One object, by name or by full path.
        let mut a = vec!["props", s(&loose), "InlineFixture"];
        a.extend(ue);
        let one = envelope(&props_json(&a));
        assert_eq!(one.len(), 1);
        assert_eq!(one[0][0], "InlineFixture");
        let full = format!("{root}:InlineFixture");
        let one = envelope(&props_json(&["props", s(&f.utoc), DA, &full]));
        assert_eq!(one.len(), 1, "{}", f.label);
    }
}

#[test]
fn text_output_has_a_header_line_per_export() {
    let Some(fs) = fixtures() else { return };
    let f = &fs[0];
    let out = pakrat().args(["props", s(&f.utoc), DA]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().any(|l| l
            == "/Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties (/Script/CUE4ParseFixtures.ParserFixtureData)"),
        "{text}"
    );
    assert!(
        text.lines()
            .filter(|l| !l.is_empty())
            .all(|l| !l.starts_with(' ') || l.starts_with("  ")),
        "{text}"
    );
}

#[test]
fn a_missing_package_names_the_container() {
    let Some(fs) = fixtures() else { return };
    let f = &fs[0];
    for (file, q) in [
        (&f.utoc, "/Game/Nope/Missing"),
        (&f.legacy_pak, "/Game/Nope/Missing"),
    ] {
        let (code, out, err) = run(&["props", s(file), q, "--ue-version", f.engine]);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains(&format!("no package {q}")), "{err}");
        assert!(
            err.contains(file.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
    }
    // A container and no package at all.
    let (code, _, err) = run(&["props", s(&f.utoc)]);
    assert_eq!(code, 2);
    assert!(err.contains("name the package"), "{err}");
    // An object the package does not have.
    let (code, _, err) = run(&["props", s(&f.utoc), DA, "NoSuchExport"]);
    assert_eq!(code, 2);
    assert!(err.contains("no export NoSuchExport"), "{err}");
}

#[test]
fn a_missing_global_container_is_an_error() {
    let Some(fs) = fixtures() else { return };
    let f = &fs[0];
    // The container alone in a folder: no global.utoc beside or above.
    let t = tempfile::tempdir().unwrap();
    let utoc = t.path().join("c.utoc");
    std::fs::copy(&f.utoc, &utoc).unwrap();
    std::fs::copy(f.utoc.with_extension("ucas"), t.path().join("c.ucas")).unwrap();
    let (code, out, err) = run(&["props", s(&utoc), DA]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("no global.utoc beside it or in a parent folder") && err.contains("--global"),
        "{err}"
    );
    // --global names it.
    let j = props_json(&["props", s(&utoc), DA, "--global", s(&f.global)]);
    assert_eq!(j["package"], DA);
    // --global naming something else is an error naming it.
    let (code, _, err) = run(&["props", s(&utoc), DA, "--global", s(&utoc)]);
    assert_eq!(code, 2);
    assert!(err.contains("--global") && err.contains("c.utoc"), "{err}");
}

#[test]
fn ue1_and_ue2_packages_take_an_object_or_print_every_export() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let utx = c.join("ue1/Faces.utx");
    let (code, one, _) = run(&["props", s(&utx), "ivana"]);
    assert_eq!(code, 0);
    assert!(one.contains("[Texture'ivana']"), "{one}");
    // Without OBJECT: every export with properties, ivana among them.
    let (code, all, err) = run(&["props", s(&utx)]);
    assert_eq!(code, 0, "{err}");
    assert!(all.contains("[Texture'ivana']"), "{all}");
    assert!(all.len() > one.len(), "{all}");
    // A second name is for containers only.
    let (code, _, err) = run(&["props", s(&utx), "ivana", "more"]);
    assert_eq!(code, 2);
    assert!(err.contains("takes one OBJECT"), "{err}");
}

/// docs/properties.schema.json parses, and what `props --json` prints
/// keeps to it where a check needs no validator: the document's and each
/// export's required keys are there and no key is one the schema lacks.
/// (The full schema was checked with Python's `jsonschema` when written;
/// no maintained Rust validator is cheap enough to add for one test.)
#[test]
fn json_keeps_to_the_schema() {
    let Some(fs) = fixtures() else { return };
    let root = pakrat_testkit::repo_root();
    let text = std::fs::read_to_string(root.join("docs/properties.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    for def in [
        "export",
        "property",
        "value",
        "text",
        "format_arg",
        "map_entry",
    ] {
        assert!(schema["$defs"].get(def).is_some(), "$defs.{def}");
    }
    let ue1 = pakrat_testkit::corpus_dir().unwrap().join("ue1/Faces.utx");
    let zen = props_json(&["props", s(&fs[0].utoc), "/Game/Fixtures/Maps/Empty"]);
    keeps_to(&schema, &zen, 5);
    // UE1/UE2 share the envelope.
    keeps_to(&schema, &props_json(&["props", s(&ue1), "ivana"]), 1);
}

fn keeps_to(schema: &Value, j: &Value, exports_expected: usize) {
    let keys = |v: &Value| -> Vec<String> {
        v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    let required = |v: &Value| -> Vec<String> {
        v["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_string())
            .collect()
    };
    let export = &schema["$defs"]["export"];
    let top: Vec<String> = j.as_object().unwrap().keys().cloned().collect();
    for k in required(schema) {
        assert!(top.contains(&k), "document lacks {k}");
    }
    for k in &top {
        assert!(
            keys(schema).contains(k),
            "document key {k} not in the schema"
        );
    }
    let exports = j["exports"].as_array().unwrap();
    assert_eq!(exports.len(), exports_expected);
    for e in exports {
        let ek: Vec<String> = e.as_object().unwrap().keys().cloned().collect();
        for k in required(export) {
            assert!(ek.contains(&k), "export lacks {k}: {e}");
        }
        for k in &ek {
            assert!(keys(export).contains(k), "export key {k} not in the schema");
        }
    }
}
