//! `pakrat asset rename` on the CUE4Parse fixtures converted to legacy
//! packages: one package renamed (its importers follow), then the whole
//! texture folder: no package names the old path any more, every package
//! decodes as before, the files moved, and the folder converted with `zen
//! from-legacy` and packed with `iostore create` verifies. A dry run writes
//! nothing; a new path outside the folder's layout is refused before
//! anything is written.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{files, json_ok, run, s};

const OLD: &str = "/Game/Fixtures/Textures";
const NEW: &str = "/Game/ModTextures";

/// The UE5_8 Tagged IoStore fixture as legacy packages in `dir`.
fn converted(dir: &Path) -> Option<PathBuf> {
    let c = pakrat_testkit::corpus_dir()?;
    let utoc = c.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc");
    // 7 packages import engine packages that are in no container given:
    // they are not converted (exit code 1), the other 90 are.
    let (_, out, err) = run(&[
        "zen",
        "to-legacy",
        "-q",
        "--ue-version",
        "5.8",
        s(&utoc),
        "-o",
        s(dir),
    ]);
    assert!(out.contains("converted 90 of 97 packages"), "{out}{err}");
    Some(dir.join("CUE4ParseFixtures/Content"))
}

/// Export count and decode errors of every package below `dir`, by the
/// package name.
fn decoded(dir: &Path) -> BTreeMap<String, (usize, usize)> {
    let mut out = BTreeMap::new();
    for rel in files(dir).into_keys() {
        if !(rel.ends_with(".uasset") || rel.ends_with(".umap")) {
            continue;
        }
        let v = json_ok(&["props", "--json", s(&dir.join(&rel))]);
        let ex = v["exports"].as_array().unwrap();
        let errors = ex.iter().filter(|e| !e["error"].is_null()).count();
        out.insert(
            v["package"].as_str().unwrap().to_string(),
            (ex.len(), errors),
        );
    }
    out
}

/// Whether any file below `dir` holds `text` (8-bit or UTF-16, any case).
fn named_in(dir: &Path, text: &str) -> Vec<String> {
    let narrow = text.to_ascii_lowercase().into_bytes();
    let wide: Vec<u8> = narrow.iter().flat_map(|&b| [b, 0]).collect();
    files(dir)
        .into_iter()
        .filter(|(_, d)| {
            let d = d.to_ascii_lowercase();
            [&narrow, &wide]
                .iter()
                .any(|n| d.windows(n.len()).any(|w| w == n.as_slice()))
        })
        .map(|(k, _)| k)
        .collect()
}

#[test]
fn one_package_renamed_and_its_importers_follow() {
    let t = tempfile::tempdir().unwrap();
    let Some(content) = converted(t.path()) else {
        return;
    };
    let dir = t.path();
    let old = "/Game/Fixtures/Textures/T_BC3";
    let before = files(dir);
    let v = json_ok(&[
        "asset",
        "rename",
        old,
        "/Game/Mod/T_Red",
        s(dir),
        "--dry-run",
        "--json",
    ]);
    assert_eq!(files(dir), before, "a dry run writes nothing");
    let pk: Vec<&str> = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    // The texture itself and the three packages that use it.
    assert_eq!(
        pk,
        [
            "CUE4ParseFixtures/Content/Fixtures/Effects/NS_Fixture.uasset",
            "CUE4ParseFixtures/Content/Fixtures/Materials/MI_Fixture.uasset",
            "CUE4ParseFixtures/Content/Fixtures/Materials/M_Fixture.uasset",
            "CUE4ParseFixtures/Content/Fixtures/Textures/T_BC3.uasset",
        ]
    );
    let tex = &v["packages"][3];
    assert_eq!(
        tex["moved_to"],
        "CUE4ParseFixtures/Content/Mod/T_Red.uasset"
    );
    assert_eq!(
        tex["files_moved"][0],
        serde_json::json!([
            "CUE4ParseFixtures/Content/Fixtures/Textures/T_BC3.uexp",
            "CUE4ParseFixtures/Content/Mod/T_Red.uexp"
        ])
    );
    let ch = tex["changes"].as_array().unwrap();
    assert!(ch
        .iter()
        .any(|c| c["field"] == "package name" && c["new"] == "/Game/Mod/T_Red"));

    json_ok(&["asset", "rename", old, "/Game/Mod/T_Red", s(dir), "--json"]);
    let moved = content.join("Mod/T_Red.uasset");
    assert!(moved.is_file() && content.join("Mod/T_Red.uexp").is_file());
    assert!(!content.join("Fixtures/Textures/T_BC3.uasset").exists());
    assert!(!content.join("Fixtures/Textures/T_BC3.uexp").exists());
    // The header reads back under its new name; its export data is the
    // original .uexp, unchanged.
    let info = json_ok(&["info", "--json", s(&moved)]);
    assert_eq!(info["package"], "/Game/Mod/T_Red");
    assert_eq!(
        std::fs::read(content.join("Mod/T_Red.uexp")).unwrap(),
        before["CUE4ParseFixtures/Content/Fixtures/Textures/T_BC3.uexp"]
    );
    // The material instance's texture parameter now names the new path.
    let mi = json_ok(&[
        "props",
        "--json",
        s(&content.join("Fixtures/Materials/MI_Fixture.uasset")),
    ]);
    let text = mi.to_string();
    assert!(text.contains("/Game/Mod/T_Red.T_BC3"), "{text}");
    assert!(!text.contains(old), "{text}");
    assert!(named_in(dir, "Textures/T_BC3").is_empty());
}

#[test]
fn texture_folder_renamed_across_the_fixture() {
    let t = tempfile::tempdir().unwrap();
    let Some(content) = converted(&t.path().join("src")) else {
        return;
    };
    let dir = t.path().join("src");
    let before = decoded(&dir);
    assert_eq!(before.len(), 90);
    let users = named_in(&dir, OLD);
    assert_eq!(users.len(), 27, "{users:?}");

    let v = json_ok(&["asset", "rename", OLD, NEW, s(&dir), "--json"]);
    assert_eq!(v["packages_read"], 90);
    assert_eq!(v["packages_changed"], 27);
    assert_eq!(v["packages_moved"], 21);

    // Nothing names the old path; every package decodes as it did, the
    // textures under their new names.
    assert_eq!(named_in(&dir, OLD), Vec::<String>::new());
    let after = decoded(&dir);
    let renamed: BTreeMap<String, (usize, usize)> = before
        .iter()
        .map(|(k, v)| {
            let k = k.replacen(OLD, NEW, 1);
            (k, *v)
        })
        .collect();
    assert_eq!(after, renamed);
    assert!(after.values().all(|&(_, e)| e == 0));
    assert!(!content.join("Fixtures/Textures").exists());
    for f in [
        "T_BC1.uasset",
        "T_BC1.uexp",
        "T_Streaming.ubulk",
        "T_Virtual.ubulk",
    ] {
        assert!(content.join("ModTextures").join(f).is_file(), "{f}");
    }

    // Converted to zen packages and packed again with `iostore create`,
    // the container verifies.
    let zen = t.path().join("zen");
    json_ok(&[
        "zen",
        "from-legacy",
        "-q",
        "--ue-version",
        "5.8",
        s(&dir),
        "-o",
        s(&zen),
        "--json",
    ]);
    let utoc = t.path().join("mod/Mod_P.utoc");
    json_ok(&[
        "iostore",
        "create",
        "-q",
        "--ue-version",
        "5.8",
        s(&zen),
        "-o",
        s(&utoc),
        "--json",
    ]);
    let (code, out, err) = run(&["verify", s(&utoc)]);
    assert_eq!(code, 0, "{out}{err}");
    let list = json_ok(&["packages", "--json", s(&utoc)]).to_string();
    assert!(list.contains("/Game/ModTextures/T_BC1"));
    assert!(!list.contains(OLD));
}

#[test]
fn a_new_path_outside_the_folder_is_refused_before_writing() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let pak = c.join("pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak");
    // The pak mounts at Content/Fixtures/: the folder starts there.
    common::ok(&["extract", "-q", s(&pak), "-o", s(t.path())]);
    let before = files(t.path());
    let (code, _, err) = run(&["asset", "rename", OLD, NEW, s(t.path())]);
    assert_ne!(code, 0);
    assert!(err.contains("would lie outside it"), "{err}");
    assert_eq!(files(t.path()), before);
    // Inside the layout it works: the folder's packages hang from
    // /Game/Fixtures.
    let v = json_ok(&[
        "asset",
        "rename",
        OLD,
        "/Game/Fixtures/ModTextures",
        s(t.path()),
        "--json",
    ]);
    assert_eq!(v["packages_moved"], 2);
    assert!(t.path().join("ModTextures/T_BC6H.uasset").is_file());
    assert!(named_in(t.path(), OLD).is_empty());
    let (code, a, b) = run(&["props", s(&t.path().join("ModTextures/T_BC6H.uasset"))]);
    assert_eq!(code, 0, "{a}{b}");
}

/// Every folder below `dir`, relative.
fn folders(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
                todo.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A run that fails midway (an I/O error injected at the Nth step: while
/// staging the new files, putting them in place, moving companions or
/// removing the old files) is undone: every file and folder is as it was.
#[test]
fn a_run_failing_midway_leaves_the_folder_as_it_was() {
    let t = tempfile::tempdir().unwrap();
    let Some(content) = converted(t.path()) else {
        return;
    };
    let snapshot = || (files(t.path()), folders(t.path()));
    let before = snapshot();
    let mut phases = std::collections::BTreeSet::new();
    // 27 packages are rewritten (21 moved): 105 steps in all (27 staged
    // files, then 78 renames).
    for n in [1, 20, 27, 28, 40, 55, 60, 75, 90, 105] {
        let out = common::pakrat()
            .env("PAKRAT_TEST_RENAME_FAIL_AT", n.to_string())
            .args(["asset", "rename", OLD, NEW, s(&content)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "step {n} did not fail");
        assert!(err.contains("the folder is as it was"), "step {n}: {err}");
        let phase = err
            .split("as it was: ")
            .nth(1)
            .and_then(|x| x.split(' ').next())
            .unwrap()
            .to_string();
        phases.insert(phase);
        assert!(
            snapshot() == before,
            "step {n} left the folder changed: {err}"
        );
    }
    let want = ["moving", "removing", "setting", "staging", "writing"];
    assert_eq!(phases.into_iter().collect::<Vec<_>>(), want);
    // Past the last step, the run completes.
    let out = common::pakrat()
        .env("PAKRAT_TEST_RENAME_FAIL_AT", "106")
        .args(["asset", "rename", OLD, NEW, s(&content)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(content.join("ModTextures/T_BC6H.uasset").is_file());
    assert!(named_in(&content, "/Game/Fixtures/Textures/").is_empty());
}

/// An unversioned package whose properties hold the old path as text (a
/// string planted with `props set`) is rewritten with the mappings
/// (`--usmap`); without them the run stops, says why, and writes nothing.
#[test]
fn unversioned_strings_renamed_with_usmap() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let pak = c.join("pak/cue4parse/UE5_8/LegacyPak/Unversioned/Uncompressed/CUE4ParseFixtures-Legacy-Unversioned-Uncompressed.pak");
    let usmap = c.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    common::ok(&["extract", "-q", s(&pak), "-o", s(t.path())]);
    let da = t.path().join("Properties/DA_AllProperties.uasset");
    let ue = ["--ue-version", "5.8", "--usmap", s(&usmap)];
    let mut set = vec![
        "props",
        "set",
        s(&da),
        "String=/Game/Fixtures/Textures/T_BC7.T_BC7",
    ];
    set.extend(ue);
    set.push("--in-place");
    common::ok(&set);
    let new = "/Game/Fixtures/ModTextures";
    let before = files(t.path());
    let (code, _, err) = run(&[
        "asset",
        "rename",
        OLD,
        new,
        s(t.path()),
        "--ue-version",
        "5.8",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--usmap") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(files(t.path()), before);
    let mut args = vec!["asset", "rename", OLD, new, s(t.path()), "--json"];
    args.extend(ue);
    let v = json_ok(&args);
    assert_eq!(v["packages_changed"], 3);
    let ch = v["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["file"] == "Properties/DA_AllProperties.uasset")
        .unwrap()["changes"]
        .to_string();
    assert!(
        ch.contains("/Game/Fixtures/ModTextures/T_BC7.T_BC7"),
        "{ch}"
    );
    assert!(named_in(t.path(), OLD).is_empty());
    let mut props = vec!["props", "--json", s(&da)];
    props.extend(ue);
    let p = json_ok(&props).to_string();
    assert!(
        p.contains("\"/Game/Fixtures/ModTextures/T_BC7.T_BC7\""),
        "{p}"
    );
}
