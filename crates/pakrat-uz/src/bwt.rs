//! The `.uz` Burrows–Wheeler stage (`FCodecBWT`, UT432 `Core/Inc/FCodec.h`).
//!
//! The input is cut into blocks of at most [`MAX_BLOCK`] bytes. Each block is
//! written as `i32 Length, i32 First, i32 Last` and `Length + 1` bytes.
//!
//! Epic's encoder sorts the `Length + 1` suffixes of the block (including the
//! empty one) with a "clamped" comparison: two suffixes are compared over the
//! length of the shorter, and on a tie the one starting earlier (the longer)
//! sorts first. That is the ordinary suffix order with an end-of-block symbol
//! that is *larger* than every byte, which is also what the decoder assumes
//! (it counts the `Last` slot as symbol 256). Output byte `i` is the byte
//! before suffix `SA[i]` (byte 0 for the suffix at 0, whose slot is `Last`);
//! `First` is the row of the suffix starting at 1. Because the order is total,
//! this encoder produces the same bytes as `ucc compress`.

use pakrat_io::{Error, Result};
use rayon::prelude::*;

use crate::sais::suffix_array;

/// Largest block the engine's encoder writes and its decoder can hold
/// (`MAX_BUFFER_SIZE = 0x40000`).
pub const MAX_BLOCK: usize = 0x40000;

/// Header bytes before each block's data.
const BLOCK_HEADER: usize = 12;

/// One block's transform: `(First, Last, Length + 1 bytes)`.
fn encode_block(block: &[u8]) -> (u32, u32, Vec<u8>) {
    let n = block.len();
    // Symbols: byte + 1, then 257 for "end of block" (larger than every byte),
    // then the unique smallest 0 that SA-IS needs.
    let mut t: Vec<u32> = Vec::with_capacity(n + 2);
    t.extend(block.iter().map(|&b| u32::from(b) + 1));
    t.push(257);
    t.push(0);
    let sa = suffix_array(&t, 258);
    // sa[0] is the artificial 0; the rest are the n + 1 rows.
    let mut out = Vec::with_capacity(n + 1);
    let (mut first, mut last) = (0u32, 0u32);
    for (row, &pos) in sa[1..].iter().enumerate() {
        match pos {
            0 => last = row as u32,
            1 => first = row as u32,
            _ => {}
        }
        out.push(if pos == 0 {
            block[0]
        } else {
            block[pos as usize - 1]
        });
    }
    (first, last, out)
}

/// BWT-encode `data` into the block stream (blocks transformed in parallel).
pub fn encode(data: &[u8]) -> Vec<u8> {
    // One block: on this thread (a small file should not pay for starting
    // the thread pool).
    let blocks: Vec<(u32, u32, Vec<u8>)> = if data.len() <= MAX_BLOCK {
        data.chunks(MAX_BLOCK).map(encode_block).collect()
    } else {
        data.par_chunks(MAX_BLOCK).map(encode_block).collect()
    };
    let mut out = Vec::with_capacity(data.len() + blocks.len() * (BLOCK_HEADER + 1));
    for (chunk, (first, last, bytes)) in data.chunks(MAX_BLOCK).zip(blocks) {
        out.extend_from_slice(&(chunk.len() as i32).to_le_bytes());
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&last.to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    out
}

/// One parsed block of the stream.
struct Block<'a> {
    /// Offset of the block header in the stream.
    at: usize,
    first: usize,
    last: usize,
    /// `Length + 1` bytes.
    data: &'a [u8],
}

fn le_i32(s: &[u8], at: usize) -> Option<i32> {
    s.get(at..at + 4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn parse_blocks(stream: &[u8], limit: usize) -> Result<(Vec<Block<'_>>, usize)> {
    let bad = |at: usize, what: String| Error::invalid(at as u64, what);
    let mut blocks = Vec::new();
    let mut pos = 0usize;
    let mut total = 0usize;
    while pos < stream.len() {
        let (Some(len), Some(first), Some(last)) = (
            le_i32(stream, pos),
            le_i32(stream, pos + 4),
            le_i32(stream, pos + 8),
        ) else {
            return Err(bad(
                pos,
                format!(
                    "expected a 12-byte block header but only {} bytes remain",
                    stream.len() - pos
                ),
            ));
        };
        if len < 0 || len as usize > MAX_BLOCK {
            return Err(bad(
                pos,
                format!("block length {len} is outside 0..={MAX_BLOCK:#x}"),
            ));
        }
        let len = len as usize;
        if first < 0 || first as usize > len || last < 0 || last as usize > len {
            return Err(bad(
                pos,
                format!("block First {first} / Last {last} must lie in 0..={len}"),
            ));
        }
        let start = pos + BLOCK_HEADER;
        let Some(data) = stream.get(start..start + len + 1) else {
            return Err(bad(
                pos,
                format!(
                    "block of {len} bytes needs {} bytes but only {} remain",
                    len + 1,
                    stream.len().saturating_sub(start)
                ),
            ));
        };
        total += len;
        if total > limit {
            return Err(bad(
                pos,
                format!("decoded size passes the limit of {limit} bytes"),
            ));
        }
        blocks.push(Block {
            at: pos,
            first: first as usize,
            last: last as usize,
            data,
        });
        pos = start + len + 1;
    }
    Ok((blocks, total))
}

fn decode_block(b: &Block<'_>, out: &mut [u8]) -> Result<()> {
    let n = b.data.len(); // Length + 1
    let len = n - 1;
    // Counting sort of the last column; the `Last` slot is symbol 256.
    let mut count = [0usize; 257];
    for (i, &c) in b.data.iter().enumerate() {
        count[if i == b.last { 256 } else { c as usize }] += 1;
    }
    let mut next = [0usize; 257];
    let mut sum = 0;
    for c in 0..257 {
        next[c] = sum;
        sum += count[c];
    }
    let mut link = vec![0u32; n];
    for (i, &c) in b.data.iter().enumerate() {
        let s = if i == b.last { 256 } else { c as usize };
        link[next[s]] = i as u32;
        next[s] += 1;
    }
    let mut i = b.first;
    for o in out.iter_mut().take(len) {
        if i == b.last {
            return Err(Error::invalid(
                b.at as u64,
                "block walk reached the end-of-block slot early (corrupt First/Last or data)",
            ));
        }
        *o = b.data[i];
        i = link[i] as usize;
    }
    if len > 0 && i != b.last {
        return Err(Error::invalid(
            b.at as u64,
            "block walk does not end at the end-of-block slot (corrupt First/Last or data)",
        ));
    }
    Ok(())
}

/// Decode a BWT block stream; refuses output over `limit` bytes.
pub fn decode(stream: &[u8], limit: usize) -> Result<Vec<u8>> {
    let (blocks, total) = parse_blocks(stream, limit)?;
    let mut out = vec![0u8; total];
    let mut slices: Vec<(&Block<'_>, &mut [u8])> = Vec::with_capacity(blocks.len());
    let mut rest: &mut [u8] = &mut out;
    for b in &blocks {
        let (head, tail) = rest.split_at_mut(b.data.len() - 1);
        slices.push((b, head));
        rest = tail;
    }
    if slices.len() <= 1 {
        slices
            .into_iter()
            .try_for_each(|(b, dst)| decode_block(b, dst))?;
    } else {
        slices
            .into_par_iter()
            .try_for_each(|(b, dst)| decode_block(b, dst))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Epic's encoder, literally: sort with the clamped comparison.
    fn epic_block(block: &[u8]) -> (u32, u32, Vec<u8>) {
        let n = block.len();
        let mut pos: Vec<usize> = (0..=n).collect();
        pos.sort_by(|&a, &b| {
            let k = n - a.max(b);
            block[a..a + k]
                .cmp(&block[b..b + k])
                .then((a as i64).cmp(&(b as i64)))
        });
        let (mut first, mut last) = (0, 0);
        for (i, &p) in pos.iter().enumerate() {
            if p == 1 {
                first = i as u32;
            } else if p == 0 {
                last = i as u32;
            }
        }
        let out = pos
            .iter()
            .map(|&p| block[if p > 0 { p - 1 } else { 0 }])
            .collect();
        (first, last, out)
    }

    #[test]
    fn same_as_epic_and_round_trips() {
        let mut seed = 7u64;
        for len in 1..300usize {
            for alpha in [1u8, 2, 4, 255] {
                let block: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        ((seed >> 40) as u8) % alpha.max(1) + if alpha == 255 { 0 } else { 250 }
                    })
                    .collect();
                assert_eq!(encode_block(&block), epic_block(&block), "{block:?}");
                let enc = encode(&block);
                assert_eq!(decode(&enc, usize::MAX).unwrap(), block);
            }
        }
        assert!(decode(&encode(&[]), 0).unwrap().is_empty());
    }

    #[test]
    fn rejects_corrupt_blocks() {
        let enc = encode(b"hello hello hello world");
        for cut in 0..enc.len() {
            assert!(decode(&enc[..cut], usize::MAX).is_err() || cut == 0);
        }
        let mut bad = enc.clone();
        bad[4..8].copy_from_slice(&1000i32.to_le_bytes());
        assert!(decode(&bad, usize::MAX).is_err());
        let mut bad = enc.clone();
        bad[0..4].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(decode(&bad, usize::MAX).is_err());
        assert!(decode(&enc, 3).is_err());
    }
}
