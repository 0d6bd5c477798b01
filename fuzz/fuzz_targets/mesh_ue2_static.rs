//! UE2 static meshes: the `StaticMesh` native-data reader, the scene built
//! from it and the glTF writer, for every static mesh of the input package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::Package;
use pakrat_fuzz::ok;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::ue2_static;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(1024) {
        if !ok(pkg.export_class_name(i)).is_some_and(|c| c.eq_ignore_ascii_case("StaticMesh")) {
            continue;
        }
        let Some(m) = ok(ue2_static::read_static_mesh(&pkg, i)) else {
            continue;
        };
        if let Some(scene) = ok(ue2_static::to_scene(&pkg, i, &m)) {
            write(&scene, Format::Glb, "m").expect("a read mesh writes");
        }
    }
});
