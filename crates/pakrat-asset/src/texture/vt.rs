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
