//! The two drivers every decoder runs under: one over pixel rows
//! (uncompressed formats), one over block rows (compressed formats). Both
//! split the output by rows and, when asked and the slice is large enough,
//! hand the rows to rayon: rows are independent, so the result is the same
//! serial or parallel.

use rayon::prelude::*;

/// Slices smaller than this many pixels decode on the calling thread: the
/// rayon hand-off costs more than it saves (measured: below 128×128 the
/// parallel path was not faster).
const PARALLEL_MIN_PIXELS: usize = 128 * 128;

/// Output for a `w`×`h` slice of `ch` values a pixel, filled with `fill`.
fn output<T: Copy>(w: usize, h: usize, ch: usize, fill: T) -> Vec<T> {
    vec![fill; w * h * ch]
}

/// Uncompressed formats: `row(src_row, out_row)` converts one row of
/// `w` pixels of `bpp` bytes each into `w * 4` values.
pub(crate) fn rows<T, F>(
    w: usize,
    h: usize,
    bpp: usize,
    data: &[u8],
    parallel: bool,
    fill: T,
    row: F,
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&[u8], &mut [T]) + Sync,
{
    let mut out = output(w, h, 4, fill);
    let src_row = w * bpp;
    let out_row = w * 4;
    if parallel && w * h >= PARALLEL_MIN_PIXELS {
        out.par_chunks_mut(out_row)
            .zip(data.par_chunks(src_row))
            .for_each(|(o, s)| row(s, o));
    } else {
        out.chunks_mut(out_row)
            .zip(data.chunks(src_row))
            .for_each(|(o, s)| row(s, o));
    }
    out
}

/// Geometry of a block format.
#[derive(Clone, Copy)]
pub(crate) struct Blocks {
    /// Block width in pixels.
    pub bw: usize,
    /// Block height in pixels.
    pub bh: usize,
    /// Bytes per block.
    pub bytes: usize,
    /// Output values per pixel (4 for RGBA; 1 or 2 for BC4 and BC5).
    pub ch: usize,
}

/// Largest block: ASTC 12×12, 4 values per pixel.
const MAX_BLOCK_VALUES: usize = 12 * 12 * 4;

/// Compressed formats: `block(src, dst, pitch)` decodes one block into
/// `dst`, `g.ch` values a pixel, `pitch` values from one pixel row to the
/// next. Whole
/// blocks are decoded straight into the output; blocks cut by the right or
/// bottom edge go through a scratch block. `data` holds exactly the slice's
/// blocks (checked by the caller).
pub(crate) fn blocks<T, F>(
    w: usize,
    h: usize,
    g: Blocks,
    data: &[u8],
    parallel: bool,
    fill: T,
    block: F,
) -> Vec<T>
where
    T: Copy + Send + Sync,
    F: Fn(&[u8], &mut [T], usize) + Sync,
{
    let ch = g.ch;
    let mut out = output(w, h, ch, fill);
    let out_row = w * ch;
    let blocks_x = w.div_ceil(g.bw);
    let src_row = blocks_x * g.bytes;
    let work = |(o, s): (&mut [T], &[u8])| {
        let rows_here = o.len() / out_row;
        let mut scratch = [fill; MAX_BLOCK_VALUES];
        for (bx, src) in s.chunks_exact(g.bytes).enumerate() {
            let x0 = bx * g.bw;
            let cols = g.bw.min(w - x0);
            if cols == g.bw && rows_here == g.bh {
                block(src, &mut o[x0 * ch..], out_row);
            } else {
                block(src, &mut scratch, g.bw * ch);
                for r in 0..rows_here {
                    let at = r * out_row + x0 * ch;
                    o[at..at + cols * ch].copy_from_slice(&scratch[r * g.bw * ch..][..cols * ch]);
                }
            }
        }
    };
    if parallel && w * h >= PARALLEL_MIN_PIXELS {
        out.par_chunks_mut(out_row * g.bh)
            .zip(data.par_chunks(src_row))
            .for_each(work);
    } else {
        out.chunks_mut(out_row * g.bh)
            .zip(data.chunks(src_row))
            .for_each(work);
    }
    out
}
