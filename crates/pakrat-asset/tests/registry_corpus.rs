//! `AssetRegistry.bin` of the corpus: the fixture projects of UE 5.8 and
//! 6.0 ship one in each `Pak/` pak (stored and Oodle-compressed). Each is
//! read straight from its pak, written back byte for byte, and checked
//! against facts read independently of the registry.

use std::collections::BTreeSet;
use std::path::PathBuf;

use pakrat_asset::legacy::LegacyPackage;
use pakrat_asset::registry::merge::merge;
use pakrat_asset::registry::AssetRegistry;
use pakrat_codec::keys::KeyRing;
use pakrat_iostore::Container;
use pakrat_pak::Pak;

/// `(pak path, registry bytes)` of every registry inside a corpus pak.
fn registries() -> Option<Vec<(PathBuf, Vec<u8>)>> {
    let rows = pakrat_testkit::entries("pak")?;
    let mut out = Vec::new();
    for r in rows {
        // The registry sits in the fixture projects' `Pak/` paks.
        if !r.local_path.contains("/Pak/") {
            continue;
        }
        let pak = Pak::open(&r.path, &KeyRing::default()).unwrap();
        for e in &pak.index.entries {
            if e.path.ends_with("AssetRegistry.bin") {
                out.push((r.path.clone(), pak.read(e).unwrap()));
            }
        }
    }
    Some(out)
}

#[test]
fn fixture_registries_read_and_write_back_byte_for_byte() {
    let Some(regs) = registries() else {
        return;
    };
    assert!(regs.len() >= 4, "registries found: {}", regs.len());
    for (path, data) in &regs {
        let reg = AssetRegistry::read(data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = reg.to_bytes();
        let first = back.iter().zip(data).position(|(a, b)| a != b);
        assert!(
            back == *data,
            "{}: {} bytes back of {}, first difference at {first:?}",
            path.display(),
            back.len(),
            data.len()
        );
        eprintln!(
            "{}: version {} assets {} nodes {} packages {}",
            path.display(),
            reg.version,
            reg.assets.len(),
            reg.dependencies.nodes.len(),
            reg.packages.len()
        );
    }
}

/// The registry of one fixture version (the stored, uncompressed pak's).
fn registry(dir: &std::path::Path, v: &str) -> (Vec<u8>, AssetRegistry) {
    let pak = Pak::open(
        dir.join(format!(
            "pak/cue4parse/{v}/Pak/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed.pak"
        )),
        &KeyRing::default(),
    )
    .unwrap();
    let e = pak
        .index
        .entries
        .iter()
        .find(|e| e.path == "AssetRegistry.bin")
        .unwrap();
    let data = pak.read(e).unwrap();
    let reg = AssetRegistry::read(&data).unwrap();
    (data, reg)
}

/// The `/Game/` packages of the registry are the project's packages the
/// IoStore container of the same cook holds (UE 6.0's registry also names
/// the patch and Android fixtures, which that container does not carry).
#[test]
fn game_packages_match_the_container_of_the_same_cook() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for v in ["UE5_8", "UE6_0"] {
        let (_, reg) = registry(&dir, v);
        let in_reg: BTreeSet<String> = reg
            .assets
            .iter()
            .map(|a| reg.name(a.package_name))
            .filter(|p| p.starts_with("/Game/"))
            .collect();
        let c = Container::open(
            dir.join(format!(
                "iostore/cue4parse/{v}/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
            )),
            &KeyRing::default(),
        )
        .unwrap();
        let in_container: BTreeSet<String> = c
            .chunks()
            .into_iter()
            .filter_map(|ch| {
                let path = ch.path?;
                let p = path.strip_prefix("CUE4ParseFixtures/Content/")?;
                let p = p
                    .strip_suffix(".uasset")
                    .or_else(|| p.strip_suffix(".umap"))?;
                Some(format!("/Game/{p}"))
            })
            .collect();
        assert_eq!(in_container.len(), 97, "{v}");
        let extra: Vec<&String> = in_reg.difference(&in_container).collect();
        let missing: Vec<&String> = in_container.difference(&in_reg).collect();
        assert!(
            missing.is_empty(),
            "{v}: container packages not in the registry: {missing:?}"
        );
        if v == "UE5_8" {
            assert!(extra.is_empty(), "{v}: {extra:?}");
        } else {
            assert_eq!(extra.len(), 12, "{v}: {extra:?}");
            assert!(
                extra.iter().all(|p| p.starts_with("/Game/PatchFixtures/")
                    || p.starts_with("/Game/PlatformFixtures/Android/")),
                "{v}: {extra:?}"
            );
        }
    }
}

/// The class of each asset the legacy pak of the same project holds is the
/// class of that package's main export, read from its own tables.
#[test]
fn asset_classes_match_the_packages_exports() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for v in ["UE5_8", "UE6_0"] {
        let (_, reg) = registry(&dir, v);
        let pak = Pak::open(
            dir.join(format!(
                "pak/cue4parse/{v}/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"
            )),
            &KeyRing::default(),
        )
        .unwrap();
        let mut checked = 0;
        for e in &pak.index.entries {
            let Some(stem) = e
                .path
                .strip_suffix(".uasset")
                .or_else(|| e.path.strip_suffix(".umap"))
            else {
                continue;
            };
            let pkg = LegacyPackage::read(&pak.read(e).unwrap(), None).unwrap();
            let name = stem.rsplit('/').next().unwrap();
            let main = (1..=pkg.exports.len() as i32)
                .find(|&i| pkg.object_name(i).as_deref() == Some(name))
                .unwrap();
            let class = pkg.class_path(main).unwrap();
            let object_path = format!("/Game/Fixtures/{stem}.{name}");
            let asset = reg
                .assets
                .iter()
                .find(|a| reg.view(a).object_path == object_path)
                .unwrap_or_else(|| panic!("{v}: {object_path} not in the registry"));
            assert_eq!(reg.class_path(asset), class, "{v}: {object_path}");
            checked += 1;
        }
        assert_eq!(checked, 5, "{v}");
    }
}

/// Merging UE 6.0's registry into UE 5.8's (same registry version): the
/// result reads back, merging again changes nothing, every 5.8 asset the
/// 6.0 one does not replace keeps its bytes, and every 6.0 asset is there
/// with its class and tags.
#[test]
fn merge_reads_back_is_idempotent_and_keeps_untouched_entries() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let (_, game) = registry(&dir, "UE5_8");
    let (_, add) = registry(&dir, "UE6_0");
    let mut merged = game.clone();
    let report = merge(&mut merged, &add).unwrap();
    let bytes = merged.to_bytes();
    let back = AssetRegistry::read(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);
    let mut again = back.clone();
    let report2 = merge(&mut again, &add).unwrap();
    assert_eq!(
        again.to_bytes(),
        bytes,
        "merging twice gives the same bytes"
    );
    assert_eq!(
        report2.assets_added + report2.packages_added + report2.nodes_added + report2.names_added,
        0
    );
    assert_eq!(
        report.assets_replaced + report.assets_added,
        add.assets.len()
    );
    assert_eq!(merged.assets.len(), game.assets.len() + report.assets_added);
    // Untouched game assets: same bytes (their names and tag pairs keep their indices).
    let ctx = game.ctx();
    let replaced: BTreeSet<String> = add.assets.iter().map(|a| add.view(a).object_path).collect();
    let mut kept = 0;
    for (a, m) in game.assets.iter().zip(&back.assets) {
        if replaced.contains(&game.view(a).object_path) {
            continue;
        }
        let (mut x, mut y) = (pakrat_io::Writer::new(), pakrat_io::Writer::new());
        a.write(&mut x, &ctx);
        m.write(&mut y, &back.ctx());
        assert_eq!(x.as_slice(), y.as_slice(), "{}", game.view(a).object_path);
        assert_eq!(game.tags(a), back.tags(m));
        kept += 1;
    }
    assert!(kept > 0 && report.assets_added > 0, "{report:?}");
    // Every mod asset is there as the mod has it.
    for a in &add.assets {
        let want = add.view(a);
        let got = back
            .assets
            .iter()
            .map(|m| back.view(m))
            .find(|m| m.object_path == want.object_path)
            .unwrap();
        assert_eq!(got, want);
    }
    eprintln!(
        "merge: {report:?}; {} bytes -> {} bytes; {kept} game assets kept byte for byte",
        game.to_bytes().len(),
        bytes.len()
    );
}

/// A registry merged into itself is itself, byte for byte: every entry is
/// replaced in place by an equal one, and no name, value or pair is added.
#[test]
fn merging_a_registry_into_itself_changes_no_byte() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for v in ["UE5_8", "UE6_0"] {
        let (data, game) = registry(&dir, v);
        let mut merged = game.clone();
        let report = merge(&mut merged, &game).unwrap();
        assert_eq!(report.assets_replaced, game.assets.len(), "{v}");
        assert_eq!(
            report.names_added + report.assets_added + report.nodes_added,
            0,
            "{v}"
        );
        assert!(merged.to_bytes() == data, "{v}");
    }
}
