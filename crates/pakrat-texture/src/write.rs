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

/// Writes `img` as a PNG: RGBA 8-bit for [`Pixels::Rgba8`] and
/// [`Pixels::Rg8`] (B 0, A 255), 8-bit gray for [`Pixels::Gray8`], RGBA
/// 16-bit for [`Pixels::Rgba16`]. Float pixels ([`Pixels::RgbaF32`]) are clamped to
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
        Pixels::Gray8(v) => {
            enc.set_color(png::ColorType::Grayscale);
            enc.set_depth(png::BitDepth::Eight);
            std::borrow::Cow::Borrowed(v)
        }
        Pixels::Rg8(_) => {
            // PNG has no red-green colour type: RGBA with B 0, A 255.
            enc.set_depth(png::BitDepth::Eight);
            match img.to_rgba8().pixels {
                Pixels::Rgba8(v) => std::borrow::Cow::Owned(v),
                _ => unreachable!("to_rgba8 gives RGBA8"),
            }
        }
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

/// Writes `img` as an OpenEXR file: one layer, RGBA, 32-bit float
/// channels, ZIP compression (16 scan lines a block), scan lines top to
/// bottom. 8- and 16-bit pixels are scaled to 0..1.
pub fn write_exr(img: &Image, out: &mut (impl Write + Seek)) -> Result<(), Error> {
    use exr::image::write::WritableImage;
    use exr::prelude as x;
    img.check()?;
    if img.width == 0 || img.height == 0 {
        return Err(Error::Dimensions {
            width: img.width,
            height: img.height,
            depth: 1,
            why: "EXR needs at least one pixel",
        });
    }
    let (w, h) = (img.width as usize, img.height as usize);
    let px = &img.pixels;
    let get = |i: usize| px.get_f64(i) as f32;
    let channels = x::SpecificChannels::rgba(|x::Vec2(px, py): x::Vec2<usize>| {
        let i = (py * w + px) * 4;
        (get(i), get(i + 1), get(i + 2), get(i + 3))
    });
    let layer = x::Layer::new(
        (w, h),
        x::LayerAttributes::default(),
        x::Encoding::SMALL_LOSSLESS,
        channels,
    );
    let result = x::Image::from_layer(layer).write().to_buffered(out);
    result.map_err(|e| match e {
        exr::error::Error::Io(e) => Error::Io(e),
        e => Error::Encode {
            kind: "EXR",
            why: e.to_string(),
        },
    })
}
