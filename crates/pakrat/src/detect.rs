//! Format detection from content, never from the extension.

use std::path::Path;

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
        }
    }
}

/// IoStore TOC magic.
pub const TOC_MAGIC: &[u8; 16] = b"-==--==--==--==-";
/// .pak footer magic.
pub const PAK_MAGIC: u32 = 0x5A6F_12E1;

fn le32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Decide the format of `data` (the whole file); `path` only helps to find a
/// `.ucas`'s `.utoc`, which has no magic of its own.
pub fn detect(path: &Path, data: &[u8]) -> Option<Format> {
    if data.starts_with(TOC_MAGIC) {
        return Some(Format::IoStoreToc);
    }
    if pakrat_asset::legacy::is_legacy_package(data) {
        return Some(Format::LegacyPackage);
    }
    if matches!(le32(data, 0), Some(0x9E2A_83C1 | 0x9E2A_83C2))
        || data.starts_with(&[0x9E, 0x2A, 0x83, 0xC1])
        || pakrat_classic::lineage::header_version(data).is_some()
    {
        return Some(Format::Package);
    }
    // Plain UMODs end with the trailer; signed self-extracting .exe UMODs keep
    // it just before the Authenticode certificate (pakrat_umod finds both).
    if pakrat_umod::read_trailer(data).is_ok() {
        return Some(Format::Umod);
    }
    if pakrat_uz::detect(data).is_some() {
        return Some(Format::Uz);
    }
    // .pak footers vary in size by version; the magic sits 44..=221 bytes from the end.
    let tail = &data[data.len().saturating_sub(256)..];
    if tail
        .windows(4)
        .any(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) == PAK_MAGIC)
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

/// The `.utoc` that owns a `.ucas`: `Name.utoc` for `Name.ucas` and for a
/// partition `Name_s1.ucas`, `Name_s2.ucas`...
pub fn utoc_for_ucas(path: &Path) -> Option<std::path::PathBuf> {
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

/// What `data` (the file at `path`) is, in words, for messages:
/// "an Unreal package (version 68, UE1)", "an IoStore container (TOC v8)",
/// "empty (0 bytes)".
pub fn describe(path: &Path, data: &[u8]) -> String {
    if data.is_empty() {
        return "empty (0 bytes)".into();
    }
    match detect(path, data) {
        Some(Format::Umod) => "a UMOD installer".into(),
        Some(Format::Package) if pakrat_classic::lineage::header_version(data).is_some() => {
            format!(
                "an encrypted Lineage II package (Lineage2Ver{})",
                pakrat_classic::lineage::header_version(data).unwrap_or(0)
            )
        }
        Some(Format::Package) => {
            let v = data
                .get(4..6)
                .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
            let engine = match v {
                0..=99 => "UE1",
                100..=199 => "UE2",
                _ => "UE3",
            };
            format!("an Unreal package (version {v}, {engine})")
        }
        Some(Format::LegacyPackage) => "a UE4/UE5 package (.uasset/.umap)".into(),
        Some(Format::IoStoreToc) => format!(
            "an IoStore container (TOC v{})",
            data.get(16).copied().unwrap_or(0)
        ),
        Some(Format::IoStoreCas) => "an IoStore data file (.ucas)".into(),
        Some(Format::Pak) => "a .pak file".into(),
        Some(Format::Uz) => "a redirect-compressed file (.uz/.uz2/.uz3)".into(),
        None => "not a file pakrat reads (no known magic at the start or end)".into(),
    }
}

/// The commands that fit a format, for messages.
pub fn commands_for(f: Option<Format>) -> &'static str {
    match f {
        Some(Format::Umod) => "`pakrat list`/`verify`/`extract` it, `pakrat umod install` installs it",
        Some(Format::Package) => "`pakrat info`/`list`/`props`/`export` read it",
        Some(Format::LegacyPackage) => {
            "`pakrat info`/`list`/`verify` read it, `pakrat zen from-legacy` converts it"
        }
        Some(Format::IoStoreToc | Format::IoStoreCas) => {
            "`pakrat info`/`list`/`verify`/`extract`/`packages` read it"
        }
        Some(Format::Pak) => "`pakrat info`/`list`/`verify`/`extract` read it",
        Some(Format::Uz) => "`pakrat info` describes it, `pakrat decompress` restores the file inside",
        None => "pakrat reads UMOD installers, Unreal packages (UE1–UE5), .uz/.uz2/.uz3, .pak files and IoStore containers",
    }
}

/// Fail when `path` is a file of another known kind than `allowed` (or
/// empty), with one sentence that says what the file is instead and which
/// commands fit it. `what` names what the
/// command wants ("a UMOD installer"). A path that cannot be opened is left
/// to the command (its own error names the problem).
pub fn require(path: &Path, allowed: &[Format], what: &str) -> anyhow::Result<()> {
    let Ok(src) = pakrat_io::Source::open(path) else {
        return Ok(());
    };
    let found = detect(path, &src);
    // Unknown content (not empty) is left to the command's own reader,
    // whose error says what it expected where.
    if found.is_some_and(|f| allowed.contains(&f)) || (found.is_none() && !src.is_empty()) {
        return Ok(());
    }
    anyhow::bail!(
        "{}: is {}, not {what}; {}",
        path.display(),
        describe(path, &src),
        commands_for(found)
    )
}
