//! `.pak` commands (issue 10): info, list, verify, extract and `pak create`
//! on the corpus paks, and the refusals a hostile or wrong input gets.

mod common;

use std::path::{Path, PathBuf};

use common::{files, json_ok, pakrat, FIXTURE_KEY};
use pakrat_testkit::corpus_dir as corpus;
use predicates::prelude::*;

fn packs(c: &Path) -> PathBuf {
    c.join("pak/repak_tests/packs")
}

fn crypto(c: &Path) -> String {
    c.join("pak/repak_tests/crypto.json").display().to_string()
}

#[test]
fn info_list_verify_with_crypto_json() {
    let Some(c) = corpus() else { return };
    let pak = packs(&c).join("pack_v8a_compress_encrypt_encryptindex.pak");
    let p = pak.to_str().unwrap();
    let v = json_ok(&["info", p, "--keys", &crypto(&c), "--json"]);
    assert_eq!(v["footer"]["version"], 8);
    assert_eq!(v["footer"]["compression_slots"], 4);
    assert_eq!(v["index"]["mount_point"], "../mount/point/root/");
    assert_eq!(v["index"]["entries"], 4);
    assert_eq!(v["index"]["encrypted_entries"], 4);
    let l = json_ok(&["list", p, "--keys", &crypto(&c), "--json", "*.txt"]);
    let names: Vec<&str> = l["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["directory/nested.txt", "test.txt"]);
    let r = json_ok(&["verify", p, "--keys", &crypto(&c), "--json"]);
    assert_eq!(r["ok"], true);
    assert_eq!(r["hashes_ok"], 4);
    // Without a key the index cannot be read: said so, with the way out.
    pakrat().args(["list", p]).assert().failure().stderr(
        predicate::str::contains("the index is encrypted")
            .and(predicate::str::contains("--aes-key")),
    );
    // The wrong key is named as such, never garbage.
    pakrat()
        .args(["list", p, "--aes-key", FIXTURE_KEY])
        .assert()
        .failure()
        .stderr(predicate::str::contains("wrong AES key"));
    // Data encrypted under a plain index: listed, but verify says what it
    // could not check and fails.
    let plain_index = packs(&c).join("pack_v9_encrypt.pak");
    let r = pakrat()
        .args(["verify", plain_index.to_str().unwrap()])
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&r.get_output().stdout).to_string();
    assert!(out.contains("not checked: 4 encrypted file(s)"), "{out}");
}

#[test]
fn extract_gives_the_original_files_and_refuses_to_overwrite() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let want = files(&c.join("pak/repak_tests/pack/root"));
    for name in [
        "pack_v5_compress_encrypt_encryptindex.pak",
        "pack_v11_encrypt.pak",
        "pack_v7.pak",
    ] {
        let pak = packs(&c).join(name);
        let _ = std::fs::remove_dir_all(&out);
        pakrat()
            .args([
                "extract",
                pak.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--keys",
                &crypto(&c),
            ])
            .assert()
            .success();
        assert_eq!(files(&out), want, "{name}");
    }
    // Again without --force: refused up front, nothing changed.
    std::fs::write(out.join("test.txt"), b"mine").unwrap();
    let pak = packs(&c).join("pack_v7.pak");
    pakrat()
        .args([
            "extract",
            pak.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("already exists")
                .and(predicate::str::contains("nothing was written")),
        );
    assert_eq!(std::fs::read(out.join("test.txt")).unwrap(), b"mine");
    pakrat()
        .args([
            "extract",
            pak.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ])
        .assert()
        .success();
    assert_eq!(files(&out), want);
    // A glob that matches nothing is an error, and creates nothing.
    let none = t.path().join("none");
    pakrat()
        .args([
            "extract",
            pak.to_str().unwrap(),
            "-o",
            none.to_str().unwrap(),
            "*.uasset",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no file matches"));
    assert!(!none.exists());
}

/// A pak whose entry names try to leave the output folder.
#[test]
fn hostile_entry_names_are_refused() {
    use pakrat_pak::write;
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("a.txt");
    std::fs::write(&src, b"payload").unwrap();
    for (i, (bad, kept_as)) in [
        ("../evil.txt", None),
        ("C:/evil.txt", None),
        ("dir\\..\\..\\evil.txt", None),
        // A leading `/` is the directory index's root marker: the engine
        // (and pakrat) read it as a path below the mount point.
        ("/etc/evil.txt", Some("etc/evil.txt")),
    ]
    .into_iter()
    .enumerate()
    {
        let pak = t.path().join(format!("h{i}.pak"));
        let f = std::fs::File::create(&pak).unwrap();
        let inputs = vec![
            write::Input {
                path: "fine.txt".into(),
                source: src.clone(),
            },
            write::Input {
                path: bad.into(),
                source: src.clone(),
            },
        ];
        write::write(
            &inputs,
            &write::Options {
                mount_point: "../../../".into(),
                ..Default::default()
            },
            &f,
            "h.pak",
        )
        .unwrap();
        drop(f);
        let out = t.path().join(format!("out{i}"));
        let run = pakrat()
            .args([
                "extract",
                pak.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .assert();
        match kept_as {
            None => {
                run.failure()
                    .stderr(predicate::str::contains("nothing was written"));
                assert!(!out.join("fine.txt").exists(), "{bad}");
            }
            Some(inside) => {
                run.success();
                assert_eq!(std::fs::read(out.join(inside)).unwrap(), b"payload");
            }
        }
        assert!(
            !t.path().join("evil.txt").exists() && !Path::new("/etc/evil.txt").exists(),
            "{bad}"
        );
    }
}

#[test]
fn frozen_index_is_refused_clearly() {
    let Some(c) = corpus() else { return };
    let mut d = std::fs::read(packs(&c).join("pack_v9.pak")).unwrap();
    // v9 footer: GUID(16) enc(1) magic..hash(44) frozen(1) names(160).
    let at = d.len() - 222 + 61;
    d[at] = 1;
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("frozen.pak");
    std::fs::write(&p, &d).unwrap();
    pakrat()
        .args(["list", p.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("frozen index").and(predicate::str::contains("not portable")),
        );
}

#[test]
fn create_reproduces_unrealpak_and_refuses_what_it_cannot_write() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = c.join("pak/repak_tests/pack/root");
    let out = t.path().join("x.pak");
    // UnrealPak 4.22 (v8, 4 method slots), compressed, encrypted, with an
    // encrypted index: the same bytes.
    pakrat()
        .args([
            "pak",
            "create",
            root.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args([
            "--version",
            "8",
            "--method-slots",
            "4",
            "--mount",
            "../mount/point/root/",
        ])
        .args([
            "--compress",
            "zlib",
            "--match-unrealpak",
            "--encrypt",
            "--encrypt-index",
            "--keys",
            &crypto(&c),
        ])
        .assert()
        .success();
    assert!(
        std::fs::read(&out).unwrap()
            == std::fs::read(packs(&c).join("pack_v8a_compress_encrypt_encryptindex.pak")).unwrap()
    );
    // The order of another pak, and its path hash seed, give UnrealPak 4.27's bytes.
    let orig = packs(&c).join("pack_v11_encryptindex.pak");
    let seed = json_ok(&[
        "info",
        orig.to_str().unwrap(),
        "--keys",
        &crypto(&c),
        "--json",
    ])["index"]["path_hash_seed"]
        .as_u64()
        .unwrap();
    pakrat()
        .args([
            "pak",
            "create",
            root.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--force",
        ])
        .args([
            "--version",
            "11",
            "--mount",
            "../mount/point/root/",
            "--encrypt-index",
            "--keys",
            &crypto(&c),
        ])
        .args([
            "--order-from",
            orig.to_str().unwrap(),
            "--path-hash-seed",
            &seed.to_string(),
        ])
        .assert()
        .success();
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&orig).unwrap());
    // Refusals, before anything is written.
    let o2 = t.path().join("y.pak");
    for (args, msg) in [
        (vec!["--compress", "oodle"], "Oodle cannot be encoded"),
        (vec!["--version", "16"], "pak version 16"),
        (
            vec!["--version", "7", "--compress", "lz4"],
            "LZ4 and Zstd need v8",
        ),
        (vec!["--encrypt"], "need a key"),
        (
            vec![
                "--version",
                "11",
                "--cipher",
                "ctr",
                "--aes-key",
                FIXTURE_KEY,
                "--encrypt",
            ],
            "AES-CTR needs pak version 15",
        ),
    ] {
        pakrat()
            .args([
                "pak",
                "create",
                root.to_str().unwrap(),
                "-o",
                o2.to_str().unwrap(),
            ])
            .args(&args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(msg));
        assert!(!o2.exists(), "{args:?}");
    }
    // An existing output is kept without --force.
    pakrat()
        .args([
            "pak",
            "create",
            root.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .failure();
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&orig).unwrap());
}

#[test]
fn every_codec_and_version_round_trips_through_the_cli() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = c.join("pak/repak_tests/pack/root");
    let want = files(&root);
    for (v, m, extra) in [
        ("1", "none", vec![]),
        ("3", "zlib", vec!["--encrypt"]),
        ("7", "gzip", vec!["--encrypt-index"]),
        ("9", "zstd", vec![]),
        ("10", "lz4", vec!["--encrypt", "--encrypt-index"]),
        ("12", "zlib", vec!["--block-size", "4096"]),
        ("13", "zstd", vec!["--encrypt"]),
        (
            "15",
            "zlib",
            vec!["--encrypt", "--encrypt-index", "--cipher", "ctr"],
        ),
    ] {
        let pak = t.path().join(format!("v{v}.pak"));
        pakrat()
            .args([
                "pak",
                "create",
                root.to_str().unwrap(),
                "-o",
                pak.to_str().unwrap(),
                "--version",
                v,
                "--compress",
                m,
            ])
            .args(["--aes-key", FIXTURE_KEY, "--min-bytes-saved", "1"])
            .args(&extra)
            .assert()
            .success();
        let r = json_ok(&[
            "verify",
            pak.to_str().unwrap(),
            "--aes-key",
            FIXTURE_KEY,
            "--json",
        ]);
        assert_eq!(r["ok"], true, "v{v} {m}: {r}");
        let out = t.path().join(format!("out{v}"));
        pakrat()
            .args([
                "extract",
                pak.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--aes-key",
                FIXTURE_KEY,
            ])
            .assert()
            .success();
        assert_eq!(files(&out), want, "v{v} {m}");
        let l = json_ok(&[
            "list",
            pak.to_str().unwrap(),
            "--aes-key",
            FIXTURE_KEY,
            "--json",
        ]);
        let methods: Vec<&str> = l["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["method"].as_str().unwrap())
            .collect();
        if m != "none" {
            assert!(
                methods.iter().any(|x| x.eq_ignore_ascii_case(m)),
                "v{v}: {methods:?}"
            );
        }
    }
}

#[test]
fn a_folder_of_paks_lists_in_mount_order() {
    let Some(c) = corpus() else { return };
    for eng in ["UE5_8", "UE6_0"] {
        let dir = c.join(format!("iostore/cue4parse/{eng}/Patch/Pak"));
        let v = json_ok(&["list", dir.to_str().unwrap(), "--json"]);
        let files = v["entries"].as_array().unwrap();
        assert_eq!(files.len(), 4);
        for f in files {
            let path = f["path"].as_str().unwrap();
            let from = f["pak"].as_str().unwrap();
            // The patch pak provides the target it replaces.
            assert_eq!(
                path.contains("DA_PatchTarget"),
                from.ends_with("_0_P.pak"),
                "{path} from {from}"
            );
        }
    }
}

/// Issue 31 item 15: `--compress zlib` is fast by default (libdeflate), and
/// `--match-unrealpak` picks the reference zlib; both paks verify and
/// extract to the original files, and they differ.
#[test]
fn zlib_is_fast_by_default_and_match_unrealpak_is_the_reference() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("tree");
    for n in ["UWindow.u", "Male1Skins.utx", "DigSh.umx"] {
        std::fs::create_dir_all(root.join("ue1")).unwrap();
        std::fs::copy(c.join("ue1").join(n), root.join("ue1").join(n)).unwrap();
    }
    let want = files(&root);
    let mut bytes = Vec::new();
    for (name, extra) in [("fast", vec![]), ("exact", vec!["--match-unrealpak"])] {
        let pak = t.path().join(format!("{name}.pak"));
        pakrat()
            .args(["pak", "create", root.to_str().unwrap(), "-o"])
            .arg(&pak)
            .args(["--compress", "zlib"])
            .args(&extra)
            .assert()
            .success();
        let r = json_ok(&["verify", pak.to_str().unwrap(), "--json"]);
        assert_eq!(r["ok"], true, "{name}: {r}");
        let out = t.path().join(format!("out-{name}"));
        pakrat()
            .args(["extract", pak.to_str().unwrap(), "-o"])
            .arg(&out)
            .assert()
            .success();
        assert!(files(&out) == want, "{name}");
        bytes.push(std::fs::read(&pak).unwrap());
    }
    assert!(
        bytes[0] != bytes[1],
        "the default wrote the reference zlib's bytes"
    );
    assert!(bytes[0].len() as f64 <= bytes[1].len() as f64 * 1.08);
}

/// Issue 30 item 7: a game's Paks folder as one view. Paks and the IoStore
/// containers beside them merge in mount order, `~mods/` included; a
/// `.utoc` without its `.pak` is listed but named as not mounted.
#[test]
fn a_paks_folder_merges_paks_and_containers() {
    let Some(c) = corpus() else { return };
    let base = c.join("iostore/cue4parse/UE5_8/Patch");
    let t = tempfile::tempdir().unwrap();
    let paks = t.path().join("Paks");
    std::fs::create_dir_all(paks.join("~mods")).unwrap();
    for (from, to) in [
        (
            "Pak/CUE4ParseFixtures-PatchBase.pak",
            "CUE4ParseFixtures-PatchBase.pak",
        ),
        (
            "IoStore/CUE4ParseFixtures-PatchBase.utoc",
            "CUE4ParseFixtures-PatchBase.utoc",
        ),
        (
            "IoStore/CUE4ParseFixtures-PatchBase.ucas",
            "CUE4ParseFixtures-PatchBase.ucas",
        ),
        (
            "Pak/CUE4ParseFixtures-PatchBase_0_P.pak",
            "~mods/CUE4ParseFixtures-PatchBase_0_P.pak",
        ),
        (
            "IoStore/CUE4ParseFixtures-PatchBase_0_P.utoc",
            "~mods/CUE4ParseFixtures-PatchBase_0_P.utoc",
        ),
        (
            "IoStore/CUE4ParseFixtures-PatchBase_0_P.ucas",
            "~mods/CUE4ParseFixtures-PatchBase_0_P.ucas",
        ),
    ] {
        std::fs::copy(base.join(from), paks.join(to)).unwrap();
    }
    let list = |dir: &std::path::Path| {
        json_ok(&[
            "list",
            dir.to_str().unwrap(),
            "--json",
            "--aes-key",
            common::FIXTURE_KEY,
        ])
    };
    let v = list(&paks);
    let order: Vec<String> = v["mount_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(
        order,
        [
            "CUE4ParseFixtures-PatchBase.pak",
            "CUE4ParseFixtures-PatchBase.utoc",
            "CUE4ParseFixtures-PatchBase_0_P.pak",
            "CUE4ParseFixtures-PatchBase_0_P.utoc"
        ]
    );
    assert_eq!(v["not_mounted"].as_array().unwrap().len(), 0);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4, "{v}");
    for e in entries {
        let path = e["path"].as_str().unwrap();
        let from = e["pak"].as_str().unwrap();
        assert!(!path.starts_with("../"), "{path}");
        // The patch (from ~mods/) provides the target; the container wins
        // the package file over the pak of the same order.
        assert_eq!(
            path.contains("DA_PatchTarget"),
            from.contains("~mods/"),
            "{path} {from}"
        );
        assert_eq!(
            path.ends_with(".uasset"),
            e["from"] == "iostore" && from.ends_with(".utoc"),
            "{path} {from}"
        );
    }
    // Without the base pak its container is not mounted: still listed, below
    // the mounted ones, and named.
    std::fs::remove_file(paks.join("CUE4ParseFixtures-PatchBase.pak")).unwrap();
    let v = list(&paks);
    let nm = v["not_mounted"].as_array().unwrap();
    assert_eq!(nm.len(), 1);
    assert!(nm[0]
        .as_str()
        .unwrap()
        .ends_with("CUE4ParseFixtures-PatchBase.utoc"));
    assert!(v["mount_order"][0]
        .as_str()
        .unwrap()
        .ends_with("PatchBase.utoc"));
    let (code, _, err) = common::run(&[
        "list",
        paks.to_str().unwrap(),
        "--aes-key",
        common::FIXTURE_KEY,
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("the engine does not mount it"), "{err}");
    // A folder with neither.
    let empty = t.path().join("Empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, _, err) = common::run(&["list", empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no .pak files or IoStore containers"), "{err}");
}
