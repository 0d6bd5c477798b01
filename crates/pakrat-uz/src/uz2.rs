//! `.uz2` (UE2): no header; repeated chunks of `u32 CompressedSize`
//! (≤ 33 096), `u32 UncompressedSize` (≤ 32 768) and an independent zlib
//! stream (RFC 1950, as written by zlib's `compress()`) of that chunk
//! (`classic.md` §4; uzLib `uzLib.cpp`, KFRedirectTool `constants.rs`).

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use pakrat_io::{Error, Result};
use rayon::prelude::*;

use crate::Limits;

/// Largest uncompressed chunk.
pub const MAX_CHUNK: usize = 32_768;
/// Largest compressed chunk the engine accepts (`32768 * 1.01 + 12`, rounded up).
pub const MAX_COMPRESSED_CHUNK: usize = 33_096;

/// Up to this many bytes a file is compressed on the calling thread: a few
/// chunks take less time than waking the thread pool.
const SMALL: usize = 4 * MAX_CHUNK;

/// One chunk's place in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Chunk {
    /// Offset of the chunk header.
    pub offset: u64,
    /// Bytes of zlib data.
    pub compressed: u32,
    /// Bytes it decodes to.
    pub uncompressed: u32,
}

/// Walk the chunk headers (no decoding).
pub fn chunks(data: &[u8]) -> Result<Vec<Chunk>> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let hdr = data.get(pos..pos + 8).ok_or_else(|| Error::Truncated {
            offset: pos as u64,
            what: "uz2 chunk header (u32 compressed size, u32 uncompressed size)".into(),
            needed: 8,
            available: (data.len() - pos) as u64,
        })?;
        let comp = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]);
        let uncomp = u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]);
        if comp == 0 || comp as usize > MAX_COMPRESSED_CHUNK {
            return Err(Error::invalid(
                pos as u64,
                format!("uz2 chunk compressed size {comp} is outside 1..={MAX_COMPRESSED_CHUNK}"),
            ));
        }
        if uncomp == 0 || uncomp as usize > MAX_CHUNK {
            return Err(Error::invalid(
                pos as u64 + 4,
                format!("uz2 chunk uncompressed size {uncomp} is outside 1..={MAX_CHUNK}"),
            ));
        }
        // Deflate cannot beat about 1032:1, so a tiny chunk cannot declare
        // a large size (this keeps the output buffer bounded by the input).
        if u64::from(uncomp) > u64::from(comp) * 1032 + 64 {
            return Err(Error::invalid(
                pos as u64 + 4,
                format!("uz2 chunk declares {uncomp} bytes from only {comp} compressed bytes (impossible for zlib)"),
            ));
        }
        let end = pos + 8 + comp as usize;
        if end > data.len() {
            return Err(Error::Truncated {
                offset: pos as u64 + 8,
                what: "uz2 chunk zlib data".into(),
                needed: u64::from(comp),
                available: (data.len() - pos - 8) as u64,
            });
        }
        if !crate::zlib_header_at(data, pos + 8) {
            return Err(Error::invalid(
                pos as u64 + 8,
                "uz2 chunk data does not start with a zlib header (0x78 ..)",
            ));
        }
        out.push(Chunk {
            offset: pos as u64,
            compressed: comp,
            uncompressed: uncomp,
        });
        pos = end;
    }
    Ok(out)
}

/// Inflate one zlib stream of `src` into exactly `dst.len()` bytes.
/// `at` is the stream's file offset, `what` names it.
pub(crate) fn inflate_exact(src: &[u8], dst: &mut [u8], at: u64, what: &str) -> Result<()> {
    inflate_exact_with(&mut Decompress::new(true), src, dst, at, what)
}

/// [`inflate_exact`] with a decoder to reuse (reset here), so that a file of
/// many chunks allocates its inflate state once.
fn inflate_exact_with(
    z: &mut Decompress,
    src: &[u8],
    dst: &mut [u8],
    at: u64,
    what: &str,
) -> Result<()> {
    z.reset(true);
    let status = z
        .decompress(src, dst, FlushDecompress::Finish)
        .map_err(|e| Error::invalid(at, format!("{what}: zlib error: {e}")))?;
    let got = z.total_out() as usize;
    match status {
        Status::StreamEnd if got == dst.len() => Ok(()),
        Status::StreamEnd => Err(Error::invalid(
            at,
            format!("{what}: zlib stream decodes to {got} bytes, header says {}", dst.len()),
        )),
        _ if got == dst.len() => {
            // Output full but the stream has not ended: more data than declared?
            let mut probe = [0u8; 1];
            match z.decompress(&src[z.total_in() as usize..], &mut probe, FlushDecompress::Finish) {
                Ok(Status::StreamEnd) if z.total_out() as usize == dst.len() => Ok(()),
                _ => Err(Error::invalid(
                    at,
                    format!("{what}: zlib stream holds more than the {} bytes the header declares", dst.len()),
                )),
            }
        }
        _ => Err(Error::invalid(
            at,
            format!(
                "{what}: zlib stream is cut short after {got} of {} bytes ({} of {} input bytes used)",
                dst.len(),
                z.total_in(),
                src.len()
            ),
        )),
    }
}

/// Deflate `src` as one zlib stream at `level` (zlib's `compress()` uses
/// the default level).
pub(crate) fn deflate(src: &[u8], level: Compression) -> Result<Vec<u8>> {
    let mut z = ZlibEncoder::new(Vec::with_capacity(src.len() / 2 + 64), level);
    z.write_all(src)
        .and_then(|_| z.finish())
        .map_err(|e| Error::Other(format!("zlib compression failed: {e}")))
}

/// One chunk as one zlib stream at zlib's default level, with a deflate
/// state reused across chunks (reset here: the output is the same as a fresh
/// stream's, without allocating the state's ~270 KiB per chunk, which cost
/// a fresh process one page fault per 4 KiB).
fn compress_chunk(z: &mut Compress, chunk: &[u8]) -> Result<Vec<u8>> {
    z.reset();
    // Room for the worst case (stored blocks: 5 bytes per 16 KiB) and the
    // zlib header and Adler-32.
    let mut out = Vec::with_capacity(chunk.len() + chunk.len() / 1000 + 64);
    let status = z
        .compress_vec(chunk, &mut out, FlushCompress::Finish)
        .map_err(|e| Error::Other(format!("zlib compression failed: {e}")))?;
    if status != Status::StreamEnd || z.total_in() as usize != chunk.len() {
        return Err(Error::Other(
            "zlib compression did not finish a chunk".into(),
        ));
    }
    if out.len() <= MAX_COMPRESSED_CHUNK {
        Ok(out)
    } else {
        // Stored blocks never exceed 32768 + 11 bytes.
        deflate(chunk, Compression::none())
    }
}

/// Encode `data` as `.uz2` (chunks compressed in parallel).
pub fn compress(data: &[u8]) -> Result<Vec<u8>> {
    let parts: Vec<Vec<u8>> = if data.len() <= SMALL {
        let mut z = Compress::new(Compression::default(), true);
        data.chunks(MAX_CHUNK)
            .map(|chunk| compress_chunk(&mut z, chunk))
            .collect::<Result<_>>()?
    } else {
        data.par_chunks(MAX_CHUNK)
            .map_init(
                || Compress::new(Compression::default(), true),
                compress_chunk,
            )
            .collect::<Result<_>>()?
    };
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 8).sum());
    for (raw, z) in data.chunks(MAX_CHUNK).zip(parts) {
        out.extend_from_slice(&(z.len() as u32).to_le_bytes());
        out.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        out.extend_from_slice(&z);
    }
    Ok(out)
}

/// Decode a whole `.uz2` file (chunks inflated in parallel).
pub fn decompress(data: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    let list = chunks(data)?;
    let total: u64 = list.iter().map(|c| u64::from(c.uncompressed)).sum();
    if total > limits.max_output as u64 {
        return Err(Error::invalid(
            0,
            format!(
                "uz2 chunks declare {total} bytes, over the limit of {} bytes",
                limits.max_output
            ),
        ));
    }
    let mut out = vec![0u8; total as usize];
    let mut z = Decompress::new(true);
    inflate_chunks(data, &list, &mut out, &mut z, total >= PARALLEL_MIN)?;
    Ok(out)
}

/// Inflate `chunks` of `data` into `dst` (exactly their total size), in
/// order: in parallel (one inflate state per worker) or on this thread
/// with `z`.
fn inflate_chunks(
    data: &[u8],
    chunks: &[Chunk],
    dst: &mut [u8],
    z: &mut Decompress,
    parallel: bool,
) -> Result<()> {
    let mut jobs = Vec::with_capacity(chunks.len());
    let mut rest = dst;
    for c in chunks {
        let (head, tail) = rest.split_at_mut(c.uncompressed as usize);
        jobs.push((c, head));
        rest = tail;
    }
    let one = |z: &mut Decompress, (c, dst): (&Chunk, &mut [u8])| {
        let start = c.offset as usize + 8;
        let src = &data[start..start + c.compressed as usize];
        inflate_exact_with(z, src, dst, start as u64, "uz2 chunk")
    };
    if parallel {
        jobs.into_par_iter()
            .try_for_each_init(|| Decompress::new(true), one)
    } else {
        jobs.into_iter().try_for_each(|j| one(z, j))
    }
}

/// Chunks decoded together by [`decompress_to`]: 64 × 32 KiB = 2 MiB of
/// output in memory at most, enough to keep every core busy.
const BATCH: usize = 64;

/// Below this much output chunks are inflated on the calling thread:
/// measured on `XGame.u.uz2` (0.9 MiB), starting the pool cost 1 ms of CPU
/// and won no wall time.
const PARALLEL_MIN: u64 = 4 << 20;

/// Decode a `.uz2` file into `out` in batches of 64 chunks (bounded
/// memory; the chunks of a batch are inflated in parallel, then written in
/// order); returns the number of bytes written. Stops at the first bad
/// chunk, so `out` may hold a prefix of the data on error.
pub fn decompress_to(data: &[u8], out: &mut dyn Write) -> Result<u64> {
    let list = chunks(data)?;
    let mut buf = vec![0u8; MAX_CHUNK * BATCH.min(list.len())];
    let mut written = 0u64;
    let mut z = Decompress::new(true);
    let parallel = list.iter().map(|c| u64::from(c.uncompressed)).sum::<u64>() >= PARALLEL_MIN;
    for batch in list.chunks(BATCH) {
        let size: usize = batch.iter().map(|c| c.uncompressed as usize).sum();
        inflate_chunks(data, batch, &mut buf[..size], &mut z, parallel)?;
        out.write_all(&buf[..size])
            .map_err(|e| Error::Other(format!("writing decoded uz2 data: {e}")))?;
        written += size as u64;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_deflate_state_writes_what_fresh_streams_write() {
        // Three chunks of different text: a state carried over from one
        // chunk to the next would change the second and third streams.
        let data: Vec<u8> = (0..3 * MAX_CHUNK + 100)
            .map(|i| (((i / 7) * 31 + i / MAX_CHUNK * 5) % 251) as u8)
            .collect();
        let file = compress(&data).unwrap();
        let list = chunks(&file).unwrap();
        assert_eq!(list.len(), 4);
        for (c, raw) in list.iter().zip(data.chunks(MAX_CHUNK)) {
            let start = c.offset as usize + 8;
            let fresh = deflate(raw, Compression::default()).unwrap();
            assert!(file[start..start + c.compressed as usize] == fresh[..]);
        }
        assert!(decompress(&file, &Limits::default()).unwrap() == data);
        let mut streamed = Vec::new();
        decompress_to(&file, &mut streamed).unwrap();
        assert!(streamed == data);
    }

    #[test]
    fn streamed_batches_decode_in_order() {
        // More than one batch, with chunks of different content so that a
        // batch written out of order would not match.
        let n = BATCH * MAX_CHUNK * 2 + 5000;
        let data: Vec<u8> = (0..n)
            .map(|i| ((i / MAX_CHUNK) as u8).wrapping_mul(37) ^ (i % 7) as u8)
            .collect();
        let file = compress(&data).unwrap();
        assert_eq!(chunks(&file).unwrap().len(), 2 * BATCH + 1);
        let mut streamed = Vec::new();
        assert_eq!(decompress_to(&file, &mut streamed).unwrap(), n as u64);
        assert!(streamed == data);
        // A damaged chunk in the second batch: an error, and what was
        // written is a prefix of whole batches.
        let mut bad = file.clone();
        let c = chunks(&file).unwrap()[BATCH + 3];
        bad[c.offset as usize + 8 + 2] ^= 0xff;
        let mut part = Vec::new();
        assert!(decompress_to(&bad, &mut part).is_err());
        assert_eq!(part.len(), BATCH * MAX_CHUNK);
        assert!(part[..] == data[..part.len()]);
    }
}
