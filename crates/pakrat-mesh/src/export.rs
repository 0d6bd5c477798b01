//! The mesh exporter behind `pakrat export`: the
//! [`MeshHook`](pakrat_classic::export::MeshHook) that the classic
//! exporter calls for `Mesh`/`LodMesh` (UE1) and `StaticMesh` (UE2) objects.

use pakrat_classic::export::{safe_component, ExportOptions, OutFile, Produced};
use pakrat_classic::Package;
use pakrat_io::{Error, Result};

use crate::gltf::{self, Format};
use crate::{ue1, ue1_scene, ue2_static};

/// `Group/Sub/Name` for an export path `Group.Sub.Name`.
fn rel_path(pkg: &Package<'_>, i: usize) -> Result<String> {
    Ok(pkg
        .export_path(i)?
        .split('.')
        .map(safe_component)
        .collect::<Vec<_>>()
        .join("/"))
}

/// Export mesh `exports[i]` as glTF (see [`MeshHook`](pakrat_classic::export::MeshHook)).
/// With `dry`, only the `.glb` (or `.gltf` and `.bin`) path is listed: the
/// skins' PNG files of `.gltf` output are known once the mesh is read.
pub fn hook(pkg: &Package<'_>, i: usize, opts: &ExportOptions, dry: bool) -> Result<Produced> {
    let class = pkg.export_class_name(i)?;
    let is_static = class.eq_ignore_ascii_case("StaticMesh");
    if ue1::mesh_class(class).is_none() && !is_static {
        return Ok(Err(format!("no mesh exporter for class {class}")));
    }
    if !is_static && pkg.summary.version >= 100 {
        return Ok(Err(format!(
            "UE2 {class} (package v{}): not exported yet",
            pkg.summary.version
        )));
    }
    let format = if opts.mesh_gltf {
        Format::Gltf
    } else {
        Format::Glb
    };
    let base = rel_path(pkg, i)?;
    if dry {
        let names = match format {
            Format::Glb => vec![format!("{base}.glb")],
            Format::Gltf => vec![format!("{base}.gltf"), format!("{base}.bin")],
        };
        return Ok(Ok(names
            .into_iter()
            .map(|n| (n, Vec::new(), String::new()))
            .collect()));
    }
    if is_static {
        let m = ue2_static::read_static_mesh(pkg, i)?;
        let scene = ue2_static::to_scene(pkg, i, &m)?;
        let detail = format!(
            "glTF {} vertices, {} triangles, {} sections, {} UV sets{}, {} textures",
            m.positions.len(),
            m.triangle_count(),
            m.sections.len(),
            scene.meshes[0].uvs.len(),
            if scene.meshes[0].colors.is_empty() {
                ""
            } else {
                ", vertex colours"
            },
            scene.images.len()
        );
        return files_of(&scene, format, &base, detail);
    }
    let m = ue1::read_mesh(pkg, i)?;
    let scene = ue1_scene::to_scene(pkg, i, &m)?;
    let mesh = &scene.meshes[0];
    let detail = format!(
        "glTF {} vertices ({} wedges), {} triangles, {} frames, {} sequences, {} skins",
        m.vertex_count(),
        mesh.positions.len(),
        m.triangle_count(),
        m.frame_count(),
        m.seqs.len(),
        scene.images.len()
    );
    files_of(&scene, format, &base, detail)
}

/// Write the scene; the first file carries `detail`.
fn files_of(
    scene: &crate::model::Scene,
    format: Format,
    base: &str,
    detail: String,
) -> Result<Produced> {
    let files = gltf::write(scene, format, base).map_err(Error::Other)?;
    let out: Vec<OutFile> = files
        .into_iter()
        .enumerate()
        .map(|(k, (path, bytes))| {
            let d = if k == 0 {
                detail.clone()
            } else if path.ends_with(".bin") {
                "glTF buffer".to_string()
            } else {
                "skin PNG".to_string()
            };
            (path, bytes, d)
        })
        .collect();
    Ok(Ok(out))
}
