//! `pakrat package ...` edits on real corpus packages: rename a texture
//! package and update the map that uses it, rename a name, set the GUID,
//! strip script source; --dry-run writes nothing, --backup keeps the
//! original, outputs are refused up front.

mod common;

use std::path::{Path, PathBuf};

use common::{json_ok as json, ok, pakrat, s};

fn copy_into(dir: &Path, rel: &str) -> PathBuf {
    let c = pakrat_testkit::corpus_dir().unwrap();
    let to = dir.join(Path::new(rel).file_name().unwrap());
    std::fs::copy(c.join(rel), &to).unwrap();
    let mut perm = std::fs::metadata(&to).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(&to, perm).unwrap();
    to
}

#[test]
fn rename_a_texture_package_and_update_the_map() {
    if pakrat_testkit::corpus_dir().is_none() {
        return;
    }
    let g = tempfile::tempdir().unwrap();
    let maps = g.path().join("Maps");
    let tex = g.path().join("Textures");
    std::fs::create_dir_all(&maps).unwrap();
    std::fs::create_dir_all(&tex).unwrap();
    let map = copy_into(&maps, "ue1/DM-Longestyard][.unr");
    let utx = copy_into(&tex, "ue1/Longestyard.utx");
    copy_into(&tex, "ue1/Q3 Texture base floor.utx");
    let map_before = std::fs::read(&map).unwrap();
    let tex_before = std::fs::read(&utx).unwrap();

    // Dry run: says what it would do, writes nothing.
    let out = ok(&[
        "package",
        "rename",
        s(&utx),
        "LongestyardTex",
        "--update",
        s(&maps),
        "--dry-run",
    ]);
    assert!(
        out.contains("would be renamed to")
            && out.contains("1 import of Longestyard -> LongestyardTex"),
        "{out}"
    );
    assert_eq!(std::fs::read(&map).unwrap(), map_before);
    assert!(utx.exists() && !tex.join("LongestyardTex.utx").exists());

    let v = json(&[
        "package",
        "rename",
        s(&utx),
        "LongestyardTex",
        "--update",
        s(&maps),
        "--backup",
        "--json",
    ]);
    assert_eq!(v["updated"][0]["imports"], 1, "{v}");
    let renamed = tex.join("LongestyardTex.utx");
    assert!(!utx.exists() && renamed.exists());
    assert_eq!(
        std::fs::read(tex.join("Longestyard.utx.bak")).unwrap(),
        tex_before
    );
    assert_eq!(
        std::fs::read(maps.join("DM-Longestyard][.unr.bak")).unwrap(),
        map_before
    );
    // The texture package is the same file under its new name.
    assert_eq!(std::fs::read(&renamed).unwrap(), tex_before);

    // deps resolves the map's import to the renamed file.
    // (exit 1: the map's other packages, Engine and such, are not here)
    let out = pakrat()
        .args(["deps", s(&map), "--game-dir", s(g.path()), "--json"])
        .output()
        .unwrap();
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = d.to_string();
    assert!(text.contains("LongestyardTex.utx"), "{text}");
    assert!(
        !text.contains("\"Longestyard\""),
        "old name still imported: {text}"
    );
    // Both still verify; the map decodes as many properties as before.
    let before = {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("m.unr");
        std::fs::write(&f, &map_before).unwrap();
        json(&["verify", s(&f), "--json"])
    };
    let after = json(&["verify", s(&map), "--json"]);
    for k in ["objects_ok", "properties", "property_bytes", "problems"] {
        assert!(after["report"].get(k).is_some(), "{k}: {after}");
        assert_eq!(before["report"][k], after["report"][k], "{k}: {after}");
    }
    ok(&["verify", s(&renamed)]);

    // The new name exists now: a second rename onto it is refused.
    let again = copy_into(&tex, "ue1/Longestyard.utx");
    let out = pakrat()
        .args(["package", "rename", s(&again), "LongestyardTex"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}

#[test]
fn rename_name_set_guid_and_strip() {
    if pakrat_testkit::corpus_dir().is_none() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let pkg = copy_into(t.path(), "ue1/IpDrv.u");
    let original = std::fs::read(&pkg).unwrap();

    // rename-name to an existing name is refused; nothing written.
    let out = pakrat()
        .args(["package", "rename-name", s(&pkg), "UdpLink", "TcpLink"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already has a name TcpLink"));
    assert_eq!(std::fs::read(&pkg).unwrap(), original);

    let v = json(&[
        "package",
        "rename-name",
        s(&pkg),
        "UdpLink",
        "UdpLinkWithALongerName",
        "--json",
    ]);
    assert_eq!(v["tables"][0]["moved"], true, "{v}");
    let listed = ok(&["list", s(&pkg)]);
    assert!(
        listed.contains("UdpLinkWithALongerName") && !listed.contains(" UdpLink\n"),
        "{listed}"
    );

    // set-guid: exact value, read back by info.
    let guid = "0123456789ABCDEF0123456789ABCDEF";
    ok(&["package", "set-guid", s(&pkg), guid]);
    let info = json(&["info", s(&pkg), "--json"]);
    assert!(info.to_string().contains(guid), "{info}");
    // --random --new-generation adds a generation.
    let gens = |v: &serde_json::Value| v["generations"].as_array().map(|a| a.len());
    let before = gens(&info);
    ok(&[
        "package",
        "set-guid",
        s(&pkg),
        "--random",
        "--new-generation",
    ]);
    let info2 = json(&["info", s(&pkg), "--json"]);
    assert_eq!(gens(&info2), before.map(|n| n + 1), "{info2}");
    assert!(!info2.to_string().contains(guid));

    // strip to another file: same size, script text gone, classes intact.
    let stripped = t.path().join("IpDrv-stripped.u");
    let v = json(&["package", "strip", s(&pkg), "-o", s(&stripped), "--json"]);
    assert_eq!(v["strip"]["stripped"].as_array().unwrap().len(), 5, "{v}");
    assert_eq!(
        std::fs::metadata(&stripped).unwrap().len(),
        std::fs::metadata(&pkg).unwrap().len()
    );
    let o = t.path().join("uc");
    ok(&["export", s(&stripped), "--class", "TextBuffer", "-o", s(&o)]);
    let uc = std::fs::read(o.join("Classes/UdpLink.uc")).unwrap_or_default();
    assert!(uc.is_empty(), "stripped text: {} bytes", uc.len());
    // The output exists now: refused without --force.
    let out = pakrat()
        .args(["package", "strip", s(&pkg), "-o", s(&stripped)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    // set-flags with --backup (IpDrv.u is ServerSideOnly, 0x4).
    ok(&[
        "package",
        "set-flags",
        s(&pkg),
        "ServerSideOnly=false",
        "AllowDownload=true",
        "--backup",
    ]);
    let f = json(&["flags", s(&pkg), "--json"]);
    assert_eq!(f["after"]["flags"], 1, "{f}");
    assert!(t.path().join("IpDrv.u.bak").exists());
}

#[test]
fn edits_refuse_what_is_not_a_classic_package() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let out = pakrat()
        .args(["package", "strip", s(&c.join("umod/DropStuff.umod"))])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a UE1/UE2 package"));
}

#[test]
fn rename_name_refuses_reserved_names() {
    // Issue 32 item 9: renaming `None` or `Class` left a package nothing
    // decodes (102 objects decoded before, 0 after).
    if pakrat_testkit::corpus_dir().is_none() {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let pkg = copy_into(t.path(), "ue1/IpDrv.u");
    let original = std::fs::read(&pkg).unwrap();
    for (old, new) in [("None", "Nothing"), ("Class", "Klass"), ("UdpLink", "None")] {
        let out = pakrat()
            .args(["package", "rename-name", s(&pkg), old, new])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{old} -> {new}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("reserved"), "{old} -> {new}: {err}");
        assert_eq!(std::fs::read(&pkg).unwrap(), original);
    }
    // A class others import by name: renamed, with a warning.
    let out = pakrat()
        .args([
            "package",
            "rename-name",
            s(&pkg),
            "TcpLink",
            "TcpLink2",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: TcpLink is the name of a class"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn rename_update_lists_importers_behind_symlinks() {
    // Issue 32 item 9: an importer reached through a symbolic link was
    // skipped without a word.
    if pakrat_testkit::corpus_dir().is_none() {
        return;
    }
    let g = tempfile::tempdir().unwrap();
    let maps = g.path().join("Maps");
    let elsewhere = g.path().join("Elsewhere");
    let tex = g.path().join("Textures");
    for d in [&maps, &elsewhere, &tex] {
        std::fs::create_dir_all(d).unwrap();
    }
    let map = copy_into(&elsewhere, "ue1/DM-Longestyard][.unr");
    let utx = copy_into(&tex, "ue1/Longestyard.utx");
    std::os::unix::fs::symlink(&map, maps.join("Linked.unr")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, maps.join("LinkedFolder")).unwrap();
    let map_before = std::fs::read(&map).unwrap();
    let out = pakrat()
        .args([
            "package",
            "rename",
            s(&utx),
            "LongestyardTex",
            "--update",
            s(&maps),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = v["not_followed"].to_string();
    assert!(
        listed.contains("Linked.unr") && listed.contains("imports Longestyard"),
        "{v}"
    );
    assert!(listed.contains("LinkedFolder"), "{v}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("warning: "),
        "not warned"
    );
    // Nothing written through the link.
    assert_eq!(std::fs::read(&map).unwrap(), map_before);
}
