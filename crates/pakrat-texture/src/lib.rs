//! Texture pixels for pakrat: Unreal pixel formats decoded to RGBA (BC4
//! and BC5 to their own one or two channels), and
//! PNG, OpenEXR and DDS writers. This crate knows pixels, not packages:
//! `pakrat-asset` finds a texture's mips and hands their bytes here.
//!
//! * [`PixelFormat`]: Unreal's `EPixelFormat` names, block geometry, slice
//!   sizes.
//! * [`decode`]: one 2D slice to an [`Image`] (bounded by
//!   [`DecodeOptions::max_pixels`], checked against
//!   [`PixelFormat::slice_size`] before allocating; one large slice is split
//!   by block rows over rayon when [`DecodeOptions::parallel`] is on).
//! * [`write_png`], [`write_exr`], [`write_dds`]; [`layout`] for cube
//!   crosses and strips; [`psnr`] for quality figures; [`read_png`] and
//!   [`read_exr`] to load reference images.
//!
//! # Decoder crates
//!
//! Chosen after measuring speed and agreement on the same blocks
//! (`examples/decode_bench.rs`; figures in `docs/textures.md`):
//!
//! * BC1–BC7: `bcdec_rs`. 1.2–3.5× faster than `texture2ddecoder`, writes
//!   at a pitch, decodes BC6H to f32, and follows Direct3D where the two
//!   differ (BC2/BC3 colour always in 4-colour mode).
//! * ETC1, ETC2: `texture2ddecoder`, the maintained Rust decoder of them
//!   (its ASTC decoder is not used: it panics on hostile blocks).
//! * EAC R11/RG11: by hand (`eac.rs`), because `texture2ddecoder` puts the
//!   pixels of these blocks out of place (15 dB against the fixture source,
//!   47 dB and exact by hand).
//! * ASTC (LDR, all 14 2D footprints): `astc-decode`, faster than
//!   `texture2ddecoder` and closer to ARM's reference `astcenc`, with one
//!   correction (`astc.rs`): in blocks of several partitions with
//!   per-partition endpoint modes, an HDR mode no longer shifts the colour
//!   values of the partitions after it. ASTC HDR is not decoded.
//! * f16: `half` (whole rows, F16C where available). PNG: `png`. EXR: `exr`.
//! * DDS headers: by hand, after Microsoft's `DDS_HEADER` /
//!   `DDS_HEADER_DXT10` documentation ([`write_dds`]).
//!
//! Every decoder crate is only called on whole blocks of checked data, and
//! none panics on arbitrary block bytes (tests/hostile.rs and the fuzz
//! target `ue_texture_decode`), so no `catch_unwind` is needed.
#![deny(missing_docs)]

mod astc;
mod compressed;
mod dds;
mod decode;
mod drive;
mod eac;
mod error;
mod format;
mod image;
mod layout;
mod plain;
mod read;
mod tiles;
mod write;

pub use dds::{write_dds, DdsInfo, DdsKind};
pub use decode::decode;
pub use error::Error;
pub use format::{PixelFormat, ASTC_FOOTPRINTS};
pub use image::{DecodeOptions, Image, Pixels, DEFAULT_MAX_PIXELS};
pub use layout::{layout, psnr, Layout};
pub use read::{read_exr, read_png};
pub use tiles::{assemble_tiles, TileGrid};
pub use write::{write_exr, write_png};
