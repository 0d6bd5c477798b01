//! Helpers shared by the fuzz targets.
//!
//! Every target feeds hostile bytes to one parser and lets libFuzzer catch
//! panics, aborts, timeouts and huge allocations (`-rss_limit_mb`,
//! `-malloc_limit_mb`). On top of that each error must say something: an
//! empty or near-empty message is treated as a finding (it would leave a user
//! with nothing to act on).

use std::fmt::Display;

/// Panic when an error's text is too short to be useful.
pub fn clear<E: Display>(e: E) {
    let text = e.to_string();
    assert!(
        text.trim().len() >= 8,
        "unclear error message {text:?} (fewer than 8 characters)"
    );
}

/// Check a result's error (if any) with [`clear`]; return the value.
pub fn ok<T, E: Display>(r: Result<T, E>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            clear(e);
            None
        }
    }
}

/// Split a little-endian u32 off the front (0 when too short) and bound it
/// by `max`, for targets whose input starts with an output size.
pub fn take_len(data: &[u8], max: usize) -> (usize, &[u8]) {
    if data.len() < 4 {
        return (0, &[]);
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
    (n % (max + 1), &data[4..])
}

/// Largest block output the block targets ask for (IoStore blocks are at
/// most 16 MiB - 1 by their 24-bit size field; real ones 64 KiB).
pub const MAX_BLOCK_OUT: usize = 1 << 18;
