//! Extracting members into a folder, safely.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Read, Write};
use std::path::PathBuf;

use pakrat_io::fsutil::OutputDir;
use pakrat_io::staged::Staging;
use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Entry, ProblemKind, Umod, CHUNK};
use crate::paths::{check_way, CaseMap};

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

/// Refuse archives that are structurally unsafe (unsafe names, members out
/// of bounds, overlaps): nothing can be extracted safely from them.
pub fn structural_check(umod: &Umod<'_>) -> Result<()> {
    let structural: Vec<String> = umod
        .problems()
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                ProblemKind::UnsafeName
                    | ProblemKind::EntryOutOfBounds
                    | ProblemKind::Overlap
                    | ProblemKind::NameClash
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
    Ok(())
}

/// Integrity failures (recorded size, version, CRC given the computed `crc`).
fn integrity(umod: &Umod<'_>, crc: u32) -> Vec<String> {
    let mut out: Vec<String> = umod
        .problems()
        .iter()
        .filter(|p| matches!(p.kind, ProblemKind::SizeMismatch | ProblemKind::BadVersion))
        .map(|p| p.to_string())
        .collect();
    if crc != umod.trailer.crc {
        out.push(format!(
            "CRC mismatch: the trailer records {:#010x}, the bytes give {crc:#010x}",
            umod.trailer.crc
        ));
    }
    out
}

fn integrity_verdict(problems: Vec<String>, ignore_crc: bool) -> Result<Vec<String>> {
    if problems.is_empty() {
        return Ok(Vec::new());
    }
    if !ignore_crc {
        return Err(Error::Other(format!(
            "refusing to extract a damaged archive (use --ignore-crc to extract anyway), nothing was written: {}",
            problems.join("; ")
        )));
    }
    Ok(problems
        .into_iter()
        .map(|s| format!("ignored (--ignore-crc): {s}"))
        .collect())
}

/// Refuse archives that are structurally unsafe, and (unless `ignore_crc`)
/// archives whose integrity check fails. Returns notes for bypassed checks.
pub fn check_before_writing(umod: &Umod<'_>, ignore_crc: bool) -> Result<Vec<String>> {
    structural_check(umod)?;
    integrity_verdict(integrity(umod, umod.compute_crc()), ignore_crc)
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

/// Copy a member into an open file: file to file in the kernel when the
/// archive is a mapped file (`std::io::copy` uses `copy_file_range`), else
/// from memory.
pub(crate) fn copy_entry_to_file(umod: &Umod<'_>, e: &Entry, out: &File) -> std::io::Result<()> {
    // Bounds were checked by `structural_check`; check again, cheaply.
    umod.entry_data(e)
        .map_err(|err| std::io::Error::other(err.to_string()))?;
    if let Some(src) = umod.file().and_then(|f| f.open_at(u64::from(e.offset))) {
        let n = std::io::copy(&mut src.take(u64::from(e.size)), &mut &*out)?;
        if n != u64::from(e.size) {
            return Err(std::io::Error::other(format!(
                "{}: copied {n} of {} bytes (archive changed while reading?)",
                e.name, e.size
            )));
        }
        return Ok(());
    }
    let mut w = out;
    copy_entry(umod, e, &mut w)
}

/// Extract the selected members of `umod` into `out`.
///
/// Nothing is written when a selected name is unsafe, a member lies out of
/// bounds, members overlap, or (without `ignore_crc`) the CRC, recorded size
/// or version is wrong; nor when (without `force` on `out`) a target exists.
/// Folder names are matched case-insensitively to folders already in `out`
/// and to each other.
///
/// Members are written to temporary files beside their final names while the
/// CRC is computed (in parallel), and renamed into place only once the
/// archive has passed; on any failure the temporary files and the folders
/// created for them are removed.
pub fn extract(umod: &Umod<'_>, out: &OutputDir, opts: &ExtractOptions) -> Result<ExtractReport> {
    extract_with(umod, out, opts, &|_| {})
}

/// [`extract`], calling `on_progress` with the bytes of each member as it is
/// staged (in parallel).
pub fn extract_with(
    umod: &Umod<'_>,
    out: &OutputDir,
    opts: &ExtractOptions,
    on_progress: &(dyn Fn(u64) + Sync),
) -> Result<ExtractReport> {
    use rayon::prelude::*;
    let mut report = ExtractReport::default();
    let selected = select(umod, &opts.globs, &mut report.warnings)?;
    structural_check(umod)?;
    let mut map = CaseMap::new(out.root());
    let mut plan = Vec::with_capacity(selected.len());
    for e in selected {
        let rel = map.map(&e.name)?;
        let path = out.resolve(&rel)?;
        // A file where a folder is needed, or a folder where the file goes,
        // is refused here, before anything is written (even with --force).
        check_way(out, &rel, &path)
            .map_err(|e| Error::Other(format!("{e}; nothing was written")))?;
        if !out.force() && std::fs::symlink_metadata(&path).is_ok() {
            return Err(Error::Other(format!(
                "{} already exists (use --force to replace it); nothing was written",
                path.display()
            )));
        }
        plan.push((e, rel));
    }
    let staging = Staging::new(out);
    let (crc, staged) = rayon::join(
        || umod.compute_crc(),
        || {
            plan.par_iter()
                .map(|(e, rel)| {
                    let r = staging
                        .stage(rel, |f| copy_entry_to_file(umod, e, f))
                        .map(|s| (*e, s));
                    on_progress(u64::from(e.size));
                    r
                })
                .collect::<Vec<Result<_>>>()
        },
    );
    let mut ok = Vec::with_capacity(staged.len());
    let mut first_err = None;
    for r in staged {
        match r {
            Ok(x) => ok.push(x),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        staging.abort(ok.into_iter().map(|x| x.1).collect());
        return Err(Error::Other(format!("{e}; nothing was written")));
    }
    match integrity_verdict(integrity(umod, crc), opts.ignore_crc) {
        Ok(notes) => report.warnings.extend(notes),
        Err(e) => {
            staging.abort(ok.into_iter().map(|x| x.1).collect());
            return Err(e);
        }
    }
    let entries: Vec<&Entry> = ok.iter().map(|x| x.0).collect();
    let paths = staging.commit(ok.into_iter().map(|x| x.1).collect())?;
    report.files = entries
        .into_iter()
        .zip(paths)
        .map(|(e, path)| ExtractedFile {
            name: e.name.clone(),
            path,
            size: u64::from(e.size),
        })
        .collect();
    Ok(report)
}
