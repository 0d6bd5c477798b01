use super::*;

/// A WAVE file with an 18-byte `fmt ` chunk (as Unreal's cook writes it)
/// and the given `extra` extension.
fn wav(
    format: u16,
    channels: u16,
    rate: u32,
    align: u16,
    bits: u16,
    extra: &[u8],
    data: &[u8],
) -> Vec<u8> {
    let mut fmt = Vec::new();
    fmt.extend_from_slice(&format.to_le_bytes());
    fmt.extend_from_slice(&channels.to_le_bytes());
    fmt.extend_from_slice(&rate.to_le_bytes());
    fmt.extend_from_slice(&(rate * u32::from(align)).to_le_bytes());
    fmt.extend_from_slice(&align.to_le_bytes());
    fmt.extend_from_slice(&bits.to_le_bytes());
    fmt.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    fmt.extend_from_slice(extra);
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&((4 + 8 + fmt.len() + 8 + data.len()) as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&(fmt.len() as u32).to_le_bytes());
    out.extend_from_slice(&fmt);
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    out
}

fn samples(file: &[u8]) -> Vec<i16> {
    let w = parse(file).unwrap();
    file[w.data]
        .chunks(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}

#[test]
fn pcm_is_returned_as_it_is() {
    let f = wav(1, 1, 22050, 2, 16, &[], &[1, 0, 2, 0, 3, 0]);
    let w = parse(&f).unwrap();
    assert_eq!(
        (w.format, w.channels, w.sample_rate, w.frames()),
        (1, 1, 22050, Some(3))
    );
    let out = to_pcm16(&f, &w, 1 << 20).unwrap();
    assert!(matches!(out, std::borrow::Cow::Borrowed(_)));
    assert_eq!(samples(&out), [1, 2, 3]);
}

#[test]
fn ms_adpcm_block_decodes_by_the_spec() {
    // Predictor 0 (256, 0), delta 16, sample1 100, sample2 50, then codes
    // 1, 2, -1, -8 (bytes 0x12, 0xF8). Worked by hand:
    //   100 + 1*16 = 116 (delta 230*16>>8 = 14 -> floor 16)
    //   116 + 2*16 = 148, 148 - 16 = 132, 132 - 8*16 = 4.
    let mut block = vec![0u8];
    block.extend_from_slice(&16i16.to_le_bytes());
    block.extend_from_slice(&100i16.to_le_bytes());
    block.extend_from_slice(&50i16.to_le_bytes());
    block.extend_from_slice(&[0x12, 0xF8]);
    let mut extra = Vec::new();
    extra.extend_from_slice(&6u16.to_le_bytes()); // samples per block
    extra.extend_from_slice(&7u16.to_le_bytes());
    for (a, b) in MS_DEFAULT_COEFS {
        extra.extend_from_slice(&a.to_le_bytes());
        extra.extend_from_slice(&b.to_le_bytes());
    }
    let f = wav(2, 1, 8000, block.len() as u16, 4, &extra, &block);
    let w = parse(&f).unwrap();
    assert_eq!(w.frames(), Some(6));
    let out = to_pcm16(&f, &w, 1 << 20).unwrap();
    assert_eq!(samples(&out), [50, 100, 116, 148, 132, 4]);
    let w2 = parse(&out).unwrap();
    assert_eq!((w2.format, w2.channels, w2.sample_rate), (1, 1, 8000));
}

#[test]
fn ima_adpcm_block_decodes_by_the_spec() {
    // Seed 0, index 0; code 7 then seven 0s. Step 7: diff 7+3+1 = 11,
    // index 8 (step 16): +2, then steps 14, 13, 12, 11, 10, 9 each +1.
    let block = [0, 0, 0, 0, 0x07, 0, 0, 0];
    let f = wav(0x11, 1, 8000, 8, 4, &[], &block);
    let w = parse(&f).unwrap();
    assert_eq!(w.frames(), Some(9));
    let out = to_pcm16(&f, &w, 1 << 20).unwrap();
    assert_eq!(samples(&out), [0, 11, 13, 14, 15, 16, 17, 18, 19]);
}

#[test]
fn hostile_headers_are_errors() {
    // A data chunk that claims more than is there.
    let mut f = wav(1, 1, 8000, 2, 16, &[], &[0; 4]);
    let n = f.len();
    f[n - 8..n - 4].copy_from_slice(&1000u32.to_le_bytes());
    assert!(parse(&f)
        .unwrap_err()
        .to_string()
        .contains("claims 1000 bytes"));
    // Zero channels, an ADPCM block smaller than its header, a predictor
    // outside the table, a decoded size over the limit.
    assert!(parse(&wav(1, 0, 8000, 2, 16, &[], &[0; 4])).is_err());
    let f = wav(2, 2, 8000, 4, 4, &[], &[0; 4]);
    let w = parse(&f).unwrap();
    assert!(to_pcm16(&f, &w, 1 << 20).is_err());
    let f = wav(2, 1, 8000, 8, 4, &[], &[9, 16, 0, 0, 0, 0, 0, 0]);
    let w = parse(&f).unwrap();
    assert!(to_pcm16(&f, &w, 1 << 20)
        .unwrap_err()
        .to_string()
        .contains("predictor 9"));
    let f = wav(0x11, 1, 8000, 8, 4, &[], &[0; 8]);
    let w = parse(&f).unwrap();
    assert!(to_pcm16(&f, &w, 4)
        .unwrap_err()
        .to_string()
        .contains("over the limit"));
    // Not RIFF at all, and every truncation of a valid file.
    assert!(parse(b"OggS\0\0\0\0").is_err());
    let good = wav(1, 1, 8000, 2, 16, &[], &[1, 0]);
    for cut in 0..good.len() - 2 {
        let _ = parse(&good[..cut]);
    }
}
