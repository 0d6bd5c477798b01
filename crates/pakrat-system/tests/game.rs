//! Package lookup on small synthetic game folders (lookup reads no package
//! bytes, so plain files stand in for packages here).

use std::fs;
use std::path::Path;

use pakrat_io::Guid;
use pakrat_system::{GameDir, Via};

fn touch(p: &Path) {
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, b"x").unwrap();
}

#[test]
fn engine_order_case_and_hostile_names() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    fs::create_dir_all(r.join("system")).unwrap();
    fs::write(
        r.join("system/unrealtournament.INI"),
        "[Core.System]\nCachePath=../cache\nCacheExt=.uxx\nPaths[1]=../Music/*.umx\nPaths[0]=../System/*.u\nPaths[2]=../Textures/*.utx\nPaths[3]=C:\\UT\\Maps\\*.unr\n",
    )
    .unwrap();
    touch(&r.join("system/Engine.u"));
    touch(&r.join("music/SkyCity.umx"));
    touch(&r.join("Textures/SkyCity.utx"));
    touch(&r.join("Textures/skycity2.UTX"));
    let g = GameDir::open(r, None).unwrap();
    assert!(g
        .ini_path
        .as_ref()
        .unwrap()
        .ends_with("unrealtournament.INI"));
    let pats: Vec<&str> = g.paths.iter().map(|p| p.pattern.as_str()).collect();
    assert_eq!(
        pats[..3],
        ["../System/*.u", "../Music/*.umx", "../Textures/*.utx"]
    );
    assert!(
        !g.paths[3].usable,
        "a Windows drive path is not usable here"
    );

    // Exact pass first, in Paths order: Music comes before Textures.
    let f = g.resolve("SkyCity", None).unwrap();
    assert_eq!(f.path, g.paths[1].dir.join("SkyCity.umx"));
    assert_eq!(f.via, Via::Path(1));
    // With an explicit extension the name is tried as given in each folder.
    let f = g.resolve("SkyCity.utx", None).unwrap();
    assert_eq!(f.via, Via::Path(2));
    // Case-insensitive pass.
    let f = g.resolve("SKYCITY2", None).unwrap();
    assert!(f.path.ends_with("Textures/skycity2.UTX"));
    assert_eq!(f.via, Via::PathNoCase(2));
    assert_eq!(g.resolve("engine", None).unwrap().via, Via::PathNoCase(0));
    assert!(g.resolve("Nothing", None).is_none());
    // Hostile names from import tables never leave the Paths folders.
    for bad in [
        "../Textures/SkyCity.utx",
        "/etc/passwd",
        "..",
        "a\\b",
        "C:x",
        "Engine.dll",
        "",
    ] {
        assert!(g.resolve(bad, None).is_none(), "{bad:?} resolved");
    }
    // Destination folder for an extension: first Paths entry ending with it.
    assert!(g
        .folder_for_extension("UMX")
        .unwrap()
        .dir
        .ends_with("music"));
    assert!(g
        .folder_for_extension(".u")
        .unwrap()
        .dir
        .ends_with("system"));
    assert!(g.folder_for_extension("unr").is_none());
}

#[test]
fn cache_is_searched_after_paths() {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    fs::create_dir_all(r.join("System")).unwrap();
    fs::write(
        r.join("System/UT2004.ini"),
        "[Core.System]\nPaths=../System/*.u\n",
    )
    .unwrap();
    let guid = Guid {
        words: [0x4F4BE10E, 0x11D67991, 1, 2],
    };
    touch(&r.join(format!("Cache/{guid}.uxx")));
    fs::write(
        r.join("Cache/cache.ini"),
        format!("[Cache]\n{guid}=OnlyCached.u\n"),
    )
    .unwrap();
    touch(&r.join("System/Both.u"));
    let g = GameDir::open(r, None).unwrap();
    assert_eq!(g.cache_ext, ".uxx");
    let f = g.resolve("OnlyCached", None).unwrap();
    assert_eq!(f.via, Via::CacheIni);
    assert!(f.path.ends_with(format!("Cache/{guid}.uxx")));
    // A GUID asked for explicitly (as a server would send it) finds the cache
    // file only after Paths.
    assert_eq!(g.resolve("Both", Some(guid)).unwrap().via, Via::Path(0));
    assert_eq!(g.resolve("Other", Some(guid)).unwrap().via, Via::CacheGuid);
}

#[test]
fn no_ini_uses_builtin_paths() {
    let t = tempfile::tempdir().unwrap();
    touch(&t.path().join("Maps/DM-Test.unr"));
    let g = GameDir::open(t.path(), None).unwrap();
    assert!(g.ini_path.is_none());
    assert_eq!(g.resolve("DM-Test", None).unwrap().via, Via::Path(1));
    // An ini without Paths is an error, not a silent fallback.
    fs::create_dir_all(t.path().join("System")).unwrap();
    fs::write(
        t.path().join("System/x.ini"),
        "[Core.System]\nCachePath=../Cache\n",
    )
    .unwrap();
    assert!(GameDir::open(t.path(), Some(&t.path().join("System/x.ini"))).is_err());
}
