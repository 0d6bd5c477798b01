//! UE4/UE5 pixel decoders (`pakrat-texture`): byte 0 picks the format
//! (every one, ASTC footprints and an invalid footprint included), bytes
//! 1..5 the size, byte 5 the options, the rest is the slice. What decodes
//! must have the promised size and go through the PNG and EXR writers and a
//! strip layout.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_texture::{
    decode, layout, write_exr, write_png, DecodeOptions, Layout, PixelFormat as F, ASTC_FOOTPRINTS,
};

const PLAIN: [F; 21] = [
    F::B8G8R8A8,
    F::R8G8B8A8,
    F::G8,
    F::G16,
    F::A16B16G16R16,
    F::R16F,
    F::R32F,
    F::FloatRGBA,
    F::A32B32G32R32F,
    F::Dxt1,
    F::Dxt3,
    F::Dxt5,
    F::Bc4,
    F::Bc5,
    F::Bc6h,
    F::Bc7,
    F::Etc1,
    F::Etc2Rgb,
    F::Etc2Rgba,
    F::Etc2R11Eac,
    F::Etc2Rg11Eac,
];

fn format(b: u8) -> F {
    let i = usize::from(b) % (PLAIN.len() + ASTC_FOOTPRINTS.len() + 2);
    if let Some(f) = PLAIN.get(i) {
        return *f;
    }
    match ASTC_FOOTPRINTS.get(i - PLAIN.len()) {
        Some(&(bw, bh)) => F::Astc { bw, bh, hdr: b & 0x80 != 0 },
        None => F::Astc { bw: b % 16, bh: b / 16, hdr: false },
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let f = format(data[0]);
    let width = u32::from(u16::from_le_bytes([data[1], data[2]]));
    let height = u32::from(u16::from_le_bytes([data[3], data[4]]));
    let opts = DecodeOptions {
        max_pixels: 1 << 20,
        rebuild_normal_z: data[5] & 1 != 0,
        parallel: data[5] & 2 != 0,
    };
    let Some(img) = ok(decode(f, width, height, &data[6..], &opts)) else {
        return;
    };
    assert_eq!(img.pixels.len() as u64, u64::from(width) * u64::from(height) * 4);
    if img.width * img.height <= 4096 {
        let mut png = Vec::new();
        ok(write_png(&img, &mut png));
        let mut exr = std::io::Cursor::new(Vec::new());
        ok(write_exr(&img, &mut exr));
        ok(layout(&[img.clone(), img], Layout::Strip));
    }
});
