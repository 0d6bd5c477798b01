//! `verify` for paks: the index and directory-index hashes, every entry's
//! data header against the index, SHA-1 of every entry's stored bytes,
//! block bounds, overlapping entries, and that every entry decodes to its
//! size. A `.sig` file beside the pak is reported (its RSA signature needs
//! the game's public key, which a pak does not carry).

use rayon::prelude::*;
use serde::Serialize;

use super::{sha1, Pak, PakEntry};

/// One problem.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Problem {
    /// Entry path, or empty for the pak as a whole.
    pub path: String,
    /// File offset, when one applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// What `verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Entries checked.
    pub entries: u64,
    /// Entries whose SHA-1 matched.
    pub hashes_ok: u64,
    /// Bytes decoded.
    pub bytes: u64,
    /// Entries left unchecked (encrypted without a key).
    pub skipped: Vec<String>,
    /// Problems, sorted by offset.
    pub problems: Vec<Problem>,
    /// Paths the engine would not find as they are written (case twins,
    /// control characters: see [`pakrat_io::walk::name_problems`]); the pak
    /// itself is sound.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// How the AES key was checked (`not_needed` without encrypted files
    /// or without a key). Unless it is verified, an encrypted stored file of
    /// no checkable format was only checked as ciphertext.
    pub key_check: super::KeyCheck,
    /// The `.sig` file beside the pak, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_file: Option<String>,
}

impl Report {
    /// No problem was found.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// Every entry was checked: none skipped for want of a key, and the key
    /// (when one was needed) verified.
    pub fn complete(&self) -> bool {
        self.skipped.is_empty()
            && matches!(
                self.key_check,
                super::KeyCheck::NotNeeded | super::KeyCheck::Index | super::KeyCheck::File(_)
            )
    }
}

fn problem(e: &PakEntry, offset: u64, message: String) -> Problem {
    Problem {
        path: e.path.clone(),
        offset: Some(offset),
        message,
    }
}

/// Check one entry; `Err` holds its problems, `Ok(true)` when checked.
fn check_entry(p: &Pak, e: &PakEntry) -> (bool, u64, Vec<Problem>) {
    let mut out = Vec::new();
    if e.deleted() {
        return (false, 0, out);
    }
    let l = p.layout;
    let header = match p.data_header(e) {
        Ok(h) => h,
        Err(err) => {
            out.push(problem(
                e,
                e.offset,
                format!("data header does not read: {err}"),
            ));
            return (false, 0, out);
        }
    };
    if header.offset != 0 && header.offset != e.offset {
        out.push(problem(
            e,
            e.offset,
            format!("data header names offset {:#x}", header.offset),
        ));
    }
    if !header.same_record(e) {
        out.push(problem(
            e,
            e.offset,
            format!(
                "data header disagrees with the index: {} (header vs index; the engine checks these too)",
                header.record_differences(e).join(", ")
            ),
        ));
    }
    let start = e.data_start(l);
    let end = start.saturating_add(e.stored_extent());
    for (i, b) in e.blocks.iter().enumerate() {
        if b.start < start || b.end > end {
            out.push(problem(
                e,
                b.start,
                format!("compression block {i} ({:#x}..{:#x}) lies outside the entry's data ({start:#x}..{end:#x})", b.start, b.end),
            ));
        }
    }
    if let Some((at, m)) = p.block_problem(e) {
        if !m.contains("lies outside") {
            out.push(problem(e, at, m));
        }
    }
    let recorded = if e.encoded { header.hash } else { e.hash };
    let mut hashed = false;
    match p.stored_hash(e) {
        Ok(h) if h == recorded => hashed = true,
        Ok(h) if recorded == [0; 20] => {
            let _ = h;
        }
        Ok(_) => out.push(problem(
            e,
            start,
            "SHA-1 of the stored bytes does not match the entry's hash".into(),
        )),
        Err(err) => out.push(problem(e, start, err.to_string())),
    }
    // An entry over another's bytes is reported once, with the overlaps.
    if !out.is_empty() || p.entry_overlap(e).is_some() {
        return (hashed, 0, out);
    }
    let mut n = 0u64;
    // Decrypted bytes must look like their format (the SHA-1 covers the
    // ciphertext only) while the key is not verified. One key serves a whole
    // pak: once it is, a file that does not look like its name (a `.txt`
    // holding binary) is not the key's fault.
    let sniffing = e.encrypted() && !p.key_check.verified();
    let mut sniff = super::plain::Sniffer::new();
    match p.read_to(e, &mut |b| {
        n += b.len() as u64;
        if sniffing {
            sniff.feed(b);
        }
        Ok(())
    }) {
        Ok(()) if n == e.uncompressed_size => {
            if let super::plain::Verdict::Mismatch(m) = sniff.verdict(&e.path, true) {
                out.push(problem(
                    e,
                    start,
                    format!("decrypted: {m} (wrong AES key?)"),
                ));
            }
        }
        Ok(()) => out.push(problem(
            e,
            start,
            format!("decodes to {n} bytes, expected {}", e.uncompressed_size),
        )),
        Err(err) => out.push(problem(
            e,
            err.offset().unwrap_or(start),
            format!("does not decode: {err}"),
        )),
    }
    (hashed, n, out)
}

/// Verify a pak.
pub fn verify(p: &Pak) -> Report {
    verify_with(p, &|_| {})
}

/// [`verify`], calling `on_progress` with each entry's uncompressed size
/// once it is checked.
pub fn verify_with(p: &Pak, on_progress: &(dyn Fn(u64) + Sync)) -> Report {
    let mut r = Report {
        entries: p.index.entries.len() as u64,
        key_check: p.key_check.clone(),
        ..Report::default()
    };
    let f = &p.footer;
    // The primary index hash (an encrypted one was checked when the key
    // was chosen: the right key is the one that matches it).
    if !f.encrypted_index && f.index_hash_raw != [0; 20] {
        let raw = &p.bytes()[f.index_offset as usize..(f.index_offset + f.index_size) as usize];
        if sha1(raw) != f.index_hash_raw {
            r.problems.push(Problem {
                path: String::new(),
                offset: Some(f.index_offset as u64),
                message: "the index does not match its SHA-1 in the footer".into(),
            });
        }
    }
    if let Some(phi) = &p.index.path_hash_index {
        match p.sub_index(phi, 1, "path-hash index") {
            Ok(d) if sha1(&d) == phi.hash => {}
            Ok(_) => r.problems.push(Problem {
                path: String::new(),
                offset: Some(phi.offset),
                message: "the path-hash index does not match its SHA-1 in the index".into(),
            }),
            Err(e) => r.problems.push(Problem {
                path: String::new(),
                offset: Some(phi.offset),
                message: e.to_string(),
            }),
        }
    }
    let results: Vec<(bool, u64, Vec<Problem>, bool)> = p
        .index
        .entries
        .par_iter()
        .map(|e| {
            if e.encrypted() && p.key().is_none() {
                return (false, 0, Vec::new(), true);
            }
            let (h, n, pr) = check_entry(p, e);
            on_progress(e.uncompressed_size);
            (h, n, pr, false)
        })
        .collect();
    for (e, (h, n, pr, skipped)) in p.index.entries.iter().zip(results) {
        if skipped {
            r.skipped.push(e.path.clone());
        }
        r.hashes_ok += u64::from(h);
        r.bytes += n;
        r.problems.extend(pr);
    }
    // Overlaps: each entry's header and data against the next one's.
    let mut spans: Vec<(u64, u64, &str)> = p
        .index
        .entries
        .iter()
        .filter(|e| !e.deleted())
        .map(|e| {
            (
                e.offset,
                e.data_start(p.layout).saturating_add(e.stored_extent()),
                e.path.as_str(),
            )
        })
        .collect();
    spans.sort();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            r.problems.push(Problem {
                path: w[1].2.to_string(),
                offset: Some(w[1].0),
                message: format!(
                    "overlaps {} (which runs to {:#x})",
                    pakrat_io::text::show(w[0].2),
                    w[0].1
                ),
            });
        }
    }
    r.warnings = pakrat_io::walk::name_problems(
        p.index
            .entries
            .iter()
            .filter(|e| !e.deleted())
            .map(|e| e.path.as_str()),
    );
    let sig = p.path().with_extension("sig");
    if sig.is_file() {
        r.signature_file = Some(sig.display().to_string());
    }
    r.problems
        .sort_by(|a, b| a.offset.cmp(&b.offset).then(a.path.cmp(&b.path)));
    r
}
