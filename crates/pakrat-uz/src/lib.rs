//! Redirect compression: `.uz` (UE1), `.uz2` (UE2), `.uz3` (UE3).
//!
//! * [`decompress`] decodes any of the three from bytes (format found from
//!   the content) and returns the data with the stored original name (`.uz`
//!   only); [`decompress_to`] streams `.uz2`/`.uz3` into a writer.
//! * [`compress`] writes any of the three; `.uz` output is byte-identical to
//!   `ucc compress` (same BWT order, same Huffman tree builder).
//! * [`safe_file_name`] turns a stored original name (hostile input) into a
//!   plain file name or refuses it.
//!
//! Decoders never trust a size: every count is checked against the bytes that
//! remain, output is capped by [`Limits`], and corrupt input gives an
//! [`Error`] naming the offset (in the file, or in the named intermediate
//! stream for the later `.uz` stages) and what was expected.
#![deny(missing_docs)]

mod bwt;
mod huffman;
mod mtf;
mod rle;
mod sais;
pub mod uz1;
pub mod uz2;
pub mod uz3;

use std::io::Write;

pub use pakrat_io::{Error, FString, Result};
pub use uz1::{UzHeader, UzSignature};
pub use uz2::Chunk;

/// The package tag every Unreal package starts with.
pub const PACKAGE_TAG: u32 = 0x9E2A_83C1;

/// The three redirect formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UzFormat {
    /// UE1 `ucc compress`: signature 1234 or 5678, original name, codec chain.
    Uz,
    /// UE2: chunks of independent zlib streams.
    Uz2,
    /// UE3: one zlib stream.
    Uz3,
}

impl UzFormat {
    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            UzFormat::Uz => "uz",
            UzFormat::Uz2 => "uz2",
            UzFormat::Uz3 => "uz3",
        }
    }

    /// Parse `uz`, `uz2` or `uz3` (any case, leading dot allowed).
    pub fn from_name(s: &str) -> Option<Self> {
        match s.trim_start_matches('.').to_ascii_lowercase().as_str() {
            "uz" => Some(UzFormat::Uz),
            "uz2" => Some(UzFormat::Uz2),
            "uz3" => Some(UzFormat::Uz3),
            _ => None,
        }
    }
}

impl std::fmt::Display for UzFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.extension())
    }
}

/// Caps applied while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest decoded file accepted, in bytes.
    pub max_output: usize,
}

impl Limits {
    /// The default cap: 1 GiB, far above any UE1/UE2 package.
    pub const DEFAULT_MAX_OUTPUT: usize = 1 << 30;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_output: Self::DEFAULT_MAX_OUTPUT,
        }
    }
}

fn le32(data: &[u8], at: usize) -> Option<u32> {
    data.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// A zlib (RFC 1950) stream header as `compress()` writes it: deflate,
/// window ≤ 32 KiB, no preset dictionary, check bits valid.
pub(crate) fn zlib_header_at(data: &[u8], at: usize) -> bool {
    match (data.get(at), data.get(at + 1)) {
        (Some(&cmf), Some(&flg)) => {
            cmf & 0x0F == 8
                && cmf >> 4 <= 7
                && flg & 0x20 == 0
                && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
        }
        _ => false,
    }
}

fn plausible_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 255 && !name.chars().any(char::is_control)
}

/// A `.uz2` chunk header at `at` with both sizes in range and a zlib header
/// after it; returns where the chunk ends (perhaps past the end of `data`).
fn uz2_chunk_at(data: &[u8], at: usize) -> Option<usize> {
    let comp = le32(data, at)? as usize;
    let uncomp = le32(data, at + 4)? as usize;
    ((1..=uz2::MAX_COMPRESSED_CHUNK).contains(&comp)
        && (1..=uz2::MAX_CHUNK).contains(&uncomp)
        && zlib_header_at(data, at + 8))
    .then_some(at + 8 + comp)
}

/// The formats `data` (the whole file) could be, most likely first;
/// usually one, none for other files.
///
/// The first four bytes do not settle it: `.uz` signature 5678 is also the
/// `.uz3` magic, and a `.uz2` whose first chunk is 1234 or 5678 bytes long
/// starts like a `.uz`. So:
/// * `.uz`: signature 1234/5678 and a well-formed `FString` (ranked first
///   when it looks like a file name, last otherwise);
/// * `.uz2`: chunk headers with sizes in range, each followed by a zlib
///   header, tiling the whole file (or, when the first four bytes are no
///   `.uz` signature, just a valid first chunk header, so that a damaged
///   `.uz2` is still recognised and its damage reported);
/// * `.uz3`: 0x162E, a size the stream could hold, a zlib header at offset 8;
/// * finally `.uz` again for a 1234/5678 signature that nothing else
///   explains, so that a damaged header is reported as such.
pub fn candidates(data: &[u8]) -> Vec<UzFormat> {
    let mut out = Vec::with_capacity(3);
    let sig = le32(data, 0);
    let signed = matches!(sig, Some(1234 | 5678));
    let uz = if signed {
        uz1::read_header(data).ok()
    } else {
        None
    };
    let named = uz
        .as_ref()
        .is_some_and(|h| plausible_name(&h.original_name.text));
    if named {
        out.push(UzFormat::Uz);
    }
    let whole_uz2 = !data.is_empty() && uz2::chunks(data).is_ok();
    if whole_uz2 || (!signed && uz2_chunk_at(data, 0).is_some()) {
        out.push(UzFormat::Uz2);
    }
    if sig == Some(uz3::MAGIC)
        && zlib_header_at(data, uz3::HEADER_LEN)
        && uz3::read_header(data).is_ok()
    {
        out.push(UzFormat::Uz3);
    }
    // Last resort: a signature with nothing valid after it is most likely a
    // damaged .uz; reading it as one reports the damage precisely.
    if (uz.is_some() && !named) || (signed && out.is_empty()) {
        out.push(UzFormat::Uz);
    }
    out
}

/// Recognise a redirect-compressed file from its content (`data` is the
/// whole file): the most likely of [`candidates`].
pub fn detect(data: &[u8]) -> Option<UzFormat> {
    candidates(data).first().copied()
}

/// What the headers of a redirect file say (no decoding).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Info {
    /// Which format.
    pub format: UzFormat,
    /// `.uz` signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<UzSignature>,
    /// `.uz` stored original file name, exactly as stored (unsanitised).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_name: Option<String>,
    /// Bytes before the compressed data (`.uz` header, `.uz3` header; 0 for `.uz2`).
    pub header_len: usize,
    /// Decoded size as declared by the headers (`.uz2` chunk sizes summed,
    /// `.uz3` size field); `.uz` stores none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_size: Option<u64>,
    /// `.uz2` chunk count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<usize>,
}

fn not_redirect(data: &[u8]) -> Error {
    match le32(data, 0) {
        None => Error::Truncated {
            offset: 0,
            what: ".uz signature or .uz2 chunk header".into(),
            needed: 4,
            available: data.len() as u64,
        },
        Some(v) => Error::invalid(
            0,
            format!(
                "not a .uz/.uz2/.uz3 file: first u32 is {v} ({v:#x}); expected signature 1234 (.uz), \
                 5678 (.uz or .uz3) or a .uz2 chunk header (sizes ≤ 33096 and ≤ 32768, then a zlib header)"
            ),
        ),
    }
}

/// Read the headers of a `.uz`, `.uz2` or `.uz3` file.
pub fn inspect(data: &[u8]) -> Result<Info> {
    let mut first_err = None;
    for format in candidates(data) {
        match inspect_as(format, data) {
            Ok(i) => return Ok(i),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| detect_error(data)))
}

/// The most useful error for data that [`detect`] rejected.
fn detect_error(data: &[u8]) -> Error {
    match le32(data, 0) {
        Some(1234) | Some(5678) => match uz1::read_header(data) {
            Err(e) => e,
            Ok(_) => not_redirect(data),
        },
        Some(_) => match uz2::chunks(data) {
            Err(e) if uz2_chunk_at(data, 0).is_some() => e,
            _ => not_redirect(data),
        },
        None => not_redirect(data),
    }
}

/// Read the headers, the format being known.
pub fn inspect_as(format: UzFormat, data: &[u8]) -> Result<Info> {
    Ok(match format {
        UzFormat::Uz => {
            let h = uz1::read_header(data)?;
            Info {
                format,
                signature: Some(h.signature),
                original_name: Some(h.original_name.text),
                header_len: h.len,
                declared_size: None,
                chunks: None,
            }
        }
        UzFormat::Uz2 => {
            let c = uz2::chunks(data)?;
            Info {
                format,
                signature: None,
                original_name: None,
                header_len: 0,
                declared_size: Some(c.iter().map(|c| u64::from(c.uncompressed)).sum()),
                chunks: Some(c.len()),
            }
        }
        UzFormat::Uz3 => Info {
            format,
            signature: None,
            original_name: None,
            header_len: uz3::HEADER_LEN,
            declared_size: Some(u64::from(uz3::read_header(data)?)),
            chunks: None,
        },
    })
}

/// A decoded redirect file.
#[derive(Clone, Debug)]
pub struct Decompressed {
    /// Its headers.
    pub info: Info,
    /// The original file.
    pub data: Vec<u8>,
}

impl Decompressed {
    /// The stored original name (`.uz` only), unsanitised.
    pub fn original_name(&self) -> Option<&str> {
        self.info.original_name.as_deref()
    }

    /// Whether the data starts with the Unreal package tag (0x9E2A83C1, or
    /// Killing Floor's 0x9E2A83C2).
    pub fn is_package(&self) -> bool {
        matches!(le32(&self.data, 0), Some(0x9E2A_83C1 | 0x9E2A_83C2))
    }
}

/// Decode a `.uz`, `.uz2` or `.uz3` file (format found from the content)
/// with the default [`Limits`].
pub fn decompress(data: &[u8]) -> Result<Decompressed> {
    decompress_with(data, &Limits::default())
}

/// Decode with explicit limits. When the content fits more than one format
/// (see [`candidates`]) each is tried in turn; the error is the most likely
/// format's.
pub fn decompress_with(data: &[u8], limits: &Limits) -> Result<Decompressed> {
    let mut first_err = None;
    for format in candidates(data) {
        match decompress_as(format, data, limits) {
            Ok(d) => return Ok(d),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| detect_error(data)))
}

/// Decode, the format being known.
pub fn decompress_as(format: UzFormat, data: &[u8], limits: &Limits) -> Result<Decompressed> {
    let info = inspect_as(format, data)?;
    let data = match format {
        UzFormat::Uz => uz1::decompress(data, limits)?.1,
        UzFormat::Uz2 => uz2::decompress(data, limits)?,
        UzFormat::Uz3 => uz3::decompress(data, limits)?,
    };
    Ok(Decompressed { info, data })
}

/// Decode into a writer. `.uz2` and `.uz3` stream in constant memory; `.uz`
/// (whose Huffman stage covers the whole file) is decoded in memory first.
/// On error `out` may hold a prefix of the data: write to a temporary file
/// (e.g. [`pakrat_io::fsutil::write_atomic`]) so that nothing half-done
/// lands under the final name.
pub fn decompress_to(data: &[u8], out: &mut dyn Write, limits: &Limits) -> Result<(Info, u64)> {
    let mut first_err = None;
    for format in candidates(data) {
        let info = match inspect_as(format, data) {
            Ok(i) => i,
            Err(e) => {
                first_err.get_or_insert(e);
                continue;
            }
        };
        let n = match format {
            UzFormat::Uz => match uz1::decompress(data, limits) {
                Ok((_, bytes)) => {
                    out.write_all(&bytes)
                        .map_err(|e| Error::Other(format!("writing decoded data: {e}")))?;
                    bytes.len() as u64
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                    continue;
                }
            },
            // Streaming formats: once writing has begun there is no retry.
            UzFormat::Uz2 | UzFormat::Uz3 => {
                if info.declared_size.unwrap_or(0) > limits.max_output as u64 {
                    return Err(Error::invalid(
                        0,
                        format!(
                            "{format} declares {} bytes, over the limit of {} bytes",
                            info.declared_size.unwrap_or(0),
                            limits.max_output
                        ),
                    ));
                }
                if format == UzFormat::Uz2 {
                    uz2::decompress_to(data, out)?
                } else {
                    uz3::decompress_to(data, out)?
                }
            }
        };
        return Ok((info, n));
    }
    Err(first_err.unwrap_or_else(|| detect_error(data)))
}

/// How to compress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressOptions {
    /// Output format.
    pub format: UzFormat,
    /// `.uz` signature (default 5678).
    pub signature: UzSignature,
    /// `.uz` stored original file name (the input's file name, no folders).
    pub original_name: String,
}

impl CompressOptions {
    /// Options for `format` storing `original_name`, signature 5678.
    pub fn new(format: UzFormat, original_name: impl Into<String>) -> Self {
        CompressOptions {
            format,
            signature: UzSignature::S5678,
            original_name: original_name.into(),
        }
    }
}

/// Compress `data` (at most [`Limits::DEFAULT_MAX_OUTPUT`] bytes: what
/// [`decompress`] accepts back).
pub fn compress(data: &[u8], opts: &CompressOptions) -> Result<Vec<u8>> {
    compress_with(data, opts, &Limits::default())
}

/// [`compress`], refusing input larger than `limits.max_output`, so that
/// nothing is written that a decoder with the same limits would refuse.
pub fn compress_with(data: &[u8], opts: &CompressOptions, limits: &Limits) -> Result<Vec<u8>> {
    if data.len() > limits.max_output {
        return Err(Error::Other(format!(
            "{} bytes is over the {}-byte limit that decompress accepts: refusing to write a {} file nobody can decode",
            data.len(),
            limits.max_output,
            opts.format
        )));
    }
    match opts.format {
        UzFormat::Uz => {
            if opts.original_name.contains('\0') {
                return Err(Error::Other(
                    "a .uz original name cannot contain NUL".into(),
                ));
            }
            uz1::compress(data, &opts.original_name, opts.signature)
        }
        UzFormat::Uz2 => uz2::compress(data),
        UzFormat::Uz3 => uz3::compress(data),
    }
}

/// Turn a stored original name into a plain file name for writing, or
/// refuse it: no folders (`/`, `\`), no `.`/`..`, no drive or stream
/// separator (`:`), no control characters, not empty, at most 255 bytes, no
/// trailing dot or space (Windows drops them). A `.uz` header is hostile
/// input: never join an unchecked name to an output folder.
pub fn safe_file_name(stored: &str) -> Result<String> {
    let bad = |why: &str| Error::Other(format!("stored original name {stored:?} is unsafe: {why}"));
    if stored.is_empty() {
        return Err(bad("empty"));
    }
    if stored.contains(['/', '\\']) {
        return Err(bad("contains a folder separator"));
    }
    if stored.contains(':') {
        return Err(bad("contains ':' (drive letter or stream name)"));
    }
    if stored.chars().any(char::is_control) {
        return Err(bad("contains a control character"));
    }
    if stored == "." || stored == ".." {
        return Err(bad("is a folder reference"));
    }
    if stored.ends_with(['.', ' ']) {
        return Err(bad("ends with a dot or space"));
    }
    if stored.len() > pakrat_io::fsutil::MAX_COMPONENT {
        return Err(bad("longer than 255 bytes"));
    }
    pakrat_io::fsutil::sanitize_relative(stored)?;
    Ok(stored.to_string())
}

/// The output name for decoding `input_name` when no (safe) stored name
/// exists: the name without its `.uz`/`.uz2`/`.uz3` extension, or with
/// `.out` appended when it has none of those.
pub fn derived_name(input_name: &str) -> String {
    if let Some((stem, ext)) = input_name.rsplit_once('.') {
        if !stem.is_empty() && UzFormat::from_name(ext).is_some() {
            return stem.to_string();
        }
    }
    format!("{input_name}.out")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_format_and_nothing_else() {
        let data = b"\xC1\x83\x2A\x9E some package bytes".repeat(50);
        let uz = compress(&data, &CompressOptions::new(UzFormat::Uz, "A.u")).unwrap();
        let mut o = CompressOptions::new(UzFormat::Uz, "A.u");
        o.signature = UzSignature::S1234;
        let uz1234 = compress(&data, &o).unwrap();
        let uz2 = compress(&data, &CompressOptions::new(UzFormat::Uz2, "")).unwrap();
        let uz3 = compress(&data, &CompressOptions::new(UzFormat::Uz3, "")).unwrap();
        assert_eq!(detect(&uz), Some(UzFormat::Uz));
        assert_eq!(detect(&uz1234), Some(UzFormat::Uz));
        assert_eq!(detect(&uz2), Some(UzFormat::Uz2));
        assert_eq!(detect(&uz3), Some(UzFormat::Uz3));
        assert_eq!(detect(&data), None);
        assert_eq!(detect(b""), None);
        // A signature followed by garbage reads as a damaged .uz.
        assert_eq!(detect(&[0x2E, 0x16, 0, 0]), Some(UzFormat::Uz));
        assert_eq!(detect(&[0xD2, 0x04, 0, 0, 0x7F]), Some(UzFormat::Uz));
        let e = decompress(&[0xD2, 0x04, 0, 0, 0x7F]).unwrap_err();
        assert!(e.to_string().contains("original file name"), "{e}");
        assert_eq!(e.offset(), Some(4));
        assert_eq!(detect(&[0x2F, 0x16, 0, 0]), None);
        // A damaged uz2 is still recognised, and the damage reported.
        let cut = &uz2[..uz2.len() - 1];
        assert_eq!(detect(cut), Some(UzFormat::Uz2));
        let e = decompress(cut).unwrap_err().to_string();
        assert!(e.contains("uz2 chunk zlib data"), "{e}");
        for (f, bytes) in [
            (UzFormat::Uz, &uz),
            (UzFormat::Uz2, &uz2),
            (UzFormat::Uz3, &uz3),
        ] {
            let d = decompress(bytes).unwrap();
            assert_eq!(d.info.format, f);
            assert_eq!(d.data, data);
            assert!(d.is_package());
            let mut v = Vec::new();
            let (_, n) = decompress_to(bytes, &mut v, &Limits::default()).unwrap();
            assert_eq!((n as usize, &v), (data.len(), &data));
        }
        assert_eq!(decompress(&uz).unwrap().original_name(), Some("A.u"));
    }

    #[test]
    fn uz2_chunk_that_looks_like_a_uz_signature() {
        // 1223 incompressible bytes deflate to exactly 1234 (stored block),
        // so the file starts with the .uz signature 1234.
        let mut x = 99u32;
        for len in 1200..1300 {
            let noise: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            let c = compress(&noise, &CompressOptions::new(UzFormat::Uz2, "")).unwrap();
            assert_eq!(decompress(&c).unwrap().data, noise, "{len}");
            if le32(&c, 0) == Some(1234) {
                assert!(candidates(&c).contains(&UzFormat::Uz2));
                return;
            }
        }
        panic!("no 1234-byte chunk produced");
    }

    #[test]
    fn stored_names_keep_their_form() {
        // Latin-1 names are stored as 8-bit FStrings, others as UTF-16.
        for (name, wide) in [("Ärger.u", false), ("Map€.unr", true)] {
            let c = compress(b"abc", &CompressOptions::new(UzFormat::Uz, name)).unwrap();
            let h = uz1::read_header(&c).unwrap();
            assert_eq!(
                (h.original_name.text.as_str(), h.original_name.wide),
                (name, wide)
            );
            assert_eq!(decompress(&c).unwrap().original_name(), Some(name));
        }
        // A NUL cannot be stored (it would end the FString early).
        assert!(compress(b"abc", &CompressOptions::new(UzFormat::Uz, "a\0b")).is_err());
    }

    #[test]
    fn names() {
        assert_eq!(safe_file_name("Foo.u").unwrap(), "Foo.u");
        for bad in [
            "",
            ".",
            "..",
            "../x.u",
            "a\\b.u",
            "/etc/passwd",
            "C:x",
            "a\0b",
            "x.",
            "x ",
            &"a".repeat(256),
        ] {
            assert!(safe_file_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(derived_name("Foo.u.uz"), "Foo.u");
        assert_eq!(derived_name("Foo.u.UZ2"), "Foo.u");
        assert_eq!(derived_name("x.bin"), "x.bin.out");
        assert_eq!(derived_name(".uz"), ".uz.out");
    }

    #[test]
    fn limits_are_enforced() {
        let data = vec![7u8; 100_000];
        let small = Limits { max_output: 1000 };
        for f in [UzFormat::Uz, UzFormat::Uz2, UzFormat::Uz3] {
            let c = compress(&data, &CompressOptions::new(f, "x")).unwrap();
            assert!(decompress_with(&c, &small).is_err(), "{f}");
            assert_eq!(decompress(&c).unwrap().data, data);
        }
    }

    /// Issue 16: compress refuses what decompress would refuse (one limit).
    #[test]
    fn compress_and_decompress_share_one_limit() {
        let data = vec![1u8; 5000];
        let small = Limits { max_output: 4999 };
        for f in [UzFormat::Uz, UzFormat::Uz2, UzFormat::Uz3] {
            let err = compress_with(&data, &CompressOptions::new(f, "x"), &small).unwrap_err();
            assert!(
                err.to_string().contains("over the 4999-byte limit"),
                "{err}"
            );
            let ok = Limits { max_output: 5000 };
            let c = compress_with(&data, &CompressOptions::new(f, "x"), &ok).unwrap();
            assert_eq!(decompress_with(&c, &ok).unwrap().data, data);
        }
    }
}
