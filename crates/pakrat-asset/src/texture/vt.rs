//! `FVirtualTextureBuiltData`: a virtual texture's tiles, stored in chunks
//! of bulk data (layout per CUE4Parse `FVirtualTextureBuiltData.cs` and
//! `FVirtualTextureDataChunk.cs`, checked on the UE 5.8/6.0 fixtures).

use pakrat_io::{Reader, Result};
use serde::Serialize;

use super::UE5_INITIAL;
use crate::bulk::{self, BulkRef};
use crate::props::Asset;

/// UE 4.27 (`CodecPayloadOffset` became 32-bit; 4.26 shares the version).
const UE4_427: i32 = 522;

/// Where a mip's tiles lie (UE 5.0+ layout).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TileOffsetData {
    /// Width in tiles.
    pub width: u32,
    /// Height in tiles.
    pub height: u32,
    /// Largest tile address.
    pub max_address: u32,
    /// Start addresses of runs of tiles.
    pub addresses: Vec<u32>,
    /// Tile offsets of those runs (`!0` for a run without data).
    pub offsets: Vec<u32>,
}

/// One chunk of tiles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VtChunk {
    /// Bytes of the chunk.
    pub size_in_bytes: u32,
    /// Bytes of codec payload at its start.
    pub codec_payload_size: u32,
    /// Per layer: codec (`EVirtualTextureCodec`: 4 = RawGPU) and payload
    /// offset.
    pub codecs: Vec<(u8, u32)>,
    /// Its bytes.
    pub data: BulkRef,
}

/// A virtual texture's built data.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VirtualTexture {
    /// Layers (each with its own pixel format).
    pub layers: u32,
    /// UDIM blocks across.
    pub width_in_blocks: u32,
    /// UDIM blocks down.
    pub height_in_blocks: u32,
    /// Tile size without borders.
    pub tile_size: u32,
    /// Border pixels around each tile.
    pub tile_border_size: u32,
    /// UE 5.0+: end offset of each layer's data in a tile.
    pub tile_data_offset_per_layer: Vec<u32>,
    /// Mips.
    pub mips: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// UE 5.0+: chunk of each mip.
    pub chunk_index_per_mip: Vec<u32>,
    /// UE 5.0+: offset of each mip in its chunk.
    pub base_offset_per_mip: Vec<u32>,
    /// UE 5.0+: tile layout of each mip.
    pub tile_offset_data: Vec<TileOffsetData>,
    /// Legacy layout: first tile of each chunk.
    pub tile_index_per_chunk: Vec<u32>,
    /// Legacy layout: first tile of each mip.
    pub tile_index_per_mip: Vec<u32>,
    /// Legacy layout: offset of each tile in its chunk.
    pub tile_offset_in_chunk: Vec<u32>,
    /// Pixel format of each layer (`PF_DXT1` …).
    pub layer_formats: Vec<String>,
    /// UE 5.0+: colour of each layer where no tile is loaded.
    pub fallback_colors: Vec<[f32; 4]>,
    /// The chunks.
    pub chunks: Vec<VtChunk>,
}

impl VirtualTexture {
    /// Tile size with borders.
    pub fn physical_tile_size(&self) -> u32 {
        self.tile_size
            .saturating_add(self.tile_border_size.saturating_mul(2))
    }

    /// Where the tiles of mip `level` of layer 0 lie (UE 5.0+ layout): the
    /// mip's size in pixels, its chunk, and each stored tile's place and
    /// byte range in that chunk, row by row. `tile_bytes` is the
    /// size of one stored tile in the layer's pixel format (the caller
    /// knows the format; this crate does not decode pixels).
    ///
    /// Facts: CUE4Parse `FVirtualTextureBuiltData.cs` (`GetTileData`,
    /// `GetTileOffset`): per mip a chunk, a base offset and runs of tile
    /// addresses in Morton order, each run with a first tile offset (`!0`:
    /// the run has no data). Errors name what is missing or out of range;
    /// nothing is allocated before the tile count is bounded by the
    /// mip's size is checked against `max_pixels`.
    pub fn mip_tiles(
        &self,
        level: usize,
        tile_bytes: u64,
        max_pixels: u64,
    ) -> std::result::Result<VtMip, String> {
        let t = self
            .tile_offset_data
            .get(level)
            .ok_or("no tile layout for this mip (a pre-UE 5 virtual texture)")?;
        let chunk = *self
            .chunk_index_per_mip
            .get(level)
            .ok_or("no chunk for the mip")? as usize;
        let base = *self
            .base_offset_per_mip
            .get(level)
            .ok_or("no base offset")?;
        let c = self.chunks.get(chunk).ok_or("chunk index out of range")?;
        if c.codecs.first().map(|k| k.0) != Some(RAW_GPU) {
            return Err(format!("tile codec {:?} is not RawGPU", c.codecs.first()));
        }
        // The stored tile stride (every layer of a tile): the last layer's
        // end offset.
        let stride = u64::from(
            *self
                .tile_data_offset_per_layer
                .last()
                .ok_or("no tile size")?,
        );
        let tile = self.tile_size;
        let width = t.width.checked_mul(tile).ok_or("size overflows")?;
        let height = t.height.checked_mul(tile).ok_or("size overflows")?;
        if u64::from(width) * u64::from(height) > max_pixels
            || width == 0
            || height == 0
            || t.width > 1 << 16
            || t.height > 1 << 16
        {
            return Err(format!("{width}x{height} pixels is out of bounds"));
        }
        let mut tiles = Vec::new();
        if base != u32::MAX {
            // Row by row over the grid (bounded by the pixel limit above),
            // not over the stored address range, which a damaged file may
            // make 2^32 long.
            for y in 0..t.height {
                for x in 0..t.width {
                    let address = morton(x, y);
                    if address >= t.max_address {
                        continue;
                    }
                    let Some(off) = tile_offset(t, address) else {
                        continue;
                    };
                    tiles.push(VtTile {
                        x: x * tile,
                        y: y * tile,
                        start: u64::from(base) + u64::from(off) * stride,
                        len: tile_bytes,
                        address,
                    });
                }
            }
        }
        Ok(VtMip {
            width,
            height,
            chunk,
            tiles,
        })
    }
}

/// `EVirtualTextureCodec::RawGPU`: tiles stored in the layer's GPU format.
const RAW_GPU: u8 = 4;

/// The tiles of one virtual-texture mip ([`VirtualTexture::mip_tiles`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VtMip {
    /// Width in pixels (tiles across × tile size, borders excluded).
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Index of the chunk holding the tiles ([`VirtualTexture::chunks`]).
    pub chunk: usize,
    /// The stored tiles, row by row.
    pub tiles: Vec<VtTile>,
}

/// A tile's left and top pixel in the mip and its stored bytes.
pub type TileSlice<'d> = (u32, u32, &'d [u8]);

impl VtMip {
    /// Each tile's place and bytes in `chunk` (the bytes of chunk
    /// [`VtMip::chunk`]), for `pakrat_texture::assemble_tiles`. Errors: a
    /// tile outside the chunk, or no tile at all.
    pub fn tile_slices<'d>(
        &self,
        chunk: &'d [u8],
    ) -> std::result::Result<Vec<TileSlice<'d>>, String> {
        if self.tiles.is_empty() {
            return Err("the mip has no tiles".into());
        }
        self.tiles
            .iter()
            .map(|t| {
                usize::try_from(t.start)
                    .ok()
                    .zip(usize::try_from(t.len).ok())
                    .and_then(|(s, n)| chunk.get(s..s.checked_add(n)?))
                    .map(|b| (t.x, t.y, b))
                    .ok_or_else(|| {
                        format!(
                            "tile {} ({} bytes at {}) lies outside its chunk of {} bytes",
                            t.address,
                            t.len,
                            t.start,
                            chunk.len()
                        )
                    })
            })
            .collect()
    }
}

/// One stored tile of a virtual-texture mip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VtTile {
    /// Left pixel of the tile's inside in the mip.
    pub x: u32,
    /// Top pixel.
    pub y: u32,
    /// Offset of its bytes in the chunk.
    pub start: u64,
    /// Its bytes (the `tile_bytes` given).
    pub len: u64,
    /// Its Morton address, for messages.
    pub address: u32,
}

/// The Morton address of tile (x, y): x in the even bits, y in the odd
/// ones (16 bits each; larger grids are refused by the pixel limit first).
fn morton(x: u32, y: u32) -> u32 {
    fn spread(mut v: u32) -> u32 {
        v &= 0x0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    }
    spread(x) | (spread(y) << 1)
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

fn u32_array(r: &mut Reader<'_>, what: &str) -> Result<Vec<u32>> {
    let n = r.i32_count(what, 4)?;
    (0..n).map(|_| r.u32(what)).collect()
}

/// Read `FVirtualTextureBuiltData` of export `export`.
pub(super) fn read(asset: &Asset<'_>, export: usize, r: &mut Reader<'_>) -> Result<VirtualTexture> {
    let ue5 = asset.versions.ue5 >= UE5_INITIAL;
    r.u32("VT bCooked")?;
    let layers = r.u32("VT NumLayers")?;
    if layers > 8 {
        return Err(r.invalid(format!("virtual texture with {layers} layers (at most 8)")));
    }
    let width_in_blocks = r.u32("VT WidthInBlocks")?;
    let height_in_blocks = r.u32("VT HeightInBlocks")?;
    let tile_size = r.u32("VT TileSize")?;
    let tile_border_size = r.u32("VT TileBorderSize")?;
    let tile_data_offset_per_layer = if ue5 {
        u32_array(r, "VT TileDataOffsetPerLayer")?
    } else {
        Vec::new()
    };
    let mips = r.u32("VT NumMips")?;
    let width = r.u32("VT Width")?;
    let height = r.u32("VT Height")?;
    let (mut chunk_index_per_mip, mut base_offset_per_mip, mut tile_offset_data) =
        (Vec::new(), Vec::new(), Vec::new());
    if ue5 {
        chunk_index_per_mip = u32_array(r, "VT ChunkIndexPerMip")?;
        base_offset_per_mip = u32_array(r, "VT BaseOffsetPerMip")?;
        let n = r.i32_count("VT TileOffsetData", 20)?;
        for _ in 0..n {
            tile_offset_data.push(TileOffsetData {
                width: r.u32("tile width")?,
                height: r.u32("tile height")?,
                max_address: r.u32("tile max address")?,
                addresses: u32_array(r, "tile addresses")?,
                offsets: u32_array(r, "tile offsets")?,
            });
        }
    }
    let tile_index_per_chunk = u32_array(r, "VT TileIndexPerChunk")?;
    let tile_index_per_mip = u32_array(r, "VT TileIndexPerMip")?;
    let tile_offset_in_chunk = u32_array(r, "VT TileOffsetInChunk")?;
    let mut layer_formats = Vec::with_capacity(layers as usize);
    for _ in 0..layers {
        layer_formats.push(pakrat_codec::fstring::read_fstring(r, "VT layer format")?);
    }
    let mut fallback_colors = Vec::new();
    if ue5 {
        for _ in 0..layers {
            let mut c = [0f32; 4];
            for v in &mut c {
                *v = r.f32("VT fallback color")?;
            }
            fallback_colors.push(c);
        }
    }
    let n = r.i32_count("VT chunks", 12)?;
    let mut chunks = Vec::with_capacity(n);
    for _ in 0..n {
        chunks.push(chunk(asset, export, r, layers, ue5)?);
    }
    Ok(VirtualTexture {
        layers,
        width_in_blocks,
        height_in_blocks,
        tile_size,
        tile_border_size,
        tile_data_offset_per_layer,
        mips,
        width,
        height,
        chunk_index_per_mip,
        base_offset_per_mip,
        tile_offset_data,
        tile_index_per_chunk,
        tile_index_per_mip,
        tile_offset_in_chunk,
        layer_formats,
        fallback_colors,
        chunks,
    })
}

/// `FVirtualTextureDataChunk`.
fn chunk(
    asset: &Asset<'_>,
    export: usize,
    r: &mut Reader<'_>,
    layers: u32,
    ue5: bool,
) -> Result<VtChunk> {
    if ue5 {
        r.skip(20, "VT chunk hash")?;
    }
    let size_in_bytes = r.u32("VT chunk size")?;
    let codec_payload_size = r.u32("VT codec payload size")?;
    let mut codecs = Vec::with_capacity(layers as usize);
    for _ in 0..layers {
        let codec = r.u8("VT codec")?;
        let off = if ue5 || asset.versions.ue4 >= UE4_427 {
            r.u32("VT codec payload offset")?
        } else {
            u32::from(r.u16("VT codec payload offset")?)
        };
        codecs.push((codec, off));
    }
    let data = bulk::read_ref(asset, export, r)?;
    Ok(VtChunk {
        size_in_bytes,
        codec_payload_size,
        codecs,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_addresses_and_runs() {
        assert_eq!(morton(0, 0), 0);
        assert_eq!(morton(1, 0), 1);
        assert_eq!(morton(0, 1), 2);
        assert_eq!(morton(1, 3), 11);
        assert_eq!(morton(3, 2), 13);
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
