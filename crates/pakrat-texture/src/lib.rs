//! Texture pixels for pakrat: Unreal pixel formats decoded to RGBA, and
//! PNG, OpenEXR and DDS writers. This crate knows pixels, not packages:
//! `pakrat-asset` finds a texture's mips and hands their bytes here.
//!
//! * [`PixelFormat`]: Unreal's `EPixelFormat` names, block geometry, slice
//!   sizes.
//! * [`decode`]: one 2D slice to an [`Image`] (bounded by
//!   [`DecodeOptions::max_pixels`], checked against
//!   [`PixelFormat::slice_size`] before allocating).
//! * [`write_png`], [`write_exr`], [`write_dds`]; [`layout`] for cube
//!   crosses and strips; [`psnr`] for quality figures.
//!
//! See `docs/textures.md` for the formats, the decoder crates chosen and
//! measured figures.
#![deny(missing_docs)]

mod compressed;
mod dds;
mod decode;
mod drive;
mod error;
mod format;
mod image;
mod layout;
mod plain;
mod write;

pub use dds::{write_dds, DdsInfo, DdsKind};
pub use decode::decode;
pub use error::Error;
pub use format::{PixelFormat, ASTC_FOOTPRINTS};
pub use image::{DecodeOptions, Image, Pixels, DEFAULT_MAX_PIXELS};
pub use layout::{layout, psnr, Layout};
pub use write::{write_exr, write_png};
