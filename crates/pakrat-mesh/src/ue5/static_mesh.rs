//! The native part of a cooked `UStaticMesh` (UE 4.23+ cooked format, UE5):
//! after the properties, `FStripDataFlags`, `bCooked`, the `BodySetup` and
//! `NavCollision` references, `LightingGuid`, the socket references, then
//! `FStaticMeshRenderData`: the LOD count and each
//! `FStaticMeshLODResources`:
//!
//! * strip flags, the sections (`FStaticMeshSection`: material index,
//!   first index, triangle count, min/max vertex index, then `i32` bools:
//!   collision, cast shadow, force opaque, visible in ray tracing (4.26+),
//!   affect distance-field lighting (5.1+)), UE 5.6+ the source mesh bounds,
//!   `MaxDeviation`, `bIsLODCookedOut`, `bInlined`;
//! * unless stripped or cooked out: the buffers inline, or in a bulk
//!   payload followed by the buffers' sizes (80 bytes, UE4 8 more for the
//!   adjacency buffer, UE 5.6+ 24 more for the ray-tracing header); then 12
//!   bytes of buffer sizes;
//! * the buffers: strip flags, positions, tangents/UVs, colours, the index
//!   buffer, then reversed / depth-only / wireframe / (UE4) adjacency index
//!   buffers as the class strip flags leave them, the ray-tracing geometry
//!   (4.25+), and the area-weighted samplers (one per section, one more).
//!
//! What follows the LODs (the inlined LOD count, UE5 Nanite resources,
//! distance fields, bounds, screen sizes) is not needed for export and not
//! read. Facts: UE `StaticMesh.cpp`; CUE4Parse `UStaticMesh.cs`,
//! `FStaticMeshRenderData.cs`, `FStaticMeshLODResources.cs`,
//! `FStaticMeshSection.cs`.

use pakrat_asset::bulk::{self, BulkRef};
use pakrat_asset::props::{Asset, Versions};
use pakrat_io::{Error, Reader, Result};

use super::buffers::{self, bool32, skip_bulk_array};

/// One LOD section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LodSection {
    /// Index into the mesh's material slots (`StaticMaterials`).
    pub material_index: i32,
    /// First index of its triangles in the index buffer.
    pub first_index: u32,
    /// Triangles.
    pub num_triangles: u32,
    /// Smallest vertex index used.
    pub min_vertex: u32,
    /// Largest vertex index used.
    pub max_vertex: u32,
}

/// One LOD of a static mesh, in Unreal axes.
#[derive(Clone, Debug, Default)]
pub struct Lod {
    /// Sections.
    pub sections: Vec<LodSection>,
    /// Positions.
    pub positions: Vec<[f32; 3]>,
    /// Normals, tangents and UV sets.
    pub vertex: buffers::TangentsUvs,
    /// RGBA colours (empty: none).
    pub colors: Vec<[u8; 4]>,
    /// The index buffer.
    pub indices: Vec<u32>,
    /// The index buffer was stored 32-bit.
    pub index_32bit: bool,
    /// The LOD's buffers were in a bulk payload (streamed), not inline.
    pub streamed: bool,
    /// The cook left the LOD's buffers out (`bIsLODCookedOut`, or stripped).
    pub cooked_out: bool,
}

/// The native part of a static mesh.
#[derive(Clone, Debug, Default)]
pub struct NativeStaticMesh {
    /// `BodySetup` (`FPackageIndex`).
    pub body_setup: i32,
    /// `NavCollision` (`FPackageIndex`).
    pub nav_collision: i32,
    /// Sockets (`FPackageIndex`es of `StaticMeshSocket` objects).
    pub sockets: Vec<i32>,
    /// The LODs read, LOD 0 first.
    pub lods: Vec<Lod>,
    /// LODs the package holds.
    pub lod_count: usize,
    /// Why reading stopped before the last LOD, when it did.
    pub lod_error: Option<String>,
}

/// Version gates of the layouts read here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gates {
    /// UE5 (no adjacency buffer: `RemovingTessellation`).
    pub ue5: bool,
    /// Large world coordinates (bounds in doubles).
    pub lwc: bool,
    /// UE 5.1+: `bAffectDistanceFieldLighting` in sections.
    pub ue51: bool,
    /// UE 5.6+: source mesh bounds, ray-tracing data headers.
    pub ue56: bool,
    /// UE 4.25+: ray-tracing geometry, `bShouldExpandTo32Bit`.
    pub ue425: bool,
    /// UE 4.26+: `bVisibleInRayTracing`.
    pub ue426: bool,
}

/// `VER_UE4_…` of 4.25.
const UE4_425: i32 = 518;
/// `VER_UE4_…` of 4.26/4.27.
const UE4_426: i32 = 522;
/// `LARGE_WORLD_COORDINATES`.
const UE5_LWC: i32 = 1004;
/// `VERSE_CELLS`, the first UE 5.6 object version.
const UE5_56: i32 = 1015;

impl Gates {
    pub(crate) fn of(v: &Versions) -> Gates {
        let ue5 = v.ue5 >= 1000;
        Gates {
            ue5,
            lwc: v.ue5 >= UE5_LWC,
            ue51: v.ue5 > UE5_LWC,
            ue56: v.ue5 >= UE5_56,
            ue425: ue5 || v.ue4 >= UE4_425,
            ue426: ue5 || v.ue4 >= UE4_426,
        }
    }
}

/// Where a LOD's streamed buffers are fetched from.
pub type BulkFetch<'f> = dyn Fn(&BulkRef) -> Result<Vec<u8>> + 'f;

/// Read the native part of static mesh export `export` of `asset` from `r`
/// (just after its properties and object GUID). `fetch` brings the bytes of
/// a streamed LOD's bulk payload.
pub fn read(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    fetch: &BulkFetch<'_>,
) -> Result<NativeStaticMesh> {
    let g = Gates::of(&asset.versions);
    let strip = r.array::<2>("static mesh strip flags")?;
    if strip[0] & 1 == 0 {
        return Err(r.invalid(
            "the static mesh keeps its editor data (an uncooked package); only cooked meshes are read",
        ));
    }
    if !bool32(r, "bCooked")? {
        return Err(r.invalid("the static mesh is not cooked (bCooked is false)"));
    }
    let mut m = NativeStaticMesh {
        body_setup: r.i32("BodySetup")?,
        nav_collision: r.i32("NavCollision")?,
        ..Default::default()
    };
    r.skip(16, "LightingGuid")?;
    let n = r.i32_count("sockets", 4)?;
    for _ in 0..n {
        m.sockets.push(r.i32("socket")?);
    }
    m.lod_count = r.i32_count("LODs", 40)?;
    for k in 0..m.lod_count {
        match lod(asset, export, r, g, fetch) {
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

fn bounds_size(g: Gates) -> u64 {
    if g.lwc {
        56
    } else {
        28
    }
}

/// One `FStaticMeshLODResources`.
fn lod(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    g: Gates,
    fetch: &BulkFetch<'_>,
) -> Result<Lod> {
    let strip = r.array::<2>("LOD strip flags")?;
    let n = r.i32_count("sections", 24)?;
    let mut l = Lod::default();
    for _ in 0..n {
        l.sections.push(section(r, g)?);
    }
    if g.ue56 {
        r.skip(bounds_size(g), "SourceMeshBounds")?;
    }
    r.f32("MaxDeviation")?;
    let cooked_out = bool32(r, "bIsLODCookedOut")?;
    let inlined = bool32(r, "bInlined")?;
    if strip[0] & 2 != 0 || cooked_out {
        l.cooked_out = true;
        return Ok(l);
    }
    if g.ue56 && newer_word_follows(r, inlined) {
        r.skip(4, "UE 5.7+ LOD word")?;
    }
    if inlined {
        serialize_buffers(r, g, &mut l)?;
    } else {
        let b = bulk::read_ref(asset, export, r)?;
        let bytes = fetch(&b)?;
        let mut br = Reader::new(&bytes);
        serialize_buffers(&mut br, g, &mut l)?;
        l.streamed = true;
        let mut fixed = 8 + 16 + 8 + 8 + 40;
        if !g.ue5 {
            fixed += 8;
        }
        if g.ue56 {
            fixed += 24;
        }
        r.skip(fixed, "streamed LOD buffer sizes")?;
    }
    r.skip(12, "FStaticMeshBuffersSize")?;
    check_sections(&l)?;
    Ok(l)
}

/// The UE 5.8/6.0 fixtures hold a zero `i32` after `bInlined` that UE 5.6
/// packages and CUE4Parse do not have (zen packages carry no version to
/// tell them apart): it is taken to be there when the word is 0 and, for
/// inline buffers, a position stride of 12 follows the buffers' strip
/// flags after it (in the older layout the stride's low byte would be
/// inside the word, making it non-zero).
fn newer_word_follows(r: &Reader<'_>, inlined: bool) -> bool {
    let rest = r.rest();
    let word = |at: usize| {
        rest.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if word(0) != Some(0) {
        return false;
    }
    !inlined || word(6) == Some(12)
}

/// `FStaticMeshSection`.
fn section(r: &mut Reader<'_>, g: Gates) -> Result<LodSection> {
    let material_index = r.i32("MaterialIndex")?;
    let first_index = r.u32("FirstIndex")?;
    let num_triangles = r.u32("NumTriangles")?;
    let min_vertex = r.u32("MinVertexIndex")?;
    let max_vertex = r.u32("MaxVertexIndex")?;
    bool32(r, "bEnableCollision")?;
    bool32(r, "bCastShadow")?;
    bool32(r, "bForceOpaque")?;
    if g.ue426 {
        bool32(r, "bVisibleInRayTracing")?;
    }
    if g.ue51 {
        bool32(r, "bAffectDistanceFieldLighting")?;
    }
    Ok(LodSection {
        material_index,
        first_index,
        num_triangles,
        min_vertex,
        max_vertex,
    })
}

/// The sections' triangles lie in the index buffer and name vertices that
/// exist.
fn check_sections(l: &Lod) -> Result<()> {
    let nv = l.positions.len();
    for (k, s) in l.sections.iter().enumerate() {
        let end = u64::from(s.first_index) + 3 * u64::from(s.num_triangles);
        if end > l.indices.len() as u64 {
            return Err(Error::Other(format!(
                "section {k}: indices {}..{end} pass the end of the index buffer ({})",
                s.first_index,
                l.indices.len()
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
    if !l.colors.is_empty() && l.colors.len() != nv {
        return Err(Error::Other(format!(
            "{nv} positions but {} colours",
            l.colors.len()
        )));
    }
    Ok(())
}

/// `FWeightedRandomSampler`: probabilities, aliases, total weight.
fn skip_sampler(r: &mut Reader<'_>) -> Result<()> {
    let n = r.i32_count("sampler probabilities", 4)?;
    r.skip(4 * n as u64, "sampler probabilities")?;
    let n = r.i32_count("sampler aliases", 4)?;
    r.skip(4 * n as u64, "sampler aliases")?;
    r.f32("sampler total weight")?;
    Ok(())
}

/// `FStaticMeshLODResources::SerializeBuffers`.
pub(crate) fn serialize_buffers(r: &mut Reader<'_>, g: Gates, l: &mut Lod) -> Result<()> {
    let strip = r.array::<2>("buffer strip flags")?;
    let class = strip[1];
    l.positions = buffers::positions(r)?;
    l.vertex = buffers::tangents_uvs(r)?;
    l.colors = buffers::colors(r)?;
    let (indices, is32) = buffers::indices(r, g.ue425)?;
    l.indices = indices;
    l.index_32bit = is32;
    let reversed = class & 4 == 0;
    if reversed {
        buffers::skip_indices(r, g.ue425)?;
    }
    buffers::skip_indices(r, g.ue425)?;
    if reversed {
        buffers::skip_indices(r, g.ue425)?;
    }
    if strip[0] & 1 == 0 {
        buffers::skip_indices(r, g.ue425)?;
    }
    if !g.ue5 && class & 1 == 0 {
        buffers::skip_indices(r, g.ue425)?;
    }
    if g.ue425 && class & 8 == 0 {
        if g.ue56 {
            r.skip(24, "ray-tracing data header")?;
        }
        skip_bulk_array(r, "ray-tracing geometry")?;
    }
    for _ in 0..=l.sections.len() {
        skip_sampler(r)?;
    }
    Ok(())
}
