use crate::{compact, FString, Guid};

/// Appends little-endian values to a `Vec<u8>`; the mirror of [`crate::Reader`].
#[derive(Clone, Debug, Default)]
pub struct Writer {
    buf: Vec<u8>,
}

macro_rules! le_writer {
    ($($name:ident $be:ident: $t:ty),* $(,)?) => {$(
        #[doc = concat!("Append a little-endian `", stringify!($t), "`.")]
        pub fn $name(&mut self, v: $t) -> &mut Self {
            self.buf.extend_from_slice(&v.to_le_bytes());
            self
        }
        #[doc = concat!("Append a big-endian `", stringify!($t), "`.")]
        pub fn $be(&mut self, v: $t) -> &mut Self {
            self.buf.extend_from_slice(&v.to_be_bytes());
            self
        }
    )*};
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(n),
        }
    }

    /// Continue writing after existing bytes.
    pub fn from_vec(buf: Vec<u8>) -> Self {
        Writer { buf }
    }

    /// The bytes written so far.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf
    }

    /// Take the bytes.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Append raw bytes.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// Append one byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// Append `n` zero bytes.
    pub fn zeros(&mut self, n: usize) -> &mut Self {
        self.buf.resize(self.buf.len() + n, 0);
        self
    }

    /// Pad with zeros up to a multiple of `align` (no-op for 0 or 1).
    pub fn align(&mut self, align: usize) -> &mut Self {
        if align > 1 {
            let rem = self.buf.len() % align;
            if rem != 0 {
                self.zeros(align - rem);
            }
        }
        self
    }

    le_writer!(
        u16 u16_be: u16,
        i16 i16_be: i16,
        u32 u32_be: u32,
        i32 i32_be: i32,
        u64 u64_be: u64,
        i64 i64_be: i64,
    );

    /// Append a little-endian `f32`.
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Append a 40-bit big-endian value (the top 24 bits of `v` are dropped).
    pub fn u40_be(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes()[3..]);
        self
    }

    /// Overwrite a little-endian `u32` at `at` (for back-patched offsets).
    ///
    /// # Panics
    /// If `at + 4` is past what was written: a bug in the caller, not input.
    pub fn patch_u32(&mut self, at: usize, v: u32) {
        self.buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Append a compact index in its shortest form.
    pub fn compact(&mut self, v: i32) -> &mut Self {
        let (b, n) = compact::encode(v);
        self.bytes(&b[..n])
    }

    /// Append an `FString` in the form it records (8-bit, or UTF-16 when
    /// `wide` is set or a character does not fit in Latin-1).
    pub fn fstring(&mut self, s: &FString) -> &mut Self {
        if s.text.is_empty() && !s.wide {
            return self.compact(0);
        }
        match (s.wide, FString::to_latin1(&s.text)) {
            (false, Some(bytes)) => {
                self.compact(bytes.len() as i32 + 1);
                self.bytes(&bytes).u8(0)
            }
            _ => {
                let units: Vec<u16> = s.text.encode_utf16().collect();
                self.compact(-(units.len() as i32 + 1));
                for u in units {
                    self.u16(u);
                }
                self.u16(0)
            }
        }
    }

    /// Append a GUID.
    pub fn guid(&mut self, g: Guid) -> &mut Self {
        self.bytes(&g.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reader;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fstring_round_trip(text in "\\PC{0,40}", wide in any::<bool>()) {
            let s = FString { text: text.replace('\0', ""), wide: wide || text.chars().any(|c| u32::from(c) > 0xFF) };
            let mut w = Writer::new();
            w.fstring(&s).u32(7);
            let mut r = Reader::new(w.as_slice());
            let back = r.fstring("s").unwrap();
            if s.text.is_empty() && !s.wide { prop_assert_eq!(back, FString::default()); } else { prop_assert_eq!(back, s); }
            prop_assert_eq!(r.u32("tail").unwrap(), 7);
        }
    }

    #[test]
    fn values() {
        let mut w = Writer::new();
        w.u16(0x0102)
            .u32_be(0x0A0B0C0D)
            .u40_be(0x1_0203_0405)
            .compact(-65);
        let mut r = Reader::new(w.as_slice());
        assert_eq!(r.u16("a").unwrap(), 0x0102);
        assert_eq!(r.u32_be("b").unwrap(), 0x0A0B0C0D);
        assert_eq!(r.u40_be("c").unwrap(), 0x1_0203_0405);
        assert_eq!(r.compact("d").unwrap(), -65);
        assert_eq!(r.remaining(), 0);
    }
}
