//! Layouts the corpus does not cover (UE4.25-4.27 and UE5.0-5.5 container
//! headers and packages, UE4 script objects), checked against the binary
//! test files of retoc (`trumank/retoc`, `retoc/tests/`). Those files are not
//! in the corpus, so this test runs only when `PAKRAT_RETOC_TESTS` points at
//! a checkout's `retoc/tests` folder; otherwise it says so and passes.

use std::path::PathBuf;

use pakrat_asset::zen::{self, ScriptObjects, ZenLayout};
use pakrat_codec::names::{package_id, script_import_index};
use pakrat_iostore::container_header::{self, HeaderForm, StoreEntry};

fn dir() -> Option<PathBuf> {
    match std::env::var_os("PAKRAT_RETOC_TESTS") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!(
                "\n**** SKIPPING retoc layout test: set PAKRAT_RETOC_TESTS to retoc/tests ****\n"
            );
            None
        }
    }
}

fn read(d: &std::path::Path, p: &str) -> Vec<u8> {
    std::fs::read(d.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn container_headers_of_other_engine_versions() {
    let Some(d) = dir() else { return };
    let cases: [(&str, HeaderForm, usize); 5] = [
        ("UE4.27/ContainerHeader_1.bin", HeaderForm::Ue4, 52583),
        ("UE5.0/ContainerHeader_1.bin", HeaderForm::Ue5(1), 22559),
        ("UE5.3/ContainerHeader_1.bin", HeaderForm::Ue5(3), 3786),
        ("issues/issue7/header.bin", HeaderForm::Ue4PreInitial, 40307),
        ("issues/issue18/header.bin", HeaderForm::Ue4PreInitial, 182),
    ];
    for (p, form, n) in cases {
        let h = container_header::parse(&read(&d, p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(h.form, form, "{p}");
        assert_eq!(h.package_ids.len(), n, "{p}");
        assert_eq!(h.store_entries.len(), n, "{p}");
        // Every imported package id is itself a 64-bit id, never the
        // neighbouring record's fields (layout sanity).
        assert!(
            h.store_entries
                .iter()
                .all(|e| e.imported_packages.len() < 10_000),
            "{p}"
        );
    }
    let h = container_header::parse(&read(&d, "issues/issue7/header.bin")).unwrap();
    assert_eq!(h.culture_packages.len(), 11);
}

#[test]
fn packages_of_other_engine_versions() {
    let Some(d) = dir() else { return };
    for (p, layout, name, exports) in [
        (
            "UE5.4/BP_Table_Lamp.uzenasset",
            ZenLayout::Ue5_3 { cells: false },
            "/Game/Billiards/Blueprints/BP_Table_Lamp",
            9,
        ),
        (
            "UE5.5/SM_Cube.uzenasset",
            ZenLayout::Ue5_3 { cells: false },
            "/Game/Meshes/SM_Cube",
            3,
        ),
        (
            "UE5.5/BP_ThirdPersonCharacter.uzenasset",
            ZenLayout::Ue5_3 { cells: false },
            "/Game/ThirdPerson/Blueprints/BP_ThirdPersonCharacter",
            19,
        ),
        (
            "UE5.6/SM_Cube.uzenasset",
            ZenLayout::Ue5_3 { cells: true },
            "/Game/LevelPrototyping/Meshes/SM_Cube",
            3,
        ),
        (
            "UE5.6/BP_ThirdPersonCharacter.uzenasset",
            ZenLayout::Ue5_3 { cells: true },
            "/Game/ThirdPerson/Blueprints/BP_ThirdPersonCharacter",
            25,
        ),
    ] {
        let z = zen::parse(&read(&d, p), layout, None).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(z.name, name, "{p}");
        assert_eq!(z.exports.len(), exports, "{p}");
        assert_eq!(z.name_hash_mismatches(), 0, "{p}");
    }
    // UE 4.27: the export bundle count comes from the store entry; only the
    // right count lays the header out exactly.
    let data = read(&d, "UE4.27/TestModUI.uzenasset");
    let ok: Vec<i32> = (0..8)
        .filter(|&c| {
            let e = StoreEntry {
                export_bundle_count: Some(c),
                ..Default::default()
            };
            zen::parse(&data, ZenLayout::Ue4, Some(&e)).is_ok()
        })
        .collect();
    assert_eq!(ok, vec![1]);
    let e = StoreEntry {
        export_bundle_count: Some(1),
        ..Default::default()
    };
    let z = zen::parse(&data, ZenLayout::Ue4, Some(&e)).unwrap();
    assert_eq!(z.name, "/Game/_AssemblyStorm/TestMod/TestModUI");
    assert_eq!(z.exports.len(), 220);
    assert_eq!(z.name_hash_mismatches(), 0);
    assert_eq!(
        package_id(&z.name),
        package_id("/game/_assemblystorm/testmod/testmodui")
    );
}

#[test]
fn script_objects_of_ue5_3_and_ue4_27() {
    let Some(d) = dir() else { return };
    let s = ScriptObjects::parse(&read(&d, "UE5.3/ScriptObjects.bin")).unwrap();
    assert_eq!(s.objects.len(), 30977);
    let s4 = ScriptObjects::parse_ue4(
        &read(&d, "UE4.27/LoaderInitialLoadMeta_1.bin"),
        &read(&d, "UE4.27/LoaderGlobalNames_1.bin"),
        &read(&d, "UE4.27/LoaderGlobalNameHashes_1.bin"),
    )
    .unwrap();
    assert_eq!(s4.objects.len(), 23393);
    for set in [&s, &s4] {
        for o in &set.objects {
            let p = set.path(o.global_index).unwrap();
            assert_eq!(script_import_index(&p), o.global_index.0, "{p}");
        }
        assert!(set.names.iter().all(|n| !n.hash_mismatch()));
    }
}
