//! Handlers for UE1/UE2 packages: info, list, verify, props, export.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use pakrat_classic::export::{
    export_objects, export_objects_with, export_paths, ExportOptions, Kind, ObjectReport, Outcome,
    SkipCause,
};
use pakrat_classic::flags::object_flag_names;
use pakrat_classic::json::PropsJson;
use pakrat_classic::props::read_object;
use pakrat_classic::{view, ObjRef, Package};
use pakrat_io::fsutil::OutputDir;
use pakrat_io::Source;
use serde::Serialize;
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{exit_code, in_file, parse_package};
use crate::output::human_size;

/// Append a line to the output buffer (`fmt::Write` on a String cannot fail).
/// One line of text output. Names, paths and values come from the file:
/// every control character or bidi mark in the line is escaped
/// ([`pakrat_io::text::show`]), so no escape sequence reaches the terminal.
macro_rules! outln {
    ($buf:expr) => { $buf.push('\n') };
    ($buf:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($buf, "{}", pakrat_io::text::show(&format!($($arg)*)));
    }};
}

/// Write everything at once; a reader that went away (`| head`) is not an error.
fn emit(buf: &str) -> Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(buf.as_bytes()).and_then(|_| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn print_json<T: Serialize + ?Sized>(v: &T) -> Result<()> {
    let mut s = crate::output::json_text(v)?;
    s.push('\n');
    emit(&s)
}

fn open(path: &Path) -> Result<Source> {
    // Encrypted Lineage II packages are read decrypted.
    pakrat_classic::lineage::open(path).map_err(|e| in_file(e, path))
}

/// Imported packages with the number of imports inside each.
fn import_counts<'a>(p: &'a Package<'_>) -> Vec<(&'a str, usize)> {
    let mut order: Vec<&str> = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..p.imports.len() {
        if let Ok(pkg) = p.import_package(i) {
            let key = pkg.to_ascii_lowercase();
            if !counts.contains_key(&key) {
                order.push(pkg);
            }
            *counts.entry(key).or_default() += 1;
        }
    }
    order
        .into_iter()
        .map(|n| (n, counts[&n.to_ascii_lowercase()].saturating_sub(1)))
        .collect()
}

fn engine_of(version: u16) -> &'static str {
    if version >= 100 {
        "UE2"
    } else {
        "UE1"
    }
}

/// `info` for this format.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let mut o = String::new();
    let (src, encrypted) =
        pakrat_classic::lineage::open_reporting(&a.file).map_err(|e| in_file(e, &a.file))?;
    let p = parse_package(&a.file, &src)?;
    let s = &p.summary;
    let imports = import_counts(&p);
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..p.exports.len() {
        *classes
            .entry(p.export_class_name(i).unwrap_or("?"))
            .or_default() += 1;
    }
    let mut classes: Vec<(&str, usize)> = classes.into_iter().collect();
    classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "size": src.len(),
            "engine": engine_of(s.version),
            "summary": s,
            "lineage2": encrypted.as_ref().map(|(v, scheme)| json!({"version": v, "scheme": scheme})),
            "package_flag_names": s.package_flag_names(),
            "imported_packages": imports.iter().map(|(n, c)| json!({"package": n, "objects": c})).collect::<Vec<_>>(),
            "export_classes": classes.iter().map(|(n, c)| json!({"class": n, "count": c})).collect::<Vec<_>>(),
        }))?;
        emit(&o)?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        o,
        "{}: {} package, version {}, licensee {}{} ({})",
        a.file.display(),
        engine_of(s.version),
        s.version,
        s.licensee,
        if s.tag == pakrat_classic::TAG_KILLING_FLOOR {
            ", Killing Floor tag 0x9E2A83C2"
        } else {
            ""
        },
        human_size(src.len() as u64)
    );
    let flags = s.package_flag_names();
    outln!(
        o,
        "flags:        {:#010x} ({})",
        s.package_flags,
        if flags.is_empty() {
            "none".to_string()
        } else {
            flags.join(", ")
        }
    );
    if let Some((v, scheme)) = &encrypted {
        outln!(
            o,
            "encrypted:    Lineage II (Lineage2Ver{v}, {scheme}); read decrypted, offsets count from the decrypted data (file offset - 28)"
        );
    } else if let Some(g) = s.game {
        outln!(o, "game:         {g} (as the version and licensee suggest)");
    }
    if let Err(why) = s.object_layout() {
        outln!(o, "objects:      {why} (pakrat reads the tables)");
    }
    outln!(o, "GUID:         {}", s.guid);
    if let Some(h) = &s.heritage_table {
        outln!(o, "heritage:     {} GUIDs at {:#x}", h.count, h.offset);
    } else {
        let g: Vec<String> = s
            .generations
            .iter()
            .map(|g| format!("{}/{}", g.export_count, g.name_count))
            .collect();
        let shown = if g.len() > 4 {
            format!("... {}", g[g.len() - 4..].join(", "))
        } else {
            g.join(", ")
        };
        outln!(
            o,
            "generations:  {} (exports/names: {shown})",
            s.generations.len()
        );
    }
    outln!(
        o,
        "names:        {:>6} at {:#x}",
        s.names.count,
        s.names.offset
    );
    outln!(
        o,
        "exports:      {:>6} at {:#x}",
        s.exports.count,
        s.exports.offset
    );
    outln!(
        o,
        "imports:      {:>6} at {:#x}",
        s.imports.count,
        s.imports.offset
    );
    outln!(o, "{}", crate::cmd::common::imports_from(&imports));
    let top: Vec<String> = classes
        .iter()
        .take(8)
        .map(|(n, c)| format!("{n} {c}"))
        .collect();
    outln!(o, "classes:      {}", top.join(", "));
    emit(&o)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct NameRow<'a> {
    index: usize,
    name: &'a str,
    flags: u32,
}

#[derive(Serialize)]
struct ImportRow {
    index: usize,
    reference: i32,
    class_package: String,
    class: String,
    path: String,
}

#[derive(Serialize)]
struct ExportRow {
    index: usize,
    reference: i32,
    class: String,
    path: String,
    #[serde(rename = "super")]
    super_: Option<String>,
    flags: u32,
    flag_names: Vec<String>,
    serial_size: u32,
    serial_offset: u32,
}

/// `list` for this format.
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let mut o = String::new();
    let src = open(&a.file)?;
    let p = parse_package(&a.file, &src)?;
    let path_of = |r: ObjRef| p.object_path(r).unwrap_or_else(|e| format!("<{e}>"));
    // Default (no table chosen): exports.
    let exports = a.exports || (!a.names && !a.imports);
    let mut out = serde_json::Map::new();
    out.insert("file".into(), a.file.display().to_string().into());
    if a.names {
        let rows: Vec<NameRow> = p
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| NameRow {
                index: i,
                name: &n.text,
                flags: n.flags,
            })
            .collect();
        if a.out.json {
            out.insert("names".into(), serde_json::to_value(&rows)?);
        } else {
            outln!(o, "# names ({})", rows.len());
            for r in &rows {
                outln!(o, "{:>6}  {:#010x}  {}", r.index, r.flags, r.name);
            }
        }
    }
    if a.imports {
        let rows: Vec<ImportRow> = p
            .imports
            .iter()
            .enumerate()
            .map(|(i, imp)| ImportRow {
                index: i,
                reference: ObjRef::import(i).0,
                class_package: p.name(imp.class_package).to_string(),
                class: p.name(imp.class_name).to_string(),
                path: path_of(ObjRef::import(i)),
            })
            .collect();
        if a.out.json {
            out.insert("imports".into(), serde_json::to_value(&rows)?);
        } else {
            outln!(o, "# imports ({})", rows.len());
            for r in &rows {
                outln!(
                    o,
                    "{:>6}  {:<24} {}",
                    r.index,
                    format!("{}.{}", r.class_package, r.class),
                    r.path
                );
            }
        }
    }
    if exports {
        let rows: Vec<ExportRow> = p
            .exports
            .iter()
            .enumerate()
            .map(|(i, e)| ExportRow {
                index: i,
                reference: ObjRef::export(i).0,
                class: p.export_class_name(i).unwrap_or("?").to_string(),
                path: path_of(ObjRef::export(i)),
                super_: (!e.super_.is_none()).then(|| path_of(e.super_)),
                flags: e.flags,
                flag_names: object_flag_names(e.flags),
                serial_size: e.serial_size,
                serial_offset: e.serial_offset,
            })
            .collect();
        if a.out.json {
            out.insert("entries".into(), serde_json::to_value(&rows)?);
        } else {
            outln!(o, "# exports ({})", rows.len());
            for r in &rows {
                outln!(
                    o,
                    "{:>6}  {:<16} {:>9} @ {:#08x}  {:#010x}  {}",
                    r.index,
                    r.class,
                    r.serial_size,
                    r.serial_offset,
                    r.flags,
                    r.path
                );
            }
        }
    }
    if a.out.json {
        print_json(&out)?;
    }
    emit(&o)?;
    Ok(ExitCode::SUCCESS)
}

/// `verify` for this format.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let mut o = String::new();
    let src = open(&a.file)?;
    let p = Package::parse_lenient(&src).map_err(|e| in_file(e, &a.file))?;
    let report = pakrat_classic::verify::verify(&p);
    let ok = report.problems.is_empty();
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "ok": ok,
            "version": p.summary.version,
            "licensee": p.summary.licensee,
            "names": p.names.len(),
            "imports": p.imports.len(),
            "exports": p.exports.len(),
            "report": report,
        }))?;
    } else {
        for pr in &report.problems {
            outln!(o, "problem at {:#x}: {}", pr.offset, pr.what);
        }
        let decoded = match &report.tables_only {
            Some(why) => format!("{why}, so objects were not decoded"),
            None => format!(
                "{} objects and {} properties decoded",
                report.objects_ok, report.properties
            ),
        };
        outln!(
            o,
            "{}: {} (v{}/{}, {} names, {} imports, {} exports; {decoded}, {} problems)",
            a.file.display(),
            if ok { "OK" } else { "PROBLEMS" },
            p.summary.version,
            p.summary.licensee,
            p.names.len(),
            p.imports.len(),
            p.exports.len(),
            report.problems.len()
        );
    }
    emit(&o)?;
    Ok(exit_code(ok))
}

fn find(p: &Package<'_>, file: &Path, q: &str) -> Result<Vec<usize>> {
    let found = p.find_exports(q);
    if found.is_empty() {
        bail!(
            "{}: no export named {q:?} (try `pakrat list {}`)",
            file.display(),
            file.display()
        );
    }
    Ok(found)
}

/// The package's name as the engine names it: the file name without its
/// extension (`Faces.utx` → `Faces`).
fn package_name(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// `props` for this format: the exports named by OBJECT, or every export
/// that has properties (or does not decode). Streams one export at a time;
/// exit code 1 when an export does not decode (its entry says why).
pub fn props(a: &PropsArgs) -> Result<ExitCode> {
    let src = open(a.file())?;
    let p = parse_package(a.file(), &src)?;
    // Tables only: every export would fail the same way; say it once.
    if let Err(why) = p.summary.object_layout() {
        let e = pakrat_io::Error::unsupported(4, why);
        return Err(in_file(e, a.file()));
    }
    let (found, all) = match &a.object {
        Some(q) => (find(&p, a.file(), q)?, false),
        None => ((0..p.exports.len()).collect(), true),
    };
    let js = PropsJson::new(&p, &package_name(a.file()));
    crate::output::with_stdout(|w| {
        let mut ok = true;
        let mut shown = 0usize;
        if a.out.json {
            writeln!(w, "{{\n  \"exports\": [")?;
        }
        for &i in &found {
            let obj = read_object(&p, i).map_err(|e| e.to_string());
            match &obj {
                Ok(d) if all && d.properties.is_empty() => continue,
                Err(_) => ok = false,
                Ok(_) => {}
            }
            if shown > 0 {
                writeln!(w, "{}", if a.out.json { "," } else { "" })?;
            }
            shown += 1;
            if a.out.json {
                let one = serde_json::to_string_pretty(
                    &js.export(i, obj.as_ref().map_err(Clone::clone)),
                )?;
                for (k, line) in one.lines().enumerate() {
                    if k > 0 {
                        writeln!(w)?;
                    }
                    write!(w, "    {line}")?;
                }
            } else {
                w.write_all(props_text(&p, i, &obj).as_bytes())?;
            }
        }
        if a.out.json {
            if shown > 0 {
                writeln!(w)?;
            }
            let kind = crate::output::kind().unwrap_or("package");
            writeln!(
                w,
                "  ],\n  \"kind\": {},\n  \"package\": {}\n}}",
                serde_json::to_string(kind)?,
                serde_json::to_string(js.package())?
            )?;
        }
        Ok(exit_code(ok))
    })
}

/// The text of one export: a header, its state frame and class fields,
/// one `Name=Value` line per property (T3D style), the native data left.
fn props_text(
    p: &Package<'_>,
    i: usize,
    obj: &std::result::Result<pakrat_classic::props::ObjectData<'_>, String>,
) -> String {
    let mut o = String::new();
    let path = p.export_path(i).unwrap_or_else(|e| format!("<{e}>"));
    let class = p.export_class_name(i).unwrap_or("?");
    outln!(o, "[{class}'{path}'] (export {i})");
    let obj = match obj {
        Ok(obj) => obj,
        Err(e) => {
            outln!(o, "; error: {e}");
            return o;
        }
    };
    if let Some(sf) = &obj.state_frame {
        outln!(
            o,
            "; state frame: node {}, state {}, probe mask {:#x}, latent action {}",
            p.object_path(sf.node).unwrap_or_default(),
            p.object_path(sf.state_node).unwrap_or_default(),
            sf.probe_mask,
            sf.latent_action
        );
    }
    if let Some(c) = &obj.class {
        outln!(
            o,
            "; class: flags {:#x}, within {}, config {}, {} dependencies; default properties at {:#x} (located by search)",
            c.class_flags,
            p.object_path(c.within).unwrap_or_default(),
            c.config_name.map_or("-", |n| p.name(n)),
            c.dependencies.len(),
            c.defaults_offset
        );
    }
    for prop in &obj.properties {
        outln!(o, "{}", view::property_text(p, prop));
    }
    outln!(
        o,
        "; {} bytes of native data follow",
        obj.native.remaining()
    );
    o
}

fn export_options(a: &ExportArgs) -> Result<ExportOptions> {
    let mut kinds = Vec::new();
    for c in &a.class {
        match Kind::parse(c) {
            Some(k) => kinds.push(k),
            None => {
                bail!("unknown --class {c:?}: expected Texture, Sound, Music, TextBuffer, Mesh or Material")
            }
        }
    }
    Ok(ExportOptions {
        kinds,
        all_mips: a.mips,
        mesh: Some(pakrat_mesh::export::hook),
        mesh_gltf: a.mesh_format == Some(crate::args_export::MeshFormat::Gltf),
        mesh_psk: a.mesh_format == Some(crate::args_export::MeshFormat::Psk),
        mesh_all_lods: a.all_lods,
        mesh_3d: a.mesh_format == Some(crate::args_export::MeshFormat::Unreal3d),
        decompile: None,
        package: String::new(),
    })
}

/// Counts of one package's export, for the summary lines.
#[derive(Default)]
struct Tally {
    files: usize,
    /// Nothing to export by design (stripped, procedural...).
    content: usize,
    filtered: usize,
    failed: usize,
    /// Classes without an exporter, with their object counts.
    no_exporter: BTreeMap<String, usize>,
}

impl Tally {
    fn of(reports: &[ObjectReport]) -> Tally {
        let mut t = Tally::default();
        for r in reports {
            match &r.outcome {
                Outcome::Exported { files } => t.files += files.len(),
                Outcome::Failed { .. } => t.failed += 1,
                Outcome::Skipped { cause, .. } => match cause {
                    SkipCause::Content => t.content += 1,
                    SkipCause::Filtered => t.filtered += 1,
                    SkipCause::NoExporter => {
                        *t.no_exporter.entry(r.class.clone()).or_default() += 1
                    }
                },
            }
        }
        t
    }
}

/// `export` for this format: one package, or (a folder) every UE1/UE2
/// package under it.
pub fn export(a: &ExportArgs) -> Result<ExitCode> {
    if a.package.is_dir() {
        return export_folder(a);
    }
    let mut o = String::new();
    let src = open(&a.package)?;
    let p = parse_package(&a.package, &src)?;
    let opts = export_options(a)?;
    let opts = crate::cmd::decompile::options_for(a, &opts, &p, &a.package);
    let mut only = Vec::new();
    for o in &a.objects {
        only.extend(find(&p, &a.package, o)?);
    }
    if !opts.kinds.is_empty() {
        // `--class` that matches nothing is one error, and nothing is made
        // (like a glob that matches nothing in extract).
        let any = (0..p.exports.len())
            .filter(|i| only.is_empty() || only.contains(i))
            .filter_map(|i| p.export_class_name(i).ok())
            .filter_map(pakrat_classic::export::kind_of_class)
            .any(|k| opts.kinds.contains(&k));
        if !any {
            return Err(crate::cmd::common::nothing_matches(
                &a.package,
                "object",
                &[format!("--class {}", a.class.join(","))],
            ));
        }
    }
    let out = OutputDir::create(&a.output, a.force).map_err(|e| in_file(e, &a.output))?;
    // Every name is known before anything is written: refuse existing files
    // once, up front (like extract).
    let paths = export_paths(&p, &only, &opts);
    crate::cmd::common::refuse_existing(&out, paths.iter().map(String::as_str))?;
    let n = if only.is_empty() {
        p.exports.len()
    } else {
        only.len()
    };
    let bar = crate::cmd::common::progress_count(n as u64, a.out.json, "exporting", "objects");
    let reports = export_objects_with(&p, &only, &out, &opts, &|| {
        if let Some(b) = &bar {
            b.inc(1)
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let t = Tally::of(&reports);
    if a.out.json {
        print_json(&json!({
            "package": a.package.display().to_string(),
            "output": out.root().display().to_string(),
            "objects": reports,
            "builtin_natives": crate::cmd::decompile::builtins_used(&opts),
        }))?;
    } else {
        for r in &reports {
            match &r.outcome {
                Outcome::Exported { files: f } => {
                    for w in f {
                        outln!(
                            o,
                            "{:<10} {} -> {} ({})",
                            r.class,
                            r.object,
                            w.path,
                            w.detail
                        );
                    }
                }
                Outcome::Failed { error } => {
                    outln!(o, "{:<10} {} FAILED: {}", r.class, r.object, error)
                }
                Outcome::Skipped {
                    cause: SkipCause::Content,
                    reason,
                } => outln!(o, "{:<10} {} skipped: {}", r.class, r.object, reason),
                Outcome::Skipped { .. } => {}
            }
        }
        if !t.no_exporter.is_empty() {
            let list: Vec<String> = t
                .no_exporter
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            outln!(
                o,
                "skipped, no exporter for the class: {} (--json lists each)",
                list.join(", ")
            );
        }
        if t.filtered > 0 {
            outln!(o, "skipped by --class: {}", t.filtered);
        }
        if let Some(note) = crate::cmd::decompile::builtins_note(&opts) {
            outln!(o, "{note}");
        }
        outln!(
            o,
            "{} files written to {}, {} skipped (nothing to export), {} objects failed",
            t.files,
            out.root().display(),
            t.content,
            t.failed
        );
    }
    emit(&o)?;
    Ok(exit_code(t.failed == 0))
}

/// `export DIR -o OUT`: every UE1/UE2 package under DIR (found by content)
/// exports into `OUT/<its path without the extension>/`; one summary line
/// per package.
fn export_folder(a: &ExportArgs) -> Result<ExitCode> {
    if !a.objects.is_empty() {
        bail!(
            "{}: is a folder; OBJECT names apply to one package (give the package file)",
            a.package.display()
        );
    }
    let opts = export_options(a)?;
    let files = pakrat_system::scan::list_files(&a.package).map_err(|e| in_file(e, &a.package))?;
    // Open and sniff every file; keep the UE1/UE2 packages.
    let mut packages = Vec::new();
    let mut others = 0usize;
    for f in files {
        match Source::open(&f) {
            Ok(src)
                if crate::detect::detect(&f, &crate::detect::Probe::of_bytes(&src))
                    == Some(crate::detect::Format::Package) =>
            {
                packages.push((f, src))
            }
            _ => others += 1,
        }
    }
    if packages.is_empty() {
        bail!(
            "{}: no UE1/UE2 package in this folder ({others} other files); nothing was written",
            a.package.display()
        );
    }
    // The output folder of each package, relative to OUT.
    let sub = |f: &Path| -> String {
        let rel = f.strip_prefix(&a.package).unwrap_or(f).with_extension("");
        rel.components()
            .map(|c| pakrat_classic::export::safe_component(&c.as_os_str().to_string_lossy()))
            .collect::<Vec<_>>()
            .join("/")
    };
    // Parse each once; refuse existing outputs for all of them up front.
    let parsed: Vec<(&Path, Result<Package<'_>>)> = packages
        .iter()
        .map(|(f, src)| (f.as_path(), parse_package(f, src)))
        .collect();
    let out = OutputDir::create(&a.output, a.force).map_err(|e| in_file(e, &a.output))?;
    let mut planned = Vec::new();
    for (f, p) in &parsed {
        if let Ok(p) = p {
            let base = sub(f);
            planned.extend(
                export_paths(p, &[], &crate::cmd::decompile::options_for(a, &opts, p, f))
                    .into_iter()
                    .map(|x| format!("{base}/{x}")),
            );
        }
    }
    crate::cmd::common::refuse_existing(&out, planned.iter().map(String::as_str))?;
    let bar = crate::cmd::common::progress_count(
        parsed.len() as u64,
        a.out.json,
        "exporting",
        "packages",
    );
    let mut o = String::new();
    let mut json_rows = Vec::new();
    let (mut files, mut content, mut failed, mut bad) = (0, 0, 0, 0);
    for (f, p) in &parsed {
        let name = f.display().to_string();
        let row = match p {
            Err(e) => {
                bad += 1;
                // The error names the file already.
                outln!(o, "UNREADABLE {}", crate::output::error_text(e));
                json!({"package": name, "error": crate::output::error_text(e)})
            }
            Ok(p) => {
                let dir = out
                    .resolve(&sub(f))
                    .and_then(|d| OutputDir::create(d, a.force))
                    .map_err(|e| in_file(e, &a.output))?;
                let popts = crate::cmd::decompile::options_for(a, &opts, p, f);
                let reports = export_objects(p, &[], &dir, &popts);
                let t = Tally::of(&reports);
                files += t.files;
                content += t.content;
                failed += t.failed;
                outln!(
                    o,
                    "{name}: {} files, {} skipped (nothing to export), {} failed{}",
                    t.files,
                    t.content,
                    t.failed,
                    if t.files > 0 {
                        format!(" -> {}", dir.root().display())
                    } else {
                        String::new()
                    }
                );
                for r in &reports {
                    if let Outcome::Failed { error } = &r.outcome {
                        outln!(o, "  {:<10} {} FAILED: {}", r.class, r.object, error);
                    }
                }
                if let Some(note) = crate::cmd::decompile::builtins_note(&popts) {
                    outln!(o, "  {note}");
                }
                let used = crate::cmd::decompile::builtins_used(&popts);
                json!({"package": name, "output": dir.root().display().to_string(), "objects": reports, "builtin_natives": used})
            }
        };
        json_rows.push(row);
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if a.out.json {
        print_json(&json!({
            "folder": a.package.display().to_string(),
            "output": out.root().display().to_string(),
            "packages": json_rows,
            "other_files": others,
        }))?;
    } else {
        outln!(
            o,
            "{} packages ({others} other files ignored): {files} files written to {}, {content} objects skipped (nothing to export), {failed} objects failed, {bad} packages unreadable",
            parsed.len(),
            out.root().display()
        );
        emit(&o)?;
    }
    Ok(exit_code(failed == 0 && bad == 0))
}
