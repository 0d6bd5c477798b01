//! `AssetRegistry.bin`: `info`, `list`, `verify` (also through `pakrat
//! info|list|verify FILE`) and `registry merge` (docs/asset-registry.md).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Result};
use pakrat_asset::registry::asset::Tags;
use pakrat_asset::registry::{merge::merge as merge_into, AssetRegistry};
use serde_json::{json, Value};

use crate::args_registry::RegistryMergeArgs;
use crate::cmd::common::{exit_code, in_file};
use crate::output::{human_size, print_json, with_stdout, write_json};

/// A registry is read whole; a large game's is some hundred MiB.
const MAX_REGISTRY_BYTES: u64 = 4 << 30;

fn load(file: &Path) -> Result<(Vec<u8>, AssetRegistry)> {
    let data = pakrat_io::read_capped(file, MAX_REGISTRY_BYTES, "an asset registry")
        .map_err(|e| in_file(e, file))?;
    let r = AssetRegistry::read(&data).map_err(|e| in_file(e, file))?;
    Ok((data, r))
}

fn classes(r: &AssetRegistry) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for a in &r.assets {
        *out.entry(r.class_path(a)).or_insert(0) += 1;
    }
    out
}

fn summary(file: &Path, data: &[u8], r: &AssetRegistry) -> Value {
    let store = r.store.as_ref().map(|s| {
        json!({
            "pairs": s.pairs.len(),
            "numberless_pairs": s.numberless_pairs.len(),
            "ansi_strings": s.ansi_offsets.len(),
            "wide_strings": s.wide_offsets.len(),
            "names": s.names.len() + s.numberless_names.len(),
            "export_paths": s.export_paths.len() + s.numberless_export_paths.len(),
            "texts": s.texts.len(),
        })
    });
    json!({
        "file": file.display().to_string(),
        "version": r.version,
        "filter_editor_only": r.filter_editor_only,
        "size": data.len(),
        "names": r.names.len(),
        "name_form": if r.store.is_some() { "batch" } else { "table" },
        "assets": r.assets.len(),
        "dependency_nodes": r.dependencies.nodes.len(),
        "packages": r.packages.len(),
        "tag_store": store,
        "classes": classes(r),
        "rewrites_exactly": r.to_bytes() == data,
    })
}

/// `info` of a registry.
pub fn info(file: &Path, json_out: bool) -> Result<ExitCode> {
    let (data, r) = load(file)?;
    let s = summary(file, &data, &r);
    if json_out {
        print_json(&s)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: asset registry, version {}", file.display(), r.version);
    println!("  size:              {}", human_size(data.len() as u64));
    println!(
        "  names:             {} ({})",
        r.names.len(),
        s["name_form"].as_str().unwrap_or("")
    );
    if let Some(f) = r.filter_editor_only {
        println!(
            "  editor-only data:  {}",
            if f { "filtered" } else { "kept" }
        );
    }
    println!("  assets:            {}", r.assets.len());
    println!("  dependency nodes:  {}", r.dependencies.nodes.len());
    println!("  package data:      {}", r.packages.len());
    let c = classes(&r);
    println!("  classes:           {}", c.len());
    let mut top: Vec<(&String, &usize)> = c.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (k, n) in top.iter().take(5) {
        println!("    {n:>5}  {k}");
    }
    println!(
        "  writes back:       {}",
        if s["rewrites_exactly"] == true {
            "byte for byte"
        } else {
            "NOT byte for byte (run `pakrat verify`)"
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `list` of a registry: one entry per asset, stored order.
pub fn list(file: &Path, tags: bool, json_out: bool) -> Result<ExitCode> {
    let (_, r) = load(file)?;
    with_stdout(|w| {
        if json_out {
            let entries: Vec<Value> = r
                .assets
                .iter()
                .map(|a| {
                    let v = r.view(a);
                    let tags: serde_json::Map<String, Value> = v
                        .tags
                        .into_iter()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect();
                    json!({
                        "object_path": v.object_path,
                        "package": v.package,
                        "package_path": r.name(a.package_path),
                        "class": v.class,
                        "tags": tags,
                        "chunk_ids": a.chunk_ids,
                        "package_flags": a.package_flags,
                    })
                })
                .collect();
            write_json(
                w,
                &json!({ "file": file.display().to_string(), "entries": entries }),
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        for a in &r.assets {
            let v = r.view(a);
            writeln!(w, "{}  {}", v.object_path, v.class)?;
            if tags {
                for (k, val) in v.tags {
                    writeln!(w, "    {k} = {val}")?;
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Problems `read` does not already refuse: tag handles past the store.
fn problems(r: &AssetRegistry) -> Vec<String> {
    let mut out = Vec::new();
    let Some(s) = &r.store else {
        return out;
    };
    for (i, a) in r.assets.iter().enumerate() {
        if let Tags::Handle(h) = a.tags {
            let (numberless, num, first) = Tags::handle_parts(h);
            let len = if numberless {
                s.numberless_pairs.len()
            } else {
                s.pairs.len()
            };
            if num > 0 && first + num > len {
                out.push(format!(
                    "asset {i} ({}): tag handle {h:#x} points past the {len} pairs",
                    r.view(a).object_path
                ));
            }
        }
    }
    out
}

/// `verify` of a registry: it reads, its tag handles point inside the store,
/// and it writes back byte for byte (exit 1 otherwise).
pub fn verify(file: &Path, json_out: bool) -> Result<ExitCode> {
    let (data, r) = load(file)?;
    let exact = r.to_bytes() == data;
    let problems = problems(&r);
    let ok = exact && problems.is_empty();
    if json_out {
        print_json(&json!({
            "file": file.display().to_string(),
            "ok": ok,
            "version": r.version,
            "assets": r.assets.len(),
            "packages": r.packages.len(),
            "rewrites_exactly": exact,
            "problems": problems,
        }))?;
    } else {
        for p in &problems {
            println!("{}: {p}", file.display());
        }
        if ok {
            println!(
                "{}: OK (asset registry version {}, {} assets, {} packages; writes back byte for byte)",
                file.display(),
                r.version,
                r.assets.len(),
                r.packages.len()
            );
        } else if !exact {
            println!(
                "{}: reads, but does not write back byte for byte: a layout pakrat does not reproduce",
                file.display()
            );
        }
    }
    Ok(exit_code(ok))
}

/// `registry merge GAME MOD -o OUT`.
pub fn merge(a: &RegistryMergeArgs) -> Result<ExitCode> {
    let (_, mut game) = load(&a.game)?;
    let (_, add) = load(&a.add)?;
    if a.output.exists() && !a.force {
        bail!("{}: exists (--force replaces it)", a.output.display());
    }
    let report = merge_into(&mut game, &add).map_err(|e| anyhow::anyhow!("{e}"))?;
    let bytes = game.to_bytes();
    // The merged registry must read back as what was merged.
    let back = AssetRegistry::read(&bytes)
        .map_err(|e| anyhow::anyhow!("the merged registry does not read back: {e}"))?;
    if back.to_bytes() != bytes {
        bail!("the merged registry does not write back the same bytes (nothing written)");
    }
    pakrat_io::fsutil::write_atomic(&a.output, a.force, |w| w.write_all(&bytes))
        .map_err(|e| anyhow::anyhow!(e))?;
    if a.out.json {
        print_json(&json!({
            "file": a.game.display().to_string(),
            "mod": a.add.display().to_string(),
            "output": a.output.display().to_string(),
            "size": bytes.len(),
            "assets": game.assets.len(),
            "packages": game.packages.len(),
            "report": report,
        }))?;
    } else {
        println!(
            "{}: {} assets ({} replaced, {} added), {} package data ({} replaced, {} added), {} dependency nodes ({} replaced, {} added), {} names added",
            a.output.display(),
            game.assets.len(),
            report.assets_replaced,
            report.assets_added,
            game.packages.len(),
            report.packages_replaced,
            report.packages_added,
            game.dependencies.nodes.len(),
            report.nodes_replaced,
            report.nodes_added,
            report.names_added
        );
    }
    Ok(ExitCode::SUCCESS)
}
