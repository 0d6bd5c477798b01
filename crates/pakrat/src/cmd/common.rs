//! Helpers the command handlers share: key rings and opening containers
//! and paks, the global container's script objects, `--ue-version`,
//! exit codes, progress bars, globs, refusing to overwrite, and error lines.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use pakrat_asset::legacy::Layout;
use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::Container;
use pakrat_pak::Pak;

use crate::args::KeyArgs;

/// Build the key ring from `--aes-key` and `--keys`.
pub fn keyring(k: &KeyArgs) -> Result<KeyRing> {
    let mut ring = KeyRing::new();
    for s in &k.aes_keys {
        ring.add(AesKey::parse(s).context("--aes-key")?);
    }
    if let Some(f) = &k.keys_file {
        let text = pakrat_io::read_text_capped(f, pakrat_io::caps::KEYS_FILE, "a keys file")
            .context("--keys")?;
        ring.add_json(&text)
            .with_context(|| format!("keys file {}", f.display()))?;
    }
    Ok(ring)
}

/// Open a container with the keys of a command.
pub fn open_container(path: &Path, k: &KeyArgs) -> Result<Container> {
    Ok(Container::open(path, &keyring(k)?)?)
}

/// Open a pak, decrypting with the keys given.
pub fn open_pak(path: &Path, k: &KeyArgs) -> Result<Pak> {
    Ok(Pak::open(path, &keyring(k)?)?)
}

/// The global container's script objects: from `explicit` (`--global`;
/// an error if it does not load), else from a `global.utoc` next to `file`
/// or one folder up (the CUE4Parse fixtures keep it there). Also returns a
/// note when none was found or it did not load.
pub fn global_script(
    file: &Path,
    explicit: Option<&Path>,
    keys: &KeyArgs,
) -> Result<(Option<pakrat_asset::zen::ScriptObjects>, Vec<String>)> {
    // Absolute, so that a bare `X.utoc` has a folder and a parent folder.
    let file = &std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let found = explicit.map(|g| g.to_path_buf()).or_else(|| {
        let dir = file.parent()?;
        [dir.join("global.utoc"), dir.parent()?.join("global.utoc")]
            .into_iter()
            .find(|g| g.is_file() && g.file_name() != file.file_name())
    });
    let mut notes = Vec::new();
    let script = match &found {
        Some(g) => match Container::open(g, &keyring(keys)?)
            .and_then(|gc| pakrat_asset::zen::load_script_objects(&gc))
        {
            Ok(s) => Some(s),
            Err(e) if explicit.is_some() => return Err(anyhow!("{}: {e}", g.display())),
            Err(e) => {
                notes.push(format!("{}: script objects not loaded: {e}", g.display()));
                None
            }
        },
        None => {
            notes.push(
                "no global.utoc next to the container: script objects not loaded, class names not resolved (use --global)"
                    .into(),
            );
            None
        }
    };
    Ok((script, notes))
}

/// `--ue-version X.Y` as a layout; an unknown release is an error.
pub fn engine(v: Option<&str>) -> Result<Option<Layout>> {
    match v {
        None => Ok(None),
        Some(s) => Layout::for_engine(s).map(Some).ok_or_else(|| {
            anyhow!("--ue-version {s:?}: not a known engine release (4.0 to 5.8, or 6.0)")
        }),
    }
}

/// A library error as one flat message (its Display already includes the
/// file and the cause; anyhow's `{:#}` would print the cause twice).
pub fn in_file(e: pakrat_io::Error, path: &Path) -> anyhow::Error {
    // Typed, so `--json` errors can name the file and offset; main prints
    // each cause once (`output::error_text`).
    anyhow::Error::new(e.in_file(path))
}

/// Parse a classic package read from `path`, its errors naming the file.
pub fn parse_package<'a>(
    path: &Path,
    src: &'a pakrat_io::Source,
) -> Result<pakrat_classic::Package<'a>> {
    pakrat_classic::Package::parse(src).map_err(|e| in_file(e, path))
}

/// The exit code of a command: success when `ok`, else 1 (some files or
/// checks failed; the errors were printed).
pub fn exit_code(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `items.par_iter().map(f).collect()`, but on this thread for a single
/// item: one small file should not pay for starting the thread pool.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    if items.len() <= 1 {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by `--quiet` (global): no progress bars, no per-file lines.
pub fn set_quiet(q: bool) {
    QUIET.store(q, std::sync::atomic::Ordering::Relaxed);
}

/// Whether `--quiet` was given.
pub fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// A progress bar over `total` bytes on stderr (see [`progress_bar`]).
pub fn progress(total: u64, quiet: bool, what: &str) -> Option<indicatif::ProgressBar> {
    progress_bar(
        total,
        quiet,
        &format!(
            "{{spinner}} {what} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {{eta}}"
        ),
    )
}

/// A progress bar over `total` items (`files`, `objects`, `packages`).
pub fn progress_count(
    total: u64,
    quiet: bool,
    what: &str,
    unit: &str,
) -> Option<indicatif::ProgressBar> {
    progress_bar(
        total,
        quiet,
        &format!("{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {unit} {{eta}}"),
    )
}

/// A progress bar on stderr, only when stderr is a terminal and neither
/// `quiet` nor `--quiet` is set; `PAKRAT_PROGRESS=always` draws it on a
/// stderr that is not a terminal too (one line per redraw; for tests and
/// logs).
fn progress_bar(total: u64, quiet: bool, template: &str) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if quiet || self::quiet() {
        return None;
    }
    let forced = std::env::var_os("PAKRAT_PROGRESS").is_some_and(|v| v == "always");
    if !forced && !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = if forced {
        indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::term_like(Box::new(LineTerm)),
        )
    } else {
        let pb = indicatif::ProgressBar::new(total);
        // The spinner moves while one big item is being worked on.
        pb.enable_steady_tick(std::time::Duration::from_millis(120));
        pb
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.tick();
    Some(pb)
}

/// Advances a count progress bar by one when dropped (one item done,
/// whatever its outcome).
pub struct Tick<'a>(pub &'a Option<indicatif::ProgressBar>);

impl Drop for Tick<'_> {
    fn drop(&mut self) {
        if let Some(b) = self.0 {
            b.inc(1);
        }
    }
}

/// A "terminal" that writes each drawn bar as a line on stderr.
#[derive(Debug)]
struct LineTerm;

impl indicatif::TermLike for LineTerm {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        use std::io::Write;
        writeln!(std::io::stderr(), "{s}")
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        use std::io::Write;
        if s.trim().is_empty() {
            return Ok(());
        }
        writeln!(std::io::stderr(), "{s}")
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Where `extract` writes the `names` it selected: the error of
/// [`nothing_matches`] when it selected none (before any folder is made),
/// else the output folder, refusing files that exist already unless
/// `--force` ([`refuse_existing`]).
pub fn extract_output<'a>(
    a: &crate::args::ExtractArgs,
    names: impl ExactSizeIterator<Item = &'a str>,
) -> Result<pakrat_io::fsutil::OutputDir> {
    if names.len() == 0 {
        return Err(nothing_matches(&a.file, "file", &a.globs));
    }
    let out = pakrat_io::fsutil::OutputDir::create(&a.output, a.force)?;
    refuse_existing(&out, names)?;
    Ok(out)
}

/// [`extract_output`], but a folder that does not exist yet is made as a
/// hidden folder beside it, filled with each file written in place, and
/// put in place at the end (`OutputDir::create_fresh`; the caller must call
/// `OutputDir::publish`).
pub fn extract_output_fresh<'a>(
    a: &crate::args::ExtractArgs,
    names: impl ExactSizeIterator<Item = &'a str>,
) -> Result<pakrat_io::fsutil::OutputDir> {
    if names.len() == 0 {
        return Err(nothing_matches(&a.file, "file", &a.globs));
    }
    let out = pakrat_io::fsutil::OutputDir::create_fresh(&a.output, a.force)?;
    if !out.is_fresh() {
        refuse_existing(&out, names)?;
    }
    Ok(out)
}

/// The progress callback of a library call: advances `bar`, if any.
pub fn ticker(bar: &Option<indicatif::ProgressBar>) -> impl Fn(u64) + Sync + '_ {
    move |n| {
        if let Some(pb) = bar {
            pb.inc(n);
        }
    }
}

/// Case-insensitive member globs (`*` crosses `/`), or `None` for none.
pub fn globset(globs: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
    use anyhow::Context;
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(
            globset::GlobBuilder::new(g)
                .case_insensitive(true)
                .literal_separator(false)
                .build()
                .with_context(|| format!("bad glob {g:?}"))?,
        );
    }
    Ok(Some(b.build()?))
}

/// Refuse before anything is written when files about to be written exist
/// already and `--force` was not given (one error for the whole job, not
/// one per file).
pub fn refuse_existing<'a>(
    out: &pakrat_io::fsutil::OutputDir,
    names: impl IntoIterator<Item = &'a str>,
) -> anyhow::Result<()> {
    if out.force() {
        return Ok(());
    }
    // A file exists only in a folder that exists: one check per folder,
    // and a file check only there (issue 31 item 18: a `zen to-legacy`
    // into a new folder checked every folder of every name, 18,000 names).
    // Unsafe names and links on the way are refused when written.
    let mut folders: std::collections::HashMap<std::path::PathBuf, bool> = Default::default();
    let existing: Vec<String> = names
        .into_iter()
        .filter(|name| {
            let Ok(rel) = pakrat_io::fsutil::sanitize_relative(name) else {
                return false;
            };
            let p = out.root().join(rel);
            let dir = p.parent().unwrap_or(out.root()).to_path_buf();
            let plain = |m: std::fs::Metadata| !m.file_type().is_symlink();
            let there = *folders
                .entry(dir)
                .or_insert_with_key(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()));
            there && std::fs::symlink_metadata(&p).is_ok_and(plain)
        })
        .map(|name| pakrat_io::text::show(name).into_owned())
        .collect();
    refuse(&format!("{}: ", out.root().display()), &existing)
}

/// [`refuse_existing`] for outputs that go to several folders (compress,
/// decompress): full paths.
pub fn refuse_existing_paths(
    force: bool,
    paths: impl IntoIterator<Item = std::path::PathBuf>,
) -> anyhow::Result<()> {
    if force {
        return Ok(());
    }
    let existing: Vec<String> = paths
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .map(|p| pakrat_io::text::show(&p.display().to_string()).into_owned())
        .collect();
    refuse("", &existing)
}

fn refuse(prefix: &str, existing: &[String]) -> anyhow::Result<()> {
    let n = existing.len();
    if n == 0 {
        return Ok(());
    }
    let shown = &existing[..n.min(3)];
    anyhow::bail!(
        "{prefix}{} already exists{}; nothing was written (--force replaces them)",
        shown[0],
        if n > 1 {
            format!(
                " ({n} of the files to write do, also {}{})",
                shown[1..].join(", "),
                if n > shown.len() { ", ..." } else { "" }
            )
        } else {
            String::new()
        }
    )
}

/// The error for a selection that matched nothing, before anything is made
/// (the same words for every extractor).
pub fn nothing_matches(file: &std::path::Path, what: &str, globs: &[String]) -> anyhow::Error {
    anyhow::anyhow!(
        "{}: no {what} matches{}; nothing was written",
        file.display(),
        if globs.is_empty() {
            String::new()
        } else {
            format!(" {}", globs.join(" "))
        }
    )
}

/// The "imports from" summary of `info`: the first 12 imported packages
/// with their object counts, and how many more there are.
pub fn imports_from<T: std::fmt::Display>(imports: &[(T, usize)]) -> String {
    let top: Vec<String> = imports
        .iter()
        .take(12)
        .map(|(n, c)| format!("{n} ({c})"))
        .collect();
    format!(
        "imports from: {}{}",
        if top.is_empty() {
            "nothing".to_string()
        } else {
            top.join(", ")
        },
        if imports.len() > 12 {
            format!(", ... {} more", imports.len() - 12)
        } else {
            String::new()
        }
    )
}

/// Print per-file errors (`PATH: MESSAGE`), one line for each message
/// shared by several files ("7 files (a, b, c, ...): MESSAGE") instead of
/// the same line again and again.
pub fn print_errors<S: AsRef<str>>(errors: &[S]) {
    for line in group_errors(errors) {
        eprintln!("pakrat: error: {}", pakrat_io::text::show(&line));
    }
}

/// The lines of [`print_errors`], in the order of each message's first file.
pub fn group_errors<S: AsRef<str>>(errors: &[S]) -> Vec<String> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in errors {
        let e = e.as_ref();
        let (file, msg) = e.split_once(": ").unwrap_or(("", e));
        match groups.iter_mut().find(|g| g.0 == msg) {
            Some(g) => g.1.push(file),
            None => groups.push((msg, vec![file])),
        }
    }
    groups
        .into_iter()
        .flat_map(|(msg, files)| match files.len() {
            1 => vec![if files[0].is_empty() {
                msg.to_string()
            } else {
                format!("{}: {msg}", files[0])
            }],
            n => vec![format!(
                "{n} files ({}{}): {msg}",
                files[..n.min(3)].join(", "),
                if n > 3 { ", ..." } else { "" }
            )],
        })
        .collect()
}
