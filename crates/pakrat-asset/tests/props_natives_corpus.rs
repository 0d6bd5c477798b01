//! Natively serialized structs and custom class data on the fixture
//! packages: every package of the UE 5.8 and 6.0 IoStore containers
//! (tagged, and unversioned with the fixture `.usmap`), converted to legacy
//! form, then decoded: no value may be skipped, and the only export errors
//! are those of the classes listed in `KNOWN`.

use std::path::Path;

use pakrat_asset::convert::{self, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::*;
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

/// Packages this test was written for (natively serialized structs, class
/// data before the properties): they must be among those decoded.
const CLEAN: &[&str] = &[
    "Sequences/LS_Fixture",
    "Sequences/LS_Nested",
    "Midi/MIDI_Fixture",
    "NNE/NNE_Identity",
    "PCG/PCG_Parameters",
    "Physics/PHYS_Fixture",
    "Animations/PA_Fixture",
];

/// Exports known to fail, by class: custom data pakrat does not read
/// (`RigHierarchy`, `RigVM`), editor-only classes the mappings lack, and a
/// blueprint class the mappings cannot have.
const KNOWN: &[&str] = &[
    "RigHierarchy",
    "RigVM",
    "ControlRigEditorAsset",
    "ControlRigGraph",
    "RigVMGraph",
    "RigVMFunctionLibrary",
    "BP_Fixture_C",
];

fn skipped(path: &str, v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Skipped { size, reason } => out.push(format!("{path} ({size}): {reason}")),
        Value::Struct(f) => f
            .iter()
            .for_each(|p| skipped(&format!("{path}.{}", p.name), &p.value, out)),
        Value::Array(a) | Value::Set(a) | Value::Multicast(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| skipped(&format!("{path}[{i}]"), x, out)),
        Value::Map(m) => m.iter().enumerate().for_each(|(i, (k, x))| {
            skipped(&format!("{path}{{{i}k}}"), k, out);
            skipped(&format!("{path}{{{i}}}"), x, out);
        }),
        Value::Optional(Some(x)) => skipped(path, x, out),
        _ => {}
    }
}

/// The props view of a legacy package (versionless: latest custom versions).
fn asset<'a>(pkg: &LegacyPackage, uasset: &'a [u8], uexp: &'a [u8]) -> Asset<'a> {
    let names = pkg.names.iter().map(|n| n.text.clone()).collect();
    let imports = (0..pkg.imports.len() as i32)
        .map(|i| ObjectInfo {
            path: pkg.path(-i - 1).unwrap_or_default(),
            class: pkg.class_path(-i - 1).unwrap_or_default(),
        })
        .collect();
    let exports = (0..pkg.exports.len())
        .map(|i| {
            let idx = i as i32 + 1;
            let e = &pkg.exports[i];
            ExportInfo {
                name: pkg.object_name(idx).unwrap_or_default(),
                path: pkg.path(idx).unwrap_or_default(),
                class: pkg.class_path(idx).unwrap_or_default(),
                outer: None,
                super_struct: None,
                template: None,
                object_flags: e.object_flags,
                offset: e.serial_offset as u64,
                data: pkg.export_data(i, uasset, Some(uexp)).unwrap(),
            }
        })
        .collect();
    let s = &pkg.summary;
    Asset {
        package: s.package_name.clone(),
        names,
        imports,
        exports,
        soft_object_paths: Vec::new(),
        versions: Versions {
            ue4: if s.file_version_ue4 == 0 {
                522
            } else {
                s.file_version_ue4
            },
            ue5: match s.file_version_ue5 {
                Some(v) if v > 0 => v,
                _ => 1018,
            },
            licensee: s.licensee_version,
            custom: s
                .custom_versions
                .iter()
                .map(|c| (c.key, c.version))
                .collect(),
            custom_from_package: !s.custom_versions.is_empty(),
        },
        unversioned: s.unversioned_properties(),
        bulk: pakrat_asset::bulk::BulkMeta::of_legacy(pkg),
    }
}

/// Decode every package of one container: every skipped value and every
/// export error of a class not `KNOWN`, and how many `CLEAN` packages were
/// seen.
fn sweep(dir: &Path, version: &str, mode: &str) -> (Vec<String>, usize) {
    let base = dir.join(format!("iostore/cue4parse/{version}/IoStore/{mode}"));
    let c = Container::open(
        base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(base.join("global.utoc"), &KeyRing::default()).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let src = Packages::from_containers(&[&cp], Some(load_script_objects(&global).unwrap()));
    let usmap = Usmap::open(dir.join(format!(
        "pak/cue4parse/{version}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
    )))
    .unwrap();
    let layout = Layout::for_engine("5.8").unwrap();
    let mut problems = Vec::new();
    let mut decoded = 0;
    let mut converted = 0;
    let mut exports = 0;
    for pe in &cp.packages {
        let name = pe.path.clone().unwrap_or_default();
        let chunk = c.read_chunk(pe.chunk_index).unwrap();
        let imported = cp
            .store_entry(pe.id)
            .map(|s| s.imported_packages.clone())
            .unwrap_or_default();
        let z = zen::parse(&chunk, cp.layout, None).unwrap();
        // A few packages import engine packages the fixture containers do
        // not hold: they cannot be converted alone.
        let Ok(out) = convert::to_legacy(&z, &chunk, &imported, &src, layout) else {
            continue;
        };
        converted += 1;
        let a = asset(&out.package, &out.uasset, &out.uexp);
        if CLEAN.iter().any(|p| name.contains(p)) {
            decoded += 1;
        }
        for (i, e) in a.exports.iter().enumerate() {
            exports += 1;
            let p = decode_export(&a, i, &usmap);
            let mut found = Vec::new();
            for prop in p.properties.iter().chain(&p.native) {
                skipped(
                    &format!("{}.{}", e.name, prop.name),
                    &prop.value,
                    &mut found,
                );
            }
            if let Some(err) = &p.error {
                if !KNOWN.iter().any(|k| e.class.ends_with(&format!(".{k}"))) {
                    found.push(format!("error in {} ({}): {err}", e.name, e.class));
                }
            }
            problems.extend(
                found
                    .into_iter()
                    .map(|f| format!("{version} {mode} {name}: {f}")),
            );
        }
    }
    eprintln!(
        "{version} {mode}: {converted} of {} packages converted, {exports} exports decoded",
        cp.packages.len()
    );
    assert!(
        converted >= 85,
        "{version} {mode}: only {converted} of {} packages converted",
        cp.packages.len()
    );
    (problems, decoded)
}

#[test]
fn fixture_native_structs_decode_in_both_forms() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut all = Vec::new();
    for version in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let (problems, decoded) = sweep(&dir, version, mode);
            // CR_Fixture (its property bag) is checked with all the others.
            assert_eq!(
                decoded,
                CLEAN.len(),
                "{version} {mode}: fixed packages seen"
            );
            all.extend(problems);
        }
    }
    assert!(
        all.is_empty(),
        "{} problems:\n{}",
        all.len(),
        all.join("\n")
    );
}
