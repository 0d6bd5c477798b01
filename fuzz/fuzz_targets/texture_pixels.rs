//! Pixel decoders and PNG writer: byte 0 picks the format, bytes 1..5 the
//! size, the rest is the mip data (palette = a grey ramp).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_classic::texture::{decode_mip, Mip, PixelFormat as F};

const FORMATS: [F; 12] = [
    F::P8,
    F::Rgba7,
    F::Rgb565,
    F::Dxt1,
    F::Rgb8,
    F::Bgra8,
    F::Bgra8Lm,
    F::NoData,
    F::Dxt3,
    F::Dxt5,
    F::L8,
    F::G16,
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let format = FORMATS[usize::from(data[0]) % FORMATS.len()];
    let width = u32::from(u16::from_le_bytes([data[1], data[2]]));
    let height = u32::from(u16::from_le_bytes([data[3], data[4]]));
    let flags = data[5];
    let mip = Mip {
        data: &data[6..],
        width,
        height,
        ubits: 0,
        vbits: 0,
    };
    let palette: Vec<[u8; 4]> = (0..=255u8).map(|i| [i, i, i, i]).collect();
    let pal = (flags & 1 == 0).then_some(&palette[..]);
    if let Some(img) = ok(decode_mip(
        &mip,
        format,
        pal,
        flags & 2 != 0,
        flags & 4 != 0,
    )) {
        let _ = ok(img.to_png());
    }
});
