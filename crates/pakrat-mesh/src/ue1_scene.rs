//! A UE1 vertex mesh as a [`Scene`]: one mesh whose vertices are the
//! wedges (vertex + UV), one section per material slot, one morph target
//! per animation frame, one animation per sequence (morph-target weights,
//! one-hot per frame, linear), and the skins as embedded PNG images.
//!
//! Axes: Unreal is left-handed, X forward, Y right, Z up; glTF is
//! right-handed, Y up, +Z forward. A point (X, Y, Z) becomes
//! (−Y, Z, X): the mesh keeps facing +X of Unreal = +Z of glTF, and the
//! one mirrored axis turns the handedness. Each triangle's second and third
//! corners are swapped: with the stored order, every mesh of the corpus
//! has a negative signed volume after the conversion (its faces would
//! point inwards). Units are Unreal units, not rescaled.

use std::collections::HashMap;

use pakrat_classic::export::{export_files, ExportOptions, Kind, Made};
use pakrat_classic::{Package, Target};
use pakrat_io::Result;

use crate::model::{
    Animation, Image, Interpolation, Material, Mesh, MorphTarget, Scene, Section, Track,
};
use crate::ue1::VertMesh;

/// `PF_Masked`.
const PF_MASKED: u32 = 0x02;
/// `PF_Translucent`.
const PF_TRANSLUCENT: u32 = 0x04;
/// `PF_TwoSided`.
const PF_TWO_SIDED: u32 = 0x100;

/// Unreal (X, Y, Z) → glTF (−Y, Z, X).
pub fn convert_axes(p: [f32; 3]) -> [f32; 3] {
    [-p[1], p[2], p[0]]
}

/// One drawn corner: (vertex, UV, material slot).
struct Corners {
    /// (vertex, U, V) per glTF vertex.
    verts: Vec<(usize, [u8; 2])>,
    /// Triangles: three glTF vertices and a material slot.
    tris: Vec<([u32; 3], usize)>,
    /// Material slots: (PolyFlags, texture index).
    slots: Vec<(u32, usize)>,
}

fn corners(m: &VertMesh) -> Corners {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    let mut slots = Vec::new();
    match &m.lod {
        Some(l) => {
            let special = l.special_verts.max(0) as usize;
            verts.extend(l.wedges.iter().map(|w| (usize::from(w.0) + special, w.1)));
            for f in &l.faces {
                let [a, b, c] = f.wedges.map(u32::from);
                tris.push(([a, c, b], usize::from(f.material)));
            }
            slots.extend(l.materials.iter().map(|&(fl, t)| (fl, t.max(0) as usize)));
        }
        None => {
            // A Mesh's triangles carry their own UVs: share equal corners.
            let mut seen: HashMap<(u16, [u8; 2]), u32> = HashMap::new();
            let mut slot_of: HashMap<usize, usize> = HashMap::new();
            for t in &m.tris {
                let tex = t.texture.max(0) as usize;
                let slot = *slot_of.entry(tex).or_insert_with(|| {
                    slots.push((0, tex));
                    slots.len() - 1
                });
                slots[slot].0 |= t.poly_flags;
                let idx = [0, 1, 2].map(|k| {
                    *seen.entry((t.verts[k], t.uv[k])).or_insert_with(|| {
                        verts.push((usize::from(t.verts[k]), t.uv[k]));
                        (verts.len() - 1) as u32
                    })
                });
                tris.push(([idx[0], idx[2], idx[1]], slot));
            }
        }
    }
    Corners { verts, tris, slots }
}

/// The skin of a texture index as a PNG, when it is a texture of this
/// package that exports; its name either way.
fn skin(pkg: &Package<'_>, m: &VertMesh, tex: usize) -> (String, Option<Vec<u8>>) {
    let Some(&r) = m.textures.get(tex) else {
        return (format!("Skin{tex}"), None);
    };
    let name = pkg.object_path(r).unwrap_or_else(|_| format!("Skin{tex}"));
    let Ok(Target::Export(i)) = pkg.check_ref(r) else {
        return (name, None);
    };
    let opts = ExportOptions {
        kinds: vec![Kind::Texture],
        ..Default::default()
    };
    match export_files(pkg, i, &opts) {
        Ok(Made::Files(_, files)) => (name, files.into_iter().next().map(|f| f.1)),
        _ => (name, None),
    }
}

/// Build the scene of `exports[i]`, read as `m`.
pub fn to_scene(pkg: &Package<'_>, i: usize, m: &VertMesh) -> Result<Scene> {
    let name = pkg.export_path(i)?;
    let short = pkg.name(pkg.export(i)?.object_name).to_string();
    let c = corners(m);
    // Real meshes have at most 2 drawn corners per vertex (UV seams).
    if c.verts.len() > 4 * m.vertex_count() + 64 {
        return Err(pakrat_io::Error::Other(format!(
            "{} distinct triangle corners for {} vertices",
            c.verts.len(),
            m.vertex_count()
        )));
    }
    let frames = m.frame_count().max(1).min(m.frame_count());
    let pos_of = |f: usize| -> Vec<[f32; 3]> {
        c.verts
            .iter()
            .map(|&(v, _)| convert_axes(m.vertex(f, v)))
            .collect()
    };
    let mut mesh = Mesh {
        name: short.clone(),
        positions: if frames > 0 {
            pos_of(0)
        } else {
            vec![[0.0; 3]; c.verts.len()]
        },
        uvs: vec![c
            .verts
            .iter()
            .map(|&(_, uv)| [f32::from(uv[0]) / 256.0, f32::from(uv[1]) / 256.0])
            .collect()],
        ..Default::default()
    };
    let mut scene = Scene {
        name: name.clone(),
        ..Default::default()
    };
    let mut image_of: HashMap<usize, Option<usize>> = HashMap::new();
    for &(flags, tex) in &c.slots {
        let image = *image_of.entry(tex).or_insert_with(|| {
            let (tname, png) = skin(pkg, m, tex);
            png.map(|png| {
                let file = pakrat_classic::export::safe_component(&tname);
                scene.images.push(Image {
                    name: tname,
                    png,
                    uri: format!(
                        "{}_skins/{file}.png",
                        pakrat_classic::export::safe_component(&short)
                    ),
                });
                scene.images.len() - 1
            })
        });
        let tname = m
            .textures
            .get(tex)
            .and_then(|&r| pkg.object_path(r).ok())
            .unwrap_or_else(|| format!("Skin{tex}"));
        scene.materials.push(Material {
            name: format!("skin {tex}: {tname}"),
            base_color: image,
            double_sided: flags & PF_TWO_SIDED != 0,
            alpha_mask: (flags & PF_MASKED != 0).then_some(0.5),
            blend: flags & PF_TRANSLUCENT != 0,
            normal: None,
        });
    }
    for s in 0..c.slots.len() {
        let indices: Vec<u32> = c
            .tris
            .iter()
            .filter(|t| t.1 == s)
            .flat_map(|t| t.0)
            .collect();
        mesh.sections.push(Section {
            material: Some(s),
            indices,
        });
    }
    mesh.compute_normals();
    if frames > 1 || (frames == 1 && !m.seqs.is_empty()) {
        for f in 0..frames {
            mesh.morph_targets.push(MorphTarget {
                name: format!("frame {f}"),
                positions: pos_of(f),
            });
        }
        for s in &m.seqs {
            let n = s.frames.max(0) as usize;
            if n == 0 {
                continue;
            }
            let rate = if s.rate.is_finite() && s.rate > 0.0 {
                s.rate
            } else {
                30.0
            };
            let times: Vec<f32> = (0..n).map(|k| k as f32 / rate).collect();
            let mut weights = vec![0f32; n * frames];
            for k in 0..n {
                weights[k * frames + s.start as usize + k] = 1.0;
            }
            scene.animations.push(Animation {
                name: s.name.clone(),
                tracks: vec![Track::MorphWeights {
                    mesh: 0,
                    times,
                    weights,
                    interpolation: Interpolation::Linear,
                }],
            });
        }
    }
    scene.meshes.push(mesh);
    Ok(scene)
}

/// The image of material reference `r` when it is a texture of this
/// package that exports as PNG, or a UE2 material whose base colour is one
/// (`pakrat_classic::material::base_texture`): pushed to `images` (once per
/// name, its `.gltf` file in `<mesh>_skins/`), its index returned.
pub fn skin_image(
    pkg: &Package<'_>,
    r: pakrat_classic::ObjRef,
    mesh: &str,
    images: &mut Vec<Image>,
) -> Option<usize> {
    // A UE2 material (Shader, Combiner, FinalBlend...) shows the texture its
    // colour chain reaches (`pakrat_classic::material`).
    let i = pakrat_classic::material::base_texture(pkg, r)?;
    let r = pakrat_classic::ObjRef::export(i);
    let Ok(Target::Export(i)) = pkg.check_ref(r) else {
        return None;
    };
    let name = pkg.object_path(r).ok()?;
    if let Some(k) = images.iter().position(|im| im.name == name) {
        return Some(k);
    }
    let opts = ExportOptions {
        kinds: vec![Kind::Texture],
        ..Default::default()
    };
    let Ok(Made::Files(_, files)) = export_files(pkg, i, &opts) else {
        return None;
    };
    let png = files.into_iter().next()?.1;
    let file = pakrat_classic::export::safe_component(&name);
    images.push(Image {
        name,
        png,
        uri: format!(
            "{}_skins/{file}.png",
            pakrat_classic::export::safe_component(mesh)
        ),
    });
    Some(images.len() - 1)
}
