//! The generation-neutral scene model: what every mesh reader (UE1 vertex
//! meshes, UE2 static/skeletal meshes, UE4/UE5 meshes) produces and the glTF
//! writer consumes.
//!
//! Coordinates are glTF's: right-handed, +Y up, +Z forward, in the source's
//! units (Unreal units are not rescaled). Each reader converts its axes
//! (see `docs/meshes.md`).

/// A whole export: meshes, materials, images, an optional skeleton and
/// animations.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// The scene's name (the object's name).
    pub name: String,
    /// Meshes (one node each).
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Section::material`].
    pub materials: Vec<Material>,
    /// Images, referenced by [`Material::base_color`] and
    /// [`Material::normal`].
    pub images: Vec<Image>,
    /// Bones, when the meshes are skinned.
    pub skeleton: Option<Skeleton>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// Sockets: named attachment points, written as empty nodes.
    pub sockets: Vec<Socket>,
}

/// A socket: a named attachment point below a bone, or below the first
/// mesh's node when it names no bone.
#[derive(Clone, Debug)]
pub struct Socket {
    /// Name.
    pub name: String,
    /// Index into [`Skeleton::bones`] of the bone it hangs from.
    pub bone: Option<usize>,
    /// Translation from its parent.
    pub translation: [f32; 3],
    /// Rotation quaternion (x, y, z, w), unit length.
    pub rotation: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
}

/// One mesh: vertex attributes shared by its sections.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// Name.
    pub name: String,
    /// Positions, one per vertex.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex (empty: none).
    pub normals: Vec<[f32; 3]>,
    /// UV sets, each one per vertex.
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// Tangents (unit `xyz`, `w` = ±1 the bitangent's sign as glTF defines
    /// it), one per vertex (empty: none); written only where a section's
    /// material has a normal map.
    pub tangents: Vec<[f32; 4]>,
    /// Vertex colours (RGBA, 0–255), one per vertex (empty: none).
    pub colors: Vec<[u8; 4]>,
    /// Skinning: up to four (bone, weight) pairs per vertex (empty: not
    /// skinned). Weights of a vertex sum to 1 (with [`Mesh::weights_1`]
    /// when there are more than four).
    pub joints: Vec<[u16; 4]>,
    /// The weights paired with [`Mesh::joints`].
    pub weights: Vec<[f32; 4]>,
    /// Influences five to eight (`JOINTS_1`), one per vertex when any
    /// vertex has more than four (empty: none). The weights of
    /// [`Mesh::weights`] and [`Mesh::weights_1`] together sum to 1.
    pub joints_1: Vec<[u16; 4]>,
    /// The weights paired with [`Mesh::joints_1`] (`WEIGHTS_1`).
    pub weights_1: Vec<[f32; 4]>,
    /// Index buffers, one per material section.
    pub sections: Vec<Section>,
    /// Morph targets (absolute positions per vertex, not offsets).
    pub morph_targets: Vec<MorphTarget>,
}

/// Triangles drawn with one material.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// Index into [`Scene::materials`] (None: the default material).
    pub material: Option<usize>,
    /// Triangle list: three vertex indices per triangle, front faces
    /// counter-clockwise.
    pub indices: Vec<u32>,
}

/// A morph target: the mesh's positions in another shape (an animation
/// frame of a vertex mesh, a UE4 morph).
#[derive(Clone, Debug, Default)]
pub struct MorphTarget {
    /// Name (a frame number, a morph's name).
    pub name: String,
    /// Absolute positions, one per vertex of the mesh (the writer stores
    /// the differences from [`Mesh::positions`], sparse where few change).
    pub positions: Vec<[f32; 3]>,
}

/// A material slot.
#[derive(Clone, Debug, Default)]
pub struct Material {
    /// Name (the source material or texture).
    pub name: String,
    /// Index into [`Scene::images`] of the base colour texture.
    pub base_color: Option<usize>,
    /// Index into [`Scene::images`] of the tangent-space normal map.
    pub normal: Option<usize>,
    /// Draw both sides.
    pub double_sided: bool,
    /// Alpha: None = opaque; Some(cutoff) = masked at that cutoff.
    pub alpha_mask: Option<f32>,
    /// Translucent (blended).
    pub blend: bool,
}

/// An image (a texture exported as PNG).
#[derive(Clone, Debug, Default)]
pub struct Image {
    /// Name.
    pub name: String,
    /// The PNG file's bytes.
    pub png: Vec<u8>,
    /// Where `.gltf` output puts the PNG, relative to the `.gltf` file.
    pub uri: String,
}

/// A skeleton: bones in parent-before-child order.
#[derive(Clone, Debug, Default)]
pub struct Skeleton {
    /// Bones.
    pub bones: Vec<Bone>,
}

/// One bone in its bind pose, relative to its parent.
#[derive(Clone, Debug)]
pub struct Bone {
    /// Name.
    pub name: String,
    /// Parent bone index (None: a root).
    pub parent: Option<usize>,
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation quaternion (x, y, z, w), unit length.
    pub rotation: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
}

/// How values between keys are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Straight lines between keys.
    #[default]
    Linear,
    /// Hold each key until the next.
    Step,
}

/// An animation: tracks sharing one timeline.
#[derive(Clone, Debug, Default)]
pub struct Animation {
    /// Name (the sequence's).
    pub name: String,
    /// Tracks.
    pub tracks: Vec<Track>,
}

/// One animated property.
#[derive(Clone, Debug)]
pub enum Track {
    /// Morph-target weights of a mesh: `weights` holds, for each time, one
    /// weight per morph target of the mesh.
    MorphWeights {
        /// Index into [`Scene::meshes`].
        mesh: usize,
        /// Key times in seconds, increasing.
        times: Vec<f32>,
        /// `times.len() × morph target count` weights.
        weights: Vec<f32>,
        /// Interpolation.
        interpolation: Interpolation,
    },
    /// A bone's translation, rotation or scale.
    Bone {
        /// Index into [`Skeleton::bones`].
        bone: usize,
        /// Key times in seconds, increasing.
        times: Vec<f32>,
        /// The values.
        values: BoneKeys,
        /// Interpolation.
        interpolation: Interpolation,
    },
}

/// Keys of a bone track, one per time.
#[derive(Clone, Debug)]
pub enum BoneKeys {
    /// Translations.
    Translation(Vec<[f32; 3]>),
    /// Rotation quaternions (x, y, z, w).
    Rotation(Vec<[f32; 4]>),
    /// Scales.
    Scale(Vec<[f32; 3]>),
}

impl Mesh {
    /// Triangles over all sections.
    pub fn triangle_count(&self) -> usize {
        self.sections.iter().map(|s| s.indices.len() / 3).sum()
    }

    /// Smooth normals from the positions and triangles (area-weighted face
    /// normals summed per vertex); vertices on no triangle, or whose sum is
    /// zero, get +Y.
    pub fn compute_normals(&mut self) {
        let mut n = vec![[0f64; 3]; self.positions.len()];
        for s in &self.sections {
            for t in s.indices.chunks_exact(3) {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| self.positions[i as usize]);
                let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]].map(f64::from);
                let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]].map(f64::from);
                let f = [
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                ];
                for &i in t {
                    for k in 0..3 {
                        n[i as usize][k] += f[k];
                    }
                }
            }
        }
        self.normals = n
            .into_iter()
            .map(|v| {
                let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                if l > 1e-12 && l.is_finite() {
                    [(v[0] / l) as f32, (v[1] / l) as f32, (v[2] / l) as f32]
                } else {
                    [0.0, 1.0, 0.0]
                }
            })
            .collect();
    }
}
