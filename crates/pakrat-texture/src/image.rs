//! Decoded images and decode options.

/// Decoded pixels of one 2D slice, RGBA, row-major, top row first.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` channel values.
    pub pixels: Pixels,
}

/// The channel values of an [`Image`]: four per pixel, R, G, B, A.
#[derive(Clone, Debug, PartialEq)]
pub enum Pixels {
    /// 8 bits per channel.
    Rgba8(Vec<u8>),
    /// 16 bits per channel (G16, A16B16G16R16).
    Rgba16(Vec<u16>),
    /// 32-bit float per channel (HDR formats).
    RgbaF32(Vec<f32>),
}

impl Pixels {
    /// Number of channel values (four per pixel).
    pub fn len(&self) -> usize {
        match self {
            Pixels::Rgba8(v) => v.len(),
            Pixels::Rgba16(v) => v.len(),
            Pixels::RgbaF32(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one channel value (1, 2 or 4).
    pub fn channel_bytes(&self) -> usize {
        match self {
            Pixels::Rgba8(_) => 1,
            Pixels::Rgba16(_) => 2,
            Pixels::RgbaF32(_) => 4,
        }
    }

    /// Channel value `i` scaled to 0..1 (floats as they are).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Pixels::Rgba8(v) => f64::from(v[i]) / 255.0,
            Pixels::Rgba16(v) => f64::from(v[i]) / 65535.0,
            Pixels::RgbaF32(v) => f64::from(v[i]),
        }
    }
}

impl Image {
    /// An 8-bit copy for previews (the viewer, thumbnails): 16-bit values
    /// rounded to 8 bits, floats clamped to 0..1 (no tone mapping: HDR
    /// values above 1 saturate). 8-bit images are cloned.
    pub fn to_rgba8(&self) -> Image {
        let v = match &self.pixels {
            Pixels::Rgba8(v) => v.clone(),
            Pixels::Rgba16(v) => v
                .iter()
                .map(|&x| ((u32::from(x) * 255 + 32767) / 65535) as u8)
                .collect(),
            Pixels::RgbaF32(v) => v
                .iter()
                .map(|&f| (f.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)
                .collect(),
        };
        Image {
            width: self.width,
            height: self.height,
            pixels: Pixels::Rgba8(v),
        }
    }

    /// Checks that the buffer holds exactly `width * height * 4` values.
    pub fn check(&self) -> Result<(), crate::Error> {
        let want = u64::from(self.width) * u64::from(self.height) * 4;
        if self.pixels.len() as u64 != want {
            return Err(crate::Error::Mismatch(format!(
                "image {}x{} holds {} channel values, expected {want}",
                self.width,
                self.height,
                self.pixels.len()
            )));
        }
        Ok(())
    }
}

/// Options of [`crate::decode`].
#[derive(Clone, Debug)]
pub struct DecodeOptions {
    /// Largest output (`width * height`) a decode may allocate; larger
    /// slices are refused before any allocation. Default: 2^28 pixels
    /// (16384 × 16384, 4 GiB as RGBA f32).
    pub max_pixels: u64,
    /// BC5 / EAC RG11 normal maps: rebuild Z (blue) as
    /// `sqrt(1 - x² - y²)` from X and Y mapped to -1..1. Otherwise blue is 0.
    pub rebuild_normal_z: bool,
    /// Split one large slice by block rows over the rayon pool. Default on;
    /// callers that already decode many textures in parallel may turn it off.
    pub parallel: bool,
}

/// Default [`DecodeOptions::max_pixels`]: 16384 × 16384.
pub const DEFAULT_MAX_PIXELS: u64 = 1 << 28;

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_pixels: DEFAULT_MAX_PIXELS,
            rebuild_normal_z: false,
            parallel: true,
        }
    }
}
