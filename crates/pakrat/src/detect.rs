//! What the CLI says about formats: the commands that fit each one, and the
//! check that a command's input is what it takes. Detection itself is
//! `pakrat-detect`'s, shared with the viewer.

use std::path::Path;

pub use pakrat_detect::{describe, detect, utoc_for_ucas, Format, Probe};

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
        Some(Format::Usmap) => "`pakrat info`/`list`/`verify` read it",
        Some(Format::ContainerHeader) => "`pakrat info`/`list`/`verify` read it",
        Some(Format::AssetRegistry) => {
            "`pakrat info`/`list`/`verify` and `pakrat registry info|list|verify|merge` read it"
        }
        None => "pakrat reads UMOD installers, Unreal packages (UE1–UE5), .uz/.uz2/.uz3, .pak files, IoStore containers and their container header chunks, .usmap mappings and AssetRegistry.bin",
    }
}

/// Fail when `path` is a file of another known kind than `allowed` (or
/// empty), with one sentence that says what the file is instead and which
/// commands fit it. `what` names what the
/// command wants ("a UMOD installer"). A path that cannot be opened is left
/// to the command (its own error names the problem).
pub fn require(path: &Path, allowed: &[Format], what: &str) -> anyhow::Result<()> {
    let Ok(probe) = Probe::open(path) else {
        return Ok(());
    };
    let found = detect(path, &probe);
    // Unknown content (not empty) is left to the command's own reader,
    // whose error says what it expected where.
    if found.is_some_and(|f| allowed.contains(&f)) || (found.is_none() && !probe.is_empty()) {
        return Ok(());
    }
    anyhow::bail!(
        "{}: is {}, not {what}; {}",
        path.display(),
        describe(path, &probe),
        commands_for(found)
    )
}
