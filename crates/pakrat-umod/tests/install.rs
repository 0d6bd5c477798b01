//! Install edge cases: .uz decoding, old-version checks, hostile destinations.

use std::path::{Path, PathBuf};

use pakrat_umod::create::{self, CreateOptions};
use pakrat_umod::install::{install, uninstall, FileAction, InstallOptions};
use pakrat_umod::Umod;

fn write(p: &Path, b: &[u8]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b).unwrap();
}

/// Build a UMOD from `files` (relative path, bytes) and a Manifest.ini body.
fn build(dir: &Path, ini: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    build_bytes(dir, ini.as_bytes(), files)
}

/// [`build`] with the Manifest.ini given as bytes (any encoding).
fn build_bytes(dir: &Path, ini: &[u8], files: &[(&str, &[u8])]) -> Vec<u8> {
    let src = dir.join("src");
    write(&src.join("System/Manifest.ini"), ini);
    for (n, b) in files {
        write(&src.join(n), b);
    }
    let out = dir.join("mod.umod");
    create::create(&src, &out, true, &CreateOptions::default()).unwrap();
    std::fs::read(out).unwrap()
}

fn game(dir: &Path, manifest: &str) -> PathBuf {
    let g = dir.join("game");
    write(&g.join("System/Manifest.ini"), manifest.as_bytes());
    g
}

fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn uz_sources_are_decoded() {
    let t = tempfile::tempdir().unwrap();
    let package: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    let uz = pakrat_uz::compress(
        &package,
        &pakrat_uz::CompressOptions::new(pakrat_uz::UzFormat::Uz, "X.unr"),
    )
    .unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=UzMod\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=Maps\\X.unr.uz,Dest=Maps\\X.unr)\r\nFile=(Src=Maps\\Y.unr.uz)\r\n",
        &[("Maps/X.unr.uz", &uz), ("Maps/Y.unr.uz", &uz)],
    );
    let u = Umod::parse(&data).unwrap();
    let g = game(t.path(), "[Setup]\r\n");
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    assert!(rep.files[0].decoded_uz);
    assert_eq!(rep.files[0].size, package.len() as u64);
    assert_eq!(std::fs::read(g.join("Maps/X.unr")).unwrap(), package);
    // A .uz installed as .uz is copied as is.
    assert!(!rep.files[1].decoded_uz);
    assert_eq!(std::fs::read(g.join("Maps/Y.unr.uz")).unwrap(), uz);
}

#[test]
fn old_version_install_check_and_product_alias() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=M\r\nVersion=1\r\nRequires=R\r\nGroup=G\r\n\r\n[R]\r\nProduct=Unreal Tournament\r\nVersion=400\r\nOldVersionInstallCheck=System\\UnrealTournament.exe\r\nOldVersionNumber=405\r\n\r\n[G]\r\nFile=(Src=System\\M.int)\r\n",
        &[("System/M.int", b"x")],
    );
    let u = Umod::parse(&data).unwrap();
    // No [UnrealTournament] section and no old-version file: refused.
    let g = game(t.path(), "[Setup]\r\n");
    let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("requires UnrealTournament 400, which is not installed"),
        "{err}"
    );
    assert_eq!(tree(&g), ["System/Manifest.ini"]);
    // The old-version file (found case-insensitively) stands for version 405.
    write(&g.join("System/unrealtournament.EXE"), b"MZ");
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    assert!(rep.requirements[0].ok, "{:?}", rep.requirements);
    assert_eq!(rep.requirements[0].found.as_deref(), Some("405"));
    // --ignore-requirements lets an unmet requirement through, with a note.
    let g2 = game(
        &t.path().join("g2"),
        "[UnrealTournament]\r\nVersion=348\r\n",
    );
    let opts = InstallOptions {
        ignore_requirements: true,
        ..Default::default()
    };
    let rep = install(&u, &g2, &opts).unwrap();
    assert!(rep.notes.iter().any(|n| n.contains("requirements ignored")));
}

#[test]
fn hostile_destinations_are_refused() {
    for (dest, msg) in [
        ("..\\..\\evil.txt", "refusing unsafe member name"),
        ("C:\\Windows\\evil.txt", "drive letter"),
        (
            "System\\Manifest.ini",
            "refusing to install over the game's",
        ),
    ] {
        let t = tempfile::tempdir().unwrap();
        let ini = format!(
            "[Setup]\r\nProduct=Evil\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\ok.txt)\r\nFile=(Src=System\\e.txt,Dest={dest})\r\n"
        );
        let data = build(
            t.path(),
            &ini,
            &[("System/ok.txt", b"ok"), ("System/e.txt", b"evil")],
        );
        let u = Umod::parse(&data).unwrap();
        let g = game(t.path(), "[Setup]\r\n");
        let before = std::fs::read(g.join("System/Manifest.ini")).unwrap();
        let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
        assert!(err.to_string().contains(msg), "{dest}: {err}");
        assert_eq!(tree(&g), ["System/Manifest.ini"], "{dest}");
        assert_eq!(
            std::fs::read(g.join("System/Manifest.ini")).unwrap(),
            before
        );
        assert!(!t.path().join("evil.txt").exists());
    }
}

#[test]
fn uninstall_never_leaves_the_game_folder() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("outside.txt"), b"keep me");
    let g = game(
        t.path(),
        "[Setup]\r\nGroup=Bad\r\n\r\n[Bad]\r\nFile=..\\outside.txt\r\nFile=System\\gone.txt\r\n\r\n[RefCounts]\r\nFile:..\\outside.txt=1\r\n",
    );
    let rep = uninstall("bad", &g, false).unwrap();
    assert!(matches!(
        rep.files[0].action,
        pakrat_umod::install::UninstallAction::Refused { .. }
    ));
    assert_eq!(
        rep.files[1].action,
        pakrat_umod::install::UninstallAction::Missing
    );
    assert_eq!(
        std::fs::read(t.path().join("outside.txt")).unwrap(),
        b"keep me"
    );
    let ini = std::fs::read_to_string(g.join("System/Manifest.ini")).unwrap();
    assert!(
        !ini.contains("[Bad]") && !ini.contains("Group=Bad"),
        "{ini}"
    );
    let _ = FileAction::Create;
}

#[test]
fn ini_edits_merge_and_never_create() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=M\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\M.u)\r\n\
Ini=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=M\r\n\
Ini=System\\UnrealTournament.ini,Engine.Engine.GameRenderDevice=OpenGLDrv.OpenGLRenderDevice\r\n\
AddIni=UnrealTournament.ini,Engine.GameEngine.ServerActors=M.Actor\r\n\
AddIni=System\\User.ini,Engine.Input.F1=Say hello\r\n\
Ini=!System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=NotM\r\n",
        &[("System/M.u", b"u")],
    );
    let u = Umod::parse(&data).unwrap();
    let g = game(t.path(), "[UnrealTournament]\r\nVersion=436\r\n");
    let ut = "; comment kept\r\n[Engine.Engine]\r\nGameRenderDevice=SoftDrv.SoftwareRenderDevice\r\n\r\n[Engine.GameEngine]\r\nServerPackages=Botpack\r\nServerActors=IpDrv.UdpBeacon\r\n";
    write(&g.join("System/UnrealTournament.ini"), ut.as_bytes());
    // Dry run: planned, nothing written.
    let opts = InstallOptions {
        dry_run: true,
        ..Default::default()
    };
    let rep = install(&u, &g, &opts).unwrap();
    assert_eq!(rep.ini_edits.iter().filter(|e| e.applied).count(), 3);
    assert_eq!(
        std::fs::read_to_string(g.join("System/UnrealTournament.ini")).unwrap(),
        ut
    );
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    let got = std::fs::read_to_string(g.join("System/UnrealTournament.ini")).unwrap();
    assert_eq!(
        got,
        "; comment kept\r\n[Engine.Engine]\r\nGameRenderDevice=OpenGLDrv.OpenGLRenderDevice\r\n\r\n[Engine.GameEngine]\r\nServerPackages=Botpack\r\nServerPackages=M\r\nServerActors=IpDrv.UdpBeacon\r\nServerActors=M.Actor\r\n"
    );
    let user = rep
        .ini_edits
        .iter()
        .find(|e| e.raw.contains("User.ini"))
        .unwrap();
    assert!(
        !user.applied && user.note.contains("does not exist"),
        "{user:?}"
    );
    assert!(!g.join("System/User.ini").exists());
    let neg = rep
        .ini_edits
        .iter()
        .find(|e| e.raw.starts_with('!'))
        .unwrap();
    assert!(!neg.applied);
}

// ---- Issue 16: installs that cannot hurt a game folder. Each test builds
// the hostile UMOD and game folder itself.

/// Every file under `dir` with its bytes (folders included as `name/`).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                stack.push(e.path());
            } else if ft.is_symlink() {
                out.push((format!("{rel}@"), Vec::new()));
            } else {
                out.push((rel, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const UT: &str = "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\nFile=System\\Engine.u\r\n\r\n[RefCounts]\r\nFile:System\\Engine.u=1\r\n";

fn ut_game(dir: &Path) -> PathBuf {
    let g = game(dir, UT);
    write(&g.join("System/Engine.u"), b"engine bytes");
    write(
        &g.join("System/UnrealTournament.ini"),
        b"[Engine.GameEngine]\r\nServerPackages=Botpack\r\n",
    );
    write(&g.join("Maps/DM-Deck16.unr"), b"a user's map");
    g
}

#[test]
fn f1_ini_may_not_edit_records_or_binaries() {
    for target in [
        "System\\Manifest.ini,Evil.File=System\\Engine.u",
        "system/MANIFEST.INI,Evil.File=Maps\\DM-Deck16.unr",
        "System\\Engine.u,Core.Evil=1",
        "Maps\\DM-Deck16.unr,Engine.Evil=1",
    ] {
        let t = tempfile::tempdir().unwrap();
        let ini = format!(
            "[Setup]\r\nProduct=Evil\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Evil.u)\r\nIni={target}\r\n"
        );
        let data = build(t.path(), &ini, &[("System/Evil.u", b"evil")]);
        let u = Umod::parse(&data).unwrap();
        let g = ut_game(t.path());
        let before = snapshot(&g);
        let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
        assert!(
            err.to_string().contains("nothing was changed"),
            "{target}: {err}"
        );
        assert_eq!(snapshot(&g), before, "{target}");
    }
}

#[test]
fn f1_uninstall_deletes_only_what_install_recorded() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Evil\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Evil.u)\r\nFile=(Src=System\\Evil.int)\r\n",
        &[("System/Evil.u", b"evil"), ("System/Evil.int", b"[Public]\r\n")],
    );
    let u = Umod::parse(&data).unwrap();
    let g = ut_game(t.path());
    install(&u, &g, &InstallOptions::default()).unwrap();
    // A File= line forged into the product's record (as an Ini= edit of
    // Manifest.ini could once add), and a file the user changed since.
    let m = std::fs::read_to_string(g.join("System/Manifest.ini")).unwrap();
    let m = m.replace(
        "[Evil]\r\n",
        "[Evil]\r\nFile=System\\Engine.u\r\nFile=Maps\\DM-Deck16.unr\r\n",
    );
    std::fs::write(g.join("System/Manifest.ini"), m).unwrap();
    std::fs::write(g.join("System/Evil.int"), b"edited by the user").unwrap();
    let rep = uninstall("Evil", &g, false).unwrap();
    let act = |d: &str| {
        rep.files
            .iter()
            .find(|f| f.dest == d)
            .map(|f| f.action.clone())
            .unwrap()
    };
    use pakrat_umod::install::UninstallAction as A;
    assert_eq!(act("System\\Evil.u"), A::Remove);
    assert!(matches!(act("System\\Evil.int"), A::Changed { .. }));
    assert!(matches!(act("System\\Engine.u"), A::Keep { .. }));
    assert_eq!(act("Maps\\DM-Deck16.unr"), A::NotOwned);
    assert_eq!(
        std::fs::read(g.join("System/Engine.u")).unwrap(),
        b"engine bytes"
    );
    assert_eq!(
        std::fs::read(g.join("Maps/DM-Deck16.unr")).unwrap(),
        b"a user's map"
    );
    assert_eq!(
        std::fs::read(g.join("System/Evil.int")).unwrap(),
        b"edited by the user"
    );
    assert!(!g.join("System/Evil.u").exists());
}

#[test]
fn f2_identical_file_already_there_is_not_the_mods() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Same\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=Maps\\DM-Deck16.unr)\r\nFile=(Src=System\\Same.u)\r\n",
        &[("Maps/DM-Deck16.unr", b"a user's map"), ("System/Same.u", b"new")],
    );
    let u = Umod::parse(&data).unwrap();
    let g = ut_game(t.path());
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    let map = rep
        .files
        .iter()
        .find(|f| f.dest == "Maps\\DM-Deck16.unr")
        .unwrap();
    assert_eq!(map.action, FileAction::Unchanged);
    assert!(!map.owned);
    let m = std::fs::read_to_string(g.join("System/Manifest.ini")).unwrap();
    assert!(!m.contains("DM-Deck16"), "recorded as the mod's:\n{m}");
    uninstall("Same", &g, false).unwrap();
    assert_eq!(
        std::fs::read(g.join("Maps/DM-Deck16.unr")).unwrap(),
        b"a user's map"
    );
    assert!(!g.join("System/Same.u").exists());
    // Identical to a file the base game lists: shared (its count goes up
    // and back down), never deleted.
    let data = build(
        &t.path().join("b"),
        "[Setup]\r\nProduct=Shares\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Engine.u)\r\n",
        &[("System/Engine.u", b"engine bytes")],
    );
    let u = Umod::parse(&data).unwrap();
    install(&u, &g, &InstallOptions::default()).unwrap();
    let m = std::fs::read_to_string(g.join("System/Manifest.ini")).unwrap();
    assert!(m.contains("File:System\\Engine.u=2"), "{m}");
    uninstall("Shares", &g, false).unwrap();
    assert_eq!(
        std::fs::read(g.join("System/Engine.u")).unwrap(),
        b"engine bytes"
    );
    let m = std::fs::read_to_string(g.join("System/Manifest.ini")).unwrap();
    assert!(m.contains("File:System\\Engine.u=1"), "{m}");
}

#[test]
fn f3_a_product_cannot_take_over_another() {
    for product in ["UnrealTournament", "unrealtournament", "Other", "Setup"] {
        let t = tempfile::tempdir().unwrap();
        let ini = format!(
            "[Setup]\r\nProduct={product}\r\nVersion=100\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\X.u)\r\n"
        );
        let data = build(t.path(), &ini, &[("System/X.u", b"x")]);
        let u = Umod::parse(&data).unwrap();
        let g = game(
            t.path(),
            &format!("{UT}\r\n[Other]\r\nCaption=Other\r\nVersion=2\r\n"),
        );
        let before = snapshot(&g);
        let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("collides with the installed product")
                || msg.contains("refusing product name"),
            "{product}: {msg}"
        );
        assert_eq!(snapshot(&g), before, "{product}");
    }
}

#[test]
fn f4_file_and_folder_of_the_same_name_is_refused_up_front() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Clash\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Good.u)\r\nFile=(Src=Y\\B)\r\nFile=(Src=Z,Dest=y)\r\n",
        &[("System/Good.u", b"good"), ("Y/B", b"b"), ("Z", b"z")],
    );
    let u = Umod::parse(&data).unwrap();
    let g = ut_game(t.path());
    let before = snapshot(&g);
    let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("as a file and as the folder"),
        "{err}"
    );
    assert_eq!(snapshot(&g), before);
    // A file on disk where the mod needs a folder, and a folder where it
    // puts a file.
    for (setup, msg) in [
        ("Textures", "needs a folder"),
        ("System/Good.u/", "a folder where a file goes"),
    ] {
        let g = ut_game(&t.path().join(setup.replace('/', "_")));
        if let Some(d) = setup.strip_suffix('/') {
            std::fs::create_dir_all(g.join(d)).unwrap();
        } else {
            write(&g.join(setup), b"a file");
        }
        let data = build(
            &t.path().join(format!("m{}", setup.len())),
            "[Setup]\r\nProduct=Way\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Good.u)\r\nFile=(Src=Textures\\T.utx)\r\n",
            &[("System/Good.u", b"good"), ("Textures/T.utx", b"t")],
        );
        let u = Umod::parse(&data).unwrap();
        let before = snapshot(&g);
        let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
        assert!(err.to_string().contains(msg), "{setup}: {err}");
        assert_eq!(snapshot(&g), before, "{setup}");
    }
}

#[cfg(unix)]
#[test]
fn f4_symlinked_records_and_inis_are_refused_before_writing() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Link\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Good.u)\r\nIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=Good\r\n",
        &[("System/Good.u", b"good")],
    );
    let u = Umod::parse(&data).unwrap();
    for link in ["System/Manifest.ini", "System/UnrealTournament.ini"] {
        let g = ut_game(&t.path().join(link.replace('/', "_")));
        let real = t.path().join(format!("real-{}", link.replace('/', "_")));
        std::fs::rename(g.join(link), &real).unwrap();
        std::os::unix::fs::symlink(&real, g.join(link)).unwrap();
        let before = snapshot(&g);
        let real_before = std::fs::read(&real).unwrap();
        let err = install(&u, &g, &InstallOptions::default()).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{link}: {err}");
        assert_eq!(snapshot(&g), before, "{link}");
        assert_eq!(std::fs::read(&real).unwrap(), real_before);
    }
}

#[test]
fn f4_a_failure_while_committing_rolls_everything_back() {
    let t = tempfile::tempdir().unwrap();
    // New files in a new folder, a replaced file (--force, so a backup),
    // an edited ini and the record: every kind of step.
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Roll\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Roll.u)\r\nFile=(Src=Music\\New\\Roll.umx)\r\nFile=(Src=Maps\\DM-Deck16.unr)\r\nIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=Roll\r\n",
        &[
            ("System/Roll.u", b"roll"),
            ("Music/New/Roll.umx", b"music"),
            ("Maps/DM-Deck16.unr", b"the mod's map"),
        ],
    );
    let u = Umod::parse(&data).unwrap();
    let mut k = 0;
    loop {
        let g = ut_game(&t.path().join(format!("g{k}")));
        let before = snapshot(&g);
        let opts = InstallOptions {
            force: true,
            fail_after_renames: Some(k),
            ..Default::default()
        };
        match install(&u, &g, &opts) {
            Err(e) => {
                assert!(e.to_string().contains("rolled back"), "{k}: {e}");
                assert_eq!(snapshot(&g), before, "after a failure at rename {k}");
            }
            Ok(_) => {
                // k is past the last rename: the install went through.
                assert!(k >= 5, "only {k} renames");
                assert_eq!(
                    std::fs::read(g.join("Maps/DM-Deck16.unr")).unwrap(),
                    b"the mod's map"
                );
                assert_eq!(
                    std::fs::read(g.join("Maps/DM-Deck16.unr.pakrat-bak")).unwrap(),
                    b"a user's map"
                );
                let names: Vec<String> = snapshot(&g).into_iter().map(|(n, _)| n).collect();
                assert!(
                    !names.iter().any(|n| n.contains(".pakrat-tmp")),
                    "{names:?}"
                );
                break;
            }
        }
        k += 1;
    }
}

#[test]
fn f7_names_outside_latin1_survive_install_and_uninstall() {
    let t = tempfile::tempdir().unwrap();
    // The manifest is UTF-16 with a BOM, as UE2 writes non-Latin-1 text.
    let text = "[Setup]\r\nProduct=Snow\u{96ea}\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\\u{96ea}.u)\r\n";
    let mut ini = vec![0xFF, 0xFE];
    ini.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let data = build_bytes(t.path(), &ini, &[("System/\u{96ea}.u", b"snow")]);
    let u = Umod::parse(&data).unwrap();
    let g = ut_game(t.path());
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    assert!(rep.manifest_utf16, "{rep:?}");
    let raw = std::fs::read(g.join("System/Manifest.ini")).unwrap();
    assert_eq!(&raw[..2], &[0xFF, 0xFE]);
    let (text, _) = pakrat_io::ini::decode(&raw);
    assert!(
        text.contains("[Snow\u{96ea}]") && text.contains("File=System\\\u{96ea}.u"),
        "{text}"
    );
    assert!(text.contains("Version=436"), "{text}");
    assert!(g.join("System/\u{96ea}.u").exists());
    let rep = uninstall("Snow\u{96ea}", &g, false).unwrap();
    assert_eq!(
        rep.files[0].action,
        pakrat_umod::install::UninstallAction::Remove
    );
    assert!(!g.join("System/\u{96ea}.u").exists());
}

#[test]
fn f8_uz_members_are_decoded_one_at_a_time() {
    // Several .uz members (uz2: quick to build) that decode to 4 MiB each;
    // the installed files must be exactly the decoded bytes.
    let t = tempfile::tempdir().unwrap();
    let big: Vec<u8> = (0..4u32 << 20).map(|i| (i % 7) as u8).collect();
    let uz = pakrat_uz::compress(
        &big,
        &pakrat_uz::CompressOptions::new(pakrat_uz::UzFormat::Uz2, "B.u"),
    )
    .unwrap();
    assert!(uz.len() < big.len() / 20);
    let mut ini = String::from("[Setup]\r\nProduct=Bomb\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\n");
    let names: Vec<String> = (0..6).map(|i| format!("System/B{i}.u.uz")).collect();
    for n in &names {
        ini.push_str(&format!(
            "File=(Src={},Dest={})\r\n",
            n.replace('/', "\\"),
            n.trim_end_matches(".uz").replace('/', "\\")
        ));
    }
    let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), uz.as_slice())).collect();
    let data = build(t.path(), &ini, &files);
    let u = Umod::parse(&data).unwrap();
    let g = ut_game(t.path());
    let rep = install(&u, &g, &InstallOptions::default()).unwrap();
    assert_eq!(rep.files.len(), 6);
    for i in 0..6 {
        assert!(rep.files[i].decoded_uz);
        assert_eq!(
            std::fs::read(g.join(format!("System/B{i}.u"))).unwrap(),
            big
        );
    }
}

/// Every file and folder under `dir` with its bytes (folders: "<dir>").
fn snapshot_all(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Issue 31 item 4: uninstall puts back what install changed (the ini pair
/// it added, the file --force replaced, the record's blank line and
/// [RefCounts]) and keeps what was there (an empty Help/ folder).
#[test]
fn uninstall_after_install_leaves_the_folder_byte_for_byte() {
    let t = tempfile::tempdir().unwrap();
    let data = build(
        t.path(),
        "[Setup]\r\nProduct=Back\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\Back.u)\r\nFile=(Src=Maps\\Old.unr)\r\nFile=(Src=Music\\Deep\\Song.umx)\r\nFile=(Src=Help\\Back.txt)\r\nAddIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=Back\r\n",
        &[
            ("System/Back.u", b"package"),
            ("Maps/Old.unr", b"the mod's map"),
            ("Music/Deep/Song.umx", b"music"),
            ("Help/Back.txt", b"read me"),
        ],
    );
    for manifest in [
        "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436",
        "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\n",
        "[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\n\r\n[RefCounts]\r\nFile:System\\Core.u=1\r\n",
    ] {
        round_trip(t.path(), &data, manifest);
    }
}

fn round_trip(t: &Path, data: &[u8], manifest: &str) {
    let _ = std::fs::remove_dir_all(t.join("game"));
    let g = game(t, manifest);
    write(
        &g.join("System/UnrealTournament.ini"),
        b"[Engine.GameEngine]\r\nServerPackages=Core\r\n\r\n[URL]\r\nPort=7777\r\n",
    );
    write(&g.join("Maps/Old.unr"), b"the user's own map");
    std::fs::create_dir_all(g.join("Help")).unwrap();
    let before = snapshot_all(&g);
    let u = Umod::parse(data).unwrap();
    let opts = InstallOptions {
        force: true,
        ..Default::default()
    };
    install(&u, &g, &opts).unwrap();
    assert_ne!(snapshot_all(&g), before);
    let rep = uninstall("Back", &g, false).unwrap();
    assert_eq!(rep.restored.len(), 1, "{:?}", rep.restored);
    assert_eq!(rep.ini_reverted.len(), 1, "{:?}", rep.ini_reverted);
    let after = snapshot_all(&g);
    for (k, v) in &before {
        assert_eq!(
            after
                .get(k)
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            Some(String::from_utf8_lossy(v).into_owned()),
            "{k}"
        );
    }
    assert_eq!(after, before);
}
