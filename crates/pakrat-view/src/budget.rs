//! The viewer's memory budget: every request that decodes or builds
//! something sizeable reserves the bytes it will hold before it starts, from
//! one server-wide pool. A request that alone would pass the per-request
//! share is refused (413) with what it needs; one that would overflow the
//! pool waits for others to finish, and is refused (503) after a while.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;

use crate::ApiError;

/// Default bytes all requests together may hold (`PAKRAT_VIEW_MEMORY_MIB`
/// changes it); one request may hold half of it.
pub const DEFAULT_MEMORY: u64 = 512 << 20;

/// How long a request waits for others to free the pool before a 503.
const WAIT: Duration = Duration::from_secs(20);

/// The pool.
#[derive(Debug)]
pub struct Budget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// Bytes held by one request; given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<Budget>,
    bytes: u64,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(self.bytes);
        self.budget.freed.notify_all();
    }
}

/// Whole MiB, rounded up, for messages.
pub fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

impl Budget {
    /// A pool of `total` bytes.
    pub fn new(total: u64) -> Arc<Budget> {
        Arc::new(Budget {
            total,
            used: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// The pool size.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The most one request may hold.
    pub fn per_request(&self) -> u64 {
        self.total / 2
    }

    /// Bytes held now.
    pub fn used(&self) -> u64 {
        *self.used.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hold `bytes` for `what` (a phrase: "decoding this texture"). Blocks
    /// (a blocking thread only) while the pool is full.
    pub fn reserve(self: &Arc<Self>, bytes: u64, what: &str) -> Result<Reservation, ApiError> {
        if bytes > self.per_request() {
            return Err(ApiError(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{what} needs {} MiB of memory; the viewer allows {} MiB per request \
                     (PAKRAT_VIEW_MEMORY_MIB sets its total, {} MiB); the command line \
                     streams it instead",
                    mib(bytes),
                    mib(self.per_request()),
                    mib(self.total)
                ),
            ));
        }
        let deadline = Instant::now() + WAIT;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + bytes > self.total {
            let now = Instant::now();
            if now >= deadline {
                return Err(ApiError(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "{what} needs {} MiB of memory and other requests hold {} of the \
                         viewer's {} MiB; try again when they finish",
                        mib(bytes),
                        mib(*used),
                        mib(self.total)
                    ),
                ));
            }
            used = self
                .freed
                .wait_timeout(used, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *used += bytes;
        Ok(Reservation {
            budget: self.clone(),
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_the_share_is_413_and_bytes_come_back() {
        let b = Budget::new(100 << 20);
        let e = b.reserve(51 << 20, "this").unwrap_err();
        assert_eq!(e.0, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(e.1.contains("needs 51 MiB"), "{}", e.1);
        let a = b.reserve(50 << 20, "a").unwrap();
        let c = b.reserve(50 << 20, "c").unwrap();
        assert_eq!(b.used(), 100 << 20);
        drop(a);
        drop(c);
        assert_eq!(b.used(), 0);
    }

    #[test]
    fn a_full_pool_waits_for_a_release() {
        let b = Budget::new(100 << 20);
        let a = b.reserve(50 << 20, "a").unwrap();
        let _c = b.reserve(50 << 20, "c").unwrap();
        let b2 = b.clone();
        let t = std::thread::spawn(move || b2.reserve(10 << 20, "d").map(|_| ()));
        std::thread::sleep(Duration::from_millis(100));
        drop(a);
        assert!(t.join().unwrap().is_ok());
    }
}
