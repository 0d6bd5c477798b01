//! The pak index, read and written side by side.
//!
//! Before v10 (`FPakFile::LoadIndex` of UE 4.0–4.25):
//! ```text
//! FString MountPoint; i32 NumEntries; NumEntries × (FString Path, FPakEntry)
//! ```
//! From v10 (`PathHashIndex`, UE 4.26+; CUE4Parse `PakFileReader.cs`,
//! checked on the corpus paks of v11, v12 and v15):
//! ```text
//! FString MountPoint; i32 NumEntries; u64 PathHashSeed
//! u32 HasPathHashIndex [i64 Offset, i64 Size, u8 Sha1[20]]
//! u32 HasFullDirectoryIndex [i64 Offset, i64 Size, u8 Sha1[20]]
//! i32 EncodedEntriesSize; u8 EncodedEntries[]; i32 NumFiles; NumFiles × FPakEntry
//! [v15 AES-CTR: NumFiles × 12-byte IV]
//! ```
//! The path-hash index is `i32 N; N × (u64 PathHash, i32 Location)` and a
//! pruned directory index (UnrealPak writes it empty: `i32 0`). The full
//! directory index is `i32 NumDirs; NumDirs × (FString Dir, i32 NumFiles,
//! NumFiles × (FString Name, i32 Location))`, directories relative to the
//! mount point (`/` for the root, else `a/b/`). A location ≥ 0 is a byte
//! offset into the encoded entries, `-(i+1)` the i-th full entry,
//! `i32::MIN` a deleted file. Path hashes are FNV-1a 64 of the lower-cased
//! path (below the mount point) as UTF-16LE, starting from
//! `0xcbf29ce484222325 + seed` (v10 swapped offset basis and prime: UE
//! `Fnv.cpp`, the bug that `Fnv64BugFix` (v11) fixed).
//!
//! v12 (`Utf8PakDirectory`) stores file names in the directory index as
//! UTF-8 without the NUL; v13 (`SortedDirectoryIndex`) may store the full
//! directory index flat ([`FLAT_MAGIC`], layout in [`read_flat`]).

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use super::entry::{Layout, PakEntry};

/// Magic of the flat directory index (v13+), `'PFDQ'`.
pub const FLAT_MAGIC: u32 = 0x5046_4451;
/// Restart interval UnrealPak uses for the flat directory blob.
pub const FLAT_RESTART: u32 = 16;

/// Location, size and SHA-1 of a secondary index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SubIndex {
    /// Offset in the pak.
    pub offset: u64,
    /// Size in bytes (padded to 16 when the index is encrypted).
    pub size: u64,
    /// SHA-1 of its (decrypted) bytes.
    #[serde(skip)]
    pub hash: [u8; 20],
}

/// A parsed index.
#[derive(Clone, Debug, Serialize)]
pub struct Index {
    /// Mount point (`../../../Game/` and the like).
    pub mount_point: String,
    /// Entries, in the order the index lists them.
    pub entries: Vec<PakEntry>,
    /// Entry count the index declares.
    pub declared_entries: u64,
    /// Path hash seed (v10+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hash_seed: Option<u64>,
    /// Path-hash index (v10+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hash_index: Option<SubIndex>,
    /// Full directory index (v10+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directory_index: Option<SubIndex>,
    /// The directory index is the flat form (v13+).
    pub flat_directory_index: bool,
    /// Full (not encoded) entries of a v10+ index.
    pub full_entries: u64,
}

/// Read a pak `FString`: `i32` length counting the NUL, negative for UTF-16
/// ([`pakrat_codec::fstring::read_fstring`]). `utf8`: 8-bit text is UTF-8 (v12+
/// directory names) and the NUL optional.
pub fn read_string(r: &mut Reader<'_>, what: &str, utf8: bool) -> Result<String> {
    let n = r.clone().i32(what)?;
    if !utf8 || n <= 0 {
        return pakrat_codec::fstring::read_fstring(r, what);
    }
    let at = r.offset();
    r.skip(4, what)?;
    let raw = r.bytes(n as u64, what)?;
    let body = match raw.split_last() {
        Some((0, body)) => body,
        _ => raw,
    };
    if body.contains(&0) {
        return Err(Error::invalid(at, format!("{what}: NUL inside a string")));
    }
    Ok(match std::str::from_utf8(body) {
        Ok(s) => s.to_string(),
        Err(_) => pakrat_io::FString::from_latin1(body),
    })
}

/// Write a pak `FString` as the engine does: 8-bit with a NUL when every
/// character is ASCII, UTF-16 otherwise (also for Latin-1 text, which an
/// 8-bit string would leave to the reader's code page: UnrealPak and repak
/// write `é` as UTF-16); `utf8_no_nul`: UTF-8 without the NUL (v12+ file
/// names).
pub fn write_string(w: &mut Writer, s: &str, utf8_no_nul: bool) {
    if s.is_empty() {
        w.i32(0);
        return;
    }
    if utf8_no_nul {
        w.i32(s.len() as i32).bytes(s.as_bytes());
        return;
    }
    match s.is_ascii() {
        true => {
            w.i32(s.len() as i32 + 1).bytes(s.as_bytes()).u8(0);
        }
        false => {
            let units: Vec<u16> = s.encode_utf16().collect();
            w.i32(-(units.len() as i32 + 1));
            for u in units {
                w.u16(u);
            }
            w.u16(0);
        }
    }
}

/// FNV-1a 64 path hash of the engine (`FPakFile::HashPath`).
pub fn path_hash(path: &str, seed: u64, version: u32) -> u64 {
    let (basis, prime) = if version >= 11 {
        (0xcbf2_9ce4_8422_2325u64, 0x0000_0100_0000_01b3u64)
    } else {
        (0x0000_0100_0000_01b3, 0xcbf2_9ce4_8422_2325)
    };
    let mut h = basis.wrapping_add(seed);
    for u in path.to_lowercase().encode_utf16() {
        for b in u.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(prime);
        }
    }
    h
}

/// Parse a legacy (before v10) index.
pub fn read_legacy(data: &[u8], base: u64, l: Layout) -> Result<Index> {
    let mut r = Reader::with_base(data, base);
    let mount_point = read_string(&mut r, "mount point", false)?;
    let n = r.i32("entry count")?;
    // Each entry is at least a 1-byte-long name plus the smallest record.
    let n = r.check_count(
        i64::from(n),
        4 + l.full_size(false, 0) as usize,
        "index entries",
    )?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let path = read_string(&mut r, "entry path", false)?;
        let mut e = PakEntry::read_full(&mut r, l, None)?;
        e.path = path;
        entries.push(e);
    }
    Ok(Index {
        mount_point,
        entries,
        declared_entries: n as u64,
        path_hash_seed: None,
        path_hash_index: None,
        directory_index: None,
        flat_directory_index: false,
        full_entries: 0,
    })
}

/// The primary index of v10+, before the directory index is read.
pub struct Primary<'a> {
    /// Mount point.
    pub mount_point: String,
    /// Declared entry count.
    pub count: u64,
    /// Path hash seed.
    pub seed: u64,
    /// Path-hash index location.
    pub phi: Option<SubIndex>,
    /// Full directory index location.
    pub fdi: Option<SubIndex>,
    /// Encoded entries.
    pub encoded: Reader<'a>,
    /// Full entries.
    pub full: Vec<PakEntry>,
}

fn sub_index(r: &mut Reader<'_>, what: &str) -> Result<Option<SubIndex>> {
    let at = r.offset();
    match r.u32(what)? {
        0 => Ok(None),
        1 => {
            let offset = r.i64("secondary index offset")?;
            let size = r.i64("secondary index size")?;
            let hash = r.array("secondary index hash")?;
            if offset < 0 || size < 0 {
                return Err(Error::invalid(
                    at,
                    format!("{what}: negative offset or size"),
                ));
            }
            Ok(Some(SubIndex {
                offset: offset as u64,
                size: size as u64,
                hash,
            }))
        }
        b => Err(Error::invalid(
            at,
            format!("{what}: flag {b}, expected 0 or 1"),
        )),
    }
}

/// Parse the primary index of v10+.
pub fn read_primary(data: &[u8], base: u64, l: Layout, ctr: bool) -> Result<Primary<'_>> {
    let mut r = Reader::with_base(data, base);
    let mount_point = read_string(&mut r, "mount point", false)?;
    let count = r.i32("entry count")?;
    if count < 0 {
        return Err(r.invalid(format!("negative entry count {count}")));
    }
    let seed = r.u64("path hash seed")?;
    let phi = sub_index(&mut r, "path-hash index flag")?;
    let fdi = sub_index(&mut r, "directory index flag")?;
    let esize = r.i32("encoded entries size")?;
    let esize = r.check_count(i64::from(esize), 1, "encoded entries")?;
    let encoded = r.sub(r.pos() as u64, esize as u64, "encoded entries")?;
    r.skip(esize as u64, "encoded entries")?;
    let nfull = r.i32("full entry count")?;
    let nfull = r.check_count(
        i64::from(nfull),
        l.full_size(false, 0) as usize,
        "full entries",
    )?;
    let mut full = Vec::with_capacity(nfull);
    for _ in 0..nfull {
        full.push(PakEntry::read_full(&mut r, l, None)?);
    }
    if ctr {
        for e in &mut full {
            e.iv = Some(r.array("full entry IV")?);
        }
    }
    Ok(Primary {
        mount_point,
        count: count as u64,
        seed,
        phi,
        fdi,
        encoded,
        full,
    })
}

impl Primary<'_> {
    /// The entry at a directory-index location.
    pub fn entry_at(&self, loc: i32, l: Layout, ctr: bool) -> Result<Option<PakEntry>> {
        if loc == i32::MIN {
            return Ok(None);
        }
        if loc >= 0 {
            let mut r = self.encoded.at(loc as u64, "encoded entry")?;
            return PakEntry::read_encoded(&mut r, l, ctr).map(Some);
        }
        let i = (-(i64::from(loc) + 1)) as usize;
        match self.full.get(i) {
            Some(e) => Ok(Some(e.clone())),
            None => Err(Error::invalid(
                self.encoded.base(),
                format!(
                    "directory index names full entry {i}, but the index has {}",
                    self.full.len()
                ),
            )),
        }
    }
}

/// `(directory, file, location)` triples of a nested full directory index.
pub fn read_nested(data: &[u8], base: u64, utf8: bool) -> Result<Vec<(String, String, i32)>> {
    let mut r = Reader::with_base(data, base);
    let ndirs = r.i32("directory count")?;
    let ndirs = r.check_count(i64::from(ndirs), 8, "directories")?;
    let mut out = Vec::new();
    for _ in 0..ndirs {
        let dir = read_string(&mut r, "directory name", utf8)?;
        let nfiles = r.i32("file count")?;
        let nfiles = r.check_count(i64::from(nfiles), 8, "directory files")?;
        for _ in 0..nfiles {
            let name = read_string(&mut r, "file name", utf8)?;
            let loc = r.i32("entry location")?;
            out.push((dir.clone(), name, loc));
        }
    }
    Ok(out)
}

/// `(directory, file, location)` triples of a flat directory index (v13+;
/// CUE4Parse `ReadFlatDirectoryIndex`, checked on the UE 6.0 fixtures):
/// ```text
/// u32 'PFDQ'; i32 NumDirs, NumFiles, RestartInterval, DirBlobBytes,
///   FileBlobBytes, NumPathHashes, Pad
/// u64 SortedPathHashes[NumPathHashes]; i32 HashLocations[NumPathHashes]
/// i32 DirAnchorOffsets[ceil(NumDirs / RestartInterval) + 1]
/// i32 DirFileStart[NumDirs + 1]; i32 FileNameOffsets[NumFiles + 1]
/// i32 FileLocations[NumFiles]; DirBlob; FileBlob
/// ```
/// The directory blob holds `(i32 Shared, i32 SuffixLen, Suffix)` per
/// sorted directory, front-coded against the previous one (`Shared` 0 at
/// each anchor); the file blob holds the sorted UTF-8 names back to back.
pub fn read_flat(data: &[u8], base: u64) -> Result<Vec<(String, String, i32)>> {
    let mut r = Reader::with_base(data, base);
    let m = r.u32("flat directory index magic")?;
    if m != FLAT_MAGIC {
        return Err(r.invalid(format!(
            "flat directory index magic {m:#x}, expected {FLAT_MAGIC:#x}"
        )));
    }
    let mut h = [0i32; 7];
    let what = [
        "directory count",
        "file count",
        "restart interval",
        "directory blob size",
        "file blob size",
        "path hash count",
        "pad",
    ];
    for (x, w) in h.iter_mut().zip(what) {
        *x = r.i32(w)?;
    }
    let [ndirs, nfiles, restart, dblob, fblob, nhash, _] = h;
    if ndirs < 0 || nfiles < 0 || restart <= 0 || dblob < 0 || fblob < 0 || nhash < 0 {
        return Err(r.invalid("flat directory index header has a negative count"));
    }
    let (ndirs, nfiles, nhash) = (ndirs as usize, nfiles as usize, nhash as usize);
    let anchors = ndirs.div_ceil(restart as usize) + 1;
    let need = nhash as u128 * 12
        + anchors as u128 * 4
        + (ndirs as u128 + 1) * 4
        + (nfiles as u128 + 1) * 4
        + nfiles as u128 * 4
        + dblob as u128
        + fblob as u128;
    if need > r.remaining() as u128 {
        return Err(r.invalid(format!(
            "flat directory index needs {need} bytes for its arrays, {} remain",
            r.remaining()
        )));
    }
    r.skip(
        nhash as u64 * 12 + anchors as u64 * 4,
        "path hashes and anchors",
    )?;
    let ints = |r: &mut Reader<'_>, n: usize, what: &str| -> Result<Vec<i32>> {
        (0..n).map(|_| r.i32(what)).collect()
    };
    let dir_start = ints(&mut r, ndirs + 1, "directory file start")?;
    let name_off = ints(&mut r, nfiles + 1, "file name offset")?;
    let locs = ints(&mut r, nfiles, "file location")?;
    let dblob_at = r.offset();
    let db = r.bytes(dblob as u64, "directory blob")?;
    let fblob_at = r.offset();
    let fb = r.bytes(fblob as u64, "file blob")?;
    let mut out = Vec::with_capacity(nfiles);
    let mut dr = Reader::with_base(db, dblob_at);
    let mut prev: Vec<u8> = Vec::new();
    for d in 0..ndirs {
        let shared = dr.i32("shared prefix")?;
        let suffix = dr.i32("suffix length")?;
        if shared < 0 || shared as usize > prev.len() || suffix < 0 {
            return Err(dr.invalid(format!(
                "directory {d}: shared prefix {shared} / suffix {suffix} do not fit the previous name"
            )));
        }
        prev.truncate(shared as usize);
        prev.extend_from_slice(dr.bytes(suffix as u64, "directory suffix")?);
        let dir = String::from_utf8(prev.clone())
            .map_err(|_| Error::invalid(dblob_at, format!("directory {d}: name is not UTF-8")))?;
        let (s, e) = (dir_start[d], dir_start[d + 1]);
        if s < 0 || e < s || e as usize > nfiles {
            return Err(Error::invalid(
                dblob_at,
                format!("directory {d}: files {s}..{e} lie outside 0..{nfiles}"),
            ));
        }
        for g in s as usize..e as usize {
            let (a, b) = (name_off[g], name_off[g + 1]);
            if a < 0 || b < a || b as usize > fb.len() {
                return Err(Error::invalid(
                    fblob_at,
                    format!("file {g}: name bytes {a}..{b} lie outside the file blob"),
                ));
            }
            let name = std::str::from_utf8(&fb[a as usize..b as usize]).map_err(|_| {
                Error::invalid(fblob_at + a as u64, format!("file {g}: name is not UTF-8"))
            })?;
            out.push((dir.clone(), name.to_string(), locs[g]));
        }
    }
    Ok(out)
}

/// Join a directory-index directory and file name into a path below the
/// mount point.
pub fn join(dir: &str, name: &str) -> String {
    let d = dir.trim_start_matches('/');
    format!("{d}{name}")
}

/// Split a path below the mount point into the directory-index form.
pub fn split(path: &str) -> (String, &str) {
    match path.rfind('/') {
        Some(i) => (path[..=i].to_string(), &path[i + 1..]),
        None => ("/".to_string(), path),
    }
}

/// Every directory of the directory index for these paths, the root and
/// each parent included, sorted (the engine adds parents too).
fn directories<'p>(paths: impl Iterator<Item = &'p str>) -> Vec<String> {
    let mut dirs = std::collections::BTreeSet::new();
    dirs.insert("/".to_string());
    for p in paths {
        let mut d = split(p).0;
        while d != "/" {
            dirs.insert(d.clone());
            let t = d.trim_end_matches('/');
            d = match t.rfind('/') {
                Some(i) => t[..=i].to_string(),
                None => "/".to_string(),
            };
        }
    }
    // "/" sorts first as a byte string, as in UnrealPak's output.
    dirs.into_iter().collect()
}

/// Build the nested full directory index for `(path, location)` pairs.
/// Directories come in the engine's order (its `TMap` keeps insertion
/// order): a file whose directory is new first adds the missing parents,
/// nearest first, then the directory; files in entry order (seen in the
/// corpus paks of UE 4.27 and 5.8).
pub fn write_nested(files: &[(&str, i32)], version: u32) -> Vec<u8> {
    let mut order: Vec<String> = Vec::new();
    let mut pos: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut lists: Vec<Vec<(&str, i32)>> = Vec::new();
    for &(p, loc) in files {
        let (d, n) = split(p);
        if !pos.contains_key(&d) {
            let mut parent = d.clone();
            while parent != "/" {
                let t = parent.trim_end_matches('/');
                parent = match t.rfind('/') {
                    Some(i) => t[..=i].to_string(),
                    None => "/".to_string(),
                };
                if !pos.contains_key(&parent) {
                    pos.insert(parent.clone(), order.len());
                    order.push(parent.clone());
                    lists.push(Vec::new());
                }
            }
            pos.insert(d.clone(), order.len());
            order.push(d.clone());
            lists.push(Vec::new());
        }
        lists[pos[&d]].push((n, loc));
    }
    let mut w = Writer::new();
    w.i32(order.len() as i32);
    for (d, fs) in order.iter().zip(&lists) {
        write_string(&mut w, d, false);
        w.i32(fs.len() as i32);
        for (n, loc) in fs {
            write_string(&mut w, n, version >= 12);
            w.i32(*loc);
        }
    }
    w.into_inner()
}

/// Build the flat directory index (v13+) for `(path, location)` pairs.
pub fn write_flat(files: &[(&str, i32)], seed: u64, version: u32) -> Vec<u8> {
    let dirs = directories(files.iter().map(|f| f.0));
    let mut by_dir: std::collections::BTreeMap<String, Vec<(&str, i32)>> =
        dirs.iter().map(|d| (d.clone(), Vec::new())).collect();
    for &(p, loc) in files {
        let (d, n) = split(p);
        by_dir.entry(d).or_default().push((n, loc));
    }
    for fs in by_dir.values_mut() {
        fs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    }
    let mut hashes: Vec<(u64, i32)> = files
        .iter()
        .map(|&(p, loc)| (path_hash(p, seed, version), loc))
        .collect();
    hashes.sort();
    let restart = FLAT_RESTART as usize;
    let mut dblob = Writer::new();
    let mut anchors = Vec::new();
    let mut prev: &[u8] = b"";
    for (i, d) in by_dir.keys().enumerate() {
        let cur = d.as_bytes();
        let shared = if i % restart == 0 {
            anchors.push(dblob.len() as i32);
            0
        } else {
            prev.iter().zip(cur).take_while(|(a, b)| a == b).count()
        };
        dblob
            .i32(shared as i32)
            .i32((cur.len() - shared) as i32)
            .bytes(&cur[shared..]);
        prev = cur;
    }
    anchors.push(dblob.len() as i32);
    let mut dir_start = vec![0i32];
    let mut name_off = vec![0i32];
    let mut locs = Vec::new();
    let mut fblob = Vec::new();
    for fs in by_dir.values() {
        for (n, loc) in fs {
            fblob.extend_from_slice(n.as_bytes());
            name_off.push(fblob.len() as i32);
            locs.push(*loc);
        }
        dir_start.push(locs.len() as i32);
    }
    let mut w = Writer::new();
    w.u32(FLAT_MAGIC)
        .i32(by_dir.len() as i32)
        .i32(locs.len() as i32)
        .i32(FLAT_RESTART as i32)
        .i32(dblob.len() as i32)
        .i32(fblob.len() as i32)
        .i32(hashes.len() as i32)
        .i32(0);
    for (h, _) in &hashes {
        w.u64(*h);
    }
    for (_, l) in &hashes {
        w.i32(*l);
    }
    for v in anchors
        .iter()
        .chain(&dir_start)
        .chain(&name_off)
        .chain(&locs)
    {
        w.i32(*v);
    }
    w.bytes(dblob.as_slice()).bytes(&fblob);
    w.into_inner()
}

/// Build the path-hash index for `(path, location)` pairs, in entry order,
/// followed by an empty pruned directory index (UnrealPak 4.26/4.27 write
/// it empty; UE 5 keeps the files named by its `DirectoryIndexKeepFiles`
/// setting there, such as `.ini` and `.locres`, which pakrat does not
/// reproduce: engines read it only when the full index was dropped).
pub fn write_path_hash_index(files: &[(&str, i32)], seed: u64, version: u32) -> Vec<u8> {
    let mut w = Writer::new();
    w.i32(files.len() as i32);
    for &(p, loc) in files {
        w.u64(path_hash(p, seed, version)).i32(loc);
    }
    w.i32(0);
    w.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip() {
        for (s, utf8) in [
            ("abc", false),
            ("Ünïcode", false),
            ("日本", false),
            ("日本", true),
            ("", false),
        ] {
            let mut w = Writer::new();
            write_string(&mut w, s, utf8);
            let b = w.into_inner();
            assert_eq!(read_string(&mut Reader::new(&b), "s", utf8).unwrap(), s);
        }
        // Latin-1 is written as UTF-16, as by UnrealPak (issue 31).
        let mut w = Writer::new();
        write_string(&mut w, "Café", false);
        assert_eq!(w.as_slice()[..4], (-5i32).to_le_bytes());
        let mut w = Writer::new();
        w.i32(i32::MIN);
        assert!(read_string(&mut Reader::new(w.as_slice()), "s", false).is_err());
        let mut w = Writer::new();
        w.i32(3).bytes(b"abc");
        assert!(read_string(&mut Reader::new(w.as_slice()), "s", false).is_err());
    }

    #[test]
    fn path_hash_matches_the_corpus_pak() {
        // pack_v11.pak: seed 0x205c5a7d, "test.png" hashes to 0x20704bb513057fc3.
        assert_eq!(
            path_hash("test.png", 0x205c_5a7d, 11),
            0x2070_4bb5_1305_7fc3
        );
        assert_ne!(
            path_hash("test.png", 0x205c_5a7d, 10),
            0x2070_4bb5_1305_7fc3
        );
    }

    #[test]
    fn directory_indexes_round_trip() {
        let files = [
            ("a/b/c.txt", 0),
            ("a/d.txt", 12),
            ("top.bin", 24),
            ("z/y.bin", -1),
        ];
        for v in [10, 12] {
            let b = write_nested(&files, v);
            let got = read_nested(&b, 0, v >= 12).unwrap();
            let mut paths: Vec<(String, i32)> =
                got.iter().map(|(d, n, l)| (join(d, n), *l)).collect();
            paths.sort();
            let mut want: Vec<(String, i32)> =
                files.iter().map(|(p, l)| (p.to_string(), *l)).collect();
            want.sort();
            assert_eq!(paths, want);
            // Parents are listed too.
            assert!(got.is_empty() || b.windows(2).any(|w| w == b"a/"));
        }
        let b = write_flat(&files, 77, 15);
        let got = read_flat(&b, 0).unwrap();
        let mut paths: Vec<(String, i32)> = got.iter().map(|(d, n, l)| (join(d, n), *l)).collect();
        paths.sort();
        let mut want: Vec<(String, i32)> = files.iter().map(|(p, l)| (p.to_string(), *l)).collect();
        want.sort();
        assert_eq!(paths, want);
        // Truncations never panic.
        for n in 0..b.len() {
            let _ = read_flat(&b[..n], 0);
        }
    }
}
