//! Unreal's compact index (`FCompactIndex`), 1–5 bytes.
//!
//! Byte 0: bit 7 = sign, bit 6 = more follows, bits 0–5 = value bits 0–5.
//! Bytes 1–3: bit 7 = more follows, bits 0–6 = the next 7 bits (shifts 6, 13, 20).
//! Byte 4: a full byte at shift 27. Epic's writer emits the shortest form.
//! (`../shared/formats/classic.md` §1.1; UEViewer `operator<<(FCompactIndex)`.)
//! Every `i32`, `i32::MIN` included, round-trips.

/// Largest encoded size in bytes.
pub const MAX_LEN: usize = 5;

/// Decode a compact index at the start of `data`.
///
/// Returns the value and the number of bytes used, or `None` when `data`
/// ends before the value does. Magnitudes beyond 32 bits (possible only in
/// a corrupt fifth byte) wrap like the engine's `INT` arithmetic.
pub fn decode(data: &[u8]) -> Option<(i32, usize)> {
    let b0 = *data.first()?;
    let negative = b0 & 0x80 != 0;
    let mut value: u64 = u64::from(b0 & 0x3F);
    let mut used = 1;
    if b0 & 0x40 != 0 {
        let mut shift = 6;
        loop {
            let b = *data.get(used)?;
            used += 1;
            if used == MAX_LEN {
                value |= u64::from(b) << shift;
                break;
            }
            value |= u64::from(b & 0x7F) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
    }
    let magnitude = value as u32;
    let v = if negative {
        (magnitude as i32).wrapping_neg()
    } else {
        magnitude as i32
    };
    Some((v, used))
}

/// Encoded length of `v` in the shortest form.
pub fn encoded_len(v: i32) -> usize {
    let mut m = v.unsigned_abs() >> 6;
    let mut n = 1;
    while m != 0 && n < MAX_LEN {
        m >>= 7;
        n += 1;
    }
    n
}

/// Encode `v` in the shortest form into a small buffer; returns (bytes, length).
pub fn encode(v: i32) -> ([u8; MAX_LEN], usize) {
    let mut out = [0u8; MAX_LEN];
    let mut m = v.unsigned_abs();
    let mut b0 = (m & 0x3F) as u8;
    if v < 0 {
        b0 |= 0x80;
    }
    m >>= 6;
    if m != 0 {
        b0 |= 0x40;
    }
    out[0] = b0;
    let mut n = 1;
    while m != 0 {
        if n == MAX_LEN - 1 {
            out[n] = m as u8;
            n += 1;
            break;
        }
        let mut b = (m & 0x7F) as u8;
        m >>= 7;
        if m != 0 {
            b |= 0x80;
        }
        out[n] = b;
        n += 1;
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        assert_eq!(&encode(0).0[..1], &[0x00]);
        assert_eq!(&encode(-1).0[..1], &[0x81]);
        assert_eq!(&encode(63).0[..1], &[0x3F]);
        let (b, n) = encode(64);
        assert_eq!(&b[..n], &[0x40, 0x01]);
        let (b, n) = encode(i32::MIN);
        assert_eq!(n, 5);
        assert_eq!(decode(&b[..n]), Some((i32::MIN, 5)));
        let (b, n) = encode(i32::MAX);
        assert_eq!(decode(&b[..n]), Some((i32::MAX, 5)));
        assert_eq!(decode(&[0x40]), None);
        assert_eq!(decode(&[]), None);
    }

    proptest! {
        #[test]
        fn round_trip(v in any::<i32>()) {
            let (b, n) = encode(v);
            prop_assert_eq!(n, encoded_len(v));
            prop_assert_eq!(decode(&b[..n]), Some((v, n)));
        }

        #[test]
        fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..8)) {
            if let Some((_, n)) = decode(&bytes) { prop_assert!(n <= bytes.len() && n <= MAX_LEN); }
        }
    }
}
