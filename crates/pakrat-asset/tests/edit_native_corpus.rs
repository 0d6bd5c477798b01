//! Native data written back ([`encode_native_tail`], [`edit::write_edited`])
//! on the CUE4Parse fixtures and the zenpair packages:
//!
//! * every data table, curve table, string table and user-defined enum
//!   export encodes its native tail to its exact bytes;
//! * `DT_` row edits (a value changed, a row added, a row removed) read
//!   back with the manifest's values for the rows not touched, in legacy
//!   and zen packages, tagged and unversioned;
//! * what stays refused.

use std::path::Path;

use pakrat_asset::edit::{write_edited, ExportEdit};
use pakrat_asset::legacy::Layout;
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

/// Every package of a variant: the legacy pak's, then the container's.
fn packages(dir: &Path, v: &str, mode: &str) -> Vec<(String, Opened)> {
    let mut out = Vec::new();
    let paks = [legacy_pak(dir, v, mode)];
    for (ei, e) in paks[0].index.entries.iter().enumerate() {
        if open::is_package_header(&e.path) {
            let o = open::open_pak_entry(&paks, 0, ei, engine(v)).unwrap();
            out.push((format!("{v} {mode} legacy"), o));
        }
    }
    let (c, script) = container(dir, v, mode);
    let cp = ContainerPackages::read(&c).unwrap();
    for p in &cp.packages {
        let o = open::open_container_entry(&c, &cp, Some(&script), p, engine(v)).unwrap();
        out.push((format!("{v} {mode} zen"), o));
    }
    out
}

#[derive(Debug, Default)]
struct Counts {
    tails: usize,
    exact: usize,
    undecodable: usize,
    by_class: std::collections::BTreeMap<String, usize>,
}

/// Every export whose tail pakrat writes: encoded from its decoded model
/// with its hints, it is the stored tail.
fn tails_exact(
    label: &str,
    o: &Opened,
    schemas: &dyn Schemas,
    n: &mut Counts,
    bad: &mut Vec<String>,
) {
    let a = o.asset();
    for i in 0..a.exports.len() {
        let class = a.exports[i].class_name();
        if !writes_native_tail(class) {
            continue;
        }
        n.tails += 1;
        *n.by_class.entry(class.to_string()).or_default() += 1;
        let (props, hints) = decode_export_for_write(&a, i, schemas);
        if props.error.is_some() {
            n.undecodable += 1;
            continue;
        }
        let data = a.exports[i].data;
        match encode_native_tail(&a, i, schemas, &props, &hints) {
            Ok(Some(b)) if b == data[props.native_start as usize..] => n.exact += 1,
            Ok(Some(b)) => bad.push(format!(
                "{label} {} {}: tail encodes differently ({} bytes, stored {})",
                o.origin,
                a.exports[i].path,
                b.len(),
                data.len() - props.native_start as usize
            )),
            Ok(None) => bad.push(format!("{label} {}: not encoded", a.exports[i].path)),
            Err(e) => bad.push(format!("{label} {} {}: {e}", o.origin, a.exports[i].path)),
        }
        // The whole package, with this export's tail given back as an
        // edit, is byte for byte the same.
        let (main, uexp) = o.raw();
        match write_edited(o, schemas, &[ExportEdit { export: i, props }]) {
            Ok(out) if out.main == main && out.uexp.as_deref() == uexp => {}
            Ok(_) => bad.push(format!("{label} {}: package differs", a.exports[i].path)),
            Err(e) => bad.push(format!("{label} {}: {e}", a.exports[i].path)),
        }
    }
}

#[test]
fn every_fixture_native_tail_encodes_to_its_bytes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut bad = Vec::new();
    let mut total = 0;
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let mut n = Counts::default();
        for (label, o) in packages(&dir, v, mode) {
            tails_exact(&label, &o, &m, &mut n, &mut bad);
        }
        eprintln!("{v} {mode}: {n:?}");
        assert!(
            n.by_class.contains_key("DataTable"),
            "{v} {mode}: no data table"
        );
        assert_eq!(n.undecodable, 0, "{v} {mode}");
        total += n.exact;
    }
    eprintln!("{total} native tails exact");
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The zenpair packages: the table tails pakrat can decode (no mappings:
/// unversioned ones do not) encode exactly.
#[test]
fn zenpair_native_tails_encode_to_their_bytes() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = dir.join("zenpair/retoc");
    let mut bad = Vec::new();
    let mut n = Counts::default();
    for (v, eng) in [("UE4.27", "4.27"), ("UE5.4", "5.4"), ("UE5.6", "5.6")] {
        let mut files: Vec<_> = std::fs::read_dir(base.join(v))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "uasset" && f.with_extension("uexp").is_file() {
                let o = open::open_loose(&f, Layout::for_engine(eng)).unwrap();
                tails_exact(&format!("zenpair {v}"), &o, &NoSchemas, &mut n, &mut bad);
            }
        }
    }
    eprintln!("zenpair: {n:?}");
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The manifest's expected row values (`expectedValues.dataTable`).
fn manifest_rows(dir: &Path, v: &str) -> serde_json::Value {
    let m: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join(format!("pak/cue4parse/{v}/manifest.json"))).unwrap(),
    )
    .unwrap();
    m["expectedValues"]["dataTable"].clone()
}

/// A manifest number: a JSON number, a decimal or a `0x` hex string.
fn num(j: &serde_json::Value) -> i64 {
    match j {
        serde_json::Value::Number(n) => n.as_i64().unwrap(),
        serde_json::Value::String(s) => match s.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        },
        other => panic!("not a number: {other}"),
    }
}

fn rows(p: &ExportProps) -> &Vec<(Value, Value)> {
    match &p.native.iter().find(|f| f.name == "Rows").unwrap().value {
        Value::Map(m) => m,
        other => panic!("Rows is {other:?}"),
    }
}

fn row<'p>(p: &'p ExportProps, name: &str) -> Option<&'p Vec<Property>> {
    rows(p).iter().find_map(|(k, v)| match (k, v) {
        (Value::Name(n), Value::Struct(f)) if n == name => Some(f),
        _ => None,
    })
}

fn field<'p>(r: &'p [Property], name: &str) -> &'p Value {
    &r.iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("no field {name}"))
        .value
}

/// A row has the manifest's values.
fn check_row(label: &str, r: &[Property], want: &serde_json::Value) {
    assert_eq!(
        field(r, "Number"),
        &Value::Int(num(&want["number"])),
        "{label}"
    );
    assert_eq!(
        field(r, "LargeNumber"),
        &Value::Int(num(&want["largeNumber"])),
        "{label}"
    );
    assert_eq!(
        field(r, "Message"),
        &Value::Str(want["message"].as_str().unwrap().into()),
        "{label}"
    );
    let kind = match field(r, "Kind") {
        Value::Enum(e) => e.rsplit("::").next().unwrap().to_string(),
        other => panic!("{label}: Kind is {other:?}"),
    };
    assert_eq!(kind, want["enum"].as_str().unwrap(), "{label}");
    let values: Vec<Value> = want["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| Value::Int(num(x)))
        .collect();
    assert_eq!(field(r, "Values"), &Value::Array(values), "{label}");
}

const DT: &str = "/Game/Fixtures/DataTables/DT_AllProperties";

/// Edit `DT_AllProperties` of `o` (a value, a row added as a copy of
/// `Beta` under a new name, a row added from the struct's zero values, a
/// row removed), write it, and give the written package reopened.
fn edit_table(
    label: &str,
    o: &Opened,
    m: &Usmap,
    reopen: &dyn Fn(&EditedPackageBytes) -> Opened,
    want: &serde_json::Value,
) {
    let a = o.asset();
    let i = a
        .exports
        .iter()
        .position(|e| e.name == "DT_AllProperties")
        .unwrap();
    let before = decode_export(&a, i, m);
    for name in ["Alpha", "Beta", "Defaults"] {
        check_row(
            &format!("{label} {name} as stored"),
            row(&before, name).unwrap(),
            &want[name],
        );
    }
    let mut p = before.clone();
    let mut changes = Vec::new();
    for (path, value) in [
        ("Rows.Alpha.Number", "5"),
        (
            "Rows.Alpha.Nested.Label",
            "a longer label than the stored one",
        ),
        ("Rows.Zero.Message", "from zero"),
        ("Rows.remove", "Defaults"),
    ] {
        changes.extend(
            pakrat_asset::props::edit::set(&a, m, i, &mut p, path, value)
                .unwrap_or_else(|e| panic!("{label} {path}: {e}")),
        );
    }
    // A copy of Beta under a new name (what `props apply` gives for a
    // row pasted into the JSON).
    let beta = row(&p, "Beta").unwrap().clone();
    if let Some(Property {
        value: Value::Map(m),
        ..
    }) = p.native.iter_mut().find(|f| f.name == "Rows")
    {
        m.push((Value::Name("Beta_Copy".into()), Value::Struct(beta)));
    }
    assert_eq!(changes.len(), 4, "{label}: {changes:?}");
    let out = write_edited(
        o,
        m,
        &[ExportEdit {
            export: i,
            props: p.clone(),
        }],
    )
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(
        out.new_names.contains(&"Beta_Copy".to_string())
            || a.names.iter().any(|n| n == "Beta_Copy")
    );
    let r = reopen(&EditedPackageBytes {
        main: out.main,
        uexp: out.uexp,
    });
    let ra = r.asset();
    let got = decode_export(&ra, i, m);
    assert!(got.error.is_none(), "{label}: {:?}", got.error);
    assert_eq!(got.native, p.native, "{label}: rows read back");
    assert_eq!(got.properties, before.properties, "{label}: properties");
    let names: Vec<String> = rows(&got)
        .iter()
        .map(|(k, _)| match k {
            Value::Name(n) => n.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(names, ["Alpha", "Beta", "Zero", "Beta_Copy"], "{label}");
    check_row(
        &format!("{label} Beta"),
        row(&got, "Beta").unwrap(),
        &want["Beta"],
    );
    check_row(
        &format!("{label} Beta_Copy"),
        row(&got, "Beta_Copy").unwrap(),
        &want["Beta"],
    );
    let alpha = row(&got, "Alpha").unwrap();
    assert_eq!(field(alpha, "Number"), &Value::Int(5), "{label}");
    assert_eq!(
        field(alpha, "Message"),
        &Value::Str(want["Alpha"]["message"].as_str().unwrap().into())
    );
    assert_eq!(
        field(row(&got, "Zero").unwrap(), "Message"),
        &Value::Str("from zero".into())
    );
    for k in 0..ra.exports.len() {
        if k != i {
            assert_eq!(
                decode_export(&ra, k, m),
                decode_export(&a, k, m),
                "{label}: export {k}"
            );
        }
    }
}

/// The bytes of a written package.
struct EditedPackageBytes {
    main: Vec<u8>,
    uexp: Option<Vec<u8>>,
}

#[test]
fn data_table_rows_edit_and_read_back() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let want = manifest_rows(&dir, v);
        let paks = [legacy_pak(&dir, v, mode)];
        let o = open::open_in_paks(&paks, DT, engine(v)).unwrap();
        edit_table(
            &format!("{v} {mode} legacy"),
            &o,
            &m,
            &|b| {
                open::open_legacy_bytes("edited", b.main.clone(), b.uexp.clone(), engine(v))
                    .unwrap()
            },
            &want,
        );
        let (c, script) = container(&dir, v, mode);
        let cp = ContainerPackages::read(&c).unwrap();
        let o = open::open_in_container(&c, Some(&script), DT, engine(v)).unwrap();
        let entry = cp.find(DT).unwrap();
        let src = ContainerSource::new(&cp, Some(&script));
        let imported = src.imported(entry.id);
        edit_table(
            &format!("{v} {mode} zen"),
            &o,
            &m,
            &|b| {
                open::open_zen_bytes(
                    "edited",
                    b.main.clone(),
                    cp.layout,
                    imported,
                    &src,
                    engine(v),
                )
                .unwrap()
            },
            &want,
        );
    }
}

/// A property of `class` (or a super-class) by the schemas, of a type a
/// plain value sets, that `stored` lacks: (name, type, value to set).
fn unstored(
    m: &Usmap,
    class: &str,
    stored: &[Property],
) -> Option<(String, PropType, &'static str)> {
    let mut at = Some(class.to_string());
    while let Some(c) = at {
        let s = m.find_struct(&c)?;
        for p in &s.properties {
            let value = match p.ty {
                PropType::Int => "42",
                PropType::Float | PropType::Double => "2.5",
                PropType::Bool => "true",
                PropType::Str => "added",
                _ => continue,
            };
            if p.array_dim <= 1 && !stored.iter().any(|q| q.name.eq_ignore_ascii_case(&p.name)) {
                return Some((p.name.clone(), p.ty.clone(), value));
            }
        }
        at = s.super_name.clone();
    }
    None
}

/// A property the export does not store is added (typed by the
/// mappings), reads back with its value, every other value unchanged;
/// without a schema it is refused, naming the class.
#[test]
fn an_unstored_property_is_added() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut added = 0;
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let paks = [legacy_pak(&dir, v, mode)];
        for e in &paks[0].index.entries {
            if !e.path.ends_with(".uasset") {
                continue;
            }
            let o = open::open_pak_entry(
                &paks,
                0,
                paks[0]
                    .index
                    .entries
                    .iter()
                    .position(|x| x.path == e.path)
                    .unwrap(),
                engine(v),
            )
            .unwrap();
            let a = o.asset();
            for i in 0..a.exports.len() {
                let before = decode_export(&a, i, &m);
                if before.error.is_some() || a.exports[i].is_class_default() {
                    continue;
                }
                let Some((name, ty, value)) =
                    unstored(&m, a.exports[i].class_name(), &before.properties)
                else {
                    continue;
                };
                let label = format!("{v} {mode} {} {name}", a.exports[i].path);
                let mut p = before.clone();
                let ch = pakrat_asset::props::edit::set(&a, &m, i, &mut p, &name, value)
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(ch.len(), 1, "{label}");
                assert_eq!(ch[0].old, serde_json::Value::Null, "{label}");
                let out = write_edited(
                    &o,
                    &m,
                    &[ExportEdit {
                        export: i,
                        props: p.clone(),
                    }],
                )
                .unwrap_or_else(|e| panic!("{label}: {e}"));
                let r = open::open_legacy_bytes("edited", out.main, out.uexp, engine(v)).unwrap();
                let got = decode_export(&r.asset(), i, &m);
                assert!(got.error.is_none(), "{label}: {:?}", got.error);
                assert_eq!(got.properties, p.properties, "{label}");
                let new = got.properties.iter().find(|q| q.name == name).unwrap();
                assert_eq!(new.ty.normalized(), ty.normalized(), "{label}");
                assert_eq!(got.properties.len(), before.properties.len() + 1, "{label}");
                added += 1;
                if !a.unversioned {
                    // Tagged without a schema: refused, naming the class.
                    let mut q = before.clone();
                    let err =
                        pakrat_asset::props::edit::set(&a, &NoSchemas, i, &mut q, &name, value)
                            .unwrap_err()
                            .to_string();
                    assert!(err.contains("no schema for"), "{label}: {err}");
                }
                break;
            }
        }
    }
    eprintln!("{added} properties added");
    assert!(added >= 4, "{added}");
}
