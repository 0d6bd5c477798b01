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

use pakrat_io::{Error, Result};
use rayon::prelude::*;

use super::{in_chunk, is_container_header, process, ChunkSpec, Data, Done, Job, Placer};
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
    let n_blocks = spec.size.div_ceil(bs as u64);
    let mut hasher = blake3::Hasher::new();
    let mut blocks: Vec<Done> = Vec::with_capacity(n_blocks as usize);
    let mut cur: Vec<u8> = Vec::new();
    let mut seen = 0u64;
    let mut feed = |mut b: &[u8]| -> Result<()> {
        seen += b.len() as u64;
        if seen > spec.size {
            return Err(Error::Other(format!(
                "gives more than the {} bytes it had when the list was made (did it change?)",
                spec.size
            )));
        }
        hasher.update(b);
        while !b.is_empty() {
            if cur.capacity() == 0 {
                let left = spec.size - (blocks.len() * bs) as u64;
                // Room for the pad to 16 bytes too (no reallocation).
                cur.reserve_exact(left.min(bs as u64).next_multiple_of(16) as usize);
            }
            let take = (bs - cur.len()).min(b.len());
            cur.extend_from_slice(&b[..take]);
            b = &b[take..];
            let k = blocks.len() as u64;
            if cur.len() == bs || (k + 1 == n_blocks && seen == spec.size && b.is_empty()) {
                let mut job = Job {
                    first: k == 0,
                    last: k + 1 == n_blocks,
                    raw: std::mem::take(&mut cur),
                };
                let len = job.raw.len() as u64;
                blocks.push(process(o, &mut job, stored, first + k)?);
                progress(len);
            }
        }
        Ok(())
    };
    match &spec.data {
        Data::Bytes(b) => feed(b),
        Data::Shared(b) => feed(b),
        Data::File(p) => {
            let src = pakrat_io::Source::open(p)?;
            let res = feed(&src);
            src.check()?;
            res.map_err(|e| e.in_file(p))
        }
        Data::Chunk(i) => {
            let c = from.ok_or_else(|| Error::Other("no source container".into()))?;
            c.stream_chunk(*i, &mut feed)
        }
    }?;
    if seen != spec.size {
        return Err(Error::Other(format!(
            "gave {seen} bytes, not the {} it had when the list was made (did it change?)",
            spec.size
        )));
    }
    let mut hash = [0u8; 32];
    hash[..20].copy_from_slice(&hasher.finalize().as_bytes()[..20]);
    Ok(Ready { hash, blocks })
}
