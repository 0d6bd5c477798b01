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
    let src = dir.join("src");
    write(&src.join("System/Manifest.ini"), ini.as_bytes());
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
