//! `pakrat` UMOD commands end to end.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

mod common;
use common::{file_names as files_under, pakrat};

fn example() -> PathBuf {
    pakrat_testkit::repo_root().join("examples/HelloMod")
}

fn build_example(dir: &Path) -> PathBuf {
    let out = dir.join("HelloMod.umod");
    pakrat()
        .args(["umod", "create"])
        .arg(example())
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("4 members"));
    out
}

/// A UMOD made by hand: payload, directory, trailer (right size and CRC).
fn handmade(payload: &[u8], entries: &[(&str, u32, u32, u32)]) -> Vec<u8> {
    let mut w = pakrat_io::Writer::new();
    w.bytes(payload);
    let dir = w.len() as u32;
    w.compact(entries.len() as i32);
    for (name, off, size, flags) in entries {
        w.fstring(&pakrat_io::FString::new(*name));
        w.u32(*off).u32(*size).u32(*flags);
    }
    let crc = pakrat_io::crc::mem_crc(w.as_slice());
    let total = w.len() as u32 + 20;
    w.u32(0x9FE3_C5A3).u32(dir).u32(total).u32(1).u32(crc);
    w.into_inner()
}

#[test]
fn readme_example_builds_lists_and_verifies() {
    let t = tempfile::tempdir().unwrap();
    let u = build_example(t.path());
    pakrat()
        .arg("list")
        .arg(&u)
        .assert()
        .success()
        .stdout(predicate::str::contains("System\\Manifest.ini"))
        .stdout(predicate::str::contains("Help\\HelloMod-ReadMe.txt"));
    pakrat()
        .arg("verify")
        .arg(&u)
        .assert()
        .success()
        .stdout(predicate::str::contains("OK (0 warning(s))"));
    // Deterministic: a second build is byte-identical; no overwrite without --force.
    let first = std::fs::read(&u).unwrap();
    pakrat()
        .args(["umod", "create"])
        .arg(example())
        .arg("-o")
        .arg(&u)
        .assert()
        .failure()
        .stderr(predicate::str::contains("already exists"));
    pakrat()
        .args(["umod", "create", "--force"])
        .arg(example())
        .arg("-o")
        .arg(&u)
        .assert()
        .success();
    assert_eq!(std::fs::read(&u).unwrap(), first);
    // --align 16 puts every member on a 16-byte boundary and still verifies.
    let a = t.path().join("aligned.umod");
    pakrat()
        .args(["umod", "create", "--align", "16"])
        .arg(example())
        .arg("-o")
        .arg(&a)
        .assert()
        .success();
    pakrat().arg("verify").arg(&a).assert().success();
    let out = pakrat().arg("list").arg("--json").arg(&a).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for e in v["entries"].as_array().unwrap() {
        assert_eq!(e["offset"].as_u64().unwrap() % 16, 0, "{e}");
    }
}

#[test]
fn info_shows_product_and_destinations() {
    let t = tempfile::tempdir().unwrap();
    let u = build_example(t.path());
    pakrat()
        .arg("info")
        .arg(&u)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Hello Mod (Product=HelloMod, Version=100)",
        ))
        .stdout(predicate::str::contains(
            "UnrealTournament version 400 or later",
        ))
        .stdout(predicate::str::contains("(setup file, not installed)"));
    let out = pakrat().args(["info", "--json"]).arg(&u).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["manifest"]["product"], "HelloMod");
    assert_eq!(v["files"][2]["destination"], "System\\HelloMod.int");
}

#[test]
fn corpus_list_verify_extract_and_round_trip() {
    let Some(rows) = pakrat_testkit::entries("umod") else {
        return;
    };
    assert_eq!(rows.len(), 2);
    for row in rows {
        let out = pakrat()
            .args(["list", "--json"])
            .arg(&row.path)
            .output()
            .unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let list = v["entries"].as_array().unwrap();
        let files = row.detail_value("files").unwrap().parse::<usize>().unwrap();
        assert_eq!(list.len(), files, "{}", row.local_path);
        // Contiguous from 0 up to the directory (diroff in MANIFEST.tsv).
        let mut pos = 0;
        for e in list {
            assert_eq!(e["offset"].as_u64().unwrap(), pos);
            pos += e["size"].as_u64().unwrap();
            let name = e["name"].as_str().unwrap();
            assert!(row.detail.contains(name), "{name} not in {}", row.detail);
            let setup = name.starts_with("System\\Manifest.");
            assert_eq!(e["flags"].as_u64().unwrap(), if setup { 3 } else { 0 });
        }
        assert_eq!(pos.to_string(), row.detail_value("diroff").unwrap());
        let crc = row.detail_value("crc").unwrap();
        pakrat()
            .arg("verify")
            .arg(&row.path)
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("computed {crc}")))
            .stdout(predicate::str::contains("stale self-size"));

        let t = tempfile::tempdir().unwrap();
        let x = t.path().join("x");
        pakrat()
            .arg("extract")
            .arg(&row.path)
            .arg("-o")
            .arg(&x)
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("extracted {files} files")));
        assert_eq!(files_under(&x).len(), files);
        let rebuilt = t.path().join("rebuilt.umod");
        pakrat()
            .args(["umod", "create"])
            .arg(&x)
            .arg("-o")
            .arg(&rebuilt)
            .arg("--order-from")
            .arg(&row.path)
            .assert()
            .success();
        assert!(
            std::fs::read(&rebuilt).unwrap() == std::fs::read(&row.path).unwrap(),
            "{}: rebuild differs",
            row.local_path
        );
    }
}

#[test]
fn damaged_archive_fails_verify_and_extract() {
    let t = tempfile::tempdir().unwrap();
    let u = build_example(t.path());
    let mut data = std::fs::read(&u).unwrap();
    data[600] ^= 1;
    let bad = t.path().join("bad.umod");
    std::fs::write(&bad, &data).unwrap();
    pakrat()
        .arg("verify")
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error: at offset"))
        .stdout(predicate::str::contains(
            "CRC mismatch: the trailer records 0x",
        ))
        .stdout(predicate::str::contains("FAILED: 1 error(s)"));
    let out = t.path().join("out");
    pakrat()
        .arg("extract")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--ignore-crc"));
    assert!(files_under(&out).is_empty());
    pakrat()
        .args(["extract", "--ignore-crc", "-q"])
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .arg("*.int")
        .assert()
        .success()
        .stderr(predicate::str::contains("ignored (--ignore-crc)"));
    assert_eq!(
        files_under(&out),
        ["System/HelloMod.int", "System/Manifest.int"]
    );
    // Truncated: the trailer is gone.
    let cut = t.path().join("cut.umod");
    std::fs::write(&cut, &data[..data.len() - 7]).unwrap();
    pakrat().arg("verify").arg(&cut).assert().failure();
}

#[test]
fn hostile_archives_write_nothing() {
    let t = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "traversal",
            handmade(b"pwned", &[("..\\..\\pwned.txt", 0, 5, 0)]),
            "refusing unsafe member name",
        ),
        (
            "absolute",
            handmade(b"pwned", &[("/tmp/pwned.txt", 0, 5, 0)]),
            "absolute path",
        ),
        (
            "drive",
            handmade(b"pwned", &[("C:\\pwned.txt", 0, 5, 0)]),
            "drive letter",
        ),
        (
            "past-end",
            handmade(b"pwned", &[("a.txt", 2, 50, 0)]),
            "entry out of bounds",
        ),
        (
            "overlap",
            handmade(b"pwned", &[("a.txt", 0, 4, 0), ("b.txt", 2, 3, 0)]),
            "overlap",
        ),
    ];
    for (name, bytes, msg) in cases {
        let f = t.path().join(format!("{name}.umod"));
        std::fs::write(&f, bytes).unwrap();
        let dest = t.path().join(format!("out-{name}/deep"));
        pakrat()
            .arg("extract")
            .arg(&f)
            .arg("-o")
            .arg(&dest)
            .assert()
            .failure()
            .stderr(predicate::str::contains(msg));
        pakrat()
            .arg("verify")
            .arg(&f)
            .assert()
            .code(1)
            .stdout(predicate::str::contains(msg));
        assert!(files_under(&dest).is_empty(), "{name}");
    }
    // Nothing landed next to the archives either.
    let stray: Vec<String> = files_under(t.path())
        .into_iter()
        .filter(|p| !p.ends_with(".umod"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    // Absurd directory count.
    let mut w = pakrat_io::Writer::new();
    w.bytes(b"xx").compact(i32::MAX).bytes(&[0; 16]);
    let crc = pakrat_io::crc::mem_crc(w.as_slice());
    let total = w.len() as u32 + 20;
    w.u32(0x9FE3_C5A3).u32(2).u32(total).u32(1).u32(crc);
    let f = t.path().join("count.umod");
    std::fs::write(&f, w.as_slice()).unwrap();
    pakrat()
        .arg("verify")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("count 2147483647 needs at least"));
}

fn game(dir: &Path, ut_version: &str) -> PathBuf {
    let g = dir.join("game");
    std::fs::create_dir_all(g.join("system")).unwrap();
    std::fs::create_dir_all(g.join("Help")).unwrap();
    std::fs::write(
        g.join("system/Manifest.ini"),
        format!("[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nCaption=Unreal Tournament\r\nVersion={ut_version}\r\n\r\n[RefCounts]\r\nFile:System\\Core.u=1\r\n"),
    )
    .unwrap();
    g
}

/// A second mod that shares the read-me with HelloMod.
fn sibling_mod(dir: &Path) -> PathBuf {
    let src = dir.join("Sibling");
    std::fs::create_dir_all(src.join("System")).unwrap();
    std::fs::create_dir_all(src.join("Help")).unwrap();
    std::fs::copy(
        example().join("Help/HelloMod-ReadMe.txt"),
        src.join("Help/HelloMod-ReadMe.txt"),
    )
    .unwrap();
    std::fs::write(src.join("System/Sibling.int"), b"[Public]\r\n").unwrap();
    std::fs::write(
        src.join("System/Manifest.ini"),
        b"[Setup]\r\nProduct=Sibling\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Sibling.int)\r\nFile=(Src=Help\\HelloMod-ReadMe.txt)\r\n",
    )
    .unwrap();
    let out = dir.join("Sibling.umod");
    pakrat()
        .args(["umod", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    out
}

#[test]
fn install_uninstall_cycle() {
    let t = tempfile::tempdir().unwrap();
    let u = build_example(t.path());
    let sib = sibling_mod(t.path());

    // Requirement not met: UT 348 < 400.
    let old = game(&t.path().join("old"), "348");
    pakrat()
        .args(["umod", "install"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&old)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "requires UnrealTournament version 400 or later; version 348 is installed",
        ));
    assert_eq!(files_under(&old), ["system/Manifest.ini"]);

    let g = game(t.path(), "436");
    let before = std::fs::read(g.join("system/Manifest.ini")).unwrap();
    pakrat()
        .args(["umod", "install", "--dry-run"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains("would install HelloMod"));
    assert_eq!(files_under(&g), ["system/Manifest.ini"]);
    assert_eq!(
        std::fs::read(g.join("system/Manifest.ini")).unwrap(),
        before
    );

    pakrat()
        .args(["umod", "install"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success();
    // Existing folders reused whatever their case; setup files not installed.
    assert_eq!(
        files_under(&g),
        [
            "Help/HelloMod-ReadMe.txt",
            "system/HelloMod.int",
            "system/Manifest.ini"
        ]
    );
    pakrat()
        .args(["umod", "install"])
        .arg(&sib)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains("same"));
    let ini = std::fs::read_to_string(g.join("system/Manifest.ini")).unwrap();
    for needle in [
        "[Setup]\r\nGroup=UnrealTournament\r\nGroup=HelloMod\r\nGroup=Sibling\r\n",
        "[HelloMod]\r\nCaption=Hello Mod\r\nVersion=100\r\nRequires=UnrealTournament\r\nFile=System\\HelloMod.int\r\nFile=Help\\HelloMod-ReadMe.txt\r\n",
        "File:Help\\HelloMod-ReadMe.txt=2\r\n",
        "File:System\\Core.u=1\r\n",
        "[Sibling]\r\nCaption=Sibling\r\nVersion=1\r\nFile=System\\Sibling.int\r\n",
    ] {
        assert!(ini.contains(needle), "missing {needle:?} in\n{ini}");
    }
    // Reinstalling does not count twice.
    pakrat()
        .args(["umod", "install"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success();
    let ini2 = std::fs::read_to_string(g.join("system/Manifest.ini")).unwrap();
    assert_eq!(ini, ini2);

    // A different file in the way: refused, then replaced with a backup.
    std::fs::write(g.join("system/HelloMod.int"), b"locally edited").unwrap();
    pakrat()
        .args(["umod", "install"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .failure()
        .stderr(predicate::str::contains("use --force"));
    assert_eq!(
        std::fs::read(g.join("system/HelloMod.int")).unwrap(),
        b"locally edited"
    );
    pakrat()
        .args(["umod", "install", "--force"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "backup system/HelloMod.int.pakrat-bak",
        ));
    assert_eq!(
        std::fs::read(g.join("system/HelloMod.int.pakrat-bak")).unwrap(),
        b"locally edited"
    );
    assert_eq!(
        std::fs::read(g.join("system/HelloMod.int")).unwrap(),
        std::fs::read(example().join("System/HelloMod.int")).unwrap()
    );
    std::fs::remove_file(g.join("system/HelloMod.int.pakrat-bak")).unwrap();

    // Uninstall HelloMod: its own file goes, the shared read-me stays.
    pakrat()
        .args(["umod", "uninstall", "hellomod", "--game-dir"])
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains("removed  System\\HelloMod.int"))
        .stdout(predicate::str::contains("kept  Help\\HelloMod-ReadMe.txt"));
    assert_eq!(
        files_under(&g),
        [
            "Help/HelloMod-ReadMe.txt",
            "system/Manifest.ini",
            "system/Sibling.int"
        ]
    );
    let ini = std::fs::read_to_string(g.join("system/Manifest.ini")).unwrap();
    assert!(!ini.contains("[HelloMod]"), "{ini}");
    assert!(!ini.contains("Group=HelloMod"), "{ini}");
    assert!(
        ini.contains("File:Help\\HelloMod-ReadMe.txt=1\r\n"),
        "{ini}"
    );
    // Then Sibling: everything of both mods is gone; the Help folder, which
    // was there (empty) before the installs, stays (issue 31 item 4).
    pakrat()
        .args(["umod", "uninstall", "Sibling", "--game-dir"])
        .arg(&g)
        .assert()
        .success();
    assert_eq!(files_under(&g), ["system/Manifest.ini"]);
    assert!(g.join("Help").is_dir());
    let ini = std::fs::read_to_string(g.join("system/Manifest.ini")).unwrap();
    assert!(ini.contains("File:System\\Core.u=1"), "{ini}");
    assert!(!ini.contains("HelloMod"), "{ini}");
    pakrat()
        .args(["umod", "uninstall", "Sibling", "--game-dir"])
        .arg(&g)
        .assert()
        .failure()
        .stderr(predicate::str::contains("is not installed here"));
}

/// Issue 16 finding 6: names and manifest values holding escape sequences
/// are printed escaped by info, list, verify, extract errors and the
/// install dry run, so that one line cannot hide or rewrite another.
#[test]
fn escape_sequences_are_printed_escaped() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("Esc");
    std::fs::create_dir_all(src.join("System")).unwrap();
    std::fs::write(src.join("System/Esc.u"), b"x").unwrap();
    std::fs::write(
        src.join("System/Manifest.ini"),
        "[Setup]\r\nProduct=Esc\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Esc.u)\r\nIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=Evil\x1b[1A\x1b[2K\r\nIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=Fine\r\n",
    )
    .unwrap();
    let u = t.path().join("Esc.umod");
    pakrat()
        .args(["umod", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&u)
        .assert()
        .success();
    let g = game(t.path(), "436");
    std::fs::write(
        g.join("system/UnrealTournament.ini"),
        b"[Engine.GameEngine]\r\nServerPackages=Botpack\r\n",
    )
    .unwrap();
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["info".into(), u.clone().into()],
        vec!["verify".into(), u.clone().into()],
        vec![
            "umod".into(),
            "install".into(),
            "--dry-run".into(),
            u.clone().into(),
            "--game-dir".into(),
            g.clone().into(),
        ],
    ];
    for args in runs {
        let out = pakrat().args(&args).output().unwrap();
        let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        let text = String::from_utf8_lossy(&all);
        assert!(!all.contains(&0x1b), "{args:?} printed a raw ESC:\n{text}");
        if args[0] != "verify" {
            assert!(text.contains("Evil\\x1b[1A\\x1b[2K"), "{args:?}:\n{text}");
        }
    }
}

#[test]
fn interrupted_install_is_recovered_first() {
    let t = tempfile::tempdir().unwrap();
    let u = build_example(t.path());
    let g = game(t.path(), "436");
    pakrat()
        .args(["umod", "recover", "--game-dir"])
        .arg(&g)
        .assert()
        .success()
        .stdout(predicate::str::contains("no interrupted install"));
    // What a run killed while staging leaves: its journal and a staged file.
    let journal = "pakrat-journal 1\ntoken\t0123456789abcdef\npid\t999999\nproduct\tHelloMod\nstate\tprepare\nnew\t0\t-\t-\tHelp/HelloMod-ReadMe.txt\nend\n";
    std::fs::write(g.join(".pakrat-journal"), journal).unwrap();
    let staged = g.join("Help/.pakrat-tmp-999999-0123456789abcdef-0");
    std::fs::write(&staged, b"half").unwrap();
    pakrat()
        .args(["umod", "install", "--dry-run"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pakrat umod recover"));
    pakrat()
        .args(["umod", "install"])
        .arg(&u)
        .arg("--game-dir")
        .arg(&g)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "an interrupted install of HelloMod was found (.pakrat-journal): rolled back",
        ));
    assert!(!staged.exists() && !g.join(".pakrat-journal").exists());
    // A journal that is not pakrat's: refused, kept, nothing done.
    std::fs::write(g.join(".pakrat-journal"), b"rm -rf /\n").unwrap();
    pakrat()
        .args(["umod", "recover", "--game-dir"])
        .arg(&g)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing was done"));
    assert!(g.join(".pakrat-journal").exists());
}
