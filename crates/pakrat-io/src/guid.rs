use std::fmt;

/// A 128-bit GUID stored as four little-endian `u32`s `A, B, C, D`
/// (UT432 `Core/Inc/UnObjBas.h` `FGuid`).
///
/// Its text form is `%08X%08X%08X%08X` of the four words, as `FGuid::String()`
/// prints it (the download cache names files this way); note that this is
/// *not* the hex of the raw bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Guid {
    /// The four words in file order.
    pub words: [u32; 4],
}

impl Guid {
    /// Build from the 16 raw bytes as stored in a file.
    pub fn from_bytes(b: [u8; 16]) -> Self {
        let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Guid {
            words: [w(0), w(4), w(8), w(12)],
        }
    }

    /// The 16 raw bytes as stored in a file.
    pub fn to_bytes(self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (i, w) in self.words.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// True when all bits are zero.
    pub fn is_zero(self) -> bool {
        self.words == [0; 4]
    }

    /// Parse the 32-hex-digit `FGuid::String()` form (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        if s.len() != 32 || !s.is_ascii() {
            return None;
        }
        let mut words = [0u32; 4];
        for (i, w) in words.iter_mut().enumerate() {
            *w = u32::from_str_radix(&s[i * 8..i * 8 + 8], 16).ok()?;
        }
        Some(Guid { words })
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.words;
        write!(f, "{a:08X}{b:08X}{c:08X}{d:08X}")
    }
}

impl serde::Serialize for Guid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_is_words_not_bytes() {
        let g = Guid::from_bytes([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE]);
        assert_eq!(g.to_string(), "000000010000000200000003DEADBEEF");
        assert_eq!(Guid::parse(&g.to_string()), Some(g));
        assert_eq!(Guid::from_bytes(g.to_bytes()), g);
        assert_eq!(Guid::parse("xyz"), None);
    }
}
