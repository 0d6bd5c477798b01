//! Hostile inputs: mutated corpus packages placed in a game tree and a cache
//! folder. `deps`, `scan`, `cache list`/`restore` and `flags` must finish
//! (no panic, no hang) and report problems as errors, never write a file
//! they could not validate.

use std::fs;
use std::path::Path;
use std::time::Duration;

use pakrat_system::{cache, deps, flags, scan, GameDir};
use pakrat_testkit::mutate::{mutations, run_case, Failure};

const INI: &str = "[Core.System]\nPaths[0]=../System/*.u\nPaths[1]=../Textures/*.utx\n";

fn case(root: &Path, name: &str, data: &[u8], logo: &[u8]) -> Result<(), String> {
    let _ = fs::remove_dir_all(root);
    fs::create_dir_all(root.join("System")).map_err(|e| e.to_string())?;
    fs::create_dir_all(root.join("Textures")).map_err(|e| e.to_string())?;
    fs::create_dir_all(root.join("Cache")).map_err(|e| e.to_string())?;
    fs::write(root.join("System/UnrealTournament.ini"), INI).map_err(|e| e.to_string())?;
    fs::write(root.join("System").join(name), data).map_err(|e| e.to_string())?;
    fs::write(root.join("Textures/Logo.utx"), logo).map_err(|e| e.to_string())?;
    let guid = "00112233445566778899AABBCCDDEEFF";
    fs::write(root.join(format!("Cache/{guid}.uxx")), data).map_err(|e| e.to_string())?;
    fs::write(
        root.join("Cache/cache.ini"),
        format!("[Cache]\n{guid}={name}\n"),
    )
    .map_err(|e| e.to_string())?;

    let game = GameDir::open(root, None).map_err(|e| e.to_string())?;
    let stem = name.split('.').next().unwrap_or(name);
    let g = deps::walk(&game, stem).map_err(|e| e.to_string())?;
    for n in &g.nodes {
        if let Some(e) = &n.error {
            assert!(e.len() > 8, "unclear error {e:?}");
        }
    }
    let _ = g.to_tree(root);
    let _ = g.to_dot();
    let r = scan::scan(root, &|_| {}).map_err(|e| e.to_string())?;
    assert_eq!(
        r.packages.len() + r.errors.len(),
        3,
        "every package file accounted for"
    );
    let c = cache::check_cache(&root.join("Cache"), ".uxx").map_err(|e| e.to_string())?;
    let restored = cache::restore(&c, &game, false, false);
    // A cache file that does not check out is never copied.
    for it in &restored.items {
        if it.action == cache::Action::Copy {
            let dest = it.dest.as_ref().expect("dest");
            let (v, g2, _) = deps::read_imports(dest).map_err(|e| e.to_string())?;
            assert!(v > 0);
            assert_eq!(Some(g2), it.guid);
        }
    }
    let target = root.join("System").join(name);
    let before = fs::read(&target).map_err(|e| e.to_string())?;
    match flags::set_flags(&target, &[(1, false)]) {
        Ok(_) => {}
        Err(_) => {
            // Refused: the file must be untouched.
            assert_eq!(fs::read(&target).map_err(|e| e.to_string())?, before);
        }
    }
    Ok(())
}

#[test]
fn mutated_packages_in_a_game_tree() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let logo = fs::read(c.join("ue1/Logo.utx")).unwrap();
    let t = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for (local, name, count) in [
        ("ue1/IACEv10.u", "IACEv10.u", 24),
        ("ue1/Liquids.utx", "Liquids.utx", 24),
        ("ue2/AssaultBP.u", "AssaultBP.u", 24),
    ] {
        let input = fs::read(c.join(local)).unwrap();
        for (i, m) in mutations(&input, 0x0051_57E4, count)
            .into_iter()
            .enumerate()
        {
            n += 1;
            let root = t.path().join(format!("g{n}"));
            let logo = logo.clone();
            let name = name.to_string();
            let label = format!("{local} #{i}: {}", m.name);
            let res = run_case(m.data, Duration::from_secs(20), move |d| {
                case(&root, &name, d, &logo)
            });
            match res {
                Ok(_) => {}
                Err(Failure::UnclearError(_)) => {}
                Err(f) => failures.push(format!("{label}: {f:?}")),
            }
        }
    }
    assert!(n >= 72);
    assert!(failures.is_empty(), "{failures:#?}");
}
