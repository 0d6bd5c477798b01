//! Hostile input: random bytes through every decoder, odd sizes, limits.

use pakrat_texture::{decode, DecodeOptions, Error, PixelFormat, ASTC_FOOTPRINTS};

/// xorshift64*: deterministic bytes without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

pub fn all_formats() -> Vec<PixelFormat> {
    use PixelFormat::*;
    let mut v = vec![
        B8G8R8A8,
        R8G8B8A8,
        G8,
        G16,
        A16B16G16R16,
        R16F,
        R32F,
        FloatRGBA,
        A32B32G32R32F,
        Dxt1,
        Dxt3,
        Dxt5,
        Bc4,
        Bc5,
        Bc6h,
        Bc7,
        Etc1,
        Etc2Rgb,
        Etc2Rgba,
        Etc2R11Eac,
        Etc2Rg11Eac,
    ];
    for (bw, bh) in ASTC_FOOTPRINTS {
        v.push(Astc { bw, bh, hdr: false });
    }
    v
}

/// Random blocks never panic, and the output has the promised size.
#[test]
fn random_blocks_decode_without_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let opts = DecodeOptions::default();
    for f in all_formats() {
        for &(w, h) in &[(1u32, 1u32), (3, 5), (13, 7), (64, 64), (129, 131)] {
            let n = f.slice_size(w, h).unwrap() as usize;
            for _ in 0..4 {
                let data = rng.bytes(n);
                let img =
                    decode(f, w, h, &data, &opts).unwrap_or_else(|e| panic!("{f} {w}x{h}: {e}"));
                assert_eq!(img.pixels.len(), (w * h * 4) as usize, "{f} {w}x{h}");
            }
        }
    }
}

/// Many single ASTC and BC6H/BC7 blocks with random bits, including the
/// reserved and void-extent encodings, for every footprint.
#[test]
fn random_single_blocks() {
    let mut rng = Rng(12345);
    let opts = DecodeOptions::default();
    let mut formats: Vec<PixelFormat> = all_formats()
        .into_iter()
        .filter(|f| f.is_compressed())
        .collect();
    formats.retain(|f| !matches!(f, PixelFormat::Dxt1 | PixelFormat::Bc4));
    for f in formats {
        let (bw, bh, bytes) = f.block();
        for i in 0..20_000u32 {
            let mut data = rng.bytes(bytes as usize);
            // Bias some blocks to void-extent / reserved ASTC headers.
            if i % 4 == 0 {
                data[0] = 0xFC;
                data[1] |= 1;
            }
            decode(f, bw, bh, &data, &opts).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }
}

#[test]
fn zero_and_huge_dimensions_are_errors() {
    let opts = DecodeOptions::default();
    for f in all_formats() {
        assert!(
            matches!(
                decode(f, 0, 4, &[0; 64], &opts),
                Err(Error::Dimensions { .. })
            ),
            "{f}"
        );
        assert!(
            matches!(
                decode(f, 4, 0, &[0; 64], &opts),
                Err(Error::Dimensions { .. })
            ),
            "{f}"
        );
        let huge = decode(f, u32::MAX, u32::MAX, &[], &opts);
        assert!(matches!(huge, Err(Error::TooLarge { .. })), "{f}: {huge:?}");
        let small = DecodeOptions {
            max_pixels: 15,
            ..DecodeOptions::default()
        };
        assert!(matches!(
            decode(f, 4, 4, &[0; 256], &small),
            Err(Error::TooLarge {
                max: 15,
                pixels: 16,
                ..
            })
        ));
        // Unlimited pixels: the size check must still refuse short data
        // before allocating anything.
        let unlimited = DecodeOptions {
            max_pixels: u64::MAX,
            ..DecodeOptions::default()
        };
        let r = decode(f, 1 << 30, 1 << 30, &[0; 16], &unlimited);
        assert!(
            matches!(
                r,
                Err(Error::Size { .. } | Error::TooLarge { .. } | Error::Dimensions { .. })
            ),
            "{f}: {r:?}"
        );
    }
}

#[test]
fn short_data_is_a_size_error_naming_both_sizes() {
    let opts = DecodeOptions::default();
    for f in all_formats() {
        let need = f.slice_size(17, 9).unwrap();
        let data = vec![0u8; need as usize - 1];
        match decode(f, 17, 9, &data, &opts) {
            Err(Error::Size { expected, got, .. }) => assert_eq!((expected, got), (need, need - 1)),
            other => panic!("{f}: {other:?}"),
        }
        // Exactly enough, and more than enough, both decode.
        let data = vec![0u8; need as usize + 3];
        decode(f, 17, 9, &data[..need as usize], &opts).unwrap();
        decode(f, 17, 9, &data, &opts).unwrap();
    }
}

#[test]
fn invalid_astc_footprint_is_refused() {
    let f = PixelFormat::Astc {
        bw: 0,
        bh: 7,
        hdr: false,
    };
    assert_eq!(f.slice_size(4, 4), None);
    assert!(matches!(
        decode(f, 4, 4, &[0; 16], &DecodeOptions::default()),
        Err(Error::Unsupported { .. })
    ));
    let f = PixelFormat::Astc {
        bw: 200,
        bh: 200,
        hdr: false,
    };
    assert!(!f.is_valid());
    assert!(decode(f, 4, 4, &[0; 16], &DecodeOptions::default()).is_err());
}

/// BC6H goes through bcdec_rs's halves and `half`'s conversion: the floats
/// must be the ones bcdec_rs's own f32 output gives, for every block.
#[test]
fn bc6h_floats_equal_bcdec_f32() {
    let mut rng = Rng(99);
    let opts = DecodeOptions::default();
    for _ in 0..20_000 {
        let b = rng.bytes(16);
        let img = decode(PixelFormat::Bc6h, 4, 4, &b, &opts).unwrap();
        let pakrat_texture::Pixels::RgbaF32(v) = img.pixels else {
            panic!()
        };
        let mut want = [0f32; 48];
        bcdec_rs::bc6h_float(&b, &mut want, 12, false);
        for (px, w) in v.chunks_exact(4).zip(want.chunks_exact(3)) {
            for c in 0..3 {
                assert!(
                    px[c].to_bits() == w[c].to_bits() || (px[c].is_nan() && w[c].is_nan()),
                    "{b:02x?}: {} vs {}",
                    px[c],
                    w[c]
                );
            }
        }
    }
}
