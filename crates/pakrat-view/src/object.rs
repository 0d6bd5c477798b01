//! `GET /api/object` and `GET /api/data`: an export, its properties and
//! the files its exporter makes.

use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{json, Value as Json};

use crate::listing::open_package;
use crate::*;

#[derive(Deserialize)]
pub(crate) struct ObjQ {
    path: String,
    export: usize,
    #[serde(default)]
    n: usize,
}

pub(crate) fn mime_of(name: &str) -> &'static str {
    let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "png" => "image/png",
        "wav" => "audio/wav",
        "ogg" => "audio/ogg",
        "mp3" => "audio/mpeg",
        "uc" | "txt" | "ini" | "int" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Memory decoding `exports[i]` holds, known before decoding: for a
/// texture every mip as RGBA (the PNGs made of them are kept until sent)
/// and one more for the mip being decoded; for any export twice its
/// stored size (its properties and the file made of its data); plus 1 MiB.
pub fn export_cost(p: &pakrat_classic::Package<'_>, i: usize) -> u64 {
    use pakrat_classic::export::{kind_of_class, Kind};
    let serial = p.exports.get(i).map_or(0, |e| u64::from(e.serial_size));
    let base = (1 << 20) + 2 * serial;
    let class = p.export_class_name(i).unwrap_or("");
    if kind_of_class(class) != Some(Kind::Texture) {
        return base;
    }
    let Ok(t) = pakrat_classic::texture::read_texture(p, i) else {
        return base;
    };
    let (mut sum, mut max) = (0u64, 0u64);
    for m in t.mips.iter().chain(t.comp.iter().flat_map(|c| c.1.iter())) {
        let rgba = u64::from(m.width) * u64::from(m.height) * 4;
        sum = sum.saturating_add(rgba);
        max = max.max(rgba);
    }
    base.saturating_add(sum).saturating_add(max)
}

/// An export's description, the files its exporter made, and why none
/// were made when its decoding is over the memory budget.
pub(crate) type ObjectFiles = (Json, Vec<(String, Blob)>, Option<ApiError>);

/// Decoded object files (from the CLI's exporters), cached.
pub(crate) fn object_files(app: &App, file: &Path, export: usize) -> Result<ObjectFiles, ApiError> {
    use pakrat_classic::export::{export_files, ExportOptions, Made};
    let src = open_package(file)?;
    let p = pakrat_classic::Package::parse(&src).map_err(damaged)?;
    if export >= p.exports.len() {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            format!("no export {export}"),
        ));
    }
    // Over a request's share: the object is described, its files are not
    // made (the note and `/api/data` say why).
    let (_held, refused) = match app
        .budget
        .reserve(export_cost(&p, export), "decoding this export")
    {
        Ok(h) => (Some(h), None),
        Err(e) if e.0 == StatusCode::PAYLOAD_TOO_LARGE => (None, Some(e)),
        Err(e) => return Err(e),
    };
    let e = p.exports[export];
    // Properties as `props --json` writes them; `links` maps the full
    // paths among their values that are this package's exports to their
    // index (the page links them).
    let package = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let js = pakrat_classic::json::PropsJson::new(&p, &package);
    let props = match pakrat_classic::props::read_object(&p, export) {
        Ok(o) => {
            let owner = pakrat_classic::enums::chain_start(&p, export);
            let props = js.properties(owner, &o.properties);
            json!({"properties": props, "links": js.links()})
        }
        Err(err) => json!({"properties_error": err.to_string()}),
    };
    let opts = ExportOptions {
        kinds: Vec::new(),
        all_mips: true,
        ..Default::default()
    };
    let (files, note) = match &refused {
        Some(r) => (Vec::new(), Some(r.1.clone())),
        None => match export_files(&p, export, &opts) {
            Ok(Made::Files(_, files)) => (files, None),
            Ok(Made::Nothing(_, why)) => (Vec::new(), Some(why)),
            Ok(_) => (Vec::new(), None),
            Err(err) => (Vec::new(), Some(err.to_string())),
        },
    };
    let mut out = Vec::new();
    let mut list = Vec::new();
    for (k, (name, bytes, detail)) in files.into_iter().enumerate() {
        let key = format!("{}\0{export}\0{k}", file.display());
        let v = Arc::new((bytes, mime_of(&name)));
        app.remember(key, v.clone());
        list.push(json!({"n": k, "name": name, "size": v.0.len(), "mime": v.1, "detail": detail}));
        out.push((name, v));
    }
    let mut j = json!({
        "index": export,
        "class": p.export_class_name(export).unwrap_or("?"),
        "path": p.export_path(export).unwrap_or_default(),
        "flags": pakrat_classic::flags::object_flag_names(e.flags),
        "size": e.serial_size,
        "offset": e.serial_offset,
        "files": list,
        "note": note,
        "palette": palette_of(&p, export),
        "mesh": crate::mesh::is_viewable(
            p.export_class_name(export).unwrap_or(""),
            p.summary.version
        ),
    });
    if let (Some(a), Json::Object(b)) = (j.as_object_mut(), props) {
        a.extend(b);
    }
    Ok((j, out, refused))
}

/// `GET /api/object?path=FILE&export=I`: an export's class, flags, decoded
/// properties and the files its exporter makes.
pub(crate) async fn object(
    State(app): State<Arc<App>>,
    Query(q): Query<ObjQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let (j, _, _) = object_files(&app, &file, q.export)?;
        Ok(axum::Json(j).into_response())
    })
    .await
}

/// `GET /api/data?path=FILE&export=I&n=K`: the K-th file an export's
/// exporter makes (PNG, WAV/OGG as stored, tracker module, `.uc` text).
pub(crate) async fn data(
    State(app): State<Arc<App>>,
    Query(q): Query<ObjQ>,
) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let key = format!("{}\0{}\0{}", file.display(), q.export, q.n);
        let (name, v) = match app.cached(&key) {
            Some(v) => (format!("export{}-{}", q.export, q.n), v),
            None => {
                let (_, files, refused) = object_files(&app, &file, q.export)?;
                files.into_iter().nth(q.n).ok_or_else(|| {
                    refused.unwrap_or_else(|| {
                        ApiError(
                            StatusCode::NOT_FOUND,
                            format!("export {} makes no file {}", q.export, q.n),
                        )
                    })
                })?
            }
        };
        Ok(bytes_response(v.0.clone(), v.1, &name))
    })
    .await
}

/// The last component of `name` with anything but ASCII letters, digits
/// and `._-` replaced by `_` (for Content-Disposition).
pub(crate) fn safe_file_name(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

pub(crate) fn bytes_response(bytes: Vec<u8>, mime: &'static str, name: &str) -> Response {
    let safe = safe_file_name(name);
    let mut r = Response::new(Body::from(bytes));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{safe}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

/// The colours of a P8 texture's palette (from its `Palette` property, an
/// export of the same package), as `#rrggbbaa` strings.
pub(crate) fn palette_of(p: &pakrat_classic::Package<'_>, i: usize) -> Option<Vec<String>> {
    let o = pakrat_classic::props::read_object(p, i).ok()?;
    let prop = o.get(p, "Palette")?;
    let pakrat_classic::props::Value::Object(r) = prop.value else {
        return None;
    };
    let pakrat_classic::Target::Export(k) = p.check_ref(r).ok()? else {
        return None;
    };
    let colours = pakrat_classic::texture::read_palette(p, k).ok()?;
    Some(
        colours
            .iter()
            .map(|c| format!("#{:02x}{:02x}{:02x}{:02x}", c[0], c[1], c[2], c[3]))
            .collect(),
    )
}
