//! DDS writer (`pakrat-texture`): a header from hostile bytes (format,
//! size, depth, kind, mip count, surface count) and mips cut from the rest.
//! Either an error before anything is written, or a file whose length is
//! the header plus every mip's size.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_texture::{write_dds, DdsInfo, DdsKind, PixelFormat as F};

const FORMATS: [F; 14] = [
    F::B8G8R8A8,
    F::R8G8B8A8,
    F::G8,
    F::G16,
    F::R16F,
    F::FloatRGBA,
    F::A32B32G32R32F,
    F::Dxt1,
    F::Dxt5,
    F::Bc4,
    F::Bc5,
    F::Bc6h,
    F::Bc7,
    F::Astc { bw: 6, bh: 6, hdr: false },
];

fuzz_target!(|data: &[u8]| {
    if data.len() < 12 {
        return;
    }
    let format = FORMATS[usize::from(data[0]) % FORMATS.len()];
    let width = u32::from(u16::from_le_bytes([data[1], data[2]]));
    let height = u32::from(u16::from_le_bytes([data[3], data[4]]));
    let depth = u32::from(data[5]);
    let n = u32::from(data[7]);
    let kind = match data[6] % 5 {
        0 => DdsKind::Texture2D,
        1 => DdsKind::Cube,
        2 => DdsKind::Array(n),
        3 => DdsKind::CubeArray(n),
        _ => DdsKind::Volume,
    };
    let mips = u32::from(data[8] % 40);
    let surfaces = usize::from(data[9] % 16);
    let info = DdsInfo { format, width, height, depth, kind, mips };
    // Mip m of every surface: the rest from a moving offset, at most 4 KiB.
    let rest = &data[10..];
    let surf: Vec<Vec<&[u8]>> = (0..surfaces)
        .map(|s| {
            (0..mips as usize)
                .map(|m| {
                    let at = (s * 7 + m * 3) % rest.len().max(1);
                    &rest[at.min(rest.len())..][..(rest.len() - at.min(rest.len())).min(4096)]
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    let r = write_dds(&info, &surf, &mut out);
    if ok(r).is_some() {
        assert_eq!(&out[..4], b"DDS ");
        let dx10 = out.len() >= 88 && &out[84..88] == b"DX10";
        let head = if dx10 { 148 } else { 128 };
        let mut want = head as u64;
        for _ in 0..surfaces {
            for m in 0..mips {
                let d = if kind == DdsKind::Volume { (depth >> m).max(1) } else { 1 };
                want += format.slice_size((width >> m).max(1), (height >> m).max(1)).unwrap() * u64::from(d);
            }
        }
        assert_eq!(out.len() as u64, want);
    } else {
        assert!(out.is_empty(), "an error after writing began");
    }
});
