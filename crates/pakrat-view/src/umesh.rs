//! `GET /api/umesh`: a UE4/UE5 `StaticMesh` or `SkeletalMesh` export (a
//! loose package, a package in a `.pak`, a zen package in a container) as
//! one `.glb` (`model/gltf-binary`), built in memory by the readers and the
//! glTF writer `pakrat export` uses (`pakrat_mesh::ue5`): LOD 0, its
//! sections, UV sets and vertex colours; a skeletal mesh skinned to its
//! reference skeleton, with its morph targets. Animations are not decoded
//! (`pakrat export` skips AnimSequence, naming its codec), so a UE4/UE5
//! mesh has none.
//!
//! Bounded: the package's companion files (read whole when the mesh's
//! data lies in them), and eight times the package's and companions'
//! bytes for the mesh, its scene and its `.glb`, are reserved from the
//! pool first.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use pakrat_asset::bulk::{BulkFile, BulkLocation, BulkRef};
use pakrat_mesh::ue5::{self, skel_scene};

use crate::mesh::{write_glb, GLB};
use crate::object::bytes_response;
use crate::umedia::{where_of, Media, MediaQ};
use crate::*;

/// How many times the bytes of a package and its companion files reading
/// a mesh, building its scene and writing its `.glb` may hold.
const MESH_FACTOR: u64 = 8;

/// Whether a UE4/UE5 export of `class` opens in the 3D view.
pub(crate) fn is_viewable(class: &str) -> bool {
    matches!(class, "StaticMesh" | "SkeletalMesh")
}

/// A reference to each companion file a package may have, to count
/// their sizes before any is read.
fn every_companion() -> Vec<BulkRef> {
    [BulkFile::Ubulk, BulkFile::Uptnl, BulkFile::MemoryMapped]
        .into_iter()
        .map(|f| BulkRef {
            location: BulkLocation::File(f),
            ..BulkRef::empty()
        })
        .collect()
}

/// `GET /api/umesh?path=FILE[&package=P]&export=I`: static or skeletal
/// mesh export I as a `.glb`; 400 for another class, 404 past the end,
/// 422 with the reader's message for a mesh that does not read, 501 for
/// one whose LOD 0 cannot be drawn (its data left out of the cook), 413
/// over the request's share.
pub(crate) async fn umesh(
    State(app): State<Arc<App>>,
    Query(q): Query<MediaQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let (file, form, key) = where_of(&app, &q, "mesh")?;
        let name = format!("export{}.glb", q.export);
        if let Some(v) = app.cached(&key) {
            return Ok(bytes_response(v.0.clone(), v.1, &name));
        }
        let m = Media::open(&app, &q, file, form)?;
        m.check(&q, is_viewable, "static or skeletal mesh")?;
        let refs = every_companion();
        let companions = m.companions_cost(&app, &refs.iter().collect::<Vec<_>>())?;
        let cost = (1 << 20) + companions + MESH_FACTOR * (m.bytes + companions);
        let _held = app.budget.reserve(cost, "building this mesh")?;
        let scene = m.with_schemas(|asset, schemas| {
            let fetch = |b: &BulkRef| m.opened.bulk(b, m.holder.from()).map(|c| c.into_owned());
            let origin = &m.opened.origin;
            let read = |e: pakrat_io::Error| damaged(format!("{origin}: {e}"));
            let cannot = |why: String| ApiError(StatusCode::NOT_IMPLEMENTED, why);
            if asset.exports[q.export].class_name() == "SkeletalMesh" {
                let s = skel_scene::read_skeletal_mesh(asset, q.export, schemas, &fetch)
                    .map_err(read)?;
                skel_scene::to_scene(&s, 0, false).map_err(cannot)
            } else {
                let s = ue5::read_static_mesh(asset, q.export, schemas, &fetch).map_err(read)?;
                ue5::to_scene(&s, 0).map_err(cannot)
            }
        })?;
        let v: Blob = Arc::new((write_glb(&scene)?, GLB));
        app.remember(key, v.clone());
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}
