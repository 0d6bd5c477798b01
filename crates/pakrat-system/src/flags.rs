//! Package flags: show, change in place, and compare with a `.upkg` file.
//!
//! The flags are the `u32` at offset 8 of a UE1/UE2 package header
//! (`classic.md` §3.1). Changing them rewrites only those four bytes: the
//! new file is the old one with that word replaced, written to a temporary
//! file beside it and renamed over it, so a crash leaves either the old or
//! the new file. `ucc make` reads a package's `[Flags]` from
//! `Classes/../<Package>.upkg` (`AllowDownload=True`, `ClientOptional=False`,
//! `ServerSideOnly=False`); [`compare_upkg`] checks a built package against it.

use std::path::Path;

use pakrat_classic::flags::{package_flag_bit, package_flag_names, PACKAGE_FLAGS};
use pakrat_classic::Summary;
use pakrat_io::{Error, Result, Source};
use serde::Serialize;

use pakrat_io::ini::{parse_bool, Ini};

/// File offset of the package flags word.
pub const FLAGS_OFFSET: usize = 8;

/// The bit for a flag given by name (`AllowDownload`) or as a single-bit
/// number (`0x20`, `32`).
pub fn flag_bit(name: &str) -> Option<u32> {
    let n = name.trim();
    if let Some(b) = package_flag_bit(n) {
        return Some(b);
    }
    let v = match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => n.parse().ok()?,
    };
    (v.count_ones() == 1).then_some(v)
}

/// Parse one `--set` argument, `Flag=true|false` (also `1/0`, `yes/no`).
pub fn parse_set(arg: &str) -> Result<(u32, bool)> {
    let (k, v) = arg
        .split_once('=')
        .ok_or_else(|| Error::Other(format!("--set {arg:?}: expected FLAG=true or FLAG=false")))?;
    let bit = flag_bit(k).ok_or_else(|| {
        let known: Vec<&str> = PACKAGE_FLAGS.iter().map(|(_, n)| *n).collect();
        Error::Other(format!(
            "--set {arg:?}: unknown flag {k:?} (known: {}, or a single bit like 0x20)",
            known.join(", ")
        ))
    })?;
    let val = parse_bool(v)
        .ok_or_else(|| Error::Other(format!("--set {arg:?}: {v:?} is not true or false")))?;
    Ok((bit, val))
}

/// Apply `(bit, value)` changes to a flags word.
pub fn apply(mut flags: u32, changes: &[(u32, bool)]) -> u32 {
    for &(bit, on) in changes {
        if on {
            flags |= bit;
        } else {
            flags &= !bit;
        }
    }
    flags
}

/// Flags of a package file.
#[derive(Clone, Debug, Serialize)]
pub struct FlagsInfo {
    /// Package version.
    pub version: u16,
    /// Licensee.
    pub licensee: u16,
    /// The raw word.
    pub flags: u32,
    /// Names of the set bits (unknown bits as `0x…`).
    pub names: Vec<String>,
}

impl FlagsInfo {
    fn from_summary(s: &Summary) -> FlagsInfo {
        FlagsInfo {
            version: s.version,
            licensee: s.licensee,
            flags: s.package_flags,
            names: package_flag_names(s.package_flags),
        }
    }
}

/// Read a package's flags (the header is fully validated first).
pub fn read_flags(path: &Path) -> Result<FlagsInfo> {
    let src = Source::open(path)?;
    let s = Summary::parse(&src).map_err(|e| e.in_file(path))?;
    Ok(FlagsInfo::from_summary(&s))
}

/// Change flags in place. Returns `(before, after)`; when nothing changes
/// the file is not touched. The file's permissions are kept; a symbolic
/// link is followed and its target rewritten.
pub fn set_flags(path: &Path, changes: &[(u32, bool)]) -> Result<(FlagsInfo, FlagsInfo)> {
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    let src = Source::open(&real)?;
    let s = Summary::parse(&src).map_err(|e| e.in_file(path))?;
    let before = FlagsInfo::from_summary(&s);
    let new = apply(s.package_flags, changes);
    let mut after = before.clone();
    after.flags = new;
    after.names = package_flag_names(new);
    if new == s.package_flags {
        return Ok((before, after));
    }
    drop(src);
    // In place: one 4-byte write at offset 8 (inside the first sector, so
    // it lands whole or not at all), then fsync. A temp file and a rename
    // would break hard links and give the package a new inode; the size
    // never changes, so nothing else needs rewriting.
    write_word_in_place(&real, FLAGS_OFFSET as u64, new)?;
    let check = read_flags(&real)?;
    if check.flags != new {
        return Err(Error::Other(format!(
            "{}: flags read back as {:#010x} after writing {new:#010x}",
            real.display(),
            check.flags
        )));
    }
    Ok((before, after))
}

/// Write a little-endian u32 at `offset` of an existing file, in place.
fn write_word_in_place(path: &Path, offset: u64, value: u32) -> Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    f.seek(SeekFrom::Start(offset))
        .and_then(|_| f.write_all(&value.to_le_bytes()))
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

/// One `[Flags]` line compared with the package.
#[derive(Clone, Debug, Serialize)]
pub struct UpkgRow {
    /// The key as written in the `.upkg`.
    pub flag: String,
    /// Its bit, if the name is known.
    pub bit: Option<u32>,
    /// The `.upkg` value (`None`: not a boolean).
    pub upkg: Option<bool>,
    /// The package's bit.
    pub package: Option<bool>,
    /// True when both agree.
    pub matches: bool,
}

/// Compare a package's flags with a `.upkg` file's `[Flags]` section.
pub fn compare_upkg(flags: u32, upkg: &Path) -> Result<Vec<UpkgRow>> {
    let ini = Ini::load(upkg)?;
    if ini.section("Flags").is_none() {
        return Err(Error::Other(format!(
            "{}: no [Flags] section",
            upkg.display()
        )));
    }
    Ok(ini
        .entries("Flags")
        .map(|(k, v)| {
            let bit = flag_bit(k);
            let want = parse_bool(v);
            let have = bit.map(|b| flags & b != 0);
            UpkgRow {
                flag: k.to_string(),
                bit,
                upkg: want,
                package: have,
                matches: want.is_some() && want == have,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_args() {
        assert_eq!(parse_set("AllowDownload=false").unwrap(), (1, false));
        assert_eq!(parse_set("serversideonly=True").unwrap(), (4, true));
        assert_eq!(parse_set("0x20=1").unwrap(), (0x20, true));
        assert!(parse_set("0x30=1").is_err());
        assert!(parse_set("Bogus=1").is_err());
        assert!(parse_set("AllowDownload").is_err());
        assert!(parse_set("AllowDownload=perhaps").is_err());
        assert_eq!(apply(0x21, &[(1, false), (4, true)]), 0x24);
    }
}
