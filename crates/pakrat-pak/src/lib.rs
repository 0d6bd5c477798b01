//! `.pak` files of every version (1–15): footer, index, entries, data,
//! verification, extraction ([`Pak`]) and writing ([`mod@write`]).
//!
//! A pak is the files' data, each behind a copy of its [`entry::PakEntry`],
//! then the index ([`index`]), then the footer ([`footer`]). Compression
//! uses the shared codecs ([`pakrat_codec::compress`]), encryption the shared
//! keys ([`pakrat_codec::keys`]): AES-256-ECB, and AES-256-CTR with per-entry IVs
//! for v15 paks whose footer names method 2.
#![deny(missing_docs)]

pub mod entry;
pub mod extract;
pub mod footer;
pub mod index;
pub mod plain;
pub mod verify;
pub mod write;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use pakrat_io::{Error, Result, Source};
use serde::Serialize;
use sha1::{Digest, Sha1};

pub use entry::{Block, Layout, PakEntry};
pub use footer::{companion, parse, version_name, PakFooter, LATEST_VERSION, PAK_MAGIC};
pub use index::Index;

use pakrat_codec::compress::Method;
pub use pakrat_codec::keys::{pad_cyclic, Cipher};
use pakrat_codec::keys::{AesKey, KeyRing};

/// Largest compression block pakrat decodes (a block is held in memory;
/// UnrealPak writes 64 KiB and engines rarely go past 1 MiB).
pub const MAX_BLOCK_SIZE: u32 = 64 << 20;

/// How the AES key in use was checked. The SHA-1 a pak keeps for an
/// encrypted file covers its ciphertext, so only the encrypted index's hash,
/// a compressed file that decodes, or a file that decrypts to its own format
/// ([`plain`]) can tell a right key from a wrong one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "by", rename_all = "snake_case")]
pub enum KeyCheck {
    /// Nothing is encrypted, or no key was given (encrypted files are then
    /// reported as not checked).
    #[default]
    NotNeeded,
    /// The encrypted index matched its SHA-1 in the footer.
    Index,
    /// This encrypted file decoded as its format.
    File(String),
    /// No key given decodes this file as its format (the text says why).
    Wrong(String),
    /// Nothing in the pak can tell a wrong key from the right one: every
    /// encrypted file is stored, of no format pakrat can check.
    Unverified,
}

impl KeyCheck {
    /// The key was checked and found right.
    pub fn verified(&self) -> bool {
        matches!(self, KeyCheck::Index | KeyCheck::File(_))
    }

    /// A line for people: what is known about the key.
    pub fn describe(&self) -> String {
        match self {
            KeyCheck::NotNeeded => "not needed".into(),
            KeyCheck::Index => "verified (the encrypted index matches its SHA-1)".into(),
            KeyCheck::File(p) => format!(
                "verified ({} decrypts to valid data)",
                pakrat_io::text::show(p)
            ),
            KeyCheck::Wrong(m) => format!("WRONG: {m}"),
            KeyCheck::Unverified => {
                "NOT verified: every encrypted file is stored and of no format pakrat can check \
                 (the SHA-1 covers the ciphertext); a wrong key would give garbage unnoticed"
                    .into()
            }
        }
    }
}

/// An opened pak.
pub struct Pak {
    path: PathBuf,
    src: Source,
    /// Footer.
    pub footer: PakFooter,
    /// Index.
    pub index: Index,
    /// Entry layout of the version.
    pub layout: Layout,
    /// Cipher of encrypted parts.
    pub cipher: Cipher,
    key: Option<AesKey>,
    /// How the key in use was checked.
    pub key_check: KeyCheck,
    methods: Vec<Method>,
    /// Notes on what was read (a pruned directory index, deleted files...).
    pub notes: Vec<String>,
    /// The entries' spans, sorted once on first use ([`Pak::entry_overlap`]).
    spans: OnceLock<Spans>,
}

/// Every live entry's span (data header and data: `offset` to the end of
/// its stored bytes), sorted, with the furthest end reached so far.
struct Spans {
    /// (start, end, entry index), sorted.
    sorted: Vec<(u64, u64, usize)>,
    /// `reach[k]`: the largest end among `sorted[..=k]` and its entry.
    reach: Vec<(u64, usize)>,
    /// Entries that overlap another.
    overlapping: usize,
}

impl std::fmt::Debug for Pak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pak")
            .field("path", &self.path)
            .field("version", &self.footer.version)
            .field("entries", &self.index.entries.len())
            .finish()
    }
}

/// SHA-1 of bytes.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

impl Pak {
    /// Open and parse a pak; `keys` decrypt an encrypted index and data.
    pub fn open(path: impl AsRef<Path>, keys: &KeyRing) -> Result<Pak> {
        let path = path.as_ref();
        let src = Source::open(path)?;
        Pak::from_source(path, src, keys).map_err(|e| e.in_file(path))
    }

    /// Parse a pak already mapped.
    pub fn from_source(path: &Path, src: Source, keys: &KeyRing) -> Result<Pak> {
        let len = src.len() as u64;
        let tail_start = src.len().saturating_sub(1024);
        let footer = footer::parse(&src[tail_start..], len)?;
        if footer.frozen_index {
            return Err(Error::unsupported(
                footer.footer_offset,
                "this pak has a frozen index (UE 4.25's memory image of the engine's own structures, \
                 laid out for one build's compiler and platform); it is not portable and pakrat does not read it",
            ));
        }
        let layout = Layout::of(footer.version, footer.compression_slots);
        let cipher = match footer.encryption_method {
            None | Some(0) | Some(1) => Cipher::Ecb,
            Some(2) => Cipher::Ctr,
            Some(m) => {
                return Err(Error::unsupported(
                    footer.footer_offset,
                    format!("encryption method {m} (known: 1 AES-ECB, 2 AES-CTR)"),
                ))
            }
        };
        let methods = if footer.version >= 8 {
            let mut m = vec![Method::None];
            // Keep empty slots in place so indices still line up.
            let mut names = footer.compression_methods.clone();
            names.resize(footer.compression_slots, String::new());
            m.extend(names.iter().map(|n| {
                if n.is_empty() {
                    Method::Unknown("(empty method slot)".into())
                } else {
                    Method::from_name(n)
                }
            }));
            m
        } else {
            Vec::new()
        };
        let mut pak = Pak {
            path: path.to_path_buf(),
            src,
            layout,
            cipher,
            key: None,
            key_check: KeyCheck::NotNeeded,
            methods,
            notes: Vec::new(),
            spans: OnceLock::new(),
            index: Index {
                mount_point: String::new(),
                entries: Vec::new(),
                declared_entries: 0,
                path_hash_seed: None,
                path_hash_index: None,
                directory_index: None,
                flat_directory_index: false,
                full_entries: 0,
            },
            footer,
        };
        let index_bytes = pak.index_bytes(keys)?;
        if pak.key.is_some() {
            pak.key_check = KeyCheck::Index;
        }
        pak.index = pak.parse_index(&index_bytes)?;
        if pak.key.is_none() && pak.index.entries.iter().any(PakEntry::encrypted) {
            pak.choose_data_key(keys);
        }
        Ok(pak)
    }

    /// The index is plain but files are encrypted: no index hash tells the
    /// keys apart, so try each on the three smallest encrypted files that
    /// can tell (a compressed file, which a wrong key does not decompress, or
    /// a file of a format [`plain`] checks; at most 1 MiB decoded of each).
    /// When no file can tell, the footer GUID's key, else the first, is used
    /// and the key is [`KeyCheck::Unverified`].
    fn choose_data_key(&mut self, keys: &KeyRing) {
        let cands = keys.candidates(self.footer.encryption_key_guid);
        if cands.is_empty() {
            return;
        }
        // The three smallest files that can tell: one misnamed file (a
        // `.txt` holding binary data) does not make the right key "wrong".
        let mut probes: Vec<PakEntry> = self
            .index
            .entries
            .iter()
            .filter(|e| {
                e.encrypted()
                    && !e.deleted()
                    && self.method(e).supported()
                    && (e.compressed() || plain::checkable(&e.path, e.uncompressed_size))
            })
            .cloned()
            .collect();
        probes.sort_by_key(|e| e.size);
        probes.truncate(3);
        if probes.is_empty() {
            self.key = cands.first().copied();
            self.key_check = KeyCheck::Unverified;
            return;
        }
        let mut why = String::new();
        for k in &cands {
            self.key = Some(*k);
            for e in &probes {
                match self.probe(e) {
                    Ok(()) => {
                        self.key_check = KeyCheck::File(e.path.clone());
                        return;
                    }
                    Err(m) if why.is_empty() => {
                        why = format!("{}: {m}", pakrat_io::text::show(&e.path))
                    }
                    Err(_) => {}
                }
            }
        }
        let m = format!(
            "{} file(s) decrypted with {}, none looks like its format; the first: {why} (wrong AES key?)",
            probes.len(),
            if cands.len() == 1 {
                "the key given".to_string()
            } else {
                format!("each of the {} keys given", cands.len())
            }
        );
        self.notes.push(m.clone());
        self.key_check = KeyCheck::Wrong(m);
        self.key = cands.first().copied();
    }

    /// Decode the start of `e` (all of it up to 1 MiB) with the key in use
    /// and check it against its format; `Err` says what is wrong.
    fn probe(&self, e: &PakEntry) -> std::result::Result<(), String> {
        const ENOUGH: u64 = plain::PROBE_BYTES;
        let mut s = plain::Sniffer::new();
        let r = self.read_to(e, &mut |b| {
            s.feed(b);
            if s.len() >= ENOUGH.min(e.uncompressed_size) && s.len() < e.uncompressed_size {
                // Enough to tell: stop decoding.
                return Err(Error::Other(String::new()));
            }
            Ok(())
        });
        let complete = s.len() == e.uncompressed_size;
        if let Err(err) = r {
            if complete || s.len() < ENOUGH.min(e.uncompressed_size) {
                return Err(format!("does not decode: {err}"));
            }
        }
        match s.verdict(&e.path, complete) {
            plain::Verdict::Mismatch(m) => Err(m),
            // A compressed file that decodes proves the key by itself.
            _ if e.compressed() => Ok(()),
            plain::Verdict::Match => Ok(()),
            plain::Verdict::Unknown => Err("cannot be checked".into()),
        }
    }

    /// Path of the pak.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The mapped file.
    pub fn bytes(&self) -> &[u8] {
        &self.src
    }

    /// The key in use, if any.
    pub fn key(&self) -> Option<&AesKey> {
        self.key.as_ref()
    }

    fn range(&self, offset: u64, size: u64, what: &str) -> Result<&[u8]> {
        let end = offset
            .checked_add(size)
            .filter(|&e| e <= self.src.len() as u64);
        match end {
            Some(end) => Ok(&self.src[offset as usize..end as usize]),
            None => Err(Error::invalid(
                offset,
                format!(
                    "{what}: {offset:#x}+{size:#x} runs past the end of the file ({:#x})",
                    self.src.len()
                ),
            )),
        }
    }

    /// Decrypt an index part (`iv`: which of the footer's three IVs).
    fn decrypt_part(&self, key: &AesKey, data: &[u8], iv: usize, at: u64) -> Result<Vec<u8>> {
        let mut d = data.to_vec();
        match self.cipher {
            Cipher::Ecb => key.decrypt_ecb(&mut d).map_err(|_| {
                Error::invalid(
                    at,
                    format!(
                        "encrypted index part of {} bytes is not a multiple of 16",
                        d.len()
                    ),
                )
            })?,
            Cipher::Ctr => {
                let iv = self
                    .footer
                    .index_ivs_raw
                    .get(iv)
                    .copied()
                    .unwrap_or([0; 12]);
                key.apply_ctr(&iv, &mut d);
            }
        }
        Ok(d)
    }

    /// The (decrypted) primary index; chooses the key whose decryption
    /// matches the footer's SHA-1.
    fn index_bytes(&mut self, keys: &KeyRing) -> Result<Vec<u8>> {
        let f = &self.footer;
        let raw = self.range(f.index_offset as u64, f.index_size as u64, "index")?;
        if !f.encrypted_index {
            return Ok(raw.to_vec());
        }
        let cands = keys.candidates(f.encryption_key_guid);
        if cands.is_empty() {
            return Err(Error::Other(format!(
                "the index is encrypted (key GUID {}); give the AES key with --aes-key or --keys (a keys JSON or UnrealBuildTool's Crypto.json)",
                f.encryption_key_guid
            )));
        }
        let zero_hash = f.index_hash_raw == [0; 20];
        for k in &cands {
            let d = self.decrypt_part(k, raw, 0, f.index_offset as u64)?;
            let ok = if zero_hash {
                index::read_string(&mut pakrat_io::Reader::new(&d), "mount point", false).is_ok()
            } else {
                sha1(&d) == f.index_hash_raw
            };
            if ok {
                self.key = Some(*k);
                return Ok(d);
            }
        }
        Err(Error::Other(format!(
            "wrong AES key: the index does not decrypt with {} (its SHA-1 does not match the footer's); key GUID {}",
            if cands.len() == 1 { "the key given".to_string() } else { format!("any of the {} keys given", cands.len()) },
            f.encryption_key_guid
        )))
    }

    /// Read (and decrypt) a secondary index.
    fn sub_index(&self, s: &index::SubIndex, iv: usize, what: &str) -> Result<Vec<u8>> {
        let raw = self.range(s.offset, s.size, what)?;
        match (&self.key, self.footer.encrypted_index) {
            (Some(k), true) => self.decrypt_part(k, raw, iv, s.offset),
            _ => Ok(raw.to_vec()),
        }
    }

    fn parse_index(&mut self, data: &[u8]) -> Result<Index> {
        let base = self.footer.index_offset as u64;
        let l = self.layout;
        if self.footer.version < 10 {
            let idx = index::read_legacy(data, base, l)?;
            self.check_entries(&idx.entries)?;
            return Ok(idx);
        }
        let ctr = self.cipher == Cipher::Ctr;
        let p = index::read_primary(data, base, l, ctr)?;
        let mut entries = Vec::new();
        let mut flat = false;
        if let Some(fdi) = &p.fdi {
            let d = self.sub_index(fdi, 2, "directory index")?;
            if sha1(&d) != fdi.hash {
                return Err(Error::invalid(
                    fdi.offset,
                    "the directory index does not match its SHA-1 in the index",
                ));
            }
            flat = self.footer.version >= 13
                && d.len() >= 4
                && u32::from_le_bytes([d[0], d[1], d[2], d[3]]) == index::FLAT_MAGIC;
            let triples = if flat {
                index::read_flat(&d, fdi.offset)?
            } else {
                index::read_nested(&d, fdi.offset, self.footer.version >= 12)?
            };
            let mut deleted = 0;
            for (dir, name, loc) in triples {
                match p.entry_at(loc, l, ctr)? {
                    Some(mut e) => {
                        e.path = index::join(&dir, &name);
                        entries.push(e);
                    }
                    None => deleted += 1,
                }
            }
            if deleted > 0 {
                self.notes.push(format!(
                    "{deleted} file(s) are listed as deleted (a patch pak removes them)"
                ));
            }
        } else if let Some(phi) = &p.phi {
            // A pruned pak: only hashes of the paths are stored.
            let d = self.sub_index(phi, 1, "path-hash index")?;
            let mut r = pakrat_io::Reader::with_base(&d, phi.offset);
            let n = r.i32("path hash count")?;
            let n = r.check_count(i64::from(n), 12, "path hashes")?;
            for _ in 0..n {
                let h = r.u64("path hash")?;
                let loc = r.i32("entry location")?;
                if let Some(mut e) = p.entry_at(loc, l, ctr)? {
                    e.path = format!("{h:016x}.unnamed");
                    entries.push(e);
                }
            }
            self.notes.push(
                "the pak has no full directory index (file names were pruned); files are named by their path hash".into(),
            );
        }
        self.check_entries(&entries)?;
        Ok(Index {
            mount_point: p.mount_point,
            declared_entries: p.count,
            path_hash_seed: Some(p.seed),
            path_hash_index: p.phi,
            directory_index: p.fdi,
            flat_directory_index: flat,
            full_entries: p.full.len() as u64,
            entries,
        })
    }

    /// Every entry's data lies before the index, and methods are known slots.
    fn check_entries(&self, entries: &[PakEntry]) -> Result<()> {
        let limit = self.footer.index_offset as u64;
        for e in entries {
            let end = e
                .data_start(self.layout)
                .checked_add(e.stored_extent())
                .filter(|&x| x <= limit);
            if end.is_none() && !e.deleted() {
                return Err(Error::invalid(
                    e.offset,
                    format!(
                        "entry {}: data at {:#x}+{:#x} runs past the index at {limit:#x}",
                        pakrat_io::text::show(&e.path),
                        e.offset,
                        e.stored_extent()
                    ),
                ));
            }
            for b in &e.blocks {
                if b.end > limit {
                    return Err(Error::invalid(
                        e.offset,
                        format!(
                            "entry {}: a compression block ends past the index",
                            pakrat_io::text::show(&e.path)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The span of an entry: its data header and its stored bytes.
    pub fn span(&self, e: &PakEntry) -> (u64, u64) {
        (
            e.offset,
            e.data_start(self.layout).saturating_add(e.stored_extent()),
        )
    }

    fn spans(&self) -> &Spans {
        self.spans.get_or_init(|| {
            let mut sorted: Vec<(u64, u64, usize)> = self
                .index
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.deleted())
                .map(|(i, e)| {
                    let (a, z) = self.span(e);
                    (a, z, i)
                })
                .collect();
            sorted.sort_unstable();
            let mut reach: Vec<(u64, usize)> = Vec::with_capacity(sorted.len());
            let mut overlapping = 0;
            for (k, &(a, z, i)) in sorted.iter().enumerate() {
                let before = k.checked_sub(1).map(|j| reach[j]);
                let after = sorted.get(k + 1).map(|n| n.0);
                if before.is_some_and(|(end, _)| a < end) || after.is_some_and(|b| b < z) {
                    overlapping += 1;
                }
                reach.push(match before {
                    Some(r) if r.0 >= z => r,
                    _ => (z, i),
                });
            }
            Spans {
                sorted,
                reach,
                overlapping,
            }
        })
    }

    /// How many live entries share bytes (data header or data) with
    /// another; UnrealPak gives every entry its own. Sorted once, O(n log n).
    pub fn overlapping_entries(&self) -> usize {
        self.spans().overlapping
    }

    /// Why entry `e` may not be read because its bytes (data header or
    /// data) are also another entry's: N entries over the same compressed
    /// data would decode it N times (a 66 KB pak extracted to 1 GiB).
    /// `None` when its span is its own. O(log n) once the spans are sorted.
    pub fn entry_overlap(&self, e: &PakEntry) -> Option<String> {
        let s = self.spans();
        let (a, z) = self.span(e);
        let k = s.sorted.partition_point(|x| (x.0, x.1) < (a, z));
        let same = s.sorted.get(k).filter(|x| (x.0, x.1) == (a, z));
        // `e` itself, or a copy of it (callers may hold clones).
        let is_e = |i: usize| self.index.entries.get(i).is_some_and(|y| y == e);
        let other = match same {
            // Another entry with the very same span.
            Some(x) if !is_e(x.2) => Some(x.2),
            _ => {
                let next = s.sorted.get(k + usize::from(same.is_some()));
                match k.checked_sub(1).map(|j| s.reach[j]) {
                    Some((end, i)) if a < end => Some(i),
                    _ => next.filter(|n| n.0 < z).map(|n| n.2),
                }
            }
        }?;
        let o = self.index.entries.get(other)?;
        let (oa, oz) = self.span(o);
        Some(format!(
            "{} ({a:#x}..{z:#x}) overlaps {} ({oa:#x}..{oz:#x}): entries must not share bytes ({} entries of this pak overlap another)",
            pakrat_io::text::show(&e.path),
            pakrat_io::text::show(&o.path),
            s.overlapping
        ))
    }

    /// Why the compression blocks of `e` cannot be read each once: a block
    /// outside the entry's stored bytes, or blocks that are not in order
    /// and apart (one entry whose N blocks all point at one zlib stream
    /// would decode it N times). A block counts as at least one byte.
    pub fn block_problem(&self, e: &PakEntry) -> Option<(u64, String)> {
        let start = e.data_start(self.layout);
        let end = start.saturating_add(e.stored_extent());
        let mut prev: Option<(usize, u64)> = None;
        for (i, b) in e.blocks.iter().enumerate() {
            if b.start < start || b.end > end {
                return Some((
                    b.start,
                    format!(
                        "compression block {i} ({:#x}..{:#x}) lies outside the entry's data ({start:#x}..{end:#x})",
                        b.start, b.end
                    ),
                ));
            }
            if let Some((j, pend)) = prev {
                if b.start < pend {
                    return Some((
                        b.start,
                        format!(
                            "compression block {i} starts at {:#x}, inside block {j} (which ends at {pend:#x}): blocks must follow each other without sharing bytes",
                            b.start
                        ),
                    ));
                }
            }
            prev = Some((i, b.end.max(b.start.saturating_add(1))));
        }
        None
    }

    /// The layout problems that make [`extract::extract`] refuse a pak before
    /// writing anything: entries that share bytes (any, in the whole pak),
    /// and blocks of the chosen `entries` that do not each have their own.
    pub fn check_layout(&self, entries: &[&PakEntry]) -> Result<()> {
        let mut bad: Vec<String> = Vec::new();
        let n = self.overlapping_entries();
        if n > 0 {
            let first = self
                .index
                .entries
                .iter()
                .filter(|e| !e.deleted())
                .find_map(|e| self.entry_overlap(e))
                .unwrap_or_default();
            bad.push(first);
        }
        for e in entries.iter().filter(|e| !e.deleted()) {
            if let Some((_, m)) = self.block_problem(e) {
                bad.push(format!("{}: {m}", pakrat_io::text::show(&e.path)));
            }
        }
        if bad.is_empty() {
            return Ok(());
        }
        let k = bad.len();
        bad.truncate(5);
        Err(Error::Other(format!(
            "refusing to extract: the pak's layout is broken ({k} problem(s), as `verify` reports: {}{}); nothing was written",
            bad.join("; "),
            if k > 5 { "; ..." } else { "" }
        )))
    }

    /// `Err` when reading `e` would decode bytes more than once
    /// ([`Pak::entry_overlap`], [`Pak::block_problem`]); every reader
    /// ([`Pak::read_to`], [`Pak::read`]) checks this first.
    pub fn check_readable(&self, e: &PakEntry) -> Result<()> {
        if let Some(m) = self.entry_overlap(e) {
            return Err(Error::invalid(e.offset, format!("refusing to read: {m}")));
        }
        if let Some((at, m)) = self.block_problem(e) {
            return Err(Error::invalid(
                at,
                format!("{}: {m}", pakrat_io::text::show(&e.path)),
            ));
        }
        Ok(())
    }

    /// The compression method of an entry.
    pub fn method(&self, e: &PakEntry) -> Method {
        if e.method == 0 {
            return Method::None;
        }
        if self.footer.version < 8 {
            // Legacy ECompressionFlags (UE 4.0–4.21): 1 Zlib, 2 Gzip,
            // 4 Custom (the game's own codec, Oodle in most games).
            return match e.method & 0x0f {
                1 => Method::Zlib,
                2 => Method::Gzip,
                4 => Method::Oodle,
                _ => Method::Unknown(format!("legacy compression flags {:#x}", e.method)),
            };
        }
        self.methods
            .get(e.method as usize)
            .cloned()
            .unwrap_or_else(|| {
                Method::Unknown(format!(
                    "method index {} (the footer names {})",
                    e.method,
                    self.methods.len() - 1
                ))
            })
    }

    /// Name of an entry's compression method.
    pub fn method_name(&self, e: &PakEntry) -> String {
        match self.method(e) {
            Method::None => "none".into(),
            Method::Zlib => "Zlib".into(),
            Method::Gzip => "Gzip".into(),
            Method::Lz4 => "LZ4".into(),
            Method::Zstd => "Zstd".into(),
            Method::Oodle => "Oodle".into(),
            Method::Unknown(n) => n,
        }
    }

    /// The data header of an entry (the record in front of its data).
    pub fn data_header(&self, e: &PakEntry) -> Result<PakEntry> {
        let n = e.header_size(self.layout);
        let bytes = self.range(e.offset, n, "entry data header")?;
        let mut r = pakrat_io::Reader::with_base(bytes, e.offset);
        PakEntry::read_full(&mut r, self.layout, Some(e.offset))
    }

    /// The stored bytes of an entry (encrypted as stored; `stored_extent`).
    pub fn stored(&self, e: &PakEntry) -> Result<&[u8]> {
        self.range(e.data_start(self.layout), e.stored_extent(), "entry data")
    }

    fn need_key(&self, e: &PakEntry) -> Result<&AesKey> {
        self.key.as_ref().ok_or_else(|| {
            Error::Other(format!(
                "{} is encrypted; give the AES key with --aes-key or --keys (key GUID {})",
                pakrat_io::text::show(&e.path),
                self.footer.encryption_key_guid
            ))
        })
    }

    /// Decrypt `buf` (which starts `unit_offset` bytes into the entry's
    /// encryption unit: its data, or its first block).
    fn decrypt_entry(&self, e: &PakEntry, buf: &mut [u8], unit_offset: u64) -> Result<()> {
        let k = self.need_key(e)?;
        match self.cipher {
            Cipher::Ecb => k.decrypt_ecb(buf),
            Cipher::Ctr => {
                let iv = e.iv.ok_or_else(|| {
                    Error::Other(format!(
                        "{}: AES-CTR entry without an IV",
                        pakrat_io::text::show(&e.path)
                    ))
                })?;
                k.apply_ctr_at(&iv, unit_offset, buf);
                Ok(())
            }
        }
    }

    /// Decode an entry, handing its bytes to `sink` in order (one block or
    /// up to 1 MiB at a time; memory stays at one block).
    pub fn read_to(&self, e: &PakEntry, sink: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        if e.deleted() {
            return Err(Error::Other(format!(
                "{} is a delete record; it has no data",
                pakrat_io::text::show(&e.path)
            )));
        }
        self.check_readable(e)?;
        let method = self.method(e);
        if !method.supported() {
            return Err(Error::unsupported(
                e.offset,
                format!(
                    "{}: compression method {}",
                    pakrat_io::text::show(&e.path),
                    self.method_name(e)
                ),
            ));
        }
        if method == Method::None {
            if e.size != e.uncompressed_size {
                return Err(Error::invalid(
                    e.offset,
                    format!(
                        "stored entry of {} bytes says it holds {} bytes",
                        e.size, e.uncompressed_size
                    ),
                ));
            }
            let data = self.stored(e)?;
            const STEP: usize = 1 << 20;
            let mut buf = Vec::new();
            let mut done = 0usize;
            while done < e.size as usize {
                let n = STEP.min(e.size as usize - done);
                if e.encrypted() {
                    let take = entry::align16(n as u64) as usize;
                    buf.clear();
                    buf.extend_from_slice(&data[done..done + take]);
                    self.decrypt_entry(e, &mut buf, done as u64)?;
                    sink(&buf[..n])?;
                } else {
                    sink(&data[done..done + n])?;
                }
                self.src.passed(n as u64);
                done += n;
            }
            return Ok(());
        }
        if e.blocks.is_empty() && e.uncompressed_size > 0 {
            return Err(Error::invalid(
                e.offset,
                "compressed entry without compression blocks",
            ));
        }
        if e.block_size == 0 || e.block_size > MAX_BLOCK_SIZE {
            return Err(Error::invalid(
                e.offset,
                format!("compression block size {} (pakrat decodes blocks of 1 byte to {MAX_BLOCK_SIZE})", e.block_size),
            ));
        }
        let bs = u64::from(e.block_size);
        if (e.blocks.len() as u64).saturating_mul(bs) < e.uncompressed_size
            || (e.blocks.len() as u64 - 1).saturating_mul(bs) >= e.uncompressed_size.max(1)
        {
            return Err(Error::invalid(
                e.offset,
                format!(
                    "{} blocks of {bs} bytes cannot hold {} bytes",
                    e.blocks.len(),
                    e.uncompressed_size
                ),
            ));
        }
        let first = e.blocks[0].start;
        let mut out = vec![0u8; bs.min(e.uncompressed_size) as usize];
        let mut cbuf = Vec::new();
        let mut left = e.uncompressed_size;
        for b in &e.blocks {
            let len = b.end - b.start;
            let n = bs.min(left) as usize;
            let raw = if e.encrypted() {
                let r = self.range(b.start, entry::align16(len), "compression block")?;
                cbuf.clear();
                cbuf.extend_from_slice(r);
                self.decrypt_entry(e, &mut cbuf, b.start - first)?;
                &cbuf[..len as usize]
            } else {
                self.range(b.start, len, "compression block")?
            };
            pakrat_codec::compress::decompress(&method, raw, &mut out[..n]).map_err(|err| {
                let hint = if e.encrypted() {
                    " (the file is encrypted: a wrong AES key gives this too)"
                } else {
                    ""
                };
                Error::invalid(
                    b.start,
                    format!("{}: {err}{hint}", pakrat_io::text::show(&e.path)),
                )
            })?;
            sink(&out[..n])?;
            self.src.passed(len);
            left -= n as u64;
        }
        Ok(())
    }

    /// Decode an entry into memory.
    pub fn read(&self, e: &PakEntry) -> Result<Vec<u8>> {
        // Before reserving what the entry claims.
        self.check_readable(e)?;
        let mut v = Vec::with_capacity(e.uncompressed_size.min(1 << 26) as usize);
        self.read_to(e, &mut |b| {
            v.extend_from_slice(b);
            Ok(())
        })?;
        Ok(v)
    }

    /// The SHA-1 the pak records for an entry's stored bytes (from the data
    /// header for encoded entries).
    pub fn recorded_hash(&self, e: &PakEntry) -> Result<[u8; 20]> {
        if e.encoded {
            Ok(self.data_header(e)?.hash)
        } else {
            Ok(e.hash)
        }
    }

    /// SHA-1 of an entry's stored bytes, as UnrealPak computes it: the
    /// stored bytes up to `size` (for encrypted stored files, the unpadded
    /// length of the ciphertext; `iostore.md`, checked on the corpus paks).
    ///
    /// The mapped bytes are counted as read ([`Source::passed`]) as the
    /// hash goes, so a pass over every entry keeps few of them resident.
    pub fn stored_hash(&self, e: &PakEntry) -> Result<[u8; 20]> {
        let d = self.range(e.data_start(self.layout), e.size, "entry data")?;
        let mut h = Sha1::new();
        for part in d.chunks(1 << 20) {
            h.update(part);
            self.src.passed(part.len() as u64);
        }
        Ok(h.finalize().into())
    }
}

/// A pak's files merged the way the engine mounts a folder of paks: a pak
/// with a higher priority (`_N_P` patch paks above their base, later in
/// name order among equals) provides a file over a lower one, and a delete
/// record in a patch pak removes it.
pub fn mount_order(paths: &mut [PathBuf]) {
    fn prio(p: &Path) -> (u32, String) {
        let stem = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        // UE FPakPlatformFile::GetPakOrderFromPakFilePath: `_P` paks are
        // patches and mount above everything; `_N_P` are ordered by N.
        let patch = stem.ends_with("_P") || stem.ends_with("_p");
        let n = if patch {
            let t = &stem[..stem.len() - 2];
            t.rsplit('_')
                .next()
                .and_then(|x| x.parse::<u32>().ok())
                .map_or(1, |n| n + 1)
        } else {
            0
        };
        (n, stem)
    }
    paths.sort_by_key(|p| prio(p));
}
