//! Decodes ASTC blocks through `pakrat_texture::decode`, for comparison with
//! a reference decoder (tools/astc_reference.py runs ARM's astcenc).
//!
//! ```text
//! cargo run -p pakrat-texture --example astc_blocks -- BW BH BLOCKS.bin OUT.rgba
//! ```
//!
//! BLOCKS.bin holds N blocks of 16 bytes; they are decoded as one row of N
//! blocks (a `BW·N`×`BH` slice) and OUT.rgba receives, block after block,
//! each block's `BW·BH` RGBA8 pixels row-major.

use pakrat_texture::{decode, DecodeOptions, PixelFormat, Pixels};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [bw, bh, input, output] = &args[..] else {
        eprintln!("usage: astc_blocks BW BH BLOCKS.bin OUT.rgba");
        std::process::exit(2);
    };
    let (bw, bh): (u8, u8) = (bw.parse().expect("BW"), bh.parse().expect("BH"));
    let data = std::fs::read(input).expect("read blocks");
    let n = data.len() / 16;
    let format = PixelFormat::Astc { bw, bh, hdr: false };
    let (w, h) = (usize::from(bw) * n, usize::from(bh));
    let img = decode(format, w as u32, h as u32, &data, &DecodeOptions::default()).expect("decode");
    let Pixels::Rgba8(px) = img.pixels else {
        panic!("ASTC LDR decodes to RGBA8")
    };
    let mut out = Vec::with_capacity(px.len());
    for b in 0..n {
        for y in 0..h {
            let start = (y * w + b * usize::from(bw)) * 4;
            out.extend_from_slice(&px[start..start + usize::from(bw) * 4]);
        }
    }
    std::fs::write(output, out).expect("write pixels");
}
