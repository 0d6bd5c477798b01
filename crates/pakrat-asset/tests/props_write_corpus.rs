//! Properties back to bytes on the fixture packages: every export of the
//! UE 5.8 and 6.0 IoStore containers (tagged, and unversioned with the
//! fixture `.usmap`), converted to legacy form, decoded with its write
//! hints and encoded again must give exactly the bytes of its property
//! stream (`[0, native_start)`). The canonical encoding (no stored layout,
//! only the type spellings) is measured too and must decode back to the
//! same tree.

use std::path::Path;

use pakrat_asset::convert::{self, Packages};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::*;
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

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

/// Counts of one container.
#[derive(Default, Debug)]
struct Counts {
    exports: usize,
    undecodable: usize,
    exact: usize,
    canonical_exact: usize,
    canonical_same_tree: usize,
    canonical_refused: usize,
    edited: usize,
    raw_values: usize,
}

/// Round-trip every decodable export of one container; mismatches are
/// returned as lines.
fn sweep(dir: &Path, version: &str, mode: &str, problems: &mut Vec<String>) -> Counts {
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
    let mut n = Counts::default();
    for pe in &cp.packages {
        let name = pe.path.clone().unwrap_or_default();
        let chunk = c.read_chunk(pe.chunk_index).unwrap();
        let imported = cp
            .store_entry(pe.id)
            .map(|s| s.imported_packages.clone())
            .unwrap_or_default();
        let z = zen::parse(&chunk, cp.layout, None).unwrap();
        let Ok(out) = convert::to_legacy(&z, &chunk, &imported, &src, layout) else {
            continue;
        };
        let a = asset(&out.package, &out.uasset, &out.uexp);
        for (i, e) in a.exports.iter().enumerate() {
            n.exports += 1;
            let (p, hints) = decode_export_for_write(&a, i, &usmap);
            if p.error.is_some() && p.native_start == 0 {
                n.undecodable += 1;
                continue;
            }
            n.raw_values += hints.raw_values();
            let want = &e.data[..p.native_start as usize];
            let what = format!("{version} {mode} {name} {} ({})", e.name, e.class);
            match encode_properties(&a, i, &usmap, &p, &hints) {
                Ok(b) if b == want => n.exact += 1,
                Ok(b) => {
                    let at = b
                        .iter()
                        .zip(want)
                        .position(|(x, y)| x != y)
                        .unwrap_or(b.len().min(want.len()));
                    let s = at.saturating_sub(8);
                    problems.push(format!(
                        "{what}: {} bytes, want {}; first difference at {at}: {:02x?} want {:02x?}",
                        b.len(),
                        want.len(),
                        &b[s..(at + 16).min(b.len())],
                        &want[s..(at + 16).min(want.len())]
                    ))
                }
                Err(err) => problems.push(format!("{what}: {err}")),
            }
            // Every integer flipped in its lowest bit, every string grown,
            // then one element added to each integer array: encoded with
            // the hints, decoded back to the edited tree.
            let mut q = p.clone();
            if edit(&mut q.properties) {
                n.edited += 1;
                match encode_properties(&a, i, &usmap, &q, &hints) {
                    Ok(mut b) => {
                        b.extend_from_slice(&e.data[p.native_start as usize..]);
                        let mut a2 = asset(&out.package, &out.uasset, &out.uexp);
                        a2.exports[i].data = &b;
                        if decode_export(&a2, i, &usmap).properties != q.properties {
                            problems.push(format!("{what}: the edited tree decodes differently"));
                        }
                    }
                    Err(err) => problems.push(format!("{what}: edit refused: {err}")),
                }
            }
            let canonical = encode_properties(&a, i, &usmap, &p, &hints.spellings_only());
            if canonical.is_err() {
                n.canonical_refused += 1;
            }
            if let Ok(b) = canonical {
                if b == want {
                    n.canonical_exact += 1;
                }
                let mut data = b.clone();
                data.extend_from_slice(&e.data[p.native_start as usize..]);
                let mut a2 = asset(&out.package, &out.uasset, &out.uexp);
                a2.exports[i].data = &data;
                let q = decode_export(&a2, i, &usmap);
                if q.properties == p.properties {
                    n.canonical_same_tree += 1;
                } else {
                    problems.push(format!(
                        "{what}: the canonical encoding decodes to another tree"
                    ));
                }
            }
        }
    }
    eprintln!("{version} {mode}: {n:?}");
    n
}

/// Edit the top-level integers, strings and integer arrays; whether
/// anything was edited.
fn edit(props: &mut [Property]) -> bool {
    let mut any = false;
    for p in props {
        match (&p.ty, &mut p.value) {
            (_, Value::Int(i)) => *i ^= 1,
            (_, Value::UInt(u)) => *u ^= 1,
            (PropType::Str, Value::Str(s)) => s.push_str(" edited"),
            (PropType::Array(t), Value::Array(a)) if **t == PropType::Int => a.push(Value::Int(-5)),
            _ => continue,
        }
        any = true;
    }
    any
}

#[test]
fn fixture_properties_encode_to_their_bytes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut problems = Vec::new();
    for version in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let n = sweep(&dir, version, mode, &mut problems);
            assert!(
                n.exports > 200,
                "{version} {mode}: only {} exports",
                n.exports
            );
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
