//! A reader for Unreal's `.ini` files (`UnrealTournament.ini`, `UT2004.ini`,
//! `cache.ini`, `.upkg`…).
//!
//! The engine's config cache (`FConfigCacheIni`) keeps each section as a
//! multi-map, so a key may repeat (UE2 writes `Paths=` once per entry), and
//! UE1 spells array entries as `Key[n]=`. Section and key names compare
//! case-insensitively, as `appStricmp` does. Files are ANSI (read here as
//! Latin-1, which never fails) unless they start with a UTF-16LE byte-order
//! mark, which the engine writes when a value is not representable in ANSI
//! (UT432 `appSaveStringToFile`); a UTF-8 BOM is skipped too.
//!
//! Input is treated as hostile: the file size is capped, nothing panics, and
//! lines without `=` are ignored like the engine ignores them.

use std::path::Path;

use pakrat_io::{Error, FString, Result};

/// Largest ini file accepted (real ones are well under 1 MiB).
pub const MAX_INI_SIZE: u64 = 16 << 20;

/// One `[Section]` with its `Key=Value` lines in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets, as written.
    pub name: String,
    /// `(key, value)` pairs in file order; keys keep their spelling.
    pub entries: Vec<(String, String)>,
}

/// A parsed ini file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ini {
    /// Sections in file order (a repeated header continues the same section).
    pub sections: Vec<Section>,
}

impl Ini {
    /// Read and parse a file (at most [`MAX_INI_SIZE`] bytes).
    pub fn load(path: &Path) -> Result<Ini> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.len() > MAX_INI_SIZE {
            return Err(Error::Other(format!(
                "{}: {} bytes is too large for an ini file (limit {MAX_INI_SIZE})",
                path.display(),
                meta.len()
            )));
        }
        let data = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Ok(Ini::parse(&data))
    }

    /// Parse bytes (never fails: malformed lines are skipped).
    pub fn parse(data: &[u8]) -> Ini {
        Ini::parse_str(&decode_text(data))
    }

    /// Parse text.
    pub fn parse_str(text: &str) -> Ini {
        let mut ini = Ini::default();
        let mut current: Option<usize> = None;
        for raw in text.split(['\n', '\r']) {
            let line = raw.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                if let Some(end) = rest.find(']') {
                    let name = rest[..end].trim();
                    current = Some(match ini.section_index(name) {
                        Some(i) => i,
                        None => {
                            ini.sections.push(Section {
                                name: name.to_string(),
                                entries: Vec::new(),
                            });
                            ini.sections.len() - 1
                        }
                    });
                    continue;
                }
            }
            let (Some(idx), Some(eq)) = (current, line.find('=')) else {
                continue;
            };
            let key = line[..eq].trim();
            if key.is_empty() {
                continue;
            }
            let value = unquote(line[eq + 1..].trim());
            if let Some(sec) = ini.sections.get_mut(idx) {
                sec.entries.push((key.to_string(), value.to_string()));
            }
        }
        ini
    }

    fn section_index(&self, name: &str) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The section named `name` (case-insensitive).
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.section_index(name).and_then(|i| self.sections.get(i))
    }

    /// The first value of `key` in `section`.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.section(section)?.get(key)
    }

    /// An array setting: every `key=` line (UE2 style) and every `key[n]=`
    /// line (UE1 style, ordered by `n`; file order breaks ties), skipping
    /// empty values. A UE1 file lists its array entries only in `[n]` form,
    /// a UE2 file only in repeated form; a file mixing both gets the indexed
    /// entries first.
    pub fn array(&self, section: &str, key: &str) -> Vec<&str> {
        let Some(sec) = self.section(section) else {
            return Vec::new();
        };
        let mut indexed: Vec<(u32, usize, &str)> = Vec::new();
        let mut plain: Vec<&str> = Vec::new();
        for (pos, (k, v)) in sec.entries.iter().enumerate() {
            if v.is_empty() {
                continue;
            }
            if k.eq_ignore_ascii_case(key) {
                plain.push(v);
            } else if let Some(n) = array_index(k, key) {
                indexed.push((n, pos, v));
            }
        }
        indexed.sort_by_key(|&(n, pos, _)| (n, pos));
        indexed
            .into_iter()
            .map(|(_, _, v)| v)
            .chain(plain)
            .collect()
    }
}

impl Section {
    /// The first value of `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// `Paths[3]` → `Some(3)` when the base matches `key`.
fn array_index(k: &str, key: &str) -> Option<u32> {
    let base = k.get(..key.len())?;
    if !base.eq_ignore_ascii_case(key) {
        return None;
    }
    let rest = k.get(key.len()..)?.trim_start();
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    inner.trim().parse().ok()
}

fn unquote(v: &str) -> &str {
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        &v[1..v.len() - 1]
    } else {
        v
    }
}

/// Decode an ini file's bytes: UTF-16LE with BOM, UTF-8 with BOM, else
/// Latin-1 (the engine's ANSI code page for the characters that matter here).
pub fn decode_text(data: &[u8]) -> String {
    if let Some(rest) = data.strip_prefix(&[0xFF, 0xFE]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = data.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    FString::from_latin1(data)
}

/// Parse an Unreal boolean (`True`/`False`, `1`/`0`, `Yes`/`No`, `On`/`Off`).
pub fn parse_bool(v: &str) -> Option<bool> {
    let v = v.trim();
    for (t, b) in [
        ("true", true),
        ("false", false),
        ("1", true),
        ("0", false),
        ("yes", true),
        ("no", false),
        ("on", true),
        ("off", false),
    ] {
        if v.eq_ignore_ascii_case(t) {
            return Some(b);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ue1_indexed_and_ue2_repeated_arrays() {
        let ue1 = Ini::parse(
            b"[URL]\r\nMap=Index.unr\r\n[core.system]\r\nCachePath=../Cache\r\nPaths[1]=../Maps/*.unr\r\n\
              Paths[0]=../System/*.u\r\nPaths[2]=\r\nPaths[10]=../Music/*.umx\r\n",
        );
        assert_eq!(
            ue1.array("Core.System", "Paths"),
            ["../System/*.u", "../Maps/*.unr", "../Music/*.umx"]
        );
        assert_eq!(ue1.get("CORE.SYSTEM", "cachepath"), Some("../Cache"));
        assert_eq!(ue1.get("Core.System", "CacheExt"), None);
        let ue2 = Ini::parse(b"[Core.System]\nPaths=../System/*.u\nPaths=../Maps/*.ut2\n[X]\nPaths=no\n[Core.System]\nPaths=\"../Textures/*.utx\"\n");
        assert_eq!(
            ue2.array("Core.System", "Paths"),
            ["../System/*.u", "../Maps/*.ut2", "../Textures/*.utx"]
        );
    }

    #[test]
    fn utf16_and_garbage() {
        let mut b = vec![0xFF, 0xFE];
        for u in "[Cache]\r\nABC=Foo.u\r\n".encode_utf16() {
            b.extend_from_slice(&u.to_le_bytes());
        }
        b.push(0x41); // odd trailing byte is ignored
        let ini = Ini::parse(&b);
        assert_eq!(ini.get("cache", "abc"), Some("Foo.u"));
        let junk = Ini::parse(b"=x\n[unterminated\nk=v\n\xff\xfe\x00[");
        assert!(junk.sections.is_empty());
        assert_eq!(array_index("Paths[ 2 ]", "paths"), Some(2));
        assert_eq!(array_index("PathsX[2]", "paths"), None);
        assert_eq!(parse_bool(" TRUE "), Some(true));
        assert_eq!(parse_bool("maybe"), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            let ini = Ini::parse(&data);
            let _ = ini.array("Core.System", "Paths");
            let _ = ini.get("Cache", "x");
            let c = crate::cache::CacheIni::from_ini(&ini);
            for e in &c.entries {
                let _ = crate::cache::safe_file_name(&e.name);
                let _ = e.package_name();
            }
        }
    }
}
