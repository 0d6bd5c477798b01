use std::fmt;

/// An Unreal `FString` as stored on disk: a compact-index length that counts
/// the terminating NUL, positive for 8-bit characters, negative for UTF-16LE
/// code units, zero for the empty string (`classic.md` §1.2).
///
/// 8-bit strings are decoded as Latin-1 (each byte is one code point), which is
/// what UE1/UE2 do when loading (`FString` serialisation widens each ANSI byte
/// to a `TCHAR`), so decoding and re-encoding is byte-exact. `wide` records
/// which form the file used so a rewrite can keep it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct FString {
    /// The text, without the terminating NUL.
    pub text: String,
    /// True when stored as UTF-16 (negative length).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wide: bool,
}

impl FString {
    /// A string that is stored in 8-bit form when every character fits in
    /// Latin-1 and as UTF-16 otherwise (the engine's own choice when saving).
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let wide = text.chars().any(|c| u32::from(c) > 0xFF);
        FString { text, wide }
    }

    /// Decode Latin-1 bytes (without NUL).
    pub fn from_latin1(bytes: &[u8]) -> String {
        bytes.iter().map(|&b| char::from(b)).collect()
    }

    /// Encode as Latin-1, or `None` if a character does not fit.
    pub fn to_latin1(text: &str) -> Option<Vec<u8>> {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).ok())
            .collect()
    }
}

impl fmt::Display for FString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<&str> for FString {
    fn from(s: &str) -> Self {
        FString::new(s)
    }
}
