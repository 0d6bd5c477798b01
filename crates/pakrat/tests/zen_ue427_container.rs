//! `zen from-legacy --into` of UE 4.27 packages (issue 30 item 1): the UE
//! 4.27 container around the converted zen packages (TOC v3, the UE4
//! container header with each package's store entry), read back by pakrat.
//! The zenpair UE 4.27 twin `TestModUI` (legacy cook and the engine's zen
//! package) is the referee; retoc's reading of the same container is in
//! docs/zen-legacy.md (checked by hand: retoc is not part of the tests).

mod common;

use std::path::{Path, PathBuf};

use common::{json_ok, pakrat, s};
use predicates::prelude::*;

/// The twin placed as a mod's cook lays it out: `<Game>/Content/…`.
fn mod_folder(tmp: &Path, twin: &Path) -> PathBuf {
    let src = tmp.join("Mod/FSD/Content/_AssemblyStorm/TestMod");
    std::fs::create_dir_all(&src).unwrap();
    for f in ["TestModUI.uasset", "TestModUI.uexp"] {
        std::fs::copy(twin.join(f), src.join(f)).unwrap();
    }
    tmp.join("Mod")
}

const PACKAGE: &str = "FSD/Content/_AssemblyStorm/TestMod/TestModUI.uasset";

#[test]
fn from_legacy_into_writes_the_ue427_container() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let twin = c.join("zenpair/retoc/UE4.27");
    let tmp = tempfile::tempdir().unwrap();
    let src = mod_folder(tmp.path(), &twin);
    let utoc = tmp.path().join("Mod_P.utoc");
    pakrat()
        .args(["zen", "from-legacy", s(&src), "--into", s(&utoc)])
        .args(["--ue-version", "4.27", "-q"])
        .assert()
        .success();
    // TOC v3, UE4 chunk numbering, one package.
    let info = json_ok(&["info", "--json", s(&utoc)]);
    assert_eq!(info["version"], 3, "{info}");
    let list = json_ok(&["list", "--chunks", "--json", s(&utoc)]);
    let types: Vec<&str> = list["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["ExportBundleData", "ContainerHeader"], "{list}");
    pakrat().args(["verify", s(&utoc)]).assert().success();
    // The package comes back as the engine's zen package, byte for byte.
    let x = tmp.path().join("x");
    pakrat()
        .args(["extract", "--chunks", "-q", s(&utoc), "-o", s(&x)])
        .assert()
        .success();
    let zen = std::fs::read(x.join(PACKAGE)).unwrap();
    assert!(zen == std::fs::read(twin.join("TestModUI.uzenasset")).unwrap());
    // The container header: the container's id, the package's store entry
    // as the engine's container held it (but LoadOrder: 0, the only
    // package), with the imported packages in the engine's order.
    let chunks: Vec<PathBuf> = std::fs::read_dir(x.join("_chunks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(chunks.len(), 1);
    let h = pakrat_iostore::container_header::parse(&std::fs::read(&chunks[0]).unwrap()).unwrap();
    assert_eq!(h.form, pakrat_iostore::container_header::HeaderForm::Ue4);
    assert_eq!(h.container_id, pakrat_codec::names::container_id("Mod_P"));
    let id = pakrat_codec::names::package_id("/Game/_AssemblyStorm/TestMod/TestModUI");
    assert_eq!(h.package_ids, [id]);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(twin.join("TestModUI.metadata.json")).unwrap())
            .unwrap();
    let want = &meta["store_entry"];
    let e = &h.store_entries[0];
    assert_eq!(e.export_bundles_size, want["export_bundles_size"].as_u64());
    assert_eq!(e.export_count.map(i64::from), want["export_count"].as_i64());
    assert_eq!(
        e.export_bundle_count.map(i64::from),
        want["export_bundle_count"].as_i64()
    );
    assert_eq!(e.load_order, Some(0));
    let imports: Vec<u64> = want["imported_packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(e.imported_packages, imports);
    // pakrat's package listing reads the package through that entry.
    let p = json_ok(&["packages", "--json", s(&utoc)]);
    assert!(
        p.to_string()
            .contains("/Game/_AssemblyStorm/TestMod/TestModUI"),
        "{p}"
    );

    // `-o DIR` writes the store entries beside the packages, and `iostore
    // create` of that folder gives the same container.
    let dir = tmp.path().join("zen");
    pakrat()
        .args(["zen", "from-legacy", s(&src), "-o", s(&dir)])
        .args(["--ue-version", "4.27", "-q"])
        .assert()
        .success();
    assert!(dir
        .join("_chunks/00000000000000000000000a.ContainerHeader")
        .is_file());
    for (sub, release) in [("a", Some("4.27")), ("b", None)] {
        let again = tmp.path().join(sub).join("Mod_P.utoc");
        let mut cmd = pakrat();
        cmd.args(["iostore", "create", s(&dir), "-o", s(&again), "-q"]);
        if let Some(r) = release {
            cmd.args(["--ue-version", r]);
        }
        cmd.assert().success();
        for ext in ["utoc", "ucas", "pak"] {
            assert!(
                std::fs::read(again.with_extension(ext)).unwrap()
                    == std::fs::read(utoc.with_extension(ext)).unwrap(),
                "{sub}: .{ext} differs from the one --into wrote"
            );
        }
    }
}

/// What cannot go with UE 4.27 packages is refused by name, and nothing is
/// written: a base container (its header would replace the packages'
/// entries), another release.
#[test]
fn from_legacy_into_ue427_refusals() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let twin = c.join("zenpair/retoc/UE4.27");
    let tmp = tempfile::tempdir().unwrap();
    let src = mod_folder(tmp.path(), &twin);
    let first = tmp.path().join("First_P.utoc");
    pakrat()
        .args(["zen", "from-legacy", s(&src), "--into", s(&first)])
        .args(["--ue-version", "4.27", "-q"])
        .assert()
        .success();
    let utoc = tmp.path().join("Mod_P.utoc");
    pakrat()
        .args(["zen", "from-legacy", s(&src), "--into", s(&utoc)])
        .args(["--ue-version", "4.27", "--base", s(&first)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--base with UE 4.27 packages"));
    assert!(!utoc.exists());
}
