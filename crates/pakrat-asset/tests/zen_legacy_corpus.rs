//! Legacy packages and zen ↔ legacy conversion on the CUE4Parse fixtures:
//! the same packages cooked as legacy `.uasset`/`.uexp` (LegacyPak) and as
//! zen (IoStore), UE 5.8 and 6.0, tagged and unversioned. Each is the
//! other's reference.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use pakrat_asset::convert::{self, Packages, ZenTarget};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{load_script_objects, ContainerPackages, ZenPackage};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_pak::Pak;
use pakrat_testkit::corpus_dir;

const FIXTURES: [&str; 5] = [
    "Properties/DA_AllProperties.uasset",
    "DataTables/DT_AllProperties.uasset",
    "Textures/T_Streaming.uasset",
    "Textures/T_BC6H.uasset",
    "Maps/Empty.umap",
];

/// Packages of the minimal containers that import engine content the corpus
/// does not have: to-legacy must refuse them, naming the missing package.
const NEEDS_ENGINE: [&str; 7] = [
    "/Game/Fixtures/Animations/AS_Additive",
    "/Game/Fixtures/Animations/AS_Fixture",
    "/Game/Fixtures/Meshes/SM_Fixture",
    "/Game/Fixtures/Meshes/SK_Fixture",
    "/Game/Fixtures/Meshes/SM_Nanite",
    "/Game/Fixtures/Geometry/GC_Fixture",
    "/Game/Fixtures/Maps/Landscape",
];

struct Variant {
    legacy: HashMap<String, Vec<u8>>,
    container: Container,
    packages: ContainerPackages,
    src: Packages,
}

fn variant(corpus: &Path, v: &str, mode: &str) -> Variant {
    let pak = corpus.join(format!(
        "pak/cue4parse/{v}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
    ));
    let pak = Pak::open(&pak, &KeyRing::default()).unwrap();
    let legacy = pak
        .index
        .entries
        .iter()
        .map(|e| (e.path.clone(), pak.read(e).unwrap()))
        .collect();
    let dir = corpus.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
    let container = Container::open(
        dir.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(dir.join("global.utoc"), &KeyRing::default()).unwrap();
    let packages = ContainerPackages::read(&container).unwrap();
    let src = Packages::from_containers(&[&packages], Some(load_script_objects(&global).unwrap()));
    Variant {
        legacy,
        container,
        packages,
        src,
    }
}

fn variants() -> Option<Vec<(String, Variant)>> {
    let corpus = corpus_dir()?;
    let mut out = Vec::new();
    for v in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            out.push((format!("{v} {mode}"), variant(&corpus, v, mode)));
        }
    }
    Some(out)
}

fn fallback() -> Option<Layout> {
    Layout::for_engine("5.8")
}

fn zen_of<'a>(v: &'a Variant, name: &str) -> (&'a ZenPackage, Vec<u8>, Vec<u64>) {
    let pe = v
        .packages
        .packages
        .iter()
        .find(|p| p.header.as_ref().is_ok_and(|h| h.name == name))
        .unwrap_or_else(|| panic!("{name} not in the container"));
    let imported = v
        .packages
        .store_entry(pe.id)
        .map(|s| s.imported_packages.clone())
        .unwrap_or_default();
    (
        pe.header.as_ref().unwrap(),
        v.container.read_chunk(pe.chunk_index).unwrap(),
        imported,
    )
}

#[test]
fn legacy_headers_read_and_write_back_byte_for_byte() {
    let Some(vs) = variants() else { return };
    let mut n = 0;
    for (label, v) in &vs {
        for (path, data) in &v.legacy {
            if !(path.ends_with(".uasset") || path.ends_with(".umap")) {
                continue;
            }
            let p = LegacyPackage::read(data, fallback())
                .unwrap_or_else(|e| panic!("{label} {path}: {e}"));
            let ths = p.summary.total_header_size as usize;
            assert_eq!(
                p.to_bytes().unwrap(),
                data[..ths],
                "{label} {path}: header written back differs"
            );
            // Every export's data lies in the .uexp, which ends with the tag.
            let uexp = &v.legacy[&path.replace(".uasset", ".uexp").replace(".umap", ".uexp")];
            for i in 0..p.exports.len() {
                p.export_data(i, data, Some(uexp)).unwrap();
            }
            assert_eq!(
                uexp[uexp.len() - 4..],
                [0xC1, 0x83, 0x2A, 0x9E],
                "{label} {path}"
            );
            n += 1;
        }
    }
    assert_eq!(n, 20, "5 legacy packages x 4 variants");
}

#[test]
fn unversioned_legacy_needs_a_layout() {
    let Some(vs) = variants() else { return };
    let data = &vs[1].1.legacy["DataTables/DT_AllProperties.uasset"];
    let e = LegacyPackage::read(data, None).unwrap_err().to_string();
    assert!(
        e.contains("unversioned") && e.contains("--ue-version"),
        "{e}"
    );
}

#[test]
fn zen_headers_write_back_byte_for_byte() {
    let Some(vs) = variants() else { return };
    for (label, v) in &vs {
        assert_eq!(v.packages.packages.len(), 97);
        for pe in &v.packages.packages {
            let h = pe.header.as_ref().unwrap();
            let chunk = v.container.read_chunk(pe.chunk_index).unwrap();
            assert_eq!(
                h.to_bytes().unwrap(),
                chunk[..h.header_size as usize],
                "{label} {}",
                h.name
            );
        }
    }
}

fn imports_of(p: &LegacyPackage) -> Vec<String> {
    (0..p.imports.len() as i32)
        .map(|i| {
            format!(
                "{} [{}]",
                p.path(-i - 1).unwrap(),
                p.class_path(-i - 1).unwrap()
            )
        })
        .collect()
}

fn exports_of(p: &LegacyPackage, asset: &[u8], uexp: &[u8]) -> Vec<String> {
    (0..p.exports.len())
        .map(|i| {
            let e = &p.exports[i];
            let k = i as i32 + 1;
            format!(
                "{} [{}] outer {:?} flags {:#x} size {} data {}",
                p.path(k).unwrap(),
                p.class_path(k).unwrap(),
                p.path(e.outer),
                e.object_flags,
                e.serial_size,
                blake3::hash(p.export_data(i, asset, Some(uexp)).unwrap())
            )
        })
        .collect()
}

fn preload_of(p: &LegacyPackage) -> BTreeSet<(String, usize, i32)> {
    let mut out = BTreeSet::new();
    for (i, e) in p.exports.iter().enumerate() {
        if let Some(rs) = e.dependency_ranges() {
            for (g, r) in rs.into_iter().enumerate() {
                for &x in &p.preload_dependencies[r] {
                    out.insert((p.path(i as i32 + 1).unwrap(), g, x));
                }
            }
        }
    }
    out
}

#[test]
fn to_legacy_matches_the_legacy_cook() {
    let Some(vs) = variants() else { return };
    let (mut lost, mut total) = (0, 0);
    for (label, v) in &vs {
        for rel in FIXTURES {
            let stem = rel.rsplit_once('.').unwrap().0;
            let (zen, chunk, imported) = zen_of(v, &format!("/Game/Fixtures/{stem}"));
            let out = convert::to_legacy(
                zen,
                &chunk,
                &imported,
                &v.src,
                convert::layout_of(zen, fallback()),
            )
            .unwrap();
            let leg_asset = &v.legacy[rel];
            let leg_uexp = &v.legacy[&format!("{stem}.uexp")];
            let leg = LegacyPackage::read(leg_asset, fallback()).unwrap();
            let t = &out.package;
            let set = |p: &LegacyPackage| {
                p.names
                    .iter()
                    .map(|n| n.text.clone())
                    .collect::<BTreeSet<_>>()
            };
            assert_eq!(set(t), set(&leg), "{label} {rel}: names");
            assert_eq!(
                imports_of(t),
                imports_of(&leg),
                "{label} {rel}: imports (in order)"
            );
            assert_eq!(
                exports_of(t, &out.uasset, &out.uexp),
                exports_of(&leg, leg_asset, leg_uexp),
                "{label} {rel}: exports"
            );
            assert_eq!(out.uexp, leg_uexp[..], "{label} {rel}: .uexp");
            // Preload dependencies: everything converted is in the cook; what
            // the cook has beyond is a dependency on a script type (class,
            // struct), which zen does not store.
            let (a, b) = (preload_of(t), preload_of(&leg));
            let by_path = |p: &LegacyPackage, s: &BTreeSet<(String, usize, i32)>| {
                s.iter()
                    .map(|(e, g, x)| (e.clone(), *g, p.path(*x).unwrap()))
                    .collect::<BTreeSet<_>>()
            };
            let (pa, pb) = (by_path(t, &a), by_path(&leg, &b));
            assert!(
                pa.is_subset(&pb),
                "{label} {rel}: converted preload dependencies not in the cook: {:?}",
                pa.difference(&pb)
            );
            for (e, g, x) in &b {
                let p = leg.path(*x).unwrap();
                if !pa.contains(&(e.clone(), *g, p.clone())) {
                    let class = leg.class_path(*x).unwrap();
                    assert!(
                        *x < 0
                            && p.starts_with("/Script/")
                            && ["Class", "ScriptStruct", "Enum", "Function"]
                                .iter()
                                .any(|c| class.ends_with(&format!(".{c}"))),
                        "{label} {rel}: lost preload dependency {e} -> {p} [{class}]"
                    );
                    lost += 1;
                }
            }
            total += b.len();
        }
    }
    eprintln!("to-legacy preload dependencies: {} of {total} recovered; {lost} script-type dependencies zen does not store", total - lost);
    assert_eq!((lost, total), (16, 152));
}

#[test]
fn from_legacy_matches_the_zen_cook() {
    let Some(vs) = variants() else { return };
    for (label, v) in &vs {
        for rel in FIXTURES {
            let stem = rel.rsplit_once('.').unwrap().0;
            let (zen, chunk, _) = zen_of(v, &format!("/Game/Fixtures/{stem}"));
            let leg = LegacyPackage::read(&v.legacy[rel], fallback()).unwrap();
            let out = convert::from_legacy(
                &leg,
                &v.legacy[&format!("{stem}.uexp")],
                v.src.script.as_ref(),
                ZenTarget::for_layout(leg.layout),
            )
            .unwrap();
            let z = &out.package;
            assert_eq!(z.names, zen.names, "{label} {rel}: name batch");
            assert_eq!(
                z.imported_public_export_hashes, zen.imported_public_export_hashes,
                "{label} {rel}"
            );
            assert_eq!(z.imports, zen.imports, "{label} {rel}: import map");
            assert_eq!(z.exports, zen.exports, "{label} {rel}: export map");
            assert_eq!(
                z.export_bundle_entries, zen.export_bundle_entries,
                "{label} {rel}: export bundle"
            );
            assert_eq!(
                z.dependency_bundle_headers, zen.dependency_bundle_headers,
                "{label} {rel}: dependency bundles"
            );
            assert_eq!(
                z.dependency_bundle_entries, zen.dependency_bundle_entries,
                "{label} {rel}: dependency entries"
            );
            assert_eq!(
                z.imported_package_names, zen.imported_package_names,
                "{label} {rel}"
            );
            assert_eq!(z.bulk, zen.bulk, "{label} {rel}: bulk data map");
            assert_eq!(z.versioning, zen.versioning, "{label} {rel}: versioning");
            assert_eq!(
                out.chunk[z.header_size as usize..],
                chunk[zen.header_size as usize..],
                "{label} {rel}: export data"
            );
            // And so the whole chunk, header and data, byte for byte
            // (CookedHeaderSize included: see convert::cooked_header_size).
            assert_eq!(
                z.cooked_header_size, zen.cooked_header_size,
                "{label} {rel}"
            );
            assert!(
                out.chunk == chunk,
                "{label} {rel}: zen chunk differs from the cook's"
            );
            assert_eq!(
                out.imported_packages,
                v.packages
                    .store_entry(pakrat_codec::names::package_id(&zen.name))
                    .unwrap()
                    .imported_packages
            );
        }
    }
}

#[test]
fn every_package_converts_and_round_trips() {
    let Some(vs) = variants() else { return };
    for (label, v) in &vs {
        let (mut exact, mut refused) = (0, 0);
        let mut gaps = Vec::new();
        for pe in &v.packages.packages {
            let zen = pe.header.as_ref().unwrap();
            let chunk = v.container.read_chunk(pe.chunk_index).unwrap();
            let imported = v
                .packages
                .store_entry(pe.id)
                .map(|s| s.imported_packages.clone())
                .unwrap_or_default();
            let out = match convert::to_legacy(
                zen,
                &chunk,
                &imported,
                &v.src,
                convert::layout_of(zen, fallback()),
            ) {
                Ok(o) => o,
                Err(e) => {
                    assert!(
                        NEEDS_ENGINE.contains(&zen.name.as_str()),
                        "{label} {}: {e}",
                        zen.name
                    );
                    assert!(
                        e.to_string().contains("/Engine/")
                            && e.to_string().contains("none of the containers"),
                        "{e}"
                    );
                    refused += 1;
                    continue;
                }
            };
            // The written package reads back with every reference resolving.
            let back = LegacyPackage::read(&out.uasset, Some(out.package.layout)).unwrap();
            for i in 0..back.imports.len() as i32 {
                back.path(-i - 1).unwrap();
            }
            for i in 0..back.exports.len() {
                back.export_data(i, &out.uasset, Some(&out.uexp)).unwrap();
            }
            let z = convert::from_legacy(
                &back,
                &out.uexp,
                v.src.script.as_ref(),
                ZenTarget::for_layout(back.layout),
            )
            .unwrap();
            // Exact: the same model and the same bytes, but for
            // CookedHeaderSize (bytes 20..24), which follows the legacy
            // header's size, and that holds names and import fields zen
            // does not keep (docs/zen-legacy.md).
            let mut zz = z.package.clone();
            zz.cooked_header_size = zen.cooked_header_size;
            let mut bytes = z.chunk.clone();
            if bytes.len() >= 24 {
                bytes[20..24].copy_from_slice(&zen.cooked_header_size.to_le_bytes());
            }
            if zz == **zen && bytes == chunk {
                exact += 1;
            } else {
                gaps.push(zen.name.clone());
            }
        }
        assert_eq!(refused, NEEDS_ENGINE.len(), "{label}");
        assert!(
            gaps.is_empty(),
            "{label}: zen -> legacy -> zen differs for {gaps:?}"
        );
        assert_eq!(exact, 97 - NEEDS_ENGINE.len(), "{label}");
    }
}

/// A UE 4.27 package (the zenpair legacy twin of TestModUI, read with the
/// 4.27 layout) is refused by name: pakrat writes the UE 5.3+ zen layout
/// only, which a 4.27 game would not load.
#[test]
fn from_legacy_refuses_a_ue4_package_by_name() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let dir = c.join("zenpair/retoc/UE4.27");
    let asset = std::fs::read(dir.join("TestModUI.uasset")).unwrap();
    let uexp = std::fs::read(dir.join("TestModUI.uexp")).unwrap();
    let pkg = LegacyPackage::read(&asset, Layout::for_engine("4.27")).unwrap();
    let e = convert::from_legacy(&pkg, &uexp, None, ZenTarget::for_layout(pkg.layout))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a UE4 (file version 522) package"), "{e}");
    assert!(e.contains("UE 5.3+ zen layout only"), "{e}");
}
