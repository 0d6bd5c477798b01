//! Names and ids of the zen loader: CityHash64, `FPackageId`, `FMappedName`,
//! and name batches (`iostore.md` §13).
//!
//! CityHash64 is Google's CityHash **v1.1** (the `cityhasher` crate); v1.0
//! gives different results. `FPackageId` is CityHash64 of the lower-cased
//! package name as UTF-16LE (UE `PackageId.cpp`).

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

/// `FNAME_HASH_ALGORITHM_ID`: the first `u64` of every name-hash array
/// (UE `UnrealNames.cpp`).
pub const NAME_HASH_ALGORITHM_ID: u64 = 0xC164_0000;

/// CityHash64 (v1.1) of `data`.
pub fn cityhash64(data: &[u8]) -> u64 {
    cityhasher::hash::<u64>(data)
}

/// Lower-case one UTF-16 code unit the way the engine's `TChar::ToLower` does
/// for the characters that map to exactly one code unit; anything else is left
/// as is (CUE4Parse and retoc lower only `A`–`Z`; the two agree on ASCII,
/// `iostore.md` §19 question 8).
fn lower_unit(u: u16) -> u16 {
    if u < 0x80 {
        return u8::try_from(u).map_or(u, |b| u16::from(b.to_ascii_lowercase()));
    }
    match char::from_u32(u32::from(u)) {
        Some(c) => {
            let mut it = c.to_lowercase();
            match (it.next(), it.next()) {
                (Some(l), None) if (l as u32) <= 0xFFFF => l as u32 as u16,
                _ => u,
            }
        }
        None => u,
    }
}

/// The UTF-16LE bytes of `text` lower-cased unit by unit.
pub fn lower_utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| lower_unit(u).to_le_bytes())
        .collect()
}

/// `FPackageId::FromName`: CityHash64 of the lower-cased UTF-16LE name
/// (e.g. `/game/fixtures/t_foo`), including any `_N` number suffix.
pub fn package_id(name: &str) -> u64 {
    cityhash64(&lower_utf16le(name))
}

/// The container id of a `.utoc` file stem (same hash as [`package_id`]).
pub fn container_id(stem: &str) -> u64 {
    package_id(stem)
}

/// The hash the engine stores for a name in a batch: CityHash64 of the
/// lower-cased name in its stored width (ANSI bytes or UTF-16LE).
pub fn name_hash(text: &str, wide: bool) -> u64 {
    if wide {
        cityhash64(&lower_utf16le(text))
    } else {
        // ANSI names are Latin-1 code points; ANSI `ToLower` changes only A–Z.
        let bytes: Vec<u8> = text
            .chars()
            .map(|c| {
                u8::try_from(u32::from(c))
                    .unwrap_or(b'?')
                    .to_ascii_lowercase()
            })
            .collect();
        cityhash64(&bytes)
    }
}

/// `FPackageObjectIndex` script-import hash of an object path such as
/// `/Script/Engine.Texture2D`: lower-cased, `.` and `:` replaced by `/`,
/// CityHash64 over UTF-16LE with the top two bits cleared, then the
/// ScriptImport type bits set (UE `AsyncLoading2.cpp`
/// `GenerateImportHashFromObjectPath`).
pub fn script_import_index(object_path: &str) -> u64 {
    let path: String = object_path
        .chars()
        .map(|c| if c == '.' || c == ':' { '/' } else { c })
        .collect();
    let h = cityhash64(&lower_utf16le(&path)) & !(3u64 << 62);
    h | (1u64 << 62)
}

/// `PublicExportHash` of a package-relative export path without the leading
/// `/` (e.g. `outer/inner`): CityHash64 of its lower-cased UTF-16LE form
/// (UE `PackageStoreOptimizer.cpp`).
pub fn public_export_hash(relative_path: &str) -> u64 {
    cityhash64(&lower_utf16le(relative_path))
}

/// One name of a batch with the form it was stored in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BatchName {
    /// The text.
    pub text: String,
    /// True when stored as UTF-16LE.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wide: bool,
    /// The hash stored next to it (`None` when the form stores no hashes).
    #[serde(skip)]
    pub stored_hash: Option<u64>,
}

impl BatchName {
    /// True when a stored hash is present and differs from the computed one.
    pub fn hash_mismatch(&self) -> bool {
        self.stored_hash
            .is_some_and(|h| h != name_hash(&self.text, self.wide))
    }
}

/// Decode the 2-byte big-endian batch header: `isUtf16 << 15 | len`.
fn entry_header(h: [u8; 2]) -> (bool, usize) {
    let wide = h[0] & 0x80 != 0;
    let len = (usize::from(h[0] & 0x7F) << 8) | usize::from(h[1]);
    (wide, len)
}

fn read_chars(r: &mut Reader<'_>, wide: bool, len: usize, what: &str) -> Result<String> {
    if wide {
        let at = r.offset();
        let raw = r.bytes(len as u64 * 2, what)?;
        let units: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16(&units).map_err(|_| {
            Error::invalid(at, format!("{what}: UTF-16 name has an unpaired surrogate"))
        })
    } else {
        let raw = r.bytes(len as u64, what)?;
        // ASCII (almost every name) is valid UTF-8 as is.
        match std::str::from_utf8(raw) {
            Ok(t) if raw.is_ascii() => Ok(t.to_owned()),
            _ => Ok(pakrat_io::FString::from_latin1(raw)),
        }
    }
}

/// Read a name batch in the UE5 form (UE `LoadNameBatch`):
/// `u32 Num; if Num > 0 { u32 NumStringBytes; u64 HashAlgorithmId;
/// u64 Hashes[Num]; u8 Headers[Num][2]; strings }` with strings unaligned.
pub fn read_name_batch(r: &mut Reader<'_>) -> Result<Vec<BatchName>> {
    let at = r.offset();
    let num = r.u32("name batch count")?;
    if num == 0 {
        return Ok(Vec::new());
    }
    let string_bytes = r.u32("name batch string byte count")?;
    let algo_at = r.offset();
    let algo = r.u64("name batch hash algorithm id")?;
    if algo != NAME_HASH_ALGORITHM_ID {
        return Err(Error::invalid(
            algo_at,
            format!("name batch hash algorithm id {algo:#x}, expected {NAME_HASH_ALGORITHM_ID:#x}"),
        ));
    }
    // 8 hash bytes + 2 header bytes per name, checked before allocating.
    let n = r.check_count(i64::from(num), 10, "name batch count")?;
    let mut hashes = r.sub(r.pos() as u64, n as u64 * 8, "name hashes")?;
    r.skip(n as u64 * 8, "name hashes")?;
    let mut headers = r.sub(r.pos() as u64, n as u64 * 2, "name headers")?;
    r.skip(n as u64 * 2, "name headers")?;
    let strings_start = r.pos();
    let mut strings = r.sub(
        strings_start as u64,
        u64::from(string_bytes),
        "name strings",
    )?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let h = hashes.u64("name hash")?;
        let (wide, len) = entry_header(headers.array("name header")?);
        let text = read_chars(&mut strings, wide, len, "name characters")?;
        out.push(BatchName {
            text,
            wide,
            stored_hash: Some(h),
        });
    }
    if strings.remaining() != 0 {
        return Err(Error::invalid(
            at,
            format!(
                "name batch: {} of {string_bytes} string bytes are not used by its {n} names",
                strings.remaining()
            ),
        ));
    }
    r.skip(u64::from(string_bytes), "name strings")?;
    Ok(out)
}

/// Write a name batch in the UE5 form (the mirror of [`read_name_batch`]):
/// names that fit in Latin-1 are stored 8-bit unless `wide` says otherwise;
/// the hash is always recomputed (lower-cased CityHash64 in the stored
/// width).
pub fn write_name_batch(w: &mut Writer, names: &[BatchName]) {
    w.u32(names.len() as u32);
    if names.is_empty() {
        return;
    }
    let mut strings = Writer::new();
    let mut headers = Writer::new();
    let mut hashes = Writer::new();
    for n in names {
        let latin1 = pakrat_io::FString::to_latin1(&n.text);
        let wide = n.wide || latin1.is_none();
        let len = if wide {
            let units: Vec<u16> = n.text.encode_utf16().collect();
            for &u in &units {
                strings.u16(u);
            }
            units.len()
        } else {
            let b = latin1.unwrap_or_default();
            strings.bytes(&b);
            b.len()
        };
        headers
            .u8((u8::from(wide) << 7) | ((len >> 8) as u8 & 0x7F))
            .u8(len as u8);
        hashes.u64(name_hash(&n.text, wide));
    }
    w.u32(strings.len() as u32).u64(NAME_HASH_ALGORITHM_ID);
    w.bytes(hashes.as_slice())
        .bytes(headers.as_slice())
        .bytes(strings.as_slice());
}

/// Read the older UE4 form: a names buffer of `{u8 header[2]; chars}` entries
/// (UTF-16 strings aligned to 2 bytes within the buffer) and, optionally, a
/// hash buffer `u64 HashAlgorithmId; u64 Hashes[]` with one hash per name.
pub fn read_name_batch_parts(
    names: Reader<'_>,
    hashes: Option<Reader<'_>>,
) -> Result<Vec<BatchName>> {
    let mut r = names;
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let (wide, len) = entry_header(r.array("name header")?);
        if wide && r.pos() % 2 == 1 {
            r.skip(1, "UTF-16 name alignment byte")?;
        }
        let text = read_chars(&mut r, wide, len, "name characters")?;
        out.push(BatchName {
            text,
            wide,
            stored_hash: None,
        });
    }
    if let Some(mut h) = hashes {
        if h.remaining() == 0 {
            return Ok(out);
        }
        let algo_at = h.offset();
        let algo = h.u64("name hash algorithm id")?;
        if algo != NAME_HASH_ALGORITHM_ID {
            return Err(Error::invalid(
                algo_at,
                format!("name hash algorithm id {algo:#x}, expected {NAME_HASH_ALGORITHM_ID:#x}"),
            ));
        }
        if h.remaining() != out.len() * 8 {
            return Err(Error::invalid(
                h.offset(),
                format!(
                    "name hashes: {} bytes for {} names (expected {})",
                    h.remaining(),
                    out.len(),
                    out.len() * 8
                ),
            ));
        }
        for n in &mut out {
            n.stored_hash = Some(h.u64("name hash")?);
        }
    }
    Ok(out)
}

/// Which name map an [`MappedName`] indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NameMapKind {
    /// The package's own name map.
    Package,
    /// The container header's name map.
    Container,
    /// The global name map (ScriptObjects).
    Global,
}

/// `FMappedName`: `u32 Index:30 | Type:2`, `u32 Number` (0 = no number,
/// else the suffix `_{Number-1}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MappedName {
    /// Index into the name map.
    pub index: u32,
    /// Which name map.
    pub kind: NameMapKind,
    /// Number (0 = none).
    pub number: u32,
}

impl MappedName {
    /// Read 8 bytes.
    pub fn read(r: &mut Reader<'_>) -> Result<Self> {
        let at = r.offset();
        let v = r.u32("mapped name index")?;
        let number = r.u32("mapped name number")?;
        let kind = match v >> 30 {
            0 => NameMapKind::Package,
            1 => NameMapKind::Container,
            2 => NameMapKind::Global,
            _ => {
                return Err(Error::invalid(
                    at,
                    format!(
                        "mapped name {v:#010x} has type 3, expected Package, Container or Global"
                    ),
                ))
            }
        };
        Ok(MappedName {
            index: v & 0x3FFF_FFFF,
            kind,
            number,
        })
    }

    /// Write 8 bytes (the mirror of [`MappedName::read`]).
    pub fn write(&self, w: &mut Writer) {
        let kind = match self.kind {
            NameMapKind::Package => 0u32,
            NameMapKind::Container => 1,
            NameMapKind::Global => 2,
        };
        w.u32((kind << 30) | (self.index & 0x3FFF_FFFF))
            .u32(self.number);
    }

    /// Resolve against a name list: `Some("Base")` or `Some("Base_N")`,
    /// `None` when the index is out of range.
    pub fn resolve(&self, names: &[BatchName]) -> Option<String> {
        let base = &names.get(self.index as usize)?.text;
        Some(with_number(base, self.number))
    }
}

/// `Base` for number 0, `Base_{n-1}` otherwise.
pub fn with_number(base: &str, number: u32) -> String {
    if number == 0 {
        base.to_string()
    } else {
        format!("{base}_{}", number - 1)
    }
}

/// Read a UE4-style `FString`: `i32` length counting the NUL, positive for
/// ANSI (Latin-1) and negative for UTF-16LE.
pub fn read_fstring32(r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let len = r.i32(what)?;
    if len == 0 {
        return Ok(String::new());
    }
    let (wide, n) = if len > 0 {
        (false, len as u64)
    } else {
        (true, u64::from(len.unsigned_abs()))
    };
    let raw = r.bytes(if wide { n * 2 } else { n }, what)?;
    let text = if wide {
        let units: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if units.last() != Some(&0) {
            return Err(Error::invalid(
                at,
                format!("{what}: string is not NUL-terminated"),
            ));
        }
        String::from_utf16(&units[..units.len() - 1])
            .map_err(|_| Error::invalid(at, format!("{what}: unpaired UTF-16 surrogate")))?
    } else {
        if raw.last() != Some(&0) {
            return Err(Error::invalid(
                at,
                format!("{what}: string is not NUL-terminated"),
            ));
        }
        pakrat_io::FString::from_latin1(&raw[..raw.len() - 1])
    };
    Ok(text)
}

/// Format an id as 16 hex digits.
pub fn hex_id(id: u64) -> String {
    format!("{id:016X}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cityhash_v1_1_known_values() {
        // iostore.md §13: CityHash64("hello") v1.1.
        assert_eq!(cityhash64(b"hello"), 0xb48be5a931380ce8);
        // CityHash64 of the empty input is the k2 constant (city.cc HashLen0to16).
        assert_eq!(cityhash64(b""), 0x9ae16a3b2f90404f);
    }

    #[test]
    fn package_ids_lower_case_utf16() {
        assert_eq!(package_id("/Game/Foo"), package_id("/game/foo"));
        assert_eq!(
            package_id("/Game/Foo"),
            cityhash64(
                &"/game/foo"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes)
                    .collect::<Vec<_>>()
            )
        );
        assert_ne!(package_id("/Game/Foo"), cityhash64(b"/game/foo"));
        // Container ids of the CUE4Parse fixtures (header field at 0x38 of the
        // .utoc, read independently): CityHash64 of the lower-cased stem.
        assert_eq!(
            container_id("CUE4ParseFixtures-Minimal-Uncompressed-Windows"),
            0x8e31e2f0b7de84f2
        );
        assert_eq!(
            container_id("CUE4ParseFixtures-PatchBase"),
            0xfd08e8c9c074e95e
        );
        assert_eq!(
            container_id("CUE4ParseFixtures-PatchBase_0_P"),
            0xaba9e1cf9cfd6859
        );
    }

    #[test]
    fn known_ids_from_real_files() {
        // Chunk id of /Game/Fixtures/Textures/T_BC1 in the CUE4Parse UE 5.8
        // and 6.0 fixture TOCs (read from the .utoc, not computed here).
        assert_eq!(
            package_id("/Game/Fixtures/Textures/T_BC1"),
            0xC62027EF8DF1F7D1
        );
        // Import 0 of that package: the ScriptImport of its class.
        assert_eq!(
            script_import_index("/Script/Engine.Texture2D"),
            0x5b93bca796d1fa6f
        );
        // Same path with ':' and '.' swapped hashes the same (both become '/').
        assert_eq!(
            script_import_index("/Script/Engine:Texture2D"),
            script_import_index("/Script/Engine.Texture2D")
        );
    }

    fn batch(names: &[(&str, bool)]) -> Vec<u8> {
        let mut w = pakrat_io::Writer::new();
        w.u32(names.len() as u32);
        let bytes: usize = names
            .iter()
            .map(|(s, wide)| {
                if *wide {
                    s.encode_utf16().count() * 2
                } else {
                    s.len()
                }
            })
            .sum();
        w.u32(bytes as u32);
        w.u64(NAME_HASH_ALGORITHM_ID);
        for (s, wide) in names {
            w.u64(name_hash(s, *wide));
        }
        for (s, wide) in names {
            let len = if *wide {
                s.encode_utf16().count()
            } else {
                s.len()
            };
            w.u8(((len >> 8) as u8) | if *wide { 0x80 } else { 0 });
            w.u8(len as u8);
        }
        for (s, wide) in names {
            if *wide {
                for u in s.encode_utf16() {
                    w.u16(u);
                }
            } else {
                w.bytes(s.as_bytes());
            }
        }
        w.into_inner()
    }

    #[test]
    fn name_batch_round() {
        let data = batch(&[("None", false), ("/Game/Ünï", true), ("Texture2D", false)]);
        let mut r = Reader::new(&data);
        let names = read_name_batch(&mut r).unwrap();
        assert_eq!(r.remaining(), 0);
        assert_eq!(names.len(), 3);
        assert_eq!(names[1].text, "/Game/Ünï");
        assert!(names[1].wide);
        assert!(names.iter().all(|n| !n.hash_mismatch()));
        // A flipped hash is noticed.
        let mut bad = data.clone();
        bad[16] ^= 1;
        let names = read_name_batch(&mut Reader::new(&bad)).unwrap();
        assert!(names[0].hash_mismatch());
        // Every truncation is an error, never a panic.
        for n in 0..data.len() {
            assert!(read_name_batch(&mut Reader::new(&data[..n])).is_err());
        }
        // A huge count is refused before allocating.
        let mut huge = data.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_name_batch(&mut Reader::new(&huge)).is_err());
    }

    #[test]
    fn empty_batch_is_four_bytes() {
        let mut r = Reader::new(&[0, 0, 0, 0, 9]);
        assert!(read_name_batch(&mut r).unwrap().is_empty());
        assert_eq!(r.pos(), 4);
    }

    #[test]
    fn name_hash_is_lower_case() {
        // "None" is stored with the hash of "none".
        assert_eq!(name_hash("None", false), cityhash64(b"none"));
        assert_eq!(name_hash("Ab", true), cityhash64(&[b'a', 0, b'b', 0]));
    }

    #[test]
    fn old_parts_align_utf16() {
        // "A" (ANSI), then a UTF-16 "é" at an odd position -> one pad byte.
        let names = [0x00, 0x01, b'A', 0x80, 0x01, 0x00, 0xE9, 0x00];
        let mut hashes = pakrat_io::Writer::new();
        hashes.u64(NAME_HASH_ALGORITHM_ID);
        hashes.u64(name_hash("A", false));
        hashes.u64(name_hash("é", true));
        let h = hashes.into_inner();
        let out = read_name_batch_parts(Reader::new(&names), Some(Reader::new(&h))).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].text, "é");
        assert!(out.iter().all(|n| !n.hash_mismatch()));
        assert!(read_name_batch_parts(Reader::new(&names[..7]), None).is_err());
    }

    #[test]
    fn mapped_names() {
        let names = vec![BatchName {
            text: "Cube".into(),
            wide: false,
            stored_hash: None,
        }];
        let d = [0, 0, 0, 0x40, 3, 0, 0, 0];
        let m = MappedName::read(&mut Reader::new(&d)).unwrap();
        assert_eq!(m.kind, NameMapKind::Container);
        assert_eq!(m.resolve(&names).as_deref(), Some("Cube_2"));
        let d = [0, 0, 0, 0xC0, 0, 0, 0, 0];
        assert!(MappedName::read(&mut Reader::new(&d)).is_err());
    }

    #[test]
    fn fstring32() {
        let d = [3, 0, 0, 0, b'h', b'i', 0];
        assert_eq!(read_fstring32(&mut Reader::new(&d), "s").unwrap(), "hi");
        let d = [0xFE, 0xFF, 0xFF, 0xFF, b'x', 0, 0, 0];
        assert_eq!(read_fstring32(&mut Reader::new(&d), "s").unwrap(), "x");
        let d = [0x00, 0x00, 0x00, 0x80];
        assert!(read_fstring32(&mut Reader::new(&d), "s").is_err());
    }
}
