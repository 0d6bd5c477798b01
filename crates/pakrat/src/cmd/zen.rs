//! Handlers for `zen to-legacy` and `zen from-legacy`.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Result};

use pakrat_asset::build::Known;
use pakrat_asset::convert::files::{
    engine_of_container, legacy_layout, legacy_to_zen, package_file_path, package_to_legacy,
    sibling, sort_legacy_folder, walked_unsized, ZenFile,
};
use pakrat_asset::convert::Packages;
use pakrat_asset::legacy::Layout;
use pakrat_asset::zen::{load_script_objects, ContainerPackages, ObjectRef, PackageEntry};
use pakrat_io::fsutil::OutputDir;
use pakrat_io::text::show;
use pakrat_io::walk::SourceFile;
use rayon::prelude::*;
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{engine, exit_code, global_script, open_container};
use crate::output::{human_size, print_json};

/// A package's label for messages: its path, else its name.
fn label(e: &PackageEntry) -> String {
    match (&e.path, &e.header) {
        (Some(p), _) => p.clone(),
        (None, Ok(h)) => h.name.clone(),
        (None, Err(_)) => format!("package {:016x}", e.id),
    }
}

/// Read a container's packages, saying so plainly for a global container.
fn packages_of(c: &pakrat_iostore::Container) -> Result<ContainerPackages> {
    ContainerPackages::read(c).map_err(|e| {
        if load_script_objects(c).is_ok() {
            anyhow::anyhow!(
                "{}: a global container; it holds script objects, no packages (give it with --global)",
                c.path().display()
            )
        } else {
            anyhow::anyhow!("{}: {e}", c.path().display())
        }
    })
}

/// Refuse when packages import script objects and no global container was
/// given (one message for all of them).
fn refuse_missing_script(
    file: &std::path::Path,
    src: &Packages,
    selected: &[&PackageEntry],
) -> Result<()> {
    if src.script.is_none() {
        let needs = selected
            .iter()
            .filter_map(|e| e.header.as_ref().ok())
            .filter(|h| {
                h.imports
                    .iter()
                    .any(|i| matches!(i.get(), ObjectRef::Script(_)))
            })
            .count();
        if needs > 0 {
            bail!(
                "{}: {needs} of {} packages import script objects, which resolve through the game's global container: give it with --global global.utoc",
                file.display(),
                selected.len()
            );
        }
    }
    Ok(())
}

/// `zen to-legacy`.
pub fn to_legacy(a: &ZenToLegacyArgs) -> Result<ExitCode> {
    if let Some(code) = crate::cmd::zen_loose::folder(a)? {
        return Ok(code);
    }
    let c = open_container(&a.file, &a.keys)?;
    let cp = packages_of(&c)?;
    // `--global` as a raw chunk or a folder of loader chunks reads as in
    // the folder form; a global container (or none) as for every command.
    let (script, notes) = match a.global.as_deref() {
        Some(g) if !is_utoc(g) => (Some(crate::cmd::zen_loose::global_of(g, a)?), Vec::new()),
        g => global_script(&a.file, g, &a.keys)?,
    };
    let mut others = Vec::new();
    for w in &a.with {
        let oc = open_container(w, &a.keys)?;
        others.push(packages_of(&oc)?);
    }
    let mut all: Vec<&ContainerPackages> = vec![&cp];
    all.extend(others.iter());
    let src = Packages::from_containers(&all, script);
    let told = engine_of_container(c.toc().header.version, cp.header.form);
    let layout: Option<Layout> = match engine(a.ue_version.as_deref())? {
        Some(l) => Some(l),
        None => told
            .or_else(|| crate::cmd::zen_loose::ue4_engine(cp.header.form))
            .and_then(Layout::for_engine),
    };
    let globs = crate::cmd::common::globset(&a.globs)?;
    let selected: Vec<&PackageEntry> = cp
        .packages
        .iter()
        .filter(|e| match &globs {
            None => true,
            Some(g) => {
                e.path.as_deref().is_some_and(|p| g.is_match(p))
                    || e.header.as_ref().is_ok_and(|h| {
                        g.is_match(&h.name) || g.is_match(h.name.trim_start_matches('/'))
                    })
            }
        })
        .collect();
    if selected.is_empty() {
        bail!(
            "{}: no package matches (of {} packages)",
            a.file.display(),
            cp.packages.len()
        );
    }
    // One message, not one per package, for what every package needs.
    refuse_missing_script(&a.file, &src, &selected)?;
    // Likewise when the engine release is needed.
    if layout.is_none() {
        let unsure: Vec<String> = selected
            .iter()
            .filter_map(|e| e.header.as_ref().ok())
            .filter_map(|h| legacy_layout(h, None).err().map(|x| x.to_string()))
            .collect();
        if let Some(first) = unsure.first() {
            bail!(
                "{}: {} of {} packages need the engine release; the first: {first}",
                a.file.display(),
                unsure.len(),
                selected.len()
            );
        }
    }
    // A new folder is filled out of sight and renamed into place at the
    // end: no temporary name and rename per file (issue 31 item 18).
    let out = OutputDir::create_fresh(&a.output, a.force)?;
    // The header and .uexp of each package (bulk files follow them).
    let names: Vec<String> = selected
        .iter()
        .filter_map(|e| {
            let h = e.header.as_ref().ok()?;
            let p = package_file_path(e, h);
            let uexp = sibling(&p, "uexp");
            Some([p, uexp])
        })
        .flatten()
        .collect();
    if !out.is_fresh() {
        crate::cmd::common::refuse_existing(&out, names.iter().map(String::as_str))?;
    }
    let start = std::time::Instant::now();
    let bar = crate::cmd::common::progress_count(
        selected.len() as u64,
        a.out.json,
        "converting",
        "packages",
    );
    let results: Vec<Result<(String, usize, u64), String>> = selected
        .par_iter()
        .map(|e| {
            let _tick = crate::cmd::common::Tick(&bar);
            let lf = package_to_legacy(&c, &cp, e, &src, layout)
                .map_err(|x| format!("{}: {x}", label(e)))?;
            let mut bytes = 0;
            for (name, data) in &lf.files {
                out.write(name, data).map_err(|x| x.to_string())?;
                bytes += data.len() as u64;
            }
            Ok((lf.package, lf.files.len(), bytes))
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let libs = shader_libraries(&c, &out, globs.as_ref());
    let secs = start.elapsed().as_secs_f64();
    let published = out.publish().map_err(|e| e.to_string()).err();
    let errors: Vec<&String> = results
        .iter()
        .chain(&libs)
        .filter_map(|r| r.as_ref().err())
        .chain(&published)
        .collect();
    let done: Vec<&(String, usize, u64)> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let lib_done: Vec<&(String, usize, u64)> =
        libs.iter().filter_map(|r| r.as_ref().ok()).collect();
    let report = ToLegacyReport {
        output: out.target(),
        selected: selected.len(),
        done: &done,
        lib_done: &lib_done,
        secs,
        engine: a.ue_version.as_deref().or(told),
        errors: &errors,
        notes: &notes,
    };
    report.print(a)?;
    // The process ends after this: its memory goes back whole, without
    // freeing thousands of package headers one by one on this thread
    // (issue 31 item 18).
    std::mem::forget(src);
    std::mem::forget(others);
    std::mem::forget(cp);
    Ok(exit_code(errors.is_empty()))
}

/// What `zen to-legacy` of a container did, as it is printed.
struct ToLegacyReport<'a> {
    output: &'a std::path::Path,
    selected: usize,
    done: &'a [&'a (String, usize, u64)],
    lib_done: &'a [&'a (String, usize, u64)],
    secs: f64,
    engine: Option<&'a str>,
    errors: &'a [&'a String],
    notes: &'a [String],
}

impl ToLegacyReport<'_> {
    /// The JSON object, or the notes, errors and the result line.
    fn print(&self, a: &ZenToLegacyArgs) -> Result<()> {
        let (done, lib_done, errors, secs) = (self.done, self.lib_done, self.errors, self.secs);
        let files: usize = done.iter().chain(lib_done).map(|d| d.1).sum();
        let bytes: u64 = done.iter().chain(lib_done).map(|d| d.2).sum();
        if a.out.json {
            return print_json(&json!({
                "file": a.file.display().to_string(),
                "output": self.output.display().to_string(),
                "selected": self.selected,
                "converted": done.len(),
                "packages": done.iter().map(|d| &d.0).collect::<Vec<_>>(),
                "shader_libraries": lib_done.iter().map(|d| &d.0).collect::<Vec<_>>(),
                "files": files,
                "bytes": bytes,
                "seconds": secs,
                "engine": self.engine,
                "errors": errors,
                "notes": self.notes,
            }));
        }
        for n in self.notes {
            eprintln!("pakrat: note: {}", show(n));
        }
        crate::cmd::common::print_errors(errors);
        // The result line prints under -q too (its help says so).
        println!(
            "converted {} of {} packages{} to legacy ({files} files, {}) in {} in {secs:.2}s",
            done.len(),
            self.selected,
            match lib_done.len() {
                0 => String::new(),
                n => format!(" and {n} shader librar{}", if n == 1 { "y" } else { "ies" }),
            },
            human_size(bytes),
            self.output.display()
        );
        Ok(())
    }
}

/// The container's shader libraries (those with a path, matching the
/// globs) in the pak form, as `.ushaderbytecode` at their paths
/// (`docs/shader-library.md`): one result per library.
fn shader_libraries(
    c: &pakrat_iostore::Container,
    out: &OutputDir,
    globs: Option<&globset::GlobSet>,
) -> Vec<Result<(String, usize, u64), String>> {
    use pakrat_iostore::shader_library::container;
    container::libraries(c)
        .into_iter()
        .filter_map(|x| x.path.map(|p| (x.index, p)))
        .filter(|(_, p)| globs.is_none_or(|g| g.is_match(p)))
        .map(|(index, path)| {
            let (lib, _) = container::to_legacy(c, index).map_err(|e| format!("{path}: {e}"))?;
            let data = lib.to_bytes();
            out.write(&path, &data)
                .map_err(|e| format!("{path}: {e}"))?;
            Ok((path, 1, data.len() as u64))
        })
        .collect()
}

/// `--ue-version` of an engine whose zen layout pakrat does not write
/// (UE 4.25, 4.26, 5.0–5.2): refused before anything is read or written.
/// The library refuses packages whose own versions say so; 5.2 must be
/// refused here, as its packages carry 5.3's file version.
fn refuse_old_zen_layout(v: Option<&str>) -> Result<()> {
    let Some(s) = v else { return Ok(()) };
    let mut parts = s.trim().split('.');
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    if (major, minor) == (4, 27) {
        return Ok(());
    }
    if major == 4 || (major == 5 && minor <= 2) {
        bail!(
            "--ue-version {s}: pakrat writes the UE 4.27 and UE 5.3+ zen layouts only; the zen layouts of UE 4.25, 4.26 and 5.0 to 5.2 are not written yet, and a package in another layout would not load in {s}. Nothing was written."
        );
    }
    Ok(())
}

/// `zen from-legacy`.
pub fn from_legacy(a: &ZenFromLegacyArgs) -> Result<ExitCode> {
    if a.output.is_none() && a.into.is_none() {
        bail!("say where the zen packages go: -o DIR (files) or --into MOD_P.utoc (a container)");
    }
    let folder = sort_legacy_folder(pakrat_io::walk::walk_sizing(&a.src, |rel| {
        !walked_unsized(rel)
    })?)?;
    if folder.packages.is_empty() {
        bail!(
            "{}: no legacy packages (a .uasset/.umap that starts with the package tag C1 83 2A 9E)",
            a.src.display()
        );
    }
    let script = match &a.global {
        Some(g) => Some(load_script_objects(&open_container(g, &a.keys)?)?),
        None => None,
    };
    refuse_old_zen_layout(a.ue_version.as_deref())?;
    let layout = engine(a.ue_version.as_deref())?;
    if let Some(utoc) = &a.into {
        let create = create_args(a, utoc, a.ue_version.clone());
        let streamed = crate::cmd::zen_stream::into(a, &create, &folder, layout, script.as_ref())?;
        if let Some(code) = streamed {
            return Ok(code);
        }
    }
    let start = std::time::Instant::now();
    let bar = crate::cmd::common::progress_count(
        folder.packages.len() as u64,
        a.out.json,
        "converting",
        "packages",
    );
    let results: Vec<Result<ZenFile, String>> = folder
        .packages
        .par_iter()
        .map(|p| {
            let _tick = crate::cmd::common::Tick(&bar);
            legacy_to_zen(p, layout, script.as_ref()).map_err(|e| e.to_string())
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let errors: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    let converted: Vec<&ZenFile> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    let report_errors = |json: bool| {
        if !json {
            crate::cmd::common::print_errors(&errors);
        }
    };
    // UE 4.27 packages: their store entries, as a container header chunk.
    let store = crate::cmd::zen_ue4::store_chunk(&a.src, &converted)?;
    if let Some(utoc) = &a.into {
        let ue_version = match &store {
            Some(_) => Some(crate::cmd::zen_ue4::into_release(a)?),
            None => a.ue_version.clone(),
        };
        if !errors.is_empty() {
            report_errors(a.out.json);
            bail!(
                "{} of {} packages did not convert; no container was written",
                errors.len(),
                folder.packages.len()
            );
        }
        let registry =
            crate::cmd::zen_registry::prepare(a, utoc, &folder.packages, &converted, layout)?;
        // The converted packages stand where the legacy ones were, with the
        // name and store entry the conversion knows (the container's plan
        // need not parse them again); the other files (bulk data, anything
        // else) are taken as they are.
        let mut files: Vec<(SourceFile, Option<Known>)> = results
            .into_iter()
            .flatten()
            .map(|z| {
                let known = crate::cmd::zen_stream::known_of(&z);
                let file = SourceFile {
                    path: a.src.join(&z.rel),
                    rel: z.rel,
                    size: z.output.chunk.len() as u64,
                    bytes: Some(Arc::new(z.output.chunk)),
                };
                (file, Some(known))
            })
            .collect();
        files.extend(folder.others.into_iter().map(|f| (f, None)));
        files.extend(store.map(|f| (f, None)));
        files.sort_by(|x, y| x.0.rel.cmp(&y.0.rel));
        let (files, known): (Vec<SourceFile>, Vec<Option<Known>>) = files.into_iter().unzip();
        let create = create_args(a, utoc, ue_version);
        let code = crate::cmd::iostore_write::create_from(&create, files, known)?;
        if let Some(r) = registry {
            if code == ExitCode::SUCCESS {
                r.write(a.enc.force, a.out.json)?;
            }
        }
        return Ok(code);
    }
    let Some(dir) = &a.output else {
        bail!("give -o DIR or --into MOD_P.utoc");
    };
    write_folder(a, dir, &folder, &converted, store.as_ref(), &errors, start)
}

/// The `iostore create` settings of `zen from-legacy --into UTOC`.
fn create_args(
    a: &ZenFromLegacyArgs,
    utoc: &std::path::Path,
    ue_version: Option<String>,
) -> IostoreCreateArgs {
    IostoreCreateArgs {
        src: a.src.clone(),
        output: utoc.to_path_buf(),
        base: a.base.clone(),
        mount: a.mount.clone(),
        ue_version,
        pak_version: a.pak_version,
        enc: a.enc.clone(),
        keys: a.keys.clone(),
        out: a.out.clone(),
    }
}

/// `zen from-legacy -o DIR`: the converted packages, the UE 4.27 store
/// chunk (when any), and every other file of the folder, copied.
fn write_folder(
    a: &ZenFromLegacyArgs,
    dir: &std::path::Path,
    folder: &pakrat_asset::convert::files::LegacyFolder,
    converted: &[&ZenFile],
    store: Option<&SourceFile>,
    errors: &[&String],
    start: std::time::Instant,
) -> Result<ExitCode> {
    // A new folder is filled out of sight and renamed into place at the end.
    let out = OutputDir::create_fresh(dir, a.enc.force)?;
    if !out.is_fresh() {
        crate::cmd::common::refuse_existing(
            &out,
            converted
                .iter()
                .map(|z| z.rel.as_str())
                .chain(folder.others.iter().map(|f| f.rel.as_str()))
                .chain(store.iter().map(|f| f.rel.as_str())),
        )?;
    }
    let mut write_errors = Vec::new();
    let mut bytes = 0u64;
    for z in converted {
        match out.write(&z.rel, &z.output.chunk) {
            Ok(_) => bytes += z.output.chunk.len() as u64,
            Err(e) => write_errors.push(e.to_string()),
        }
    }
    if let Some(f) = store {
        match out.write(&f.rel, f.read()?.as_ref()) {
            Ok(_) => bytes += f.size,
            Err(e) => write_errors.push(e.to_string()),
        }
    }
    for f in &folder.others {
        let copied = out.write_file_with(&f.rel, |dst| {
            let mut s = pakrat_io::open_regular(&f.path).map_err(std::io::Error::other)?;
            std::io::copy(&mut s, &mut &*dst).map(|_| ())
        });
        match copied {
            Ok(_) => bytes += f.size,
            Err(e) => write_errors.push(e.to_string()),
        }
    }
    let secs = start.elapsed().as_secs_f64();
    if let Err(e) = out.publish() {
        write_errors.push(e.to_string());
    }
    if a.out.json {
        print_json(&json!({
            "source": a.src.display().to_string(),
            "output": out.target().display().to_string(),
            "packages": folder.packages.len(),
            "converted": converted.len(),
            "copied": folder.others.len(),
            "bytes": bytes,
            "seconds": secs,
            "errors": errors.iter().map(|e| e.to_string()).chain(write_errors.iter().cloned()).collect::<Vec<_>>(),
        }))?;
    } else {
        crate::cmd::common::print_errors(errors);
        for e in &write_errors {
            eprintln!("pakrat: error: {}", show(e));
        }
        println!(
            "converted {} of {} legacy packages to zen, copied {} other file(s) ({} in all) to {} in {secs:.2}s",
            converted.len(),
            folder.packages.len(),
            folder.others.len(),
            human_size(bytes),
            out.target().display()
        );
    }
    Ok(exit_code(errors.is_empty() && write_errors.is_empty()))
}

/// Whether `path` names a `.utoc` file.
fn is_utoc(path: &std::path::Path) -> bool {
    path.is_file()
        && path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("utoc"))
}
