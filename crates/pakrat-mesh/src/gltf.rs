//! glTF 2.0 writer: a [`Scene`] as one `.glb` (JSON and binary chunk in one
//! file, images embedded) or as `.gltf` + `.bin` (+ the images as PNG files
//! beside it).
//!
//! Layout rules kept (the Khronos glTF-Validator checks them): every buffer
//! view starts on a 4-byte boundary; vertex attribute views carry
//! `byteStride` = the element size and target `ARRAY_BUFFER`; index views
//! target `ELEMENT_ARRAY_BUFFER`; animation, image and sparse views carry
//! no target; every `POSITION` accessor (morph targets too) and every
//! animation input has exact `min`/`max`. Morph targets store differences
//! from the base positions, sparse when fewer than half the vertices move.

use std::collections::BTreeMap;

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use serde_json::Value;

use crate::model::{BoneKeys, Interpolation, Material, Mesh, Scene, Track};

/// Output container.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Binary glTF: one file.
    #[default]
    Glb,
    /// JSON `.gltf` with a separate `.bin` buffer and PNG images.
    Gltf,
}

/// Files of one written scene: (relative path, bytes).
pub type Files = Vec<(String, Vec<u8>)>;

/// What a vertex view holds (decides target and stride).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ViewKind {
    Vertex,
    Index,
    Plain,
}

struct Builder {
    root: json::Root,
    bin: Vec<u8>,
    /// Embed images in the buffer (glb) or refer to their files (gltf).
    embed_images: bool,
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn min_max<const N: usize>(v: &[[f32; N]]) -> (Value, Value) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for e in v {
        for k in 0..N {
            lo[k] = lo[k].min(e[k]);
            hi[k] = hi[k].max(e[k]);
        }
    }
    if v.is_empty() {
        lo = [0.0; N];
        hi = [0.0; N];
    }
    (
        Value::from(lo.iter().map(|&x| f64::from(x)).collect::<Vec<_>>()),
        Value::from(hi.iter().map(|&x| f64::from(x)).collect::<Vec<_>>()),
    )
}

fn vec_type(n: usize) -> json::accessor::Type {
    use json::accessor::Type;
    match n {
        1 => Type::Scalar,
        2 => Type::Vec2,
        3 => Type::Vec3,
        4 => Type::Vec4,
        _ => Type::Mat4,
    }
}

impl Builder {
    /// Append bytes as a new buffer view (4-byte aligned).
    fn view(
        &mut self,
        bytes: &[u8],
        kind: ViewKind,
        stride: usize,
    ) -> json::Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let (target, byte_stride) = match kind {
            ViewKind::Vertex => (
                Some(Valid(json::buffer::Target::ArrayBuffer)),
                Some(json::buffer::Stride(stride)),
            ),
            ViewKind::Index => (Some(Valid(json::buffer::Target::ElementArrayBuffer)), None),
            ViewKind::Plain => (None, None),
        };
        self.root.push(json::buffer::View {
            buffer: json::Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride,
            name: None,
            target,
            extensions: None,
            extras: Default::default(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn accessor(
        &mut self,
        view: Option<json::Index<json::buffer::View>>,
        count: usize,
        ty: json::accessor::ComponentType,
        n: usize,
        normalized: bool,
        bounds: Option<(Value, Value)>,
        sparse: Option<json::accessor::sparse::Sparse>,
    ) -> json::Index<json::Accessor> {
        let (min, max) = match bounds {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: view,
            byte_offset: view.map(|_| USize64(0)),
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(ty)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(vec_type(n)),
            min,
            max,
            name: None,
            normalized,
            sparse,
        })
    }

    /// A float attribute of N components per element.
    fn floats<const N: usize>(
        &mut self,
        v: &[[f32; N]],
        kind: ViewKind,
        bounds: bool,
    ) -> json::Index<json::Accessor> {
        let flat: Vec<f32> = v.iter().flatten().copied().collect();
        let view = self.view(&f32_bytes(&flat), kind, 4 * N);
        let b = bounds.then(|| min_max(v));
        self.accessor(
            Some(view),
            v.len(),
            json::accessor::ComponentType::F32,
            N,
            false,
            b,
            None,
        )
    }

    /// Scalar floats with min/max (animation inputs and outputs).
    fn scalars(&mut self, v: &[f32], bounds: bool) -> json::Index<json::Accessor> {
        let view = self.view(&f32_bytes(v), ViewKind::Plain, 0);
        let b = bounds.then(|| {
            let wrapped: Vec<[f32; 1]> = v.iter().map(|&x| [x]).collect();
            min_max(&wrapped)
        });
        self.accessor(
            Some(view),
            v.len(),
            json::accessor::ComponentType::F32,
            1,
            false,
            b,
            None,
        )
    }

    /// A morph target's position differences, sparse when few vertices move.
    fn morph_positions(
        &mut self,
        base: &[[f32; 3]],
        target: &[[f32; 3]],
    ) -> json::Index<json::Accessor> {
        let delta: Vec<[f32; 3]> = base
            .iter()
            .zip(target)
            .map(|(b, t)| [t[0] - b[0], t[1] - b[1], t[2] - b[2]])
            .collect();
        let moved: Vec<u32> = (0..delta.len() as u32)
            .filter(|&i| delta[i as usize] != [0.0; 3])
            .collect();
        let bounds = Some(min_max(&delta));
        if moved.len() * 2 >= delta.len() {
            let flat: Vec<f32> = delta.iter().flatten().copied().collect();
            let view = self.view(&f32_bytes(&flat), ViewKind::Vertex, 12);
            return self.accessor(
                Some(view),
                delta.len(),
                json::accessor::ComponentType::F32,
                3,
                false,
                bounds,
                None,
            );
        }
        let sparse = if moved.is_empty() {
            None
        } else {
            let (ity, ibytes): (_, Vec<u8>) = if delta.len() <= 65536 {
                (
                    json::accessor::ComponentType::U16,
                    moved
                        .iter()
                        .flat_map(|&i| (i as u16).to_le_bytes())
                        .collect(),
                )
            } else {
                (
                    json::accessor::ComponentType::U32,
                    moved.iter().flat_map(|&i| i.to_le_bytes()).collect(),
                )
            };
            let iview = self.view(&ibytes, ViewKind::Plain, 0);
            let vals: Vec<f32> = moved.iter().flat_map(|&i| delta[i as usize]).collect();
            let vview = self.view(&f32_bytes(&vals), ViewKind::Plain, 0);
            Some(json::accessor::sparse::Sparse {
                count: USize64::from(moved.len()),
                indices: json::accessor::sparse::Indices {
                    buffer_view: iview,
                    byte_offset: USize64(0),
                    component_type: Valid(json::accessor::IndexComponentType(ity)),
                    extensions: None,
                    extras: Default::default(),
                },
                values: json::accessor::sparse::Values {
                    buffer_view: vview,
                    byte_offset: USize64(0),
                    extensions: None,
                    extras: Default::default(),
                },
                extensions: None,
                extras: Default::default(),
            })
        };
        self.accessor(
            None,
            delta.len(),
            json::accessor::ComponentType::F32,
            3,
            false,
            bounds,
            sparse,
        )
    }

    fn indices(&mut self, idx: &[u32], vertices: usize) -> json::Index<json::Accessor> {
        let (ty, bytes): (_, Vec<u8>) = if vertices <= 65535 {
            (
                json::accessor::ComponentType::U16,
                idx.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect(),
            )
        } else {
            (
                json::accessor::ComponentType::U32,
                idx.iter().flat_map(|&i| i.to_le_bytes()).collect(),
            )
        };
        let view = self.view(&bytes, ViewKind::Index, 0);
        self.accessor(Some(view), idx.len(), ty, 1, false, None, None)
    }

    fn images(&mut self, scene: &Scene) {
        // One sampler for every texture: Unreal's default addressing (wrap)
        // and trilinear filtering, stated rather than left to the viewer.
        let sampler = (!scene.images.is_empty()).then(|| {
            self.root.push(json::texture::Sampler {
                mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
                min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
                name: None,
                wrap_s: Valid(json::texture::WrappingMode::Repeat),
                wrap_t: Valid(json::texture::WrappingMode::Repeat),
                extensions: None,
                extras: Default::default(),
            })
        });
        for img in &scene.images {
            let (buffer_view, uri, mime_type) = if self.embed_images {
                let v = self.view(&img.png, ViewKind::Plain, 0);
                (
                    Some(v),
                    None,
                    Some(json::image::MimeType("image/png".into())),
                )
            } else {
                (None, Some(uri_escape(&img.uri)), None)
            };
            let source = self.root.push(json::Image {
                buffer_view,
                mime_type,
                name: Some(img.name.clone()),
                uri,
                extensions: None,
                extras: Default::default(),
            });
            self.root.push(json::Texture {
                name: Some(img.name.clone()),
                sampler,
                source,
                extensions: None,
                extras: Default::default(),
            });
        }
        for m in &scene.materials {
            let alpha_mode = if m.blend {
                json::material::AlphaMode::Blend
            } else if m.alpha_mask.is_some() {
                json::material::AlphaMode::Mask
            } else {
                json::material::AlphaMode::Opaque
            };
            self.root.push(json::Material {
                alpha_cutoff: m.alpha_mask.map(json::material::AlphaCutoff),
                alpha_mode: Valid(alpha_mode),
                double_sided: m.double_sided,
                name: Some(m.name.clone()),
                pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                    base_color_texture: m.base_color.map(|t| json::texture::Info {
                        index: json::Index::new(t as u32),
                        tex_coord: 0,
                        extensions: None,
                        extras: Default::default(),
                    }),
                    // Unreal's classic skins are unlit diffuse maps: no metal.
                    metallic_factor: json::material::StrengthFactor(0.0),
                    roughness_factor: json::material::StrengthFactor(1.0),
                    ..Default::default()
                },
                normal_texture: m.normal.map(|t| json::material::NormalTexture {
                    index: json::Index::new(t as u32),
                    scale: 1.0,
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                }),
                ..Default::default()
            });
        }
    }

    /// `JOINTS_{set}` (`u16`) and `WEIGHTS_{set}` (`f32`).
    fn skin_set(
        &mut self,
        attributes: &mut BTreeMap<
            json::validation::Checked<json::mesh::Semantic>,
            json::Index<json::Accessor>,
        >,
        set: u32,
        joints: &[[u16; 4]],
        weights: &[[f32; 4]],
    ) {
        let bytes: Vec<u8> = joints
            .iter()
            .flatten()
            .flat_map(|j| j.to_le_bytes())
            .collect();
        let v = self.view(&bytes, ViewKind::Vertex, 8);
        let a = self.accessor(
            Some(v),
            joints.len(),
            json::accessor::ComponentType::U16,
            4,
            false,
            None,
            None,
        );
        attributes.insert(Valid(json::mesh::Semantic::Joints(set)), a);
        let w = self.floats(weights, ViewKind::Vertex, false);
        attributes.insert(Valid(json::mesh::Semantic::Weights(set)), w);
    }

    /// One mesh (its attributes shared by one primitive per section).
    fn mesh(&mut self, m: &Mesh, materials: &[Material]) -> json::Index<json::Mesh> {
        let mut attributes = BTreeMap::new();
        let n = m.positions.len();
        let pos = self.floats(&m.positions, ViewKind::Vertex, true);
        attributes.insert(Valid(json::mesh::Semantic::Positions), pos);
        if m.normals.len() == n && n > 0 {
            let a = self.floats(&m.normals, ViewKind::Vertex, false);
            attributes.insert(Valid(json::mesh::Semantic::Normals), a);
            let normal_mapped = m.sections.iter().any(|s| {
                s.material
                    .and_then(|k| materials.get(k))
                    .is_some_and(|x| x.normal.is_some())
            });
            let unit = |t: &[f32; 4]| {
                let l = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
                (l - 1.0).abs() < 1e-3 && t[3].abs() == 1.0
            };
            if normal_mapped && m.tangents.len() == n && m.tangents.iter().all(unit) {
                let a = self.floats(&m.tangents, ViewKind::Vertex, false);
                attributes.insert(Valid(json::mesh::Semantic::Tangents), a);
            }
        }
        for (set, uv) in m.uvs.iter().enumerate() {
            if uv.len() == n {
                let a = self.floats(uv, ViewKind::Vertex, false);
                attributes.insert(Valid(json::mesh::Semantic::TexCoords(set as u32)), a);
            }
        }
        if m.colors.len() == n && n > 0 {
            let bytes: Vec<u8> = m.colors.iter().flatten().copied().collect();
            let v = self.view(&bytes, ViewKind::Vertex, 4);
            let a = self.accessor(
                Some(v),
                n,
                json::accessor::ComponentType::U8,
                4,
                true,
                None,
                None,
            );
            attributes.insert(Valid(json::mesh::Semantic::Colors(0)), a);
        }
        if m.joints.len() == n && m.weights.len() == n && n > 0 {
            self.skin_set(&mut attributes, 0, &m.joints, &m.weights);
            if m.joints_1.len() == n && m.weights_1.len() == n {
                self.skin_set(&mut attributes, 1, &m.joints_1, &m.weights_1);
            }
        }
        let targets: Vec<json::mesh::MorphTarget> = m
            .morph_targets
            .iter()
            .map(|t| json::mesh::MorphTarget {
                positions: Some(self.morph_positions(&m.positions, &t.positions)),
                normals: None,
                tangents: None,
            })
            .collect();
        let targets = (!targets.is_empty()).then_some(targets);
        let mut primitives = Vec::new();
        for s in m.sections.iter().filter(|s| !s.indices.is_empty()) {
            let indices = Some(self.indices(&s.indices, n));
            primitives.push(json::mesh::Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: Default::default(),
                indices,
                material: s.material.map(|i| json::Index::new(i as u32)),
                mode: Valid(json::mesh::Mode::Triangles),
                targets: targets.clone(),
            });
        }
        let weights = (!m.morph_targets.is_empty()).then(|| vec![0.0; m.morph_targets.len()]);
        // The morph targets' names, as Blender and three.js read them.
        let extras = (!m.morph_targets.is_empty())
            .then(|| {
                let names: Vec<&str> = m.morph_targets.iter().map(|t| t.name.as_str()).collect();
                serde_json::value::to_raw_value(&serde_json::json!({ "targetNames": names })).ok()
            })
            .flatten();
        self.root.push(json::Mesh {
            extensions: None,
            extras,
            name: Some(m.name.clone()),
            primitives,
            weights,
        })
    }
}

/// Percent-encode what a relative URI cannot hold as is.
fn uri_escape(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

type Mat4 = [f32; 16];

/// Column-major TRS matrix.
fn trs(t: [f32; 3], q: [f32; 4], s: [f32; 3]) -> Mat4 {
    let [x, y, z, w] = q;
    let r = [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + z * w),
        2.0 * (x * z - y * w),
        2.0 * (x * y - z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + x * w),
        2.0 * (x * z + y * w),
        2.0 * (y * z - x * w),
        1.0 - 2.0 * (x * x + y * y),
    ];
    [
        r[0] * s[0],
        r[1] * s[0],
        r[2] * s[0],
        0.0,
        r[3] * s[1],
        r[4] * s[1],
        r[5] * s[1],
        0.0,
        r[6] * s[2],
        r[7] * s[2],
        r[8] * s[2],
        0.0,
        t[0],
        t[1],
        t[2],
        1.0,
    ]
}

fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut o = [0f32; 16];
    for c in 0..4 {
        for r in 0..4 {
            o[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    o
}

/// Inverse of an affine matrix (last row 0 0 0 1 kept exact).
#[allow(clippy::needless_range_loop)]
fn invert_affine(m: &Mat4) -> Mat4 {
    let a = |r: usize, c: usize| f64::from(m[c * 4 + r]);
    let det = a(0, 0) * (a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1))
        - a(0, 1) * (a(1, 0) * a(2, 2) - a(1, 2) * a(2, 0))
        + a(0, 2) * (a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0));
    let d = if det.abs() < 1e-30 { 1.0 } else { 1.0 / det };
    let mut inv = [[0f64; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            let (r1, r2) = ((c + 1) % 3, (c + 2) % 3);
            let (c1, c2) = ((r + 1) % 3, (r + 2) % 3);
            inv[r][c] = (a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1)) * d;
        }
    }
    let t = [a(0, 3), a(1, 3), a(2, 3)];
    let mut o = [0f32; 16];
    for c in 0..3 {
        for r in 0..3 {
            o[c * 4 + r] = inv[r][c] as f32;
        }
    }
    for r in 0..3 {
        o[12 + r] = -(0..3).map(|k| inv[r][k] * t[k]).sum::<f64>() as f32;
    }
    o[15] = 1.0;
    o
}

fn interp(i: Interpolation) -> json::animation::Interpolation {
    match i {
        Interpolation::Linear => json::animation::Interpolation::Linear,
        Interpolation::Step => json::animation::Interpolation::Step,
    }
}

impl Builder {
    /// Socket nodes, children of their bone's node (`first_bone` + bone)
    /// or of the first mesh's node (else roots of the scene).
    fn sockets(
        &mut self,
        scene: &Scene,
        mesh_nodes: &[json::Index<json::Node>],
        first_bone: Option<usize>,
        scene_nodes: &mut Vec<json::Index<json::Node>>,
    ) {
        let bones = scene.skeleton.as_ref().map_or(0, |s| s.bones.len());
        for s in &scene.sockets {
            let node = self.root.push(json::Node {
                name: Some(s.name.clone()),
                translation: Some(s.translation),
                rotation: Some(json::scene::UnitQuaternion(s.rotation)),
                scale: Some(s.scale),
                ..Default::default()
            });
            let parent = match (s.bone.filter(|&b| b < bones), first_bone) {
                (Some(b), Some(f)) => Some(json::Index::<json::Node>::new((f + b) as u32)),
                _ => mesh_nodes.first().copied(),
            };
            match parent {
                Some(p) => self.root.nodes[p.value()]
                    .children
                    .get_or_insert_with(Vec::new)
                    .push(node),
                None => scene_nodes.push(node),
            }
        }
    }

    /// Bone nodes and the skin; returns (skin, root bone nodes).
    fn skeleton(
        &mut self,
        scene: &Scene,
    ) -> Option<(json::Index<json::Skin>, Vec<json::Index<json::Node>>, usize)> {
        let sk = scene.skeleton.as_ref().filter(|s| !s.bones.is_empty())?;
        let first = self.root.nodes.len();
        let mut global: Vec<Mat4> = Vec::with_capacity(sk.bones.len());
        for b in &sk.bones {
            let local = trs(b.translation, b.rotation, b.scale);
            let g = match b.parent {
                Some(p) if p < global.len() => mul(&global[p], &local),
                _ => local,
            };
            global.push(g);
            self.root.push(json::Node {
                name: Some(b.name.clone()),
                translation: Some(b.translation),
                rotation: Some(json::scene::UnitQuaternion(b.rotation)),
                scale: Some(b.scale),
                ..Default::default()
            });
        }
        let mut roots = Vec::new();
        for (i, b) in sk.bones.iter().enumerate() {
            match b.parent.filter(|&p| p < i) {
                Some(p) => self.root.nodes[first + p]
                    .children
                    .get_or_insert_with(Vec::new)
                    .push(json::Index::new((first + i) as u32)),
                None => roots.push(json::Index::new((first + i) as u32)),
            }
        }
        let ibm: Vec<f32> = global.iter().flat_map(invert_affine).collect();
        let view = self.view(&f32_bytes(&ibm), ViewKind::Plain, 0);
        let acc = self.accessor(
            Some(view),
            global.len(),
            json::accessor::ComponentType::F32,
            16,
            false,
            None,
            None,
        );
        let skin = self.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(acc),
            joints: (0..sk.bones.len())
                .map(|i| json::Index::new((first + i) as u32))
                .collect(),
            name: Some(format!("{} skeleton", scene.name)),
            skeleton: roots.first().copied(),
        });
        Some((skin, roots, first))
    }

    fn animations(
        &mut self,
        scene: &Scene,
        mesh_nodes: &[json::Index<json::Node>],
        first_bone: usize,
    ) {
        for a in &scene.animations {
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            for t in &a.tracks {
                let (node, path, times, output, interpolation) = match t {
                    Track::MorphWeights {
                        mesh,
                        times,
                        weights,
                        interpolation,
                    } => {
                        let Some(&node) = mesh_nodes.get(*mesh) else {
                            continue;
                        };
                        let out = self.scalars(weights, false);
                        (
                            node,
                            json::animation::Property::MorphTargetWeights,
                            times,
                            out,
                            *interpolation,
                        )
                    }
                    Track::Bone {
                        bone,
                        times,
                        values,
                        interpolation,
                    } => {
                        let node = json::Index::new((first_bone + bone) as u32);
                        let (path, out) = match values {
                            BoneKeys::Translation(v) => (
                                json::animation::Property::Translation,
                                self.floats(v, ViewKind::Plain, false),
                            ),
                            BoneKeys::Rotation(v) => (
                                json::animation::Property::Rotation,
                                self.floats(v, ViewKind::Plain, false),
                            ),
                            BoneKeys::Scale(v) => (
                                json::animation::Property::Scale,
                                self.floats(v, ViewKind::Plain, false),
                            ),
                        };
                        (node, path, times, out, *interpolation)
                    }
                };
                if times.is_empty() {
                    continue;
                }
                let input = self.scalars(times, true);
                let s = json::Index::new(samplers.len() as u32);
                samplers.push(json::animation::Sampler {
                    extensions: None,
                    extras: Default::default(),
                    input,
                    interpolation: Valid(interp(interpolation)),
                    output,
                });
                channels.push(json::animation::Channel {
                    sampler: s,
                    target: json::animation::Target {
                        extensions: None,
                        extras: Default::default(),
                        node,
                        path: Valid(path),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            }
            if !channels.is_empty() {
                self.root.push(json::Animation {
                    extensions: None,
                    extras: Default::default(),
                    channels,
                    name: Some(a.name.clone()),
                    samplers,
                });
            }
        }
    }
}

/// Build the glTF document and its binary buffer.
fn build(scene: &Scene, embed_images: bool, bin_uri: Option<String>) -> (json::Root, Vec<u8>) {
    let mut b = Builder {
        root: json::Root::default(),
        bin: Vec::new(),
        embed_images,
    };
    b.root.asset = json::Asset {
        generator: Some(format!("pakrat {}", env!("CARGO_PKG_VERSION"))),
        ..Default::default()
    };
    b.images(scene);
    let skin = b.skeleton(scene);
    let mut scene_nodes = Vec::new();
    let mut mesh_nodes = Vec::new();
    for m in &scene.meshes {
        let mesh = b.mesh(m, &scene.materials);
        let skinned = !m.joints.is_empty();
        let node = b.root.push(json::Node {
            mesh: Some(mesh),
            name: Some(m.name.clone()),
            skin: skin.as_ref().filter(|_| skinned).map(|s| s.0),
            ..Default::default()
        });
        mesh_nodes.push(node);
        scene_nodes.push(node);
    }
    let first_bone = skin.as_ref().map_or(0, |s| s.2);
    if let Some((_, roots, _)) = &skin {
        scene_nodes.extend(roots.iter().copied());
    }
    b.sockets(
        scene,
        &mesh_nodes,
        skin.as_ref().map(|s| s.2),
        &mut scene_nodes,
    );
    b.animations(scene, &mesh_nodes, first_bone);
    let s = b.root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(scene.name.clone()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(s);
    while !b.bin.len().is_multiple_of(4) {
        b.bin.push(0);
    }
    if !b.bin.is_empty() {
        b.root.push(json::Buffer {
            byte_length: USize64::from(b.bin.len()),
            name: None,
            uri: bin_uri,
            extensions: None,
            extras: Default::default(),
        });
    }
    (b.root, b.bin)
}

/// Write `scene` as `base.glb`, or as `base.gltf` + `base.bin` + its
/// images (each at its [`Image::uri`](crate::model::Image::uri), relative
/// to the `.gltf`). `base` is a relative path without extension.
pub fn write(scene: &Scene, format: Format, base: &str) -> Result<Files, String> {
    match format {
        Format::Glb => {
            let (root, bin) = build(scene, true, None);
            let json = root.to_vec().map_err(|e| e.to_string())?;
            Ok(vec![(format!("{base}.glb"), glb(json, &bin)?)])
        }
        Format::Gltf => {
            let file = base.rsplit('/').next().unwrap_or(base);
            let (root, bin) = build(scene, false, Some(uri_escape(&format!("{file}.bin"))));
            let json = root.to_vec_pretty().map_err(|e| e.to_string())?;
            let dir = match base.rfind('/') {
                Some(i) => &base[..=i],
                None => "",
            };
            let mut out = vec![(format!("{base}.gltf"), json)];
            if !bin.is_empty() {
                out.push((format!("{base}.bin"), bin));
            }
            for img in &scene.images {
                out.push((format!("{dir}{}", img.uri), img.png.clone()));
            }
            Ok(out)
        }
    }
}

/// The GLB container: 12-byte header, JSON chunk padded with spaces, BIN
/// chunk padded with zeros (glTF 2.0 §4.4).
fn glb(mut json: Vec<u8>, bin: &[u8]) -> Result<Vec<u8>, String> {
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let bin_len = bin.len().div_ceil(4) * 4;
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin_len };
    let total = u32::try_from(total)
        .map_err(|_| "the scene is larger than a GLB can hold (4 GiB)".to_string())?;
    let mut o = Vec::with_capacity(total as usize);
    o.extend_from_slice(b"glTF");
    o.extend_from_slice(&2u32.to_le_bytes());
    o.extend_from_slice(&total.to_le_bytes());
    o.extend_from_slice(&(json.len() as u32).to_le_bytes());
    o.extend_from_slice(b"JSON");
    o.extend_from_slice(&json);
    if !bin.is_empty() {
        o.extend_from_slice(&(bin_len as u32).to_le_bytes());
        o.extend_from_slice(b"BIN\0");
        o.extend_from_slice(bin);
        o.resize(total as usize, 0);
    }
    Ok(o)
}
