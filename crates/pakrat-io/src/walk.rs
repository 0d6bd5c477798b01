//! The files of a folder to pack: every regular file below it, sorted, with
//! the names the engine cannot take refused (used by `pak create`,
//! `iostore create` and `zen from-legacy`).

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A file found in the folder.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path below the folder, `/`-separated.
    pub rel: String,
    /// Where it is.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// The content when it was made in memory (a package converted by
    /// `pakrat zen from-legacy --into`); `path` then only names it.
    pub bytes: Option<std::sync::Arc<Vec<u8>>>,
}

impl SourceFile {
    /// Its content: `bytes`, else the file read from `path` (found regular
    /// by the walk: [`crate::read_walked`]).
    pub fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.bytes {
            Some(b) => Ok(std::borrow::Cow::Borrowed(b.as_slice())),
            None => crate::read_walked(&self.path).map(std::borrow::Cow::Owned),
        }
    }
}

/// What is wrong with a set of paths packed for the engine, which looks
/// paths up without regard to case: paths that differ only in case (one
/// would hide the other), and names holding a control character (a line
/// break or an escape sequence no tool shows as it is). One message each,
/// in path order; empty when all is well.
pub fn name_problems<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    use crate::text::show;
    let mut out = Vec::new();
    let mut folded: Vec<(String, &str)> = Vec::new();
    for p in paths {
        if let Some(c) = p.chars().find(|c| c.is_control()) {
            out.push(format!(
                "{}: the name holds a control character (U+{:04X})",
                show(p),
                u32::from(c)
            ));
        }
        folded.push((p.to_lowercase(), p));
    }
    folded.sort();
    for w in folded.windows(2) {
        if w[0].0 == w[1].0 && w[0].1 != w[1].1 {
            out.push(format!(
                "{} and {} differ only in case: the engine looks paths up without \
                 regard to case, so one would hide the other",
                show(w[0].1),
                show(w[1].1)
            ));
        }
    }
    out
}

/// Every regular file below `root`, sorted by relative path. Symbolic links
/// (which could pull in any file), special files, names that are not
/// Unicode or hold a backslash, paths with `..`, and the paths
/// [`name_problems`] finds (case twins, control characters) are refused.
pub fn walk(root: &Path) -> Result<Vec<SourceFile>> {
    walk_sizing(root, |_| true)
}

/// [`walk`], asking each file's size (a `stat`) only when `sized(rel)`
/// says so: the others get size 0, for a caller that reads them whole
/// anyway and takes the size from what it read (`zen from-legacy` reads
/// every `.uasset`, `.umap` and `.uexp`; on 19,000 files the `stat`s were
/// a tenth of its time on one thread).
pub fn walk_sizing(root: &Path, sized: impl Fn(&str) -> bool) -> Result<Vec<SourceFile>> {
    let io = |p: &Path, e: std::io::Error| Error::io(p, e);
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for ent in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
            let ent = ent.map_err(|e| io(&dir, e))?;
            let path = ent.path();
            let ft = ent.file_type().map_err(|e| io(&path, e))?;
            if ft.is_symlink() {
                return Err(Error::Other(format!(
                    "{}: is a symbolic link; refusing to pack it (it could pull in any file)",
                    path.display()
                )));
            }
            if ft.is_dir() {
                stack.push(path);
                continue;
            }
            if !ft.is_file() {
                return Err(Error::Other(format!(
                    "{}: not a regular file",
                    path.display()
                )));
            }
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let mut parts = Vec::new();
            for c in rel.components() {
                let Some(s) = c.as_os_str().to_str() else {
                    return Err(Error::Other(format!(
                        "{}: file name is not valid Unicode",
                        path.display()
                    )));
                };
                if s == ".." || s.contains('\\') {
                    return Err(Error::Other(format!(
                        "{}: name {s:?} cannot be stored in a container",
                        path.display()
                    )));
                }
                parts.push(s.to_string());
            }
            let rel = parts.join("/");
            let size = if sized(&rel) {
                ent.metadata().map_err(|e| io(&path, e))?.len()
            } else {
                0
            };
            out.push(SourceFile {
                rel,
                path,
                size,
                bytes: None,
            });
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    let bad = name_problems(out.iter().map(|f| f.rel.as_str()));
    if !bad.is_empty() {
        let more = if bad.len() > 8 {
            format!(" (and {} more)", bad.len() - 8)
        } else {
            String::new()
        };
        return Err(Error::Other(format!(
            "{}: cannot pack these names: {}{more}",
            root.display(),
            bad[..bad.len().min(8)].join("; ")
        )));
    }
    Ok(out)
}
