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
//! in memory up to [`PREVIEW_CACHE_BYTES`]. Meshes of every generation
//! come as one `.glb` built in memory by `pakrat-mesh` (`/api/mesh`,
//! `/api/umesh`), drawn by the page's WebGL renderer (`mesh3d.js`).
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
mod deps;
mod extract;
mod graph;
mod keys;
mod listing;
mod member;
mod mesh;
mod object;
mod paths;
mod server;
pub mod stream;
mod uasset;
mod umedia;
mod umesh;
mod uvalue;

pub use graph::graph_svg;
pub use member::{chunk_stream_cost, pak_stream_cost};
pub use object::export_cost;
pub use server::serve;
pub use uasset::{DECODE_FACTOR, OPENED_CACHE_BYTES};
pub use umedia::preview_cost;
pub use uvalue::{max_elements, MAX_ELEMENTS};

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::json;

/// The viewer page (HTML, CSS and script in one file, no network use).
const INDEX_HTML: &str = include_str!("ui.html");

/// The 3D view's renderer (plain WebGL, no network use), served as
/// `/mesh3d.js`.
const MESH3D_JS: &str = include_str!("mesh3d.js");

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
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A folder, or a file (its folder is served and the file selected).
    pub path: PathBuf,
    /// Port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// The access token (random when `None`).
    pub token: Option<String>,
    /// AES keys for encrypted `.pak` files and containers (`--aes-key`,
    /// `--keys`); the page can add more.
    pub keys: pakrat_codec::KeyRing,
    /// `.usmap` mappings for unversioned UE4/UE5 packages (`--usmap`);
    /// without it they are looked for near each package
    /// (`docs/view.md`).
    pub usmap: Option<PathBuf>,
    /// The engine release of legacy packages whose versions are all zero
    /// (`--ue-version`).
    pub ue_version: Option<pakrat_asset::legacy::Layout>,
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
    /// AES keys: the command line's and the page's.
    keys: Mutex<keys::Keys>,
    /// UE4/UE5 packages opened, mappings and global containers loaded.
    ue: Mutex<uasset::UeCache>,
    /// `--usmap`.
    usmap: Option<PathBuf>,
    /// `--ue-version`.
    ue_version: Option<pakrat_asset::legacy::Layout>,
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
        App::build(root, token, None, None)
    }

    /// [`App::new`] with `--usmap` and `--ue-version`.
    fn build(
        root: PathBuf,
        token: String,
        usmap: Option<PathBuf>,
        ue_version: Option<pakrat_asset::legacy::Layout>,
    ) -> std::io::Result<Arc<App>> {
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
            keys: Mutex::new(keys::Keys::default()),
            ue: Mutex::new(uasset::UeCache::default()),
            usmap,
            ue_version,
        }))
    }

    /// The token requests must carry.
    pub fn token(&self) -> &str {
        &self.token
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

/// The router (also used by tests without a socket).
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(server::index))
        .route("/api/ls", get(listing::ls))
        .route("/api/open", get(listing::open))
        .route("/api/object", get(object::object))
        .route("/api/data", get(object::data))
        .route("/api/member", get(member::member))
        .route("/api/asset", get(uasset::asset))
        .route("/api/uimage", get(umedia::image))
        .route("/api/uaudio", get(umedia::audio))
        .route("/api/udds", get(umedia::dds))
        .route("/api/mesh", get(mesh::mesh))
        .route("/api/umesh", get(umesh::umesh))
        .route("/mesh3d.js", get(server::mesh3d_js))
        .route("/api/deps", get(deps::deps))
        .route("/api/extract", post(extract::extract))
        .route("/api/deps.svg", get(deps::deps_svg))
        .route("/api/keys", post(keys::add_key).delete(keys::forget_keys))
        .layer(middleware::from_fn_with_state(app.clone(), server::guard))
        .with_state(app)
}

/// A POST body: at most [`MAX_BODY`] bytes, arrived within
/// [`BODY_TIMEOUT`] (408, 413 otherwise).
async fn read_body(body: axum::body::Body) -> Result<bytes::Bytes, ApiError> {
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
        Err(_) => Err(ApiError(
            StatusCode::REQUEST_TIMEOUT,
            format!("the request body did not arrive within {BODY_TIMEOUT:?}"),
        )),
        Ok(Err(_)) => Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {MAX_BODY} bytes, or was cut"),
        )),
        Ok(Ok(b)) => Ok(b),
    }
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
        Some(Format::Package) => "package",
        Some(Format::LegacyPackage) => "uasset",
        Some(Format::Uz) => "uz",
        Some(Format::Umod) => "umod",
        Some(Format::Pak) => "pak",
        Some(Format::IoStoreCas) => "ucas",
        Some(Format::Usmap) => "usmap",
        Some(Format::ContainerHeader) => "container-header",
        Some(Format::AssetRegistry) => "asset-registry",
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
