//! `GET /api/member`: a UMOD member, `.pak` entry or IoStore file,
//! streamed; the container helpers the other requests share.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use crate::object::mime_of;
use crate::*;

#[derive(Deserialize)]
pub(crate) struct MemberQ {
    path: String,
    name: String,
}

/// `GET /api/member?path=FILE&name=M`: a UMOD member, a `.pak` entry or
/// a file of an IoStore container, as stored (decompressed), for download:
/// streamed block by block, holding [`pak_stream_cost`] /
/// [`chunk_stream_cost`] bytes whatever the file's size.
pub(crate) async fn member(
    State(app): State<Arc<App>>,
    Query(q): Query<MemberQ>,
) -> Result<Response, ApiError> {
    stream::stream(move |s| {
        let file = app.resolve(&q.path)?;
        let mime = mime_of(&q.name);
        match sniff(&file) {
            "umod" => {
                let src = pakrat_io::Source::open(&file).map_err(damaged)?;
                let u = pakrat_umod::Umod::parse(&src).map_err(damaged)?;
                let e = u.find(&q.name).ok_or_else(|| no_member(&q.path, &q.name))?;
                let data = u.entry_data(e).map_err(damaged)?;
                let _held = app
                    .budget
                    .reserve(stream::QUEUE_BYTES, "sending this member")?;
                s.head(data.len() as u64, mime, &q.name);
                s.data(data).map_err(gone)?;
            }
            "pak" => {
                let pak = open_pak(&app, &file)?;
                let e = find_pak_entry(&pak, &q.name).ok_or_else(|| no_member(&q.path, &q.name))?;
                let _held = app
                    .budget
                    .reserve(pak_stream_cost(e), "decoding this entry")?;
                s.head(e.uncompressed_size, mime, &q.name);
                pak.read_to(e, &mut |b| s.data(b).map_err(stopped))
                    .map_err(damaged)?;
            }
            "utoc" => {
                let (c, i) = utoc_chunk(&app, &file, &q.name)?;
                let _held = app
                    .budget
                    .reserve(chunk_stream_cost(&c), "decoding this file")?;
                s.head(c.toc().offsets[i].length, mime, &q.name);
                c.stream_chunk(i, |b| s.data(b).map_err(stopped))
                    .map_err(damaged)?;
            }
            _ => {
                return Err(bad(format!(
                    "{}: not a UMOD, .pak or IoStore container",
                    q.path
                )))
            }
        }
        Ok(())
    })
    .await
}

pub(crate) fn no_member(path: &str, name: &str) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, format!("{path}: no member {name}"))
}

/// The client left: the answer is over (its status is never sent).
pub(crate) fn gone(g: stream::Gone) -> ApiError {
    ApiError(StatusCode::REQUEST_TIMEOUT, g.to_string())
}

/// A stopped stream as a reader's error (ends its decoding loop).
pub(crate) fn stopped(g: stream::Gone) -> pakrat_io::Error {
    pakrat_io::Error::Other(g.to_string())
}

/// Open a `.pak` with the server's keys.
pub(crate) fn open_pak(app: &App, file: &Path) -> Result<pakrat_pak::Pak, ApiError> {
    open_pak_with(file, &app.keys())
}

/// Open a `.pak` with these keys.
pub(crate) fn open_pak_with(
    file: &Path,
    keys: &pakrat_codec::KeyRing,
) -> Result<pakrat_pak::Pak, ApiError> {
    pakrat_pak::Pak::open(file, keys).map_err(damaged)
}

pub(crate) fn find_pak_entry<'a>(
    pak: &'a pakrat_pak::Pak,
    name: &str,
) -> Option<&'a pakrat_pak::entry::PakEntry> {
    pak.index.entries.iter().find(|e| e.path == name)
}

/// Memory a `.pak` entry's decoding holds: its block and a copy for
/// decryption, and the stream's queue.
pub fn pak_stream_cost(e: &pakrat_pak::entry::PakEntry) -> u64 {
    let block = if e.compressed() {
        u64::from(e.block_size).min(e.uncompressed_size.max(1))
    } else {
        1 << 20
    };
    2 * block + stream::QUEUE_BYTES
}

/// Memory an IoStore chunk's decoding holds: a window of decoded blocks
/// (closed after `WINDOW_BYTES`, so at most that and one block), the
/// compressed blocks in flight, and the stream's queue.
pub fn chunk_stream_cost(c: &pakrat_iostore::Container) -> u64 {
    let block = u64::from(c.toc().header.block_size);
    pakrat_iostore::container::WINDOW_BYTES as u64 + 3 * block + stream::QUEUE_BYTES
}

/// The container and the entry behind an indexed file of an IoStore
/// container (a zen package as stored, a bulk data file…).
pub(crate) fn utoc_chunk(
    app: &App,
    file: &Path,
    name: &str,
) -> Result<(pakrat_iostore::Container, usize), ApiError> {
    let c = pakrat_iostore::Container::open(file, &app.keys()).map_err(damaged)?;
    let i = c
        .indexed_files()
        .iter()
        .find(|f| f.path == name)
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no file {name}")))?
        .toc_index as usize;
    if i >= c.toc().offsets.len() {
        return Err(damaged(format!(
            "{name}: its entry {i} is past the table of contents"
        )));
    }
    Ok((c, i))
}
