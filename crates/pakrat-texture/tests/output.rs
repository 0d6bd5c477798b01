//! Writers (DDS header fields, PNG and EXR round trips), layout and PSNR.

use pakrat_texture::{
    layout, psnr, write_dds, write_exr, write_png, DdsInfo, DdsKind, Error, Image, Layout,
    PixelFormat, Pixels,
};

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

/// Offsets in the file (after the 4-byte magic) of `DDS_HEADER` fields.
const FLAGS: usize = 8;
const HEIGHT: usize = 12;
const WIDTH: usize = 16;
const PITCH: usize = 20;
const DEPTH: usize = 24;
const MIPS: usize = 28;
const PF_SIZE: usize = 76;
const PF_FLAGS: usize = 80;
const PF_FOURCC: usize = 84;
const PF_BITS: usize = 88;
const PF_RMASK: usize = 92;
const CAPS: usize = 108;
const CAPS2: usize = 112;
const DX10: usize = 128;

fn dds(info: &DdsInfo, surfaces: &[Vec<&[u8]>]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    write_dds(info, surfaces, &mut out)?;
    Ok(out)
}

fn info(format: PixelFormat, w: u32, h: u32, kind: DdsKind, mips: u32) -> DdsInfo {
    DdsInfo {
        format,
        width: w,
        height: h,
        depth: 1,
        kind,
        mips,
    }
}

#[test]
fn dds_dxt1_with_mips() {
    // 8×8 DXT1: mips 8×8 (32 bytes), 4×4 (8), 2×2 (8), 1×1 (8).
    let mips: Vec<Vec<u8>> = [32usize, 8, 8, 8]
        .iter()
        .enumerate()
        .map(|(i, &n)| vec![i as u8; n])
        .collect();
    let surf = vec![mips.iter().map(|m| m.as_slice()).collect::<Vec<_>>()];
    let b = dds(&info(PixelFormat::Dxt1, 8, 8, DdsKind::Texture2D, 4), &surf).unwrap();
    assert_eq!(&b[..4], b"DDS ");
    assert_eq!(u32_at(&b, 4), 124);
    // CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT | LINEARSIZE
    assert_eq!(
        u32_at(&b, FLAGS),
        0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x80000
    );
    assert_eq!((u32_at(&b, HEIGHT), u32_at(&b, WIDTH)), (8, 8));
    assert_eq!(u32_at(&b, PITCH), 32, "linear size of mip 0");
    assert_eq!(u32_at(&b, MIPS), 4);
    assert_eq!(u32_at(&b, PF_SIZE), 32);
    assert_eq!(u32_at(&b, PF_FLAGS), 0x4, "DDPF_FOURCC");
    assert_eq!(&b[PF_FOURCC..PF_FOURCC + 4], b"DXT1");
    // TEXTURE | COMPLEX | MIPMAP
    assert_eq!(u32_at(&b, CAPS), 0x1000 | 0x8 | 0x40_0000);
    assert_eq!(u32_at(&b, CAPS2), 0);
    assert_eq!(b.len(), 128 + 56);
    assert_eq!(&b[128..160], &[0u8; 32]);
    assert_eq!(&b[176..184], &[3u8; 8]);
}

#[test]
fn dds_bgra8_is_legacy_rgb_with_masks_and_pitch() {
    let px = [0u8; 3 * 2 * 4];
    let b = dds(
        &info(PixelFormat::B8G8R8A8, 3, 2, DdsKind::Texture2D, 1),
        &[vec![&px[..]]],
    )
    .unwrap();
    // CAPS | HEIGHT | WIDTH | PIXELFORMAT | MIPMAPCOUNT | PITCH
    assert_eq!(u32_at(&b, FLAGS), 0x1 | 0x2 | 0x4 | 0x1000 | 0x20000 | 0x8);
    assert_eq!(u32_at(&b, PITCH), 12);
    assert_eq!(
        u32_at(&b, PF_FLAGS),
        0x40 | 0x1,
        "DDPF_RGB | DDPF_ALPHAPIXELS"
    );
    assert_eq!(u32_at(&b, PF_BITS), 32);
    assert_eq!(u32_at(&b, PF_RMASK), 0x00FF_0000);
    assert_eq!(u32_at(&b, CAPS), 0x1000, "one mip: no COMPLEX/MIPMAP");
    assert_eq!(b.len(), 128 + 24);
}

#[test]
fn dds_bc7_uses_dx10_header() {
    let px = [9u8; 16];
    let b = dds(
        &info(PixelFormat::Bc7, 4, 4, DdsKind::Texture2D, 1),
        &[vec![&px[..]]],
    )
    .unwrap();
    assert_eq!(&b[PF_FOURCC..PF_FOURCC + 4], b"DX10");
    assert_eq!(u32_at(&b, DX10), 98, "DXGI_FORMAT_BC7_UNORM");
    assert_eq!(u32_at(&b, DX10 + 4), 3, "TEXTURE2D");
    assert_eq!(u32_at(&b, DX10 + 8), 0);
    assert_eq!(u32_at(&b, DX10 + 12), 1, "array size");
    assert_eq!(b.len(), 148 + 16);
    assert_eq!(&b[148..], &px);
    for (f, dxgi) in [
        (PixelFormat::Bc6h, 95),
        (PixelFormat::FloatRGBA, 10),
        (PixelFormat::A32B32G32R32F, 2),
        (PixelFormat::R16F, 54),
    ] {
        let n = f.slice_size(4, 4).unwrap() as usize;
        let data = vec![0u8; n];
        let b = dds(&info(f, 4, 4, DdsKind::Texture2D, 1), &[vec![&data[..]]]).unwrap();
        assert_eq!(u32_at(&b, DX10), dxgi, "{f}");
    }
}

#[test]
fn dds_cube_array_and_volume() {
    let face = [0u8; 8];
    // Cube: six faces, legacy header, all-faces caps.
    let faces: Vec<Vec<&[u8]>> = (0..6).map(|_| vec![&face[..]]).collect();
    let b = dds(&info(PixelFormat::Dxt1, 4, 4, DdsKind::Cube, 1), &faces).unwrap();
    assert_eq!(u32_at(&b, CAPS) & 0x8, 0x8, "COMPLEX");
    assert_eq!(u32_at(&b, CAPS2), 0xFE00, "CUBEMAP and all six faces");
    assert_eq!(b.len(), 128 + 48);
    // Cube array of 2: DX10 header, TEXTURECUBE, array size = cubes.
    let faces: Vec<Vec<&[u8]>> = (0..12).map(|_| vec![&face[..]]).collect();
    let b = dds(
        &info(PixelFormat::Dxt1, 4, 4, DdsKind::CubeArray(2), 1),
        &faces,
    )
    .unwrap();
    assert_eq!(u32_at(&b, DX10), 71, "BC1_UNORM");
    assert_eq!(u32_at(&b, DX10 + 8), 0x4, "RESOURCE_MISC_TEXTURECUBE");
    assert_eq!(u32_at(&b, DX10 + 12), 2);
    assert_eq!(b.len(), 148 + 96);
    // Array of 3.
    let slices: Vec<Vec<&[u8]>> = (0..3).map(|_| vec![&face[..]]).collect();
    let b = dds(
        &info(PixelFormat::Dxt1, 4, 4, DdsKind::Array(3), 1),
        &slices,
    )
    .unwrap();
    assert_eq!(u32_at(&b, DX10 + 12), 3);
    // Volume 4×4×4 BGRA8, 2 mips: mip 0 = 4 slices of 64 bytes, mip 1 = 2 of 16.
    let m0 = [1u8; 256];
    let m1 = [2u8; 32];
    let v = DdsInfo {
        depth: 4,
        ..info(PixelFormat::B8G8R8A8, 4, 4, DdsKind::Volume, 2)
    };
    let b = dds(&v, &[vec![&m0[..], &m1[..]]]).unwrap();
    assert_eq!(u32_at(&b, FLAGS) & 0x80_0000, 0x80_0000, "DDSD_DEPTH");
    assert_eq!(u32_at(&b, DEPTH), 4);
    assert_eq!(u32_at(&b, CAPS2), 0x20_0000, "VOLUME");
    assert_eq!(b.len(), 128 + 256 + 32);
}

#[test]
fn dds_refuses_bad_shapes_before_writing() {
    let face = [0u8; 8];
    let one = vec![vec![&face[..]]];
    let cases: Vec<(DdsInfo, Vec<Vec<&[u8]>>)> = vec![
        (info(PixelFormat::Dxt1, 4, 4, DdsKind::Cube, 1), one.clone()),
        (
            info(PixelFormat::Dxt1, 4, 4, DdsKind::Texture2D, 2),
            one.clone(),
        ),
        (
            info(PixelFormat::Dxt1, 4, 4, DdsKind::Texture2D, 0),
            vec![vec![]],
        ),
        (
            info(PixelFormat::Dxt1, 0, 4, DdsKind::Texture2D, 1),
            one.clone(),
        ),
        (
            info(PixelFormat::Dxt1, 8, 8, DdsKind::Texture2D, 1),
            one.clone(),
        ),
        (info(PixelFormat::Dxt1, 4, 4, DdsKind::Array(0), 1), vec![]),
        (
            info(PixelFormat::Dxt1, 4, 4, DdsKind::CubeArray(u32::MAX), 1),
            one.clone(),
        ),
        (
            info(PixelFormat::Dxt1, 8, 4, DdsKind::Cube, 1),
            (0..6).map(|_| vec![&face[..]]).collect(),
        ),
        (
            info(PixelFormat::Dxt1, 4, 4, DdsKind::Texture2D, 33),
            vec![vec![&face[..]; 33]],
        ),
        (
            DdsInfo {
                depth: 2,
                ..info(PixelFormat::Dxt1, 4, 4, DdsKind::Texture2D, 1)
            },
            one.clone(),
        ),
    ];
    for (i, s) in cases {
        let mut out = Vec::new();
        assert!(write_dds(&i, &s, &mut out).is_err(), "{i:?}");
        assert!(out.is_empty(), "{i:?}: nothing written");
    }
    let astc = info(
        PixelFormat::Astc {
            bw: 4,
            bh: 4,
            hdr: false,
        },
        4,
        4,
        DdsKind::Texture2D,
        1,
    );
    let block = [0u8; 16];
    assert!(matches!(
        dds(&astc, &[vec![&block[..]]]),
        Err(Error::Unsupported { .. })
    ));
}

fn gradient8(w: u32, h: u32) -> Image {
    let v = (0..w * h * 4).map(|i| (i * 7 % 251) as u8).collect();
    Image {
        width: w,
        height: h,
        pixels: Pixels::Rgba8(v),
    }
}

fn read_png(bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
    let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info, buf)
}

#[test]
fn png_8_bit_round_trip() {
    let img = gradient8(13, 7);
    let mut out = Vec::new();
    write_png(&img, &mut out).unwrap();
    let (info, buf) = read_png(&out);
    assert_eq!((info.width, info.height), (13, 7));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    assert_eq!(Pixels::Rgba8(buf), img.pixels);
}

#[test]
fn png_16_bit_round_trip_and_float_clamped() {
    let v: Vec<u16> = (0..5 * 3 * 4).map(|i| (i * 1111) as u16).collect();
    let img = Image {
        width: 5,
        height: 3,
        pixels: Pixels::Rgba16(v.clone()),
    };
    let mut out = Vec::new();
    write_png(&img, &mut out).unwrap();
    let (info, buf) = read_png(&out);
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    let back: Vec<u16> = buf
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(back, v);
    let f = Image {
        width: 1,
        height: 1,
        pixels: Pixels::RgbaF32(vec![-1.0, 0.5, 2.0, 1.0]),
    };
    let mut out = Vec::new();
    write_png(&f, &mut out).unwrap();
    let (_, buf) = read_png(&out);
    let back: Vec<u16> = buf
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(back, [0, 32768, 65535, 65535]);
}

#[test]
fn writers_refuse_malformed_images() {
    let bad = Image {
        width: 4,
        height: 4,
        pixels: Pixels::Rgba8(vec![0; 10]),
    };
    assert!(matches!(
        write_png(&bad, &mut Vec::new()),
        Err(Error::Mismatch(_))
    ));
    assert!(write_exr(&bad, &mut std::io::Cursor::new(Vec::new())).is_err());
    let empty = Image {
        width: 0,
        height: 4,
        pixels: Pixels::Rgba8(vec![]),
    };
    assert!(matches!(
        write_png(&empty, &mut Vec::new()),
        Err(Error::Dimensions { .. })
    ));
    assert!(matches!(
        write_exr(&empty, &mut std::io::Cursor::new(Vec::new())),
        Err(Error::Dimensions { .. })
    ));
}

#[test]
fn exr_round_trip() {
    let (w, h) = (37usize, 21usize);
    let v: Vec<f32> = (0..w * h * 4).map(|i| (i as f32 - 500.0) * 0.731).collect();
    let img = Image {
        width: w as u32,
        height: h as u32,
        pixels: Pixels::RgbaF32(v.clone()),
    };
    let mut cur = std::io::Cursor::new(Vec::new());
    write_exr(&img, &mut cur).unwrap();
    let bytes = cur.into_inner();
    assert_eq!(&bytes[..4], &[0x76, 0x2F, 0x31, 0x01], "EXR magic");
    use exr::prelude::{ReadChannels, ReadLayers};
    struct Px {
        w: usize,
        h: usize,
        v: Vec<f32>,
    }
    let read = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .rgba_channels(
            |size, _| -> Px {
                Px {
                    w: size.width(),
                    h: size.height(),
                    v: vec![0f32; size.width() * size.height() * 4],
                }
            },
            |img, pos, (r, g, b, a): (f32, f32, f32, f32)| {
                let i = (pos.y() * img.w + pos.x()) * 4;
                img.v[i..i + 4].copy_from_slice(&[r, g, b, a]);
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(std::io::Cursor::new(bytes))
        .unwrap();
    let Px {
        w: rw,
        h: rh,
        v: px,
    } = read.layer_data.channel_data.pixels;
    assert_eq!((rw, rh), (w, h));
    assert_eq!(px, v, "32-bit float channels, lossless");
}

#[test]
fn layout_strip_and_cross_sizes_and_placement() {
    let faces: Vec<Image> = (0..6u8)
        .map(|f| Image {
            width: 2,
            height: 2,
            pixels: Pixels::Rgba8(vec![f * 10 + 1; 16]),
        })
        .collect();
    let strip = layout(&faces, Layout::Strip).unwrap();
    assert_eq!((strip.width, strip.height), (12, 2));
    let Pixels::Rgba8(s) = &strip.pixels else {
        panic!()
    };
    // Face f covers columns 2f..2f+1 of both rows.
    for f in 0..6 {
        assert_eq!(s[(12 + 2 * f + 1) * 4], f as u8 * 10 + 1);
    }
    let cross = layout(&faces, Layout::Cross).unwrap();
    assert_eq!((cross.width, cross.height), (8, 6));
    let Pixels::Rgba8(c) = &cross.pixels else {
        panic!()
    };
    let at = |x: usize, y: usize| c[(y * 8 + x) * 4];
    // +Y (face 2) top of column 1; −X (1), +Z (4), +X (0), −Z (5) in the
    // middle row; −Y (3) at the bottom of column 1; corners empty.
    assert_eq!(at(2, 0), 21);
    assert_eq!([at(0, 2), at(2, 2), at(4, 2), at(6, 3)], [11, 41, 1, 51]);
    assert_eq!(at(3, 5), 31);
    assert_eq!(at(0, 0), 0);
    let two = [faces.clone(), faces.clone()].concat();
    let cross2 = layout(&two, Layout::Cross).unwrap();
    assert_eq!((cross2.width, cross2.height), (8, 12));
    assert!(matches!(
        layout(&faces[..5], Layout::Cross),
        Err(Error::Mismatch(_))
    ));
    assert!(matches!(
        layout(&[], Layout::Strip),
        Err(Error::Mismatch(_))
    ));
    let odd = [faces[0].clone(), gradient8(3, 2)];
    assert!(matches!(
        layout(&odd, Layout::Strip),
        Err(Error::Mismatch(_))
    ));
}

#[test]
fn psnr_values() {
    let a = gradient8(8, 8);
    assert_eq!(psnr(&a, &a, [true; 4]), f64::INFINITY);
    let Pixels::Rgba8(mut v) = a.pixels.clone() else {
        panic!()
    };
    for px in v.chunks_exact_mut(4) {
        px[0] = px[0].wrapping_add(1).max(1);
    }
    let b = Image {
        pixels: Pixels::Rgba8(v),
        ..a.clone()
    };
    // Red off by one somewhere (by one everywhere but wrap-arounds), other
    // channels equal: the R-only PSNR is about 20 log10(255) = 48.13 dB.
    let r = psnr(&a, &b, [true, false, false, false]);
    assert!((r - 48.13).abs() < 1.0, "{r}");
    assert_eq!(psnr(&a, &b, [false, true, true, true]), f64::INFINITY);
    assert!(psnr(&a, &gradient8(4, 4), [true; 4]).is_nan());
    assert!(psnr(&a, &b, [false; 4]).is_nan());
}

#[test]
fn to_rgba8_rounds_and_clamps() {
    let img16 = Image {
        width: 1,
        height: 1,
        pixels: Pixels::Rgba16(vec![0, 128, 65535, 32896]),
    };
    assert_eq!(img16.to_rgba8().pixels, Pixels::Rgba8(vec![0, 0, 255, 128]));
    let imgf = Image {
        width: 1,
        height: 1,
        pixels: Pixels::RgbaF32(vec![-1.0, 0.5, 16.0, f32::NAN]),
    };
    // NaN clamps to NaN and casts to 0.
    assert_eq!(imgf.to_rgba8().pixels, Pixels::Rgba8(vec![0, 128, 255, 0]));
}

#[test]
fn gray_and_two_channel_pixels_write_and_lay_out() {
    // BC4 decodes to one channel: an 8-bit gray PNG.
    let gray = Image {
        width: 3,
        height: 2,
        pixels: Pixels::Gray8(vec![0, 10, 20, 30, 40, 255]),
    };
    gray.check().unwrap();
    let mut out = Vec::new();
    write_png(&gray, &mut out).unwrap();
    let (info, buf) = read_png(&out);
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    assert_eq!(buf, vec![0, 10, 20, 30, 40, 255]);
    // Read as RGBA: gray in R, G, B, alpha opaque.
    assert_eq!(gray.pixels.len(), 24);
    assert_eq!(gray.pixels.get_f64(4 + 1), 10.0 / 255.0);
    assert_eq!(gray.pixels.get_f64(4 + 3), 1.0);
    // BC5 without Z: two channels, written as RGBA with B 0.
    let rg = Image {
        width: 2,
        height: 1,
        pixels: Pixels::Rg8(vec![1, 2, 3, 4]),
    };
    let mut out = Vec::new();
    write_png(&rg, &mut out).unwrap();
    let (info, buf) = read_png(&out);
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(buf, vec![1, 2, 0, 255, 3, 4, 0, 255]);
    assert_eq!(rg.to_rgba8().pixels, Pixels::Rgba8(buf));
    // EXR and layouts take them too (as RGBA).
    let mut exr = std::io::Cursor::new(Vec::new());
    write_exr(&gray, &mut exr).unwrap();
    let strip = layout(&[gray.clone(), gray.clone()], Layout::Strip).unwrap();
    assert_eq!((strip.width, strip.height), (6, 2));
    let Pixels::Rgba8(v) = &strip.pixels else {
        panic!("RGBA8 strip")
    };
    assert_eq!(&v[12..16], &[0, 0, 0, 255], "second image's first pixel");
    assert_eq!(&v[4..8], &[10, 10, 10, 255]);
}
