//! UE4/UE5 texture native data (`pakrat_asset::texture::read`) over any
//! bytes: a texture class, engine versions and a bulk data map from hostile
//! bytes, the rest as the export's native data. Reading ends with a model
//! or a clear error; a model's inline mips and chunks lie inside the export
//! and its counts are what was read, never a panic, hang or runaway
//! allocation. A virtual texture's tile layouts are assembled too.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::bulk::{BulkLocation, BulkMapEntry, BulkRef};
use pakrat_asset::props::{Asset, ExportInfo, Versions};
use pakrat_asset::texture::{read, to_properties, CLASSES};
use pakrat_fuzz::ok;
use pakrat_io::Reader;

const NAMES: [&str; 5] = ["None", "PF_DXT1", "PF_B8G8R8A8", "PF_BC7", "PF_ASTC_6x6"];

fn inside(r: &BulkRef, len: usize) {
    if let BulkLocation::Inline { export } = r.location {
        assert_eq!(export, 0);
        assert!(r.offset + r.size_on_disk <= len as u64, "inline payload outside the export");
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let class = CLASSES[data[0] as usize % CLASSES.len()];
    let (ue4, ue5) = match data[1] % 5 {
        0 => (522, 0),
        1 => (522, 1004),
        2 => (522, 1009),
        3 => (522, 1012),
        _ => (522, 1018),
    };
    // Up to 7 bulk map entries, 8 bytes each: flags, size.
    let n = (data[2] % 8) as usize;
    let mut rest = &data[4..];
    let mut map = Vec::new();
    for _ in 0..n {
        if rest.len() < 8 {
            break;
        }
        let flags = u32::from_le_bytes(rest[..4].try_into().unwrap());
        let size = i32::from_le_bytes(rest[4..8].try_into().unwrap());
        map.push(BulkMapEntry {
            flags,
            offset: 0,
            size: i64::from(size),
            raw_size: i64::from(size),
            cooked_index: data[3],
        });
        rest = &rest[8..];
    }
    let mut asset = Asset {
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        exports: vec![ExportInfo {
            name: "T".into(),
            path: "/Game/T.T".into(),
            class: format!("/Script/Engine.{class}"),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data: rest,
        }],
        versions: Versions { ue4, ue5, ..Versions::default() },
        ..Asset::default()
    };
    asset.bulk.map = map;
    let mut r = Reader::new(rest);
    if let Some(t) = ok(read(&asset, 0, class, &[], &mut r)) {
        for m in &t.mips {
            if let Some(b) = &m.data {
                inside(b, rest.len());
            }
            let _ = t.surfaces_of(m);
        }
        if let Some(vt) = &t.virtual_texture {
            assert!(vt.layer_formats.len() == vt.layers as usize);
            for c in &vt.chunks {
                inside(&c.data, rest.len());
            }
            // Every mip's tile layout, assembled from the export's own
            // bytes as the chunk: bounded by the pixel limit, never a
            // hang over a 2^32 address range.
            for level in 0..vt.tile_offset_data.len().min(4) {
                let grid = |m: &pakrat_asset::texture::VtMip| pakrat_texture::TileGrid {
                    width: m.width,
                    height: m.height,
                    tile: vt.tile_size,
                    border: vt.tile_border_size,
                };
                let opts = pakrat_texture::DecodeOptions {
                    max_pixels: 1 << 16,
                    ..Default::default()
                };
                if let Some(m) = ok(vt.mip_tiles(level, 8, opts.max_pixels)) {
                    assert!(u64::from(m.width) * u64::from(m.height) <= 1 << 16);
                    if let Some(tiles) = ok(m.tile_slices(rest)) {
                        let _ = pakrat_texture::assemble_tiles(
                            pakrat_texture::PixelFormat::G8,
                            grid(&m),
                            &tiles,
                            &opts,
                        );
                    }
                }
            }
        }
        let _ = to_properties(&t);
    }
});
