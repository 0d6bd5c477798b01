//! Handlers for legacy UE4/UE5 packages (`.uasset`/`.umap` + `.uexp`):
//! info, list, verify.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use pakrat_asset::legacy::files::{self as lfiles, BulkFile};
use pakrat_asset::legacy::summary::flags;
use pakrat_asset::legacy::LegacyPackage;
use pakrat_io::text::show;
use pakrat_io::Source;
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{engine, exit_code};
use crate::output::{human_size, with_stdout, write_json};

/// A legacy package and the files beside it.
struct Loaded {
    asset: Source,
    uexp: Option<Source>,
    bulk: Vec<(BulkFile, u64)>,
    pkg: LegacyPackage,
}

impl Loaded {
    fn bulk_size(&self, k: BulkFile) -> Option<u64> {
        self.bulk.iter().find(|b| b.0 == k).map(|b| b.1)
    }
    fn total(&self) -> u64 {
        self.asset.len() as u64
            + self.uexp.as_ref().map_or(0, |u| u.len() as u64)
            + self.bulk.iter().map(|b| b.1).sum::<u64>()
    }
}

fn load(file: &Path, ue_version: Option<&str>) -> Result<Loaded> {
    let layout = engine(ue_version)?;
    let asset = Source::open(file)?;
    let pkg = LegacyPackage::read(&asset, layout).map_err(|e| anyhow!("{}", e.in_file(file)))?;
    let uexp_path = lfiles::companion(file, "uexp");
    let uexp = if uexp_path.is_file() {
        Some(Source::open(&uexp_path)?)
    } else {
        None
    };
    let mut bulk = Vec::new();
    for k in BulkFile::ALL {
        if let Ok(m) = std::fs::metadata(lfiles::companion(file, k.ext())) {
            if m.is_file() {
                bulk.push((k, m.len()));
            }
        }
    }
    Ok(Loaded {
        asset,
        uexp,
        bulk,
        pkg,
    })
}

fn version_text(p: &LegacyPackage) -> String {
    let s = &p.summary;
    let mut v = format!(
        "legacy file version {}, UE4 {}",
        s.legacy_file_version, p.layout.ue4
    );
    if p.layout.ue5 > 0 {
        v.push_str(&format!(", UE5 {}", p.layout.ue5));
    }
    v.push_str(&format!(", licensee {}", s.licensee_version));
    if s.is_unversioned() {
        v.push_str(" (unversioned: layout from --ue-version)");
    }
    v
}

fn saved_by(p: &LegacyPackage) -> Option<String> {
    let e = p.summary.saved_by.as_ref().filter(|e| e.major > 0)?;
    Some(format!(
        "{}.{}.{}-{}{}",
        e.major,
        e.minor,
        e.patch,
        e.changelist & 0x7FFF_FFFF,
        if e.branch.is_empty() {
            String::new()
        } else {
            format!("+{}", e.branch)
        }
    ))
}

/// Imported packages (the outermost imports) and how many objects each gives.
fn imported_packages(p: &LegacyPackage) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..p.imports.len() {
        let mut at = -(i as i32) - 1;
        let mut steps = 0;
        while p.outer_of(at) != 0 && steps <= p.imports.len() {
            at = p.outer_of(at);
            steps += 1;
        }
        let name = p.object_name(at).unwrap_or_else(|| "?".into());
        let c = counts.entry(name).or_default();
        if at != -(i as i32) - 1 {
            *c += 1;
        }
    }
    counts.into_iter().collect()
}

fn class_counts(p: &LegacyPackage) -> Vec<(String, usize)> {
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..p.exports.len() {
        let c = p
            .class_path(i as i32 + 1)
            .map(|c| c.rsplit(['.', ':']).next().unwrap_or(&c).to_string())
            .unwrap_or_else(|| "?".into());
        *classes.entry(c).or_default() += 1;
    }
    let mut v: Vec<_> = classes.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// `info` for a legacy package.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let l = load(&a.file, a.ue_version.as_deref())?;
    let p = &l.pkg;
    let s = &p.summary;
    let imports = imported_packages(p);
    let classes = class_counts(p);
    let files: Vec<_> = std::iter::once(("uasset", l.asset.len() as u64))
        .chain(l.uexp.as_ref().map(|u| ("uexp", u.len() as u64)))
        .chain(l.bulk.iter().map(|(k, n)| (k.ext(), *n)))
        .collect();
    with_stdout(|w| {
        if a.out.json {
            write_json(
                w,
                &json!({
                    "file": a.file.display().to_string(),
                    "package": s.package_name,
                    "layout": p.layout,
                    "cooked": pakrat_asset::legacy::is_cooked(s.package_flags),
                    "saved_by": saved_by(p),
                    "package_flag_names": flags::names(s.package_flags),
                    "summary": s,
                    "files": files.iter().map(|(e, n)| json!({"ext": e, "size": n})).collect::<Vec<_>>(),
                    "names": p.names.len(),
                    "imports": p.imports.len(),
                    "exports": p.exports.len(),
                    "preload_dependencies": p.preload_dependencies.len(),
                    "data_resources": p.data_resources.len(),
                    "imported_packages": imports.iter().map(|(n, c)| json!({"package": n, "objects": c})).collect::<Vec<_>>(),
                    "export_classes": classes.iter().map(|(n, c)| json!({"class": n, "count": c})).collect::<Vec<_>>(),
                }),
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        let line = |w: &mut dyn Write, t: String| writeln!(w, "{}", show(&t));
        line(
            w,
            format!(
                "{}: {} {} package {}, {}",
                a.file.display(),
                if p.layout.ue5 > 0 { "UE5" } else { "UE4" },
                if pakrat_asset::legacy::is_cooked(s.package_flags) {
                    "cooked"
                } else {
                    "editor"
                },
                s.package_name,
                version_text(p)
            ),
        )?;
        let f: Vec<String> = files
            .iter()
            .map(|(e, n)| format!(".{e} {}", human_size(*n)))
            .collect();
        line(
            w,
            format!(
                "files:        {} ({} in all)",
                f.join(", "),
                human_size(l.total())
            ),
        )?;
        if let Some(v) = saved_by(p) {
            line(w, format!("saved by:     {v}"))?;
        }
        let fl = flags::names(s.package_flags);
        line(
            w,
            format!(
                "flags:        {:#010x} ({})",
                s.package_flags,
                if fl.is_empty() {
                    "none".into()
                } else {
                    fl.join(", ")
                }
            ),
        )?;
        line(
            w,
            format!(
                "names:        {:>6}   imports: {}   exports: {}   preload deps: {}   data resources: {}",
                p.names.len(),
                p.imports.len(),
                p.exports.len(),
                p.preload_dependencies.len(),
                p.data_resources.len()
            ),
        )?;
        line(
            w,
            format!(
                "custom versions: {}{}",
                s.custom_versions.len(),
                if s.unversioned_properties() {
                    "; unversioned properties"
                } else {
                    ""
                }
            ),
        )?;
        line(w, crate::cmd::common::imports_from(&imports))?;
        let top: Vec<String> = classes
            .iter()
            .take(8)
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        line(w, format!("classes:      {}", top.join(", ")))?;
        Ok(ExitCode::SUCCESS)
    })
}

/// `list` for a legacy package: names, imports, exports (the default).
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let l = load(&a.file, a.ue_version.as_deref())?;
    let p = &l.pkg;
    let exports = a.exports || (!a.names && !a.imports);
    let or_q = |s: Option<String>| s.unwrap_or_else(|| "?".into());
    let names: Vec<_> = p
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"index": i, "name": n.text}))
        .collect();
    let imports: Vec<_> = (0..p.imports.len())
        .map(|i| {
            let r = -(i as i32) - 1;
            json!({
                "index": i,
                "reference": r,
                "class": or_q(p.class_path(r)),
                "path": or_q(p.path(r)),
                "optional": p.imports[i].optional,
            })
        })
        .collect();
    let exps: Vec<_> = (0..p.exports.len())
        .map(|i| {
            let e = &p.exports[i];
            let r = i as i32 + 1;
            json!({
                "index": i,
                "reference": r,
                "class": or_q(p.class_path(r)),
                "path": or_q(p.path(r)),
                "outer": e.outer,
                "object_flags": e.object_flags,
                "serial_offset": e.serial_offset,
                "serial_size": e.serial_size,
                "public": e.object_flags & 1 != 0,
            })
        })
        .collect();
    with_stdout(|w| {
        if a.out.json {
            let mut out = serde_json::Map::new();
            out.insert("file".into(), a.file.display().to_string().into());
            if a.names {
                out.insert("names".into(), names.clone().into());
            }
            if a.imports {
                out.insert("imports".into(), imports.clone().into());
            }
            if exports {
                out.insert("entries".into(), exps.clone().into());
            }
            write_json(w, &out)?;
            return Ok(ExitCode::SUCCESS);
        }
        let s = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or("").to_string();
        let n = |v: &serde_json::Value, k: &str| v[k].as_i64().unwrap_or(0);
        if a.names {
            for x in &names {
                writeln!(w, "{:>6}  {}", n(x, "index"), show(&s(x, "name")))?;
            }
        }
        if a.imports {
            for i in &imports {
                writeln!(
                    w,
                    "{:>6}  {:<40}  {}",
                    n(i, "reference"),
                    show(&s(i, "class")),
                    show(&s(i, "path"))
                )?;
            }
        }
        if exports {
            for e in &exps {
                writeln!(
                    w,
                    "{:>6}  {:>10}  {:<40}  {}",
                    n(e, "reference"),
                    n(e, "serial_size"),
                    show(&s(e, "class")),
                    show(&s(e, "path"))
                )?;
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `verify` for a legacy package: references, export data, the `.uexp`
/// end tag and bulk data payloads.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let l = load(&a.file, a.ue_version.as_deref())?;
    let r = lfiles::verify(&l.pkg, &l.asset, l.uexp.as_deref(), &|k| l.bulk_size(k));
    let ok = r.problems.is_empty();
    with_stdout(|w| {
        if a.out.json {
            write_json(
                w,
                &json!({
                    "file": a.file.display().to_string(),
                    "ok": ok,
                    "exports_checked": r.exports_checked,
                    "resources_checked": r.resources_checked,
                    "problems": r.problems,
                }),
            )?;
        } else {
            for p in &r.problems {
                writeln!(w, "{}: {}", a.file.display(), show(p))?;
            }
            writeln!(
                w,
                "{}: {} ({} names, {} imports, {} exports with their data, {} bulk payloads checked)",
                a.file.display(),
                if ok {
                    "OK".to_string()
                } else {
                    format!("{} problem(s)", r.problems.len())
                },
                l.pkg.names.len(),
                l.pkg.imports.len(),
                r.exports_checked,
                r.resources_checked
            )?;
        }
        Ok(exit_code(ok))
    })
}
