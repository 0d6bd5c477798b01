//! The native part of a cooked `USkeletalMesh` (UE 5.x cooked layout, the
//! UE 5.8/6.0 fixture project): after the properties, `FStripDataFlags`,
//! the imported bounds, `TArray<FSkeletalMaterial>` (material
//! `FPackageIndex`, slot `FName`, an `i32` bool and the imported slot name
//! when set, `FMeshUVChannelInfo` (24 bytes), the overlay material), the
//! mesh's own `FReferenceSkeleton`, `bCooked`, then the LOD count and each
//! LOD's render item (`FSkeletalMeshLODRenderData`):
//!
//! * strip flags, `bIsLODCookedOut`, `bInlined`, `RequiredBones`
//!   (`TArray<i16>`);
//! * unless stripped or cooked out: the render sections
//!   (`FSkelMeshRenderSection`: strip flags, `i16` material index, base
//!   index, triangles, recompute-tangent bool and vertex-mask byte, cast
//!   shadow, visible in ray tracing, base vertex, the cloth mapping
//!   (`TArray<TArray<64-byte FMeshToMeshVertData>>`), the bone map
//!   (`TArray<u16>`), vertices, max influences (bit 31: the unified bone
//!   map), cloth asset index (`i16`), clothing data (GUID, `i32`), the
//!   duplicated-vertex arrays unless class-stripped, `bDisabled`),
//!   `ActiveBoneIndices`, the buffers' size (`u32`);
//! * UE 5.8+: the buffers always in a bulk payload, then their metadata
//!   (the "availability info", which is skipped); before: inline when
//!   `bInlined`, else in a bulk payload followed by the metadata.
//!
//! The buffers (`SerializeStreamedData`, [`super::skin`]): strip flags,
//! the index buffer (`FMultisizeIndexContainer`: a size byte, 2 or 4,
//! then a bulk array), positions, tangents and UVs (as for static
//! meshes), the skin weights, the colours when the mesh has vertex
//! colours, cloth, skin weight profiles, ray-tracing geometry, then the
//! compressed morph-target buffers.
//!
//! What follows the LODs (Nanite resources, inlined LOD counts, the
//! sampling data, sockets) is not needed for export and not read. Facts: UE
//! `SkeletalMesh.cpp`, `SkeletalMeshLODRenderData.cpp`,
//! `SkeletalMeshRenderData.cpp`; CUE4Parse `USkeletalMesh.cs`,
//! `FStaticLODModel.cs`, `FSkelMeshSection.cs`, `FSkeletalMaterial.cs`.

use pakrat_asset::bulk;
use pakrat_asset::props::{Asset, Versions};
use pakrat_io::{Error, Reader, Result};

use super::buffers::{self, bool32};
use super::skeleton::{fname, read_ref_skeleton, RefSkeleton};
use super::skin::{self, MorphBuffers, SkinWeights};
use super::static_mesh::BulkFetch;

/// A skeletal material slot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkeletalMaterial {
    /// The material (`FPackageIndex`).
    pub material: i32,
    /// `MaterialSlotName`.
    pub slot: String,
}

/// One render section of a LOD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderSection {
    /// Material slot index.
    pub material_index: i16,
    /// First index in the index buffer.
    pub base_index: u32,
    /// Triangles.
    pub num_triangles: u32,
    /// First vertex of the section.
    pub base_vertex: u32,
    /// Vertices of the section.
    pub num_vertices: u32,
    /// Section bone index → reference-skeleton bone index.
    pub bone_map: Vec<u16>,
    /// Most influences a vertex has.
    pub max_influences: u32,
    /// `bDisabled`.
    pub disabled: bool,
    /// The section has cloth (mapping data).
    pub cloth: bool,
}

/// One LOD, in Unreal axes.
#[derive(Clone, Debug, Default)]
pub struct SkelLod {
    /// Render sections.
    pub sections: Vec<RenderSection>,
    /// Indices.
    pub indices: Vec<u32>,
    /// The index buffer was stored 32-bit.
    pub index_32bit: bool,
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals, tangents and UV sets.
    pub vertex: buffers::TangentsUvs,
    /// Skin weights, one entry per vertex.
    pub weights: SkinWeights,
    /// RGBA colours (empty: none).
    pub colors: Vec<[u8; 4]>,
    /// Compressed morph-target deltas (None: the LOD stores none).
    pub morphs: Option<MorphBuffers>,
    /// The buffers came from a bulk payload.
    pub streamed: bool,
    /// Cooked out or stripped: no buffers.
    pub cooked_out: bool,
}

/// The native part of a skeletal mesh.
#[derive(Clone, Debug, Default)]
pub struct NativeSkeletalMesh {
    /// Material slots.
    pub materials: Vec<SkeletalMaterial>,
    /// The mesh's reference skeleton.
    pub skeleton: RefSkeleton,
    /// LODs read, LOD 0 first.
    pub lods: Vec<SkelLod>,
    /// LODs the package holds.
    pub lod_count: usize,
    /// Why reading stopped before the last LOD, when it did.
    pub lod_error: Option<String>,
}

/// Version gates of the layouts read here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SkelGates {
    /// Large world coordinates (doubles in bounds and transforms).
    pub lwc: bool,
    /// UE 5.6+: ray-tracing data headers.
    pub ue56: bool,
    /// UE 5.8+ (object version 1018, shared with 5.7): the LOD buffers
    /// always in a bulk payload.
    pub ue58: bool,
}

impl SkelGates {
    pub(crate) fn of(v: &Versions) -> SkelGates {
        SkelGates {
            lwc: v.ue5 >= 1004,
            ue56: v.ue5 >= 1017,
            ue58: v.ue5 >= 1018,
        }
    }
}

/// Read the native part of skeletal mesh export `export` of `asset` from
/// `r` (just after its properties). `has_colors`: the `bHasVertexColors`
/// property (the colour buffer is stored only then).
pub fn read(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    has_colors: bool,
    fetch: &BulkFetch<'_>,
) -> Result<NativeSkeletalMesh> {
    let g = SkelGates::of(&asset.versions);
    if g.ue5_unsupported() {
        return Err(r.unsupported(format!(
            "skeletal meshes of UE object version {}/{} (only the UE 5 layout with large world coordinates is read)",
            asset.versions.ue4, asset.versions.ue5
        )));
    }
    let strip = r.array::<2>("skeletal mesh strip flags")?;
    if strip[0] & 1 == 0 {
        return Err(r.invalid(
            "the skeletal mesh keeps its editor data (an uncooked package); only cooked meshes are read",
        ));
    }
    r.skip(if g.lwc { 56 } else { 28 }, "ImportedBounds")?;
    let mut m = NativeSkeletalMesh::default();
    let n = r.i32_count("skeletal materials", 40)?;
    for _ in 0..n {
        m.materials.push(material(asset, r)?);
    }
    m.skeleton = read_ref_skeleton(asset, r, g.lwc)?;
    if !bool32(r, "bCooked")? {
        return Err(r.invalid("the skeletal mesh is not cooked (bCooked is false)"));
    }
    m.lod_count = r.i32_count("LODs", 16)?;
    for k in 0..m.lod_count {
        match lod(asset, export, r, g, has_colors, fetch) {
            Ok(l) => m.lods.push(l),
            Err(e) if k > 0 => {
                m.lod_error = Some(format!("LOD {k}: {e}"));
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(m)
}

impl SkelGates {
    fn ue5_unsupported(&self) -> bool {
        !self.lwc
    }
}

/// `FSkeletalMaterial` (UE5 cooked).
fn material(asset: &Asset<'_>, r: &mut Reader<'_>) -> Result<SkeletalMaterial> {
    let material = r.i32("skeletal material")?;
    let slot = fname(asset, r, "MaterialSlotName")?;
    if bool32(r, "bSerializeImportedMaterialSlotName")? {
        fname(asset, r, "ImportedMaterialSlotName")?;
    }
    r.skip(24, "UVChannelData")?;
    r.i32("OverlayMaterialInterface")?;
    Ok(SkeletalMaterial { material, slot })
}

/// A `TArray` of fixed-size elements, skipped.
fn skip_fixed_array(r: &mut Reader<'_>, size: usize, what: &str) -> Result<()> {
    let n = r.i32_count(what, size)?;
    r.skip((n * size) as u64, what)
}

/// `FSkelMeshRenderSection`.
fn section(r: &mut Reader<'_>) -> Result<RenderSection> {
    let strip = r.array::<2>("section strip flags")?;
    let material_index = r.i16("MaterialIndex")?;
    let base_index = r.u32("BaseIndex")?;
    let num_triangles = r.u32("NumTriangles")?;
    bool32(r, "bRecomputeTangent")?;
    r.u8("RecomputeTangentsVertexMaskChannel")?;
    bool32(r, "bCastShadow")?;
    bool32(r, "bVisibleInRayTracing")?;
    let base_vertex = r.u32("BaseVertexIndex")?;
    let lods = r.i32_count("cloth mapping LODs", 4)?;
    let mut cloth = false;
    for k in 0..lods {
        let n = r.i32_count("cloth mapping data", 64)?;
        r.skip(64 * n as u64, "cloth mapping data")?;
        cloth |= k == 0 && n > 0;
    }
    let n = r.i32_count("bone map", 2)?;
    let mut bone_map = Vec::with_capacity(n);
    for _ in 0..n {
        bone_map.push(r.u16("bone map")?);
    }
    let num_vertices = r.u32("NumVertices")?;
    let max_influences = r.u32("MaxBoneInfluences")? & !(1 << 31);
    r.i16("CorrespondClothAssetIndex")?;
    r.skip(20, "ClothingData")?;
    if strip[1] & 1 == 0 {
        skip_fixed_array(r, 4, "DupVertData")?;
        skip_fixed_array(r, 8, "DupVertIndexData")?;
    }
    let disabled = bool32(r, "bDisabled")?;
    Ok(RenderSection {
        material_index,
        base_index,
        num_triangles,
        base_vertex,
        num_vertices,
        bone_map,
        max_influences,
        disabled,
        cloth,
    })
}

/// One LOD render item.
fn lod(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    g: SkelGates,
    has_colors: bool,
    fetch: &BulkFetch<'_>,
) -> Result<SkelLod> {
    let strip = r.array::<2>("LOD strip flags")?;
    let cooked_out = bool32(r, "bIsLODCookedOut")?;
    let inlined = bool32(r, "bInlined")?;
    skip_fixed_array(r, 2, "RequiredBones")?;
    let mut l = SkelLod::default();
    if strip[0] & 2 != 0 || cooked_out {
        l.cooked_out = true;
        return Ok(l);
    }
    let n = r.i32_count("render sections", 40)?;
    for _ in 0..n {
        l.sections.push(section(r)?);
    }
    skip_fixed_array(r, 2, "ActiveBoneIndices")?;
    r.u32("buffers size")?;
    if inlined && !g.ue58 {
        skin::streamed_data(r, g, has_colors, &mut l)?;
    } else {
        let b = bulk::read_ref(asset, export, r)?;
        let bytes = fetch(&b)?;
        let mut br = Reader::new(&bytes);
        skin::streamed_data(&mut br, g, has_colors, &mut l)?;
        l.streamed = true;
        skip_availability(r, g, &l)?;
    }
    check(&l)?;
    Ok(l)
}

/// The buffers' metadata after a streamed LOD: index size and count,
/// tangent/UV, position and colour counts, the skin weight metadata, the
/// cloth mapping when a section has cloth, the skin weight profile names
/// and (UE 5.6+) the ray-tracing header.
fn skip_availability(r: &mut Reader<'_>, g: SkelGates, l: &SkelLod) -> Result<()> {
    r.skip(5 + 16 + 8 + 8 + 6 * 4 + 4, "LOD buffer metadata")?;
    let _ = l;
    let n = r.i32_count("skin weight profile names", 8)?;
    r.skip(8 * n as u64, "skin weight profile names")?;
    if g.ue56 {
        r.skip(24, "ray-tracing data header")?;
    }
    Ok(())
}

/// Sections inside the buffers, indices naming vertices, every buffer one
/// entry per vertex, bone maps naming bones of the weights.
fn check(l: &SkelLod) -> Result<()> {
    let nv = l.positions.len();
    for (k, s) in l.sections.iter().enumerate() {
        let end = u64::from(s.base_index) + 3 * u64::from(s.num_triangles);
        if end > l.indices.len() as u64 {
            return Err(Error::Other(format!(
                "section {k}: indices {}..{end} pass the end of the index buffer ({})",
                s.base_index,
                l.indices.len()
            )));
        }
        let vend = u64::from(s.base_vertex) + u64::from(s.num_vertices);
        if vend > nv as u64 {
            return Err(Error::Other(format!(
                "section {k}: vertices {}..{vend} pass the {nv} the LOD has",
                s.base_vertex
            )));
        }
    }
    if let Some(i) = l.indices.iter().find(|&&i| i as usize >= nv) {
        return Err(Error::Other(format!(
            "index {i} names a vertex past the {nv} the LOD has"
        )));
    }
    if l.vertex.normals.len() != nv || l.vertex.uvs.iter().any(|u| u.len() != nv) {
        return Err(Error::Other(format!(
            "{nv} positions but {} tangent frames",
            l.vertex.normals.len()
        )));
    }
    if l.weights.influences.len() != nv {
        return Err(Error::Other(format!(
            "{nv} positions but {} skin weights",
            l.weights.influences.len()
        )));
    }
    if !l.colors.is_empty() && l.colors.len() != nv {
        return Err(Error::Other(format!(
            "{nv} positions but {} colours",
            l.colors.len()
        )));
    }
    Ok(())
}
