//! `FString`: the engine's length-prefixed string (UE4+ archives).
//!
//! An `i32` length that counts the closing NUL; a positive length is 8-bit
//! text, a negative one UTF-16LE code units (UE `FString::SerializeAsANSICharArray`
//! / `operator<<(FArchive&, FString&)`), and 0 the empty string.

use pakrat_io::{Error, Reader, Result, Writer};

/// Read an `FString` with an `i32` length (UE4+ archives).
pub fn read_fstring(r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let len = r.i32(what)?;
    if len == 0 {
        return Ok(String::new());
    }
    if len > 0 {
        let raw = r.bytes(len as u64, what)?;
        let (last, body) = raw.split_last().unwrap_or((&0, &[]));
        if *last != 0 || body.contains(&0) {
            return Err(Error::invalid(
                at,
                format!("{what}: string of {len} bytes is not NUL-terminated at its end"),
            ));
        }
        Ok(body.iter().map(|&b| char::from(b)).collect())
    } else {
        let units = u64::from(len.unsigned_abs());
        let raw = r.bytes(units * 2, what)?;
        let mut code: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if code.pop() != Some(0) || code.contains(&0) {
            return Err(Error::invalid(
                at,
                format!("{what}: UTF-16 string of {units} units is not NUL-terminated at its end"),
            ));
        }
        String::from_utf16(&code).map_err(|_| {
            Error::invalid(
                at,
                format!("{what}: UTF-16 string has an unpaired surrogate"),
            )
        })
    }
}

/// Write an `FString` as the engine does: 8-bit with a NUL when every
/// character is ASCII, UTF-16LE (negative length) otherwise.
pub fn write_fstring(w: &mut Writer, s: &str) {
    if s.is_ascii() {
        w.i32(s.len() as i32 + 1).bytes(s.as_bytes()).u8(0);
    } else {
        let units: Vec<u16> = s.encode_utf16().collect();
        w.i32(-(units.len() as i32 + 1));
        for u in units {
            w.u16(u);
        }
        w.u16(0);
    }
}
