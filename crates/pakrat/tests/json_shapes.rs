//! One `--json` shape per command across formats (docs/json.md): `list`,
//! `info` and `verify` print one object with the detected format as `kind`
//! and the same top-level keys whatever the format.

mod common;

use std::path::Path;

use common::{pakrat, run_json};

/// The top-level keys every `COMMAND --json` object has (docs/json.md).
fn keys_of(command: &str) -> &'static [&'static str] {
    match command {
        "list" => &["kind", "file", "entries"],
        "info" => &["kind", "file"],
        "verify" => &["kind", "file", "ok"],
        _ => unreachable!(),
    }
}

/// `list`/`info`/`verify --json FILE [EXTRA]` print an object of `kind`
/// with the documented keys (`entries` an array, `ok` a boolean).
fn check_shapes(file: &Path, extra: &[&str], kind: &str) {
    let f = file.to_str().unwrap();
    for command in ["list", "info", "verify"] {
        let mut args = vec![command, f, "--json"];
        args.extend_from_slice(extra);
        let (code, v) = run_json(&args);
        assert_eq!(code, 0, "{args:?}: {v}");
        let obj = v
            .as_object()
            .unwrap_or_else(|| panic!("{args:?}: not an object: {v}"));
        assert_eq!(obj.get("kind"), Some(&kind.into()), "{args:?}: {v}");
        for k in keys_of(command) {
            assert!(obj.contains_key(*k), "{args:?}: no {k:?} in {v}");
        }
        assert_eq!(v["file"], f, "{args:?}");
        match command {
            "list" => assert!(v["entries"].is_array(), "{args:?}: {v}"),
            "verify" => assert!(v["ok"].is_boolean(), "{args:?}: {v}"),
            _ => {}
        }
    }
}

/// Made here (no corpus needed): a UMOD by `umod create --json` and a .pak
/// by `pak create` of examples/HelloMod, then the readers on each.
#[test]
fn written_umod_and_pak_have_the_shapes() {
    let t = tempfile::tempdir().unwrap();
    // The README's example mod (in the repository).
    let src = pakrat_testkit::repo_root().join("examples/HelloMod");
    let umod = t.path().join("Mod.umod");
    let (code, v) = run_json(&[
        "umod",
        "create",
        src.to_str().unwrap(),
        "-o",
        umod.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["kind"], "umod", "{v}");
    assert_eq!(v["output"], umod.to_str().unwrap(), "{v}");
    let len = std::fs::metadata(&umod).unwrap().len();
    assert_eq!(v["size"].as_u64(), Some(len), "{v}");
    // Its four files (README); the folder's .gitattributes is not packed.
    assert_eq!(v["members"].as_u64(), Some(4), "{v}");
    assert!(v["crc"].is_u64(), "{v}");
    check_shapes(&umod, &[], "umod");

    let pak = t.path().join("Mod.pak");
    pakrat()
        .args(["pak", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&pak)
        .assert()
        .success();
    check_shapes(&pak, &[], "pak");

    // `extract` names the input, the output folder and the files written.
    for (file, kind) in [(&umod, "umod"), (&pak, "pak")] {
        let (_, l) = run_json(&["list", file.to_str().unwrap(), "--json"]);
        let n = l["entries"].as_array().unwrap().len() as u64;
        let out = t.path().join(format!("out-{kind}"));
        let (code, v) = run_json(&[
            "extract",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["kind"], kind, "{v}");
        assert_eq!(v["file"], file.to_str().unwrap(), "{v}");
        assert!(v["output"].is_string(), "{v}");
        assert_eq!(v["extracted"].as_u64(), Some(n), "{v}");
    }
}

/// One real file of every format from the corpus.
#[test]
fn every_format_has_the_shapes() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    check_shapes(&c.join("umod/DropStuff.umod"), &[], "umod");
    check_shapes(&c.join("ue1/Core.u"), &[], "package");
    check_shapes(&c.join("ue2/Entry.ut2"), &[], "package");
    check_shapes(&c.join("pak/repak_tests/packs/pack_v11.pak"), &[], "pak");
    check_shapes(
        &c.join("iostore/cue4parse/UE5_8/IoStore/Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &[],
        "iostore",
    );
    check_shapes(
        &c.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Zstandard.usmap"),
        &[],
        "usmap",
    );
    check_shapes(
        &c.join("zenpair/retoc/UE5.6/SM_Cube.uasset"),
        &["--ue-version", "5.6"],
        "legacy",
    );
    // A .uz has one file inside: `info` describes it; `list` and `verify`
    // refuse (exit 2) with the error object, which names the kind too.
    let uz = c.join("uz/UTCredits.unr.uz");
    let (code, v) = run_json(&["info", uz.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["kind"], "uz", "{v}");
    assert_eq!(v["file"], uz.to_str().unwrap(), "{v}");
    for command in ["list", "verify"] {
        let (code, v) = run_json(&[command, uz.to_str().unwrap(), "--json"]);
        assert_eq!(code, 2, "{v}");
        assert_eq!(v["kind"], "uz", "{v}");
        assert!(v["error"].is_string() && v["exit_code"] == 2, "{v}");
        assert_eq!(v["file"], uz.to_str().unwrap(), "{v}");
    }
}
