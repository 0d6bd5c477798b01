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

/// The format the running command works on (`"umod"`, `"package"`,
/// `"legacy"`, `"pak"`, `"iostore"`, `"uz"`), set once by the dispatch in
/// `main`; every JSON object a command prints carries it as `kind`
/// (docs/json.md).
static KIND: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Record the format of the command's input (first call wins).
pub fn set_kind(kind: &'static str) {
    let _ = KIND.set(kind);
}

/// The format recorded by [`set_kind`], if any.
pub fn kind() -> Option<&'static str> {
    KIND.get().copied()
}

/// The input file of the command, set with its kind (see [`set_input`]).
static INPUT: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Record the file the command reads (first call wins): an error object
/// names it when the error itself names no file.
pub fn set_input(path: &std::path::Path) {
    let _ = INPUT.set(path.display().to_string());
}

/// `v` with `"kind"` first, for a value that serializes as a map.
#[derive(Serialize)]
struct Kinded<'a, T: ?Sized> {
    kind: &'static str,
    #[serde(flatten)]
    rest: &'a T,
}

/// Pretty JSON text of `v`: an object gets the `kind` of [`set_kind`] as
/// its first key (unless it has one); anything else prints as it is.
pub fn json_text<T: Serialize + ?Sized>(v: &T) -> Result<String> {
    if let Some(kind) = kind() {
        // Flattening fails for a value that is not a map: print it plain.
        if let Ok(s) = serde_json::to_string_pretty(&Kinded { kind, rest: v }) {
            if !has_two_kinds(&s) {
                return Ok(s);
            }
        }
    }
    Ok(serde_json::to_string_pretty(v)?)
}

/// A flattened map that had a `kind` of its own would print the key twice.
fn has_two_kinds(s: &str) -> bool {
    s.matches("\n  \"kind\": ").count() > 1
}

/// Pretty JSON and a line end on `w` (objects carry `kind`, [`json_text`]).
pub fn write_json<T: Serialize + ?Sized>(w: &mut dyn Write, v: &T) -> Result<()> {
    writeln!(w, "{}", json_text(v)?)?;
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
/// the file (the one the error names, else the command's input) and the
/// byte offset when the error names one, and the exit code.
pub fn error_json(e: &anyhow::Error, text: &str, exit_code: u8) -> serde_json::Value {
    let io = e.chain().find_map(|c| c.downcast_ref::<pakrat_io::Error>());
    let file = io.and_then(|x| match x {
        pakrat_io::Error::InFile { path, .. } | pakrat_io::Error::Io { path, .. } => {
            Some(path.display().to_string())
        }
        _ => None,
    });
    let file = file.or_else(|| INPUT.get().cloned());
    serde_json::json!({
        "kind": kind(),
        "error": text,
        "file": file,
        "offset": io.and_then(|x| x.offset()),
        "exit_code": exit_code,
    })
}
