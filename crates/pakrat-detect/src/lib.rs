//! Which format a file is, from its content, never its extension: the one
//! detector the `pakrat` CLI and `pakrat view` share.
//!
//! It reads only a [`Probe`]: the first and last 4 KiB of the file, and a
//! few bytes more where a header points (a signed UMOD `.exe`). Each format
//! crate says what its own magic looks like; this crate asks them in a fixed
//! order, so a file is never two things:
//!
//! | format | told by | crate |
//! |---|---|---|
//! | IoStore TOC | `-==--==--==--==-` at the start | `pakrat-iostore` |
//! | UE4/UE5 package | tag `0x9E2A83C1`, then a negative legacy version | `pakrat-asset` |
//! | UE1/UE2 package | tag `0x9E2A83C1` (`…C2` Killing Floor), or `Lineage2Ver` | `pakrat-classic` |
//! | UMOD | trailer magic `0x9FE3C5A3` 20 bytes from the end (or before a PE certificate) | `pakrat-umod` |
//! | `.uz/.uz2/.uz3` | their headers | `pakrat-uz` |
//! | `.usmap` mappings | `u16` `0x30C4`, a known version, and the header's size matching the file (or the `.usmap` extension) | `pakrat-asset` |
//! | `.pak` | footer magic `0x5A6F12E1` in the last 256 bytes | `pakrat-pak` |
//! | IoStore data | a `.ucas` whose `.utoc` sits beside it | `pakrat-iostore` |
#![deny(missing_docs)]

use std::path::{Path, PathBuf};

pub use pakrat_io::probe::Probe;

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// UMOD installer (trailer magic 0x9FE3C5A3 in the last 20 bytes).
    Umod,
    /// Unreal package (tag 0x9E2A83C1, or 0x9E2A83C2 for Killing Floor).
    Package,
    /// UE4/UE5 legacy package (`.uasset`/`.umap`: the tag, then a negative
    /// legacy file version).
    LegacyPackage,
    /// IoStore table of contents (`-==--==--==--==-`).
    IoStoreToc,
    /// IoStore data file; its `.utoc` must sit next to it.
    IoStoreCas,
    /// Companion .pak (footer magic 0x5A6F12E1).
    Pak,
    /// Redirect-compressed file (.uz, .uz2, .uz3).
    Uz,
    /// `.usmap` property mappings (magic 0x30C4 and a known version).
    Usmap,
    /// A raw IoStore container-header chunk, as `extract` writes it under
    /// `_chunks/` (UE5 form: signature 0x496F436E and a known version; the
    /// UE4 forms have no signature and are read only when asked for).
    ContainerHeader,
    /// `AssetRegistry.bin`: the asset registry's version GUID and a version
    /// pakrat reads (or knows to refuse by name).
    AssetRegistry,
}

impl Format {
    /// The `kind` field of `--json` output for this format (docs/json.md).
    pub fn kind(self) -> &'static str {
        match self {
            Format::Umod => "umod",
            Format::Package => "package",
            Format::LegacyPackage => "legacy",
            Format::IoStoreToc | Format::IoStoreCas => "iostore",
            Format::Pak => "pak",
            Format::Uz => "uz",
            Format::Usmap => "usmap",
            Format::ContainerHeader => "container-header",
            Format::AssetRegistry => "asset-registry",
        }
    }
}

/// How far from the end a `.pak` footer's magic can sit: footers vary in
/// size by version, the magic sits 44..=221 bytes from the end.
const PAK_TAIL: usize = 256;

/// Decide the format of the file the probe sees; `path` only helps to find
/// a `.ucas`'s `.utoc`, which has no magic of its own.
pub fn detect(path: &Path, p: &Probe<'_>) -> Option<Format> {
    let head = p.head();
    if head.starts_with(pakrat_iostore::toc::TOC_MAGIC) {
        return Some(Format::IoStoreToc);
    }
    if pakrat_asset::legacy::is_legacy_package(head) {
        return Some(Format::LegacyPackage);
    }
    if matches!(le32(head), Some(0x9E2A_83C1 | 0x9E2A_83C2))
        || pakrat_classic::lineage::header_version(head).is_some()
    {
        return Some(Format::Package);
    }
    // Plain UMODs end with the trailer; signed self-extracting .exe UMODs keep
    // it just before the Authenticode certificate.
    if pakrat_umod::sniff(p) {
        return Some(Format::Umod);
    }
    // Chunk headers and the .uz/.uz3 headers: the head holds them (a .uz2
    // is checked by its first chunk's header, as for a damaged one).
    if pakrat_uz::detect(head).is_some() {
        return Some(Format::Uz);
    }
    if is_usmap(path, p) {
        return Some(Format::Usmap);
    }
    if is_container_header(head) {
        return Some(Format::ContainerHeader);
    }
    if pakrat_asset::registry::looks_like(head) {
        return Some(Format::AssetRegistry);
    }
    let tail = p.tail();
    if tail[tail.len().saturating_sub(PAK_TAIL)..]
        .windows(4)
        .any(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) == pakrat_pak::PAK_MAGIC)
    {
        return Some(Format::Pak);
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ucas"))
        && utoc_for_ucas(path).is_some()
    {
        return Some(Format::IoStoreCas);
    }
    None
}

/// A `.usmap`: its two-byte magic and version, and either a header whose
/// sizes add up to the file's (content alone) or the `.usmap` extension (a
/// damaged mappings file still goes to the reader, whose error says what
/// is wrong where).
fn is_usmap(path: &Path, p: &Probe<'_>) -> bool {
    let head = p.head();
    pakrat_asset::usmap::is_usmap(head)
        && (pakrat_asset::usmap::expected_file_size(head) == Some(p.len())
            || path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("usmap")))
}

/// A UE5 container-header chunk: the signature, then a version this build
/// reads (`pakrat_iostore::container_header`), then the container id.
fn is_container_header(head: &[u8]) -> bool {
    use pakrat_iostore::container_header::{LATEST_VERSION, SIGNATURE};
    head.len() >= 16
        && le32(head) == Some(SIGNATURE)
        && le32(&head[4..]).is_some_and(|v| v <= LATEST_VERSION)
}

/// Probe the regular file at `path` and detect its format.
pub fn detect_file(path: &Path) -> pakrat_io::Result<(Option<Format>, Probe<'static>)> {
    let p = Probe::open(path)?;
    Ok((detect(path, &p), p))
}

fn le32(b: &[u8]) -> Option<u32> {
    b.get(..4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// The `.utoc` that owns a `.ucas`: `Name.utoc` for `Name.ucas` and for a
/// partition `Name_s1.ucas`, `Name_s2.ucas`...
pub fn utoc_for_ucas(path: &Path) -> Option<PathBuf> {
    let direct = path.with_extension("utoc");
    if direct.is_file() {
        return Some(direct);
    }
    let stem = path.file_stem()?.to_str()?;
    let (base, n) = stem.rsplit_once("_s")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let toc = path.with_file_name(format!("{base}.utoc"));
    toc.is_file().then_some(toc)
}

/// What the file the probe sees is, in words, for messages:
/// "an Unreal package (version 68, UE1)", "an IoStore container (TOC v8)",
/// "empty (0 bytes)".
pub fn describe(path: &Path, p: &Probe<'_>) -> String {
    if p.is_empty() {
        return "empty (0 bytes)".into();
    }
    let head = p.head();
    match detect(path, p) {
        Some(Format::Umod) => "a UMOD installer".into(),
        Some(Format::Package) => match pakrat_classic::lineage::header_version(head) {
            Some(v) => format!("an encrypted Lineage II package (Lineage2Ver{v})"),
            None => {
                let v = head
                    .get(4..6)
                    .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
                let engine = match v {
                    0..=99 => "UE1",
                    100..=199 => "UE2",
                    _ => "UE3",
                };
                format!("an Unreal package (version {v}, {engine})")
            }
        },
        Some(Format::LegacyPackage) => "a UE4/UE5 package (.uasset/.umap)".into(),
        Some(Format::IoStoreToc) => format!(
            "an IoStore container (TOC v{})",
            head.get(16).copied().unwrap_or(0)
        ),
        Some(Format::IoStoreCas) => "an IoStore data file (.ucas)".into(),
        Some(Format::Pak) => "a .pak file".into(),
        Some(Format::Uz) => "a redirect-compressed file (.uz/.uz2/.uz3)".into(),
        Some(Format::ContainerHeader) => format!(
            "an IoStore container header chunk (UE5 form, version {})",
            le32(&head[4..]).unwrap_or(0)
        ),
        Some(Format::AssetRegistry) => format!(
            "an asset registry (AssetRegistry.bin, version {})",
            le32(&head[16..]).unwrap_or(0)
        ),
        Some(Format::Usmap) => format!(
            "a .usmap mappings file (version {})",
            head.get(2).copied().unwrap_or(0)
        ),
        None => "not a file pakrat reads (no known magic at the start or end)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(data: &[u8]) -> Option<Format> {
        detect(Path::new("x.bin"), &Probe::of_bytes(data))
    }

    #[test]
    fn magics_at_the_start() {
        let mut toc = b"-==--==--==--==-".to_vec();
        toc.extend([8, 0, 0, 0]);
        assert_eq!(of(&toc), Some(Format::IoStoreToc));
        // The tag, then a negative legacy file version: UE4/UE5.
        let legacy = [0xC1, 0x83, 0x2A, 0x9E, 0xF9, 0xFF, 0xFF, 0xFF];
        assert_eq!(of(&legacy), Some(Format::LegacyPackage));
        // The tag, then version 69 / licensee 0: UE1.
        let classic = [0xC1, 0x83, 0x2A, 0x9E, 69, 0, 0, 0];
        assert_eq!(of(&classic), Some(Format::Package));
        assert_eq!(of(b"nothing to see here"), None);
        // A UE5 container header chunk: signature, a known version, the id.
        let mut header = vec![0x6E, 0x43, 0x6F, 0x49, 5, 0, 0, 0];
        header.extend([7; 8]);
        assert_eq!(of(&header), Some(Format::ContainerHeader));
        header[4] = 9; // a version no release wrote
        assert_eq!(of(&header), None);
        assert_eq!(of(&header[..12]), None);
        // A .usmap: magic, version 0, stored, 3 bytes of payload: the sizes
        // add up, so the content alone tells it.
        let mut usmap = vec![0xC4, 0x30, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0];
        usmap.extend([1, 2, 3]);
        assert_eq!(of(&usmap), Some(Format::Usmap));
        // Sizes that do not add up: only a .usmap name makes it one.
        usmap.push(0);
        assert_eq!(of(&usmap), None);
        let p = Probe::of_bytes(&usmap);
        assert_eq!(detect(Path::new("x.usmap"), &p), Some(Format::Usmap));
        assert_eq!(
            describe(Path::new("x.usmap"), &p),
            "a .usmap mappings file (version 0)"
        );
        // An unknown version is not one.
        usmap[2] = 9;
        assert_eq!(detect(Path::new("x.usmap"), &Probe::of_bytes(&usmap)), None);
        // AssetRegistry.bin: the registry version GUID and a version.
        let mut reg = pakrat_asset::registry::REGISTRY_GUID.to_bytes().to_vec();
        reg.extend([24, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(of(&reg), Some(Format::AssetRegistry));
        assert_eq!(
            describe(Path::new("AssetRegistry.bin"), &Probe::of_bytes(&reg)),
            "an asset registry (AssetRegistry.bin, version 24)"
        );
        assert_eq!(of(&reg[..16]), None);
    }

    #[test]
    fn magics_at_the_end_past_the_head() {
        // A pak footer (magic 44 bytes from the end) behind 200 KiB of data
        // the probe never reads.
        let mut pak = vec![0u8; 200 << 10];
        let at = pak.len() - 44;
        pak[at..at + 4].copy_from_slice(&pakrat_pak::PAK_MAGIC.to_le_bytes());
        assert_eq!(of(&pak), Some(Format::Pak));
        let mut umod = vec![0u8; 200 << 10];
        let at = umod.len() - 20;
        umod[at..at + 4].copy_from_slice(&pakrat_umod::MAGIC.to_le_bytes());
        assert_eq!(of(&umod), Some(Format::Umod));
    }

    #[test]
    fn a_file_detects_as_its_bytes_do() {
        let t = tempfile::tempdir().unwrap();
        let mut umod = vec![7u8; 300 << 10];
        let at = umod.len() - 20;
        umod[at..at + 4].copy_from_slice(&pakrat_umod::MAGIC.to_le_bytes());
        let f = t.path().join("a.bin");
        std::fs::write(&f, &umod).unwrap();
        let (found, p) = detect_file(&f).unwrap();
        assert_eq!(found, Some(Format::Umod));
        assert_eq!(p.head().len(), Probe::HEAD);
        assert_eq!(describe(&f, &p), "a UMOD installer");
        // A .ucas is IoStore data only with its .utoc beside it.
        let cas = t.path().join("C_s1.ucas");
        std::fs::write(&cas, b"data").unwrap();
        assert_eq!(detect_file(&cas).unwrap().0, None);
        std::fs::write(t.path().join("C.utoc"), b"-").unwrap();
        assert_eq!(detect_file(&cas).unwrap().0, Some(Format::IoStoreCas));
    }
}
