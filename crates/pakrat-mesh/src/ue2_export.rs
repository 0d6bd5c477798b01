//! UE2 skeletal meshes with their animations, vertex meshes and
//! stand-alone animations as scenes: which `MeshAnimation` goes with which
//! `SkeletalMesh`, and the skeleton a stand-alone animation plays on.

use pakrat_classic::export::{ExportOptions, Produced};
use pakrat_classic::{Package, Target};
use pakrat_io::Result;

use crate::export::{files_of, Out};
use crate::psk::SeqInfo;
use crate::ue2_vert::{read_vert_mesh, to_scene as vert_scene};

use crate::model::{Bone, Scene, Skeleton, Socket};
use crate::ue1_scene::convert_axes;
use crate::ue2_anim::{animations, read_mesh_animation, MeshAnimation};
use crate::ue2_skel::{bone_rotation, read_skeletal_mesh, to_scene, SkeletalMesh};

/// The animation of a skeletal mesh: its `Animation` reference when that
/// is a `MeshAnimation` of this package, else the first `MeshAnimation` of
/// the package whose bones all are bones of the mesh. Returns its export
/// index and the animation.
pub fn mesh_animation(pkg: &Package<'_>, m: &SkeletalMesh) -> Option<(usize, MeshAnimation)> {
    let is_anim = |i: usize| {
        pkg.export_class_name(i)
            .is_ok_and(|c| c.eq_ignore_ascii_case("MeshAnimation"))
    };
    if let Ok(Target::Export(i)) = pkg.check_ref(m.animation) {
        if is_anim(i) {
            if let Ok(a) = read_mesh_animation(pkg, i) {
                return Some((i, a));
            }
        }
    }
    (0..pkg.exports.len())
        .filter(|&i| is_anim(i))
        .find_map(|i| {
            let a = read_mesh_animation(pkg, i).ok()?;
            let all = a
                .bones
                .iter()
                .all(|(n, _)| m.bones.iter().any(|b| b.name.eq_ignore_ascii_case(n)));
            (all && !a.bones.is_empty()).then_some((i, a))
        })
}

/// Whether some skeletal mesh of the package that has triangles plays
/// animation `exports[i]` (see [`mesh_animation`]).
pub fn animation_has_mesh(pkg: &Package<'_>, i: usize) -> bool {
    (0..pkg.exports.len())
        .filter(|&k| {
            pkg.export_class_name(k)
                .is_ok_and(|c| c.eq_ignore_ascii_case("SkeletalMesh"))
        })
        .any(|k| {
            read_skeletal_mesh(pkg, k)
                .ok()
                .filter(has_triangles)
                .and_then(|m| mesh_animation(pkg, &m))
                .is_some_and(|(a, _)| a == i)
        })
}

/// Whether the mesh has triangles to export (LOD 0 or the base mesh).
pub fn has_triangles(m: &SkeletalMesh) -> bool {
    m.lod_geometry(0).is_some_and(|g| !g.tris.is_empty())
}

/// The skeletal mesh `exports[i]` with its animation (when found) and its
/// sockets.
pub fn skeletal_scene(
    pkg: &Package<'_>,
    i: usize,
    m: &SkeletalMesh,
    anim: Option<&MeshAnimation>,
    all_lods: bool,
) -> Result<Scene> {
    let mut scene = to_scene(pkg, i, m, all_lods)?;
    let joints: Vec<(String, bool)> = m
        .bones
        .iter()
        .enumerate()
        .map(|(k, b)| (b.name.clone(), k == 0))
        .collect();
    if let Some(a) = anim {
        scene.animations = animations(a, &joints);
    }
    for s in &m.sockets {
        let Some(bone) = m
            .bones
            .iter()
            .position(|b| b.name.eq_ignore_ascii_case(&s.bone))
        else {
            continue;
        };
        scene.sockets.push(Socket {
            name: s.alias.clone(),
            bone: Some(bone),
            translation: convert_axes(s.coords[0]),
            rotation: coords_rotation(&s.coords),
            scale: [1.0; 3],
        });
    }
    Ok(scene)
}

/// The rotation of an `FCoords` (its X, Y, Z axes, Unreal space) as a glTF
/// quaternion: the matrix whose columns are the axes, mirrored like
/// positions; identity when the axes are not orthonormal.
fn coords_rotation(c: &[[f32; 3]; 4]) -> [f32; 4] {
    // Columns in glTF space: the images of glTF's x, y, z (= Unreal −Y, Z, X).
    let [gx, gy, gz] = [c[1], c[2], c[3]].map(convert_axes);
    // glTF basis vector e_x = Unreal −Y: image = −(Y axis image), etc.
    let m = [
        gy.map(|v| -v), // image of glTF x
        gz,             // image of glTF y
        gx,             // image of glTF z
    ];
    let d = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for k in 0..3 {
        if (d(m[k], m[k]) - 1.0).abs() > 1e-3 || (d(m[k], m[(k + 1) % 3])).abs() > 1e-3 {
            return [0.0, 0.0, 0.0, 1.0];
        }
    }
    // Rotation matrix R with R[r][c] = m[c][r].
    let r = |row: usize, c: usize| m[c][row];
    let tr = r(0, 0) + r(1, 1) + r(2, 2);
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            (r(2, 1) - r(1, 2)) / s,
            (r(0, 2) - r(2, 0)) / s,
            (r(1, 0) - r(0, 1)) / s,
            0.25 * s,
        ]
    } else if r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2) {
        let s = (1.0 + r(0, 0) - r(1, 1) - r(2, 2)).sqrt() * 2.0;
        [
            0.25 * s,
            (r(0, 1) + r(1, 0)) / s,
            (r(0, 2) + r(2, 0)) / s,
            (r(2, 1) - r(1, 2)) / s,
        ]
    } else if r(1, 1) > r(2, 2) {
        let s = (1.0 + r(1, 1) - r(0, 0) - r(2, 2)).sqrt() * 2.0;
        [
            (r(0, 1) + r(1, 0)) / s,
            0.25 * s,
            (r(1, 2) + r(2, 1)) / s,
            (r(0, 2) - r(2, 0)) / s,
        ]
    } else {
        let s = (1.0 + r(2, 2) - r(0, 0) - r(1, 1)).sqrt() * 2.0;
        [
            (r(0, 2) + r(2, 0)) / s,
            (r(1, 2) + r(2, 1)) / s,
            0.25 * s,
            (r(1, 0) - r(0, 1)) / s,
        ]
    };
    let l = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if l.is_finite() && l > 1e-6 {
        q.map(|c| c / l)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// A stand-alone animation: its bones (name and parent) as a skeleton
/// posed at the first key of the first sequence, and every sequence.
pub fn animation_scene(pkg: &Package<'_>, i: usize, a: &MeshAnimation) -> Result<Scene> {
    let first = a.moves.first();
    let bones = a
        .bones
        .iter()
        .enumerate()
        .map(|(k, (name, parent))| {
            let t = first.and_then(|m| m.tracks.get(k));
            let root = k == 0 || *parent < 0 || *parent as usize >= k;
            Bone {
                name: name.clone(),
                parent: (!root).then_some(*parent as usize),
                translation: t.and_then(|t| t.positions.first()).map_or([0.0; 3], |&p| {
                    convert_axes(p).map(|c| if c.is_finite() { c } else { 0.0 })
                }),
                rotation: t
                    .and_then(|t| t.quats.first())
                    .map_or([0.0, 0.0, 0.0, 1.0], |&q| bone_rotation(q, root)),
                scale: [1.0; 3],
            }
        })
        .collect::<Vec<_>>();
    let joints: Vec<(String, bool)> = bones
        .iter()
        .map(|b| (b.name.clone(), b.parent.is_none()))
        .collect();
    Ok(Scene {
        name: pkg.export_path(i)?,
        skeleton: Some(Skeleton { bones }),
        animations: animations(a, &joints),
        ..Default::default()
    })
}

/// The sequences' (name, rate, frames) for a `.psa`.
fn seq_infos(a: &MeshAnimation) -> Vec<SeqInfo> {
    a.seqs
        .iter()
        .map(|s| SeqInfo {
            name: s.name.clone(),
            group: s.groups.first().cloned().unwrap_or_default(),
            rate: s.rate,
            frames: s.frames.max(0) as usize,
        })
        .collect()
}

/// The files of UE2 `SkeletalMesh`, `VertMesh` or `MeshAnimation`
/// `exports[i]` (see [`hook`](crate::export::hook)).
pub(crate) fn files(
    pkg: &Package<'_>,
    i: usize,
    class: &str,
    opts: &ExportOptions,
    format: Out,
    base: &str,
) -> Result<Produced> {
    let label = format.label();
    if class.eq_ignore_ascii_case("SkeletalMesh") {
        let m = read_skeletal_mesh(pkg, i)?;
        if !has_triangles(&m) {
            return Ok(Err(
                "no triangles: its LOD models keep only the encoded skinning stream (not decoded) and the base mesh is empty".to_string(),
            ));
        }
        let anim = mesh_animation(pkg, &m);
        let scene = skeletal_scene(pkg, i, &m, anim.as_ref().map(|a| &a.1), opts.mesh_all_lods)?;
        let mesh = &scene.meshes[0];
        let with = match &anim {
            Some((k, a)) => format!(
                ", {} sequences ({} frames) from {}",
                a.seqs.len(),
                a.frame_count(),
                pkg.export_path(*k).unwrap_or_default()
            ),
            None => ", no animation".to_string(),
        };
        let detail = format!(
            "{label} {} vertices, {} triangles, {} bones, {} sockets, {} LODs{with}, {} textures",
            mesh.positions.len(),
            mesh.triangle_count(),
            m.bones.len(),
            scene.sockets.len(),
            scene.meshes.len(),
            scene.images.len()
        );
        let infos = anim.as_ref().map(|a| seq_infos(&a.1));
        return files_of(&scene, format, base, detail, infos.as_deref());
    }
    if class.eq_ignore_ascii_case("VertMesh") {
        let m = read_vert_mesh(pkg, i)?;
        let scene = vert_scene(pkg, i, &m)?;
        let detail = format!(
            "{label} {} vertices ({} wedges), {} triangles, {} frames, {} sequences, {} textures",
            m.vertex_count,
            m.lod.wedges.len(),
            m.lod.faces.len(),
            m.frame_count,
            m.seqs.len(),
            scene.images.len()
        );
        return files_of(&scene, format, base, detail, None);
    }
    let a = read_mesh_animation(pkg, i)?;
    let scene = animation_scene(pkg, i, &a)?;
    let detail = format!(
        "{label} {} bones, {} sequences, {} frames (no skeletal mesh of this package plays it)",
        a.bones.len(),
        a.seqs.len(),
        a.frame_count()
    );
    let infos = seq_infos(&a);
    files_of(&scene, format, base, detail, Some(&infos))
}
