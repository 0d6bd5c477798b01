//! Layout facts of a TOC that would make a reader decode more than the
//! `.ucas` files honestly hold.

use super::Toc;

/// Layout facts that would make reading a container decode more than its
/// `.ucas` files honestly hold ([`Toc::read_hazards`]). Without any, every
/// block's compressed bytes are read for one chunk only and decode to at most
/// the block size, so the bytes decoded from a container are at most
/// (blocks with distinct bytes) × block size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadHazards {
    /// Chunks whose block ranges overlap (a block entry read for several chunks).
    pub shared_blocks: Option<String>,
    /// Blocks whose compressed byte ranges overlap.
    pub overlapping_blocks: Option<String>,
    /// Blocks that claim to decode to more than the block size.
    pub oversized_blocks: Option<String>,
}

impl ReadHazards {
    /// Every hazard found, as messages.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        [
            &self.shared_blocks,
            &self.overlapping_blocks,
            &self.oversized_blocks,
        ]
        .into_iter()
        .filter_map(|m| m.as_deref())
    }

    /// None found.
    pub fn is_empty(&self) -> bool {
        self.messages().next().is_none()
    }
}

impl Toc {
    /// What would let a reader decode more than the `.ucas` honestly holds
    /// (see [`ReadHazards`]). Sorts the chunks' block ranges and the blocks'
    /// byte ranges once: O(n log n) in entries and blocks.
    pub fn read_hazards(&self) -> ReadHazards {
        let mut h = ReadHazards::default();
        // Chunks whose block ranges overlap: one block entry decoded for
        // several chunks (UE starts every chunk on a block boundary).
        let mut ranges: Vec<(usize, usize, usize)> = (0..self.len())
            .filter_map(|i| {
                let r = self.block_range(i).ok()?;
                (!r.is_empty()).then_some((r.start, r.end, i))
            })
            .collect();
        ranges.sort_unstable();
        let mut n = 0u64;
        let mut first = None;
        let mut reach: Option<(usize, usize)> = None; // (end, chunk)
        for &(a, z, i) in &ranges {
            if let Some((end, j)) = reach {
                if a < end {
                    n += 1;
                    first.get_or_insert((i, a, z.min(end), j));
                }
            }
            if reach.is_none_or(|(end, _)| z > end) {
                reach = Some((z, i));
            }
        }
        if let Some((i, a, z, j)) = first {
            h.shared_blocks = Some(format!(
                "chunks share blocks ({n} chunk(s) use blocks of another; first: chunk {i} ({}) and chunk {j} ({}) both use blocks {a}..{z})",
                self.chunk_ids[i], self.chunk_ids[j]
            ));
        }
        // Blocks whose compressed bytes overlap: the same `.ucas` bytes
        // decoded several times. A block that decodes to something covers at
        // least one byte, so empty compressed ranges count too.
        let mut spans: Vec<(u64, u64, usize)> = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.uncompressed_size > 0)
            .map(|(i, b)| {
                let len = u64::from(b.compressed_size.max(1));
                (b.offset, b.offset.saturating_add(len), i)
            })
            .collect();
        spans.sort_unstable();
        let mut n = 0u64;
        let mut first = None;
        let mut reach: Option<(u64, usize)> = None;
        for &(a, z, i) in &spans {
            if let Some((end, j)) = reach {
                if a < end {
                    n += 1;
                    first.get_or_insert((i, j));
                }
            }
            if reach.is_none_or(|(end, _)| z > end) {
                reach = Some((z, i));
            }
        }
        if let Some((i, j)) = first {
            let (bi, bj) = (self.blocks[i], self.blocks[j]);
            h.overlapping_blocks = Some(format!(
                "blocks overlap in the .ucas ({n} block(s) start inside the bytes of another; first: block {i} ({} bytes at {:#x}) and block {j} ({} bytes at {:#x})): the same bytes would be decoded more than once",
                bi.compressed_size, bi.offset, bj.compressed_size, bj.offset
            ));
        }
        let bs = self.header.block_size;
        let big: Vec<usize> = (0..self.blocks.len())
            .filter(|&i| self.blocks[i].uncompressed_size > bs)
            .collect();
        if let Some(&i) = big.first() {
            h.oversized_blocks = Some(format!(
                "{} block(s) claim more than the block size {bs} (first: block {i}, {} bytes)",
                big.len(),
                self.blocks[i].uncompressed_size
            ));
        }
        h
    }
}
