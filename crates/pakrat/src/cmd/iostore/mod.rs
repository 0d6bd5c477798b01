//! Handlers for iostore commands (`packages` in its own file).

mod packages;
mod shaders;

pub use packages::packages;

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
use crate::cmd::common::{
    exit_code, extract_output_fresh, open_container, progress, quiet, ticker,
};
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
    let (c, key_error) = open_for_info(a)?;
    let facts = Facts::of(&c, a);
    if a.out.json {
        print_json(&facts.json(&c, a, key_error.as_deref()))?;
    } else {
        facts.print(&c, a, key_error.as_deref());
    }
    if let Some(e) = &key_error {
        eprintln!("pakrat: error: {e}");
    }
    Ok(exit_code(key_error.is_none()))
}

/// Open the container for `info`. A key that does not fit still leaves
/// the (unencrypted) header worth showing: open without keys, show it,
/// report the key (the second value) and exit 1.
fn open_for_info(a: &InfoArgs) -> Result<(Container, Option<String>)> {
    match open_container(&a.file, &a.keys) {
        Ok(c) => Ok((c, None)),
        Err(e) => match Container::open(&a.file, &KeyRing::new()) {
            Ok(c) => Ok((c, Some(crate::output::error_text(&e)))),
            Err(_) => Err(e),
        },
    }
}

/// What `info` counts and finds beside the TOC header.
struct Facts {
    /// Entries per chunk type name.
    types: BTreeMap<String, usize>,
    /// Uncompressed bytes of all chunks.
    size: u64,
    /// Stored (compressed) bytes of all blocks.
    stored: u64,
    /// The partition size, `u64::MAX` for one unbounded partition.
    psize: u64,
    /// The chunk type numbering, as named in the output.
    numbering: String,
    /// The companion .pak (Name.pak next to Name.utoc): its footer only.
    companion: Option<serde_json::Value>,
}

impl Facts {
    fn of(c: &Container, a: &InfoArgs) -> Facts {
        let toc = c.toc();
        let mut types: BTreeMap<String, usize> = BTreeMap::new();
        for i in 0..toc.len() {
            *types.entry(toc.chunk_type(i).name()).or_default() += 1;
        }
        let utoc_path = a.file.with_extension("utoc");
        Facts {
            types,
            size: toc.offsets.iter().map(|o| o.length).sum(),
            stored: toc
                .blocks
                .iter()
                .map(|b| u64::from(b.compressed_size))
                .sum(),
            psize: toc.header.effective_partition_size(),
            numbering: format!("{:?}", toc.numbering),
            companion: pakrat_pak::companion(&utoc_path).map(|(path, footer)| match footer {
                Ok(f) => json!({"path": path.display().to_string(), "footer": f}),
                Err(e) => json!({"path": path.display().to_string(), "error": e.to_string()}),
            }),
        }
    }

    /// The `--json` form.
    fn json(&self, c: &Container, a: &InfoArgs, key_error: Option<&str>) -> serde_json::Value {
        let toc = c.toc();
        let h = &toc.header;
        let partitions: Vec<_> = c
            .partitions()
            .iter()
            .map(|p| json!({"path": p.path.display().to_string(), "present": p.source.is_some()}))
            .collect();
        json!({
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
            "partition_size": (self.psize != u64::MAX).then_some(self.psize),
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
            "chunk_type_numbering": self.numbering,
            "chunk_types": self.types,
            "uncompressed_bytes": self.size,
            "stored_bytes": self.stored,
            "companion_pak": self.companion,
        })
    }

    /// The text form.
    fn print(&self, c: &Container, a: &InfoArgs, key_error: Option<&str>) {
        let toc = c.toc();
        let h = &toc.header;
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
        self.print_partitions(c);
        println!("  container id:   {:#018x}", h.container_id);
        print_encryption(c, key_error);
        print_directory(c);
        self.print_companion();
        println!(
            "  perfect hash:   {} seeds, {} overflow entries",
            toc.perfect_hash_seeds.len(),
            toc.chunks_without_perfect_hash.len()
        );
        if toc.signatures.is_some() {
            println!("  signed:         yes (block SHA-1 table)");
        }
        let t: Vec<String> = self.types.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "  chunk types:    {} ({} numbering)",
            t.join(", "),
            self.numbering
        );
        println!(
            "  size:           {} uncompressed, {} stored",
            human_size(self.size),
            human_size(self.stored)
        );
    }

    fn print_partitions(&self, c: &Container) {
        let count = c.toc().header.effective_partition_count();
        let present = c.partitions().iter().filter(|p| p.source.is_some()).count();
        if self.psize == u64::MAX {
            println!(
                "  partitions:     {} ({} of {} .ucas present)",
                count,
                present,
                c.partitions().len()
            );
        } else {
            println!(
                "  partitions:     {} of {} ({} of {} .ucas present)",
                count,
                human_size(self.psize),
                present,
                c.partitions().len()
            );
        }
    }

    fn print_companion(&self) {
        match &self.companion {
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
    }
}

/// The encryption line of `info`: method, key GUID and whether a key fits.
fn print_encryption(c: &Container, key_error: Option<&str>) {
    let h = &c.toc().header;
    println!(
        "  encryption:     {} (key GUID {}{})",
        encryption_name(h.encryption()),
        guid_text(h.encryption_key_guid),
        match (h.encryption(), c.key(), key_error) {
            (EncryptionMethod::None, _, _) => "",
            (_, Some(_), _) => ", key given",
            (_, None, Some(_)) => ", wrong key given",
            (_, None, None) => ", no key given",
        }
    );
}

/// The mount point and file count of the directory index, or why there is none.
fn print_directory(c: &Container) {
    if let Some(m) = c.mount_point() {
        println!("  mount point:    {}", show(m));
        println!("  indexed files:  {}", c.indexed_files().len());
    } else if let Some(e) = c.directory_error() {
        println!("  directory:      {}", show(e));
    } else {
        println!("  directory:      none");
    }
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
    let tick = ticker(&bar);
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
    let (mut jobs, dups) = extract::dedupe_jobs(jobs);
    let libs = if a.raw_shaders {
        Vec::new()
    } else {
        shaders::take_libraries(&c, &mut jobs)
    };
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
    let names: Vec<&str> = jobs.iter().chain(&libs).map(|j| j.name.as_str()).collect();
    // A new folder is filled out of sight and renamed into place at the
    // end: no temporary name and rename per file (issue 31 item 17).
    let out = extract_output_fresh(a, names.into_iter())?;
    let total: u64 = jobs.iter().map(|j| j.size).sum();
    let bar = progress(total, quiet() || a.out.json, "extracting");
    let tick = ticker(&bar);
    let start = std::time::Instant::now();
    let opts = extract::Options {
        verify_hashes: !a.no_verify,
        ..Default::default()
    };
    let mut summary = extract::extract_with(&c, &jobs, &out, &tick, &opts);
    let (lib_files, lib_bytes, lib_errors) = shaders::write_libraries(&c, &libs, &out);
    summary.files += lib_files;
    summary.bytes += lib_bytes;
    summary.errors.extend(lib_errors);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    let mut errors = summary.errors;
    if let Err(e) = out.publish() {
        errors.push(e.to_string());
    }
    let done = summary.files;
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "output": out.target().display().to_string(),
            "extracted": done,
            "selected": jobs.len() + libs.len(),
            "shader_libraries": libs.len(),
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
            jobs.len() + libs.len(),
            human_size(total),
            out.target().display()
        );
    }
    Ok(exit_code(errors.is_empty()))
}
