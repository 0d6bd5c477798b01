//! The socket side: the token and Host guard, the accept loop with its
//! limits, and the page.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;

use crate::*;

pub(crate) fn random_token() -> String {
    let mut b = [0u8; 16];
    // A failing system RNG leaves zeros; the server then refuses to start.
    let _ = getrandom::fill(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Every request: the right `Host` (403) and the token (401).
pub(crate) async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
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

pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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
    // `--usmap` is read relative to the working folder, once, up front.
    let usmap = match &opts.usmap {
        Some(u) if !u.is_file() => {
            return Err(std::io::Error::other(format!(
                "--usmap {}: not a file",
                u.display()
            )))
        }
        Some(u) => Some(std::fs::canonicalize(u)?),
        None => None,
    };
    let token = opts.token.clone().unwrap_or_else(random_token);
    let app = App::build(root, token, usmap, opts.ue_version)?;
    app.set_keys(opts.keys.clone());
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
pub(crate) async fn accept_loop(listener: tokio::net::TcpListener, router: Router) {
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
pub(crate) fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(crate) async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

/// The 3D view's script (`mesh3d.js`: a small WebGL renderer of `.glb`
/// files, no network use), loaded by the page when a mesh is opened.
pub(crate) async fn mesh3d_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        MESH3D_JS,
    )
        .into_response()
}
