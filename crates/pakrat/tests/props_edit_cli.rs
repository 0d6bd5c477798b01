//! `pakrat props apply` and `pakrat props set` (issue 26, items 2, 3, 6):
//!
//! * round trip: `props --json` then `props apply` with no change gives
//!   the same bytes for every fixture package, legacy (LegacyPak, loose
//!   files written with `-o`) and zen (IoStore, written as a patch
//!   container whose package chunk must equal the original), UE 5.8 and
//!   6.0, tagged and unversioned;
//! * `props set` edits of `DA_AllProperties` (scalar, string, array, map,
//!   name, object reference) read back with `props --json`; a scalar edit
//!   changes only that value's bytes;
//! * `--dry-run` writes nothing; `--in-place --backup` keeps the original;
//! * refusals (wrong type, missing path, undecodable export, existing
//!   output) name the reason, exit 2 and write nothing.
//!
//! The corpus tests skip loudly without the corpus (and fail under CI=true).

mod common;

use std::path::{Path, PathBuf};

use common::{fixtures, run, s, Fixture};
use pakrat_asset::zen::ContainerPackages;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use serde_json::Value;

const DA: &str = "/Game/Fixtures/Properties/DA_AllProperties";

/// `--usmap M --ue-version V` for an unversioned fixture (its legacy
/// packages carry no versions), nothing for a tagged one.
fn read_args(f: &Fixture) -> Vec<String> {
    if f.tagged {
        vec![]
    } else {
        vec![
            "--usmap".into(),
            s(&f.usmap).into(),
            "--ue-version".into(),
            f.engine.into(),
        ]
    }
}

fn run_s(args: &[String]) -> (i32, String, String) {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&a)
}

/// Every `.uasset`/`.umap` below `dir`.
fn packages_below(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = common::file_names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".uasset") || n.ends_with(".umap"))
        .map(|n| dir.join(n))
        .collect();
    v.sort();
    v
}

/// The fixture's legacy pak extracted into `dir`.
fn extract_legacy(f: &Fixture, dir: &Path) {
    let (code, _, err) = run(&["extract", s(&f.legacy_pak), "-o", s(dir), "--quiet"]);
    assert_eq!(code, 0, "{}: {err}", f.label);
}

/// `props --json ARGS` (exit 0 or 1: an export with an error still
/// prints) written to `to`.
fn props_json(args: &[String], to: &Path) {
    let mut a = vec!["props".to_string(), "--json".into()];
    a.extend_from_slice(args);
    let (code, out, err) = run_s(&a);
    assert!(code == 0 || code == 1, "{a:?}: exit {code}: {err}");
    std::fs::write(to, out).unwrap();
}

#[test]
fn legacy_round_trip_is_byte_identical_for_every_fixture_package() {
    let Some(fx) = fixtures() else { return };
    let mut total = 0;
    for f in &fx {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        extract_legacy(f, &src);
        let pkgs = packages_below(&src);
        assert!(pkgs.len() >= 5, "{}: {} packages", f.label, pkgs.len());
        let mut failed = Vec::new();
        for (k, p) in pkgs.iter().enumerate() {
            let json = tmp.path().join(format!("{k}.json"));
            let mut a = vec![s(p).to_string()];
            a.extend(read_args(f));
            props_json(&a, &json);
            let out = tmp
                .path()
                .join(format!("out{k}"))
                .join(p.file_name().unwrap());
            let mut a = vec![
                "props".to_string(),
                "apply".into(),
                s(&json).into(),
                s(p).into(),
                "-o".into(),
                s(&out).into(),
            ];
            a.extend(read_args(f));
            let (code, _, err) = run_s(&a);
            if code != 0 {
                failed.push(format!("{}: exit {code}: {err}", p.display()));
                continue;
            }
            for ext in ["uasset", "umap", "uexp", "ubulk", "uptnl"] {
                let (a, b) = (p.with_extension(ext), out.with_extension(ext));
                if a.exists() && std::fs::read(&a).unwrap() != std::fs::read(&b).unwrap_or_default()
                {
                    failed.push(format!("{}: .{ext} differs", p.display()));
                }
            }
        }
        assert!(failed.is_empty(), "{}: {failed:#?}", f.label);
        eprintln!("{}: {} legacy packages round-tripped", f.label, pkgs.len());
        total += pkgs.len();
    }
    eprintln!("legacy round trip: {total} packages, all identical");
}

/// The package names of a container.
fn zen_packages(utoc: &Path) -> Vec<String> {
    let c = Container::open(utoc, &KeyRing::default()).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let mut v: Vec<String> = cp
        .packages
        .iter()
        .filter_map(|p| p.header.as_ref().ok().map(|h| h.name.clone()))
        .collect();
    v.sort();
    v
}

/// The package chunk of `package` in container `utoc`.
fn package_chunk(utoc: &Path, package: &str) -> Vec<u8> {
    let c = Container::open(utoc, &KeyRing::default()).unwrap();
    let cp = ContainerPackages::read(&c).unwrap();
    let e = cp
        .find(package)
        .unwrap_or_else(|| panic!("{}: no {package}", utoc.display()));
    c.read_chunk(e.chunk_index).unwrap()
}

#[test]
fn zen_round_trip_through_a_patch_container_keeps_the_package_chunk() {
    let Some(fx) = fixtures() else { return };
    let mut total = 0;
    for f in &fx {
        let tmp = tempfile::tempdir().unwrap();
        let pkgs = zen_packages(&f.utoc);
        assert!(pkgs.len() > 50, "{}: {} packages", f.label, pkgs.len());
        let mut failed = Vec::new();
        let usmap: Vec<String> = if f.tagged {
            vec![]
        } else {
            vec!["--usmap".into(), s(&f.usmap).into()]
        };
        for (k, p) in pkgs.iter().enumerate() {
            let json = tmp.path().join(format!("{k}.json"));
            let mut a = vec![s(&f.utoc).to_string(), p.clone()];
            a.extend(usmap.clone());
            props_json(&a, &json);
            let out = tmp.path().join(format!("p{k}")).join("Mod_P.utoc");
            let mut a = vec![
                "props".to_string(),
                "apply".into(),
                s(&json).into(),
                s(&f.utoc).into(),
                p.clone(),
                "-o".into(),
                s(&out).into(),
            ];
            a.extend(usmap.clone());
            let (code, _, err) = run_s(&a);
            if code != 0 {
                failed.push(format!("{p}: exit {code}: {err}"));
                continue;
            }
            if package_chunk(&out, p) != package_chunk(&f.utoc, p) {
                failed.push(format!("{p}: the patch's package chunk differs"));
            }
        }
        assert!(failed.is_empty(), "{}: {failed:#?}", f.label);
        eprintln!("{}: {} zen packages round-tripped", f.label, pkgs.len());
        total += pkgs.len();
    }
    eprintln!("zen round trip: {total} packages, all identical");
}

/// The tagged UE 5.8 DA_AllProperties, extracted: (temp dir, .uasset).
fn da_tagged() -> Option<(tempfile::TempDir, PathBuf)> {
    let f = fixtures()?
        .into_iter()
        .find(|f| f.tagged && f.engine == "5.8")?;
    let tmp = tempfile::tempdir().unwrap();
    extract_legacy(&f, &tmp.path().join("src"));
    let p = tmp.path().join("src/Properties/DA_AllProperties.uasset");
    assert!(p.is_file());
    Some((tmp, p))
}

/// The main export's properties of a package, by name → value.
fn values(file: &Path) -> serde_json::Map<String, Value> {
    let j = common::json_ok(&["props", "--json", s(file), "DA_AllProperties"]);
    j["exports"][0]["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let name = match p.get("index") {
                Some(i) => format!("{}[{i}]", p["name"].as_str().unwrap()),
                None => p["name"].as_str().unwrap().to_string(),
            };
            (name, p["value"].clone())
        })
        .collect()
}

#[test]
fn set_edits_read_back_and_leave_the_rest_alone() {
    let Some((tmp, da)) = da_tagged() else { return };
    let before = values(&da);
    let out = tmp.path().join("out/DA_AllProperties.uasset");
    let (code, stdout, err) = run(&[
        "props",
        "set",
        s(&da),
        "Integer=7",
        "String=A string made much longer than it was",
        "IntegerArray[4]=55",
        "IntegerMap[\"Added\"]=9",
        "Name=A_Brand_New_Name",
        "HardTextureReference=/Game/Fixtures/Textures/T_BC6H.T_BC6H",
        "Vector.X=0.5",
        "Enum=EFixtureEnum::Alpha",
        "-o",
        s(&out),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let r = &report["packages"][0];
    assert_eq!(r["changes"].as_array().unwrap().len(), 8, "{r:#}");
    assert!(r["new_names"]
        .as_array()
        .unwrap()
        .contains(&Value::from("A_Brand_New_Name")));
    assert!(
        !r["new_imports"].as_array().unwrap().is_empty(),
        "T_BC6H is imported only softly: a new import: {r:#}"
    );
    let after = values(&out);
    let mut want = before.clone();
    want["Integer"] = 7.into();
    want["String"] = "A string made much longer than it was".into();
    want["IntegerArray"].as_array_mut().unwrap().push(55.into());
    want["IntegerMap"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"key": "Added", "value": 9}));
    want["Name"] = "A_Brand_New_Name".into();
    want["HardTextureReference"] = "/Game/Fixtures/Textures/T_BC6H.T_BC6H".into();
    want["Vector"]["X"] = 0.5.into();
    want["Enum"] = "EFixtureEnum::Alpha".into();
    for (k, v) in &want {
        assert_eq!(after.get(k), Some(v), "{k}");
    }
    assert_eq!(after.len(), want.len());
}

#[test]
fn a_scalar_edit_changes_only_that_values_bytes() {
    let Some((tmp, da)) = da_tagged() else { return };
    let out = tmp.path().join("o/DA_AllProperties.uasset");
    let (code, _, err) = run(&["props", "set", s(&da), "Integer=7", "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&da).unwrap(), std::fs::read(&out).unwrap());
    let a = std::fs::read(da.with_extension("uexp")).unwrap();
    let b = std::fs::read(out.with_extension("uexp")).unwrap();
    assert_eq!(a.len(), b.len());
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    let old = 305419896i32.to_le_bytes();
    let at = a.windows(4).position(|w| w == old).unwrap();
    assert!(
        diff.iter().all(|&i| (at..at + 4).contains(&i)),
        "bytes {diff:?} changed; the value is at {at}"
    );
    assert_eq!(&b[at..at + 4], &7i32.to_le_bytes());
}

#[test]
fn zen_set_writes_a_patch_that_reads_back() {
    let Some(fx) = fixtures() else { return };
    let f = fx.iter().find(|f| f.tagged && f.engine == "5.8").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("Mod_P.utoc");
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&f.utoc),
        DA,
        "Integer=-3",
        "String=zen string, longer than before",
        "Name=Zen_New_Name",
        "-o",
        s(&out),
    ]);
    assert_eq!(code, 0, "{err}");
    let j = common::json_ok(&[
        "props",
        "--json",
        s(&out),
        DA,
        "DA_AllProperties",
        "--global",
        s(&f.global),
    ]);
    let props = j["exports"][0]["properties"].as_array().unwrap();
    let get = |n: &str| props.iter().find(|p| p["name"] == n).unwrap()["value"].clone();
    assert_eq!(get("Integer"), -3);
    assert_eq!(get("String"), "zen string, longer than before");
    assert_eq!(get("Name"), "Zen_New_Name");
}

#[test]
fn unversioned_set_through_mappings() {
    let Some(fx) = fixtures() else { return };
    let f = fx.iter().find(|f| !f.tagged && f.engine == "5.8").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    extract_legacy(f, &tmp.path().join("src"));
    let da = tmp.path().join("src/Properties/DA_AllProperties.uasset");
    let out = tmp.path().join("o/DA_AllProperties.uasset");
    let base = ["--usmap", s(&f.usmap), "--ue-version", f.engine];
    let mut a = vec![
        "props",
        "set",
        s(&da),
        "Integer=0",
        "IntegerArray[4]=5",
        "Enum=Alpha",
        "-o",
        s(&out),
    ];
    a.extend(base);
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    let mut a = vec!["props", "--json", s(&out), "DA_AllProperties"];
    a.extend(base);
    let j = common::json_ok(&a);
    let props = j["exports"][0]["properties"].as_array().unwrap();
    let get = |n: &str| {
        props
            .iter()
            .find(|p| p["name"] == n)
            .map(|p| p["value"].clone())
    };
    // Zero is not stored in unversioned data (masked): it reads back as 0.
    assert_eq!(get("Integer").unwrap_or(Value::from(0)), 0);
    assert_eq!(get("IntegerArray").unwrap().as_array().unwrap().len(), 5);
    assert_eq!(get("Enum").unwrap(), "EFixtureEnum::Alpha");
}

#[test]
fn dry_run_writes_nothing_and_in_place_keeps_a_backup() {
    let Some((tmp, da)) = da_tagged() else { return };
    let dir = tmp.path().join("src");
    let before = common::files(&dir);
    let (code, out, err) = run(&["props", "set", s(&da), "Integer=1", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Integer: 305419896 -> 1"), "{out}");
    assert!(out.contains("dry run"), "{out}");
    assert_eq!(common::files(&dir), before);
    // A glob naming two copies: dry run, then into a folder.
    let two = tmp.path().join("two");
    for n in ["A", "B"] {
        for ext in ["uasset", "uexp"] {
            common::copy(
                &da.with_extension(ext),
                &two.join(format!("{n}/DA_AllProperties.{ext}")),
            );
        }
    }
    let glob = format!("{}/*/*.uasset", two.display());
    let (code, out, err) = run(&["props", "set", &glob, "Integer=1", "--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("Integer: 305419896 -> 1").count(), 2, "{out}");
    let copies = common::files(&two);
    let outdir = tmp.path().join("outdir");
    let a = two.join("A/DA_AllProperties.uasset");
    let b = two.join("B/DA_AllProperties.uasset");
    // Two inputs of one file name into one folder: refused.
    let (code, _, err) = run(&["props", "set", s(&a), s(&b), "Integer=1", "-o", s(&outdir)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("same file name"), "{err}");
    let one = outdir.join("DA_AllProperties.uasset");
    let (code, _, err) = run(&["props", "set", s(&a), "Integer=1", "-o", s(&one)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(values(&one)["Integer"], 1);
    // --in-place over both.
    let (code, _, err) = run(&["props", "set", &glob, "Integer=4", "--in-place"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(values(&a)["Integer"], 4);
    assert_eq!(values(&b)["Integer"], 4);
    assert_ne!(common::files(&two), copies);
    assert_eq!(common::files(&dir), before);
    // In place, with a backup.
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&da),
        "Integer=2",
        "--in-place",
        "--backup",
    ]);
    assert_eq!(code, 0, "{err}");
    let uexp = da.with_extension("uexp");
    assert_eq!(
        std::fs::read(format!("{}.bak", uexp.display())).unwrap(),
        before["Properties/DA_AllProperties.uexp"]
    );
    assert_eq!(values(&da)["Integer"], 2);
    // A second backup is refused without --force, and nothing changes.
    let now = common::files(&dir);
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&da),
        "Integer=3",
        "--in-place",
        "--backup",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains(".bak"), "{err}");
    assert_eq!(common::files(&dir), now);
}

#[test]
fn refusals_name_the_reason_and_write_nothing() {
    let Some((tmp, da)) = da_tagged() else { return };
    let out = tmp.path().join("o/DA.uasset");
    for (assign, says) in [
        ("Integer=abc", "give an integer"),
        ("Integer8=300", "out of range"),
        ("NoSuchProperty=1", "no property NoSuchProperty"),
        ("Vector.W=1", "no field W"),
        ("bBoolean=maybe", "true or false"),
        ("DynamicDelegate=x", "not supported"),
    ] {
        let (code, _, err) = run(&["props", "set", s(&da), assign, "-o", s(&out)]);
        assert_eq!(code, 2, "{assign}: {err}");
        assert!(err.contains(says), "{assign}: {err}");
        assert!(err.contains("nothing was written"), "{assign}: {err}");
        assert!(!out.exists(), "{assign}");
    }
    // An enum entry is checked when the mappings know the enum.
    let f = fixtures().unwrap().into_iter().find(|f| f.tagged).unwrap();
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&da),
        "Enum=Omega",
        "--usmap",
        s(&f.usmap),
        "-o",
        s(&out),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("EFixtureEnum has no entry Omega"), "{err}");
    // No output chosen.
    let (code, _, err) = run(&["props", "set", s(&da), "Integer=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("--dry-run"), "{err}");
    // An output that exists is kept without --force.
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, b"keep").unwrap();
    let (code, _, err) = run(&["props", "set", s(&da), "Integer=1", "-o", s(&out)]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    // apply: a changed type and a value of the wrong type.
    let json = tmp.path().join("e.json");
    props_json(&[s(&da).into()], &json);
    let mut j: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let main = j["exports"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "DA_AllProperties")
        .unwrap();
    let p = main["properties"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == "Integer")
        .unwrap();
    p["value"] = "seven".into();
    std::fs::write(&json, serde_json::to_vec(&j).unwrap()).unwrap();
    let out2 = tmp.path().join("o2/DA.uasset");
    let (code, _, err) = run(&["props", "apply", s(&json), s(&da), "-o", s(&out2)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Integer") && err.contains("give an integer"),
        "{err}"
    );
    assert!(!out2.exists());
}

#[test]
fn an_export_that_does_not_decode_is_not_edited() {
    let Some(fx) = fixtures() else { return };
    let f = fx.iter().find(|f| !f.tagged && f.engine == "5.8").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    extract_legacy(f, &tmp.path().join("src"));
    let da = tmp.path().join("src/Properties/DA_AllProperties.uasset");
    let out = tmp.path().join("o/DA.uasset");
    // Unversioned without mappings: the export does not decode.
    let (code, _, err) = run(&[
        "props",
        "set",
        s(&da),
        "Integer=1",
        "--ue-version",
        f.engine,
        "-o",
        s(&out),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs mappings"), "{err}");
    assert!(!out.exists());
}
