//! Shader libraries through the CLI (issue 30 item 4): a pak-form
//! `.ushaderbytecode` in a folder becomes IoStore shader chunks
//! (`iostore create`, and `zen from-legacy --into`, which plans the same
//! way); `extract` writes it back in the pak form with the same shader maps
//! and code, and a second round gives the same file byte for byte.

mod common;

use common::{json_ok, pakrat, s};
use pakrat_codec::compress::{compress, Method};
use pakrat_iostore::shader_library::convert::decompress_shader;
use pakrat_iostore::shader_library::{
    LegacyMapEntry, LegacyShaderEntry, LegacyShaderLibrary, ShaHash, ZenShaderLibrary,
    LEGACY_VERSION,
};

const FILE: &str = "Game/Content/ShaderArchive-Mod-PCD3D_SM6-PCD3D_SM6.ushaderbytecode";

/// Two maps over three shaders (shader 0 shared), stored Zlib-compressed.
fn sample() -> (LegacyShaderLibrary, Vec<Vec<u8>>) {
    let plain: Vec<Vec<u8>> = (0..3u8)
        .map(|i| {
            (0..4000u32)
                .map(|k| (k % (7 + u32::from(i))) as u8)
                .collect()
        })
        .collect();
    let mut lib = LegacyShaderLibrary {
        version: LEGACY_VERSION,
        shader_map_hashes: vec![ShaHash([1; 20]), ShaHash([2; 20])],
        shader_hashes: (0..3).map(|i| ShaHash([0x20 + i; 20])).collect(),
        shader_indices: vec![0, 1, 0, 2],
        shader_map_entries: vec![
            LegacyMapEntry {
                shader_indices_offset: 0,
                num_shaders: 2,
                ..Default::default()
            },
            LegacyMapEntry {
                shader_indices_offset: 2,
                num_shaders: 2,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    for (i, p) in plain.iter().enumerate() {
        let z = compress(&Method::Zlib, None, p).unwrap();
        lib.shader_entries.push(LegacyShaderEntry {
            offset: lib.code.len() as u64,
            size: z.len() as u32,
            uncompressed_size: p.len() as u32,
            frequency: [0, 3, 5][i],
        });
        lib.code.extend_from_slice(&z);
    }
    (lib, plain)
}

fn plain_code(lib: &LegacyShaderLibrary, i: usize) -> Vec<u8> {
    let e = &lib.shader_entries[i];
    let stored = lib.shader_code(i).unwrap();
    if e.size == e.uncompressed_size {
        stored.to_vec()
    } else {
        decompress_shader(stored, e.uncompressed_size as usize, &mut None).unwrap()
    }
}

#[test]
fn a_pak_form_library_goes_into_a_container_and_comes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let (lib, plain) = sample();
    std::fs::create_dir_all(src.join(FILE).parent().unwrap()).unwrap();
    std::fs::write(src.join(FILE), lib.to_bytes()).unwrap();
    let a = tmp.path().join("a/Mod_P.utoc");
    let v = json_ok(&["iostore", "create", s(&src), "-o", s(&a), "--json"]);
    assert!(v.to_string().contains("Mod_P"), "{v}");
    pakrat().args(["verify", s(&a)]).assert().success();

    // The raw form: the IoStore library chunk at the file's path.
    let raw = tmp.path().join("raw");
    pakrat()
        .args(["extract", s(&a), "-o", s(&raw), "--raw-shaders"])
        .assert()
        .success();
    let found: Vec<_> = walk(&raw);
    let zen_file = found
        .iter()
        .find(|p| p.ends_with(".ushaderbytecode"))
        .expect("library extracted");
    let zen = ZenShaderLibrary::parse(&std::fs::read(zen_file).unwrap()).unwrap();
    assert_eq!(zen.shader_map_hashes, lib.shader_map_hashes);
    // Shared shader 0 alone, then each map's own: three groups.
    assert_eq!(zen.group_entries.len(), 3);

    // The pak form.
    let x = tmp.path().join("x");
    let v = json_ok(&["extract", s(&a), "-o", s(&x), "--json"]);
    assert_eq!(v["shader_libraries"], 1, "{v}");
    let first_path = walk(&x)
        .into_iter()
        .find(|p| p.ends_with(".ushaderbytecode"))
        .unwrap();
    let first = std::fs::read(&first_path).unwrap();
    let back = LegacyShaderLibrary::parse(&first).unwrap();
    assert_eq!(back.shader_map_hashes, lib.shader_map_hashes);
    assert_eq!(back.shader_hashes, lib.shader_hashes);
    assert_eq!(back.shader_indices, lib.shader_indices);
    for (i, p) in plain.iter().enumerate() {
        assert_eq!(&plain_code(&back, i), p, "shader {i}");
        assert_eq!(
            back.shader_entries[i].frequency,
            lib.shader_entries[i].frequency
        );
    }

    // Again: the same pak form, byte for byte.
    let b = tmp.path().join("b/Mod_P.utoc");
    json_ok(&["iostore", "create", s(&x), "-o", s(&b), "--json"]);
    let y = tmp.path().join("y");
    pakrat()
        .args(["extract", s(&b), "-o", s(&y)])
        .assert()
        .success();
    let second = walk(&y)
        .into_iter()
        .find(|p| p.ends_with(".ushaderbytecode"))
        .unwrap();
    assert_eq!(std::fs::read(second).unwrap(), first);
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}
