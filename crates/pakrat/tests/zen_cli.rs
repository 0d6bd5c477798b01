//! `pakrat zen to-legacy|from-legacy` and `pakrat info|list|verify X.uasset`
//! (issue 12) on the CUE4Parse fixtures, which hold the same packages cooked
//! as legacy `.uasset`/`.uexp` (LegacyPak) and as zen (IoStore).

mod common;

use std::path::Path;

use common::{file_names, files, fixtures, json_ok, pakrat, s};
use predicates::prelude::*;

/// The five packages cooked both ways, below the legacy pak's mount point.
const BOTH: [&str; 5] = [
    "Properties/DA_AllProperties.uasset",
    "DataTables/DT_AllProperties.uasset",
    "Textures/T_Streaming.uasset",
    "Textures/T_BC6H.uasset",
    "Maps/Empty.umap",
];

/// Where the zen container keeps the same files.
const ZEN_ROOT: &str = "CUE4ParseFixtures/Content/Fixtures";

fn extract(file: &Path, out: &Path) {
    pakrat()
        .args(["extract", s(file), "-o", s(out), "-q"])
        .assert()
        .success();
}

/// `pakrat list --imports --exports --json` of a legacy package, as
/// comparable rows (paths and classes; not offsets).
/// Imports as (path, class); exports as (path, class, serial size).
type Tables = (Vec<(String, String)>, Vec<(String, String, u64)>);

fn tables(file: &Path) -> Tables {
    let v = json_ok(&[
        "list",
        s(file),
        "--imports",
        "--exports",
        "--json",
        "--ue-version",
        "5.8",
    ]);
    let imports = v["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["path"].to_string(), i["class"].to_string()))
        .collect();
    let exports = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].to_string(),
                e["class"].to_string(),
                e["serial_size"].as_u64().unwrap(),
            )
        })
        .collect();
    (imports, exports)
}

#[test]
fn to_legacy_writes_what_the_legacy_cook_has() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (n, f) in fx.iter().enumerate() {
        let cook = tmp.path().join(format!("cook{n}"));
        extract(&f.legacy_pak, &cook);
        let out = tmp.path().join(format!("legacy{n}"));
        // 7 packages import /Engine content the corpus does not have: they
        // are refused by name, the other 90 written; exit status 1.
        let res = pakrat()
            .args([
                "zen",
                "to-legacy",
                s(&f.utoc),
                "-o",
                s(&out),
                "--ue-version",
                f.engine,
                "--json",
            ])
            .output()
            .unwrap();
        assert_eq!(res.status.code(), Some(1), "{}", f.label);
        let v: serde_json::Value = serde_json::from_slice(&res.stdout).unwrap();
        assert_eq!(v["selected"], 97, "{}", f.label);
        assert_eq!(v["converted"], 90, "{}", f.label);
        let errors = v["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 7);
        for e in errors {
            let e = e.as_str().unwrap();
            assert!(
                e.contains("/Engine/") && e.contains("none of the containers"),
                "{e}"
            );
        }
        for rel in BOTH {
            let ours = out.join(ZEN_ROOT).join(rel);
            let theirs = cook.join(rel);
            // Same tables (imports in order by path and class, exports by
            // path, class and size) and the very same export data.
            assert_eq!(tables(&ours), tables(&theirs), "{} {rel}", f.label);
            let uexp = |p: &Path| std::fs::read(p.with_extension("uexp")).unwrap();
            assert!(uexp(&ours) == uexp(&theirs), "{} {rel}: .uexp", f.label);
            pakrat()
                .args(["verify", s(&ours), "--ue-version", "5.8"])
                .assert()
                .success()
                .stdout(predicate::str::contains(": OK"));
        }
        // Bulk data comes out as the cook's .ubulk, byte for byte.
        let bulk = "Textures/T_Streaming.ubulk";
        assert!(
            std::fs::read(out.join(ZEN_ROOT).join(bulk)).unwrap()
                == std::fs::read(cook.join(bulk)).unwrap(),
            "{}: {bulk}",
            f.label
        );
    }
}

#[test]
fn to_legacy_asks_for_the_release_it_cannot_tell() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    pakrat()
        .args([
            "zen",
            "to-legacy",
            s(&fx[0].utoc),
            "-o",
            s(&tmp.path().join("o")),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ue-version"))
        .stderr(predicate::str::contains("97 of 97 packages"));
    assert!(!tmp.path().join("o").exists(), "nothing may be written");
}

#[test]
fn to_legacy_needs_the_global_container() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // The fixtures keep global.utoc one folder up, where it is found by
    // itself; a copy of the container alone has nothing to resolve with.
    let alone = tmp.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    for ext in ["utoc", "ucas"] {
        std::fs::copy(
            fx[0].utoc.with_extension(ext),
            alone.join(format!("C.{ext}")),
        )
        .unwrap();
    }
    pakrat()
        .args([
            "zen",
            "to-legacy",
            s(&alone.join("C.utoc")),
            "-o",
            s(&tmp.path().join("o")),
            "--ue-version",
            "5.8",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give it with --global"));
}

#[test]
fn to_legacy_one_package_by_glob() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let v = json_ok(&[
        "zen",
        "to-legacy",
        s(&fx[0].utoc),
        "/Game/Fixtures/Textures/T_Streaming",
        "-o",
        s(&out),
        "--ue-version",
        "5.8",
        "--json",
    ]);
    assert_eq!(v["converted"], 1);
    // A new folder is filled out of sight and renamed into place: the
    // result names the folder asked for, and no hidden folder is left.
    assert_eq!(
        v["output"].as_str().map(Path::new),
        Some(std::fs::canonicalize(&out).unwrap().as_path())
    );
    let beside: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["o"]);
    let names = common::file_names(&out);
    let want: Vec<String> = ["uasset", "ubulk", "uexp"]
        .iter()
        .map(|e| format!("{ZEN_ROOT}/Textures/T_Streaming.{e}"))
        .collect();
    assert_eq!(names, want);
    // Without --force the files are not overwritten.
    pakrat()
        .args([
            "zen",
            "to-legacy",
            s(&fx[0].utoc),
            "/Game/Fixtures/Textures/T_Streaming",
            "-o",
            s(&out),
            "--ue-version",
            "5.8",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "T_Streaming.uasset already exists",
        ))
        .stderr(predicate::str::contains("nothing was written"));
}

#[test]
fn from_legacy_gives_the_zen_cook_byte_for_byte() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for (n, f) in fx.iter().enumerate() {
        let cook = tmp.path().join(format!("cook{n}"));
        extract(&f.legacy_pak, &cook);
        let zen = tmp.path().join(format!("zen{n}"));
        extract(&f.utoc, &zen);
        let out = tmp.path().join(format!("out{n}"));
        let v = json_ok(&[
            "zen",
            "from-legacy",
            s(&cook),
            "-o",
            s(&out),
            "--ue-version",
            f.engine,
            "--global",
            s(&f.global),
            "--json",
        ]);
        assert_eq!(v["converted"], 5, "{}", f.label);
        assert_eq!(v["copied"], 1, "{}: the .ubulk", f.label);
        let made = files(&out);
        let keys: Vec<&String> = made.keys().collect();
        assert_eq!(keys.len(), 6, "{}: {keys:?}", f.label);
        for (rel, bytes) in &made {
            let cooked = std::fs::read(zen.join(ZEN_ROOT).join(rel)).unwrap();
            assert!(
                *bytes == cooked,
                "{} {rel}: differs from the zen cook",
                f.label
            );
        }
    }
}

#[test]
fn from_legacy_into_a_container_that_reads_everywhere() {
    let Some(fx) = fixtures() else { return };
    let f = &fx[0];
    let tmp = tempfile::tempdir().unwrap();
    let cook = tmp.path().join("cook");
    extract(&f.legacy_pak, &cook);
    let utoc = tmp.path().join("mod/Mod_P.utoc");
    let v = json_ok(&[
        "zen",
        "from-legacy",
        s(&cook),
        "--into",
        s(&utoc),
        "--global",
        s(&f.global),
        "--json",
    ]);
    assert_eq!(v["files"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["chunks"], 7, "5 packages, a .ubulk, the container header");
    pakrat()
        .args(["verify", s(&utoc)])
        .assert()
        .success()
        .stdout(predicate::str::contains("OK"));
    let p = json_ok(&["packages", s(&utoc), "--global", s(&f.global), "--json"]);
    assert_eq!(p["packages"].as_array().unwrap().len(), 5, "{p}");
    // The independent reader lists the same files.
    let tool = pakrat_testkit::corpus_dir()
        .unwrap()
        .join("../tools/utocref.py");
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .arg(&utoc)
        .output()
        .expect("python3 runs utocref.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut listed: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    listed.sort();
    let mut want: Vec<&str> = BOTH.to_vec();
    want.push("Textures/T_Streaming.ubulk");
    want.sort();
    assert_eq!(listed, want);
    // And back: to-legacy of the new container gives the cook's .uexp.
    // DA_AllProperties imports a string table the mod does not carry:
    // refused alone, found with the game's container given by --with.
    let back = tmp.path().join("back");
    pakrat()
        .args([
            "zen",
            "to-legacy",
            s(&utoc),
            "-o",
            s(&back),
            "--global",
            s(&f.global),
            "--ue-version",
            "5.8",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "/Game/Fixtures/StringTables/ST_Fixed",
        ))
        .stderr(predicate::str::contains("--with"));
    json_ok(&[
        "zen",
        "to-legacy",
        s(&utoc),
        "-o",
        s(&back),
        "--force",
        "--with",
        s(&f.utoc),
        "--global",
        s(&f.global),
        "--ue-version",
        "5.8",
        "--json",
    ]);
    for rel in BOTH {
        let uexp = rel.rsplit_once('.').unwrap().0.to_string() + ".uexp";
        assert!(
            std::fs::read(back.join(&uexp)).unwrap() == std::fs::read(cook.join(&uexp)).unwrap(),
            "{uexp}"
        );
    }
}

#[test]
fn from_legacy_refuses_a_lone_uexp_and_an_empty_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("A.uexp"), b"x").unwrap();
    pakrat()
        .args([
            "zen",
            "from-legacy",
            s(&src),
            "-o",
            s(&tmp.path().join("o")),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "A.uexp: a .uexp without its .uasset",
        ));
    std::fs::remove_file(src.join("A.uexp")).unwrap();
    std::fs::write(src.join("notes.txt"), b"x").unwrap();
    pakrat()
        .args([
            "zen",
            "from-legacy",
            s(&src),
            "-o",
            s(&tmp.path().join("o")),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no legacy packages"));
    pakrat()
        .args(["zen", "from-legacy", s(&src)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--into"));
}

/// UE 4.27 (issue 30 item 1): the zenpair UE 4.27 legacy twin of
/// TestModUI, placed under `<Project>/Content/`, becomes the engine's zen
/// package byte for byte (its summary names no package: the name comes
/// from the path). Without a `Content` folder, without `--ue-version`
/// (unversioned), and with the layouts not written (4.26, 5.2) it is
/// refused by name and nothing is written. (The UE 4.27 container:
/// `tests/zen_ue427_container.rs`.)
#[test]
fn from_legacy_writes_ue427_and_refuses_the_zen_layouts_it_does_not_write() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let dir = c.join("zenpair/retoc/UE4.27");
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("Proj/Content/_AssemblyStorm/TestMod");
    let loose = tmp.path().join("loose");
    for d in [&src, &loose] {
        std::fs::create_dir_all(d).unwrap();
        for f in ["TestModUI.uasset", "TestModUI.uexp"] {
            std::fs::copy(dir.join(f), d.join(f)).unwrap();
        }
    }
    let content = tmp.path().join("Proj/Content");
    let written = |o: &std::path::Path| std::fs::read_dir(o).map_or(0, |d| d.count());
    let out = tmp.path().join("o");
    pakrat()
        .args([
            "zen",
            "from-legacy",
            s(&content),
            "-o",
            s(&out),
            "--ue-version",
            "4.27",
        ])
        .assert()
        .success();
    let mine = std::fs::read(out.join("_AssemblyStorm/TestMod/TestModUI.uasset")).unwrap();
    assert!(
        mine == std::fs::read(dir.join("TestModUI.uzenasset")).unwrap(),
        "UE 4.27 TestModUI differs from its zen twin"
    );
    let o = tmp.path().join("o1");
    pakrat()
        .args([
            "zen",
            "from-legacy",
            s(&loose),
            "-o",
            s(&o),
            "--ue-version",
            "4.27",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("is not under a Content folder"));
    assert_eq!(written(&o), 0, "nothing written");
    // Unversioned: the release must be given.
    let o = tmp.path().join("o2");
    pakrat()
        .args(["zen", "from-legacy", s(&content), "-o", s(&o)])
        .assert()
        .failure()
        .stderr(predicate::str::contains("give the engine version"));
    assert_eq!(written(&o), 0, "nothing written");
    for v in ["4.26", "5.2"] {
        let o = tmp.path().join(format!("o{v}"));
        pakrat()
            .args([
                "zen",
                "from-legacy",
                s(&content),
                "-o",
                s(&o),
                "--ue-version",
                v,
            ])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "--ue-version {v}: pakrat writes the UE 4.27 and UE 5.3+ zen layouts only"
            )));
        assert_eq!(written(&o), 0, "nothing written");
    }
}

#[test]
fn legacy_package_info_list_verify() {
    let Some(fx) = fixtures() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // Tagged (versioned) needs no engine release.
    let cook = tmp.path().join("tagged");
    extract(&fx[0].legacy_pak, &cook);
    let t = cook.join("Textures/T_Streaming.uasset");
    let v = json_ok(&["info", s(&t), "--json"]);
    assert_eq!(v["package"], "/Game/Fixtures/Textures/T_Streaming");
    assert_eq!(v["exports"], 1);
    assert_eq!(v["imports"], 3);
    assert_eq!(v["layout"]["ue5"], 1018);
    assert_eq!(v["cooked"], true);
    let exts: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["ext"].as_str().unwrap())
        .collect();
    assert_eq!(exts, ["uasset", "uexp", "ubulk"]);
    let l = json_ok(&["list", s(&t), "--json"]);
    assert_eq!(
        l["entries"][0]["path"],
        "/Game/Fixtures/Textures/T_Streaming.T_Streaming"
    );
    assert_eq!(l["entries"][0]["class"], "/Script/Engine.Texture2D");
    let r = json_ok(&["verify", s(&t), "--json"]);
    assert_eq!(r["ok"], true);
    assert_eq!(r["exports_checked"], 1);
    assert!(r["resources_checked"].as_u64().unwrap() > 0, "{r}");
    // A .ubulk cut short is reported with the resource that no longer fits.
    let bulk = cook.join("Textures/T_Streaming.ubulk");
    let data = std::fs::read(&bulk).unwrap();
    std::fs::write(&bulk, &data[..data.len() / 2]).unwrap();
    pakrat()
        .args(["verify", s(&t)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("lies outside the .ubulk"));
    // A .uexp cut short: the export data does not fit.
    let uexp = cook.join("Textures/T_Streaming.uexp");
    let data = std::fs::read(&uexp).unwrap();
    std::fs::write(&uexp, &data[..100]).unwrap();
    pakrat()
        .args(["verify", s(&t)])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("lies outside the .uexp"));
    // Unversioned needs --ue-version, and says so.
    let cook = tmp.path().join("unversioned");
    extract(&fx[1].legacy_pak, &cook);
    let u = cook.join("Maps/Empty.umap");
    pakrat()
        .args(["info", s(&u)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ue-version"));
    let v = json_ok(&["info", s(&u), "--ue-version", "5.8", "--json"]);
    assert_eq!(v["exports"], 5);
    pakrat()
        .args(["info", s(&u), "--ue-version", "9.1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a known engine release"));
    pakrat()
        .args(["extract", s(&u), "-o", s(&tmp.path().join("x"))])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zen from-legacy"));
}

#[test]
fn from_legacy_of_the_patch_fixtures_gives_their_zen_cook() {
    // The patch fixtures hold DA_PatchTarget / DA_PatchReferencer cooked as
    // legacy (Pak) and as zen (IoStore), base and patch, UE 5.8 and 6.0.
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut same = 0;
    for engine in ["UE5_8", "UE6_0"] {
        for suffix in ["", "_0_P"] {
            let d = c.join(format!("iostore/cue4parse/{engine}/Patch"));
            let tag = format!("{engine}{suffix}");
            let legacy = tmp.path().join(format!("l{tag}"));
            extract(
                &d.join(format!("Pak/CUE4ParseFixtures-PatchBase{suffix}.pak")),
                &legacy,
            );
            let zen = tmp.path().join(format!("z{tag}"));
            extract(
                &d.join(format!("IoStore/CUE4ParseFixtures-PatchBase{suffix}.utoc")),
                &zen,
            );
            let out = tmp.path().join(format!("o{tag}"));
            json_ok(&["zen", "from-legacy", s(&legacy), "-o", s(&out), "--json"]);
            for (rel, bytes) in files(&out) {
                let cooked = std::fs::read(
                    zen.join("CUE4ParseFixtures/Content/PatchFixtures")
                        .join(&rel),
                )
                .unwrap();
                assert!(bytes == cooked, "{tag} {rel}");
                same += 1;
            }
        }
    }
    assert_eq!(same, 6);
}

#[test]
fn from_legacy_into_writes_the_engines_container_format() {
    // --ue-version decides the TOC, container header and companion pak
    // versions (pakrat_iostore::engine): UE 5.4 with a real 5.4 cook (from
    // retoc's tests), 5.8 and 6.0 with the CUE4Parse cooks.
    use pakrat_iostore::container_header::HeaderForm;
    let Some(fx) = fixtures() else { return };
    let c = pakrat_testkit::corpus_dir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let l54 = tmp.path().join("l54");
    std::fs::create_dir_all(&l54).unwrap();
    for n in ["Randy.uasset", "Randy.uexp"] {
        std::fs::copy(c.join("zenpair/retoc/UE5.4").join(n), l54.join(n)).unwrap();
    }
    let mut cases = vec![("5.4", l54, 6u8, HeaderForm::Ue5(3), 11u32)];
    for (n, f) in fx
        .iter()
        .enumerate()
        .filter(|(_, f)| f.label.ends_with("Unversioned"))
    {
        let cook = tmp.path().join(format!("cook{n}"));
        extract(&f.legacy_pak, &cook);
        let (toc, pak) = if f.engine == "6.0" { (10, 15) } else { (8, 12) };
        cases.push((f.engine, cook, toc, HeaderForm::Ue5(5), pak));
    }
    let keys = pakrat_codec::KeyRing::default();
    for (engine, src, toc, header, pak) in cases {
        let utoc = tmp.path().join(format!("mod{engine}/Mod_P.utoc"));
        pakrat()
            .args([
                "zen",
                "from-legacy",
                s(&src),
                "--into",
                s(&utoc),
                "--ue-version",
                engine,
            ])
            .assert()
            .success();
        let con = pakrat_iostore::Container::open(&utoc, &keys).unwrap();
        assert_eq!(con.toc().header.version, toc, "{engine}");
        let i = con
            .find_by_type(pakrat_iostore::ChunkType::ContainerHeader)
            .unwrap();
        let h = pakrat_iostore::container_header::parse(&con.read_chunk(i).unwrap()).unwrap();
        assert_eq!(h.form, header, "{engine}");
        let p = pakrat_pak::Pak::open(utoc.with_extension("pak"), &keys).unwrap();
        assert_eq!(p.footer.version, pak, "{engine}");
        // The independent reader reads it.
        let out = std::process::Command::new("python3")
            .arg(c.join("../tools/utocref.py"))
            .arg(&utoc)
            .output()
            .expect("python3 runs utocref.py");
        assert!(out.status.success(), "{engine}");
        assert!(
            String::from_utf8_lossy(&out.stdout).starts_with(&format!("utoc v{toc} ")),
            "{engine}"
        );
    }
}

/// The `.utoc`, `.ucas` and `.pak` beside `utoc`.
fn container_bytes(utoc: &Path) -> Vec<Vec<u8>> {
    ["utoc", "ucas", "pak"]
        .iter()
        .map(|e| std::fs::read(utoc.with_extension(e)).unwrap())
        .collect()
}

#[test]
fn from_legacy_into_converting_while_writing_gives_the_same_container() {
    // `--into` converts a group of packages while the ones before are
    // written (issue 31 item 18); `--registry` takes the path that converts
    // every package first, then plans the folder. Both containers are the
    // same, byte for byte, also when bulk data comes before its package in
    // path order (`T_Streaming.ubulk` before `T_Streaming.umap`: a UE5
    // package's name is its summary's, not its file's).
    let Some(fx) = fixtures() else { return };
    let f = fx
        .iter()
        .find(|f| f.label.ends_with("Unversioned") && f.engine == "5.8")
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cook = tmp.path().join("cook");
    extract(&f.legacy_pak, &cook);
    let tex = walkdir(&cook)
        .find(|p| p.file_name().is_some_and(|n| n == "T_Streaming.uasset"))
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    for ext in ["uasset", "uexp"] {
        let from = tex.join(format!("T_Streaming.{ext}"));
        let to = if ext == "uasset" { "umap" } else { ext };
        std::fs::rename(&from, tex.join(format!("T_Streaming2.{to}"))).unwrap();
    }
    std::fs::rename(
        tex.join("T_Streaming.ubulk"),
        tex.join("T_Streaming2.ubulk"),
    )
    .unwrap();
    let mut made = Vec::new();
    for (n, extra) in [(0, None), (1, Some("--registry"))] {
        let utoc = tmp.path().join(format!("mod{n}/Mod_P.utoc"));
        let mut args = vec![
            "zen",
            "from-legacy",
            s(&cook),
            "--into",
            s(&utoc),
            "--ue-version",
            "5.8",
        ];
        args.extend(extra);
        pakrat().args(&args).assert().success();
        made.push(container_bytes(&utoc));
    }
    assert!(
        made[0] == made[1],
        "the two paths wrote different containers"
    );
    // The bulk data is its package's (the chunk ids agree).
    let utoc = tmp.path().join("mod0/Mod_P.utoc");
    pakrat()
        .args(["verify", s(&utoc)])
        .assert()
        .success()
        .stdout(predicate::str::contains("OK"));

    // Two packages that do not convert: both are listed, nothing is written.
    let mut bad = Vec::new();
    for entry in walkdir(&cook) {
        if entry.extension().is_some_and(|e| e == "uexp") && bad.len() < 2 {
            std::fs::write(&entry, b"short").unwrap();
            bad.push(entry);
        }
    }
    let utoc = tmp.path().join("mod2/Mod_P.utoc");
    let out = pakrat()
        .args([
            "zen",
            "from-legacy",
            s(&cook),
            "--into",
            s(&utoc),
            "--ue-version",
            "5.8",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 of 5 packages did not convert; no container was written"),
        "{err}"
    );
    for b in &bad {
        let stem = b.file_stem().unwrap().to_string_lossy();
        assert!(err.contains(&*stem), "{stem} is not listed: {err}");
    }
    assert!(
        !utoc.exists() && !utoc.with_extension("ucas").exists(),
        "{err}"
    );
}

/// Every file below `dir`, sorted (the shared [`file_names`], as paths).
fn walkdir(dir: &Path) -> impl Iterator<Item = std::path::PathBuf> + '_ {
    file_names(dir).into_iter().map(move |r| dir.join(r))
}
