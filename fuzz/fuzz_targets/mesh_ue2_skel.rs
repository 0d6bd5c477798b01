//! UE2 skeletal meshes: the `SkeletalMesh` reader, the animation it plays
//! (`MeshAnimation` reader), the scene, and the glTF and ActorX writers,
//! for every skeletal mesh of the input package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::Package;
use pakrat_fuzz::ok;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::{psk, ue2_export, ue2_skel};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(1024) {
        if !ok(pkg.export_class_name(i)).is_some_and(|c| c.eq_ignore_ascii_case("SkeletalMesh")) {
            continue;
        }
        let Some(m) = ok(ue2_skel::read_skeletal_mesh(&pkg, i)) else {
            continue;
        };
        let anim = ue2_export::mesh_animation(&pkg, &m);
        if let Some(scene) = ok(ue2_export::skeletal_scene(&pkg, i, &m, anim.as_ref().map(|a| &a.1), true)) {
            write(&scene, Format::Glb, "m").expect("a read mesh writes");
            let _ = psk::write(&scene, "m", None);
        }
    }
});
