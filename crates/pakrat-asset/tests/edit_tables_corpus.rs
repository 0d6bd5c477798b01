//! Edits of curve tables, string tables and user-defined enums
//! ([`pakrat_asset::props::edit::set`], then [`write_edited`]) on the
//! CUE4Parse fixtures, UE 5.8 and 6.0, tagged and unversioned, in the zen
//! package of the IoStore container and in the legacy package it converts
//! to (the fixture LegacyPak holds none of these tables):
//!
//! * `CT_Rich`: a key's value changed, a key added, a row removed, a row
//!   added (a new name); `CT_Simple`: a simple curve key's value;
//! * `ST_Fixed`: an entry made longer, one added, one removed;
//! * `E_Fixture`: a display name changed (a text property) and an entry
//!   added to the native name list;
//! * `CT_Composite`/`DT_Composite`: `ParentTables` edited, row edits
//!   refused (the engine rebuilds the rows from the parents at load).
//!
//! Each written package reads back with the edited model; the rows and
//! exports not edited are unchanged.

use std::path::Path;

use pakrat_asset::convert::{self, Packages};
use pakrat_asset::edit::{write_edited, ExportEdit};
use pakrat_asset::legacy::Layout;
use pakrat_asset::props::open::{self, Opened};
use pakrat_asset::props::*;
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::{self, load_script_objects, ContainerPackages, ScriptObjects};
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

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

/// `(path, value)` pairs, as `props set` takes them.
type Edits = &'static [(&'static str, &'static str)];

/// The edits made to each package: (package, export, edits).
const EDITS: &[(&str, &str, Edits)] = &[
    (
        "/Game/Fixtures/Curves/CT_Rich",
        "CT_Rich",
        &[
            ("Rows.Cubic.Keys[0].Value", "7.5"),
            ("Rows.Cubic.Keys[3].Time", "9"),
            ("Rows.remove", "Mixed"),
            ("Rows.Added.Keys[0].Value", "1.5"),
        ],
    ),
    (
        "/Game/Fixtures/Curves/CT_Simple",
        "CT_Simple",
        &[("Rows.Linear.Keys[0].Value", "-12.25")],
    ),
    (
        "/Game/Fixtures/StringTables/ST_Fixed",
        "ST_Fixed",
        &[
            ("Entries[\"Greeting\"]", "Hello from a longer edited entry"),
            ("Entries[\"New\"]", "added"),
            ("Entries.remove", "Empty"),
        ],
    ),
    (
        "/Game/Fixtures/Blueprints/E_Fixture",
        "E_Fixture",
        &[
            ("DisplayNameMap[\"NewEnumerator1\"]", "Zweite"),
            ("Names[\"E_Fixture::NewEnumerator3\"]", "3"),
        ],
    ),
    (
        "/Game/Fixtures/DataTables/DT_Composite",
        "DT_Composite",
        &[("ParentTables.len", "1")],
    ),
    (
        "/Game/Fixtures/Curves/CT_Composite",
        "CT_Composite",
        &[("ParentTables.len", "1")],
    ),
];

/// A native map's keys, as text.
fn keys(p: &ExportProps, field: &str) -> Vec<String> {
    match p.native.iter().find(|f| f.name == field).map(|f| &f.value) {
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, _)| match k {
                Value::Name(n) | Value::Str(n) => n.clone(),
                other => format!("{other:?}"),
            })
            .collect(),
        other => panic!("{field} is {other:?}"),
    }
}

/// Make `edits` on export `name` of `o`, write the package, reopen it
/// with `reopen` and check: the edited export reads back as edited,
/// every other export as before. Returns the edited export's model.
fn edit_and_read_back(
    label: &str,
    o: &Opened,
    m: &Usmap,
    name: &str,
    edits: &[(&str, &str)],
    reopen: &dyn Fn(Vec<u8>, Option<Vec<u8>>) -> Opened,
) -> (ExportProps, ExportProps) {
    let a = o.asset();
    let i = a.exports.iter().position(|e| e.name == name).unwrap();
    let before = decode_export(&a, i, m);
    assert!(before.error.is_none(), "{label}: {:?}", before.error);
    let mut p = before.clone();
    for (path, value) in edits {
        let ch = pakrat_asset::props::edit::set(&a, m, i, &mut p, path, value)
            .unwrap_or_else(|e| panic!("{label} {path}: {e}"));
        assert!(!ch.is_empty(), "{label} {path}: no change");
    }
    assert_ne!(p, before, "{label}");
    let out = write_edited(
        o,
        m,
        &[ExportEdit {
            export: i,
            props: p.clone(),
        }],
    )
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    let r = reopen(out.main, out.uexp);
    let ra = r.asset();
    let got = decode_export(&ra, i, m);
    assert!(got.error.is_none(), "{label}: {:?}", got.error);
    assert_eq!(got.properties, p.properties, "{label}: properties");
    assert_eq!(got.native, p.native, "{label}: native data");
    for k in 0..ra.exports.len() {
        if k != i {
            assert_eq!(
                decode_export(&ra, k, m),
                decode_export(&a, k, m),
                "{label}: export {k}"
            );
        }
    }
    (before, got)
}

/// The keys of `CT_Rich`'s row `Cubic`.
fn cubic_keys(p: &ExportProps) -> Vec<Value> {
    let Some(Value::Map(rows)) = p.native.iter().find(|f| f.name == "Rows").map(|f| &f.value)
    else {
        panic!("no Rows")
    };
    let row = rows
        .iter()
        .find_map(|(k, v)| match (k, v) {
            (Value::Name(n), Value::Struct(f)) if n == "Cubic" => Some(f),
            _ => None,
        })
        .unwrap();
    match &row.iter().find(|f| f.name == "Keys").unwrap().value {
        Value::Array(k) => k.clone(),
        other => panic!("Keys is {other:?}"),
    }
}

/// What each edit must have done, beyond reading back as made.
fn check_effect(label: &str, name: &str, before: &ExportProps, got: &ExportProps) {
    let json = |p: &ExportProps| serde_json::to_value(&p.native).unwrap();
    match name {
        "CT_Rich" => {
            assert_eq!(keys(got, "Rows"), ["Cubic", "Added"], "{label}");
            let f = |k: &Value, n: &str| match k {
                Value::Struct(fs) => fs.iter().find(|x| x.name == n).unwrap().value.clone(),
                other => panic!("key is {other:?}"),
            };
            let g = cubic_keys(got);
            assert_eq!(f(&g[0], "Value"), Value::Float(7.5), "{label}");
            assert_eq!(f(&g[3], "Time"), Value::Float(9.0), "{label}");
            // The other keys of Cubic are as stored.
            let (b, g) = (cubic_keys(before), cubic_keys(got));
            assert_eq!(g.len(), 4, "{label}");
            assert_eq!(b[1..3], g[1..3], "{label}");
        }
        "CT_Simple" => {
            assert_eq!(keys(got, "Rows"), keys(before, "Rows"), "{label}");
            assert!(json(got).to_string().contains("-12.25"), "{label}");
        }
        "ST_Fixed" => {
            assert_eq!(
                keys(got, "Entries"),
                ["Greeting", "Unicode", "New"],
                "{label}"
            );
            let e = json(got).to_string();
            assert!(e.contains("Hello from a longer edited entry"), "{label}");
            assert!(e.contains("Fixture 日本語 Ω äöü"), "{label}: Unicode kept");
        }
        "E_Fixture" => {
            let k = keys(got, "Names");
            assert_eq!(k.last().unwrap(), "E_Fixture::NewEnumerator3", "{label}");
            assert_eq!(k.len(), keys(before, "Names").len() + 1, "{label}");
            let t = serde_json::to_string(&got.properties).unwrap();
            assert!(t.contains("Zweite") && t.contains("Third"), "{label}");
        }
        _ => {
            // Composite tables: one parent left, the rows as stored.
            assert_eq!(got.native, before.native, "{label}");
        }
    }
}

#[test]
fn curve_string_table_and_enum_edits_read_back() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let mut done = 0;
    for (v, mode) in VARIANTS {
        let m = usmap(&dir, v);
        let (c, script) = container(&dir, v, mode);
        let cp = ContainerPackages::read(&c).unwrap();
        let src = ContainerSource::new(&cp, Some(&script));
        let pk = Packages::from_containers(&[&cp], Some(script.clone()));
        for (pkg, name, edits) in EDITS {
            let entry = cp.find(pkg).unwrap();
            let imported = src.imported(entry.id);
            let o = open::open_in_container(&c, Some(&script), pkg, engine(v)).unwrap();
            let label = format!("{v} {mode} zen {name}");
            let reopen = |main: Vec<u8>, _: Option<Vec<u8>>| {
                open::open_zen_bytes("edited", main, cp.layout, imported, &src, engine(v)).unwrap()
            };
            let (before, got) = edit_and_read_back(&label, &o, &m, name, edits, &reopen);
            check_effect(&label, name, &before, &got);
            // The same package converted to legacy, edited the same way.
            let (chunk, _) = o.raw();
            let z = zen::parse(chunk, cp.layout, None).unwrap();
            let leg =
                convert::to_legacy(&z, chunk, imported, &pk, convert::layout_of(&z, engine(v)))
                    .unwrap_or_else(|e| panic!("{label}: to legacy: {e}"));
            let lo = open::open_legacy_bytes(pkg, leg.uasset, Some(leg.uexp), engine(v)).unwrap();
            let label = format!("{v} {mode} legacy {name}");
            let reopen = |main: Vec<u8>, uexp: Option<Vec<u8>>| {
                open::open_legacy_bytes("edited", main, uexp, engine(v)).unwrap()
            };
            let (before, got) = edit_and_read_back(&label, &lo, &m, name, edits, &reopen);
            check_effect(&label, name, &before, &got);
            done += 2;
        }
    }
    assert_eq!(done, 4 * EDITS.len() * 2);
}

#[test]
fn composite_table_rows_stay_refused() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let (v, mode) = ("UE5_8", "Tagged");
    let m = usmap(&dir, v);
    let (c, script) = container(&dir, v, mode);
    for (pkg, name, path) in [
        (
            "/Game/Fixtures/DataTables/DT_Composite",
            "DT_Composite",
            "Rows.Alpha.Number",
        ),
        (
            "/Game/Fixtures/Curves/CT_Composite",
            "CT_Composite",
            "Rows.remove",
        ),
    ] {
        let o = open::open_in_container(&c, Some(&script), pkg, engine(v)).unwrap();
        let a = o.asset();
        let i = a.exports.iter().position(|e| e.name == name).unwrap();
        let mut p = decode_export(&a, i, &m);
        let first = keys(&p, "Rows")[0].clone();
        let value = if path == "Rows.remove" {
            first.as_str()
        } else {
            "5"
        };
        pakrat_asset::props::edit::set(&a, &m, i, &mut p, path, value).unwrap();
        let e = write_edited(
            &o,
            &m,
            &[ExportEdit {
                export: i,
                props: p,
            }],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("rebuilt from its ParentTables"), "{name}: {e}");
    }
}
