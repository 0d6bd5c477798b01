//! Lineage II's encrypted packages: a 28-byte UTF-16LE header
//! `Lineage2VerNNN`, the encrypted package, and an optional plaintext 20-byte
//! footer whose CRC-32 (at footer + 12) covers everything before it
//! (UEViewer `UnPackageReader.cpp`; open-l2encdec `l2encdec.cpp`,
//! `xor_utils.cpp`). The one-byte XOR schemes (111, 121) and the
//! position-keyed XOR (120) are decrypted here; Blowfish (211, 212) and RSA
//! (41x) files are refused, naming the scheme.

use pakrat_io::{Error, Result};

/// Bytes of the `Lineage2VerNNN` header (14 UTF-16 units).
pub const HEADER_LEN: usize = 28;
/// Bytes of the optional footer.
pub const FOOTER_LEN: usize = 20;

/// The `NNN` of a `Lineage2VerNNN` header, if `data` starts with one.
pub fn header_version(data: &[u8]) -> Option<u16> {
    let head = data.get(..HEADER_LEN)?;
    let text: String = head
        .chunks_exact(2)
        .map(|c| char::from_u32(u32::from(u16::from_le_bytes([c[0], c[1]]))).unwrap_or('?'))
        .collect();
    text.strip_prefix("Lineage2Ver")?.parse().ok()
}

/// A decrypted Lineage II package.
#[derive(Clone, Debug)]
pub struct Decrypted {
    /// The `NNN` of the header.
    pub version: u16,
    /// How it was encrypted, in words ("one-byte XOR, key 0xac").
    pub scheme: String,
    /// True when the file ended with the 20-byte footer (its CRC matched).
    pub footer: bool,
    /// The package: file offset = body offset + [`HEADER_LEN`].
    pub body: Vec<u8>,
}

/// CRC-32 (zlib's) of `b`.
fn crc32(b: &[u8]) -> u32 {
    crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(b)
}

/// Decrypt `data` if it is an encrypted Lineage II package: `Ok(None)` when
/// it has no `Lineage2Ver` header, an error for a scheme pakrat cannot undo
/// or a result that is not a package.
pub fn decrypt(data: &[u8]) -> Result<Option<Decrypted>> {
    let Some(version) = header_version(data) else {
        return Ok(None);
    };
    let mut end = data.len();
    let mut footer = false;
    if data.len() >= HEADER_LEN + FOOTER_LEN + 4 {
        let f = data.len() - FOOTER_LEN;
        let stored = u32::from_le_bytes(data[f + 12..f + 16].try_into().unwrap_or_default());
        if stored == crc32(&data[..f]) {
            end = f;
            footer = true;
        }
    }
    let enc = &data[HEADER_LEN..end];
    let (body, scheme): (Vec<u8>, String) = match version {
        111 | 121 => {
            // One key byte: the first package byte is the tag's 0xC1
            // (UEViewer derives it so; for 121 open-l2encdec derives the same
            // key from the file name).
            let key = enc.first().copied().unwrap_or(0) ^ 0xC1;
            (
                enc.iter().map(|b| b ^ key).collect(),
                format!("one-byte XOR, key {key:#04x}"),
            )
        }
        120 => (
            enc.iter()
                .enumerate()
                .map(|(i, b)| {
                    let k =
                        (((i >> 4) & 15) ^ ((i >> 12) & 15)) << 4 | ((i & 15) ^ ((i >> 8) & 15));
                    b ^ k as u8
                })
                .collect(),
            "position-keyed XOR".into(),
        ),
        211 | 212 => {
            return Err(Error::unsupported(
                0,
                format!(
                    "Lineage II package encrypted with Blowfish (Lineage2Ver{version}); pakrat \
                     does not decrypt it: decrypt it first (l2encdec)"
                ),
            ))
        }
        411..=414 => {
            return Err(Error::unsupported(
                0,
                format!(
                    "Lineage II package encrypted with RSA and zlib (Lineage2Ver{version}); \
                     pakrat does not hold the keys: decrypt it first (l2encdec)"
                ),
            ))
        }
        v => {
            return Err(Error::unsupported(
                0,
                format!("Lineage II package with an unknown encryption (Lineage2Ver{v})"),
            ))
        }
    };
    if !matches!(
        body.get(..4),
        Some([0xC1, 0x83, 0x2A, 0x9E] | [0xC2, 0x83, 0x2A, 0x9E])
    ) {
        return Err(Error::invalid(
            HEADER_LEN as u64,
            format!(
                "Lineage2Ver{version} ({scheme}): the decrypted data does not start with a \
                 package tag"
            ),
        ));
    }
    Ok(Some(Decrypted {
        version,
        scheme,
        footer,
        body,
    }))
}

/// Open a package file: as it is, or decrypted when it is an encrypted
/// Lineage II package (offsets then count from the decrypted body, which
/// starts [`HEADER_LEN`] bytes into the file).
pub fn open(path: &std::path::Path) -> Result<pakrat_io::Source> {
    Ok(open_reporting(path)?.0)
}

/// [`open`], also saying how the file was encrypted: `(header number,
/// scheme)` for a Lineage II package.
pub fn open_reporting(
    path: &std::path::Path,
) -> Result<(pakrat_io::Source, Option<(u16, String)>)> {
    let src = pakrat_io::Source::open(path)?;
    match decrypt(&src).map_err(|e| e.in_file(path))? {
        None => Ok((src, None)),
        Some(d) => Ok((
            pakrat_io::Source::from_vec(path, d.body),
            Some((d.version, d.scheme)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(v: &str) -> Vec<u8> {
        format!("Lineage2Ver{v}")
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect()
    }

    #[test]
    fn xor_with_footer_and_refusals() {
        let pkg = [0xC1u8, 0x83, 0x2A, 0x9E, 69, 0, 0, 0, 1, 2, 3];
        let mut f = header("111");
        f.extend(pkg.iter().map(|b| b ^ 0xAC));
        let mut foot = [0u8; FOOTER_LEN];
        let crc = crc32(&f);
        foot[12..16].copy_from_slice(&crc.to_le_bytes());
        f.extend_from_slice(&foot);
        let d = decrypt(&f).unwrap().unwrap();
        assert_eq!(d.body, pkg);
        assert!(d.footer && d.scheme.contains("0xac"));
        assert!(decrypt(&pkg).unwrap().is_none());
        let mut rsa = header("413");
        rsa.extend_from_slice(&[0; 64]);
        let e = decrypt(&rsa).unwrap_err().to_string();
        assert!(e.contains("RSA") && e.contains("Lineage2Ver413"), "{e}");
        let mut bad = header("121");
        bad.extend_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x55]);
        let e = decrypt(&bad).unwrap_err().to_string();
        assert!(e.contains("does not start with a package tag"), "{e}");
    }
}
