//! RIFF/WAVE as Unreal cooks it: a cooked `PCM` or `ADPCM` SoundWave's
//! chunks, put end to end, are one `.wav` file (a `RIFF` header, a `fmt `
//! chunk of 18 bytes and a `data` chunk).
//!
//! [`parse`] walks the chunks with every size checked; [`to_pcm16`] turns
//! the ADPCM forms into 16-bit PCM:
//! * Microsoft ADPCM (format tag 2), the one Unreal's ADPCM encoder writes
//!   (blocks of a predictor index, a delta and two seed samples per channel,
//!   then 4-bit codes, high nibble first; coefficients from the `fmt `
//!   extension). Facts: Microsoft "Multimedia Standards Update" (1994),
//!   section on `WAVE_FORMAT_ADPCM`;
//! * IMA/DVI ADPCM (format tag 0x11): a seed sample and step index per
//!   channel, then groups of 4 bytes per channel, low nibble first.
//!   Facts: IMA "Recommended Practices for Enhancing Digital Audio
//!   Compatibility in Multimedia Systems" (1992).
//!
//! Nothing here is sized by the file's claims before they are checked
//! against the bytes that are there.

use pakrat_io::{Error, Reader, Result};
use std::ops::Range;

/// `WAVE_FORMAT_PCM`.
pub const FORMAT_PCM: u16 = 1;
/// `WAVE_FORMAT_ADPCM` (Microsoft ADPCM).
pub const FORMAT_MS_ADPCM: u16 = 2;
/// `WAVE_FORMAT_IEEE_FLOAT`.
pub const FORMAT_FLOAT: u16 = 3;
/// `WAVE_FORMAT_DVI_ADPCM` (IMA ADPCM).
pub const FORMAT_IMA_ADPCM: u16 = 0x11;
/// `WAVE_FORMAT_EXTENSIBLE`: the real tag is the sub-format GUID's first two bytes.
pub const FORMAT_EXTENSIBLE: u16 = 0xFFFE;

/// What a WAVE file's `fmt ` chunk says, and where its samples are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wav {
    /// The format tag (for `WAVE_FORMAT_EXTENSIBLE`, the sub-format's).
    pub format: u16,
    /// Channels.
    pub channels: u16,
    /// Samples per second.
    pub sample_rate: u32,
    /// Bytes per block (one frame for PCM; one ADPCM block).
    pub block_align: u16,
    /// Bits per sample (4 for ADPCM).
    pub bits_per_sample: u16,
    /// The `fmt ` extension after `cbSize` (ADPCM: samples per block, coefficients).
    pub extra: Vec<u8>,
    /// Byte range of the `data` chunk's contents in the file.
    pub data: Range<usize>,
}

impl Wav {
    /// The format's usual name.
    pub fn format_name(&self) -> &'static str {
        match self.format {
            FORMAT_PCM => "PCM",
            FORMAT_MS_ADPCM => "MS ADPCM",
            FORMAT_FLOAT => "IEEE float",
            FORMAT_IMA_ADPCM => "IMA ADPCM",
            _ => "unknown",
        }
    }

    /// Sample frames in the data chunk, for the formats pakrat decodes.
    pub fn frames(&self) -> Option<u64> {
        let len = (self.data.end - self.data.start) as u64;
        match self.format {
            FORMAT_PCM | FORMAT_FLOAT => {
                let frame = u64::from(self.block_align);
                (frame > 0).then(|| len / frame)
            }
            FORMAT_MS_ADPCM | FORMAT_IMA_ADPCM => {
                let block = u64::from(self.block_align);
                let per = u64::from(adpcm_samples_per_block(self)?);
                let full = len / block;
                let tail = len % block;
                let tail_frames = if tail == 0 {
                    0
                } else {
                    u64::from(partial_block_samples(self, tail as usize)?)
                };
                Some(full * per + tail_frames)
            }
            _ => None,
        }
    }
}

/// Walk a RIFF/WAVE file: the `fmt ` and `data` chunks, every size checked.
pub fn parse(bytes: &[u8]) -> Result<Wav> {
    let mut r = Reader::new(bytes);
    let riff = r.array::<4>("RIFF tag")?;
    if &riff != b"RIFF" {
        return Err(Error::Invalid {
            offset: 0,
            what: format!("expected a RIFF tag, found {riff:02x?}"),
        });
    }
    let riff_size = r.u32("RIFF size")?;
    let wave = r.array::<4>("WAVE tag")?;
    if &wave != b"WAVE" {
        return Err(r.invalid(format!("expected the WAVE form type, found {wave:02x?}")));
    }
    // The RIFF size counts from the WAVE tag; a cook may round it, so the
    // chunks are bounded by the smaller of it and the bytes present.
    let end = (8 + riff_size as usize).min(bytes.len());
    let mut fmt: Option<Wav> = None;
    let mut data: Option<Range<usize>> = None;
    while r.pos() + 8 <= end {
        let id = r.array::<4>("chunk id")?;
        let size = r.u32("chunk size")? as usize;
        let start = r.pos();
        if size > end - start {
            return Err(Error::Invalid {
                offset: start as u64 - 4,
                what: format!(
                    "chunk {:?} claims {size} bytes but only {} remain",
                    String::from_utf8_lossy(&id),
                    end - start
                ),
            });
        }
        match &id {
            b"fmt " => fmt = Some(read_fmt(r.sub(start as u64, size as u64, "fmt chunk")?)?),
            b"data" if data.is_none() => data = Some(start..start + size),
            _ => {}
        }
        // Chunks are padded to even sizes.
        let next = start + size + (size & 1);
        if next > end {
            break;
        }
        r.seek(next as u64, "next chunk")?;
    }
    let mut wav = fmt.ok_or_else(|| r.invalid("no fmt chunk in the WAVE file"))?;
    wav.data = data.ok_or_else(|| r.invalid("no data chunk in the WAVE file"))?;
    Ok(wav)
}

fn read_fmt(mut r: Reader<'_>) -> Result<Wav> {
    let mut format = r.u16("format tag")?;
    let channels = r.u16("channels")?;
    let sample_rate = r.u32("sample rate")?;
    let _avg_bytes = r.u32("bytes per second")?;
    let block_align = r.u16("block align")?;
    let bits_per_sample = r.u16("bits per sample")?;
    let mut extra = Vec::new();
    if r.remaining() >= 2 {
        let cb = r.u16("cbSize")?;
        let cb = usize::from(cb).min(r.remaining());
        extra = r.bytes(cb as u64, "fmt extension")?.to_vec();
    }
    if format == FORMAT_EXTENSIBLE && extra.len() >= 8 {
        // wValidBitsPerSample, dwChannelMask, then the sub-format GUID,
        // whose first two bytes are the real tag.
        format = u16::from_le_bytes([extra[6], extra[7]]);
    }
    if channels == 0 || block_align == 0 {
        return Err(r.invalid(format!(
            "a WAVE fmt chunk with {channels} channels and block align {block_align}"
        )));
    }
    Ok(Wav {
        format,
        channels,
        sample_rate,
        block_align,
        bits_per_sample,
        extra,
        data: 0..0,
    })
}

/// Samples per channel in a whole ADPCM block.
fn adpcm_samples_per_block(w: &Wav) -> Option<u32> {
    let ch = u32::from(w.channels);
    let block = u32::from(w.block_align);
    match w.format {
        // 7 header bytes per channel hold 2 samples.
        FORMAT_MS_ADPCM => block.checked_sub(7 * ch).map(|b| b * 2 / ch + 2),
        // 4 header bytes per channel hold 1 sample.
        FORMAT_IMA_ADPCM => block.checked_sub(4 * ch).map(|b| b * 2 / ch + 1),
        _ => None,
    }
}

/// Samples per channel in a short last block of `len` bytes.
fn partial_block_samples(w: &Wav, len: usize) -> Option<u32> {
    let short = Wav {
        block_align: u16::try_from(len).ok()?,
        ..w.clone()
    };
    match w.format {
        // IMA blocks decode in groups of 4 bytes per channel.
        FORMAT_IMA_ADPCM => {
            let ch = usize::from(w.channels);
            let body = len.checked_sub(4 * ch)?;
            Some((body / (4 * ch) * 8 + 1) as u32)
        }
        _ => adpcm_samples_per_block(&short),
    }
}

/// The file as 16-bit PCM: PCM is returned as it is (borrowed), ADPCM is
/// decoded into a new WAVE file. `max_bytes` bounds the decoded size,
/// checked before allocating.
pub fn to_pcm16<'a>(
    bytes: &'a [u8],
    wav: &Wav,
    max_bytes: u64,
) -> Result<std::borrow::Cow<'a, [u8]>> {
    let frames = match wav.format {
        FORMAT_PCM => return Ok(std::borrow::Cow::Borrowed(bytes)),
        FORMAT_MS_ADPCM | FORMAT_IMA_ADPCM => wav.frames().ok_or_else(|| Error::Invalid {
            offset: 0,
            what: format!(
                "{} with block align {} for {} channels",
                wav.format_name(),
                wav.block_align,
                wav.channels
            ),
        })?,
        other => {
            return Err(Error::Unsupported {
                offset: 0,
                what: format!("WAVE format tag {other:#x} (only PCM and ADPCM are decoded)"),
            })
        }
    };
    let out_len = frames * u64::from(wav.channels) * 2;
    if out_len > max_bytes {
        return Err(Error::Invalid {
            offset: wav.data.start as u64,
            what: format!(
                "decoded audio would take {out_len} bytes, over the limit of {max_bytes}"
            ),
        });
    }
    let mut samples: Vec<i16> = Vec::with_capacity(out_len as usize / 2);
    let data = &bytes[wav.data.clone()];
    let block = usize::from(wav.block_align);
    let coefs = if wav.format == FORMAT_MS_ADPCM {
        ms_coefficients(wav)?
    } else {
        Vec::new()
    };
    for (i, chunk) in data.chunks(block).enumerate() {
        let at = (wav.data.start + i * block) as u64;
        match wav.format {
            FORMAT_MS_ADPCM => ms_block(chunk, wav.channels, &coefs, at, &mut samples)?,
            _ => ima_block(chunk, wav.channels, at, &mut samples)?,
        }
    }
    Ok(std::borrow::Cow::Owned(pcm16_file(
        wav.channels,
        wav.sample_rate,
        &samples,
    )))
}

/// A 16-bit PCM WAVE file of interleaved `samples`.
pub fn pcm16_file(channels: u16, sample_rate: u32, samples: &[i16]) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut out = Vec::with_capacity(44 + samples.len() * 2);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&FORMAT_PCM.to_le_bytes());
    out.extend_from_slice(&channels.to_le_bytes());
    out.extend_from_slice(&sample_rate.to_le_bytes());
    let align = channels * 2;
    out.extend_from_slice(&(sample_rate * u32::from(align)).to_le_bytes());
    out.extend_from_slice(&align.to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// The seven standard Microsoft ADPCM coefficient pairs, used when the
/// `fmt ` extension does not carry its own.
const MS_DEFAULT_COEFS: [(i16, i16); 7] = [
    (256, 0),
    (512, -256),
    (0, 0),
    (192, 64),
    (240, 0),
    (460, -208),
    (392, -232),
];

const MS_ADAPT: [i32; 16] = [
    230, 230, 230, 230, 307, 409, 512, 614, 768, 614, 512, 409, 307, 230, 230, 230,
];

/// The coefficient table of the `fmt ` extension (`wSamplesPerBlock`,
/// `wNumCoef`, then the pairs).
fn ms_coefficients(w: &Wav) -> Result<Vec<(i16, i16)>> {
    if w.extra.len() < 4 {
        return Ok(MS_DEFAULT_COEFS.to_vec());
    }
    let mut r = Reader::new(&w.extra);
    let _per_block = r.u16("samples per block")?;
    let n = r.u16("coefficient count")? as usize;
    if n == 0 || n * 4 > r.remaining() {
        return Err(r.invalid(format!(
            "MS ADPCM fmt extension claims {n} coefficient pairs in {} bytes",
            r.remaining()
        )));
    }
    (0..n)
        .map(|_| Ok((r.i16("coefficient 1")?, r.i16("coefficient 2")?)))
        .collect()
}

fn ms_block(
    b: &[u8],
    channels: u16,
    coefs: &[(i16, i16)],
    at: u64,
    out: &mut Vec<i16>,
) -> Result<()> {
    let ch = usize::from(channels);
    if b.len() < 7 * ch {
        return Err(Error::Invalid {
            offset: at,
            what: format!("an MS ADPCM block of {} bytes for {ch} channels", b.len()),
        });
    }
    let mut st: Vec<[i32; 5]> = Vec::with_capacity(ch); // coef1, coef2, delta, s1, s2
    for c in 0..ch {
        let p = usize::from(b[c]);
        let &(c1, c2) = coefs.get(p).ok_or_else(|| Error::Invalid {
            offset: at + c as u64,
            what: format!("MS ADPCM predictor {p} (the table has {})", coefs.len()),
        })?;
        let word = |k: usize| i32::from(i16::from_le_bytes([b[k], b[k + 1]]));
        let delta = word(ch + 2 * c);
        let s1 = word(3 * ch + 2 * c);
        let s2 = word(5 * ch + 2 * c);
        st.push([i32::from(c1), i32::from(c2), delta, s1, s2]);
    }
    // The two seed samples come first, the older one first.
    out.extend(st.iter().map(|s| s[4] as i16));
    out.extend(st.iter().map(|s| s[3] as i16));
    let mut c = 0;
    for &byte in &b[7 * ch..] {
        for nib in [byte >> 4, byte & 15] {
            let s = &mut st[c];
            let signed = i32::from(((nib << 4) as i8) >> 4);
            let predict = (s[3] * s[0] + s[4] * s[1]) >> 8;
            let sample = (predict + signed * s[2]).clamp(-32768, 32767);
            s[4] = s[3];
            s[3] = sample;
            s[2] = ((MS_ADAPT[usize::from(nib)] * s[2]) >> 8).max(16);
            out.push(sample as i16);
            c = (c + 1) % ch;
        }
    }
    Ok(())
}

const IMA_INDEX: [i32; 16] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8];

const IMA_STEP: [i32; 89] = [
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
    73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449,
    494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272,
    2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493,
    10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
];

fn ima_block(b: &[u8], channels: u16, at: u64, out: &mut Vec<i16>) -> Result<()> {
    let ch = usize::from(channels);
    if b.len() < 4 * ch {
        return Err(Error::Invalid {
            offset: at,
            what: format!("an IMA ADPCM block of {} bytes for {ch} channels", b.len()),
        });
    }
    let mut st: Vec<(i32, i32)> = Vec::with_capacity(ch); // predictor, step index
    for c in 0..ch {
        let p = i32::from(i16::from_le_bytes([b[4 * c], b[4 * c + 1]]));
        let idx = i32::from(b[4 * c + 2]);
        if idx > 88 {
            return Err(Error::Invalid {
                offset: at + 4 * c as u64 + 2,
                what: format!("IMA ADPCM step index {idx} (at most 88)"),
            });
        }
        st.push((p, idx));
    }
    out.extend(st.iter().map(|s| s.0 as i16));
    let body = &b[4 * ch..];
    let groups = body.len() / (4 * ch);
    let base = out.len();
    out.resize(base + groups * 8 * ch, 0);
    for g in 0..groups {
        for (c, s) in st.iter_mut().enumerate() {
            let word = &body[(g * ch + c) * 4..(g * ch + c) * 4 + 4];
            for (k, &byte) in word.iter().enumerate() {
                for (h, nib) in [byte & 15, byte >> 4].into_iter().enumerate() {
                    let step = IMA_STEP[s.1 as usize];
                    let mut diff = step >> 3;
                    if nib & 4 != 0 {
                        diff += step;
                    }
                    if nib & 2 != 0 {
                        diff += step >> 1;
                    }
                    if nib & 1 != 0 {
                        diff += step >> 2;
                    }
                    if nib & 8 != 0 {
                        diff = -diff;
                    }
                    s.0 = (s.0 + diff).clamp(-32768, 32767);
                    s.1 = (s.1 + IMA_INDEX[usize::from(nib)]).clamp(0, 88);
                    let frame = g * 8 + k * 2 + h;
                    out[base + frame * ch + c] = s.0 as i16;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
