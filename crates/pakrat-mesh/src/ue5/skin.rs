//! The buffers of a cooked UE5 skeletal mesh LOD (`SerializeStreamedData`)
//! and the two skeletal-only ones: the skin weights and the compressed
//! morph-target deltas.
//!
//! * `FSkinWeightVertexBuffer` (UE 4.25+ "unlimited influences" format):
//!   strip flags, `bVariableBonesPerVertex`, `MaxBoneInfluences`,
//!   `NumBones`, `NumVertices`, `bUse16BitBoneIndex`,
//!   `bUse16BitBoneWeight` (UE 5.x), the influence bytes (a bulk array),
//!   then the lookup buffer (strip flags, vertex count, a bulk array of
//!   `u32`: offset << 8 | influence count, per vertex, used when the
//!   influences are variable). Each vertex holds its bone indices (8 or
//!   16 bit) then as many weights (8 or 16 bit, summing to 255 or 65535).
//! * `FMorphTargetVertexInfoBuffers` (UE 5.x, when the LOD stores the
//!   morphs compressed for the GPU): the packed words, per-morph minimum
//!   and maximum `FVector4f`s, each morph's first batch and batch count,
//!   the batch count, position and normal precision; each 40-byte batch
//!   header (data offset, bit widths, element count, index minimum,
//!   quantised minimums) points at its bit-packed deltas (least
//!   significant bit first): per element the vertex index offset, the
//!   position and (when flagged) the normal, each component an unsigned
//!   offset from the batch minimum, times the precision.
//!
//! Facts: UE `SkinWeightVertexBuffer.cpp`, `MorphTarget.cpp`,
//! `MorphTargetVertexInfoBuffers`; CUE4Parse `FSkinWeightVertexBuffer.cs`,
//! `FSkinWeightInfo.cs`, `FMorphTargetVertexInfoBuffers.cs`,
//! `FStaticLODModel.cs`.

use pakrat_io::{Reader, Result};

use super::buffers::{self, bool32, bulk_array_header, skip_bulk_array};
use super::skeletal_mesh::{SkelGates, SkelLod};

/// Skin weights: per vertex its (section bone index, weight) pairs, the
/// weights as stored (0–255 or 0–65535).
#[derive(Clone, Debug, Default)]
pub struct SkinWeights {
    /// Per vertex: (bone index in its section's bone map, weight).
    pub influences: Vec<Vec<(u16, u16)>>,
    /// Most influences a vertex may have.
    pub max_influences: u32,
    /// Influences vary per vertex (the lookup buffer is used).
    pub variable: bool,
    /// Bone indices are 16-bit.
    pub index_16bit: bool,
    /// Weights are 16-bit (full weight 65535, else 255).
    pub weight_16bit: bool,
}

/// One morph's deltas in one LOD.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphDeltas {
    /// (vertex, position delta) in Unreal axes.
    pub deltas: Vec<(u32, [f32; 3])>,
}

/// The compressed morph buffers of a LOD, decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphBuffers {
    /// One entry per morph, in the mesh's `MorphTargets` order.
    pub morphs: Vec<MorphDeltas>,
    /// Batches.
    pub batches: usize,
    /// `PositionPrecision`.
    pub position_precision: f32,
}

/// `FSkinWeightVertexBuffer`.
pub fn skin_weights(r: &mut Reader<'_>) -> Result<SkinWeights> {
    let strip = r.array::<2>("skin weight strip flags")?;
    let variable = bool32(r, "bVariableBonesPerVertex")?;
    let max = r.u32("MaxBoneInfluences")?;
    r.u32("NumBones")?;
    let n = r.u32("skin weight vertices")? as usize;
    let index_16bit = bool32(r, "bUse16BitBoneIndex")?;
    let weight_16bit = bool32(r, "bUse16BitBoneWeight")?;
    if max == 0 || max > 32 {
        return Err(r.invalid(format!("{max} bone influences per vertex (1–32 expected)")));
    }
    let data: &[u8] = if strip[0] & 2 == 0 {
        let (size, count) = bulk_array_header(r, "skin weight data")?;
        if size != 1 && count > 0 {
            return Err(r.invalid(format!("skin weight data: element size {size}")));
        }
        r.bytes(count as u64, "skin weight data")?
    } else {
        &[]
    };
    let lookup_strip = r.array::<2>("skin weight lookup strip flags")?;
    r.u32("lookup vertices")?;
    let mut lookup = Vec::new();
    if lookup_strip[0] & 2 == 0 {
        let (size, count) = bulk_array_header(r, "skin weight lookup")?;
        if size != 4 && count > 0 {
            return Err(r.invalid(format!("skin weight lookup: element size {size}")));
        }
        for _ in 0..count {
            lookup.push(r.u32("skin weight lookup")?);
        }
    }
    let mut w = SkinWeights {
        max_influences: max,
        variable,
        index_16bit,
        weight_16bit,
        ..Default::default()
    };
    if data.is_empty() {
        return Ok(w);
    }
    let ib = if index_16bit { 2 } else { 1 };
    let wb = if weight_16bit { 2 } else { 1 };
    let per = max as usize * (ib + wb);
    if !variable && data.len() != n * per {
        return Err(r.invalid(format!(
            "skin weights: {} bytes for {n} vertices of {max} influences",
            data.len()
        )));
    }
    if variable && lookup.len() != n {
        return Err(r.invalid(format!(
            "skin weights: {} lookup entries for {n} vertices",
            lookup.len()
        )));
    }
    w.influences.reserve(n);
    for v in 0..n {
        let (at, count) = if let Some(&e) = lookup.get(v).filter(|_| variable) {
            ((e >> 8) as usize, (e & 0xff) as usize)
        } else {
            (v * per, max as usize)
        };
        let end = at + count * (ib + wb);
        let Some(b) = data.get(at..end) else {
            return Err(r.invalid(format!(
                "skin weights: vertex {v} at {at}..{end} passes the {} bytes",
                data.len()
            )));
        };
        let get = |k: usize, wide: bool| -> u16 {
            if wide {
                u16::from_le_bytes([b[k], b[k + 1]])
            } else {
                u16::from(b[k])
            }
        };
        let mut inf = Vec::with_capacity(count);
        for k in 0..count {
            let bone = get(k * ib, index_16bit);
            let weight = get(count * ib + k * wb, weight_16bit);
            if weight > 0 {
                inf.push((bone, weight));
            }
        }
        w.influences.push(inf);
    }
    Ok(w)
}

/// `FMultisizeIndexContainer`: a size byte (2 or 4) and a bulk array.
fn multisize_indices(r: &mut Reader<'_>) -> Result<(Vec<u32>, bool)> {
    let size = r.u8("index size")?;
    let (esize, count) = bulk_array_header(r, "indices")?;
    if !(size == 2 || size == 4) || (count > 0 && esize != usize::from(size)) {
        return Err(r.invalid(format!(
            "indices: size byte {size}, {count} of {esize} bytes"
        )));
    }
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(if size == 4 {
            r.u32("index")?
        } else {
            u32::from(r.u16("index")?)
        });
    }
    Ok((out, size == 4))
}

/// `SerializeStreamedData` of a LOD: the buffers up to and including the
/// compressed morph targets (what follows is not read).
pub(crate) fn streamed_data(
    r: &mut Reader<'_>,
    g: SkelGates,
    has_colors: bool,
    l: &mut SkelLod,
) -> Result<()> {
    r.array::<2>("buffer strip flags")?;
    let (indices, is32) = multisize_indices(r)?;
    l.indices = indices;
    l.index_32bit = is32;
    l.positions = buffers::positions(r)?;
    l.vertex = buffers::tangents_uvs(r)?;
    l.weights = skin_weights(r)?;
    if has_colors {
        l.colors = buffers::colors(r)?;
    }
    if l.sections.iter().any(|s| s.cloth) {
        // The cloth buffer sits between the colours and the morphs.
        return Ok(());
    }
    let profiles = r.i32_count("skin weight profiles", 8)?;
    if profiles > 0 {
        // Alternative weight profiles are not read; the morphs after them
        // are then not reached either.
        return Ok(());
    }
    if g.ue56 {
        r.skip(24, "ray-tracing data header")?;
        skip_bulk_array(r, "ray-tracing geometry")?;
    } else {
        let n = r.i32_count("ray-tracing geometry", 1)?;
        r.skip(n as u64, "ray-tracing geometry")?;
    }
    if bool32(r, "bSerializeCompressedMorphTargets")? {
        l.morphs = Some(morph_buffers(r)?);
    }
    Ok(())
}

/// A `TArray` of `u32`.
fn u32_array(r: &mut Reader<'_>, what: &str) -> Result<Vec<u32>> {
    let n = r.i32_count(what, 4)?;
    (0..n).map(|_| r.u32(what)).collect()
}

/// Least-significant-bit-first reader over packed words.
struct Bits<'a> {
    data: &'a [u8],
    bit: u64,
}

impl Bits<'_> {
    fn read(&mut self, n: u32) -> Option<u32> {
        let mut v = 0u32;
        for k in 0..n {
            let byte = *self.data.get((self.bit >> 3) as usize)?;
            if byte >> (self.bit & 7) & 1 != 0 {
                v |= 1 << k;
            }
            self.bit += 1;
        }
        Some(v)
    }
}

/// `FMorphTargetVertexInfoBuffers`, decoded into per-morph deltas.
pub fn morph_buffers(r: &mut Reader<'_>) -> Result<MorphBuffers> {
    let words = r.i32_count("packed morph words", 4)?;
    let packed = r.bytes(4 * words as u64, "packed morph data")?;
    for what in ["minimum per morph", "maximum per morph"] {
        let n = r.i32_count(what, 16)?;
        r.skip(16 * n as u64, what)?;
    }
    let starts = u32_array(r, "batch start per morph")?;
    let counts = u32_array(r, "batches per morph")?;
    let total = r.i32("NumTotalBatches")?;
    let position_precision = r.f32("PositionPrecision")?;
    r.f32("TangentZPrecision")?;
    let total = usize::try_from(total)
        .ok()
        .filter(|&t| t * 40 <= packed.len())
        .ok_or_else(|| r.invalid(format!("{total} morph batches in {} bytes", packed.len())))?;
    let sum: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if sum > total as u64 {
        return Err(r.invalid(format!("{sum} morph batches named of {total}")));
    }
    if starts.len() != counts.len() {
        return Err(r.invalid(format!(
            "{} morph batch starts but {} batch counts",
            starts.len(),
            counts.len()
        )));
    }
    let mut out = MorphBuffers {
        batches: total,
        position_precision,
        ..Default::default()
    };
    // Batches may share their packed bits (and zero-width elements take
    // none): the deltas decoded are bounded by the packed bytes instead.
    let budget = 8 * packed.len() + (1 << 16);
    let mut decoded = 0;
    for (&s, &c) in starts.iter().zip(&counts) {
        let end = u64::from(s) + u64::from(c);
        if end > total as u64 {
            return Err(r.invalid(format!("morph batches {s}..{end} of {total}")));
        }
        let mut m = MorphDeltas::default();
        for b in s..s + c {
            batch(r, packed, b as usize, position_precision, &mut m)?;
            if decoded + m.deltas.len() > budget {
                return Err(r.invalid(format!(
                    "morph deltas: more than {budget} from {} packed bytes",
                    packed.len()
                )));
            }
        }
        decoded += m.deltas.len();
        out.morphs.push(m);
    }
    Ok(out)
}

/// One batch's deltas.
fn batch(
    r: &Reader<'_>,
    packed: &[u8],
    b: usize,
    precision: f32,
    m: &mut MorphDeltas,
) -> Result<()> {
    let h = &packed[b * 40..b * 40 + 40];
    let word = |k: usize| u32::from_le_bytes([h[4 * k], h[4 * k + 1], h[4 * k + 2], h[4 * k + 3]]);
    let offset = word(0) as usize;
    let bits = word(1);
    let index_bits = bits & 31;
    let pos_bits = [bits >> 5 & 31, bits >> 10 & 31, bits >> 15 & 31];
    let tangents = bits >> 20 & 1 == 1;
    let n = bits >> 21;
    let index_min = word(2);
    let pos_min = [word(3) as i32, word(4) as i32, word(5) as i32];
    let tb = word(6);
    let tan_bits = [tb & 31, tb >> 5 & 31, tb >> 10 & 31];
    let stride = index_bits
        + pos_bits.iter().sum::<u32>()
        + if tangents {
            tan_bits.iter().sum::<u32>()
        } else {
            0
        };
    let size = (u64::from(stride) * u64::from(n)).div_ceil(8);
    let data = packed
        .get(offset..)
        .filter(|d| d.len() as u64 >= size)
        .ok_or_else(|| {
            r.invalid(format!(
                "morph batch {b}: {n} elements of {stride} bits at {offset} pass the {} bytes",
                packed.len()
            ))
        })?;
    let mut bitr = Bits { data, bit: 0 };
    let bad = || r.invalid(format!("morph batch {b}: packed data ends early"));
    for i in 0..n {
        let idx = bitr.read(index_bits).ok_or_else(bad)?;
        let vertex = index_min.wrapping_add(i).wrapping_add(idx);
        let mut d = [0f32; 3];
        for k in 0..3 {
            let q = bitr.read(pos_bits[k]).ok_or_else(bad)?;
            d[k] = (i64::from(pos_min[k]) + i64::from(q)) as f32 * precision;
        }
        if tangents {
            for &t in &tan_bits {
                bitr.read(t).ok_or_else(bad)?;
            }
        }
        m.deltas.push((vertex, d));
    }
    Ok(())
}
