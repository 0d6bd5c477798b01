//! Issue 30 item 1: `to_legacy` of the UE 4.27 zen twin (`TestModUI`, the
//! engine's zen package of a Blueprint widget) against its legacy cook.
//!
//! Script imports resolve through the corpus's UE 4.27 initial-load meta
//! (`LoaderInitialLoadMeta_1.bin` with the loader name tables). The nine
//! packages it imports from are not in the corpus; they are stood in for by
//! stubs holding only what the real packages' export maps would: each
//! object the twin imports from them as an export with its name, outer,
//! class and `GlobalImportIndex` (the package import index of its full
//! path). Every import then resolves through the same lookup a real
//! package would answer.

use std::collections::HashMap;
use std::path::Path;

use pakrat_asset::convert::{self, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{self, Export, ObjectIndex, ScriptObjects, ZenLayout, ZenPackage};
use pakrat_codec::names::{package_id, script_import_index, BatchName, MappedName, NameMapKind};
use pakrat_iostore::container_header::StoreEntry;

fn package_import_index(path: &str) -> u64 {
    (script_import_index(path) & !(3u64 << 62)) | (2u64 << 62)
}

fn meta_store_entry(d: &Path, stem: &str) -> StoreEntry {
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join(format!("{stem}.metadata.json"))).unwrap())
            .unwrap();
    let s = &meta["store_entry"];
    StoreEntry {
        export_bundles_size: s["export_bundles_size"].as_u64(),
        export_count: s["export_count"].as_i64().map(|x| x as i32),
        export_bundle_count: s["export_bundle_count"].as_i64().map(|x| x as i32),
        load_order: s["load_order"].as_u64().map(|x| x as u32),
        imported_packages: s["imported_packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect(),
        shader_map_hashes: Vec::new(),
    }
}

fn script_objects(d: &Path) -> ScriptObjects {
    let rd = |n: &str| std::fs::read(d.join(n)).unwrap();
    ScriptObjects::parse_ue4(
        &rd("LoaderInitialLoadMeta_1.bin"),
        &rd("LoaderGlobalNames_1.bin"),
        &rd("LoaderGlobalNameHashes_1.bin"),
    )
    .unwrap()
}

/// Stub zen packages (UE4 layout) for the packages `pkg` imports from:
/// each imported object below a `/Game` package becomes an export of its
/// package, with the twin's name, outer and class.
fn stubs(pkg: &LegacyPackage, like: &ZenPackage) -> Vec<ZenPackage> {
    let mut by_pkg: HashMap<String, Vec<i32>> = HashMap::new();
    for i in 0..pkg.imports.len() {
        let x = -(i as i32) - 1;
        let path = pkg.path(x).unwrap();
        if path.starts_with("/Script/") || pkg.outer_of(x) == 0 {
            continue;
        }
        let top = path.split(['.', ':']).next().unwrap().to_string();
        by_pkg.entry(top).or_default().push(x);
    }
    let mut out = Vec::new();
    for (name, objs) in by_pkg {
        let mut names: Vec<String> = vec![name.clone()];
        let mut intern = |s: String| -> u32 {
            match names.iter().position(|n| *n == s) {
                Some(i) => i as u32,
                None => {
                    names.push(s);
                    (names.len() - 1) as u32
                }
            }
        };
        let mn = |index: u32| MappedName {
            index,
            kind: NameMapKind::Package,
            number: 0,
        };
        let at: HashMap<i32, usize> = objs.iter().enumerate().map(|(k, &x)| (x, k)).collect();
        let index_of = |x: i32| -> u64 {
            if let Some(&k) = at.get(&x) {
                return k as u64;
            }
            let p = pkg.path(x).unwrap();
            if p.starts_with("/Script/") {
                script_import_index(&p)
            } else if pkg.outer_of(x) == 0 {
                u64::MAX
            } else {
                package_import_index(&p)
            }
        };
        let exports: Vec<Export> = objs
            .iter()
            .map(|&x| {
                let im = &pkg.imports[(-x - 1) as usize];
                let class = format!(
                    "{}.{}",
                    pkg.name(im.class_package).unwrap(),
                    pkg.name(im.class_name).unwrap()
                );
                let class_index = if class.starts_with("/Script/") {
                    script_import_index(&class)
                } else {
                    package_import_index(&class)
                };
                Export {
                    serial_offset: 0,
                    serial_size: 0,
                    name: mn(intern(pkg.object_name(x).unwrap())),
                    outer: ObjectIndex(index_of(im.outer)),
                    class: ObjectIndex(class_index),
                    super_index: ObjectIndex(u64::MAX),
                    template: ObjectIndex(u64::MAX),
                    public_export_hash: package_import_index(&pkg.path(x).unwrap()),
                    object_flags: 1,
                    filter_flags: 0,
                }
            })
            .collect();
        let mut z = like.clone();
        z.name = name.clone();
        z.name_mapped = mn(0);
        z.imports = Vec::new();
        z.export_bundle_headers = Vec::new();
        z.export_bundle_entries = Vec::new();
        z.graph_packages = Vec::new();
        z.names = names
            .into_iter()
            .map(|text| BatchName {
                text,
                wide: false,
                stored_hash: None,
            })
            .collect();
        z.exports = exports;
        out.push(z);
    }
    out
}

struct Twin {
    legacy: LegacyPackage,
    uasset: Vec<u8>,
    uexp: Vec<u8>,
    zen: ZenPackage,
    chunk: Vec<u8>,
    store: StoreEntry,
}

fn twin(d: &Path) -> Twin {
    let uasset = std::fs::read(d.join("TestModUI.uasset")).unwrap();
    let uexp = std::fs::read(d.join("TestModUI.uexp")).unwrap();
    let chunk = std::fs::read(d.join("TestModUI.uzenasset")).unwrap();
    let store = meta_store_entry(d, "TestModUI");
    let zen = zen::parse(&chunk, ZenLayout::Ue4, Some(&store)).unwrap();
    let legacy = LegacyPackage::read(&uasset, Layout::for_engine("4.27")).unwrap();
    Twin {
        legacy,
        uasset,
        uexp,
        zen,
        chunk,
        store,
    }
}

/// The twin's source: the corpus script objects and the stubs.
fn source(d: &Path, t: &Twin) -> (Packages, usize) {
    let (so, stood_in) = script_stubs(script_objects(d), &t.legacy);
    let mut src = Packages::from_containers(&[], Some(so));
    for s in stubs(&t.legacy, &t.zen) {
        src.insert(package_id(&s.name), s, Vec::new());
    }
    (src, stood_in)
}

/// The corpus's UE 4.27 loader tables come from another game than the
/// twin (no `/Script/FSD`): the twin's script imports missing from them
/// are added as a global container holds them (each class with its CDO).
/// Returns the tables and how many imports were stood in for.
fn script_stubs(mut so: ScriptObjects, pkg: &LegacyPackage) -> (ScriptObjects, usize) {
    let mut stood_in = 0;
    for i in 0..pkg.imports.len() {
        let x = -(i as i32) - 1;
        let path = pkg.path(x).unwrap();
        if !path.starts_with("/Script/")
            || so.get(ObjectIndex(script_import_index(&path))).is_some()
        {
            continue;
        }
        stood_in += 1;
        let outer = match pkg.outer_of(x) {
            0 => u64::MAX,
            o => script_import_index(&pkg.path(o).unwrap()),
        };
        let name = pkg.object_name(x).unwrap();
        let class = pkg.class_path(x).unwrap();
        let cdo_class = if name.starts_with("Default__") {
            script_import_index(&class)
        } else {
            u64::MAX
        };
        so.insert(&name, script_import_index(&path), outer, cdo_class);
        if class == "/Script/CoreUObject.Class" {
            add_class(&mut so, &path);
        }
    }
    // Classes of imports (a class need not be imported itself).
    for i in 0..pkg.imports.len() {
        let class = pkg.class_path(-(i as i32) - 1).unwrap();
        if class.starts_with("/Script/")
            && so.get(ObjectIndex(script_import_index(&class))).is_none()
        {
            stood_in += 1;
            add_class(&mut so, &class);
        }
    }
    (so, stood_in)
}

/// A script class and its CDO, as the global container lists them.
fn add_class(so: &mut ScriptObjects, path: &str) {
    let (module, name) = path.split_once('.').unwrap();
    so.insert(module, script_import_index(module), u64::MAX, u64::MAX);
    so.insert(
        name,
        script_import_index(path),
        script_import_index(module),
        u64::MAX,
    );
    so.insert(
        &format!("Default__{name}"),
        script_import_index(&format!("{module}.Default__{name}")),
        script_import_index(module),
        script_import_index(path),
    );
}

fn convert(t: &Twin, src: &Packages) -> pakrat_asset::convert::LegacyOutput {
    convert::to_legacy(
        &t.zen,
        &t.chunk,
        &t.store.imported_packages,
        src,
        Layout::for_engine("4.27").unwrap(),
    )
    .unwrap()
}

/// The twin's tables and `.uexp` come back; what zen does not keep is
/// named field by field (docs/zen-legacy.md).
#[test]
fn to_legacy_of_the_ue427_zen_twin() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let t = twin(&d);
    let (src, stood_in) = source(&d, &t);
    // The corpus loader tables lack the game module (/Script/FSD) only.
    assert_eq!(stood_in, 50);
    // The stubs are the packages the store entry lists (retoc's metadata).
    let mut stub_ids: Vec<u64> = src.by_id.keys().copied().collect();
    stub_ids.sort_unstable();
    let mut want = t.store.imported_packages.clone();
    want.sort_unstable();
    assert_eq!(stub_ids, want);
    let out = convert(&t, &src);
    let (a, b) = (&out.package, &t.legacy);
    assert!(out.uexp == t.uexp, ".uexp differs");
    assert_eq!(a.names, b.names, "name map");
    assert_eq!(a.imports, b.imports, "import map");
    // Exports: equal but the serial offset (the header is shorter by the
    // preload dependencies zen does not keep) and those dependencies.
    let delta = i64::from(b.summary.total_header_size - a.summary.total_header_size);
    assert_eq!(a.exports.len(), b.exports.len());
    let mut kept = 0;
    for (i, (x, y)) in a.exports.iter().zip(&b.exports).enumerate() {
        assert_eq!(x.serial_offset + delta, y.serial_offset, "export {i}");
        let mut x2 = x.clone();
        x2.serial_offset = y.serial_offset;
        x2.dependencies = y.dependencies;
        assert_eq!(&x2, y, "export {i}");
        // Each preload group is a subset of the cook's.
        let (gx, gy) = (
            x.dependency_ranges().unwrap(),
            y.dependency_ranges().unwrap(),
        );
        for (k, (rx, ry)) in gx.into_iter().zip(gy).enumerate() {
            let theirs = &b.preload_dependencies[ry];
            for v in &a.preload_dependencies[rx] {
                assert!(
                    theirs.contains(v),
                    "export {i} group {k}: {v} not in {theirs:?}"
                );
                kept += 1;
            }
        }
    }
    assert_eq!((kept, b.preload_dependencies.len()), (578, 1116));
    assert_eq!(delta, (1116 - 578) * 4);
    // The summary: the same but for the fields zen does not keep and the
    // offsets and sizes after the preload dependencies.
    let mut s = a.summary.clone();
    s.guid = b.summary.guid;
    s.total_header_size = b.summary.total_header_size;
    s.preload_dependencies = b.summary.preload_dependencies;
    s.bulk_data_start_offset += delta;
    assert_eq!(s, b.summary);
    // The .uasset up to the preload dependencies, but the summary's
    // fields above and the export map's serial offsets and dependencies.
    let pre = b.summary.preload_dependencies.unwrap().offset as usize;
    assert_eq!(a.summary.preload_dependencies.unwrap().offset as usize, pre);
    let names_at = b.summary.names.offset as usize;
    let exports_at = b.summary.exports.offset as usize;
    assert!(out.uasset[names_at..exports_at] == t.uasset[names_at..exports_at]);
    assert!(
        out.uasset[b.summary.depends_offset as usize..pre]
            == t.uasset[b.summary.depends_offset as usize..pre]
    );
}

/// An import no package given resolves is refused with its hash and, from
/// the package's own name map, its path.
#[test]
fn an_unresolved_ue4_import_is_named() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let t = twin(&d);
    let (mut src, _) = source(&d, &t);
    src.by_id
        .remove(&package_id("/Game/_ModHub/IHubPageWidget"));
    let e = convert::to_legacy(
        &t.zen,
        &t.chunk,
        &t.store.imported_packages,
        &src,
        Layout::for_engine("4.27").unwrap(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("/Game/_ModHub/IHubPageWidget.IHubPageWidget_C"),
        "{e}"
    );
    assert!(e.contains("none of the packages given exports it"), "{e}");
    let want = format!(
        "{:#018x}",
        package_import_index("/Game/_ModHub/IHubPageWidget.IHubPageWidget_C")
    );
    assert!(e.contains(&want), "{e}");
}

/// Of the corpus's other UE 4.27 zen packages (no legacy twin), the one
/// whose imports the corpus loader tables resolve (`T_Emissive`) converts,
/// reads back with every reference resolving, and converts back to the
/// same zen chunk.
#[test]
fn ue427_zen_packages_round_trip() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let src = Packages::from_containers(&[], Some(script_objects(&d)));
    {
        let stem = "T_Emissive";
        let chunk = std::fs::read(d.join(format!("{stem}.uasset"))).unwrap();
        let store = meta_store_entry(&d, stem);
        let z = zen::parse(&chunk, ZenLayout::Ue4, Some(&store)).unwrap();
        let out = convert::to_legacy(
            &z,
            &chunk,
            &store.imported_packages,
            &src,
            Layout::for_engine("4.27").unwrap(),
        )
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
        out.package.check_references().unwrap();
        let back = convert::from_legacy_ue4(&out.package, &out.uexp, &z.name).unwrap();
        assert!(back.chunk == chunk, "{stem}: zen -> legacy -> zen differs");
    }
}

/// The corpus's other UE 4.27 zen packages import packages (or script
/// objects of game modules) the corpus does not have: each is refused,
/// naming the import's hash and, spelled from its own name map, its path.
#[test]
fn ue427_zen_packages_without_their_imports_are_refused_by_name() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let src = Packages::from_containers(&[], Some(script_objects(&d)));
    let cases = [
        (
            "BP_Aphid_Meat_Prop",
            "0xaf3adb66b60623da (/Game/Art/Creatures/Aphid02/Mesh/SM_Aphid02.SM_Aphid02",
        ),
        (
            "BP_SpicyChoppingDamage",
            "(/Game/Blueprints/Attacks/DamageTypes/BP_SpicyDamage.BP_SpicyDamage_C",
        ),
        (
            "EQ_StaticObstacleTargetLocation",
            "0x56a16719c612f033 (/Script/Maine.EnvQueryContext_QuerierLocation",
        ),
        (
            "SPR_UI_Battle",
            "is script object 0x4ea8e3448bc06c90 (/Script/SprAssetPlugin.SprAsset",
        ),
        ("Table_SignsJanuary", "is script object 0x7fd8f75de60dc549"),
    ];
    for (stem, want) in cases {
        let chunk = std::fs::read(d.join(format!("{stem}.uasset"))).unwrap();
        let store = meta_store_entry(&d, stem);
        let z = zen::parse(&chunk, ZenLayout::Ue4, Some(&store)).unwrap();
        let e = convert::to_legacy(
            &z,
            &chunk,
            &store.imported_packages,
            &src,
            Layout::for_engine("4.27").unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(want), "{stem}: {e}");
    }
}
