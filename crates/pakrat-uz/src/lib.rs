//! Redirect compression: .uz (UE1), .uz2 (UE2), .uz3 (UE3)
#![deny(missing_docs)]

/// The three redirect formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UzFormat {
    /// UE1 `ucc compress`: signature 1234 or 5678, original name, codec chain.
    Uz,
    /// UE2: chunks of independent zlib streams.
    Uz2,
    /// UE3: one zlib stream.
    Uz3,
}

/// Recognise a redirect-compressed file from its first bytes.
pub fn detect(data: &[u8]) -> Option<UzFormat> {
    let le = |at: usize| {
        data.get(at..at + 4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    };
    match le(0)? {
        1234 | 5678 => Some(UzFormat::Uz),
        c if c <= 33096 && le(4)? <= 32768 && data.get(8) == Some(&0x78) => Some(UzFormat::Uz2),
        _ => None,
    }
}
