//! UE4/UE5 skeletal meshes, skeletons and animations: the native-data
//! readers (`pakrat_mesh::ue5::skeletal_mesh::read` with its skin weight
//! and compressed morph buffers, `skeleton::read_ref_skeleton`) over any
//! bytes, with engine versions, a name map and a bulk data map from
//! hostile bytes (a streamed LOD's payload is the input's own tail, or
//! inline in the export data), then
//! the scene of every LOD read and the glTF and ActorX writers. Reading
//! ends with a model or a clear error: never a panic, hang or runaway
//! allocation; a model that reads writes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::bulk::BulkMapEntry;
use pakrat_asset::props::{Asset, ExportInfo, Versions};
use pakrat_fuzz::ok;
use pakrat_io::Reader;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::ue5::skel_scene::{to_scene, SkeletalMesh};
use pakrat_mesh::ue5::{skeletal_mesh, skeleton, skin};

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (ue4, ue5) = match data[0] % 4 {
        0 => (522, 1004),
        1 => (522, 1012),
        2 => (522, 1017),
        _ => (522, 1018),
    };
    let split = (usize::from(data[1]) * 8).min(data.len() - 6);
    let rest = &data[6..];
    let (native, tail) = rest.split_at(rest.len() - split.min(rest.len()));
    let mut asset = Asset {
        names: (0..256).map(|k| format!("N{k}")).collect(),
        exports: vec![ExportInfo {
            name: "SK".into(),
            path: "/Game/SK.SK".into(),
            class: "/Script/Engine.SkeletalMesh".into(),
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
        // With no tail, the payload is inline (flags 0) of the size the
        // header's last two bytes give, as in the UE 5.8 fixtures.
        let size = if tail.is_empty() {
            i64::from(u16::from_le_bytes([data[4], data[5]]))
        } else {
            tail.len() as i64
        };
        asset.bulk.map = vec![BulkMapEntry {
            flags: u32::from(data[3]) << 8,
            offset: 0,
            size,
            raw_size: size,
            cooked_index: 0,
        }];
    }
    match data[2] >> 1 & 3 {
        0 => {
            let _ = ok(skeleton::read_ref_skeleton(&asset, &mut Reader::new(native), ue5 >= 1004));
            return;
        }
        1 => {
            let _ = ok(skin::skin_weights(&mut Reader::new(native)));
            let _ = ok(skin::morph_buffers(&mut Reader::new(native)));
            return;
        }
        _ => {}
    }
    // An inline payload comes from the export data, as `Opened::bulk`
    // brings it; any other from the tail.
    let fetch = |b: &pakrat_asset::bulk::BulkRef| {
        Ok::<_, pakrat_io::Error>(match b.location {
            pakrat_asset::bulk::BulkLocation::Inline { .. } => native
                .get(b.offset as usize..)
                .and_then(|d| d.get(..b.size_on_disk as usize))
                .unwrap_or_default()
                .to_vec(),
            _ => tail.to_vec(),
        })
    };
    let mut r = Reader::new(native);
    let colors = data[2] & 8 != 0;
    let Some(native) = ok(skeletal_mesh::read(&asset, 0, &mut r, colors, &fetch)) else {
        return;
    };
    assert!(native.lods.len() <= native.lod_count);
    let m = SkeletalMesh {
        name: "SK".into(),
        path: "/Game/SK.SK".into(),
        native,
        materials: vec![("slot".into(), None)],
        morph_names: vec!["Morph".into()],
        ..Default::default()
    };
    for lod in 0..m.native.lods.len().min(4) {
        if let Ok(scene) = to_scene(&m, lod, lod == 0) {
            write(&scene, Format::Glb, "m").expect("a read mesh writes");
            pakrat_mesh::psk::write(&scene, "m", None).expect("a read mesh writes as psk");
        }
    }
});
