//! UE4/UE5 static meshes: the native-data reader
//! (`pakrat_mesh::ue5::static_mesh::read`) over any bytes, with engine
//! versions and a bulk data map from hostile bytes (a streamed LOD's
//! payload is the input's own tail), then the scene of every LOD read and
//! the glTF writer. Reading ends with a model or a clear error: never a
//! panic, hang or runaway allocation; a model that reads writes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::bulk::BulkMapEntry;
use pakrat_asset::props::{Asset, ExportInfo, Versions};
use pakrat_fuzz::ok;
use pakrat_io::Reader;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::ue5::{static_mesh, to_scene, StaticMesh};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (ue4, ue5) = match data[0] % 5 {
        0 => (518, 0),
        1 => (522, 0),
        2 => (522, 1004),
        3 => (522, 1012),
        _ => (522, 1018),
    };
    let split = (usize::from(data[1]) * 8).min(data.len() - 4);
    let rest = &data[4..];
    let (native, tail) = rest.split_at(rest.len() - split.min(rest.len()));
    let mut asset = Asset {
        names: vec!["None".into()],
        exports: vec![ExportInfo {
            name: "SM".into(),
            path: "/Game/SM.SM".into(),
            class: "/Script/Engine.StaticMesh".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data: native,
        }],
        versions: Versions {
            ue4,
            ue5,
            ..Versions::default()
        },
        ..Asset::default()
    };
    if data[2] & 1 != 0 {
        asset.bulk.map = vec![BulkMapEntry {
            flags: u32::from(data[3]) << 8,
            offset: 0,
            size: tail.len() as i64,
            raw_size: tail.len() as i64,
            cooked_index: 0,
        }];
    }
    let fetch = |_: &pakrat_asset::bulk::BulkRef| Ok::<_, pakrat_io::Error>(tail.to_vec());
    let mut r = Reader::new(native);
    let Some(native) = ok(static_mesh::read(&asset, 0, &mut r, &fetch)) else {
        return;
    };
    assert!(native.lods.len() <= native.lod_count);
    let m = StaticMesh {
        name: "SM".into(),
        path: "/Game/SM.SM".into(),
        native,
        materials: vec![("slot".into(), None)],
        ..Default::default()
    };
    for lod in 0..m.native.lods.len().min(4) {
        if let Ok(scene) = to_scene(&m, lod) {
            write(&scene, Format::Glb, "m").expect("a read mesh writes");
        }
    }
});
