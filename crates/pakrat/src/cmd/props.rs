//! `pakrat props`: the properties of a package's exports. UE1/UE2 packages
//! go to [`super::package::props`]; UE4/UE5 packages, loose or inside a
//! `.pak`, a folder of paks or an IoStore container, are opened by
//! [`pakrat_asset::props::open`] and decoded by
//! [`pakrat_asset::props::decode_export`].

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use pakrat_asset::props::json::{history_kind, PackageJson};
use pakrat_asset::props::{
    decode_export, open, Asset, ExportProps, FormatArg, NoSchemas, Opened, Property, Schemas, Text,
    TextHistory, Value,
};

use super::common::{engine, exit_code, keyring, par_map};
use crate::args::PropsArgs;
use crate::detect::Format;
use crate::output::{print_json, with_stdout};

/// `pakrat props`: route by the input's format.
pub fn run(a: &PropsArgs) -> Result<ExitCode> {
    if let Some(e) = &a.edit {
        return super::props_edit::run(e);
    }
    crate::output::set_input(a.file());
    if a.file().is_dir() {
        let (package, object) = container_args(a)?;
        let opened = open_paks_in(a.file(), a, package)?;
        return show(a, &opened, object);
    }
    let mut file = a.file().to_path_buf();
    let format = crate::sniff(&file)?;
    crate::output::set_kind(format.kind());
    match format {
        Format::Package => {
            if a.object_in_container.is_some() {
                bail!("{}: a UE1/UE2 package takes one OBJECT", a.file().display());
            }
            super::package::props(a)
        }
        Format::LegacyPackage => {
            if a.object_in_container.is_some() {
                bail!(
                    "{}: a package file takes one OBJECT (PACKAGE is for containers)",
                    a.file().display()
                );
            }
            let opened = open::open_loose(&file, engine(a.ue.ue_version.as_deref())?)?;
            show(a, &opened, a.object.as_deref())
        }
        Format::IoStoreToc | Format::IoStoreCas => {
            if format == Format::IoStoreCas {
                if let Some(toc) = crate::detect::utoc_for_ucas(&file) {
                    file = toc;
                }
            }
            let (package, object) = container_args(a)?;
            let opened = open_in_iostore(&file, a, package)?;
            show(a, &opened, object)
        }
        Format::Pak => {
            let (package, object) = container_args(a)?;
            let pak = super::common::open_pak(&file, &a.ue.keys)?;
            let opened = open::open_in_paks(&[pak], package, engine(a.ue.ue_version.as_deref())?)?;
            show(a, &opened, object)
        }
        _ => bail!(
            "{}: is {}, not a package nor a container of packages; {}",
            a.file().display(),
            format.kind(),
            crate::detect::commands_for(Some(format))
        ),
    }
}

/// PACKAGE (required) and OBJECT of a container.
fn container_args(a: &PropsArgs) -> Result<(&str, Option<&str>)> {
    let package = a.object.as_deref().ok_or_else(|| {
        anyhow!(
            "{}: a container: name the package (pakrat props {} /Game/Path/To/Package [OBJECT])",
            a.file().display(),
            a.file().display()
        )
    })?;
    Ok((package, a.object_in_container.as_deref()))
}

/// A zen package of an IoStore container, script imports resolved through
/// the global container (`--global`, else found beside or above).
fn open_in_iostore(utoc: &Path, a: &PropsArgs, package: &str) -> Result<Opened> {
    let keys = keyring(&a.ue.keys)?;
    let global = match &a.ue.global {
        Some(g) => g.clone(),
        None => open::find_global(utoc).ok_or_else(|| {
            anyhow!(
                "{}: no global.utoc beside it or in a parent folder: script imports (classes, structs) cannot be resolved; give it with --global",
                utoc.display()
            )
        })?,
    };
    let script = open::load_global(&global, &keys)
        .with_context(|| format!("--global {}", global.display()))?;
    let c = pakrat_iostore::Container::open(utoc, &keys)?;
    Ok(open::open_in_container(
        &c,
        Some(&script),
        package,
        engine(a.ue.ue_version.as_deref())?,
    )?)
}

/// A package in the `.pak` files of a folder (in mount order), or, in a
/// folder without paks, a loose package below it.
fn open_paks_in(dir: &Path, a: &PropsArgs, package: &str) -> Result<Opened> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| dir.display().to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pak")))
        .collect();
    if paths.is_empty() {
        crate::output::set_kind(Format::LegacyPackage.kind());
        let file = loose_in(dir, package).ok_or_else(|| {
            anyhow!(
                "{}: no .pak files, and no package {package} below it (a package path /Game/A/B is looked for as A/B.uasset/.umap, B.uasset, ..., and Content/A/B.uasset below each subfolder)",
                dir.display()
            )
        })?;
        return Ok(open::open_loose(
            &file,
            engine(a.ue.ue_version.as_deref())?,
        )?);
    }
    crate::output::set_kind(Format::Pak.kind());
    pakrat_pak::mount_order(&mut paths);
    let keys = keyring(&a.ue.keys)?;
    let paks = paths
        .iter()
        .map(|p| pakrat_pak::Pak::open(p, &keys))
        .collect::<pakrat_io::Result<Vec<_>>>()?;
    Ok(open::open_in_paks(
        &paks,
        package,
        engine(a.ue.ue_version.as_deref())?,
    )?)
}

/// A loose package below `dir`: `package` as a file path relative to it,
/// or a package path (`/Game/A/B`) whose tail is a path below it
/// (`A/B.uasset`, `B.uasset`), or below a subfolder's `Content/` (a
/// cooked project folder).
fn loose_in(dir: &Path, package: &str) -> Option<PathBuf> {
    let direct = dir.join(package.trim_start_matches('/'));
    if direct.is_file() {
        return Some(direct);
    }
    let rel = package.trim_start_matches('/');
    let rel = rel.split_once('.').map_or(rel, |(p, _)| p);
    // `/Game/A/B`: drop the mount point, then try each tail.
    let parts: Vec<&str> = rel.split('/').skip(1).collect();
    let mut roots = vec![dir.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(dir) {
        roots.extend(rd.filter_map(|e| e.ok()).map(|e| e.path().join("Content")));
    }
    for root in roots.iter().filter(|r| r.is_dir()) {
        for k in 0..parts.len() {
            let tail = parts[k..].join("/");
            for ext in ["uasset", "umap"] {
                let f = root.join(format!("{tail}.{ext}"));
                if f.is_file() {
                    return Some(f);
                }
            }
        }
    }
    None
}

/// The schemas of `--usmap`, or none.
pub(super) fn schemas(path: Option<&Path>) -> Result<Box<dyn Schemas>> {
    match path {
        None => Ok(Box::new(NoSchemas)),
        Some(p) => load_usmap(p),
    }
}

/// Read `.usmap` mappings.
fn load_usmap(p: &Path) -> Result<Box<dyn Schemas>> {
    Ok(Box::new(pakrat_asset::usmap::Usmap::open(p)?))
}

/// The exports `object` selects: by name or full path (case-insensitive),
/// or all of them.
fn select(asset: &Asset<'_>, origin: &str, object: Option<&str>) -> Result<Vec<usize>> {
    let Some(q) = object else {
        return Ok((0..asset.exports.len()).collect());
    };
    let hits: Vec<usize> = asset
        .exports
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.path.eq_ignore_ascii_case(q)
                || e.name.eq_ignore_ascii_case(q)
                || e.path
                    .strip_prefix(asset.package.as_str())
                    .is_some_and(|rest| rest[1.min(rest.len())..].eq_ignore_ascii_case(q))
        })
        .map(|(i, _)| i)
        .collect();
    if hits.is_empty() {
        let names: Vec<&str> = asset
            .exports
            .iter()
            .take(8)
            .map(|e| e.name.as_str())
            .collect();
        bail!(
            "{origin}: no export {q} (exports: {}{})",
            names.join(", "),
            if asset.exports.len() > 8 { ", ..." } else { "" }
        );
    }
    Ok(hits)
}

/// The exports' errors on stderr, one line per message: `PATH: MESSAGE`,
/// or `N exports (a, b, c, ...): MESSAGE` when several share it.
fn print_export_errors(errors: &[(String, String)]) {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for (path, msg) in errors {
        match groups.iter_mut().find(|g| g.0 == msg) {
            Some(g) => g.1.push(path),
            None => groups.push((msg, vec![path])),
        }
    }
    for (msg, paths) in groups {
        let line = match paths.len() {
            1 => format!("{}: {msg}", paths[0]),
            n => format!(
                "{n} exports ({}{}): {msg}",
                paths[..n.min(3)].join(", "),
                if n > 3 { ", ..." } else { "" }
            ),
        };
        eprintln!("pakrat: error: {}", pakrat_io::text::show(&line));
    }
}

/// Decode the selected exports and print them.
fn show(a: &PropsArgs, opened: &Opened, object: Option<&str>) -> Result<ExitCode> {
    let asset = opened.asset();
    let selected = select(&asset, &opened.origin, object)?;
    let mappings = schemas(a.ue.usmap.as_deref())?;
    // The package's own classes, structs and enums (Blueprints, user
    // structs) first, then the mappings.
    let with = pakrat_asset::props::schemas_with_package(&asset, mappings.as_ref());
    let decoded: Vec<(usize, ExportProps)> =
        par_map(&selected, |&i| (i, decode_export(&asset, i, &with)));
    let errors: Vec<(String, String)> = decoded
        .iter()
        .filter_map(|(i, p)| {
            p.error
                .as_ref()
                .map(|e| (asset.exports[*i].path.clone(), e.clone()))
        })
        .collect();
    if a.out.json {
        print_json(&PackageJson::new(&asset, &decoded))?;
    } else {
        let mut o = String::new();
        for (k, (i, p)) in decoded.iter().enumerate() {
            if k > 0 {
                o.push('\n');
            }
            export_text(&mut o, &asset, *i, p);
        }
        emit(&o)?;
    }
    print_export_errors(&errors);
    Ok(exit_code(errors.is_empty()))
}

/// One export as text: its header line, a property per line nested by
/// indentation, then its native data.
fn export_text(o: &mut String, asset: &Asset<'_>, i: usize, p: &ExportProps) {
    let e = &asset.exports[i];
    let _ = writeln!(o, "{} ({})", e.path, e.class);
    for prop in &p.properties {
        property_text(o, 1, prop);
    }
    if !p.native.is_empty() {
        let _ = writeln!(o, "  native:");
        for prop in &p.native {
            property_text(o, 2, prop);
        }
    }
    if p.native_unread > 0 {
        let _ = writeln!(o, "  {} bytes of native data", p.native_unread);
    }
    if let Some(err) = &p.error {
        let _ = writeln!(o, "  error: {err}");
    }
}

fn property_text(o: &mut String, depth: usize, p: &Property) {
    let label = if p.index > 0 {
        format!("{}[{}]", p.name, p.index)
    } else {
        p.name.clone()
    };
    value_line(o, depth, &format!("{label}: {}", p.ty), &p.value);
}

/// `{label} = value`, or `{label}` and the parts of a compound value below
/// it, one level deeper.
fn value_line(o: &mut String, depth: usize, label: &str, v: &Value) {
    let pad = "  ".repeat(depth);
    match v {
        Value::Struct(fields) if !fields.is_empty() => {
            let _ = writeln!(o, "{pad}{label}");
            for f in fields {
                property_text(o, depth + 1, f);
            }
        }
        Value::Array(xs) | Value::Set(xs) | Value::Multicast(xs) if !xs.is_empty() => {
            let _ = writeln!(o, "{pad}{label} ({} elements)", xs.len());
            for (k, x) in xs.iter().enumerate() {
                value_line(o, depth + 1, &format!("[{k}]"), x);
            }
        }
        Value::Map(entries) if !entries.is_empty() => {
            let _ = writeln!(o, "{pad}{label} ({} entries)", entries.len());
            for (k, (key, val)) in entries.iter().enumerate() {
                match scalar(key) {
                    Some(ks) => value_line(o, depth + 1, &format!("[{ks}]"), val),
                    None => {
                        let _ = writeln!(o, "{pad}  [{k}]");
                        value_line(o, depth + 2, "key", key);
                        value_line(o, depth + 2, "value", val);
                    }
                }
            }
        }
        Value::Optional(Some(x)) => value_line(o, depth, label, x),
        _ => {
            let s = scalar(v).unwrap_or_default();
            let _ = writeln!(o, "{pad}{label} = {s}");
        }
    }
}

/// A value that fits on one line, `None` for a non-empty compound.
fn scalar(v: &Value) -> Option<String> {
    Some(match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(x) => x.to_string(),
        Value::UInt(x) => x.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Double(x) => x.to_string(),
        Value::Enum(s) | Value::Name(s) => s.clone(),
        Value::Str(s) => format!("{s:?}"),
        Value::Text(t) => text(t),
        Value::Object(o) => o.clone().unwrap_or_else(|| "null".into()),
        Value::SoftObject { path, sub_path } => match (path.is_empty(), sub_path.is_empty()) {
            (true, true) => "null".into(),
            (_, true) => path.clone(),
            _ => format!("{path}:{sub_path}"),
        },
        Value::Guid(g) => g.to_string(),
        Value::Delegate { object, function } => {
            format!("{}.{function}", object.as_deref().unwrap_or("null"))
        }
        Value::FieldPath { path, owner } => format!(
            "{} (owner {})",
            path.join("."),
            owner.as_deref().unwrap_or("null")
        ),
        Value::Struct(f) if f.is_empty() => "{}".into(),
        Value::Array(x) | Value::Set(x) | Value::Multicast(x) if x.is_empty() => "[]".into(),
        Value::Map(x) if x.is_empty() => "[]".into(),
        Value::Optional(None) => "none".into(),
        Value::Optional(Some(x)) => scalar(x)?,
        Value::Skipped { size, reason } => format!("<{size} bytes not decoded: {reason}>"),
        Value::Struct(_)
        | Value::Array(_)
        | Value::Set(_)
        | Value::Multicast(_)
        | Value::Map(_) => return None,
    })
}

/// A text on one line: its source string and its history kind.
fn text(t: &Text) -> String {
    let kind = history_kind(&t.history);
    match &t.history {
        TextHistory::Base {
            namespace,
            key,
            source,
        } => format!("{source:?} ({kind}, namespace {namespace:?}, key {key:?})"),
        _ => format!("{} ({kind})", text_body(t)),
    }
}

/// A text inside another (a format pattern, an argument): a localized
/// string as its source string alone.
fn inner_text(t: &Text) -> String {
    match &t.history {
        TextHistory::Base { source, .. } => format!("{source:?}"),
        _ => text(t),
    }
}

/// What a text says, without its kind.
fn text_body(t: &Text) -> String {
    match &t.history {
        TextHistory::None { invariant } => match invariant {
            Some(s) => format!("{s:?}"),
            None => "(empty)".into(),
        },
        TextHistory::Base { source, .. } => format!("{source:?}"),
        TextHistory::NamedFormat { format, args }
        | TextHistory::ArgumentFormat { format, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|(n, a)| format!("{n}={}", arg(a)))
                .collect();
            format!("{} with {{{}}}", inner_text(format), args.join(", "))
        }
        TextHistory::OrderedFormat { format, args } => {
            let args: Vec<String> = args.iter().map(arg).collect();
            format!("{} with [{}]", inner_text(format), args.join(", "))
        }
        TextHistory::Number {
            source,
            culture,
            currency,
            ..
        } => format!(
            "{}{}{}",
            arg(source),
            currency
                .as_deref()
                .map(|c| format!(" {c}"))
                .unwrap_or_default(),
            if culture.is_empty() {
                String::new()
            } else {
                format!(", culture {culture}")
            }
        ),
        TextHistory::DateTime {
            ticks, time_zone, ..
        } => format!("ticks {ticks}, time zone {time_zone:?}"),
        TextHistory::Transform { source, transform } => format!(
            "{} of {}",
            if *transform == 1 {
                "ToUpper"
            } else {
                "ToLower"
            },
            inner_text(source)
        ),
        TextHistory::StringTableEntry { table, key } => format!("{table} key {key:?}"),
        TextHistory::Generator { type_id, contents } => {
            format!("{type_id}, {} bytes", contents.len())
        }
    }
}

fn arg(a: &FormatArg) -> String {
    match a {
        FormatArg::Int(v) => v.to_string(),
        FormatArg::UInt(v) => v.to_string(),
        FormatArg::Float(v) => v.to_string(),
        FormatArg::Double(v) => v.to_string(),
        FormatArg::Text(t) => inner_text(t),
        FormatArg::Gender(g) => format!("gender {g}"),
    }
}

/// Print the text, each line's control characters and bidi marks escaped
/// ([`pakrat_io::text::show`]): names and strings come from the file.
fn emit(o: &str) -> Result<()> {
    with_stdout(|w| {
        for line in o.lines() {
            writeln!(w, "{}", pakrat_io::text::show(line))?;
        }
        Ok(ExitCode::SUCCESS)
    })
    .map(|_| ())
}
