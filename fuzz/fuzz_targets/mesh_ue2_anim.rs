//! UE2 animations: the `MeshAnimation` reader, the stand-alone scene (its
//! bones as a skeleton, every sequence) and the glTF and `.psa` writers,
//! for every animation of the input package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::Package;
use pakrat_fuzz::ok;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::{psk, ue2_anim, ue2_export};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(1024) {
        if !ok(pkg.export_class_name(i)).is_some_and(|c| c.eq_ignore_ascii_case("MeshAnimation")) {
            continue;
        }
        let Some(a) = ok(ue2_anim::read_mesh_animation(&pkg, i)) else {
            continue;
        };
        if let Some(scene) = ok(ue2_export::animation_scene(&pkg, i, &a)) {
            let _ = write(&scene, Format::Glb, "m");
            let seqs: Vec<psk::SeqInfo> = a
                .seqs
                .iter()
                .map(|s| psk::SeqInfo {
                    name: s.name.clone(),
                    group: String::new(),
                    rate: s.rate,
                    frames: (s.frames.max(0) as usize).min(4096),
                })
                .collect();
            let _ = psk::psa(&scene, &seqs);
        }
    }
});
