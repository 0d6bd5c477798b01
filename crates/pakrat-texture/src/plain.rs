//! Uncompressed formats: 8-bit, 16-bit and float channels.

use crate::drive;
use crate::{PixelFormat, Pixels};
use half::f16;
use half::slice::HalfFloatSliceExt;

fn u16_at(s: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([s[i], s[i + 1]])
}

/// Little-endian halves to floats, a row at a time: `half`'s slice
/// conversion uses the CPU's F16C instructions where it has them (measured:
/// FloatRGBA 50 → see docs/textures.md Mpx/s against one value at a time).
fn halves_to_f32(s: &[u8], o: &mut [f32]) {
    let halves: Vec<f16> = s
        .chunks_exact(2)
        .map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]])))
        .collect();
    halves.convert_to_f32_slice(o);
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
        A16B16G16R16 => Pixels::Rgba16(drive::rows(w, h, 8, data, par, 0u16, |s, o| {
            for (o, c) in o.iter_mut().zip(s.chunks_exact(2)) {
                *o = u16::from_le_bytes([c[0], c[1]]);
            }
        })),
        R16F => Pixels::RgbaF32(drive::rows(w, h, 2, data, par, 0f32, |s, o| {
            let mut reds = vec![0f32; s.len() / 2];
            halves_to_f32(s, &mut reds);
            for (r, o) in reds.iter().zip(o.chunks_exact_mut(4)) {
                o.copy_from_slice(&[*r, 0.0, 0.0, 1.0]);
            }
        })),
        R32F => pxf(|s, o| o.copy_from_slice(&[f32_at(s, 0), 0.0, 0.0, 1.0])),
        FloatRGBA => Pixels::RgbaF32(drive::rows(w, h, 8, data, par, 0f32, halves_to_f32)),
        A32B32G32R32F => Pixels::RgbaF32(drive::rows(w, h, 16, data, par, 0f32, |s, o| {
            for (o, c) in o.iter_mut().zip(s.chunks_exact(4)) {
                *o = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        })),
        _ => return None,
    })
}
