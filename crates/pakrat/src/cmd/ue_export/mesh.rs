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
//! * an `AnimSequence`: its `Skeleton` (found among the inputs) as joints
//!   and the decoded animation as one glTF animation, or with
//!   `--mesh-format psk` an ActorX `.psa`; an animation whose codec is not
//!   decoded is skipped, naming it.
//!
//! A glTF mesh's materials take their base colour and normal map from the
//! material chain of each slot ([`super::material`]), embedded as PNG
//! (`.glb`) or written beside the `.gltf` in `<Name>_textures/`.

use pakrat_asset::props::{Asset, BulkFrom, Opened, Schemas};
use pakrat_mesh::gltf::{self, Files, Format};
use pakrat_mesh::model::Scene;
use pakrat_mesh::ue5::{self, anim, anim_codec, anim_scene, skel_scene, skeleton};

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

/// Calls its callback with an object of the inputs given its full path
/// (`/Game/A/B.B`): the package's asset, the export's index, the schemas
/// and a bulk fetcher; an error names why the object is not there.
pub type Lookup<'l> = dyn Fn(
        &str,
        &mut dyn FnMut(&Asset<'_>, usize, &dyn Schemas, &ue5::BulkFetch<'_>) -> Result<(), String>,
    ) -> Result<(), String>
    + 'l;

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
    lookup: &Lookup<'_>,
) -> Outcome {
    let (out, o) = (c.out, &c.mesh);
    let fetch = |b: &pakrat_asset::bulk::BulkRef| opened.bulk(b, from).map(|c| c.into_owned());
    let mut seqs = None;
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
        "AnimSequence" => match animation(asset, i, schemas, &fetch, lookup, o.psk) {
            Ok((scene, detail, s)) => {
                seqs = Some(s);
                (scene, detail, o.psk)
            }
            Err(out) => return out,
        },
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
        pakrat_mesh::psk::write(&scene, base, seqs.as_deref())
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

/// An object of the inputs read by `f`.
fn find<T>(
    lookup: &Lookup<'_>,
    path: &str,
    f: impl Fn(&Asset<'_>, usize, &dyn Schemas, &ue5::BulkFetch<'_>) -> Result<T, String>,
) -> Result<T, String> {
    let mut got = None;
    lookup(path, &mut |a, i, s, b| {
        got = Some(f(a, i, s, b)?);
        Ok(())
    })?;
    got.ok_or_else(|| format!("{path} was not read"))
}

/// An animation sequence read and decoded.
fn decoded(
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    fetch: &ue5::BulkFetch<'_>,
) -> Result<(anim::AnimInfo, Vec<anim_codec::BoneTrack>), Outcome> {
    let a = anim::read_anim_sequence(asset, i, schemas, fetch)
        .map_err(|e| Outcome::Failed(e.to_string()))?;
    if let Some(why) = anim::anim_problem(&a) {
        return Err(Outcome::Skipped(why));
    }
    let t = anim_codec::decode(&a).map_err(|e| Outcome::Failed(format!("{}: {e}", a.path)))?;
    Ok((a, t))
}

/// The base pose of additive animation `a` (None when it is not additive).
fn base_pose(
    a: &anim::AnimInfo,
    tracks: &[anim_codec::BoneTrack],
    skel: &skeleton::RefSkeleton,
    lookup: &Lookup<'_>,
) -> Result<Option<Vec<skeleton::Transform>>, Outcome> {
    if a.additive == "AAT_None" {
        return Ok(None);
    }
    if let Some(why) = anim_scene::additive_problem(a) {
        return Err(Outcome::Skipped(why));
    }
    let frame = a.ref_frame.max(0) as f32;
    Ok(Some(match a.ref_pose_type.as_str() {
        "ABPT_RefPose" => skel.pose.clone(),
        "ABPT_LocalAnimFrame" => anim_scene::pose_at(tracks, anim_scene::key_count(a), frame, skel),
        _ => {
            let path = a.ref_pose_seq.as_deref().ok_or_else(|| {
                Outcome::Skipped("an additive animation on a base sequence it does not name".into())
            })?;
            let (b, bt) = find(lookup, path, |asset, k, s, f| {
                decoded(asset, k, s, f).map_err(|o| match o {
                    Outcome::Skipped(s) | Outcome::Failed(s) => s,
                    Outcome::Written(_) => String::new(),
                })
            })
            .map_err(|e| Outcome::Skipped(format!("its base sequence: {e}")))?;
            anim_scene::pose_at(&bt, anim_scene::key_count(&b), frame, skel)
        }
    }))
}

/// An animation's scene (on its skeleton), row detail and `.psa` sequence.
fn animation(
    asset: &Asset<'_>,
    i: usize,
    schemas: &dyn Schemas,
    fetch: &ue5::BulkFetch<'_>,
    lookup: &Lookup<'_>,
    psk: bool,
) -> Result<(Scene, String, Vec<pakrat_mesh::psk::SeqInfo>), Outcome> {
    let (a, tracks) = decoded(asset, i, schemas, fetch)?;
    let skel_path = a
        .skeleton
        .clone()
        .ok_or_else(|| Outcome::Skipped("the animation names no Skeleton".into()))?;
    let skel = find(lookup, &skel_path, |asset, k, s, _| {
        skeleton::read_skeleton(asset, k, s)
            .map(|s| s.reference)
            .map_err(|e| e.to_string())
    })
    .map_err(|e| Outcome::Skipped(format!("its skeleton: {e}")))?;
    let base = base_pose(&a, &tracks, &skel, lookup)?;
    let scene =
        anim_scene::to_scene(&a, &tracks, &skel, base.as_deref()).map_err(Outcome::Skipped)?;
    let keys = anim_scene::key_count(&a);
    let rate = anim_scene::frame_rate(&a);
    let mut formats: Vec<&str> = tracks
        .iter()
        .flat_map(|t| {
            [
                t.translation.as_ref().map(|k| k.format),
                t.rotation.as_ref().map(|k| k.format),
                t.scale.as_ref().map(|k| k.format),
            ]
        })
        .flatten()
        .map(|f| anim_codec::FORMATS[usize::from(f)])
        .collect();
    formats.sort_unstable();
    formats.dedup();
    let detail = format!(
        "{} animation, {keys} frames at {rate} fps ({} s), {} tracks on {} bones of {skel_path}, codec {} ({}){}",
        if psk { "psa" } else { "glTF" },
        a.length,
        tracks.len(),
        skel.bones.len(),
        a.bone_codec,
        formats.join(" "),
        if a.additive == "AAT_None" {
            String::new()
        } else {
            format!(", {} on {} applied", a.additive, a.ref_pose_type)
        }
    );
    let seq = pakrat_mesh::psk::SeqInfo {
        name: a.name.clone(),
        group: String::new(),
        rate,
        frames: keys,
    };
    Ok((scene, detail, vec![seq]))
}
