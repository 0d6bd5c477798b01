//! `pakrat list GAME/Content/Paks`: a game's Paks folder as one view (issue
//! 30 item 7). Paks and IoStore containers are merged in the engine's mount
//! order, and each file is shown with the pak or container that provides it.
//!
//! How the engine mounts a folder (UE `FPakPlatformFile`; `iostore.md` §1):
//! it finds `*.pak` files under the Paks folder, subfolders such as `~mods/`
//! included, and mounts the IoStore container `Name.utoc` beside a
//! `Name.pak` together with it; `global.utoc` is mounted by name and holds
//! no files. A higher pak order wins: `_P` patch paks above the rest, `_N_P`
//! by N ([`pakrat_pak::mount_order`]). A `.utoc` with no `.pak` beside it is
//! not mounted by the engine; pakrat still lists it, last among its equals,
//! and says so (`not_mounted`), since people open such folders to read them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pakrat_codec::KeyRing;
use pakrat_io::text::show;
use pakrat_iostore::container::relative_mount_point;
use pakrat_iostore::Container;
use pakrat_pak::Pak;
use serde_json::json;

use crate::args::ListArgs;
use crate::cmd::common::{exit_code, globset, keyring};
use crate::output::print_json;

/// How deep below the Paks folder files are looked for (`~mods/Author/Mod`).
const MAX_DEPTH: usize = 6;

/// One mounted unit: a `.pak`, or an IoStore container.
struct Source {
    path: PathBuf,
    iostore: bool,
    /// False for a `.utoc` without its `.pak`.
    mounted: bool,
}

/// `.pak` and `.utoc` files under `dir` (symlinked folders are not
/// followed, so a link loop cannot trap the walk).
fn collect(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
    let rd = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for e in rd.flatten() {
        let p = e.path();
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            if depth < MAX_DEPTH {
                collect(&p, depth + 1, out)?;
            }
        } else if p.is_file() {
            let ext = p.extension().map(|x| x.to_ascii_lowercase());
            let global = p
                .file_stem()
                .is_some_and(|s| s.eq_ignore_ascii_case("global"));
            if ext.as_deref() == Some("pak".as_ref())
                || (ext.as_deref() == Some("utoc".as_ref()) && !global)
            {
                out.push(p);
            }
        }
    }
    Ok(())
}

/// The sources of a Paks folder in mount order, lowest first: each stem's
/// pak, then its container.
fn sources(dir: &Path) -> Result<Vec<Source>> {
    let mut files = Vec::new();
    collect(dir, 0, &mut files)?;
    // Each pak's path without its extension, to find a container's pak.
    let paks: std::collections::HashSet<PathBuf> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pak")))
        .map(|p| p.with_extension(""))
        .collect();
    let mut order = files.clone();
    // Paks before containers, so that the stable mount-order sort keeps a
    // stem's pak below its container.
    order.sort_by_key(|p| {
        p.extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("utoc"))
    });
    pakrat_pak::mount_order(&mut order);
    // Stable: within one stem the pak (mounted first) precedes its container.
    let mut out: Vec<Source> = order
        .into_iter()
        .map(|path| {
            let iostore = path
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("utoc"));
            let mounted = !iostore || paks.contains(&path.with_extension(""));
            Source {
                path,
                iostore,
                mounted,
            }
        })
        .collect();
    // Unmounted containers go below every mounted source of the same order
    // (they are shown, not mounted).
    out.sort_by_key(|s| s.mounted);
    Ok(out)
}

/// A path as the merge compares it: no leading `../` or `/`, lower case.
fn key(full: &str) -> String {
    relative_mount_point(full).to_lowercase()
}

/// The files each source provides: (shown path, deleted, size).
fn files_of(s: &Source, ring: &KeyRing) -> Result<Vec<(String, bool, u64)>, String> {
    if s.iostore {
        let c = Container::open(&s.path, ring).map_err(|e| e.to_string())?;
        Ok(c.chunks()
            .into_iter()
            .filter_map(|e| e.path.map(|p| (p, false, e.size)))
            .collect())
    } else {
        let p = Pak::open(&s.path, ring).map_err(|e| e.to_string())?;
        Ok(p.index
            .entries
            .iter()
            .map(|e| {
                let full = format!("{}{}", p.index.mount_point, e.path);
                (
                    relative_mount_point(&full).to_string(),
                    e.deleted(),
                    e.uncompressed_size,
                )
            })
            .collect())
    }
}

/// `list` of a folder: the merged view the engine mounts.
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let srcs = sources(&a.file)?;
    if srcs.is_empty() {
        bail!(
            "{}: no .pak files or IoStore containers (.utoc) in this folder or below it",
            a.file.display()
        );
    }
    let ring = keyring(&a.keys)?;
    let g = globset(&a.globs)?;
    // Merge key → (shown path, source index, size).
    let mut merged: BTreeMap<String, (String, usize, u64)> = BTreeMap::new();
    let mut errors = Vec::new();
    for (i, s) in srcs.iter().enumerate() {
        match files_of(s, &ring) {
            Ok(files) => {
                for (path, deleted, size) in files {
                    let k = key(&path);
                    if deleted {
                        merged.remove(&k);
                    } else {
                        merged.insert(k, (path, i, size));
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    let sel: Vec<&(String, usize, u64)> = merged
        .values()
        .filter(|(f, _, _)| g.as_ref().is_none_or(|g| g.is_match(f)))
        .collect();
    if sel.is_empty() && !a.globs.is_empty() && errors.is_empty() {
        bail!(
            "{}: no file matches {}",
            a.file.display(),
            a.globs.join(" ")
        );
    }
    let rel = |p: &Path| -> String { p.strip_prefix(&a.file).unwrap_or(p).display().to_string() };
    let not_mounted: Vec<String> = srcs
        .iter()
        .filter(|s| !s.mounted)
        .map(|s| s.path.display().to_string())
        .collect();
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "mount_order": srcs.iter().map(|s| s.path.display().to_string()).collect::<Vec<_>>(),
            "not_mounted": not_mounted,
            "entries": sel.iter().map(|(f, i, s)| json!({
                "path": f,
                "pak": srcs[*i].path.display().to_string(),
                "from": if srcs[*i].iostore { "iostore" } else { "pak" },
                "size": s,
            })).collect::<Vec<_>>(),
            "errors": errors,
        }))?;
    } else {
        crate::output::with_stdout(|w| {
            for (f, i, s) in &sel {
                writeln!(w, "{s:>12}  {}  [{}]", show(f), show(&rel(&srcs[*i].path)))?;
            }
            let paks = srcs.iter().filter(|s| !s.iostore).count();
            writeln!(
                w,
                "{} files from {} paks and {} IoStore containers (later ones win: {})",
                sel.len(),
                paks,
                srcs.len() - paks,
                srcs.iter()
                    .map(|s| rel(&s.path))
                    .collect::<Vec<_>>()
                    .join(" < ")
            )?;
            Ok(ExitCode::SUCCESS)
        })?;
        for s in srcs.iter().filter(|s| !s.mounted) {
            eprintln!(
                "pakrat: note: {} has no {} beside it: the engine does not mount it (listed here as if it did)",
                show(&rel(&s.path)),
                show(&rel(&s.path.with_extension("pak")))
            );
        }
        for e in &errors {
            eprintln!("pakrat: error: {}", show(e));
        }
    }
    Ok(exit_code(errors.is_empty()))
}
