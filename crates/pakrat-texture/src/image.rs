//! Decoded images and decode options.

/// Decoded pixels of one 2D slice, row-major, top row first (RGBA, or the
/// one or two channels of [`Pixels::Gray8`] / [`Pixels::Rg8`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels' values.
    pub pixels: Pixels,
}

/// The channel values of an [`Image`], row-major. Most kinds hold four
/// values per pixel (R, G, B, A); the one- and two-channel block formats
/// keep their own channels (`PF_BC4` one, `PF_BC5` without Z two), so that
/// decoding them writes no more bytes than they hold.
///
/// Every kind reads as RGBA through [`Pixels::len`] and [`Pixels::get_f64`]
/// (gray as R = G = B, two channels as R, G with B 0; alpha opaque), and
/// [`Image::to_rgba8`] expands them.
#[derive(Clone, Debug, PartialEq)]
pub enum Pixels {
    /// 8 bits per channel, RGBA.
    Rgba8(Vec<u8>),
    /// 16 bits per channel, RGBA (G16, A16B16G16R16).
    Rgba16(Vec<u16>),
    /// 32-bit float per channel, RGBA (HDR formats).
    RgbaF32(Vec<f32>),
    /// One 8-bit channel per pixel (`PF_BC4`): gray.
    Gray8(Vec<u8>),
    /// Two 8-bit channels per pixel, R and G (`PF_BC5` when Z is not
    /// rebuilt).
    Rg8(Vec<u8>),
}

impl Pixels {
    /// Values stored per pixel: 1 ([`Pixels::Gray8`]), 2
    /// ([`Pixels::Rg8`]) or 4.
    pub fn channels(&self) -> usize {
        match self {
            Pixels::Gray8(_) => 1,
            Pixels::Rg8(_) => 2,
            _ => 4,
        }
    }

    /// Number of RGBA channel values the pixels stand for (four per pixel,
    /// whatever [`Pixels::channels`] stores).
    pub fn len(&self) -> usize {
        match self {
            Pixels::Rgba8(v) => v.len(),
            Pixels::Rgba16(v) => v.len(),
            Pixels::RgbaF32(v) => v.len(),
            Pixels::Gray8(v) => v.len() * 4,
            Pixels::Rg8(v) => v.len() * 2,
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one channel value (1, 2 or 4).
    pub fn channel_bytes(&self) -> usize {
        match self {
            Pixels::Rgba8(_) | Pixels::Gray8(_) | Pixels::Rg8(_) => 1,
            Pixels::Rgba16(_) => 2,
            Pixels::RgbaF32(_) => 4,
        }
    }

    /// RGBA channel value `i` (pixel `i / 4`, channel `i % 4`) scaled to
    /// 0..1 (floats as they are).
    pub fn get_f64(&self, i: usize) -> f64 {
        let (px, c) = (i / 4, i % 4);
        match self {
            Pixels::Rgba8(v) => f64::from(v[i]) / 255.0,
            Pixels::Rgba16(v) => f64::from(v[i]) / 65535.0,
            Pixels::RgbaF32(v) => f64::from(v[i]),
            Pixels::Gray8(v) if c < 3 => f64::from(v[px]) / 255.0,
            Pixels::Rg8(v) if c < 2 => f64::from(v[px * 2 + c]) / 255.0,
            Pixels::Rg8(_) if c == 2 => 0.0,
            Pixels::Gray8(_) | Pixels::Rg8(_) => 1.0,
        }
    }
}

impl Image {
    /// An 8-bit RGBA copy for previews (the viewer, thumbnails) and for
    /// layouts: 16-bit values rounded to 8 bits, floats clamped to 0..1 (no
    /// tone mapping: HDR values above 1 saturate), gray and two-channel
    /// pixels expanded as [`Pixels::get_f64`] reads them. RGBA8 images are
    /// cloned.
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
            Pixels::Gray8(v) => v.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            Pixels::Rg8(v) => v
                .chunks_exact(2)
                .flat_map(|p| [p[0], p[1], 0, 255])
                .collect(),
        };
        Image {
            width: self.width,
            height: self.height,
            pixels: Pixels::Rgba8(v),
        }
    }

    /// Checks that the buffer holds exactly `width * height` pixels
    /// ([`Pixels::len`] = `width * height * 4`).
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
