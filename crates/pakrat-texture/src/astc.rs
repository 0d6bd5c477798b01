//! ASTC (LDR) blocks through `astc-decode`, with one correction: blocks of
//! several partitions whose colour endpoint modes are given per partition
//! and include an HDR mode.
//!
//! The cause (measured against ARM's `astcenc`, tools/astc_reference.py):
//! in the LDR profile an HDR endpoint mode (2, 3, 7, 11, 14, 15) decodes to
//! the error colour, but its colour values still occupy their place in the
//! block's colour data (2, 4, 6 or 8 values, by the mode's class).
//! `astc-decode` gives such a partition the error colour without consuming
//! its values, so every later partition reads the wrong values. Single
//! partition blocks and blocks with one mode for all partitions are not
//! affected (there every partition is HDR or none is).
//!
//! The correction: such a block is decoded by `astc-decode` with each HDR
//! mode replaced by the LDR mode of the same class (the two mode bits set
//! to 0: modes 0, 4, 8, 12), which takes the same number of values, so the
//! layout of the block is unchanged and the LDR partitions come out right;
//! the texels of the HDR partitions are then set to the error colour.
//!
//! Facts: Khronos Data Format Specification 1.3, "ASTC": the block mode
//! (weight grid, weight range, dual plane), the integer sequence encoding's
//! bit counts, the partition count and index, the colour endpoint mode
//! field (6 bits; with a non-zero class selector the rest of it lies just
//! below the weights: 3·partitions − 4 bits), and the partition hash.

/// The specification's error colour for LDR decoding (magenta).
const ERROR: [u8; 4] = [0xFF, 0x00, 0xFF, 0xFF];

/// Decodes one ASTC LDR block of `bw`×`bh` texels into RGBA8 at `pitch`.
pub(crate) fn block(src: &[u8], dst: &mut [u8], pitch: usize, bw: u8, bh: u8) {
    let block: &[u8; 16] = src.try_into().expect("blocks of 16 bytes");
    let fp = astc_decode::Footprint::new(u32::from(bw), u32::from(bh));
    let mut put = |x: u32, y: u32, c: [u8; 4]| {
        dst[y as usize * pitch + x as usize * 4..][..4].copy_from_slice(&c);
    };
    match hdr_partitions(block, bw, bh) {
        None => {
            astc_decode::astc_decode_block(block, fp, put);
        }
        Some(fix) => {
            let small = u32::from(bw) * u32::from(bh) < 32;
            let parts = Partitions::new(fix.seed, fix.partitions, small);
            astc_decode::astc_decode_block(&fix.block, fp, |x, y, c| {
                let p = parts.of(x, y);
                put(x, y, if fix.hdr & (1 << p) != 0 { ERROR } else { c });
            });
        }
    }
}

/// A block to decode corrected: the block with its HDR modes replaced,
/// its partition count and index, and which partitions were HDR (bit i).
#[derive(Debug, PartialEq)]
pub(crate) struct Fix {
    pub block: [u8; 16],
    pub partitions: u32,
    pub seed: u32,
    pub hdr: u8,
}

/// Whether colour endpoint mode `m` is an HDR mode.
fn is_hdr(m: u32) -> bool {
    matches!(m, 2 | 3 | 7 | 11 | 14 | 15)
}

/// The block's correction, or `None` when `astc-decode` decodes it as the
/// reference does (one partition, one mode for all, no HDR mode, void
/// extent, or a block mode that is an error anyway).
pub(crate) fn hdr_partitions(block: &[u8; 16], bw: u8, bh: u8) -> Option<Fix> {
    let v = u128::from_le_bytes(*block);
    let bits = |pos: u32, n: u32| ((v >> pos) as u32) & ((1 << n) - 1);
    let partitions = bits(11, 2) + 1;
    let selector = bits(23, 2);
    if partitions == 1 || selector == 0 {
        return None;
    }
    let weight_bits = weight_bits(bits(0, 11), bw, bh)?;
    let extra = 3 * partitions - 4;
    let extra_pos = 128u32.checked_sub(weight_bits + extra)?;
    let cem = bits(23, 6) | (bits(extra_pos, extra) << 6);
    let class = selector - 1;
    let mut hdr = 0u8;
    let mut fixed = v;
    for i in 0..partitions {
        let c = (cem >> (2 + i)) & 1;
        let m_at = 2 + partitions + 2 * i;
        let mode = ((class + c) << 2) | ((cem >> m_at) & 3);
        if is_hdr(mode) {
            hdr |= 1 << i;
            // Clear the two mode bits: in the 6-bit field or below the weights.
            for b in m_at..m_at + 2 {
                let pos = if b < 6 { 23 + b } else { extra_pos + b - 6 };
                fixed &= !(1u128 << pos);
            }
        }
    }
    (hdr != 0).then(|| Fix {
        block: fixed.to_le_bytes(),
        partitions,
        seed: bits(13, 10),
        hdr,
    })
}

/// Bits of a block's weights from its 11-bit block mode, or `None` for a
/// reserved mode, the void extent or a weight grid the footprint refuses.
fn weight_bits(mode: u32, bw: u8, bh: u8) -> Option<u32> {
    let a = (mode >> 5) & 3;
    let (mut dual, mut high) = ((mode >> 10) & 1, (mode >> 9) & 1);
    let range;
    let (x, y);
    if mode & 3 != 0 {
        range = ((mode >> 4) & 1) | ((mode & 3) << 1);
        let b = (mode >> 7) & 3;
        (x, y) = match (mode >> 2) & 3 {
            0 => (b + 4, a + 2),
            1 => (b + 8, a + 2),
            2 => (a + 2, b + 8),
            _ if mode & 0x100 != 0 => ((b & 1) + 2, a + 2),
            _ => (a + 2, (b & 1) + 6),
        };
    } else {
        range = ((mode >> 4) & 1) | (((mode >> 2) & 3) << 1);
        if (mode >> 2) & 3 == 0 {
            return None; // reserved, or the void extent
        }
        let b = (mode >> 9) & 3;
        (x, y) = match (mode >> 7) & 3 {
            0 => (12, a + 2),
            1 => (a + 2, 12),
            2 => {
                (dual, high) = (0, 0);
                (a + 6, b + 6)
            }
            _ => match a {
                0 => (6, 10),
                1 => (10, 6),
                _ => return None,
            },
        };
    }
    if x > u32::from(bw) || y > u32::from(bh) {
        return None;
    }
    let count = x * y * (dual + 1);
    let bits = ise_bits(count, range - 2 + 6 * high);
    (count <= 64 && (24..=96).contains(&bits)).then_some(bits)
}

/// Bits that the integer sequence encoding takes for `n` values of weight
/// range `q` (0..=11: 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32 levels).
fn ise_bits(n: u32, q: u32) -> u32 {
    // (plain bits per value, trits?, quints?)
    let (bits, trit, quint) = match q {
        0 => (1, false, false),
        1 => (0, true, false),
        2 => (2, false, false),
        3 => (0, false, true),
        4 => (1, true, false),
        5 => (3, false, false),
        6 => (1, false, true),
        7 => (2, true, false),
        8 => (4, false, false),
        9 => (2, false, true),
        10 => (3, true, false),
        _ => (5, false, false),
    };
    n * bits
        + if trit { (8 * n).div_ceil(5) } else { 0 }
        + if quint { (7 * n).div_ceil(3) } else { 0 }
}

/// The specification's partition hash of a seed.
fn hash52(mut p: u32) -> u32 {
    p ^= p >> 15;
    p = p.wrapping_sub(p << 17);
    p = p.wrapping_add(p << 7);
    p = p.wrapping_add(p << 4);
    p ^= p >> 5;
    p = p.wrapping_add(p << 16);
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    p
}

/// The specification's partition selection function for one 2D block:
/// the seed's hash is computed once, [`Partitions::of`] then takes a texel.
pub(crate) struct Partitions {
    /// The eight x/y factors (seeds 1–8, squared and shifted).
    f: [u32; 8],
    /// The four offsets (hash >> 14, 10, 6, 2).
    off: [u32; 4],
    count: u32,
    small: bool,
}

impl Partitions {
    /// Partitioning `seed` (the block's 10-bit partition index) into
    /// `count` partitions; `small` for blocks of fewer than 32 texels.
    pub(crate) fn new(seed: u32, count: u32, small: bool) -> Partitions {
        let seed = seed + (count - 1) * 1024;
        let r = hash52(seed);
        let (sh1, sh2) = if seed & 1 != 0 {
            (
                if seed & 2 != 0 { 4 } else { 5 },
                if count == 3 { 6 } else { 5 },
            )
        } else {
            (
                if count == 3 { 6 } else { 5 },
                if seed & 2 != 0 { 4 } else { 5 },
            )
        };
        let mut f = [0u32; 8];
        for (i, f) in f.iter_mut().enumerate() {
            let v = (r >> (4 * i)) & 0xF;
            // Odd seeds (1, 3, 5, 7) shift by sh1, even ones by sh2; z is 0
            // in 2D, so seeds 9 to 12 (the z factors) drop out.
            *f = (v * v) >> if i % 2 == 0 { sh1 } else { sh2 };
        }
        Partitions {
            f,
            off: [r >> 14, r >> 10, r >> 6, r >> 2],
            count,
            small,
        }
    }

    /// The partition (0..count) of texel (`x`, `y`).
    #[inline]
    pub(crate) fn of(&self, x: u32, y: u32) -> u32 {
        let (x, y) = if self.small { (x << 1, y << 1) } else { (x, y) };
        let v = |k: usize| (self.f[2 * k] * x + self.f[2 * k + 1] * y + self.off[k]) & 0x3F;
        let (a, b) = (v(0), v(1));
        let c = if self.count >= 3 { v(2) } else { 0 };
        let d = if self.count >= 4 { v(3) } else { 0 };
        if a >= b && a >= c && a >= d {
            0
        } else if b >= c && b >= d {
            1
        } else if c >= d {
            2
        } else {
            3
        }
    }
}
