//! Decoding one slice: checks, then the per-format decoders.

use crate::{DecodeOptions, Error, Image, PixelFormat};

/// Decodes one `width`×`height` slice of `format` from `data`.
///
/// `data` must hold at least [`PixelFormat::slice_size`] bytes; extra bytes
/// are ignored. Checked before any allocation: the format is valid, neither
/// dimension is zero, the data is long enough and `width * height` is at
/// most [`DecodeOptions::max_pixels`].
///
/// Output: see the crate documentation for each format's [`crate::Pixels`]
/// kind and channel mapping.
pub fn decode(
    format: PixelFormat,
    width: u32,
    height: u32,
    data: &[u8],
    opts: &DecodeOptions,
) -> Result<Image, Error> {
    let data = check(format, width, height, data, opts)?;
    let (w, h) = (width as usize, height as usize);
    let pixels = match crate::plain::decode(format, w, h, data, opts.parallel) {
        Some(p) => p,
        None => {
            crate::compressed::decode(format, w, h, data, opts.parallel, opts.rebuild_normal_z)?
                .ok_or(Error::Unsupported {
                    format,
                    what: "decoding",
                })?
        }
    };
    Ok(Image {
        width,
        height,
        pixels,
    })
}

/// An output of `width × height` pixels: neither side zero, no more
/// pixels than `opts.max_pixels`. Returns the pixel count.
pub(crate) fn check_size(width: u32, height: u32, opts: &DecodeOptions) -> Result<u64, Error> {
    if width == 0 || height == 0 {
        return Err(Error::Dimensions {
            width,
            height,
            depth: 1,
            why: "zero dimension",
        });
    }
    let pixels = u64::from(width) * u64::from(height);
    if pixels > opts.max_pixels {
        return Err(Error::TooLarge {
            width,
            height,
            pixels,
            max: opts.max_pixels,
        });
    }
    Ok(pixels)
}

/// The checks of [`decode`]; returns `data` cut to one slice.
pub(crate) fn check<'a>(
    format: PixelFormat,
    width: u32,
    height: u32,
    data: &'a [u8],
    opts: &DecodeOptions,
) -> Result<&'a [u8], Error> {
    if !format.is_valid() {
        return Err(Error::Unsupported {
            format,
            what: "this ASTC footprint",
        });
    }
    let pixels = check_size(width, height, opts)?;
    let expected = format.slice_size(width, height).ok_or(Error::Dimensions {
        width,
        height,
        depth: 1,
        why: "slice size overflows",
    })?;
    if (data.len() as u64) < expected {
        return Err(Error::Size {
            format,
            width,
            height,
            expected,
            got: data.len() as u64,
        });
    }
    // Output buffers are pixels * 4 channels * up to 4 bytes: must fit usize.
    if pixels
        .checked_mul(16)
        .and_then(|b| usize::try_from(b).ok())
        .is_none()
    {
        return Err(Error::TooLarge {
            width,
            height,
            pixels,
            max: opts.max_pixels,
        });
    }
    Ok(&data[..expected as usize])
}
