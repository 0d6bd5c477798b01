//! Handlers for iostore commands.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use pakrat_iostore::container::{guid_text, ChunkInfo};
use pakrat_iostore::toc::{flags, EncryptionMethod};
use pakrat_iostore::{verify as iverify, AesKey, Container, KeyRing};
use rayon::prelude::*;
use serde_json::json;

use crate::args::*;
use crate::output::{human_size, print_json};

/// Build the key ring from `--aes-key` and `--keys`.
pub fn keyring(k: &KeyArgs) -> Result<KeyRing> {
    let mut ring = KeyRing::new();
    for s in &k.aes_keys {
        ring.add(AesKey::parse(s).context("--aes-key")?);
    }
    if let Some(f) = &k.keys_file {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("reading keys file {}", f.display()))?;
        ring.add_json(&text)
            .with_context(|| format!("keys file {}", f.display()))?;
    }
    Ok(ring)
}

/// Open a container with the keys of a command.
pub fn open(path: &std::path::Path, k: &KeyArgs) -> Result<Container> {
    Ok(Container::open(path, &keyring(k)?)?)
}

fn encryption_name(m: EncryptionMethod) -> &'static str {
    match m {
        EncryptionMethod::None => "none",
        EncryptionMethod::AesEcb => "AES-256-ECB",
        EncryptionMethod::AesCtr => "AES-256-CTR",
    }
}

fn progress(total: u64, quiet: bool, what: &str) -> Option<indicatif::ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
        "{{spinner}} {what} [{{bar:30}}] {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {{eta}}"
    )) {
        pb.set_style(style.progress_chars("=> "));
    }
    Some(pb)
}

/// `info` for this format.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let c = open(&a.file, &a.keys)?;
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
        }))?;
        return Ok(ExitCode::SUCCESS);
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
        match (h.encryption(), c.key()) {
            (EncryptionMethod::None, _) => "",
            (_, Some(_)) => ", key given",
            (_, None) => ", no key given",
        }
    );
    if let Some(m) = c.mount_point() {
        println!("  mount point:    {m}");
        println!("  indexed files:  {}", c.indexed_files().len());
    } else if let Some(e) = c.directory_error() {
        println!("  directory:      {e}");
    } else {
        println!("  directory:      none");
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
    Ok(ExitCode::SUCCESS)
}

/// `pak_info` for this format.
pub fn pak_info(_a: &InfoArgs) -> Result<ExitCode> {
    bail!("pak_info: not implemented yet")
}

/// File name of a chunk written by id (`--chunks`).
fn chunk_file_name(x: &ChunkInfo) -> String {
    format!("_chunks/{}.{}", x.id, x.chunk_type.name())
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
    let c = open(&a.file, &a.keys)?;
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
    if a.out.json {
        let v: Vec<_> = rows.iter().map(chunk_json).collect();
        print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for x in &rows {
        let name = x.path.clone().unwrap_or_else(|| x.id.to_hex());
        writeln!(
            out,
            "{:>12} {:>12}  {:<20} {}",
            x.size,
            x.compressed_size,
            x.chunk_type.name(),
            name
        )?;
    }
    let total: u64 = rows.iter().map(|x| x.size).sum();
    writeln!(
        out,
        "{} {} ({})",
        rows.len(),
        if all { "chunks" } else { "files" },
        human_size(total)
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `verify` for this format.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let c = open(&a.file, &a.keys)?;
    let total: u64 = c.toc().offsets.iter().map(|o| o.length).sum();
    let bar = progress(total, a.out.json, "verifying");
    let tick = |n: u64| {
        if let Some(pb) = &bar {
            pb.inc(n);
        }
    };
    let r = iverify::verify(&c, &tick);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let code = if r.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if a.out.json {
        let mut v = serde_json::to_value(&r)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("file".into(), a.file.display().to_string().into());
            m.insert("ok".into(), r.ok().into());
        }
        print_json(&v)?;
        return Ok(code);
    }
    let toc = c.toc();
    println!(
        "{}: TOC v{}, {} chunks, {} blocks",
        a.file.display(),
        toc.header.version,
        toc.len(),
        toc.blocks.len()
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
        println!("  warning [{}]: {}", w.area, w.message);
    }
    for f in &r.failures {
        println!("  FAIL [{}]: {}", f.area, f.message);
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
    let c = open(&a.file, &a.keys)?;
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
    let globs = if a.globs.is_empty() {
        None
    } else {
        let mut b = globset::GlobSetBuilder::new();
        for g in &a.globs {
            b.add(
                globset::GlobBuilder::new(g)
                    .case_insensitive(true)
                    .literal_separator(false)
                    .build()
                    .with_context(|| format!("bad glob {g:?}"))?,
            );
        }
        Some(b.build()?)
    };
    let jobs: Vec<(String, ChunkInfo)> = c
        .chunks()
        .into_iter()
        .filter_map(|x| {
            let name = match &x.path {
                Some(p) => p.clone(),
                None if a.chunks => chunk_file_name(&x),
                None => return None,
            };
            match &globs {
                Some(g) if !g.is_match(&name) => None,
                _ => Some((name, x)),
            }
        })
        .collect();
    let out = pakrat_io::fsutil::OutputDir::create(&a.output, a.force)?;
    let total: u64 = jobs.iter().map(|(_, x)| x.size).sum();
    let bar = progress(total, a.quiet || a.out.json, "extracting");
    let done = AtomicU64::new(0);
    let errors = Mutex::new(Vec::new());
    let start = std::time::Instant::now();
    jobs.par_iter().for_each(|(name, x)| {
        let res = out.write_with(name, |w| {
            c.stream_chunk(x.index, |b| {
                w.write_all(b)
                    .map_err(|e| pakrat_io::Error::Other(e.to_string()))?;
                if let Some(pb) = &bar {
                    pb.inc(b.len() as u64);
                }
                Ok(())
            })
            .map_err(std::io::Error::other)
        });
        match res {
            Ok(_) => {
                done.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                if let Ok(mut v) = errors.lock() {
                    v.push(format!("{name}: {e}"));
                }
            }
        }
    });
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    let mut errors = errors.into_inner().unwrap_or_default();
    errors.sort();
    let done = done.into_inner();
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "output": out.root().display().to_string(),
            "extracted": done,
            "selected": jobs.len(),
            "bytes": total,
            "seconds": secs,
            "errors": errors,
        }))?;
    } else {
        for e in &errors {
            eprintln!("pakrat: error: {e}");
        }
        if !a.quiet {
            println!(
                "extracted {done} of {} files ({}) to {} in {secs:.2}s",
                jobs.len(),
                human_size(total),
                out.root().display()
            );
        }
    }
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `packages` for this format.
pub fn packages(_a: &PackagesArgs) -> Result<ExitCode> {
    bail!("packages: not implemented yet")
}
