//! `pakrat iostore repack|create|patch` (issue 11) on the corpus
//! containers, and the refusals hostile input gets.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, files, json_ok, pakrat, s, FIXTURE_KEY};
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
                args.extend(["--compress", "zlib", "--match-unrealpak"]);
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

/// TOC version, container header form (if any) and companion pak version
/// of a written container, read with the library.
fn written_format(
    utoc: &Path,
) -> (
    u8,
    Option<pakrat_iostore::container_header::HeaderForm>,
    u32,
) {
    let keys = pakrat_codec::KeyRing::default();
    let c = pakrat_iostore::Container::open(utoc, &keys).unwrap();
    let header = c
        .find_by_type(pakrat_iostore::ChunkType::ContainerHeader)
        .map(|i| {
            pakrat_iostore::container_header::parse(&c.read_chunk(i).unwrap())
                .unwrap()
                .form
        });
    let pak = pakrat_pak::Pak::open(utoc.with_extension("pak"), &keys).unwrap();
    (c.toc().header.version, header, pak.footer.version)
}

/// The independent reader (`../shared/tools/utocref.py`) reads the
/// container and names its version.
fn utocref_reads(utoc: &Path, version: u8) {
    let tool = pakrat_testkit::corpus_dir()
        .unwrap()
        .join("../tools/utocref.py");
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .arg(utoc)
        .output()
        .expect("python3 runs utocref.py");
    assert!(
        out.status.success(),
        "{}: {}",
        utoc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("utoc v{version} ")),
        "{}: {text}",
        utoc.display()
    );
}

#[test]
fn create_writes_each_engines_container_format() {
    // Zen packages cooked by UE 5.4 (Randy) and UE 5.6 (SM_Cube), from
    // retoc's tests: the 5.3-5.5 and the 5.6+ zen layouts.
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let z = c.join("zenpair/retoc");
    let tmp = tempfile::tempdir().unwrap();
    let z54 = tmp.path().join("z54");
    std::fs::create_dir_all(&z54).unwrap();
    std::fs::copy(z.join("UE5.4/Randy.uzenasset"), z54.join("Randy.uasset")).unwrap();
    let z56 = tmp.path().join("z56");
    std::fs::create_dir_all(&z56).unwrap();
    std::fs::copy(
        z.join("UE5.6/SM_Cube.uzenasset"),
        z56.join("SM_Cube.uasset"),
    )
    .unwrap();
    std::fs::copy(z.join("UE5.6/SM_Cube.ubulk"), z56.join("SM_Cube.ubulk")).unwrap();
    // Chunks without packages (no container header): what 4.27 and 5.0-5.2
    // take without a base container that holds their store entries.
    let chunks = tmp.path().join("chunks");
    std::fs::create_dir_all(chunks.join("_chunks")).unwrap();
    std::fs::write(
        chunks.join("_chunks/010203040506070800000003.BulkData"),
        vec![7u8; 1000],
    )
    .unwrap();
    use pakrat_iostore::container_header::HeaderForm;
    let cases: [(&str, &Path, u8, Option<HeaderForm>, u32); 11] = [
        ("4.27", &chunks, 3, None, 11),
        ("5.0", &chunks, 5, None, 11),
        ("5.1", &chunks, 5, None, 11),
        ("5.2", &chunks, 5, None, 11),
        ("5.3", &z54, 5, Some(HeaderForm::Ue5(3)), 11),
        ("5.4", &z54, 6, Some(HeaderForm::Ue5(3)), 11),
        ("5.5", &z54, 8, Some(HeaderForm::Ue5(4)), 11),
        ("5.6", &z56, 8, Some(HeaderForm::Ue5(5)), 11),
        ("5.7", &z56, 8, Some(HeaderForm::Ue5(5)), 12),
        ("5.8", &z56, 8, Some(HeaderForm::Ue5(5)), 12),
        ("6.0", &z56, 10, Some(HeaderForm::Ue5(5)), 15),
    ];
    assert_eq!(cases.len(), pakrat_iostore::engine::FORMATS.len());
    for (engine, src, toc, header, pak) in cases {
        let f = pakrat_iostore::engine::format_for(engine).unwrap();
        assert_eq!((f.toc_version, f.pak_version), (toc, pak), "{engine}");
        if let Some(h) = header {
            assert_eq!(f.header, h, "{engine}");
        }
        let utoc = tmp.path().join(format!("out{engine}/Mod_P.utoc"));
        pakrat()
            .args([
                "iostore",
                "create",
                s(src),
                "-o",
                s(&utoc),
                "--ue-version",
                engine,
            ])
            .assert()
            .success();
        assert_eq!(written_format(&utoc), (toc, header, pak), "{engine}");
        utocref_reads(&utoc, toc);
        if header.is_some() {
            let p = json_ok(&["packages", s(&utoc), "--json"]);
            assert_eq!(p["packages"].as_array().unwrap().len(), 1, "{engine}: {p}");
        }
    }
    // A --version that contradicts --ue-version is refused; one that agrees
    // is taken.
    let utoc = tmp.path().join("bad/Mod_P.utoc");
    pakrat()
        .args([
            "iostore",
            "create",
            s(&z54),
            "-o",
            s(&utoc),
            "--ue-version",
            "5.4",
            "--version",
            "8",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--version 8 contradicts --ue-version 5.4: UE 5.4 writes TOC v6",
        ));
    assert!(!utoc.exists());
    let utoc = tmp.path().join("ok/Mod_P.utoc");
    pakrat()
        .args([
            "iostore",
            "create",
            s(&z54),
            "-o",
            s(&utoc),
            "--ue-version",
            "5.5",
            "--version",
            "8",
        ])
        .assert()
        .success();
    assert_eq!(written_format(&utoc), (8, Some(HeaderForm::Ue5(4)), 11));
    pakrat()
        .args([
            "iostore",
            "create",
            s(&z54),
            "-o",
            s(&tmp.path().join("x/M.utoc")),
            "--ue-version",
            "4.26",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4.27, 5.0"));
    // --base: the base's layout and its companion pak's version (v12, UE
    // 5.8; the fixture keeps the pak in another folder: put it beside), with
    // a warning when --ue-version says otherwise.
    let patch = c.join("iostore/cue4parse/UE5_8/Patch");
    let game = tmp.path().join("game");
    std::fs::create_dir_all(&game).unwrap();
    for (from, name) in [
        ("IoStore", "CUE4ParseFixtures-PatchBase.utoc"),
        ("IoStore", "CUE4ParseFixtures-PatchBase.ucas"),
        ("Pak", "CUE4ParseFixtures-PatchBase.pak"),
    ] {
        std::fs::copy(patch.join(from).join(name), game.join(name)).unwrap();
    }
    let base = game.join("CUE4ParseFixtures-PatchBase.utoc");
    let utoc = tmp.path().join("based/Mod_P.utoc");
    pakrat()
        .args([
            "iostore",
            "create",
            s(&z56),
            "-o",
            s(&utoc),
            "--base",
            s(&base),
            "--ue-version",
            "5.4",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("the base's layout is written"));
    assert_eq!(written_format(&utoc), (8, Some(HeaderForm::Ue5(5)), 12));
    // A container header chunk in the folder keeps its form, with a warning
    // when the release writes another.
    let tree = tmp.path().join("tree");
    extract(&base, &tree);
    let utoc = tmp.path().join("tree_out/Mod_P.utoc");
    pakrat()
        .args([
            "iostore",
            "create",
            s(&tree),
            "-o",
            s(&utoc),
            "--ue-version",
            "5.4",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "container header chunk has header v5 (SoftPackageReferencesOffset), not UE 5.4's v3",
        ));
    assert_eq!(written_format(&utoc), (6, Some(HeaderForm::Ue5(5)), 11));
}

#[test]
fn repack_across_the_ue4_ue5_line_is_refused() {
    let Some(list) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = &list[0]; // UE5_8 Tagged Uncompressed
    for v in ["3", "4"] {
        let out = tmp.path().join(format!("v{v}/Mod_P.utoc"));
        pakrat()
            .args(["iostore", "repack", s(src), "-o", s(&out), "--version", v])
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("holds UE5 content").and(predicate::str::contains(
                    "readers take its chunk types by UE4 numbers",
                )),
            );
        assert!(!out.exists(), "nothing is written on a refusal");
    }
    // Within UE5 a version change is taken, and the packages stay visible.
    let out = tmp.path().join("v5/Mod_P.utoc");
    pakrat()
        .args(["iostore", "repack", s(src), "-o", s(&out), "--version", "5"])
        .assert()
        .success();
    let p = json_ok(&["packages", s(&out), "--json"]);
    assert_eq!(p["packages"].as_array().unwrap().len(), 97, "{p}");
}

/// Issue 30 item 6: `pak create --ue-version 5.6` (and later) also writes
/// the IoStore companion those games need to mount a pak; earlier releases
/// and `--no-companion` do not. The companion is the release's format, holds
/// no files and an empty container header, and reads in utocref.py.
#[test]
fn pak_create_writes_the_ue56_companion() {
    if pakrat_testkit::corpus_dir().is_none() {
        return; // utocref.py sits beside the corpus
    }
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src/Game/Content");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("a.txt"), b"hello").unwrap();
    let src = t.path().join("src");
    for (ue, companion, toc, pak_v) in [
        ("5.5", false, 0, 11),
        ("5.6", true, 8, 11),
        ("5.8", true, 8, 12),
        ("6.0", true, 10, 15),
    ] {
        let dir = t.path().join(format!("out{ue}"));
        let pak = dir.join("Mod_P.pak");
        let v = json_ok(&[
            "pak",
            "create",
            s(&src),
            "-o",
            s(&pak),
            "--ue-version",
            ue,
            "--json",
        ]);
        assert_eq!(v["version"], pak_v, "{ue}: {v}");
        let utoc = dir.join("Mod_P.utoc");
        assert_eq!(utoc.is_file(), companion, "{ue}");
        assert_eq!(v["companion"].is_null(), !companion, "{ue}: {v}");
        if !companion {
            continue;
        }
        let (toc_v, header, footer) = written_format(&utoc);
        assert_eq!((toc_v, footer), (toc, pak_v), "{ue}");
        let f = pakrat_iostore::engine::format_for(ue).unwrap();
        assert_eq!(header, Some(f.header), "{ue}");
        utocref_reads(&utoc, toc);
        // No files: the pak alone provides them.
        let list = json_ok(&["list", s(&dir), "--json"]);
        let e = list["entries"].as_array().unwrap();
        assert_eq!(e.len(), 1, "{list}");
        assert!(e[0]["pak"].as_str().unwrap().ends_with("Mod_P.pak"));
        let info = json_ok(&["packages", s(&utoc), "--json"]);
        assert_eq!(info["packages"].as_array().unwrap().len(), 0, "{info}");
    }
    // --no-companion, and a companion in the way without --force: refused,
    // and the pak is not written alone.
    let dir = t.path().join("none");
    json_ok(&[
        "pak",
        "create",
        s(&src),
        "-o",
        s(&dir.join("M.pak")),
        "--ue-version",
        "5.6",
        "--no-companion",
        "--json",
    ]);
    assert!(!dir.join("M.utoc").exists());
    let dir = t.path().join("busy");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("M.utoc"), b"mine").unwrap();
    pakrat()
        .args([
            "pak",
            "create",
            s(&src),
            "-o",
            s(&dir.join("M.pak")),
            "--ue-version",
            "5.6",
        ])
        .assert()
        .failure();
    assert!(!dir.join("M.pak").exists());
    assert_eq!(std::fs::read(dir.join("M.utoc")).unwrap(), b"mine");
    // A release the table lacks is refused by name.
    pakrat()
        .args([
            "pak",
            "create",
            s(&src),
            "-o",
            s(&t.path().join("x/M.pak")),
            "--ue-version",
            "4.20",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--version"));
}
