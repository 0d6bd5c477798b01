//! `pakrat iostore repack|create|patch` (issue 11) on the corpus
//! containers, and the refusals hostile input gets.

mod common;

use std::path::{Path, PathBuf};

use common::{files, json_ok, pakrat, FIXTURE_KEY};
use predicates::prelude::*;

fn fixtures() -> Option<Vec<PathBuf>> {
    let c = pakrat_testkit::corpus_dir()?;
    let mut v = Vec::new();
    for engine in ["UE5_8", "UE6_0"] {
        for kind in ["Tagged", "Unversioned"] {
            for variant in ["Uncompressed", "Zlib", "Oodle", "OodleEncrypted"] {
                v.push(c.join(format!(
                    "iostore/cue4parse/{engine}/IoStore/{kind}/{variant}/CUE4ParseFixtures-Minimal-{variant}-Windows.utoc"
                )));
            }
        }
    }
    Some(v)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn extract(utoc: &Path, out: &Path) {
    pakrat()
        .args([
            "extract",
            s(utoc),
            "-o",
            s(out),
            "--chunks",
            "-q",
            "--aes-key",
            FIXTURE_KEY,
        ])
        .assert()
        .success();
}

#[test]
fn extract_then_create_gives_the_same_container() {
    let Some(list) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (n, utoc) in list.iter().enumerate() {
        let what = utoc.display().to_string();
        let name = utoc.file_name().unwrap().to_str().unwrap();
        let tree = tmp.path().join(format!("t{n}"));
        extract(utoc, &tree);
        // Without a reference: same chunk table, container header and
        // directory index, so the extracted trees (with _chunks) match.
        let made = tmp.path().join(format!("c{n}")).join(name);
        let v = json_ok(&["iostore", "create", s(&tree), "-o", s(&made), "--json"]);
        assert_eq!(v["chunks"], 112, "{what}");
        let again = tmp.path().join(format!("x{n}"));
        extract(&made, &again);
        assert!(
            files(&tree) == files(&again),
            "{what}: extracted trees differ"
        );
        let a = json_ok(&[
            "list",
            s(utoc),
            "--chunks",
            "--json",
            "--aes-key",
            FIXTURE_KEY,
        ]);
        let b = json_ok(&["list", s(&made), "--chunks", "--json"]);
        let ids = |v: &serde_json::Value| {
            let mut x: Vec<(String, String, u64)> = v["entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["id"].as_str().unwrap().to_string(),
                        c["path"].as_str().unwrap_or("").to_string(),
                        c["size"].as_u64().unwrap(),
                    )
                })
                .collect();
            x.sort();
            x
        };
        assert_eq!(ids(&a), ids(&b), "{what}: chunk table");
        pakrat().args(["verify", s(&made)]).assert().success();
        // The companion pak is there and empty (no loose files).
        let pak = made.with_extension("pak");
        let p = json_ok(&["info", s(&pak), "--json"]);
        assert_eq!(p["index"]["entries"], 0, "{what}: companion pak");
        // With the original as --base and the same settings, the very bytes.
        if name.contains("Uncompressed") || name.contains("Zlib") {
            let made = tmp.path().join(format!("b{n}")).join(name);
            let mut args = vec![
                "iostore",
                "create",
                s(&tree),
                "-o",
                s(&made),
                "--base",
                s(utoc),
            ];
            if name.contains("Zlib") {
                args.extend(["--compress", "zlib"]);
            }
            pakrat().args(&args).assert().success();
            assert!(
                std::fs::read(&made).unwrap() == std::fs::read(utoc).unwrap(),
                "{what}: .utoc bytes with --base"
            );
            assert!(
                std::fs::read(made.with_extension("ucas")).unwrap()
                    == std::fs::read(utoc.with_extension("ucas")).unwrap(),
                "{what}: .ucas bytes with --base"
            );
        }
    }
}

#[test]
fn repack_cli_reencodes_and_refuses_oodle() {
    let Some(list) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = &list[3]; // UE5_8 Tagged OodleEncrypted
    let out = tmp.path().join("Mod_P.utoc");
    pakrat()
        .args([
            "iostore",
            "repack",
            s(src),
            "-o",
            s(&out),
            "--aes-key",
            FIXTURE_KEY,
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("Oodle").and(predicate::str::contains("--compress")));
    assert!(!out.exists(), "nothing is written on a refusal");
    let v = json_ok(&[
        "iostore",
        "repack",
        s(src),
        "-o",
        s(&out),
        "--aes-key",
        FIXTURE_KEY,
        "--compress",
        "lz4",
        "--partition-size",
        "262144",
        "--json",
    ]);
    assert_eq!(v["encrypted"], true);
    assert!(v["partitions"].as_u64().unwrap() > 1);
    pakrat()
        .args(["verify", s(&out), "--aes-key", FIXTURE_KEY])
        .assert()
        .success();
    // Without --force an existing output stays; with it, fewer partitions
    // leave no stale _sN files behind.
    pakrat()
        .args([
            "iostore",
            "repack",
            s(src),
            "-o",
            s(&out),
            "--aes-key",
            FIXTURE_KEY,
            "--compress",
            "lz4",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("exists"));
    pakrat()
        .args([
            "iostore",
            "repack",
            s(src),
            "-o",
            s(&out),
            "--aes-key",
            FIXTURE_KEY,
            "--compress",
            "zlib",
            "--no-encrypt",
            "--version",
            "5",
            "--force",
        ])
        .assert()
        .success();
    assert!(!tmp.path().join("Mod_P_s1.ucas").exists());
    let v = json_ok(&["info", s(&out), "--json"]);
    assert_eq!(v["version"], 5);
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    extract(src, &a);
    extract(&out, &b);
    assert!(files(&a) == files(&b), "repacked chunks differ");
}

#[test]
fn hostile_create_inputs_are_refused_and_write_nothing() {
    let Some(list) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    extract(&list[0], &tree);
    let pkg = "CUE4ParseFixtures/Content/Fixtures/Textures/T_BC1.uasset";
    let try_create = |dir: &Path, expect: &str| {
        let out = tmp.path().join("out");
        pakrat()
            .args([
                "iostore",
                "create",
                s(dir),
                "-o",
                s(&out.join("Mod_P.utoc")),
            ])
            .assert()
            .failure()
            .stderr(predicate::str::contains(expect));
        assert!(
            !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(),
            "a refused create left files: expected {expect}"
        );
    };
    // The same package twice (under another file name).
    let dup = tmp.path().join("dup");
    copy_tree(&tree, &dup);
    std::fs::copy(
        dup.join(pkg),
        dup.join("CUE4ParseFixtures/Content/Copy.uasset"),
    )
    .unwrap();
    try_create(&dup, "already in the folder");
    // A symbolic link pointing outside.
    #[cfg(unix)]
    {
        let link = tmp.path().join("link");
        copy_tree(&tree, &link);
        std::os::unix::fs::symlink(
            "/etc/hostname",
            link.join("CUE4ParseFixtures/Content/x.txt"),
        )
        .unwrap();
        try_create(&link, "symbolic link");
    }
    // A backslash in a name (a path separator on Windows).
    #[cfg(unix)]
    {
        let bs = tmp.path().join("bs");
        copy_tree(&tree, &bs);
        std::fs::write(bs.join("CUE4ParseFixtures/..\\evil.txt"), b"x").unwrap();
        try_create(&bs, "cannot be stored");
    }
    // Bulk data without its package.
    let orphan = tmp.path().join("orphan");
    copy_tree(&tree, &orphan);
    std::fs::write(orphan.join("CUE4ParseFixtures/Content/Nobody.ubulk"), b"x").unwrap();
    try_create(&orphan, "without its package");
    // A legacy package is not a zen one.
    let legacy = tmp.path().join("legacy");
    copy_tree(&tree, &legacy);
    std::fs::write(
        legacy.join("CUE4ParseFixtures/Content/Old.uasset"),
        [0xC1u8, 0x83, 0x2A, 0x9E, 0, 0, 0, 0],
    )
    .unwrap();
    try_create(&legacy, "legacy");
    // Oodle cannot be written.
    try_create_args(&tree, &["--compress", "oodle"], "Oodle");
}

fn try_create_args(dir: &Path, extra: &[&str], expect: &str) {
    let out = dir.with_extension("out");
    let utoc = out.join("Mod_P.utoc");
    let mut args = vec!["iostore", "create", s(dir), "-o", s(&utoc)];
    args.extend_from_slice(extra);
    pakrat()
        .args(&args)
        .assert()
        .failure()
        .stderr(predicate::str::contains(expect));
    assert!(!utoc.exists());
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, data) in files(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
}

#[test]
fn patch_from_a_new_tree_rebuilds_the_engines_patch_container() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for engine in ["UE5_8", "UE6_0"] {
        let dir = c.join(format!("iostore/cue4parse/{engine}/Patch/IoStore"));
        let base = dir.join("CUE4ParseFixtures-PatchBase.utoc");
        let real = dir.join("CUE4ParseFixtures-PatchBase_0_P.utoc");
        // The new version of the game: the base's files, then the patch's.
        let tree = tmp.path().join(format!("{engine}-new"));
        extract(&base, &tree);
        extract(&real, &tree.with_extension("p"));
        copy_tree(&tree.with_extension("p"), &tree);
        std::fs::remove_dir_all(tree.join("_chunks")).unwrap();
        let out = tmp
            .path()
            .join(engine)
            .join("CUE4ParseFixtures-PatchBase_0_P.utoc");
        let v = json_ok(&[
            "iostore",
            "patch",
            s(&base),
            "--add",
            s(&tree),
            "-o",
            s(&out),
            "--json",
        ]);
        assert_eq!(
            v["chunks"], 2,
            "{engine}: the changed package and the container header"
        );
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&real).unwrap(),
            "{engine}: the patch .utoc differs from the engine's"
        );
        assert!(
            std::fs::read(out.with_extension("ucas")).unwrap()
                == std::fs::read(real.with_extension("ucas")).unwrap(),
            "{engine}: the patch .ucas differs from the engine's"
        );
        // Nothing new: said so, nothing written.
        let same = tmp.path().join(format!("{engine}-same"));
        extract(&base, &same);
        let none = tmp.path().join(format!("{engine}-none")).join("X_1_P.utoc");
        pakrat()
            .args([
                "iostore",
                "patch",
                s(&base),
                "--add",
                s(&same),
                "-o",
                s(&none),
            ])
            .assert()
            .failure()
            .stderr(predicate::str::contains("no patch was written"));
        assert!(!none.exists());
        pakrat()
            .args([
                "iostore",
                "patch",
                s(&base),
                "--add",
                s(&tree),
                "--remove",
                "*.uasset",
                "-o",
                s(&none),
            ])
            .assert()
            .failure()
            .stderr(predicate::str::contains("no delete record"));
    }
}
