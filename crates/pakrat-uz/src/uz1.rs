//! `.uz` (UE1, `ucc compress`): `i32 Signature`, `FString OriginalFilename`,
//! then the `FCodecFull` chain (`classic.md` §4, UT432 `Core/Inc/FCodec.h`,
//! `Editor/Src/UCCMake`-era `UCompressCommandlet`):
//!
//! * 1234: RLE → BWT → MTF → Huffman;
//! * 5678: RLE → BWT → MTF → RLE → Huffman.
//!
//! Each stage runs over the whole output of the previous one (so the BWT
//! block headers are themselves MTF- and Huffman-coded).

use pakrat_io::{Error, FString, Reader, Result, Writer};

use crate::{bwt, huffman, mtf, rle, Limits};

/// The two `.uz` signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum UzSignature {
    /// 1234: RLE → BWT → MTF → Huffman (`ucc compress` default).
    #[serde(rename = "1234")]
    S1234,
    /// 5678: RLE → BWT → MTF → RLE → Huffman (`ucc compress` "new format").
    #[serde(rename = "5678")]
    S5678,
}

impl UzSignature {
    /// The value stored in the file.
    pub fn value(self) -> i32 {
        match self {
            UzSignature::S1234 => 1234,
            UzSignature::S5678 => 5678,
        }
    }

    /// The signature for a stored value.
    pub fn from_value(v: i32) -> Option<Self> {
        match v {
            1234 => Some(UzSignature::S1234),
            5678 => Some(UzSignature::S5678),
            _ => None,
        }
    }
}

/// A parsed `.uz` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UzHeader {
    /// 1234 or 5678.
    pub signature: UzSignature,
    /// The original file name exactly as stored (hostile input: sanitise it
    /// with [`crate::safe_file_name`] before using it as a path).
    pub original_name: FString,
    /// Bytes taken by the header; the codec stream starts here.
    pub len: usize,
}

/// Read the signature and original name.
pub fn read_header(data: &[u8]) -> Result<UzHeader> {
    let mut r = Reader::new(data);
    let at = r.offset();
    let sig = r.i32("uz signature")?;
    let signature = UzSignature::from_value(sig).ok_or_else(|| {
        Error::invalid(at, format!("uz signature is {sig}, expected 1234 or 5678"))
    })?;
    let original_name = r.fstring("uz original file name (FString)")?;
    Ok(UzHeader {
        signature,
        original_name,
        len: r.pos(),
    })
}

/// Decode the codec stream after the header; `base` is its file offset.
pub fn decode_body(
    body: &[u8],
    base: u64,
    signature: UzSignature,
    limits: &Limits,
) -> Result<Vec<u8>> {
    // Intermediate streams may legitimately be a little larger than the
    // final output (RLE expands runs of exactly 5 by one byte; BWT adds 13
    // bytes a block).
    let stage_limit = limits
        .max_output
        .saturating_add(limits.max_output / 4 + (1 << 16));
    // Errors after the Huffman stage lie in intermediate streams: report the
    // file offset of the codec data and say where in which stream.
    let stage = |name: &'static str| {
        move |e: Error| match e {
            Error::Invalid { offset, what } => Error::invalid(
                base,
                format!("corrupt .uz data: {name} stage, byte {offset:#x} of its input: {what}"),
            ),
            e => e,
        }
    };
    let mut s = huffman::decode(body, base, stage_limit)?;
    if signature == UzSignature::S5678 {
        s = rle::decode(&s, stage_limit).map_err(stage("inner RLE (after Huffman)"))?;
    }
    let s = mtf::decode(&s);
    let s = bwt::decode(&s, stage_limit).map_err(stage("BWT (after MTF)"))?;
    rle::decode(&s, limits.max_output).map_err(stage("outer RLE (after BWT)"))
}

/// Decode a whole `.uz` file.
pub fn decompress(data: &[u8], limits: &Limits) -> Result<(UzHeader, Vec<u8>)> {
    let h = read_header(data)?;
    let body = &data[h.len..];
    let out = decode_body(body, h.len as u64, h.signature, limits)?;
    Ok((h, out))
}

/// Encode `data` as a `.uz` file storing `original_name`.
pub fn compress(data: &[u8], original_name: &str, signature: UzSignature) -> Result<Vec<u8>> {
    let s = rle::encode(data);
    let s = bwt::encode(&s);
    let mut s = mtf::encode(&s);
    if signature == UzSignature::S5678 {
        s = rle::encode(&s);
    }
    let body = huffman::encode(&s)?;
    let mut w = Writer::with_capacity(body.len() + original_name.len() + 16);
    w.i32(signature.value());
    w.fstring(&FString::new(original_name));
    w.bytes(&body);
    Ok(w.into_inner())
}
