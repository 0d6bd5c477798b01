//! UE4/UE5 animation decoding: the `FUECompressedAnimData` header reader
//! (`anim::read_ue_header`) over hostile bytes, and the per-track key
//! decoder (`anim_codec::decode`) over a byte stream whose offset tables
//! and keys are the input's own, with 1–8 tracks on a skeleton of 8 bones
//! and a hostile key count; then the scene (plain and additive, on a pose
//! sampled from the decoded tracks) and the glTF and `.psa` writers.
//! Reading ends with a model or a clear error: never a panic, hang or
//! runaway allocation; a decoded animation writes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_io::Reader;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::ue5::anim::{read_ue_header, AnimInfo, UeHeader};
use pakrat_mesh::ue5::{anim_codec, anim_scene, skeleton};

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let tracks = usize::from(data[0] % 8) + 1;
    let scales = data[1] & 1 != 0;
    let num_keys = usize::from(u16::from_le_bytes([data[2], data[3]]));
    let stream = &data[8..];
    // The header parser over the same bytes.
    let _ = ok(read_ue_header(&mut Reader::new(stream), &data[4..]));
    let offsets = 4 * (2 * tracks + if scales { tracks } else { 0 });
    if stream.len() < offsets {
        return;
    }
    let header = UeHeader {
        num_keys,
        key_format: 2,
        formats: [6; 3],
        track_offsets: vec![0; 2 * tracks],
        scale_offsets: vec![0; if scales { tracks } else { 0 }],
        scale_strip: 1,
        keys_at: offsets,
    };
    let Some(header) = ok(header.with_stream(stream)) else {
        return;
    };
    let mut a = AnimInfo {
        name: "A".into(),
        path: "/Game/A.A".into(),
        length: f32::from(data[4]) / 16.0,
        track_to_bone: (0..tracks as i32).map(|t| t * i32::from(data[5] % 3)).collect(),
        bone_codec: "AnimCompress_PerTrackCompression_1".into(),
        stream: stream.to_vec(),
        ue: Some(header),
        interpolation: if data[6] & 1 != 0 { "Step" } else { "Linear" }.into(),
        ..Default::default()
    };
    let Some(decoded) = ok(anim_codec::decode(&a)) else {
        return;
    };
    let skel = skeleton::RefSkeleton {
        bones: (0..8)
            .map(|k| skeleton::BoneInfo {
                name: format!("B{k}"),
                parent: k - 1,
            })
            .collect(),
        pose: vec![skeleton::Transform::default(); 8],
        name_to_index: Vec::new(),
    };
    let keys = anim_scene::key_count(&a);
    let base = anim_scene::pose_at(&decoded, keys, f32::from(data[7]), &skel);
    for additive in [false, true] {
        if additive {
            a.additive = "AAT_LocalSpaceBase".into();
            a.ref_pose_type = "ABPT_AnimFrame".into();
        }
        let Some(scene) = ok(anim_scene::to_scene(&a, &decoded, &skel, Some(&base))) else {
            continue;
        };
        write(&scene, Format::Glb, "a").expect("a decoded animation writes");
        let seq = pakrat_mesh::psk::SeqInfo {
            name: "A".into(),
            group: String::new(),
            rate: anim_scene::frame_rate(&a),
            frames: keys.min(1 << 12),
        };
        pakrat_mesh::psk::psa(&scene, &[seq]).expect("a decoded animation writes as psa");
    }
});
