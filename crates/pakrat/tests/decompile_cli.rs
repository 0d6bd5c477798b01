//! `export --decompile` on the corpus: where the natives come from (beside
//! the input, `--natives` files, a game folder's `[Core.System] Paths`) and
//! the `replication` block written.

mod common;

use std::path::Path;

use common::{pakrat, s};

/// Decompile `pkg` into a temporary folder with `extra` natives; returns
/// the folder and how many classes call a native that was not found.
fn decompile(pkg: &Path, extra: &[&Path]) -> (tempfile::TempDir, usize) {
    let (out, _) = decompile_output(pkg, extra);
    let classes = out.path().join("o").join("Classes");
    let unknown = std::fs::read_dir(&classes)
        .unwrap()
        .filter(|e| {
            let t = std::fs::read_to_string(e.as_ref().unwrap().path()).unwrap_or_default();
            t.contains("UnknownNative")
        })
        .count();
    (out, unknown)
}

#[cfg(unix)]
fn link(src: &Path, dst: &Path) {
    std::os::unix::fs::symlink(src, dst).unwrap();
}

#[cfg(not(unix))]
fn link(src: &Path, dst: &Path) {
    std::fs::copy(src, dst).unwrap();
}

#[test]
fn natives_from_option_and_game_paths() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        eprintln!("SKIP: corpus not found");
        return;
    };
    let ue2 = c.join("ue2");
    let xgame = ue2.join("XGame.u");
    // Beside it only `ut2004_*.u` (prefixed names): Core and Engine are
    // not found, so operators and actor natives stay unknown.
    let (_d, unknown) = decompile(&xgame, &[]);
    assert!(unknown > 0, "without Core/Engine some natives are unknown");
    // Given explicitly.
    let core = ue2.join("ut2004_Core.u");
    let engine = ue2.join("ut2004_Engine.u");
    let (d, unknown) = decompile(&xgame, &[&core, &engine]);
    assert_eq!(unknown, 0);
    let pawn = std::fs::read_to_string(d.path().join("o/Classes/xPawn.uc")).unwrap();
    assert!(
        pawn.contains("replication\n{\n    reliable if (Role == ROLE_Authority)\n        bInvis;"),
        "{pawn}"
    );
    // A game folder: XGame.u in System/, Core and Engine in Lib/, found
    // through the ini's Paths.
    let game = tempfile::tempdir().unwrap();
    let (sys, lib) = (game.path().join("System"), game.path().join("Lib"));
    std::fs::create_dir_all(&sys).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    link(&xgame, &sys.join("XGame.u"));
    link(&core, &lib.join("Core.u"));
    link(&engine, &lib.join("Engine.u"));
    std::fs::write(
        sys.join("UT2004.ini"),
        "[Core.System]\nPaths=*.u\nPaths=../Lib/*.u\n",
    )
    .unwrap();
    let (_d, unknown) = decompile(&sys.join("XGame.u"), &[]);
    assert_eq!(unknown, 0, "natives found through [Core.System] Paths");
}

/// `export --decompile` of `pkg` with `natives` (none: `--natives` not
/// given): the folder and its text output.
fn decompile_output(pkg: &Path, natives: &[&Path]) -> (tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = pakrat();
    cmd.args(["export", s(pkg), "--decompile", "--class", "script", "-o"])
        .arg(out.path().join("o"));
    if !natives.is_empty() {
        cmd.arg("--natives").args(natives);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (out, String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn natives_of_a_package_not_given_come_from_a_built_in_table_and_are_reported() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        eprintln!("SKIP: corpus not found");
        return;
    };
    let ue2 = c.join("ue2");
    let (core, engine) = (ue2.join("ut2004_Core.u"), ue2.join("ut2004_Engine.u"));
    // A UT2004 mod whose menus call XInterface's GUIComponent natives
    // (PlayerOwner, ActualWidth...); XInterface.u is not in the corpus.
    let (d, said) = decompile_output(&ue2.join("InvasionProv1_7.u"), &[&core, &engine]);
    let note = "named from pakrat's built-in tables";
    assert!(
        said.contains(note) && said.contains("Unreal Tournament 2004 XInterface"),
        "{said}"
    );
    let classes = d.path().join("o/Classes");
    let mut player_owner = 0;
    for e in std::fs::read_dir(&classes).unwrap() {
        let t = std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
        assert!(!t.contains("UnknownNative"), "{t}");
        player_owner += t.matches("PlayerOwner()").count();
    }
    assert!(player_owner > 0, "PlayerOwner() named");
    // A package that does not reference XInterface: XInterface's tables
    // are not used; the type tables of the packages it does reference
    // (UnrealGame) are, and are reported as types.
    let (_d, said) = decompile_output(&ue2.join("XGame.u"), &[&core, &engine]);
    assert!(!said.contains("2004 XInterface"), "{said}");
    assert!(
        said.contains(note) && said.contains("Unreal Tournament 2004 UnrealGame (types)"),
        "{said}"
    );
    // Nor any table when the package does not reference theirs (a UT2004
    // package importing only Core and Engine).
    let (_d, said) = decompile_output(&ue2.join("wUtils105.u"), &[&core, &engine]);
    assert!(!said.contains(note), "{said}");
}
