//! `pakrat view`: start the local viewer (crate `pakrat-view`) and print
//! its URL.

use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::args::ViewArgs;

/// Open `url` in the desktop's browser; failures are ignored (the URL is
/// printed anyway).
fn open_browser(url: &str) {
    let mut cmd = if cfg!(target_os = "windows") {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else {
        std::process::Command::new("xdg-open")
    };
    let _ = cmd
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// `pakrat view PATH [--port N] [--no-open]`.
pub fn view(a: &ViewArgs) -> Result<ExitCode> {
    let opts = pakrat_view::Options {
        path: a.path.clone(),
        port: a.port,
        token: None,
    };
    pakrat_view::serve(&opts, |r| {
        // The first line is the URL alone (scripts and tests read it).
        println!("{}", r.url);
        eprintln!(
            "pakrat view: serving {} on {} (127.0.0.1 only; Ctrl-C stops)",
            a.path.display(),
            r.addr
        );
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if !a.no_open {
            open_browser(&r.url);
        }
    })
    .with_context(|| format!("pakrat view {}", a.path.display()))?;
    Ok(ExitCode::SUCCESS)
}
