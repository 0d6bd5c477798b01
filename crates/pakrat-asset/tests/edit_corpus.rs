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

use pakrat_asset::edit::{write_edited, EditedPackage, ExportEdit};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::open::{self, Opened};
use pakrat_asset::props::*;
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{load_script_objects, ContainerPackages, ScriptObjects};
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
