//! DDS output: all mips, faces and slices, undecoded.
//!
//! The header follows Microsoft's DDS documentation ("DDS_HEADER",
//! "DDS_PIXELFORMAT", "DDS_HEADER_DXT10"): the magic `DDS `, a 124-byte
//! `DDS_HEADER` (dwSize 124, dwFlags, dwHeight, dwWidth,
//! dwPitchOrLinearSize, dwDepth, dwMipMapCount, 11 reserved words, the
//! 32-byte `DDS_PIXELFORMAT`, dwCaps, dwCaps2, dwCaps3, dwCaps4, one
//! reserved word), then for formats and shapes that the legacy header cannot
//! name a 20-byte `DDS_HEADER_DXT10` (dxgiFormat, resourceDimension,
//! miscFlag, arraySize, miscFlags2).
//!
//! * Legacy header: DXT1/DXT3/DXT5 (FourCC `DXT1`/`DXT3`/`DXT5`), BC4
//!   (`ATI1`), BC5 (`ATI2`), B8G8R8A8 and R8G8B8A8 (RGB with masks), G8 and
//!   G16 (luminance), single 2D textures, cubes and volumes.
//! * DX10 header: BC6H (`DXGI_FORMAT_BC6H_UF16`), BC7, the float formats,
//!   A16B16G16R16, and every array or cube array (`arraySize` = slices or
//!   cubes; cubes set `DDS_RESOURCE_MISC_TEXTURECUBE`).
//! * ASTC and ETC have no DXGI format that DDS readers accept: refused
//!   ([`Error::Unsupported`]).
//!
//! Data order is DDS's: for each array element (each face of each cube),
//! all its mips, largest first. A volume is one surface whose mip `m` holds
//! all `max(1, depth >> m)` slices of that mip.

use crate::{Error, PixelFormat};
use std::io::Write;

/// The shape of a texture written by [`write_dds`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DdsKind {
    /// One 2D surface.
    Texture2D,
    /// Six faces, +X, −X, +Y, −Y, +Z, −Z.
    Cube,
    /// `n` 2D slices.
    Array(u32),
    /// `n` cubes, 6·n faces.
    CubeArray(u32),
    /// A 3D texture of [`DdsInfo::depth`] slices, stored as one surface.
    Volume,
}

impl DdsKind {
    /// How many surfaces [`write_dds`] expects (`surfaces.len()`), `None`
    /// on overflow.
    pub fn surfaces(self) -> Option<u32> {
        match self {
            DdsKind::Texture2D | DdsKind::Volume => Some(1),
            DdsKind::Cube => Some(6),
            DdsKind::Array(n) => Some(n),
            DdsKind::CubeArray(n) => n.checked_mul(6),
        }
    }
}

/// What [`write_dds`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdsInfo {
    /// Pixel format of every surface.
    pub format: PixelFormat,
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0.
    pub height: u32,
    /// Slices of mip 0 for [`DdsKind::Volume`]; 1 otherwise.
    pub depth: u32,
    /// 2D, cube, array, cube array or volume.
    pub kind: DdsKind,
    /// Mips per surface (at least 1).
    pub mips: u32,
}

// DDS_HEADER.dwFlags
const DDSD_CAPS: u32 = 0x1;
const DDSD_HEIGHT: u32 = 0x2;
const DDSD_WIDTH: u32 = 0x4;
const DDSD_PITCH: u32 = 0x8;
const DDSD_PIXELFORMAT: u32 = 0x1000;
const DDSD_MIPMAPCOUNT: u32 = 0x20000;
const DDSD_LINEARSIZE: u32 = 0x80000;
const DDSD_DEPTH: u32 = 0x80_0000;
// DDS_PIXELFORMAT.dwFlags
const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;
const DDPF_LUMINANCE: u32 = 0x2_0000;
// dwCaps / dwCaps2
const DDSCAPS_COMPLEX: u32 = 0x8;
const DDSCAPS_TEXTURE: u32 = 0x1000;
const DDSCAPS_MIPMAP: u32 = 0x40_0000;
const DDSCAPS2_CUBEMAP_ALLFACES: u32 = 0x200 | 0xFC00;
const DDSCAPS2_VOLUME: u32 = 0x20_0000;
// DDS_HEADER_DXT10
const DIMENSION_TEXTURE2D: u32 = 3;
const DIMENSION_TEXTURE3D: u32 = 4;
const MISC_TEXTURECUBE: u32 = 0x4;

/// How a format is named in the header: a legacy pixel format
/// (flags, FourCC, bits, R/G/B/A masks) and its DXGI format, either of
/// which may be missing.
struct Names {
    legacy: Option<[u32; 7]>,
    dxgi: Option<u32>,
}

fn fourcc(s: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*s)
}

fn names(format: PixelFormat) -> Names {
    use PixelFormat::*;
    let fcc = |s: &[u8; 4]| Some([DDPF_FOURCC, fourcc(s), 0, 0, 0, 0, 0]);
    let (legacy, dxgi) = match format {
        Dxt1 => (fcc(b"DXT1"), Some(71)), // BC1_UNORM
        Dxt3 => (fcc(b"DXT3"), Some(74)), // BC2_UNORM
        Dxt5 => (fcc(b"DXT5"), Some(77)), // BC3_UNORM
        Bc4 => (fcc(b"ATI1"), Some(80)),  // BC4_UNORM
        Bc5 => (fcc(b"ATI2"), Some(83)),  // BC5_UNORM
        Bc6h => (None, Some(95)),         // BC6H_UF16
        Bc7 => (None, Some(98)),          // BC7_UNORM
        B8G8R8A8 => (
            Some([
                DDPF_RGB | DDPF_ALPHAPIXELS,
                0,
                32,
                0xFF_0000,
                0xFF00,
                0xFF,
                0xFF00_0000,
            ]),
            Some(87), // B8G8R8A8_UNORM
        ),
        R8G8B8A8 => (
            Some([
                DDPF_RGB | DDPF_ALPHAPIXELS,
                0,
                32,
                0xFF,
                0xFF00,
                0xFF_0000,
                0xFF00_0000,
            ]),
            Some(28), // R8G8B8A8_UNORM
        ),
        G8 => (Some([DDPF_LUMINANCE, 0, 8, 0xFF, 0, 0, 0]), Some(61)), // R8_UNORM
        G16 => (Some([DDPF_LUMINANCE, 0, 16, 0xFFFF, 0, 0, 0]), Some(56)), // R16_UNORM
        A16B16G16R16 => (None, Some(11)),                              // R16G16B16A16_UNORM
        R16F => (None, Some(54)),                                      // R16_FLOAT
        R32F => (None, Some(41)),                                      // R32_FLOAT
        FloatRGBA => (None, Some(10)),                                 // R16G16B16A16_FLOAT
        A32B32G32R32F => (None, Some(2)),                              // R32G32B32A32_FLOAT
        Astc { .. } | Etc1 | Etc2Rgb | Etc2Rgba | Etc2R11Eac | Etc2Rg11Eac => (None, None),
    };
    Names { legacy, dxgi }
}

fn mip_dim(d: u32, m: u32) -> u32 {
    d.checked_shr(m).unwrap_or(0).max(1)
}

/// Checks `info` against `surfaces` and returns the bytes each mip needs.
fn check(info: &DdsInfo, surfaces: &[Vec<&[u8]>]) -> Result<Vec<u64>, Error> {
    let dims = |why| Error::Dimensions {
        width: info.width,
        height: info.height,
        depth: info.depth,
        why,
    };
    if !info.format.is_valid() {
        return Err(Error::Unsupported {
            format: info.format,
            what: "this ASTC footprint",
        });
    }
    if info.width == 0 || info.height == 0 || info.depth == 0 {
        return Err(dims("zero dimension"));
    }
    if info.kind != DdsKind::Volume && info.depth != 1 {
        return Err(dims("depth must be 1 unless the texture is a volume"));
    }
    if matches!(info.kind, DdsKind::Cube | DdsKind::CubeArray(_)) && info.width != info.height {
        return Err(dims("cube faces must be square"));
    }
    if info.mips == 0 || info.mips > 32 {
        return Err(Error::Mismatch(format!(
            "DDS: {} mips (1 to 32 allowed)",
            info.mips
        )));
    }
    let want =
        info.kind.surfaces().filter(|&n| n > 0).ok_or_else(|| {
            Error::Mismatch(format!("DDS: bad surface count for {:?}", info.kind))
        })?;
    if surfaces.len() as u64 != u64::from(want) {
        return Err(Error::Mismatch(format!(
            "DDS {:?}: expected {want} surfaces, got {}",
            info.kind,
            surfaces.len()
        )));
    }
    let mut sizes = Vec::with_capacity(info.mips as usize);
    for m in 0..info.mips {
        let (w, h) = (mip_dim(info.width, m), mip_dim(info.height, m));
        let d = if info.kind == DdsKind::Volume {
            mip_dim(info.depth, m)
        } else {
            1
        };
        let size = info
            .format
            .slice_size(w, h)
            .and_then(|s| s.checked_mul(u64::from(d)))
            .ok_or_else(|| dims("mip size overflows"))?;
        sizes.push(size);
    }
    for (s, mips) in surfaces.iter().enumerate() {
        if mips.len() as u64 != u64::from(info.mips) {
            return Err(Error::Mismatch(format!(
                "DDS: surface {s} has {} mips, expected {}",
                mips.len(),
                info.mips
            )));
        }
        for (m, data) in mips.iter().enumerate() {
            if (data.len() as u64) < sizes[m] {
                return Err(Error::Mismatch(format!(
                    "DDS: surface {s} mip {m} ({}x{}) has {} bytes, expected {}",
                    mip_dim(info.width, m as u32),
                    mip_dim(info.height, m as u32),
                    data.len(),
                    sizes[m]
                )));
            }
        }
    }
    Ok(sizes)
}

/// Builds the header bytes (magic, `DDS_HEADER`, optional `DDS_HEADER_DXT10`).
fn header(info: &DdsInfo, top_size: u64) -> Result<Vec<u8>, Error> {
    let names = names(info.format);
    let array = matches!(info.kind, DdsKind::Array(_) | DdsKind::CubeArray(_));
    let use_dx10 = names.legacy.is_none() || array;
    let unsupported = || Error::Unsupported {
        format: info.format,
        what: "DDS output (no DXGI format; DDS readers do not take ASTC or ETC)",
    };
    let dxgi = names.dxgi.ok_or_else(unsupported)?;
    let compressed = info.format.is_compressed();
    let mut flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT | DDSD_MIPMAPCOUNT;
    let pitch = if compressed {
        flags |= DDSD_LINEARSIZE;
        u32::try_from(top_size).unwrap_or(0)
    } else {
        flags |= DDSD_PITCH;
        info.width.saturating_mul(info.format.block().2)
    };
    let mut caps = DDSCAPS_TEXTURE;
    if info.mips > 1 {
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP;
    }
    let mut caps2 = 0;
    match info.kind {
        DdsKind::Cube | DdsKind::CubeArray(_) => {
            caps |= DDSCAPS_COMPLEX;
            caps2 |= DDSCAPS2_CUBEMAP_ALLFACES;
        }
        DdsKind::Volume => {
            caps |= DDSCAPS_COMPLEX;
            caps2 |= DDSCAPS2_VOLUME;
            flags |= DDSD_DEPTH;
        }
        DdsKind::Array(_) | DdsKind::Texture2D => {}
    }
    let pf = if use_dx10 {
        [DDPF_FOURCC, fourcc(b"DX10"), 0, 0, 0, 0, 0]
    } else {
        names.legacy.unwrap_or_default()
    };
    let mut words: Vec<u32> = vec![124, flags, info.height, info.width, pitch, info.depth];
    words.push(info.mips);
    words.extend([0u32; 11]);
    words.push(32);
    words.extend(pf);
    words.extend([caps, caps2, 0, 0, 0]);
    if use_dx10 {
        let (dim, misc, size) = match info.kind {
            DdsKind::Texture2D => (DIMENSION_TEXTURE2D, 0, 1),
            DdsKind::Array(n) => (DIMENSION_TEXTURE2D, 0, n),
            DdsKind::Cube => (DIMENSION_TEXTURE2D, MISC_TEXTURECUBE, 1),
            DdsKind::CubeArray(n) => (DIMENSION_TEXTURE2D, MISC_TEXTURECUBE, n),
            DdsKind::Volume => (DIMENSION_TEXTURE3D, 0, 1),
        };
        words.extend([dxgi, dim, misc, size, 0]);
    }
    let mut out = Vec::with_capacity(4 + words.len() * 4);
    out.extend_from_slice(b"DDS ");
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    Ok(out)
}

/// Writes a DDS file: header, then `surfaces[s][m]` (bytes of mip `m` of
/// surface `s`) in DDS order. Each mip must hold at least the bytes its
/// size needs ([`PixelFormat::slice_size`], times the slices of a volume
/// mip); only those are written.
///
/// Errors before writing anything: zero dimensions, non-square cube faces,
/// 0 or more than 32 mips, a surface count that does not match
/// [`DdsInfo::kind`], short mip data, or a format with no DDS name (ASTC,
/// ETC).
pub fn write_dds(
    info: &DdsInfo,
    surfaces: &[Vec<&[u8]>],
    out: &mut impl Write,
) -> Result<(), Error> {
    let sizes = check(info, surfaces)?;
    let head = header(info, sizes[0])?;
    out.write_all(&head)?;
    for mips in surfaces {
        for (m, data) in mips.iter().enumerate() {
            out.write_all(&data[..sizes[m] as usize])?;
        }
    }
    Ok(())
}
