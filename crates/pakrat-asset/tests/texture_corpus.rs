//! Textures of the CUE4Parse fixtures: every texture package of the UE 5.8
//! and 6.0 IoStore containers (tagged, and unversioned with the fixture
//! `.usmap`), of the legacy paks and of the Android pak reads as a
//! [`Texture`] whose formats, sizes, slice and mip counts are the cooked
//! ones, and every mip's bulk data resolves to exactly the bytes its
//! format and size need. The legacy and zen forms of a texture hold the
//! same mip bytes.

use std::path::Path;

use pakrat_asset::props::open::{self, BulkFrom};
use pakrat_asset::props::{schemas_with_package, NoSchemas, Opened, Schemas};
use pakrat_asset::texture::{self, Texture, TextureKind};
use pakrat_asset::usmap::Usmap;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;

/// (package, format, width, height, slices, mips, kind) as cooked: sizes
/// of the SourceTextures images (64×64 sources, 512×512 streaming, 2×2
/// UDIM blocks of 128×128), and of the properties (`TextureSize` of the
/// curve atlas, `ImportedSize`).
const ZEN: &[(&str, &str, u32, u32, u32, usize, TextureKind)] = &[
    ("T_BC1", "PF_DXT1", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_BC3", "PF_DXT5", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_BC4", "PF_BC4", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_BC5", "PF_BC5", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_BC6H", "PF_BC6H", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_BC7", "PF_BC7", 64, 64, 1, 1, TextureKind::Texture2D),
    (
        "T_BGRA8",
        "PF_B8G8R8A8",
        64,
        64,
        1,
        1,
        TextureKind::Texture2D,
    ),
    ("T_G8", "PF_G8", 64, 64, 1, 1, TextureKind::Texture2D),
    ("T_Mips", "PF_DXT1", 64, 64, 1, 7, TextureKind::Texture2D),
    (
        "T_Streaming",
        "PF_DXT1",
        512,
        512,
        1,
        10,
        TextureKind::Texture2D,
    ),
    (
        "T_Virtual",
        "PF_DXT1",
        512,
        512,
        1,
        0,
        TextureKind::Texture2D,
    ),
    ("T_UDIM", "PF_DXT1", 256, 256, 1, 0, TextureKind::Texture2D),
    ("T_Cube", "PF_B8G8R8A8", 16, 16, 6, 1, TextureKind::Cube),
    ("T_Array", "PF_B8G8R8A8", 16, 16, 4, 1, TextureKind::Array),
    ("T_Volume", "PF_B8G8R8A8", 8, 8, 4, 1, TextureKind::Volume),
    ("T_G16", "PF_G16", 16, 16, 1, 1, TextureKind::Texture2D),
    ("T_R16F", "PF_R16F", 16, 16, 1, 1, TextureKind::Texture2D),
    (
        "T_FloatRGBA",
        "PF_FloatRGBA",
        16,
        16,
        1,
        1,
        TextureKind::Texture2D,
    ),
    (
        "T_CubeArray",
        "PF_B8G8R8A8",
        16,
        16,
        12,
        1,
        TextureKind::CubeArray,
    ),
    ("T_IES", "PF_G8", 16, 16, 1, 1, TextureKind::Texture2D),
    (
        "T_CurveAtlas",
        "PF_FloatRGBA",
        64,
        1,
        1,
        1,
        TextureKind::Texture2D,
    ),
];

/// Android pak: (package, format).
const ANDROID: &[(&str, &str)] = &[
    ("T_ASTC_4x4", "PF_ASTC_4x4"),
    ("T_ASTC_6x6", "PF_ASTC_6x6"),
    ("T_ASTC_8x8", "PF_ASTC_8x8"),
    ("T_ASTC_10x10", "PF_ASTC_10x10"),
    ("T_ASTC_12x12", "PF_ASTC_12x12"),
    ("T_ASTC_Normal", "PF_ASTC_6x6"),
    ("T_EAC_R11", "PF_ETC2_R11_EAC"),
    ("T_EAC_RG11", "PF_ETC2_RG11_EAC"),
    ("T_ETC2_RGB", "PF_ETC2_RGB"),
    ("T_ETC2_RGBA", "PF_ETC2_RGBA"),
];

/// (block w, block h, bytes per block) of the fixture formats.
fn block(format: &str) -> (u32, u32, u64) {
    match format {
        "PF_DXT1" | "PF_BC4" | "PF_ETC2_RGB" | "PF_ETC2_R11_EAC" => (4, 4, 8),
        "PF_DXT5" | "PF_BC5" | "PF_BC6H" | "PF_BC7" | "PF_ETC2_RGBA" | "PF_ETC2_RG11_EAC" => {
            (4, 4, 16)
        }
        "PF_B8G8R8A8" => (1, 1, 4),
        "PF_G8" => (1, 1, 1),
        "PF_G16" | "PF_R16F" => (1, 1, 2),
        "PF_FloatRGBA" => (1, 1, 8),
        f if f.starts_with("PF_ASTC_") => {
            let (w, h) = f["PF_ASTC_".len()..].split_once('x').unwrap();
            (w.parse().unwrap(), h.parse().unwrap(), 16)
        }
        f => panic!("no block size for {f}"),
    }
}

fn slice_size(format: &str, w: u32, h: u32) -> u64 {
    let (bw, bh, bytes) = block(format);
    u64::from(w.div_ceil(bw)) * u64::from(h.div_ceil(bh)) * bytes
}

/// Read the texture of `opened`, and every mip's bytes; check their sizes.
fn check(opened: &Opened, from: BulkFrom<'_>, mappings: &dyn Schemas) -> (Texture, Vec<Vec<u8>>) {
    let asset = opened.asset();
    let with = schemas_with_package(&asset, mappings);
    let t =
        texture::read_export(&asset, 0, &with).unwrap_or_else(|e| panic!("{}: {e}", opened.origin));
    let mut bytes = Vec::new();
    for (m, mip) in t.mips.iter().enumerate() {
        let r = mip.data.as_ref().expect("mip data serialized");
        let data = opened
            .bulk(r, from)
            .unwrap_or_else(|e| panic!("{} mip {m}: {e}", opened.origin));
        let want = slice_size(&t.format, mip.width, mip.height) * u64::from(t.surfaces_of(mip));
        assert_eq!(data.len() as u64, want, "{} mip {m}", opened.origin);
        bytes.push(data.into_owned());
    }
    if let Some(vt) = &t.virtual_texture {
        for (i, c) in vt.chunks.iter().enumerate() {
            let data = opened
                .bulk(&c.data, from)
                .unwrap_or_else(|e| panic!("{} VT chunk {i}: {e}", opened.origin));
            assert_eq!(data.len() as u64, u64::from(c.size_in_bytes));
        }
    }
    (t, bytes)
}

fn mappings(dir: &Path, version: &str) -> Usmap {
    Usmap::open(dir.join(format!(
        "pak/cue4parse/{version}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
    )))
    .unwrap()
}

fn engine(version: &str) -> Option<pakrat_asset::legacy::Layout> {
    pakrat_asset::legacy::Layout::for_engine(&version[2..].replace('_', "."))
}

#[test]
fn fixture_textures_read_with_their_cooked_sizes_in_every_form() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let keys = KeyRing::default();
    for version in ["UE5_8", "UE6_0"] {
        let usmap = mappings(&dir, version);
        let mut zen_streaming = Vec::new();
        for mode in ["Tagged", "Unversioned"] {
            let base = dir.join(format!("iostore/cue4parse/{version}/IoStore/{mode}"));
            let utoc = std::fs::read_dir(base.join("Zlib"))
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|x| x == "utoc"))
                .unwrap();
            let script = open::load_global(&base.join("global.utoc"), &keys).unwrap();
            let c = Container::open(&utoc, &keys).unwrap();
            for &(name, format, w, h, slices, mips, kind) in ZEN {
                let path = format!("/Game/Fixtures/Textures/{name}");
                let o = open::open_in_container(&c, Some(&script), &path, engine(version)).unwrap();
                let (t, bytes) = check(&o, BulkFrom::Container(&c), &usmap);
                let got = (
                    t.format.as_str(),
                    t.width,
                    t.height,
                    t.slices,
                    t.mips.len(),
                    t.kind,
                );
                assert_eq!(
                    got,
                    (format, w, h, slices, mips, kind),
                    "{version} {mode} {name}"
                );
                if name == "T_Streaming" {
                    zen_streaming.push(bytes);
                }
                if name == "T_Volume" {
                    assert_eq!(t.mips[0].depth, 4);
                }
                if let Some(vt) = &t.virtual_texture {
                    let blocks = if name == "T_UDIM" { (2, 2) } else { (1, 1) };
                    assert_eq!((vt.width_in_blocks, vt.height_in_blocks), blocks);
                    assert_eq!((vt.width, vt.height), (w, h));
                    assert_eq!((vt.tile_size, vt.tile_border_size, vt.layers), (128, 4, 1));
                    assert_eq!(vt.layer_formats, ["PF_DXT1"]);
                }
            }
        }
        assert_eq!(
            zen_streaming[0], zen_streaming[1],
            "{version}: tagged vs unversioned"
        );
        // The legacy paks: T_Streaming's mips (in its .ubulk) equal the zen ones.
        for mode in ["Tagged", "Unversioned"] {
            let pak_dir = dir.join(format!("pak/cue4parse/{version}/LegacyPak/{mode}/Zlib"));
            let pak_path = std::fs::read_dir(&pak_dir)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|x| x == "pak"))
                .unwrap();
            let paks = [pakrat_pak::Pak::open(&pak_path, &keys).unwrap()];
            for name in ["T_Streaming", "T_BC6H"] {
                let path = format!("/Game/Fixtures/Textures/{name}");
                let o = open::open_in_paks(&paks, &path, engine(version)).unwrap();
                let (t, bytes) = check(&o, BulkFrom::Paks(&paks), &usmap);
                if name == "T_Streaming" {
                    assert_eq!(t.mips.len(), 10);
                    assert_eq!(bytes, zen_streaming[0], "{version} {mode}: legacy vs zen");
                }
            }
        }
        let android = dir.join(format!(
            "pak/cue4parse/{version}/AndroidPak/CUE4ParseFixtures-Android-Textures.pak"
        ));
        let paks = [pakrat_pak::Pak::open(&android, &keys).unwrap()];
        for &(name, format) in ANDROID {
            let path = format!("/Game/PlatformFixtures/Android/{name}");
            let o = open::open_in_paks(&paks, &path, None).unwrap();
            let (t, _) = check(&o, BulkFrom::Paks(&paks), &NoSchemas);
            assert_eq!(t.format, format, "{version} {name}");
            assert!(t.width >= 1 && t.height >= 1 && !t.mips.is_empty());
        }
    }
}
