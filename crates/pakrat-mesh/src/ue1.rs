//! UE1 vertex meshes (`Mesh`, `LodMesh`; Unreal/UT99 package versions
//! 61–69): the native data after the properties, read with every count
//! checked against the bytes that remain.
//!
//! Layout (facts from UEViewer `Unreal/UnrealMesh/UnMesh1.cpp`,
//! `UnMesh2.h`, `UnCore.h`; `docs/meshes.md` lists them):
//!
//! ```text
//! UPrimitive   FBox BoundingBox (6 f32 + u8), FSphere BoundingSphere (4 f32; 3 before v61)
//! UMesh        TLazyArray<FMeshVert> Verts          (u32: X 11 bits, Y 11, Z 10, signed)
//!              TLazyArray<FMeshTri> Tris            (3 u16 vertex, 3×(u8 U, u8 V), u32 PolyFlags, i32 TextureIndex)
//!              TArray<FMeshAnimSeq> AnimSeqs        (Name, Group, i32 StartFrame, i32 NumFrames,
//!                                                    TArray<(f32 Time, Name Function)> Notifys, f32 Rate)
//!              TLazyArray<FMeshVertConnect> Connects (2 i32)
//!              FBox, FSphere (again), TLazyArray<i32> VertLinks, TArray<UTexture*> Textures,
//!              TArray<FBox> BoundingBoxes, TArray<FSphere> BoundingSpheres,
//!              i32 FrameVerts, i32 AnimFrames, u32 AndFlags, u32 OrFlags,
//!              FVector Scale, FVector Origin, FRotator RotOrigin (3 i32), i32 CurPoly, i32 CurVertex,
//!              v65: f32 TextureLOD; v66+: TArray<f32> TextureLOD
//! ULodMesh     TArray<u16> CollapsePointThus, TArray<u16> FaceLevel, TArray<FMeshFace> Faces
//!              (3 u16 wedge, u16 material), TArray<u16> CollapseWedgeThus,
//!              TArray<FMeshWedge> Wedges (u16 vertex, u8 U, u8 V), TArray<FMeshMaterial> Materials
//!              (u32 PolyFlags, i32 TextureIndex), TArray<FMeshFace> SpecialFaces, i32 ModelVerts,
//!              i32 SpecialVerts, f32 MeshScaleMax, f32 LODHysteresis, f32 LODStrength,
//!              i32 LODMinVerts, f32 LODMorph, f32 LODZDisplace, TArray<u16> RemapAnimVerts,
//!              i32 OldFrameVerts
//! ```
//!
//! `TLazyArray` = (from v62) an `i32` absolute end offset, then the compact
//! count and the items; the end offset is checked. Deus Ex stores 8-byte
//! vertices (three `i16` and padding); the lazy array's end offset tells.

use pakrat_classic::{ObjRef, Package};
use pakrat_io::{Error, Reader, Result};

/// Which class the object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshClass {
    /// `Mesh`: triangles with their own UVs.
    Mesh,
    /// `LodMesh`: wedges, faces and materials.
    LodMesh,
}

/// One triangle of a `Mesh`.
#[derive(Clone, Copy, Debug)]
pub struct Tri {
    /// Vertex indices.
    pub verts: [u16; 3],
    /// UVs (0–255 over the texture).
    pub uv: [[u8; 2]; 3],
    /// Surface flags.
    pub poly_flags: u32,
    /// Index into [`VertMesh::textures`].
    pub texture: i32,
}

/// An animation sequence.
#[derive(Clone, Debug)]
pub struct AnimSeq {
    /// Name.
    pub name: String,
    /// Group (`None` when ungrouped).
    pub group: String,
    /// First frame.
    pub start: i32,
    /// Number of frames.
    pub frames: i32,
    /// Frames per second.
    pub rate: f32,
    /// Notifications (time 0–1, function name).
    pub notifys: Vec<(f32, String)>,
}

/// A `LodMesh` face.
#[derive(Clone, Copy, Debug)]
pub struct Face {
    /// Wedge indices.
    pub wedges: [u16; 3],
    /// Index into [`Lod::materials`].
    pub material: u16,
}

/// The `LodMesh` part.
#[derive(Clone, Debug, Default)]
pub struct Lod {
    /// Faces.
    pub faces: Vec<Face>,
    /// Wedges: vertex (before adding [`Lod::special_verts`]) and UV.
    pub wedges: Vec<(u16, [u8; 2])>,
    /// Materials: (PolyFlags, index into [`VertMesh::textures`]).
    pub materials: Vec<(u32, i32)>,
    /// Special faces (the weapon triangle), not drawn.
    pub special_faces: Vec<Face>,
    /// Vertices of the model.
    pub model_verts: i32,
    /// Vertices of special faces, stored before the model's.
    pub special_verts: i32,
    /// Collapse data (counts kept for reports).
    pub collapse_points: usize,
    /// `FaceLevel` entries.
    pub face_levels: usize,
    /// `CollapseWedgeThus` entries.
    pub collapse_wedges: usize,
    /// Animation vertex remap (empty: none).
    pub remap: Vec<u16>,
    /// Vertices per frame in `Verts` when remapped.
    pub old_frame_verts: i32,
}

/// A UE1 vertex mesh.
#[derive(Clone, Debug)]
pub struct VertMesh {
    /// `Mesh` or `LodMesh`.
    pub class: MeshClass,
    /// Packed vertices, `frame_verts × anim_frames` (decoded to Unreal
    /// units by [`VertMesh::vertex`]).
    pub verts: Vec<[i16; 3]>,
    /// Triangles (`Mesh`; usually empty in a `LodMesh`).
    pub tris: Vec<Tri>,
    /// Sequences.
    pub seqs: Vec<AnimSeq>,
    /// `Connects` entries.
    pub connects: usize,
    /// Skins, one per texture index.
    pub textures: Vec<ObjRef>,
    /// Vertices per frame.
    pub frame_verts: i32,
    /// Frames.
    pub anim_frames: i32,
    /// `MeshScale`.
    pub scale: [f32; 3],
    /// `MeshOrigin`.
    pub origin: [f32; 3],
    /// `RotOrigin` (pitch, yaw, roll).
    pub rot_origin: [i32; 3],
    /// `LodMesh` data.
    pub lod: Option<Lod>,
    /// Deus Ex 16-bit vertices.
    pub deus_ex: bool,
}

/// Is this class a UE1 vertex mesh?
pub fn mesh_class(class: &str) -> Option<MeshClass> {
    if class.eq_ignore_ascii_case("Mesh") {
        Some(MeshClass::Mesh)
    } else if class.eq_ignore_ascii_case("LodMesh") {
        Some(MeshClass::LodMesh)
    } else {
        None
    }
}

fn name(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<String> {
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

fn vec3(r: &mut Reader<'_>, what: &str) -> Result<[f32; 3]> {
    Ok([r.f32(what)?, r.f32(what)?, r.f32(what)?])
}

fn skip_box(r: &mut Reader<'_>) -> Result<()> {
    r.skip(25, "bounding box")
}

fn skip_sphere(r: &mut Reader<'_>, version: u16) -> Result<()> {
    r.skip(if version >= 61 { 16 } else { 12 }, "bounding sphere")
}

/// A `TLazyArray`'s header: (end offset and where it was read, count).
fn lazy_head(
    r: &mut Reader<'_>,
    version: u16,
    what: &str,
    elem: usize,
) -> Result<(Option<(u64, i64)>, usize)> {
    let skip = if version > 61 {
        let at = r.offset();
        Some((at, i64::from(r.i32(&format!("{what} end offset"))?)))
    } else {
        None
    };
    Ok((skip, r.compact_count(what, elem)?))
}

fn lazy_end(r: &Reader<'_>, skip: Option<(u64, i64)>, what: &str) -> Result<()> {
    if let Some((at, end)) = skip {
        if end != r.offset() as i64 {
            return Err(Error::invalid(
                at,
                format!("{what}: lazy-array end offset {end:#x} does not match the end of its data ({:#x})", r.offset()),
            ));
        }
    }
    Ok(())
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

fn u16s(r: &mut Reader<'_>, what: &str) -> Result<Vec<u16>> {
    let n = r.compact_count(what, 2)?;
    (0..n).map(|_| r.u16(what)).collect()
}

/// Unpack an `FMeshVert` (X: bits 0–10, Y: 11–21, Z: 22–31, signed).
pub fn unpack_vert(v: u32) -> [i16; 3] {
    let x = ((v << 21) as i32 >> 21) as i16;
    let y = ((v << 10) as i32 >> 21) as i16;
    let z = (v as i32 >> 22) as i16;
    [x, y, z]
}

fn read_verts(r: &mut Reader<'_>, version: u16) -> Result<(Vec<[i16; 3]>, bool)> {
    let (skip, n) = lazy_head(r, version, "vertices", 4)?;
    // Deus Ex: 8 bytes per vertex, which only the end offset shows.
    let deus = matches!(skip, Some((_, end)) if n > 0 && end - r.offset() as i64 == n as i64 * 8);
    let mut v = Vec::with_capacity(n);
    if deus {
        r.check_count(n as i64, 8, "Deus Ex vertices")?;
        for _ in 0..n {
            let x = r.u16("vertex")? as i16;
            let y = r.u16("vertex")? as i16;
            let z = r.u16("vertex")? as i16;
            r.skip(2, "vertex padding")?;
            v.push([x, y, z]);
        }
    } else {
        for _ in 0..n {
            v.push(unpack_vert(r.u32("vertex")?));
        }
    }
    lazy_end(r, skip, "vertices")?;
    Ok((v, deus))
}

fn read_tris(r: &mut Reader<'_>, version: u16) -> Result<Vec<Tri>> {
    let (skip, n) = lazy_head(r, version, "triangles", 20)?;
    let mut t = Vec::with_capacity(n);
    for _ in 0..n {
        let verts = [
            r.u16("triangle vertex")?,
            r.u16("triangle vertex")?,
            r.u16("triangle vertex")?,
        ];
        let mut uv = [[0u8; 2]; 3];
        for e in &mut uv {
            *e = [r.u8("triangle U")?, r.u8("triangle V")?];
        }
        t.push(Tri {
            verts,
            uv,
            poly_flags: r.u32("triangle flags")?,
            texture: r.i32("triangle texture")?,
        });
    }
    lazy_end(r, skip, "triangles")?;
    Ok(t)
}

fn read_seqs(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<Vec<AnimSeq>> {
    // Name, group (1 byte each at least), 2 i32, notify count, f32.
    let n = r.compact_count("animation sequences", 15)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = name(pkg, r, "sequence name")?;
        let group = name_or(pkg, r)?;
        let start = r.i32("sequence start frame")?;
        let frames = r.i32("sequence frame count")?;
        let nn = r.compact_count("sequence notifys", 5)?;
        let mut notifys = Vec::with_capacity(nn);
        for _ in 0..nn {
            let t = r.f32("notify time")?;
            notifys.push((t, name_fn(pkg, r)?));
        }
        let rate = r.f32("sequence rate")?;
        out.push(AnimSeq {
            name,
            group,
            start,
            frames,
            rate,
            notifys,
        });
    }
    Ok(out)
}

fn name_or(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<String> {
    name(pkg, r, "sequence group")
}

fn name_fn(pkg: &Package<'_>, r: &mut Reader<'_>) -> Result<String> {
    name(pkg, r, "notify function")
}

fn object_ref(pkg: &Package<'_>, r: &mut Reader<'_>, what: &str) -> Result<ObjRef> {
    let at = r.offset();
    let o = ObjRef(r.compact(what)?);
    pkg.check_ref(o)
        .map_err(|e| Error::invalid(at, format!("{what}: {e}")))?;
    Ok(o)
}

/// The `UMesh` part (everything up to `TextureLOD`).
fn read_umesh(pkg: &Package<'_>, r: &mut Reader<'_>, class: MeshClass) -> Result<VertMesh> {
    let version = pkg.summary.version;
    skip_box(r)?;
    skip_sphere(r, version)?;
    let (verts, deus_ex) = read_verts(r, version)?;
    let tris = read_tris(r, version)?;
    let seqs = read_seqs(pkg, r)?;
    let (skip, connects) = lazy_head(r, version, "connects", 8)?;
    r.skip(connects as u64 * 8, "connects")?;
    lazy_end(r, skip, "connects")?;
    skip_box(r)?;
    skip_sphere(r, version)?;
    let (skip, links) = lazy_head(r, version, "vertex links", 4)?;
    r.skip(links as u64 * 4, "vertex links")?;
    lazy_end(r, skip, "vertex links")?;
    let nt = r.compact_count("textures", 1)?;
    let textures = (0..nt)
        .map(|_| object_ref(pkg, r, "texture"))
        .collect::<Result<Vec<_>>>()?;
    let nb = r.compact_count("bounding boxes", 25)?;
    r.skip(nb as u64 * 25, "bounding boxes")?;
    let sphere = if version >= 61 { 16 } else { 12 };
    let ns = r.compact_count("bounding spheres", sphere)?;
    r.skip((ns * sphere) as u64, "bounding spheres")?;
    let frame_verts = r.i32("FrameVerts")?;
    let anim_frames = r.i32("AnimFrames")?;
    r.skip(8, "AndFlags, OrFlags")?;
    let scale = vec3(r, "MeshScale")?;
    let origin = vec3(r, "MeshOrigin")?;
    let rot_origin = [
        r.i32("RotOrigin")?,
        r.i32("RotOrigin")?,
        r.i32("RotOrigin")?,
    ];
    r.skip(8, "CurPoly, CurVertex")?;
    if version == 65 {
        r.f32("TextureLOD")?;
    } else if version >= 66 {
        let n = r.compact_count("TextureLOD", 4)?;
        r.skip(n as u64 * 4, "TextureLOD")?;
    }
    Ok(VertMesh {
        class,
        verts,
        tris,
        seqs,
        connects,
        textures,
        frame_verts,
        anim_frames,
        scale,
        origin,
        rot_origin,
        lod: None,
        deus_ex,
    })
}

fn read_lod(r: &mut Reader<'_>) -> Result<Lod> {
    let collapse_points = u16s(r, "CollapsePointThus")?.len();
    let face_levels = u16s(r, "FaceLevel")?.len();
    let nf = r.compact_count("faces", 8)?;
    let faces = (0..nf).map(|_| face(r)).collect::<Result<Vec<_>>>()?;
    let collapse_wedges = u16s(r, "CollapseWedgeThus")?.len();
    let nw = r.compact_count("wedges", 4)?;
    let mut wedges = Vec::with_capacity(nw);
    for _ in 0..nw {
        let v = r.u16("wedge vertex")?;
        wedges.push((v, [r.u8("wedge U")?, r.u8("wedge V")?]));
    }
    let nm = r.compact_count("materials", 8)?;
    let mut materials = Vec::with_capacity(nm);
    for _ in 0..nm {
        materials.push((r.u32("material flags")?, r.i32("material texture")?));
    }
    let ns = r.compact_count("special faces", 8)?;
    let special_faces = (0..ns).map(|_| face(r)).collect::<Result<Vec<_>>>()?;
    let model_verts = r.i32("ModelVerts")?;
    let special_verts = r.i32("SpecialVerts")?;
    r.skip(24, "LOD settings")?;
    let remap = u16s(r, "RemapAnimVerts")?;
    let old_frame_verts = r.i32("OldFrameVerts")?;
    Ok(Lod {
        faces,
        wedges,
        materials,
        special_faces,
        model_verts,
        special_verts,
        collapse_points,
        face_levels,
        collapse_wedges,
        remap,
        old_frame_verts,
    })
}

/// Read `exports[i]` as a UE1 vertex mesh.
pub fn read_mesh(pkg: &Package<'_>, i: usize) -> Result<VertMesh> {
    let class_name = pkg.export_class_name(i)?;
    let class = mesh_class(class_name)
        .ok_or_else(|| Error::Other(format!("{class_name} is not a UE1 vertex mesh class")))?;
    if pkg.summary.version >= 100 {
        return Err(Error::unsupported(
            0,
            format!(
                "UE2 {class_name} (package v{}): not read yet",
                pkg.summary.version
            ),
        ));
    }
    let o = pakrat_classic::props::read_object(pkg, i)?;
    let mut r = o.native;
    let mut m = read_umesh(pkg, &mut r, class)?;
    if class == MeshClass::LodMesh {
        m.lod = Some(read_lod(&mut r)?);
    }
    if r.remaining() != 0 {
        return Err(Error::invalid(
            r.offset(),
            format!("{} bytes left after the {class_name} data", r.remaining()),
        ));
    }
    m.check()?;
    Ok(m)
}

impl VertMesh {
    /// Vertices per frame as drawn (after the remap).
    pub fn vertex_count(&self) -> usize {
        self.frame_verts.max(0) as usize
    }

    /// Frames.
    pub fn frame_count(&self) -> usize {
        self.anim_frames.max(0) as usize
    }

    /// Vertices stored per frame in [`VertMesh::verts`].
    fn stored_per_frame(&self) -> usize {
        match &self.lod {
            Some(l) if !l.remap.is_empty() => l.old_frame_verts.max(0) as usize,
            _ => self.vertex_count(),
        }
    }

    /// Triangles drawn (faces of a `LodMesh`, triangles of a `Mesh`).
    pub fn triangle_count(&self) -> usize {
        match &self.lod {
            Some(l) => l.faces.len(),
            None => self.tris.len(),
        }
    }

    /// Vertex `v` of frame `f` as packed in the package (after the remap),
    /// before origin and scale.
    pub fn packed(&self, f: usize, v: usize) -> [i16; 3] {
        let stored = match &self.lod {
            Some(l) if !l.remap.is_empty() => l.remap[v] as usize,
            _ => v,
        };
        self.verts[f * self.stored_per_frame() + stored]
    }

    /// Vertex `v` of frame `f`, in Unreal units: `(packed − MeshOrigin) ×
    /// MeshScale`, Unreal axes. Indices must be in range ([`read_mesh`]
    /// checked them).
    pub fn vertex(&self, f: usize, v: usize) -> [f32; 3] {
        let p = self.packed(f, v);
        [0, 1, 2].map(|k| (f32::from(p[k]) - self.origin[k]) * self.scale[k])
    }

    /// Check every index against what it indexes.
    fn check(&self) -> Result<()> {
        let bad = |what: String| Err(Error::Other(what));
        if self.frame_verts < 0 || self.anim_frames < 0 {
            return bad(format!(
                "negative FrameVerts {} or AnimFrames {}",
                self.frame_verts, self.anim_frames
            ));
        }
        if self.stored_per_frame() == 0 && self.anim_frames > 1 {
            return bad(format!("{} frames of no vertices", self.anim_frames));
        }
        let need = self.stored_per_frame() as u128 * self.frame_count() as u128;
        if need > self.verts.len() as u128 {
            return bad(format!(
                "{} frames of {} vertices need {need} vertices, the mesh has {}",
                self.anim_frames,
                self.stored_per_frame(),
                self.verts.len()
            ));
        }
        let nv = self.vertex_count();
        for t in &self.tris {
            if t.verts.iter().any(|&v| usize::from(v) >= nv) {
                return bad(format!(
                    "a triangle uses vertex {:?}, the mesh has {nv}",
                    t.verts
                ));
            }
            if t.texture < 0 || t.texture as usize >= self.textures.len().max(1) {
                return bad(format!(
                    "a triangle uses texture {}, the mesh has {}",
                    t.texture,
                    self.textures.len()
                ));
            }
        }
        if let Some(l) = &self.lod {
            if l.special_verts < 0 {
                return bad(format!("negative SpecialVerts {}", l.special_verts));
            }
            if !l.remap.is_empty() {
                if l.remap.len() < nv {
                    return bad(format!(
                        "RemapAnimVerts has {} entries for {nv} vertices",
                        l.remap.len()
                    ));
                }
                if let Some(&r) = l
                    .remap
                    .iter()
                    .take(nv)
                    .find(|&&r| r as usize >= self.stored_per_frame())
                {
                    return bad(format!(
                        "RemapAnimVerts names vertex {r}, frames hold {}",
                        self.stored_per_frame()
                    ));
                }
            }
            for w in &l.wedges {
                if usize::from(w.0) + l.special_verts as usize >= nv {
                    return bad(format!(
                        "a wedge uses vertex {} (+{} special), the mesh has {nv}",
                        w.0, l.special_verts
                    ));
                }
            }
            for f in &l.faces {
                if f.wedges.iter().any(|&w| usize::from(w) >= l.wedges.len()) {
                    return bad(format!(
                        "a face uses wedges {:?}, the mesh has {}",
                        f.wedges,
                        l.wedges.len()
                    ));
                }
                if usize::from(f.material) >= l.materials.len() {
                    return bad(format!(
                        "a face uses material {}, the mesh has {}",
                        f.material,
                        l.materials.len()
                    ));
                }
            }
            for m in &l.materials {
                if m.1 < 0 || m.1 as usize >= self.textures.len().max(1) {
                    return bad(format!(
                        "a material uses texture {}, the mesh has {}",
                        m.1,
                        self.textures.len()
                    ));
                }
            }
        }
        // Sizes of what the glTF holds, bounded by what the file holds:
        // real meshes have at most 2 wedges per vertex and about as many
        // sequence frames as frames.
        if let Some(l) = &self.lod {
            if l.wedges.len() > 8 * nv + 256 {
                return bad(format!("{} wedges for {nv} vertices", l.wedges.len()));
            }
        }
        if self.tris.len() > 8 * nv + 256 {
            return bad(format!("{} triangles for {nv} vertices", self.tris.len()));
        }
        let keys: u128 = self.seqs.iter().map(|s| s.frames.max(0) as u128).sum();
        if keys * self.frame_count() as u128 > 8 * self.verts.len() as u128 + (1 << 20) {
            return bad(format!(
                "sequences of {keys} frames in all over {} frames: more animation data than the mesh's {} stored vertices allow",
                self.anim_frames,
                self.verts.len()
            ));
        }
        for s in &self.seqs {
            if s.start < 0
                || s.frames < 0
                || (s.start as i64 + s.frames as i64) > self.anim_frames as i64
            {
                return bad(format!(
                    "sequence {} covers frames {}..{}, the mesh has {}",
                    s.name,
                    s.start,
                    s.start as i64 + s.frames as i64,
                    self.anim_frames
                ));
            }
        }
        Ok(())
    }
}
