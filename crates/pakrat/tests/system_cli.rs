//! CLI tests for the package-system commands (`deps`, `scan`, `flags`,
//! `cache list`, `cache restore`) on game trees and cache folders assembled
//! in temporary folders from corpus packages (never copied into the repo).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

mod common;
use common::{copy, pakrat, run_json};
use pakrat_testkit::corpus_dir as corpus;

/// The manifest detail of a corpus file.
fn detail(local: &str) -> String {
    pakrat_testkit::manifest()
        .unwrap()
        .into_iter()
        .find(|e| e.local_path == local)
        .unwrap_or_else(|| panic!("{local} not in MANIFEST.tsv"))
        .detail
}

/// Top-level package imports of a corpus file, read with the package reader
/// (and its import count checked against the manifest first).
fn imports_of(corpus: &Path, local: &str) -> Vec<String> {
    let data = fs::read(corpus.join(local)).unwrap();
    let pkg = pakrat_classic::Package::parse(&data).unwrap();
    let want: usize = pakrat_testkit::detail_value(&detail(local), "imports")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(pkg.imports.len(), want, "{local}: import count vs MANIFEST");
    pkg.imported_packages()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

const UT99_INI: &str =
    "[URL]\r\nMap=Index.unr\r\n\r\n[Core.System]\r\nPurgeCacheDays=30\r\nSavePath=../Save\r\n\
CachePath=../Cache\r\nCacheExt=.uxx\r\nPaths[0]=../System/*.u\r\nPaths[1]=../Maps/*.unr\r\n\
Paths[2]=../Textures/*.utx\r\nPaths[3]=../Sounds/*.uax\r\nPaths[4]=../Music/*.umx\r\n";

/// A UT99-style tree. On purpose: UWindow.u is left out (missing), `Core.u`
/// is stored as `core.u` and the Textures folder as `textures` (the engine
/// matches names case-insensitively), and Music/Logo.umx collides with
/// Textures/Logo.utx.
fn ut99_tree(c: &Path, root: &Path) {
    let ue1 = c.join("ue1");
    copy(&ue1.join("Core.u"), &root.join("System/core.u"));
    for f in ["Engine.u", "IpDrv.u", "UMenu.u", "ACEv10f_S.u", "IACEv10.u"] {
        copy(&ue1.join(f), &root.join("System").join(f));
    }
    copy(&ue1.join("Entry.unr"), &root.join("Maps/Entry.unr"));
    copy(&ue1.join("Logo.utx"), &root.join("textures/Logo.utx"));
    copy(
        &ue1.join("LadrArrow.utx"),
        &root.join("textures/LadrArrow.utx"),
    );
    copy(&ue1.join("Cannon.umx"), &root.join("Music/Logo.umx"));
    fs::write(root.join("System/UnrealTournament.ini"), UT99_INI).unwrap();
}

fn node<'a>(g: &'a Value, name: &str) -> &'a Value {
    g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["name"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case(name))
        })
        .unwrap_or_else(|| panic!("no node {name} in {g:#}"))
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn file_of(g: &Value, name: &str) -> Option<PathBuf> {
    node(g, name)["file"].as_str().map(PathBuf::from)
}

#[test]
fn deps_of_a_map_resolves_to_the_copied_packages() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    ut99_tree(&c, &root);
    let (code, g) = run_json(&[
        "deps",
        "Entry",
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1, "missing packages make exit code 1");
    assert!(g["game"]["ini"]
        .as_str()
        .unwrap()
        .ends_with("UnrealTournament.ini"));

    // The root's children are exactly its import table's packages.
    let want = imports_of(&c, "ue1/Entry.unr");
    let mut want_set: Vec<String> = want.iter().map(|s| s.to_ascii_lowercase()).collect();
    want_set.sort();
    let mut got: Vec<String> = strs(&node(&g, "Entry")["imports"])
        .iter()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    got.sort();
    assert_eq!(got, want_set);
    assert_eq!(want_set, ["botpack", "core", "credits", "engine", "logo"]);

    // Each import resolves to the file we copied, found by the engine's rules.
    assert_eq!(file_of(&g, "Entry").unwrap(), root.join("Maps/Entry.unr"));
    assert_eq!(file_of(&g, "Engine").unwrap(), root.join("System/Engine.u"));
    // `Core` is stored as core.u: found by the case-insensitive pass.
    assert_eq!(file_of(&g, "Core").unwrap(), root.join("System/core.u"));
    assert_eq!(
        node(&g, "Core")["via"],
        serde_json::json!({"path_no_case": 0})
    );
    // `../Textures` is the folder `textures`; Paths[2] (*.utx) comes before
    // Paths[4] (*.umx), so the colliding name resolves to the texture package.
    assert_eq!(file_of(&g, "Logo").unwrap(), root.join("textures/Logo.utx"));
    // Engine's own imports are followed transitively.
    let engine_imports = strs(&node(&g, "Engine")["imports"]);
    assert!(
        engine_imports.iter().any(|s| s == "Core"),
        "{engine_imports:?}"
    );

    // Missing packages, with who needs them (Fire comes from Logo.utx's imports).
    let missing: Vec<(String, Vec<String>)> = g["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                strs(&m["needed_by"]),
            )
        })
        .collect();
    let logo_imports = imports_of(&c, "ue1/Logo.utx");
    assert!(logo_imports.iter().any(|s| s == "Fire"), "{logo_imports:?}");
    let mut names: Vec<&str> = missing.iter().map(|m| m.0.as_str()).collect();
    names.sort();
    assert_eq!(names, ["Botpack", "Fire", "credits"]);
    for (n, by) in &missing {
        let expect = if n == "Fire" { "Logo" } else { "Entry" };
        assert_eq!(by, &[expect.to_string()], "{n}");
    }
}

#[test]
fn deps_reports_a_package_removed_on_purpose_and_draws_dot() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    ut99_tree(&c, &root);
    // ACEv10f_S imports IACEv10, which imports UWindow (left out on purpose).
    let umenu_imports = imports_of(&c, "ue1/IACEv10.u");
    assert!(umenu_imports.iter().any(|s| s == "UWindow"));
    let sys = root.join("System/ACEv10f_S.u");
    let (code, g) = run_json(&[
        "deps",
        sys.to_str().unwrap(),
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1);
    let uw = g["missing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "UWindow")
        .expect("UWindow reported missing");
    assert_eq!(strs(&uw["needed_by"]), ["IACEv10"]);
    assert_eq!(
        file_of(&g, "IACEv10").unwrap(),
        root.join("System/IACEv10.u")
    );
    assert_eq!(file_of(&g, "IpDrv").unwrap(), root.join("System/IpDrv.u"));
    // Put it back: no longer missing.
    copy(&c.join("ue1/UWindow.u"), &root.join("System/UWindow.u"));
    let (_, g2) = run_json(&[
        "deps",
        "ACEv10f_S",
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        file_of(&g2, "UWindow").unwrap(),
        root.join("System/UWindow.u")
    );
    assert!(!g2["missing"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["name"] == "UWindow"));

    let out = pakrat()
        .args([
            "deps",
            "ACEv10f_S",
            "--game-dir",
            root.to_str().unwrap(),
            "--dot",
        ])
        .output()
        .unwrap();
    let dot = String::from_utf8(out.stdout).unwrap();
    assert!(dot.starts_with("digraph deps {"), "{dot}");
    assert!(dot.contains("label=\"ACEv10f_C\", color=red"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn deps_with_a_cycle_terminates_and_reports_it() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    // UWindow imports Core and Engine; stored as `Core.u` it makes
    // Engine -> Core -> Engine a cycle.
    copy(&c.join("ue1/Engine.u"), &root.join("System/Engine.u"));
    copy(&c.join("ue1/UWindow.u"), &root.join("System/Core.u"));
    fs::write(root.join("System/UnrealTournament.ini"), UT99_INI).unwrap();
    let (code, g) = run_json(&[
        "deps",
        "Engine",
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 1, "a cycle is reported as a finding");
    assert_eq!(g["cycles"], serde_json::json!([["Engine", "Core"]]));
    assert!(g["missing"].as_array().unwrap().is_empty());
    assert_eq!(g["nodes"].as_array().unwrap().len(), 2);

    let (code, lines) = scan_lines(&root);
    assert_eq!(code, 1);
    let cyc: Vec<&Value> = lines.iter().filter(|l| l["type"] == "cycle").collect();
    assert_eq!(cyc.len(), 1);
    let mut members = strs(&cyc[0]["packages"]);
    members.sort();
    assert_eq!(members, ["Core", "Engine"]);
}

fn scan_lines(dir: &Path) -> (i32, Vec<Value>) {
    let out = pakrat()
        .args(["scan", dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect();
    (out.status.code().unwrap_or(-1), lines)
}

#[test]
fn scan_finds_collision_duplicate_missing_and_reads_headers() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    ut99_tree(&c, &root);
    // UE2 packages side by side: the same file name with two different GUIDs.
    copy(
        &c.join("ue2/LumpysRPG.u"),
        &root.join("Mods/New/LumpysRPG.u"),
    );
    copy(
        &c.join("ue2/LumpysRPG_old33548e6.u"),
        &root.join("Mods/Old/LumpysRPG.u"),
    );
    fs::write(root.join("Mods/readme.txt"), "not a package").unwrap();
    fs::write(root.join("Mods/broken.u"), "not a package either").unwrap();

    let (code, lines) = scan_lines(&root);
    assert_eq!(code, 1);
    let of = |kind: &str| -> Vec<&Value> { lines.iter().filter(|l| l["type"] == kind).collect() };
    let pkgs = of("package");
    assert_eq!(pkgs.len(), 12);
    // Header facts agree with MANIFEST.tsv.
    for (rel, local) in [
        ("Maps/Entry.unr", "ue1/Entry.unr"),
        ("System/IpDrv.u", "ue1/IpDrv.u"),
        ("Mods/Old/LumpysRPG.u", "ue2/LumpysRPG_old33548e6.u"),
    ] {
        let p = pkgs
            .iter()
            .find(|p| p["path"] == rel)
            .unwrap_or_else(|| panic!("{rel}"));
        let d = detail(local);
        let v = pakrat_testkit::detail_value(&d, "package").unwrap_or("");
        let _ = v;
        assert!(
            d.contains(&format!("package v{} lic{}", p["version"], p["licensee"])),
            "{d} vs {p}"
        );
        let flags = pakrat_testkit::detail_value(&d, "flags").unwrap();
        assert_eq!(format!("{:#x}", p["flags"].as_u64().unwrap()), flags);
        assert_eq!(p["guid"].as_str().unwrap().len(), 32);
    }
    // The collision made on purpose.
    let col = of("collision");
    assert_eq!(col.len(), 1, "{col:?}");
    assert_eq!(col[0]["name"], "Logo");
    let mut files = strs(&col[0]["files"]);
    files.sort();
    assert_eq!(files, ["Music/Logo.umx", "textures/Logo.utx"]);
    // The duplicate made on purpose.
    let dup = of("duplicate");
    assert_eq!(dup.len(), 1, "{dup:?}");
    assert_eq!(dup[0]["name"], "LumpysRPG.u");
    let guids: Vec<&str> = dup[0]["copies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[1].as_str().unwrap())
        .collect();
    assert_ne!(guids[0], guids[1]);
    // UWindow is missing, needed by IACEv10 and UMenu.
    let uw = of("missing")
        .into_iter()
        .find(|m| m["name"] == "UWindow")
        .expect("UWindow missing");
    let mut by = strs(&uw["needed_by"]);
    by.sort();
    assert_eq!(by, ["IACEv10", "UMenu"]);
    // A non-package with a package extension is an error; a .txt is ignored.
    let errs = of("error");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0]["path"], "Mods/broken.u");
    let sum = of("summary");
    assert_eq!(sum[0]["packages"], 12);
    assert_eq!(sum[0]["files"], 15);
    assert_eq!(sum[0]["cycles"], 0);
}

#[test]
fn scan_whole_corpus_counts_match_manifest() {
    let Some(c) = corpus() else { return };
    let (_, lines) = scan_lines(&c.join("ue2"));
    let pkgs: Vec<&Value> = lines.iter().filter(|l| l["type"] == "package").collect();
    let rows = pakrat_testkit::entries("ue2").unwrap();
    assert_eq!(pkgs.len(), rows.len());
    for r in rows {
        let name = r.local_path.trim_start_matches("ue2/");
        let p = pkgs
            .iter()
            .find(|p| p["path"] == name)
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            r.detail
                .starts_with(&format!("package v{} lic{} ", p["version"], p["licensee"])),
            "{name}: {} vs {p}",
            r.detail
        );
    }
    let (_, lines) = scan_lines(&c.join("ue1"));
    let errs: Vec<&Value> = lines.iter().filter(|l| l["type"] == "error").collect();
    let negatives = pakrat_testkit::entries("ue1")
        .unwrap()
        .into_iter()
        .filter(|e| e.is_negative())
        .count();
    assert_eq!(errs.len(), negatives, "only the FUZZ_ files fail: {errs:?}");
}

/// GUID text form computed here from the raw header bytes, independently of
/// pakrat_io::Guid: four little-endian u32 words, `%08X` each.
fn guid_name(data: &[u8]) -> String {
    let ver = u16::from_le_bytes([data[4], data[5]]);
    let g: [u8; 16] = if ver >= 68 {
        data[36..52].try_into().unwrap()
    } else {
        // Heritage table: count at 36, offset at 40; the last GUID is the package's.
        let n = u32::from_le_bytes(data[36..40].try_into().unwrap()) as usize;
        let off = u32::from_le_bytes(data[40..44].try_into().unwrap()) as usize;
        data[off + 16 * (n - 1)..off + 16 * n].try_into().unwrap()
    };
    g.chunks(4)
        .map(|w| format!("{:08X}", u32::from_le_bytes(w.try_into().unwrap())))
        .collect()
}

struct CacheFixture {
    _t: tempfile::TempDir,
    cache: PathBuf,
    game: PathBuf,
    logo: String,
    cannon: String,
    ipdrv: String,
    ladr: String,
}

fn cache_fixture(c: &Path) -> CacheFixture {
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("UT/Cache");
    let game = t.path().join("UT");
    fs::create_dir_all(&cache).unwrap();
    fs::create_dir_all(game.join("System")).unwrap();
    fs::write(game.join("System/UnrealTournament.ini"), UT99_INI).unwrap();
    let put = |local: &str| -> String {
        let data = fs::read(c.join(local)).unwrap();
        let g = guid_name(&data);
        fs::write(cache.join(format!("{g}.uxx")), &data).unwrap();
        g
    };
    let logo = put("ue1/Logo.utx");
    let cannon = put("ue1/Cannon.umx");
    let ipdrv = put("ue1/IpDrv.u");
    let ladr = put("ue1/LadrArrow.utx"); // orphan: no cache.ini entry
    let liquids = put("ue1/Liquids.utx"); // v61: GUID from the heritage table
                                          // A file named with a GUID that is not the package's.
    let wrong = "0123456789ABCDEF0123456789ABCDEF";
    fs::copy(
        c.join("ue1/Creative.utx"),
        cache.join(format!("{wrong}.uxx")),
    )
    .unwrap();
    let ini = format!(
        "[Cache]\r\n{logo}=Logo.utx\r\n{cannon}=Cannon.umx\r\n{ipdrv}=IpDrv.u\r\n\
         {liquids}=../../../Evil.utx\r\nFFFFFFFF00000000FFFFFFFF00000000=Gone.u\r\n\
         {wrong}=Creative.utx\r\nnot-a-guid=Bad.u\r\n"
    );
    fs::write(cache.join("cache.ini"), ini).unwrap();
    CacheFixture {
        _t: t,
        cache,
        game,
        logo,
        cannon,
        ipdrv,
        ladr,
    }
}

#[test]
fn cache_list_checks_names_guids_orphans_and_missing_files() {
    let Some(c) = corpus() else { return };
    let f = cache_fixture(&c);
    // Known fact (classic.md §5): bytes 0EE14B4F 9179D611 -> 4F4BE10E11D67991.
    assert_eq!(
        guid_name(&{
            let mut d = vec![0u8; 52];
            d[4] = 69;
            d[36..44].copy_from_slice(&[0x0E, 0xE1, 0x4B, 0x4F, 0x91, 0x79, 0xD6, 0x11]);
            d
        })[..16],
        *"4F4BE10E11D67991"
    );
    let (code, r) = run_json(&["cache", "list", f.cache.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1);
    let items = r["items"].as_array().unwrap();
    let status = |key: &str| -> String {
        items
            .iter()
            .find(|i| i["key"] == key || (i["key"].is_null() && i["guid"] == key))
            .unwrap_or_else(|| panic!("no item {key}: {r:#}"))["status"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(status(&f.logo), "ok");
    assert_eq!(status(&f.cannon), "ok");
    assert_eq!(status(&f.ipdrv), "ok");
    assert_eq!(status(&f.ladr), "orphan");
    assert_eq!(status("FFFFFFFF00000000FFFFFFFF00000000"), "no_file");
    assert_eq!(status("0123456789ABCDEF0123456789ABCDEF"), "guid_mismatch");
    assert_eq!(status("not-a-guid"), "bad_key");
    let evil = items
        .iter()
        .find(|i| i["name"] == "../../../Evil.utx")
        .unwrap();
    assert_eq!(evil["status"], "unsafe_name");
    // The package inside has the GUID of its name.
    let logo = items.iter().find(|i| i["key"] == f.logo.as_str()).unwrap();
    assert_eq!(logo["package_guid"], f.logo.as_str());
    assert_eq!(items.len(), 8);
}

#[test]
fn cache_restore_copies_back_safely() {
    let Some(c) = corpus() else { return };
    let f = cache_fixture(&c);
    let game = f.game.to_str().unwrap();
    let cache = f.cache.to_str().unwrap();
    // Something different is in the way of Logo.utx (any case: `textures`).
    copy(&c.join("ue1/Faces.utx"), &f.game.join("textures/logo.utx"));

    // Dry run writes nothing.
    let before = listing(&f.game);
    let (code, r) = run_json(&[
        "cache",
        "restore",
        cache,
        "--game-dir",
        game,
        "--dry-run",
        "--json",
    ]);
    assert_eq!(code, 1, "skips make exit code 1");
    assert_eq!(r["dry_run"], true);
    assert_eq!(listing(&f.game), before);

    let (_, r) = run_json(&["cache", "restore", cache, "--game-dir", game, "--json"]);
    let action = |name: &str| -> (String, Option<String>) {
        let i = r["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .unwrap();
        (
            i["action"].as_str().unwrap().to_string(),
            i["dest"].as_str().map(String::from),
        )
    };
    assert_eq!(action("Cannon.umx").0, "copy");
    assert_eq!(action("IpDrv.u").0, "copy");
    assert_eq!(action("Logo.utx").0, "skip");
    assert_eq!(action("../../../Evil.utx"), ("skip".into(), None));
    assert_eq!(action("Gone.u").0, "skip");
    assert_eq!(action("Creative.utx").0, "skip");
    // Folders come from the Paths list; bytes are the cached package's.
    assert_eq!(
        fs::read(f.game.join("Music/Cannon.umx")).unwrap(),
        fs::read(c.join("ue1/Cannon.umx")).unwrap()
    );
    assert_eq!(
        fs::read(f.game.join("System/IpDrv.u")).unwrap(),
        fs::read(c.join("ue1/IpDrv.u")).unwrap()
    );
    // The different package was left alone; nothing escaped the game folder.
    assert_eq!(
        fs::read(f.game.join("textures/logo.utx")).unwrap(),
        fs::read(c.join("ue1/Faces.utx")).unwrap()
    );
    assert!(!listing(f._t.path()).iter().any(|p| p.ends_with("Evil.utx")));
    assert!(!f._t.path().parent().unwrap().join("Evil.utx").exists());

    // Second run: already there; --force replaces the different Logo.
    let (_, r2) = run_json(&[
        "cache",
        "restore",
        cache,
        "--game-dir",
        game,
        "--force",
        "--json",
    ]);
    let act2 = |name: &str| {
        r2["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .unwrap()["action"]
            .clone()
    };
    assert_eq!(act2("Cannon.umx"), "already_there");
    assert_eq!(act2("Logo.utx"), "replace");
    assert_eq!(
        fs::read(f.game.join("textures/logo.utx")).unwrap(),
        fs::read(c.join("ue1/Logo.utx")).unwrap()
    );
    assert!(!f.game.join("textures/Logo.utx").exists() || cfg!(windows));
}

fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn flags_round_trip_changes_only_the_flag_word() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("IpDrv.u");
    copy(&c.join("ue1/IpDrv.u"), &p);
    let orig = fs::read(&p).unwrap();
    let manifest_flags = pakrat_testkit::detail_value(&detail("ue1/IpDrv.u"), "flags")
        .unwrap()
        .to_string();
    let path = p.to_str().unwrap();

    let (code, r) = run_json(&["flags", path, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(
        format!("{:#x}", r["after"]["flags"].as_u64().unwrap()),
        manifest_flags
    );
    assert_eq!(
        strs(&r["after"]["names"]),
        ["AllowDownload", "ServerSideOnly"]
    );

    let (code, r) = run_json(&[
        "flags",
        path,
        "--set",
        "AllowDownload=false",
        "--set",
        "ClientOptional=true",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(r["changed"], true);
    assert_eq!(r["after"]["flags"], 0x6);
    let new = fs::read(&p).unwrap();
    assert_eq!(new.len(), orig.len());
    let diff: Vec<usize> = (0..orig.len()).filter(|&i| orig[i] != new[i]).collect();
    assert!(
        diff.iter().all(|&i| (8..12).contains(&i)),
        "bytes changed outside the flag word: {diff:?}"
    );
    assert_eq!(u32::from_le_bytes(new[8..12].try_into().unwrap()), 0x6);
    let (_, r) = run_json(&["flags", path, "--json"]);
    assert_eq!(r["after"]["flags"], 0x6);
    // No leftover temp file.
    assert_eq!(fs::read_dir(t.path()).unwrap().count(), 1);

    // .upkg comparison.
    let upkg = t.path().join("IpDrv.upkg");
    fs::write(
        &upkg,
        "[Flags]\r\nAllowDownload=False\r\nClientOptional=True\r\nServerSideOnly=True\r\n",
    )
    .unwrap();
    let (code, r) = run_json(&["flags", path, "--upkg", upkg.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{r:#}");
    fs::write(
        &upkg,
        "[Flags]\r\nAllowDownload=True\r\nServerSideOnly=True\r\n",
    )
    .unwrap();
    let (code, r) = run_json(&["flags", path, "--upkg", upkg.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1);
    let rows = r["upkg"].as_array().unwrap();
    assert_eq!(rows[0]["flag"], "AllowDownload");
    assert_eq!(rows[0]["matches"], false);
    assert_eq!(rows[1]["matches"], true);

    // Setting back restores the original bytes exactly.
    let (_, _) = run_json(&[
        "flags",
        path,
        "--set",
        "AllowDownload=true",
        "--set",
        "ClientOptional=false",
        "--json",
    ]);
    assert_eq!(fs::read(&p).unwrap(), orig);

    // deps on a file that is not a package is an error, not a finding.
    pakrat()
        .args(["deps", path, "--game-dir", t.path().to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("MISSING Core  needed by IpDrv"));
    let junk0 = t.path().join("junk0.u");
    fs::write(&junk0, b"not a package").unwrap();
    pakrat()
        .args([
            "deps",
            junk0.to_str().unwrap(),
            "--game-dir",
            t.path().to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("package tag"));

    // Bad input: unknown flag, non-package; the file is untouched.
    pakrat()
        .args(["flags", path, "--set", "Bogus=true"])
        .assert()
        .code(2);
    let junk = t.path().join("junk.u");
    fs::write(&junk, b"hello world, not a package at all").unwrap();
    pakrat()
        .args([
            "flags",
            junk.to_str().unwrap(),
            "--set",
            "AllowDownload=false",
        ])
        .assert()
        .code(2);
    assert_eq!(
        fs::read(&junk).unwrap(),
        b"hello world, not a package at all"
    );
}

#[test]
fn ue2_tree_with_repeated_paths() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT2004");
    copy(&c.join("ue2/ut2004_Core.u"), &root.join("System/Core.u"));
    copy(
        &c.join("ue2/ut2004_Engine.u"),
        &root.join("System/Engine.u"),
    );
    copy(&c.join("ue2/XGame.u"), &root.join("System/XGame.u"));
    copy(&c.join("ue2/Entry.ut2"), &root.join("Maps/Entry.ut2"));
    fs::write(
        root.join("System/UT2004.ini"),
        "[Core.System]\nCachePath=../Cache\nCacheExt=.uxx\nPaths=../System/*.u\nPaths=../Maps/*.ut2\n\
         Paths=../Textures/*.utx\nPaths=../StaticMeshes/*.usx\n",
    )
    .unwrap();
    let (_, g) = run_json(&[
        "deps",
        "Entry",
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(g["game"]["paths"].as_array().unwrap().len(), 4);
    let want = imports_of(&c, "ue2/Entry.ut2");
    assert_eq!(strs(&node(&g, "Entry")["imports"]), want);
    assert_eq!(file_of(&g, "XGame").unwrap(), root.join("System/XGame.u"));
    assert_eq!(file_of(&g, "Core").unwrap(), root.join("System/Core.u"));
    // XGame's own imports that are absent are reported with who needs them.
    let xgame_imports = imports_of(&c, "ue2/XGame.u");
    let missing: Vec<String> = g["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    for imp in &xgame_imports {
        let present = ["Engine", "Core", "XGame"]
            .iter()
            .any(|p| p.eq_ignore_ascii_case(imp));
        assert_eq!(missing.contains(imp), !present, "{imp}");
    }
    // --ini picks another file.
    fs::write(
        root.join("other.ini"),
        "[Core.System]\nPaths=../Maps/*.ut2\n",
    )
    .unwrap();
    let (_, g) = run_json(&[
        "deps",
        "Entry",
        "--game-dir",
        root.to_str().unwrap(),
        "--ini",
        root.join("other.ini").to_str().unwrap(),
        "--json",
    ]);
    assert!(
        file_of(&g, "Engine").is_none(),
        "System is not in this ini's Paths"
    );
}

#[test]
fn download_cache_satisfies_imports_by_original_name() {
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("UT");
    copy(&c.join("ue1/IACEv10.u"), &root.join("System/IACEv10.u"));
    copy(&c.join("ue1/Engine.u"), &root.join("System/Engine.u"));
    copy(&c.join("ue1/Core.u"), &root.join("System/Core.u"));
    fs::write(root.join("System/UnrealTournament.ini"), UT99_INI).unwrap();
    let data = fs::read(c.join("ue1/UWindow.u")).unwrap();
    let g = guid_name(&data);
    fs::create_dir_all(root.join("Cache")).unwrap();
    fs::write(root.join(format!("Cache/{g}.uxx")), &data).unwrap();
    fs::write(
        root.join("Cache/cache.ini"),
        format!("[Cache]\r\n{g}=UWindow.u\r\n"),
    )
    .unwrap();

    // deps: found after Paths, through cache.ini.
    let (_, d) = run_json(&[
        "deps",
        "IACEv10",
        "--game-dir",
        root.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        file_of(&d, "UWindow").unwrap(),
        root.join(format!("Cache/{g}.uxx"))
    );
    assert_eq!(node(&d, "UWindow")["via"], "cache_ini");
    let missing: Vec<&str> = d["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(missing, ["UWeb"]);

    // scan: the cache file counts under its original name.
    let (_, lines) = scan_lines(&root);
    let cached = lines
        .iter()
        .find(|l| l["type"] == "package" && l["cached_as"] == "UWindow.u")
        .expect("cache file listed");
    assert_eq!(cached["name"], "UWindow");
    assert_eq!(cached["guid"], g.as_str());
    let missing: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "missing")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(missing, ["UWeb"]);
}

/// Issue 16: `flags --set` writes the flag word in place, so hard links
/// (and the inode) are kept.
#[cfg(unix)]
#[test]
fn flags_set_keeps_hard_links() {
    use std::os::unix::fs::MetadataExt;
    let Some(c) = corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("IpDrv.u");
    copy(&c.join("ue1/IpDrv.u"), &p);
    let link = t.path().join("IpDrv-link.u");
    fs::hard_link(&p, &link).unwrap();
    let ino = fs::metadata(&p).unwrap().ino();
    let (code, r) = run_json(&[
        "flags",
        p.to_str().unwrap(),
        "--set",
        "AllowDownload=false",
        "--json",
    ]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(fs::metadata(&p).unwrap().ino(), ino);
    assert_eq!(fs::metadata(&p).unwrap().nlink(), 2);
    assert_eq!(fs::read(&p).unwrap(), fs::read(&link).unwrap());
    let (_, r) = run_json(&["flags", link.to_str().unwrap(), "--json"]);
    assert_eq!(r["after"]["flags"], r["before"]["flags"]);
    assert_eq!(r["after"]["flags"].as_u64().unwrap() & 1, 0);
}

/// Issue 31 item 3: `deps` on a UT2004 map whose only `Engine` is UT99's
/// reports it as another generation and exits 1.
#[test]
fn deps_reports_a_dependency_of_another_generation() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("ut99")).unwrap();
    std::fs::copy(c.join("ue1/Engine.u"), t.path().join("ut99/Engine.u")).unwrap();
    std::fs::copy(c.join("ue2/DM-Gael.ut2"), t.path().join("DM-Gael.ut2")).unwrap();
    let map = t.path().join("DM-Gael.ut2");
    let out = common::pakrat()
        .args(["deps", map.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "WRONG GENERATION Engine: found Engine.u but it is UE1 v69, the importer is UE2 v126/29 (DM-Gael)"
        ) && text.contains("of another generation"),
        "{text}"
    );
}
