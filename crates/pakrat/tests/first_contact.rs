//! Issue 15, "errors that say what the file is and what to do": a file of
//! the wrong kind for a command gets one sentence naming the file, what it
//! is, and the commands that fit it.

mod common;

use std::path::PathBuf;

use common::{pakrat, run, s};

struct Files {
    utx: PathBuf,
    /// How it describes itself: "an Unreal package (version N, UE1)", the
    /// version from MANIFEST.tsv ("package v64 ...").
    utx_is: String,
    utoc: PathBuf,
}

fn files() -> Option<Files> {
    let c = pakrat_testkit::corpus_dir()?;
    let entry = pakrat_testkit::manifest()?
        .into_iter()
        .find(|e| e.local_path == "ue1/ArenaTex.utx")
        .expect("ArenaTex.utx in MANIFEST.tsv");
    let v = entry
        .detail
        .split_whitespace()
        .find_map(|t| t.strip_prefix('v'))
        .expect("a version in the detail");
    Some(Files {
        utx: c.join("ue1/ArenaTex.utx"),
        utx_is: format!("is an Unreal package (version {v}, UE1)"),
        utoc: c.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"),
    })
}

/// Run and return stderr, requiring exit status 2.
fn fails(args: &[&str]) -> String {
    let out = pakrat().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn umod_install_of_a_package_says_it_is_a_package() {
    let Some(f) = files() else { return };
    let g = tempfile::tempdir().unwrap();
    let err = fails(&["umod", "install", s(&f.utx), "--game-dir", s(g.path())]);
    assert!(
        err.contains(&format!("ArenaTex.utx: {}, not a UMOD installer", f.utx_is))
            && err.contains("`pakrat info`"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn package_commands_on_a_container_say_it_is_a_container() {
    let Some(f) = files() else { return };
    // (`export` takes containers since issue 27: UE4/UE5 textures.)
    let args = ["flags", s(&f.utoc)];
    let err = fails(&args);
    assert!(
        err.contains("is an IoStore container (TOC v8), not a UE1/UE2 package")
            && err.contains("`pakrat info`/`list`/`verify`/`extract`/`packages`"),
        "{args:?}: {err}"
    );
    assert!(!err.contains("0x2d3d3d2d"), "{err}");
}

#[test]
fn packages_of_a_package_and_decompress_of_a_package() {
    let Some(f) = files() else { return };
    let err = fails(&["packages", s(&f.utx)]);
    assert!(
        err.contains(&format!("{}, not an IoStore container", f.utx_is)),
        "{err}"
    );
    let o = tempfile::tempdir().unwrap();
    let err = fails(&["decompress", s(&f.utx), "-o", s(o.path())]);
    assert!(
        err.contains("not a .uz/.uz2/.uz3 file") && err.contains("`pakrat info`"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "said once: {err}");
}

#[test]
fn decompress_error_is_said_once() {
    // A file that claims to be .uz (signature 1234) but is cut short: the
    // uz reader's own error, printed once, not joined to itself.
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("X.u.uz");
    std::fs::write(&f, [0xD2, 0x04, 0, 0, 5, 0, 0, 0]).unwrap();
    let out = pakrat()
        .args(["decompress", s(&f), "-o", s(&t.path().join("o"))])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    let first = err.lines().next().unwrap_or("");
    let msg = first.trim_start_matches("pakrat: error: ");
    // No part of the message appears twice.
    let parts: Vec<&str> = msg.split(": ").collect();
    for (i, p) in parts.iter().enumerate() {
        if p.len() > 12 {
            assert!(!parts[i + 1..].contains(p), "{p:?} said twice in {first:?}");
        }
    }
}

#[test]
fn output_that_is_a_file_is_named() {
    let Some(f) = files() else { return };
    let t = tempfile::tempdir().unwrap();
    let afile = t.path().join("afile");
    std::fs::write(&afile, b"x").unwrap();
    let err = fails(&["extract", s(&f.utoc), "-o", s(&afile)]);
    assert!(
        err.contains("afile: exists and is not a folder") && !err.contains("os error"),
        "{err}"
    );
}

#[test]
fn bad_keys_say_why() {
    let Some(f) = files() else { return };
    let out = pakrat()
        .args(["info", s(&f.utoc), "--aes-key", "zzz"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--aes-key: ") && err.len() > "pakrat: error: --aes-key\n".len() + 10,
        "{err}"
    );
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("keys.json");
    std::fs::write(&bad, b"{").unwrap();
    let out = pakrat()
        .args(["info", s(&f.utoc), "--keys", s(&bad)])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("keys.json: ") || err.contains("keys.json: ".trim()),
        "{err}"
    );
    let line = err.lines().find(|l| l.contains("keys file")).unwrap_or("");
    assert!(
        line.trim_end().len() > line.find("keys.json").unwrap_or(0) + "keys.json".len() + 4,
        "the reason follows the file name: {line:?}"
    );
}

#[test]
fn an_empty_file_is_called_empty() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("empty.utx");
    std::fs::write(&f, b"").unwrap();
    let err = fails(&["info", s(&f)]);
    assert!(err.contains("empty.utx: is empty (0 bytes)"), "{err}");
}

#[test]
fn names_in_messages_are_text_not_escaped_strings() {
    // Item 9: a problem names the property as text (`property GetLocalURL:`),
    // not as an escaped Rust string (`property \"GetLocalURL\"`).
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let out = pakrat()
        .args(["verify", s(&c.join("ue1/NPLoader_v17.u"))])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "NPLoader has problems");
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(text.contains("property GetLocalURL: info byte"), "{text}");
    assert!(!text.contains('\\'), "no escapes: {text}");
}

#[test]
fn help_and_unknown_format_name_everything_pakrat_reads() {
    // Item 11: the top-level help lists every format, .uz* and .pak included.
    let out = pakrat().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let first = help.split("\n\n").next().unwrap().replace('\n', " ");
    for what in ["UMOD", "Unreal packages", ".uz", ".pak", "IoStore"] {
        assert!(first.contains(what), "{what} missing from {first:?}");
    }
    for (cmd, what) in [("info", ".pak"), ("list", ".pak"), ("extract", ".pak")] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(cmd))
            .unwrap_or_else(|| panic!("{cmd} in help"));
        assert!(line.contains(what), "{cmd}: {line}");
    }
}

#[test]
fn a_glob_that_matches_nothing_is_one_error_everywhere() {
    // UMOD, IoStore and .pak extract: exit 2, "no ... matches", and no
    // output folder made.
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let pak = pakrat_testkit::entries("pak")
        .unwrap()
        .into_iter()
        .find(|e| e.local_path.ends_with(".pak") && !e.is_negative())
        .map(|e| c.join(&e.local_path))
        .expect("a pak in the corpus");
    let t = tempfile::tempdir().unwrap();
    for (n, file) in [
        c.join("umod/DropStuff.umod"),
        c.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"),
        pak,
    ]
    .iter()
    .enumerate()
    {
        let out = t.path().join(format!("o{n}"));
        let err = fails(&["extract", s(file), "-o", s(&out), "*.nothing-has-this"]);
        assert!(
            err.contains("matches *.nothing-has-this; nothing was written"),
            "{}: {err}",
            file.display()
        );
        assert!(!out.exists(), "{}: made {}", file.display(), out.display());
    }
}

#[test]
fn a_flag_for_another_format_is_an_error() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let err = fails(&["list", s(&c.join("umod/DE.umod")), "--names"]);
    assert!(
        err.contains("--names, --imports and --exports list package tables")
            && err.contains("this is a UMOD installer"),
        "{err}"
    );
    let err = fails(&["list", s(&c.join("ue1/Core.u")), "--chunks"]);
    assert!(
        err.contains("--chunks lists IoStore chunks; this is an Unreal package"),
        "{err}"
    );
}

#[test]
fn json_errors_are_json() {
    let t = tempfile::tempdir().unwrap();
    // A package tag and a version, then nothing.
    let f = t.path().join("cut.u");
    std::fs::write(&f, [0xC1, 0x83, 0x2A, 0x9E, 0x44, 0, 0, 0]).unwrap();
    let out = pakrat().args(["info", s(&f), "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["exit_code"], 2);
    assert_eq!(v["offset"], 8, "{v}");
    assert!(v["file"].as_str().unwrap().ends_with("cut.u"), "{v}");
    assert!(v["error"].as_str().unwrap().contains("expected"), "{v}");
    // Without --json, stdout stays empty.
    let out = pakrat().args(["info", s(&f)]).output().unwrap();
    assert!(out.stdout.is_empty());
}

#[test]
fn completions_man_page_and_version() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = pakrat().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("pakrat") && text.contains("to-legacy") && text.contains("json"),
            "{shell}: completions miss commands"
        );
    }
    let out = pakrat().arg("man").output().unwrap();
    let man = String::from_utf8(out.stdout).unwrap();
    assert!(
        man.starts_with(".ie") && man.contains(".TH pakrat 1"),
        "{man}"
    );
    assert!(man.contains("IoStore"), "the description names the formats");
    // `man -o DIR` writes every page that a page refers to.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("man");
    pakrat()
        .args(["man", "-o", dir.to_str().unwrap()])
        .assert()
        .success();
    let pages = common::file_names(&dir);
    for p in [
        "pakrat.1",
        "pakrat-list.1",
        "pakrat-umod-create.1",
        "pakrat-zen-to-legacy.1",
    ] {
        assert!(pages.iter().any(|x| x == p), "no {p} in {pages:?}");
    }
    for p in &pages {
        let text = std::fs::read_to_string(dir.join(p)).unwrap();
        assert!(text.contains(".TH"), "{p}");
        // roff escapes the dash: `pakrat\-umod\-create(1)`.
        for r in text.split("pakrat\\-").skip(1) {
            let Some((name, _)) = r.split_once("(1)") else {
                continue;
            };
            if !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '\\' || c == '-')
            {
                continue;
            }
            let file = format!("pakrat-{}.1", name.replace("\\-", "-"));
            assert!(pages.contains(&file), "{p} refers to {file}, not written");
        }
    }
    // Written again: refused without --force.
    pakrat()
        .args(["man", "-o", dir.to_str().unwrap()])
        .assert()
        .failure();
    // --version names the commit when built from a checkout.
    let out = pakrat().arg("--version").output().unwrap();
    let v = String::from_utf8(out.stdout).unwrap();
    assert!(
        v.starts_with(&format!("pakrat {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(head) = head {
        assert!(v.contains(&format!("(git {head}")), "{v} vs HEAD {head}");
    }
}

#[test]
fn extract_without_the_ucas_fails_once_up_front() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // The game containers of the corpus ship their .utoc without the .ucas.
    let utoc = c.join("iostore/ToonTanks/Content/Paks/ToonTanks-Windows.utoc");
    assert!(!utoc.with_extension("ucas").exists());
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("o");
    let err = fails(&["extract", s(&utoc), "-o", s(&out)]);
    assert!(
        err.contains("its .ucas (the chunk data) is missing"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line, not one per file: {err}");
    assert!(!out.exists());
}

#[test]
fn packages_counts_header_ids_without_a_chunk_and_lists_them_on_request() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let src = c.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc");
    // Turn the first package chunk into bulk data (its chunk id's type
    // byte): the container header still names the package, no package
    // chunk has its id.
    let v = common::json_ok(&["list", s(&src), "--chunks", "--json"]);
    let id = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["type"] == "ExportBundleData")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let raw = hex::decode(&id).unwrap();
    let mut toc = std::fs::read(&src).unwrap();
    let at = toc
        .windows(12)
        .position(|w| w == raw.as_slice())
        .expect("the chunk id in the TOC");
    toc[at + 11] = 2;
    let t = tempfile::tempdir().unwrap();
    let utoc = t.path().join("C.utoc");
    std::fs::write(&utoc, &toc).unwrap();
    std::fs::copy(src.with_extension("ucas"), utoc.with_extension("ucas")).unwrap();
    let out = pakrat().args(["packages", s(&utoc)]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // The package id as pakrat prints it: the u64 (stored little-endian
    // in the chunk id's first 8 bytes) in upper-case hex.
    let mut le = [0u8; 8];
    le.copy_from_slice(&raw[..8]);
    let pkg_id = format!("{:016X}", u64::from_le_bytes(le));
    assert!(
        text.contains("1 package id(s) in the container header have no package chunk here (--verbose lists them)"),
        "{text}"
    );
    assert!(!text.contains(&pkg_id), "{text}");
    let out = pakrat()
        .args(["packages", s(&utoc), "--verbose"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("no package chunk here:") && text.lines().any(|l| l.trim() == pkg_id),
        "{pkg_id} on a line of its own: {text}"
    );
    assert!(text.lines().all(|l| l.len() < 300), "no long lines");
}

#[test]
fn an_empty_container_verifies() {
    // 0 entries and 0 blocks: there is no data to miss.
    let t = tempfile::tempdir().unwrap();
    let toc = pakrat_testkit::utoc::TocV8 {
        container_id: 1,
        block_size: 65536,
        method: None,
        entries: Vec::new(),
        blocks: Vec::new(),
    };
    let utoc = t.path().join("Empty.utoc");
    std::fs::write(&utoc, toc.bytes()).unwrap();
    let out = pakrat()
        .args(["verify", s(&utoc), "--json"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["partitions"], 1, "{v}");
}

#[test]
fn export_skips_what_the_file_does_not_hold() {
    // ChizraEFX.utx: a procedural FireTexture (pixels drawn at run time) and
    // two WetTextures whose palette is in genfluid.utx. Nothing unexpected
    // failed, so exit 0, each named with its reason.
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("o");
    let (code, stdout, stderr) = run(&["export", s(&c.join("ue1/ChizraEFX.utx")), "-o", s(&out)]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("FireTexture lightning6 skipped: procedural FireTexture"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("lives in another package").count(),
        2,
        "{stdout}"
    );
    assert!(
        stdout.contains("3 skipped (nothing to export), 0 objects failed"),
        "{stdout}"
    );
    // --json says which kind of skip.
    let v = common::json_ok(&[
        "export",
        s(&c.join("ue1/ChizraEFX.utx")),
        "-o",
        s(&out),
        "--json",
    ]);
    let causes: Vec<&str> = v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["class"] != "Palette")
        .map(|o| o["cause"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(causes, ["content"; 3], "{v}");
    // A server-stripped package (every sound empty): skipped, exit 0.
    let (code, stdout, _) = run(&["export", s(&c.join("ue1/Activates.uax")), "-o", s(&out)]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("skipped: stripped: the sound holds no data"),
        "{stdout}"
    );
    // Script text goes to Classes/<Class>.uc.
    let (code, stdout, _) = run(&[
        "export",
        s(&c.join("ue1/Core.u")),
        "--class",
        "TextBuffer",
        "-o",
        s(&out),
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(out.join("Classes/Object.uc").is_file(), "{stdout}");
}

#[test]
fn export_refuses_existing_files_up_front() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let core = c.join("ue1/Core.u");
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("o");
    let (code, _, err) = run(&["export", s(&core), "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    // Remove one output: the second run must still write nothing.
    let gone = out.join("Classes/Object.uc");
    std::fs::remove_file(&gone).unwrap();
    let err = fails(&["export", s(&core), "-o", s(&out)]);
    assert!(
        err.contains("already exists (")
            && err.contains("nothing was written (--force replaces them)"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!gone.exists(), "written despite the refusal");
    let (code, _, err) = run(&["export", s(&core), "-o", s(&out), "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(gone.is_file());
    // --class that matches nothing: one error, no folder made.
    let none = t.path().join("none");
    let err = fails(&["export", s(&core), "--class", "Music", "-o", s(&none)]);
    assert!(
        err.contains("no object matches --class Music; nothing was written"),
        "{err}"
    );
    assert!(!none.exists());
}

#[test]
fn export_of_a_folder_exports_each_package() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(src.join("Sub")).unwrap();
    std::fs::copy(c.join("ue1/Core.u"), src.join("Core.u")).unwrap();
    std::fs::copy(c.join("ue1/ChizraEFX.utx"), src.join("Sub/ChizraEFX.utx")).unwrap();
    std::fs::write(src.join("readme.txt"), "not a package").unwrap();
    let out = t.path().join("o");
    let (code, stdout, err) = run(&["export", s(&src), "-o", s(&out)]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(out.join("Core/Classes/Object.uc").is_file(), "{stdout}");
    assert!(
        stdout.contains("2 packages (1 other files ignored)"),
        "{stdout}"
    );
    // ChizraEFX has nothing exportable (all skipped): no folder of files.
    assert!(
        stdout.contains("ChizraEFX.utx: 0 files, 3 skipped"),
        "{stdout}"
    );
    // Again: refused once, up front.
    let err = fails(&["export", s(&src), "-o", s(&out)]);
    assert!(
        err.contains("Core/Classes/") && err.contains("already exists"),
        "{err}"
    );
    // Object names apply to one package.
    let err = fails(&["export", s(&src), "Object", "-o", s(&out)]);
    assert!(err.contains("is a folder"), "{err}");
}

#[test]
fn deps_on_a_plain_folder_resolves_siblings_and_says_so() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    // UWindow (UT v469b) imports Core and Engine; a folder with no System/
    // and no ini holds all three.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("pkgs");
    std::fs::create_dir_all(dir.join("deeper")).unwrap();
    std::fs::copy(c.join("ue1/UWindow.u"), dir.join("UWindow.u")).unwrap();
    std::fs::copy(c.join("ue1/ut469b_Core.u"), dir.join("Core.u"))
        .or_else(|_| std::fs::copy(c.join("ue1/Core.u"), dir.join("Core.u")))
        .unwrap();
    std::fs::copy(c.join("ue1/ut469b_Engine.u"), dir.join("deeper/ENGINE.u")).unwrap();
    let (code, stdout, err) = run(&["deps", s(&dir.join("UWindow.u"))]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("a plain folder of packages"), "{stdout}");
    assert!(
        stdout.contains("3 packages: 3 found, 0 missing"),
        "{stdout}"
    );
    assert!(stdout.contains("ENGINE.u"), "{stdout}");
    // Without the file, a name needs --game-dir.
    let err = fails(&["deps", "UWindow"]);
    assert!(err.contains("--game-dir"), "{err}");
    let v = common::json_ok(&["deps", "UWindow", "--game-dir", s(&dir), "--json"]);
    assert_eq!(v["game"]["plain_folder"], true, "{v}");
    assert!(v["missing"].as_array().unwrap().is_empty(), "{v}");
}

#[test]
fn progress_bars_only_when_asked_and_never_with_quiet() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let umod = c.join("umod/DropStuff.umod");
    let uz = c.join("uz/KFMutators.u.uz2");
    let core = c.join("ue1/Core.u");
    let jobs: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["extract".into(), s(&umod).into(), "-o".into()],
            "extracting [",
        ),
        (
            vec!["export".into(), s(&core).into(), "-o".into()],
            "exporting [",
        ),
        (
            vec!["decompress".into(), s(&uz).into(), "-o".into()],
            "decompressing [",
        ),
    ];
    for (n, (args, bar)) in jobs.iter().enumerate() {
        for (mode, env, quiet) in [
            ("plain", None, false),
            ("forced", Some("always"), false),
            ("quiet", Some("always"), true),
        ] {
            let out = t.path().join(format!("{n}-{mode}"));
            let mut cmd = pakrat();
            cmd.args(args).arg(&out);
            if quiet {
                cmd.arg("--quiet");
            }
            match env {
                Some(v) => cmd.env("PAKRAT_PROGRESS", v),
                None => cmd.env_remove("PAKRAT_PROGRESS"),
            };
            let o = cmd.output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{args:?} {mode}: {err}");
            // stderr is a pipe here: a bar only when forced, never with --quiet.
            assert_eq!(
                err.contains(bar),
                mode == "forced",
                "{args:?} {mode}: {err:?}"
            );
        }
    }
}
