//! `pakrat package ...`: edits of UE1/UE2 packages through
//! [`pakrat_classic::write::Rewrite`] (tables rewritten, object data kept
//! in place), written atomically, the original kept only with `--backup`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use pakrat_classic::write::{Change, Placement, Rewrite, StripReport};
use pakrat_classic::Package;
use pakrat_io::{Guid, Source};
use serde::Serialize;

use crate::args::*;
use crate::cmd::common::{in_file, parse_package};

fn open(path: &Path) -> Result<Source> {
    let src = Source::open(path).map_err(|e| in_file(e, path))?;
    if let Some(v) = pakrat_classic::lineage::header_version(&src) {
        bail!(
            "{}: an encrypted Lineage II package (Lineage2Ver{v}); pakrat reads it but does not \
             write encrypted packages",
            path.display()
        );
    }
    Ok(src)
}

/// What one edited file became (text and `--json`).
#[derive(Serialize)]
struct Written {
    file: PathBuf,
    /// Where the result went (the file itself, or --output); none on a dry run.
    output: Option<PathBuf>,
    backup: Option<PathBuf>,
    dry_run: bool,
    changes: Vec<Change>,
    /// What may break elsewhere (e.g. a renamed name other packages import).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    tables: Vec<Placement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    strip: Option<StripReport>,
}

/// The `.bak` path of `file`.
fn backup_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

/// Write `bytes` as the new `file` (or `output`): atomically, keeping the
/// original's permissions, the original copied to `.bak` first when asked.
fn commit(
    file: &Path,
    output: Option<&Path>,
    bytes: &[u8],
    backup: bool,
    force: bool,
) -> Result<(PathBuf, Option<PathBuf>)> {
    if let Some(out) = output {
        pakrat_io::fsutil::write_atomic(out, force, |w| w.write_all(bytes))?;
        return Ok((out.to_path_buf(), None));
    }
    // A symbolic link is followed: its target is what changes.
    let real = std::fs::canonicalize(file).with_context(|| format!("{}", file.display()))?;
    let perms = std::fs::metadata(&real)?.permissions();
    let bak = if backup {
        let b = backup_path(&real);
        let original = pakrat_io::read_regular(&real)?;
        pakrat_io::fsutil::write_atomic(&b, force, |w| w.write_all(&original))?;
        Some(b)
    } else {
        None
    };
    pakrat_io::fsutil::write_atomic(&real, true, |w| w.write_all(bytes))?;
    std::fs::set_permissions(&real, perms)?;
    Ok((real, bak))
}

/// Refuse up front what the write would refuse, so nothing is half done.
fn check_targets(file: &Path, e: &EditArgs) -> Result<()> {
    if e.dry_run {
        return Ok(());
    }
    let mut exist = Vec::new();
    if let Some(o) = &e.output {
        if o.exists() {
            exist.push(o.clone());
        }
    } else if e.backup && backup_path(file).exists() {
        exist.push(backup_path(file));
    }
    crate::cmd::common::refuse_existing_paths(e.force, exist)
}

/// Run one edit: parse, `edit`, write (unless --dry-run), report.
fn run_edit(
    file: &Path,
    e: &EditArgs,
    edit: impl FnOnce(&Package<'_>, &mut Rewrite<'_>) -> Result<Option<StripReport>>,
) -> Result<ExitCode> {
    check_targets(file, e)?;
    let src = open(file)?;
    let pkg = parse_package(file, &src)?;
    let mut w = Rewrite::new(&pkg);
    let strip = edit(&pkg, &mut w)?;
    let (bytes, tables) = w
        .write()
        .map_err(|err| anyhow!("{}: {err}", file.display()))?;
    // What was written must read back as a package.
    Package::parse(&bytes).map_err(|err| {
        anyhow!(
            "{}: the rewritten package does not read back ({err}); nothing was written",
            file.display()
        )
    })?;
    let changed = bytes[..] != src[..];
    let (output, backup) = if e.dry_run || (!changed && e.output.is_none()) {
        (None, None)
    } else {
        let (o, b) = commit(file, e.output.as_deref(), &bytes, e.backup, e.force)?;
        (Some(o), b)
    };
    let out = Written {
        file: file.to_path_buf(),
        output,
        backup,
        dry_run: e.dry_run,
        changes: w.changes().to_vec(),
        warnings: w.warnings().to_vec(),
        tables,
        strip,
    };
    report(&out, e.out.json)?;
    Ok(ExitCode::SUCCESS)
}

fn report(w: &Written, json: bool) -> Result<()> {
    if json {
        println!("{}", crate::output::json_text(w)?);
        return Ok(());
    }
    let f = w.file.display();
    for warn in &w.warnings {
        eprintln!("{f}: warning: {}", pakrat_io::text::show(warn));
    }
    if w.changes.is_empty() {
        println!("{f}: nothing to change (file not written)");
        return Ok(());
    }
    for c in &w.changes {
        println!("{f}: {}", pakrat_io::text::show(&c.what));
    }
    if let Some(s) = &w.strip {
        for (path, why) in &s.not_text {
            println!(
                "{f}: left {}: not a text buffer ({})",
                pakrat_io::text::show(path),
                pakrat_io::text::show(why)
            );
        }
    }
    let moved: Vec<String> = w
        .tables
        .iter()
        .filter(|t| t.moved)
        .map(|t| format!("{} to {:#x}", t.table, t.offset))
        .collect();
    let place = if moved.is_empty() {
        "tables in place".to_string()
    } else {
        format!("moved to the end: {}", moved.join(", "))
    };
    match (&w.output, w.dry_run) {
        (_, true) => println!("{f}: dry run, nothing written ({place})"),
        (Some(o), false) => {
            let bak = w
                .backup
                .as_ref()
                .map(|b| format!(", original kept as {}", b.display()))
                .unwrap_or_default();
            println!("{f}: written to {} ({place}){bak}", o.display());
        }
        (None, false) => println!("{f}: unchanged"),
    }
    Ok(())
}

/// `pakrat package rename-name`.
pub fn rename_name(a: &RenameNameArgs) -> Result<ExitCode> {
    let stem = pakrat_system::scan::package_name(&a.package);
    run_edit(&a.package, &a.edit, |_, w| {
        w.rename_name(&a.old, &a.new)?;
        if a.old.eq_ignore_ascii_case(&stem) {
            eprintln!(
                "{}: warning: {} is the package's own name, by which other packages import \
                 it; `pakrat package rename` renames the package",
                a.package.display(),
                pakrat_io::text::show(&a.old)
            );
        }
        Ok(None)
    })
}

/// A GUID from the command line, or a random one.
fn guid_arg(given: Option<&str>) -> Result<Guid> {
    match given {
        Some(s) => Guid::parse(s.trim_start_matches("0x")).ok_or_else(|| {
            anyhow!("GUID {s:?}: expected 32 hex digits, as `pakrat info` prints it")
        }),
        None => random_guid(),
    }
}

fn random_guid() -> Result<Guid> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| anyhow!("no random GUID: {e}"))?;
    Ok(Guid::from_bytes(b))
}

/// `pakrat package set-guid`.
pub fn set_guid(a: &SetGuidArgs) -> Result<ExitCode> {
    let guid = guid_arg(a.guid.as_deref())?;
    run_edit(&a.package, &a.edit, |_, w| {
        if a.new_generation {
            w.new_generation(guid);
        } else {
            w.set_guid(guid);
        }
        Ok(None)
    })
}

/// `pakrat package set-flags`.
pub fn set_flags(a: &SetFlagsArgs) -> Result<ExitCode> {
    let changes = a
        .set
        .iter()
        .map(|s| pakrat_system::flags::parse_set(s))
        .collect::<pakrat_io::Result<Vec<_>>>()?;
    run_edit(&a.package, &a.edit, |_, w| {
        let mut f = w.summary.package_flags;
        for (bit, on) in &changes {
            if *on {
                f |= bit;
            } else {
                f &= !bit;
            }
        }
        w.set_flags(f);
        Ok(None)
    })
}

/// `pakrat package strip`.
pub fn strip(a: &StripArgs) -> Result<ExitCode> {
    run_edit(&a.package, &a.edit, |pkg, w| Ok(Some(w.strip_source(pkg)?)))
}

/// Every file under `dir` (recursively) that starts with a package tag.
/// Symbolic links are not followed (a link may lead out of the folder, and
/// its target is written through another path): they go to `links`, so
/// that the importers among them are listed as not updated.
fn packages_under(dir: &Path, out: &mut Vec<PathBuf>, links: &mut Vec<PathBuf>) -> Result<()> {
    let rd = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut entries: Vec<_> = rd.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let t = e.file_type()?;
        let p = e.path();
        if t.is_dir() {
            packages_under(&p, out, links)?;
        } else if t.is_file() && pakrat_system::scan::has_package_tag(&p) {
            out.push(p);
        } else if t.is_symlink() {
            links.push(p);
        }
    }
    Ok(())
}

/// One package of --update and what the rename does to it.
#[derive(Serialize)]
struct Updated {
    file: PathBuf,
    imports: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    backup: Option<PathBuf>,
}

/// `pakrat package rename`.
pub fn rename(a: &RenameArgs) -> Result<ExitCode> {
    let file = &a.package;
    let (old, target) = rename_target(a)?;
    // Which packages import it (read before anything is written).
    let mut candidates = Vec::new();
    let mut links = Vec::new();
    for d in &a.update {
        packages_under(d, &mut candidates, &mut links)?;
    }
    let not_followed = links_not_followed(&links, &old);
    let (updates, unreadable) = updated_importers(file, candidates, &old, &a.new_name)?;
    let (bytes, changes) = renamed_self(file, a.new_guid)?;
    let plan = RenamePlan {
        old,
        target,
        bytes,
        changes,
        updates,
        unreadable,
        not_followed,
    };
    let done = if a.dry_run {
        plan.updates
            .iter()
            .map(|(p, _, n)| Updated {
                file: p.clone(),
                imports: *n,
                backup: None,
            })
            .collect()
    } else {
        plan.refuse_existing(a)?;
        plan.write(a)?
    };
    for l in &plan.not_followed {
        eprintln!("warning: {}", pakrat_io::text::show(l));
    }
    if a.out.json {
        plan.print_json(a, &done)?;
    } else {
        plan.print_text(a, &done);
    }
    Ok(ExitCode::SUCCESS)
}

/// The package's current name (its file stem) and the path it is renamed
/// to, after checking the new name.
fn rename_target(a: &RenameArgs) -> Result<(String, PathBuf)> {
    let file = &a.package;
    let old = file
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| anyhow!("{}: no package name in the file name", file.display()))?
        .to_string();
    pakrat_classic::write::check_name(&a.new_name)?;
    if a.new_name.contains(['/', '\\', '.', ':']) {
        bail!(
            "new name {:?}: a package name, without folder or extension",
            a.new_name
        );
    }
    let mut target = file.with_file_name(&a.new_name);
    if let Some(ext) = file.extension() {
        target.set_extension(ext);
    }
    if a.new_name.eq_ignore_ascii_case(&old) {
        bail!("{}: the package is already named {old}", file.display());
    }
    Ok((old, target))
}

/// Whether `pkg` imports the package `name` (names compare without case).
fn imports_package(pkg: &Package<'_>, name: &str) -> bool {
    pkg.imported_packages()
        .iter()
        .any(|n| n.eq_ignore_ascii_case(name))
}

/// Links are not followed; those that lead to an importer of `old` (or to
/// a folder, which may hold some) are listed, never silently skipped.
fn links_not_followed(links: &[PathBuf], old: &str) -> Vec<String> {
    links
        .iter()
        .filter_map(|l| {
            let target = std::fs::read_link(l)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".into());
            if l.is_dir() {
                return Some(format!(
                    "{}: a symbolic link to the folder {target}, not searched",
                    l.display()
                ));
            }
            let imports = l.is_file()
                && pakrat_system::scan::has_package_tag(l)
                && open(l).ok().is_some_and(|src| {
                    Package::parse(&src).is_ok_and(|pkg| imports_package(&pkg, old))
                });
            imports.then(|| {
                format!(
                    "{}: a symbolic link to {target}, which imports {old}; not updated",
                    l.display()
                )
            })
        })
        .collect()
}

/// An importer with its imports of the old name renamed: its path, new
/// bytes and how many imports changed.
type Update = (PathBuf, Vec<u8>, usize);

/// The candidates (other than `file` itself) that import `old`, rewritten
/// to import `new` and read back; and the ones that could not be read.
fn updated_importers(
    file: &Path,
    candidates: Vec<PathBuf>,
    old: &str,
    new: &str,
) -> Result<(Vec<Update>, Vec<String>)> {
    let real_self = std::fs::canonicalize(file)?;
    let mut updates = Vec::new();
    let mut unreadable = Vec::new();
    for p in candidates {
        if std::fs::canonicalize(&p).is_ok_and(|r| r == real_self) {
            continue;
        }
        let src = match open(&p) {
            Ok(src) => src,
            Err(e) => {
                unreadable.push(e.to_string());
                continue;
            }
        };
        let pkg = match Package::parse(&src) {
            Ok(pkg) => pkg,
            Err(e) => {
                unreadable.push(format!("{}: {e}", p.display()));
                continue;
            }
        };
        if !imports_package(&pkg, old) {
            continue;
        }
        let mut w = Rewrite::new(&pkg);
        let n = w.rename_imported_package(old, new)?;
        if n == 0 {
            continue;
        }
        let bytes = w.to_bytes().map_err(|e| anyhow!("{}: {e}", p.display()))?;
        Package::parse(&bytes).map_err(|e| {
            anyhow!(
                "{}: the updated package does not read back ({e})",
                p.display()
            )
        })?;
        updates.push((p, bytes, n));
    }
    Ok((updates, unreadable))
}

/// The renamed package itself: same content, or a new GUID/generation.
fn renamed_self(file: &Path, new_guid: bool) -> Result<(Vec<u8>, Vec<Change>)> {
    let src = open(file)?;
    let pkg = parse_package(file, &src)?;
    let mut w = Rewrite::new(&pkg);
    if new_guid {
        w.new_generation(random_guid()?);
    }
    let bytes = w
        .to_bytes()
        .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    Ok((bytes, w.changes().to_vec()))
}

/// Everything a rename writes, worked out before anything is written.
struct RenamePlan {
    /// The package's name before.
    old: String,
    /// Where the renamed package goes.
    target: PathBuf,
    /// The renamed package's bytes.
    bytes: Vec<u8>,
    /// What changed inside it.
    changes: Vec<Change>,
    /// The importers to update.
    updates: Vec<Update>,
    /// Candidates that could not be read.
    unreadable: Vec<String>,
    /// Links leading to importers or folders, not followed.
    not_followed: Vec<String>,
}

impl RenamePlan {
    /// Refuse up front: the new name, and backups.
    fn refuse_existing(&self, a: &RenameArgs) -> Result<()> {
        let file = &a.package;
        let mut exist = Vec::new();
        if self.target.exists() {
            exist.push(self.target.clone());
        }
        if a.backup {
            exist.extend(
                std::iter::once(backup_path(file))
                    .chain(self.updates.iter().map(|(p, ..)| backup_path(p)))
                    .filter(|b| b.exists()),
            );
        }
        crate::cmd::common::refuse_existing_paths(a.force, exist)
    }

    /// Write the renamed package, remove (or back up) the old file, then
    /// update the importers.
    fn write(&self, a: &RenameArgs) -> Result<Vec<Updated>> {
        let file = &a.package;
        let target = &self.target;
        pakrat_io::fsutil::write_atomic(target, a.force, |o| o.write_all(&self.bytes))?;
        if a.backup {
            std::fs::rename(file, backup_path(file))
                .with_context(|| format!("keeping {} as a backup", file.display()))?;
        } else {
            std::fs::remove_file(file).with_context(|| {
                format!(
                    "removing {} after writing {}",
                    file.display(),
                    target.display()
                )
            })?;
        }
        let mut done = Vec::new();
        for (p, b, n) in &self.updates {
            let (_, bak) = commit(p, None, b, a.backup, a.force)?;
            done.push(Updated {
                file: p.clone(),
                imports: *n,
                backup: bak,
            });
        }
        Ok(done)
    }

    fn print_json(&self, a: &RenameArgs, done: &[Updated]) -> Result<()> {
        #[derive(Serialize)]
        struct Out<'a> {
            file: &'a Path,
            renamed_to: &'a Path,
            dry_run: bool,
            changes: &'a [Change],
            updated: &'a [Updated],
            unreadable: &'a [String],
            not_followed: &'a [String],
        }
        println!(
            "{}",
            crate::output::json_text(&Out {
                file: &a.package,
                renamed_to: &self.target,
                dry_run: a.dry_run,
                changes: &self.changes,
                updated: done,
                unreadable: &self.unreadable,
                not_followed: &self.not_followed,
            })?
        );
        Ok(())
    }

    fn print_text(&self, a: &RenameArgs, done: &[Updated]) {
        let would = if a.dry_run { "would be " } else { "" };
        println!(
            "{} {would}renamed to {}",
            a.package.display(),
            self.target.display()
        );
        for c in &self.changes {
            println!("  {}", pakrat_io::text::show(&c.what));
        }
        for u in done {
            println!(
                "{} {would}updated: {} import{} of {} -> {}",
                u.file.display(),
                u.imports,
                if u.imports == 1 { "" } else { "s" },
                self.old,
                a.new_name
            );
        }
        for u in &self.unreadable {
            println!("not checked (unreadable): {u}");
        }
        for l in &self.not_followed {
            println!("not followed: {}", pakrat_io::text::show(l));
        }
        if a.dry_run {
            println!("dry run: nothing written");
        }
    }
}
