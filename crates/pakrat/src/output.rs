//! Printing helpers shared by every command.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

/// Run a handler with a buffered, locked stdout. A closed pipe
/// (`pakrat scan … | head`) ends the command quietly instead of failing.
/// (On Unix `main` restores the default SIGPIPE action, which ends the
/// process first; this covers the other platforms.)
pub fn with_stdout(f: impl FnOnce(&mut dyn Write) -> Result<ExitCode>) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let res = f(&mut w).and_then(|c| {
        w.flush()?;
        Ok(c)
    });
    match res {
        Err(e) if is_broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        r => r,
    }
}

/// True if `e` (or a cause) is a write to a pipe whose reader went away.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Pretty JSON and a line end on `w`.
pub fn write_json<T: Serialize + ?Sized>(w: &mut dyn Write, v: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *w, v)?;
    writeln!(w)?;
    Ok(())
}

/// Print a value as pretty JSON on stdout (a closed pipe is not an error).
pub fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<()> {
    with_stdout(|w| write_json(w, v).map(|()| ExitCode::SUCCESS)).map(|_| ())
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
