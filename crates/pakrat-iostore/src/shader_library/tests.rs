use super::convert::{legacy_to_zen, plan_groups, same_shader_maps, zen_to_legacy, MAX_GROUP_SIZE};
use super::*;

/// Three maps over four shaders: shader 0 shared by maps 0 and 1, shaders 1
/// and 2 each map's own, shader 3 in map 2 only; stored plain.
pub(crate) fn sample() -> LegacyShaderLibrary {
    let code: Vec<Vec<u8>> = vec![vec![1; 10], vec![2; 7], vec![3; 5], vec![4; 3]];
    let mut lib = LegacyShaderLibrary {
        version: LEGACY_VERSION,
        shader_map_hashes: (0..3).map(|i| ShaHash([i; 20])).collect(),
        shader_hashes: (0..4).map(|i| ShaHash([0x10 + i; 20])).collect(),
        shader_indices: vec![0, 1, 0, 2, 3],
        ..Default::default()
    };
    lib.shader_map_entries = vec![
        LegacyMapEntry {
            shader_indices_offset: 0,
            num_shaders: 2,
            first_preload_index: 0,
            num_preload_entries: 0,
        },
        LegacyMapEntry {
            shader_indices_offset: 2,
            num_shaders: 2,
            first_preload_index: 0,
            num_preload_entries: 0,
        },
        LegacyMapEntry {
            shader_indices_offset: 4,
            num_shaders: 1,
            first_preload_index: 0,
            num_preload_entries: 0,
        },
    ];
    for (i, c) in code.iter().enumerate() {
        lib.shader_entries.push(LegacyShaderEntry {
            offset: lib.code.len() as u64,
            size: c.len() as u32,
            uncompressed_size: c.len() as u32,
            frequency: i as u8,
        });
        lib.code.extend_from_slice(c);
    }
    lib
}

#[test]
fn legacy_round_trip() {
    let lib = sample();
    let bytes = lib.to_bytes();
    assert_eq!(sniff(&bytes), Some(LibraryForm::Legacy));
    let back = LegacyShaderLibrary::parse(&bytes).unwrap();
    assert_eq!(back, lib);
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.shader_code(1).unwrap(), &[2; 7]);
}

#[test]
fn converts_both_ways_with_the_same_maps() {
    let lib = sample();
    let (zen, chunks) = legacy_to_zen(&lib, "PCD3D_SM6", Numbering::Ue5).unwrap();
    let zbytes = zen.to_bytes();
    assert_eq!(ZenShaderLibrary::parse(&zbytes).unwrap(), zen);
    same_shader_maps(&lib, &zen).unwrap();
    // Shared shader 0 alone, then each single-map set: 4 groups.
    assert_eq!(zen.group_entries.len(), 4);
    let map: std::collections::HashMap<_, _> = chunks.iter().cloned().collect();
    let back = zen_to_legacy(&zen, &mut |_, id| Ok(map[&id].clone())).unwrap();
    same_shader_maps(&back, &zen).unwrap();
    for s in 0..4 {
        assert_eq!(back.shader_code(s).unwrap(), lib.shader_code(s).unwrap());
    }
    // Map 0 preloads its own shader and the shared one.
    assert_eq!(back.shader_map_entries[0].num_preload_entries, 2);
    let again = LegacyShaderLibrary::parse(&back.to_bytes()).unwrap();
    assert_eq!(again, back);
}

#[test]
fn big_runs_are_split_by_size() {
    let mut lib = sample();
    for e in &mut lib.shader_entries {
        e.uncompressed_size = 700 * 1024;
    }
    // Map 2 gets shaders 3 and 1: its own run of two would be 1.4 MiB.
    lib.shader_indices = vec![0, 1, 0, 2, 3, 1];
    lib.shader_map_entries[2].num_shaders = 2;
    lib.shader_map_entries[0].num_shaders = 1;
    let zen = plan_groups(&lib, "PCD3D_SM6", Numbering::Ue5, MAX_GROUP_SIZE);
    for g in &zen.group_entries {
        assert!(g.uncompressed_size as usize <= MAX_GROUP_SIZE || g.num_shaders == 1);
    }
}

#[test]
fn hostile_headers_are_refused() {
    let lib = sample();
    let mut bad = lib.clone();
    bad.shader_indices[0] = 99;
    assert!(LegacyShaderLibrary::parse(&bad.to_bytes()).is_err());
    let mut bad = lib.clone();
    bad.shader_map_entries[1].num_shaders = 1000;
    assert!(LegacyShaderLibrary::parse(&bad.to_bytes()).is_err());
    let bytes = lib.to_bytes();
    for cut in 0..lib.header_bytes().len() {
        assert!(
            LegacyShaderLibrary::parse(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let zen = plan_groups(&lib, "PCD3D_SM6", Numbering::Ue5, MAX_GROUP_SIZE).to_bytes();
    for cut in 0..zen.len() {
        assert!(
            ZenShaderLibrary::parse(&zen[..cut]).is_err(),
            "cut at {cut}"
        );
    }
}

#[test]
fn file_names_split_as_unrealpak_does() {
    assert_eq!(
        split_file_name("a/ShaderArchive-Global-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"),
        Some(("Global-PCD3D_SM6".into(), "PCD3D_SM6".into()))
    );
    assert_eq!(split_file_name("NoDash.ushaderbytecode"), None);
}
