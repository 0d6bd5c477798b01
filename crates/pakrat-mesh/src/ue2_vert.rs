//! UE2 `ULodMesh` (the part `VertMesh` and `SkeletalMesh` share) and the
//! UE2 vertex mesh `VertMesh`, read with every count checked against the
//! bytes that remain, and the vertex mesh as a [`Scene`] (morph targets,
//! as for UE1 meshes).
//!
//! Layout (facts from UEViewer `Unreal/UnrealMesh/UnMesh2.h`,
//! `UnMesh2.cpp` `ULodMesh::Serialize`, `UVertMesh::Serialize`):
//!
//! ```text
//! UPrimitive  FBox (6 f32 + u8), FSphere (4 f32)
//! ULodMesh    i32 Version, i32 VertexCount, TArray<FMeshVert> Verts (u32 packed 11/11/10),
//!             Version <= 1: TArray<FMeshTri> (20 bytes each),
//!             TArray<UMaterial*> Textures, FVector MeshScale, FVector MeshOrigin,
//!             FRotator RotOrigin (3 i32), Version <= 1: TArray<u16>,
//!             TArray<u16> FaceLevel, TArray<FMeshFace> Faces (3 u16 wedge, u16 material),
//!             TArray<u16> CollapseWedgeThus, TArray<FMeshWedge> Wedges (u16 vertex, f32 U, f32 V),
//!             TArray<FMeshMaterial> Materials (u32 PolyFlags, i32 TextureIndex),
//!             f32 MeshScaleMax, f32 LODHysteresis, f32 LODStrength, i32 LODMinVerts,
//!             f32 LODMorph, f32 LODZDisplace,
//!             Version >= 3: i32 HasImpostor, UMaterial* SpriteMaterial, FVector, FRotator,
//!                           FVector, FColor, 3 × i32 (impostor),
//!             Version >= 4: f32 SkinTesselationFactor
//! UVertMesh   TArray<FAnimMeshVertex> (32 bytes), i32 StreamVersion, TArray<FMeshVert> (empty),
//!             TArray<f32>, TArray<FMeshAnimSeq> AnimSeqs, TArray<FMeshNorm> Normals (u32),
//!             i32 VertexCount, i32 FrameCount, TArray<FBox>, TArray<FSphere>
//! FMeshAnimSeq  (v115+: i32), Name, TArray<Name> Groups, i32 StartFrame, i32 NumFrames,
//!               TArray<(f32 Time, Name Function, v112+: UObject* Notify)>, f32 Rate
//! ```

use pakrat_classic::{ObjRef, Package};
use pakrat_io::{Error, Reader, Result};

use crate::model::{Animation, Interpolation, Material, Mesh, MorphTarget, Scene, Section, Track};
use crate::ue1::unpack_vert;
use crate::ue1_scene::{convert_axes, skin_image};

/// A name index, checked against the name table.
pub(crate) fn name(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let i = r.compact(what)?;
    if i < 0 || i as usize >= pkg.names.len() {
        return Err(Error::invalid(
            at,
            format!("{what}: name index {i} is outside the name table"),
        ));
    }
    Ok(pkg.name(i as u32).to_string())
}

/// An object reference, checked against the tables.
pub(crate) fn object_ref(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<ObjRef> {
    let at = r.offset();
    let o = ObjRef(r.compact(what)?);
    pkg.check_ref(o)
        .map_err(|e| Error::invalid(at, format!("{what}: {e}")))?;
    Ok(o)
}

/// Three f32.
pub(crate) fn vec3(r: &mut Reader<'_>, what: &str) -> Result<[f32; 3]> {
    Ok([r.f32(what)?, r.f32(what)?, r.f32(what)?])
}

/// Skip a `TArray` of fixed-size elements.
pub(crate) fn skip_array(r: &mut Reader<'_>, elem: usize, what: &str) -> Result<usize> {
    let n = r.compact_count(what, elem)?;
    r.skip((n * elem) as u64, what)?;
    Ok(n)
}

/// One face: three wedges and a material.
#[derive(Clone, Copy, Debug)]
pub struct Face {
    /// Wedge indices.
    pub wedges: [u16; 3],
    /// Material index.
    pub material: u16,
}

/// The `ULodMesh` data of a UE2 vertex or skeletal mesh.
#[derive(Clone, Debug, Default)]
pub struct LodBase {
    /// The mesh's own version (1 … 4 in UT2004).
    pub version: i32,
    /// Vertices per frame.
    pub vertex_count: i32,
    /// Packed vertices (`VertMesh`: frames × vertices; `SkeletalMesh`: empty).
    pub verts: Vec<[i16; 3]>,
    /// Skins.
    pub textures: Vec<ObjRef>,
    /// `MeshScale`.
    pub scale: [f32; 3],
    /// `MeshOrigin`.
    pub origin: [f32; 3],
    /// `RotOrigin`.
    pub rot_origin: [i32; 3],
    /// Faces (`VertMesh`).
    pub faces: Vec<Face>,
    /// Wedges: vertex, UV.
    pub wedges: Vec<(u16, [f32; 2])>,
    /// Materials: (PolyFlags, TextureIndex).
    pub materials: Vec<(u32, i32)>,
}

fn face(r: &mut Reader<'_>) -> Result<Face> {
    Ok(Face {
        wedges: [
            r.u16("face wedge")?,
            r.u16("face wedge")?,
            r.u16("face wedge")?,
        ],
        material: r.u16("face material")?,
    })
}

/// Read `ULodMesh` (after the properties; `r` at the `UPrimitive` bounds).
pub fn read_lod_base(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<LodBase> {
    r.skip(25 + 16, "bounds")?;
    let mut m = LodBase {
        version: r.i32("LodMesh version")?,
        vertex_count: r.i32("vertex count")?,
        ..Default::default()
    };
    let n = r.compact_count("vertices", 4)?;
    m.verts = (0..n)
        .map(|_| Ok(unpack_vert(r.u32("vertex")?)))
        .collect::<Result<_>>()?;
    if m.version <= 1 {
        skip_array(r, 20, "old triangles")?;
    }
    let n = r.compact_count("textures", 1)?;
    m.textures = (0..n)
        .map(|_| object_ref(pkg, r, "texture"))
        .collect::<Result<_>>()?;
    m.scale = vec3(r, "MeshScale")?;
    m.origin = vec3(r, "MeshOrigin")?;
    m.rot_origin = [
        r.i32("RotOrigin")?,
        r.i32("RotOrigin")?,
        r.i32("RotOrigin")?,
    ];
    if m.version <= 1 {
        skip_array(r, 2, "old indices")?;
    }
    skip_array(r, 2, "FaceLevel")?;
    let n = r.compact_count("faces", 8)?;
    m.faces = (0..n).map(|_| face(r)).collect::<Result<_>>()?;
    skip_array(r, 2, "CollapseWedgeThus")?;
    let n = r.compact_count("wedges", 10)?;
    m.wedges = (0..n)
        .map(|_| {
            Ok((
                r.u16("wedge vertex")?,
                [r.f32("wedge U")?, r.f32("wedge V")?],
            ))
        })
        .collect::<Result<_>>()?;
    let n = r.compact_count("materials", 8)?;
    m.materials = (0..n)
        .map(|_| Ok((r.u32("material flags")?, r.i32("material texture")?)))
        .collect::<Result<_>>()?;
    r.skip(24, "LOD settings")?;
    if m.version >= 3 {
        r.i32("HasImpostor")?;
        object_ref(pkg, r, "SpriteMaterial")?;
        r.skip(12 + 12 + 12 + 4 + 12, "impostor")?;
    }
    if m.version >= 4 {
        r.f32("SkinTesselationFactor")?;
    }
    Ok(m)
}

/// One animation sequence of a UE2 mesh or `MeshAnimation`.
#[derive(Clone, Debug, Default)]
pub struct AnimSeq {
    /// Name.
    pub name: String,
    /// Groups.
    pub groups: Vec<String>,
    /// First frame.
    pub start: i32,
    /// Frames.
    pub frames: i32,
    /// Frames per second.
    pub rate: f32,
    /// Notifys: (time, function).
    pub notifys: Vec<(f32, String)>,
}

/// Read a `TArray<FMeshAnimSeq>` (UE2).
pub fn read_seqs(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<Vec<AnimSeq>> {
    let v = pkg.summary.version;
    let n = r.compact_count("animation sequences", 15)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        if v >= 115 {
            r.i32("sequence flags")?;
        }
        let seq_name = name(pkg, r, "sequence name")?;
        let ng = r.compact_count("sequence groups", 1)?;
        let groups = (0..ng)
            .map(|_| name_of(pkg, r, "sequence group"))
            .collect::<Result<_>>()?;
        let start = r.i32("sequence start frame")?;
        let frames = r.i32("sequence frame count")?;
        let nn = r.compact_count("sequence notifys", 5)?;
        let mut notifys = Vec::with_capacity(nn);
        for _ in 0..nn {
            let t = r.f32("notify time")?;
            notifys.push((t, name(pkg, r, "notify function")?));
            if v >= 112 {
                object_ref(pkg, r, "notify object")?;
            }
        }
        let rate = r.f32("sequence rate")?;
        out.push(AnimSeq {
            name: seq_name,
            groups,
            start,
            frames,
            rate,
            notifys,
        });
    }
    Ok(out)
}

fn name_of(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
    name(pkg, r, what)
}

/// A UE2 `VertMesh`.
#[derive(Clone, Debug, Default)]
pub struct VertMesh {
    /// The `ULodMesh` part.
    pub lod: LodBase,
    /// Sequences.
    pub seqs: Vec<AnimSeq>,
    /// Vertices per frame.
    pub vertex_count: i32,
    /// Frames.
    pub frame_count: i32,
}

/// Read `exports[i]` as a UE2 `VertMesh`.
pub fn read_vert_mesh(pkg: &Package<'_>, i: usize) -> Result<VertMesh> {
    let o = pakrat_classic::props::read_object(pkg, i)?;
    let mut r = o.native;
    let lod = read_lod_base(pkg, &mut r)?;
    skip_array(&mut r, 32, "animation vertex stream")?;
    r.i32("stream version")?;
    skip_array(&mut r, 4, "Verts2")?;
    skip_array(&mut r, 4, "f150")?;
    let seqs = read_seqs(pkg, &mut r)?;
    skip_array(&mut r, 4, "normals")?;
    let m = VertMesh {
        lod,
        seqs,
        vertex_count: r.i32("vertex count")?,
        frame_count: r.i32("frame count")?,
    };
    skip_array(&mut r, 25, "frame boxes")?;
    skip_array(&mut r, 16, "frame spheres")?;
    if r.remaining() != 0 {
        return Err(Error::invalid(
            r.offset(),
            format!("{} bytes left after the VertMesh data", r.remaining()),
        ));
    }
    m.check()?;
    Ok(m)
}

impl VertMesh {
    fn check(&self) -> Result<()> {
        let bad = |s: String| Err(Error::Other(s));
        let (nv, nf) = (self.vertex_count, self.frame_count);
        if nv < 0 || nf < 0 || nv as i64 * nf as i64 != self.lod.verts.len() as i64 {
            return bad(format!(
                "{nv} vertices × {nf} frames, {} stored",
                self.lod.verts.len()
            ));
        }
        // Each wedge becomes a vertex of every frame's morph target.
        if self.lod.wedges.len() > 8 * nv as usize + 64 {
            return bad(format!(
                "{} wedges for {nv} vertices",
                self.lod.wedges.len()
            ));
        }
        if let Some(w) = self.lod.wedges.iter().find(|w| i32::from(w.0) >= nv) {
            return bad(format!("wedge vertex {} outside the {nv} vertices", w.0));
        }
        let nw = self.lod.wedges.len();
        if let Some(f) = self
            .lod
            .faces
            .iter()
            .find(|f| f.wedges.iter().any(|&w| usize::from(w) >= nw))
        {
            return bad(format!("face {:?} outside the {nw} wedges", f.wedges));
        }
        for s in &self.seqs {
            if s.start < 0 || s.frames < 0 || s.start as i64 + s.frames as i64 > nf as i64 {
                return bad(format!(
                    "sequence {} frames {}+{} outside the {nf} frames",
                    s.name, s.start, s.frames
                ));
            }
        }
        Ok(())
    }

    /// Vertex `v` of frame `f` in Unreal units: `(packed − MeshOrigin) × MeshScale`.
    pub fn vertex(&self, f: usize, v: usize) -> [f32; 3] {
        let p = self.lod.verts[f * self.vertex_count as usize + v];
        [0, 1, 2].map(|k| (f32::from(p[k]) - self.lod.origin[k]) * self.lod.scale[k])
    }
}

/// `PF_TwoSided`, `PF_Masked`, `PF_Translucent`.
const PF_TWO_SIDED: u32 = 0x100;
const PF_MASKED: u32 = 0x02;
const PF_TRANSLUCENT: u32 = 0x04;

/// The materials of a `ULodMesh`: one per material slot, its skin embedded
/// when it is a texture of this package.
pub(crate) fn lod_materials(
    pkg: &Package<'_>,
    lod: &LodBase,
    short: &str,
    scene: &mut Scene,
) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, &(flags, tex)) in lod.materials.iter().enumerate() {
        let r = usize::try_from(tex)
            .ok()
            .and_then(|t| lod.textures.get(t).copied())
            .unwrap_or(ObjRef::NONE);
        let name = if r.is_none() {
            format!("material {k}")
        } else {
            format!("material {k}: {}", pkg.object_path(r).unwrap_or_default())
        };
        let base_color = skin_image(pkg, r, short, &mut scene.images);
        scene.materials.push(Material {
            name,
            base_color,
            double_sided: flags & PF_TWO_SIDED != 0,
            alpha_mask: (flags & PF_MASKED != 0).then_some(0.5),
            blend: flags & PF_TRANSLUCENT != 0,
            normal: None,
        });
        out.push(scene.materials.len() - 1);
    }
    out
}

/// One section per material slot from `(three wedges, material)` triangles;
/// a material index beyond the slots gets the default material. The
/// corners keep their stored order (see [`to_scene`]).
pub(crate) fn sections_of(
    tris: impl Iterator<Item = ([u16; 3], usize)>,
    slots: &[usize],
) -> Vec<Section> {
    let mut secs: Vec<Section> = slots
        .iter()
        .map(|&m| Section {
            material: Some(m),
            indices: Vec::new(),
        })
        .collect();
    let mut extra = Section::default();
    for (w, mat) in tris {
        let s = secs.get_mut(mat).unwrap_or(&mut extra);
        s.indices.extend(w.iter().map(|&x| u32::from(x)));
    }
    if !extra.indices.is_empty() {
        secs.push(extra);
    }
    secs.retain(|s| !s.indices.is_empty());
    secs
}

/// Build the scene of `exports[i]`, read as `m`: vertices are the wedges,
/// frame 0 the base shape, one morph target per frame and one animation of
/// the morph weights per sequence (as for UE1 meshes, docs/meshes.md).
/// Triangles are written with their second and third corners swapped,
/// as for UE1 vertex meshes.
pub fn to_scene(pkg: &Package<'_>, i: usize, m: &VertMesh) -> Result<Scene> {
    let short = pkg.name(pkg.export(i)?.object_name).to_string();
    let mut scene = Scene {
        name: pkg.export_path(i)?,
        ..Default::default()
    };
    let frames = m.frame_count.max(0) as usize;
    let pos_of = |f: usize| -> Vec<[f32; 3]> {
        m.lod
            .wedges
            .iter()
            .map(|w| convert_axes(m.vertex(f, usize::from(w.0))))
            .collect()
    };
    let slots = lod_materials(pkg, &m.lod, &short, &mut scene);
    let mut mesh = Mesh {
        name: short,
        positions: if frames > 0 {
            pos_of(0)
        } else {
            vec![[0.0; 3]; m.lod.wedges.len()]
        },
        uvs: vec![m.lod.wedges.iter().map(|w| w.1).collect()],
        sections: sections_of(
            m.lod.faces.iter().map(|f| {
                (
                    [f.wedges[0], f.wedges[2], f.wedges[1]],
                    usize::from(f.material),
                )
            }),
            &slots,
        ),
        ..Default::default()
    };
    mesh.compute_normals();
    // Morph weights: sequence keys × frames, bounded by what the file holds.
    let keys: usize = m.seqs.iter().map(|s| s.frames.max(0) as usize).sum();
    if keys.saturating_mul(frames) > 8 * m.lod.verts.len() + (1 << 20) {
        return Err(Error::Other(format!(
            "{keys} sequence keys × {frames} frames of morph weights for {} stored vertices",
            m.lod.verts.len()
        )));
    }
    if frames > 1 {
        for f in 0..frames {
            mesh.morph_targets.push(MorphTarget {
                name: format!("frame {f}"),
                positions: pos_of(f),
            });
        }
        for s in m.seqs.iter().filter(|s| s.frames > 0) {
            let n = s.frames as usize;
            let rate = if s.rate.is_finite() && s.rate > 0.0 {
                s.rate
            } else {
                30.0
            };
            let mut weights = vec![0f32; n * frames];
            for k in 0..n {
                weights[k * frames + s.start as usize + k] = 1.0;
            }
            scene.animations.push(Animation {
                name: s.name.clone(),
                tracks: vec![Track::MorphWeights {
                    mesh: 0,
                    times: (0..n).map(|k| k as f32 / rate).collect(),
                    weights,
                    interpolation: Interpolation::Linear,
                }],
            });
        }
    }
    scene.meshes.push(mesh);
    Ok(scene)
}
