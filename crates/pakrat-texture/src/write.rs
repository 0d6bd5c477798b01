//! PNG and OpenEXR writers.

use crate::{Error, Image, Pixels};
use std::io::{Seek, Write};

fn png_err(e: png::EncodingError) -> Error {
    match e {
        png::EncodingError::IoError(e) => Error::Io(e),
        e => Error::Encode {
            kind: "PNG",
            why: e.to_string(),
        },
    }
}

/// Writes `img` as an RGBA PNG: 8-bit for [`Pixels::Rgba8`], 16-bit for
/// [`Pixels::Rgba16`]. Float pixels ([`Pixels::RgbaF32`]) are clamped to
/// 0..1 and written 16-bit, linear (lossy: use [`write_exr`] to keep them).
pub fn write_png(img: &Image, out: &mut impl Write) -> Result<(), Error> {
    img.check()?;
    if img.width == 0 || img.height == 0 {
        return Err(Error::Dimensions {
            width: img.width,
            height: img.height,
            depth: 1,
            why: "PNG needs at least one pixel",
        });
    }
    let mut enc = png::Encoder::new(out, img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    let sixteen = |vals: &mut dyn Iterator<Item = u16>| -> Vec<u8> {
        vals.flat_map(u16::to_be_bytes).collect()
    };
    let data: std::borrow::Cow<[u8]> = match &img.pixels {
        Pixels::Rgba8(v) => {
            enc.set_depth(png::BitDepth::Eight);
            std::borrow::Cow::Borrowed(v)
        }
        Pixels::Rgba16(v) => {
            enc.set_depth(png::BitDepth::Sixteen);
            std::borrow::Cow::Owned(sixteen(&mut v.iter().copied()))
        }
        Pixels::RgbaF32(v) => {
            enc.set_depth(png::BitDepth::Sixteen);
            let q = |f: f32| (f.clamp(0.0, 1.0) * 65535.0 + 0.5) as u16;
            std::borrow::Cow::Owned(sixteen(&mut v.iter().map(|&f| q(f))))
        }
    };
    let mut w = enc.write_header().map_err(png_err)?;
    w.write_image_data(&data).map_err(png_err)?;
    w.finish().map_err(png_err)
}

/// Writes `img` as an OpenEXR file (RGBA, 32-bit float channels, ZIP
/// compression). 8- and 16-bit pixels are scaled to 0..1.
pub fn write_exr(img: &Image, out: &mut (impl Write + Seek)) -> Result<(), Error> {
    img.check()?;
    let _ = out;
    Err(Error::Encode {
        kind: "EXR",
        why: "not implemented yet".into(),
    })
}
