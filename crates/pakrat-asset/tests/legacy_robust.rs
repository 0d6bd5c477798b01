//! Hostile bytes for the legacy reader and both converters: deterministic
//! mutations of the corpus legacy `.uasset`/`.umap` headers (read, check,
//! write back, verify against the `.uexp`, convert to zen) and of zen
//! package chunks (convert to legacy) must give an error or a result, never
//! a panic, hang or runaway allocation.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use pakrat_asset::convert::{self, Packages, ZenTarget};
use pakrat_asset::legacy::files::verify;
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages, ZenLayout};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_pak::Pak;
use pakrat_testkit::mutate::{mutations, run_case, CountingAlloc, Failure};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn layout() -> Option<Layout> {
    Layout::for_engine("5.8")
}

/// Everything pakrat does with a legacy header, on `asset` with `uexp`.
fn legacy_case(asset: &[u8], uexp: &[u8], script: &Packages) -> Result<(), String> {
    let p = LegacyPackage::read(asset, layout()).map_err(|e| e.to_string())?;
    let report = verify(&p, asset, Some(uexp), &|_| Some(1 << 20));
    let _ = p.to_bytes();
    for i in 0..p.imports.len().min(64) as i32 {
        let _ = p.path(-i - 1);
        let _ = p.class_path(-i - 1);
    }
    let z = convert::from_legacy(
        &p,
        uexp,
        script.script.as_ref(),
        ZenTarget::for_layout(p.layout),
    );
    if let Ok(z) = &z {
        // What from-legacy writes must parse as a zen package again.
        if let Err(e) = zen::parse(&z.chunk, z.package.layout, None) {
            panic!("from-legacy wrote a zen package that does not parse: {e}");
        }
    }
    if let Some(first) = report.problems.first() {
        return Err(first.clone());
    }
    z.map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn mutated_legacy_packages_and_zen_chunks_end_cleanly() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut inputs: Vec<(String, Vec<u8>, Vec<u8>)> = Vec::new();
    for v in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let pak = Pak::open(
                dir.join(format!(
                    "pak/cue4parse/{v}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
                )),
                &KeyRing::default(),
            )
            .unwrap();
            let files: HashMap<String, Vec<u8>> = pak
                .index
                .entries
                .iter()
                .map(|e| (e.path.clone(), pak.read(e).unwrap()))
                .collect();
            for (path, data) in &files {
                if let Some(stem) = path
                    .strip_suffix(".uasset")
                    .or_else(|| path.strip_suffix(".umap"))
                {
                    let uexp = files[&format!("{stem}.uexp")].clone();
                    inputs.push((format!("{v} {mode} {path}"), data.clone(), uexp));
                }
            }
        }
    }
    inputs.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(inputs.len(), 20);
    let base = dir.join("iostore/cue4parse/UE5_8/IoStore/Tagged");
    let c = Container::open(
        base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(base.join("global.utoc"), &KeyRing::default()).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let src = Arc::new(Packages::from_containers(
        &[&cp],
        Some(load_script_objects(&global).unwrap()),
    ));

    ALLOC.set_limit(256 << 20);
    let (mut cases, mut errors) = (0usize, 0usize);
    let mut check = |name: &str, m: &str, budget: usize, r: Result<Result<(), String>, Failure>| {
        cases += 1;
        match r {
            Ok(Ok(())) => {}
            Ok(Err(msg)) => {
                errors += 1;
                assert!(!msg.is_empty(), "{name} / {m}: empty error");
            }
            Err(Failure::Panic(p)) => panic!("{name} / {m}: panic {p}"),
            Err(other) => panic!("{name} / {m}: {other:?}"),
        }
        assert!(
            ALLOC.peak() <= ALLOC.live() + budget,
            "{name} / {m}: peak {} over budget",
            ALLOC.peak()
        );
    };
    for (n, (name, asset, uexp)) in inputs.iter().enumerate() {
        // The unmutated package goes through everything.
        assert_eq!(legacy_case(asset, uexp, &src), Ok(()), "{name}");
        let budget = 64 * (asset.len() + uexp.len()) + (8 << 20);
        for m in mutations(asset, 0x1E6A ^ n as u64, 80) {
            ALLOC.reset_peak();
            let (u, s) = (uexp.clone(), Arc::clone(&src));
            let r = run_case(m.data, Duration::from_secs(20), move |d| {
                legacy_case(d, &u, &s)
            });
            check(name, &m.name, budget, r);
        }
    }
    // Zen → legacy over mutated zen chunks (names, maps, bundles and the
    // export data it copies).
    for pe in cp.packages.iter().take(12) {
        let chunk = c.read_chunk(pe.chunk_index).unwrap();
        let imported = cp
            .store_entry(pe.id)
            .map(|s| s.imported_packages.clone())
            .unwrap_or_default();
        let name = pe.path.clone().unwrap_or_default();
        let budget = 64 * chunk.len() + (8 << 20);
        for m in mutations(&chunk, 0x2E6 ^ pe.id, 40) {
            ALLOC.reset_peak();
            let (imp, s) = (imported.clone(), Arc::clone(&src));
            let r = run_case(m.data, Duration::from_secs(20), move |d| {
                let z = zen::parse(d, ZenLayout::Ue5_3 { cells: true }, None)
                    .map_err(|e| e.to_string())?;
                let out = convert::to_legacy(&z, d, &imp, &*s, layout().unwrap())
                    .map_err(|e| e.to_string())?;
                // What to-legacy writes must read back.
                if let Err(e) = LegacyPackage::read(&out.uasset, Some(out.package.layout)) {
                    panic!("to-legacy wrote a package that does not read: {e}");
                }
                Ok(())
            });
            check(&name, &m.name, budget, r);
        }
    }
    // Legacy → zen in the UE 4.27 layout over the mutated UE 4.27 twin
    // (TestModUI): what it writes must parse as a UE4 zen package.
    let d = dir.join("zenpair/retoc/UE4.27");
    let asset = std::fs::read(d.join("TestModUI.uasset")).unwrap();
    let uexp = std::fs::read(d.join("TestModUI.uexp")).unwrap();
    let budget = 64 * (asset.len() + uexp.len()) + (8 << 20);
    for m in mutations(&asset, 0x427, 40) {
        ALLOC.reset_peak();
        let u = uexp.clone();
        let r = run_case(m.data, Duration::from_secs(20), move |d| {
            let p =
                LegacyPackage::read(d, Layout::for_engine("4.27")).map_err(|e| e.to_string())?;
            let z = convert::from_legacy_ue4(&p, &u, "/Game/_AssemblyStorm/TestMod/TestModUI")
                .map_err(|e| e.to_string())?;
            let back =
                zen::parse(&z.chunk, ZenLayout::Ue4, z.store_entry.as_ref()).unwrap_or_else(|e| {
                    panic!("from_legacy_ue4 wrote a package that does not parse: {e}")
                });
            assert_eq!(back.exports.len(), p.exports.len());
            Ok(())
        });
        check("UE4.27 TestModUI", &m.name, budget, r);
    }
    // Zen → legacy in the UE 4.27 layout over the mutated UE 4.27 zen
    // packages (T_Emissive converts with the corpus loader tables; the
    // twin stops at its first import no package given resolves): what it
    // writes must read back.
    let rd = |n: &str| std::fs::read(d.join(n)).unwrap();
    let so = pakrat_asset::zen::ScriptObjects::parse_ue4(
        &rd("LoaderInitialLoadMeta_1.bin"),
        &rd("LoaderGlobalNames_1.bin"),
        &rd("LoaderGlobalNameHashes_1.bin"),
    )
    .unwrap();
    let src4 = Arc::new(Packages::from_containers(&[], Some(so)));
    for (file, bundles) in [("T_Emissive.uasset", 1), ("TestModUI.uzenasset", 1)] {
        let chunk = rd(file);
        let budget = 64 * chunk.len() + (8 << 20);
        for m in mutations(&chunk, 0x4270 ^ chunk.len() as u64, 40) {
            ALLOC.reset_peak();
            let s = Arc::clone(&src4);
            let r = run_case(m.data, Duration::from_secs(20), move |d| {
                let _ = zen::package_name(d, ZenLayout::Ue4);
                let store = pakrat_iostore::container_header::StoreEntry {
                    export_bundles_size: Some(d.len() as u64),
                    export_count: None,
                    export_bundle_count: Some(bundles),
                    load_order: None,
                    imported_packages: Vec::new(),
                    shader_map_hashes: Vec::new(),
                };
                let z = zen::parse(d, ZenLayout::Ue4, Some(&store)).map_err(|e| e.to_string())?;
                let layout = Layout::for_engine("4.27").unwrap();
                let out = convert::to_legacy(&z, d, &[], &*s, layout).map_err(|e| e.to_string())?;
                if let Err(e) = LegacyPackage::read(&out.uasset, Some(layout)) {
                    panic!("to-legacy (UE 4.27) wrote a package that does not read: {e}");
                }
                Ok(())
            });
            check(file, &m.name, budget, r);
        }
    }
    assert!(!ALLOC.refused());
    assert!(cases >= 2000, "{cases}");
    assert!(
        errors > cases / 5,
        "only {errors} of {cases} mutations were rejected"
    );
    eprintln!("legacy/convert mutations: {cases} cases, {errors} refused");
}

/// The findings of the first fuzz runs of the converter targets
/// (2026-11-25), rebuilt on a corpus package by changing its model: each is
/// now an error naming what is wrong, not a panic.
#[test]
fn fuzz_findings_are_errors() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let pak = Pak::open(
        dir.join("pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"),
        &KeyRing::default(),
    )
    .unwrap();
    let read = |p: &str| {
        let e = pak.index.entries.iter().find(|e| e.path == p).unwrap();
        pak.read(e).unwrap()
    };
    let asset = read("Properties/DA_AllProperties.uasset");
    let uexp = read("Properties/DA_AllProperties.uexp");
    let pkg = LegacyPackage::read(&asset, layout()).unwrap();

    // 1. legacy_to_zen: an import whose outer is an export (sliced a path
    //    at a byte that was not a character boundary).
    let mut bad = pkg.clone();
    let k = bad
        .imports
        .iter()
        .position(|i| i.outer != 0)
        .expect("an import with an outer");
    bad.imports[k].outer = 1;
    let e = convert::from_legacy(&bad, &uexp, None, ZenTarget::for_layout(bad.layout)).unwrap_err();
    assert!(
        e.to_string()
            .contains("has an export of this package as its outer"),
        "{e}"
    );

    // 1b. legacy_to_zen: a public export whose outer chain ends in an
    //     import (its path is not inside this package).
    let mut bad = pkg.clone();
    let k = bad
        .exports
        .iter()
        .position(|e| e.object_flags & 1 != 0)
        .expect("a public export");
    bad.exports[k].outer = -1;
    let e = convert::from_legacy(&bad, &uexp, None, ZenTarget::for_layout(bad.layout)).unwrap_err();
    assert!(
        e.to_string().contains("does not lie inside the package"),
        "{e}"
    );

    // 2. legacy_package: an export whose data starts inside the header
    //    (writing the header moved its offset below zero).
    let mut bad = pkg.clone();
    bad.exports[0].serial_offset = 1;
    let e = bad.to_bytes().unwrap_err();
    assert!(e.to_string().contains("lies inside the header"), "{e}");

    // 3. zen_to_legacy: an export whose offset + size overflows.
    let base = dir.join("iostore/cue4parse/UE5_8/IoStore/Tagged");
    let c = Container::open(
        base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(base.join("global.utoc"), &KeyRing::default()).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let src = Packages::from_containers(&[&cp], Some(load_script_objects(&global).unwrap()));
    let pe = cp
        .packages
        .iter()
        .find(|p| p.header.as_ref().is_ok_and(|h| h.name.ends_with("/T_BC6H")))
        .unwrap();
    let mut z = (**pe.header.as_ref().unwrap()).clone();
    z.exports[0].serial_offset = u64::MAX - 1;
    let chunk = c.read_chunk(pe.chunk_index).unwrap();
    let e = convert::to_legacy(&z, &chunk, &[], &src, layout().unwrap()).unwrap_err();
    assert!(e.to_string().contains("overflows"), "{e}");

    // 3b. zen_to_legacy: an export index far past the export map.
    let mut z = (**pe.header.as_ref().unwrap()).clone();
    z.exports[0].outer = pakrat_asset::zen::ObjectIndex(0x7FFF_FFFF);
    let e = convert::to_legacy(&z, &chunk, &[], &src, layout().unwrap()).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
}
