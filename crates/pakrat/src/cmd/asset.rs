//! `pakrat asset rename`: a package path or folder renamed in every legacy
//! UE4/UE5 package under a folder (through [`pakrat_asset::rename`]), the
//! headers written back with `LegacyPackage::to_bytes` and the renamed
//! packages' files moved to their new paths. Every package is read and
//! rewritten in memory first; anything refused stops the run before a
//! byte is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use pakrat_asset::legacy::{is_legacy_package, LegacyPackage};
use pakrat_asset::rename::{find_in_export_data, rename_package, Change, PathRename};
use serde::Serialize;

use super::asset_commit::{write_all_or_nothing, Work};
use crate::args::AssetRenameArgs;
use crate::cmd::common::engine;

/// The files that travel with a package header.
const COMPANIONS: [&str; 4] = ["uexp", "ubulk", "uptnl", "m.ubulk"];

/// One package the rename changes.
#[derive(Serialize)]
struct Planned {
    /// The header, relative to the folder (`/`-separated).
    file: String,
    /// Its package name before.
    package: String,
    /// Where the header goes when the package itself is renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    moved_to: Option<String>,
    /// Companion files moved with it: `[from, to]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    files_moved: Vec<[String; 2]>,
    changes: Vec<Change>,
    #[serde(skip)]
    header: Vec<u8>,
    /// Companion files whose bytes changed: (old, new path, bytes).
    #[serde(skip)]
    rewritten: Vec<(String, String, Vec<u8>)>,
}

/// The whole run, as printed.
#[derive(Serialize)]
struct Report<'a> {
    dir: &'a Path,
    old_path: &'a str,
    new_path: &'a str,
    dry_run: bool,
    /// Legacy packages read.
    packages_read: usize,
    /// Packages changed (moved or not).
    packages_changed: usize,
    /// Packages moved to the new path.
    packages_moved: usize,
    packages: &'a [Planned],
    /// Files that look like packages but are not read (zen packages,
    /// damaged headers) and do not name the old path.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    skipped: &'a [String],
}

/// `file`'s path without its package extension (`.uasset`/`.umap`).
fn stem_rel(rel: &str) -> Option<(&str, &str)> {
    rel.strip_suffix(".uasset")
        .map(|s| (s, "uasset"))
        .or_else(|| rel.strip_suffix(".umap").map(|s| (s, "umap")))
}

/// Where package `new_name` goes, given that `old_name` is stored at
/// `old_rel` (without extension): the components the package path and the
/// file path end with in common tell where the package root lies in the
/// folder, and the new path must hang from the same root.
fn target_rel(old_rel: &str, old_name: &str, new_name: &str) -> Result<String> {
    let f: Vec<&str> = old_rel.split('/').collect();
    let p: Vec<&str> = old_name.trim_start_matches('/').split('/').collect();
    let common = f
        .iter()
        .rev()
        .zip(p.iter().rev())
        .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
        .count();
    if common == 0 {
        bail!("{old_rel}: the file name does not match its package name {old_name}");
    }
    let p_root = &p[..p.len() - common];
    let f_root = &f[..f.len() - common];
    let n: Vec<&str> = new_name.trim_start_matches('/').split('/').collect();
    let fits =
        n.len() > p_root.len() && n.iter().zip(p_root).all(|(a, b)| a.eq_ignore_ascii_case(b));
    if !fits {
        bail!(
            "{old_rel}: the folder holds the packages of /{} (it is laid out from there), so {new_name} \
             would lie outside it; extract or convert with the whole mount path (e.g. `pakrat zen \
             to-legacy`, or `pakrat extract` of a pak mounted at the project) and rename there",
            p_root.join("/")
        );
    }
    let mut out: Vec<&str> = f_root.to_vec();
    out.extend(&n[p_root.len()..]);
    Ok(out.join("/"))
}

/// Read and rename one package; `None` when the rename does not touch it.
fn plan_one(
    f: &pakrat_io::walk::SourceFile,
    root: &Path,
    r: &PathRename,
    layout: Option<pakrat_asset::legacy::Layout>,
    (schemas, with_usmap): (&dyn pakrat_asset::props::Schemas, bool),
    skipped: &mut Vec<String>,
) -> Result<Option<Planned>> {
    let Some((stem, ext)) = stem_rel(&f.rel) else {
        return Ok(None);
    };
    let data = f.read()?;
    let uexp_rel = format!("{stem}.uexp");
    let uexp = root.join(&uexp_rel);
    let uexp = if uexp.is_file() {
        Some(pakrat_io::read_regular(&uexp)?)
    } else {
        None
    };
    let names_old = |d: &[u8]| !find_in_export_data(d, r).is_empty();
    let why = if !is_legacy_package(&data) {
        Some(
            "not a legacy package (a zen package? convert with `pakrat zen to-legacy`)".to_string(),
        )
    } else {
        LegacyPackage::read(&data, layout)
            .err()
            .map(|e| e.to_string())
    };
    if let Some(why) = why {
        if names_old(&data) || uexp.as_deref().is_some_and(names_old) {
            bail!("{}: names {} but is not rewritten: {why}", f.rel, r.old());
        }
        skipped.push(format!("{}: {why}", f.rel));
        return Ok(None);
    }
    let unversioned = LegacyPackage::read(&data, layout)
        .map(|p| p.summary.unversioned_properties())
        .unwrap_or(false);
    let Some(done) = rename_package(&data, uexp.as_deref(), layout, schemas, r).map_err(|e| {
        let hint = if unversioned && !with_usmap {
            " (an unversioned package: its properties decode with the game's mappings, --usmap)"
        } else {
            ""
        };
        anyhow!("{}: {e}{hint}; nothing was written", f.rel)
    })?
    else {
        return Ok(None);
    };
    let mut plan = Planned {
        file: f.rel.clone(),
        package: done.package.0.clone(),
        moved_to: None,
        files_moved: Vec::new(),
        changes: done.changes.clone(),
        header: done.main.clone(),
        rewritten: Vec::new(),
    };
    // Companion files the edit changed are written, not moved.
    let mut rewritten: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(u) = &done.uexp {
        rewritten.push(("uexp".into(), u.clone()));
    }
    rewritten.extend(done.bulk.iter().cloned());
    let mut to_stem = stem.to_string();
    if done.moves() {
        to_stem = target_rel(stem, &done.package.0, &done.package.1)?;
        plan.moved_to = Some(format!("{to_stem}.{ext}"));
        for c in COMPANIONS {
            if rewritten.iter().any(|(e, _)| e == c) {
                continue;
            }
            if root.join(format!("{stem}.{c}")).is_file() {
                plan.files_moved
                    .push([format!("{stem}.{c}"), format!("{to_stem}.{c}")]);
            }
        }
    }
    plan.rewritten = rewritten
        .into_iter()
        .map(|(e, b)| (format!("{stem}.{e}"), format!("{to_stem}.{e}"), b))
        .collect();
    Ok(Some(plan))
}

/// Every file a move would write must be new, and written once.
fn check_targets(root: &Path, plans: &[Planned]) -> Result<()> {
    let mut seen = BTreeSet::new();
    for p in plans {
        let Some(to) = &p.moved_to else { continue };
        let targets = std::iter::once(to)
            .chain(p.files_moved.iter().map(|m| &m[1]))
            .chain(p.rewritten.iter().map(|m| &m.1));
        for t in targets {
            if !seen.insert(t.to_ascii_lowercase()) {
                bail!("{t}: two renamed packages would be written there");
            }
            if std::fs::symlink_metadata(root.join(t)).is_ok() {
                bail!("{t}: already exists (from {}); nothing was written", p.file);
            }
        }
    }
    Ok(())
}

/// Write the plans, all or nothing ([`super::asset_commit`]): moved
/// packages' headers and rewritten companions at their new paths, their
/// other companions moved beside them, the old files removed; the other
/// packages' files replaced in place. Then the folders the moves emptied
/// are removed.
fn write_plans(root: &Path, plans: &[Planned]) -> Result<()> {
    let mut work = Work::default();
    let mut emptied = BTreeMap::new();
    for p in plans {
        match &p.moved_to {
            None => {
                for (_, to, b) in &p.rewritten {
                    work.replace.push((to.clone(), b.clone()));
                }
                work.replace.push((p.file.clone(), p.header.clone()));
            }
            Some(to) => {
                for (from, to, b) in &p.rewritten {
                    work.create.push((to.clone(), b.clone()));
                    work.remove.push(from.clone());
                }
                work.create.push((to.clone(), p.header.clone()));
                for [from, dest] in &p.files_moved {
                    work.moves.push((from.clone(), dest.clone()));
                }
                work.remove.push(p.file.clone());
                if let Some(parent) = root.join(&p.file).parent() {
                    emptied.insert(parent.to_path_buf(), ());
                }
            }
        }
    }
    write_all_or_nothing(root, &work)?;
    // Folders the moves emptied go too (deepest first; a folder that still
    // holds something stays).
    for dir in emptied.keys().rev() {
        let mut d: Option<&Path> = Some(dir);
        while let Some(x) = d.filter(|x| x.starts_with(root) && *x != root) {
            if std::fs::remove_dir(x).is_err() {
                break;
            }
            d = x.parent();
        }
    }
    Ok(())
}

/// `pakrat asset rename OLD NEW DIR`.
pub fn rename(a: &AssetRenameArgs) -> Result<ExitCode> {
    let r = PathRename::new(&a.old_path, &a.new_path)?;
    let layout = engine(a.ue_version.as_deref())?;
    let schemas = super::props::schemas(a.usmap.as_deref())?;
    if !a.dir.is_dir() {
        bail!("{}: not a folder", a.dir.display());
    }
    let root: PathBuf =
        std::fs::canonicalize(&a.dir).with_context(|| format!("{}", a.dir.display()))?;
    let files = pakrat_io::walk::walk(&root)?;
    let mut plans = Vec::new();
    let mut skipped = Vec::new();
    let mut read = 0;
    for f in &files {
        if stem_rel(&f.rel).is_none() {
            continue;
        }
        read += 1;
        if let Some(p) = plan_one(
            f,
            &root,
            &r,
            layout,
            (schemas.as_ref(), a.usmap.is_some()),
            &mut skipped,
        )? {
            plans.push(p);
        }
    }
    read -= skipped.len();
    check_targets(&root, &plans)?;
    if !a.dry_run {
        write_plans(&root, &plans)?;
    }
    let report = Report {
        dir: &a.dir,
        old_path: r.old(),
        new_path: r.new_path(),
        dry_run: a.dry_run,
        packages_read: read,
        packages_changed: plans.len(),
        packages_moved: plans.iter().filter(|p| p.moved_to.is_some()).count(),
        packages: &plans,
        skipped: &skipped,
    };
    if a.out.json {
        crate::output::print_json(&report)?;
    } else {
        print_text(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(r: &Report<'_>) {
    let would = if r.dry_run { "would be " } else { "" };
    for p in r.packages {
        match &p.moved_to {
            Some(to) => println!("{} {would}moved to {to}", p.file),
            None => println!("{} {would}rewritten", p.file),
        }
        for [from, to] in &p.files_moved {
            println!("  file {from} -> {to}");
        }
        for c in &p.changes {
            println!("  {}: {} -> {}", c.field, c.old, c.new);
        }
    }
    for s in r.skipped {
        println!("skipped {s}");
    }
    println!(
        "{} -> {}: {} of {} packages {would}changed, {} {would}moved{}",
        r.old_path,
        r.new_path,
        r.packages_changed,
        r.packages_read,
        r.packages_moved,
        if r.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
}
