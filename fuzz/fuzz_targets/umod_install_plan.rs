//! The install planner (issue 16): a fuzzed Manifest.ini packed with a few
//! fixed members into a valid UMOD, planned against a small game folder
//! made once (System\Manifest.ini with the base game's record, an ini, a
//! file already there, a user's map). Planning reads the folder and must
//! never write to it, panic or hang, whatever the manifest says.
#![no_main]
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pakrat_umod::install::{plan, InstallOptions};

fn game() -> &'static PathBuf {
    static GAME: OnceLock<PathBuf> = OnceLock::new();
    GAME.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("pakrat-fuzz-game-{}", std::process::id()));
        let w = |rel: &str, b: &[u8]| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b).unwrap();
        };
        w(
            "System/Manifest.ini",
            b"[Setup]\r\nGroup=UnrealTournament\r\n\r\n[UnrealTournament]\r\nVersion=436\r\nFile=System\\Engine.u\r\n\r\n[RefCounts]\r\nFile:System\\Engine.u=1\r\n",
        );
        w("System/Engine.u", b"engine");
        w("System/UnrealTournament.ini", b"[Engine.GameEngine]\r\nServerPackages=Botpack\r\n");
        w("Maps/DM-Deck16.unr", b"map");
        root
    })
}

fuzz_target!(|data: &[u8]| {
    let uz = pakrat_uz::compress(
        b"decoded package bytes",
        &pakrat_uz::CompressOptions::new(pakrat_uz::UzFormat::Uz2, "D.u"),
    )
    .unwrap_or_default();
    let members: [(&str, &[u8], u32); 6] = [
        ("System\\Manifest.ini", data, 3),
        ("System\\A.u", b"a", 0),
        ("System\\Engine.u", b"engine", 0),
        ("Maps\\DM-Deck16.unr", b"other map", 0),
        ("System\\Mod.ini", b"[X]\r\nY=1\r\n", 0),
        ("System\\D.u.uz", &uz, 0),
    ];
    let Ok(bytes) = pakrat_umod::create::to_bytes(&members) else {
        return;
    };
    let Ok(u) = pakrat_umod::Umod::parse(&bytes) else {
        return;
    };
    for force in [false, true] {
        let opts = InstallOptions {
            dry_run: true,
            force,
            ignore_requirements: true,
            ..Default::default()
        };
        if let Ok(r) = plan(&u, game(), &opts) {
            for f in &r.files {
                let _ = pakrat_io::text::show(&f.path);
            }
        }
    }
});
