//! Issue 31: one exit-code rule for every command (0 OK, 1 ran and found
//! problems, 2 could not run), writers that make their output folder, and
//! messages that say what to do. Every input is built here; no corpus.

mod common;

use std::path::Path;

use common::run_in as run;

/// A UE1 package header (tag, version 69, licensee 0) and some zeros: what
/// every command sniffs as "an Unreal package (version 69, UE1)".
fn fake_ue1(path: &Path) {
    let mut d = vec![0xC1, 0x83, 0x2A, 0x9E, 69, 0, 0, 0];
    d.resize(208, 0);
    std::fs::write(path, d).unwrap();
}

/// A folder with a pak (`good.pak`), a damaged copy (`bad.pak`), a package
/// (`Fake.u`) and its `.uz`.
fn inputs(dir: &Path) {
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("Game")).unwrap();
    std::fs::write(src.join("Game/a.txt"), "some text\n".repeat(50)).unwrap();
    std::fs::write(src.join("Game/b.bin"), [5u8; 300]).unwrap();
    let (code, _, err) = run(dir, &["pak", "create", "src", "-o", "good.pak"]);
    assert_eq!(code, 0, "{err}");
    let mut bad = std::fs::read(dir.join("good.pak")).unwrap();
    // The first entry's data starts after its 53-byte data header (v11,
    // stored): change a byte of it.
    bad[60] ^= 0xFF;
    std::fs::write(dir.join("bad.pak"), bad).unwrap();
    fake_ue1(&dir.join("Fake.u"));
    let (code, _, err) = run(dir, &["compress", "Fake.u"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.join("junk.bin"), b"nothing pakrat knows").unwrap();
}

#[test]
fn every_command_follows_one_exit_code_rule() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    inputs(d);
    #[rustfmt::skip]
    let table: &[(&[&str], i32)] = &[
        // 0: it ran and all is well.
        (&["list", "good.pak"], 0),
        (&["verify", "good.pak"], 0),
        (&["list", "good.pak", "Game/*.txt"], 0),
        (&["extract", "good.pak", "-o", "out0"], 0),
        (&["info", "Fake.u.uz"], 0),
        // 1: it ran and found problems.
        (&["verify", "bad.pak"], 1),
        (&["extract", "bad.pak", "-o", "out1"], 1),
        // 2: it could not run (bad usage, unreadable input).
        (&["no-such-command"], 2),
        (&["list"], 2),
        (&["info", "missing.pak"], 2),
        (&["list", "missing.pak"], 2),
        (&["verify", "missing.pak"], 2),
        (&["extract", "missing.pak", "-o", "out2"], 2),
        (&["compress", "missing.u"], 2),
        (&["compress", "Fake.u", "missing.u", "-o", "cz", "--force"], 2),
        (&["decompress", "missing.uz"], 2),
        (&["info", "junk.bin"], 2),
        (&["verify", "junk.bin"], 2),
        // A selection that matches nothing, the same for list and extract.
        (&["list", "good.pak", "*.nothing-has-this"], 2),
        (&["extract", "good.pak", "-o", "out3", "*.nothing-has-this"], 2),
    ];
    std::fs::create_dir_all(d.join("cz")).unwrap();
    let mut wrong = Vec::new();
    for (args, want) in table {
        let (code, out, err) = run(d, args);
        if code != *want {
            wrong.push(format!(
                "{args:?}: exit {code}, expected {want}\n{out}{err}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The README states the rule.
    let readme = std::fs::read_to_string(pakrat_testkit::repo_root().join("README.md")).unwrap();
    assert!(
        readme.contains("## Exit codes"),
        "README has no Exit codes section"
    );
}

#[test]
fn writers_make_their_output_folder() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    inputs(d);
    let (code, _, err) = run(d, &["pak", "create", "src", "-o", "new/sub/g.pak"]);
    assert_eq!(code, 0, "{err}");
    assert!(d.join("new/sub/g.pak").is_file());
    let mod_src = d.join("Mod");
    std::fs::create_dir_all(mod_src.join("System")).unwrap();
    std::fs::write(mod_src.join("System/Mod.int"), b"[Public]\r\n").unwrap();
    std::fs::write(
        mod_src.join("System/Manifest.ini"),
        b"[Setup]\r\nProduct=Mod\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Mod.int)\r\n",
    )
    .unwrap();
    let (code, _, err) = run(d, &["umod", "create", "Mod", "-o", "made/here/Mod.umod"]);
    assert_eq!(code, 0, "{err}");
    assert!(d.join("made/here/Mod.umod").is_file());
    // A folder that cannot be made: the error names it, never a temporary
    // file.
    std::fs::write(d.join("afile"), b"x").unwrap();
    let (code, _, err) = run(d, &["pak", "create", "src", "-o", "afile/x/g.pak"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("afile"), "{err}");
    assert!(!err.contains(".pakrat-tmp"), "{err}");
}

#[test]
fn messages_say_what_the_file_is_and_what_to_do() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    inputs(d);
    // Truncated .pak and .umod: said so, one line.
    let pak = std::fs::read(d.join("good.pak")).unwrap();
    std::fs::write(d.join("cut.pak"), &pak[..pak.len() / 2]).unwrap();
    std::fs::write(d.join("cut.umod"), &pak[..100]).unwrap();
    for f in ["cut.pak", "cut.umod"] {
        for cmd in ["list", "verify", "info"] {
            let (code, _, err) = run(d, &[cmd, f]);
            assert_eq!(code, 2, "{cmd} {f}: {err}");
            assert!(err.contains("looks truncated: no "), "{cmd} {f}: {err}");
            assert!(err.contains(" at the end"), "{cmd} {f}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    // A .uz with list/verify/extract: info and decompress are the way.
    for args in [
        &["list", "Fake.u.uz"][..],
        &["verify", "Fake.u.uz"],
        &["extract", "Fake.u.uz", "-o", "o"],
    ] {
        let (code, _, err) = run(d, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("`pakrat info`") && err.contains("`pakrat decompress`"),
            "{args:?}: {err}"
        );
    }
    // zen to-legacy on a UE1 package: what it is, as other commands say.
    let (code, _, err) = run(d, &["zen", "to-legacy", "Fake.u", "-o", "z"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Fake.u: is an Unreal package (version 69, UE1), not an IoStore container"),
        "{err}"
    );
    // iostore create on a folder of legacy packages points to from-legacy.
    let legacy = d.join("legacy/Game");
    std::fs::create_dir_all(&legacy).unwrap();
    let mut asset = vec![0xC1, 0x83, 0x2A, 0x9E];
    asset.extend_from_slice(&(-8i32).to_le_bytes());
    asset.resize(64, 0);
    std::fs::write(legacy.join("A.uasset"), &asset).unwrap();
    let (code, _, err) = run(d, &["iostore", "create", "legacy", "-o", "m.utoc"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("zen from-legacy legacy --into m.utoc"),
        "{err}"
    );
    // Many packages failing for one reason: one line, not one per package.
    for i in 0..5 {
        let mut unversioned = vec![0xC1, 0x83, 0x2A, 0x9E];
        unversioned.extend_from_slice(&(-8i32).to_le_bytes());
        unversioned.resize(200, 0);
        std::fs::write(legacy.join(format!("U{i}.uasset")), &unversioned).unwrap();
    }
    std::fs::remove_file(legacy.join("A.uasset")).unwrap();
    let (code, _, err) = run(d, &["zen", "from-legacy", "legacy", "-o", "zl"]);
    assert_eq!(code, 1, "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("5 files ("), "{err}");
    // -q drops progress and per-file lines, never the result line.
    let (code, out, err) = run(d, &["-q", "extract", "good.pak", "-o", "q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("extracted 2 of 2 files"), "{out}");
}
