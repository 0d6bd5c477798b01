//! Where `props apply`/`props set` put an edited package: beside or over
//! the loose package, into a patch `.pak` holding its files, or into a
//! patch IoStore container built by `iostore patch`'s machinery
//! ([`super::iostore_write::write_patch`]).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;

use super::props_edit::{Edited, Input};
use crate::args::{IostoreEncodeArgs, IostorePatchArgs, JsonArg};
use crate::args_props::PropsWriteArgs;

/// The files one package's edit wrote.
#[derive(Default, Serialize)]
pub struct Written {
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Originals kept (`--backup`).
    pub backups: Vec<PathBuf>,
}

/// Write `d` where `w` says (`several`: `-o` is a folder).
pub fn write_result(d: &Edited, w: &PropsWriteArgs, several: bool) -> Result<Written> {
    match &d.input {
        Input::Loose(f) => write_loose(d, f, w, several),
        Input::Pak(f, _) => write_pak(d, f, w),
        Input::Utoc(f, _) => write_patch(d, f, w),
    }
}

/// `X.ext` beside `main` (`ext` may be `m.ubulk`).
fn sibling(main: &Path, ext: &str) -> PathBuf {
    main.with_extension(ext)
}

/// The `.bak` path of `file`.
fn backup_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

/// Companion files a package may have beside it.
const COMPANIONS: [&str; 3] = ["ubulk", "uptnl", "m.ubulk"];

/// A loose package: to `-o OUT` (its `.uexp` and companions beside it),
/// into the `-o` folder (several inputs), or over itself.
fn write_loose(d: &Edited, file: &Path, w: &PropsWriteArgs, several: bool) -> Result<Written> {
    let p = &d.package;
    let main = if w.in_place {
        std::fs::canonicalize(file).with_context(|| file.display().to_string())?
    } else {
        let o = w.output.as_ref().ok_or_else(|| anyhow!("no output"))?;
        if several || o.is_dir() {
            std::fs::create_dir_all(o).with_context(|| o.display().to_string())?;
            o.join(file.file_name().unwrap_or_default())
        } else {
            o.clone()
        }
    };
    // (target, bytes): companions and .uexp first, the header last.
    let mut plan: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for (ext, bytes) in &p.bulk {
        plan.push((sibling(&main, ext), bytes.clone()));
    }
    if !w.in_place {
        for ext in COMPANIONS {
            let src = sibling(file, ext);
            if src.is_file() && !p.bulk.iter().any(|(e, _)| e.eq_ignore_ascii_case(ext)) {
                plan.push((sibling(&main, ext), pakrat_io::read_regular(&src)?));
            }
        }
    }
    if let Some(u) = &p.uexp {
        plan.push((sibling(&main, "uexp"), u.clone()));
    }
    plan.push((main.clone(), p.main.clone()));
    if w.in_place {
        // Only what differs from the file it replaces.
        plan.retain(|(t, b)| pakrat_io::read_regular(t).map_or(true, |old| old != *b));
    }
    let mut exist = Vec::new();
    for (t, _) in &plan {
        let check = if w.in_place {
            backup_path(t)
        } else {
            t.clone()
        };
        if (!w.in_place || w.backup) && check.exists() {
            exist.push(check);
        }
    }
    super::common::refuse_existing_paths(w.force, exist)?;
    let mut out = Written::default();
    for (t, bytes) in &plan {
        if w.in_place && w.backup && t.exists() {
            let b = backup_path(t);
            let original = pakrat_io::read_regular(t)?;
            pakrat_io::fsutil::write_atomic(&b, w.force, |f| f.write_all(&original))?;
            out.backups.push(b);
        }
        let perms = std::fs::metadata(t).ok().map(|m| m.permissions());
        pakrat_io::fsutil::write_atomic(t, w.in_place || w.force, |f| f.write_all(bytes))?;
        if let (true, Some(perms)) = (w.in_place, perms) {
            std::fs::set_permissions(t, perms)?;
        }
        out.files.push(t.clone());
    }
    Ok(out)
}

/// The path inside its container of the opened package (from its origin,
/// `CONTAINER: PATH`).
fn inner_path(d: &Edited) -> Result<String> {
    let origin = &d.opened.origin;
    let prefix = format!("{}: ", d.input.file().display());
    match origin.strip_prefix(&prefix) {
        Some(p) if !p.starts_with('(') && !p.is_empty() => Ok(p.to_string()),
        _ => bail!("{origin}: the package's file path in the container is not known"),
    }
}

/// A temporary folder beside `output` (removed when dropped).
fn temp_beside(output: &Path) -> Result<tempfile::TempDir> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    tempfile::Builder::new()
        .prefix(".pakrat-props-")
        .tempdir_in(&dir)
        .with_context(|| format!("a temporary folder in {}", dir.display()))
}

/// The package's files below `root` at `rel` (its header path): header,
/// `.uexp`, changed companions. Returns (path below root, file).
fn lay_out(d: &Edited, root: &Path, rel: &str) -> Result<Vec<(String, PathBuf)>> {
    let stem = rel.rsplit_once('.').map_or(rel, |x| x.0);
    let mut files = vec![(rel.to_string(), d.package.main.clone())];
    if let Some(u) = &d.package.uexp {
        files.push((format!("{stem}.uexp"), u.clone()));
    }
    for (ext, b) in &d.package.bulk {
        files.push((format!("{stem}.{ext}"), b.clone()));
    }
    let mut out = Vec::new();
    for (r, bytes) in files {
        let safe = pakrat_io::fsutil::sanitize_relative(&r)?;
        let p = root.join(safe);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).with_context(|| parent.display().to_string())?;
        }
        std::fs::write(&p, &bytes).with_context(|| p.display().to_string())?;
        out.push((r, p));
    }
    Ok(out)
}

fn output_of(w: &PropsWriteArgs) -> Result<&Path> {
    w.output
        .as_deref()
        .ok_or_else(|| anyhow!("a container's package is written with -o Mod_P.utoc (or .pak)"))
}

/// A `.pak` holding the edited package's files at their paths, mounted
/// where the base pak is.
fn write_pak(d: &Edited, base: &Path, w: &PropsWriteArgs) -> Result<Written> {
    use pakrat_pak::write;
    let output = output_of(w)?;
    let rel = inner_path(d)?;
    let pak = super::common::open_pak(base, &w.ue.keys)?;
    let tmp = temp_beside(output)?;
    let files = lay_out(d, tmp.path(), &rel)?;
    let inputs: Vec<write::Input> = files
        .into_iter()
        .map(|(path, source)| write::Input { path, source })
        .collect();
    let o = write::Options {
        version: pak.footer.version,
        mount_point: pak.index.mount_point.clone(),
        ..write::Options::default()
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let pending = pakrat_io::fsutil::PendingFile::begin(output, w.force)?;
    write::write(&inputs, &o, pending.file(), &name)?;
    let p = pending.commit()?;
    Ok(Written {
        files: vec![p],
        backups: Vec::new(),
    })
}

/// A patch IoStore container (`Mod_P.utoc` + `.ucas` + companion `.pak`)
/// holding the edited package, through `iostore patch`.
fn write_patch(d: &Edited, base: &Path, w: &PropsWriteArgs) -> Result<Written> {
    let output = output_of(w)?;
    let rel = inner_path(d)?;
    let tmp = temp_beside(output)?;
    lay_out(d, tmp.path(), &rel)?;
    let a = IostorePatchArgs {
        base: base.to_path_buf(),
        add: Some(tmp.path().to_path_buf()),
        remove: Vec::new(),
        output: output.to_path_buf(),
        mount: "../../../".into(),
        enc: IostoreEncodeArgs {
            compress: None,
            level: None,
            match_unrealpak: false,
            version: None,
            partition_size: None,
            encrypt: false,
            no_encrypt: true,
            cipher: None,
            key_guid: None,
            force: w.force,
        },
        keys: w.ue.keys.clone(),
        out: JsonArg { json: true },
    };
    let done = super::iostore_write::write_patch(&a, true)?;
    Ok(Written {
        files: done.paths,
        backups: Vec::new(),
    })
}
