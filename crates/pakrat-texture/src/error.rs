use crate::PixelFormat;

/// Why a decode, a layout or a write failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The format is known but this crate does not decode (or write) it.
    #[error("{format}: {what} is not supported")]
    Unsupported {
        /// The format.
        format: PixelFormat,
        /// What was asked of it ("decoding", "DDS output").
        what: &'static str,
    },
    /// The data is shorter than one slice of the format needs.
    #[error("{format} {width}x{height}: expected {expected} bytes of pixel data, got {got}")]
    Size {
        /// The format.
        format: PixelFormat,
        /// Slice width.
        width: u32,
        /// Slice height.
        height: u32,
        /// Bytes one slice needs ([`PixelFormat::slice_size`]).
        expected: u64,
        /// Bytes given.
        got: u64,
    },
    /// Zero or overflowing dimensions.
    #[error("bad dimensions {width}x{height}x{depth}: {why}")]
    Dimensions {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Depth or slice count (1 for a 2D slice).
        depth: u32,
        /// What is wrong with them.
        why: &'static str,
    },
    /// The output would hold more pixels than allowed.
    #[error("{width}x{height} is {pixels} pixels, more than the limit of {max}")]
    TooLarge {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
        /// Pixels the output would hold.
        pixels: u64,
        /// The limit ([`crate::DecodeOptions::max_pixels`]).
        max: u64,
    },
    /// Images or surfaces that do not fit together (different sizes, wrong
    /// counts, pixel buffers of the wrong length).
    #[error("{0}")]
    Mismatch(String),
    /// The decoder rejected the data.
    #[error("{format}: corrupt block data: {why}")]
    Corrupt {
        /// The format.
        format: PixelFormat,
        /// The decoder's message.
        why: String,
    },
    /// The PNG or EXR encoder failed.
    #[error("{kind} encoding failed: {why}")]
    Encode {
        /// "PNG" or "EXR".
        kind: &'static str,
        /// The encoder's message.
        why: String,
    },
    /// Writing the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
