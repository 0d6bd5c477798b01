//! Issue 31 item 3: a dependency found in another engine generation is not
//! "found". A plain folder holding UT99 and UT2004 files: a UT2004 map's
//! `Engine` must not quietly resolve to UT99's `Engine.u` (v69).

use std::path::Path;

use pakrat_system::{deps, scan, GameDir};

fn copy(corpus: &Path, from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(corpus.join(from), to).unwrap();
}

/// `a_ut99/` sorts before `b_ut2004/`: path order alone picks UT99's files.
fn folder(corpus: &Path, root: &Path, with_ut2004_engine: bool) {
    copy(corpus, "ue1/Engine.u", &root.join("a_ut99/Engine.u"));
    copy(corpus, "ue1/Core.u", &root.join("a_ut99/Core.u"));
    copy(
        corpus,
        "ue2/DM-Gael.ut2",
        &root.join("b_ut2004/DM-Gael.ut2"),
    );
    if with_ut2004_engine {
        copy(
            corpus,
            "ue2/ut2004_Engine.u",
            &root.join("b_ut2004/Engine.u"),
        );
        copy(corpus, "ue2/ut2004_Core.u", &root.join("b_ut2004/Core.u"));
    }
}

#[test]
fn another_generation_is_reported_not_found() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    folder(&corpus, t.path(), false);
    let game = GameDir::open(t.path(), None).unwrap();
    assert!(game.plain_folder);
    let g = deps::walk(&game, "DM-Gael").unwrap();
    let engine = g.mismatches.iter().find(|m| m.name == "Engine");
    let engine = engine.unwrap_or_else(|| panic!("no mismatch for Engine: {:?}", g.mismatches));
    assert_eq!(
        engine.message,
        "Engine: found Engine.u but it is UE1 v69, the importer is UE2 v126/29 (DM-Gael)"
    );
    assert!(g.to_tree(t.path()).contains("WRONG GENERATION"));

    let r = scan::scan(t.path(), &|_| {}).unwrap();
    let m = r.mismatches.iter().find(|m| m.name == "Engine");
    let m = m.unwrap_or_else(|| panic!("scan: no mismatch for Engine: {:?}", r.mismatches));
    assert_eq!(m.needed_by, ["DM-Gael"]);
    assert!(m.message.contains("UE1 v69"), "{}", m.message);
}

#[test]
fn a_candidate_of_the_same_generation_is_preferred() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    folder(&corpus, t.path(), true);
    let game = GameDir::open(t.path(), None).unwrap();
    let g = deps::walk(&game, "DM-Gael").unwrap();
    let engine = g.nodes.iter().find(|n| n.name == "Engine").unwrap();
    assert_eq!(
        engine.file.as_deref(),
        Some(t.path().join("b_ut2004/Engine.u").as_path()),
        "{:?}",
        g.mismatches
    );
    assert_eq!(engine.version, Some(128));
    assert!(
        !g.mismatches
            .iter()
            .any(|m| m.name == "Engine" || m.name == "Core"),
        "{:?}",
        g.mismatches
    );
    // The UT99 Engine still resolves for a UT99 importer: no mismatch
    // from Engine to Core.
    let g = deps::walk(&game, &t.path().join("a_ut99/Engine.u").to_string_lossy()).unwrap();
    assert!(g.mismatches.is_empty(), "{:?}", g.mismatches);
    let core = g.nodes.iter().find(|n| n.name == "Core").unwrap();
    assert_eq!(core.version, Some(69));

    let r = scan::scan(t.path(), &|_| {}).unwrap();
    assert!(
        !r.mismatches
            .iter()
            .any(|m| m.name == "Engine" || m.name == "Core"),
        "{:?}",
        r.mismatches
    );
}
