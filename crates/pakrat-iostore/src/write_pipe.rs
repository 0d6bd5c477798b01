//! The write loop of [`super::write()`] (issue 31 item 18): chunks are read,
//! hashed, cut into blocks and processed (compressed, padded, encrypted)
//! by the pool a window of chunks at a time, on a thread of their own,
//! while the calling thread places the previous window in the `.ucas`.
//! Reading, hashing and writing overlap, and the hash of a chunk is
//! computed by the worker that read it. Large chunks (over
//! [`SMALL_CHUNK`]) stream block window by block window in turn, as before,
//! so memory stays bounded. The bytes written do not change: every block
//! gets the index it had (the AES-CTR IVs depend on it) and blocks are
//! placed in chunk order.

use std::sync::mpsc::sync_channel;

use pakrat_io::Result;
use rayon::prelude::*;

use super::{in_chunk, is_container_header, process, ChunkSpec, Done, Placer};
use crate::container::Container;
use pakrat_codec::compress::Method;

/// Chunks up to this size are made ready whole by one worker.
const SMALL_CHUNK: u64 = 1 << 20;

/// A window of small chunks closes after this many bytes...
const WINDOW_BYTES: u64 = 4 << 20;

/// ...or this many chunks.
const WINDOW_CHUNKS: usize = 1024;

/// Windows made ready ahead of the one being placed (memory: one being
/// made ready, this many waiting, one being placed).
const AHEAD: usize = 1;

/// A small chunk made ready by a worker.
struct Ready {
    hash: [u8; 32],
    blocks: Vec<Done>,
}

/// What the reading thread hands over, in chunk order.
enum Batch {
    /// Small chunks from index `.0` on.
    Small(usize, Vec<Result<Ready>>),
    /// One large chunk, streamed by the placing thread.
    Large(usize),
}

/// What the loop gives back to [`super::write()`].
pub(super) struct Totals {
    pub hashes: Vec<[u8; 32]>,
    pub input_bytes: u64,
    pub stored_blocks: u64,
}

/// Consecutive windows of small chunks, and each large chunk alone.
fn windows(chunks: &[ChunkSpec]) -> Vec<(std::ops::Range<usize>, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    for (i, c) in chunks.iter().enumerate() {
        if c.size > SMALL_CHUNK {
            if start < i {
                out.push((start..i, false));
            }
            out.push((i..i + 1, true));
            start = i + 1;
            bytes = 0;
            continue;
        }
        bytes += c.size;
        if bytes >= WINDOW_BYTES || i + 1 - start >= WINDOW_CHUNKS {
            out.push((start..i + 1, false));
            start = i + 1;
            bytes = 0;
        }
    }
    if start < chunks.len() {
        out.push((start..chunks.len(), false));
    }
    out
}

/// Place every chunk, in order: the hashes (20 bytes of BLAKE3, zero
/// padded), the bytes read and the blocks stored uncompressed.
pub(super) fn place_all(
    chunks: &[ChunkSpec],
    from: Option<&Container>,
    o: &super::Options,
    placer: &mut Placer<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Totals> {
    let bs = u64::from(o.block_size);
    // The container-wide index of each chunk's first block.
    let mut first_block = Vec::with_capacity(chunks.len());
    let mut n = 0u64;
    for c in chunks {
        first_block.push(n);
        n += c.size.div_ceil(bs);
    }
    let plan = windows(chunks);
    let mut t = Totals {
        hashes: Vec::with_capacity(chunks.len()),
        input_bytes: 0,
        stored_blocks: 0,
    };
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = sync_channel::<Batch>(AHEAD);
        let first_block = &first_block;
        s.spawn(move || {
            for (range, large) in plan {
                let batch = if large {
                    Batch::Large(range.start)
                } else {
                    let start = range.start;
                    let ready = chunks[range]
                        .par_iter()
                        .enumerate()
                        .map(|(k, spec)| prepare(spec, from, o, first_block[start + k], progress))
                        .collect();
                    Batch::Small(start, ready)
                };
                // A closed channel: the placing side stopped on an error.
                if tx.send(batch).is_err() {
                    return;
                }
            }
        });
        for batch in rx {
            match batch {
                Batch::Small(start, ready) => {
                    for (k, r) in ready.into_iter().enumerate() {
                        let spec = &chunks[start + k];
                        let r = r.map_err(|e| in_chunk(e, spec))?;
                        place_ready(r, spec, o, placer, &mut t)?;
                    }
                }
                Batch::Large(ci) => {
                    let spec = &chunks[ci];
                    let (hash, stored) = super::stream_one(spec, from, o, placer, progress)
                        .map_err(|e| in_chunk(e, spec))?;
                    t.hashes.push(hash);
                    t.input_bytes += spec.size;
                    t.stored_blocks += stored;
                }
            }
        }
        Ok(())
    })?;
    Ok(t)
}

/// Put a ready chunk's blocks in the `.ucas`.
fn place_ready(
    r: Ready,
    spec: &ChunkSpec,
    o: &super::Options,
    placer: &mut Placer<'_>,
    t: &mut Totals,
) -> Result<()> {
    let n = r.blocks.len();
    for (k, d) in r.blocks.into_iter().enumerate() {
        if d.method_index == 0 && o.compression != Method::None {
            t.stored_blocks += 1;
        }
        if k == 0 {
            placer.begin_chunk();
        }
        placer.push(d, k + 1 == n)?;
    }
    t.hashes.push(r.hash);
    t.input_bytes += spec.size;
    Ok(())
}

/// Read, hash and cut one small chunk into processed blocks (runs on the
/// pool). `first` is the container-wide index of its first block.
fn prepare(
    spec: &ChunkSpec,
    from: Option<&Container>,
    o: &super::Options,
    first: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Ready> {
    let bs = o.block_size as usize;
    let stored = spec.memory_mapped || is_container_header(spec, o);
    let mut blocks: Vec<Done> = Vec::with_capacity(spec.size.div_ceil(bs as u64) as usize);
    let hash = super::cut_chunk(spec, from, bs as u64, &mut |mut job| {
        let len = job.raw.len() as u64;
        blocks.push(process(o, &mut job, stored, first + blocks.len() as u64)?);
        progress(len);
        Ok(())
    })?;
    Ok(Ready { hash, blocks })
}
