//! CLI tests for UE1/UE2 packages: info, list, verify, props, export.
//! Facts are checked against the corpus MANIFEST.tsv `detail` column.

use std::path::PathBuf;

use serde_json::Value;

mod common;
use common::pakrat;

fn entry(suffix: &str) -> Option<pakrat_testkit::Entry> {
    let all = pakrat_testkit::manifest()?;
    Some(
        all.into_iter()
            .find(|e| e.local_path.ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix} not in manifest")),
    )
}

fn json_of(args: &[&str], file: &PathBuf) -> Value {
    let out = pakrat()
        .args(args)
        .arg(file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn detail_u64(e: &pakrat_testkit::Entry, key: &str) -> u64 {
    let v = e.detail_value(key).unwrap();
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => v.parse().unwrap(),
    }
}

#[test]
fn info_json_matches_manifest_for_every_package() {
    for kind in ["ue1", "ue2"] {
        let Some(entries) = pakrat_testkit::entries(kind) else {
            return;
        };
        for e in entries.iter().filter(|e| !e.is_negative()) {
            let j = json_of(&["info"], &e.path);
            let s = &j["summary"];
            let ver = format!("v{} lic{}", s["version"], s["licensee"]);
            assert!(
                e.detail.starts_with(&format!("package {ver} ")),
                "{}: {ver}",
                e.local_path
            );
            assert_eq!(
                s["names"]["count"].as_u64(),
                Some(detail_u64(e, "names")),
                "{}",
                e.local_path
            );
            assert_eq!(
                s["exports"]["count"].as_u64(),
                Some(detail_u64(e, "exports"))
            );
            assert_eq!(
                s["imports"]["count"].as_u64(),
                Some(detail_u64(e, "imports"))
            );
            assert_eq!(s["package_flags"].as_u64(), Some(detail_u64(e, "flags")));
        }
    }
}

#[test]
fn info_text_names_version_flags_and_imports() {
    let Some(e) = entry("ue2/kf1_KFMutators.u") else {
        return;
    };
    let out = pakrat().arg("info").arg(&e.path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(
        text.contains("version 128, licensee 29, Killing Floor tag 0x9E2A83C2"),
        "{text}"
    );
    assert!(text.contains("AllowDownload"), "{text}");
    assert!(text.contains("imports from: "), "{text}");
    assert!(text.contains("KFMod"), "{text}");
}

#[test]
fn list_tables_json_counts() {
    let Some(e) = entry("ue1/IpDrv.u") else {
        return;
    };
    let j = json_of(&["list", "--names", "--imports", "--exports"], &e.path);
    assert_eq!(
        j["names"].as_array().unwrap().len() as u64,
        detail_u64(&e, "names")
    );
    assert_eq!(
        j["imports"].as_array().unwrap().len() as u64,
        detail_u64(&e, "imports")
    );
    // The exports are the package's entries.
    let exports = j["entries"].as_array().unwrap();
    assert_eq!(exports.len() as u64, detail_u64(&e, "exports"));
    // Script text of a class resolves to Class.ScriptText with class TextBuffer.
    assert!(exports.iter().any(
        |x| x["class"] == "TextBuffer" && x["path"].as_str().unwrap().ends_with(".ScriptText")
    ));
    assert!(j["imports"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["path"] == "Core" && x["class"] == "Package"));
}

#[test]
fn list_text_default_is_exports_and_survives_closed_pipe() {
    let Some(e) = entry("ue1/Engine.u") else {
        return;
    };
    let out = pakrat().arg("list").arg(&e.path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# exports (5420)"), "{}", &text[..80]);
    assert!(text.contains(" Actor\n"));

    // A reader that goes away early (`| head -1`) is not a crash.
    use std::io::Read;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pakrat"))
        .args(["list", "--names", "--exports"])
        .arg(&e.path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    // Either it noticed the closed pipe and exited 0, or (main restores the
    // default SIGPIPE, like `cat`) it ended quietly by that signal.
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            out.status.code() == Some(0) || out.status.signal() == Some(13),
            "{:?} {err}",
            out.status
        );
    }
    assert!(err.is_empty(), "{err}");
}

#[test]
fn verify_reports_ok_and_problems() {
    let Some(good) = entry("ue2/XGame.u") else {
        return;
    };
    let out = pakrat().arg("verify").arg(&good.path).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(": OK ("));

    // ACE strips its script text to 10 filler bytes: verify names each one.
    let bad = entry("ue1/ACEv10f_S.u").unwrap();
    let out = pakrat()
        .args(["verify", "--json"])
        .arg(&bad.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["ok"], false);
    let problems = j["report"]["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 7);
    assert!(problems[0]["what"]
        .as_str()
        .unwrap()
        .contains("ScriptText (TextBuffer)"));
}

#[test]
fn broken_and_ue3_packages_fail_clearly() {
    let Some(fuzz) = entry("ue1/FUZZ_load_umx_invalid_names.umx") else {
        return;
    };
    for cmd in ["info", "list", "verify"] {
        let out = pakrat().arg(cmd).arg(&fuzz.path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("at offset 0x") && err.contains("FUZZ_"),
            "{cmd}: {err}"
        );
    }
    let ue3 = entry("ue3/udk_Core.u").unwrap();
    let out = pakrat().arg("info").arg(&ue3.path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("package version 820 (licensee 0)") && err.contains("Unreal Engine 3"),
        "{err}"
    );
    // printed once, not twice
    assert_eq!(err.matches("package version 820").count(), 1, "{err}");
}

#[test]
fn props_text_and_json() {
    let Some(e) = entry("ue1/Faces.utx") else {
        return;
    };
    let out = pakrat()
        .args(["props"])
        .arg(&e.path)
        .arg("ivana")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    for want in [
        "[Texture'ivana']",
        "bMasked=True",
        "USize=64",
        "VSize=64",
        "Palette=Palette'",
        "InternalTime(1)=",
    ] {
        assert!(text.contains(want), "{want} in {text}");
    }
    let out = pakrat()
        .args(["props", "--json"])
        .arg(&e.path)
        .arg("ivana")
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["kind"], "package", "{j}");
    assert_eq!(j["package"], "Faces", "{j}");
    assert_eq!(j["exports"].as_array().map(Vec::len), Some(1), "{j}");
    let ex = &j["exports"][0];
    assert_eq!(ex["name"], "ivana");
    assert_eq!(ex["path"], "Faces.ivana");
    assert_eq!(ex["class"], "Engine.Texture");
    assert_eq!(ex["outer"], Value::Null);
    assert_eq!(
        ex["native"],
        serde_json::json!({"fields": [], "unread": 5571})
    );
    assert!(ex.get("error").is_none(), "{ex}");
    let props = ex["properties"].as_array().unwrap();
    let find = |n: &str, i: u64| {
        props
            .iter()
            .find(|p| p["name"] == n && p["index"].as_u64().unwrap_or(0) == i)
            .unwrap_or_else(|| panic!("{n}[{i}] in {ex}"))
    };
    assert_eq!(
        find("USize", 0),
        &serde_json::json!({"name": "USize", "type": "IntProperty", "value": 64})
    );
    assert_eq!(find("bMasked", 0)["value"], true);
    assert_eq!(find("Palette", 0)["value"], "Faces.Palette15");
    assert_eq!(find("Palette", 0)["type"], "ObjectProperty");
    assert_eq!(find("InternalTime", 1)["value"], 1090602097);
    assert_eq!(find("MipZero", 0)["type"], "StructProperty(Color)");
    assert_eq!(
        find("MipZero", 0)["value"],
        serde_json::json!({"R": 45, "G": 33, "B": 29, "A": 0})
    );
    // No OBJECT: every export that has properties (the 19 textures).
    let out = pakrat()
        .args(["props", "--json"])
        .arg(&e.path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let all: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exports = all["exports"].as_array().unwrap();
    assert!(exports.len() > 1, "{all}");
    assert!(exports.iter().any(|x| x == ex), "{all}");
    assert!(exports
        .iter()
        .all(|x| x["properties"].as_array().is_some_and(|p| !p.is_empty())));
    let out = pakrat().args(["props"]).arg(&e.path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert_eq!(
        text.matches("\n[Texture'").count() + 1,
        exports.len(),
        "{text}"
    );
    assert!(
        text.contains("[Texture'Kyla'] (export 19)\nbMasked=True"),
        "{text}"
    );
    let missing = pakrat()
        .args(["props"])
        .arg(&e.path)
        .arg("NoSuchThing")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no export named"));
}

#[test]
fn props_of_ue2_tagged_structs() {
    let Some(e) = entry("ue2/XGame.u") else {
        return;
    };
    let out = pakrat()
        .args(["props"])
        .arg(&e.path)
        .arg("BulletSplash.SpriteEmitter29")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // RangeVector of Ranges, nested tagged lists.
    assert!(text.contains("StartSizeRange=(X=(Min="), "{text}");
    let out = pakrat()
        .args(["props", "--json"])
        .arg(&e.path)
        .arg("BulletSplash.SpriteEmitter29")
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ex = &j["exports"][0];
    assert_eq!(ex["path"], "XGame.BulletSplash.SpriteEmitter29");
    assert_eq!(ex["outer"], "XGame.BulletSplash");
    assert_eq!(ex["class"], "Engine.SpriteEmitter");
    let prop = |n: &str| {
        ex["properties"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == n)
            .unwrap_or_else(|| panic!("{n} in {ex}"))
            .clone()
    };
    assert_eq!(
        prop("StartSizeRange"),
        serde_json::json!({"name": "StartSizeRange", "type": "StructProperty(RangeVector)",
            "value": {"X": {"Min": 4.0, "Max": 5.0}, "Y": {"Min": 100.0, "Max": 100.0},
                      "Z": {"Min": 100.0, "Max": 100.0}}})
    );
    // An imported object: its path starts with its package.
    assert_eq!(
        prop("Texture")["value"],
        "AW-2004Particles.Energy.SparkHead"
    );
    // 0.8f32 prints as 0.8, not as the f64 0.800000011920929.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"Max\": 0.8,"), "{text}");
}

/// Typed arrays and byte enums come from the class definitions in the
/// package: `ArrayProperty(IntProperty)`, `ByteProperty(EAttitude)` with
/// `"EName::Value"` values (the enum of `RemoteRole` is Actor's: found up
/// the superclass chain).
#[test]
fn props_json_types_arrays_and_enums() {
    let (Some(xgame), Some(engine)) = (entry("ue2/XGame.u"), entry("ue1/Engine.u")) else {
        return;
    };
    let props = |path: &std::path::Path, obj: &str| {
        let out = pakrat()
            .args(["props", "--json"])
            .arg(path)
            .arg(obj)
            .output()
            .unwrap();
        assert!(out.status.success());
        let j: Value = serde_json::from_slice(&out.stdout).unwrap();
        j["exports"][0]["properties"].as_array().unwrap().clone()
    };
    let find = |ps: &[Value], n: &str| ps.iter().find(|p| p["name"] == n).unwrap().clone();
    let ps = props(&xgame.path, "UT2K4GameProfile");
    assert_eq!(
        find(&ps, "LadderProgress"),
        serde_json::json!({"name": "LadderProgress", "type": "ArrayProperty(IntProperty)",
            "value": [1, -1, -1, -1, -1, -1, -1]})
    );
    let ps = props(&engine.path, "Pawn");
    assert_eq!(
        find(&ps, "AttitudeToPlayer"),
        serde_json::json!({"name": "AttitudeToPlayer", "type": "ByteProperty(EAttitude)",
            "value": "EAttitude::ATTITUDE_Hate"})
    );
    assert_eq!(
        find(&ps, "RemoteRole")["value"],
        "ENetRole::ROLE_SimulatedProxy"
    );
    assert_eq!(find(&ps, "SoundVolume")["type"], "ByteProperty");
    assert_eq!(find(&ps, "SoundVolume")["value"], 240);
}

/// An export that does not decode is listed with its `error` and the others
/// still print; the exit code is 1.
#[test]
fn props_json_reports_broken_exports_and_exits_1() {
    let Some(e) = entry("ue1/NPLoader_v17.u") else {
        return;
    };
    let out = pakrat()
        .args(["props", "--json"])
        .arg(&e.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ex = j["exports"].as_array().unwrap();
    let bad: Vec<&Value> = ex.iter().filter(|x| x.get("error").is_some()).collect();
    // `verify` counts 14 problems in this package, one per broken export.
    assert_eq!(bad.len(), 14, "{j}");
    assert!(bad.iter().any(|x| x["error"]
        .as_str()
        .is_some_and(|m| m.contains("property GetLocalURL: info byte 0x20 has type 0"))));
    assert!(bad
        .iter()
        .all(|x| x["native"].is_null() && x["properties"] == serde_json::json!([])));
    assert!(ex.len() > bad.len(), "{j}");
    let text = pakrat().args(["props"]).arg(&e.path).output().unwrap();
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.matches("\n; error: ").count(), 14, "{text}");
}

#[test]
fn export_music_texture_script_and_no_overwrite() {
    let Some(umx) = entry("ue1/Gomorra.umx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = pakrat()
        .args(["export"])
        .arg(&umx.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xm = std::fs::read(dir.path().join("Gomorra.xm")).unwrap();
    assert!(xm.starts_with(b"Extended Module"));
    // A second run refuses to overwrite; --force replaces.
    let again = pakrat()
        .args(["export"])
        .arg(&umx.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    // Refused once, up front (every name is known before writing).
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr)
        .contains("Gomorra.xm already exists; nothing was written"));
    let forced = pakrat()
        .args(["export", "--force"])
        .arg(&umx.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(forced.status.success());

    let utx = entry("ue2/T_Epic2k4BP2.utx").unwrap();
    let out = pakrat()
        .args(["export", "--json", "--class", "Texture"])
        .arg(&utx.path)
        .arg("Walls.BP2_Walls_Cement01")
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &j["objects"][0];
    assert_eq!(o["status"], "exported");
    let f = &o["files"][0];
    assert_eq!(f["path"], "Walls/BP2_Walls_Cement01.png");
    assert!(f["detail"].as_str().unwrap().contains("Dxt1 (UE2"));
    let png = std::fs::read(dir.path().join("Walls/BP2_Walls_Cement01.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 512);

    let u = entry("ue1/IpDrv.u").unwrap();
    let out = pakrat()
        .args(["export", "--class", "textbuffer"])
        .arg(&u.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let uc = std::fs::read_to_string(dir.path().join("Classes/TcpLink.uc")).unwrap();
    assert!(uc.contains("class TcpLink"), "{}", &uc[..uc.len().min(200)]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("skipped, no exporter for the class: ") && text.contains("Function"),
        "{text}"
    );

    let bad = pakrat()
        .args(["export", "--class", "Model"])
        .arg(&u.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown --class"));
}

#[test]
fn export_json_lists_skipped_objects_with_class() {
    let Some(e) = entry("ue1/Faces.utx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = pakrat()
        .args(["export", "--json"])
        .arg(&e.path)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let objs = j["objects"].as_array().unwrap();
    assert_eq!(objs.len(), 36);
    let skipped: Vec<&Value> = objs.iter().filter(|o| o["status"] == "skipped").collect();
    assert_eq!(skipped.len(), 18);
    assert!(skipped
        .iter()
        .all(|o| o["class"] == "Palette" && o["reason"] == "no exporter for class Palette"));
}

#[test]
fn export_all_mips() {
    let Some(e) = entry("ue1/Faces.utx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = pakrat()
        .args(["export", "--mips"])
        .arg(&e.path)
        .arg("ivana")
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 64x64 with a full mip chain: 64, 32, 16, 8, 4, 2, 1.
    for (m, size) in [(0u32, 64u32), (1, 32), (6, 1)] {
        let png = std::fs::read(dir.path().join(format!("ivana_mip{m}.png"))).unwrap();
        assert_eq!(
            u32::from_be_bytes(png[16..20].try_into().unwrap()),
            size,
            "mip {m}"
        );
    }
}

/// A package whose object layout is not known (tables only; a Lineage II
/// package with its licensee field changed from 37 to 99): `props` says so
/// once, naming the version and licensee (exit 2), rather than listing
/// every export with the same error.
#[test]
fn props_of_a_tables_only_package_fails_once() {
    let Some(e) = entry("licensee/l2_Core.u") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut data = std::fs::read(&e.path).unwrap();
    data[6..8].copy_from_slice(&99u16.to_le_bytes());
    let path = tmp.path().join("l2_Core.u");
    std::fs::write(&path, data).unwrap();
    let out = pakrat()
        .args(["props", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("tables only").count(), 1, "{err}");
    assert!(err.contains("version 123 with licensee 99"), "{err}");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["exit_code"], 2, "{j}");
    assert!(j.get("exports").is_none(), "{j}");
}
