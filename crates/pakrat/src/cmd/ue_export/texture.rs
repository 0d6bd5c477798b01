//! One UE4/UE5 texture to files: decoded to PNG/EXR (one file per face or
//! slice, or one laid-out image), or undecoded to DDS with every mip.

use std::borrow::Cow;
use std::io::Write;

use pakrat_asset::props::{BulkFrom, Opened};
use pakrat_asset::texture::{Mip, Texture, TextureKind};
use pakrat_io::fsutil::OutputDir;
use pakrat_texture::{DdsInfo, DdsKind, DecodeOptions, Image, Layout, PixelFormat};
use serde::Serialize;

use crate::args_export::{FaceLayout, ImageFormat};

/// What `export` was asked for.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Forced file format.
    pub format: Option<ImageFormat>,
    /// Mip to export (PNG/EXR).
    pub mip: usize,
    /// One image of all faces/slices.
    pub layout: Option<FaceLayout>,
}

/// One file written.
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// Path below the output folder.
    pub file: String,
    /// Image width (0 for a sound: not written to JSON).
    #[serde(skip_serializing_if = "is_zero")]
    pub width: u32,
    /// Image height (0 for a sound: not written to JSON).
    #[serde(skip_serializing_if = "is_zero")]
    pub height: u32,
    /// What it holds (`mip 0`, `face +X of mip 0`, `10 mips`).
    pub detail: String,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// A texture's or sound's result.
#[derive(Debug)]
pub enum Outcome {
    /// Files written.
    Written(Vec<Written>),
    /// Nothing to write, and why.
    Skipped(String),
    /// It went wrong.
    Failed(String),
}

const FACES: [&str; 6] = ["PX", "NX", "PY", "NY", "PZ", "NZ"];

/// The name suffix of surface `i` of a texture of `kind`.
fn suffix(kind: TextureKind, i: u32) -> String {
    match kind {
        TextureKind::Cube => FACES[(i % 6) as usize].to_string(),
        TextureKind::CubeArray => format!("{}_{}", i / 6, FACES[(i % 6) as usize]),
        _ => i.to_string(),
    }
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Export texture `t` of `opened` as `base.<ext>` (and `base_<face>.<ext>`)
/// into `out`.
pub fn export(
    opened: &Opened,
    from: BulkFrom<'_>,
    t: &Texture,
    base: &str,
    out: &OutputDir,
    opts: Options,
) -> Outcome {
    let Some(pf) = PixelFormat::from_ue_name(&t.format) else {
        return Outcome::Skipped(format!("pixel format {} is not supported", t.format));
    };
    if t.mips.is_empty() {
        return match &t.virtual_texture {
            Some(vt) => virtual_texture(opened, from, t, vt, pf, base, out, opts),
            None => Outcome::Skipped("the texture has no mips".into()),
        };
    }
    if t.mips.iter().all(|m| m.data.is_none()) {
        return Outcome::Skipped(
            "the cook left the mip data out (bSerializeMipData false: a mip data provider holds it)"
                .into(),
        );
    }
    let res = match opts.format {
        Some(ImageFormat::Dds) => dds(opened, from, t, pf, base, out),
        f => {
            let exr = match f {
                Some(ImageFormat::Exr) => true,
                Some(_) => false,
                None => pf.is_hdr(),
            };
            decoded(opened, from, t, pf, base, out, opts, exr)
        }
    };
    match res {
        Ok(Some(w)) => Outcome::Written(w),
        Ok(None) => Outcome::Skipped(format!(
            "--mip {}: the texture has {} mips",
            opts.mip,
            t.mips.len()
        )),
        Err(e) => Outcome::Failed(e),
    }
}

/// A virtual texture's mip, its tiles assembled (PNG/EXR only).
#[allow(clippy::too_many_arguments)]
fn virtual_texture(
    opened: &Opened,
    from: BulkFrom<'_>,
    t: &Texture,
    vt: &pakrat_asset::texture::VirtualTexture,
    pf: PixelFormat,
    base: &str,
    out: &OutputDir,
    opts: Options,
) -> Outcome {
    if opts.format == Some(ImageFormat::Dds) {
        return Outcome::Skipped("virtual texture: DDS of its tiles is not written".into());
    }
    if opts.mip >= vt.mips as usize {
        return Outcome::Skipped(format!(
            "--mip {}: the texture has {} mips",
            opts.mip, vt.mips
        ));
    }
    let dopts = DecodeOptions {
        rebuild_normal_z: pf == PixelFormat::Bc5 || t.is_normal_map(),
        ..DecodeOptions::default()
    };
    let exr = match opts.format {
        Some(ImageFormat::Exr) => true,
        Some(_) => false,
        None => pf.is_hdr(),
    };
    let img = match super::vt::assemble(opened, from, vt, opts.mip, &dopts) {
        Ok(i) => i,
        Err(e) => return Outcome::Failed(format!("virtual texture: {e}")),
    };
    let file = format!("{base}.{}", if exr { "exr" } else { "png" });
    if let Err(e) = write_image(out, &file, &img, exr) {
        return Outcome::Failed(e);
    }
    Outcome::Written(vec![Written {
        file,
        width: img.width,
        height: img.height,
        detail: format!(
            "virtual texture mip {} of {}, {}x{} blocks of {} tiles, {}",
            opts.mip,
            vt.mips,
            vt.width_in_blocks,
            vt.height_in_blocks,
            vt.tile_size,
            pf.ue_name()
        ),
    }])
}

/// A mip's bytes, checked to hold its surfaces.
fn mip_bytes<'o>(
    opened: &'o Opened,
    from: BulkFrom<'_>,
    t: &Texture,
    pf: PixelFormat,
    m: &Mip,
) -> Result<(Cow<'o, [u8]>, u64, u32), String> {
    let r = m
        .data
        .as_ref()
        .ok_or("the cook left the mip data out (bSerializeMipData false)")?;
    let data = opened.bulk(r, from).map_err(err)?;
    let n = t.surfaces_of(m);
    let slice = pf
        .slice_size(m.width, m.height)
        .ok_or("mip size overflows")?;
    let need = slice.saturating_mul(u64::from(n));
    if (data.len() as u64) < need {
        return Err(format!(
            "mip {}x{}: {} bytes, {n} surfaces of {} need {need}",
            m.width,
            m.height,
            data.len(),
            pf.ue_name()
        ));
    }
    Ok((data, slice, n))
}

#[allow(clippy::too_many_arguments)]
fn decoded(
    opened: &Opened,
    from: BulkFrom<'_>,
    t: &Texture,
    pf: PixelFormat,
    base: &str,
    out: &OutputDir,
    opts: Options,
    exr: bool,
) -> Result<Option<Vec<Written>>, String> {
    let Some(m) = t.mips.get(opts.mip) else {
        return Ok(None);
    };
    let (data, slice, n) = mip_bytes(opened, from, t, pf, m)?;
    let dopts = DecodeOptions {
        rebuild_normal_z: pf == PixelFormat::Bc5 || t.is_normal_map(),
        ..DecodeOptions::default()
    };
    let ext = if exr { "exr" } else { "png" };
    let at = |i: u32| &data[(u64::from(i) * slice) as usize..][..slice as usize];
    let astc_normal = matches!(pf, PixelFormat::Astc { .. }) && t.is_normal_map();
    let decode = |i: u32| {
        let mut img = pakrat_texture::decode(pf, m.width, m.height, at(i), &dopts).map_err(err)?;
        if astc_normal {
            astc_normal_to_xyz(&mut img);
        }
        Ok::<Image, String>(img)
    };
    let mip = format!("mip {} of {}", opts.mip, t.mips.len());
    if n == 1 {
        let img = decode(0)?;
        let file = format!("{base}.{ext}");
        write_image(out, &file, &img, exr)?;
        return Ok(Some(vec![Written {
            file,
            width: img.width,
            height: img.height,
            detail: format!("{mip}, {}", pf.ue_name()),
        }]));
    }
    if let Some(l) = opts.layout {
        let images = (0..n).map(decode).collect::<Result<Vec<_>, _>>()?;
        let l = match l {
            FaceLayout::Strip => Layout::Strip,
            FaceLayout::Cross => Layout::Cross,
        };
        let img = pakrat_texture::layout(&images, l).map_err(err)?;
        let file = format!("{base}.{ext}");
        write_image(out, &file, &img, exr)?;
        return Ok(Some(vec![Written {
            file,
            width: img.width,
            height: img.height,
            detail: format!("{mip}, {n} surfaces laid out, {}", pf.ue_name()),
        }]));
    }
    let mut files = Vec::with_capacity(n as usize);
    for i in 0..n {
        let img = decode(i)?;
        let file = format!("{base}_{}.{ext}", suffix(t.kind, i));
        write_image(out, &file, &img, exr)?;
        files.push(Written {
            file,
            width: img.width,
            height: img.height,
            detail: format!("{mip}, surface {i} of {n}, {}", pf.ue_name()),
        });
    }
    Ok(Some(files))
}

/// UE's ASTC normal maps keep X in R, G and B and Y in alpha (astcenc's
/// normal mode): move Y to green, rebuild Z in blue, alpha opaque.
fn astc_normal_to_xyz(img: &mut Image) {
    if let pakrat_texture::Pixels::Rgba8(v) = &mut img.pixels {
        for px in v.chunks_exact_mut(4) {
            let (x, y) = (px[0], px[3]);
            let f = |c: u8| f64::from(c) / 255.0 * 2.0 - 1.0;
            let z = (1.0 - f(x) * f(x) - f(y) * f(y)).max(0.0).sqrt();
            px[1] = y;
            px[2] = ((z + 1.0) / 2.0 * 255.0).round() as u8;
            px[3] = 255;
        }
    }
}

/// Write a decoded image atomically.
fn write_image(out: &OutputDir, file: &str, img: &Image, exr: bool) -> Result<(), String> {
    out.write_file_with(file, |f| {
        let mut w = std::io::BufWriter::with_capacity(64 << 10, f);
        let r = if exr {
            pakrat_texture::write_exr(img, &mut w)
        } else {
            pakrat_texture::write_png(img, &mut w)
        };
        r.map_err(std::io::Error::other)?;
        w.flush()
    })
    .map(|_| ())
    .map_err(err)
}

/// Every mip of every surface, undecoded, as one DDS.
fn dds(
    opened: &Opened,
    from: BulkFrom<'_>,
    t: &Texture,
    pf: PixelFormat,
    base: &str,
    out: &OutputDir,
) -> Result<Option<Vec<Written>>, String> {
    let mips = t
        .mips
        .iter()
        .map(|m| mip_bytes(opened, from, t, pf, m))
        .collect::<Result<Vec<_>, _>>()?;
    let slices = t.slices.max(1);
    let kind = match t.kind {
        TextureKind::Texture2D => DdsKind::Texture2D,
        TextureKind::Cube => DdsKind::Cube,
        TextureKind::Array => DdsKind::Array(slices),
        TextureKind::CubeArray => DdsKind::CubeArray(slices / 6),
        TextureKind::Volume => DdsKind::Volume,
    };
    let surfaces: Vec<Vec<&[u8]>> = if t.kind == TextureKind::Volume {
        vec![mips.iter().map(|(d, _, _)| &d[..]).collect()]
    } else {
        (0..slices)
            .map(|s| {
                mips.iter()
                    .map(|(d, slice, _)| &d[(u64::from(s) * slice) as usize..][..*slice as usize])
                    .collect()
            })
            .collect()
    };
    let info = DdsInfo {
        format: pf,
        width: t.width,
        height: t.height,
        depth: if t.kind == TextureKind::Volume {
            t.mips[0].depth.max(1)
        } else {
            1
        },
        kind,
        mips: t.mips.len() as u32,
    };
    let file = format!("{base}.dds");
    out.write_with(&file, |mut w| {
        pakrat_texture::write_dds(&info, &surfaces, &mut w).map_err(std::io::Error::other)
    })
    .map_err(err)?;
    Ok(Some(vec![Written {
        file,
        width: t.width,
        height: t.height,
        detail: format!(
            "{} mips, {} surfaces, {}",
            t.mips.len(),
            slices,
            pf.ue_name()
        ),
    }]))
}

/// Mip 0 of a plain 2D texture decoded and encoded as PNG in memory (a
/// mesh's material embeds it): the PNG bytes, width and height. A texture
/// that is not one 2D surface, keeps no mip 0 bytes, is virtual or HDR, or
/// does not decode, gives the reason.
pub fn png_in_memory(
    opened: &Opened,
    from: BulkFrom<'_>,
    t: &Texture,
) -> Result<(Vec<u8>, u32, u32), String> {
    let pf = PixelFormat::from_ue_name(&t.format)
        .ok_or_else(|| format!("pixel format {} is not supported", t.format))?;
    if pf.is_hdr() {
        return Err(format!(
            "{} is an HDR format (not embedded as PNG)",
            pf.ue_name()
        ));
    }
    let Some(m) = t.mips.first() else {
        return Err(if t.virtual_texture.is_some() {
            "a virtual texture (its tiles are not embedded)".into()
        } else {
            "the texture has no mips".into()
        });
    };
    let (data, slice, n) = mip_bytes(opened, from, t, pf, m)?;
    if n != 1 || t.kind != TextureKind::Texture2D {
        return Err(format!(
            "a {:?} texture of {n} surfaces, not one 2D image",
            t.kind
        ));
    }
    let dopts = DecodeOptions {
        rebuild_normal_z: pf == PixelFormat::Bc5 || t.is_normal_map(),
        ..DecodeOptions::default()
    };
    let mut img = pakrat_texture::decode(pf, m.width, m.height, &data[..slice as usize], &dopts)
        .map_err(err)?;
    if matches!(pf, PixelFormat::Astc { .. }) && t.is_normal_map() {
        astc_normal_to_xyz(&mut img);
    }
    let mut png = Vec::new();
    pakrat_texture::write_png(&img, &mut png).map_err(err)?;
    Ok((png, img.width, img.height))
}
