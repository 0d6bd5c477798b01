//! `pakrat view`: a local web viewer for game folders, packages, UMODs,
//! redirect files, `.pak` files and IoStore containers, built on the same
//! library as the command line.
//!
//! Safe by default: it listens on 127.0.0.1 only; every request must carry
//! the random token of the URL (query `t`, or header `x-pakrat-token`) and a
//! `Host` of `127.0.0.1:PORT` or `localhost:PORT` (other local users and
//! DNS-rebinding pages are kept out); every path the API takes is relative to
//! the opened folder and confined to it (no `..`, no absolute path, no
//! backslash, no symbolic link out); it only reads. Parsing runs on blocking
//! threads and a panic there is a 500 answer, never a dead server; a damaged
//! file is a 422 answer with the reader's message.
//!
//! The API answers JSON; file bytes (previews, downloads) come from the
//! exporters the CLI uses (`pakrat_classic::export::export_files`), cached
//! in memory up to [`PREVIEW_CACHE_BYTES`].
//!
//! Bounded: downloads stream block by block ([`stream`]); every request
//! that decodes something sizeable reserves its memory up front from one
//! pool ([`budget`]) and is refused (413, with what it needs) when it alone
//! would pass a request's share; a UMOD manifest is sent up to
//! [`MAX_MANIFEST`] bytes; a request's head must arrive within
//! [`HEADER_TIMEOUT`], a POST body of at most [`MAX_BODY`] bytes within
//! [`BODY_TIMEOUT`], and at most [`MAX_CONNECTIONS`] connections are
//! served at once.

pub mod budget;
pub mod stream;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value as Json};

/// The viewer page (HTML, CSS and script in one file, no network use).
const INDEX_HTML: &str = include_str!("ui.html");

/// Bytes of exported previews kept in memory, oldest dropped first.
pub const PREVIEW_CACHE_BYTES: usize = 64 << 20;

/// Most bytes of a UMOD manifest `GET /api/open` sends (the rest is cut,
/// and the answer says so).
pub const MAX_MANIFEST: usize = 1 << 20;

/// Largest request body (`POST /api/extract`).
pub const MAX_BODY: usize = 1 << 20;

/// Most members or exports one `POST /api/extract` may name.
pub const MAX_SELECTED: usize = 10_000;

/// Most connections served at once (more are closed when accepted).
pub const MAX_CONNECTIONS: usize = 64;

/// Time a client has to send a request's head; then its connection is
/// closed.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Time a client has to send a POST body once its head has come.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// What `pakrat view` serves.
#[derive(Clone, Debug)]
pub struct Options {
    /// A folder, or a file (its folder is served and the file selected).
    pub path: PathBuf,
    /// Port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// The access token (random when `None`).
    pub token: Option<String>,
}

/// A server being started: its address and the URL to open.
pub struct Ready {
    /// The bound address.
    pub addr: SocketAddr,
    /// `http://127.0.0.1:PORT/?t=TOKEN[#file]`.
    pub url: String,
}

/// Package name (lower case) → the files that import it, with their versions.
type Dependents = Arc<HashMap<String, Vec<(String, pakrat_system::PkgVersion)>>>;

/// File bytes and their MIME type, shared by the cache and responses.
type Blob = Arc<(Vec<u8>, &'static str)>;

struct Cache {
    map: HashMap<String, Blob>,
    order: VecDeque<String>,
    bytes: usize,
}

/// Shared server state.
pub struct App {
    root: PathBuf,
    token: String,
    port: std::sync::atomic::AtomicU16,
    cache: Mutex<Cache>,
    /// Package name (lower case) → files under the root that import it,
    /// read once on the first request that needs it.
    dependents: Mutex<Option<Dependents>>,
    /// The folder as a game folder (its name index built once), opened on
    /// the first dependency request and reused.
    game: Mutex<Option<Arc<pakrat_system::GameDir>>>,
    /// The memory pool requests reserve from.
    budget: Arc<budget::Budget>,
}

/// An API error: status and message.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({"error": self.1, "status": self.0.as_u16()});
        (self.0, axum::Json(body)).into_response()
    }
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

fn damaged(e: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::UNPROCESSABLE_ENTITY, e.to_string())
}

fn random_token() -> String {
    let mut b = [0u8; 16];
    // A failing system RNG leaves zeros; the server then refuses to start.
    let _ = getrandom::fill(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The memory pool's size: `PAKRAT_VIEW_MEMORY_MIB` (at least 4), else
/// [`budget::DEFAULT_MEMORY`].
pub fn memory_budget() -> u64 {
    std::env::var("PAKRAT_VIEW_MEMORY_MIB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(budget::DEFAULT_MEMORY, |m| m.clamp(4, 1 << 20) << 20)
}

impl App {
    /// State for serving `root` (a folder) with `token`, with a memory pool
    /// of [`memory_budget`] bytes.
    pub fn new(root: PathBuf, token: String) -> std::io::Result<Arc<App>> {
        let root = std::fs::canonicalize(&root)?;
        if !root.is_dir() {
            return Err(std::io::Error::other(format!(
                "{}: not a folder",
                root.display()
            )));
        }
        if token.len() < 16 || token.bytes().all(|b| b == b'0') {
            return Err(std::io::Error::other("no usable random token"));
        }
        Ok(Arc::new(App {
            root,
            token,
            port: std::sync::atomic::AtomicU16::new(0),
            cache: Mutex::new(Cache {
                map: HashMap::new(),
                order: VecDeque::new(),
                bytes: 0,
            }),
            dependents: Mutex::new(None),
            game: Mutex::new(None),
            budget: budget::Budget::new(memory_budget()),
        }))
    }

    /// The token requests must carry.
    pub fn token(&self) -> &str {
        &self.token
    }

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

    fn rel_of(&self, p: &Path) -> String {
        p.strip_prefix(&self.root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    }

    fn cached(&self, key: &str) -> Option<Blob> {
        self.cache.lock().ok()?.map.get(key).cloned()
    }

    fn remember(&self, key: String, v: Blob) {
        let Ok(mut c) = self.cache.lock() else { return };
        if v.0.len() > PREVIEW_CACHE_BYTES / 4 || c.map.contains_key(&key) {
            return;
        }
        c.bytes += v.0.len();
        c.order.push_back(key.clone());
        c.map.insert(key, v);
        while c.bytes > PREVIEW_CACHE_BYTES {
            let Some(old) = c.order.pop_front() else {
                break;
            };
            if let Some(v) = c.map.remove(&old) {
                c.bytes -= v.0.len();
            }
        }
    }
}

/// Every request: the right `Host` (403) and the token (401).
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let port = app.port.load(std::sync::atomic::Ordering::Relaxed);
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let ok_host = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !ok_host.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return ApiError(
            StatusCode::FORBIDDEN,
            format!("Host {host:?} is not this viewer (127.0.0.1:{port})"),
        )
        .into_response();
    }
    let from_query = req.uri().query().and_then(|q| {
        q.split('&')
            .find_map(|kv| kv.strip_prefix("t="))
            .map(str::to_string)
    });
    let from_header = req
        .headers()
        .get("x-pakrat-token")
        .and_then(|h| h.to_str().ok())
        .map(str::to_string);
    let given = from_header.or(from_query).unwrap_or_default();
    if !constant_time_eq(given.as_bytes(), app.token.as_bytes()) {
        return ApiError(StatusCode::UNAUTHORIZED, "missing or wrong token".into()).into_response();
    }
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert(
        "content-security-policy",
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; \
             style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'",
        ),
    );
    r
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The router (also used by tests without a socket).
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/ls", get(ls))
        .route("/api/open", get(open))
        .route("/api/object", get(object))
        .route("/api/data", get(data))
        .route("/api/member", get(member))
        .route("/api/deps", get(deps))
        .route("/api/extract", post(extract))
        .route("/api/deps.svg", get(deps_svg))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Bind 127.0.0.1:`opts.port` and serve until the process ends; `ready`
/// gets the address and URL once listening.
pub fn serve(opts: &Options, ready: impl FnOnce(&Ready)) -> std::io::Result<()> {
    let meta = std::fs::metadata(&opts.path)?;
    let (root, select) = if meta.is_dir() {
        (opts.path.clone(), None)
    } else {
        let parent = opts
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        (
            parent,
            opts.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
        )
    };
    let app = App::new(root, opts.token.clone().unwrap_or_else(random_token))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let served = rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], opts.port))).await?;
        let addr = listener.local_addr()?;
        app.port
            .store(addr.port(), std::sync::atomic::Ordering::Relaxed);
        let mut url = format!("http://127.0.0.1:{}/?t={}", addr.port(), app.token);
        if let Some(s) = select {
            url.push('#');
            url.push_str(&percent(&s));
        }
        ready(&Ready { addr, url });
        accept_loop(listener, router(app)).await;
        Ok(())
    });
    // Downloads still streaming on blocking threads are not waited for.
    rt.shutdown_timeout(Duration::from_secs(1));
    served
}

/// Serve connections until Ctrl-C: at most [`MAX_CONNECTIONS`] at once
/// (one more is closed as soon as it is accepted), each closed when a
/// request's head does not arrive within [`HEADER_TIMEOUT`], so half-open
/// connections neither pile up nor lock the viewer out for long.
async fn accept_loop(listener: tokio::net::TcpListener, router: Router) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let stop = tokio::signal::ctrl_c();
    tokio::pin!(stop);
    loop {
        let sock = tokio::select! {
            r = listener.accept() => match r {
                Ok((sock, _)) => sock,
                Err(_) => {
                    // Out of file descriptors and the like: breathe, retry.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => return,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            drop(sock);
            continue;
        };
        let svc = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(sock), svc)
                .await;
        });
    }
}

/// Percent-encode for a URL fragment or query value.
fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

/// Run `f` on a blocking thread; a panic there is a 500 answer, and a
/// file that shrank while `f` read it (a SIGBUS caught by
/// `pakrat_io::mapguard`) a 409 naming the file, whatever `f` made of it.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let watched = move || {
        pakrat_io::mapguard::watch(f)
            .unwrap_or_else(|e| Err(ApiError(StatusCode::CONFLICT, e.to_string())))
    };
    match tokio::task::spawn_blocking(watched).await {
        Ok(r) => r,
        Err(e) => Err(ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error while reading the file: {e}"),
        )),
    }
}

#[derive(Deserialize)]
struct PathQ {
    #[serde(default)]
    path: String,
    #[serde(default)]
    dir: String,
    #[serde(default)]
    find: String,
}

/// What a file is, from its first and last bytes (`pakrat-detect`, the
/// detector the CLI uses too), as the page names it.
fn sniff(path: &Path) -> &'static str {
    use pakrat_detect::Format;
    let found = pakrat_detect::detect_file(path).ok().and_then(|(f, _)| f);
    match found {
        Some(Format::IoStoreToc) => "utoc",
        Some(Format::Package | Format::LegacyPackage) => "package",
        Some(Format::Uz) => "uz",
        Some(Format::Umod) => "umod",
        Some(Format::Pak) => "pak",
        Some(Format::IoStoreCas) => "ucas",
        // A .ucas without its .utoc still shows as IoStore data.
        None if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ucas")) =>
        {
            "ucas"
        }
        None => "other",
    }
}

/// `GET /api/ls?path=DIR`: one level of a folder (folders first).
async fn ls(State(app): State<Arc<App>>, Query(q): Query<PathQ>) -> Result<Response, ApiError> {
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

fn open_package(path: &Path) -> Result<pakrat_io::Source, ApiError> {
    pakrat_classic::lineage::open(path).map_err(damaged)
}

/// `GET /api/open?path=FILE[&dir=D]`: what the file holds. Packages: header
/// facts and the export table; UMODs: members and manifest; containers and
/// paks: one directory level (`dir`) of their files.
async fn open(State(app): State<Arc<App>>, Query(q): Query<PathQ>) -> Result<Response, ApiError> {
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
                let pak = open_pak(&file)?;
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
                j
            }
            "utoc" => {
                let c = pakrat_iostore::Container::open(&file, &pakrat_codec::KeyRing::new())
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
fn zen_packages_cost(c: &pakrat_iostore::Container) -> Result<u64, ApiError> {
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
const MAX_FOUND: usize = 1000;

/// A directory level, or with `find` every path containing it (case
/// ignored, at most [`MAX_FOUND`]).
fn listing(files: &[(String, u64)], dir: &str, find: &str) -> Json {
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
fn dir_level(files: &[(String, u64)], dir: &str) -> Json {
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
const JSON_ROW: u64 = 1024;

fn package_json(app: &Arc<App>, file: &Path) -> Result<Json, ApiError> {
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

fn umod_json(app: &Arc<App>, file: &Path) -> Result<Json, ApiError> {
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

#[derive(Deserialize)]
struct ObjQ {
    path: String,
    export: usize,
    #[serde(default)]
    n: usize,
}

fn mime_of(name: &str) -> &'static str {
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
type ObjectFiles = (Json, Vec<(String, Blob)>, Option<ApiError>);

/// Decoded object files (from the CLI's exporters), cached.
fn object_files(app: &App, file: &Path, export: usize) -> Result<ObjectFiles, ApiError> {
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
    let props = match pakrat_classic::props::read_object(&p, export) {
        Ok(o) => json!({"properties": pakrat_classic::view::properties_json(&p, &o.properties)}),
        Err(err) => json!({"properties_error": err.to_string()}),
    };
    let opts = ExportOptions {
        kinds: Vec::new(),
        all_mips: true,
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
    });
    if let (Some(a), Json::Object(b)) = (j.as_object_mut(), props) {
        a.extend(b);
    }
    Ok((j, out, refused))
}

/// `GET /api/object?path=FILE&export=I`: an export's class, flags, decoded
/// properties and the files its exporter makes.
async fn object(State(app): State<Arc<App>>, Query(q): Query<ObjQ>) -> Result<Response, ApiError> {
    blocking(move || {
        let file = app.resolve(&q.path)?;
        let (j, _, _) = object_files(&app, &file, q.export)?;
        Ok(axum::Json(j).into_response())
    })
    .await
}

/// `GET /api/data?path=FILE&export=I&n=K`: the K-th file an export's
/// exporter makes (PNG, WAV/OGG as stored, tracker module, `.uc` text).
async fn data(State(app): State<Arc<App>>, Query(q): Query<ObjQ>) -> Result<Response, ApiError> {
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
fn safe_file_name(name: &str) -> String {
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

fn bytes_response(bytes: Vec<u8>, mime: &'static str, name: &str) -> Response {
    let safe = safe_file_name(name);
    let mut r = Response::new(Body::from(bytes));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    if let Ok(v) = HeaderValue::from_str(&format!("inline; filename=\"{safe}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

#[derive(Deserialize)]
struct MemberQ {
    path: String,
    name: String,
}

/// `GET /api/member?path=FILE&name=M`: a UMOD member, a `.pak` entry or
/// a file of an IoStore container, as stored (decompressed), for download:
/// streamed block by block, holding [`pak_stream_cost`] /
/// [`chunk_stream_cost`] bytes whatever the file's size.
async fn member(
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
                let pak = open_pak(&file)?;
                let e = find_pak_entry(&pak, &q.name).ok_or_else(|| no_member(&q.path, &q.name))?;
                let _held = app
                    .budget
                    .reserve(pak_stream_cost(e), "decoding this entry")?;
                s.head(e.uncompressed_size, mime, &q.name);
                pak.read_to(e, &mut |b| s.data(b).map_err(stopped))
                    .map_err(damaged)?;
            }
            "utoc" => {
                let (c, i) = utoc_chunk(&file, &q.name)?;
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

fn no_member(path: &str, name: &str) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, format!("{path}: no member {name}"))
}

/// The client left: the answer is over (its status is never sent).
fn gone(g: stream::Gone) -> ApiError {
    ApiError(StatusCode::REQUEST_TIMEOUT, g.to_string())
}

/// A stopped stream as a reader's error (ends its decoding loop).
fn stopped(g: stream::Gone) -> pakrat_io::Error {
    pakrat_io::Error::Other(g.to_string())
}

fn open_pak(file: &Path) -> Result<pakrat_pak::Pak, ApiError> {
    pakrat_pak::Pak::open(file, &pakrat_codec::KeyRing::new()).map_err(damaged)
}

fn find_pak_entry<'a>(
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

/// Every package file under the root (by content), relative paths.
fn packages_under(app: &App) -> Vec<PathBuf> {
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
fn dependents(app: &App) -> Dependents {
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
fn graph_of(app: &App, file: &Path) -> Result<pakrat_system::deps::DepGraph, ApiError> {
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
async fn deps(State(app): State<Arc<App>>, Query(q): Query<PathQ>) -> Result<Response, ApiError> {
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

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The graph drawn in layers (depth from the root), missing packages in
/// red with a dashed border.
pub fn graph_svg(g: &pakrat_system::deps::DepGraph) -> String {
    let n = g.nodes.len();
    let mut depth = vec![usize::MAX; n];
    let mut queue = VecDeque::new();
    if n > 0 {
        depth[g.root] = 0;
        queue.push_back(g.root);
    }
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &g.edges {
        if a < n && b < n {
            out_edges[a].push(b);
        }
    }
    while let Some(a) = queue.pop_front() {
        for &b in &out_edges[a] {
            if depth[b] == usize::MAX {
                depth[b] = depth[a] + 1;
                queue.push_back(b);
            }
        }
    }
    let mut layers: Vec<Vec<usize>> = Vec::new();
    for (i, &d) in depth.iter().enumerate() {
        let d = if d == usize::MAX { 0 } else { d };
        if layers.len() <= d {
            layers.resize(d + 1, Vec::new());
        }
        layers[d].push(i);
    }
    let (bw, bh, gx, gy) = (150.0, 26.0, 16.0, 60.0);
    let width = layers.iter().map(Vec::len).max().unwrap_or(1) as f64 * (bw + gx) + gx;
    let height = layers.len() as f64 * (bh + gy) + gy / 2.0;
    let mut pos = vec![(0.0, 0.0); n];
    for (d, layer) in layers.iter().enumerate() {
        let row = layer.len() as f64 * (bw + gx) - gx;
        let x0 = (width - row) / 2.0;
        for (k, &i) in layer.iter().enumerate() {
            pos[i] = (x0 + k as f64 * (bw + gx), gy / 2.0 + d as f64 * (bh + gy));
        }
    }
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\
         <rect width=\"100%\" height=\"100%\" fill=\"#16181c\"/>"
    );
    for &(a, b) in &g.edges {
        if a >= n || b >= n {
            continue;
        }
        let (x1, y1) = (pos[a].0 + bw / 2.0, pos[a].1 + bh);
        let (x2, y2) = (pos[b].0 + bw / 2.0, pos[b].1);
        svg.push_str(&format!(
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"#556\" stroke-width=\"1\"/>"
        ));
    }
    for (i, node) in g.nodes.iter().enumerate() {
        let (x, y) = pos[i];
        let missing = node.file.is_none();
        let (fill, stroke, dash) = if missing {
            ("#3a1c1c", "#e06060", " stroke-dasharray=\"4 3\"")
        } else if i == g.root {
            ("#3a3020", "#e0a030", "")
        } else {
            ("#1e2530", "#6a8ab0", "")
        };
        let label: String = node.name.chars().take(20).collect();
        svg.push_str(&format!(
            "<g class=\"{}\"><title>{}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bw}\" height=\"{bh}\" rx=\"4\" \
             fill=\"{fill}\" stroke=\"{stroke}\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d8dbe0\" \
             text-anchor=\"middle\">{}</text></g>",
            if missing { "missing" } else { "found" },
            xml(&format!("{}{}", node.name, if missing { " (missing)" } else { "" })),
            x + bw / 2.0,
            y + bh / 2.0 + 4.0,
            xml(&label)
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// `GET /api/deps.svg?path=PKG`: the dependency graph as a picture.
async fn deps_svg(
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

/// `POST /api/extract` body.
#[derive(Deserialize)]
struct ExtractQ {
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
async fn extract(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let raw = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
        Err(_) => {
            return Err(ApiError(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {BODY_TIMEOUT:?}"),
            ))
        }
        Ok(Err(_)) => {
            return Err(ApiError(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {MAX_BODY} bytes, or was cut"),
            ))
        }
        Ok(Ok(b)) => b,
    };
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

fn extract_now(app: &Arc<App>, q: &ExtractQ) -> Result<Response, ApiError> {
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
            let pak = open_pak(&file)?;
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
            let c = pakrat_iostore::Container::open(&file, &pakrat_codec::KeyRing::new())
                .map_err(damaged)?;
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
fn prepare_output<'a>(
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

/// The colours of a P8 texture's palette (from its `Palette` property, an
/// export of the same package), as `#rrggbbaa` strings.
fn palette_of(p: &pakrat_classic::Package<'_>, i: usize) -> Option<Vec<String>> {
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

/// The container and the entry behind an indexed file of an IoStore
/// container (a zen package as stored, a bulk data file…).
fn utoc_chunk(file: &Path, name: &str) -> Result<(pakrat_iostore::Container, usize), ApiError> {
    let c =
        pakrat_iostore::Container::open(file, &pakrat_codec::KeyRing::new()).map_err(damaged)?;
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

#[cfg(all(test, target_os = "linux"))]
mod shrink_tests {
    use super::*;

    /// A file cut short while a request reads it: that request gets a 409
    /// naming the file, and the next request is served as usual. Run in a
    /// child process (this test binary again), so that a SIGBUS fails the
    /// test instead of killing the harness.
    #[test]
    fn request_on_a_shrinking_file_is_a_409_and_the_server_goes_on() {
        const CHILD: &str = "PAKRAT_VIEW_SHRINK_CHILD";
        if std::env::var_os(CHILD).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "shrink_tests::request_on_a_shrinking_file_is_a_409_and_the_server_goes_on",
                    "--nocapture",
                ])
                .env(CHILD, "1")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{:?}: {text}", out.status);
            assert!(text.contains("child done"), "{text}");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("shrinks.bin");
        std::fs::write(&p, vec![3u8; 1 << 20]).unwrap();
        let sum_of = |p: PathBuf, cut: Option<u64>| {
            move || -> Result<u64, ApiError> {
                let src = pakrat_io::Source::open(&p).map_err(damaged)?;
                if let Some(n) = cut {
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&p)
                        .unwrap()
                        .set_len(n)
                        .unwrap();
                }
                Ok(src
                    .iter()
                    .map(|b| u64::from(unsafe { std::ptr::read_volatile(b) }))
                    .sum())
            }
        };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let e = rt
            .block_on(blocking(sum_of(p.clone(), Some(4096))))
            .unwrap_err();
        assert_eq!(e.0, StatusCode::CONFLICT);
        assert!(e.1.contains("shrinks.bin"), "{}", e.1);
        assert!(e.1.contains("changed size while it was read"), "{}", e.1);
        // Serving goes on.
        std::fs::write(&p, vec![3u8; 8192]).unwrap();
        let ok = rt.block_on(blocking(sum_of(p.clone(), None))).unwrap();
        assert_eq!(ok, 3 * 8192);
        // A streamed download: the bytes decoded after the cut (zeros) are
        // never sent; the answer is the 409 instead of a body of zeros.
        let p2 = p.clone();
        let e = rt
            .block_on(crate::stream::stream(move |s| {
                let src = pakrat_io::Source::open(&p2).map_err(damaged)?;
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&p2)
                    .unwrap()
                    .set_len(0)
                    .unwrap();
                let copy: Vec<u8> = src
                    .iter()
                    .map(|b| unsafe { std::ptr::read_volatile(b) })
                    .collect();
                s.head(copy.len() as u64, "application/octet-stream", "x");
                let _ = s.data(&copy);
                Ok(())
            }))
            .unwrap_err();
        assert_eq!(e.0, StatusCode::CONFLICT);
        assert!(e.1.contains("changed size while it was read"), "{}", e.1);
        println!("child done");
    }
}
