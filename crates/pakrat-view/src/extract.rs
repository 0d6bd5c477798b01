//! `POST /api/extract`: the one request that writes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::listing::open_package;
use crate::member::{chunk_stream_cost, find_pak_entry, open_pak, pak_stream_cost};
use crate::object::export_cost;
use crate::*;

/// `POST /api/extract` body.
#[derive(Deserialize)]
pub(crate) struct ExtractQ {
    /// The file (relative to the root).
    path: String,
    /// Package exports to export (their exporters' files).
    #[serde(default)]
    exports: Vec<usize>,
    /// UMOD members or `.pak` entries, by name.
    #[serde(default)]
    members: Vec<String>,
    /// The folder to write into (the user's choice: any absolute path).
    dest: String,
    /// Replace existing files.
    #[serde(default)]
    force: bool,
}

/// `POST /api/extract`: write the chosen exports or members into the
/// folder the user names, through the same safe output as the CLI (names
/// made safe, atomic writes, existing files refused up front unless
/// `force`: 409). The only request that writes. The body is at most
/// [`MAX_BODY`] bytes and [`MAX_SELECTED`] names, each named once; members
/// are streamed into their files one at a time, exports decoded one at a
/// time within the memory budget.
pub(crate) async fn extract(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let raw = read_body(body).await?;
    let q: ExtractQ =
        serde_json::from_slice(&raw).map_err(|e| bad(format!("the request body: {e}")))?;
    drop(raw);
    if q.members.len() + q.exports.len() > MAX_SELECTED {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{} names selected; one extraction takes at most {MAX_SELECTED}",
                q.members.len() + q.exports.len()
            ),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(m) = q.members.iter().find(|m| !seen.insert(m.as_str())) {
        return Err(bad(format!("member {m:?} is named more than once")));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(i) = q.exports.iter().find(|i| !seen.insert(**i)) {
        return Err(bad(format!("export {i} is named more than once")));
    }
    blocking(move || extract_now(&app, &q)).await
}

pub(crate) fn extract_now(app: &Arc<App>, q: &ExtractQ) -> Result<Response, ApiError> {
    use pakrat_classic::export::{export_files, export_paths, ExportOptions, Made};
    let file = app.resolve(&q.path)?;
    let dest = PathBuf::from(&q.dest);
    if !dest.is_absolute() {
        return Err(bad("dest must be an absolute folder path"));
    }
    let lib = |e: pakrat_io::Error| std::io::Error::other(e.to_string());
    let kind = sniff(&file);
    let mut written = Vec::new();
    let mut note = |p: PathBuf, size: u64| written.push(json!({"path": p, "size": size}));
    match kind {
        "package" => {
            let src = open_package(&file)?;
            let p = pakrat_classic::Package::parse(&src).map_err(damaged)?;
            let opts = ExportOptions::default();
            if let Some(&i) = q.exports.iter().find(|&&i| i >= p.exports.len()) {
                return Err(ApiError(StatusCode::NOT_FOUND, format!("no export {i}")));
            }
            let names = export_paths(&p, &q.exports, &opts);
            let out = prepare_output(&dest, q.force, names.iter().map(String::as_str))?;
            for &i in &q.exports {
                let _held = app
                    .budget
                    .reserve(export_cost(&p, i), &format!("exporting export {i}"))?;
                match export_files(&p, i, &opts).map_err(damaged)? {
                    Made::Files(_, fs) => {
                        for (n, b, _) in fs {
                            note(out.write(&n, &b).map_err(damaged)?, b.len() as u64);
                        }
                    }
                    Made::Nothing(_, why) => return Err(damaged(format!("export {i}: {why}"))),
                    _ => return Err(bad(format!("export {i}: no exporter for its class"))),
                }
            }
        }
        "umod" => {
            let src = pakrat_io::Source::open(&file).map_err(damaged)?;
            let u = pakrat_umod::Umod::parse(&src).map_err(damaged)?;
            let mut picked = Vec::new();
            for m in &q.members {
                let e = u
                    .find(m)
                    .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no member {m}")))?;
                picked.push((e.slash_name(), e));
            }
            let out = prepare_output(&dest, q.force, picked.iter().map(|p| p.0.as_str()))?;
            for (name, e) in picked {
                let data = u.entry_data(e).map_err(damaged)?;
                note(out.write(&name, data).map_err(damaged)?, data.len() as u64);
            }
        }
        "pak" => {
            let pak = open_pak(app, &file)?;
            let mut picked = Vec::new();
            for m in &q.members {
                let e = find_pak_entry(&pak, m)
                    .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no entry {m}")))?;
                picked.push(e);
            }
            let out = prepare_output(&dest, q.force, q.members.iter().map(String::as_str))?;
            for e in picked {
                let _held = app
                    .budget
                    .reserve(pak_stream_cost(e), &format!("decoding {}", e.path))?;
                let p = out
                    .write_with(&e.path, |w| {
                        pak.read_to(e, &mut |b| {
                            w.write_all(b)
                                .map_err(|e| pakrat_io::Error::Other(e.to_string()))
                        })
                        .map_err(lib)
                    })
                    .map_err(damaged)?;
                note(p, e.uncompressed_size);
            }
        }
        "utoc" => {
            let c = pakrat_iostore::Container::open(&file, &app.keys()).map_err(damaged)?;
            let mut picked = Vec::new();
            for m in &q.members {
                let f = c
                    .indexed_files()
                    .iter()
                    .find(|f| &f.path == m)
                    .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no file {m}")))?;
                let i = f.toc_index as usize;
                if i >= c.toc().offsets.len() {
                    return Err(damaged(format!(
                        "{m}: its entry {i} is past the table of contents"
                    )));
                }
                picked.push((m.as_str(), i));
            }
            let out = prepare_output(&dest, q.force, q.members.iter().map(String::as_str))?;
            for (m, i) in picked {
                let _held = app
                    .budget
                    .reserve(chunk_stream_cost(&c), &format!("decoding {m}"))?;
                let p = out
                    .write_with(m, |w| {
                        c.stream_chunk(i, |b| {
                            w.write_all(b)
                                .map_err(|e| pakrat_io::Error::Other(e.to_string()))
                        })
                        .map_err(lib)
                    })
                    .map_err(damaged)?;
                note(p, c.toc().offsets[i].length);
            }
        }
        _ => {
            return Err(bad(format!(
                "{}: nothing to extract from this kind of file",
                q.path
            )))
        }
    }
    if written.is_empty() {
        return Err(bad("nothing selected"));
    }
    Ok(axum::Json(json!({"written": written})).into_response())
}

/// The output folder, once no file of `names` exists in it (409 unless
/// `force`; nothing is written then).
pub(crate) fn prepare_output<'a>(
    dest: &Path,
    force: bool,
    names: impl Iterator<Item = &'a str>,
) -> Result<pakrat_io::fsutil::OutputDir, ApiError> {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        return Err(bad("nothing selected"));
    }
    let out = pakrat_io::fsutil::OutputDir::create(dest, force).map_err(damaged)?;
    let mut exist = Vec::new();
    for name in names {
        let target = out.resolve(name).map_err(|e| bad(e.to_string()))?;
        if target.exists() {
            exist.push(target.display().to_string());
        }
    }
    if !exist.is_empty() && !force {
        return Err(ApiError(
            StatusCode::CONFLICT,
            format!(
                "{} already exists ({} of the files); nothing was written",
                exist[0],
                exist.len()
            ),
        ));
    }
    Ok(out)
}
