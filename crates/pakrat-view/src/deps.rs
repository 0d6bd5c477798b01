//! `GET /api/deps` and `GET /api/deps.svg`: a package's dependencies
//! resolved in the opened folder, and who imports it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value as Json};

use crate::graph::graph_svg;
use crate::*;

/// Every package file under the root (by content), relative paths.
pub(crate) fn packages_under(app: &App) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![app.root.clone()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() && sniff(&e.path()) == "package" {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Who imports what, for every package under the root (tables only).
pub(crate) fn dependents(app: &App) -> Dependents {
    if let Some(d) = app.dependents.lock().ok().and_then(|g| g.clone()) {
        return d;
    }
    let mut map: HashMap<String, Vec<(String, pakrat_system::PkgVersion)>> = HashMap::new();
    for f in packages_under(app) {
        if let Ok((v, _, imports)) = pakrat_system::deps::read_imports_versioned(&f) {
            for i in imports {
                map.entry(i.to_lowercase())
                    .or_default()
                    .push((app.rel_of(&f), v));
            }
        }
    }
    let map = Arc::new(map);
    if let Ok(mut g) = app.dependents.lock() {
        *g = Some(map.clone());
    }
    map
}

/// The dependency graph of a package, resolved in the opened folder (a
/// game folder with its ini Paths, or a plain folder of packages).
pub(crate) fn graph_of(app: &App, file: &Path) -> Result<pakrat_system::deps::DepGraph, ApiError> {
    let cached = app.game.lock().ok().and_then(|g| g.clone());
    let game = match cached {
        Some(g) => g,
        None => {
            let g = Arc::new(pakrat_system::GameDir::open(&app.root, None).map_err(damaged)?);
            if let Ok(mut slot) = app.game.lock() {
                *slot = Some(g.clone());
            }
            g
        }
    };
    pakrat_system::deps::walk(&game, &file.to_string_lossy()).map_err(damaged)
}

/// `GET /api/deps?path=PKG`: its imports (resolved, missing marked), the
/// packages under the folder that import it, and the whole graph.
pub(crate) async fn deps(
    State(app): State<Arc<App>>,
    Query(q): Query<PathQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let g = graph_of(&app, &file)?;
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        // Importers of another generation or game need another file of
        // that name: listed apart.
        let me = g.nodes.first().and_then(|n| {
            Some(pakrat_system::PkgVersion {
                version: n.version?,
                licensee: n.licensee?,
            })
        });
        let (by, other): (Vec<_>, Vec<_>) = dependents(&app)
            .get(&name)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .partition(|(_, v)| me.is_none_or(|me| me.mismatch(*v).is_none()));
        let by: Vec<String> = by.into_iter().map(|(p, _)| p).collect();
        let other: Vec<String> = other.into_iter().map(|(p, _)| p).collect();
        let nodes: Vec<Json> = g
            .nodes
            .iter()
            .map(|n| {
                json!({
                    "name": n.name,
                    "file": n.file.as_ref().map(|f| app.rel_of(f)),
                    "missing": n.file.is_none(),
                    "version": n.version,
                    "licensee": n.licensee,
                    "error": n.error,
                    "imports": n.imports,
                })
            })
            .collect();
        Ok(axum::Json(json!({
            "path": app.rel_of(&file),
            "nodes": nodes,
            "edges": g.edges,
            "missing": g.missing,
            "mismatches": g.mismatches,
            "cycles": g.cycles,
            "imported_by": by,
            "imported_by_other_generation": other,
        }))
        .into_response())
    })
    .await
}

/// `GET /api/deps.svg?path=PKG`: the dependency graph as a picture.
pub(crate) async fn deps_svg(
    State(app): State<Arc<App>>,
    Query(q): Query<PathQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let g = graph_of(&app, &file)?;
        let mut r = Response::new(Body::from(graph_svg(&g)));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("image/svg+xml"),
        );
        Ok(r)
    })
    .await
}
