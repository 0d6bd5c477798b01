//! `pakrat view`: start the local viewer (crate `pakrat-view`), print its
//! URL and open it in the browser through a page readable by the user only,
//! so that the token is on no command line.

use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::args::ViewArgs;

/// The page handed to the browser: it forwards to the viewer's URL (with
/// its token). Lives in a fresh folder readable by this user only (0700,
/// the page 0600), removed when the viewer stops.
struct Launcher {
    dir: tempfile::TempDir,
    page: std::path::PathBuf,
}

/// Escape `s` for an HTML attribute or text.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Write the launcher page for `url`.
fn launcher(url: &str) -> std::io::Result<Launcher> {
    use std::io::Write;
    let dir = tempfile::Builder::new().prefix("pakrat-view-").tempdir()?;
    let page = dir.path().join("open.html");
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
        o.mode(0o600);
    }
    let u = html(url);
    let mut f = o.open(&page)?;
    write!(
        f,
        "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta http-equiv=\"refresh\" content=\"0;url={u}\">\n<title>pakrat view</title>\n\
         <p><a href=\"{u}\">Open pakrat view</a></p>\n"
    )?;
    f.sync_all()?;
    Ok(Launcher { dir, page })
}

/// Open the viewer in the desktop's browser without its token on any
/// command line (`/proc/PID/cmdline` is readable by every local user): the
/// opener gets the path of the [`launcher`] page, never the URL. Failures
/// are ignored (the URL is printed anyway).
fn open_browser(url: &str) -> Option<Launcher> {
    let l = launcher(url).ok()?;
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
        .arg(&l.page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    Some(l)
}

/// `pakrat view PATH [--port N] [--no-open] [--aes-key KEY] [--keys FILE]
/// [--usmap M] [--ue-version V]`.
pub fn view(a: &ViewArgs) -> Result<ExitCode> {
    let opts = pakrat_view::Options {
        path: a.path.clone(),
        port: a.port,
        token: None,
        keys: crate::cmd::common::keyring(&a.keys)?,
        usmap: a.usmap.clone(),
        ue_version: crate::cmd::common::engine(a.ue_version.as_deref())?,
    };
    // The launcher page lives until the viewer stops.
    let mut launched = None;
    pakrat_view::serve(&opts, |r| {
        if a.json {
            // One line, printed once the server accepts connections.
            launched = if a.no_open {
                launcher(&r.url).ok()
            } else {
                open_browser(&r.url)
            };
            let line = serde_json::json!({
                "kind": "folder",
                "url": r.url,
                "address": r.addr.to_string(),
                "path": a.path.display().to_string(),
                "launcher": launched.as_ref().map(|l| l.page.display().to_string()),
            });
            println!("{line}");
            eprintln!(
                "pakrat view: serving {} on {} (127.0.0.1 only; Ctrl-C stops)",
                a.path.display(),
                r.addr
            );
            use std::io::Write;
            let _ = std::io::stdout().flush();
            return;
        }
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
            launched = open_browser(&r.url);
        }
    })
    .with_context(|| format!("pakrat view {}", a.path.display()))?;
    if let Some(l) = launched {
        let _ = l.dir.close();
    }
    Ok(ExitCode::SUCCESS)
}
