//! Names the engine cannot tell apart (issue 32, item 10): paths that
//! differ only in case, and names with control characters. The folder walk
//! of `pak create` / `iostore create` refuses them, naming both paths; a pak
//! that holds them anyway (another tool wrote it) verifies with a warning.

use pakrat_codec::KeyRing;
use pakrat_io::walk::walk;
use pakrat_pak::{self as pak, write, Pak};

#[test]
fn walk_refuses_case_twins_naming_both() {
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("Dir")).unwrap();
    std::fs::write(t.path().join("Dir/A.txt"), b"one").unwrap();
    std::fs::write(t.path().join("Dir/a.txt"), b"two").unwrap();
    std::fs::write(t.path().join("b.txt"), b"fine").unwrap();
    let e = walk(t.path()).unwrap_err().to_string();
    assert!(
        e.contains("Dir/A.txt and Dir/a.txt differ only in case"),
        "{e}"
    );
    // Folders count too: the engine folds the whole path.
    std::fs::remove_file(t.path().join("Dir/a.txt")).unwrap();
    std::fs::create_dir_all(t.path().join("dir")).unwrap();
    std::fs::write(t.path().join("dir/x.txt"), b"three").unwrap();
    std::fs::write(t.path().join("DIR.txt"), b"no clash").unwrap();
    assert!(walk(t.path()).is_ok());
    std::fs::write(t.path().join("dir/a.TXT"), b"clash").unwrap();
    let e = walk(t.path()).unwrap_err().to_string();
    assert!(e.contains("Dir/A.txt and dir/a.TXT"), "{e}");
}

#[test]
fn walk_refuses_control_characters() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("line\nbreak.txt"), b"x").unwrap();
    let e = walk(t.path()).unwrap_err().to_string();
    assert!(e.contains("control character (U+000A)"), "{e}");
    // Shown escaped, never raw.
    assert!(!e.contains("line\nbreak"), "{e}");
}

#[test]
fn verify_warns_on_a_pak_with_case_twins() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("a.bin");
    std::fs::write(&src, b"payload").unwrap();
    let inputs: Vec<write::Input> = ["Maps/A.umap", "maps/a.umap", "ok.txt", "bell\u{7}.txt"]
        .iter()
        .map(|p| write::Input {
            path: p.to_string(),
            source: src.clone(),
        })
        .collect();
    let out = t.path().join("twins.pak");
    let f = std::fs::File::create(&out).unwrap();
    write::write(&inputs, &write::Options::default(), &f, "twins.pak").unwrap();
    drop(f);
    let p = Pak::open(&out, &KeyRing::new()).unwrap();
    let r = pak::verify::verify(&p);
    assert!(r.ok(), "{:?}", r.problems);
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.contains("Maps/A.umap and maps/a.umap differ only in case")));
    assert!(r.warnings.iter().any(|w| w.contains("U+0007")));
}
