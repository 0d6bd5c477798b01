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

use std::borrow::Cow;
use std::sync::mpsc::{sync_channel, SyncSender};

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

/// Where the reading thread takes the chunks from.
pub(super) enum Chunks<'a> {
    /// All of them, known before anything is written ([`super::write()`]).
    All(&'a [ChunkSpec]),
    /// Handed over a group at a time, in layout order
    /// ([`super::write_stream()`]); `None` ends.
    Stream(&'a mut super::NextChunks<'a>),
}

/// What the reading thread hands over, in chunk order: each chunk (its
/// data left out when it was handed over by a stream) with what was made
/// of it.
enum Batch<'a> {
    /// Small chunks, made ready.
    Small(Vec<(Cow<'a, ChunkSpec>, Result<Ready>)>),
    /// One large chunk, streamed by the placing thread.
    Large(Cow<'a, ChunkSpec>),
    /// The stream of chunks failed.
    Failed(pakrat_io::Error),
}

/// What the loop gives back to [`super::write()`].
pub(super) struct Totals {
    pub hashes: Vec<[u8; 32]>,
    pub input_bytes: u64,
    pub stored_blocks: u64,
    /// The chunks handed over by a stream, in order, without their data.
    pub streamed: Vec<ChunkSpec>,
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

/// A chunk without its data (what the TOC needs of it).
fn without_data(c: &ChunkSpec) -> ChunkSpec {
    ChunkSpec {
        id: c.id,
        path: c.path.clone(),
        data: super::Data::Bytes(Vec::new()),
        size: c.size,
        memory_mapped: c.memory_mapped,
    }
}

/// The reading side: turns a group of chunks into batches for the placing
/// thread. `first` is the container-wide index of the next block.
struct Reader<'a, 'p> {
    from: Option<&'a Container>,
    o: &'a super::Options,
    progress: &'p (dyn Fn(u64) + Sync),
    first: u64,
}

impl<'a> Reader<'a, '_> {
    /// Make every window of `group` ready and send it; false once the
    /// placing side has stopped. `cow` gives the chunk a batch carries
    /// (`data`: with its data, for a large chunk the placing thread reads).
    fn send<'g>(
        &mut self,
        group: &'g [ChunkSpec],
        cow: &dyn Fn(&'g ChunkSpec, bool) -> Cow<'a, ChunkSpec>,
        tx: &SyncSender<Batch<'a>>,
    ) -> bool {
        let bs = u64::from(self.o.block_size);
        for (range, large) in windows(group) {
            let batch = if large {
                let c = &group[range.start];
                self.first += c.size.div_ceil(bs);
                Batch::Large(cow(c, true))
            } else {
                let mut firsts = Vec::with_capacity(range.len());
                for c in &group[range.clone()] {
                    firsts.push(self.first);
                    self.first += c.size.div_ceil(bs);
                }
                let (from, o, progress) = (self.from, self.o, self.progress);
                let ready: Vec<Result<Ready>> = group[range.clone()]
                    .par_iter()
                    .zip(firsts)
                    .map(|(spec, first)| prepare(spec, from, o, first, progress))
                    .collect();
                Batch::Small(
                    group[range]
                        .iter()
                        .zip(ready)
                        .map(|(c, r)| (cow(c, false), r))
                        .collect(),
                )
            };
            // A closed channel: the placing side stopped on an error.
            if tx.send(batch).is_err() {
                return false;
            }
        }
        true
    }
}

/// Place every chunk, in order: the hashes (20 bytes of BLAKE3, zero
/// padded), the bytes read and the blocks stored uncompressed.
pub(super) fn place_all(
    chunks: Chunks<'_>,
    from: Option<&Container>,
    o: &super::Options,
    placer: &mut Placer<'_>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Totals> {
    let mut t = Totals {
        hashes: Vec::new(),
        input_bytes: 0,
        stored_blocks: 0,
        streamed: Vec::new(),
    };
    std::thread::scope(|s| -> Result<()> {
        let (tx, rx) = sync_channel::<Batch>(AHEAD);
        s.spawn(move || {
            let mut reader = Reader {
                from,
                o,
                progress,
                first: 0,
            };
            match chunks {
                Chunks::All(all) => {
                    reader.send(all, &|c, _| Cow::Borrowed(c), &tx);
                }
                Chunks::Stream(next) => {
                    // Batches of a stream own their chunks: a group is
                    // dropped (its data freed) once it is made ready.
                    let own = |c: &ChunkSpec, data: bool| {
                        Cow::Owned(if data { c.clone() } else { without_data(c) })
                    };
                    while let Some(group) = next() {
                        match group {
                            Ok(g) => {
                                if !reader.send(&g, &own, &tx) {
                                    return;
                                }
                            }
                            Err(e) => {
                                let _ = tx.send(Batch::Failed(e));
                                return;
                            }
                        }
                    }
                }
            }
        });
        for batch in rx {
            match batch {
                Batch::Small(items) => {
                    for (spec, r) in items {
                        let r = r.map_err(|e| in_chunk(e, &spec))?;
                        place_ready(r, &spec, o, placer, &mut t)?;
                        if let Cow::Owned(c) = spec {
                            t.streamed.push(c);
                        }
                    }
                }
                Batch::Large(spec) => {
                    let (hash, stored) = super::stream_one(&spec, from, o, placer, progress)
                        .map_err(|e| in_chunk(e, &spec))?;
                    t.hashes.push(hash);
                    t.input_bytes += spec.size;
                    t.stored_blocks += stored;
                    if let Cow::Owned(c) = spec {
                        t.streamed.push(without_data(&c));
                    }
                }
                Batch::Failed(e) => return Err(e),
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
