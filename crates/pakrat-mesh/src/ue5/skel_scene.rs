//! A UE4/UE5 skeletal mesh read whole (properties and native data) and
//! built into a [`Scene`]: the mesh's reference skeleton as the glTF
//! skin's joints, each LOD a skinned mesh (up to eight influences per
//! vertex, through the section bone maps, renormalised; five to eight as
//! `JOINTS_1`/`WEIGHTS_1`), the morph
//! targets of the LOD's compressed buffers, the material slots, the mesh's
//! sockets as nodes below their bones; and a skeleton alone as a scene of
//! joints.

use pakrat_asset::props::{Asset, Property, Schemas, Value};
use pakrat_io::{Error, Result};

use super::skeletal_mesh::{self, NativeSkeletalMesh, SkelLod};
use super::skeleton::{bone_sockets, native, BoneSocket, RefSkeleton, Skeleton as UeSkeleton};
use super::static_mesh::BulkFetch;
use super::{convert_tangent, prop, quat_axes, rotator_quat};
use crate::model::{Bone, Material, Mesh, MorphTarget, Scene, Section, Skeleton, Socket};
use crate::ue1_scene::convert_axes;

/// A skeletal mesh: native data and what its properties add.
#[derive(Clone, Debug, Default)]
pub struct SkeletalMesh {
    /// Object name.
    pub name: String,
    /// Full object path.
    pub path: String,
    /// The native part.
    pub native: NativeSkeletalMesh,
    /// Material slots: slot name and material path.
    pub materials: Vec<(String, Option<String>)>,
    /// `Skeleton`: the skeleton asset's path.
    pub skeleton: Option<String>,
    /// `MorphTargets`: the morphs' names, in the order of the compressed
    /// morph buffers.
    pub morph_names: Vec<String>,
    /// The mesh's own sockets (`Sockets`).
    pub sockets: Vec<BoneSocket>,
}

/// The last part of an object path (`/Game/A.A:Morph` → `Morph`).
fn leaf(path: &str) -> String {
    path.rsplit([':', '.']).next().unwrap_or(path).to_string()
}

fn object_names(props: &[Property], name: &str) -> Vec<String> {
    match prop(props, name) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::Object(Some(p)) => leaf(p),
                _ => String::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Read skeletal mesh export `index` of `asset`; `fetch` brings the LODs'
/// bulk payloads.
pub fn read_skeletal_mesh(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
    fetch: &BulkFetch<'_>,
) -> Result<SkeletalMesh> {
    let (p, mut r) = native(asset, index, schemas, "SkeletalMesh")?;
    let e = &asset.exports[index];
    let has_colors = matches!(prop(&p, "bHasVertexColors"), Some(Value::Bool(true)));
    let native = skeletal_mesh::read(asset, index, &mut r, has_colors, fetch)
        .map_err(|err| Error::Other(format!("{}: {err}", e.path)))?;
    let materials = native
        .materials
        .iter()
        .map(|m| (m.slot.clone(), asset.object(m.material).map(str::to_string)))
        .collect();
    Ok(SkeletalMesh {
        name: e.name.clone(),
        path: e.path.clone(),
        materials,
        skeleton: match prop(&p, "Skeleton") {
            Some(Value::Object(o)) => o.clone(),
            _ => None,
        },
        morph_names: object_names(&p, "MorphTargets"),
        sockets: bone_sockets(asset, &p, schemas),
        native,
    })
}

/// The reference skeleton as glTF bones (Unreal → glTF axes).
pub fn skeleton(s: &RefSkeleton) -> Skeleton {
    Skeleton {
        bones: s
            .bones
            .iter()
            .zip(&s.pose)
            .map(|(b, t)| Bone {
                name: b.name.clone(),
                parent: usize::try_from(b.parent).ok(),
                translation: convert_axes(t.translation.map(|x| x as f32)),
                rotation: quat_axes(t.rotation),
                scale: [t.scale[1] as f32, t.scale[2] as f32, t.scale[0] as f32],
            })
            .collect(),
    }
}

/// Sockets below their bones (a socket naming no bone of `s` hangs from
/// the root).
fn sockets(socks: &[BoneSocket], s: &RefSkeleton) -> Vec<Socket> {
    socks
        .iter()
        .map(|k| {
            let sc = k.scale;
            Socket {
                name: k.name.clone(),
                bone: Some(s.bones.iter().position(|b| b.name == k.bone).unwrap_or(0)),
                translation: convert_axes(k.location.map(|x| x as f32)),
                rotation: quat_axes(rotator_quat(k.rotation)),
                scale: [sc[1] as f32, sc[2] as f32, sc[0] as f32],
            }
        })
        .collect()
}

/// Why LOD `lod` of `m` cannot be exported, if it cannot.
pub fn lod_problem(m: &SkeletalMesh, lod: usize) -> Option<String> {
    let n = &m.native;
    match n.lods.get(lod) {
        None if lod < n.lod_count => Some(format!(
            "LOD {lod} was not read: {}",
            n.lod_error.as_deref().unwrap_or("an earlier LOD failed")
        )),
        None => Some(format!("the mesh has {} LODs, not LOD {lod}", n.lod_count)),
        Some(l) if l.cooked_out || l.positions.is_empty() => {
            Some(format!("LOD {lod} holds no vertices (cooked out)"))
        }
        Some(_) if n.skeleton.bones.is_empty() => Some("the mesh has no bones".into()),
        Some(_) => None,
    }
}

/// The skin of a LOD: per vertex up to eight (skeleton bone, weight)
/// pairs, strongest first, in two sets of four (the second empty when no
/// vertex has more than four).
#[derive(Default)]
struct Skin {
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    joints_1: Vec<[u16; 4]>,
    weights_1: Vec<[f32; 4]>,
}

/// Per vertex the eight strongest (skeleton bone, weight) pairs,
/// renormalised over both sets; a vertex of no section, or without
/// weights, follows bone 0.
fn vertex_weights(l: &SkelLod, bones: usize) -> Skin {
    let n = l.positions.len();
    let mut joints = vec![[0u16; 8]; n];
    let mut weights = vec![[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]; n];
    let mut wide = false;
    for s in &l.sections {
        let lo = s.base_vertex as usize;
        let hi = (lo + s.num_vertices as usize).min(n);
        for v in lo..hi {
            let mut inf: Vec<(u16, f32)> = l.weights.influences[v]
                .iter()
                .filter_map(|&(b, w)| {
                    let bone = *s.bone_map.get(usize::from(b))?;
                    (usize::from(bone) < bones && w > 0).then_some((bone, f32::from(w)))
                })
                .collect();
            inf.sort_by(|a, b| b.1.total_cmp(&a.1));
            inf.truncate(8);
            let sum: f32 = inf.iter().map(|x| x.1).sum();
            if inf.is_empty() || sum <= 0.0 {
                continue;
            }
            wide |= inf.len() > 4;
            let mut j = [0u16; 8];
            let mut w = [0f32; 8];
            for (k, &(b, x)) in inf.iter().enumerate() {
                j[k] = b;
                w[k] = x / sum;
            }
            joints[v] = j;
            weights[v] = w;
        }
    }
    let half = |v: &[u16; 8], k: usize| [v[k], v[k + 1], v[k + 2], v[k + 3]];
    let halff = |v: &[f32; 8], k: usize| [v[k], v[k + 1], v[k + 2], v[k + 3]];
    Skin {
        joints: joints.iter().map(|j| half(j, 0)).collect(),
        weights: weights.iter().map(|w| halff(w, 0)).collect(),
        joints_1: if wide {
            joints.iter().map(|j| half(j, 4)).collect()
        } else {
            Vec::new()
        },
        weights_1: if wide {
            weights.iter().map(|w| halff(w, 4)).collect()
        } else {
            Vec::new()
        },
    }
}

/// The most morph-target positions (morphs × vertices) one mesh gets.
pub const MORPH_BUDGET: usize = 1 << 25;

/// LOD `k` as a skinned glTF mesh with its morph targets.
fn lod_mesh(m: &SkeletalMesh, k: usize, slots: usize) -> Mesh {
    let l = &m.native.lods[k];
    let skin = vertex_weights(l, m.native.skeleton.bones.len());
    let mut mesh = Mesh {
        name: if k == 0 {
            m.name.clone()
        } else {
            format!("{} LOD {k}", m.name)
        },
        positions: l.positions.iter().map(|&p| convert_axes(p)).collect(),
        normals: l.vertex.normals.iter().map(|&p| convert_axes(p)).collect(),
        tangents: l
            .vertex
            .tangents
            .iter()
            .map(|&t| convert_tangent(t))
            .collect(),
        uvs: l.vertex.uvs.clone(),
        colors: l.colors.clone(),
        joints: skin.joints,
        weights: skin.weights,
        joints_1: skin.joints_1,
        weights_1: skin.weights_1,
        ..Default::default()
    };
    if mesh.normals.iter().any(|n| n == &[0.0, 0.0, 0.0]) {
        mesh.normals.clear();
    }
    for s in &l.sections {
        let first = s.base_index as usize;
        let tris = &l.indices[first..first + 3 * s.num_triangles as usize];
        let material = usize::try_from(s.material_index)
            .ok()
            .filter(|&i| i < slots);
        mesh.sections.push(Section {
            material,
            indices: tris.to_vec(),
        });
    }
    if mesh.normals.is_empty() {
        mesh.compute_normals();
    }
    if let Some(mb) = &l.morphs {
        for (i, d) in mb.morphs.iter().enumerate() {
            if d.deltas.is_empty() {
                continue;
            }
            // The model holds each morph's whole shape: at most
            // MORPH_BUDGET positions over all morphs (a larger set keeps
            // its first morphs).
            if (mesh.morph_targets.len() + 1) * mesh.positions.len() > MORPH_BUDGET {
                break;
            }
            let mut positions = mesh.positions.clone();
            for &(v, delta) in &d.deltas {
                if let Some(p) = positions.get_mut(v as usize) {
                    let c = convert_axes(delta);
                    *p = [p[0] + c[0], p[1] + c[1], p[2] + c[2]];
                }
            }
            mesh.morph_targets.push(MorphTarget {
                name: m
                    .morph_names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("morph {i}")),
                positions,
            });
        }
    }
    mesh
}

/// The glTF scene of LOD `lod` of `m` (every LOD from `lod` on, one mesh
/// each, with `all_lods`).
pub fn to_scene(
    m: &SkeletalMesh,
    lod: usize,
    all_lods: bool,
) -> std::result::Result<Scene, String> {
    if let Some(p) = lod_problem(m, lod) {
        return Err(p);
    }
    let mut scene = Scene {
        name: m.path.clone(),
        skeleton: Some(skeleton(&m.native.skeleton)),
        ..Default::default()
    };
    for (slot, material) in &m.materials {
        scene.materials.push(Material {
            name: match material {
                Some(p) => format!("{slot}: {p}"),
                None => slot.clone(),
            },
            ..Default::default()
        });
    }
    let last = if all_lods {
        m.native.lods.len()
    } else {
        lod + 1
    };
    for k in lod..last {
        if lod_problem(m, k).is_some() {
            break;
        }
        scene.meshes.push(lod_mesh(m, k, scene.materials.len()));
    }
    scene.sockets = sockets(&m.sockets, &m.native.skeleton);
    Ok(scene)
}

/// A skeleton alone: its joints and sockets (no mesh).
pub fn skeleton_scene(s: &UeSkeleton) -> std::result::Result<Scene, String> {
    if s.reference.bones.is_empty() {
        return Err("the skeleton has no bones".into());
    }
    Ok(Scene {
        name: s.path.clone(),
        skeleton: Some(skeleton(&s.reference)),
        sockets: sockets(&s.sockets, &s.reference),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ue5::skeletal_mesh::RenderSection;

    #[test]
    fn more_than_four_influences_fill_a_second_set_summing_to_one() {
        let mut l = SkelLod {
            positions: vec![[0.0; 3]; 2],
            sections: vec![RenderSection {
                num_vertices: 2,
                bone_map: (0..10).rev().collect(),
                ..Default::default()
            }],
            ..Default::default()
        };
        // Vertex 0: six influences (one of zero weight dropped), vertex 1:
        // two.
        l.weights.influences = vec![
            vec![(0, 60), (1, 50), (2, 40), (3, 30), (4, 20), (5, 10), (6, 0)],
            vec![(0, 200), (1, 55)],
        ];
        let s = vertex_weights(&l, 10);
        assert_eq!(s.joints, [[9, 8, 7, 6], [9, 8, 0, 0]]);
        assert_eq!(s.joints_1, [[5, 4, 0, 0], [0, 0, 0, 0]]);
        for v in 0..2 {
            let sum: f32 = s.weights[v].iter().chain(&s.weights_1[v]).sum();
            assert!((sum - 1.0).abs() < 1e-6, "{v}: {sum}");
        }
        assert!((s.weights_1[0][1] - 10.0 / 210.0).abs() < 1e-6);
        // At most four: no second set.
        l.weights.influences[0].truncate(4);
        assert!(vertex_weights(&l, 10).joints_1.is_empty());
    }
}
