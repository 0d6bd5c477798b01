//! Printing helpers shared by every command.

use anyhow::Result;
use serde::Serialize;

/// Print a value as pretty JSON on stdout.
#[allow(dead_code)]
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<()> {
    let s = serde_json::to_string_pretty(v)?;
    println!("{s}");
    Ok(())
}

/// Format a byte count for people (exact bytes stay in --json).
#[allow(dead_code)]
pub fn human_size(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
