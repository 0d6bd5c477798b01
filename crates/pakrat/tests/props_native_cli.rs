//! `pakrat props set` / `props apply` on native data (issue 26's
//! leftovers): `DT_AllProperties` rows edited, added and removed through
//! the CLI, legacy (`-o Mod_P.pak`) and zen (`-o Mod_P.utoc`), read back
//! with `props --json`; a composite table and a class whose native data
//! pakrat does not write are refused; the zenpair legacy twins (UE 4.27,
//! 5.4, 5.6) round-trip unchanged through `props --json` then `props
//! apply`.
//!
//! The corpus tests skip loudly without the corpus (and fail under CI=true).

mod common;

use std::path::Path;

use common::{fixtures, run, s};
use serde_json::Value;

const DT: &str = "/Game/Fixtures/DataTables/DT_AllProperties";

fn run_s(args: &[String]) -> (i32, String, String) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&a)
}

/// The rows of the data table in `props --json` output: (name, row).
fn rows(doc: &Value) -> Vec<(String, Value)> {
    let e = doc["exports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "DT_AllProperties")
        .expect("the table export");
    let f = e["native"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "Rows")
        .expect("Rows");
    f["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_string(), r["value"].clone()))
        .collect()
}

fn field<'v>(row: &'v Value, name: &str) -> &'v Value {
    row.as_object()
        .unwrap()
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no field {name} in {row}"))
}

/// `props set` on the table, then the rows read back from `out` (with
/// `read` arguments): Alpha's number changed, Defaults removed, Gamma
/// added, Beta unchanged.
fn set_and_read(label: &str, base: &Path, extra: &[String], out: &Path, read: &[String]) {
    let mut a: Vec<String> = ["props", "set", s(base), DT]
        .iter()
        .map(|x| x.to_string())
        .collect();
    a.extend_from_slice(extra);
    a.extend(
        [
            "Rows.Alpha.Number=5",
            "Rows.remove=Defaults",
            "Rows.Gamma.Message=a new row",
            "-o",
            s(out),
        ]
        .iter()
        .map(|x| x.to_string()),
    );
    let (code, said, err) = run_s(&a);
    assert_eq!(code, 0, "{label}: {err}");
    assert!(
        said.contains("4 changes") || said.contains("3 changes"),
        "{label}: {said}"
    );
    let mut r: Vec<String> = vec!["props".into(), "--json".into(), s(out).into(), DT.into()];
    r.extend_from_slice(read);
    let (code, json, err) = run_s(&r);
    assert_eq!(code, 0, "{label}: {err}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    let rows = rows(&doc);
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Alpha", "Beta", "Gamma"], "{label}");
    assert_eq!(field(&rows[0].1, "Number"), 5, "{label}");
    assert_eq!(field(&rows[1].1, "Number"), -202020, "{label}");
    assert_eq!(field(&rows[1].1, "Message"), "Beta_ß_水_🚀", "{label}");
    assert_eq!(field(&rows[2].1, "Message"), "a new row", "{label}");
    assert_eq!(field(&rows[2].1, "Number"), 0, "{label}");
}

#[test]
fn data_table_rows_set_through_the_cli_read_back() {
    let Some(fx) = fixtures() else { return };
    for f in &fx {
        let tmp = tempfile::tempdir().unwrap();
        let (usmap, version): (Vec<String>, Vec<String>) = if f.tagged {
            (vec![], vec![])
        } else {
            (
                vec!["--usmap".into(), s(&f.usmap).into()],
                vec!["--ue-version".into(), f.engine.into()],
            )
        };
        let legacy: Vec<String> = usmap.iter().chain(&version).cloned().collect();
        set_and_read(
            &format!("{} legacy", f.label),
            &f.legacy_pak,
            &legacy,
            &tmp.path().join("l/Mod_P.pak"),
            &legacy,
        );
        let mut read = usmap.clone();
        read.extend(["--global".to_string(), s(&f.global).into()]);
        set_and_read(
            &format!("{} zen", f.label),
            &f.utoc,
            &usmap,
            &tmp.path().join("z/Mod_P.utoc"),
            &read,
        );
    }
}

#[test]
fn composite_tables_and_other_native_data_are_refused() {
    let Some(fx) = fixtures() else { return };
    let f = &fx[0];
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("Mod_P.utoc");
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&f.utoc),
        "/Game/Fixtures/DataTables/DT_Composite",
        "Rows.Alpha.Number=5",
        "-o",
        s(&out),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rebuilt from its ParentTables"), "{err}");
    assert!(!out.exists());
}

/// The zenpair legacy twins (retoc's UE 4.27, 5.4 and 5.6 packages, no
/// mappings: their unversioned exports do not decode and keep their
/// bytes) come back byte for byte through `props --json` then `props
/// apply`; a change to a function's native data is refused.
#[test]
fn zenpair_legacy_twins_round_trip_through_the_cli() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let base = c.join("zenpair/retoc");
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for (v, engine) in [("UE4.27", "4.27"), ("UE5.4", "5.4"), ("UE5.6", "5.6")] {
        let mut files: Vec<_> = std::fs::read_dir(base.join(v))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "uasset") && p.with_extension("uexp").is_file()
            })
            .collect();
        files.sort();
        for f in files {
            let label = format!("{v} {}", f.display());
            let (code, json, err) = run(&["props", "--json", s(&f), "--ue-version", engine]);
            assert!(code == 0 || code == 1, "{label}: {err}");
            let j = tmp.path().join(format!("{n}.json"));
            std::fs::write(&j, json).unwrap();
            let out = tmp.path().join(format!("o{n}")).join("x.uasset");
            let (code, _, err) = run(&[
                "props",
                "apply",
                s(&j),
                s(&f),
                "--ue-version",
                engine,
                "-o",
                s(&out),
            ]);
            assert_eq!(code, 0, "{label}: {err}");
            assert!(
                std::fs::read(&out).unwrap() == std::fs::read(&f).unwrap(),
                "{label}"
            );
            assert!(
                std::fs::read(out.with_extension("uexp")).unwrap()
                    == std::fs::read(f.with_extension("uexp")).unwrap(),
                "{label}"
            );
            n += 1;
        }
    }
    assert!(n >= 7, "{n} packages");
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&base.join("UE4.27/TestModUI.uasset")),
        "--ue-version",
        "4.27",
        "--object",
        "ExecuteUbergraph_TestModUI",
        "native.ScriptBytecodeSize=5",
        "--dry-run",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a Function's is kept as stored"), "{err}");
}
