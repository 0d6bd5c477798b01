//! The keys of `FUECompressedAnimData` with the per-track key encoding
//! (`AKF_PerTrackCompression`, the `AnimCompress_PerTrackCompression`
//! codec): every track's translation, rotation and scale each start at an
//! offset into the key bytes (−1: none, the identity) with a packed `u32`
//! header (format in the top 4 bits, a component mask in the next 4: bits
//! 0–2 the stored X/Y/Z, bit 3 a key-time table, the key count in the low
//! 24), the per-component minimum and range (`f32` pairs) for
//! `ACF_IntervalFixed32NoW`, the keys, padding to 4 bytes, and with bit 3
//! one frame index per key (`u8` when the animation has fewer than 256
//! keys, else `u16`), padded to 4 bytes again.
//!
//! Key formats: `ACF_None`/`ACF_Float96NoW` (`f32` per stored component;
//! a vector with no component bit set stores all three),
//! `ACF_Fixed48NoW` (`u16` per stored component: rotations
//! (v − 32767) / 32767, vectors by the per-track fixed-point rule below),
//! `ACF_IntervalFixed32NoW` (one `u32`: rotations X 11 bits high, Y 11, Z
//! 10 low; vectors X 10 bits low, Y 11, Z 11 high; scaled by range and
//! offset by minimum), `ACF_Fixed32NoW` and `ACF_Float32NoW` (rotations
//! only, one `u32`) and `ACF_Identity` (no bytes: one identity key). A
//! track never has more keys than the animation (`CompressedNumberOfKeys`). A rotation's W is
//! rebuilt as √(1 − x² − y² − z²). Facts: UE `AnimEncoding_PerTrackCompression.cpp`,
//! `AnimationCompression.h`; CUE4Parse `AnimConverter.cs`
//! (`ReadPerTrackData`) and `AnimationCompressionUtils.cs`; UEViewer
//! `UnAnim4.cpp`.
//!
//! Every offset, count and key is checked against the bytes there are.

use pakrat_io::{Error, Reader, Result};

use super::anim::AnimInfo;

/// The keys of one component of a track.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys<T> {
    /// Values, one per key.
    pub values: Vec<T>,
    /// The frame index of each key (None: keys spread evenly over the
    /// sequence).
    pub frames: Option<Vec<u16>>,
    /// The key format (`ACF_*`, an index into [`FORMATS`]).
    pub format: u8,
}

/// One decoded track: the keys of one skeleton bone (None: the identity,
/// i.e. zero translation, no rotation, unit scale).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoneTrack {
    /// The skeleton bone (`CompressedTrackToSkeletonMapTable`).
    pub bone: i32,
    /// Translations (Unreal axes).
    pub translation: Option<Keys<[f32; 3]>>,
    /// Rotations (x, y, z, w; Unreal axes).
    pub rotation: Option<Keys<[f32; 4]>>,
    /// Scales.
    pub scale: Option<Keys<[f32; 3]>>,
}

/// The names of `AnimationCompressionFormat`.
pub const FORMATS: [&str; 7] = [
    "ACF_None",
    "ACF_Float96NoW",
    "ACF_Fixed48NoW",
    "ACF_IntervalFixed32NoW",
    "ACF_Fixed32NoW",
    "ACF_Float32NoW",
    "ACF_Identity",
];

/// Decode every track of `a` (per-track key encoding only: see
/// [`super::anim::anim_problem`]).
pub fn decode(a: &AnimInfo) -> Result<Vec<BoneTrack>> {
    let h =
        a.ue.as_ref()
            .ok_or_else(|| Error::Other(format!("codec {} is not decoded", a.bone_codec)))?;
    if h.key_format != 2 {
        return Err(Error::Other(format!(
            "key format {} is not decoded",
            super::anim::KEY_FORMATS[usize::from(h.key_format)]
        )));
    }
    let n = a.track_to_bone.len();
    if h.track_offsets.len() != 2 * n {
        return Err(Error::Other(format!(
            "{} track offsets for {n} tracks (two per track expected)",
            h.track_offsets.len()
        )));
    }
    let strip = usize::try_from(h.scale_strip).unwrap_or(0);
    let keys = &a.stream[h.keys_at..];
    let mut out = Vec::with_capacity(n);
    for (t, &bone) in a.track_to_bone.iter().enumerate() {
        let at = |off: i32, what: &str| -> Result<Option<Reader<'_>>> {
            if off == -1 {
                return Ok(None);
            }
            let o = usize::try_from(off)
                .ok()
                .filter(|&o| o < keys.len() && o % 4 == 0)
                .ok_or_else(|| {
                    Error::Other(format!(
                        "track {t}: {what} offset {off} is outside the {} key bytes (or unaligned)",
                        keys.len()
                    ))
                })?;
            let mut r = Reader::new(keys);
            r.seek(o as u64, what)?;
            Ok(Some(r))
        };
        let scale_off = if strip > 0 && !h.scale_offsets.is_empty() {
            *h.scale_offsets.get(t * strip).ok_or_else(|| {
                Error::Other(format!(
                    "track {t}: no scale offset ({} stored)",
                    h.scale_offsets.len()
                ))
            })?
        } else {
            -1
        };
        let mut track = BoneTrack {
            bone,
            ..Default::default()
        };
        if let Some(mut r) = at(h.track_offsets[2 * t], "translation")? {
            track.translation = Some(vectors(&mut r, h.num_keys, "translation")?);
        }
        if let Some(mut r) = at(h.track_offsets[2 * t + 1], "rotation")? {
            track.rotation = Some(rotations(&mut r, h.num_keys)?);
        }
        if let Some(mut r) = at(scale_off, "scale")? {
            track.scale = Some(vectors(&mut r, h.num_keys, "scale")?);
        }
        out.push(track);
    }
    Ok(out)
}

/// The packed header of a track component: format, mask, key count (at
/// least one, at most the animation's `keys`).
fn header(r: &mut Reader<'_>, what: &str, keys: usize) -> Result<(u8, u32, usize)> {
    let packed = r.u32(what)?;
    let format = (packed >> 28) as u8;
    let mask = (packed >> 24) & 0xF;
    let n = (packed & 0xFF_FFFF) as usize;
    if usize::from(format) >= FORMATS.len() {
        return Err(r.invalid(format!("{what}: key format {format} is unknown")));
    }
    if n == 0 || n > keys.max(1) {
        return Err(r.invalid(format!(
            "{what}: a stored track of {n} keys (the animation has {keys})"
        )));
    }
    Ok((format, mask, n))
}

/// Ensure `n` keys of `size` bytes fit in what is left of `r`.
fn fits(r: &Reader<'_>, n: usize, size: usize, what: &str) -> Result<()> {
    if n.checked_mul(size).is_none_or(|b| b > r.remaining()) {
        return Err(r.invalid(format!(
            "{what}: {n} keys of {size} bytes exceed the {} bytes left",
            r.remaining()
        )));
    }
    Ok(())
}

/// Skip to the next multiple of 4 (offsets are from the key bytes' start,
/// itself 4-aligned in the stream).
fn align4(r: &mut Reader<'_>) -> Result<()> {
    let pad = (4 - r.pos() % 4) % 4;
    if pad > 0 && r.remaining() >= pad {
        r.skip(pad as u64, "padding")?;
    }
    Ok(())
}

/// The `(min, range)` pairs of the stored components of an interval
/// format.
fn ranges(r: &mut Reader<'_>, mask: u32, what: &str) -> Result<([f32; 3], [f32; 3])> {
    let mut min = [0f32; 3];
    let mut range = [0f32; 3];
    for k in 0..3 {
        if mask & (1 << k) != 0 {
            min[k] = r.f32(what)?;
            range[k] = r.f32(what)?;
        }
    }
    Ok((min, range))
}

/// The key-time table after the keys (mask bit 3).
fn times(r: &mut Reader<'_>, mask: u32, n: usize, wide: bool) -> Result<Option<Vec<u16>>> {
    if mask & 8 == 0 || n <= 1 {
        return Ok(None);
    }
    let size = if wide { 2 } else { 1 };
    fits(r, n, size, "key times")?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(if wide {
            r.u16("key time")?
        } else {
            u16::from(r.u8("key time")?)
        });
    }
    align4(r)?;
    Ok(Some(v))
}

/// `Offset = 2^(15 − log2) − 1`, `value = (v − Offset) / (Offset >> log2)`
/// with log2 = 7 (UE `DecodeFixed48_PerTrackComponent<7>`).
fn fixed48_component(v: u16) -> f32 {
    const OFFSET: i32 = (1 << (15 - 7)) - 1;
    (i32::from(v) - OFFSET) as f32 / (OFFSET >> 7) as f32
}

/// A translation or scale component's keys.
fn vectors(r: &mut Reader<'_>, keys: usize, what: &str) -> Result<Keys<[f32; 3]>> {
    let wide = keys >= 256;
    let (format, mask, n) = header(r, what, keys)?;
    if format == 6 {
        return Ok(identity([0.0; 3]));
    }
    let stored = (0..3).filter(|k| mask & (1 << k) != 0).count();
    let (min, range) = if format == 3 {
        ranges(r, mask, what)?
    } else {
        ([0.0; 3], [0.0; 3])
    };
    let size = match format {
        0 | 1 if stored == 0 => 12,
        0 | 1 => 4 * stored,
        2 => 2 * stored,
        3 => 4,
        _ => {
            return Err(r.invalid(format!(
                "{what}: key format {} is not one for vectors",
                FORMATS[usize::from(format)]
            )))
        }
    };
    if size == 0 {
        // Fixed48 with no component stored: every key is zero.
        return Ok(Keys {
            format,
            ..identity([0.0; 3])
        });
    }
    fits(r, n, size, what)?;
    let mut values = Vec::with_capacity(n);
    for _ in 0..n {
        let mut v = [0f32; 3];
        match format {
            0 | 1 => {
                for (k, x) in v.iter_mut().enumerate() {
                    if stored == 0 || mask & (1 << k) != 0 {
                        *x = r.f32(what)?;
                    }
                }
            }
            2 => {
                for (k, x) in v.iter_mut().enumerate() {
                    if mask & (1 << k) != 0 {
                        *x = fixed48_component(r.u16(what)?);
                    }
                }
            }
            3 => {
                let p = r.u32(what)?;
                let q = [
                    (p & 0x3FF, 511.0),
                    ((p >> 10) & 0x7FF, 1023.0),
                    (p >> 21, 1023.0),
                ];
                for k in 0..3 {
                    let (u, half) = q[k];
                    v[k] = (u as f32 - half) / half * range[k] + min[k];
                }
            }
            _ => {}
        }
        values.push(v);
    }
    align4(r)?;
    Ok(Keys {
        values,
        frames: times(r, mask, n, wide)?,
        format,
    })
}

/// `ACF_Identity` keys: no bytes, one key whatever the count says.
fn identity<const N: usize>(v: [f32; N]) -> Keys<[f32; N]> {
    Keys {
        values: vec![v],
        frames: None,
        format: 6,
    }
}

/// W of a unit quaternion from its X, Y, Z.
fn with_w([x, y, z]: [f32; 3]) -> [f32; 4] {
    let w2 = 1.0 - x * x - y * y - z * z;
    [x, y, z, if w2 > 0.0 { w2.sqrt() } else { 0.0 }]
}

/// The three fields of a 32-bit packed rotation: X 11 bits (high), Y 11,
/// Z 10 (low).
fn split_11_11_10(p: u32) -> [u32; 3] {
    [p >> 21, (p >> 10) & 0x7FF, p & 0x3FF]
}

/// `ACF_Float32NoW`: each field a small float (3 exponent bits biased by
/// 123, the sign at the field's top, the rest mantissa).
fn float32_component(u: u32, mantissa_bits: u32) -> f32 {
    let exp = ((u >> mantissa_bits) & 7) + 123;
    let mant = u & ((1 << mantissa_bits) - 1);
    let sign = u >> (mantissa_bits + 3);
    f32::from_bits((sign << 31) | (exp << 23) | (mant << (23 - mantissa_bits)))
}

/// A rotation component's keys.
fn rotations(r: &mut Reader<'_>, keys: usize) -> Result<Keys<[f32; 4]>> {
    let what = "rotation";
    let wide = keys >= 256;
    let (format, mask, n) = header(r, what, keys)?;
    if format == 6 {
        return Ok(identity([0.0, 0.0, 0.0, 1.0]));
    }
    let stored = (0..3).filter(|k| mask & (1 << k) != 0).count();
    let (min, range) = if format == 3 {
        ranges(r, mask, what)?
    } else {
        ([0.0; 3], [0.0; 3])
    };
    let size = match format {
        0 | 1 => 12,
        2 => 2 * stored,
        _ => 4,
    };
    if size == 0 {
        // Fixed48 with no component stored: every key is the identity.
        return Ok(Keys {
            format,
            ..identity([0.0, 0.0, 0.0, 1.0])
        });
    }
    fits(r, n, size, what)?;
    let mut values = Vec::with_capacity(n);
    for _ in 0..n {
        let q = match format {
            0 | 1 => with_w([r.f32(what)?, r.f32(what)?, r.f32(what)?]),
            2 => {
                let mut v = [0f32; 3];
                for (k, x) in v.iter_mut().enumerate() {
                    if mask & (1 << k) != 0 {
                        *x = (f32::from(r.u16(what)?) - 32767.0) / 32767.0;
                    }
                }
                with_w(v)
            }
            3 | 4 => {
                let u = split_11_11_10(r.u32(what)?);
                let half = [1023.0, 1023.0, 511.0];
                let mut v = [0f32; 3];
                for k in 0..3 {
                    v[k] = (u[k] as f32 - half[k]) / half[k];
                    if format == 3 {
                        v[k] = v[k] * range[k] + min[k];
                    }
                }
                with_w(v)
            }
            5 => {
                let u = split_11_11_10(r.u32(what)?);
                with_w([
                    float32_component(u[0], 7),
                    float32_component(u[1], 7),
                    float32_component(u[2], 6),
                ])
            }
            _ => [0.0, 0.0, 0.0, 1.0],
        };
        values.push(q);
    }
    align4(r)?;
    Ok(Keys {
        values,
        frames: times(r, mask, n, wide)?,
        format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_fields_decode_to_their_centres() {
        assert_eq!(float32_component(0, 7), 0.0625);
        assert_eq!(fixed48_component(255), 0.0);
        assert_eq!(split_11_11_10(0xFFFF_FFFF), [0x7FF, 0x7FF, 0x3FF]);
        assert_eq!(with_w([0.0, 0.0, 0.0]), [0.0, 0.0, 0.0, 1.0]);
    }
}
