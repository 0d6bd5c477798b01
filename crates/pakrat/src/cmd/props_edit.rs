//! `pakrat props apply` and `pakrat props set`: the model edits of
//! [`pakrat_asset::props::edit`], the package written back by
//! [`pakrat_asset::edit::write_edited`], the result written by
//! [`super::props_out`] (a package, a patch container or a patch pak).
//!
//! Every input is read, edited and written to memory first; files are
//! written only when all of them succeeded, so a refusal writes nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use pakrat_asset::edit::{write_edited, EditedPackage, ExportEdit};
use pakrat_asset::props::edit::{apply_json, set, Change};
use pakrat_asset::props::{decode_export, open, Asset, Opened, Schemas};
use serde::Serialize;

use super::common::{engine, keyring};
use super::props_out::{write_result, Written};
use crate::args_props::{PropsApplyArgs, PropsEdit, PropsSetArgs, PropsWriteArgs};
use crate::detect::Format;
use crate::output::{print_json, with_stdout};

/// `pakrat props apply|set`.
pub fn run(e: &PropsEdit) -> Result<ExitCode> {
    match e {
        PropsEdit::Apply(a) => apply(a),
        PropsEdit::Set(a) => set_cmd(a),
    }
}

/// One input: a loose package, or a package inside a container.
#[derive(Clone, Debug)]
pub enum Input {
    /// A `.uasset`/`.umap` (its `.uexp` and bulk files beside it).
    Loose(PathBuf),
    /// A package of a `.pak`.
    Pak(PathBuf, String),
    /// A zen package of an IoStore container.
    Utoc(PathBuf, String),
}

impl Input {
    /// The file read.
    pub fn file(&self) -> &Path {
        match self {
            Input::Loose(p) | Input::Pak(p, _) | Input::Utoc(p, _) => p,
        }
    }

    /// The package path inside a container.
    pub fn package(&self) -> Option<&str> {
        match self {
            Input::Loose(_) => None,
            Input::Pak(_, q) | Input::Utoc(_, q) => Some(q),
        }
    }
}

/// An input and its package: a file, or a container and a package path.
fn input_of(file: &Path, package: Option<&str>) -> Result<Input> {
    let mut file = file.to_path_buf();
    let format = crate::sniff(&file)?;
    crate::output::set_kind(format.kind());
    let shown = file.display().to_string();
    let need = |what: &str| -> Result<String> {
        package.map(str::to_string).ok_or_else(|| {
            anyhow!("{shown}: {what}: name the package in it (/Game/Path/To/Package)")
        })
    };
    Ok(match format {
        Format::LegacyPackage => {
            if let Some(p) = package {
                bail!(
                    "{}: a package file takes no PACKAGE ({p}); it is the package",
                    file.display()
                );
            }
            Input::Loose(file)
        }
        Format::IoStoreToc | Format::IoStoreCas => {
            if format == Format::IoStoreCas {
                if let Some(toc) = crate::detect::utoc_for_ucas(&file) {
                    file = toc;
                }
            }
            let q = need("an IoStore container")?;
            Input::Utoc(file, q)
        }
        Format::Pak => {
            let q = need("a .pak")?;
            Input::Pak(file, q)
        }
        Format::Package => bail!(
            "{}: a UE1/UE2 package: its properties are not edited by props set/apply (see pakrat package)",
            file.display()
        ),
        _ => bail!(
            "{}: is {}, not a UE4/UE5 package nor a container of packages",
            file.display(),
            format.kind()
        ),
    })
}

/// Open the package of `input`.
pub fn open_input(input: &Input, w: &PropsWriteArgs) -> Result<Opened> {
    let eng = engine(w.ue.ue_version.as_deref())?;
    Ok(match input {
        Input::Loose(f) => open::open_loose(f, eng)?,
        Input::Pak(f, q) => {
            let pak = super::common::open_pak(f, &w.ue.keys)?;
            open::open_in_paks(&[pak], q, eng)?
        }
        Input::Utoc(f, q) => {
            let keys = keyring(&w.ue.keys)?;
            let global = match &w.ue.global {
                Some(g) => g.clone(),
                None => open::find_global(f).ok_or_else(|| {
                    anyhow!(
                        "{}: no global.utoc beside it or in a parent folder; give it with --global",
                        f.display()
                    )
                })?,
            };
            let script = open::load_global(&global, &keys)
                .with_context(|| format!("--global {}", global.display()))?;
            let c = pakrat_iostore::Container::open(f, &keys)?;
            open::open_in_container(&c, Some(&script), q, eng)?
        }
    })
}

/// One package edited in memory.
pub struct Edited {
    /// What was read.
    pub input: Input,
    /// What it was opened as.
    pub opened: Opened,
    /// The package written back.
    pub package: EditedPackage,
    /// The values changed.
    pub changes: Vec<Change>,
}

/// Open `input`, make the edits `edit` gives (export edits and the
/// changes), and write the package to memory.
fn edit_one(
    input: Input,
    w: &PropsWriteArgs,
    edit: impl FnOnce(&Asset<'_>, &dyn Schemas) -> Result<(Vec<ExportEdit>, Vec<Change>)>,
) -> Result<Edited> {
    let opened = open_input(&input, w)?;
    let mappings = super::props::schemas(w.ue.usmap.as_deref())?;
    let (package, changes) = {
        let asset = opened.asset();
        let with = pakrat_asset::props::schemas_with_package(&asset, mappings.as_ref());
        let (edits, changes) = edit(&asset, &with)
            .map_err(|e| anyhow!("{}: {e}; nothing was written", opened.origin))?;
        let package = write_edited(&opened, &with, &edits)
            .map_err(|e| anyhow!("{}: {e}; nothing was written", opened.origin))?;
        (package, changes)
    };
    Ok(Edited {
        input,
        opened,
        package,
        changes,
    })
}

/// `props apply EDITED.json INPUT [PACKAGE]`.
fn apply(a: &PropsApplyArgs) -> Result<ExitCode> {
    let text = if a.edited.as_os_str() == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .context("reading the edited JSON from standard input")?;
        s
    } else {
        std::fs::read_to_string(&a.edited).with_context(|| a.edited.display().to_string())?
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", a.edited.display()))?;
    crate::output::set_input(&a.input);
    let input = input_of(&a.input, a.package.as_deref())?;
    check_outputs(std::slice::from_ref(&input), &a.w)?;
    let done = edit_one(input, &a.w, |asset, schemas| {
        let edited = apply_json(asset, schemas, &doc)?;
        let changes = edited.iter().flat_map(|e| e.changes.clone()).collect();
        let edits = edited
            .into_iter()
            .filter(|e| !e.changes.is_empty())
            .map(|e| ExportEdit {
                export: e.export,
                props: e.props,
            })
            .collect();
        Ok((edits, changes))
    })?;
    finish(vec![done], &a.w)
}

/// `props set FILE… [--object O] PATH=VALUE…`.
fn set_cmd(a: &PropsSetArgs) -> Result<ExitCode> {
    let (files, assigns): (Vec<&String>, Vec<&String>) =
        a.items.iter().partition(|s| !is_assignment(s));
    if assigns.is_empty() {
        bail!("nothing to set: give PATH=VALUE (e.g. Integer=7, Vector.X=1.5, Tags[2]=Foo)");
    }
    let assigns: Vec<(&str, &str)> = assigns
        .iter()
        .map(|s| s.split_once('=').expect("an assignment"))
        .map(|(p, v)| (p.trim(), v))
        .collect();
    let inputs = inputs_of(&files)?;
    if let Some(first) = inputs.first() {
        crate::output::set_input(first.file());
    }
    check_outputs(&inputs, &a.w)?;
    let mut done = Vec::new();
    for input in inputs {
        done.push(edit_one(input, &a.w, |asset, schemas| {
            let i = pick_export(asset, a.object.as_deref())?;
            let mut props = decode_export(asset, i, schemas);
            let mut changes = Vec::new();
            for (path, value) in &assigns {
                changes.extend(set(asset, schemas, i, &mut props, path, value)?);
            }
            let edits = if changes.is_empty() {
                Vec::new()
            } else {
                vec![ExportEdit { export: i, props }]
            };
            Ok((edits, changes))
        })?);
    }
    finish(done, &a.w)
}

/// `PATH=VALUE` (and not a file that exists with `=` in its name).
fn is_assignment(s: &str) -> bool {
    s.contains('=') && !Path::new(s).exists()
}

/// The inputs of `props set`: files and globs; a container followed by its
/// package path.
fn inputs_of(items: &[&String]) -> Result<Vec<Input>> {
    if items.is_empty() {
        bail!("no package given: props set FILE [FILE…] PATH=VALUE…");
    }
    let first = Path::new(items[0].as_str());
    if first.is_file() {
        let f = crate::sniff(first)?;
        if matches!(f, Format::IoStoreToc | Format::IoStoreCas | Format::Pak) {
            return match items {
                [_, package] => Ok(vec![input_of(first, Some(package.as_str()))?]),
                _ => bail!(
                    "{}: a container takes one PACKAGE after it (props set CONTAINER PACKAGE PATH=VALUE…)",
                    first.display()
                ),
            };
        }
    }
    let mut out = Vec::new();
    for it in items {
        for f in expand(it)? {
            out.push(input_of(&f, None)?);
        }
    }
    Ok(out)
}

/// A file, or the files a glob (`*`, `?`, `[..]`, `**`) matches.
fn expand(item: &str) -> Result<Vec<PathBuf>> {
    let p = Path::new(item);
    if p.exists() || !item.contains(['*', '?', '[']) {
        return Ok(vec![p.to_path_buf()]);
    }
    let norm = item.replace('\\', "/");
    let cut = norm.find(['*', '?', '[']).unwrap_or(0);
    let base = norm[..cut].rfind('/').map_or("", |k| &norm[..k]);
    let root = if base.is_empty() {
        Path::new(".")
    } else {
        Path::new(base)
    };
    let rel = if base.is_empty() {
        &norm[..]
    } else {
        &norm[base.len() + 1..]
    };
    let glob = globset::GlobBuilder::new(rel)
        .literal_separator(true)
        .build()
        .with_context(|| format!("glob {item:?}"))?
        .compile_matcher();
    let mut hits: Vec<PathBuf> = pakrat_io::walk::walk(root)?
        .into_iter()
        .filter(|f| glob.is_match(&f.rel))
        .filter(|f| {
            let l = f.rel.to_ascii_lowercase();
            l.ends_with(".uasset") || l.ends_with(".umap")
        })
        .map(|f| f.path)
        .collect();
    hits.sort();
    if hits.is_empty() {
        bail!("{item}: no .uasset/.umap file matches");
    }
    Ok(hits)
}

/// The export `props set` edits: `--object`, else the one named as the
/// package, else the only one.
fn pick_export(
    asset: &Asset<'_>,
    object: Option<&str>,
) -> Result<usize, pakrat_asset::props::edit::EditError> {
    let err = |reason: String| pakrat_asset::props::edit::EditError {
        path: String::new(),
        reason,
    };
    let names = || {
        asset
            .exports
            .iter()
            .take(8)
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(q) = object {
        return asset
            .exports
            .iter()
            .position(|e| e.path.eq_ignore_ascii_case(q) || e.name.eq_ignore_ascii_case(q))
            .ok_or_else(|| err(format!("no export {q} (exports: {})", names())));
    }
    let short = asset.package.rsplit('/').next().unwrap_or(&asset.package);
    if let Some(i) = asset.exports.iter().position(|e| e.name == short) {
        return Ok(i);
    }
    match asset.exports.len() {
        1 => Ok(0),
        _ => Err(err(format!(
            "{} exports and none named {short}: pick one with --object (exports: {})",
            asset.exports.len(),
            names()
        ))),
    }
}

/// Refuse up front what could not be written: no output chosen, `-o`
/// with several inputs not a folder, `--in-place` on a container.
fn check_outputs(inputs: &[Input], w: &PropsWriteArgs) -> Result<()> {
    if w.dry_run {
        return Ok(());
    }
    let container = inputs.iter().any(|i| !matches!(i, Input::Loose(_)));
    match (&w.output, w.in_place) {
        (None, false) => bail!(
            "where to write? give -o OUT{}, or --dry-run to see the changes",
            if container { "" } else { ", --in-place" }
        ),
        (_, true) if container => bail!(
            "--in-place: a container is not rewritten; write a patch with -o Mod_P.utoc (or .pak)"
        ),
        (Some(o), _) if inputs.len() > 1 && o.is_file() => bail!(
            "-o {}: with {} input files, -o is a folder",
            o.display(),
            inputs.len()
        ),
        (Some(o), _) if inputs.len() > 1 => {
            let mut seen = std::collections::HashSet::new();
            for i in inputs {
                let name = i
                    .file()
                    .file_name()
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                if !seen.insert(name) {
                    bail!(
                        "-o {}: two inputs have the same file name ({}); write them with --in-place or one at a time",
                        o.display(),
                        i.file().display()
                    );
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The report of one package.
#[derive(Serialize)]
struct Report {
    file: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<String>,
    dry_run: bool,
    changes: Vec<ChangeJson>,
    new_names: Vec<String>,
    new_imports: Vec<String>,
    resized: Vec<Resized>,
    #[serde(flatten)]
    written: Written,
}

#[derive(Serialize)]
struct ChangeJson {
    export: String,
    path: String,
    old: serde_json::Value,
    new: serde_json::Value,
}

#[derive(Serialize)]
struct Resized {
    export: String,
    delta: i64,
}

/// Write every package (unless --dry-run), then report.
fn finish(done: Vec<Edited>, w: &PropsWriteArgs) -> Result<ExitCode> {
    let several = done.len() > 1;
    let mut reports = Vec::new();
    for d in &done {
        let written = if w.dry_run {
            Written::default()
        } else {
            write_result(d, w, several)?
        };
        let asset = d.opened.asset();
        let export_path = |i: usize| {
            asset
                .exports
                .get(i)
                .map_or_else(String::new, |e| e.path.clone())
        };
        reports.push(Report {
            file: d.input.file().to_path_buf(),
            package: d.input.package().map(str::to_string),
            dry_run: w.dry_run,
            changes: d
                .changes
                .iter()
                .map(|c| ChangeJson {
                    export: export_path(c.export),
                    path: c.path.clone(),
                    old: c.old.clone(),
                    new: c.new.clone(),
                })
                .collect(),
            new_names: d.package.new_names.clone(),
            new_imports: d.package.new_imports.clone(),
            resized: d
                .package
                .resized
                .iter()
                .map(|&(i, delta)| Resized {
                    export: export_path(i),
                    delta,
                })
                .collect(),
            written,
        });
    }
    if w.out.json {
        print_json(&serde_json::json!({ "packages": reports }))?;
    } else {
        let mut o = String::new();
        for r in &reports {
            report_text(&mut o, r);
        }
        with_stdout(|out| {
            for line in o.lines() {
                writeln!(out, "{}", pakrat_io::text::show(line))?;
            }
            Ok(ExitCode::SUCCESS)
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

fn report_text(o: &mut String, r: &Report) {
    let what = match &r.package {
        Some(p) => format!("{}: {p}", r.file.display()),
        None => r.file.display().to_string(),
    };
    let n = r.changes.len();
    let _ = writeln!(
        o,
        "{what}: {n} change{}{}",
        if n == 1 { "" } else { "s" },
        if r.dry_run {
            " (dry run: nothing written)"
        } else {
            ""
        }
    );
    for c in &r.changes {
        let short = c.export.rsplit(['.', ':']).next().unwrap_or(&c.export);
        let _ = writeln!(o, "  {short}: {}: {} -> {}", c.path, c.old, c.new);
    }
    if !r.new_names.is_empty() {
        let _ = writeln!(o, "  new names: {}", r.new_names.join(", "));
    }
    if !r.new_imports.is_empty() {
        let _ = writeln!(o, "  new imports: {}", r.new_imports.join(", "));
    }
    for p in &r.written.files {
        let _ = writeln!(o, "  wrote {}", p.display());
    }
    for p in &r.written.backups {
        let _ = writeln!(o, "  kept {}", p.display());
    }
    if !r.dry_run && r.written.files.is_empty() {
        let _ = writeln!(o, "  unchanged: nothing written");
    }
}
