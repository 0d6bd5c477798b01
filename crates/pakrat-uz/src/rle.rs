//! The `.uz` run-length stage (`FCodecRLE`, UT432 `Core/Inc/FCodec.h`).
//!
//! A run of `n >= 5` equal bytes (`n <= 255`; longer runs are split) is
//! written as 5 copies followed by the byte `n`; shorter runs are written as
//! they are. The decoder counts equal bytes in a row (starting from an
//! implicit previous byte 0); after the 5th it reads a count byte `c` and
//! emits `c - 5` more copies, then starts counting from zero again.
//! Epic's decoder only asserts `c >= 2` and emits nothing extra for
//! `c <= 5`; this decoder does the same and reports `c < 2` as corrupt.

use pakrat_io::{Error, Result};

const RLE_LEAD: usize = 5;

/// RLE-encode `data` exactly like `ucc compress`.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 64 + 16);
    let emit = |out: &mut Vec<u8>, ch: u8, count: usize| {
        for _ in 0..count.min(RLE_LEAD) {
            out.push(ch);
        }
        if count >= RLE_LEAD {
            out.push(count as u8);
        }
    };
    let (mut prev, mut count) = (0u8, 0usize);
    for &b in data {
        if b != prev || count == 255 {
            emit(&mut out, prev, count);
            prev = b;
            count = 0;
        }
        count += 1;
    }
    emit(&mut out, prev, count);
    out
}

/// RLE-decode `data`; output over `limit` bytes is refused. Error offsets
/// are positions in `data`.
pub fn decode(data: &[u8], limit: usize) -> Result<Vec<u8>> {
    // Real data expands by well under half; growth beyond that is amortised.
    let mut out = Vec::with_capacity((data.len() + data.len() / 2).min(limit.saturating_add(1)));
    let (mut prev, mut count) = (0u8, 0usize);
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        i += 1;
        out.push(b);
        if b != prev {
            prev = b;
            count = 1;
        } else {
            count += 1;
            if count == RLE_LEAD {
                let Some(&c) = data.get(i) else {
                    return Err(Error::invalid(
                        i as u64,
                        "the data ends where a run-count byte was expected".to_string(),
                    ));
                };
                if c < 2 {
                    return Err(Error::invalid(
                        i as u64,
                        format!("run count {c} (the engine requires at least 2)"),
                    ));
                }
                i += 1;
                let extra = (c as usize).saturating_sub(RLE_LEAD);
                out.resize(out.len() + extra, b);
                count = 0;
            }
        }
        if out.len() > limit {
            return Err(Error::invalid(
                i as u64,
                format!("decoded size passes the limit of {limit} bytes"),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_splits() {
        assert_eq!(encode(&[]), Vec::<u8>::new());
        assert_eq!(encode(&[0, 0, 0]), vec![0, 0, 0]);
        assert_eq!(encode(&[7; 5]), vec![7, 7, 7, 7, 7, 5]);
        assert_eq!(encode(&[7; 6]), vec![7, 7, 7, 7, 7, 6]);
        // 300 = 255 + 45.
        let e = encode(&[9; 300]);
        assert_eq!(e, [vec![9; 5], vec![255], vec![9; 5], vec![45]].concat());
        for input in [
            vec![],
            vec![0; 1000],
            vec![1, 1, 1, 1, 1, 1, 2, 2],
            vec![9; 300],
            vec![9; 258],
        ] {
            assert_eq!(decode(&encode(&input), usize::MAX).unwrap(), input);
        }
        // Count byte below 5 emits nothing extra (engine behaviour).
        assert_eq!(decode(&[3, 3, 3, 3, 3, 4], 100).unwrap(), vec![3; 5]);
        assert!(decode(&[3, 3, 3, 3, 3, 1], 100).is_err());
        assert!(decode(&[3, 3, 3, 3, 3], 100).is_err());
        assert!(decode(&[3, 3, 3, 3, 3, 255], 100).is_err());
    }
}
