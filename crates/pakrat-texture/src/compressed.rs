//! Block-compressed formats: BC1–BC7 through `bcdec_rs`, ETC1/ETC2 through
//! `texture2ddecoder`, ASTC through `astc-decode` (corrected in [`crate::astc`]), EAC R11/RG11 by hand
//! ([`crate::eac`]; the crate docs say why).

use crate::drive::{self, Blocks};
use crate::{Error, PixelFormat, Pixels};

/// Runs a `texture2ddecoder` 4×4 block decoder (it writes 16 pixels as
/// `u32` whose little-endian bytes are B, G, R, A) and writes RGBA at
/// `pitch`. The scratch starts as opaque black, so decoders that write only
/// some channels (EAC R11: red; RG11: red and green) leave the rest 0 / 255.
#[inline(always)]
fn t2d(src: &[u8], dst: &mut [u8], pitch: usize, f: impl Fn(&[u8], &mut [u32])) {
    let mut buf = [u32::from_le_bytes([0, 0, 0, 255]); 16];
    f(src, &mut buf);
    for (y, row) in buf.chunks_exact(4).enumerate() {
        let out = &mut dst[y * pitch..][..16];
        for (&v, o) in row.iter().zip(out.chunks_exact_mut(4)) {
            // Swap the B and R bytes: BGRA → RGBA.
            let rgba = (v & 0xFF00_FF00) | ((v >> 16) & 0xFF) | ((v & 0xFF) << 16);
            o.copy_from_slice(&rgba.to_le_bytes());
        }
    }
}

/// Blue of a normal map from X and Y stored as 0..255 (mapped to -1..1).
#[inline]
pub(crate) fn normal_z(x: u8, y: u8) -> u8 {
    let x = f32::from(x) / 127.5 - 1.0;
    let y = f32::from(y) / 127.5 - 1.0;
    let z = (1.0 - x * x - y * y).max(0.0).sqrt();
    (z * 127.5 + 127.5).round() as u8
}

/// [`normal_z`] of every (X, Y), index `X * 256 + Y`: 64 KiB, built once,
/// so that rebuilding Z is a lookup instead of a square root per pixel.
fn z_table() -> &'static [u8; 65536] {
    static TABLE: std::sync::OnceLock<Box<[u8; 65536]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u8; 65536]);
        for (i, z) in t.iter_mut().enumerate() {
            *z = normal_z((i >> 8) as u8, i as u8);
        }
        t
    })
}

/// Writes the blue channel of a 4×4 RGBA block at `pitch` from its red and
/// green.
fn rebuild_z(dst: &mut [u8], pitch: usize) {
    let t = z_table();
    for y in 0..4 {
        for o in dst[y * pitch..][..16].chunks_exact_mut(4) {
            o[2] = t[usize::from(o[0]) << 8 | usize::from(o[1])];
        }
    }
}

/// One slice to decode.
struct Ctx<'a> {
    w: usize,
    h: usize,
    g: Blocks,
    data: &'a [u8],
    par: bool,
}

impl Ctx<'_> {
    /// RGBA8 output from a block function (generic: no dynamic call per block).
    fn rgba8<F: Fn(&[u8], &mut [u8], usize) + Sync>(&self, f: F) -> Pixels {
        Pixels::Rgba8(self.u8s(4, f))
    }

    /// 8-bit output of `ch` channels a pixel from a block function.
    fn u8s<F: Fn(&[u8], &mut [u8], usize) + Sync>(&self, ch: usize, f: F) -> Vec<u8> {
        let g = drive::Blocks { ch, ..self.g };
        drive::blocks(self.w, self.h, g, self.data, self.par, 0u8, f)
    }
}

/// Decodes a block-compressed format; `Ok(None)` for uncompressed ones.
pub(crate) fn decode(
    format: PixelFormat,
    w: usize,
    h: usize,
    data: &[u8],
    par: bool,
    rebuild_normal_z: bool,
) -> Result<Option<Pixels>, Error> {
    use PixelFormat::*;
    let (bw, bh, bytes) = format.block();
    let g = Blocks {
        bw: bw as usize,
        bh: bh as usize,
        bytes: bytes as usize,
        ch: 4,
    };
    let c = Ctx { w, h, g, data, par };
    let px = match format {
        Dxt1 => c.rgba8(bcdec_rs::bc1),
        Dxt3 => c.rgba8(bcdec_rs::bc2),
        Dxt5 => c.rgba8(bcdec_rs::bc3),
        Bc7 => c.rgba8(bcdec_rs::bc7),
        // One and two channels as bcdec_rs writes them (no wider output
        // than the format holds); BC5 with Z rebuilt as RGBA, Z from a table.
        Bc4 => Pixels::Gray8(c.u8s(1, |s, d, p| bcdec_rs::bc4(s, d, p, false))),
        Bc5 if !rebuild_normal_z => Pixels::Rg8(c.u8s(2, |s, d, p| bcdec_rs::bc5(s, d, p, false))),
        Bc5 => c.rgba8(|s, d, p| {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(s, &mut rg, 8, false);
            let t = z_table();
            for y in 0..4 {
                for (x, o) in d[y * p..][..16].chunks_exact_mut(4).enumerate() {
                    let i = (y * 4 + x) * 2;
                    let (r, g) = (rg[i], rg[i + 1]);
                    o.copy_from_slice(&[r, g, t[usize::from(r) << 8 | usize::from(g)], 255]);
                }
            }
        }),
        Bc6h => Pixels::RgbaF32(drive::blocks(w, h, g, data, par, 0f32, |s, d, p| {
            // Halves from bcdec_rs, converted 48 at a time by `half` (F16C
            // where the CPU has it): faster than bcdec_rs's own f32 output.
            let mut bits = [0u16; 48];
            bcdec_rs::bc6h_half(s, &mut bits, 12, false);
            let mut rgb = [0f32; 48];
            half::slice::HalfFloatSliceExt::convert_to_f32_slice(
                half::slice::HalfBitsSliceExt::reinterpret_cast::<half::f16>(&bits[..]),
                &mut rgb,
            );
            for y in 0..4 {
                for (x, o) in d[y * p..][..16].chunks_exact_mut(4).enumerate() {
                    let i = (y * 4 + x) * 3;
                    o.copy_from_slice(&[rgb[i], rgb[i + 1], rgb[i + 2], 1.0]);
                }
            }
        })),
        Etc1 => c.rgba8(|s, d, p| t2d(s, d, p, texture2ddecoder::decode_etc1_block)),
        Etc2Rgb => c.rgba8(|s, d, p| t2d(s, d, p, texture2ddecoder::decode_etc2_rgb_block)),
        Etc2Rgba => c.rgba8(|s, d, p| t2d(s, d, p, texture2ddecoder::decode_etc2_rgba8_block)),
        Etc2R11Eac => c.rgba8(crate::eac::r11),
        Etc2Rg11Eac => c.rgba8(|s, d, p| {
            crate::eac::rg11(s, d, p);
            if rebuild_normal_z {
                rebuild_z(d, p);
            }
        }),
        Astc { hdr: true, .. } => {
            return Err(Error::Unsupported {
                format,
                what: "decoding (ASTC HDR: no decoder crate does it)",
            })
        }
        Astc { bw, bh, .. } => c.rgba8(|s, d, p| crate::astc::block(s, d, p, bw, bh)),
        _ => return Ok(None),
    };
    Ok(Some(px))
}

#[cfg(test)]
mod tests {
    #[test]
    fn z_table_is_the_formula() {
        let t = super::z_table();
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                assert_eq!(
                    t[usize::from(x) << 8 | usize::from(y)],
                    super::normal_z(x, y)
                );
            }
        }
        assert_eq!(super::normal_z(128, 128), 255);
    }
}
