//! One UE4/UE5 StaticMesh of `pakrat export`: a LOD (0 unless `--lod`)
//! written as glTF (`.glb`, or `.gltf` + `.bin` with `--mesh-format gltf`)
//! beside the textures' files: its sections with the material slots, every
//! UV set, vertex colours, and the sockets as nodes.

use pakrat_asset::props::{Asset, BulkFrom, Opened, Schemas};
use pakrat_io::fsutil::OutputDir;
use pakrat_mesh::gltf::{self, Format};
use pakrat_mesh::ue5;

use super::texture::{Outcome, Written};

/// Read static mesh `exports[i]` and write LOD `lod` of it below `out` as
/// `{base}.glb` (or `.gltf` and `.bin`).
#[allow(clippy::too_many_arguments)]
pub fn export(
    opened: &Opened,
    from: BulkFrom<'_>,
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    base: &str,
    out: &OutputDir,
    format: Format,
    lod: usize,
) -> Outcome {
    let fetch = |b: &pakrat_asset::bulk::BulkRef| opened.bulk(b, from).map(|c| c.into_owned());
    let m = match ue5::read_static_mesh(asset, i, schemas, &fetch) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let scene = match ue5::to_scene(&m, lod) {
        Ok(s) => s,
        Err(why) => return Outcome::Skipped(why),
    };
    let l = &m.native.lods[lod];
    let mesh = &scene.meshes[0];
    let detail = format!(
        "glTF LOD {lod} of {}, {} vertices, {} triangles, {} sections, {} UV sets{}, {} sockets{}",
        m.native.lod_count,
        mesh.positions.len(),
        mesh.triangle_count(),
        mesh.sections.len(),
        mesh.uvs.len(),
        if mesh.colors.is_empty() {
            ""
        } else {
            ", vertex colours"
        },
        scene.sockets.len(),
        if l.streamed { ", streamed" } else { "" }
    );
    let files = match gltf::write(&scene, format, base) {
        Ok(f) => f,
        Err(e) => return Outcome::Failed(e),
    };
    let mut written = Vec::new();
    for (k, (file, bytes)) in files.into_iter().enumerate() {
        if let Err(e) = out.write(&file, &bytes) {
            return Outcome::Failed(e.to_string());
        }
        written.push(Written {
            file,
            width: 0,
            height: 0,
            detail: if k == 0 {
                detail.clone()
            } else {
                "glTF buffer".to_string()
            },
        });
    }
    Outcome::Written(written)
}
