//! The game's `System\Manifest.ini`, the install's record in it: reading it,
//! ownership records, and the batched edits of `File=` lines and
//! `[RefCounts]`.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::fsutil::OutputDir;
use pakrat_io::ini::{Ini, Line, Section, MAX_INI_SIZE};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};

use super::{nothing_changed, OWNED_FILE};
use crate::archive::fold;
use crate::manifest::MANIFEST_INI;
use crate::paths::CaseMap;

/// Read an existing regular file of at most `limit` bytes, refusing
/// anything else (folder, device, pipe, over-large file).
pub(super) fn read_regular(path: &Path, shown: &str, limit: u64) -> Result<Vec<u8>> {
    let f = pakrat_io::open_regular(path).map_err(nothing_changed)?;
    let mut v = Vec::new();
    f.take(limit + 1)
        .read_to_end(&mut v)
        .map_err(|e| Error::io(path, e))?;
    if v.len() as u64 > limit {
        return Err(Error::Other(format!(
            "{} is larger than an ini file may be ({limit} bytes); nothing was changed",
            show(shown)
        )));
    }
    Ok(v)
}

/// The game's `System\Manifest.ini`: relative path, resolved path and
/// contents (refused when a symbolic link or anything but a regular file).
pub(super) fn game_manifest(
    map: &mut CaseMap,
    out: &OutputDir,
) -> Result<(String, PathBuf, Option<Ini>)> {
    let rel = map.map(MANIFEST_INI)?;
    let path = out.resolve(&rel)?;
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((rel, path, None)),
        Err(e) => Err(Error::io(path, e)),
        Ok(_) => {
            let bytes = read_regular(&path, &rel, MAX_INI_SIZE)?;
            let ini = Ini::try_parse(&bytes).map_err(|e| e.in_file(&path))?;
            Ok((rel, path, Some(ini)))
        }
    }
}

/// One ownership record: `PakratFile=<crc>,<size>,<dest>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Owned {
    pub(super) crc: u32,
    pub(super) size: u64,
}

pub(super) fn owned_value(dest: &str, size: u64, crc: u32) -> String {
    format!("{crc:08x},{size},{dest}")
}

pub(super) fn parse_owned(v: &str) -> Option<(String, Owned)> {
    let mut it = v.splitn(3, ',');
    let crc = u32::from_str_radix(it.next()?.trim(), 16).ok()?;
    let size = it.next()?.trim().parse().ok()?;
    let dest = it.next()?.trim();
    (!dest.is_empty()).then(|| (fold(dest), Owned { crc, size }))
}

/// The ownership records of one product section (folded dest → record).
pub(super) fn owned_records(sec: &pakrat_io::ini::Section) -> HashMap<String, Owned> {
    sec.get_all(OWNED_FILE).filter_map(parse_owned).collect()
}

/// Insert `lines` where [`Section::add`] would put each of them, in one
/// pass: after the last `key=` line, else before the section's trailing
/// blank lines. The same result as calling `add` once per line (each new
/// line goes after the one added before it), in linear time.
pub(super) fn add_all(sec: &mut Section, key: Option<&str>, lines: impl IntoIterator<Item = Line>) {
    let same = key.and_then(|k| {
        sec.lines.iter().rposition(|l| {
            l.as_entry()
                .is_some_and(|(lk, _)| lk.eq_ignore_ascii_case(k))
        })
    });
    let at = same
        .or_else(|| sec.lines.iter().rposition(|l| !l.is_blank()))
        .map_or(0, |i| i + 1);
    let tail = sec.lines.split_off(at);
    sec.lines.extend(lines);
    sec.lines.extend(tail);
}

/// `[RefCounts] File:<dest>=n`: one less for each of `dests` (distinct
/// keys), as `rc.set(key, get(key) - 1)`, or `rc.remove_key(key)` when that
/// reaches 0, per file would do, through one index of the sections instead
/// of a scan per file. The count is read as [`Ini::get`] reads it (the
/// first line of the key in any `[RefCounts]`); the first `[RefCounts]` is
/// edited. Returns the count left for each of `dests` (below 1: none).
pub(super) fn drop_ref_counts(ini: &mut Ini, dests: &[String]) -> Vec<i64> {
    let mut current: HashMap<String, i64> = HashMap::new();
    for s in ini
        .sections
        .iter()
        .filter(|s| s.name.eq_ignore_ascii_case("RefCounts"))
    {
        for (k, v) in s.entries() {
            current
                .entry(k.to_ascii_lowercase())
                .or_insert_with(|| atoi(v));
        }
    }
    let keys: Vec<String> = dests.iter().map(|d| format!("File:{d}")).collect();
    let left: Vec<i64> = keys
        .iter()
        .map(|k| current.get(&k.to_ascii_lowercase()).copied().unwrap_or(0) - 1)
        .collect();
    let want: HashMap<String, i64> = keys
        .iter()
        .zip(&left)
        .map(|(k, &n)| (k.to_ascii_lowercase(), n))
        .collect();
    let rc = ini.section_or_insert("RefCounts");
    let mut done: HashSet<String> = HashSet::new();
    rc.lines.retain_mut(|l| match l {
        Line::Entry {
            key, value, raw, ..
        } => {
            let f = key.to_ascii_lowercase();
            match want.get(&f) {
                None => true,
                Some(&n) if n > 0 && done.insert(f) => {
                    *value = n.to_string();
                    *raw = None;
                    true
                }
                Some(_) => false,
            }
        }
        _ => true,
    });
    // A count held only by a later [RefCounts] section: `set` adds it to
    // the first one.
    for (k, &n) in keys.iter().zip(&left) {
        if n > 0 && !done.contains(&k.to_ascii_lowercase()) {
            rc.add(k, &n.to_string());
        }
    }
    left
}

/// `[RefCounts] File:<dest>=n`: one more for each of `dests`, as
/// `rc.set(key, get(key) + 1)` per file would do (the first line of a key
/// keeps its place and gets the count, later duplicates go, new keys are
/// added at the end), through one index of the section instead of a scan
/// per file.
pub(super) fn bump_ref_counts(rc: &mut Section, dests: &[String]) {
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, l) in rc.lines.iter().enumerate() {
        if let Some((k, _)) = l.as_entry() {
            first.entry(k.to_ascii_lowercase()).or_insert(i);
        }
    }
    let mut touched: HashSet<String> = HashSet::new();
    let mut new = Vec::new();
    for d in dests {
        let key = format!("File:{d}");
        let folded = key.to_ascii_lowercase();
        match first.get(&folded) {
            Some(&i) => {
                if let Line::Entry { value, raw, .. } = &mut rc.lines[i] {
                    *value = (atoi(value) + 1).to_string();
                    *raw = None;
                }
                touched.insert(folded);
            }
            None => new.push(Line::entry(key, "1")),
        }
    }
    if !touched.is_empty() {
        let mut i = 0;
        rc.lines.retain(|l| {
            let keep = match l.as_entry() {
                Some((k, _)) => {
                    let f = k.to_ascii_lowercase();
                    !touched.contains(&f) || first.get(&f) == Some(&i)
                }
                None => true,
            };
            i += 1;
            keep
        });
    }
    add_all(rc, None, new);
}

pub(super) fn atoi(s: &str) -> i64 {
    // appAtoi: leading digits (with sign), 0 when none.
    let t = s.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let n = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .take(18)
        .fold(0i64, |a, c| a * 10 + i64::from(c as u8 - b'0'));
    if neg {
        -n
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn atoi_like_the_engine() {
        assert_eq!(super::atoi("436"), 436);
        assert_eq!(super::atoi(""), 0);
        assert_eq!(super::atoi(" 400abc"), 400);
        assert_eq!(super::atoi("-3"), -3);
    }

    #[test]
    fn ownership_records_round_trip() {
        let v = super::owned_value("Maps\\A, B.unr", 12, 0xdead_beef);
        let (k, o) = super::parse_owned(&v).unwrap();
        assert_eq!(k, "maps\\a, b.unr");
        assert_eq!((o.size, o.crc), (12, 0xdead_beef));
        assert!(super::parse_owned("zz,1,x").is_none());
        assert!(super::parse_owned("00000001,1,").is_none());
    }

    #[test]
    fn batched_log_edits_match_one_by_one() {
        use pakrat_io::ini::{Ini, Line};
        let text = "[P]\r\nCaption=x\r\nFile=A\r\nPakratFile=1,1,A\r\n\r\n[RefCounts]\r\nFile:A=2\r\nFile:B=x\r\nfile:a=7\r\n\r\n\r\n";
        let dests: Vec<String> = ["B", "C", "D"].iter().map(|s| s.to_string()).collect();
        let mut one = Ini::parse(text.as_bytes());
        let mut all = one.clone();
        {
            let s = one.section_mut("P").unwrap();
            for d in &dests {
                s.add("File", d);
            }
            let rc = one.section_mut("RefCounts").unwrap();
            for d in ["A", "B", "C"] {
                let key = format!("File:{d}");
                let n = rc.get(&key).map(super::atoi).unwrap_or(0) + 1;
                rc.set(&key, &n.to_string());
            }
        }
        {
            let s = all.section_mut("P").unwrap();
            super::add_all(
                s,
                Some("File"),
                dests.iter().map(|d| Line::entry("File", d.as_str())),
            );
            let rc = all.section_mut("RefCounts").unwrap();
            super::bump_ref_counts(rc, &["A".into(), "B".into(), "C".into()]);
        }
        assert_eq!(
            String::from_utf8(all.to_bytes()).unwrap(),
            String::from_utf8(one.to_bytes()).unwrap()
        );
    }

    #[test]
    fn batched_ref_count_drops_match_one_by_one() {
        use pakrat_io::ini::Ini;
        // Duplicates, a count of 1 (removed), a missing key, a key held
        // only by a second [RefCounts] section, a non-number.
        let text = "[RefCounts]\r\nFile:A=3\r\nfile:a=9\r\nFile:B=1\r\nFile:X=x\r\nOther=5\r\n\r\n[P]\r\nFile=A\r\n\r\n[RefCounts]\r\nFile:C=4\r\n";
        let dests: Vec<String> = ["A", "B", "C", "D", "X"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut one = Ini::parse(text.as_bytes());
        let mut all = one.clone();
        let mut expect = Vec::new();
        for d in &dests {
            let key = format!("File:{d}");
            let refs = one.get("RefCounts", &key).map(super::atoi).unwrap_or(0) - 1;
            let rc = one.section_or_insert("RefCounts");
            if refs > 0 {
                rc.set(&key, &refs.to_string());
            } else {
                rc.remove_key(&key);
            }
            expect.push(refs);
        }
        let got = super::drop_ref_counts(&mut all, &dests);
        assert_eq!(got, expect);
        assert_eq!(got, vec![2, 0, 3, -1, -1]);
        assert_eq!(
            String::from_utf8(all.to_bytes()).unwrap(),
            String::from_utf8(one.to_bytes()).unwrap()
        );
    }
}
