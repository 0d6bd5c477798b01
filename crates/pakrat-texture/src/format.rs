//! Unreal pixel formats (`EPixelFormat`) and their block geometry.

/// A pixel format as Unreal names it (`EPixelFormat`), e.g. `PF_DXT1`,
/// `PF_B8G8R8A8`, `PF_ASTC_6x6`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    /// `PF_B8G8R8A8`: 8-bit BGRA, byte order B, G, R, A.
    B8G8R8A8,
    /// `PF_R8G8B8A8`: 8-bit RGBA, byte order R, G, B, A.
    R8G8B8A8,
    /// `PF_G8`: one 8-bit gray channel.
    G8,
    /// `PF_G16`: one 16-bit gray channel (little-endian).
    G16,
    /// `PF_A16B16G16R16`: 16-bit RGBA, channel order R, G, B, A in memory.
    A16B16G16R16,
    /// `PF_R16F`: one half-float red channel.
    R16F,
    /// `PF_R32F`: one 32-bit float red channel.
    R32F,
    /// `PF_FloatRGBA`: half-float RGBA (RGBA16F).
    FloatRGBA,
    /// `PF_A32B32G32R32F`: 32-bit float RGBA, channel order R, G, B, A in memory.
    A32B32G32R32F,
    /// `PF_DXT1`: BC1.
    Dxt1,
    /// `PF_DXT3`: BC2.
    Dxt3,
    /// `PF_DXT5`: BC3.
    Dxt5,
    /// `PF_BC4`: one red channel, BC4 unsigned.
    Bc4,
    /// `PF_BC5`: two channels (red, green), BC5 unsigned; usually a normal map.
    Bc5,
    /// `PF_BC6H`: HDR RGB, BC6H unsigned (UF16).
    Bc6h,
    /// `PF_BC7`: BC7 RGBA.
    Bc7,
    /// `PF_ASTC_<bw>x<bh>` (LDR) or `PF_ASTC_<bw>x<bh>_HDR`.
    Astc {
        /// Block width in pixels (4 to 12).
        bw: u8,
        /// Block height in pixels (4 to 12).
        bh: u8,
        /// HDR profile (`_HDR` suffix).
        hdr: bool,
    },
    /// `PF_ETC1`: ETC1 RGB.
    Etc1,
    /// `PF_ETC2_RGB`: ETC2 RGB.
    Etc2Rgb,
    /// `PF_ETC2_RGBA`: ETC2 RGBA (EAC alpha).
    Etc2Rgba,
    /// `PF_ETC2_R11_EAC`: one 11-bit red channel (EAC).
    Etc2R11Eac,
    /// `PF_ETC2_RG11_EAC`: two 11-bit channels, red and green (EAC).
    Etc2Rg11Eac,
}

/// The ASTC block footprints that the ASTC specification defines (2D).
pub const ASTC_FOOTPRINTS: [(u8, u8); 14] = [
    (4, 4),
    (5, 4),
    (5, 5),
    (6, 5),
    (6, 6),
    (8, 5),
    (8, 6),
    (8, 8),
    (10, 5),
    (10, 6),
    (10, 8),
    (10, 10),
    (12, 10),
    (12, 12),
];

/// Every format with a fixed name (ASTC apart), for lookup by name.
const NAMED: [(PixelFormat, &str); 21] = [
    (PixelFormat::B8G8R8A8, "PF_B8G8R8A8"),
    (PixelFormat::R8G8B8A8, "PF_R8G8B8A8"),
    (PixelFormat::G8, "PF_G8"),
    (PixelFormat::G16, "PF_G16"),
    (PixelFormat::A16B16G16R16, "PF_A16B16G16R16"),
    (PixelFormat::R16F, "PF_R16F"),
    (PixelFormat::R32F, "PF_R32F"),
    (PixelFormat::FloatRGBA, "PF_FloatRGBA"),
    (PixelFormat::A32B32G32R32F, "PF_A32B32G32R32F"),
    (PixelFormat::Dxt1, "PF_DXT1"),
    (PixelFormat::Dxt3, "PF_DXT3"),
    (PixelFormat::Dxt5, "PF_DXT5"),
    (PixelFormat::Bc4, "PF_BC4"),
    (PixelFormat::Bc5, "PF_BC5"),
    (PixelFormat::Bc6h, "PF_BC6H"),
    (PixelFormat::Bc7, "PF_BC7"),
    (PixelFormat::Etc1, "PF_ETC1"),
    (PixelFormat::Etc2Rgb, "PF_ETC2_RGB"),
    (PixelFormat::Etc2Rgba, "PF_ETC2_RGBA"),
    (PixelFormat::Etc2R11Eac, "PF_ETC2_R11_EAC"),
    (PixelFormat::Etc2Rg11Eac, "PF_ETC2_RG11_EAC"),
];

const ASTC_NAMES: [&str; 14] = [
    "PF_ASTC_4x4",
    "PF_ASTC_5x4",
    "PF_ASTC_5x5",
    "PF_ASTC_6x5",
    "PF_ASTC_6x6",
    "PF_ASTC_8x5",
    "PF_ASTC_8x6",
    "PF_ASTC_8x8",
    "PF_ASTC_10x5",
    "PF_ASTC_10x6",
    "PF_ASTC_10x8",
    "PF_ASTC_10x10",
    "PF_ASTC_12x10",
    "PF_ASTC_12x12",
];

const ASTC_HDR_NAMES: [&str; 14] = [
    "PF_ASTC_4x4_HDR",
    "PF_ASTC_5x4_HDR",
    "PF_ASTC_5x5_HDR",
    "PF_ASTC_6x5_HDR",
    "PF_ASTC_6x6_HDR",
    "PF_ASTC_8x5_HDR",
    "PF_ASTC_8x6_HDR",
    "PF_ASTC_8x8_HDR",
    "PF_ASTC_10x5_HDR",
    "PF_ASTC_10x6_HDR",
    "PF_ASTC_10x8_HDR",
    "PF_ASTC_10x10_HDR",
    "PF_ASTC_12x10_HDR",
    "PF_ASTC_12x12_HDR",
];

impl PixelFormat {
    /// The format Unreal names `name` (`PF_DXT1`; `DXT1` is accepted too;
    /// ASCII case is ignored). `None` for names this crate does not know.
    pub fn from_ue_name(name: &str) -> Option<PixelFormat> {
        let bare = name.strip_prefix("PF_").unwrap_or(name);
        let eq = |full: &str| full[3..].eq_ignore_ascii_case(bare);
        if let Some((f, _)) = NAMED.iter().find(|(_, n)| eq(n)) {
            return Some(*f);
        }
        for (i, &(bw, bh)) in ASTC_FOOTPRINTS.iter().enumerate() {
            if eq(ASTC_NAMES[i]) {
                return Some(PixelFormat::Astc { bw, bh, hdr: false });
            }
            if eq(ASTC_HDR_NAMES[i]) {
                return Some(PixelFormat::Astc { bw, bh, hdr: true });
            }
        }
        None
    }

    /// Unreal's name for the format (`PF_DXT1`). An ASTC footprint that
    /// the specification does not define is named `PF_ASTC_invalid`.
    pub fn ue_name(self) -> &'static str {
        if let PixelFormat::Astc { bw, bh, hdr } = self {
            return match ASTC_FOOTPRINTS.iter().position(|&f| f == (bw, bh)) {
                Some(i) if hdr => ASTC_HDR_NAMES[i],
                Some(i) => ASTC_NAMES[i],
                None => "PF_ASTC_invalid",
            };
        }
        NAMED
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("PF_Unknown", |(_, n)| n)
    }

    /// Block width, height (pixels) and size (bytes): `(1, 1, 4)` for
    /// `B8G8R8A8`, `(4, 4, 8)` for `DXT1`.
    pub fn block(self) -> (u32, u32, u32) {
        use PixelFormat::*;
        match self {
            G8 => (1, 1, 1),
            G16 | R16F => (1, 1, 2),
            B8G8R8A8 | R8G8B8A8 | R32F => (1, 1, 4),
            A16B16G16R16 | FloatRGBA => (1, 1, 8),
            A32B32G32R32F => (1, 1, 16),
            Dxt1 | Bc4 | Etc1 | Etc2Rgb | Etc2R11Eac => (4, 4, 8),
            Dxt3 | Dxt5 | Bc5 | Bc6h | Bc7 | Etc2Rgba | Etc2Rg11Eac => (4, 4, 16),
            Astc { bw, bh, .. } => (u32::from(bw), u32::from(bh), 16),
        }
    }

    /// Whether the format is one this crate can describe: every format but
    /// an ASTC footprint outside the specification's list.
    pub fn is_valid(self) -> bool {
        match self {
            PixelFormat::Astc { bw, bh, .. } => ASTC_FOOTPRINTS.contains(&(bw, bh)),
            _ => true,
        }
    }

    /// Bytes of one `w`×`h` slice: whole blocks, rounded up. `None` on
    /// overflow or for an invalid format.
    pub fn slice_size(self, w: u32, h: u32) -> Option<u64> {
        if !self.is_valid() {
            return None;
        }
        let (bw, bh, bytes) = self.block();
        let bx = u64::from(w).div_ceil(u64::from(bw));
        let by = u64::from(h).div_ceil(u64::from(bh));
        bx.checked_mul(by)?.checked_mul(u64::from(bytes))
    }

    /// Whether the format holds values outside 0..1 (decoded to `f32`).
    pub fn is_hdr(self) -> bool {
        use PixelFormat::*;
        matches!(
            self,
            R16F | R32F | FloatRGBA | A32B32G32R32F | Bc6h | Astc { hdr: true, .. }
        )
    }

    /// Whether the format is block-compressed (blocks larger than a pixel).
    pub fn is_compressed(self) -> bool {
        self.block().0 > 1
    }
}

impl std::fmt::Display for PixelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.ue_name())
    }
}
