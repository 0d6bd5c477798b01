//! `.uz3` (UE3): `u32 0x0000162E` (= 5678), `u32 UncompressedSize`, then one
//! zlib stream of the whole file (`classic.md` §4; uzLib `uzLib.h`
//! `UZ3_MAGIC_NUMBER`, `uzLib.cpp` `uz3Lib`).

use std::io::{Read, Write};

use flate2::read::ZlibDecoder;
use flate2::Compression;
use pakrat_io::{Error, Reader, Result};

use crate::uz2::{deflate, inflate_exact};
use crate::Limits;

/// The `.uz3` magic number.
pub const MAGIC: u32 = 0x0000_162E;
/// Bytes before the zlib stream.
pub const HEADER_LEN: usize = 8;
/// Deflate cannot expand data by more than about 1032:1.
const MAX_RATIO: u64 = 1032;

/// Read the magic and the declared size; checks the size is possible.
pub fn read_header(data: &[u8]) -> Result<u32> {
    let mut r = Reader::new(data);
    let at = r.offset();
    let magic = r.u32("uz3 magic")?;
    if magic != MAGIC {
        return Err(Error::invalid(
            at,
            format!("uz3 magic is {magic:#x}, expected {MAGIC:#x}"),
        ));
    }
    let size = r.u32("uz3 uncompressed size")?;
    let stream = r.remaining() as u64;
    if u64::from(size) > stream.saturating_mul(MAX_RATIO) + 64 {
        return Err(Error::invalid(
            4,
            format!("uz3 uncompressed size {size} is impossible for a {stream}-byte zlib stream"),
        ));
    }
    Ok(size)
}

/// Decode a whole `.uz3` file.
pub fn decompress(data: &[u8], limits: &Limits) -> Result<Vec<u8>> {
    let size = read_header(data)? as usize;
    if size > limits.max_output {
        return Err(Error::invalid(
            4,
            format!(
                "uz3 uncompressed size {size} is over the limit of {} bytes",
                limits.max_output
            ),
        ));
    }
    let mut out = vec![0u8; size];
    inflate_exact(
        &data[HEADER_LEN..],
        &mut out,
        HEADER_LEN as u64,
        "uz3 zlib stream",
    )?;
    Ok(out)
}

/// Decode a `.uz3` file into `out` in pieces (constant memory); returns the
/// bytes written. On error `out` may hold a prefix of the data.
pub fn decompress_to(data: &[u8], out: &mut dyn Write) -> Result<u64> {
    let size = u64::from(read_header(data)?);
    let mut z = ZlibDecoder::new(&data[HEADER_LEN..]);
    let mut buf = vec![0u8; 1 << 16];
    let mut written = 0u64;
    loop {
        let n = z.read(&mut buf).map_err(|e| {
            Error::invalid(
                HEADER_LEN as u64 + z.total_in(),
                format!("uz3 zlib stream: {e} after {written} bytes"),
            )
        })?;
        if n == 0 {
            break;
        }
        written += n as u64;
        if written > size {
            return Err(Error::invalid(
                HEADER_LEN as u64,
                format!("uz3 zlib stream holds more than the {size} bytes the header declares"),
            ));
        }
        out.write_all(&buf[..n])
            .map_err(|e| Error::Other(format!("writing decoded uz3 data: {e}")))?;
    }
    if written != size {
        return Err(Error::invalid(
            HEADER_LEN as u64,
            format!("uz3 zlib stream decodes to {written} bytes, header says {size}"),
        ));
    }
    Ok(written)
}

/// Encode `data` as `.uz3`.
pub fn compress(data: &[u8]) -> Result<Vec<u8>> {
    let size = u32::try_from(data.len()).map_err(|_| {
        Error::Other(format!(
            "cannot .uz3-compress {} bytes: the size field is 32 bits",
            data.len()
        ))
    })?;
    let z = deflate(data, Compression::default())?;
    let mut out = Vec::with_capacity(z.len() + HEADER_LEN);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&z);
    Ok(out)
}
