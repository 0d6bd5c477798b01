//! One UE4/UE5 mesh object of `pakrat export`:
//!
//! * a `StaticMesh`: a LOD (0 unless `--lod`) written as glTF (`.glb`, or
//!   `.gltf` + `.bin` with `--mesh-format gltf`): its sections with the
//!   material slots, every UV set, vertex colours, and the sockets as
//!   nodes;
//! * a `SkeletalMesh`: the LOD (or with `--all-lods` every LOD from it on)
//!   skinned to the mesh's reference skeleton, with its morph targets, as
//!   glTF or, with `--mesh-format psk`, ActorX `.psk`;
//! * a `Skeleton`: its joints (and sockets) as a glTF node tree;
//! * an `AnimSequence`: skipped, naming the compression codec that is not
//!   decoded.
//!
//! A glTF mesh's materials take their base colour and normal map from the
//! material chain of each slot ([`super::material`]), embedded as PNG
//! (`.glb`) or written beside the `.gltf` in `<Name>_textures/`.

use pakrat_asset::props::{Asset, BulkFrom, Opened, Schemas};
use pakrat_mesh::gltf::{self, Files, Format};
use pakrat_mesh::model::Scene;
use pakrat_mesh::ue5::{self, anim, skel_scene, skeleton};

use super::material::MaterialUse;
use super::texture::{Outcome, Written};
use super::Ctx;

/// The mesh options of `pakrat export`.
#[derive(Clone, Copy, Debug)]
pub struct MeshOpts {
    /// glTF container.
    pub format: Format,
    /// `--mesh-format psk` (skeletal meshes; the others stay glTF).
    pub psk: bool,
    /// `--lod`.
    pub lod: usize,
    /// `--all-lods` (skeletal meshes).
    pub all_lods: bool,
}

/// Read mesh object `exports[i]` (any class of
/// [`ue5::is_mesh_class`]) and write it below the output folder as
/// `{base}.glb` (or `.gltf` and `.bin`, or `.psk`); a mesh's material
/// slots and their textures go to `materials`.
#[allow(clippy::too_many_arguments)]
pub fn export(
    c: &Ctx<'_>,
    opened: &Opened,
    from: BulkFrom<'_>,
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    base: &str,
    materials: &mut Vec<MaterialUse>,
) -> Outcome {
    let (out, o) = (c.out, &c.mesh);
    let fetch = |b: &pakrat_asset::bulk::BulkRef| opened.bulk(b, from).map(|c| c.into_owned());
    let mut slots = Vec::new();
    let (mut scene, mut detail, psk) = match asset.exports[i].class_name() {
        "SkeletalMesh" => match skeletal(asset, i, schemas, &fetch, o) {
            Ok(x) => {
                slots = x.2;
                (x.0, x.1, o.psk)
            }
            Err(out) => return out,
        },
        "Skeleton" => match skeleton::read_skeleton(asset, i, schemas) {
            Err(e) => return Outcome::Failed(e.to_string()),
            Ok(s) => match skel_scene::skeleton_scene(&s) {
                Err(why) => return Outcome::Skipped(why),
                Ok(scene) => {
                    let d = format!(
                        "glTF skeleton, {} bones, {} sockets, {} virtual bones",
                        s.reference.bones.len(),
                        scene.sockets.len(),
                        s.virtual_bones.len()
                    );
                    (scene, d, false)
                }
            },
        },
        "AnimSequence" => {
            return match anim::read_anim_sequence(asset, i, schemas) {
                Ok(a) => Outcome::Skipped(anim::anim_problem(&a)),
                Err(e) => Outcome::Failed(e.to_string()),
            }
        }
        _ => match static_mesh(asset, i, schemas, &fetch, o.lod) {
            Ok(x) => {
                slots = x.2;
                (x.0, x.1, false)
            }
            Err(out) => return out,
        },
    };
    if !psk && !slots.is_empty() {
        *materials = super::material::resolve(c, &slots, &mut scene, base);
        if !scene.images.is_empty() {
            detail.push_str(&format!(", {} textures", scene.images.len()));
        }
    }
    let files: Result<Files, String> = if psk {
        pakrat_mesh::psk::write(&scene, base, None)
    } else {
        gltf::write(&scene, o.format, base)
    };
    let files = match files {
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

/// A mesh's material slots: slot name and material path.
type Slots = Vec<(String, Option<String>)>;

/// A static mesh's scene, row detail and material slots.
fn static_mesh(
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    fetch: &ue5::BulkFetch<'_>,
    lod: usize,
) -> Result<(Scene, String, Slots), Outcome> {
    let m = ue5::read_static_mesh(asset, i, schemas, fetch)
        .map_err(|e| Outcome::Failed(e.to_string()))?;
    let scene = ue5::to_scene(&m, lod).map_err(Outcome::Skipped)?;
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
    Ok((scene, detail, m.materials))
}

/// A skeletal mesh's scene, row detail and material slots.
fn skeletal(
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    fetch: &ue5::BulkFetch<'_>,
    o: &MeshOpts,
) -> Result<(Scene, String, Slots), Outcome> {
    let m = skel_scene::read_skeletal_mesh(asset, i, schemas, fetch)
        .map_err(|e| Outcome::Failed(e.to_string()))?;
    let scene = skel_scene::to_scene(&m, o.lod, o.all_lods).map_err(Outcome::Skipped)?;
    let lods: Vec<String> = scene
        .meshes
        .iter()
        .map(|mesh| {
            format!(
                "{} vertices, {} triangles",
                mesh.positions.len(),
                mesh.triangle_count()
            )
        })
        .collect();
    let mesh = &scene.meshes[0];
    let detail = format!(
        "{} LOD {}{} of {}, {}, {} sections, {} UV sets{}, {} bones, {} morph targets, {} sockets",
        if o.psk { "psk" } else { "glTF" },
        o.lod,
        if scene.meshes.len() > 1 {
            format!("–{}", o.lod + scene.meshes.len() - 1)
        } else {
            String::new()
        },
        m.native.lod_count,
        lods.join(" / "),
        mesh.sections.len(),
        mesh.uvs.len(),
        if mesh.colors.is_empty() {
            ""
        } else {
            ", vertex colours"
        },
        m.native.skeleton.bones.len(),
        mesh.morph_targets.len(),
        scene.sockets.len(),
    );
    Ok((scene, detail, m.materials))
}
