//! Reading reference images (PNG, OpenEXR) into [`Image`]s, for comparing
//! decoded textures with their sources (`SourceTextures/*.png`, `hdr.exr`)
//! through [`crate::psnr`].

use crate::{Error, Image, Pixels};
use std::io::Cursor;

fn too_large(width: u32, height: u32, max: u64) -> Error {
    Error::TooLarge {
        width,
        height,
        pixels: u64::from(width) * u64::from(height),
        max,
    }
}

/// Reads a PNG into RGBA: 8-bit sources to [`Pixels::Rgba8`], 16-bit ones
/// to [`Pixels::Rgba16`]; palettes and bit depths below 8 are expanded,
/// gray goes to R, G and B, a missing alpha is opaque. Images over
/// `max_pixels` are refused from their header, before decoding.
pub fn read_png(bytes: &[u8], max_pixels: u64) -> Result<Image, Error> {
    let fail = |e: png::DecodingError| Error::Encode {
        kind: "PNG",
        why: e.to_string(),
    };
    let mut dec = png::Decoder::new(Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND);
    let header = dec.read_header_info().map_err(fail)?;
    let (w, h) = (header.width, header.height);
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(too_large(w, h, max_pixels));
    }
    let mut reader = dec.read_info().map_err(fail)?;
    let size = reader
        .output_buffer_size()
        .ok_or(too_large(w, h, max_pixels))?;
    let mut buf = vec![0u8; size];
    let info = reader.next_frame(&mut buf).map_err(fail)?;
    buf.truncate(info.buffer_size());
    let ch = info.color_type.samples();
    let rgba = |px: &[u16], max: u16| -> [u16; 4] {
        match px.len() {
            1 => [px[0], px[0], px[0], max],
            2 => [px[0], px[0], px[0], px[1]],
            3 => [px[0], px[1], px[2], max],
            _ => [px[0], px[1], px[2], px[3]],
        }
    };
    let pixels = if info.bit_depth == png::BitDepth::Sixteen {
        let vals: Vec<u16> = buf
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        Pixels::Rgba16(
            vals.chunks_exact(ch)
                .flat_map(|p| rgba(p, u16::MAX))
                .collect(),
        )
    } else {
        Pixels::Rgba8(
            buf.chunks_exact(ch)
                .flat_map(|p| {
                    let p: Vec<u16> = p.iter().map(|&b| u16::from(b)).collect();
                    rgba(&p, 255).map(|v| v as u8)
                })
                .collect(),
        )
    };
    let img = Image {
        width: w,
        height: h,
        pixels,
    };
    img.check()?;
    Ok(img)
}

/// Reads the first RGBA layer of an OpenEXR file into [`Pixels::RgbaF32`]
/// (a missing alpha is 1). Images over `max_pixels` are refused before
/// their pixels are allocated.
pub fn read_exr(bytes: &[u8], max_pixels: u64) -> Result<Image, Error> {
    use exr::prelude::{ReadChannels, ReadLayers};
    struct Px {
        w: usize,
        v: Vec<f32>,
    }
    let fail = |why: String| Error::Encode { kind: "EXR", why };
    let img = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .rgba_channels(
            |size, _| -> Px {
                let n = size.width().saturating_mul(size.height());
                // Refused below, before any pixel is set.
                let v = match n.checked_mul(4) {
                    Some(len) if n as u64 <= max_pixels => vec![0f32; len],
                    _ => Vec::new(),
                };
                Px { w: size.width(), v }
            },
            |img, pos, (r, g, b, a): (f32, f32, f32, f32)| {
                let i = (pos.y() * img.w + pos.x()) * 4;
                if let Some(px) = img.v.get_mut(i..i + 4) {
                    px.copy_from_slice(&[r, g, b, a]);
                }
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(Cursor::new(bytes))
        .map_err(|e| fail(e.to_string()))?;
    let size = img.layer_data.size;
    let (w, h) = (
        u32::try_from(size.width()).map_err(|_| fail("width over u32".into()))?,
        u32::try_from(size.height()).map_err(|_| fail("height over u32".into()))?,
    );
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(too_large(w, h, max_pixels));
    }
    let out = Image {
        width: w,
        height: h,
        pixels: Pixels::RgbaF32(img.layer_data.channel_data.pixels.v),
    };
    out.check()?;
    Ok(out)
}
