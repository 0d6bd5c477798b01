//! Block decompression: None, Zlib, Gzip, LZ4, Zstd, Oodle.
//!
//! Method names are FName strings compared case-insensitively (UE
//! `FCompression`); Zlib blocks are RFC 1950 streams, LZ4 blocks raw LZ4
//! block format, Oodle blocks raw Oodle streams (`8C 06` Kraken, ...).

use std::io::{Read, Write};

use pakrat_io::{Error, Result};

/// A compression method named in the TOC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// Stored.
    None,
    /// zlib (RFC 1950).
    Zlib,
    /// gzip (RFC 1952).
    Gzip,
    /// LZ4 block format.
    Lz4,
    /// Zstandard frame.
    Zstd,
    /// Oodle (Kraken, Mermaid, Selkie, Leviathan...).
    Oodle,
    /// A name this reader cannot decode.
    Unknown(String),
}

impl Method {
    /// Map a TOC method name.
    pub fn from_name(name: &str) -> Method {
        match name.to_ascii_lowercase().as_str() {
            "" | "none" => Method::None,
            "zlib" => Method::Zlib,
            "gzip" => Method::Gzip,
            "lz4" => Method::Lz4,
            "zstd" => Method::Zstd,
            "oodle" => Method::Oodle,
            _ => Method::Unknown(name.to_string()),
        }
    }

    /// Whether this build can decode the method.
    pub fn supported(&self) -> bool {
        !matches!(self, Method::Unknown(_))
            && (cfg!(feature = "oodle") || !matches!(self, Method::Oodle))
    }
}

/// Which zlib encoder makes Zlib blocks. Both write RFC 1950 streams that
/// every reader (the engine, repak, CUE4Parse) decodes; they differ in speed,
/// size and exact bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ZlibEncoder {
    /// libdeflate, at level [`FAST_ZLIB_LEVEL`] unless a level is given
    /// (its own scale, 0–12): it compresses a whole block in one call,
    /// without zlib's copy into a sliding window. At level 1 the codec takes
    /// about a tenth of the reference zlib's CPU time at level 6 (as much
    /// as repak's miniz_oxide at level 1), for blocks about 4% bigger (and
    /// about 5% smaller than miniz_oxide's).
    #[default]
    Fast,
    /// The reference zlib (`compress2`, level 6 unless a level is given),
    /// as UnrealPak's `FCompression` links it: the same blocks as
    /// UnrealPak's, byte for byte, at about 4x the CPU time of a whole
    /// `pak create` with [`Fast`](Self::Fast).
    UnrealPak,
}

/// Default level of [`ZlibEncoder::Fast`] (libdeflate's scale, 0–12).
/// On the corpus files in 64 KiB blocks, level 1 writes blocks ~4% bigger
/// than the reference zlib's at level 6, in ~11% of its CPU time; level 2
/// is ~1% bigger at ~15%, level 6 ~0.6% smaller at ~45%.
pub const FAST_ZLIB_LEVEL: i32 = 1;

/// Compress one block with `m` at `level` (the codec's default when
/// `None`), Zlib with the default (fast) encoder: see [`compress_with`].
pub fn compress(m: &Method, level: Option<i32>, data: &[u8]) -> Result<Vec<u8>> {
    compress_with(m, level, ZlibEncoder::default(), data)
}

/// Compress one block with `m` at `level` (the codec's default when
/// `None`); Zlib blocks come from `zlib` (see [`ZlibEncoder`]). Oodle and
/// unknown methods have no encoder here.
pub fn compress_with(
    m: &Method,
    level: Option<i32>,
    zlib: ZlibEncoder,
    data: &[u8],
) -> Result<Vec<u8>> {
    let io = |e: std::io::Error| Error::Other(format!("compression failed: {e}"));
    match m {
        Method::Zlib => match zlib {
            ZlibEncoder::Fast => libdeflate_compress(data, level.unwrap_or(FAST_ZLIB_LEVEL)),
            ZlibEncoder::UnrealPak => zlib_compress(data, level.unwrap_or(6)),
        },
        Method::Gzip => {
            let lvl = flate2::Compression::new(level.unwrap_or(6).clamp(0, 9) as u32);
            let mut e = flate2::write::GzEncoder::new(Vec::new(), lvl);
            e.write_all(data).map_err(io)?;
            e.finish().map_err(io)
        }
        Method::Lz4 => Ok(lz4_flex::block::compress(data)),
        Method::Zstd => zstd::bulk::compress(data, level.unwrap_or(3)).map_err(io),
        Method::None => Ok(data.to_vec()),
        Method::Oodle => Err(Error::Other(
            "Oodle can only be decoded here: no Oodle encoder is available (use zlib, gzip, lz4 or zstd)".into(),
        )),
        Method::Unknown(n) => Err(Error::Other(format!("no encoder for compression method {n:?}"))),
    }
}

/// A zlib stream from libdeflate at `level` (clamped to 0–12), with one
/// compressor per thread and level, kept for the next block (allocating
/// and setting one up costs about as much as compressing a small block),
/// and one output buffer per thread: the block is copied out at its
/// compressed size (no zeroed buffer of the worst-case size per block).
fn libdeflate_compress(data: &[u8], level: i32) -> Result<Vec<u8>> {
    use libdeflater::{CompressionLvl, Compressor};
    type Kept = (Vec<(i32, Compressor)>, Vec<u8>);
    thread_local! {
        static KEPT: std::cell::RefCell<Kept> =
            const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    }
    let level = level.clamp(0, 12);
    KEPT.with(|cell| {
        let (list, buf) = &mut *cell.borrow_mut();
        let at = match list.iter().position(|(l, _)| *l == level) {
            Some(i) => i,
            None => {
                let lvl = CompressionLvl::new(level)
                    .map_err(|e| Error::Other(format!("zlib level {level}: {e:?}")))?;
                list.push((level, Compressor::new(lvl)));
                list.len() - 1
            }
        };
        let c = &mut list[at].1;
        let bound = c.zlib_compress_bound(data.len());
        if buf.len() < bound {
            buf.resize(bound, 0);
        }
        let n = c
            .zlib_compress(data, &mut buf[..bound])
            .map_err(|e| Error::Other(format!("zlib compression failed ({e:?})")))?;
        let out = buf[..n].to_vec();
        if buf.len() > 4 << 20 {
            *buf = Vec::new(); // one huge block does not stay with the thread
        }
        Ok(out)
    })
}

/// A zlib stream from the reference zlib (`compress2`), as UnrealPak's
/// `FCompression` makes it: level 6 (default), window 15, memory level 8.
fn zlib_compress(data: &[u8], level: i32) -> Result<Vec<u8>> {
    let src_len = libz_sys::uLong::try_from(data.len())
        .map_err(|_| Error::Other("block too large for zlib".into()))?;
    // SAFETY: compressBound has no preconditions.
    let bound = unsafe { libz_sys::compressBound(src_len) };
    let mut out = vec![0u8; bound as usize];
    let mut out_len: libz_sys::uLongf = bound;
    // SAFETY: `out` holds `bound` writable bytes and `out_len` says so;
    // `data` holds `src_len` readable bytes; zlib writes at most `out_len`
    // bytes and stores the written length back into `out_len`.
    let rc = unsafe {
        libz_sys::compress2(
            out.as_mut_ptr(),
            &mut out_len,
            data.as_ptr(),
            src_len,
            level.clamp(0, 9),
        )
    };
    if rc != libz_sys::Z_OK {
        return Err(Error::Other(format!("zlib compression failed (code {rc})")));
    }
    out.truncate(out_len as usize);
    Ok(out)
}

/// Decode one whole zlib stream into exactly `out.len()` bytes, with
/// libdeflate (a thread's decompressor is kept): whole-buffer decoding,
/// which took IoStore extraction of a Zlib container from 0.76 to 0.66
/// CPU-seconds (the inflate was half of it; issue 31 item 17). The
/// Adler-32 check is libdeflate's; bytes after the stream's end (the
/// padding of encrypted blocks) are ignored, as zlib-rs did (test
/// `zlib_decoding_checks_size_checksum_and_ignores_padding`).
fn zlib_decompress(input: &[u8], out: &mut [u8]) -> Result<()> {
    use libdeflater::{DecompressionError, Decompressor};
    thread_local! {
        static KEPT: std::cell::RefCell<Option<Decompressor>> =
            const { std::cell::RefCell::new(None) };
    }
    let want = out.len();
    let res = KEPT.with(|cell| {
        let mut kept = cell.borrow_mut();
        kept.get_or_insert_with(Decompressor::new)
            .zlib_decompress(input, out)
    });
    match res {
        Ok(n) if n == want => Ok(()),
        Ok(n) => Err(Error::Other(format!(
            "zlib stream decodes to {n} bytes, expected {want}"
        ))),
        Err(DecompressionError::InsufficientSpace) => Err(Error::Other(format!(
            "zlib stream decodes to more than the {want} bytes expected"
        ))),
        Err(DecompressionError::BadData) => Err(Error::Other(
            "zlib stream does not decode (corrupt data or checksum)".into(),
        )),
    }
}

/// Decompress `input` into exactly `out.len()` bytes.
pub fn decompress(method: &Method, input: &[u8], out: &mut [u8]) -> Result<()> {
    let bad = |what: String| Error::Other(what);
    match method {
        Method::None => {
            if input.len() != out.len() {
                return Err(bad(format!(
                    "stored block of {} bytes should hold {} bytes",
                    input.len(),
                    out.len()
                )));
            }
            out.copy_from_slice(input);
            Ok(())
        }
        Method::Zlib => zlib_decompress(input, out),
        Method::Gzip => {
            let mut d = flate2::read::GzDecoder::new(input);
            d.read_exact(out)
                .map_err(|e| bad(format!("gzip stream does not decode: {e}")))?;
            let mut extra = [0u8; 1];
            match d.read(&mut extra) {
                Ok(0) => Ok(()),
                Ok(_) => Err(bad(format!(
                    "gzip stream holds more than {} bytes",
                    out.len()
                ))),
                Err(e) => Err(bad(format!("gzip stream does not decode: {e}"))),
            }
        }
        Method::Lz4 => {
            let n = lz4_flex::block::decompress_into(input, out)
                .map_err(|e| bad(format!("LZ4 block does not decode: {e}")))?;
            if n != out.len() {
                return Err(bad(format!(
                    "LZ4 block decodes to {n} bytes, expected {}",
                    out.len()
                )));
            }
            Ok(())
        }
        Method::Zstd => {
            let n = zstd::bulk::decompress_to_buffer(input, out)
                .map_err(|e| bad(format!("Zstd frame does not decode: {e}")))?;
            if n != out.len() {
                return Err(bad(format!(
                    "Zstd frame decodes to {n} bytes, expected {}",
                    out.len()
                )));
            }
            Ok(())
        }
        Method::Oodle => oodle(input, out),
        Method::Unknown(name) => Err(bad(format!(
            "compression method {name:?} is not supported (known: Zlib, Gzip, LZ4, Zstd, Oodle)"
        ))),
    }
}

#[cfg(feature = "oodle")]
thread_local! {
    /// Set while this thread runs the Oodle decoder (see [`quiet_panics`]).
    static IN_OODLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `oozextract` 0.5.7 panics (assertions, slice checks) on some corrupt
/// streams instead of returning an error. We catch those panics and report a
/// corrupt block; this hook keeps the default panic message off stderr while
/// the decoder runs on this thread, and hands every other panic to the hook
/// that was installed before.
#[cfg(feature = "oodle")]
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_OODLE.with(|f| f.get()) {
                prev(info);
            }
        }));
    });
}

#[cfg(feature = "oodle")]
fn oodle(input: &[u8], out: &mut [u8]) -> Result<()> {
    use std::cell::RefCell;
    use std::panic::{catch_unwind, AssertUnwindSafe};
    thread_local! {
        // The extractor owns ~0.5 MiB of scratch space: make one per thread.
        static EX: RefCell<Option<oozextract::Extractor>> = const { RefCell::new(None) };
    }
    quiet_panics();
    EX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let ex = slot.get_or_insert_with(oozextract::Extractor::new);
        IN_OODLE.with(|f| f.set(true));
        let caught = catch_unwind(AssertUnwindSafe(|| ex.read_from_slice(input, out)));
        IN_OODLE.with(|f| f.set(false));
        let n = match caught {
            Ok(r) => r.map_err(|e| Error::Other(format!("Oodle block does not decode: {e}"))),
            Err(p) => {
                let msg = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Error::Other(format!(
                    "Oodle block is corrupt (the decoder rejected it: {msg})"
                )))
            }
        };
        if n.is_err() {
            // Do not reuse an extractor whose state a bad block may have left behind.
            *slot = None;
        }
        let n = n?;
        if n != out.len() {
            return Err(Error::Other(format!(
                "Oodle block decodes to {n} bytes, expected {}",
                out.len()
            )));
        }
        Ok(())
    })
}

#[cfg(not(feature = "oodle"))]
fn oodle(_input: &[u8], _out: &mut [u8]) -> Result<()> {
    Err(Error::Other(
        "this build has no Oodle decoder (built without the `oodle` feature)".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zlib_decoding_checks_size_checksum_and_ignores_padding() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let z = compress(&Method::Zlib, None, &data).unwrap();
        let mut out = vec![0u8; data.len()];
        decompress(&Method::Zlib, &z, &mut out).unwrap();
        assert_eq!(out, data);
        // Padding after the stream (AES blocks round up to 16 bytes).
        let mut padded = z.clone();
        padded.extend_from_slice(&[0xAB; 15]);
        let mut out = vec![0u8; data.len()];
        decompress(&Method::Zlib, &padded, &mut out).unwrap();
        assert_eq!(out, data);
        // Too small or too large an output, a bad checksum, a cut stream.
        let mut small = vec![0u8; data.len() - 1];
        assert!(decompress(&Method::Zlib, &z, &mut small).is_err());
        let mut large = vec![0u8; data.len() + 1];
        assert!(decompress(&Method::Zlib, &z, &mut large).is_err());
        let mut bad = z.clone();
        let n = bad.len();
        bad[n - 1] ^= 1;
        assert!(decompress(&Method::Zlib, &bad, &mut out).is_err());
        assert!(decompress(&Method::Zlib, &z[..z.len() / 2], &mut out).is_err());
    }

    /// `oozextract` panics on some corrupt streams (hostile-input finding F1):
    /// such blocks must come back as errors.
    #[cfg(feature = "oodle")]
    #[test]
    fn corrupt_oodle_is_an_error() {
        // A Kraken-looking header followed by garbage, and pure garbage.
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut errors = 0;
        for len in [2usize, 7, 33, 200, 381, 4000] {
            for _ in 0..40 {
                let mut d: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        seed as u8
                    })
                    .collect();
                if d.len() >= 2 {
                    d[0] = 0x8C;
                    d[1] = 0x06;
                }
                let mut out = vec![0u8; 65536];
                if decompress(&Method::Oodle, &d, &mut out).is_err() {
                    errors += 1;
                }
            }
        }
        assert!(errors > 200, "{errors}");
    }

    /// The default Zlib encoder is libdeflate at [`FAST_ZLIB_LEVEL`]; the
    /// UnrealPak one is the reference zlib at level 6. Both decode.
    #[test]
    fn zlib_encoders() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 27) as u8 ^ (i % 7) as u8)
            .collect();
        let fast = compress(&Method::Zlib, None, &data).unwrap();
        let exact = compress_with(&Method::Zlib, None, ZlibEncoder::UnrealPak, &data).unwrap();
        assert_eq!(ZlibEncoder::default(), ZlibEncoder::Fast);
        assert_eq!(fast, libdeflate_compress(&data, FAST_ZLIB_LEVEL).unwrap());
        assert_eq!(exact, zlib_compress(&data, 6).unwrap());
        assert_ne!(fast, exact);
        for z in [&fast, &exact] {
            let mut out = vec![0u8; data.len()];
            decompress(&Method::Zlib, z, &mut out).unwrap();
            assert!(out == data);
        }
        // An explicit level reaches either encoder.
        assert_eq!(
            compress_with(&Method::Zlib, Some(9), ZlibEncoder::Fast, &data).unwrap(),
            libdeflate_compress(&data, 9).unwrap()
        );
        assert_eq!(
            compress_with(&Method::Zlib, Some(1), ZlibEncoder::UnrealPak, &data).unwrap(),
            zlib_compress(&data, 1).unwrap()
        );
    }

    /// The per-thread libdeflate compressors are kept between blocks: a
    /// kept one (of any level, used in any order) writes the same bytes as
    /// a fresh one, every level decodes, and out-of-range levels are
    /// clamped to libdeflate's 0-12 (0: stored deflate blocks).
    #[test]
    fn kept_compressors_write_what_fresh_ones_write() {
        let data: Vec<u8> = (0..150_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 26) as u8 & (i % 13) as u8)
            .collect();
        let fresh = |lvl: i32, d: &[u8]| {
            let mut c =
                libdeflater::Compressor::new(libdeflater::CompressionLvl::new(lvl).unwrap());
            let mut out = vec![0u8; c.zlib_compress_bound(d.len())];
            let n = c.zlib_compress(d, &mut out).unwrap();
            out.truncate(n);
            out
        };
        for round in 0..2 {
            for lvl in [1, 12, 6, 1, 0] {
                let part = &data[..data.len() - round * 1000 - lvl as usize * 7];
                let got = compress_with(&Method::Zlib, Some(lvl), ZlibEncoder::Fast, part).unwrap();
                assert_eq!(got, fresh(lvl, part), "level {lvl}, round {round}");
                let mut out = vec![0u8; part.len()];
                decompress(&Method::Zlib, &got, &mut out).unwrap();
                assert!(out == part, "level {lvl}");
            }
        }
        let hi = compress_with(&Method::Zlib, Some(99), ZlibEncoder::Fast, &data).unwrap();
        assert_eq!(hi, fresh(12, &data));
        let lo = compress_with(&Method::Zlib, Some(-3), ZlibEncoder::Fast, &data).unwrap();
        assert_eq!(lo, fresh(0, &data));
        assert!(lo.len() > data.len(), "level 0 stores");
    }

    #[test]
    fn names() {
        assert_eq!(Method::from_name("ZLIB"), Method::Zlib);
        assert_eq!(Method::from_name("oodle"), Method::Oodle);
        assert_eq!(Method::from_name("LZO"), Method::Unknown("LZO".into()));
        let e = decompress(&Method::from_name("LZO"), b"x", &mut [0u8; 1]).unwrap_err();
        assert!(e.to_string().contains("\"LZO\""), "{e}");
    }

    #[test]
    fn codecs_round_trip() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let mut out = vec![0u8; data.len()];
        let z = {
            use std::io::Write;
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(&data).unwrap();
            e.finish().unwrap()
        };
        decompress(&Method::Zlib, &z, &mut out).unwrap();
        assert_eq!(out, data);
        let g = {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(&data).unwrap();
            e.finish().unwrap()
        };
        out.fill(0);
        decompress(&Method::Gzip, &g, &mut out).unwrap();
        assert_eq!(out, data);
        let l = lz4_flex::block::compress(&data);
        out.fill(0);
        decompress(&Method::Lz4, &l, &mut out).unwrap();
        assert_eq!(out, data);
        let s = zstd::bulk::compress(&data, 3).unwrap();
        out.fill(0);
        decompress(&Method::Zstd, &s, &mut out).unwrap();
        assert_eq!(out, data);
        // wrong sizes are errors, not garbage
        let mut short = vec![0u8; 10];
        assert!(decompress(&Method::Zlib, &z, &mut short).is_err());
        assert!(decompress(&Method::Zlib, &z[..z.len() / 2], &mut out).is_err());
        assert!(decompress(&Method::None, &data[..10], &mut out).is_err());
    }
}
