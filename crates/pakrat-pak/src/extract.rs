//! Extraction of pak entries into an [`OutputDir`]: files in parallel,
//! each written atomically while it is decoded (one block in memory), the
//! stored bytes checked against the entry's SHA-1 first. Every output name
//! is checked before anything is written: a name that would leave the
//! folder, or a file already there without `force`, refuses the whole run.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pakrat_io::fsutil::OutputDir;
use pakrat_io::{Error, Result};
use rayon::prelude::*;

use super::{Pak, PakEntry};

/// Options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Check each entry's SHA-1 before writing it (default on).
    pub verify_hashes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            verify_hashes: true,
        }
    }
}

/// What an extraction did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files written.
    pub files: u64,
    /// Bytes written.
    pub bytes: u64,
    /// `path: error` for each file that failed (sorted).
    pub errors: Vec<String>,
}

/// Check every output name up front: inside the folder, not a duplicate,
/// not already there (unless the folder was opened with `force`).
pub fn check_outputs(entries: &[&PakEntry], out: &OutputDir) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    let mut bad = Vec::new();
    for e in entries {
        match out.resolve(&e.path) {
            Err(err) => bad.push(format!("{}: {err}", pakrat_io::text::show(&e.path))),
            Ok(p) => {
                let key = p.to_string_lossy().to_lowercase();
                if let Some(prev) = seen.insert(key, e.path.clone()) {
                    bad.push(format!(
                        "{} and {} would be written to the same file",
                        pakrat_io::text::show(&prev),
                        pakrat_io::text::show(&e.path)
                    ));
                } else if !out.force() && std::fs::symlink_metadata(&p).is_ok() {
                    bad.push(format!(
                        "{} already exists (use --force to overwrite)",
                        p.display()
                    ));
                }
            }
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let n = bad.len();
    bad.truncate(5);
    Err(Error::Other(format!(
        "refusing to extract ({n} problem(s): {}{}); nothing was written",
        bad.join("; "),
        if n > 5 { "; ..." } else { "" }
    )))
}

fn one(p: &Pak, e: &PakEntry, out: &OutputDir, opts: &Options) -> Result<u64> {
    if opts.verify_hashes {
        let want = p.recorded_hash(e)?;
        if want != [0; 20] && p.stored_hash(e)? != want {
            return Err(Error::invalid(
                e.data_start(p.layout),
                "SHA-1 of the stored bytes does not match the entry's hash; not written",
            ));
        }
    }
    let mut f = out.begin(&e.path)?;
    if e.uncompressed_size > 0 {
        f.preallocate(e.uncompressed_size)?;
    }
    let mut n = 0u64;
    // One key serves a whole pak: once it is verified, a file that does
    // not look like its name (a `.txt` holding binary) is not the key's fault.
    let sniffing = e.encrypted() && !p.key_check.verified();
    let mut sniff = super::plain::Sniffer::new();
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut f);
        p.read_to(e, &mut |b| {
            n += b.len() as u64;
            if sniffing {
                sniff.feed(b);
            }
            w.write_all(b).map_err(|err| Error::Other(err.to_string()))
        })?;
        w.flush().map_err(|err| Error::Other(err.to_string()))?;
    }
    // The SHA-1 covers the ciphertext: decrypted bytes must also look like
    // their format, or the file (garbage under a wrong key) is not written.
    if let super::plain::Verdict::Mismatch(m) = sniff.verdict(&e.path, true) {
        return Err(Error::invalid(
            e.data_start(p.layout),
            format!("decrypted: {m} (wrong AES key?); not written"),
        ));
    }
    f.commit()?;
    Ok(n)
}

/// Extract `entries`, after [`Pak::check_layout`] (no entry shares bytes
/// with another, no block with another block of its entry: each stored
/// byte is decoded at most once) and [`check_outputs`]; either refusal
/// writes nothing.
pub fn extract(
    p: &Pak,
    entries: &[&PakEntry],
    out: &OutputDir,
    on_progress: &(dyn Fn(u64) + Sync),
    opts: &Options,
) -> Summary {
    if let Err(e) = p
        .check_layout(entries)
        .and_then(|()| check_outputs(entries, out))
    {
        return Summary {
            errors: vec![e.to_string()],
            ..Summary::default()
        };
    }
    let files = AtomicU64::new(0);
    let bytes = AtomicU64::new(0);
    let errors = Mutex::new(Vec::new());
    entries.par_iter().for_each(|e| match one(p, e, out, opts) {
        Ok(n) => {
            files.fetch_add(1, Ordering::Relaxed);
            bytes.fetch_add(n, Ordering::Relaxed);
            on_progress(n);
        }
        Err(err) => errors
            .lock()
            .unwrap_or_else(|x| x.into_inner())
            .push(format!("{}: {err}", pakrat_io::text::show(&e.path))),
    });
    let mut errors = errors.into_inner().unwrap_or_default();
    errors.sort();
    Summary {
        files: files.into_inner(),
        bytes: bytes.into_inner(),
        errors,
    }
}
