//! UE1 vertex meshes (`Mesh`, `LodMesh`): the native-data reader, the
//! scene built from it, the glTF writer (`.glb` and `.gltf`) and the
//! `_d.3d`/`_a.3d` writer, for every mesh export of the input package.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::Package;
use pakrat_fuzz::ok;
use pakrat_mesh::gltf::{write, Format};
use pakrat_mesh::{ue1, ue1_scene};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    for i in 0..pkg.exports.len().min(1024) {
        let Some(class) = ok(pkg.export_class_name(i)) else {
            continue;
        };
        if ue1::mesh_class(class).is_none() {
            continue;
        }
        let Some(m) = ok(ue1::read_mesh(&pkg, i)) else {
            continue;
        };
        // The editor's import pair: written or refused with a reason.
        if let Ok((d, a)) = pakrat_mesh::ue1_3d::write_pair(&m) {
            assert_eq!(d.len(), 48 + 16 * usize::from(u16::from_le_bytes([d[0], d[1]])));
            assert!(a.len() >= 4);
        }
        let _ = pakrat_mesh::ue1_3d::exec_script("m", &m);
        if let Some(scene) = ok(ue1_scene::to_scene(&pkg, i, &m)) {
            let glb = write(&scene, Format::Glb, "m").expect("a read mesh writes");
            assert!(glb[0].1.starts_with(b"glTF"));
            write(&scene, Format::Gltf, "m").expect("a read mesh writes");
        }
    }
});
