//! A virtual texture's mip assembled from its tiles (UE 5 layout: per mip a
//! chunk, a base offset and runs of tile addresses in Morton order; each
//! tile stored with its border, in the layer's pixel format, `RawGPU`).
//! Layer 0 only. Facts: CUE4Parse `FVirtualTextureBuiltData.cs`
//! (`GetTileData`, `GetTileOffset`) and `TextureDecoder.cs`.

use pakrat_asset::props::{BulkFrom, Opened};
use pakrat_asset::texture::{TileOffsetData, VirtualTexture};
use pakrat_texture::{DecodeOptions, Image, PixelFormat, Pixels};

/// `EVirtualTextureCodec::RawGPU`.
const RAW_GPU: u8 = 4;

/// The x (even bits) or y (odd bits, after a shift) of a Morton address.
fn unmorton(mut x: u32) -> u32 {
    x &= 0x5555_5555;
    x = (x ^ (x >> 1)) & 0x3333_3333;
    x = (x ^ (x >> 2)) & 0x0f0f_0f0f;
    x = (x ^ (x >> 4)) & 0x00ff_00ff;
    x = (x ^ (x >> 8)) & 0x0000_ffff;
    x
}

/// Tile offset of `address` in its mip (`None`: no data).
fn tile_offset(t: &TileOffsetData, address: u32) -> Option<u32> {
    let run = t
        .addresses
        .partition_point(|&a| a <= address)
        .checked_sub(1)?;
    let base = *t.offsets.get(run)?;
    if base == u32::MAX {
        return None;
    }
    base.checked_add(address - t.addresses[run])
}

/// Copy the `tile × tile` inside of `src` (a `phys × phys` tile with a
/// `border`) to `(x, y)` of `dst` (`width` pixels wide), clipped.
fn blit<T: Copy>(
    dst: &mut [T],
    width: u32,
    src: &[T],
    phys: u32,
    border: u32,
    tile: u32,
    (x, y): (u32, u32),
) {
    let height = (dst.len() / 4) as u32 / width.max(1);
    for row in 0..tile {
        let ty = y + row;
        if ty >= height || x >= width {
            break;
        }
        let n = tile.min(width - x) as usize * 4;
        let s = (((row + border) * phys + border) * 4) as usize;
        let d = ((ty * width + x) * 4) as usize;
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    }
}

/// Mip `level` of `vt` as one image, or why not.
pub fn assemble(
    opened: &Opened,
    from: BulkFrom<'_>,
    vt: &VirtualTexture,
    level: usize,
    dopts: &DecodeOptions,
) -> Result<Image, String> {
    let format = vt.layer_formats.first().ok_or("no layers")?;
    let pf = PixelFormat::from_ue_name(format)
        .ok_or_else(|| format!("layer pixel format {format} is not supported"))?;
    let t = vt
        .tile_offset_data
        .get(level)
        .ok_or("no tile layout for this mip (a pre-UE 5 virtual texture)")?;
    let chunk = *vt
        .chunk_index_per_mip
        .get(level)
        .ok_or("no chunk for the mip")? as usize;
    let base = *vt.base_offset_per_mip.get(level).ok_or("no base offset")?;
    let c = vt.chunks.get(chunk).ok_or("chunk index out of range")?;
    if c.codecs.first().map(|k| k.0) != Some(RAW_GPU) {
        return Err(format!("tile codec {:?} is not RawGPU", c.codecs.first()));
    }
    let tile_bytes = u64::from(*vt.tile_data_offset_per_layer.last().ok_or("no tile size")?);
    let (tile, border) = (vt.tile_size, vt.tile_border_size);
    let phys = vt.physical_tile_size();
    let packed = pf.slice_size(phys, phys).ok_or("tile size overflows")?;
    let width = t.width.checked_mul(tile).ok_or("size overflows")?;
    let height = t.height.checked_mul(tile).ok_or("size overflows")?;
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > dopts.max_pixels {
        return Err(format!("{width}x{height} pixels is out of bounds"));
    }
    let data = opened.bulk(&c.data, from).map_err(|e| e.to_string())?;
    let n = (width * height * 4) as usize;
    let mut out: Option<Pixels> = None;
    for address in 0..t.max_address {
        let (x, y) = (unmorton(address), unmorton(address >> 1));
        if x >= t.width || y >= t.height || base == u32::MAX {
            continue;
        }
        let Some(off) = tile_offset(t, address) else {
            continue;
        };
        let start = u64::from(base) + u64::from(off) * tile_bytes;
        let bytes = usize::try_from(start)
            .ok()
            .and_then(|s| data.get(s..s.checked_add(packed as usize)?))
            .ok_or_else(|| format!("tile {address} lies outside its chunk"))?;
        let img =
            pakrat_texture::decode(pf, phys, phys, bytes, dopts).map_err(|e| e.to_string())?;
        let at = (x * tile, y * tile);
        match (&mut out, img.pixels) {
            (None, Pixels::Rgba8(v)) => {
                let mut d = vec![0u8; n];
                blit(&mut d, width, &v, phys, border, tile, at);
                out = Some(Pixels::Rgba8(d));
            }
            (None, Pixels::Rgba16(v)) => {
                let mut d = vec![0u16; n];
                blit(&mut d, width, &v, phys, border, tile, at);
                out = Some(Pixels::Rgba16(d));
            }
            (None, Pixels::RgbaF32(v)) => {
                let mut d = vec![0f32; n];
                blit(&mut d, width, &v, phys, border, tile, at);
                out = Some(Pixels::RgbaF32(d));
            }
            (Some(Pixels::Rgba8(d)), Pixels::Rgba8(v)) => {
                blit(d, width, &v, phys, border, tile, at)
            }
            (Some(Pixels::Rgba16(d)), Pixels::Rgba16(v)) => {
                blit(d, width, &v, phys, border, tile, at)
            }
            (Some(Pixels::RgbaF32(d)), Pixels::RgbaF32(v)) => {
                blit(d, width, &v, phys, border, tile, at)
            }
            _ => return Err("tiles decode to different pixel kinds".into()),
        }
    }
    let pixels = out.ok_or("the mip has no tiles")?;
    Ok(Image {
        width,
        height,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_addresses_and_runs() {
        assert_eq!((unmorton(0), unmorton(0 >> 1)), (0, 0));
        assert_eq!((unmorton(1), unmorton(1 >> 1)), (1, 0));
        assert_eq!((unmorton(2), unmorton(2 >> 1)), (0, 1));
        assert_eq!((unmorton(11), unmorton(11 >> 1)), (1, 3));
        let t = TileOffsetData {
            width: 2,
            height: 2,
            max_address: 4,
            addresses: vec![0, 2],
            offsets: vec![10, u32::MAX],
        };
        assert_eq!(tile_offset(&t, 1), Some(11));
        assert_eq!(tile_offset(&t, 3), None);
        let empty = TileOffsetData {
            addresses: vec![],
            offsets: vec![],
            ..t
        };
        assert_eq!(tile_offset(&empty, 0), None);
    }
}
