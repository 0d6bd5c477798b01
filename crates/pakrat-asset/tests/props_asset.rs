//! The property view of a package ([`Asset`]) is the same whatever form
//! the package has: for every package of the CUE4Parse fixture containers
//! (UE 5.8 and 6.0, tagged and unversioned), the zen package's asset has
//! the names, imports and exports (paths, classes, outers, data) of its
//! legacy twin, made by `zen to-legacy` conversion, and of the legacy
//! package cooked separately where the LegacyPak paks hold one.

use std::path::Path;

use pakrat_asset::convert::{self, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::{open, Asset};
use pakrat_asset::zen::{load_script_objects, ContainerPackages};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_pak::Pak;
use pakrat_testkit::corpus_dir;

/// Compare what decoding uses. The legacy name map holds every zen name;
/// with `same_bytes` (a converted twin) in the same places, the converter
/// adding import names after them, and the export data is byte for byte
/// the same. A separately cooked legacy package orders its names its own
/// way, so its export data differs in name indices but not in size.
fn same(label: &str, zen: &Asset<'_>, legacy: &Asset<'_>, same_bytes: bool) {
    assert_eq!(zen.package, legacy.package, "{label}: package");
    let mut zn = zen.names.clone();
    let mut ln = legacy.names.clone();
    zn.sort();
    ln.sort();
    assert!(
        zn.iter().all(|n| ln.binary_search(n).is_ok()),
        "{label}: zen names missing from the legacy name map"
    );
    assert!(
        !same_bytes
            || legacy.names.len() >= zen.names.len()
                && legacy.names[..zen.names.len()] == zen.names[..],
        "{label}: names differ"
    );
    let paths = |a: &Asset<'_>| {
        a.imports
            .iter()
            .map(|i| (i.path.clone(), i.class.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(paths(zen), paths(legacy), "{label}: imports");
    assert_eq!(zen.exports.len(), legacy.exports.len(), "{label}: exports");
    for (z, l) in zen.exports.iter().zip(&legacy.exports) {
        let w = format!("{label} {}", l.path);
        assert_eq!(z.name, l.name, "{w}: name");
        assert_eq!(z.path, l.path, "{w}: path");
        assert_eq!(z.class, l.class, "{w}: class");
        assert_eq!(z.outer, l.outer, "{w}: outer");
        assert_eq!(z.super_struct, l.super_struct, "{w}: super");
        assert_eq!(z.template, l.template, "{w}: template");
        assert_eq!(z.object_flags, l.object_flags, "{w}: flags");
        assert!(!same_bytes || z.data == l.data, "{w}: export data differs");
        assert_eq!(z.data.len(), l.data.len(), "{w}: export size");
    }
    assert_eq!(zen.unversioned, legacy.unversioned, "{label}: unversioned");
}

fn variant(corpus: &Path, v: &str, mode: &str) -> usize {
    let engine = Layout::for_engine(if v == "UE6_0" { "6.0" } else { "5.8" });
    let dir = corpus.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
    let c = Container::open(
        dir.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(dir.join("global.utoc"), &KeyRing::default()).unwrap();
    let script = load_script_objects(&global).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let src = Packages::from_containers(&[&cp], Some(script.clone()));
    let mine = pakrat_asset::props::ContainerSource::new(&cp, Some(&script));
    let mut compared = 0;
    let mut partial_sizes = Vec::new();
    for p in &cp.packages {
        let zen = p.header.as_ref().unwrap();
        let label = format!("{v} {mode} {}", zen.name);
        let chunk = c.read_chunk(p.chunk_index).unwrap();
        let imported = mine.imported(p.id);
        let za = Asset::from_zen(zen, &chunk, imported, &mine, engine)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(za.exports.len(), zen.exports.len(), "{label}");
        // Opened by package path, only the package and what it imports
        // are parsed: the same asset.
        let part = ContainerPackages::read_imports_of(&c, p.id)
            .unwrap()
            .unwrap();
        assert!(part.packages.iter().any(|x| x.id == p.id), "{label}");
        partial_sizes.push(part.packages.len());
        let zo = open::open_in_container(&c, Some(&script), &zen.name, engine).unwrap();
        assert_eq!(zo.asset(), za, "{label}: opened by package path");
        // Packages importing engine content the corpus lacks do not convert.
        let Ok(out) = convert::to_legacy(zen, &chunk, imported, &src, engine.unwrap()) else {
            continue;
        };
        let la = Asset::from_legacy(&out.package, &out.uasset, Some(&out.uexp)).unwrap();
        same(&label, &za, &la, true);
        compared += 1;
    }
    // Most packages import few others: far fewer headers are parsed.
    partial_sizes.sort();
    assert!(
        partial_sizes[partial_sizes.len() / 2] < cp.packages.len() / 4,
        "{v} {mode}: {partial_sizes:?}"
    );
    // The 5 packages the LegacyPak pak holds, cooked as legacy files.
    let pak = corpus.join(format!(
        "pak/cue4parse/{v}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
    ));
    let pak = Pak::open(&pak, &KeyRing::default()).unwrap();
    let mut twins = 0;
    for e in &pak.index.entries {
        if !(e.path.ends_with(".uasset") || e.path.ends_with(".umap")) {
            continue;
        }
        let o = open::open_in_paks(std::slice::from_ref(&pak), &e.path, engine).unwrap();
        let la = o.asset();
        let zo = open::open_in_container(&c, Some(&script), &la.package, engine).unwrap();
        same(
            &format!("{v} {mode} LegacyPak {}", e.path),
            &zo.asset(),
            &la,
            false,
        );
        // Cooked packages keep soft object paths inline: the summary's
        // list (UE 5.1+) is there but empty.
        assert!(la.soft_object_paths.is_empty(), "{}", e.path);
        let by_name = open::open_in_paks(std::slice::from_ref(&pak), &la.package, engine).unwrap();
        assert_eq!(by_name.asset(), la, "{}: by package path", e.path);
        twins += 1;
    }
    assert_eq!(twins, 5, "{v} {mode}: the LegacyPak packages");
    let _ = LegacyPackage::read;
    compared
}

#[test]
fn zen_assets_match_their_legacy_twins() {
    let Some(corpus) = corpus_dir() else { return };
    for v in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let n = variant(&corpus, v, mode);
            // 97 packages, 7 of which import engine content not in the corpus.
            assert_eq!(n, 90, "{v} {mode}: packages compared");
        }
    }
}

#[test]
fn package_paths_of_files() {
    let f = open::package_path_of_file;
    assert_eq!(
        f("../../../Proj/Content/Maps/A.umap").as_deref(),
        Some("/Game/Maps/A")
    );
    assert_eq!(
        f("Engine/Content/X/Y.uasset").as_deref(),
        Some("/Engine/X/Y")
    );
    assert_eq!(
        f("Proj/Plugins/Fx/Content/P.uasset").as_deref(),
        Some("/Fx/P")
    );
    assert_eq!(f("Proj/Config/DefaultGame.ini"), None);
}

/// Export data a zen header places past its chunk is an error naming the
/// export, not a panic or a short slice.
#[test]
fn zen_export_data_outside_the_chunk_is_refused() {
    let Some(corpus) = corpus_dir() else { return };
    let dir = corpus.join("iostore/cue4parse/UE5_8/IoStore/Tagged");
    let c = Container::open(
        dir.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let src = pakrat_asset::props::ContainerSource::new(&cp, None);
    let p = cp
        .packages
        .iter()
        .find(|p| {
            p.header
                .as_ref()
                .unwrap()
                .name
                .ends_with("DA_AllProperties")
        })
        .unwrap();
    let chunk = c.read_chunk(p.chunk_index).unwrap();
    for (offset, size) in [(0u64, u64::MAX), (u64::MAX - 3, 8), (chunk.len() as u64, 1)] {
        let mut zen = (**p.header.as_ref().unwrap()).clone();
        zen.exports[1].serial_offset = offset;
        zen.exports[1].serial_size = size;
        let err = Asset::from_zen(&zen, &chunk, src.imported(p.id), &src, None)
            .err()
            .unwrap_or_else(|| panic!("{offset:#x}+{size:#x} accepted"));
        assert!(
            err.to_string().contains("export 1 data") && err.to_string().contains("outside"),
            "{err}"
        );
    }
    // Without script objects, script imports are placeholders, not a failure.
    let zen = p.header.as_ref().unwrap();
    let a = Asset::from_zen(zen, &chunk, src.imported(p.id), &src, None).unwrap();
    assert!(
        a.imports.iter().any(|i| i.path.starts_with("<import")),
        "{:?}",
        a.imports
    );
}
