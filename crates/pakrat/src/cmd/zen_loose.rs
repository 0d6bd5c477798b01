//! `zen to-legacy DIR`: a folder of loose zen packages, their store entries
//! from the container header the user names (`--container-header`), script
//! imports through `--global` (a global container or a folder of its raw
//! chunks).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use pakrat_asset::convert::files::{legacy_layout, sibling};
use pakrat_asset::convert::loose::{is_legacy, legacy_path, read_loose, LooseZen};
use pakrat_asset::convert::{to_legacy, Packages};
use pakrat_asset::legacy::Layout;
use pakrat_asset::zen::{load_script_objects, ContainerPackages, ScriptObjects};
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::container_header::{self as ch, ContainerHeader, HeaderForm};
use rayon::prelude::*;
use serde_json::json;

use crate::args::ZenToLegacyArgs;
use crate::cmd::common::{engine, exit_code, open_container};
use crate::output::{human_size, print_json};

/// The engine release of a UE4 container header form when none is given:
/// 4.26 and 4.27 share the zen layout and the legacy file version (522),
/// so their packages are written as 4.27's. UE 4.25 (`PreInitial`) and UE5
/// forms: `None` (the release must be given or told otherwise).
pub fn ue4_engine(form: HeaderForm) -> Option<&'static str> {
    match form {
        HeaderForm::Ue4 => Some("4.27"),
        _ => None,
    }
}

/// Read a raw container header chunk; UE4 forms have no magic, so
/// `--ue-version 4.25`–`4.27` names them (4.26/4.27 are tried without it).
fn container_header(file: &Path, ue_version: Option<&str>) -> Result<ContainerHeader> {
    let data = std::fs::read(file).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let hint = crate::cmd::container_header::ue4_form(ue_version);
    let parsed = match hint {
        Some(f) => ch::parse_with(&data, Some(f)),
        None => ch::parse(&data)
            .or_else(|e| ch::parse_with(&data, Some(HeaderForm::Ue4)).map_err(|_| e)),
    };
    parsed.map_err(|e| anyhow!("{}: not a container header chunk: {e}", file.display()))
}

/// The script objects of `--global`: a global container, a raw
/// ScriptObjects chunk, or a folder holding one of those or UE4's three
/// loader chunks (named as `extract` and retoc's tests name them:
/// `LoaderInitialLoadMeta_1.bin`, …).
pub(crate) fn global_of(path: &Path, a: &ZenToLegacyArgs) -> Result<ScriptObjects> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| anyhow!("{}: {e}", p.display()));
    if path.is_file() {
        let is_utoc = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("utoc"));
        if is_utoc {
            return Ok(load_script_objects(&open_container(path, &a.keys)?)?);
        }
        return ScriptObjects::parse(&read(path)?)
            .map_err(|e| anyhow!("{}: not a ScriptObjects chunk: {e}", path.display()));
    }
    let mut found: [Option<std::path::PathBuf>; 4] = Default::default();
    for entry in std::fs::read_dir(path).map_err(|e| anyhow!("{}: {e}", path.display()))? {
        let p = entry?.path();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = name.split(['_', '.']).next().unwrap_or("");
        let slot = match stem {
            "ScriptObjects" => 0,
            "LoaderInitialLoadMeta" => 1,
            "LoaderGlobalNames" => 2,
            "LoaderGlobalNameHashes" => 3,
            _ => continue,
        };
        if p.is_file() && found[slot].is_none() {
            found[slot] = Some(p);
        }
    }
    match found {
        [Some(so), ..] => ScriptObjects::parse(&read(&so)?)
            .map_err(|e| anyhow!("{}: not a ScriptObjects chunk: {e}", so.display())),
        [None, Some(m), Some(n), Some(h)] => {
            ScriptObjects::parse_ue4(&read(&m)?, &read(&n)?, &read(&h)?)
                .map_err(|e| anyhow!("{}: UE4 loader chunks: {e}", path.display()))
        }
        _ => bail!(
            "{}: no ScriptObjects chunk, nor UE4's LoaderInitialLoadMeta, LoaderGlobalNames and LoaderGlobalNameHashes chunks",
            path.display()
        ),
    }
}

/// True for a file name a loose zen package may have.
fn is_package_file(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".uasset") || l.ends_with(".umap") || l.ends_with(".uzenasset")
}

/// True for bulk data beside a package (`.ubulk`, `.m.ubulk`, `.uptnl`),
/// which to-legacy keeps as it is.
fn is_bulk_file(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".ubulk") || l.ends_with(".uptnl")
}

/// `zen to-legacy` on a folder: its result; `None` for a container (which
/// refuses `--container-header`, as it has its own).
pub fn folder(a: &ZenToLegacyArgs) -> Result<Option<ExitCode>> {
    if a.file.is_dir() {
        return to_legacy_folder(a).map(Some);
    }
    if a.container_header.is_some() {
        bail!(
            "--container-header is for a folder of loose zen packages; {} is a container, which has its own",
            a.file.display()
        );
    }
    Ok(None)
}

/// The loose zen packages of a folder (legacy packages and other files are
/// left out), the bulk files beside them, and the packages that could not
/// be read (each message names its file).
type Folder = (Vec<LooseZen>, Vec<pakrat_io::walk::SourceFile>, Vec<String>);

fn read_folder(dir: &Path, header: &ContainerHeader) -> Result<Folder> {
    let mut read_errors = Vec::new();
    let mut loose: Vec<LooseZen> = Vec::new();
    let mut bulk = Vec::new();
    for f in pakrat_io::walk::walk(dir)? {
        if is_bulk_file(&f.rel) {
            bulk.push(f);
            continue;
        }
        if !is_package_file(&f.rel) {
            continue;
        }
        let data = f.read()?;
        if is_legacy(&data) {
            continue;
        }
        match read_loose(&f.rel, data.to_vec(), header) {
            Ok(z) => loose.push(z),
            Err(e) => read_errors.push(e.to_string()),
        }
    }
    Ok((loose, bulk, read_errors))
}

/// `zen to-legacy DIR`.
fn to_legacy_folder(a: &ZenToLegacyArgs) -> Result<ExitCode> {
    let Some(hfile) = &a.container_header else {
        bail!(
            "{}: a folder of loose zen packages needs the container header that describes them (--container-header FILE, a raw ContainerHeader chunk such as `extract` writes under _chunks/)",
            a.file.display()
        );
    };
    let header = container_header(hfile, a.ue_version.as_deref())?;
    let globs = crate::cmd::common::globset(&a.globs)?;
    let (loose, bulk, read_errors) = read_folder(&a.file, &header)?;
    let script = match &a.global {
        Some(g) => Some(global_of(g, a)?),
        None => None,
    };
    let mut others = Vec::new();
    for w in &a.with {
        let oc = open_container(w, &a.keys)?;
        others.push(ContainerPackages::read(&oc).map_err(|e| anyhow!("{}: {e}", w.display()))?);
    }
    let all: Vec<&ContainerPackages> = others.iter().collect();
    let mut src = Packages::from_containers(&all, script);
    for z in &loose {
        src.insert(z.id, z.header.clone(), z.imported.clone());
    }
    let layout: Option<Layout> = match engine(a.ue_version.as_deref())? {
        Some(l) => Some(l),
        None => ue4_engine(header.form).and_then(Layout::for_engine),
    };
    let selected: Vec<&LooseZen> = loose
        .iter()
        .filter(|z| {
            globs.as_ref().is_none_or(|g| {
                g.is_match(&z.rel)
                    || g.is_match(&z.header.name)
                    || g.is_match(z.header.name.trim_start_matches('/'))
            })
        })
        .collect();
    if selected.is_empty() && read_errors.is_empty() {
        bail!(
            "{}: no zen package {}",
            a.file.display(),
            if loose.is_empty() {
                "in the folder"
            } else {
                "matches"
            }
        );
    }
    // A new folder is filled out of sight and renamed into place at the
    // end (as `zen to-legacy` of a container does).
    let out = OutputDir::create_fresh(&a.output, a.force)?;
    let names: Vec<String> = selected
        .iter()
        .flat_map(|z| {
            let p = legacy_path(&z.rel, &z.header);
            let uexp = sibling(&p, "uexp");
            [p, uexp]
        })
        .collect();
    if !out.is_fresh() {
        crate::cmd::common::refuse_existing(&out, names.iter().map(String::as_str))?;
    }
    let start = std::time::Instant::now();
    let results: Vec<Result<(String, u64), String>> = selected
        .par_iter()
        .map(|z| {
            let fail = |e: String| format!("{}: {e}", z.rel);
            let l = legacy_layout(&z.header, layout).map_err(|e| fail(e.to_string()))?;
            let o = to_legacy(&z.header, &z.chunk, &z.imported, &src, l)
                .map_err(|e| fail(e.to_string()))?;
            let p = legacy_path(&z.rel, &z.header);
            out.write(&p, &o.uasset).map_err(|e| e.to_string())?;
            out.write(&sibling(&p, "uexp"), &o.uexp)
                .map_err(|e| e.to_string())?;
            Ok((
                z.header.name.clone(),
                (o.uasset.len() + o.uexp.len()) as u64,
            ))
        })
        .collect();
    // Bulk files go with the packages that converted (as from a container).
    let stem = |rel: &str| {
        let l = rel.to_ascii_lowercase();
        let l = l.strip_suffix(".m.ubulk").unwrap_or(&l).to_string();
        sibling(&l, "")
    };
    let converted: std::collections::HashSet<String> = selected
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_ok())
        .map(|(z, _)| stem(&legacy_path(&z.rel, &z.header)))
        .collect();
    let mut copy_errors = Vec::new();
    let mut copied = 0usize;
    let mut bulk_bytes = 0u64;
    for f in bulk.iter().filter(|f| converted.contains(&stem(&f.rel))) {
        match f.read().map_err(|e| e.to_string()).and_then(|d| {
            out.write(&f.rel, &d)
                .map(|_| d.len() as u64)
                .map_err(|e| e.to_string())
        }) {
            Ok(n) => {
                copied += 1;
                bulk_bytes += n;
            }
            Err(e) => copy_errors.push(format!("{}: {e}", f.rel)),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let published = out.publish().map_err(|e| e.to_string()).err();
    let errors: Vec<&String> = read_errors
        .iter()
        .chain(results.iter().filter_map(|r| r.as_ref().err()))
        .chain(&copy_errors)
        .chain(&published)
        .collect();
    let done: Vec<&(String, u64)> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let bytes: u64 = done.iter().map(|d| d.1).sum::<u64>() + bulk_bytes;
    let files = 2 * done.len() + copied;
    if a.out.json {
        print_json(&json!({
            "folder": a.file.display().to_string(),
            "container_header": hfile.display().to_string(),
            "output": out.target().display().to_string(),
            "selected": selected.len(),
            "converted": done.len(),
            "packages": done.iter().map(|d| &d.0).collect::<Vec<_>>(),
            "bulk_files_copied": copied,
            "files": files,
            "bytes": bytes,
            "seconds": secs,
            "errors": errors,
        }))?;
    } else {
        crate::cmd::common::print_errors(&errors);
        println!(
            "converted {} of {} loose zen packages to legacy ({files} files, {}) in {} in {secs:.2}s",
            done.len(),
            selected.len() + read_errors.len(),
            human_size(bytes),
            out.target().display()
        );
    }
    Ok(exit_code(errors.is_empty()))
}
