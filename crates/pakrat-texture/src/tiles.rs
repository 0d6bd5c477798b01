//! Tiled images (virtual textures): tiles stored with a border, each in
//! the texture's pixel format, decoded and placed into one image.

use rayon::prelude::*;

use crate::{decode, DecodeOptions, Error, Image, PixelFormat, Pixels};

/// How the tiles of [`assemble_tiles`] are stored.
#[derive(Clone, Copy, Debug)]
pub struct TileGrid {
    /// Width of the assembled image in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Size of a tile's inside (what lands in the image).
    pub tile: u32,
    /// Border pixels stored around each tile's inside (dropped).
    pub border: u32,
}

/// Decodes `tiles` (each: left and top pixel of its inside in the image,
/// and its stored bytes, `(tile + 2·border)²` pixels of `format`) and
/// places their insides into one `width × height` image, clipped at the
/// edges. Places no tile covers stay zero (transparent black). Tiles are
/// decoded in parallel when `opts.parallel` is set.
///
/// Errors: an empty or too large image (`opts.max_pixels`), a tile whose
/// bytes do not hold a tile, tiles that decode to different pixel kinds.
pub fn assemble_tiles(
    format: PixelFormat,
    grid: TileGrid,
    tiles: &[(u32, u32, &[u8])],
    opts: &DecodeOptions,
) -> Result<Image, Error> {
    let TileGrid {
        width,
        height,
        tile,
        border,
    } = grid;
    let pixels = crate::decode::check_size(width, height, opts)?;
    let phys = tile
        .checked_add(border.saturating_mul(2))
        .filter(|&p| p > 0 && u64::from(p) * u64::from(p) <= opts.max_pixels)
        .ok_or_else(|| Error::Mismatch(format!("tile size {tile} with border {border}")))?;
    let one = DecodeOptions {
        parallel: false,
        ..opts.clone()
    };
    // Gray and two-channel tiles are assembled as RGBA8.
    let dec = |&(x, y, b): &(u32, u32, &[u8])| {
        decode(format, phys, phys, b, &one).map(|i| {
            let i = if i.pixels.channels() < 4 {
                i.to_rgba8()
            } else {
                i
            };
            (x, y, i)
        })
    };
    let decoded: Vec<(u32, u32, Image)> = if opts.parallel {
        tiles.par_iter().map(dec).collect::<Result<_, _>>()?
    } else {
        tiles.iter().map(dec).collect::<Result<_, _>>()?
    };
    let n = (pixels * 4) as usize;
    let mut out = match decoded.first().map(|t| &t.2.pixels) {
        Some(Pixels::Rgba16(_)) => Pixels::Rgba16(vec![0; n]),
        Some(Pixels::RgbaF32(_)) => Pixels::RgbaF32(vec![0.0; n]),
        _ => Pixels::Rgba8(vec![0; n]),
    };
    let g = Place {
        width,
        height,
        phys,
        border,
        tile,
    };
    for (x, y, img) in &decoded {
        match (&mut out, &img.pixels) {
            (Pixels::Rgba8(d), Pixels::Rgba8(s)) => g.blit(d, s, *x, *y),
            (Pixels::Rgba16(d), Pixels::Rgba16(s)) => g.blit(d, s, *x, *y),
            (Pixels::RgbaF32(d), Pixels::RgbaF32(s)) => g.blit(d, s, *x, *y),
            _ => {
                return Err(Error::Mismatch(
                    "tiles decode to different pixel kinds".into(),
                ))
            }
        }
    }
    Ok(Image {
        width,
        height,
        pixels: out,
    })
}

/// Where tiles go.
struct Place {
    width: u32,
    height: u32,
    phys: u32,
    border: u32,
    tile: u32,
}

impl Place {
    /// Copies the inside of `src` (a `phys × phys` tile) to `(x, y)` of
    /// `dst`, clipped.
    fn blit<T: Copy>(&self, dst: &mut [T], src: &[T], x: u32, y: u32) {
        if x >= self.width {
            return;
        }
        let n = self.tile.min(self.width - x) as usize * 4;
        for row in 0..self.tile {
            let ty = y + row;
            if ty >= self.height {
                break;
            }
            let s = (((row + self.border) * self.phys + self.border) * 4) as usize;
            let d = ((ty * self.width + x) * 4) as usize;
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_land_inside_their_borders_clipped() {
        // 2×2 tiles with a 1-pixel border: 4×4 stored, G8 (one byte a pixel).
        let tile = |v: u8| -> Vec<u8> {
            (0..16u8)
                .map(|i| {
                    if (1..3).contains(&(i % 4)) && (1..3).contains(&(i / 4)) {
                        v
                    } else {
                        99
                    }
                })
                .collect()
        };
        let (a, b) = (tile(10), tile(20));
        let grid = TileGrid {
            width: 3,
            height: 2,
            tile: 2,
            border: 1,
        };
        let img = assemble_tiles(
            PixelFormat::G8,
            grid,
            &[(0, 0, &a), (2, 0, &b)],
            &DecodeOptions::default(),
        )
        .unwrap();
        let Pixels::Rgba8(v) = img.pixels else {
            panic!("8-bit")
        };
        let red: Vec<u8> = v.chunks(4).map(|p| p[0]).collect();
        assert_eq!(red, [10, 10, 20, 10, 10, 20]);
    }

    #[test]
    fn refuses_sizes_and_short_tiles() {
        let grid = TileGrid {
            width: 0,
            height: 2,
            tile: 2,
            border: 0,
        };
        let o = DecodeOptions::default();
        assert!(assemble_tiles(PixelFormat::G8, grid, &[], &o).is_err());
        let grid = TileGrid { width: 2, ..grid };
        assert!(assemble_tiles(PixelFormat::G8, grid, &[(0, 0, &[1u8][..])], &o).is_err());
    }
}
