//! ActorX output: `.psk` (a mesh with its skeleton and weights) and `.psa`
//! (a skeleton's animations), the files the Blender psk/psa importer and
//! the Unreal editors read.
//!
//! Both are a list of chunks, each a 32-byte header (20-byte NUL-padded
//! id, u32 type flag 20100422, i32 element size, i32 element count) and its
//! elements, little-endian (facts from the public ActorX format notes and
//! UEViewer `Exporters/Psk.h`):
//!
//! ```text
//! .psk  ACTRHEAD (0 elements)
//!       PNTS0000  FVector point                                              12 bytes
//!       VTXW0000  i32 point, f32 U, f32 V, u8 material, u8, u16              16
//!       FACE0000  3 × u16 wedge, u8 material, u8, u32 smoothing groups       12
//!                 (FACE3200 with 3 × i32 wedges, 18 bytes, past 65,535 wedges)
//!       MATT0000  char[64] name, i32 texture, u32 flags, i32, u32, i32, i32  88
//!       REFSKELT  char[64] name, u32 flags, i32 children, i32 parent,
//!                 FQuat, FVector, f32 length, FVector size                   120
//!       RAWWEIGHTS f32 weight, i32 point, i32 bone                           12
//! .psa  ANIMHEAD (0 elements)
//!       BONENAMES (as REFSKELT)                                              120
//!       ANIMINFO  char[64] name, char[64] group, i32 bones, i32, i32, i32 keys,
//!                 f32, f32 track time (frames), f32 rate, i32, i32 first frame,
//!                 i32 frames                                                 168
//!       ANIMKEYS  FVector position, FQuat rotation, f32 time (1): per frame,
//!                 one key per bone                                           32
//! ```
//!
//! Coordinates are Unreal's (the glTF axes of the [`Scene`] converted back)
//! and bone rotations are stored as UE1/UE2 store them (the inverse of
//! [`bone_rotation`](crate::ue2_skel::bone_rotation)). Triangles are
//! written with the reverse of the glTF winding. A scene without a skeleton
//! gets one root bone that every point follows.

use std::collections::HashMap;

use crate::gltf::Files;
use crate::model::{BoneKeys, Interpolation, Scene, Track};

/// The element type flag of every chunk.
const TYPE_FLAG: u32 = 20100422;

/// One sequence of a `.psa`: the animation of the same index in
/// [`Scene::animations`] sampled at `frames` frames of `rate` per second.
#[derive(Clone, Debug, Default)]
pub struct SeqInfo {
    /// Name.
    pub name: String,
    /// Group (empty: `None`).
    pub group: String,
    /// Frames per second.
    pub rate: f32,
    /// Frames.
    pub frames: usize,
}

/// glTF (x, y, z) → Unreal (z, −x, y) (the inverse of
/// [`convert_axes`](crate::ue1_scene::convert_axes)).
fn to_unreal(p: [f32; 3]) -> [f32; 3] {
    [p[2], -p[0], p[1]]
}

/// A glTF bone rotation back to the stored UE2 quaternion.
fn to_unreal_rot(q: [f32; 4], root: bool) -> [f32; 4] {
    let v = to_unreal([q[0], q[1], q[2]]);
    if root {
        [-v[0], -v[1], -v[2], q[3]]
    } else {
        [v[0], v[1], v[2], q[3]]
    }
}

struct Chunks(Vec<u8>);

impl Chunks {
    fn head(&mut self, id: &str, size: usize, count: usize) {
        let mut name = [0u8; 20];
        name[..id.len()].copy_from_slice(id.as_bytes());
        self.0.extend_from_slice(&name);
        self.0.extend_from_slice(&TYPE_FLAG.to_le_bytes());
        self.0.extend_from_slice(&(size as i32).to_le_bytes());
        self.0.extend_from_slice(&(count as i32).to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn name(&mut self, s: &str) {
        let mut b = [0u8; 64];
        let bytes: Vec<u8> = s
            .chars()
            .map(|c| {
                if c.is_ascii() && c != '\0' {
                    c as u8
                } else {
                    b'_'
                }
            })
            .take(63)
            .collect();
        b[..bytes.len()].copy_from_slice(&bytes);
        self.0.extend_from_slice(&b);
    }
}

/// The bones (name, parent, Unreal rotation, Unreal position) of the scene,
/// or one root bone.
fn bones(scene: &Scene) -> Vec<(String, usize, [f32; 4], [f32; 3])> {
    match scene.skeleton.as_ref().filter(|s| !s.bones.is_empty()) {
        Some(sk) => sk
            .bones
            .iter()
            .map(|b| {
                let root = b.parent.is_none();
                (
                    b.name.clone(),
                    b.parent.unwrap_or(0),
                    to_unreal_rot(b.rotation, root),
                    to_unreal(b.translation),
                )
            })
            .collect(),
        None => vec![("root".to_string(), 0, [0.0, 0.0, 0.0, 1.0], [0.0; 3])],
    }
}

fn skeleton_chunk(c: &mut Chunks, id: &str, bones: &[(String, usize, [f32; 4], [f32; 3])]) {
    c.head(id, 120, bones.len());
    for (k, b) in bones.iter().enumerate() {
        let children = bones
            .iter()
            .enumerate()
            .filter(|(j, o)| *j != k && o.1 == k)
            .count();
        c.name(&b.0);
        c.i32(0);
        c.i32(children as i32);
        c.i32(b.1 as i32);
        c.f32s(&b.2);
        c.f32s(&b.3);
        c.f32s(&[0.0; 4]);
    }
}

/// A point: position bits, joints, weight bits.
type PointKey = ([u32; 3], [u16; 4], [u32; 4]);

/// The `.psk` of the scene's first mesh.
pub fn psk(scene: &Scene) -> Result<Vec<u8>, String> {
    let m = scene.meshes.first().ok_or("no mesh to write")?;
    let skinned = !m.joints.is_empty() && scene.skeleton.is_some();
    // Points: equal positions with equal weights are one point.
    let mut point_of: HashMap<PointKey, u32> = HashMap::new();
    let mut points: Vec<usize> = Vec::new();
    let wedge_point: Vec<u32> = (0..m.positions.len())
        .map(|v| {
            let (j, w) = if skinned {
                (m.joints[v], m.weights[v].map(f32::to_bits))
            } else {
                ([0; 4], [0; 4])
            };
            let key = (m.positions[v].map(f32::to_bits), j, w);
            *point_of.entry(key).or_insert_with(|| {
                points.push(v);
                (points.len() - 1) as u32
            })
        })
        .collect();
    let mut wedge_mat = vec![0u8; m.positions.len()];
    for (k, s) in m.sections.iter().enumerate() {
        for &i in &s.indices {
            wedge_mat[i as usize] = k.min(255) as u8;
        }
    }
    let mut c = Chunks(Vec::new());
    c.head("ACTRHEAD", 0, 0);
    c.head("PNTS0000", 12, points.len());
    for &v in &points {
        c.f32s(&to_unreal(m.positions[v]));
    }
    let uv0 = m.uvs.first();
    c.head("VTXW0000", 16, m.positions.len());
    for v in 0..m.positions.len() {
        c.i32(wedge_point[v] as i32);
        c.f32s(&uv0.map_or([0.0; 2], |u| u[v]));
        c.0.extend_from_slice(&[wedge_mat[v], 0, 0, 0]);
    }
    let wide = m.positions.len() > 65535;
    let tris = m.triangle_count();
    c.head(
        if wide { "FACE3200" } else { "FACE0000" },
        if wide { 18 } else { 12 },
        tris,
    );
    for (k, s) in m.sections.iter().enumerate() {
        for t in s.indices.chunks_exact(3) {
            for i in [t[0], t[2], t[1]] {
                if wide {
                    c.i32(i as i32);
                } else {
                    c.0.extend_from_slice(&(i as u16).to_le_bytes());
                }
            }
            c.0.extend_from_slice(&[k.min(255) as u8, 0]);
            c.i32(0);
        }
    }
    c.head("MATT0000", 88, m.sections.len());
    for (k, s) in m.sections.iter().enumerate() {
        let name = s
            .material
            .and_then(|i| scene.materials.get(i))
            .map_or_else(|| format!("material_{k}"), |mat| mat.name.clone());
        c.name(&name);
        c.i32(k as i32);
        c.0.extend_from_slice(&[0u8; 20]);
    }
    let bones = bones(scene);
    skeleton_chunk(&mut c, "REFSKELT", &bones);
    let mut inf: Vec<(f32, u32, u32)> = Vec::new();
    for (p, &v) in points.iter().enumerate() {
        if skinned {
            let more = m.joints_1.len() == m.joints.len() && m.weights_1.len() == m.joints.len();
            for k in 0..8 {
                let (w, b) = match k {
                    0..4 => (m.weights[v][k], m.joints[v][k]),
                    _ if more => (m.weights_1[v][k - 4], m.joints_1[v][k - 4]),
                    _ => break,
                };
                let b = u32::from(b);
                if w > 0.0 && (b as usize) < bones.len() {
                    inf.push((w, p as u32, b));
                }
            }
        } else {
            inf.push((1.0, p as u32, 0));
        }
    }
    c.head("RAWWEIGHTS", 12, inf.len());
    for (w, p, b) in inf {
        c.f32s(&[w]);
        c.i32(p as i32);
        c.i32(b as i32);
    }
    Ok(c.0)
}

/// The value of a track at time `t` (linear, rotations normalised after
/// the blend with the nearer sign; step holds the previous key).
fn sample<const N: usize>(
    times: &[f32],
    v: &[[f32; N]],
    t: f32,
    interp: Interpolation,
) -> Option<[f32; N]> {
    let n = times.len().min(v.len());
    if n == 0 {
        return None;
    }
    let k = times[..n].partition_point(|&x| x <= t);
    if k == 0 {
        return Some(v[0]);
    }
    if k >= n || interp == Interpolation::Step {
        return Some(v[k - 1]);
    }
    let (a, b) = (v[k - 1], v[k]);
    let span = times[k] - times[k - 1];
    let f = if span > 0.0 {
        (t - times[k - 1]) / span
    } else {
        0.0
    };
    let dot: f32 = (0..N).map(|i| a[i] * b[i]).sum();
    let sign = if N == 4 && dot < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0f32; N];
    for i in 0..N {
        out[i] = a[i] + (sign * b[i] - a[i]) * f;
    }
    if N == 4 {
        let l = out.iter().map(|c| c * c).sum::<f32>().sqrt();
        if l > 1e-6 {
            out = out.map(|c| c / l);
        }
    }
    Some(out)
}

/// The `.psa` of the scene's skeleton and animations.
pub fn psa(scene: &Scene, seqs: &[SeqInfo]) -> Result<Vec<u8>, String> {
    let sk = scene
        .skeleton
        .as_ref()
        .filter(|s| !s.bones.is_empty())
        .ok_or("no skeleton for the animations")?;
    let bones = bones(scene);
    let nb = bones.len();
    let total: usize = seqs.iter().map(|s| s.frames).sum();
    if total.saturating_mul(nb) > 1 << 24 {
        return Err(format!(
            "{total} frames of {nb} bones: too many keys for a .psa"
        ));
    }
    let mut c = Chunks(Vec::new());
    c.head("ANIMHEAD", 0, 0);
    skeleton_chunk(&mut c, "BONENAMES", &bones);
    c.head("ANIMINFO", 168, seqs.len());
    let mut first = 0usize;
    for s in seqs {
        c.name(&s.name);
        c.name(if s.group.is_empty() || s.group == "None" {
            "None"
        } else {
            &s.group
        });
        c.i32(nb as i32);
        c.i32(0);
        c.i32(0);
        c.i32((s.frames * nb) as i32);
        c.f32s(&[0.0, s.frames as f32, s.rate]);
        c.i32(0);
        c.i32(first as i32);
        c.i32(s.frames as i32);
        first += s.frames;
    }
    c.head("ANIMKEYS", 32, first * nb);
    for (k, s) in seqs.iter().enumerate() {
        let anim = scene.animations.get(k);
        let rate = if s.rate.is_finite() && s.rate > 0.0 {
            s.rate
        } else {
            30.0
        };
        for f in 0..s.frames {
            let t = f as f32 / rate;
            for (b, bone) in sk.bones.iter().enumerate() {
                let mut rot = bone.rotation;
                let mut pos = bone.translation;
                for tr in anim.map_or(&[][..], |a| &a.tracks[..]) {
                    if let Track::Bone {
                        bone: tb,
                        times,
                        values,
                        interpolation,
                    } = tr
                    {
                        if *tb != b {
                            continue;
                        }
                        match values {
                            BoneKeys::Rotation(v) => {
                                rot = sample(times, v, t, *interpolation).unwrap_or(rot)
                            }
                            BoneKeys::Translation(v) => {
                                pos = sample(times, v, t, *interpolation).unwrap_or(pos)
                            }
                            BoneKeys::Scale(_) => {}
                        }
                    }
                }
                c.f32s(&to_unreal(pos));
                c.f32s(&to_unreal_rot(rot, bone.parent.is_none()));
                c.f32s(&[1.0]);
            }
        }
    }
    Ok(c.0)
}

/// `base.psk` for a scene with a mesh, and `base.psa` when `seqs` is given
/// (a scene with a skeleton and no mesh writes only the `.psa`).
pub fn write(scene: &Scene, base: &str, seqs: Option<&[SeqInfo]>) -> Result<Files, String> {
    let mut out = Vec::new();
    if !scene.meshes.is_empty() {
        out.push((format!("{base}.psk"), psk(scene)?));
    }
    if let Some(s) = seqs.filter(|s| !s.is_empty()) {
        out.push((format!("{base}.psa"), psa(scene, s)?));
    }
    if out.is_empty() {
        return Err("nothing to write as ActorX".into());
    }
    Ok(out)
}
