//! `GET /api/ls` and `GET /api/open`: folder levels and what a file holds.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value as Json};

use crate::member::open_pak;
use crate::*;

/// `GET /api/ls?path=DIR`: one level of a folder (folders first).
pub(crate) async fn ls(
    State(app): State<Arc<App>>,
    Query(q): Query<PathQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let dir = app.resolve(&q.path)?;
        if !dir.is_dir() {
            return Err(bad(format!("{}: not a folder", q.path)));
        }
        let rd = std::fs::read_dir(&dir).map_err(damaged)?;
        let mut entries: Vec<(bool, String, Json)> = Vec::new();
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            let rel = app.rel_of(&path);
            if ft.is_dir() {
                entries.push((
                    true,
                    name.to_lowercase(),
                    json!({"name": name, "path": rel, "kind": "dir"}),
                ));
            } else if ft.is_file() {
                let size = e.metadata().map(|m| m.len()).unwrap_or(0);
                entries.push((
                    false,
                    name.to_lowercase(),
                    json!({"name": name, "path": rel, "kind": sniff(&path), "size": size}),
                ));
            }
        }
        entries.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let list: Vec<Json> = entries.into_iter().map(|e| e.2).collect();
        Ok(axum::Json(json!({"path": app.rel_of(&dir), "entries": list})).into_response())
    })
    .await
}

pub(crate) fn open_package(path: &Path) -> Result<pakrat_io::Source, ApiError> {
    pakrat_classic::lineage::open(path).map_err(damaged)
}

/// `GET /api/open?path=FILE[&dir=D]`: what the file holds. Packages: header
/// facts and the export table; UMODs: members and manifest; containers and
/// paks: one directory level (`dir`) of their files.
pub(crate) async fn open(
    State(app): State<Arc<App>>,
    Query(q): Query<PathQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        if !file.is_file() {
            return Err(bad(format!("{}: not a file", q.path)));
        }
        let kind = sniff(&file);
        let out = match kind {
            "package" => package_json(&app, &file)?,
            "umod" => umod_json(&app, &file)?,
            "pak" => {
                let pak = open_pak(&app, &file)?;
                let _held = app.budget.reserve(
                    pak.index.entries.len() as u64 * JSON_ROW,
                    "listing this pak",
                )?;
                let files: Vec<(String, u64)> = pak
                    .index
                    .entries
                    .iter()
                    .map(|e| (e.path.clone(), e.uncompressed_size))
                    .collect();
                let mut j = listing(&files, &q.dir, &q.find);
                j["mount_point"] = json!(pak.index.mount_point);
                j["version"] = json!(pak.footer.version);
                j["encrypted_index"] = json!(pak.footer.encrypted_index);
                j
            }
            "utoc" => {
                let c = pakrat_iostore::Container::open(&file, &app.keys())
                    .map_err(damaged)?;
                let rows = (c.indexed_files().len() + c.toc().len()) as u64;
                let _held = app
                    .budget
                    .reserve(rows * JSON_ROW, "listing this container")?;
                let files: Vec<(String, u64)> = c
                    .indexed_files()
                    .iter()
                    .map(|f| (f.path.clone(), 0))
                    .collect();
                let mut j = listing(&files, &q.dir, &q.find);
                j["mount_point"] = json!(c.mount_point());
                j["toc_version"] = json!(c.toc().header.version);
                j["chunks"] = json!(c.toc().chunk_ids.len());
                // An encrypted container opened without its key lists no
                // files: the page asks for the key.
                let encrypted = c.toc().header.has(pakrat_iostore::toc::flags::ENCRYPTED);
                j["encrypted"] = json!(encrypted);
                j["needs_key"] = json!(encrypted && c.key().is_none());
                j["directory_error"] = json!(c.directory_error());
                if q.dir.is_empty() && q.find.is_empty() {
                    // Chunks by type, and the zen packages (first level only).
                    let mut types: std::collections::BTreeMap<String, usize> = Default::default();
                    for ch in c.chunks() {
                        *types.entry(format!("{:?}", ch.chunk_type)).or_default() += 1;
                    }
                    j["chunk_types"] = json!(types);
                    match zen_packages_cost(&c)
                        .and_then(|n| app.budget.reserve(n, "reading its zen packages"))
                        .and_then(|held| {
                            pakrat_asset::zen::ContainerPackages::read(&c)
                                .map(|cp| (cp, held))
                                .map_err(damaged)
                        }) {
                        Ok((cp, _held)) => {
                            let list: Vec<Json> = cp
                                .packages
                                .iter()
                                .take(MAX_FOUND)
                                .map(|p| match &p.header {
                                    Ok(z) => json!({"name": z.name, "path": p.path, "exports": z.exports.len(), "imports": z.imports.len()}),
                                    Err(e) => json!({"path": p.path, "error": e.to_string()}),
                                })
                                .collect();
                            j["zen_packages"] = json!({"count": cp.packages.len(), "list": list});
                        }
                        Err(e) => j["zen_packages"] = json!({"error": e.1}),
                    }
                }
                j
            }
            "uz" => {
                let src = pakrat_io::Source::open(&file).map_err(damaged)?;
                let info = pakrat_uz::inspect(&src).map_err(damaged)?;
                json!({"uz": info})
            }
            _ => json!({}),
        };
        let mut out = out;
        out["path"] = json!(app.rel_of(&file));
        out["kind"] = json!(kind);
        Ok(axum::Json(out).into_response())
    })
    .await
}

/// Memory reading a container's zen packages holds, known before reading:
/// the container header chunk and what is parsed from it (three times its
/// size), the package headers being read (64 MiB; an estimate: each read
/// stops at its header's end), and a row per package.
pub(crate) fn zen_packages_cost(c: &pakrat_iostore::Container) -> Result<u64, ApiError> {
    let header = c
        .find_by_type(pakrat_iostore::ChunkType::ContainerHeader)
        .and_then(|i| c.toc().offsets.get(i))
        .map_or(0, |o| o.length);
    let packages = (0..c.toc().len())
        .filter(|&i| c.toc().chunk_type(i) == pakrat_iostore::ChunkType::ExportBundleData)
        .count() as u64;
    Ok(header
        .saturating_mul(3)
        .saturating_add(64 << 20)
        .saturating_add(packages * JSON_ROW))
}

/// Most paths a `find` answers with.
pub(crate) const MAX_FOUND: usize = 1000;

/// A directory level, or with `find` every path containing it (case
/// ignored, at most [`MAX_FOUND`]).
pub(crate) fn listing(files: &[(String, u64)], dir: &str, find: &str) -> Json {
    if find.is_empty() {
        return dir_level(files, dir);
    }
    let f = find.to_lowercase();
    let mut found = Vec::new();
    let mut more = false;
    for (i, (p, size)) in files.iter().enumerate() {
        if p.to_lowercase().contains(&f) {
            if found.len() == MAX_FOUND {
                more = true;
                break;
            }
            found.push(json!({"path": p, "index": i, "size": size}));
        }
    }
    json!({"find": find, "total_files": files.len(), "found": found, "truncated": more, "dirs": [], "files": []})
}

/// One directory level of a container's file list: sub-folders with their
/// file counts, and the files (with their index in the full list).
pub(crate) fn dir_level(files: &[(String, u64)], dir: &str) -> Json {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{}/", dir.trim_end_matches('/'))
    };
    let mut dirs: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut here = Vec::new();
    for (i, (p, size)) in files.iter().enumerate() {
        let Some(rest) = p.trim_start_matches('/').strip_prefix(prefix.as_str()) else {
            continue;
        };
        match rest.split_once('/') {
            Some((d, _)) => *dirs.entry(d).or_default() += 1,
            None => here.push(json!({"name": rest, "path": p, "index": i, "size": size})),
        }
    }
    json!({
        "dir": dir,
        "total_files": files.len(),
        "dirs": dirs.iter().map(|(d, n)| json!({"name": d, "files": n})).collect::<Vec<_>>(),
        "files": here,
    })
}

/// Memory one table row takes as JSON (its `Value`s and text), a bound
/// for the answers that list rows.
pub(crate) const JSON_ROW: u64 = 1024;

pub(crate) fn package_json(app: &Arc<App>, file: &Path) -> Result<Json, ApiError> {
    let src = open_package(file)?;
    let p = pakrat_classic::Package::parse(&src).map_err(damaged)?;
    let rows = (p.exports.len() + p.imports.len()) as u64;
    let _held = app
        .budget
        .reserve(rows * JSON_ROW, "listing this package's exports")?;
    let s = &p.summary;
    let exports: Vec<Json> = (0..p.exports.len())
        .map(|i| {
            json!({
                "index": i,
                "class": p.export_class_name(i).unwrap_or("?"),
                "path": p.export_path(i).unwrap_or_default(),
                "size": p.exports[i].serial_size,
            })
        })
        .collect();
    let imports: Vec<&str> = p.imported_packages();
    Ok(json!({
        "summary": s,
        "package_flag_names": s.package_flag_names(),
        "objects": s.object_layout().err(),
        "imported_packages": imports,
        "exports": exports,
    }))
}

pub(crate) fn umod_json(app: &Arc<App>, file: &Path) -> Result<Json, ApiError> {
    let src = pakrat_io::Source::open(file).map_err(damaged)?;
    let u = pakrat_umod::Umod::parse(&src).map_err(damaged)?;
    // The manifest as JSON escapes take up to 6 bytes a byte.
    let cost = u.entries.len() as u64 * JSON_ROW + 8 * MAX_MANIFEST as u64;
    let _held = app.budget.reserve(cost, "listing this UMOD")?;
    let files: Vec<Json> = u
        .entries
        .iter()
        .map(|e| json!({"name": e.name, "size": e.size, "flags": e.flags}))
        .collect();
    let bytes = u
        .entries
        .iter()
        .find(|e| {
            let n = e.name.replace('\\', "/").to_ascii_lowercase();
            n.ends_with("manifest.ini")
        })
        .and_then(|e| u.entry_data(e).ok());
    // At most MAX_MANIFEST bytes; the size says whether it was cut.
    let manifest =
        bytes.map(|b| String::from_utf8_lossy(&b[..b.len().min(MAX_MANIFEST)]).into_owned());
    Ok(json!({
        "files": files,
        "manifest": manifest,
        "manifest_size": bytes.map(<[u8]>::len),
        "manifest_truncated": bytes.is_some_and(|b| b.len() > MAX_MANIFEST),
        "verify_ok": u.verify().ok(),
    }))
}
