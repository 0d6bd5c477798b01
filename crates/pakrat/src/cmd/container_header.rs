//! Raw IoStore container-header chunks (`extract` writes them under
//! `_chunks/`; games' reports ship them alone): `info`, `list`, `verify`.
//!
//! The UE5 form starts with a signature and is detected by content. The UE4
//! forms (4.25, 4.26/4.27) have none: they are read when the user names the
//! release (`--ue-version 4.27`) and the file is nothing else pakrat knows.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use pakrat_iostore::container_header::{self as ch, ContainerHeader, HeaderForm};
use serde_json::{json, Value};

use crate::cmd::common::{exit_code, in_file};
use crate::output::{human_size, print_json, with_stdout, write_json};

/// A header file is read whole; one of a large game is a few MiB.
const MAX_HEADER_BYTES: u64 = 1 << 30;

/// The UE4 form `--ue-version` names, when it names a UE4 release with a
/// container header (4.25–4.27); `None` for anything else.
pub fn ue4_form(ue_version: Option<&str>) -> Option<HeaderForm> {
    match ue_version?.trim() {
        "4.25" => Some(HeaderForm::Ue4PreInitial),
        "4.26" | "4.27" => Some(HeaderForm::Ue4),
        _ => None,
    }
}

fn load(file: &Path, ue4: Option<HeaderForm>) -> Result<(Vec<u8>, ContainerHeader)> {
    let data = pakrat_io::read_capped(file, MAX_HEADER_BYTES, "a container header")
        .map_err(|e| in_file(e, file))?;
    let h = ch::parse_with(&data, ue4).map_err(|e| in_file(e, file))?;
    Ok((data, h))
}

fn hex(id: u64) -> String {
    format!("{id:#018x}")
}

/// Whether writing the model back gives the file's bytes.
fn rewrites_exactly(data: &[u8], h: &ContainerHeader) -> bool {
    h.to_bytes().is_ok_and(|b| b == data)
}

fn summary(file: &Path, data: &[u8], h: &ContainerHeader) -> Value {
    let entries = h.store_entries.iter().chain(&h.optional_store_entries);
    let imports: usize = entries.clone().map(|e| e.imported_packages.len()).sum();
    let hashes: usize = entries.map(|e| e.shader_map_hashes.len()).sum();
    json!({
        "file": file.display().to_string(),
        "form": h.form.describe(),
        "version": h.form.ue5_version(),
        "size": data.len(),
        "container_id": hex(h.container_id),
        "packages": h.package_ids.len(),
        "optional_packages": h.optional_package_ids.len(),
        "imported_package_refs": imports,
        "shader_map_hashes": hashes,
        "shader_map_hash_size": h.shader_map_hash_size(),
        "names": h.names.len(),
        "localized_packages": h.localized_packages.len(),
        "culture_packages": h.culture_packages.len(),
        "redirects": h.redirects.len(),
        "soft_references": h.soft_references.as_ref().map(|s| s.package_ids.len()),
        "padding": h.padding,
        "rewrites_exactly": rewrites_exactly(data, h),
    })
}

/// `info` of a raw container header.
pub fn info(file: &Path, ue4: Option<HeaderForm>, json_out: bool) -> Result<ExitCode> {
    let (data, h) = load(file, ue4)?;
    let s = summary(file, &data, &h);
    if json_out {
        print_json(&s)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}: IoStore container header, {}",
        file.display(),
        h.form.describe()
    );
    println!("  size:              {}", human_size(data.len() as u64));
    println!("  container id:      {}", hex(h.container_id));
    println!(
        "  packages:          {} ({} optional-segment)",
        h.package_ids.len(),
        h.optional_package_ids.len()
    );
    println!(
        "  imported packages: {} references",
        s["imported_package_refs"]
    );
    match h.shader_map_hash_size() {
        Some(8) => println!(
            "  shader maps:       {} hashes of 8 bytes (the UE 5.8 retail form, same version number)",
            s["shader_map_hashes"]
        ),
        Some(n) => println!("  shader maps:       {} hashes of {n} bytes", s["shader_map_hashes"]),
        None => println!("  shader maps:       none"),
    }
    println!(
        "  names:             {}; localized {}, redirects {}",
        h.names.len(),
        h.localized_packages.len() + h.culture_packages.len(),
        h.redirects.len()
    );
    if let Some(s) = &h.soft_references {
        println!("  soft references:   {} packages", s.package_ids.len());
    }
    println!(
        "  writes back:       {}",
        if rewrites_exactly(&data, &h) {
            "byte for byte"
        } else {
            "NOT byte for byte (run `pakrat verify`)"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `list` of a raw container header: one entry per package, store order,
/// then the optional-segment packages.
pub fn list(file: &Path, ue4: Option<HeaderForm>, json_out: bool) -> Result<ExitCode> {
    let (_, h) = load(file, ue4)?;
    let rows = h
        .package_ids
        .iter()
        .zip(&h.store_entries)
        .map(|(id, e)| (id, e, false))
        .chain(
            h.optional_package_ids
                .iter()
                .zip(&h.optional_store_entries)
                .map(|(id, e)| (id, e, true)),
        );
    with_stdout(|w| {
        if json_out {
            let entries: Vec<Value> = rows
                .map(|(id, e, optional)| {
                    json!({
                        "id": hex(*id),
                        "optional": optional,
                        "export_count": e.export_count,
                        "export_bundle_count": e.export_bundle_count,
                        "imported_packages": e.imported_packages.iter().map(|&i| hex(i)).collect::<Vec<_>>(),
                        "shader_map_hashes": e.shader_map_hashes.len(),
                    })
                })
                .collect();
            write_json(
                w,
                &json!({ "file": file.display().to_string(), "entries": entries }),
            )?;
        } else {
            for (id, e, optional) in rows {
                writeln!(
                    w,
                    "{}{}  imports {}  shader maps {}",
                    hex(*id),
                    if optional { " (optional)" } else { "" },
                    e.imported_packages.len(),
                    e.shader_map_hashes.len()
                )?;
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `verify` of a raw container header: it parses, and the model writes back
/// to the same bytes (exit 1 when it does not).
pub fn verify(file: &Path, ue4: Option<HeaderForm>, json_out: bool) -> Result<ExitCode> {
    let (data, h) = load(file, ue4)?;
    let exact = rewrites_exactly(&data, &h);
    if json_out {
        print_json(&json!({
            "file": file.display().to_string(),
            "ok": exact,
            "form": h.form.describe(),
            "packages": h.package_ids.len(),
            "rewrites_exactly": exact,
        }))?;
    } else if exact {
        println!(
            "{}: OK (container header {}, {} packages; writes back byte for byte)",
            file.display(),
            h.form.describe(),
            h.package_ids.len()
        );
    } else {
        println!(
            "{}: parses ({} packages), but does not write back byte for byte: a layout pakrat does not reproduce",
            file.display(),
            h.package_ids.len()
        );
    }
    Ok(exit_code(exact))
}
