//! The `.uz` Huffman stage (`FCodecHuffman`, UT432 `Core/Inc/FCodec.h`).
//!
//! Layout: `i32 Total` (number of decoded bytes), then a bit stream read
//! LSB-first within each byte (`FBitReader`): the code tree in pre-order
//! (bit 1 = internal node whose child 0 then child 1 follow, bit 0 = leaf
//! followed by its 8-bit symbol, low bit first), then the codes. Bit `b` of
//! a code selects child `b`.
//!
//! Epic's tree builder is reproduced exactly so that output matches
//! `ucc compress`: the 256 symbols start as a list in symbol order (not
//! sorted by frequency), trailing zero-count symbols are dropped, then the
//! last two entries are repeatedly popped (the first popped becomes child 0)
//! and their parent is inserted before the first entry with a smaller count.
//!
//! Decoding is hardened against hostile input (a broken `.uz` crashed the
//! engine's own decoder, `OldUnreal/UnrealTournamentPatches` issue #733):
//! the tree is read without recursion and may hold at most 256 leaves,
//! `Total` is checked against the bits that remain before anything is
//! allocated, and every code must end inside the data.

use pakrat_io::{Error, Result};

/// Bits resolved by one table look-up while decoding.
const TABLE_BITS: u32 = 11;
/// Most nodes a tree with at most 256 leaves can have.
const MAX_NODES: usize = 511;

#[derive(Clone, Copy)]
enum Node {
    Leaf(u8),
    Inner([u16; 2]),
}

/// Encode `data`: `Total`, tree and codes.
pub fn encode(data: &[u8]) -> Result<Vec<u8>> {
    let total = i32::try_from(data.len()).map_err(|_| {
        Error::Other(format!(
            "cannot .uz-compress {} bytes: the format stores sizes as 32-bit signed integers",
            data.len()
        ))
    })?;
    let mut freq = [0u64; 256];
    for &b in data {
        freq[b as usize] += 1;
    }

    // Epic's builder (see module docs). Node ids: 0..256 leaves, then parents.
    let mut counts: Vec<u64> = freq.to_vec();
    let mut kids: Vec<Option<[usize; 2]>> = vec![None; 256];
    let mut list: Vec<usize> = (0..256).collect();
    while list.len() > 1 && list.last().is_some_and(|&n| counts[n] == 0) {
        list.pop();
    }
    while list.len() > 1 {
        let a = list.pop().unwrap_or(0);
        let b = list.pop().unwrap_or(0);
        let id = counts.len();
        counts.push(counts[a] + counts[b]);
        kids.push(Some([a, b]));
        let at = list
            .iter()
            .position(|&n| counts[n] < counts[id])
            .unwrap_or(list.len());
        list.insert(at, id);
    }
    let root = list.pop().unwrap_or(0);

    // Codes by walking the tree; the table is written in the same pre-order.
    let mut codes: Vec<Vec<bool>> = vec![Vec::new(); 256];
    let mut w = BitWriter {
        out: Vec::with_capacity(4 + data.len() / 2 + 64),
        acc: 0,
        n: 0,
    };
    w.out.extend_from_slice(&total.to_le_bytes());
    let mut stack: Vec<(usize, Vec<bool>)> = vec![(root, Vec::new())];
    while let Some((n, path)) = stack.pop() {
        match kids[n] {
            Some([a, b]) => {
                w.put(1, 1);
                let mut pb = path.clone();
                pb.push(true);
                let mut pa = path;
                pa.push(false);
                stack.push((b, pb));
                stack.push((a, pa));
            }
            None => {
                w.put(0, 1);
                w.put(n as u64, 8);
                codes[n] = path;
            }
        }
    }
    // Pack codes up to 57 bits into one word; longer ones go bit by bit.
    let packed: Vec<(u64, u32)> = codes
        .iter()
        .map(|c| {
            let v = c
                .iter()
                .take(57)
                .enumerate()
                .fold(0u64, |v, (i, &bit)| v | (u64::from(bit) << i));
            (v, c.len() as u32)
        })
        .collect();
    for &b in data {
        let (v, len) = packed[b as usize];
        if len <= 57 {
            w.put(v, len);
        } else {
            for &bit in &codes[b as usize] {
                w.put(u64::from(bit), 1);
            }
        }
    }
    Ok(w.finish())
}

struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    /// Append the low `len` (≤ 57) bits of `v`, low bit first.
    fn put(&mut self, v: u64, len: u32) {
        self.acc |= v << self.n;
        self.n += len;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// 64 bits starting at bit `pos` (zeros past the end).
#[inline]
fn peek(bits: &[u8], pos: usize) -> u64 {
    let at = pos >> 3;
    let word = match bits.get(at..at + 8) {
        Some(s) => u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]),
        None => {
            let mut b = [0u8; 8];
            if let Some(s) = bits.get(at..) {
                b[..s.len()].copy_from_slice(s);
            }
            u64::from_le_bytes(b)
        }
    };
    word >> (pos & 7)
}

/// Decode a Huffman section at absolute offset `base`; refuses a `Total`
/// over `limit`.
pub fn decode(section: &[u8], base: u64, limit: usize) -> Result<Vec<u8>> {
    let Some(t) = section.get(..4) else {
        return Err(Error::Truncated {
            offset: base,
            what: "Huffman Total (i32)".into(),
            needed: 4,
            available: section.len() as u64,
        });
    };
    let total = i32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    if total < 0 {
        return Err(Error::invalid(
            base,
            format!("Huffman Total is negative ({total})"),
        ));
    }
    let total = total as usize;
    let bits = &section[4..];
    let bits_base = base + 4;
    let nbits = bits.len() * 8;
    let at_bit = |pos: usize| bits_base + (pos / 8) as u64;

    // Read the tree without recursion.
    let mut nodes: Vec<Node> = Vec::new();
    let mut pos = 0usize;
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut parent: Option<(usize, usize)> = None;
    loop {
        if pos >= nbits {
            return Err(Error::invalid(
                at_bit(pos),
                "Huffman code table ends early (the data runs out inside the tree)",
            ));
        }
        if nodes.len() >= MAX_NODES {
            return Err(Error::invalid(
                at_bit(pos),
                "Huffman code table has more than 256 leaves",
            ));
        }
        let id = nodes.len();
        if peek(bits, pos) & 1 == 1 {
            pos += 1;
            nodes.push(Node::Inner([0, 0]));
            pending.push((id, 1));
            pending.push((id, 0));
        } else {
            if pos + 9 > nbits {
                return Err(Error::invalid(
                    at_bit(pos),
                    "Huffman code table ends inside a leaf symbol",
                ));
            }
            nodes.push(Node::Leaf((peek(bits, pos + 1) & 0xFF) as u8));
            pos += 9;
        }
        if let Some((p, slot)) = parent {
            if let Node::Inner(k) = &mut nodes[p] {
                k[slot] = id as u16;
            }
        }
        match pending.pop() {
            Some(next) => parent = Some(next),
            None => break,
        }
    }

    let remaining = nbits - pos;
    if total > remaining || total > limit {
        return Err(Error::invalid(
            base,
            format!(
                "Huffman Total {total} is impossible: only {remaining} code bits follow the table{}",
                if total > limit {
                    format!(" (and the limit is {limit} bytes)")
                } else {
                    String::new()
                }
            ),
        ));
    }
    let mut out = Vec::with_capacity(total);
    if let Node::Leaf(s) = nodes[0] {
        // A one-leaf tree codes every byte with zero bits (Epic writes it for
        // empty input).
        out.resize(total, s);
        return Ok(out);
    }

    // First-level table: TABLE_BITS bits → leaf (symbol, length) or the
    // inner node reached after TABLE_BITS bits.
    const LEAF: u32 = 1 << 31;
    let mut table = vec![0u32; 1 << TABLE_BITS];
    for (idx, e) in table.iter_mut().enumerate() {
        let mut n = 0usize;
        let mut d = 0u32;
        *e = loop {
            match nodes[n] {
                Node::Leaf(s) => break LEAF | (d << 8) | u32::from(s),
                Node::Inner(k) => {
                    if d == TABLE_BITS {
                        break n as u32;
                    }
                    n = k[(idx >> d) & 1] as usize;
                    d += 1;
                }
            }
        };
    }
    let mask = (1u64 << TABLE_BITS) - 1;
    let ended = |pos: usize, done: usize| {
        Error::invalid(
            at_bit(pos),
            format!("Huffman data ends after {done} of {total} bytes"),
        )
    };
    while out.len() < total {
        let v = peek(bits, pos);
        let e = table[(v & mask) as usize];
        if e & LEAF != 0 {
            let len = ((e >> 8) & 0xFF) as usize;
            if pos + len > nbits {
                return Err(ended(pos, out.len()));
            }
            out.push(e as u8);
            pos += len;
        } else {
            let mut n = e as usize;
            let mut p = pos + TABLE_BITS as usize;
            loop {
                match nodes[n] {
                    Node::Leaf(s) => {
                        out.push(s);
                        break;
                    }
                    Node::Inner(k) => {
                        if p >= nbits {
                            return Err(ended(pos, out.len()));
                        }
                        n = k[(peek(bits, p) & 1) as usize] as usize;
                        p += 1;
                    }
                }
            }
            pos = p;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_edge_cases() {
        for input in [
            vec![],
            vec![0u8],
            vec![200u8; 1000],
            (0..=255u8).collect::<Vec<_>>(),
            (0..5000u32).map(|i| (i % 7) as u8).collect(),
            // Increasing counts by symbol: Epic's builder makes long codes.
            (0..40u8)
                .flat_map(|s| std::iter::repeat_n(s, 1usize << (s / 2).min(12)))
                .collect(),
        ] {
            let enc = encode(&input).unwrap();
            assert_eq!(decode(&enc, 0, usize::MAX).unwrap(), input);
        }
        // Empty input: Total 0 and a single leaf 0 (9 bits → 2 bytes), as Epic writes.
        assert_eq!(encode(&[]).unwrap(), vec![0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn rejects_hostile_tables() {
        // Total 5 with a one-leaf tree and no code bits.
        assert!(decode(&[100, 0, 0, 0, 0, 0], 0, usize::MAX).is_err());
        assert_eq!(
            decode(&[3, 0, 0, 0, 0, 0], 0, usize::MAX).unwrap(),
            vec![0; 3]
        );
        // Endless internal nodes.
        let mut deep = vec![0, 0, 0, 0];
        deep.extend(std::iter::repeat_n(0xFF, 10_000));
        assert!(decode(&deep, 0, usize::MAX).is_err());
        // Huge Total.
        let mut big = encode(b"abcabc").unwrap();
        big[..4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(decode(&big, 0, usize::MAX).is_err());
        big[..4].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(decode(&big, 0, usize::MAX).is_err());
        assert!(decode(&[1, 0], 0, usize::MAX).is_err());
    }
}
