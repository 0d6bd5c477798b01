//! UE2 vertex meshes: the `VertMesh` reader, the scene (morph targets per
//! frame) and the glTF writer, for every vertex mesh of the input package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::Package;
use pakrat_fuzz::ok;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::ue2_vert;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(1024) {
        if !ok(pkg.export_class_name(i)).is_some_and(|c| c.eq_ignore_ascii_case("VertMesh")) {
            continue;
        }
        let Some(m) = ok(ue2_vert::read_vert_mesh(&pkg, i)) else {
            continue;
        };
        if let Some(scene) = ok(ue2_vert::to_scene(&pkg, i, &m)) {
            write(&scene, Format::Glb, "m").expect("a read mesh writes");
        }
    }
});
