//! Streamed answers: a blocking thread decodes a file block by block and
//! hands pieces of at most [`PIECE`] bytes through a short queue to the
//! response body, so a download holds a few blocks, never the whole file.
//!
//! The answer's head waits for the first piece: a file that fails before
//! any byte is decoded gets an ordinary error answer (422 and the reader's
//! message); one that fails later ends its body early (the declared
//! Content-Length tells the client it is short).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::sync::mpsc;

use crate::ApiError;

/// Largest piece handed from the decoding thread to the socket.
pub const PIECE: usize = 256 << 10;

/// Pieces queued between the decoding thread and the socket.
pub const QUEUED: usize = 8;

/// Memory a stream holds besides its decoder: the queue and one piece in
/// the socket's buffers.
pub const QUEUE_BYTES: u64 = ((QUEUED + 2) * PIECE) as u64;

/// A client that reads nothing for this long loses its download (and the
/// memory and thread it holds).
const STALL: Duration = Duration::from_secs(60);

enum Msg {
    Head {
        len: u64,
        mime: &'static str,
        name: String,
    },
    Data(Bytes),
    Fail(ApiError),
}

/// The client went away (or stalled); decoding stops.
#[derive(Debug)]
pub struct Gone;

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client stopped reading the download")
    }
}

/// The decoding thread's end of a stream.
pub struct Sender {
    tx: mpsc::Sender<Msg>,
    rt: tokio::runtime::Handle,
    head: Option<Msg>,
    /// `pakrat_io::mapguard::faults()` when the stream began.
    faults: u64,
    /// Set when an input shrank under the decoder (a caught SIGBUS): the
    /// bytes decoded since may be zeros, so none of them is sent.
    changed: Option<String>,
}

impl Sender {
    fn send(&self, m: Msg) -> Result<(), Gone> {
        match self
            .rt
            .block_on(tokio::time::timeout(STALL, self.tx.send(m)))
        {
            Ok(Ok(())) => Ok(()),
            _ => Err(Gone),
        }
    }

    /// Declare the answer: `len` bytes of `mime`, named `name`. Sent with
    /// the first piece (or by [`Sender::finish`]).
    pub fn head(&mut self, len: u64, mime: &'static str, name: &str) {
        self.head = Some(Msg::Head {
            len,
            mime,
            name: name.to_string(),
        });
    }

    fn flush_head(&mut self) -> Result<(), Gone> {
        match self.head.take() {
            Some(h) => self.send(h),
            None => Ok(()),
        }
    }

    /// Hand `bytes` on, in pieces; waits while the queue is full.
    pub fn data(&mut self, bytes: &[u8]) -> Result<(), Gone> {
        // A file that shrank while mapped reads as zeros past its new end
        // (pakrat_io::mapguard); never hand those on. Process-wide, so a
        // fault under another request stops this one too: it fails safe.
        if let Err(e) = pakrat_io::mapguard::changed_since(self.faults) {
            self.changed = Some(e.to_string());
            return Err(Gone);
        }
        self.flush_head()?;
        for piece in bytes.chunks(PIECE) {
            self.send(Msg::Data(Bytes::copy_from_slice(piece)))?;
        }
        Ok(())
    }

    /// The end (sends the head of an empty answer).
    pub fn finish(mut self) -> Result<(), Gone> {
        self.flush_head()
    }
}

struct ChannelBody {
    rx: mpsc::Receiver<Msg>,
    len: u64,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(Msg::Data(b))) => Poll::Ready(Some(Ok(Frame::data(b)))),
            Poll::Ready(Some(Msg::Fail(e))) => Poll::Ready(Some(Err(std::io::Error::other(e.1)))),
            Poll::Ready(Some(Msg::Head { .. })) => Poll::Ready(Some(Err(std::io::Error::other(
                "a second answer head in one stream",
            )))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
    }
}

/// Run `job` on a blocking thread and answer with what it streams; an
/// error before its first piece is the answer, a panic a 500.
pub async fn stream(
    job: impl FnOnce(&mut Sender) -> Result<(), ApiError> + Send + 'static,
) -> Result<Response, ApiError> {
    let (tx, mut rx) = mpsc::channel(QUEUED);
    let mut s = Sender {
        tx,
        rt: tokio::runtime::Handle::current(),
        head: None,
        faults: pakrat_io::mapguard::faults(),
        changed: None,
    };
    let task = tokio::task::spawn_blocking(move || {
        let r = match pakrat_io::mapguard::watch(|| job(&mut s)) {
            Err(e) => Err(ApiError(StatusCode::CONFLICT, e.to_string())),
            Ok(_) if s.changed.is_some() => Err(ApiError(
                StatusCode::CONFLICT,
                s.changed.take().unwrap_or_default(),
            )),
            Ok(r) => r,
        };
        match r {
            Ok(()) => {
                let _ = s.finish();
            }
            Err(e) => {
                let _ = s.send(Msg::Fail(e));
            }
        }
    });
    match rx.recv().await {
        Some(Msg::Head { len, mime, name }) => {
            let mut r = Response::new(Body::new(ChannelBody { rx, len }));
            let h = r.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
            if let Ok(v) = HeaderValue::from_str(&format!(
                "inline; filename=\"{}\"",
                crate::object::safe_file_name(&name)
            )) {
                h.insert(header::CONTENT_DISPOSITION, v);
            }
            Ok(r)
        }
        Some(Msg::Fail(e)) => Err(e),
        Some(Msg::Data(_)) => Err(ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error: data before the answer's head".into(),
        )),
        None => {
            let why = match task.await {
                Err(e) => e.to_string(),
                Ok(()) => "the reader ended without an answer".into(),
            };
            Err(ApiError(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error while reading the file: {why}"),
            ))
        }
    }
}
