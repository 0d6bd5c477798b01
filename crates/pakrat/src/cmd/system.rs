//! Handlers for the package-system commands: `deps`, `scan`, `flags`,
//! `cache list`, `cache restore`.
//!
//! Exit codes: 0 = nothing to report, 1 = the command ran and found problems
//! (missing packages, collisions, cache entries that do not check out,
//! flags that differ from the `.upkg`...), 2 = error (from `main`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pakrat_io::text::show;
use pakrat_system::cache::{self, Action};
use pakrat_system::{deps, flags, scan, GameDir, Via};
use serde::Serialize;

use crate::args::*;
use crate::cmd::common::exit_code;
use crate::output::{human_size, with_stdout, write_json as json};

fn open_game(g: &GameDirArgs) -> Result<GameDir> {
    Ok(GameDir::open(&g.game_dir, g.ini.as_deref())?)
}

fn describe_game(game: &GameDir) -> String {
    match &game.ini_path {
        Some(p) => format!(
            "game {}  ini {}  ({} Paths)",
            game.root.display(),
            p.display(),
            game.paths.len()
        ),
        None if game.plain_folder => format!(
            "folder {}  (no System folder and no ini: a plain folder of packages; a name resolves to the package file of that name anywhere under it, as `scan` pairs them, after the built-in UT99/UT2004 Paths)",
            game.root.display()
        ),
        None => format!(
            "game {}  (no ini with [Core.System] Paths found: using built-in UT99/UT2004 Paths)",
            game.root.display()
        ),
    }
}

#[derive(Serialize)]
struct GameJson<'a> {
    root: &'a std::path::Path,
    system_dir: &'a std::path::Path,
    ini: Option<&'a std::path::Path>,
    paths: &'a [pakrat_system::SearchPath],
    cache_dir: &'a std::path::Path,
    cache_ext: &'a str,
    plain_folder: bool,
}

fn game_json(game: &GameDir) -> GameJson<'_> {
    GameJson {
        root: &game.root,
        system_dir: &game.system_dir,
        ini: game.ini_path.as_deref(),
        paths: &game.paths,
        cache_dir: &game.cache_dir,
        cache_ext: &game.cache_ext,
        plain_folder: game.plain_folder,
    }
}

/// `deps`: the transitive dependency tree of a package in a game folder.
pub fn deps(a: &DepsArgs) -> Result<ExitCode> {
    with_stdout(|w| deps_to(a, w))
}

fn deps_to(a: &DepsArgs, w: &mut dyn Write) -> Result<ExitCode> {
    let root = match &a.game_dir {
        Some(d) => d.clone(),
        None => {
            let p = std::path::Path::new(&a.package);
            if !p.is_file() {
                bail!(
                    "{}: not a file; give the game folder to resolve a package name in: --game-dir DIR",
                    a.package
                );
            }
            match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => std::path::PathBuf::from("."),
            }
        }
    };
    let game = GameDir::open(&root, a.ini.as_deref())?;
    let g = deps::walk(&game, &a.package)?;
    if g.nodes.first().is_some_and(|n| n.file.is_none()) {
        bail!(
            "{}: not a file, and no package of that name in {} (searched {} Paths entries and the cache)",
            a.package,
            game.root.display(),
            game.paths.len()
        );
    }
    if let Some(e) = g.nodes.first().and_then(|n| n.error.as_ref()) {
        bail!("{e}");
    }
    let problems = !g.missing.is_empty()
        || !g.unreadable.is_empty()
        || !g.cycles.is_empty()
        || !g.mismatches.is_empty();
    if a.dot {
        write!(w, "{}", g.to_dot())?;
        return Ok(exit_code(!problems));
    }
    if a.out.json {
        #[derive(Serialize)]
        struct Out<'a> {
            game: GameJson<'a>,
            #[serde(flatten)]
            graph: &'a deps::DepGraph,
        }
        json(
            w,
            &Out {
                game: game_json(&game),
                graph: &g,
            },
        )?;
        return Ok(exit_code(!problems));
    }
    writeln!(w, "{}", describe_game(&game))?;
    write!(w, "{}", g.to_tree_bounded(&game.root, a.max_depth))?;
    let found = g.nodes.iter().filter(|n| n.file.is_some()).count();
    let wrong = if g.mismatches.is_empty() {
        String::new()
    } else {
        let mut names: Vec<&str> = g.mismatches.iter().map(|m| m.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        format!(" ({} of them of another generation)", names.len())
    };
    writeln!(
        w,
        "\n{} packages: {found} found{wrong}, {} missing, {} unreadable",
        g.nodes.len(),
        g.missing.len(),
        g.unreadable.len()
    )?;
    for m in &g.missing {
        writeln!(
            w,
            "MISSING {}  needed by {}",
            m.name,
            m.needed_by.join(", ")
        )?;
    }
    for (n, e) in &g.unreadable {
        writeln!(w, "UNREADABLE {}: {}", show(n), show(e))?;
    }
    for m in &g.mismatches {
        writeln!(w, "WRONG GENERATION {}", show(&m.message))?;
    }
    for c in &g.cycles {
        writeln!(w, "CYCLE {}", show(&c.join(" -> ")))?;
    }
    let from_cache: Vec<&str> = g
        .nodes
        .iter()
        .filter(|n| matches!(n.via, Some(Via::CacheGuid | Via::CacheIni)))
        .map(|n| n.name.as_str())
        .collect();
    if !from_cache.is_empty() {
        writeln!(
            w,
            "from the download cache: {}",
            show(&from_cache.join(", "))
        )?;
    }
    Ok(exit_code(!problems))
}

/// `scan`: every package of a folder tree, with findings.
pub fn scan(a: &ScanArgs) -> Result<ExitCode> {
    with_stdout(|w| scan_to(a, w))
}

fn scan_to(a: &ScanArgs, w: &mut dyn Write) -> Result<ExitCode> {
    let (r, secs) = scan_with_progress(a)?;
    if a.json {
        write_scan_json(w, &r, secs)?;
    } else {
        write_scan_packages(w, &r)?;
        write_scan_findings(w, &r)?;
        write_scan_summary(w, &r)?;
    }
    Ok(exit_code(!scan_problems(&r)))
}

/// Scan the folder, with a progress bar over the bytes of its files; and
/// the seconds the scan took.
fn scan_with_progress(a: &ScanArgs) -> Result<(scan::ScanReport, f64)> {
    let files = scan::list_files(&a.dir)?;
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let bar = crate::cmd::common::progress(total, a.json, "scanning");
    let tick = crate::cmd::common::ticker(&bar);
    let start = std::time::Instant::now();
    let r = scan::scan_files(&a.dir, &files, &tick)?;
    let secs = start.elapsed().as_secs_f64();
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    Ok((r, secs))
}

/// Whether the scan found anything wrong (exit code 1).
fn scan_problems(r: &scan::ScanReport) -> bool {
    !r.errors.is_empty()
        || !r.collisions.is_empty()
        || !r.duplicates.is_empty()
        || !r.missing.is_empty()
        || !r.mismatches.is_empty()
        || !r.cycles.is_empty()
}

/// JSON lines: one object per package, then one per finding, then a summary.
fn write_scan_json(w: &mut dyn Write, r: &scan::ScanReport, secs: f64) -> Result<()> {
    fn line<T: Serialize>(w: &mut dyn Write, kind: &str, v: &T) -> Result<()> {
        let mut obj = serde_json::to_value(v)?;
        if let Some(m) = obj.as_object_mut() {
            m.insert("type".into(), kind.into());
        }
        writeln!(w, "{}", serde_json::to_string(&obj)?)?;
        Ok(())
    }
    for p in &r.packages {
        line(w, "package", p)?;
    }
    for e in &r.errors {
        line(w, "error", e)?;
    }
    for c in &r.collisions {
        line(w, "collision", c)?;
    }
    for d in &r.duplicates {
        line(w, "duplicate", d)?;
    }
    for m in &r.missing {
        line(w, "missing", m)?;
    }
    for m in &r.mismatches {
        line(w, "mismatch", m)?;
    }
    for c in &r.cycles {
        line(w, "cycle", &serde_json::json!({ "packages": c }))?;
    }
    line(
        w,
        "summary",
        &serde_json::json!({
            "files": r.files_seen,
            "packages": r.packages.len(),
            "bytes": r.bytes,
            "errors": r.errors.len(),
            "collisions": r.collisions.len(),
            "duplicates": r.duplicates.len(),
            "missing": r.missing.len(),
            "mismatches": r.mismatches.len(),
            "cycles": r.cycles.len(),
            "seconds": secs,
        }),
    )
}

/// One line a package: version, GUID, flags and imports.
fn write_scan_packages(w: &mut dyn Write, r: &scan::ScanReport) -> Result<()> {
    for p in &r.packages {
        writeln!(
            w,
            "{}{}  v{}/{}  {}  flags {:#x}  imports: {}",
            p.path.display(),
            p.cached_as
                .as_ref()
                .map_or(String::new(), |n| format!(" (cache of {n})")),
            p.version,
            p.licensee,
            p.guid,
            p.flags,
            if p.imports.is_empty() {
                "-".to_string()
            } else {
                p.imports.join(", ")
            }
        )?;
    }
    Ok(())
}

/// One line a finding: unreadable files, collisions, duplicates, missing
/// imports, generation mismatches and cycles.
fn write_scan_findings(w: &mut dyn Write, r: &scan::ScanReport) -> Result<()> {
    for e in &r.errors {
        writeln!(
            w,
            "ERROR {}: {}",
            show(&e.path.display().to_string()),
            show(&e.error)
        )?;
    }
    for c in &r.collisions {
        let files: Vec<String> = c.files.iter().map(|f| f.display().to_string()).collect();
        writeln!(
            w,
            "COLLISION {}: {} (the engine loads packages by name; only one can load)",
            c.name,
            files.join(", ")
        )?;
    }
    for d in &r.duplicates {
        let copies: Vec<String> = d
            .copies
            .iter()
            .map(|(f, g)| format!("{} ({g})", f.display()))
            .collect();
        writeln!(
            w,
            "DUPLICATE {} with different GUIDs: {}",
            d.name,
            copies.join(", ")
        )?;
    }
    for m in &r.missing {
        writeln!(
            w,
            "MISSING {}  needed by {}",
            m.name,
            m.needed_by.join(", ")
        )?;
    }
    for m in &r.mismatches {
        writeln!(w, "WRONG GENERATION {}", show(&m.message))?;
    }
    for c in &r.cycles {
        writeln!(w, "CYCLE {}", show(&c.join(" -> ")))?;
    }
    Ok(())
}

/// The closing lines: generation mismatches, then the counts.
fn write_scan_summary(w: &mut dyn Write, r: &scan::ScanReport) -> Result<()> {
    if !r.mismatches.is_empty() {
        writeln!(
            w,
            "{} imports found only in another engine generation or game",
            r.mismatches.len()
        )?;
    }
    writeln!(w,
        "{} packages ({}) in {} files, {} unreadable; {} collisions, {} duplicates, {} missing, {} cycles",
        r.packages.len(),
        human_size(r.bytes),
        r.files_seen,
        r.errors.len(),
        r.collisions.len(),
        r.duplicates.len(),
        r.missing.len(),
        r.cycles.len()
    )?;
    Ok(())
}

/// `flags`: show or change package flags, compare with a `.upkg`.
pub fn flags(a: &FlagsArgs) -> Result<ExitCode> {
    with_stdout(|w| flags_to(a, w))
}

fn flags_to(a: &FlagsArgs, w: &mut dyn Write) -> Result<ExitCode> {
    let changes = a
        .set
        .iter()
        .map(|s| flags::parse_set(s))
        .collect::<pakrat_io::Result<Vec<_>>>()?;
    let (before, after) = if changes.is_empty() {
        let f = flags::read_flags(&a.package)?;
        (f.clone(), f)
    } else {
        flags::set_flags(&a.package, &changes)
            .with_context(|| format!("changing the flags of {}", a.package.display()))?
    };
    let upkg = match &a.upkg {
        Some(p) => Some(flags::compare_upkg(after.flags, p)?),
        None => None,
    };
    let mismatch = upkg
        .as_ref()
        .is_some_and(|rows| rows.iter().any(|r| !r.matches));
    if a.out.json {
        #[derive(Serialize)]
        struct Out<'a> {
            file: &'a std::path::Path,
            changed: bool,
            before: &'a flags::FlagsInfo,
            after: &'a flags::FlagsInfo,
            upkg: Option<&'a [flags::UpkgRow]>,
        }
        json(
            w,
            &Out {
                file: &a.package,
                changed: before.flags != after.flags,
                before: &before,
                after: &after,
                upkg: upkg.as_deref(),
            },
        )?;
        return Ok(exit_code(!mismatch));
    }
    let show = |f: &flags::FlagsInfo| format!("{:#010x} [{}]", f.flags, f.names.join(" "));
    if changes.is_empty() {
        writeln!(
            w,
            "{}: v{}/{} flags {}",
            a.package.display(),
            after.version,
            after.licensee,
            show(&after)
        )?;
        for (bit, name) in pakrat_classic::flags::PACKAGE_FLAGS {
            writeln!(w, "  {name:<15} {}", after.flags & bit != 0)?;
        }
    } else if before.flags == after.flags {
        writeln!(
            w,
            "{}: flags already {} (file not changed)",
            a.package.display(),
            show(&after)
        )?;
    } else {
        writeln!(
            w,
            "{}: flags {} -> {}",
            a.package.display(),
            show(&before),
            show(&after)
        )?;
    }
    if let Some(rows) = &upkg {
        for r in rows {
            let v = |b: Option<bool>| b.map_or("?".to_string(), |b| b.to_string());
            writeln!(
                w,
                "  upkg {:<15} upkg={} package={} {}",
                r.flag,
                v(r.upkg),
                v(r.package),
                if r.matches { "ok" } else { "DIFFERS" }
            )?;
        }
    }
    Ok(exit_code(!mismatch))
}

/// `cache list`: check `cache.ini` and every cache file.
pub fn cache_list(a: &CacheListArgs) -> Result<ExitCode> {
    with_stdout(|w| cache_list_to(a, w))
}

fn cache_list_to(a: &CacheListArgs, w: &mut dyn Write) -> Result<ExitCode> {
    let r = cache::check_cache(&a.cache_dir, ".uxx")?;
    let problems = r.problems().count();
    if a.out.json {
        json(w, &r)?;
        return Ok(exit_code(problems == 0));
    }
    match &r.ini {
        Some(p) => writeln!(
            w,
            "{}: {} items ({})",
            r.dir.display(),
            r.items.len(),
            p.display()
        )?,
        None => writeln!(
            w,
            "{}: no cache.ini; {} files",
            r.dir.display(),
            r.items.len()
        )?,
    }
    for it in &r.items {
        let g = it
            .guid
            .map_or_else(|| it.key.clone().unwrap_or_default(), |g| g.to_string());
        writeln!(
            w,
            "{:<13} {g}  {}  {}{}",
            it.status.word().to_ascii_uppercase(),
            it.name.as_deref().unwrap_or("-"),
            it.size.map_or("-".to_string(), human_size),
            it.detail
                .as_ref()
                .map_or(String::new(), |d| format!("  ({d})"))
        )?;
    }
    writeln!(
        w,
        "{} ok, {problems} with problems",
        r.items.len() - problems
    )?;
    Ok(exit_code(problems == 0))
}

/// `cache restore`: copy cached packages back under their original names.
pub fn cache_restore(a: &CacheRestoreArgs) -> Result<ExitCode> {
    with_stdout(|w| cache_restore_to(a, w))
}

fn cache_restore_to(a: &CacheRestoreArgs, w: &mut dyn Write) -> Result<ExitCode> {
    let game = open_game(&a.game)?;
    let r = cache::check_cache(&a.cache_dir, &game.cache_ext)?;
    let out = cache::restore(&r, &game, a.dry_run, a.force);
    let skipped = out
        .items
        .iter()
        .filter(|i| i.action == Action::Skip)
        .count();
    if a.out.json {
        json(w, &out)?;
        return Ok(exit_code(skipped == 0));
    }
    writeln!(w, "{}", describe_game(&game))?;
    for it in &out.items {
        let word = match (it.action, a.dry_run) {
            (Action::Copy, true) => "would copy",
            (Action::Copy, false) => "copied",
            (Action::Replace, true) => "would replace",
            (Action::Replace, false) => "replaced",
            (Action::AlreadyThere, _) => "already there",
            (Action::Skip, _) => "SKIPPED",
        };
        let g = it.guid.map(|g| g.to_string()).unwrap_or_default();
        let dest = it
            .dest
            .as_ref()
            .map(|d| {
                d.strip_prefix(&game.root)
                    .unwrap_or(d)
                    .display()
                    .to_string()
            })
            .unwrap_or_else(|| "-".into());
        writeln!(
            w,
            "{word:<13} {g} {} -> {dest}{}",
            it.name.as_deref().unwrap_or("-"),
            it.detail
                .as_ref()
                .map_or(String::new(), |d| format!("  ({d})"))
        )?;
    }
    let n = |x: Action| out.items.iter().filter(|i| i.action == x).count();
    if a.dry_run {
        writeln!(
            w,
            "dry run: {} to copy, {} to replace, {} already there, {skipped} skipped",
            n(Action::Copy),
            n(Action::Replace),
            n(Action::AlreadyThere)
        )?;
    } else {
        writeln!(
            w,
            "{} copied, {} replaced, {} already there, {skipped} skipped",
            n(Action::Copy),
            n(Action::Replace),
            n(Action::AlreadyThere)
        )?;
    }
    Ok(exit_code(skipped == 0))
}
