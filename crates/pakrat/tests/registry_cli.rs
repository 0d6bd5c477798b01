//! AssetRegistry.bin through the CLI (issue 30 item 5): the registry
//! `extract` takes out of the fixture pak is detected by `info`/`list`/
//! `verify`, `registry list` gives its assets with classes and tags, and
//! `registry merge` writes a registry that reads back, the same bytes when
//! merged again, never over an existing file without `--force`.

mod common;

use common::{json_ok, run, s};

const GAME: &str =
    "pak/cue4parse/UE5_8/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak";
const MOD: &str = "pak/cue4parse/UE6_0/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak";

fn extract(pak: &std::path::Path, out: &std::path::Path) -> std::path::PathBuf {
    json_ok(&[
        "extract",
        s(pak),
        "AssetRegistry.bin",
        "-o",
        s(out),
        "--json",
    ]);
    out.join("AssetRegistry.bin")
}

#[test]
fn registry_reads_lists_verifies_and_merges() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let game = extract(&c.join(GAME), &tmp.path().join("game"));
    let add = extract(&c.join(MOD), &tmp.path().join("mod"));

    let info = json_ok(&["info", s(&game), "--json"]);
    assert_eq!(info["kind"], "asset-registry");
    assert_eq!(info["version"], 24);
    assert_eq!(info["assets"], 306);
    assert_eq!(info["packages"], 605);
    assert_eq!(info["rewrites_exactly"], true);
    let list = json_ok(&["registry", "list", s(&game), "--json"]);
    assert_eq!(list["kind"], "asset-registry");
    let entries = list["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 306);
    let t = entries
        .iter()
        .find(|e| e["object_path"] == "/Game/Fixtures/Textures/T_BC6H.T_BC6H")
        .unwrap();
    assert_eq!(t["class"], "/Script/Engine.Texture2D");
    assert_eq!(t["tags"]["CompressionSettings"], "TC_HDR_Compressed");
    assert_eq!(t["tags"]["Dimensions"], "64x64");
    let (code, out, _) = run(&["verify", s(&game)]);
    assert_eq!(code, 0, "{out}");

    let merged = tmp.path().join("merged.bin");
    let again = tmp.path().join("again.bin");
    let m = json_ok(&[
        "registry",
        "merge",
        s(&game),
        s(&add),
        "-o",
        s(&merged),
        "--json",
    ]);
    assert_eq!(m["kind"], "asset-registry");
    assert_eq!(m["report"]["assets_added"], 16);
    json_ok(&[
        "registry",
        "merge",
        s(&merged),
        s(&add),
        "-o",
        s(&again),
        "--json",
    ]);
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let v = json_ok(&["registry", "verify", s(&merged), "--json"]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["assets"], 322);

    // No overwrite without --force; with it, the same bytes again.
    let before = std::fs::read(&merged).unwrap();
    let (code, _, err) = run(&["registry", "merge", s(&game), s(&add), "-o", s(&merged)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--force"), "{err}");
    json_ok(&[
        "registry",
        "merge",
        s(&game),
        s(&add),
        "-o",
        s(&merged),
        "--force",
        "--json",
    ]);
    assert_eq!(std::fs::read(&merged).unwrap(), before);
}

#[test]
fn damaged_and_unknown_registries_are_errors_that_say_where() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let game = extract(&c.join(GAME), tmp.path());
    let mut data = std::fs::read(&game).unwrap();
    // The asset count (right after the tag store's end magic) made huge.
    let at = data
        .windows(4)
        .position(|w| w == 0x8765_4321u32.to_le_bytes())
        .unwrap()
        + 4;
    data[at..at + 4].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let bad = tmp.path().join("bad.bin");
    std::fs::write(&bad, &data).unwrap();
    let (code, _, err) = run(&["info", s(&bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("asset count") && err.contains(&format!("{at:#x}"))
            || err.contains(&at.to_string()),
        "{err}"
    );
    data[16] = 99;
    std::fs::write(&bad, &data).unwrap();
    let (code, _, err) = run(&["registry", "verify", s(&bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("version 99"), "{err}");
}
