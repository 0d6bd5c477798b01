//! A virtual texture's mip assembled from its tiles: where they lie from
//! `pakrat_asset::texture::VirtualTexture::mip_tiles`, decoded and placed by
//! `pakrat_texture::assemble_tiles`. Layer 0 only.

use pakrat_asset::props::{BulkFrom, Opened};
use pakrat_asset::texture::VirtualTexture;
use pakrat_texture::{DecodeOptions, Image, PixelFormat, TileGrid};

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
    let phys = vt.physical_tile_size();
    let packed = pf.slice_size(phys, phys).ok_or("tile size overflows")?;
    let mip = vt.mip_tiles(level, packed, dopts.max_pixels)?;
    let c = &vt.chunks[mip.chunk];
    let data = opened.bulk(&c.data, from).map_err(|e| e.to_string())?;
    let tiles = mip.tile_slices(&data)?;
    let grid = TileGrid {
        width: mip.width,
        height: mip.height,
        tile: vt.tile_size,
        border: vt.tile_border_size,
    };
    pakrat_texture::assemble_tiles(pf, grid, &tiles, dopts).map_err(|e| e.to_string())
}
