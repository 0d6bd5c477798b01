//! EAC R11 and RG11 (`PF_ETC2_R11_EAC`, `PF_ETC2_RG11_EAC`), decoded by
//! hand: `texture2ddecoder`'s EAC 11-bit blocks came out with their pixels
//! out of place on the fixture project's Android textures (15 dB against
//! the source where BC4 of the same image gives 44 dB).
//!
//! Facts: Khronos Data Format Specification 1.3, section "EAC": a 64-bit
//! big-endian block holds an 8-bit base codeword, a 4-bit multiplier, a
//! 4-bit modifier table index and sixteen 3-bit indices, the first in the
//! top bits, in column order (pixel x = k / 4, y = k % 4). An unsigned value
//! is `clamp(base·8 + 4 + modifier·multiplier·8, 0, 2047)`; a multiplier of
//! 0 uses `modifier` itself in place of `modifier·multiplier·8`.

/// The modifier tables (the same as EAC alpha's).
const TABLES: [[i32; 8]; 16] = [
    [-3, -6, -9, -15, 2, 5, 8, 14],
    [-3, -7, -10, -13, 2, 6, 9, 12],
    [-2, -5, -8, -13, 1, 4, 7, 12],
    [-2, -4, -6, -13, 1, 3, 5, 12],
    [-3, -6, -8, -12, 2, 5, 7, 11],
    [-3, -7, -9, -11, 2, 6, 8, 10],
    [-4, -7, -8, -11, 3, 6, 7, 10],
    [-3, -5, -8, -11, 2, 4, 7, 10],
    [-2, -6, -8, -10, 1, 5, 7, 9],
    [-2, -5, -8, -10, 1, 4, 7, 9],
    [-2, -4, -8, -10, 1, 3, 7, 9],
    [-2, -5, -7, -10, 1, 4, 6, 9],
    [-3, -4, -7, -10, 2, 3, 6, 9],
    [-1, -2, -3, -10, 0, 1, 2, 9],
    [-4, -6, -8, -9, 3, 5, 7, 8],
    [-3, -5, -7, -9, 2, 4, 6, 8],
];

/// The sixteen unsigned 11-bit values of one block, row-major.
pub(crate) fn block11(src: &[u8]) -> [u16; 16] {
    let bits = u64::from_be_bytes(src[..8].try_into().expect("8-byte EAC block"));
    let base = ((bits >> 56) & 0xFF) as i32;
    let mult = ((bits >> 52) & 0xF) as i32;
    let table = &TABLES[((bits >> 48) & 0xF) as usize];
    let mut out = [0u16; 16];
    for k in 0..16 {
        let idx = ((bits >> (45 - 3 * k)) & 7) as usize;
        let m = table[idx];
        let delta = if mult == 0 { m } else { m * mult * 8 };
        let v = (base * 8 + 4 + delta).clamp(0, 2047);
        let (x, y) = (k / 4, k % 4);
        out[y * 4 + x] = v as u16;
    }
    out
}

/// An 11-bit value as 8 bits (rounded).
#[inline]
pub(crate) fn to8(v: u16) -> u8 {
    ((u32::from(v) * 255 + 1023) / 2047) as u8
}

/// One R11 block (8 bytes) into RGBA8 at `pitch`: red, G and B 0, A 255.
pub(crate) fn r11(src: &[u8], dst: &mut [u8], pitch: usize) {
    let r = block11(src);
    write(dst, pitch, |i| [to8(r[i]), 0, 0, 255]);
}

/// One RG11 block (16 bytes: red's block, then green's) into RGBA8.
pub(crate) fn rg11(src: &[u8], dst: &mut [u8], pitch: usize) {
    let r = block11(&src[..8]);
    let g = block11(&src[8..16]);
    write(dst, pitch, |i| [to8(r[i]), to8(g[i]), 0, 255]);
}

fn write(dst: &mut [u8], pitch: usize, px: impl Fn(usize) -> [u8; 4]) {
    for y in 0..4 {
        for (x, o) in dst[y * pitch..][..16].chunks_exact_mut(4).enumerate() {
            o.copy_from_slice(&px(y * 4 + x));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_run_down_the_columns() {
        // Base 100, multiplier 1, table 0; pixel k gets index k % 8, so the
        // first column (x = 0) holds indices 0,1,2,3 from top to bottom.
        let mut bits: u64 = (100 << 56) | (1 << 52);
        for k in 0..16u64 {
            bits |= (k % 8) << (45 - 3 * k);
        }
        let v = block11(&bits.to_be_bytes());
        let want = |idx: usize| (100 * 8 + 4 + TABLES[0][idx] * 8) as u16;
        for y in 0..4 {
            for x in 0..4 {
                assert_eq!(v[y * 4 + x], want((x * 4 + y) % 8), "pixel ({x}, {y})");
            }
        }
    }

    #[test]
    fn multiplier_zero_and_clamping() {
        // Multiplier 0: the modifier itself; base 0 with -15 clamps at 0,
        // base 255 with +14·15·8 clamps at 2047.
        let v = block11(&0u64.to_be_bytes());
        assert_eq!(v[0], 4 - 3);
        let v = block11(&(3u64 << 45).to_be_bytes());
        assert_eq!(v[0], 0, "4 - 15 clamps at 0");
        let v = block11(&((255u64 << 56) | (15 << 52) | (7u64 << 45)).to_be_bytes());
        assert_eq!(v[0], 2047);
        assert_eq!((to8(0), to8(2047), to8(1023)), (0, 255, 127));
    }
}
