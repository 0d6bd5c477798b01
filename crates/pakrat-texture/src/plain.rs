//! Uncompressed formats: 8-bit, 16-bit and float channels.

use crate::drive;
use crate::{PixelFormat, Pixels};
use half::f16;

fn u16_at(s: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([s[i], s[i + 1]])
}

fn f16_at(s: &[u8], i: usize) -> f32 {
    f16::from_bits(u16_at(s, i)).to_f32()
}

fn f32_at(s: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]])
}

/// Decodes an uncompressed format; `None` for block formats.
pub(crate) fn decode(
    format: PixelFormat,
    w: usize,
    h: usize,
    data: &[u8],
    par: bool,
) -> Option<Pixels> {
    use PixelFormat::*;
    let bpp = format.block().2 as usize;
    let px8 = |f: fn(&[u8], &mut [u8])| {
        Pixels::Rgba8(drive::rows(w, h, bpp, data, par, 0u8, |s, o| {
            s.chunks_exact(bpp)
                .zip(o.chunks_exact_mut(4))
                .for_each(|(s, o)| f(s, o))
        }))
    };
    let px16 = |f: fn(&[u8], &mut [u16])| {
        Pixels::Rgba16(drive::rows(w, h, bpp, data, par, 0u16, |s, o| {
            s.chunks_exact(bpp)
                .zip(o.chunks_exact_mut(4))
                .for_each(|(s, o)| f(s, o))
        }))
    };
    let pxf = |f: fn(&[u8], &mut [f32])| {
        Pixels::RgbaF32(drive::rows(w, h, bpp, data, par, 0f32, |s, o| {
            s.chunks_exact(bpp)
                .zip(o.chunks_exact_mut(4))
                .for_each(|(s, o)| f(s, o))
        }))
    };
    Some(match format {
        B8G8R8A8 => px8(|s, o| o.copy_from_slice(&[s[2], s[1], s[0], s[3]])),
        R8G8B8A8 => Pixels::Rgba8(drive::rows(w, h, 4, data, par, 0u8, |s, o| {
            o.copy_from_slice(s)
        })),
        G8 => px8(|s, o| o.copy_from_slice(&[s[0], s[0], s[0], 255])),
        G16 => px16(|s, o| {
            let v = u16_at(s, 0);
            o.copy_from_slice(&[v, v, v, u16::MAX]);
        }),
        A16B16G16R16 => px16(|s, o| {
            o.copy_from_slice(&[u16_at(s, 0), u16_at(s, 2), u16_at(s, 4), u16_at(s, 6)]);
        }),
        R16F => pxf(|s, o| o.copy_from_slice(&[f16_at(s, 0), 0.0, 0.0, 1.0])),
        R32F => pxf(|s, o| o.copy_from_slice(&[f32_at(s, 0), 0.0, 0.0, 1.0])),
        FloatRGBA => pxf(|s, o| {
            o.copy_from_slice(&[f16_at(s, 0), f16_at(s, 2), f16_at(s, 4), f16_at(s, 6)]);
        }),
        A32B32G32R32F => pxf(|s, o| {
            o.copy_from_slice(&[f32_at(s, 0), f32_at(s, 4), f32_at(s, 8), f32_at(s, 12)]);
        }),
        _ => return None,
    })
}
