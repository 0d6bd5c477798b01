//! Handlers for iostore commands.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Result};
use pakrat_codec::KeyRing;
use pakrat_io::text::show;
use pakrat_iostore::container::{guid_text, ChunkInfo};
use pakrat_iostore::toc::{flags, EncryptionMethod};
use pakrat_iostore::{extract, verify as iverify, Container};
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{exit_code, global_script, open_container, progress};
use crate::output::{human_size, print_json};

fn encryption_name(m: EncryptionMethod) -> &'static str {
    match m {
        EncryptionMethod::None => "none",
        EncryptionMethod::AesEcb => "AES-256-ECB",
        EncryptionMethod::AesCtr => "AES-256-CTR",
    }
}

/// `info` for this format.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    // A key that does not fit still leaves the (unencrypted) header worth
    // showing: open without keys, show it, report the key and exit 1.
    let (c, key_error) = match open_container(&a.file, &a.keys) {
        Ok(c) => (c, None),
        Err(e) => match Container::open(&a.file, &KeyRing::new()) {
            Ok(c) => (c, Some(crate::output::error_text(&e))),
            Err(_) => return Err(e),
        },
    };
    let status = if key_error.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let toc = c.toc();
    let h = &toc.header;
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..toc.len() {
        *types.entry(toc.chunk_type(i).name()).or_default() += 1;
    }
    let size: u64 = toc.offsets.iter().map(|o| o.length).sum();
    let stored: u64 = toc
        .blocks
        .iter()
        .map(|b| u64::from(b.compressed_size))
        .sum();
    let partitions: Vec<_> = c
        .partitions()
        .iter()
        .map(|p| json!({"path": p.path.display().to_string(), "present": p.source.is_some()}))
        .collect();
    let psize = h.effective_partition_size();
    let numbering = format!("{:?}", toc.numbering);
    // The companion .pak (Name.pak next to Name.utoc): its footer only.
    let utoc_path = a.file.with_extension("utoc");
    let companion = pakrat_pak::companion(&utoc_path).map(|(path, footer)| match footer {
        Ok(f) => json!({"path": path.display().to_string(), "footer": f}),
        Err(e) => json!({"path": path.display().to_string(), "error": e.to_string()}),
    });
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "format": "iostore",
            "version": h.version,
            "version_name": h.toc_version().name(),
            "flags": flags::describe(h.flags),
            "flags_raw": h.flags,
            "entries": toc.len(),
            "blocks": toc.blocks.len(),
            "block_size": h.block_size,
            "methods": toc.method_names,
            "partition_count": h.effective_partition_count(),
            "partition_size": (psize != u64::MAX).then_some(psize),
            "partitions": partitions,
            "container_id": format!("{:#018x}", h.container_id),
            "encryption_key_guid": guid_text(h.encryption_key_guid),
            "encryption": encryption_name(h.encryption()),
            "key_given": c.key().is_some(),
            "key_error": key_error,
            "directory_index_size": h.directory_index_size,
            "mount_point": c.mount_point(),
            "directory_error": c.directory_error(),
            "indexed_files": c.indexed_files().len(),
            "perfect_hash_seeds": toc.perfect_hash_seeds.len(),
            "chunks_without_perfect_hash": toc.chunks_without_perfect_hash.len(),
            "signed": toc.signatures.is_some(),
            "chunk_type_numbering": numbering,
            "chunk_types": types,
            "uncompressed_bytes": size,
            "stored_bytes": stored,
            "companion_pak": companion,
        }))?;
        if let Some(e) = &key_error {
            eprintln!("pakrat: error: {e}");
        }
        return Ok(status);
    }
    println!("{}: IoStore container (.utoc)", a.file.display());
    println!(
        "  version:        {} ({})",
        h.version,
        h.toc_version().name()
    );
    println!("  flags:          {}", flags::describe(h.flags));
    println!("  entries:        {}", toc.len());
    println!(
        "  blocks:         {} of {} ({})",
        toc.blocks.len(),
        human_size(u64::from(h.block_size)),
        h.block_size
    );
    println!(
        "  methods:        {}",
        if toc.method_names.is_empty() {
            "none".to_string()
        } else {
            toc.method_names.join(", ")
        }
    );
    let present = c.partitions().iter().filter(|p| p.source.is_some()).count();
    if psize == u64::MAX {
        println!(
            "  partitions:     {} ({} of {} .ucas present)",
            h.effective_partition_count(),
            present,
            c.partitions().len()
        );
    } else {
        println!(
            "  partitions:     {} of {} ({} of {} .ucas present)",
            h.effective_partition_count(),
            human_size(psize),
            present,
            c.partitions().len()
        );
    }
    println!("  container id:   {:#018x}", h.container_id);
    println!(
        "  encryption:     {} (key GUID {}{})",
        encryption_name(h.encryption()),
        guid_text(h.encryption_key_guid),
        match (h.encryption(), c.key(), &key_error) {
            (EncryptionMethod::None, _, _) => "",
            (_, Some(_), _) => ", key given",
            (_, None, Some(_)) => ", wrong key given",
            (_, None, None) => ", no key given",
        }
    );
    if let Some(m) = c.mount_point() {
        println!("  mount point:    {}", show(m));
        println!("  indexed files:  {}", c.indexed_files().len());
    } else if let Some(e) = c.directory_error() {
        println!("  directory:      {}", show(e));
    } else {
        println!("  directory:      none");
    }
    match &companion {
        Some(c) if c.get("footer").is_some() => {
            let f = &c["footer"];
            println!(
                "  companion .pak: {} (pak version {} {}, index at {} of {} bytes{})",
                c["path"].as_str().unwrap_or("?"),
                f["version"],
                f["version_name"].as_str().unwrap_or(""),
                f["index_offset"],
                f["index_size"],
                if f["encrypted_index"].as_bool() == Some(true) {
                    ", encrypted index"
                } else {
                    ""
                }
            );
        }
        Some(c) => println!(
            "  companion .pak: {}: {}",
            c["path"].as_str().unwrap_or("?"),
            c["error"].as_str().unwrap_or("unreadable")
        ),
        None => println!("  companion .pak: none"),
    }
    println!(
        "  perfect hash:   {} seeds, {} overflow entries",
        toc.perfect_hash_seeds.len(),
        toc.chunks_without_perfect_hash.len()
    );
    if toc.signatures.is_some() {
        println!("  signed:         yes (block SHA-1 table)");
    }
    let t: Vec<String> = types.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!("  chunk types:    {} ({numbering} numbering)", t.join(", "));
    println!(
        "  size:           {} uncompressed, {} stored",
        human_size(size),
        human_size(stored)
    );
    if let Some(e) = &key_error {
        eprintln!("pakrat: error: {e}");
    }
    Ok(status)
}

fn chunk_json(x: &ChunkInfo) -> serde_json::Value {
    json!({
        "index": x.index,
        "id": x.id.to_hex(),
        "type": x.chunk_type.name(),
        "path": x.path,
        "offset": x.offset,
        "size": x.size,
        "compressed_size": x.compressed_size,
    })
}

/// `list` for this format.
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    let c = open_container(&a.file, &a.keys)?;
    let indexed = c.toc().header.has(flags::INDEXED);
    if indexed && !a.chunks {
        if let Err(e) = c.directory() {
            bail!("{e}");
        }
    }
    // Without a directory index there are no paths: list chunk ids.
    let all = a.chunks || !indexed;
    let rows: Vec<ChunkInfo> = c
        .chunks()
        .into_iter()
        .filter(|x| all || x.path.is_some())
        .collect();
    // Stop quietly when the reader goes away (`| head`).
    let quiet_pipe = |r: std::io::Result<()>| -> Result<bool> {
        match r {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
            Err(e) => Err(e.into()),
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if a.out.json {
        let v = json!({
            "file": a.file.display().to_string(),
            "chunks": all,
            "entries": rows.iter().map(chunk_json).collect::<Vec<_>>(),
        });
        let r = writeln!(out, "{}", crate::output::json_text(&v)?).and_then(|()| out.flush());
        quiet_pipe(r)?;
        return Ok(ExitCode::SUCCESS);
    }
    for x in &rows {
        let name = x.path.clone().unwrap_or_else(|| x.id.to_hex());
        let r = writeln!(
            out,
            "{:>12} {:>12}  {:<20} {}",
            x.size,
            x.compressed_size,
            x.chunk_type.name(),
            show(&name)
        );
        if !quiet_pipe(r)? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    let total: u64 = rows.iter().map(|x| x.size).sum();
    let r = writeln!(
        out,
        "{} {} ({})",
        rows.len(),
        if all { "chunks" } else { "files" },
        human_size(total)
    )
    .and_then(|()| out.flush());
    quiet_pipe(r)?;
    Ok(ExitCode::SUCCESS)
}

/// `verify` for this format.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let c = open_container(&a.file, &a.keys)?;
    let total: u64 = c.toc().offsets.iter().map(|o| o.length).sum();
    let bar = progress(total, a.out.json, "verifying");
    let tick = |n: u64| {
        if let Some(pb) = &bar {
            pb.inc(n);
        }
    };
    let opts = iverify::Options {
        allow_unhashed: a.allow_unhashed,
    };
    let r = iverify::verify_with(&c, &tick, &opts);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let code = exit_code(r.ok());
    if a.out.json {
        let mut v = serde_json::to_value(&r)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("file".into(), a.file.display().to_string().into());
            m.insert("ok".into(), r.ok().into());
            m.insert(
                "partitions".into(),
                c.toc().header.effective_partition_count().into(),
            );
        }
        print_json(&v)?;
        return Ok(code);
    }
    let toc = c.toc();
    let parts = toc.header.effective_partition_count();
    println!(
        "{}: TOC v{}, {} chunks, {} blocks{}",
        a.file.display(),
        toc.header.version,
        toc.len(),
        toc.blocks.len(),
        if parts > 1 {
            format!(", {parts} partitions")
        } else {
            String::new()
        }
    );
    if r.data_checked {
        println!(
            "  chunk hashes ({}): {}/{} ok",
            r.hash_kind,
            r.chunk_hashes_ok,
            toc.len()
        );
        println!(
            "  blocks (bounds, padding): {}/{} checked",
            r.blocks_checked,
            toc.blocks.len()
        );
        if toc.signatures.is_some() {
            println!(
                "  block signatures (SHA-1): {}/{} ok",
                r.block_signatures_ok,
                toc.blocks.len()
            );
        }
    }
    if !toc.perfect_hash_seeds.is_empty() {
        println!(
            "  perfect hash: {}/{} entries resolve to their slot",
            r.perfect_hash_ok,
            toc.len()
        );
    }
    if toc.header.has(flags::INDEXED) {
        println!("  directory index: {} files", r.directory_files);
    }
    for w in &r.warnings {
        println!("  warning [{}]: {}", w.area, show(&w.message));
    }
    for f in &r.failures {
        println!("  FAIL [{}]: {}", f.area, show(&f.message));
    }
    if r.ok() {
        println!("OK");
    } else {
        println!("{} failure(s)", r.failures.len());
    }
    Ok(code)
}

/// `extract` for this format.
pub fn extract(a: &ExtractArgs) -> Result<ExitCode> {
    let c = open_container(&a.file, &a.keys)?;
    let indexed = c.toc().header.has(flags::INDEXED);
    if indexed {
        if let Err(e) = c.directory() {
            bail!("{e}");
        }
    } else if !a.chunks {
        bail!(
            "{}: has no directory index, so no paths: use --chunks to extract its chunks by id",
            a.file.display()
        );
    }
    let globs = crate::cmd::common::globset(&a.globs)?;
    let jobs: Vec<extract::Job> = c
        .chunks()
        .into_iter()
        .filter_map(|x| {
            let name = match &x.path {
                Some(p) => p.clone(),
                None if a.chunks => extract::chunk_file_name(&x),
                None => return None,
            };
            match &globs {
                Some(g) if !g.is_match(&name) => None,
                _ => Some(extract::Job {
                    name,
                    index: x.index,
                    size: x.size,
                }),
            }
        })
        .collect();
    // Two TOC entries with one path: the last in TOC order is written,
    // always (parallel writing used to pick either), and both are named.
    let (jobs, dups) = extract::dedupe_jobs(jobs);
    for d in &dups {
        eprintln!("pakrat: warning: {}", show(d));
    }
    // A container without its .ucas has nothing to extract: say so once.
    if !c.has_data() && jobs.iter().any(|j| j.size > 0) {
        bail!(
            "{}: its .ucas (the chunk data) is missing, so nothing can be extracted; `pakrat info` and `pakrat list` work from the .utoc alone",
            a.file.display()
        );
    }
    // Nothing selected is an error before any folder is made (as for
    // UMODs and paks).
    if jobs.is_empty() {
        return Err(crate::cmd::common::nothing_matches(
            &a.file, "file", &a.globs,
        ));
    }
    let out = pakrat_io::fsutil::OutputDir::create(&a.output, a.force)?;
    crate::cmd::common::refuse_existing(&out, jobs.iter().map(|j| j.name.as_str()))?;
    let total: u64 = jobs.iter().map(|j| j.size).sum();
    let bar = progress(
        total,
        crate::cmd::common::quiet() || a.out.json,
        "extracting",
    );
    let tick = |n: u64| {
        if let Some(pb) = &bar {
            pb.inc(n);
        }
    };
    let start = std::time::Instant::now();
    let opts = extract::Options {
        verify_hashes: !a.no_verify,
        ..Default::default()
    };
    let summary = extract::extract_with(&c, &jobs, &out, &tick, &opts);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    let errors = summary.errors;
    let done = summary.files;
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "output": out.root().display().to_string(),
            "extracted": done,
            "selected": jobs.len(),
            "bytes": total,
            "seconds": secs,
            "errors": errors,
            "duplicates": dups,
            "hashes_checked": !a.no_verify,
            "unhashed": summary.unhashed,
        }))?;
    } else {
        for e in &errors {
            eprintln!("pakrat: error: {}", show(e));
        }
        if summary.unhashed > 0 {
            eprintln!(
                "pakrat: note: {} file(s) have no chunk hash in the TOC (all zero): written unchecked",
                summary.unhashed
            );
        }
        // The result line prints under -q too (its help says so).
        println!(
            "extracted {done} of {} files ({}) to {} in {secs:.2}s",
            jobs.len(),
            human_size(total),
            out.root().display()
        );
    }
    Ok(exit_code(errors.is_empty()))
}

/// `packages` for this format: the zen packages of a container, or one
/// package in detail, with class names resolved through a global container.
pub fn packages(a: &PackagesArgs) -> Result<ExitCode> {
    use pakrat_asset::zen::{self, ContainerPackages, ObjectIndex, Resolver, ZenPackage};
    use pakrat_codec::names::{hex_id, package_id};
    use serde_json::json;

    // Write to a locked stdout and stop quietly when the reader goes away
    // (e.g. `| head`) instead of panicking in println!.
    let stdout = std::io::stdout();
    let mut o = stdout.lock();
    macro_rules! outln {
        ($($t:tt)*) => {{
            use std::io::Write as _;
            if writeln!(o, $($t)*).is_err() {
                return Ok(ExitCode::SUCCESS);
            }
        }};
    }
    let c = open_container(&a.file, &a.keys)?;
    let (script, notes) = global_script(&a.file, a.global.as_deref(), &a.keys)?;
    let all = match ContainerPackages::read(&c) {
        Ok(p) => p,
        Err(e) => {
            // A global container has script objects but no packages.
            if let Ok(s) = zen::load_script_objects(&c) {
                bail!(
                    "{}: a global container ({} script objects); it holds no packages",
                    a.file.display(),
                    s.objects.len()
                );
            }
            return Err(e.into());
        }
    };
    let public = all.public_exports();
    let res = Resolver {
        all: &all,
        script: script.as_ref(),
        public: &public,
    };
    let short = |s: String| -> String {
        match s.rfind(['.', ':']) {
            Some(i) if !s.starts_with('<') => s[i + 1..].to_string(),
            _ => s,
        }
    };
    // The "main" export: the one named like the package, else the first.
    let main_class = |p: &ZenPackage, id: u64| -> String {
        let leaf = p.name.rsplit('/').next().unwrap_or("");
        p.exports
            .iter()
            .find(|e| p.name_of(e.name) == leaf)
            .or(p.exports.first())
            .map(|e| short(res.name(p, id, e.class)))
            .unwrap_or_default()
    };

    if let Some(q) = &a.package {
        let Some(entry) = all.find(q) else {
            bail!("{}: no package {q:?} in this container", a.file.display());
        };
        let p = entry
            .header
            .as_ref()
            .map_err(|e| anyhow::anyhow!("package {}: {e}", hex_id(entry.id)))?;
        let id = entry.id;
        let obj = |i: ObjectIndex| res.name(p, id, i);
        let store = all.store_entry(id);
        let imported: Vec<String> = store
            .map(|s| {
                s.imported_packages
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
            })
            .unwrap_or_else(|| p.imported_package_names.clone());
        if a.out.json {
            let exports: Vec<_> = p
                .exports
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    json!({
                        "index": i,
                        "name": p.name_of(e.name),
                        "class": obj(e.class),
                        "outer": obj(e.outer),
                        "super": obj(e.super_index),
                        "template": obj(e.template),
                        "serial_offset": e.serial_offset,
                        "serial_size": e.serial_size,
                        "object_flags": e.object_flags,
                        "filter_flags": e.filter_flags,
                        "public_export_hash": format!("{:016X}", e.public_export_hash),
                    })
                })
                .collect();
            let imports: Vec<_> = p.imports.iter().map(|&i| obj(i)).collect();
            outln!(
                "{}",
                crate::output::json_text(&json!({
                    "name": p.name,
                    "id": hex_id(id),
                    "id_matches_name": package_id(&p.name) == id,
                    "path": entry.path,
                    "layout": p.layout.describe(),
                    "versioning": p.versioning,
                    "package_flags": p.package_flags,
                    "header_size": p.header_size,
                    "cooked_header_size": p.cooked_header_size,
                    "names": p.names.iter().map(|n| n.text.clone()).collect::<Vec<_>>(),
                    "name_hash_mismatches": p.name_hash_mismatches(),
                    "imported_packages": imported,
                    "imports": imports,
                    "exports": exports,
                    "export_bundle_entries": p.export_bundle_entries.len(),
                    "export_bundles": p.export_bundle_headers.len(),
                    "dependency_bundles": p.dependency_bundle_headers.len(),
                    "dependency_bundle_entries": p.dependency_bundle_entries.len(),
                }))?
            );
            return Ok(ExitCode::SUCCESS);
        }
        outln!("{}", show(&p.name));
        outln!(
            "  id:          {}{}",
            hex_id(id),
            if package_id(&p.name) == id {
                ""
            } else {
                "  (DOES NOT MATCH the name's CityHash64)"
            }
        );
        if let Some(path) = &entry.path {
            outln!("  path:        {}", show(path));
        }
        outln!("  layout:      {}", p.layout.describe());
        match &p.versioning {
            Some(v) => outln!(
                "  versioned:   zen {}, UE4 {}, UE5 {}, licensee {}, {} custom versions",
                v.zen_version,
                v.file_version_ue4,
                v.file_version_ue5,
                v.licensee,
                v.custom_versions.len()
            ),
            None => outln!("  versioned:   no (unversioned)"),
        }
        outln!(
            "  flags:       {:#010x}, header {} bytes, cooked header {} bytes",
            p.package_flags,
            p.header_size,
            p.cooked_header_size
        );
        if let Some(s) = &p.source_name {
            outln!("  source name: {s}");
        }
        outln!(
            "  names ({}{}):",
            p.names.len(),
            match p.name_hash_mismatches() {
                0 => String::new(),
                n => format!(", {n} with a wrong stored hash"),
            }
        );
        for (i, n) in p.names.iter().enumerate() {
            outln!("    {i:4}  {}", n.text);
        }
        outln!("  imported packages ({}):", imported.len());
        for n in &imported {
            outln!("          {n}");
        }
        outln!("  imports ({}):", p.imports.len());
        for (i, &imp) in p.imports.iter().enumerate() {
            let n = obj(imp);
            outln!(
                "    {i:4}  {}",
                if n.is_empty() { "(null)" } else { n.as_str() }
            );
        }
        outln!("  exports ({}):", p.exports.len());
        for (i, e) in p.exports.iter().enumerate() {
            let outer = obj(e.outer);
            outln!(
                "    {i:4}  {}  class {}{}  size {}  flags {:#x}",
                p.name_of(e.name),
                obj(e.class),
                if outer.is_empty() {
                    String::new()
                } else {
                    format!("  outer {outer}")
                },
                e.serial_size,
                e.object_flags
            );
        }
        if !p.export_bundle_headers.is_empty() {
            outln!("  export bundles: {}", p.export_bundle_headers.len());
        }
        if !p.dependency_bundle_headers.is_empty() {
            outln!(
                "  dependency bundles: {} ({} entries)",
                p.dependency_bundle_headers.len(),
                p.dependency_bundle_entries.len()
            );
        }
        for n in &notes {
            eprintln!("pakrat: note: {n}");
        }
        return Ok(ExitCode::SUCCESS);
    }

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
                    "class": main_class(p, e.id),
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
    // Package ids of the container header without a package chunk.
    let chunk_ids: std::collections::HashSet<u64> = all.packages.iter().map(|p| p.id).collect();
    let missing: Vec<String> = all
        .header
        .package_ids
        .iter()
        .filter(|id| !chunk_ids.contains(*id))
        .map(|id| hex_id(*id))
        .collect();
    if a.out.json {
        outln!(
            "{}",
            crate::output::json_text(&json!({
                "file": a.file.display().to_string(),
                "container_id": hex_id(all.header.container_id),
                "container_header": all.header.form.describe(),
                "layout": all.layout.describe(),
                "script_objects": script.as_ref().map(|s| s.objects.len()),
                "packages": rows,
                "header_packages_without_chunk": missing,
                "redirects": all.header.redirects.len(),
                "localized_packages": all.header.localized_packages.len(),
                "failed": failed,
            }))?
        );
    } else {
        outln!(
            "{}: {} packages (container header {}, package layout {}){}",
            a.file.display(),
            all.packages.len(),
            all.header.form.describe(),
            all.layout.describe(),
            match &script {
                Some(s) => format!(
                    ", {} script objects from the global container",
                    s.objects.len()
                ),
                None => String::new(),
            }
        );
        outln!("{:>7} {:>7}  {:<24} PACKAGE", "EXPORTS", "IMPORTS", "CLASS");
        for r in &rows {
            if let Some(err) = r["error"].as_str() {
                outln!(
                    "  ERROR {} {}: {err}",
                    r["id"].as_str().unwrap_or(""),
                    r["path"].as_str().unwrap_or("")
                );
                continue;
            }
            outln!(
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
            );
        }
        if !missing.is_empty() {
            outln!(
                "{} package id(s) in the container header have no package chunk here{}",
                missing.len(),
                if a.verbose {
                    ":"
                } else {
                    " (--verbose lists them)"
                }
            );
            if a.verbose {
                for m in &missing {
                    outln!("  {m}");
                }
            }
        }
        if !all.header.redirects.is_empty() || !all.header.localized_packages.is_empty() {
            outln!(
                "{} redirects, {} localized packages",
                all.header.redirects.len(),
                all.header.localized_packages.len()
            );
        }
        for n in &notes {
            eprintln!("pakrat: note: {n}");
        }
    }
    if failed > 0 {
        eprintln!("pakrat: {failed} package(s) could not be read or have a wrong id");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
