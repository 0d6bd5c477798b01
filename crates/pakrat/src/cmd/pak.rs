//! `.pak` files: info, list (a file, or a folder of paks merged the way the
//! engine mounts them), verify, extract, and `pak create`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use pakrat_codec::compress::{Method, ZlibEncoder};
use pakrat_io::text::show;
use pakrat_pak::{self as pak, write, Cipher, Pak, PakEntry};
use serde_json::json;

use crate::args::*;
use crate::cmd::common::{
    exit_code, extract_output, globset, keyring, open_pak, progress, quiet, ticker,
};
use crate::output::{human_size, print_json};

fn entry_json(p: &Pak, e: &PakEntry) -> serde_json::Value {
    json!({
        "path": e.path,
        "offset": e.offset,
        "size": e.uncompressed_size,
        "stored_size": e.size,
        "method": p.method_name(e),
        "blocks": e.blocks.len(),
        "block_size": e.block_size,
        "encrypted": e.encrypted(),
        "deleted": e.deleted(),
    })
}

/// `info` for a pak: footer and index.
pub fn info(a: &InfoArgs) -> Result<ExitCode> {
    let src = pakrat_io::Source::open(&a.file)?;
    let tail = &src[src.len().saturating_sub(1024)..];
    let f = pak::parse(tail, src.len() as u64).map_err(|e| e.in_file(&a.file))?;
    drop(src);
    // The footer is worth showing even when the index cannot be read.
    let opened = open_pak(&a.file, &a.keys);
    let companion = a.file.with_extension("utoc");
    let companion = companion.is_file().then_some(companion);
    if a.out.json {
        let mut v = json!({
            "file": a.file.display().to_string(),
            "footer": f,
            "companion_utoc": companion.as_ref().map(|p| p.display().to_string()),
        });
        match &opened {
            Ok(p) => {
                let ix = &p.index;
                v["index"] = json!({
                    "mount_point": ix.mount_point,
                    "entries": ix.entries.len(),
                    "declared_entries": ix.declared_entries,
                    "encrypted_entries": ix.entries.iter().filter(|e| e.encrypted()).count(),
                    "deleted_entries": ix.entries.iter().filter(|e| e.deleted()).count(),
                    "bytes": ix.entries.iter().map(|e| e.uncompressed_size).sum::<u64>(),
                    "stored_bytes": ix.entries.iter().map(|e| e.size).sum::<u64>(),
                    "path_hash_seed": ix.path_hash_seed,
                    "path_hash_index": ix.path_hash_index,
                    "directory_index": ix.directory_index,
                    "flat_directory_index": ix.flat_directory_index,
                    "full_entries": ix.full_entries,
                    "cipher": p.cipher,
                    "notes": p.notes,
                });
            }
            Err(e) => v["index_error"] = json!(e.to_string()),
        }
        print_json(&v)?;
        return Ok(exit_code(opened.is_ok()));
    }
    println!("{}: pak file", a.file.display());
    println!("  version:           {} ({})", f.version, f.version_name);
    println!(
        "  index:             offset {:#x}, {} bytes, SHA-1 {}",
        f.index_offset, f.index_size, f.index_hash
    );
    println!(
        "  index encrypted:   {}",
        if f.encrypted_index { "yes" } else { "no" }
    );
    if f.version >= 7 {
        println!(
            "  key GUID:          {}{}",
            f.encryption_key_guid,
            if f.encryption_key_guid.is_zero() {
                " (default key)"
            } else {
                ""
            }
        );
    }
    if f.version >= 8 {
        println!(
            "  compression:       {} ({} name slots)",
            if f.compression_methods.is_empty() {
                "none".to_string()
            } else {
                f.compression_methods.join(", ")
            },
            f.compression_slots
        );
    }
    if let Some(p) = f.pakchunk_index {
        println!("  pakchunk index:    {p}");
    }
    if let Some(m) = f.encryption_method {
        let name = match m {
            0 => "none",
            1 => "AES-256-ECB",
            2 => "AES-256-CTR",
            _ => "unknown",
        };
        println!("  encryption method: {m} ({name})");
    }
    match &opened {
        Ok(p) => {
            let ix = &p.index;
            println!("  mount point:       {}", show(&ix.mount_point));
            let enc = ix.entries.iter().filter(|e| e.encrypted()).count();
            let del = ix.entries.iter().filter(|e| e.deleted()).count();
            let bytes: u64 = ix.entries.iter().map(|e| e.uncompressed_size).sum();
            let stored: u64 = ix.entries.iter().map(|e| e.size).sum();
            println!(
                "  files:             {} ({} stored as {}){}{}",
                ix.entries.len(),
                human_size(bytes),
                human_size(stored),
                if enc > 0 {
                    format!(", {enc} encrypted")
                } else {
                    String::new()
                },
                if del > 0 {
                    format!(", {del} delete records")
                } else {
                    String::new()
                }
            );
            let mut methods: BTreeMap<String, usize> = BTreeMap::new();
            for e in &ix.entries {
                *methods.entry(p.method_name(e)).or_default() += 1;
            }
            let m: Vec<String> = methods.iter().map(|(k, v)| format!("{k} × {v}")).collect();
            println!("  methods:           {}", m.join(", "));
            if let Some(seed) = ix.path_hash_seed {
                println!(
                    "  directory index:   {} (path hash seed {seed:#x}{})",
                    match (&ix.directory_index, ix.flat_directory_index) {
                        (Some(_), true) => "full, flat (sorted)",
                        (Some(_), false) => "full",
                        (None, _) => "pruned (path hashes only)",
                    },
                    if ix.full_entries > 0 {
                        format!(", {} unencoded entries", ix.full_entries)
                    } else {
                        String::new()
                    }
                );
            }
            for n in &p.notes {
                println!("  note: {}", show(n));
            }
        }
        Err(e) => println!("  index:             not read: {}", show(&e.to_string())),
    }
    if let Some(p) = &companion {
        println!("  companion IoStore container: {}", p.display());
    }
    Ok(exit_code(opened.is_ok()))
}

/// `list` for a pak.
pub fn list(a: &ListArgs) -> Result<ExitCode> {
    if a.names || a.imports || a.exports || a.chunks {
        bail!("{}: --names, --imports, --exports and --chunks apply to packages and IoStore containers, not paks", a.file.display());
    }
    let p = open_pak(&a.file, &a.keys)?;
    let g = globset(&a.globs)?;
    let sel: Vec<&PakEntry> = p
        .index
        .entries
        .iter()
        .filter(|e| g.as_ref().is_none_or(|g| g.is_match(&e.path)))
        .collect();
    if sel.is_empty() && !a.globs.is_empty() {
        // As for `extract`: a selection that matched nothing is an error.
        bail!(
            "{}: no file matches {}",
            a.file.display(),
            a.globs.join(" ")
        );
    }
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "mount_point": p.index.mount_point,
            "entries": sel.iter().map(|e| entry_json(&p, e)).collect::<Vec<_>>(),
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::output::with_stdout(|w| {
        writeln!(w, "{:>12} {:>12}  {:<6} path", "size", "stored", "method")?;
        for e in &sel {
            writeln!(
                w,
                "{:>12} {:>12}  {:<6} {}{}",
                e.uncompressed_size,
                e.size,
                p.method_name(e),
                show(&e.path),
                match (e.encrypted(), e.deleted()) {
                    (_, true) => "  (deleted)",
                    (true, _) => "  (encrypted)",
                    _ => "",
                }
            )?;
        }
        writeln!(
            w,
            "{} of {} files; mount point {}",
            sel.len(),
            p.index.entries.len(),
            show(&p.index.mount_point)
        )?;
        Ok(ExitCode::SUCCESS)
    })
}

/// `verify` for a pak.
pub fn verify(a: &VerifyArgs) -> Result<ExitCode> {
    let p = open_pak(&a.file, &a.keys)?;
    let total = p.index.entries.iter().map(|e| e.uncompressed_size).sum();
    let bar = progress(total, a.out.json, "verifying");
    let r = pak::verify::verify_with(&p, &|n| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let code = exit_code(r.ok() && r.complete());
    if a.out.json {
        let mut v = serde_json::to_value(&r)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("file".into(), a.file.display().to_string().into());
            m.insert("version".into(), p.footer.version.into());
            m.insert("ok".into(), (r.ok() && r.complete()).into());
        }
        print_json(&v)?;
        return Ok(code);
    }
    println!(
        "{}: pak v{}, {} files",
        a.file.display(),
        p.footer.version,
        r.entries
    );
    println!(
        "  index SHA-1: {}",
        if r.problems.iter().any(|x| x.path.is_empty()) {
            "BAD"
        } else {
            "ok"
        }
    );
    println!("  entry SHA-1: {}/{} ok", r.hashes_ok, r.entries);
    println!("  decoded: {}", human_size(r.bytes));
    if !r.skipped.is_empty() {
        println!(
            "  not checked: {} encrypted file(s): no key given (--aes-key or --keys)",
            r.skipped.len()
        );
    }
    if r.key_check != pak::KeyCheck::NotNeeded {
        println!("  AES key: {}", r.key_check.describe());
    }
    if let Some(s) = &r.signature_file {
        println!("  signature file: {} (present; its RSA signature needs the game's public key, not checked)", show(s));
    }
    for w in &r.warnings {
        println!("  WARN {w}");
    }
    for x in &r.problems {
        println!(
            "  FAIL {}{}: {}",
            if x.path.is_empty() {
                "(pak)".to_string()
            } else {
                show(&x.path).to_string()
            },
            x.offset.map(|o| format!(" at {o:#x}")).unwrap_or_default(),
            show(&x.message)
        );
    }
    if r.ok() && r.complete() {
        println!("OK");
    } else if r.ok() {
        println!("INCOMPLETE");
    } else {
        println!("{} problem(s)", r.problems.len());
    }
    Ok(code)
}

/// `extract` for a pak: files below the mount point, inside the folder.
pub fn extract(a: &ExtractArgs) -> Result<ExitCode> {
    if a.chunks || a.ignore_crc {
        bail!(
            "{}: --chunks and --ignore-crc apply to IoStore containers and UMODs, not paks",
            a.file.display()
        );
    }
    let p = open_pak(&a.file, &a.keys)?;
    let g = globset(&a.globs)?;
    let sel: Vec<&PakEntry> = p
        .index
        .entries
        .iter()
        .filter(|e| !e.deleted() && g.as_ref().is_none_or(|g| g.is_match(&e.path)))
        .collect();
    let out = extract_output(a, sel.iter().map(|e| e.path.as_str()))?;
    let total: u64 = sel.iter().map(|e| e.uncompressed_size).sum();
    let bar = progress(total, quiet() || a.out.json, "extracting");
    let tick = ticker(&bar);
    let start = std::time::Instant::now();
    let opts = pak::extract::Options {
        verify_hashes: !a.no_verify,
    };
    let s = pak::extract::extract(&p, &sel, &out, &tick, &opts);
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let secs = start.elapsed().as_secs_f64();
    // Encrypted files under a key nothing could verify were checked as
    // ciphertext only: no claim about what was written.
    let key_doubt =
        p.key().is_some() && !p.key_check.verified() && sel.iter().any(|e| e.encrypted());
    if a.out.json {
        print_json(&json!({
            "file": a.file.display().to_string(),
            "output": out.root().display().to_string(),
            "mount_point": p.index.mount_point,
            "extracted": s.files,
            "selected": sel.len(),
            "bytes": s.bytes,
            "seconds": secs,
            "errors": s.errors,
            "hashes_checked": !a.no_verify && !key_doubt,
            "key_check": p.key_check,
        }))?;
    } else {
        for e in &s.errors {
            eprintln!("pakrat: error: {}", show(e));
        }
        if key_doubt {
            eprintln!("pakrat: warning: AES key {}", show(&p.key_check.describe()));
        }
        // The result line prints under -q too (its help says so).
        println!(
            "extracted {} of {} files ({}) to {} in {secs:.2}s (mount point {})",
            s.files,
            sel.len(),
            human_size(s.bytes),
            out.root().display(),
            show(&p.index.mount_point)
        );
    }
    Ok(exit_code(s.errors.is_empty()))
}

/// Paths in the order a file names them.
fn order_from(path: &Path, keys: &KeyArgs) -> Result<Vec<String>> {
    let is_pak = path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("pak"));
    if is_pak {
        let p = open_pak(path, keys)?;
        let mut e: Vec<&PakEntry> = p.index.entries.iter().collect();
        e.sort_by_key(|e| e.offset);
        return Ok(e.iter().map(|e| e.path.clone()).collect());
    }
    let text = pakrat_io::read_text_capped(path, pakrat_io::caps::ORDER_LIST, "a file order list")
        .context("--order-from")?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let l = match l.strip_prefix('"') {
                Some(rest) => rest.split('"').next().unwrap_or(rest),
                None => l.split_whitespace().next().unwrap_or(l),
            };
            l.replace('\\', "/")
        })
        .collect())
}

/// `pak create`.
/// The writer's options from the arguments (codec, cipher, key, seed,
/// version), and the release whose IoStore companion is written.
fn create_options(
    a: &PakCreateArgs,
) -> Result<(
    write::Options,
    Option<&'static pakrat_iostore::engine::ContainerFormat>,
)> {
    let compression = match a.compress.to_ascii_lowercase().as_str() {
        "none" => Method::None,
        "zlib" => Method::Zlib,
        "gzip" => Method::Gzip,
        "lz4" => Method::Lz4,
        "zstd" => Method::Zstd,
        "oodle" => bail!("--compress oodle: Oodle cannot be encoded without Epic's closed Oodle library (pakrat only decodes it); use zlib, gzip, lz4 or zstd"),
        m => bail!("--compress {m:?}: expected none, zlib, gzip, lz4 or zstd"),
    };
    let cipher = match a.cipher.to_ascii_lowercase().as_str() {
        "ecb" => Cipher::Ecb,
        "ctr" => Cipher::Ctr,
        c => bail!("--cipher {c:?}: expected ecb or ctr"),
    };
    let seed = match &a.path_hash_seed {
        None => None,
        Some(s) => Some(
            match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16),
                None => s.parse(),
            }
            .with_context(|| format!("--path-hash-seed {s:?}: expected a number"))?,
        ),
    };
    let (version, companion) = pak_release(a)?;
    let ring = keyring(&a.keys)?;
    let (key, key_guid) = if a.encrypt || a.encrypt_index {
        let guid = match &a.key_guid {
            Some(g) => {
                let clean: String = g
                    .chars()
                    .filter(|c| !matches!(c, '-' | '{' | '}'))
                    .collect();
                pakrat_io::Guid::parse(&clean)
                    .with_context(|| format!("--key-guid {g:?}: expected 32 hex digits"))?
            }
            None => pakrat_io::Guid::default(),
        };
        let key = ring
            .for_guid(guid)
            .or_else(|| if a.key_guid.is_none() { ring.candidates(guid).first().copied() } else { None })
            .with_context(|| format!("--encrypt/--encrypt-index need a key (--aes-key, or --keys with a key for GUID {guid})"))?;
        (Some(key), guid)
    } else {
        (None, pakrat_io::Guid::default())
    };
    let o = write::Options {
        version,
        method_slots: a.method_slots,
        mount_point: a.mount.clone(),
        compression,
        level: a.level,
        zlib: if a.match_unrealpak {
            ZlibEncoder::UnrealPak
        } else {
            ZlibEncoder::Fast
        },
        block_size: a.block_size,
        encrypt: a.encrypt,
        encrypt_index: a.encrypt_index,
        key,
        key_guid,
        cipher,
        path_hash_seed: seed,
        min_bytes_saved: a.min_bytes_saved,
        ..write::Options::default()
    };
    Ok((o, companion))
}

pub fn create(a: &PakCreateArgs) -> Result<ExitCode> {
    let (o, companion) = create_options(a)?;
    let version = o.version;
    write::check(&o)?;
    // The same folder walk as `iostore create` (symlinks, special files and
    // unstorable names refused).
    let mut files: Vec<(String, std::path::PathBuf)> = pakrat_io::walk::walk(&a.src)?
        .into_iter()
        .map(|f| (f.rel, f.path))
        .collect();
    if files.is_empty() {
        bail!("{}: no files to pack; nothing was written", a.src.display());
    }
    if let Some(of) = &a.order_from {
        let order = order_from(of, &a.keys)?;
        let rank: std::collections::HashMap<String, usize> = order
            .iter()
            .enumerate()
            .map(|(i, p)| (p.to_lowercase(), i))
            .collect();
        files.sort_by_key(|(p, _)| {
            (
                rank.get(&p.to_lowercase()).copied().unwrap_or(usize::MAX),
                p.clone(),
            )
        });
    }
    let inputs: Vec<write::Input> = files
        .into_iter()
        .map(|(path, source)| write::Input { path, source })
        .collect();
    let total: u64 = inputs
        .iter()
        .filter_map(|i| std::fs::metadata(&i.source).ok())
        .map(|m| m.len())
        .sum();
    let name = a
        .output
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let pending = pakrat_io::fsutil::PendingFile::begin(&a.output, a.force)?;
    let bar = progress(total, a.out.json, "packing");
    let start = std::time::Instant::now();
    let res = write::write_with(&inputs, &o, pending.file(), &name, &|n| {
        if let Some(pb) = &bar {
            pb.inc(n);
        }
    });
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let w = res?;
    // The companion first: a pak the game would skip is not committed alone.
    let companion_paths = match companion {
        Some(f) => crate::cmd::pak_companion::write(&a.output, f, a.force)?,
        None => Vec::new(),
    };
    if let Err(e) = pending.commit() {
        for p in &companion_paths {
            let _ = std::fs::remove_file(p);
        }
        return Err(e.into());
    }
    let secs = start.elapsed().as_secs_f64();
    let companion_json = companion.map(|f| {
        json!({
            "files": companion_paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "toc_version": f.toc_version,
            "container_header": f.header.describe(),
        })
    });
    if a.out.json {
        print_json(&json!({
            "output": a.output.display().to_string(),
            "version": version,
            "companion": companion_json,
            "files": w.entries.len(),
            "input_bytes": w.input_bytes,
            "pak_bytes": w.pak_bytes,
            "stored_uncompressed": w.stored_uncompressed,
            "seconds": secs,
        }))?;
    } else {
        println!(
            "wrote {}: pak v{}, {} files, {} → {} in {secs:.2}s{}",
            a.output.display(),
            version,
            w.entries.len(),
            human_size(w.input_bytes),
            human_size(w.pak_bytes),
            if w.stored_uncompressed > 0 && o.compression != Method::None {
                format!(
                    " ({} file(s) stored: compression did not save enough)",
                    w.stored_uncompressed
                )
            } else {
                String::new()
            }
        );
    }
    if let (Some(f), false) = (companion, a.out.json) {
        println!(
            "wrote the IoStore companion UE {}+ needs to mount the pak: {} (TOC v{}, no files)",
            f.engine,
            companion_paths
                .iter()
                .filter_map(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" + "),
            f.toc_version
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The pak version of `pak create` and the release whose IoStore companion
/// it writes: `--version`, else the `--ue-version` release's pak version,
/// else 11; the companion from UE 5.6 on (unless `--no-companion`).
fn pak_release(
    a: &PakCreateArgs,
) -> Result<(
    u32,
    Option<&'static pakrat_iostore::engine::ContainerFormat>,
)> {
    use pakrat_iostore::engine;
    let f = match &a.ue_version {
        None => None,
        Some(v) => Some(engine::format_for(v).with_context(|| {
            format!(
                "--ue-version {v:?}: not a release whose formats pakrat knows ({}); give the pak version with --version",
                engine::known()
            )
        })?),
    };
    let version = match (a.version, f) {
        (Some(v), Some(f)) if v != f.pak_version => {
            eprintln!(
                "pakrat: warning: --version {v}: UE {} writes pak v{}; the pak is written as v{v}",
                f.engine, f.pak_version
            );
            v
        }
        (Some(v), _) => v,
        (None, Some(f)) => f.pak_version,
        (None, None) => 11,
    };
    let companion = f.filter(|f| !a.no_companion && crate::cmd::pak_companion::needed(f));
    Ok((version, companion))
}
