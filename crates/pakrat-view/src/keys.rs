//! AES keys for encrypted `.pak` files and IoStore containers: the ones
//! given on the command line (`--aes-key`, `--keys`) and the ones typed
//! into the page (`POST /api/keys`), kept in the server's memory for as
//! long as it runs. A key is never logged, never put in a URL and never
//! repeated in an answer; errors say what is wrong with it, not what it is.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use pakrat_codec::{AesKey, KeyRing};
use serde::Deserialize;
use serde_json::json;

use crate::member::open_pak_with;
use crate::*;

impl App {
    /// The keys known now: the command line's and the page's.
    pub(crate) fn keys(&self) -> KeyRing {
        self.keys.lock().map(|k| k.ring.clone()).unwrap_or_default()
    }

    /// Start with these keys (the command line's); forgetting the page's
    /// keys goes back to them.
    pub fn set_keys(&self, ring: KeyRing) {
        if let Ok(mut k) = self.keys.lock() {
            k.given = ring.clone();
            k.ring = ring;
            k.typed = 0;
        }
    }
}

/// The keys of a server.
#[derive(Default)]
pub(crate) struct Keys {
    /// From the command line.
    given: KeyRing,
    /// `given` and the keys typed into the page.
    ring: KeyRing,
    /// How many keys (or keys JSONs) the page added.
    typed: usize,
}

/// `POST /api/keys` body.
#[derive(Deserialize)]
struct KeyQ {
    /// One AES-256 key (64 hex digits, or base64), or a keys JSON
    /// (`{"GUID": "key"}` or UnrealBuildTool's Crypto.json).
    key: String,
    /// A `.pak` or `.utoc` (relative to the root) to try the key on first:
    /// a key that does not open it is refused and not kept.
    #[serde(default)]
    path: String,
}

/// Parse what the page sent: a key or a keys JSON.
fn parse_keys(text: &str) -> Result<KeyRing, ApiError> {
    let mut ring = KeyRing::new();
    let t = text.trim();
    if t.is_empty() {
        return Err(bad("no key given"));
    }
    if t.starts_with('{') {
        ring.add_json(t)
            .map_err(|e| bad(format!("the keys JSON: {e}")))?;
        if ring.is_empty() {
            return Err(bad("the keys JSON holds no key"));
        }
        return Ok(ring);
    }
    ring.add(AesKey::parse(t).map_err(|e| bad(format!("the key: {e}")))?);
    Ok(ring)
}

/// Open `file` (a pak or container) with `ring` alone; whether its index
/// was encrypted (so that opening it checked the key).
fn try_on(app: &App, rel: &str, ring: &KeyRing) -> Result<bool, ApiError> {
    let file = app.resolve(rel)?;
    match sniff(&file) {
        "pak" => {
            let p = open_pak_with(&file, ring)?;
            Ok(p.footer.encrypted_index)
        }
        "utoc" => {
            let c = pakrat_iostore::Container::open(&file, ring).map_err(damaged)?;
            if let Some(e) = c.directory_error() {
                return Err(damaged(format!("{rel}: {e}")));
            }
            let encrypted = c.toc().header.has(pakrat_iostore::toc::flags::ENCRYPTED);
            if encrypted && c.key().is_none() {
                return Err(damaged(format!(
                    "{rel}: the key does not decrypt this container"
                )));
            }
            Ok(encrypted)
        }
        _ => Err(bad(format!("{rel}: not a .pak or IoStore container"))),
    }
}

/// `POST /api/keys` `{key, path?}`: add a key (or a keys JSON) for this
/// server's lifetime. With `path`, the key is first tried on that file:
/// when it does not open it the answer is a 422 with the reader's message
/// ("wrong AES key…") and the key is not kept. The answer:
/// `{keys, checked}`: how many keys (or keys JSONs) the page added, and whether the file's
/// index was encrypted (so that the key was checked against it).
pub(crate) async fn add_key(State(app): State<Arc<App>>, body: Body) -> Result<Response, ApiError> {
    let raw = read_body(body).await?;
    // serde's message could quote the key: not repeated.
    let q: KeyQ = serde_json::from_slice(&raw)
        .map_err(|_| bad("the request body must be JSON {\"key\": \"…\", \"path\": \"…\"}"))?;
    drop(raw);
    blocking(move || {
        let ring = parse_keys(&q.key)?;
        let checked = if q.path.is_empty() {
            false
        } else {
            try_on(&app, &q.path, &ring)?
        };
        let mut k = app
            .keys
            .lock()
            .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "keys unusable".into()))?;
        merge(&mut k.ring, &q.key);
        k.typed += 1;
        Ok(axum::Json(json!({"keys": k.typed, "checked": checked})).into_response())
    })
    .await
}

/// Add the keys of `text` (already parsed once without error) to `ring`.
fn merge(ring: &mut KeyRing, text: &str) {
    let t = text.trim();
    if t.starts_with('{') {
        let _ = ring.add_json(t);
    } else if let Ok(k) = AesKey::parse(t) {
        ring.add(k);
    }
}

/// `DELETE /api/keys`: forget the keys typed into the page (the command
/// line's stay).
pub(crate) async fn forget_keys(State(app): State<Arc<App>>) -> Result<Response, ApiError> {
    let mut k = app
        .keys
        .lock()
        .map_err(|_| ApiError(StatusCode::INTERNAL_SERVER_ERROR, "keys unusable".into()))?;
    k.ring = k.given.clone();
    k.typed = 0;
    drop(k);
    app.forget_opened();
    Ok(axum::Json(json!({"keys": 0})).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_never_repeat_the_key() {
        for k in [
            "0123456789abcdef0123",
            "not a key at all, secret-ish",
            "{\"00000000000000000000000000000000\": \"c2VjcmV0\"}",
            "{ not json secret",
        ] {
            let e = parse_keys(k).expect_err(k);
            assert_eq!(e.0, StatusCode::BAD_REQUEST);
            assert!(!e.1.contains(k.trim()), "{}", e.1);
            assert!(!e.1.contains("secret"), "{}", e.1);
            assert!(!e.1.contains("c2VjcmV0"), "{}", e.1);
        }
        let hex = "435545345061727365466978747572654145534b657930313233343536373839";
        assert!(!parse_keys(hex).unwrap().is_empty());
    }
}
