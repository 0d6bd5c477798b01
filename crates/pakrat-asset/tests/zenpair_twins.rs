//! Issue 30 item 2: `from_legacy` of each zenpair legacy twin (retoc's test
//! packages: the legacy cook and the engine's own zen package of the same
//! package) equals the engine's `.uzenasset` byte for byte, header and
//! export data. One assertion per twin, so a failure names it.

use std::path::Path;

use pakrat_asset::convert::{self, ZenTarget};
use pakrat_asset::legacy::{Layout, LegacyPackage};

/// The UE5 twins of the corpus: (engine folder, package).
const TWINS: [(&str, &str); 6] = [
    ("UE5.4", "Randy"),
    // A Blueprint class: its legacy preload lists name script objects
    // (`Default__Character` and its subobjects) that the zen cook leaves out.
    ("UE5.6", "BP_ThirdPersonCharacter"),
    ("UE5.6", "M_Mannequin"),
    ("UE5.6", "SK_Mannequin"),
    ("UE5.6", "SM_Cube"),
    ("UE5.6", "T_Quinn_01_D"),
];

/// The legacy twin converted to zen, and the engine's zen package.
fn convert_twin(dir: &Path, engine: &str, stem: &str) -> (Vec<u8>, Vec<u8>) {
    let d = dir.join(engine);
    let asset = std::fs::read(d.join(format!("{stem}.uasset"))).unwrap();
    let uexp = std::fs::read(d.join(format!("{stem}.uexp"))).unwrap();
    let twin = std::fs::read(d.join(format!("{stem}.uzenasset"))).unwrap();
    let release = engine.trim_start_matches("UE");
    let pkg = LegacyPackage::read(&asset, Layout::for_engine(release)).unwrap();
    let out = convert::from_legacy(&pkg, &uexp, None, ZenTarget::for_layout(pkg.layout))
        .unwrap_or_else(|e| panic!("{engine} {stem}: {e}"));
    (out.chunk, twin)
}

#[test]
fn from_legacy_equals_every_ue5_zen_twin() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let dir = c.join("zenpair/retoc");
    for (engine, stem) in TWINS {
        let (mine, twin) = convert_twin(&dir, engine, stem);
        let first = mine.iter().zip(&twin).position(|(a, b)| a != b);
        assert!(
            mine == twin,
            "{engine} {stem}: {} bytes against the engine's {}, first difference at {first:?}",
            mine.len(),
            twin.len()
        );
    }
}

/// A numbered package import keeps its number in ImportedPackageNames (UE
/// 5.5 `SM_Cube` of retoc's tests imports `/Game/Meshes/M_Cube` numbers 2
/// and 3; that twin is not in the corpus, so the 5.6 `SM_Cube` is given a
/// numbered import: `MI_PrototypeGrid_Gray` number 3, `..._Gray_2`).
#[test]
fn imported_package_names_keep_the_fname_number() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE5.6");
    let asset = std::fs::read(d.join("SM_Cube.uasset")).unwrap();
    let uexp = std::fs::read(d.join("SM_Cube.uexp")).unwrap();
    let mut pkg = LegacyPackage::read(&asset, Layout::for_engine("5.6")).unwrap();
    let base = "/Game/LevelPrototyping/Materials/MI_PrototypeGrid_Gray";
    let at = (0..pkg.imports.len())
        .find(|&i| pkg.path(-(i as i32) - 1).as_deref() == Some(base))
        .expect("the package import");
    pkg.imports[at].object_name.number = 3;
    let out = convert::from_legacy(&pkg, &uexp, None, ZenTarget::for_layout(pkg.layout)).unwrap();
    let parts: Vec<(String, i32)> = out
        .package
        .imported_package_name_parts
        .iter()
        .map(|(b, n)| (b.text.clone(), *n))
        .collect();
    assert_eq!(parts, [(base.to_string(), 3)]);
    let whole = format!("{base}_2");
    assert_eq!(
        out.package.imported_package_names,
        std::slice::from_ref(&whole)
    );
    assert_eq!(
        out.imported_packages,
        [pakrat_codec::names::package_id(&whole)]
    );
}

/// Issue 30 item 1: the UE 4.27 layout. `from_legacy_ue4` of the UE 4.27
/// legacy twin (`TestModUI`, whose summary names no package: the name comes
/// from its path under `Content/`) equals the engine's `.uzenasset`, and
/// the store entry matches the one the container held (but `LoadOrder`,
/// which is container-wide).
#[test]
fn from_legacy_ue4_equals_the_ue427_zen_twin() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let asset = std::fs::read(d.join("TestModUI.uasset")).unwrap();
    let uexp = std::fs::read(d.join("TestModUI.uexp")).unwrap();
    let twin = std::fs::read(d.join("TestModUI.uzenasset")).unwrap();
    let pkg = LegacyPackage::read(&asset, Layout::for_engine("4.27")).unwrap();
    assert_eq!(pkg.summary.package_name, "None");
    let out =
        convert::from_legacy_ue4(&pkg, &uexp, "/Game/_AssemblyStorm/TestMod/TestModUI").unwrap();
    let first = out.chunk.iter().zip(&twin).position(|(a, b)| a != b);
    assert!(
        out.chunk == twin,
        "UE4.27 TestModUI: {} bytes against the engine's {}, first difference at {first:?}",
        out.chunk.len(),
        twin.len()
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("TestModUI.metadata.json")).unwrap()).unwrap();
    let st = out.store_entry.unwrap();
    let want = &meta["store_entry"];
    assert_eq!(st.export_bundles_size, want["export_bundles_size"].as_u64());
    assert_eq!(
        st.export_count,
        want["export_count"].as_i64().map(|x| x as i32)
    );
    assert_eq!(
        st.export_bundle_count,
        want["export_bundle_count"].as_i64().map(|x| x as i32)
    );
    // In the engine's order: the package imports in import-map order (the
    // graph data of the package sorts them by id).
    let ids: Vec<u64> = want["imported_packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(st.imported_packages, ids);
}

/// `from_legacy_ue4` writes UE 4.27 packages only: a UE5 package is
/// refused by name.
#[test]
fn from_legacy_ue4_refuses_other_versions_by_name() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE5.6");
    let asset = std::fs::read(d.join("SM_Cube.uasset")).unwrap();
    let uexp = std::fs::read(d.join("SM_Cube.uexp")).unwrap();
    let pkg = LegacyPackage::read(&asset, Layout::for_engine("5.6")).unwrap();
    let e = convert::from_legacy_ue4(&pkg, &uexp, "/Game/SM_Cube")
        .unwrap_err()
        .to_string();
    assert!(e.contains("UE 4.27's only"), "{e}");
}

/// to-legacy keeps the FName number of an imported package too: the
/// numbered 5.6 `SM_Cube` above converted to zen and back names its
/// material package `/Game/.../MI_PrototypeGrid_Gray` number 3 in the
/// legacy name map (not a flattened `..._Gray_2`), as the UE 5.5 `SM_Cube`
/// legacy cook does. The imported package is a stand-in holding the one
/// export the cube imports, named as the engine names it (base + number);
/// script imports resolve through the corpus's UE 5.3 ScriptObjects.
#[test]
fn to_legacy_keeps_the_fname_number_of_imported_packages() {
    use pakrat_asset::zen::{Export, ObjectIndex};
    use pakrat_codec::names::{package_id, public_export_hash, BatchName, MappedName, NameMapKind};
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE5.6");
    let asset = std::fs::read(d.join("SM_Cube.uasset")).unwrap();
    let uexp = std::fs::read(d.join("SM_Cube.uexp")).unwrap();
    let mut pkg = LegacyPackage::read(&asset, Layout::for_engine("5.6")).unwrap();
    let base = "/Game/LevelPrototyping/Materials/MI_PrototypeGrid_Gray";
    for i in 0..pkg.imports.len() {
        let p = pkg.path(-(i as i32) - 1).unwrap();
        if p == base || p == format!("{base}.MI_PrototypeGrid_Gray") {
            pkg.imports[i].object_name.number = 3;
        }
    }
    let out = convert::from_legacy(&pkg, &uexp, None, ZenTarget::for_layout(pkg.layout)).unwrap();
    let whole = format!("{base}_2");
    let bn = |t: &str| BatchName {
        text: t.into(),
        wide: false,
        stored_hash: None,
    };
    let mut other = out.package.clone();
    other.name = whole.clone();
    other.names = vec![bn("MI_PrototypeGrid_Gray"), bn(base)];
    other.name_mapped = MappedName {
        index: 1,
        kind: NameMapKind::Package,
        number: 3,
    };
    other.exports = vec![Export {
        serial_offset: 0,
        serial_size: 0,
        name: MappedName {
            index: 0,
            kind: NameMapKind::Package,
            number: 3,
        },
        outer: ObjectIndex(u64::MAX),
        class: ObjectIndex(u64::MAX),
        super_index: ObjectIndex(u64::MAX),
        template: ObjectIndex(u64::MAX),
        public_export_hash: public_export_hash("mi_prototypegrid_gray_2"),
        object_flags: 1,
        filter_flags: 0,
    }];
    // Script imports resolve through the UE 5.3 ScriptObjects of the
    // corpus (the engine classes the cube uses are there).
    let so = std::fs::read(c.join("zenpair/retoc/UE5.3/ScriptObjects.bin")).unwrap();
    let mut src = convert::Packages::from_containers(
        &[],
        Some(pakrat_asset::zen::ScriptObjects::parse(&so).unwrap()),
    );
    src.by_id
        .insert(package_id(&whole), (other.into(), Vec::new()));
    let leg = convert::to_legacy(
        &out.package,
        &out.chunk,
        &out.imported_packages,
        &src,
        pkg.layout,
    )
    .unwrap();
    let names: Vec<&str> = leg.package.names.iter().map(|n| n.text.as_str()).collect();
    assert!(names.contains(&base), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with("_Gray_2")), "{names:?}");
    let l = &leg.package;
    let at = (0..l.imports.len())
        .find(|&i| l.path(-(i as i32) - 1).as_deref() == Some(whole.as_str()))
        .expect("the package import, whole name");
    assert_eq!(l.imports[at].object_name.number, 3);
}
