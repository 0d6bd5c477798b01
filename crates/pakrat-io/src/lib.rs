//! Shared byte layer for pakrat.
//!
//! * [`Reader`]: a bounds-checked little-endian cursor over a byte slice (or a
//!   memory map) that never panics and whose every error names the offset and
//!   what was expected.
//! * [`Writer`]: the mirror image, appending to a `Vec<u8>`.
//! * Unreal primitives: compact indices ([`compact`]), length-prefixed strings
//!   ([`FString`]), [`Guid`]s, and Unreal's `appMemCrc` ([`crc`]).
//! * Safe output ([`fsutil`]): relative-path sanitising, refusal to escape the
//!   output folder, no overwrite without `force`, atomic temp-file + rename.
//! * Unreal `.ini` files ([`ini`]): tolerant, editable, byte-exact.
//! * Case-insensitive name lookup in a folder ([`nocase`]).
//! * Names and values from files printed safely on a terminal ([`text`]).
//! * Inputs truncated while mapped: an error, not a crash ([`mapguard`]).
#![deny(missing_docs)]

pub mod compact;
pub mod crc;
mod error;
pub mod fresh;
pub mod fsutil;
mod guid;
pub mod ini;
pub mod mapguard;
pub mod nocase;
pub mod probe;
mod reader;
mod source;
pub mod staged;
mod string;
pub mod text;
pub mod walk;
mod writer;

pub use error::{Error, Result};
pub use guid::Guid;
pub use reader::Reader;
pub use source::{
    caps, open_regular, read_capped, read_regular, read_text_capped, read_walked, Source,
    RELEASE_EVERY,
};
pub use string::FString;
pub use writer::Writer;
