//! Textures and palettes (`classic.md` §3.7–3.8): mipmaps, the per-game
//! format tables, pixel decoding (P8, BGRA8, RGB8, R5G6B5, DXT1/3/5, L8,
//! G16) and PNG encoding.
//!
//! `UTexture` data = tagged properties, `TArray<FMipmap> Mips`, and in UE1
//! when `bHasComp` is set a second `TArray<FMipmap> CompMips` whose format is
//! the `CompFormat` property (UEViewer `UnTexture2.cpp`). `FMipmap` =
//! `TLazyArray<u8>` + `i32 USize, VSize` + `u8 UBits, VBits`.
//!
//! The `Format` numbers differ per game. The tables here were read from the
//! `ETextureFormat` enums inside the corpus's own `Engine.u` files:
//! UT99 (`TEXF_P8, RGB32, RGB64, DXT1, RGB24`, numbered like UT v432's C++
//! `P8, RGBA7, RGB16, DXT1, RGB8, RGBA8`), UT v469 (same numbering as Unreal
//! 227: `P8, BGRA8_LM, R5G6B5, BC1, RGB8, BGRA8, BC2, BC3, BC4, …`) and
//! UT2004 (`P8, RGBA7, RGB16, DXT1, RGB8, RGBA8, NODATA, DXT3, DXT5, L8,
//! G16, RRRGGGBBB`).

use pakrat_io::{Error, Reader, Result};
use serde::Serialize;

use crate::package::{ObjRef, Package, Target};
use crate::props::{read_object, ObjectData, Value};

/// Pixel layouts pakrat can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PixelFormat {
    /// 8-bit palette indices.
    P8,
    /// UE1 7-bit RGBA (never stored in files).
    Rgba7,
    /// 16-bit 5:6:5 colour.
    Rgb565,
    /// DXT1 / BC1.
    Dxt1,
    /// 24-bit colour, bytes B, G, R.
    Rgb8,
    /// 32-bit colour, bytes B, G, R, A.
    Bgra8,
    /// 227/469 light-map BGRA (not decoded).
    Bgra8Lm,
    /// No data.
    NoData,
    /// DXT3 / BC2.
    Dxt3,
    /// DXT5 / BC3.
    Dxt5,
    /// 8-bit luminance.
    L8,
    /// 16-bit grey (terrain height maps).
    G16,
    /// UT2004 RRRGGGBBB (not decoded).
    Rrrgggbbb,
    /// A format pakrat does not decode (name from the game's enum).
    Other(&'static str),
}

/// A game's `ETextureFormat` numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FormatTable {
    /// Which game/engine build the numbering comes from.
    pub name: &'static str,
    formats: &'static [PixelFormat],
}

use PixelFormat as F;

/// UT99 / Unreal (UT v432): 0–5 only.
pub const TABLE_UT432: FormatTable = FormatTable {
    name: "UE1 (Unreal/UT99, UT v432 numbering)",
    formats: &[F::P8, F::Rgba7, F::Rgb565, F::Dxt1, F::Rgb8, F::Bgra8],
};

/// Unreal 227 / UT v469 (the first 15 values of their enum).
pub const TABLE_227: FormatTable = FormatTable {
    name: "UE1 (Unreal 227 / UT v469 numbering)",
    formats: &[
        F::P8,
        F::Bgra8Lm,
        F::Rgb565,
        F::Dxt1,
        F::Rgb8,
        F::Bgra8,
        F::Dxt3,
        F::Dxt5,
        F::Other("BC4"),
        F::Other("BC4_S"),
        F::Other("BC5"),
        F::Other("BC5_S"),
        F::Other("BC7"),
        F::Other("BC6H_S"),
        F::Other("BC6H"),
    ],
};

/// UT2003 / UT2004 and other UE2 builds.
pub const TABLE_UE2: FormatTable = FormatTable {
    name: "UE2 (UT2003/UT2004 numbering)",
    formats: &[
        F::P8,
        F::Rgba7,
        F::Rgb565,
        F::Dxt1,
        F::Rgb8,
        F::Bgra8,
        F::NoData,
        F::Dxt3,
        F::Dxt5,
        F::L8,
        F::G16,
        F::Rrrgggbbb,
    ],
};

impl FormatTable {
    /// The table for a package: UE2 numbering from version 100; UE1 uses the
    /// UT v432 numbering, and the 227/v469 one for values above 5 (which
    /// only those builds define).
    pub fn for_package(pkg: &Package<'_>, format: u8) -> FormatTable {
        if pkg.summary.version >= 100 {
            TABLE_UE2
        } else if usize::from(format) < TABLE_UT432.formats.len() {
            TABLE_UT432
        } else {
            TABLE_227
        }
    }

    /// The pixel format of value `n`, if the table defines it.
    pub fn get(&self, n: u8) -> Option<PixelFormat> {
        self.formats.get(usize::from(n)).copied()
    }
}

/// One mip level.
#[derive(Clone, Debug)]
pub struct Mip<'a> {
    /// Pixel data.
    pub data: &'a [u8],
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// log2 width.
    pub ubits: u8,
    /// log2 height.
    pub vbits: u8,
}

/// A texture's decoded fields.
#[derive(Clone, Debug)]
pub struct Texture<'a> {
    /// Its properties and native data.
    pub object: ObjectData<'a>,
    /// `Format` property (0 = P8 when absent).
    pub format: u8,
    /// `USize`/`VSize` properties.
    pub size: (u32, u32),
    /// `Palette` property.
    pub palette: ObjRef,
    /// `bMasked`.
    pub masked: bool,
    /// `bAlphaTexture` (UE2).
    pub alpha: bool,
    /// Mipmaps.
    pub mips: Vec<Mip<'a>>,
    /// UE1 `bHasComp`: compressed mips and their `CompFormat`.
    pub comp: Option<(u8, Vec<Mip<'a>>)>,
}

/// Read a `TLazyArray<u8>` (`classic.md` §3.7): from version 62 an `i32`
/// absolute end offset precedes the compact count; checked against the data.
pub fn read_lazy_bytes<'a>(r: &mut Reader<'a>, version: u16, what: &str) -> Result<&'a [u8]> {
    let skip = if version > 61 {
        Some((r.offset(), r.i32(&format!("{what} skip offset"))?))
    } else {
        None
    };
    let n = r.compact_count(&format!("{what} size"), 1)?;
    let data = r.bytes(n as u64, what)?;
    if let Some((at, skip)) = skip {
        if i64::from(skip) != r.offset() as i64 {
            return Err(Error::invalid(
                at,
                format!(
                    "{what}: lazy-array end offset {skip:#x} does not match the end of its data ({:#x})",
                    r.offset()
                ),
            ));
        }
    }
    Ok(data)
}

/// Whether each mip starts with the Vengeance header: SWAT 4 and Tribes:
/// Vengeance from licensee 0x1A (UEViewer `FMipmap`, `TRIBES_HDR(Ar, 0x1A)`).
fn mip_header(version: u16, licensee: u16) -> bool {
    crate::summary::vengeance_header(version, licensee) && licensee >= 0x1A
}

/// The Vengeance header of one mip: an i32 3 then version and sub-version
/// i32s, or 4 then the sub-version; sub-version 1 adds a lazy array that is
/// skipped (UEViewer `FMipmap` under `TRIBES3`).
fn skip_mip_header(r: &mut Reader<'_>, version: u16) -> Result<()> {
    let at = r.offset();
    let sub = match r.i32("mip header kind")? {
        3 => {
            r.i32("mip header version")?;
            r.i32("mip header sub-version")?
        }
        4 => r.i32("mip header sub-version")?,
        k => {
            return Err(Error::invalid(
                at,
                format!("mip header: expected kind 3 or 4 (Vengeance header), found {k}"),
            ))
        }
    };
    if sub == 1 {
        read_lazy_bytes(r, version, "mip header's skipped array")?;
    }
    Ok(())
}

fn read_mips<'a>(
    r: &mut Reader<'a>,
    (version, licensee): (u16, u16),
    what: &str,
) -> Result<Vec<Mip<'a>>> {
    // A mip is at least skip(4) + count(1) + 4 + 4 + 1 + 1 bytes.
    let n = r.compact_count(&format!("{what} count"), if version > 61 { 15 } else { 11 })?;
    let header = mip_header(version, licensee);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        if header {
            skip_mip_header(r, version)?;
        }
        let data = read_lazy_bytes(r, version, "mip data")?;
        let at = r.offset();
        let w = r.i32("mip USize")?;
        let h = r.i32("mip VSize")?;
        if w < 0 || h < 0 {
            return Err(Error::invalid(at, format!("mip size {w}x{h} is negative")));
        }
        out.push(Mip {
            data,
            width: w as u32,
            height: h as u32,
            ubits: r.u8("mip UBits")?,
            vbits: r.u8("mip VBits")?,
        });
    }
    Ok(out)
}

fn int_prop(o: &ObjectData<'_>, pkg: &Package<'_>, name: &str) -> Option<i64> {
    match &o.get(pkg, name)?.value {
        Value::Byte(b) => Some(i64::from(*b)),
        Value::Int(i) => Some(i64::from(*i)),
        _ => None,
    }
}

fn bool_prop(o: &ObjectData<'_>, pkg: &Package<'_>, name: &str) -> bool {
    matches!(o.get(pkg, name).map(|p| &p.value), Some(Value::Bool(true)))
}

/// Read `exports[i]` as a texture.
pub fn read_texture<'a>(pkg: &Package<'a>, i: usize) -> Result<Texture<'a>> {
    let mut object = read_object(pkg, i)?;
    let version = pkg.summary.version;
    let format = int_prop(&object, pkg, "Format").unwrap_or(0) as u8;
    let size = (
        int_prop(&object, pkg, "USize").unwrap_or(0) as u32,
        int_prop(&object, pkg, "VSize").unwrap_or(0) as u32,
    );
    let palette = match object.get(pkg, "Palette").map(|p| &p.value) {
        Some(Value::Object(r)) => *r,
        _ => ObjRef::NONE,
    };
    let masked = bool_prop(&object, pkg, "bMasked");
    let alpha = bool_prop(&object, pkg, "bAlphaTexture");
    // CompMips exist only before v84 (UELib `CompMipsDeprecated`).
    let has_comp = version < 84 && bool_prop(&object, pkg, "bHasComp");
    let comp_format = int_prop(&object, pkg, "CompFormat").unwrap_or(0) as u8;
    let mut r = object.native.clone();
    let vl = (version, pkg.summary.licensee);
    let mips = read_mips(&mut r, vl, "mip")?;
    let comp = if has_comp {
        Some((comp_format, read_mips(&mut r, vl, "compressed mip")?))
    } else {
        None
    };
    object.native = r;
    Ok(Texture {
        object,
        format,
        size,
        palette,
        masked,
        alpha,
        mips,
        comp,
    })
}

/// Read a `Palette` export: its 256 (R, G, B, A) colours.
pub fn read_palette(pkg: &Package<'_>, i: usize) -> Result<Vec<[u8; 4]>> {
    let o = read_object(pkg, i)?;
    let mut r = o.native;
    let n = r.compact_count("palette colour count", 4)?;
    (0..n).map(|_| r.array("palette colour")).collect()
}

/// A decoded image ready for PNG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pixels {
    /// Palette indices with an RGB palette and per-entry alpha.
    Indexed {
        /// Indices, one byte per pixel.
        data: Vec<u8>,
        /// RGB triples.
        palette: Vec<u8>,
        /// Alpha per palette entry (empty = opaque).
        trns: Vec<u8>,
    },
    /// 8-bit RGBA.
    Rgba(Vec<u8>),
    /// 8-bit grey.
    Gray8(Vec<u8>),
    /// 16-bit grey (native-endian values).
    Gray16(Vec<u16>),
}

/// An image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The pixels.
    pub pixels: Pixels,
}

impl Image {
    /// Encode as PNG.
    pub fn to_png(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let err = |e: png::EncodingError| Error::Other(format!("PNG encoding failed: {e}"));
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        let be16: Vec<u8>;
        let data: &[u8] = match &self.pixels {
            Pixels::Indexed {
                data,
                palette,
                trns,
            } => {
                enc.set_color(png::ColorType::Indexed);
                enc.set_depth(png::BitDepth::Eight);
                enc.set_palette(palette.clone());
                if !trns.is_empty() {
                    enc.set_trns(trns.clone());
                }
                data
            }
            Pixels::Rgba(d) => {
                enc.set_color(png::ColorType::Rgba);
                enc.set_depth(png::BitDepth::Eight);
                d
            }
            Pixels::Gray8(d) => {
                enc.set_color(png::ColorType::Grayscale);
                enc.set_depth(png::BitDepth::Eight);
                d
            }
            Pixels::Gray16(d) => {
                enc.set_color(png::ColorType::Grayscale);
                enc.set_depth(png::BitDepth::Sixteen);
                be16 = d.iter().flat_map(|v| v.to_be_bytes()).collect();
                &be16
            }
        };
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(data).map_err(err)?;
        w.finish().map_err(err)?;
        Ok(out)
    }
}

/// Bytes a mip of `w`×`h` needs in `format` (`None` when not decodable).
pub fn mip_bytes(format: PixelFormat, w: u32, h: u32) -> Option<u64> {
    let (w, h) = (u64::from(w), u64::from(h));
    let blocks = w.div_ceil(4).max(1) * h.div_ceil(4).max(1);
    Some(match format {
        F::P8 | F::L8 => w * h,
        F::Rgb565 | F::G16 => 2 * w * h,
        F::Rgb8 => 3 * w * h,
        F::Bgra8 => 4 * w * h,
        F::Dxt1 => 8 * blocks,
        F::Dxt3 | F::Dxt5 => 16 * blocks,
        _ => return None,
    })
}

/// Decode one mip. `palette` (RGBA entries) is needed for P8; `masked`
/// makes palette index 0 transparent; `palette_alpha` keeps the palette's
/// own alpha (UE2 alpha textures) instead of opaque.
pub fn decode_mip(
    mip: &Mip<'_>,
    format: PixelFormat,
    palette: Option<&[[u8; 4]]>,
    masked: bool,
    palette_alpha: bool,
) -> Result<Image> {
    let (w, h) = (mip.width, mip.height);
    let need = mip_bytes(format, w, h)
        .ok_or_else(|| Error::Other(format!("texture format {format:?} is not decoded")))?;
    if (mip.data.len() as u64) < need {
        return Err(Error::Other(format!(
            "{w}x{h} {format:?} mip needs {need} bytes but holds {}",
            mip.data.len()
        )));
    }
    let n = (w as usize) * (h as usize);
    let d = mip.data;
    let pixels = match format {
        F::P8 => {
            let pal = palette.ok_or_else(|| {
                Error::Other("P8 texture without a palette in this package".into())
            })?;
            let mut rgb = Vec::with_capacity(pal.len() * 3);
            let mut trns = Vec::with_capacity(pal.len());
            for (k, c) in pal.iter().enumerate() {
                rgb.extend_from_slice(&c[..3]);
                trns.push(if masked && k == 0 {
                    0
                } else if palette_alpha {
                    c[3]
                } else {
                    255
                });
            }
            if pal.len() < 256 && d[..n].iter().any(|&i| usize::from(i) >= pal.len()) {
                return Err(Error::Other(format!(
                    "P8 data uses an index beyond the {}-colour palette",
                    pal.len()
                )));
            }
            // Drop a fully opaque tRNS chunk.
            if trns.iter().all(|&a| a == 255) {
                trns.clear();
            }
            Pixels::Indexed {
                data: d[..n].to_vec(),
                palette: rgb,
                trns,
            }
        }
        F::L8 => Pixels::Gray8(d[..n].to_vec()),
        F::G16 => Pixels::Gray16(
            d[..2 * n]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
        ),
        F::Bgra8 => Pixels::Rgba(
            d[..4 * n]
                .chunks_exact(4)
                .flat_map(|c| [c[2], c[1], c[0], c[3]])
                .collect(),
        ),
        F::Rgb8 => Pixels::Rgba(
            d[..3 * n]
                .chunks_exact(3)
                .flat_map(|c| [c[2], c[1], c[0], 255])
                .collect(),
        ),
        F::Rgb565 => Pixels::Rgba(
            d[..2 * n]
                .chunks_exact(2)
                .flat_map(|c| {
                    let [r, g, b] = rgb565(u16::from_le_bytes([c[0], c[1]]));
                    [r, g, b, 255]
                })
                .collect(),
        ),
        F::Dxt1 | F::Dxt3 | F::Dxt5 => Pixels::Rgba(decode_dxt(d, w, h, format)),
        _ => unreachable_format(format)?,
    };
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}

fn unreachable_format(format: PixelFormat) -> Result<Pixels> {
    Err(Error::Other(format!(
        "texture format {format:?} is not decoded"
    )))
}

fn rgb565(v: u16) -> [u8; 3] {
    let r = ((v >> 11) & 31) as u8;
    let g = ((v >> 5) & 63) as u8;
    let b = (v & 31) as u8;
    [
        (r << 3) | (r >> 2),
        (g << 2) | (g >> 4),
        (b << 3) | (b >> 2),
    ]
}

/// Decode DXT1/3/5 blocks into RGBA (caller checked the length).
fn decode_dxt(d: &[u8], w: u32, h: u32, format: PixelFormat) -> Vec<u8> {
    let (w, h) = (w as usize, h as usize);
    let bw = w.div_ceil(4).max(1);
    let bh = h.div_ceil(4).max(1);
    let bsize = if format == F::Dxt1 { 8 } else { 16 };
    let mut out = vec![0u8; w * h * 4];
    for by in 0..bh {
        for bx in 0..bw {
            let off = (by * bw + bx) * bsize;
            let Some(block) = d.get(off..off + bsize) else {
                continue;
            };
            let mut px = [[0u8; 4]; 16];
            let color = if format == F::Dxt1 {
                block
            } else {
                &block[8..]
            };
            let c0 = u16::from_le_bytes([color[0], color[1]]);
            let c1 = u16::from_le_bytes([color[2], color[3]]);
            let a = rgb565(c0);
            let b = rgb565(c1);
            let mut pal = [
                [a[0], a[1], a[2], 255],
                [b[0], b[1], b[2], 255],
                [0; 4],
                [0; 4],
            ];
            let mix = |x: u8, y: u8, wx: u16, wy: u16| {
                ((u16::from(x) * wx + u16::from(y) * wy) / (wx + wy)) as u8
            };
            if c0 > c1 || format != F::Dxt1 {
                for k in 0..3 {
                    pal[2][k] = mix(a[k], b[k], 2, 1);
                    pal[3][k] = mix(a[k], b[k], 1, 2);
                }
                pal[2][3] = 255;
                pal[3][3] = 255;
            } else {
                for k in 0..3 {
                    pal[2][k] = mix(a[k], b[k], 1, 1);
                }
                pal[2][3] = 255;
                pal[3] = [0, 0, 0, 0];
            }
            let idx = u32::from_le_bytes([color[4], color[5], color[6], color[7]]);
            for (k, p) in px.iter_mut().enumerate() {
                *p = pal[((idx >> (2 * k)) & 3) as usize];
            }
            match format {
                F::Dxt3 => {
                    let bits = u64::from_le_bytes(block[..8].try_into().unwrap_or([0; 8]));
                    for (k, p) in px.iter_mut().enumerate() {
                        let a4 = ((bits >> (4 * k)) & 15) as u8;
                        p[3] = (a4 << 4) | a4;
                    }
                }
                F::Dxt5 => {
                    let (a0, a1) = (u16::from(block[0]), u16::from(block[1]));
                    let mut alpha = [0u8; 8];
                    alpha[0] = a0 as u8;
                    alpha[1] = a1 as u8;
                    if a0 > a1 {
                        for k in 1..7u16 {
                            alpha[k as usize + 1] = (((7 - k) * a0 + k * a1) / 7) as u8;
                        }
                    } else {
                        for k in 1..5u16 {
                            alpha[k as usize + 1] = (((5 - k) * a0 + k * a1) / 5) as u8;
                        }
                        alpha[6] = 0;
                        alpha[7] = 255;
                    }
                    let mut bits = 0u64;
                    for (k, &b) in block[2..8].iter().enumerate() {
                        bits |= u64::from(b) << (8 * k);
                    }
                    for (k, p) in px.iter_mut().enumerate() {
                        p[3] = alpha[((bits >> (3 * k)) & 7) as usize];
                    }
                }
                _ => {}
            }
            for (k, p) in px.iter().enumerate() {
                let x = bx * 4 + k % 4;
                let y = by * 4 + k / 4;
                if x < w && y < h {
                    let o = (y * w + x) * 4;
                    out[o..o + 4].copy_from_slice(p);
                }
            }
        }
    }
    out
}

/// Find the palette of a texture: an export of this package (`None` when the
/// reference is an import or empty).
pub fn palette_export(pkg: &Package<'_>, r: ObjRef) -> Option<usize> {
    match r.target() {
        Target::Export(i) if i < pkg.exports.len() => Some(i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SWAT 4 mips (v129/lic27) as UEViewer's `FMipmap` reads them: the
    /// Vengeance header before each, sub-version 1 adding a skipped lazy
    /// array. Built from that layout (the corpus has no SWAT 4 texture).
    #[test]
    fn swat4_mips_skip_the_vengeance_header() {
        fn lazy(b: &mut Vec<u8>, data: &[u8]) {
            let end = b.len() + 4 + 1 + data.len();
            b.extend_from_slice(&(end as i32).to_le_bytes());
            b.push(data.len() as u8);
            b.extend_from_slice(data);
        }
        let mut b = vec![2u8];
        for i in [3i32, 0, 1] {
            b.extend_from_slice(&i.to_le_bytes());
        }
        lazy(&mut b, &[0xEE; 3]); // sub-version 1: skipped
        lazy(&mut b, &[1, 2, 3, 4]);
        b.extend_from_slice(&2i32.to_le_bytes());
        b.extend_from_slice(&2i32.to_le_bytes());
        b.extend_from_slice(&[1, 1]);
        for i in [4i32, 2] {
            b.extend_from_slice(&i.to_le_bytes());
        }
        lazy(&mut b, &[5]);
        b.extend_from_slice(&1i32.to_le_bytes());
        b.extend_from_slice(&1i32.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        let mips = read_mips(&mut Reader::new(&b), (129, 27), "mip").unwrap();
        assert_eq!(mips.len(), 2);
        assert_eq!((mips[0].data, mips[0].width), (&[1u8, 2, 3, 4][..], 2));
        assert_eq!((mips[1].data, mips[1].height), (&[5u8][..], 1));
        // Without the header (UT2004, lic 29) the same bytes do not read.
        let e = read_mips(&mut Reader::new(&b), (128, 29), "mip").unwrap_err();
        assert!(e.to_string().contains("lazy-array end offset"), "{e}");
        // A wrong kind is named with its offset.
        b[1] = 9;
        let e = read_mips(&mut Reader::new(&b), (129, 27), "mip").unwrap_err();
        assert!(e.to_string().contains("expected kind 3 or 4"), "{e}");
    }

    #[test]
    fn dxt1_block() {
        // c0 = white, c1 = black, all indices 0 except the last pixel (1).
        let block = [0xFF, 0xFF, 0, 0, 0, 0, 0, 0x40];
        let px = decode_dxt(&block, 4, 4, F::Dxt1);
        assert_eq!(&px[..4], &[255, 255, 255, 255]);
        assert_eq!(&px[60..64], &[0, 0, 0, 255]);
        // c0 <= c1: index 3 is transparent black
        let block = [0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0];
        let px = decode_dxt(&block, 4, 4, F::Dxt1);
        assert_eq!(&px[..4], &[0, 0, 0, 0]);
    }

    #[test]
    fn dxt5_alpha() {
        let mut block = [0u8; 16];
        block[0] = 255;
        block[1] = 0;
        // all alpha indices 1 -> a1 = 0
        block[2] = 0b0100_1001;
        block[3] = 0b1001_0010;
        block[4] = 0b0010_0100;
        let px = decode_dxt(&block, 4, 4, F::Dxt5);
        assert_eq!(px[3], 0);
        assert_eq!(px[4 * 15 + 3], 255); // index 0 -> a0
    }

    #[test]
    fn sizes_and_tables() {
        assert_eq!(mip_bytes(F::Dxt1, 256, 256), Some(32768));
        assert_eq!(mip_bytes(F::Dxt1, 1, 1), Some(8));
        assert_eq!(mip_bytes(F::Dxt5, 2, 2), Some(16));
        assert_eq!(TABLE_UE2.get(10), Some(F::G16));
        assert_eq!(TABLE_227.get(7), Some(F::Dxt5));
        assert_eq!(TABLE_UT432.get(7), None);
    }

    #[test]
    fn uncompressed_formats() {
        let mip = |data: &'static [u8], w, h| Mip {
            data,
            width: w,
            height: h,
            ubits: 0,
            vbits: 0,
        };
        let img = decode_mip(
            &mip(&[1, 2, 3, 4, 5, 6, 7, 8], 2, 1),
            F::Bgra8,
            None,
            false,
            false,
        )
        .unwrap();
        assert_eq!(img.pixels, Pixels::Rgba(vec![3, 2, 1, 4, 7, 6, 5, 8]));
        let img = decode_mip(
            &mip(&[0x34, 0x12, 0xFF, 0xFF], 2, 1),
            F::G16,
            None,
            false,
            false,
        )
        .unwrap();
        assert_eq!(img.pixels, Pixels::Gray16(vec![0x1234, 0xFFFF]));
        let img = decode_mip(&mip(&[9, 8], 1, 2), F::L8, None, false, false).unwrap();
        assert_eq!(img.pixels, Pixels::Gray8(vec![9, 8]));
        let img = decode_mip(&mip(&[0x00, 0xF8], 1, 1), F::Rgb565, None, false, false).unwrap();
        assert_eq!(img.pixels, Pixels::Rgba(vec![255, 0, 0, 255]));
        // P8: masked makes index 0 transparent; palette alpha ignored unless asked.
        let pal = [[10, 20, 30, 0], [40, 50, 60, 0]];
        let img = decode_mip(&mip(&[0, 1], 2, 1), F::P8, Some(&pal), true, false).unwrap();
        assert_eq!(
            img.pixels,
            Pixels::Indexed {
                data: vec![0, 1],
                palette: vec![10, 20, 30, 40, 50, 60],
                trns: vec![0, 255],
            }
        );
        let img = decode_mip(&mip(&[0, 1], 2, 1), F::P8, Some(&pal), false, false).unwrap();
        assert!(matches!(img.pixels, Pixels::Indexed { ref trns, .. } if trns.is_empty()));
        // index beyond a short palette, missing palette, short data: errors
        assert!(decode_mip(&mip(&[0, 2], 2, 1), F::P8, Some(&pal), false, false).is_err());
        assert!(decode_mip(&mip(&[0, 1], 2, 1), F::P8, None, false, false).is_err());
        assert!(decode_mip(&mip(&[0; 7], 2, 1), F::Bgra8, None, false, false).is_err());
        assert!(decode_mip(&mip(&[0; 8], 2, 1), F::Other("BC7"), None, false, false).is_err());
    }

    #[test]
    fn png_round_trip_dims() {
        let img = Image {
            width: 2,
            height: 1,
            pixels: Pixels::Gray16(vec![1, 65535]),
        };
        let png = img.to_png().unwrap();
        assert_eq!(&png[1..4], b"PNG");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 2);
    }
}
