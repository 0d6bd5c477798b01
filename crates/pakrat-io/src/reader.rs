use crate::{compact, Error, FString, Guid, Result};

/// A bounds-checked little-endian cursor over a byte slice.
///
/// Nothing here panics or allocates based on file contents before checking the
/// bytes that remain: every method that reads returns a [`Result`] whose error
/// names the absolute offset (`base + pos`) and the value that was expected.
/// Reading borrows from the input (`bytes` returns a sub-slice, no copy).
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

macro_rules! le_reader {
    ($($name:ident $be:ident: $t:ty),* $(,)?) => {$(
        #[doc = concat!("Read a little-endian `", stringify!($t), "`; `what` names it in errors.")]
        pub fn $name(&mut self, what: &str) -> Result<$t> {
            Ok(<$t>::from_le_bytes(self.array(what)?))
        }
        #[doc = concat!("Read a big-endian `", stringify!($t), "`; `what` names it in errors.")]
        pub fn $be(&mut self, what: &str) -> Result<$t> {
            Ok(<$t>::from_be_bytes(self.array(what)?))
        }
    )*};
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`, whose offsets are reported as is.
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            base: 0,
        }
    }

    /// A reader over `data` whose first byte is at absolute offset `base` in
    /// the file (so errors inside a sub-buffer still name file offsets).
    pub fn with_base(data: &'a [u8], base: u64) -> Self {
        Reader { data, pos: 0, base }
    }

    /// The whole underlying slice.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Position relative to the start of the slice.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute file offset of the cursor.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Absolute file offset of the start of the slice.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Length of the slice.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when the slice is empty.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Bytes left after the cursor.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The bytes left after the cursor.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// An [`Error::Invalid`] at the cursor.
    pub fn invalid(&self, what: impl Into<String>) -> Error {
        Error::invalid(self.offset(), what)
    }

    /// An [`Error::Unsupported`] at the cursor.
    pub fn unsupported(&self, what: impl Into<String>) -> Error {
        Error::unsupported(self.offset(), what)
    }

    fn truncated(&self, what: &str, needed: u64) -> Error {
        Error::Truncated {
            offset: self.offset(),
            what: what.to_string(),
            needed,
            available: self.remaining() as u64,
        }
    }

    /// Move the cursor to `pos` (relative to the slice); `pos == len` is allowed.
    pub fn seek(&mut self, pos: u64, what: &str) -> Result<()> {
        if pos > self.data.len() as u64 {
            return Err(Error::invalid(
                self.offset(),
                format!(
                    "{what}: offset {:#x} is past the end of the data ({:#x})",
                    self.base + pos,
                    self.base + self.data.len() as u64
                ),
            ));
        }
        self.pos = pos as usize;
        Ok(())
    }

    /// Skip `n` bytes.
    pub fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// Borrow the next `n` bytes.
    pub fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() as u64 {
            return Err(self.truncated(what, n));
        }
        let n = n as usize;
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Read a fixed-size array.
    pub fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let b = self.bytes(N as u64, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Read one byte.
    pub fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// Read one signed byte.
    pub fn i8(&mut self, what: &str) -> Result<i8> {
        Ok(self.u8(what)? as i8)
    }

    le_reader!(
        u16 u16_be: u16,
        i16 i16_be: i16,
        u32 u32_be: u32,
        i32 i32_be: i32,
        u64 u64_be: u64,
        i64 i64_be: i64,
    );

    /// Read a little-endian IEEE `f32`.
    pub fn f32(&mut self, what: &str) -> Result<f32> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }

    /// Read a 40-bit big-endian unsigned value (IoStore offsets and lengths).
    pub fn u40_be(&mut self, what: &str) -> Result<u64> {
        let b: [u8; 5] = self.array(what)?;
        Ok(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    /// Read an Unreal compact index (`FCompactIndex`).
    pub fn compact(&mut self, what: &str) -> Result<i32> {
        match compact::decode(self.rest()) {
            Some((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            None => Err(self.truncated(
                &format!("{what} (compact index)"),
                (self.remaining() + 1).min(compact::MAX_LEN) as u64,
            )),
        }
    }

    /// Read a compact index that must be a count of elements each at least
    /// `min_elem_size` bytes long, and check it against the bytes that remain
    /// before anyone allocates for it.
    pub fn compact_count(&mut self, what: &str, min_elem_size: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.compact(what)?;
        self.check_count_at(at, i64::from(n), min_elem_size, what)
    }

    /// Read an `i32` count (UE4+ `TArray`, `TMap`, …) of elements each at
    /// least `min_elem_size` bytes long, and check it against the bytes that
    /// remain before anyone allocates for it.
    pub fn i32_count(&mut self, what: &str, min_elem_size: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.i32(what)?;
        self.check_count_at(at, i64::from(n), min_elem_size, what)
    }

    /// Check that `n` elements of at least `min_elem_size` bytes each can fit
    /// in the bytes that remain; returns `n` as `usize`.
    pub fn check_count(&self, n: i64, min_elem_size: usize, what: &str) -> Result<usize> {
        self.check_count_at(self.offset(), n, min_elem_size, what)
    }

    fn check_count_at(&self, at: u64, n: i64, min_elem_size: usize, what: &str) -> Result<usize> {
        if n < 0 {
            return Err(Error::invalid(at, format!("{what}: negative count {n}")));
        }
        let need = (n as u128) * (min_elem_size as u128);
        if need > self.remaining() as u128 {
            return Err(Error::invalid(
                at,
                format!(
                    "{what}: count {n} needs at least {need} bytes but only {} remain",
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    /// Read an `FString` (compact length counting the NUL; negative = UTF-16).
    pub fn fstring(&mut self, what: &str) -> Result<FString> {
        let at = self.offset();
        let len = i64::from(self.compact(what)?);
        if len == 0 {
            return Ok(FString::default());
        }
        if len > 0 {
            let raw = self.bytes(len as u64, what)?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            if end + 1 != raw.len() {
                return Err(Error::invalid(
                    at,
                    format!("{what}: string of {len} bytes is not NUL-terminated at its end"),
                ));
            }
            Ok(FString {
                text: FString::from_latin1(&raw[..end]),
                wide: false,
            })
        } else {
            let units = (-len) as u64;
            let raw = self.bytes(units * 2, what)?;
            let mut code: Vec<u16> = raw
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            if code.last() != Some(&0) || code[..code.len() - 1].contains(&0) {
                return Err(Error::invalid(
                    at,
                    format!(
                        "{what}: UTF-16 string of {units} units is not NUL-terminated at its end"
                    ),
                ));
            }
            code.pop();
            let text = String::from_utf16(&code).map_err(|_| {
                Error::invalid(
                    at,
                    format!("{what}: UTF-16 string has an unpaired surrogate"),
                )
            })?;
            Ok(FString { text, wide: true })
        }
    }

    /// Read a GUID (four little-endian `u32`).
    pub fn guid(&mut self, what: &str) -> Result<Guid> {
        Ok(Guid::from_bytes(self.array(what)?))
    }

    /// A reader over `len` bytes at `start` (relative to this slice), whose
    /// errors report absolute offsets.
    pub fn sub(&self, start: u64, len: u64, what: &str) -> Result<Reader<'a>> {
        let end = start.checked_add(len);
        match end {
            Some(end) if end <= self.data.len() as u64 => Ok(Reader {
                data: &self.data[start as usize..end as usize],
                pos: 0,
                base: self.base + start,
            }),
            _ => Err(Error::invalid(
                self.base + start.min(self.data.len() as u64),
                format!(
                    "{what}: range {:#x}+{len:#x} lies outside the data (ends at {:#x})",
                    self.base + start,
                    self.base + self.data.len() as u64
                ),
            )),
        }
    }

    /// A copy of this reader positioned at `pos`.
    pub fn at(&self, pos: u64, what: &str) -> Result<Reader<'a>> {
        let mut r = self.clone();
        r.seek(pos, what)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_bounds() {
        let d = [1u8, 0, 0, 0, 0xFF, 0x40, 0x01];
        let mut r = Reader::with_base(&d, 0x100);
        assert_eq!(r.u32("a").unwrap(), 1);
        assert_eq!(r.u8("b").unwrap(), 0xFF);
        assert_eq!(r.compact("c").unwrap(), 64);
        let e = r.u8("d").unwrap_err();
        assert_eq!(e.offset(), Some(0x107));
        assert!(e.to_string().contains("expected d"), "{e}");
    }

    #[test]
    fn strings() {
        let mut r = Reader::new(&[4, b'a', 0xE9, b'c', 0]);
        let s = r.fstring("s").unwrap();
        assert_eq!(s.text, "aéc");
        assert!(!s.wide);
        // -3 units: "hi\0"
        let mut r = Reader::new(&[0x83, b'h', 0, b'i', 0, 0, 0]);
        let s = r.fstring("s").unwrap();
        assert_eq!(s.text, "hi");
        assert!(s.wide);
        // huge length is rejected before allocating
        let mut r = Reader::new(&[0x7F, 0xFF, 0xFF, 0xFF, 0x7F]);
        assert!(r.fstring("s").is_err());
        let mut r = Reader::new(&[2, b'a', b'b']);
        assert!(r.fstring("s").is_err());
    }

    #[test]
    fn counts_are_checked() {
        let d = [0u8; 10];
        let r = Reader::new(&d);
        assert_eq!(r.check_count(5, 2, "x").unwrap(), 5);
        assert!(r.check_count(6, 2, "x").is_err());
        assert!(r.check_count(-1, 2, "x").is_err());
        assert!(r.sub(8, 3, "x").is_err());
        assert_eq!(r.sub(8, 2, "x").unwrap().base(), 8);
    }

    #[test]
    fn u40() {
        let mut r = Reader::new(&[0, 0, 0, 1, 2]);
        assert_eq!(r.u40_be("x").unwrap(), 0x102);
    }
}
