//! Extracting members into a folder, safely.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;

use pakrat_io::fsutil::OutputDir;
use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Entry, ProblemKind, Umod, CHUNK};
use crate::paths::CaseMap;

/// What to extract.
#[derive(Clone, Debug, Default)]
pub struct ExtractOptions {
    /// Only members whose name (with `/` separators) matches one of these
    /// globs, case-insensitively; all members when empty.
    pub globs: Vec<String>,
    /// Extract even when the CRC, the recorded size or the version is wrong.
    pub ignore_crc: bool,
}

/// One written file.
#[derive(Clone, Debug, Serialize)]
pub struct ExtractedFile {
    /// Member name.
    pub name: String,
    /// Where it was written.
    pub path: PathBuf,
    /// Bytes written.
    pub size: u64,
}

/// What [`extract`] did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExtractReport {
    /// Files written, in directory order.
    pub files: Vec<ExtractedFile>,
    /// Notes (duplicate members skipped, integrity check bypassed...).
    pub warnings: Vec<String>,
}

/// Build a case-insensitive glob matcher (`None` = match everything).
pub fn glob_matcher(globs: &[String]) -> Result<Option<globset::GlobSet>> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        let glob = globset::GlobBuilder::new(&g.replace('\\', "/"))
            .case_insensitive(true)
            .literal_separator(false)
            .build()
            .map_err(|e| Error::Other(format!("bad glob {g:?}: {e}")))?;
        b.add(glob);
    }
    b.build()
        .map(Some)
        .map_err(|e| Error::Other(format!("bad glob set: {e}")))
}

/// Members selected by `globs`, first of each duplicate name only.
pub fn select<'u>(
    umod: &'u Umod<'_>,
    globs: &[String],
    warnings: &mut Vec<String>,
) -> Result<Vec<&'u Entry>> {
    let m = glob_matcher(globs)?;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in &umod.entries {
        if let Some(m) = &m {
            if !m.is_match(e.slash_name()) {
                continue;
            }
        }
        if !seen.insert(fold(&e.name)) {
            warnings.push(format!(
                "skipping duplicate member {:?} (the engine only reads the first)",
                e.name
            ));
            continue;
        }
        out.push(e);
    }
    if out.is_empty() && !globs.is_empty() {
        return Err(Error::Other(format!(
            "no member matches {}",
            globs.join(" ")
        )));
    }
    Ok(out)
}

/// Refuse archives that are structurally unsafe, and (unless `ignore_crc`)
/// archives whose integrity check fails. Returns notes for bypassed checks.
pub fn check_before_writing(umod: &Umod<'_>, ignore_crc: bool) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    let structural: Vec<String> = umod
        .problems()
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                ProblemKind::UnsafeName | ProblemKind::EntryOutOfBounds | ProblemKind::Overlap
            )
        })
        .map(|p| p.to_string())
        .collect();
    if !structural.is_empty() {
        return Err(Error::Other(format!(
            "refusing to extract, nothing was written: {}",
            structural.join("; ")
        )));
    }
    let mut integrity: Vec<String> = umod
        .problems()
        .iter()
        .filter(|p| matches!(p.kind, ProblemKind::SizeMismatch | ProblemKind::BadVersion))
        .map(|p| p.to_string())
        .collect();
    let crc = umod.compute_crc();
    if crc != umod.trailer.crc {
        integrity.push(format!(
            "CRC mismatch: the trailer records {:#010x}, the bytes give {crc:#010x}",
            umod.trailer.crc
        ));
    }
    if !integrity.is_empty() {
        if !ignore_crc {
            return Err(Error::Other(format!(
                "refusing to extract a damaged archive (use --ignore-crc to extract anyway), nothing was written: {}",
                integrity.join("; ")
            )));
        }
        notes.extend(
            integrity
                .into_iter()
                .map(|s| format!("ignored (--ignore-crc): {s}")),
        );
    }
    Ok(notes)
}

/// Stream a member's bytes into `w`, releasing pages behind us.
pub(crate) fn copy_entry(umod: &Umod<'_>, e: &Entry, w: &mut dyn Write) -> std::io::Result<()> {
    let data = umod
        .entry_data(e)
        .map_err(|err| std::io::Error::other(err.to_string()))?;
    let base = e.offset as usize;
    let mut at = 0;
    while at < data.len() {
        let end = (at + CHUNK).min(data.len());
        w.write_all(&data[at..end])?;
        umod.release(base + at, end - at);
        at = end;
    }
    Ok(())
}

/// Extract the selected members of `umod` into `out`.
///
/// Nothing is written when a selected name is unsafe, a member lies out of
/// bounds, members overlap, or (without `ignore_crc`) the CRC, recorded size
/// or version is wrong; nor when (without `force` on `out`) a target exists.
/// Folder names are matched case-insensitively to folders already in `out`
/// and to each other, and every file is written atomically.
pub fn extract(umod: &Umod<'_>, out: &OutputDir, opts: &ExtractOptions) -> Result<ExtractReport> {
    let mut report = ExtractReport::default();
    let selected = select(umod, &opts.globs, &mut report.warnings)?;
    report
        .warnings
        .extend(check_before_writing(umod, opts.ignore_crc)?);
    let mut map = CaseMap::new(out.root());
    let mut plan = Vec::with_capacity(selected.len());
    for e in selected {
        let rel = map.map(&e.name)?;
        let path = out.resolve(&rel)?;
        if !out.force() && std::fs::symlink_metadata(&path).is_ok() {
            return Err(Error::Other(format!(
                "{} already exists (use --force to replace it); nothing was written",
                path.display()
            )));
        }
        plan.push((e, rel));
    }
    // Members are independent files: write them in parallel (file creation,
    // not copying, dominates when there are thousands of small members).
    // Folders are created by `OutputDir` as needed (create_dir is race-safe).
    use rayon::prelude::*;
    report.files = plan
        .into_par_iter()
        .map(|(e, rel)| {
            let path = out.write_with(&rel, |w| copy_entry(umod, e, w))?;
            Ok(ExtractedFile {
                name: e.name.clone(),
                path,
                size: u64::from(e.size),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(report)
}
