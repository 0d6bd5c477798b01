//! The one UE4-era texture in the corpus: `T_Emissive` of the zenpair UE
//! 4.27 set (an engine texture, `/Engine/Engine_MI_Shaders/T_Emissive`, as
//! a UE 4.27 zen package chunk with its store entry in the
//! `.metadata.json` beside it; no legacy twin, no bulk chunks). Its
//! platform data follows the UE 4.20–4.27 layout (no derived-data
//! placeholder, `bCooked` per mip, `SizeZ`, a 64-bit absolute
//! `SkipOffset` counted in the legacy file's coordinates, `bIsVirtual`),
//! and every mip is inline. It reads, and every mip decodes and writes as
//! a PNG.

use pakrat_asset::convert::Packages;
use pakrat_asset::props::{Asset, NoSchemas};
use pakrat_asset::texture::{self, TextureKind};
use pakrat_asset::zen::{self, ScriptObjects, ZenLayout};
use pakrat_iostore::container_header::StoreEntry;
use pakrat_texture::{decode, psnr, write_png, DecodeOptions, Image, PixelFormat, Pixels};

#[test]
fn ue4_27_zen_texture_reads_and_every_mip_exports() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let read = |p: &str| std::fs::read(d.join(p)).unwrap();
    let meta: serde_json::Value =
        serde_json::from_slice(&read("T_Emissive.metadata.json")).unwrap();
    assert_eq!(meta["package_file_version"]["file_version_ue4"], 522);
    let bundles = meta["store_entry"]["export_bundle_count"].as_i64().unwrap();
    let entry = StoreEntry {
        export_bundle_count: Some(bundles as i32),
        ..Default::default()
    };
    let chunk = read("T_Emissive.uasset");
    let z = zen::parse(&chunk, ZenLayout::Ue4, Some(&entry)).unwrap();
    let script = ScriptObjects::parse_ue4(
        &read("LoaderInitialLoadMeta_1.bin"),
        &read("LoaderGlobalNames_1.bin"),
        &read("LoaderGlobalNameHashes_1.bin"),
    )
    .unwrap();
    let src = Packages::from_containers(&[], Some(script));
    let engine = pakrat_asset::legacy::Layout::for_engine("4.27");
    let asset = Asset::from_zen(&z, &chunk, &[], &src, engine).unwrap();
    assert_eq!(asset.exports[0].class, "/Script/Engine.Texture2D");
    let t = texture::read_export(&asset, 0, &NoSchemas).unwrap();
    assert_eq!((t.format.as_str(), t.width, t.height), ("PF_DXT5", 32, 32));
    assert_eq!(
        (t.kind, t.slices, t.first_mip),
        (TextureKind::Texture2D, 1, 0)
    );
    assert!(t.virtual_texture.is_none() && t.other_formats.is_empty());
    let sizes: Vec<(u32, u32, u32)> = t
        .mips
        .iter()
        .map(|m| (m.width, m.height, m.depth))
        .collect();
    // The block-compressed tail keeps 4×4 for the 2×2 and 1×1 mips.
    assert_eq!(
        sizes,
        [
            (32, 32, 1),
            (16, 16, 1),
            (8, 8, 1),
            (4, 4, 1),
            (4, 4, 1),
            (4, 4, 1)
        ]
    );
    let format = PixelFormat::from_ue_name(&t.format).unwrap();
    let data = asset.exports[0].data;
    let mut decoded: Vec<Image> = Vec::new();
    for (i, m) in t.mips.iter().enumerate() {
        let b = m.data.as_ref().unwrap();
        assert_eq!(
            b.location,
            pakrat_asset::bulk::BulkLocation::Inline { export: 0 }
        );
        assert_eq!(
            b.size_on_disk,
            format.slice_size(m.width, m.height).unwrap(),
            "mip {i}"
        );
        let bytes = &data[b.offset as usize..][..b.size_on_disk as usize];
        let img = decode(format, m.width, m.height, bytes, &DecodeOptions::default()).unwrap();
        let mut png = Vec::new();
        write_png(&img, &mut png).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "mip {i}");
        decoded.push(img);
    }
    // The mips are one image: mip 1 is mip 0 halved (2×2 box filter), to
    // within the DXT5 error of both.
    let (m0, m1) = (&decoded[0], &decoded[1]);
    let Pixels::Rgba8(p0) = &m0.pixels else {
        panic!("DXT5 decodes to RGBA8")
    };
    let mut half = Vec::with_capacity(16 * 16 * 4);
    for y in 0..16 {
        for x in 0..16 {
            for c in 0..4 {
                let at =
                    |dx: usize, dy: usize| u32::from(p0[((2 * y + dy) * 32 + 2 * x + dx) * 4 + c]);
                half.push(((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8);
            }
        }
    }
    let half = Image {
        width: 16,
        height: 16,
        pixels: Pixels::Rgba8(half),
    };
    let db = psnr(&half, m1, [true; 4]);
    assert!(db >= 30.0, "mip 1 against mip 0 halved: {db:.2} dB");
    eprintln!("T_Emissive: 6 mips of 32x32 DXT5, mip 1 vs mip 0 halved {db:.2} dB");
}
