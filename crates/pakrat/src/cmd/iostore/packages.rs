//! `packages` for IoStore containers: the zen packages of a container, or
//! one package in detail, with class names resolved through a global
//! container.

use std::collections::HashSet;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Result};
use pakrat_asset::zen::{
    self, ContainerPackages, ObjectIndex, PackageEntry, Resolver, ScriptObjects, ZenPackage,
};
use pakrat_codec::names::{hex_id, package_id};
use pakrat_io::text::show;
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{global_script, open_container};

/// `packages` for this format: the zen packages of a container, or one
/// package in detail, with class names resolved through a global container.
pub fn packages(a: &PackagesArgs) -> Result<ExitCode> {
    let c = open_container(&a.file, &a.keys)?;
    let (script, notes) = global_script(&a.file, a.global.as_deref(), &a.keys)?;
    let all = read_packages(&c, a)?;
    let public = all.public_exports();
    let res = Resolver {
        all: &all,
        script: script.as_ref(),
        public: &public,
    };
    // Write to a locked stdout and stop quietly when the reader goes away
    // (e.g. `| head`) instead of panicking in println!.
    let mut o = std::io::stdout().lock();
    if let Some(q) = &a.package {
        return one_package(a, q, &res, &notes, &mut o);
    }
    let table = Table::of(&all, &res);
    let written = if a.out.json {
        let text = crate::output::json_text(&table.json(a, &all, script.as_ref()))?;
        writeln!(o, "{text}")
    } else {
        table.print(&mut o, a, &all, script.as_ref(), &notes)
    };
    if written.is_err() {
        return Ok(ExitCode::SUCCESS);
    }
    if table.failed > 0 {
        eprintln!(
            "pakrat: {} package(s) could not be read or have a wrong id",
            table.failed
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The container's packages; a global container (script objects, no
/// packages) is named as such.
fn read_packages(c: &pakrat_iostore::Container, a: &PackagesArgs) -> Result<ContainerPackages> {
    match ContainerPackages::read(c) {
        Ok(p) => Ok(p),
        Err(e) => {
            // A global container has script objects but no packages.
            if let Ok(s) = zen::load_script_objects(c) {
                bail!(
                    "{}: a global container ({} script objects); it holds no packages",
                    a.file.display(),
                    s.objects.len()
                );
            }
            Err(e.into())
        }
    }
}

/// The last part of an object path (`/Script/Engine.Actor` -> `Actor`);
/// `<...>` placeholders stay whole.
fn short(s: String) -> String {
    match s.rfind(['.', ':']) {
        Some(i) if !s.starts_with('<') => s[i + 1..].to_string(),
        _ => s,
    }
}

/// The class of a package's "main" export: the one named like the
/// package, else the first.
fn main_class(res: &Resolver<'_>, p: &ZenPackage, id: u64) -> String {
    let leaf = p.name.rsplit('/').next().unwrap_or("");
    p.exports
        .iter()
        .find(|e| p.name_of(e.name) == leaf)
        .or(p.exports.first())
        .map(|e| short(res.name(p, id, e.class)))
        .unwrap_or_default()
}

/// One package in detail (`packages FILE PACKAGE`).
fn one_package(
    a: &PackagesArgs,
    q: &str,
    res: &Resolver<'_>,
    notes: &[String],
    o: &mut impl Write,
) -> Result<ExitCode> {
    let all = res.all;
    let Some(entry) = all.find(q) else {
        bail!("{}: no package {q:?} in this container", a.file.display());
    };
    let p = entry
        .header
        .as_ref()
        .map_err(|e| anyhow::anyhow!("package {}: {e}", hex_id(entry.id)))?;
    let detail = Detail {
        entry,
        p,
        res,
        imported: imported_names(all, entry.id, p),
    };
    if a.out.json {
        let text = crate::output::json_text(&detail.json())?;
        // A reader that went away is not an error.
        let _ = writeln!(o, "{text}");
        return Ok(ExitCode::SUCCESS);
    }
    if detail.print(o).is_ok() {
        for n in notes {
            eprintln!("pakrat: note: {n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The names of the packages `p` imports: its own list, else the
/// container's names for the ids of its store entry.
fn imported_names(all: &ContainerPackages, id: u64, p: &ZenPackage) -> Vec<String> {
    let Some(store) = all.store_entry(id) else {
        return p.imported_package_names.clone();
    };
    store
        .imported_packages
        .iter()
        .enumerate()
        .map(|(k, pid)| {
            p.imported_package_names.get(k).cloned().unwrap_or_else(|| {
                all.packages
                    .iter()
                    .find(|x| x.id == *pid)
                    .and_then(|x| x.header.as_ref().ok())
                    .map(|h| h.name.clone())
                    .unwrap_or_else(|| hex_id(*pid))
            })
        })
        .collect()
}

/// One package and what its detail view resolves.
struct Detail<'a> {
    entry: &'a PackageEntry,
    p: &'a ZenPackage,
    res: &'a Resolver<'a>,
    imported: Vec<String>,
}

impl Detail<'_> {
    /// The readable name of an object index of this package.
    fn obj(&self, i: ObjectIndex) -> String {
        self.res.name(self.p, self.entry.id, i)
    }

    /// The `--json` form.
    fn json(&self) -> serde_json::Value {
        let (p, id) = (self.p, self.entry.id);
        let exports: Vec<_> = p
            .exports
            .iter()
            .enumerate()
            .map(|(i, e)| {
                json!({
                    "index": i,
                    "name": p.name_of(e.name),
                    "class": self.obj(e.class),
                    "outer": self.obj(e.outer),
                    "super": self.obj(e.super_index),
                    "template": self.obj(e.template),
                    "serial_offset": e.serial_offset,
                    "serial_size": e.serial_size,
                    "object_flags": e.object_flags,
                    "filter_flags": e.filter_flags,
                    "public_export_hash": format!("{:016X}", e.public_export_hash),
                })
            })
            .collect();
        let imports: Vec<_> = p.imports.iter().map(|&i| self.obj(i)).collect();
        json!({
            "name": p.name,
            "id": hex_id(id),
            "id_matches_name": package_id(&p.name) == id,
            "path": self.entry.path,
            "layout": p.layout.describe(),
            "versioning": p.versioning,
            "package_flags": p.package_flags,
            "header_size": p.header_size,
            "cooked_header_size": p.cooked_header_size,
            "names": p.names.iter().map(|n| n.text.clone()).collect::<Vec<_>>(),
            "name_hash_mismatches": p.name_hash_mismatches(),
            "imported_packages": self.imported,
            "imports": imports,
            "exports": exports,
            "export_bundle_entries": p.export_bundle_entries.len(),
            "export_bundles": p.export_bundle_headers.len(),
            "dependency_bundles": p.dependency_bundle_headers.len(),
            "dependency_bundle_entries": p.dependency_bundle_entries.len(),
        })
    }

    /// The text form: the header, then the tables.
    fn print(&self, o: &mut impl Write) -> std::io::Result<()> {
        self.print_header(o)?;
        self.print_tables(o)
    }

    /// Name, id, path, layout, versioning and flags.
    fn print_header(&self, o: &mut impl Write) -> std::io::Result<()> {
        let (p, id) = (self.p, self.entry.id);
        writeln!(o, "{}", show(&p.name))?;
        writeln!(
            o,
            "  id:          {}{}",
            hex_id(id),
            if package_id(&p.name) == id {
                ""
            } else {
                "  (DOES NOT MATCH the name's CityHash64)"
            }
        )?;
        if let Some(path) = &self.entry.path {
            writeln!(o, "  path:        {}", show(path))?;
        }
        writeln!(o, "  layout:      {}", p.layout.describe())?;
        match &p.versioning {
            Some(v) => writeln!(
                o,
                "  versioned:   zen {}, UE4 {}, UE5 {}, licensee {}, {} custom versions",
                v.zen_version,
                v.file_version_ue4,
                v.file_version_ue5,
                v.licensee,
                v.custom_versions.len()
            )?,
            None => writeln!(o, "  versioned:   no (unversioned)")?,
        }
        writeln!(
            o,
            "  flags:       {:#010x}, header {} bytes, cooked header {} bytes",
            p.package_flags, p.header_size, p.cooked_header_size
        )?;
        if let Some(s) = &p.source_name {
            writeln!(o, "  source name: {s}")?;
        }
        Ok(())
    }

    /// Names, imported packages, imports, exports and bundle counts.
    fn print_tables(&self, o: &mut impl Write) -> std::io::Result<()> {
        let p = self.p;
        writeln!(
            o,
            "  names ({}{}):",
            p.names.len(),
            match p.name_hash_mismatches() {
                0 => String::new(),
                n => format!(", {n} with a wrong stored hash"),
            }
        )?;
        for (i, n) in p.names.iter().enumerate() {
            writeln!(o, "    {i:4}  {}", n.text)?;
        }
        writeln!(o, "  imported packages ({}):", self.imported.len())?;
        for n in &self.imported {
            writeln!(o, "          {n}")?;
        }
        writeln!(o, "  imports ({}):", p.imports.len())?;
        for (i, &imp) in p.imports.iter().enumerate() {
            let n = self.obj(imp);
            writeln!(
                o,
                "    {i:4}  {}",
                if n.is_empty() { "(null)" } else { n.as_str() }
            )?;
        }
        writeln!(o, "  exports ({}):", p.exports.len())?;
        for (i, e) in p.exports.iter().enumerate() {
            let outer = self.obj(e.outer);
            writeln!(
                o,
                "    {i:4}  {}  class {}{}  size {}  flags {:#x}",
                p.name_of(e.name),
                self.obj(e.class),
                if outer.is_empty() {
                    String::new()
                } else {
                    format!("  outer {outer}")
                },
                e.serial_size,
                e.object_flags
            )?;
        }
        if !p.export_bundle_headers.is_empty() {
            writeln!(o, "  export bundles: {}", p.export_bundle_headers.len())?;
        }
        if !p.dependency_bundle_headers.is_empty() {
            writeln!(
                o,
                "  dependency bundles: {} ({} entries)",
                p.dependency_bundle_headers.len(),
                p.dependency_bundle_entries.len()
            )?;
        }
        Ok(())
    }
}

/// The table of all packages of a container.
struct Table {
    /// One row a package, sorted by name (unreadable ones first).
    rows: Vec<serde_json::Value>,
    /// Package ids of the container header without a package chunk.
    missing: Vec<String>,
    /// Packages that could not be read or whose id does not match the name.
    failed: usize,
}

impl Table {
    fn of(all: &ContainerPackages, res: &Resolver<'_>) -> Table {
        let mut failed = 0usize;
        let mut rows = Vec::new();
        for e in &all.packages {
            match &e.header {
                Ok(p) => {
                    let ok_id = package_id(&p.name) == e.id;
                    if !ok_id {
                        failed += 1;
                    }
                    rows.push(json!({
                        "id": hex_id(e.id),
                        "name": p.name,
                        "path": e.path,
                        "class": main_class(res, p, e.id),
                        "exports": p.exports.len(),
                        "imports": p.imports.len(),
                        "imported_packages": all.store_entry(e.id).map(|s| s.imported_packages.len()),
                        "id_matches_name": ok_id,
                    }));
                }
                Err(err) => {
                    failed += 1;
                    rows.push(json!({
                        "id": hex_id(e.id),
                        "path": e.path,
                        "error": err.to_string(),
                    }));
                }
            }
        }
        rows.sort_by(|x, y| x["name"].as_str().cmp(&y["name"].as_str()));
        let chunk_ids: HashSet<u64> = all.packages.iter().map(|p| p.id).collect();
        let missing = all
            .header
            .package_ids
            .iter()
            .filter(|id| !chunk_ids.contains(*id))
            .map(|id| hex_id(*id))
            .collect();
        Table {
            rows,
            missing,
            failed,
        }
    }

    /// The `--json` form.
    fn json(
        &self,
        a: &PackagesArgs,
        all: &ContainerPackages,
        script: Option<&ScriptObjects>,
    ) -> serde_json::Value {
        json!({
            "file": a.file.display().to_string(),
            "container_id": hex_id(all.header.container_id),
            "container_header": all.header.form.describe(),
            "layout": all.layout.describe(),
            "script_objects": script.map(|s| s.objects.len()),
            "packages": self.rows,
            "header_packages_without_chunk": self.missing,
            "redirects": all.header.redirects.len(),
            "localized_packages": all.header.localized_packages.len(),
            "failed": self.failed,
        })
    }

    /// The text form: a title line, one line a package, then what the
    /// container header holds beyond them; notes go to stderr.
    fn print(
        &self,
        o: &mut impl Write,
        a: &PackagesArgs,
        all: &ContainerPackages,
        script: Option<&ScriptObjects>,
        notes: &[String],
    ) -> std::io::Result<()> {
        writeln!(
            o,
            "{}: {} packages (container header {}, package layout {}){}",
            a.file.display(),
            all.packages.len(),
            all.header.form.describe(),
            all.layout.describe(),
            match script {
                Some(s) => format!(
                    ", {} script objects from the global container",
                    s.objects.len()
                ),
                None => String::new(),
            }
        )?;
        self.print_rows(o)?;
        self.print_header_extras(o, a, all)?;
        for n in notes {
            eprintln!("pakrat: note: {n}");
        }
        Ok(())
    }

    fn print_rows(&self, o: &mut impl Write) -> std::io::Result<()> {
        writeln!(
            o,
            "{:>7} {:>7}  {:<24} PACKAGE",
            "EXPORTS", "IMPORTS", "CLASS"
        )?;
        for r in &self.rows {
            if let Some(err) = r["error"].as_str() {
                writeln!(
                    o,
                    "  ERROR {} {}: {err}",
                    r["id"].as_str().unwrap_or(""),
                    r["path"].as_str().unwrap_or("")
                )?;
                continue;
            }
            writeln!(
                o,
                "{:>7} {:>7}  {:<24} {}{}",
                r["exports"].as_u64().unwrap_or(0),
                r["imports"].as_u64().unwrap_or(0),
                r["class"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or(""),
                if r["id_matches_name"] == json!(false) {
                    format!(
                        "  (id {} does not match the name)",
                        r["id"].as_str().unwrap_or("")
                    )
                } else {
                    String::new()
                }
            )?;
        }
        Ok(())
    }

    /// Header package ids without a chunk, redirects and localized packages.
    fn print_header_extras(
        &self,
        o: &mut impl Write,
        a: &PackagesArgs,
        all: &ContainerPackages,
    ) -> std::io::Result<()> {
        if !self.missing.is_empty() {
            writeln!(
                o,
                "{} package id(s) in the container header have no package chunk here{}",
                self.missing.len(),
                if a.verbose {
                    ":"
                } else {
                    " (--verbose lists them)"
                }
            )?;
            if a.verbose {
                for m in &self.missing {
                    writeln!(o, "  {m}")?;
                }
            }
        }
        if !all.header.redirects.is_empty() || !all.header.localized_packages.is_empty() {
            writeln!(
                o,
                "{} redirects, {} localized packages",
                all.header.redirects.len(),
                all.header.localized_packages.len()
            )?;
        }
        Ok(())
    }
}
