//! Several same-size slices or faces laid out as one image, and PSNR.

use crate::{Error, Image, Pixels};

/// How [`layout`] places slices or faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Side by side, left to right, in the order given.
    Strip,
    /// Cube faces in a horizontal cross, 4 faces wide and 3 high. Faces in
    /// Unreal's (and Direct3D's) order +X, −X, +Y, −Y, +Z, −Z; the middle
    /// row is −X, +Z, +X, −Z, with +Y above and −Y below +Z. A cube array
    /// (6·n faces) gives n crosses stacked top to bottom. Empty cells are
    /// transparent black.
    Cross,
}

/// Cell (column, row) of each face in one cross.
const CROSS_CELLS: [(u32, u32); 6] = [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)];

/// Lays `images` (all of one size and one pixel kind) out as one image.
///
/// Errors: no images, differing sizes or pixel kinds, a face count that is
/// not a multiple of six for [`Layout::Cross`], an output wider or higher
/// than `u32::MAX` or with more than 2^32 pixels.
pub fn layout(images: &[Image], layout: Layout) -> Result<Image, Error> {
    // Gray and two-channel images are laid out as RGBA8.
    let expanded: Vec<Image>;
    let images = if images.iter().any(|i| i.pixels.channels() < 4) {
        expanded = images.iter().map(Image::to_rgba8).collect();
        &expanded[..]
    } else {
        images
    };
    let first = images
        .first()
        .ok_or_else(|| Error::Mismatch("layout of no images".into()))?;
    for (i, img) in images.iter().enumerate() {
        img.check()?;
        if (img.width, img.height) != (first.width, first.height)
            || img.pixels.channel_bytes() != first.pixels.channel_bytes()
        {
            return Err(Error::Mismatch(format!(
                "layout: image {i} is {}x{} with {}-byte channels, image 0 is {}x{} with {}-byte channels",
                img.width,
                img.height,
                img.pixels.channel_bytes(),
                first.width,
                first.height,
                first.pixels.channel_bytes()
            )));
        }
    }
    let n = images.len() as u64;
    let (w, h) = (u64::from(first.width), u64::from(first.height));
    let (cols, rows) = match layout {
        Layout::Strip => (n, 1),
        Layout::Cross => {
            if !n.is_multiple_of(6) {
                return Err(Error::Mismatch(format!(
                    "cross layout needs 6 faces per cube, got {n} images"
                )));
            }
            (4, 3 * (n / 6))
        }
    };
    let too_big = || Error::Dimensions {
        width: first.width,
        height: first.height,
        depth: n as u32,
        why: "the laid-out image would be too large",
    };
    let out_w = u32::try_from(cols * w).map_err(|_| too_big())?;
    let out_h = u32::try_from(rows * h).map_err(|_| too_big())?;
    if u64::from(out_w) * u64::from(out_h) > 1 << 32 {
        return Err(too_big());
    }
    let place = |i: usize| -> (u64, u64) {
        match layout {
            Layout::Strip => (i as u64 * w, 0),
            Layout::Cross => {
                let (c, r) = CROSS_CELLS[i % 6];
                (u64::from(c) * w, (u64::from(r) + 3 * (i as u64 / 6)) * h)
            }
        }
    };
    let pixels = match &first.pixels {
        Pixels::Rgba8(_) => Pixels::Rgba8(blit(images, out_w, out_h, place, |p| match p {
            Pixels::Rgba8(v) => v,
            _ => unreachable!("kinds checked above"),
        })),
        Pixels::Rgba16(_) => Pixels::Rgba16(blit(images, out_w, out_h, place, |p| match p {
            Pixels::Rgba16(v) => v,
            _ => unreachable!("kinds checked above"),
        })),
        Pixels::RgbaF32(_) => Pixels::RgbaF32(blit(images, out_w, out_h, place, |p| match p {
            Pixels::RgbaF32(v) => v,
            _ => unreachable!("kinds checked above"),
        })),
        Pixels::Gray8(_) | Pixels::Rg8(_) => unreachable!("expanded above"),
    };
    Ok(Image {
        width: out_w,
        height: out_h,
        pixels,
    })
}

fn blit<T: Copy + Default>(
    images: &[Image],
    out_w: u32,
    out_h: u32,
    place: impl Fn(usize) -> (u64, u64),
    get: impl Fn(&Pixels) -> &Vec<T>,
) -> Vec<T> {
    let out_w = out_w as usize;
    let mut out = vec![T::default(); out_w * out_h as usize * 4];
    for (i, img) in images.iter().enumerate() {
        let (x0, y0) = place(i);
        let (x0, y0) = (x0 as usize, y0 as usize);
        let src = get(&img.pixels);
        let row = img.width as usize * 4;
        for (y, src_row) in src.chunks_exact(row).enumerate() {
            let at = ((y0 + y) * out_w + x0) * 4;
            out[at..at + row].copy_from_slice(src_row);
        }
    }
    out
}

/// PSNR in dB of `a` against `b` over the channels whose mask entry is
/// true (R, G, B, A), with values scaled to 0..1 (8-bit / 255, 16-bit /
/// 65535, floats as they are) and a peak of 1. Identical images give
/// infinity; differing sizes, a malformed image or an empty mask give NaN.
pub fn psnr(a: &Image, b: &Image, channels: [bool; 4]) -> f64 {
    if (a.width, a.height) != (b.width, b.height)
        || a.check().is_err()
        || b.check().is_err()
        || !channels.contains(&true)
    {
        return f64::NAN;
    }
    let mut sum = 0.0f64;
    let mut count = 0u64;
    for i in 0..a.pixels.len() {
        if channels[i % 4] {
            let d = a.pixels.get_f64(i) - b.pixels.get_f64(i);
            sum += d * d;
            count += 1;
        }
    }
    if count == 0 {
        return f64::NAN;
    }
    let mse = sum / count as f64;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (1.0 / mse).log10()
    }
}
