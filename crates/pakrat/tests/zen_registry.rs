//! `zen from-legacy --into … --registry` (issue 30 item 5): the registry
//! entries of the converted fixture packages against the fixture's own
//! `AssetRegistry.bin` (same cook): asset, class and package flags equal;
//! hard dependencies are those of the fixture minus what the imports do not
//! show (recorded below); the written registry verifies; merged into the
//! fixture registry it replaces the 5 entries and adds none.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::{fixtures, pakrat, run, s};
use pakrat_asset::registry::AssetRegistry;

/// Dependencies the fixture registry records that the packages' imports do
/// not show: DA_AllProperties refers to T_BC6H by a soft object path (its
/// soft object path list, not an import); the empty map's
/// WorldGridMaterial is not named anywhere in its files (the 5.8 cook adds
/// it; the 6.0 cook's registry does not have it).
const NOT_IN_IMPORTS: [(&str, &str); 2] = [
    (
        "/Game/Fixtures/Properties/DA_AllProperties",
        "/Game/Fixtures/Textures/T_BC6H",
    ),
    (
        "/Game/Fixtures/Maps/Empty",
        "/Engine/EngineMaterials/WorldGridMaterial",
    ),
];

const PKG_UNVERSIONED_PROPERTIES: u32 = 0x2000;

fn read(p: &Path) -> AssetRegistry {
    AssetRegistry::read(&std::fs::read(p).unwrap()).unwrap()
}

/// Per package: (class path, package flags).
fn assets(r: &AssetRegistry) -> BTreeMap<String, (String, String, u32)> {
    r.assets
        .iter()
        .map(|a| {
            let v = r.view(a);
            (v.package.clone(), (v.object_path, v.class, a.package_flags))
        })
        .collect()
}

/// The package dependencies of `package`'s node.
fn deps(r: &AssetRegistry, package: &str) -> BTreeSet<String> {
    let nodes = &r.dependencies.nodes;
    let Some(n) = nodes
        .iter()
        .find(|n| n.identifier.package_name.map(|p| r.name(p)).as_deref() == Some(package))
    else {
        return BTreeSet::new();
    };
    n.package_deps
        .iter()
        .filter_map(|&d| nodes[d as usize].identifier.package_name)
        .map(|p| r.name(p))
        .collect()
}

fn convert(cook: &Path, utoc: &Path, engine: &str, base: Option<&Path>) {
    let mut args = vec![
        "zen",
        "from-legacy",
        s(cook),
        "--into",
        s(utoc),
        "--ue-version",
        engine,
        "--registry",
    ];
    args.extend(base.map(s));
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("no tags (cooked packages carry none)"),
        "{out}"
    );
}

#[test]
fn from_legacy_registry_matches_the_fixture_registry() {
    let Some(fx) = fixtures() else { return };
    let c = pakrat_testkit::corpus_dir().unwrap();
    for f in &fx {
        let tmp = tempfile::tempdir().unwrap();
        let cook = tmp.path().join("cook");
        pakrat()
            .args(["extract", s(&f.legacy_pak), "-o", s(&cook), "-q"])
            .assert()
            .success();
        let dir = if f.engine == "5.8" { "UE5_8" } else { "UE6_0" };
        let pak = c.join(format!(
            "pak/cue4parse/{dir}/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak"
        ));
        let game_dir = tmp.path().join("game");
        pakrat()
            .args([
                "extract",
                s(&pak),
                "AssetRegistry.bin",
                "-o",
                s(&game_dir),
                "-q",
            ])
            .assert()
            .success();
        let game_bin = game_dir.join("AssetRegistry.bin");
        let game = read(&game_bin);

        let utoc = tmp.path().join("mod/Mod_P.utoc");
        convert(&cook, &utoc, f.engine, None);
        let out = utoc.with_extension("AssetRegistry.bin");
        let ours = read(&out);
        assert_eq!(ours.version, game.version, "{}", f.label);
        // The fixture registry is the tagged cook's: the unversioned cook's
        // packages add PKG_UnversionedProperties (0x2000) to their flags.
        let mut ga = assets(&game);
        if !f.tagged {
            for a in ga.values_mut() {
                a.2 |= PKG_UNVERSIONED_PROPERTIES;
            }
        }
        let oa = assets(&ours);
        assert_eq!(oa.len(), 5, "{}: {oa:?}", f.label);
        for (pkg, a) in &oa {
            assert_eq!(Some(a), ga.get(pkg), "{}: {pkg}", f.label);
            // Hard dependencies: the fixture's outside /Script/, less the
            // recorded ones the imports do not show.
            let want: BTreeSet<String> = deps(&game, pkg)
                .into_iter()
                .filter(|d| !d.starts_with("/Script/"))
                .filter(|d| !NOT_IN_IMPORTS.contains(&(pkg.as_str(), d.as_str())))
                .collect();
            assert_eq!(deps(&ours, pkg), want, "{}: {pkg}", f.label);
        }
        // The 6.0 cook's registry does not record WorldGridMaterial.
        for (pkg, d) in NOT_IN_IMPORTS {
            let recorded = f.engine == "5.8" || !d.starts_with("/Engine/");
            assert_eq!(
                deps(&game, pkg).contains(d),
                recorded,
                "{}: {pkg} -> {d}",
                f.label
            );
        }
        let (code, text, _) = run(&["registry", "verify", s(&out)]);
        assert_eq!(code, 0, "{text}");
        // No overwrite without --force; nothing else is written then.
        let again = tmp.path().join("mod/Again_P.utoc");
        std::fs::copy(&out, again.with_extension("AssetRegistry.bin")).unwrap();
        let (code, _, err) = run(&[
            "zen",
            "from-legacy",
            s(&cook),
            "--into",
            s(&again),
            "--ue-version",
            f.engine,
            "--registry",
        ]);
        assert_ne!(code, 0);
        assert!(err.contains("exists"), "{err}");
        assert!(!again.exists());

        // Merged into the fixture registry: the 5 entries are replaced.
        let merged_utoc = tmp.path().join("merged/Mod_P.utoc");
        convert(&cook, &merged_utoc, f.engine, Some(&game_bin));
        let merged = read(&merged_utoc.with_extension("AssetRegistry.bin"));
        assert_eq!(merged.assets.len(), game.assets.len(), "{}", f.label);
        let ma = assets(&merged);
        for (pkg, a) in &ga {
            let want = if oa.contains_key(pkg) {
                a.clone()
            } else {
                assets(&game)[pkg].clone()
            };
            assert_eq!(ma.get(pkg), Some(&want), "{}: {pkg}", f.label);
        }
        for pkg in oa.keys() {
            assert_eq!(deps(&merged, pkg), deps(&ours, pkg), "{}: {pkg}", f.label);
        }
        let (code, text, _) = run(&[
            "registry",
            "verify",
            s(&merged_utoc.with_extension("AssetRegistry.bin")),
        ]);
        assert_eq!(code, 0, "{text}");
    }
}

#[test]
fn from_legacy_registry_needs_a_known_version() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cook = tmp.path().join("cook");
    pakrat()
        .args(["extract", s(&fx[0].legacy_pak), "-o", s(&cook), "-q"])
        .assert()
        .success();
    let utoc = tmp.path().join("mod/Mod_P.utoc");
    let (code, _, err) = run(&[
        "zen",
        "from-legacy",
        s(&cook),
        "--into",
        s(&utoc),
        "--registry",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--registry GAME.bin"), "{err}");
    assert!(!utoc.exists(), "nothing is written");
}
