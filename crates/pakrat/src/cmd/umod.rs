//! Handlers for UMOD installers: info, list, verify, extract, and
//! `umod create|install|uninstall`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use pakrat_io::fsutil::OutputDir;
use pakrat_io::text::show;
use pakrat_umod::create::{CreateOptions, OrderTemplate};
use pakrat_umod::install::{FileAction, InstallOptions, UninstallAction, UninstallOptions};
use pakrat_umod::{
    Container, ExtractOptions, Manifest, MemberIndex, RecordKind, Severity, Umod, UmodFile,
};
use serde::Serialize;

use crate::args::*;
use crate::cmd::common::exit_code;
use crate::output::{human_size, print_json};

/// One flat message: `pakrat_io::Error::InFile` already prints its source,
/// so handing it to anyhow as a chain would print the cause twice.
fn flat(e: pakrat_io::Error) -> anyhow::Error {
    anyhow::Error::new(e)
}

fn open(path: &Path) -> Result<UmodFile> {
    UmodFile::open(path).map_err(flat)
}

fn parse<'a>(file: &'a UmodFile) -> Result<Umod<'a>> {
    Umod::parse_file(file).map_err(flat)
}

/// Where each member goes when installed (one indexed lookup per member).
fn destination(idx: Option<&MemberIndex<'_>>, name: &str) -> String {
    let Some(idx) = idx else {
        return "(no manifest)".into();
    };
    match idx.get(name) {
        Some(r) if r.kind == RecordKind::Copy => "(setup file, not installed)".into(),
        Some(r) => {
            let mut d = r.install_dest().to_string();
            if let Some(l) = &r.lang {
                d.push_str(&format!(" (Lang={l})"));
            }
            if r.decodes_uz() {
                d.push_str(" (decoded from .uz)");
            }
            d
        }
        None => "(not named by the manifest)".into(),
    }
}

#[derive(Serialize)]
struct InfoFile<'a> {
    name: &'a str,
    offset: u32,
    size: u32,
    flags: u32,
    destination: String,
}

#[derive(Serialize)]
struct InfoJson<'a> {
    file: String,
    trailer: &'a pakrat_umod::Trailer,
    files: Vec<InfoFile<'a>>,
    manifest: Option<&'a Manifest>,
    problems: &'a [pakrat_umod::Problem],
}

/// `info` for this format.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let file = open(&a.file)?;
    let u = parse(&file)?;
    let m = Manifest::from_umod(&u).ok().flatten();
    let idx = m.as_ref().map(Manifest::member_index);
    let files: Vec<InfoFile> = u
        .entries
        .iter()
        .map(|e| InfoFile {
            name: &e.name,
            offset: e.offset,
            size: e.size,
            flags: e.flags,
            destination: destination(idx.as_ref(), &e.name),
        })
        .collect();
    if a.out.json {
        print_json(&InfoJson {
            file: a.file.display().to_string(),
            trailer: &u.trailer,
            files,
            manifest: m.as_ref(),
            problems: u.problems(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let t = &u.trailer;
    let kind = match t.container {
        Container::Plain => "UMOD".to_string(),
        Container::SignedExe { .. } => "UMOD inside a signed self-extracting .exe".to_string(),
    };
    println!(
        "{}: {kind}, version {}, {} members, {} ({} bytes), CRC {:#010x}",
        a.file.display(),
        t.version,
        u.entries.len(),
        human_size(u64::from(t.file_size)),
        t.file_size,
        t.crc
    );
    match &m {
        None => println!("no System\\Manifest.ini: not installable by Setup"),
        Some(m) => {
            // Manifest values come from a stranger: escaped for the terminal.
            let val =
                |v: Option<&str>| show(v.filter(|s| !s.is_empty()).unwrap_or("-")).into_owned();
            println!(
                "product:      {} (Product={}, Version={})",
                val(m.display_name()),
                val(m.product.as_deref()),
                val(m.version.as_deref())
            );
            let dev = val(m.local("Developer"));
            match m.local("DeveloperURL").filter(|s| !s.is_empty()) {
                Some(url) => println!("developer:    {dev} <{}>", show(url)),
                None => println!("developer:    {dev}"),
            }
            if let Some(u) = m.local("ProductURL").filter(|s| !s.is_empty()) {
                println!("product URL:  {}", show(u));
            }
            if let Some(r) = m.local("ReadMe").filter(|s| !s.is_empty()) {
                println!("readme:       {}", show(r));
            }
            for r in &m.requirements {
                let v = match r.version.as_deref() {
                    None | Some("") => "any version".to_string(),
                    Some(v) => format!("version {} or later", show(v)),
                };
                println!(
                    "requires:     {} {v} [{}]",
                    show(r.product.as_deref().unwrap_or("?")),
                    show(&r.section)
                );
            }
            let groups: Vec<String> = m
                .groups
                .iter()
                .map(|g| match &g.parent {
                    Some(p) => format!("{}/{}", show(p), show(&g.name)),
                    None => show(&g.name).into_owned(),
                })
                .collect();
            println!("groups:       {}", groups.join(", "));
            for g in &m.groups {
                for (k, v) in &g.other {
                    println!("              [{}] {}={}", show(&g.name), show(k), show(v));
                }
            }
        }
    }
    println!(
        "{:>10}  {:>5}  {:<32}  installs to",
        "size", "flags", "member"
    );
    for f in &files {
        println!(
            "{:>10}  {:>5}  {:<32}  {}",
            f.size,
            f.flags,
            show(f.name),
            show(&f.destination)
        );
    }
    let errors = u.problems().iter().filter(|p| p.is_error()).count();
    if errors > 0 {
        println!("{errors} structural problem(s); run `pakrat verify` for details");
    }
    Ok(ExitCode::SUCCESS)
}

/// `list` for this format.
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let file = open(&a.file)?;
    let u = parse(&file)?;
    if a.out.json {
        print_json(&serde_json::json!({
            "file": a.file.display().to_string(),
            "entries": &u.entries,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("{:>10}  {:>10}  {:>5}  name", "offset", "size", "flags");
    for e in &u.entries {
        println!(
            "{:>10}  {:>10}  {:>5}  {}",
            e.offset,
            e.size,
            e.flags,
            show(&e.name)
        );
    }
    let total: u64 = u.entries.iter().map(|e| u64::from(e.size)).sum();
    println!(
        "{} members, {} ({total} bytes)",
        u.entries.len(),
        human_size(total)
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct VerifyJson<'a> {
    file: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    verification: Option<&'a pakrat_umod::Verification>,
}

/// `verify` for this format: exit 0 when sound, 1 when anything is wrong.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let file = open(&a.file)?;
    let u = match Umod::parse_file(&file) {
        Ok(u) => u,
        Err(e) => {
            if a.out.json {
                print_json(&VerifyJson {
                    file: a.file.display().to_string(),
                    ok: false,
                    error: Some(e.to_string()),
                    verification: None,
                })?;
            } else {
                println!("FAILED: {e}");
            }
            return Ok(ExitCode::from(1));
        }
    };
    let v = u.verify();
    if a.out.json {
        print_json(&VerifyJson {
            file: a.file.display().to_string(),
            ok: v.ok(),
            error: None,
            verification: Some(&v),
        })?;
    } else {
        let t = &u.trailer;
        println!(
            "{}: magic {:#010x}, version {}, FileSize {}, directory at {:#x} with {} entries",
            a.file.display(),
            t.magic,
            t.version,
            t.file_size,
            t.dir_offset,
            u.entries.len()
        );
        println!(
            "CRC: recorded {:#010x}, computed {:#010x}",
            v.crc_expected, v.crc_actual
        );
        for p in &v.problems {
            let tag = match p.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            println!("{tag}: {}", show(&p.to_string()));
        }
        let errors = v.errors().count();
        let warnings = v.problems.len() - errors;
        if v.ok() {
            println!("OK ({warnings} warning(s))");
        } else {
            println!("FAILED: {errors} error(s), {warnings} warning(s)");
        }
    }
    Ok(exit_code(v.ok()))
}

/// `extract` for this format.
pub fn extract(a: &ExtractArgs) -> Result<ExitCode> {
    let file = open(&a.file)?;
    let u = parse(&file)?;
    // A glob that matches nothing is an error before any folder is made.
    let total: u64 = match pakrat_umod::extract::select(&u, &a.globs, &mut Vec::new()) {
        Ok(sel) => sel.iter().map(|e| u64::from(e.size)).sum(),
        Err(e) => bail!("{}: {e}; nothing was written", a.file.display()),
    };
    let out = OutputDir::create(&a.output, a.force).map_err(flat)?;
    let opts = ExtractOptions {
        globs: a.globs.clone(),
        ignore_crc: a.ignore_crc,
    };
    let bar = crate::cmd::common::progress(total, a.out.json, "extracting");
    let rep = pakrat_umod::extract_with(&u, &out, &opts, &|n| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let rep = rep.map_err(|e| anyhow::anyhow!("{}: {e}", a.file.display()))?;
    for w in &rep.warnings {
        eprintln!("pakrat: warning: {}", show(w));
    }
    if a.out.json {
        // The same top-level keys as the other formats' `extract`.
        let mut v = serde_json::to_value(&rep)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("file".into(), a.file.display().to_string().into());
            m.insert("output".into(), out.root().display().to_string().into());
            m.insert("extracted".into(), rep.files.len().into());
        }
        print_json(&v)?;
    } else {
        // -q drops the per-file lines, never the result line.
        if !crate::cmd::common::quiet() {
            for f in &rep.files {
                println!("{:>10}  {}", f.size, show(&f.path.display().to_string()));
            }
        }
        let total: u64 = rep.files.iter().map(|f| f.size).sum();
        println!(
            "extracted {} files, {} into {}",
            rep.files.len(),
            human_size(total),
            out.root().display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `umod create`.
pub fn create(a: &UmodCreateArgs) -> Result<ExitCode> {
    let template_file = match &a.order_from {
        Some(p) => Some(open(p)?),
        None => None,
    };
    let template = match &template_file {
        Some(f) => Some(OrderTemplate::from_umod(&parse(f)?)),
        None => None,
    };
    let opts = CreateOptions {
        align: a.align,
        order_from: template,
        follow_symlinks: a.follow_symlinks,
    };
    if !a.src.is_dir() {
        bail!("{}: not a folder", a.src.display());
    }
    let plan = pakrat_umod::create::plan(&a.src, &opts).map_err(flat)?;
    for w in &plan.warnings {
        eprintln!("pakrat: warning: {w}");
    }
    let total = plan.members.iter().map(|m| u64::from(m.size)).sum();
    let bar = crate::cmd::common::progress(total, a.out.json, "packing");
    let rep = pakrat_umod::create::write_with(&plan, &a.output, a.force, &|n| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let rep = rep.map_err(flat)?;
    if a.out.json {
        print_json(&serde_json::json!({
            "output": rep.path.display().to_string(),
            "source": a.src.display().to_string(),
            "members": rep.members,
            "size": rep.size,
            "crc": rep.crc,
            "warnings": &plan.warnings,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "wrote {}: {} members, {} bytes, CRC {:#010x}",
        rep.path.display(),
        rep.members,
        rep.size,
        rep.crc
    );
    Ok(ExitCode::SUCCESS)
}

/// `umod install`.
pub fn install(a: &UmodInstallArgs) -> Result<ExitCode> {
    let file = open(&a.file)?;
    let u = parse(&file)?;
    let opts = InstallOptions {
        dry_run: a.dry_run,
        force: a.force,
        ignore_requirements: a.ignore_requirements,
        handle_signals: true,
        ..Default::default()
    };
    let total = u.entries.iter().map(|e| u64::from(e.size)).sum();
    let bar = crate::cmd::common::progress(total, a.out.json || a.dry_run, "installing");
    let rep = pakrat_umod::install::install_with(&u, &a.game_dir, &opts, &|n| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let rep = rep.map_err(flat)?;
    if let Some(r) = &rep.recovered {
        eprintln!("pakrat: {r}");
    }
    if a.out.json {
        print_json(&rep)?;
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if rep.dry_run {
        "would install"
    } else {
        "installed"
    };
    // Everything below comes from the UMOD or the game folder: printed
    // through `show` so that no escape sequence reaches the terminal.
    for r in &rep.requirements {
        println!(
            "{} {}",
            if r.ok { "ok  " } else { "FAIL" },
            show(&r.message)
        );
    }
    for f in &rep.files {
        let what = match &f.action {
            FileAction::Create => "new".to_string(),
            FileAction::Unchanged if f.owned => "same".to_string(),
            FileAction::Unchanged => {
                "same (already there, not owned: uninstall keeps it)".to_string()
            }
            FileAction::Replace { backup } => format!("replace (backup {})", show(backup)),
            FileAction::Conflict => "CONFLICT: differs (needs --force)".to_string(),
        };
        let uz = if f.decoded_uz { " (decoded .uz)" } else { "" };
        let ini = if f.ini_edited { " (ini edited)" } else { "" };
        println!("{:>10}  {:<40} {what}{uz}{ini}", f.size, show(&f.path));
    }
    for e in &rep.ini_edits {
        if e.applied {
            println!("ini: {} in {}", show(&e.note), show(&e.file));
        } else {
            println!(
                "ini: not applied: {}={}: {}",
                show(&e.key),
                show(&e.raw),
                show(&e.note)
            );
        }
    }
    for n in &rep.notes {
        println!("note: {}", show(n));
    }
    println!(
        "{verb} {} version {}: {} files{}",
        show(&rep.product),
        show(&rep.version),
        rep.files.len(),
        if rep.dry_run {
            ""
        } else {
            "; recorded in System/Manifest.ini"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `umod uninstall`.
pub fn uninstall(a: &UmodUninstallArgs) -> Result<ExitCode> {
    let opts = UninstallOptions {
        dry_run: a.dry_run,
        remove_unrecorded: a.remove_unrecorded,
    };
    let rep = pakrat_umod::install::uninstall_with(&a.product, &a.game_dir, &opts).map_err(flat)?;
    if let Some(r) = &rep.recovered {
        eprintln!("pakrat: {r}");
    }
    if a.out.json {
        print_json(&rep)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rm = if rep.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let mut unowned = 0;
    for f in &rep.files {
        let dest = show(&f.dest);
        match &f.action {
            UninstallAction::Remove => println!("{rm:>12}  {dest}"),
            UninstallAction::Keep { refs, used_by } => println!(
                "{:>12}  {dest} (still used: {refs} reference(s){}{})",
                "kept",
                if used_by.is_empty() { "" } else { ", by " },
                show(&used_by.join(", "))
            ),
            UninstallAction::NotOwned => {
                unowned += 1;
                println!(
                    "{:>12}  {dest} (no record that pakrat put it there)",
                    "left alone"
                )
            }
            UninstallAction::Changed { reason } => println!(
                "{:>12}  {dest} (changed since install: {})",
                "left alone",
                show(reason)
            ),
            UninstallAction::Missing => println!("{:>12}  {dest}", "missing"),
            UninstallAction::Refused { reason } => {
                println!("{:>12}  {dest} ({})", "left alone", show(reason))
            }
        }
    }
    for r in &rep.restored {
        println!("{:>12}  {}", "restored", show(r));
    }
    for r in &rep.ini_reverted {
        println!("{:>12}  {}", "ini", show(r));
    }
    for d in &rep.removed_folders {
        println!("{:>12}  {}/", "rmdir", show(d));
    }
    if unowned > 0 {
        println!(
            "note: {unowned} file(s) have no pakrat install record (installed by the engine's Setup, already there, or listed by hand); --remove-unrecorded deletes them"
        );
    }
    println!(
        "{} {}{}",
        if rep.dry_run {
            "would uninstall"
        } else {
            "uninstalled"
        },
        show(&rep.product),
        if rep.dry_run {
            ""
        } else {
            "; System/Manifest.ini updated"
        }
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct RecoverJson<'a> {
    game_dir: String,
    recovered: Option<&'a pakrat_umod::journal::Recovery>,
}

/// `umod recover`: exit 0 when the folder is as it should be (nothing to
/// do, rolled back or completed), 1 when something could not be put back.
pub fn recover(a: &UmodRecoverArgs) -> Result<ExitCode> {
    if !a.game_dir.is_dir() {
        bail!("{}: not a folder", a.game_dir.display());
    }
    let r = pakrat_umod::journal::recover(&a.game_dir).map_err(flat)?;
    let ok = r.as_ref().is_none_or(|r| r.left.is_empty());
    if a.out.json {
        print_json(&RecoverJson {
            game_dir: a.game_dir.display().to_string(),
            recovered: r.as_ref(),
        })?;
    } else {
        match &r {
            None => println!(
                "{}: no interrupted install (no {})",
                a.game_dir.display(),
                pakrat_umod::journal::JOURNAL
            ),
            Some(r) => println!("{r}"),
        }
    }
    Ok(exit_code(ok))
}
