//! Interrupted installs (issue 32 item 6): an install killed (`kill -9`)
//! after any change it makes to the disk leaves a journal from which the
//! next run puts the game folder back byte for byte (or, past the last
//! rename, keeps the finished install); Ctrl-C during the commit rolls back;
//! a planted or damaged journal is refused or cannot touch files pakrat did
//! not put there.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pakrat_umod::create::{self, CreateOptions};
use pakrat_umod::install::{install, InstallOptions};
use pakrat_umod::journal::{RecoveryOutcome, JOURNAL};

/// `journal::recover`, tried again while the folder's lock is held for a
/// moment by someone else: the folder lock is an `flock` on the folder's
/// descriptor, and a child that another test of this binary forks at that
/// moment holds a copy of it until its `exec` closes it (seen under load).
fn recover(g: &Path) -> pakrat_io::Result<Option<pakrat_umod::journal::Recovery>> {
    for _ in 0..100 {
        match pakrat_umod::journal::recover(g) {
            Err(e) if e.to_string().contains("holds the folder's lock") => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r,
        }
    }
    pakrat_umod::journal::recover(g)
}
use pakrat_umod::Umod;

fn write(p: &Path, b: &[u8]) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, b).unwrap();
}

/// Every file and folder under `dir`: path → content (folders: "<dir>"),
/// with the permission bits.
fn snapshot(dir: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mode = m.permissions().mode();
            if m.is_dir() {
                out.insert(rel, (mode, b"<dir>".to_vec()));
                stack.push(p);
            } else {
                out.insert(rel, (mode, std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// A UMOD that creates files in new nested folders, replaces a file (with
/// a backup), edits an existing ini, and records itself; and a game folder
/// with an empty `Help/` folder.
fn fixture(t: &Path) -> (PathBuf, PathBuf) {
    let src = t.join("src");
    write(
        &src.join("System/Manifest.ini"),
        b"[Setup]\r\nProduct=KillMod\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=System\\KillMod.u)\r\nFile=(Src=Maps\\Old.unr)\r\nFile=(Src=Music\\Deep\\Song.umx)\r\nFile=(Src=Help\\KillMod.txt)\r\nAddIni=System\\UnrealTournament.ini,Engine.GameEngine.ServerPackages=KillMod\r\n",
    );
    write(&src.join("System/KillMod.u"), &[7u8; 3000]);
    write(&src.join("Maps/Old.unr"), b"the mod's map");
    write(&src.join("Music/Deep/Song.umx"), &[9u8; 5000]);
    write(&src.join("Help/KillMod.txt"), b"read me");
    let umod = t.join("kill.umod");
    create::create(&src, &umod, true, &CreateOptions::default()).unwrap();
    let g = t.join("template");
    write(
        &g.join("System/Manifest.ini"),
        b"[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\n",
    );
    write(
        &g.join("System/UnrealTournament.ini"),
        b"[Engine.GameEngine]\r\nServerPackages=Core\r\n",
    );
    write(&g.join("Maps/Old.unr"), b"the user's own map");
    std::fs::create_dir_all(g.join("Help")).unwrap();
    (umod, g)
}

fn forced() -> InstallOptions {
    InstallOptions {
        force: true,
        ..Default::default()
    }
}

/// Child mode of the tests below: install with a hook, as a separate
/// process (killed, or signalled). Does nothing in a normal test run.
#[test]
fn journal_child() {
    let Ok(spec) = std::env::var("PAKRAT_JOURNAL_CHILD") else {
        return;
    };
    let mut it = spec.split('|');
    let (mode, umod, game, k) = (
        it.next().unwrap(),
        it.next().unwrap(),
        it.next().unwrap(),
        it.next().unwrap().parse::<usize>().unwrap(),
    );
    let data = std::fs::read(umod).unwrap();
    let u = Umod::parse(&data).unwrap();
    let mut opts = forced();
    match mode {
        "kill" => opts.kill_at_tick = Some(k),
        _ => {
            opts.handle_signals = true;
            opts.signal_at_tick = Some(k);
        }
    }
    match install(&u, Path::new(game), &opts) {
        Ok(_) => println!("RESULT ok"),
        Err(e) => println!("RESULT err {e}"),
    }
}

fn child(mode: &str, umod: &Path, game: &Path, k: usize) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "journal_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            "PAKRAT_JOURNAL_CHILD",
            format!("{mode}|{}|{}|{k}", umod.display(), game.display()),
        )
        .output()
        .unwrap()
}

#[test]
fn killed_at_every_step_then_recovered_byte_for_byte() {
    use std::os::unix::process::ExitStatusExt;
    let t = tempfile::tempdir().unwrap();
    let (umod, template) = fixture(t.path());
    let before = snapshot(&template);
    // The finished install, for the "completed" case.
    let done = t.path().join("done");
    copy_tree(&template, &done);
    let data = std::fs::read(&umod).unwrap();
    install(&Umod::parse(&data).unwrap(), &done, &forced()).unwrap();
    let installed = snapshot(&done);
    assert_ne!(installed, before);

    let (mut rolled, mut completed) = (0, 0);
    let mut k = 0;
    loop {
        let g = t.path().join(format!("g{k}"));
        copy_tree(&template, &g);
        let out = child("kill", &umod, &g, k);
        if out.status.success() {
            // Past the last change: the install ran to its end.
            assert!(String::from_utf8_lossy(&out.stdout).contains("RESULT ok"));
            assert_eq!(snapshot(&g), installed);
            break;
        }
        assert_eq!(out.status.signal(), Some(9), "step {k}: {out:?}");
        let r = recover(&g).unwrap();
        match r {
            Some(r) => {
                assert!(r.left.is_empty(), "step {k}: {:?}", r.left);
                match r.outcome {
                    RecoveryOutcome::RolledBack => {
                        rolled += 1;
                        assert_eq!(snapshot(&g), before, "step {k}: not as before")
                    }
                    RecoveryOutcome::Completed => {
                        completed += 1;
                        assert_eq!(snapshot(&g), installed, "step {k}: not installed")
                    }
                }
            }
            // Killed after the journal was removed: finished.
            None => assert_eq!(snapshot(&g), installed, "step {k}"),
        }
        assert!(recover(&g).unwrap().is_none(), "the journal is gone");
        std::fs::remove_dir_all(&g).unwrap();
        k += 1;
        assert!(k < 200, "the install never finished");
    }
    // Journal, 3 folders, 5 staged files + 3 saves, the commit, 6 renames...
    assert!(rolled >= 15, "{rolled} rolled back");
    assert!(completed >= 1, "{completed} completed");
}

#[test]
fn the_next_install_recovers_first() {
    let t = tempfile::tempdir().unwrap();
    let (umod, template) = fixture(t.path());
    let g = t.path().join("g");
    copy_tree(&template, &g);
    // Killed after the commit record and two renames.
    let out = child("kill", &umod, &g, 14);
    assert!(!out.status.success());
    assert!(g.join(JOURNAL).exists());
    let data = std::fs::read(&umod).unwrap();
    let rep = install(&Umod::parse(&data).unwrap(), &g, &forced()).unwrap();
    let r = rep.recovered.expect("recovered first");
    assert_eq!(r.outcome, RecoveryOutcome::RolledBack);
    assert_eq!(r.product, "KillMod");
    let done = t.path().join("done");
    copy_tree(&template, &done);
    install(&Umod::parse(&data).unwrap(), &done, &forced()).unwrap();
    assert_eq!(snapshot(&g), snapshot(&done));
    // A dry run refuses to plan over a journal.
    let out = child("kill", &umod, &g, 3);
    assert!(!out.status.success());
    let dry = InstallOptions {
        dry_run: true,
        ..forced()
    };
    let e = install(&Umod::parse(&data).unwrap(), &g, &dry).unwrap_err();
    assert!(e.to_string().contains("umod recover"), "{e}");
}

#[test]
fn ctrl_c_during_the_commit_rolls_back() {
    let t = tempfile::tempdir().unwrap();
    let (umod, template) = fixture(t.path());
    let before = snapshot(&template);
    for k in [0, 2, 5, 9, 12, 15] {
        let g = t.path().join(format!("g{k}"));
        copy_tree(&template, &g);
        let out = child("signal", &umod, &g, k);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "step {k}: the handler did not catch it: {out:?}"
        );
        assert!(
            text.contains("interrupted by Ctrl-C") && text.contains("every change was rolled back"),
            "step {k}: {text}"
        );
        assert_eq!(snapshot(&g), before, "step {k}");
    }
}

fn planted(g: &Path, body: &str) {
    std::fs::write(
        g.join(JOURNAL),
        format!("pakrat-journal 1\ntoken\t0123456789abcdef\npid\t1\nproduct\tX\n{body}end\n"),
    )
    .unwrap();
}

#[test]
fn a_planted_journal_cannot_delete_or_escape() {
    use std::os::unix::fs::MetadataExt;
    let t = tempfile::tempdir().unwrap();
    let (_, template) = fixture(t.path());
    let g = t.path().join("g");
    copy_tree(&template, &g);
    std::thread::sleep(std::time::Duration::from_millis(30));
    let before = snapshot(&g);
    // "new" and "replace" steps naming the user's files with identities
    // that are not theirs: nothing is deleted or overwritten.
    let m = std::fs::metadata(g.join("Maps/Old.unr")).unwrap();
    std::fs::write(g.join("Maps/.pakrat-save-0123456789abcdef-1"), b"evil").unwrap();
    // Inode numbers that no file of the tree has (a neighbour's number,
    // like Old.unr's + 1, may be Manifest.ini's own: copies get inodes in
    // sequence).
    let taken: Vec<u64> = [
        "Maps/Old.unr",
        "System/Manifest.ini",
        "System/UnrealTournament.ini",
        "Maps/.pakrat-save-0123456789abcdef-1",
    ]
    .iter()
    .map(|f| std::fs::metadata(g.join(f)).unwrap().ino())
    .collect();
    let free = |from: u64| (from..).find(|i| !taken.contains(i)).unwrap();
    let (fake_new, fake_old) = (
        free(taken.iter().max().unwrap() + 1_000),
        free(taken.iter().max().unwrap() + 2_000),
    );
    planted(
        &g,
        &format!(
            "state\tcommit\nnew\t0\t{}:{}\t-\tSystem/Manifest.ini\nreplace\t1\t{}:{}\t1:1\tMaps/Old.unr\ndir\t2\t-\t-\tHelp\n",
            m.dev(),
            fake_new,
            m.dev(),
            fake_old
        ),
    );
    let r = recover(&g).unwrap().unwrap();
    assert_eq!(r.outcome, RecoveryOutcome::RolledBack);
    std::fs::remove_file(g.join("Maps/.pakrat-save-0123456789abcdef-1")).unwrap();
    assert_eq!(snapshot(&g), before);
    // A prepare-state journal naming an empty folder that was there before.
    planted(&g, "state\tprepare\ndir\t0\t-\t-\tHelp\n");
    recover(&g).unwrap().unwrap();
    assert!(
        g.join("Help").is_dir(),
        "a folder older than the journal stays"
    );
    // Paths that leave the folder, and damaged journals: refused, nothing done.
    for body in [
        "state\tcommit\nnew\t0\t1:2\t-\t../outside\n",
        "state\tcommit\nnew\t0\t1:2\t-\t/etc/passwd\n",
        "state\tcommit\nnew\t0\t1:2\t-\tC:/x\n",
        "state\tcommit\nnew\t1\t1:2\t-\tx\n",
        "state\tcommit\nnew\t0\t-\t-\tx\n",
        "state\tdone\n",
        "state\tcommit\nnew\t0\t1:2\t-\t.pakrat-journal\n",
    ] {
        planted(&g, body);
        let e = recover(&g).unwrap_err().to_string();
        assert!(e.contains("nothing was done"), "{body:?}: {e}");
        assert!(g.join(JOURNAL).exists(), "kept for the user to look at");
    }
    std::fs::write(
        g.join(JOURNAL),
        b"pakrat-journal 1\ntoken\t0123456789abcdef\npid\t1\nproduct\tX\nstate\tcommit\n",
    )
    .unwrap();
    assert!(recover(&g).unwrap_err().to_string().contains("cut short"));
    // Through a symbolic link on the way.
    std::os::unix::fs::symlink(t.path(), g.join("Link")).unwrap();
    planted(&g, "state\tcommit\nnew\t0\t1:2\t-\tLink/x\n");
    assert!(recover(&g)
        .unwrap_err()
        .to_string()
        .contains("symbolic link"));
    std::fs::remove_file(g.join("Link")).unwrap();
    // Over the size cap, and a symbolic link as the journal.
    let f = std::fs::File::create(g.join(JOURNAL)).unwrap();
    f.set_len(pakrat_umod::journal::MAX_JOURNAL + 1).unwrap();
    assert!(recover(&g).unwrap_err().to_string().contains("larger than"));
    std::fs::remove_file(g.join(JOURNAL)).unwrap();
    std::os::unix::fs::symlink(g.join("Maps/Old.unr"), g.join(JOURNAL)).unwrap();
    assert!(recover(&g)
        .unwrap_err()
        .to_string()
        .contains("not a regular file"));
    std::fs::remove_file(g.join(JOURNAL)).unwrap();
    assert_eq!(snapshot(&g), before);
}

#[test]
fn a_umod_may_not_install_the_journal() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    write(
        &src.join("System/Manifest.ini"),
        b"[Setup]\r\nProduct=J\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=.pakrat-journal)\r\n",
    );
    write(&src.join(".pakrat-journal"), b"pakrat-journal 1\n");
    let umod = t.path().join("j.umod");
    create::create(&src, &umod, true, &CreateOptions::default()).unwrap();
    let g = t.path().join("g");
    write(&g.join("System/Manifest.ini"), b"[Setup]\r\n");
    let data = std::fs::read(&umod).unwrap();
    let e = install(&Umod::parse(&data).unwrap(), &g, &InstallOptions::default()).unwrap_err();
    assert!(e.to_string().contains("journal"), "{e}");
    assert!(!g.join(JOURNAL).exists());
}
