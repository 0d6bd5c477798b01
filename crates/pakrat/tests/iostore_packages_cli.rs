//! `pakrat packages` and `pakrat info X.pak` on the corpus.

use predicates::prelude::*;

mod common;
use common::{json_ok, pakrat, FIXTURE_KEY};

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    json_ok(&a)
}

/// Fixture containers (with data and packages) from the manifest.
fn fixture_containers() -> Option<Vec<pakrat_testkit::Entry>> {
    Some(
        pakrat_testkit::entries("iostore")?
            .into_iter()
            .filter(|e| {
                e.local_path.ends_with(".utoc")
                    && e.detail.contains("ucas present")
                    && !e.local_path.ends_with("global.utoc")
            })
            .collect(),
    )
}

#[test]
fn packages_lists_every_fixture_package_with_names_and_export_counts() {
    let Some(list) = fixture_containers() else {
        return;
    };
    let mut n = 0;
    for e in &list {
        let path = e.path.to_str().unwrap();
        let mut args = vec!["packages", path, "--aes-key", FIXTURE_KEY];
        // The patch containers have no global.utoc of their own: use the
        // same engine's fixture global.
        let global = e
            .path
            .parent()
            .unwrap()
            .join("../../IoStore/Tagged/global.utoc");
        if e.local_path.contains("/Patch/") {
            args.extend(["--global", global.to_str().unwrap()]);
        }
        let v = json(&args);
        assert_eq!(v["failed"], 0, "{path}");
        let pkgs = v["packages"].as_array().unwrap();
        let want = if e.local_path.contains("/Patch/") {
            e.detail_value("entries").unwrap().parse::<usize>().unwrap() - 1
        } else {
            97
        };
        assert_eq!(pkgs.len(), want, "{path}");
        for p in pkgs {
            let name = p["name"].as_str().unwrap();
            assert!(name.starts_with("/Game/"), "{name}");
            assert_eq!(p["id_matches_name"], true, "{name}");
            assert!(p["exports"].as_u64().unwrap() >= 1, "{name}");
            // The global.utoc one folder up names the classes.
            let class = p["class"].as_str().unwrap();
            assert!(
                !class.is_empty() && !class.starts_with('<'),
                "{name}: {class}"
            );
        }
        assert!(v["script_objects"].as_u64().unwrap() > 10_000);
        assert_eq!(
            v["header_packages_without_chunk"].as_array().unwrap().len(),
            0
        );
        n += 1;
    }
    assert_eq!(n, 24);
}

#[test]
fn packages_text_and_detail() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = dir.join("iostore/cue4parse/UE5_8/IoStore/Tagged");
    let utoc = base.join("Oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc");
    pakrat()
        .arg("packages")
        .arg(&utoc)
        .assert()
        .success()
        .stdout(predicate::str::contains("97 packages"))
        .stdout(predicate::str::contains("Texture2D"))
        .stdout(predicate::str::contains("/Game/Fixtures/Textures/T_BC1"));
    pakrat()
        .arg("packages")
        .arg(&utoc)
        .arg("/game/fixtures/textures/t_bc1")
        .assert()
        .success()
        .stdout(predicate::str::contains("class /Script/Engine.Texture2D"))
        .stdout(predicate::str::contains(
            "versioned:   zen 3, UE4 522, UE5 1018",
        ));
    // The same package by its id, as JSON.
    let v = json(&[
        "packages",
        utoc.to_str().unwrap(),
        "/Game/Fixtures/Textures/T_BC1",
    ]);
    let id = v["id"].as_str().unwrap().to_string();
    let w = json(&["packages", utoc.to_str().unwrap(), &id]);
    assert_eq!(w["name"], "/Game/Fixtures/Textures/T_BC1");
    assert_eq!(w["exports"].as_array().unwrap().len(), 1);
    assert_eq!(w["exports"][0]["class"], "/Script/Engine.Texture2D");
    assert_eq!(w["name_hash_mismatches"], 0);
    // A bare object name that one package ends with.
    let x = json(&["packages", utoc.to_str().unwrap(), "t_bc1"]);
    assert_eq!(x["id"].as_str(), Some(id.as_str()));
    // A blueprint import across packages resolves to the other package's export.
    let bp = json(&[
        "packages",
        utoc.to_str().unwrap(),
        "/Game/Fixtures/Blueprints/BP_Components",
    ]);
    let imports: Vec<&str> = bp["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(
        imports.contains(&"/Game/Fixtures/Meshes/SM_Fixture.SM_Fixture"),
        "{imports:?}"
    );
    // Without a global container class names stay unresolved, with a note.
    pakrat()
        .arg("packages")
        .arg(&utoc)
        .arg("--global")
        .arg(base.join("no-such-global.utoc"))
        .assert()
        .failure();
    pakrat()
        .arg("packages")
        .arg(&utoc)
        .arg("/Game/Nope")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no package"));
}

#[test]
fn packages_refuses_missing_keys_and_global_containers() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = dir.join("iostore/cue4parse/UE6_0/IoStore/Unversioned");
    pakrat()
        .arg("packages")
        .arg(base.join("OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--aes-key"));
    pakrat()
        .arg("packages")
        .arg(base.join("global.utoc"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds no packages"));
}

#[test]
fn pak_footers_are_reported() {
    let Some(list) = pakrat_testkit::entries("iostore") else {
        return;
    };
    let mut n = 0;
    for e in list.iter().filter(|e| e.local_path.ends_with(".pak")) {
        let all = json(&["info", e.path.to_str().unwrap()]);
        // The index of these companion paks reads too (issue 10).
        assert!(all["index"]["entries"].is_u64(), "{}: {all}", e.local_path);
        let v = &all["footer"];
        let want: u64 = e
            .detail
            .split_whitespace()
            .find_map(|t| t.strip_prefix('v')?.parse().ok())
            .unwrap();
        assert_eq!(v["version"], want, "{}", e.local_path);
        assert_eq!(v["encrypted_index"], false);
        assert_eq!(
            v["footer_offset"].as_u64().unwrap() + v["footer_size"].as_u64().unwrap(),
            e.size
        );
        n += 1;
    }
    assert_eq!(n, 6);
    let dir = pakrat_testkit::corpus_dir().unwrap();
    pakrat()
        .arg("info")
        .arg(dir.join("iostore/cue4parse/UE6_0/Patch/Pak/CUE4ParseFixtures-PatchBase.pak"))
        .assert()
        .success()
        .stdout(predicate::str::contains("15 (EncryptionMethod)"))
        .stdout(predicate::str::contains("pakchunk index:    -1"));
}

#[test]
fn damaged_pak_footers_are_errors_not_crashes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let data =
        std::fs::read(dir.join("iostore/UnrealReZen/UnrealReZen/Resources/Packed_P.pak")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // Cut one byte: the magic is still in the tail (detected as a pak), but
    // no version's footer ends at the end of the file.
    let cut = tmp.path().join("cut.pak");
    std::fs::write(&cut, &data[..data.len() - 1]).unwrap();
    pakrat()
        .arg("info")
        .arg(&cut)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("version 11"));
    // An index that points past the footer.
    let mut bad = data.clone();
    let m = bad.len() - 221 + 17;
    bad[m + 8..m + 16].copy_from_slice(&(1i64 << 40).to_le_bytes());
    let badp = tmp.path().join("bad.pak");
    std::fs::write(&badp, &bad).unwrap();
    pakrat()
        .arg("info")
        .arg(&badp)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("pak index"));
}
