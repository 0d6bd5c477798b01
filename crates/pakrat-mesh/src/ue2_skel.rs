//! UE2 `SkeletalMesh` (UT2003/UT2004 packages v117–128 and the generic UE2
//! layout of other licensees, e.g. Harry Potter 3): the reference
//! skeleton, the LOD models and the base mesh, read with every count
//! checked against the bytes that remain.
//!
//! Layout after the [`ULodMesh`](crate::ue2_vert::read_lod_base) part
//! (facts from UEViewer `Unreal/UnrealMesh/UnMesh2.h`, `UnMesh2.cpp`
//! `USkeletalMesh::Serialize`, `UnMesh.h` `FMeshBone`):
//!
//! ```text
//! TArray<FVector> Points2
//! TArray<FMeshBone> RefSkeleton   Name, u32 Flags, FQuat (4 f32), FVector Position,
//!                                 f32 Length, FVector Size, i32 NumChildren, i32 ParentIndex
//! UMeshAnimation* Animation, i32 SkeletalDepth,
//! TArray<(TArray<u16>, i32)> WeightIndices, TArray<(u16, u16)> BoneInfluences,
//! TArray<Name> AttachAliases, TArray<Name> AttachBoneNames, TArray<FCoords> AttachCoords (4 FVector)
//! TArray<FStaticLODModel> LODModels:
//!     TArray<u32> SkinningData, TArray<(FVector, u32)> SkinPoints, i32 NumSoftWedges,
//!     TArray<Section> SoftSections, TArray<Section> RigidSections  (9 u16 each)
//!     (TArray<u16>, i32) SoftIndices, (TArray<u16>, i32) RigidIndices,
//!     i32 Revision, i32, i32, TArray<(FVector, FVector, f32 U, f32 V)> rigid vertex stream,
//!     TLazyArray<(f32 Weight, u16 Point, u16 Bone)> VertInfluences,
//!     TLazyArray<(u16, f32, f32)> Wedges, TLazyArray<(3 u16, u16)> Faces, TLazyArray<FVector> Points,
//!     f32 LODDistanceFactor, f32 LODHysteresis, i32 NumSharedVerts, i32 LODMaxInfluences, i32, i32
//! UObject*, TLazyArray<FVector> Points, TLazyArray<FMeshWedge> Wedges,
//! TLazyArray<(3 u16, u8 Mat, u8, u32)> Triangles, TLazyArray<influence> VertInfluences,
//! TLazyArray<u16> CollapseWedge, TLazyArray<u16>
//! v120+: u32 AuthKey
//! UT2 (v117–119 lic 25–27, v120 lic 27–28, v121–128 lic 29):
//!     v122+: KarmaProps, TArray<bone sphere>, TArray<bone box>, TArray<UObject*>; v127+: UObject*
//! other UE2: v124+: KarmaProps, spheres, boxes; v125+: TArray<UObject*>
//! bone sphere = Name, FVector, f32 (UT2: v124+ i32, v125+ 2 i32); box = Name, 2 FVector (same)
//! ```
//!
//! A `TLazyArray` starts with the absolute offset of its end (checked).

use pakrat_classic::{ObjRef, Package};
use pakrat_io::{Error, Reader, Result};

use crate::model::{Bone, Mesh, Scene, Skeleton};
use crate::ue1_scene::convert_axes;
use crate::ue2_vert::{
    lod_materials, name, object_ref, read_lod_base, sections_of, skip_array, vec3, Face, LodBase,
};

/// One bone of the reference skeleton, as stored.
#[derive(Clone, Debug)]
pub struct RefBone {
    /// Name.
    pub name: String,
    /// Parent (the root is its own parent, index 0).
    pub parent: i32,
    /// Orientation as stored (x, y, z, w).
    pub orientation: [f32; 4],
    /// Position relative to the parent.
    pub position: [f32; 3],
}

/// A socket: an alias attached to a bone.
#[derive(Clone, Debug)]
pub struct Socket {
    /// Alias.
    pub alias: String,
    /// Bone name.
    pub bone: String,
    /// Origin, X, Y, Z axes (Unreal axes, in the bone's space).
    pub coords: [[f32; 3]; 4],
}

/// One skinned geometry: points, wedges (point, UV), triangles (three
/// wedges, material) and influences (weight, point, bone).
#[derive(Clone, Debug, Default)]
pub struct SkinGeometry {
    /// Points (Unreal axes).
    pub points: Vec<[f32; 3]>,
    /// Wedges.
    pub wedges: Vec<(u16, [f32; 2])>,
    /// Triangles: three wedges and a material.
    pub tris: Vec<([u16; 3], usize)>,
    /// Influences: (weight, point, bone).
    pub influences: Vec<(f32, u16, u16)>,
}

/// A UE2 skeletal mesh.
#[derive(Clone, Debug, Default)]
pub struct SkeletalMesh {
    /// The `ULodMesh` part.
    pub lod: LodBase,
    /// Reference skeleton.
    pub bones: Vec<RefBone>,
    /// The `Animation` reference.
    pub animation: ObjRef,
    /// Sockets.
    pub sockets: Vec<Socket>,
    /// LOD models (only those whose faces are all in soft or all in rigid
    /// sections are kept as geometry; see [`SkeletalMesh::lod_geometry`]).
    pub lods: Vec<SkinGeometry>,
    /// The base mesh.
    pub base: SkinGeometry,
}

/// Whether the package is one of the UT2003/UT2004 builds.
fn is_ut2(v: u16, lic: u16) -> bool {
    ((117..=119).contains(&v) && (25..=27).contains(&lic))
        || (v == 120 && (lic == 27 || lic == 28))
        || ((121..=128).contains(&v) && lic == 29)
}

/// A `TLazyArray` header: its end offset, then the count.
fn lazy<'a, T>(
    r: &mut Reader<'a>,
    what: &str,
    elem: usize,
    mut f: impl FnMut(&mut Reader<'a>) -> Result<T>,
) -> Result<Vec<T>> {
    let at = r.offset();
    let end = i64::from(r.i32(what)?);
    let n = r.compact_count(what, elem)?;
    let v = (0..n).map(|_| f(r)).collect::<Result<Vec<_>>>()?;
    if end != r.offset() as i64 {
        return Err(Error::invalid(
            at,
            format!(
                "{what}: lazy-array end offset {end:#x} is not the end of its data ({:#x})",
                r.offset()
            ),
        ));
    }
    Ok(v)
}

fn influence(r: &mut Reader<'_>) -> Result<(f32, u16, u16)> {
    Ok((r.f32("weight")?, r.u16("point")?, r.u16("bone")?))
}

fn wedge(r: &mut Reader<'_>) -> Result<(u16, [f32; 2])> {
    Ok((
        r.u16("wedge point")?,
        [r.f32("wedge U")?, r.f32("wedge V")?],
    ))
}

/// A skeletal-mesh section: (material, first face, faces).
fn sections(r: &mut Reader<'_>, what: &str) -> Result<Vec<(u16, u16, u16)>> {
    let n = r.compact_count(what, 18)?;
    (0..n)
        .map(|_| {
            let mat = r.u16("section material")?;
            r.skip(12, "section")?;
            Ok((mat, r.u16("section first face")?, r.u16("section faces")?))
        })
        .collect()
}

fn index_buffer(r: &mut Reader<'_>, what: &str) -> Result<Vec<u16>> {
    let n = r.compact_count(what, 2)?;
    let v = (0..n).map(|_| r.u16(what)).collect::<Result<Vec<_>>>()?;
    r.i32("index buffer revision")?;
    Ok(v)
}

/// One `FStaticLODModel`; its geometry when UEViewer's rule keeps it
/// (points, wedges, influences; soft sections draw `Faces`, rigid sections
/// the rigid index buffer; not both kinds).
fn lod_model(r: &mut Reader<'_>) -> Result<Option<SkinGeometry>> {
    skip_array(r, 4, "skinning data")?;
    skip_array(r, 16, "skin points")?;
    r.i32("soft wedges")?;
    let soft = sections(r, "soft sections")?;
    let rigid = sections(r, "rigid sections")?;
    index_buffer(r, "soft indices")?;
    let rigid_idx = index_buffer(r, "rigid indices")?;
    r.skip(12, "vertex stream header")?;
    skip_array(r, 32, "rigid vertex stream")?;
    let influences = lazy(r, "LOD influences", 8, influence)?;
    let wedges = lazy(r, "LOD wedges", 10, wedge)?;
    let faces = lazy(r, "LOD faces", 8, |r| {
        Ok(Face {
            wedges: [r.u16("face")?, r.u16("face")?, r.u16("face")?],
            material: r.u16("face material")?,
        })
    })?;
    let points = lazy(r, "LOD points", 12, |r| vec3(r, "point"))?;
    r.skip(24, "LOD settings")?;
    if points.is_empty() || wedges.is_empty() || influences.is_empty() {
        return Ok(None);
    }
    if !soft.is_empty() && !rigid.is_empty() {
        return Ok(None);
    }
    let mut tris = Vec::new();
    for &(mat, first, n) in &soft {
        let (first, n) = (usize::from(first), usize::from(n));
        let Some(fs) = faces.get(first..first + n) else {
            return Ok(None);
        };
        tris.extend(fs.iter().map(|f| (f.wedges, usize::from(mat))));
    }
    for &(mat, first, n) in &rigid {
        let (first, n) = (3 * usize::from(first), 3 * usize::from(n));
        let Some(ix) = rigid_idx.get(first..first + n) else {
            return Ok(None);
        };
        tris.extend(
            ix.chunks_exact(3)
                .map(|t| ([t[0], t[1], t[2]], usize::from(mat))),
        );
    }
    Ok(Some(SkinGeometry {
        points,
        wedges,
        tris,
        influences,
    }))
}

fn bone(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<RefBone> {
    let name = name(pkg, r, "bone name")?;
    r.u32("bone flags")?;
    let orientation = [
        r.f32("bone")?,
        r.f32("bone")?,
        r.f32("bone")?,
        r.f32("bone")?,
    ];
    let position = vec3(r, "bone position")?;
    r.skip(16, "bone length and size")?;
    r.i32("bone children")?;
    Ok(RefBone {
        name,
        parent: r.i32("bone parent")?,
        orientation,
        position,
    })
}

/// Skip the collision primitives (bone spheres or boxes).
fn skip_prims(pkg: &Package<'_>, r: &mut Reader<'_>, size: u64, ut2: bool) -> Result<()> {
    let v = pkg.summary.version;
    let n = r.compact_count("collision primitives", 1 + size as usize)?;
    for _ in 0..n {
        name(pkg, r, "collision bone")?;
        r.skip(size, "collision primitive")?;
        if ut2 && v > 123 {
            r.i32("bBlockKarma")?;
        }
        if ut2 && v > 124 {
            r.skip(8, "bBlockZeroExtent")?;
        }
    }
    Ok(())
}

/// Read `exports[i]` as a UE2 skeletal mesh.
pub fn read_skeletal_mesh(pkg: &Package<'_>, i: usize) -> Result<SkeletalMesh> {
    let (v, lic) = (pkg.summary.version, pkg.summary.licensee);
    if !(110..130).contains(&v) {
        return Err(Error::unsupported(
            0,
            format!(
                "SkeletalMesh of package version {v}: the layout read is that of UE2 (110-129)"
            ),
        ));
    }
    let o = pakrat_classic::props::read_object(pkg, i)?;
    let mut r = o.native;
    let lod = read_lod_base(pkg, &mut r)?;
    if lod.version <= 1 {
        return Err(Error::unsupported(
            r.offset(),
            format!(
                "SkeletalMesh version {}: the old layout is not read",
                lod.version
            ),
        ));
    }
    let mut m = SkeletalMesh {
        lod,
        ..Default::default()
    };
    skip_array(&mut r, 12, "Points2")?;
    let n = r.compact_count("bones", 49)?;
    m.bones = (0..n).map(|_| bone(pkg, &mut r)).collect::<Result<_>>()?;
    m.animation = object_ref(pkg, &mut r, "Animation")?;
    r.i32("skeletal depth")?;
    let n = r.compact_count("weight indices", 5)?;
    for _ in 0..n {
        skip_array(&mut r, 2, "weight index")?;
        r.i32("weight index start")?;
    }
    skip_array(&mut r, 4, "bone influences")?;
    let n = r.compact_count("attach aliases", 1)?;
    let aliases: Vec<String> = (0..n)
        .map(|_| name(pkg, &mut r, "attach alias"))
        .collect::<Result<_>>()?;
    let n = r.compact_count("attach bones", 1)?;
    let bones: Vec<String> = (0..n)
        .map(|_| name(pkg, &mut r, "attach bone"))
        .collect::<Result<_>>()?;
    let n = r.compact_count("attach coords", 48)?;
    let coords: Vec<[[f32; 3]; 4]> = (0..n)
        .map(|_| {
            Ok([
                vec3(&mut r, "coords")?,
                vec3(&mut r, "coords")?,
                vec3(&mut r, "coords")?,
                vec3(&mut r, "coords")?,
            ])
        })
        .collect::<Result<_>>()?;
    m.sockets = aliases
        .into_iter()
        .zip(bones)
        .zip(coords)
        .map(|((alias, bone), coords)| Socket {
            alias,
            bone,
            coords,
        })
        .collect();
    let n = r.compact_count("LOD models", 100)?;
    let mut lods = Vec::with_capacity(n);
    for _ in 0..n {
        lods.push(lod_model(&mut r)?);
    }
    object_ref(pkg, &mut r, "f224")?;
    m.base.points = lazy(&mut r, "points", 12, |r| vec3(r, "point"))?;
    m.base.wedges = lazy(&mut r, "wedges", 10, wedge)?;
    m.base.tris = lazy(&mut r, "triangles", 12, |r| {
        let w = [r.u16("triangle")?, r.u16("triangle")?, r.u16("triangle")?];
        let mat = r.u8("triangle material")?;
        r.skip(5, "triangle")?;
        Ok((w, usize::from(mat)))
    })?;
    m.base.influences = lazy(&mut r, "influences", 8, influence)?;
    lazy(&mut r, "collapse wedges", 2, |r| r.u16("collapse"))?;
    lazy(&mut r, "f1C8", 2, |r| r.u16("f1C8"))?;
    if v >= 120 {
        r.u32("AuthKey")?;
    }
    let ut2 = is_ut2(v, lic);
    if (ut2 && v >= 122) || (!ut2 && v >= 124) {
        object_ref(pkg, &mut r, "KarmaProps")?;
        skip_prims(pkg, &mut r, 16, ut2)?;
        skip_prims(pkg, &mut r, 24, ut2)?;
    }
    if (ut2 && v >= 122) || (!ut2 && v >= 125) {
        let n = r.compact_count("collision models", 1)?;
        for _ in 0..n {
            object_ref(pkg, &mut r, "collision model")?;
        }
    }
    if ut2 && v >= 127 {
        object_ref(pkg, &mut r, "CollisionMesh")?;
    }
    if r.remaining() != 0 {
        return Err(Error::invalid(
            r.offset(),
            format!("{} bytes left after the SkeletalMesh data", r.remaining()),
        ));
    }
    m.lods = lods.into_iter().map_while(|l| l).collect();
    m.check()?;
    Ok(m)
}

impl SkinGeometry {
    fn check(&self, bones: usize, what: &str) -> Result<()> {
        let bad = |s: String| Err(Error::Other(format!("{what}: {s}")));
        let (np, nw) = (self.points.len(), self.wedges.len());
        if let Some(w) = self.wedges.iter().find(|w| usize::from(w.0) >= np) {
            return bad(format!("wedge point {} outside the {np} points", w.0));
        }
        if let Some(t) = self
            .tris
            .iter()
            .find(|t| t.0.iter().any(|&w| usize::from(w) >= nw))
        {
            return bad(format!("triangle {:?} outside the {nw} wedges", t.0));
        }
        if let Some(f) = self
            .influences
            .iter()
            .find(|f| usize::from(f.1) >= np || usize::from(f.2) >= bones)
        {
            return bad(format!(
                "influence of point {} / bone {} outside the {np} points / {bones} bones",
                f.1, f.2
            ));
        }
        Ok(())
    }
}

impl SkeletalMesh {
    fn check(&self) -> Result<()> {
        let n = self.bones.len();
        for (k, b) in self.bones.iter().enumerate() {
            if b.parent < 0 || (k > 0 && b.parent as usize >= k) {
                return Err(Error::Other(format!(
                    "bone {k} ({}): parent {} is not an earlier bone",
                    b.name, b.parent
                )));
            }
        }
        if n == 0 {
            return Err(Error::Other("no bones".into()));
        }
        self.base.check(n, "base mesh")?;
        for (k, l) in self.lods.iter().enumerate() {
            l.check(n, &format!("LOD {k}"))?;
        }
        Ok(())
    }

    /// LOD `k`'s geometry: `LODModels[k]` when it is usable, the base mesh
    /// for LOD 0 when no LOD model is (as UEViewer does).
    pub fn lod_geometry(&self, k: usize) -> Option<&SkinGeometry> {
        match (self.lods.get(k), k) {
            (Some(g), _) => Some(g),
            (None, 0) => Some(&self.base),
            _ => None,
        }
    }
}

/// A stored UE2 bone quaternion as a glTF rotation: the root's is the
/// rotation itself, the other bones store the inverse (UE1/UE2 skeletal
/// convention); then mirrored into glTF's axes like positions
/// ([`convert_axes`]: a rotation about axis a becomes one about −M·a).
pub fn bone_rotation(q: [f32; 4], root: bool) -> [f32; 4] {
    let [x, y, z, w] = q;
    let v = convert_axes([x, y, z]);
    let r = if root {
        [-v[0], -v[1], -v[2], w]
    } else {
        [v[0], v[1], v[2], w]
    };
    let l = r.iter().map(|c| c * c).sum::<f32>().sqrt();
    if l > 1e-6 && l.is_finite() {
        r.map(|c| c / l)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// The skeleton as glTF bones.
pub fn skeleton(bones: &[RefBone]) -> Skeleton {
    Skeleton {
        bones: bones
            .iter()
            .enumerate()
            .map(|(k, b)| Bone {
                name: b.name.clone(),
                parent: (k > 0).then_some(b.parent as usize),
                translation: convert_axes(b.position),
                rotation: bone_rotation(b.orientation, k == 0),
                scale: [1.0; 3],
            })
            .collect(),
    }
}

/// Up to four influences per point, the strongest kept, normalised; a point
/// with none is bound to bone 0.
pub fn point_weights(g: &SkinGeometry) -> Vec<([u16; 4], [f32; 4])> {
    let mut per: Vec<Vec<(f32, u16)>> = vec![Vec::new(); g.points.len()];
    for &(w, p, b) in &g.influences {
        if w.is_finite() && w > 0.0 {
            per[usize::from(p)].push((w, b));
        }
    }
    per.into_iter()
        .map(|mut v| {
            v.sort_by(|a, b| b.0.total_cmp(&a.0));
            v.truncate(4);
            let s: f32 = v.iter().map(|x| x.0).sum();
            if v.is_empty() || s <= 0.0 {
                return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
            }
            let mut j = [0u16; 4];
            let mut w = [0f32; 4];
            for (k, &(x, b)) in v.iter().enumerate() {
                j[k] = b;
                w[k] = x / s;
            }
            (j, w)
        })
        .collect()
}

/// The scene of `exports[i]`, read as `m`: LOD 0 (or every LOD with
/// `all_lods`, one mesh each), skinned to the reference skeleton, the
/// sockets as nodes (see [`Scene`]). Triangles have their second and third
/// corners swapped (the stored order faces inwards after the axis
/// conversion, as for UE1 meshes).
pub fn to_scene(pkg: &Package<'_>, i: usize, m: &SkeletalMesh, all_lods: bool) -> Result<Scene> {
    if m.lod_geometry(0).is_none_or(|g| g.tris.is_empty()) {
        return Err(Error::Other("the skeletal mesh has no triangles".into()));
    }
    let short = pkg.name(pkg.export(i)?.object_name).to_string();
    let mut scene = Scene {
        name: pkg.export_path(i)?,
        skeleton: Some(skeleton(&m.bones)),
        ..Default::default()
    };
    let slots = lod_materials(pkg, &m.lod, &short, &mut scene);
    let count = if all_lods { m.lods.len().max(1) } else { 1 };
    for k in 0..count {
        let Some(g) = m.lod_geometry(k).filter(|g| !g.tris.is_empty()) else {
            break;
        };
        scene.meshes.push(skin_mesh(g, &slots, &short, k));
    }
    Ok(scene)
}

/// One LOD as a skinned glTF mesh (vertices = wedges).
pub fn skin_mesh(g: &SkinGeometry, slots: &[usize], short: &str, k: usize) -> Mesh {
    let pw = point_weights(g);
    let mut mesh = Mesh {
        name: if k == 0 {
            short.to_string()
        } else {
            format!("{short} LOD {k}")
        },
        positions: g
            .wedges
            .iter()
            .map(|w| convert_axes(g.points[usize::from(w.0)]))
            .collect(),
        uvs: vec![g.wedges.iter().map(|w| w.1).collect()],
        joints: g.wedges.iter().map(|w| pw[usize::from(w.0)].0).collect(),
        weights: g.wedges.iter().map(|w| pw[usize::from(w.0)].1).collect(),
        sections: sections_of(
            g.tris.iter().map(|t| ([t.0[0], t.0[2], t.0[1]], t.1)),
            slots,
        ),
        ..Default::default()
    };
    mesh.compute_normals();
    mesh
}
