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

/// The error and its causes, skipping a cause whose text the message
/// already contains (library errors embed their source in their own text,
/// so anyhow's `{:#}` would print it twice).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

/// The JSON object a failing command prints with `--json`: the message,
/// the file and byte offset when the error names them, and the exit code.
pub fn error_json(e: &anyhow::Error, text: &str, exit_code: u8) -> serde_json::Value {
    let io = e.chain().find_map(|c| c.downcast_ref::<pakrat_io::Error>());
    let file = io.and_then(|x| match x {
        pakrat_io::Error::InFile { path, .. } | pakrat_io::Error::Io { path, .. } => {
            Some(path.display().to_string())
        }
        _ => None,
    });
    serde_json::json!({
        "error": text,
        "file": file,
        "offset": io.and_then(|x| x.offset()),
        "exit_code": exit_code,
    })
}
