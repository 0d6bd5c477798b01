//! The vertex and index buffers of a cooked UE4.19+/UE5 mesh LOD:
//! `FPositionVertexBuffer`, `FStaticMeshVertexBuffer` (tangents and UVs),
//! `FColorVertexBuffer` and `FRawStaticIndexBuffer`, each read from a
//! bounds-checked [`Reader`] with every count checked against the bytes
//! left before anything is allocated.
//!
//! Layouts (facts: UE `PositionVertexBuffer.cpp`,
//! `StaticMeshVertexBuffer.cpp`, `ColorVertexBuffer.cpp`,
//! `RawIndexBuffer.cpp`; CUE4Parse `FPositionVertexBuffer.cs`,
//! `FStaticMeshVertexBuffer.cs`, `FColorVertexBuffer.cs`,
//! `FRawStaticIndexBuffer.cs`):
//!
//! * a bulk array is `i32` element size, `i32` count, then the elements;
//! * positions: `Stride`, `NumVertices`, a bulk array of `f32×3`;
//! * tangents and UVs: strip flags, `NumTexCoords`, `NumVertices`,
//!   `bUseFullPrecisionUVs`, `bUseHighPrecisionTangentBasis` (bools are
//!   `i32`), then the tangent bulk array (per vertex `TangentX`, `TangentZ`:
//!   4 signed bytes each, or 4 signed 16-bit values each with high
//!   precision) and the UV bulk array (per vertex `NumTexCoords` UVs as two
//!   half or two full floats);
//! * colours: strip flags, `Stride`, `NumVertices`, and when there are
//!   vertices a bulk array of `FColor` (B, G, R, A bytes);
//! * indices: `b32Bit`, a byte bulk array, and (UE 4.25+)
//!   `bShouldExpandTo32Bit`.

use pakrat_io::{Reader, Result};

/// A bulk array's header: (element size, count), checked against the bytes
/// left.
pub(crate) fn bulk_array_header(r: &mut Reader<'_>, what: &str) -> Result<(usize, usize)> {
    let size = r.i32(what)?;
    let count = r.i32(what)?;
    if size < 0 || count < 0 {
        return Err(r.invalid(format!("{what}: element size {size}, count {count}")));
    }
    let total = (size as u64) * (count as u64);
    if total > r.remaining() as u64 {
        return Err(r.invalid(format!(
            "{what}: {count} elements of {size} bytes pass the end of the data ({} bytes left)",
            r.remaining()
        )));
    }
    Ok((size as usize, count as usize))
}

/// Skip a bulk array.
pub(crate) fn skip_bulk_array(r: &mut Reader<'_>, what: &str) -> Result<()> {
    let (size, count) = bulk_array_header(r, what)?;
    r.skip((size * count) as u64, what)
}

/// A UE `bool` (`i32` 0 or 1).
pub(crate) fn bool32(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    match r.u32(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(r.invalid(format!("{what}: {v} is not a bool"))),
    }
}

/// `FPositionVertexBuffer`: the positions (Unreal axes and units).
pub fn positions(r: &mut Reader<'_>) -> Result<Vec<[f32; 3]>> {
    let stride = r.u32("position stride")?;
    let n = r.u32("position vertex count")?;
    let (size, count) = bulk_array_header(r, "positions")?;
    if size != 12 || count != n as usize || (stride != 12 && count > 0) {
        return Err(r.invalid(format!(
            "positions: stride {stride}, {n} vertices, {count} stored of {size} bytes (full-precision f32×3 expected)"
        )));
    }
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push([r.f32("x")?, r.f32("y")?, r.f32("z")?]);
    }
    Ok(out)
}

/// Tangent frames and UVs of `FStaticMeshVertexBuffer`.
#[derive(Clone, Debug, Default)]
pub struct TangentsUvs {
    /// `TangentZ` (the normal), one per vertex, unit length where stored
    /// non-zero (Unreal axes).
    pub normals: Vec<[f32; 3]>,
    /// `TangentX` and the binormal sign (w), one per vertex.
    pub tangents: Vec<[f32; 4]>,
    /// `NumTexCoords` UV sets, each one per vertex.
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// `bUseFullPrecisionUVs`.
    pub full_precision_uvs: bool,
    /// `bUseHighPrecisionTangentBasis`.
    pub high_precision_tangents: bool,
}

/// IEEE half → f32.
pub(crate) fn half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * (2f32).powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + frac / 1024.0) * (2f32).powi(e - 15),
    }
}

fn unit3(v: [f32; 3]) -> [f32; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l > 1e-6 && l.is_finite() {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [0.0, 0.0, 0.0]
    }
}

/// One packed tangent-basis vector: 4 signed bytes (`FPackedNormal`, UE
/// 4.20+ stored signed) or 4 signed 16-bit values (`FPackedRGBA16N`).
fn packed(r: &mut Reader<'_>, high: bool) -> Result<[f32; 4]> {
    Ok(if high {
        let mut v = [0f32; 4];
        for x in &mut v {
            *x = f32::from(r.i16("packed tangent")?) / 32767.0;
        }
        v
    } else {
        let b = r.array::<4>("packed tangent")?;
        b.map(|x| f32::from(x as i8) / 127.0)
    })
}

/// `FStaticMeshVertexBuffer` (UE 4.19+ layout).
pub fn tangents_uvs(r: &mut Reader<'_>) -> Result<TangentsUvs> {
    let strip = r.array::<2>("vertex buffer strip flags")?;
    let ntex = r.u32("NumTexCoords")?;
    let n = r.u32("vertex count")? as usize;
    let full = bool32(r, "bUseFullPrecisionUVs")?;
    let high = bool32(r, "bUseHighPrecisionTangentBasis")?;
    if ntex > 8 {
        return Err(r.invalid(format!("{ntex} UV sets (at most 8)")));
    }
    let mut out = TangentsUvs {
        full_precision_uvs: full,
        high_precision_tangents: high,
        ..Default::default()
    };
    if strip[0] & 2 != 0 {
        // Audio-visual data stripped (a server build): no vertices.
        return Ok(out);
    }
    let (size, count) = bulk_array_header(r, "tangents")?;
    let want = if high { 16 } else { 8 };
    if count != n || (count > 0 && size != want) {
        return Err(r.invalid(format!(
            "tangents: {count} of {size} bytes for {n} vertices ({want} bytes each expected)"
        )));
    }
    out.normals.reserve(n);
    out.tangents.reserve(n);
    for _ in 0..n {
        let x = packed(r, high)?;
        let z = packed(r, high)?;
        let t = unit3([x[0], x[1], x[2]]);
        out.tangents
            .push([t[0], t[1], t[2], if z[3] < 0.0 { -1.0 } else { 1.0 }]);
        out.normals.push(unit3([z[0], z[1], z[2]]));
    }
    let (size, count) = bulk_array_header(r, "texture coordinates")?;
    let per = if full { 8 } else { 4 };
    // The engine pads an odd UV set count of half UVs by one vertex.
    let verts = if ntex == 0 { 0 } else { count / ntex as usize };
    if (ntex > 0 && count % ntex as usize != 0)
        || (count > 0 && size != per)
        || !(verts == n || verts == n + 1)
        || (ntex == 0 && count != 0)
    {
        return Err(r.invalid(format!(
            "texture coordinates: {count} of {size} bytes for {n} vertices × {ntex} sets"
        )));
    }
    let mut uvs = vec![Vec::with_capacity(n); ntex as usize];
    for v in 0..verts {
        for set in uvs.iter_mut() {
            let uv = if full {
                [r.f32("u")?, r.f32("v")?]
            } else {
                [half(r.u16("u")?), half(r.u16("v")?)]
            };
            if v < n {
                set.push(uv);
            }
        }
    }
    out.uvs = uvs;
    Ok(out)
}

/// `FColorVertexBuffer`: RGBA colours (empty when the LOD has none).
pub fn colors(r: &mut Reader<'_>) -> Result<Vec<[u8; 4]>> {
    let strip = r.array::<2>("colour buffer strip flags")?;
    let stride = r.u32("colour stride")?;
    let n = r.u32("colour vertex count")? as usize;
    if strip[0] & 2 != 0 || n == 0 {
        return Ok(Vec::new());
    }
    let (size, count) = bulk_array_header(r, "colours")?;
    if size != 4 || count != n || stride != 4 {
        return Err(r.invalid(format!(
            "colours: stride {stride}, {count} stored of {size} bytes for {n} vertices"
        )));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let [b, g, rr, a] = r.array::<4>("colour")?;
        out.push([rr, g, b, a]);
    }
    Ok(out)
}

/// `FRawStaticIndexBuffer`: the indices and whether they were stored as
/// 32-bit. `expand_flag`: UE 4.25+ (`bShouldExpandTo32Bit` follows).
pub fn indices(r: &mut Reader<'_>, expand_flag: bool) -> Result<(Vec<u32>, bool)> {
    let is32 = bool32(r, "b32Bit")?;
    let (size, count) = bulk_array_header(r, "index bytes")?;
    if size != 1 && count > 0 {
        return Err(r.invalid(format!("index bytes: element size {size}")));
    }
    let bytes = r.bytes(count as u64, "indices")?;
    if expand_flag {
        bool32(r, "bShouldExpandTo32Bit")?;
    }
    let out = if is32 {
        if bytes.len() % 4 != 0 {
            return Err(r.invalid(format!("{} bytes of 32-bit indices", bytes.len())));
        }
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    } else {
        if bytes.len() % 2 != 0 {
            return Err(r.invalid(format!("{} bytes of 16-bit indices", bytes.len())));
        }
        bytes
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect()
    };
    Ok((out, is32))
}

/// Skip an `FRawStaticIndexBuffer`.
pub(crate) fn skip_indices(r: &mut Reader<'_>, expand_flag: bool) -> Result<()> {
    indices(r, expand_flag).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_decode() {
        assert_eq!(half(0x3c00), 1.0);
        assert_eq!(half(0xc000), -2.0);
        assert_eq!(half(0x3800), 0.5);
        assert_eq!(half(0), 0.0);
    }

    #[test]
    fn counts_past_the_end_are_refused_before_allocating() {
        let mut b = vec![];
        b.extend_from_slice(&12u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        b.extend_from_slice(&12i32.to_le_bytes());
        b.extend_from_slice(&i32::MAX.to_le_bytes());
        assert!(positions(&mut Reader::new(&b)).is_err());
    }
}
