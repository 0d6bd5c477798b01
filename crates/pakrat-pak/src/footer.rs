//! The footer (`FPakInfo`) of a `.pak` file, as found next to IoStore
//! containers (`iostore.md` §16; repak `footer.rs`, CUE4Parse `FPakInfo.cs`).
//! [`super::Pak`] reads the index and entries behind it.
//!
//! Layout, at the end of the file:
//! ```text
//! [FGuid EncryptionKeyGuid (v7+)] [u8 bEncryptedIndex (v4+)]
//! u32 Magic 0x5A6F12E1; u32 Version; i64 IndexOffset; i64 IndexSize; u8 IndexHash[20]
//! [u8 bIndexIsFrozen (v9 only)]
//! [char[32] × 4 (first v8 layout, UE 4.22) or × 5 (later v8, 4.23+) compression names]
//! [v14+: i32 PakchunkIndex] [v15+: u8 EncryptionMethod, 3 × 12-byte IVs]
//! ```
//! The footer must end exactly at the end of the file; a version 8 footer is
//! read with 5 names when that fits and 4 otherwise (the magic position tells).

use pakrat_io::{Error, Guid, Reader, Result};
use serde::Serialize;

/// `PAK_FILE_MAGIC`.
pub const PAK_MAGIC: u32 = 0x5A6F_12E1;
/// Highest pak version this reader knows (`PakFile_Version_EncryptionMethod`).
pub const LATEST_VERSION: u32 = 15;

/// Name of a pak version (`EPakFileVersion`).
pub fn version_name(v: u32) -> &'static str {
    match v {
        1 => "Initial",
        2 => "NoTimestamps",
        3 => "CompressionEncryption",
        4 => "IndexEncryption",
        5 => "RelativeChunkOffsets",
        6 => "DeleteRecords",
        7 => "EncryptionKeyGuid",
        8 => "FNameBasedCompressionMethod",
        9 => "FrozenIndex",
        10 => "PathHashIndex",
        11 => "Fnv64BugFix",
        12 => "Utf8PakDirectory",
        13 => "SortedDirectoryIndex",
        14 => "PakchunkIndex",
        15 => "EncryptionMethod",
        _ => "unknown",
    }
}

/// A parsed pak footer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PakFooter {
    /// `EPakFileVersion`.
    pub version: u32,
    /// Its name.
    pub version_name: &'static str,
    /// Offset of the footer in the file.
    pub footer_offset: u64,
    /// Size of the footer in bytes.
    pub footer_size: u64,
    /// Encryption key GUID (v7+; zero = default key).
    #[serde(serialize_with = "ser_guid")]
    pub encryption_key_guid: Guid,
    /// The index is encrypted (v4+).
    pub encrypted_index: bool,
    /// Index location.
    pub index_offset: i64,
    /// Index size.
    pub index_size: i64,
    /// SHA-1 of the index, as hex.
    pub index_hash: String,
    /// SHA-1 of the index (of its decrypted, padded bytes when encrypted).
    #[serde(skip)]
    pub index_hash_raw: [u8; 20],
    /// Frozen index (v9 only).
    pub frozen_index: bool,
    /// Compression method names (v8+; empty slots left out). Older versions
    /// have fixed methods (Zlib, Gzip, Oodle) and list none here.
    pub compression_methods: Vec<String>,
    /// Number of name slots in the footer (0, 4 or 5).
    pub compression_slots: usize,
    /// Pakchunk index (v14+; -1 = none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pakchunk_index: Option<i32>,
    /// Encryption method (v15+): 0 none, 1 AES-256-ECB, 2 AES-256-CTR
    /// (`EIoEncryptionMethod`, CUE4Parse `FIoStoreEncryptionIV.cs`; older
    /// paks are ECB by definition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encryption_method: Option<u8>,
    /// Index, path-hash index and full directory index IVs (v15+), as hex.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub index_ivs: Vec<String>,
    /// The same IVs as bytes.
    #[serde(skip)]
    pub index_ivs_raw: Vec<[u8; 12]>,
}

fn ser_guid<S: serde::Serializer>(g: &Guid, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&g.to_string())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Footer size for a version and number of compression-name slots.
pub(crate) fn footer_size(version: u32, slots: usize) -> usize {
    let mut n = 44;
    if version >= 4 {
        n += 1;
    }
    if version >= 7 {
        n += 16;
    }
    if version == 9 {
        n += 1;
    }
    n += slots * 32;
    if version >= 14 {
        n += 4;
    }
    if version >= 15 {
        n += 1 + 3 * 12;
    }
    n
}

/// Bytes before the magic for a version.
fn before_magic(version: u32) -> usize {
    match version {
        0..=3 => 0,
        4..=6 => 1,
        _ => 17,
    }
}

/// Find and parse the footer of a `.pak` file (the whole file, or at least
/// its last 512 bytes with `file_len` the full length).
pub fn parse(tail: &[u8], file_len: u64) -> Result<PakFooter> {
    let base = file_len.saturating_sub(tail.len() as u64);
    // Try each version's footer size; the magic must sit where that version
    // puts it and the version field must name that version.
    for version in (1..=LATEST_VERSION).rev() {
        let slot_options: &[usize] = match version {
            0..=7 => &[0],
            8 => &[5, 4],
            _ => &[5],
        };
        for &slots in slot_options {
            let size = footer_size(version, slots);
            if size > tail.len() {
                continue;
            }
            let start = tail.len() - size;
            let m = start + before_magic(version);
            let magic = u32::from_le_bytes([tail[m], tail[m + 1], tail[m + 2], tail[m + 3]]);
            if magic != PAK_MAGIC {
                continue;
            }
            let v = u32::from_le_bytes([tail[m + 4], tail[m + 5], tail[m + 6], tail[m + 7]]);
            if v != version {
                continue;
            }
            return read_footer(
                Reader::with_base(&tail[start..], base + start as u64),
                version,
                slots,
                size,
            );
        }
    }
    // Report what we found, if anything.
    if let Some(m) = tail
        .windows(4)
        .rposition(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) == PAK_MAGIC)
    {
        let v = tail
            .get(m + 4..m + 8)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let at = base + m as u64;
        return Err(match v {
            Some(v) if v > LATEST_VERSION || v == 0 => Error::unsupported(
                at,
                format!("pak footer version {v} (this build reads 1–{LATEST_VERSION})"),
            ),
            Some(v) => Error::invalid(
                at,
                format!(
                    "pak magic with version {v} sits {} bytes before the end of the file; a version {v} footer is {} bytes",
                    file_len - at + before_magic(v) as u64,
                    footer_size(v, if v >= 8 { 5 } else { 0 })
                ),
            ),
            None => Error::invalid(at, "pak magic without a version after it"),
        });
    }
    Err(Error::invalid(
        file_len,
        format!("no pak footer (magic {PAK_MAGIC:#010x}) at the end of the file"),
    ))
}

/// The companion `.pak` of a container (`Name.pak` next to `Name.utoc`) and
/// its footer, when the file exists. Reads only the last 512 bytes.
pub fn companion(utoc: &std::path::Path) -> Option<(std::path::PathBuf, Result<PakFooter>)> {
    use std::io::{Read, Seek, SeekFrom};
    let path = utoc.with_extension("pak");
    if !path.is_file() {
        return None;
    }
    let res = (|| {
        let mut f = pakrat_io::open_regular(&path)?;
        let len = f.metadata().map_err(|e| Error::io(&path, e))?.len();
        let n = len.min(512);
        f.seek(SeekFrom::Start(len - n))
            .map_err(|e| Error::io(&path, e))?;
        let mut tail = vec![0u8; n as usize];
        f.read_exact(&mut tail).map_err(|e| Error::io(&path, e))?;
        parse(&tail, len).map_err(|e| e.in_file(&path))
    })();
    Some((path, res))
}

fn read_footer(mut r: Reader<'_>, version: u32, slots: usize, size: usize) -> Result<PakFooter> {
    let footer_offset = r.offset();
    let encryption_key_guid = if version >= 7 {
        r.guid("encryption key GUID")?
    } else {
        Guid::default()
    };
    let mut encrypted_index = false;
    if version >= 4 {
        let at = r.offset();
        encrypted_index = match r.u8("encrypted index flag")? {
            0 => false,
            1 => true,
            b => {
                return Err(Error::invalid(
                    at,
                    format!("encrypted index flag {b}, expected 0 or 1"),
                ))
            }
        };
    }
    r.skip(8, "magic and version")?;
    let index_offset = r.i64("index offset")?;
    let index_size = r.i64("index size")?;
    let index_hash_raw: [u8; 20] = r.array("index hash")?;
    let index_hash = hex(&index_hash_raw);
    let file_end = footer_offset + size as u64;
    if index_offset < 0
        || index_size < 0
        || (index_offset as u128 + index_size as u128) > footer_offset as u128
    {
        return Err(Error::invalid(
            footer_offset,
            format!(
                "pak index {index_offset:#x}+{index_size:#x} does not lie before the footer at {footer_offset:#x}"
            ),
        ));
    }
    let mut frozen_index = false;
    if version == 9 {
        frozen_index = r.u8("frozen index flag")? != 0;
    }
    let mut compression_methods = Vec::new();
    for _ in 0..slots {
        let raw = r.bytes(32, "compression method name")?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(32);
        if end > 0 {
            compression_methods.push(pakrat_io::FString::from_latin1(&raw[..end]));
        }
    }
    let pakchunk_index = if version >= 14 {
        Some(r.i32("pakchunk index")?)
    } else {
        None
    };
    let mut encryption_method = None;
    let mut index_ivs = Vec::new();
    let mut index_ivs_raw = Vec::new();
    if version >= 15 {
        encryption_method = Some(r.u8("encryption method")?);
        for _ in 0..3 {
            let iv: [u8; 12] = r.array("index IV")?;
            index_ivs.push(hex(&iv));
            index_ivs_raw.push(iv);
        }
    }
    debug_assert_eq!(r.offset(), file_end);
    Ok(PakFooter {
        version,
        version_name: version_name(version),
        footer_offset,
        footer_size: size as u64,
        encryption_key_guid,
        encrypted_index,
        index_offset,
        index_size,
        index_hash,
        index_hash_raw,
        frozen_index,
        compression_methods,
        compression_slots: slots,
        pakchunk_index,
        encryption_method,
        index_ivs,
        index_ivs_raw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pakrat_io::Writer;

    fn footer(version: u32, slots: usize, names: &[&str]) -> Vec<u8> {
        let mut w = Writer::new();
        w.bytes(&[0xAA; 100]); // "index" and data
        if version >= 7 {
            w.u32(1).u32(2).u32(3).u32(4);
        }
        if version >= 4 {
            w.u8(1);
        }
        w.u32(PAK_MAGIC)
            .u32(version)
            .i64(10)
            .i64(20)
            .bytes(&[7; 20]);
        if version == 9 {
            w.u8(1);
        }
        for i in 0..slots {
            let mut n = [0u8; 32];
            if let Some(s) = names.get(i) {
                n[..s.len()].copy_from_slice(s.as_bytes());
            }
            w.bytes(&n);
        }
        if version >= 14 {
            w.i32(-1);
        }
        if version >= 15 {
            w.u8(1).bytes(&[0; 36]);
        }
        w.into_inner()
    }

    #[test]
    fn every_version_round() {
        for v in 1..=LATEST_VERSION {
            let slots = if v >= 8 { 5 } else { 0 };
            let d = footer(v, slots, &["Zlib", "Oodle"]);
            let f = parse(&d, d.len() as u64).unwrap();
            assert_eq!(f.version, v);
            assert_eq!(f.footer_size as usize, d.len() - 100, "v{v}");
            assert_eq!(f.index_offset, 10);
            assert_eq!(f.index_size, 20);
            assert_eq!(f.encrypted_index, v >= 4);
            assert_eq!(f.frozen_index, v == 9);
            assert_eq!(f.encryption_key_guid.is_zero(), v < 7);
            if v >= 8 {
                assert_eq!(f.compression_methods, vec!["Zlib", "Oodle"]);
            }
        }
        // Known sizes (iostore.md §16).
        assert_eq!(footer_size(3, 0), 44);
        assert_eq!(footer_size(11, 5), 221);
        assert_eq!(footer_size(15, 5), 262);
    }

    #[test]
    fn companion_reads_only_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let utoc = dir.path().join("X.utoc");
        assert!(companion(&utoc).is_none());
        let mut d = vec![0u8; 5000];
        let f = footer(11, 5, &["Oodle"]);
        let start = d.len();
        d.extend_from_slice(&f[100..]);
        // The index lies inside the zeros.
        std::fs::write(dir.path().join("X.pak"), &d).unwrap();
        let (p, r) = companion(&utoc).unwrap();
        assert!(p.ends_with("X.pak"));
        let r = r.unwrap();
        assert_eq!(r.footer_offset, start as u64);
        assert_eq!(r.compression_methods, vec!["Oodle"]);
    }

    #[test]
    fn v8_with_four_names() {
        let d = footer(8, 4, &["Zlib"]);
        let f = parse(&d, d.len() as u64).unwrap();
        assert_eq!(f.compression_slots, 4);
        assert_eq!(f.compression_methods, vec!["Zlib"]);
    }

    #[test]
    fn bad_footers() {
        let d = footer(11, 5, &[]);
        // Truncated at the end: the magic no longer sits where v11 puts it.
        let e = parse(&d[..d.len() - 1], d.len() as u64 - 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("version 11"), "{e}");
        // Unknown version.
        let mut u = d.clone();
        let m = u.len() - 221 + 17;
        u[m + 4] = 99;
        let e = parse(&u, u.len() as u64).unwrap_err().to_string();
        assert!(e.contains("version 99"), "{e}");
        // Index past the footer.
        let mut b = d.clone();
        b[m + 8..m + 16].copy_from_slice(&1000i64.to_le_bytes());
        assert!(parse(&b, b.len() as u64).is_err());
        assert!(parse(&[], 0).is_err());
        assert!(parse(&[0; 300], 300).is_err());
    }
}
