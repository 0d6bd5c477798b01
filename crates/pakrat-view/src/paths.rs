//! Paths from the client, confined to the opened folder.

use std::path::{Component, Path, PathBuf};

use axum::http::StatusCode;

use crate::*;

impl App {
    /// Resolve a path from the client (relative, `/`-separated) inside the
    /// root: `..`, absolute paths, drive letters, backslashes and symbolic
    /// links leading out are refused.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, ApiError> {
        if rel.contains('\\') || rel.contains(':') || rel.contains('\0') {
            return Err(bad(format!(
                "path {rel:?}: backslashes, colons and NUL are not allowed"
            )));
        }
        let p = Path::new(rel);
        for c in p.components() {
            match c {
                Component::Normal(_) | Component::CurDir => {}
                _ => {
                    return Err(ApiError(
                        StatusCode::FORBIDDEN,
                        format!("path {rel:?} leaves the opened folder"),
                    ))
                }
            }
        }
        let full = self.root.join(p);
        let real = std::fs::canonicalize(&full)
            .map_err(|e| ApiError(StatusCode::NOT_FOUND, format!("{rel}: {e}")))?;
        if !real.starts_with(&self.root) {
            return Err(ApiError(
                StatusCode::FORBIDDEN,
                format!("path {rel:?} leads out of the opened folder (symbolic link)"),
            ));
        }
        Ok(real)
    }

    pub(crate) fn rel_of(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }
}
