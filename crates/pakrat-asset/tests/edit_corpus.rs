//! Whole packages written back from property trees ([`edit::write_edited`])
//! on the CUE4Parse fixtures, UE 5.8 and 6.0, tagged and unversioned:
//!
//! * every package of the LegacyPak paks (legacy) and of the IoStore
//!   containers (zen), every export decoded for writing and given back as
//!   an edit, comes back byte for byte;
//! * edits of `DA_AllProperties` (a scalar, a longer string, a grown array,
//!   a map entry, a new name, a new object reference) read back with the
//!   new value and every other value unchanged, offsets consistent;
//! * what is refused, and why.

use std::path::Path;

use pakrat_asset::convert::{self, Packages, ZenTarget};
use pakrat_asset::edit::{write_edited, EditedPackage, ExportEdit};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::open::{self, Opened};
use pakrat_asset::props::*;
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages, ScriptObjects, ZenLayout};
use pakrat_codec::names::package_id;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_pak::Pak;

const VARIANTS: [(&str, &str); 4] = [
    ("UE5_8", "Tagged"),
    ("UE5_8", "Unversioned"),
    ("UE6_0", "Tagged"),
    ("UE6_0", "Unversioned"),
];

fn engine(v: &str) -> Option<Layout> {
    Layout::for_engine(if v == "UE6_0" { "6.0" } else { "5.8" })
}

fn usmap(dir: &Path, v: &str) -> Usmap {
    Usmap::open(dir.join(format!(
        "pak/cue4parse/{v}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
    )))
    .unwrap()
}

fn legacy_pak(dir: &Path, v: &str, mode: &str) -> Pak {
    Pak::open(
        dir.join(format!(
            "pak/cue4parse/{v}/LegacyPak/{mode}/Uncompressed/CUE4ParseFixtures-Legacy-{mode}-Uncompressed.pak"
        )),
        &KeyRing::default(),
    )
    .unwrap()
}

fn container(dir: &Path, v: &str, mode: &str) -> (Container, ScriptObjects) {
    let base = dir.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
    let c = Container::open(
        base.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(base.join("global.utoc"), &KeyRing::default()).unwrap();
    (c, load_script_objects(&global).unwrap())
}

/// Every export as an edit of its own decoded tree.
fn all_edits(o: &Opened, schemas: &dyn Schemas) -> (Vec<ExportEdit>, usize) {
    let a = o.asset();
    let mut undecodable = 0;
    let edits = (0..a.exports.len())
        .map(|i| {
            let (props, _) = decode_export_for_write(&a, i, schemas);
            if props.error.is_some() {
                undecodable += 1;
            }
            ExportEdit { export: i, props }
        })
        .collect();
    (edits, undecodable)
}

#[derive(Debug, Default)]
struct Counts {
    packages: usize,
    exact: usize,
    exports: usize,
    undecodable_exports: usize,
    /// Decodable exports whose property stream the encoder writes back
    /// exactly (what an edit of them starts from).
    encoded_exact: usize,
}

fn round_trip(
    label: &str,
    o: &Opened,
    schemas: &dyn Schemas,
    n: &mut Counts,
    bad: &mut Vec<String>,
) {
    let (edits, undecodable) = all_edits(o, schemas);
    n.packages += 1;
    n.exports += edits.len();
    n.undecodable_exports += undecodable;
    let a = o.asset();
    for e in &edits {
        if e.props.error.is_some() {
            continue;
        }
        let (_, hints) = decode_export_for_write(&a, e.export, schemas);
        let data = a.exports[e.export].data;
        match encode_properties(&a, e.export, schemas, &e.props, &hints) {
            Ok(b) if b == data[..e.props.native_start as usize] => n.encoded_exact += 1,
            Ok(_) => bad.push(format!(
                "{label} {} export {}: encodes differently",
                o.origin, e.export
            )),
            Err(err) => bad.push(format!("{label} {} export {}: {err}", o.origin, e.export)),
        }
    }
    let (main, uexp) = o.raw();
    match write_edited(o, schemas, &edits) {
        Ok(out) if out.main == main && out.uexp.as_deref() == uexp && out.resized.is_empty() => {
            n.exact += 1
        }
        Ok(out) => bad.push(format!(
            "{label} {}: bytes differ (main {} vs {}, resized {:?})",
            o.origin,
            out.main.len(),
            main.len(),
            out.resized
        )),
        Err(e) => bad.push(format!("{label} {}: {e}", o.origin)),
    }
}

#[test]
fn every_fixture_package_writes_back_to_its_bytes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut bad = Vec::new();
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let mut legacy = Counts::default();
        let paks = [legacy_pak(&dir, v, mode)];
        for (ei, e) in paks[0].index.entries.iter().enumerate() {
            if open::is_package_header(&e.path) {
                let o = open::open_pak_entry(&paks, 0, ei, engine(v)).unwrap();
                round_trip(&format!("{v} {mode}"), &o, &m, &mut legacy, &mut bad);
            }
        }
        let mut zen = Counts::default();
        let (c, script) = container(&dir, v, mode);
        let cp = ContainerPackages::read(&c).unwrap();
        for p in &cp.packages {
            let o = open::open_container_entry(&c, &cp, Some(&script), p, engine(v)).unwrap();
            round_trip(&format!("{v} {mode}"), &o, &m, &mut zen, &mut bad);
        }
        eprintln!("{v} {mode}: legacy {legacy:?}; zen {zen:?}");
        assert!(
            legacy.packages >= 5 && zen.packages > 20,
            "{v} {mode}: too few packages"
        );
    }
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The main export of `DA_AllProperties` and its decoded tree.
fn main_export(o: &Opened, schemas: &dyn Schemas) -> (usize, ExportProps) {
    let a = o.asset();
    let i = a
        .exports
        .iter()
        .position(|e| e.name == "DA_AllProperties")
        .unwrap();
    (i, decode_export_for_write(&a, i, schemas).0)
}

fn prop<'p>(p: &'p mut ExportProps, name: &str) -> &'p mut Value {
    &mut p
        .properties
        .iter_mut()
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no property {name}"))
        .value
}

fn da_legacy(dir: &Path, v: &str, mode: &str) -> Opened {
    open::open_in_paks(
        &[legacy_pak(dir, v, mode)],
        "/Game/Fixtures/Properties/DA_AllProperties",
        engine(v),
    )
    .unwrap()
}

/// Re-open written legacy bytes and check every export: the edited one
/// decodes to `want`, the others as before; the header's offsets agree
/// with the files.
fn check_legacy(
    label: &str,
    before: &Opened,
    out: &EditedPackage,
    i: usize,
    want: &ExportProps,
    m: &Usmap,
    v: &str,
) {
    let o = open::open_legacy_bytes("edited", out.main.clone(), out.uexp.clone(), engine(v))
        .unwrap_or_else(|e| panic!("{label}: written package does not open: {e}"));
    let (a, b) = (o.asset(), before.asset());
    assert_eq!(a.exports.len(), b.exports.len(), "{label}");
    for k in 0..a.exports.len() {
        let got = decode_export(&a, k, m);
        assert!(got.error.is_none(), "{label}: export {k}: {:?}", got.error);
        if k == i {
            assert_eq!(got.properties, want.properties, "{label}: edited export");
        } else {
            assert_eq!(got, decode_export(&b, k, m), "{label}: export {k} changed");
        }
    }
    // The exports tile the .uexp up to BulkDataStartOffset; then the
    // package tag.
    let pkg = LegacyPackage::read(&out.main, engine(v)).unwrap();
    let uexp = out.uexp.as_ref().unwrap();
    let ths = pkg.summary.total_header_size as i64;
    let end = pkg
        .exports
        .iter()
        .map(|e| e.serial_offset + e.serial_size)
        .max()
        .unwrap();
    assert_eq!(end, ths + uexp.len() as i64 - 4, "{label}: exports end");
    assert_eq!(
        pkg.summary.bulk_data_start_offset, end,
        "{label}: BulkDataStartOffset"
    );
    assert_eq!(
        &uexp[uexp.len() - 4..],
        &0x9E2A_83C1u32.to_le_bytes(),
        "{label}"
    );
}

/// One change to a tree.
type Edit = Box<dyn Fn(&mut ExportProps)>;

#[test]
fn legacy_edits_read_back() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let o = da_legacy(&dir, v, mode);
        let (i, base) = main_export(&o, &m);
        let label = format!("{v} {mode}");
        let (main, uexp) = o.raw();
        // One scalar: only its bytes differ.
        let mut p = base.clone();
        *prop(&mut p, "Integer") = Value::Int(0x1234_5679);
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: p,
            }],
        )
        .unwrap();
        assert_eq!(out.main, main, "{label}: header unchanged");
        let new = out.uexp.as_ref().unwrap();
        let old = uexp.unwrap();
        assert_eq!(new.len(), old.len(), "{label}");
        let diff: Vec<usize> = (0..new.len()).filter(|&k| new[k] != old[k]).collect();
        assert_eq!(diff.len(), 1, "{label}: bytes changed {diff:?}");
        assert!(out.resized.is_empty());
        // Each size-changing edit alone, then all together.
        let edits: Vec<(&str, Edit)> = vec![
            (
                "longer string",
                Box::new(|p| {
                    *prop(p, "String") =
                        Value::Str("CUE4Parse_日本語_äöü and a good deal longer".into())
                }),
            ),
            (
                "grown array",
                Box::new(|p| {
                    if let Value::Array(a) = prop(p, "IntegerArray") {
                        a.push(Value::Int(55));
                    }
                }),
            ),
            (
                "map entry",
                Box::new(|p| {
                    if let Value::Map(m) = prop(p, "IntegerMap") {
                        m.push((Value::Name("Answer".into()), Value::Int(-1)));
                    }
                }),
            ),
        ];
        let mut all = base.clone();
        for (what, f) in &edits {
            let mut p = base.clone();
            f(&mut p);
            f(&mut all);
            let out = write_edited(
                &o,
                &m,
                &[ExportEdit {
                    export: i,
                    props: p.clone(),
                }],
            )
            .unwrap_or_else(|e| panic!("{label} {what}: {e}"));
            assert_eq!(out.resized.len(), 1, "{label} {what}");
            check_legacy(&format!("{label} {what}"), &o, &out, i, &p, &m, v);
        }
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: all.clone(),
            }],
        )
        .unwrap();
        check_legacy(&format!("{label} all"), &o, &out, i, &all, &m, v);
        eprintln!("{label}: all edits: {:?}", out.resized);
    }
}

#[test]
fn legacy_new_names_and_imports() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let o = da_legacy(&dir, v, mode);
        let (i, base) = main_export(&o, &m);
        let label = format!("{v} {mode}");
        let mut p = base.clone();
        *prop(&mut p, "Name") = Value::Name("Brand_New_Name_7".into());
        if let Value::Map(m) = prop(&mut p, "IntegerMap") {
            m.push((Value::Name("AddedKey".into()), Value::Int(99)));
        }
        let target = "/Game/Fixtures/Textures/T_Added.T_Added";
        *prop(&mut p, "HardObjectReference") = Value::Object(Some(target.into()));
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: p.clone(),
            }],
        )
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(out.new_names, ["Brand_New_Name", "AddedKey"], "{label}");
        assert_eq!(
            out.new_imports,
            ["/Game/Fixtures/Textures/T_Added", target],
            "{label}"
        );
        check_legacy(&label, &o, &out, i, &p, &m, v);
        let back = open::open_legacy_bytes("edited", out.main.clone(), out.uexp.clone(), engine(v))
            .unwrap();
        let a = back.asset();
        let im = a.imports.iter().find(|x| x.path == target).unwrap();
        assert_eq!(im.class, "/Script/CoreUObject.Object", "{label}");
        let pkg = LegacyPackage::read(&out.main, engine(v)).unwrap();
        pkg.check_references().unwrap();
        // The new object is a create-before-serialize dependency of the
        // export that refers to it.
        let k = a.imports.iter().position(|x| x.path == target).unwrap() as i32;
        let cbs = pkg.exports[i].dependency_ranges().unwrap()[1].clone();
        assert!(pkg.preload_dependencies[cbs].contains(&(-k - 1)), "{label}");
        let old = LegacyPackage::read(o.raw().0, engine(v)).unwrap();
        // The two new names, then the import's package path and object
        // name (and its class, where the name map lacked it).
        assert!(pkg.names.len() >= old.names.len() + 4, "{label}");
        assert_eq!(pkg.names[old.names.len()].text, "Brand_New_Name", "{label}");
        // Every import's `package_name` (UE 5.8+) is its object name, the
        // new ones' too.
        assert!(pkg
            .imports
            .iter()
            .all(|i| i.package_name.is_none_or(|n| n == i.object_name)));
        eprintln!(
            "{label}: header {} -> {} bytes",
            o.raw().0.len(),
            out.main.len()
        );
    }
}

#[test]
fn legacy_texture_keeps_its_inline_mip() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let paks = [legacy_pak(&dir, v, mode)];
        let o = open::open_in_paks(&paks, "/Game/Fixtures/Textures/T_BC6H", engine(v)).unwrap();
        let label = format!("{v} {mode}");
        let a = o.asset();
        let (mut p, _) = decode_export_for_write(&a, 0, &m);
        assert!(p.error.is_none(), "{label}: {:?}", p.error);
        p.properties.push(Property {
            name: "LODBias".into(),
            index: 0,
            ty: PropType::Int,
            value: Value::Int(2),
        });
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: 0,
                props: p,
            }],
        )
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(out.resized.len(), 1, "{label}");
        let back = open::open_legacy_bytes("edited", out.main.clone(), out.uexp.clone(), engine(v))
            .unwrap();
        let b = back.asset();
        let got = decode_export(&b, 0, &m);
        assert!(got
            .properties
            .iter()
            .any(|x| x.name == "LODBias" && x.value == Value::Int(2)));
        let mip = |o: &Opened, a: &Asset<'_>| {
            let t = pakrat_asset::texture::read_export(a, 0, &m).unwrap();
            let r = t.mips[0].data.clone().unwrap();
            o.bulk(&r, BulkFrom::Loose).unwrap().into_owned()
        };
        assert_eq!(mip(&o, &a), mip(&back, &b), "{label}: mip pixels");
        let old = LegacyPackage::read(o.raw().0, engine(v)).unwrap();
        let new = LegacyPackage::read(&out.main, engine(v)).unwrap();
        // The inline payload's data resource offset counts from the
        // export's start: it moved with the property stream.
        assert_eq!(
            new.data_resources[0].serial_offset,
            old.data_resources[0].serial_offset + out.resized[0].1,
            "{label}"
        );
        eprintln!(
            "{label}: resized {:?}, data resources {:?} -> {:?}, bulk start {} -> {}",
            out.resized,
            old.data_resources
                .iter()
                .map(|r| r.serial_offset)
                .collect::<Vec<_>>(),
            new.data_resources
                .iter()
                .map(|r| r.serial_offset)
                .collect::<Vec<_>>(),
            old.summary.bulk_data_start_offset,
            new.summary.bulk_data_start_offset,
        );
    }
}

#[test]
fn zen_edits_read_back_and_convert() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let path = "/Game/Fixtures/Properties/DA_AllProperties";
    for (v, mode) in VARIANTS {
        let label = format!("{v} {mode} zen");
        let m = usmap(&dir, v);
        let (c, script) = container(&dir, v, mode);
        let o = open::open_in_container(&c, Some(&script), path, engine(v)).unwrap();
        let (i, base) = main_export(&o, &m);
        let mut p = base.clone();
        *prop(&mut p, "String") = Value::Str("a longer string than the one stored, Ω".into());
        if let Value::Array(a) = prop(&mut p, "IntegerArray") {
            a.push(Value::Int(55));
        }
        if let Value::Map(m) = prop(&mut p, "IntegerMap") {
            m.push((Value::Name("ZenAddedKey".into()), Value::Int(7)));
        }
        *prop(&mut p, "Name") = Value::Name("Zen_New_Name".into());
        // A package DA_AllProperties does not import yet.
        let target = "/Game/Fixtures/Textures/T_BC1.T_BC1";
        *prop(&mut p, "HardObjectReference") = Value::Object(Some(target.into()));
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: p.clone(),
            }],
        )
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(out.new_names, ["Zen_New_Name", "ZenAddedKey"], "{label}");
        assert_eq!(out.resized.len(), 1, "{label}");
        // Read back through the container's other packages.
        let cp = ContainerPackages::read(&c).unwrap();
        let entry = cp.find(path).unwrap();
        let z = zen::parse(&out.main, cp.layout, None).unwrap();
        let src = ContainerSource::new(&cp, Some(&script));
        assert!(!src
            .imported(entry.id)
            .contains(&package_id("/Game/Fixtures/Textures/T_BC1")));
        let ids = out
            .imported_packages
            .clone()
            .expect("a new imported package");
        assert!(
            ids.contains(&package_id("/Game/Fixtures/Textures/T_BC1")),
            "{label}"
        );
        assert_eq!(
            out.new_imports,
            ["/Game/Fixtures/Textures/T_BC1", target],
            "{label}"
        );
        let imported = &ids[..];
        let h = &z.dependency_bundle_headers[i];
        let at = h.first_entry as usize + (h.entry_count[0][0] + h.entry_count[0][1]) as usize;
        let cbs = &z.dependency_bundle_entries[at..at + h.entry_count[1][0] as usize];
        assert!(cbs.contains(&-(z.imports.len() as i32)), "{label}: {cbs:?}");
        let a = Asset::from_zen(&z, &out.main, imported, &src, engine(v)).unwrap();
        let b = o.asset();
        for k in 0..a.exports.len() {
            let got = decode_export(&a, k, &m);
            assert!(got.error.is_none(), "{label}: export {k}: {:?}", got.error);
            if k == i {
                assert_eq!(got.properties, p.properties, "{label}: edited export");
            } else {
                assert_eq!(got, decode_export(&b, k, &m), "{label}: export {k} changed");
            }
        }
        // To legacy and back gives the same chunk (but CookedHeaderSize,
        // which follows the legacy header).
        let pk = Packages::from_containers(&[&cp], Some(script.clone()));
        let leg = convert::to_legacy(
            &z,
            &out.main,
            imported,
            &pk,
            convert::layout_of(&z, engine(v)),
        )
        .unwrap_or_else(|e| panic!("{label}: to legacy: {e}"));
        let la = Asset::from_legacy(&leg.package, &leg.uasset, Some(&leg.uexp)).unwrap();
        assert_eq!(
            decode_export(&la, i, &m).properties,
            p.properties,
            "{label}: legacy"
        );
        let back = convert::from_legacy(
            &leg.package,
            &leg.uexp,
            Some(&script),
            ZenTarget::for_layout(leg.package.layout),
        )
        .unwrap();
        let mut bytes = back.chunk.clone();
        bytes[20..24].copy_from_slice(&out.main[20..24]);
        assert!(bytes == out.main, "{label}: zen -> legacy -> zen differs");
        eprintln!(
            "{label}: resized {:?}, imported packages {}",
            out.resized,
            ids.len()
        );
    }
}

#[test]
fn refusals_name_the_export_and_the_reason() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let m = usmap(&dir, "UE5_8");
    let o = da_legacy(&dir, "UE5_8", "Tagged");
    let (i, base) = main_export(&o, &m);
    let refuse = |edits: &[ExportEdit]| write_edited(&o, &m, edits).unwrap_err().to_string();
    let e = refuse(&[ExportEdit {
        export: 9,
        props: base.clone(),
    }]);
    assert_eq!(e, "export 9 does not exist (the package has 2)");
    let twice = ExportEdit {
        export: i,
        props: base.clone(),
    };
    let e = refuse(&[twice.clone(), twice]);
    assert!(
        e.ends_with("DA_AllProperties.DA_AllProperties): edited twice"),
        "{e}"
    );
    let mut p = base.clone();
    *prop(&mut p, "Integer") = Value::Str("not a number".into());
    let e = refuse(&[ExportEdit {
        export: i,
        props: p,
    }]);
    assert!(e.starts_with(&format!("export {i} (/Game/Fixtures/Properties/DA_AllProperties.DA_AllProperties): cannot encode /Integer")), "{e}");
    let mut p = base.clone();
    *prop(&mut p, "Integer") = Value::Skipped {
        size: 4,
        reason: "test".into(),
    };
    let e = refuse(&[ExportEdit {
        export: i,
        props: p,
    }]);
    assert!(
        e.contains("property Integer was skipped when decoding"),
        "{e}"
    );
    let mut p = base.clone();
    p.native.push(Property {
        name: "Extra".into(),
        index: 0,
        ty: PropType::Int,
        value: Value::Int(1),
    });
    let e = refuse(&[ExportEdit {
        export: i,
        props: p,
    }]);
    assert!(e.contains("its native data"), "{e}");
    let mut p = base.clone();
    p.error = None;
    *prop(&mut p, "Integer") = Value::Int(1);
    assert!(write_edited(
        &o,
        &m,
        &[ExportEdit {
            export: i,
            props: p
        }]
    )
    .is_ok());
    // An export that does not decode fully (its class is not in the
    // mappings) is kept as it is, and refused when edited.
    let (c, script) = container(&dir, "UE5_8", "Unversioned");
    let cp = ContainerPackages::read(&c).unwrap();
    let mut seen = None;
    'find: for p in &cp.packages {
        let o = open::open_container_entry(&c, &cp, Some(&script), p, engine("UE5_8")).unwrap();
        let a = o.asset();
        for k in 0..a.exports.len() {
            let (mut props, _) = decode_export_for_write(&a, k, &m);
            if props.error.is_some() {
                assert_eq!(
                    write_edited(
                        &o,
                        &m,
                        &[ExportEdit {
                            export: k,
                            props: props.clone()
                        }]
                    )
                    .unwrap()
                    .main,
                    o.raw().0
                );
                props.properties.push(Property {
                    name: "Added".into(),
                    index: 0,
                    ty: PropType::Int,
                    value: Value::Int(1),
                });
                let e = write_edited(&o, &m, &[ExportEdit { export: k, props }])
                    .unwrap_err()
                    .to_string();
                seen = Some(e);
                break 'find;
            }
        }
    }
    let e = seen.expect("an undecodable export");
    assert!(e.contains("it does not decode fully"), "{e}");
    eprintln!("refusals checked; e.g. {e}");
}

/// The zenpair packages (retoc's test files: the same package as legacy
/// `.uasset`/`.uexp` and as a zen `.uzenasset`, UE 4.27, 5.4, 5.6; no
/// mappings, so unversioned exports do not decode and are kept as bytes)
/// write back to their bytes.
#[test]
fn zenpair_packages_write_back_to_their_bytes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = dir.join("zenpair/retoc");
    let none = Packages::from_containers(&[], None);
    let mut bad = Vec::new();
    let (mut legacy, mut zen) = (Counts::default(), Counts::default());
    for (v, eng, layout) in [
        ("UE4.27", "4.27", ZenLayout::Ue4),
        ("UE5.4", "5.4", ZenLayout::Ue5_3 { cells: false }),
        ("UE5.6", "5.6", ZenLayout::Ue5_3 { cells: true }),
    ] {
        let mut files: Vec<_> = std::fs::read_dir(base.join(v))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            let label = format!("zenpair {v}");
            if ext == "uasset" && f.with_extension("uexp").is_file() {
                let o = open::open_loose(&f, Layout::for_engine(eng)).unwrap();
                round_trip(&label, &o, &NoSchemas, &mut legacy, &mut bad);
            } else if ext == "uzenasset" && layout != ZenLayout::Ue4 {
                // (UE4 zen packages need their store entry, not kept.)
                let bytes = std::fs::read(&f).unwrap();
                let name = f.display().to_string();
                let o =
                    open::open_zen_bytes(&name, bytes, layout, &[], &none, Layout::for_engine(eng))
                        .unwrap();
                round_trip(&label, &o, &NoSchemas, &mut zen, &mut bad);
            }
        }
    }
    eprintln!("zenpair: legacy {legacy:?}; zen {zen:?}");
    assert!(
        legacy.packages >= 7 && zen.packages >= 6,
        "{legacy:?} {zen:?}"
    );
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// UE 5.4+ tagged legacy packages store each export's
/// `ScriptSerializationStart/EndOffset` (counted from the export's
/// start). A size-changing edit of `DA_AllProperties` (UE 5.8 and 6.0)
/// moves the end by the property stream's change and keeps the start;
/// read back from the written header, the end lies where it lay before
/// relative to the new property stream's end, and the other exports'
/// offsets are as stored.
#[test]
fn script_serialization_offsets_follow_a_size_change() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut checked = 0;
    for (v, mode) in VARIANTS.into_iter().filter(|(_, m)| *m == "Tagged") {
        let m = usmap(&dir, v);
        let o = da_legacy(&dir, v, mode);
        let (i, base) = main_export(&o, &m);
        let label = format!("{v} {mode}");
        let (main, _) = o.raw();
        let old = LegacyPackage::read(main, engine(v)).unwrap();
        assert!(old.layout.ue5 >= 1010, "{label}: a UE 5.4+ layout");
        let mut p = base.clone();
        *prop(&mut p, "String") = Value::Str("CUE4Parse_日本語_äöü, and 29 bytes longer".into());
        let out = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: p,
            }],
        )
        .unwrap();
        let new = LegacyPackage::read(&out.main, engine(v)).unwrap();
        let d = new.exports[i].serial_size - old.exports[i].serial_size;
        assert!(d > 0, "{label}: the export grew");
        let (a0, b0) = old.exports[i].script_serialization.expect("stored offsets");
        let (a1, b1) = new.exports[i].script_serialization.unwrap();
        assert_eq!(a1, a0, "{label}: start");
        assert_eq!(b1, b0 + d, "{label}: end moved by {d}");
        // Against the written package re-read: the end keeps its place
        // relative to the end of the property stream.
        let (_, before) = main_export(&o, &m);
        let r = open::open_legacy_bytes("edited", out.main.clone(), out.uexp.clone(), engine(v))
            .unwrap();
        let (_, after) = main_export(&r, &m);
        assert_eq!(
            after.native_start as i64 - b1,
            before.native_start as i64 - b0,
            "{label}: end relative to the property stream"
        );
        assert!(
            b1 <= new.exports[i].serial_size,
            "{label}: end inside the export"
        );
        for k in (0..old.exports.len()).filter(|&k| k != i) {
            assert_eq!(
                new.exports[k].script_serialization, old.exports[k].script_serialization,
                "{label}: export {k}"
            );
        }
        eprintln!(
            "{label}: export {i} grew {d} bytes; script serialization {a0}..{b0} -> {a1}..{b1}"
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
}
