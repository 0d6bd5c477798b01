//! Each format decoded from hand-built blocks whose colours follow from the
//! format's specification.

use pakrat_texture::{decode, DecodeOptions, Image, PixelFormat, Pixels};

fn opts() -> DecodeOptions {
    DecodeOptions::default()
}

fn rgba8(img: &Image) -> &[u8] {
    match &img.pixels {
        Pixels::Rgba8(v) => v,
        other => panic!("expected Rgba8, got {other:?}"),
    }
}

/// Pixel (x, y) as RGBA8 (gray and two-channel pixels expanded).
fn px8(img: &Image, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * img.width + x) * 4) as usize;
    let rgba = img.to_rgba8();
    rgba8(&rgba)[i..i + 4].try_into().unwrap()
}

fn near(a: [u8; 4], b: [u8; 4], tol: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tol)
}

#[track_caller]
fn assert_px(img: &Image, x: u32, y: u32, want: [u8; 4], tol: u8) {
    let got = px8(img, x, y);
    assert!(
        near(got, want, tol),
        "pixel ({x},{y}): got {got:?}, want {want:?} ±{tol}"
    );
}

/// A BC1 colour block: two RGB565 endpoints and 2-bit indices (pixel i at
/// bits 2i..2i+1, row-major).
fn bc1_block(c0: u16, c1: u16, idx: impl Fn(usize) -> u32) -> [u8; 8] {
    let bits = (0..16).fold(0u32, |b, i| b | (idx(i) << (2 * i)));
    let mut b = [0u8; 8];
    b[..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..].copy_from_slice(&bits.to_le_bytes());
    b
}

/// A BC3/BC4 8-value block: endpoints and 3-bit indices (pixel i at bits
/// 3i..3i+2 of the 48 bits after the endpoints).
fn bc4_block(a0: u8, a1: u8, idx: impl Fn(usize) -> u64) -> [u8; 8] {
    let bits = (0..16).fold(0u64, |b, i| b | (idx(i) << (3 * i)));
    let mut b = [0u8; 8];
    b[0] = a0;
    b[1] = a1;
    b[2..].copy_from_slice(&bits.to_le_bytes()[..6]);
    b
}

const RED565: u16 = 0xF800;
const BLUE565: u16 = 0x001F;

#[test]
fn bc1_four_colour_mode() {
    // c0 > c1: colours c0, c1, 2/3 c0 + 1/3 c1, 1/3 c0 + 2/3 c1, opaque.
    let b = bc1_block(RED565, BLUE565, |i| (i % 4) as u32);
    let img = decode(PixelFormat::Dxt1, 4, 4, &b, &opts()).unwrap();
    assert_px(&img, 0, 0, [255, 0, 0, 255], 0);
    assert_px(&img, 1, 0, [0, 0, 255, 255], 0);
    assert_px(&img, 2, 0, [170, 0, 85, 255], 1);
    assert_px(&img, 3, 0, [85, 0, 170, 255], 1);
}

#[test]
fn bc1_three_colour_mode_has_transparent_black() {
    // c0 <= c1: index 2 is the midpoint, index 3 transparent black.
    let b = bc1_block(BLUE565, RED565, |i| (i % 4) as u32);
    let img = decode(PixelFormat::Dxt1, 4, 4, &b, &opts()).unwrap();
    assert_px(&img, 2, 0, [128, 0, 128, 255], 1);
    assert_px(&img, 3, 0, [0, 0, 0, 0], 0);
}

#[test]
fn dxt3_explicit_alpha_and_four_colour_mode_always() {
    let mut b = [0u8; 16];
    // 4-bit alpha, pixel i = i (scaled by 17).
    let alpha = (0..16u64).fold(0u64, |a, i| a | (i << (4 * i)));
    b[..8].copy_from_slice(&alpha.to_le_bytes());
    // c0 < c1 would be three-colour mode in BC1; BC2 always uses four colours.
    b[8..].copy_from_slice(&bc1_block(BLUE565, RED565, |_| 3));
    let img = decode(PixelFormat::Dxt3, 4, 4, &b, &opts()).unwrap();
    for i in 0..16u32 {
        let p = px8(&img, i % 4, i / 4);
        assert_eq!(p[3], (i * 17) as u8, "alpha of pixel {i}");
        assert!(near(p, [170, 0, 85, p[3]], 1), "colour of pixel {i}: {p:?}");
    }
}

#[test]
fn dxt5_and_bc4_eight_value_alpha() {
    // a0 > a1: a0, a1, then six values (7-k)/7 a0 + k/7 a1.
    let want = [255u8, 0, 219, 182, 146, 109, 73, 36];
    let a = bc4_block(255, 0, |i| (i % 8) as u64);
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&a);
    b[8..].copy_from_slice(&bc1_block(0xFFFF, 0xFFFF, |_| 0));
    let img = decode(PixelFormat::Dxt5, 4, 4, &b, &opts()).unwrap();
    let bc4 = decode(PixelFormat::Bc4, 4, 4, &a, &opts()).unwrap();
    for i in 0..16u32 {
        let (x, y) = (i % 4, i / 4);
        let v = want[i as usize % 8];
        assert_px(&img, x, y, [255, 255, 255, v], 1);
        // BC4 is one red channel: G and B 0, opaque.
        assert_px(&bc4, x, y, [v, v, v, 255], 1);
    }
}

#[test]
fn bc4_six_value_mode_has_0_and_255() {
    // a0 <= a1: four interpolated values, then index 6 = 0, index 7 = 255.
    let a = bc4_block(10, 20, |i| if i == 0 { 6 } else { 7 });
    let img = decode(PixelFormat::Bc4, 4, 4, &a, &opts()).unwrap();
    assert!(
        matches!(img.pixels, Pixels::Gray8(ref v) if v.len() == 16),
        "one byte a pixel"
    );
    assert_px(&img, 0, 0, [0, 0, 0, 255], 0);
    assert_px(&img, 1, 0, [255, 255, 255, 255], 0);
}

#[test]
fn bc5_red_green_and_rebuilt_z() {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&bc4_block(128, 128, |_| 0));
    b[8..].copy_from_slice(&bc4_block(255, 255, |_| 0));
    let plain = decode(PixelFormat::Bc5, 4, 4, &b, &opts()).unwrap();
    assert!(
        matches!(plain.pixels, Pixels::Rg8(ref v) if v.len() == 32),
        "two bytes a pixel"
    );
    assert_px(&plain, 0, 0, [128, 255, 0, 255], 0);
    let rebuild = DecodeOptions {
        rebuild_normal_z: true,
        ..opts()
    };
    // x = 128/127.5 - 1 ≈ 0, y = 1: z = 0 → stored as 127.5 → 128.
    let img = decode(PixelFormat::Bc5, 4, 4, &b, &rebuild).unwrap();
    assert_px(&img, 3, 3, [128, 255, 128, 255], 0);
    // x = y ≈ 0: z = 1 → 255.
    b[8..].copy_from_slice(&bc4_block(128, 128, |_| 0));
    let img = decode(PixelFormat::Bc5, 4, 4, &b, &rebuild).unwrap();
    assert_px(&img, 2, 1, [128, 128, 255, 255], 0);
}

#[test]
fn bc6h_mode_11_endpoint() {
    // Mode 11 (5-bit mode 00011): one region, 10-bit endpoints rw gw bw,
    // then rx gx bx, then indices. rw = gw = bw = 512, indices 0.
    // Unquantize (UF16, 10 bits): ((512 << 16) + 0x8000) >> 10 = 32800;
    // finish: 32800 * 31 >> 6 = 15887 = half 0x3E0F = 1 + 527/1024.
    let mut bits: u128 = 0b00011;
    bits |= 512 << 5;
    bits |= 512 << 15;
    bits |= 512 << 25;
    let img = decode(PixelFormat::Bc6h, 4, 4, &bits.to_le_bytes(), &opts()).unwrap();
    let Pixels::RgbaF32(v) = &img.pixels else {
        panic!("BC6H gives f32")
    };
    let want = 1.0 + 527.0 / 1024.0;
    for px in v.chunks_exact(4) {
        for c in &px[..3] {
            assert!((c - want).abs() < 1e-4, "{px:?}");
        }
        assert_eq!(px[3], 1.0);
    }
}

#[test]
fn bc7_mode_6_endpoint() {
    // Mode 6: bit 6 set; 7-bit R0 R1 G0 G1 B0 B1 A0 A1, P0, P1, indices.
    // Endpoint 0 = (c << 1) | P0. All indices 0: every pixel is endpoint 0.
    let mut bits: u128 = 1 << 6;
    let (r0, g0, b0, a0) = (127u128, 0u128, 64u128, 127u128);
    bits |= r0 << 7;
    bits |= g0 << 21;
    bits |= b0 << 35;
    bits |= a0 << 49;
    bits |= 1 << 63; // P0
    let img = decode(PixelFormat::Bc7, 4, 4, &bits.to_le_bytes(), &opts()).unwrap();
    for i in 0..16 {
        assert_px(&img, i % 4, i / 4, [255, 1, 129, 255], 0);
    }
}

/// ETC1 individual mode: R1|R2, G1|G2, B1|B2 nibbles, then table1 (3 bits),
/// table2 (3), diff (0), flip (0: left and right 2×4 halves).
fn etc1_individual() -> [u8; 8] {
    [0xF0, 0x00, 0x0F, 0x00, 0, 0, 0, 0]
}

#[test]
fn etc1_and_etc2_individual_mode() {
    // Table 0, index 0 (msb 0, lsb 0) = +2. Left half: base (255, 0, 0)
    // → (255, 2, 2); right half: base (0, 0, 255) → (2, 2, 255).
    for f in [PixelFormat::Etc1, PixelFormat::Etc2Rgb] {
        let img = decode(f, 4, 4, &etc1_individual(), &opts()).unwrap();
        for y in 0..4 {
            assert_px(&img, 0, y, [255, 2, 2, 255], 0);
            assert_px(&img, 1, y, [255, 2, 2, 255], 0);
            assert_px(&img, 2, y, [2, 2, 255, 255], 0);
            assert_px(&img, 3, y, [2, 2, 255, 255], 0);
        }
    }
}

#[test]
fn etc2_rgba_eac_alpha() {
    // EAC alpha: base 200, multiplier 1, table 0, all indices 0 (−3): 197.
    let mut b = [0u8; 16];
    b[0] = 200;
    b[1] = 0x10;
    b[8..].copy_from_slice(&etc1_individual());
    let img = decode(PixelFormat::Etc2Rgba, 4, 4, &b, &opts()).unwrap();
    assert_px(&img, 0, 0, [255, 2, 2, 197], 0);
    assert_px(&img, 3, 3, [2, 2, 255, 197], 0);
}

#[test]
fn eac_r11_and_rg11() {
    // R11: clamp(base * 8 + 4 + modifier * multiplier * 8, 0, 2047).
    // base 100, multiplier 1, table 0, index 0 (−3): 780 → 780 / 2047 = 97/255.
    // base 200: 1580 → 197/255.
    let r = [100u8, 0x10, 0, 0, 0, 0, 0, 0];
    let g = [200u8, 0x10, 0, 0, 0, 0, 0, 0];
    let img = decode(PixelFormat::Etc2R11Eac, 4, 4, &r, &opts()).unwrap();
    assert_px(&img, 1, 2, [97, 0, 0, 255], 1);
    let mut rg = [0u8; 16];
    rg[..8].copy_from_slice(&r);
    rg[8..].copy_from_slice(&g);
    let img = decode(PixelFormat::Etc2Rg11Eac, 4, 4, &rg, &opts()).unwrap();
    assert_px(&img, 3, 0, [97, 197, 0, 255], 1);
}

#[test]
fn astc_void_extent_every_footprint() {
    // Void-extent LDR block: bits 0..8 = 0x1FC, bit 9 = 0 (LDR), bits 10..11
    // reserved 1s, four 13-bit extents all 1s, then RGBA as UNORM16.
    let mut b = [0xFFu8; 16];
    b[0] = 0xFC;
    b[1] = 0xFD;
    b[8..10].copy_from_slice(&0xFFFFu16.to_le_bytes());
    b[10..12].copy_from_slice(&0x8080u16.to_le_bytes());
    b[12..14].copy_from_slice(&0x0000u16.to_le_bytes());
    b[14..16].copy_from_slice(&0xFFFFu16.to_le_bytes());
    for (bw, bh) in pakrat_texture::ASTC_FOOTPRINTS {
        let f = PixelFormat::Astc { bw, bh, hdr: false };
        let img = decode(f, u32::from(bw), u32::from(bh), &b, &opts()).unwrap();
        for y in 0..u32::from(bh) {
            for x in 0..u32::from(bw) {
                assert_px(&img, x, y, [255, 128, 0, 255], 0);
            }
        }
    }
}

#[test]
fn astc_reserved_block_is_the_error_colour() {
    // Block mode 0 is reserved: the decoder paints the block magenta, as
    // the ASTC specification's error colour.
    let f = PixelFormat::Astc {
        bw: 6,
        bh: 6,
        hdr: false,
    };
    let img = decode(f, 6, 6, &[0u8; 16], &opts()).unwrap();
    assert_px(&img, 5, 5, [255, 0, 255, 255], 0);
}

#[test]
fn astc_hdr_is_unsupported() {
    let f = PixelFormat::Astc {
        bw: 4,
        bh: 4,
        hdr: true,
    };
    assert!(matches!(
        decode(f, 4, 4, &[0u8; 16], &opts()),
        Err(pakrat_texture::Error::Unsupported { .. })
    ));
}

#[test]
fn edge_blocks_are_cut() {
    // 5×3 DXT1: two blocks across, one down; pixel (4, 0) is block 1's first.
    let mut data = bc1_block(RED565, RED565, |_| 0).to_vec();
    data.extend_from_slice(&bc1_block(BLUE565, BLUE565, |_| 0));
    let img = decode(PixelFormat::Dxt1, 5, 3, &data, &opts()).unwrap();
    assert_eq!(rgba8(&img).len(), 5 * 3 * 4);
    assert_px(&img, 3, 2, [255, 0, 0, 255], 0);
    assert_px(&img, 4, 0, [0, 0, 255, 255], 0);
    assert_px(&img, 4, 2, [0, 0, 255, 255], 0);
}

#[test]
fn plain_8_and_16_bit() {
    let img = decode(PixelFormat::B8G8R8A8, 1, 1, &[1, 2, 3, 4], &opts()).unwrap();
    assert_eq!(rgba8(&img), [3, 2, 1, 4]);
    let img = decode(PixelFormat::R8G8B8A8, 1, 1, &[1, 2, 3, 4], &opts()).unwrap();
    assert_eq!(rgba8(&img), [1, 2, 3, 4]);
    let img = decode(PixelFormat::G8, 2, 1, &[7, 9], &opts()).unwrap();
    assert_eq!(rgba8(&img), [7, 7, 7, 255, 9, 9, 9, 255]);
    let img = decode(PixelFormat::G16, 1, 1, &[0x34, 0x12], &opts()).unwrap();
    assert_eq!(
        img.pixels,
        Pixels::Rgba16(vec![0x1234, 0x1234, 0x1234, 0xFFFF])
    );
    let img = decode(
        PixelFormat::A16B16G16R16,
        1,
        1,
        &[1, 0, 2, 0, 3, 0, 4, 0],
        &opts(),
    )
    .unwrap();
    assert_eq!(img.pixels, Pixels::Rgba16(vec![1, 2, 3, 4]));
}

#[test]
fn plain_float() {
    let img = decode(PixelFormat::R16F, 1, 1, &0x3C00u16.to_le_bytes(), &opts()).unwrap();
    assert_eq!(img.pixels, Pixels::RgbaF32(vec![1.0, 0.0, 0.0, 1.0]));
    let img = decode(PixelFormat::R32F, 1, 1, &2.5f32.to_le_bytes(), &opts()).unwrap();
    assert_eq!(img.pixels, Pixels::RgbaF32(vec![2.5, 0.0, 0.0, 1.0]));
    // Halves 1.0, -2.0, 0.5, 65504 (largest half).
    let halves: Vec<u8> = [0x3C00u16, 0xC000, 0x3800, 0x7BFF]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    let img = decode(PixelFormat::FloatRGBA, 1, 1, &halves, &opts()).unwrap();
    assert_eq!(img.pixels, Pixels::RgbaF32(vec![1.0, -2.0, 0.5, 65504.0]));
    let floats: Vec<u8> = [1.0f32, 2.0, -3.0, 4.5]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let img = decode(PixelFormat::A32B32G32R32F, 1, 1, &floats, &opts()).unwrap();
    assert_eq!(img.pixels, Pixels::RgbaF32(vec![1.0, 2.0, -3.0, 4.5]));
}

#[test]
fn parallel_equals_serial() {
    let mut x = 0x1234_5678u32;
    let data: Vec<u8> = (0..1 << 19)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    let serial = DecodeOptions {
        parallel: false,
        ..opts()
    };
    for f in [
        PixelFormat::Bc7,
        PixelFormat::Dxt1,
        PixelFormat::Bc6h,
        PixelFormat::Etc2Rgba,
        PixelFormat::B8G8R8A8,
        PixelFormat::Astc {
            bw: 10,
            bh: 6,
            hdr: false,
        },
    ] {
        // Odd sizes: edge blocks on both axes, and more than the parallel threshold.
        let (w, h) = (301, 257);
        let n = f.slice_size(w, h).unwrap() as usize;
        let a = decode(f, w, h, &data[..n], &serial).unwrap();
        let b = decode(f, w, h, &data[..n], &opts()).unwrap();
        assert!(a == b, "{f}: parallel and serial differ");
    }
}

#[test]
fn names_round_trip() {
    for f in [
        PixelFormat::Dxt1,
        PixelFormat::FloatRGBA,
        PixelFormat::Etc2Rg11Eac,
        PixelFormat::Astc {
            bw: 10,
            bh: 8,
            hdr: false,
        },
        PixelFormat::Astc {
            bw: 4,
            bh: 4,
            hdr: true,
        },
    ] {
        assert_eq!(PixelFormat::from_ue_name(f.ue_name()), Some(f));
    }
    assert_eq!(PixelFormat::from_ue_name("dxt5"), Some(PixelFormat::Dxt5));
    assert_eq!(
        PixelFormat::from_ue_name("PF_ASTC_6x6"),
        Some(PixelFormat::Astc {
            bw: 6,
            bh: 6,
            hdr: false
        })
    );
    assert_eq!(PixelFormat::from_ue_name("PF_ASTC_7x7"), None);
    assert_eq!(PixelFormat::from_ue_name("PF_"), None);
    assert_eq!(PixelFormat::from_ue_name(""), None);
    assert_eq!(
        PixelFormat::Astc {
            bw: 9,
            bh: 9,
            hdr: false
        }
        .ue_name(),
        "PF_ASTC_invalid"
    );
}

#[test]
fn slice_sizes() {
    assert_eq!(PixelFormat::Dxt1.slice_size(64, 64), Some(2048));
    assert_eq!(PixelFormat::Dxt1.slice_size(1, 1), Some(8));
    assert_eq!(PixelFormat::Bc7.slice_size(5, 5), Some(64));
    assert_eq!(PixelFormat::B8G8R8A8.slice_size(3, 2), Some(24));
    assert_eq!(PixelFormat::A32B32G32R32F.slice_size(2, 2), Some(64));
    assert_eq!(
        PixelFormat::Astc {
            bw: 12,
            bh: 10,
            hdr: false
        }
        .slice_size(64, 64),
        Some(6 * 7 * 16)
    );
    assert_eq!(PixelFormat::G8.slice_size(0, 100), Some(0));
    assert_eq!(
        PixelFormat::G8.slice_size(u32::MAX, u32::MAX),
        Some(u64::from(u32::MAX).pow(2))
    );
    // (2^32 - 1)^2 * 16 does not fit in u64.
    assert_eq!(
        PixelFormat::A32B32G32R32F.slice_size(u32::MAX, u32::MAX),
        None
    );
    assert!(PixelFormat::Bc6h.is_hdr() && !PixelFormat::Bc7.is_hdr());
}
