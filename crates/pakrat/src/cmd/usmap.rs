//! Handlers for `.usmap` property mappings: info, list, verify.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use pakrat_asset::props::{EnumSchema, StructSchema};
use pakrat_asset::usmap::Usmap;
use pakrat_io::text::show;
use serde::Serialize;
use serde_json::{json, Value};

use crate::args::{InfoArgs, ListArgs, VerifyArgs};
use crate::cmd::common::globset;
use crate::output::{human_size, print_json, with_stdout, write_json};

fn load(file: &Path) -> Result<Usmap> {
    Ok(Usmap::open(file)?)
}

fn versioning_json(u: &Usmap) -> Value {
    match &u.versioning {
        None => Value::Null,
        Some(v) => json!({
            "ue4": v.ue4,
            "ue5": v.ue5,
            "custom_versions": v.custom_versions.iter()
                .map(|(g, n)| json!({"guid": g.to_string(), "version": n}))
                .collect::<Vec<_>>(),
            "net_cl": v.net_cl,
        }),
    }
}

/// What `info --json` prints, in this order.
#[derive(Serialize)]
struct InfoOut {
    file: String,
    version: u8,
    version_name: &'static str,
    versioning: Value,
    compression: &'static str,
    compressed_size: u32,
    decompressed_size: u32,
    names: usize,
    enums: usize,
    enum_entries: usize,
    structs: usize,
    properties: usize,
    extensions: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ok: Option<bool>,
}

fn info_json(file: &Path, u: &Usmap) -> InfoOut {
    InfoOut {
        file: file.display().to_string(),
        version: u.version.number(),
        version_name: u.version.name(),
        versioning: versioning_json(u),
        compression: u.compression.name(),
        compressed_size: u.compressed_size,
        decompressed_size: u.decompressed_size,
        names: u.names.len(),
        enums: u.enums.len(),
        enum_entries: u.enum_entry_count(),
        structs: u.structs.len(),
        properties: u.property_count(),
        extensions: u
            .extensions
            .iter()
            .map(|e| json!({"id": e.id, "size": e.size, "applied": e.applied}))
            .collect(),
        ok: None,
    }
}

/// `info` for a `.usmap`: version, versioning, compression, sizes, counts.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let u = load(&a.file)?;
    if a.out.json {
        print_json(&info_json(&a.file, &u))?;
        return Ok(ExitCode::SUCCESS);
    }
    with_stdout(|w| {
        let line = |w: &mut dyn Write, t: String| writeln!(w, "{}", show(&t));
        line(
            w,
            format!(
                "{}: .usmap mappings, version {} ({})",
                a.file.display(),
                u.version.number(),
                u.version.name()
            ),
        )?;
        let versioning = match &u.versioning {
            None => "none".to_string(),
            Some(v) => format!(
                "UE4 {}, UE5 {}, {} custom versions, net CL {}",
                v.ue4,
                v.ue5,
                v.custom_versions.len(),
                v.net_cl
            ),
        };
        line(w, format!("  versioning:  {versioning}"))?;
        let sizes = if u.compression == pakrat_asset::usmap::Compression::None {
            format!(
                "none, {} bytes ({})",
                u.decompressed_size,
                human_size(u64::from(u.decompressed_size))
            )
        } else {
            format!(
                "{}, {} bytes -> {} bytes ({})",
                u.compression.name(),
                u.compressed_size,
                u.decompressed_size,
                human_size(u64::from(u.decompressed_size))
            )
        };
        line(w, format!("  compression: {sizes}"))?;
        line(w, format!("  names:       {}", u.names.len()))?;
        line(
            w,
            format!(
                "  enums:       {} ({} entries)",
                u.enums.len(),
                u.enum_entry_count()
            ),
        )?;
        line(
            w,
            format!(
                "  structs:     {} ({} properties)",
                u.structs.len(),
                u.property_count()
            ),
        )?;
        let ext: Vec<String> = u
            .extensions
            .iter()
            .map(|e| {
                let how = if e.applied { "applied" } else { "not read" };
                format!("{} {} bytes ({how})", e.id, e.size)
            })
            .collect();
        let ext = if ext.is_empty() {
            "none".to_string()
        } else {
            ext.join(", ")
        };
        line(w, format!("  extensions:  {ext}"))?;
        Ok(ExitCode::SUCCESS)
    })
}

fn struct_json(s: &StructSchema) -> Value {
    json!({
        "type": "struct",
        "name": s.name,
        "super": s.super_name,
        "schema_indices": s.property_count,
        "properties": s.properties.iter().map(|p| json!({
            "index": p.index,
            "array_dim": p.array_dim,
            "name": p.name,
            "type": p.ty.to_string(),
        })).collect::<Vec<_>>(),
    })
}

fn enum_json(e: &EnumSchema) -> Value {
    json!({
        "type": "enum",
        "name": e.name,
        "values": e.entries.iter()
            .map(|(v, n)| json!({"name": n, "value": v}))
            .collect::<Vec<_>>(),
    })
}

/// `list` for a `.usmap`: every enum with its entries, every struct with
/// its super-struct and properties; GLOBs keep the enums and structs whose
/// name matches one (case-insensitive).
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let u = load(&a.file)?;
    let set = globset(&a.globs)?;
    let keep = |n: &str| set.as_ref().is_none_or(|g| g.is_match(n));
    let enums: Vec<&EnumSchema> = u.enums.iter().filter(|e| keep(&e.name)).collect();
    let structs: Vec<&StructSchema> = u.structs.iter().filter(|s| keep(&s.name)).collect();
    with_stdout(|w| {
        if a.out.json {
            write_json(
                w,
                &json!({
                    "file": a.file.display().to_string(),
                    "entries": enums.iter().map(|e| enum_json(e))
                        .chain(structs.iter().map(|s| struct_json(s)))
                        .collect::<Vec<_>>(),
                }),
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        for e in &enums {
            let entries: Vec<String> = e.entries.iter().map(|(v, n)| format!("{n}={v}")).collect();
            writeln!(
                w,
                "{}",
                show(&format!("enum {}: {}", e.name, entries.join(", ")))
            )?;
        }
        for s in &structs {
            let sup = s
                .super_name
                .as_ref()
                .map_or(String::new(), |x| format!(" : {x}"));
            writeln!(
                w,
                "{}",
                show(&format!(
                    "struct {}{sup} ({} properties)",
                    s.name,
                    s.properties.len()
                ))
            )?;
            for p in &s.properties {
                let dim = if p.array_dim > 1 {
                    format!("[{}]", p.array_dim)
                } else {
                    String::new()
                };
                writeln!(
                    w,
                    "{}",
                    show(&format!("  {:>3} {}{dim}: {}", p.index, p.name, p.ty))
                )?;
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `verify` for a `.usmap`: the whole file reads (payload decompressed to
/// its stated size, every name index and type checked).
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let u = load(&a.file)?;
    if a.out.json {
        let mut v = info_json(&a.file, &u);
        v.ok = Some(true);
        print_json(&v)?;
    } else {
        println!(
            "{}: OK (.usmap version {}, {} structs, {} enums)",
            show(&a.file.display().to_string()),
            u.version.number(),
            u.structs.len(),
            u.enums.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
