//! One module of handlers per format.

pub mod iostore;
pub mod iostore_write;
pub mod legacy;
pub mod package;
pub mod pak;
pub mod system;
pub mod umod;
pub mod uz;
pub mod zen;

/// A progress bar on stderr when it is a terminal and output is not quiet.
pub fn progress(total: u64, quiet: bool, what: &str) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
        "{{spinner}} {what} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {{eta}}"
    )) {
        pb.set_style(style.progress_chars("=> "));
    }
    Some(pb)
}

/// Case-insensitive member globs (`*` crosses `/`), or `None` for none.
pub fn globset(globs: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
    use anyhow::Context;
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(
            globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .with_context(|| format!("bad glob {g:?}"))?,
        );
    }
    Ok(Some(b.build()?))
}

/// Refuse before anything is written when files about to be written exist
/// already and `--force` was not given (one error for the whole job, not
/// one per file).
pub fn refuse_existing<'a>(
    out: &pakrat_io::fsutil::OutputDir,
    names: impl IntoIterator<Item = &'a str>,
) -> anyhow::Result<()> {
    if out.force() {
        return Ok(());
    }
    let (mut n, mut shown) = (0usize, Vec::new());
    for name in names {
        if out.resolve(name).is_ok_and(|p| p.exists()) {
            n += 1;
            if shown.len() < 3 {
                shown.push(pakrat_io::text::show(name).into_owned());
            }
        }
    }
    if n > 0 {
        anyhow::bail!(
            "{}: {} already exists ({n} of the files to write do{}); nothing was written (--force replaces them)",
            out.root().display(),
            shown[0],
            if n > 1 {
                format!(", also {}{}", shown[1..].join(", "), if n > shown.len() { ", ..." } else { "" })
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// The error for a selection that matched nothing, before anything is made
/// (the same words for every extractor).
pub fn nothing_matches(file: &std::path::Path, what: &str, globs: &[String]) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: no {what} matches{}; nothing was written",
        file.display(),
        if globs.is_empty() {
            String::new()
        } else {
            format!(" {}", globs.join(" "))
        }
    )
}

/// The "imports from" summary of `info`: the first 12 imported packages
/// with their object counts, and how many more there are.
pub fn imports_from<T: std::fmt::Display>(imports: &[(T, usize)]) -> String {
    let top: Vec<String> = imports
        .iter()
        .take(12)
        .map(|(n, c)| format!("{n} ({c})"))
        .collect();
    format!(
        "imports from: {}{}",
        if top.is_empty() {
            "nothing".to_string()
        } else {
            top.join(", ")
        },
        if imports.len() > 12 {
            format!(", ... {} more", imports.len() - 12)
        } else {
            String::new()
        }
    )
}
