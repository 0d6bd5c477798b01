//! `GET /api/mesh`: a UE1/UE2 mesh object as one `.glb`
//! (`model/gltf-binary`), built in memory by the readers and the glTF
//! writer `pakrat export` uses (`pakrat_mesh`): UE1 `Mesh`/`LodMesh` with
//! every animation sequence as morph-target animation, UE2 `StaticMesh`,
//! `VertMesh` (morph targets too) and `SkeletalMesh` with the
//! `MeshAnimation` the export pairs with it. LOD 0 only; the skins are the
//! package's textures, embedded as PNG.
//!
//! Bounded: the reader's bytes (the export's data, and for a skeletal mesh
//! the largest animation of the package), the skins' decoding (the
//! textures the mesh's slots name, each as `/api/object` reserves it) and,
//! once the mesh is read, the scene and its `.glb` (a vertex mesh's every
//! frame over every wedge) are reserved from the pool before they are
//! made. The `.glb` is kept in the preview cache.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use pakrat_classic::Package;
use pakrat_mesh::gltf::{self, Format};
use pakrat_mesh::model::Scene;
use pakrat_mesh::{ue1, ue1_scene, ue2_export, ue2_skel, ue2_static, ue2_vert};
use serde::Deserialize;

use crate::listing::open_package;
use crate::object::{bytes_response, export_cost};
use crate::*;

/// The MIME type of a `.glb`.
pub(crate) const GLB: &str = "model/gltf-binary";

/// Bytes per wedge and frame a vertex mesh's scene holds: the frame's
/// absolute positions, their differences from the base and the `.glb`'s
/// copy (12 bytes each), with slack for the sparse indices.
const MORPH_BYTES: u64 = 48;

#[derive(Deserialize)]
pub(crate) struct MeshQ {
    path: String,
    export: usize,
}

/// Whether a UE1/UE2 export of `class` in a package of `version` opens
/// in the 3D view (the classes with triangles the mesh exporter writes).
pub(crate) fn is_viewable(class: &str, version: u16) -> bool {
    let ue2 = version >= 100;
    let is = |c: &str| class.eq_ignore_ascii_case(c);
    is("StaticMesh")
        || (ue2 && (is("SkeletalMesh") || is("VertMesh")))
        || (!ue2 && ue1::mesh_class(class).is_some())
}

fn unshowable(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::NOT_IMPLEMENTED, msg.into())
}

/// `GET /api/mesh?path=PKG&export=I`: mesh export I as a `.glb`; 400 for
/// an export that is no mesh, 404 past the end, 422 with the reader's
/// message for a mesh that does not read, 501 for one with nothing to draw
/// (a skeletal mesh keeping only its encoded skinning stream), 413 over
/// the request's share.
pub(crate) async fn mesh(
    State(app): State<Arc<App>>,
    Query(q): Query<MeshQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let key = format!("mesh\0{}\0{}", file.display(), q.export);
        let name = format!("export{}.glb", q.export);
        if let Some(v) = app.cached(&key) {
            return Ok(bytes_response(v.0.clone(), v.1, &name));
        }
        let src = open_package(&file)?;
        let p = Package::parse(&src).map_err(damaged)?;
        if q.export >= p.exports.len() {
            return Err(ApiError(
                StatusCode::NOT_FOUND,
                format!(
                    "{}: no export {} ({} exports)",
                    q.path,
                    q.export,
                    p.exports.len()
                ),
            ));
        }
        let class = p.export_class_name(q.export).map_err(damaged)?.to_string();
        if !is_viewable(&class, p.summary.version) {
            return Err(bad(format!(
                "{}: {} is a {class} (package version {}), not a mesh the 3D view draws",
                q.path,
                p.export_path(q.export).unwrap_or_default(),
                p.summary.version
            )));
        }
        if let Err(why) = p.summary.object_layout() {
            return Err(unshowable(why));
        }
        let glb = glb_of(&app, &p, q.export, &class)?;
        let v: Blob = Arc::new((glb, GLB));
        app.remember(key, v.clone());
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}

/// The serialized size of `exports[i]`.
fn serial(p: &Package<'_>, i: usize) -> u64 {
    p.exports.get(i).map_or(0, |e| u64::from(e.serial_size))
}

/// What decoding the skins of material references `refs` holds: each
/// texture export they lead to, once, as `/api/object` reserves it.
fn skins_cost(p: &Package<'_>, refs: &[pakrat_classic::ObjRef]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    refs.iter()
        .filter_map(|&r| pakrat_classic::material::base_texture(p, r))
        .filter(|&k| seen.insert(k))
        .map(|k| export_cost(p, k))
        .fold(0u64, u64::saturating_add)
}

/// A vertex mesh's scene and `.glb`: `frames` morph targets over `wedges`
/// vertices, and the base.
fn morph_cost(frames: usize, wedges: usize) -> u64 {
    (frames as u64 + 1)
        .saturating_mul(wedges as u64)
        .saturating_mul(MORPH_BYTES)
}

/// Build mesh `exports[i]` (of `class`) as a scene and write it as a
/// `.glb`, reserving each step's memory first.
fn glb_of(app: &App, p: &Package<'_>, i: usize, class: &str) -> Result<Vec<u8>, ApiError> {
    // Reading: the export's data and what the reader makes of it.
    let _read = app
        .budget
        .reserve((1 << 20) + 4 * serial(p, i), "reading this mesh")?;
    let is = |c: &str| class.eq_ignore_ascii_case(c);
    let (scene, _held) = if is("StaticMesh") {
        let m = ue2_static::read_static_mesh(p, i).map_err(damaged)?;
        let cost = 8 * serial(p, i) + skins_cost(p, &m.materials);
        let held = app.budget.reserve(cost, "building this mesh")?;
        (ue2_static::to_scene(p, i, &m).map_err(damaged)?, held)
    } else if is("SkeletalMesh") {
        skeletal(app, p, i)?
    } else if is("VertMesh") {
        let m = ue2_vert::read_vert_mesh(p, i).map_err(damaged)?;
        let frames = usize::try_from(m.frame_count).unwrap_or(0);
        let cost = morph_cost(frames, m.lod.wedges.len()) + skins_cost(p, &m.lod.textures);
        let held = app.budget.reserve(cost, "building this mesh")?;
        (ue2_vert::to_scene(p, i, &m).map_err(damaged)?, held)
    } else {
        let m = ue1::read_mesh(p, i).map_err(damaged)?;
        // A LodMesh's wedges, else three corners a triangle.
        let wedges = m
            .lod
            .as_ref()
            .map_or(0, |l| l.wedges.len())
            .max(3 * m.triangle_count());
        let cost = morph_cost(m.frame_count(), wedges) + skins_cost(p, &m.textures);
        let held = app.budget.reserve(cost, "building this mesh")?;
        (ue1_scene::to_scene(p, i, &m).map_err(damaged)?, held)
    };
    write_glb(&scene)
}

/// A UE2 skeletal mesh with the animation `pakrat export` pairs with it.
fn skeletal(
    app: &App,
    p: &Package<'_>,
    i: usize,
) -> Result<(Scene, budget::Reservation), ApiError> {
    let m = ue2_skel::read_skeletal_mesh(p, i).map_err(damaged)?;
    if !ue2_export::has_triangles(&m) {
        return Err(unshowable(
            "no triangles: its LOD models keep only the encoded skinning stream (not decoded) and the base mesh is empty",
        ));
    }
    // Finding the animation reads the package's animations one at a time;
    // the one kept becomes tracks (a few copies of its keys).
    let anims = (0..p.exports.len())
        .filter(|&k| {
            p.export_class_name(k)
                .is_ok_and(|c| c.eq_ignore_ascii_case("MeshAnimation"))
        })
        .map(|k| serial(p, k))
        .max()
        .unwrap_or(0);
    let cost = 8 * serial(p, i) + 16 * anims + skins_cost(p, &m.lod.textures);
    let held = app.budget.reserve(cost, "building this mesh")?;
    let anim = ue2_export::mesh_animation(p, &m);
    let scene = ue2_export::skeletal_scene(p, i, &m, anim.as_ref().map(|a| &a.1), false)
        .map_err(damaged)?;
    Ok((scene, held))
}

/// The scene as one `.glb`.
pub(crate) fn write_glb(scene: &Scene) -> Result<Vec<u8>, ApiError> {
    let files = gltf::write(scene, Format::Glb, "mesh")
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e))?;
    files
        .into_iter()
        .next()
        .map(|(_, bytes)| bytes)
        .ok_or_else(|| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "no .glb written".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewable_classes_follow_the_generation() {
        assert!(is_viewable("LodMesh", 69));
        assert!(is_viewable("Mesh", 61));
        assert!(!is_viewable("Mesh", 128));
        assert!(is_viewable("StaticMesh", 128));
        assert!(is_viewable("SkeletalMesh", 128));
        assert!(!is_viewable("SkeletalMesh", 69));
        assert!(!is_viewable("MeshAnimation", 128));
        assert!(!is_viewable("Texture", 69));
        assert_eq!(morph_cost(1, 10), 2 * 10 * MORPH_BYTES);
    }
}
