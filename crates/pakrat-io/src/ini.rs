//! Unreal `.ini`/`.int`/`.upkg` files: read tolerantly, edited, and written
//! back byte for byte.
//!
//! The engine's config files are `[Section]` headers followed by `Key=Value`
//! lines. The config cache (`FConfigCacheIni`) keeps each section as a
//! multi-map, so a key may repeat (UE2 writes `Paths=` once per entry, UMOD
//! manifests `Group=`/`File=`), and UE1 spells array entries as `Key[n]=`
//! (see [`Ini::array`]). Section and key names compare case-insensitively, as
//! `appStricmp` does; values may be empty, and surrounding double quotes are
//! removed.
//!
//! Encodings: a UTF-16LE byte-order mark (the engine writes one when a value
//! is not representable in ANSI: UT432 `appSaveStringToFile`; UE2 `.int`
//! files), a UTF-8 BOM, and otherwise 8-bit Windows ANSI read as Latin-1
//! (never fails, byte-exact).
//!
//! The model keeps every line it does not change (comments, blank lines,
//! lines without `=`, entries before the first header) together with its own
//! line end (`\r\n`, `\n`, a lone `\r`, or none on the last line), so that
//! editing an installed game's `System\Manifest.ini` touches only what it
//! must, and [`Ini::to_bytes`] of an unedited [`Ini::try_parse`] result is
//! the input, byte for byte.
//!
//! Input is treated as hostile: nothing panics, [`Ini::load`] and
//! [`Ini::try_parse`] cap the size ([`MAX_INI_SIZE`]) and the line count
//! ([`MAX_INI_LINES`]) before building the model.

use std::path::Path;

use crate::{Error, FString, Result};

/// Largest ini file [`Ini::load`]/[`Ini::try_parse`] accept (real ones are
/// well under 1 MiB).
pub const MAX_INI_SIZE: u64 = 16 << 20;

/// Most lines [`Ini::load`]/[`Ini::try_parse`] accept: bounds the model's
/// memory for a file of nothing but line ends (each line costs ~100 bytes).
pub const MAX_INI_LINES: usize = 1 << 20;

/// Text encoding of an ini file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    /// 8-bit, decoded as Latin-1.
    #[default]
    Ansi,
    /// UTF-8 with a byte-order mark.
    Utf8Bom,
    /// UTF-16LE with a byte-order mark.
    Utf16Le,
}

/// How a line ended in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LineEnd {
    /// A line made by an edit: the file's usual end ([`Ini::crlf`]).
    #[default]
    Default,
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// A lone `\r` (old Mac files; the engine splits lines on it too).
    Cr,
    /// Nothing: the file's last line had no line end. If an edit puts
    /// something after it, it gets the usual end.
    None,
}

/// One line inside a section (or before the first section).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `Key=Value`.
    Entry {
        /// The key, trimmed.
        key: String,
        /// The value, trimmed, surrounding double quotes removed.
        value: String,
        /// The original line (without its end), written back unchanged;
        /// `None` for an added or edited entry (written as `key=value`).
        raw: Option<String>,
        /// The line's end.
        end: LineEnd,
    },
    /// Anything else (comment, blank line, line without `=`), kept verbatim.
    Other {
        /// The line without its end.
        text: String,
        /// The line's end.
        end: LineEnd,
    },
}

impl Line {
    /// A new `key=value` line.
    pub fn entry(key: impl Into<String>, value: impl Into<String>) -> Line {
        Line::Entry {
            key: key.into(),
            value: value.into(),
            raw: None,
            end: LineEnd::Default,
        }
    }

    /// A new verbatim line (comment, blank line...).
    pub fn other(text: impl Into<String>) -> Line {
        Line::Other {
            text: text.into(),
            end: LineEnd::Default,
        }
    }

    /// `(key, value)` if this is an entry.
    pub fn as_entry(&self) -> Option<(&str, &str)> {
        match self {
            Line::Entry { key, value, .. } => Some((key, value)),
            Line::Other { .. } => None,
        }
    }

    /// True for a line that is blank (or only white space).
    pub fn is_blank(&self) -> bool {
        matches!(self, Line::Other { text, .. } if text.trim().is_empty())
    }

    fn is_key(&self, key: &str) -> bool {
        matches!(self, Line::Entry { key: k, .. } if k.eq_ignore_ascii_case(key))
    }

    fn end(&self) -> LineEnd {
        match self {
            Line::Entry { end, .. } | Line::Other { end, .. } => *end,
        }
    }

    /// The text as written (without the line end).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Line::Entry { raw: Some(raw), .. } => raw.as_str().into(),
            Line::Entry { key, value, .. } => format!("{key}={value}").into(),
            Line::Other { text, .. } => text.as_str().into(),
        }
    }
}

/// A `[Section]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets, trimmed.
    pub name: String,
    raw_header: Option<String>,
    header_end: LineEnd,
    /// The lines that follow the header.
    pub lines: Vec<Line>,
}

impl Section {
    /// An empty section.
    pub fn new(name: impl Into<String>) -> Self {
        Section {
            name: name.into(),
            raw_header: None,
            header_end: LineEnd::Default,
            lines: Vec::new(),
        }
    }

    /// Every `(key, value)` in order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.lines.iter().filter_map(Line::as_entry)
    }

    /// The first value of `key` (case-insensitive).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// Every value of `key` (case-insensitive), in order.
    pub fn get_all<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.entries()
            .filter(move |(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// True if the exact pair exists (key case-insensitive, value ignoring ASCII case).
    pub fn has_pair(&self, key: &str, value: &str) -> bool {
        self.entries()
            .any(|(k, v)| k.eq_ignore_ascii_case(key) && v.eq_ignore_ascii_case(value))
    }

    /// Add `key=value` after the last `key=` line, or else before the
    /// section's trailing blank lines.
    pub fn add(&mut self, key: &str, value: &str) {
        let same = self.lines.iter().rposition(|l| l.is_key(key));
        let at = same
            .or_else(|| self.lines.iter().rposition(|l| !l.is_blank()))
            .map_or(0, |i| i + 1);
        self.lines.insert(at, Line::entry(key, value));
    }

    /// Add `key=value` unless the pair already exists. Returns true if added.
    pub fn add_unique(&mut self, key: &str, value: &str) -> bool {
        if self.has_pair(key, value) {
            return false;
        }
        self.add(key, value);
        true
    }

    /// Replace every `key=` with a single `key=value` (at the first one's place).
    pub fn set(&mut self, key: &str, value: &str) {
        let mut done = false;
        self.lines.retain_mut(|l| match l {
            Line::Entry {
                key: k,
                value: v,
                raw,
                ..
            } if k.eq_ignore_ascii_case(key) => {
                if done {
                    false
                } else {
                    done = true;
                    *v = value.to_string();
                    *raw = None;
                    true
                }
            }
            _ => true,
        });
        if !done {
            self.add(key, value);
        }
    }

    /// Remove every `key=value` pair (value ignoring ASCII case). Returns how many.
    pub fn remove_pair(&mut self, key: &str, value: &str) -> usize {
        let before = self.lines.len();
        self.lines.retain(|l| {
            !matches!(l, Line::Entry { key: k, value: v, .. }
                if k.eq_ignore_ascii_case(key) && v.eq_ignore_ascii_case(value))
        });
        before - self.lines.len()
    }

    /// Remove every `key=` line. Returns how many.
    pub fn remove_key(&mut self, key: &str) -> usize {
        let before = self.lines.len();
        self.lines.retain(|l| !l.is_key(key));
        before - self.lines.len()
    }
}

/// A whole ini file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ini {
    /// Lines before the first section header (their entries belong to no
    /// section: lookups ignore them, as the engine does).
    pub preamble: Vec<Line>,
    /// Sections in file order. A name may repeat: [`Ini::section`] and the
    /// editing calls use the first, the read calls ([`Ini::get`],
    /// [`Ini::entries`], [`Ini::array`]) see all of them in file order, as
    /// the engine's config cache merges them.
    pub sections: Vec<Section>,
    /// End edited or added lines with CRLF (the engine's and every real
    /// manifest's choice); else LF.
    pub crlf: bool,
    /// Text encoding.
    pub encoding: Encoding,
}

/// Decode an ini file's bytes: UTF-16LE with BOM, UTF-8 with BOM, else
/// Latin-1. Invalid UTF-8/UTF-16 is replaced (U+FFFD) and an odd trailing
/// byte after a UTF-16 BOM is ignored.
pub fn decode(data: &[u8]) -> (String, Encoding) {
    if let Some(rest) = data.strip_prefix(&[0xFF, 0xFE]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        (String::from_utf16_lossy(&units), Encoding::Utf16Le)
    } else if let Some(rest) = data.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        (
            String::from_utf8_lossy(rest).into_owned(),
            Encoding::Utf8Bom,
        )
    } else {
        (FString::from_latin1(data), Encoding::Ansi)
    }
}

/// Like [`decode`], but an error (naming the offset) instead of any
/// replacement, so that encoding the text again gives `data` back.
pub fn decode_exact(data: &[u8]) -> Result<(String, Encoding)> {
    if let Some(rest) = data.strip_prefix(&[0xFF, 0xFE]) {
        if rest.len() % 2 != 0 {
            return Err(Error::invalid(
                data.len() as u64 - 1,
                "a UTF-16LE file of whole 16-bit units (found an odd trailing byte)",
            ));
        }
        let units = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]));
        let mut text = String::with_capacity(rest.len() / 2);
        for c in char::decode_utf16(units) {
            match c {
                Ok(c) => text.push(c),
                Err(e) => {
                    // The bad unit follows the BOM and every unit decoded so far.
                    let at = 2 + 2 * text.encode_utf16().count() as u64;
                    return Err(Error::invalid(
                        at,
                        format!(
                            "UTF-16LE text (found an unpaired surrogate {:#06x})",
                            e.unpaired_surrogate()
                        ),
                    ));
                }
            }
        }
        Ok((text, Encoding::Utf16Le))
    } else if let Some(rest) = data.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        match std::str::from_utf8(rest) {
            Ok(s) => Ok((s.to_string(), Encoding::Utf8Bom)),
            Err(e) => Err(Error::invalid(
                3 + e.valid_up_to() as u64,
                "UTF-8 text after the UTF-8 byte-order mark (found an invalid sequence)",
            )),
        }
    } else {
        Ok((FString::from_latin1(data), Encoding::Ansi))
    }
}

/// Decode an ini file's bytes to text (see [`decode`]).
pub fn decode_text(data: &[u8]) -> String {
    decode(data).0
}

/// Split text into lines with their ends: `\r\n`, `\n` and a lone `\r` all
/// end a line; the last line may have none (an empty last line is not one).
fn split_lines(text: &str) -> impl Iterator<Item = (&str, LineEnd)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\r', '\n']) {
            None => {
                let line = rest;
                rest = "";
                Some((line, LineEnd::None))
            }
            Some(i) => {
                let line = &rest[..i];
                let after = &rest[i..];
                let (end, len) = if after.starts_with("\r\n") {
                    (LineEnd::CrLf, 2)
                } else if after.starts_with('\r') {
                    (LineEnd::Cr, 1)
                } else {
                    (LineEnd::Lf, 1)
                };
                rest = &after[len..];
                Some((line, end))
            }
        }
    })
}

fn parse_entry(line: &str) -> Option<(String, String)> {
    let (k, v) = line.split_once('=')?;
    let key = k.trim();
    if key.is_empty() || key.starts_with(';') || key.starts_with('#') {
        return None;
    }
    Some((key.to_string(), unquote(v.trim()).to_string()))
}

fn unquote(v: &str) -> &str {
    match v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) => inner,
        None => v,
    }
}

/// `Paths[3]` → `Some(3)` when the base matches `key`.
fn array_index(k: &str, key: &str) -> Option<u32> {
    let base = k.get(..key.len())?;
    if !base.eq_ignore_ascii_case(key) {
        return None;
    }
    let rest = k.get(key.len()..)?.trim_start();
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    inner.trim().parse().ok()
}

impl Ini {
    /// Read and parse a file (at most [`MAX_INI_SIZE`] bytes and
    /// [`MAX_INI_LINES`] lines); bad UTF-8/UTF-16 is replaced as in [`decode`].
    pub fn load(path: &Path) -> Result<Ini> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.len() > MAX_INI_SIZE {
            return Err(Error::Other(format!(
                "{}: {} bytes is too large for an ini file (limit {MAX_INI_SIZE})",
                path.display(),
                meta.len()
            )));
        }
        let mut data = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(crate::open_regular(path)?, MAX_INI_SIZE + 1),
            &mut data,
        )
        .map_err(|e| Error::io(path, e))?;
        if data.len() as u64 > MAX_INI_SIZE {
            return Err(Error::Other(format!(
                "{}: grew past {MAX_INI_SIZE} bytes while being read",
                path.display()
            )));
        }
        let (text, encoding) = decode(&data);
        Ini::checked(&data, &text, encoding).map_err(|e| e.in_file(path))
    }

    /// Parse bytes (never fails: unknown lines are kept as they are, bad
    /// UTF-8/UTF-16 is replaced). No size limit: for untrusted input of
    /// unknown size use [`Ini::try_parse`] or [`Ini::load`].
    pub fn parse(data: &[u8]) -> Ini {
        let (text, encoding) = decode(data);
        Ini::build(&text, encoding)
    }

    /// Parse bytes strictly: at most [`MAX_INI_SIZE`] bytes and
    /// [`MAX_INI_LINES`] lines, and text that decodes exactly, so that
    /// [`Ini::to_bytes`] gives `data` back unchanged.
    pub fn try_parse(data: &[u8]) -> Result<Ini> {
        if data.len() as u64 > MAX_INI_SIZE {
            return Err(Error::invalid(
                0,
                format!(
                    "an ini file of at most {MAX_INI_SIZE} bytes (found {})",
                    data.len()
                ),
            ));
        }
        let (text, encoding) = decode_exact(data)?;
        Ini::checked(data, &text, encoding)
    }

    fn checked(data: &[u8], text: &str, encoding: Encoding) -> Result<Ini> {
        let lines = split_lines(text).take(MAX_INI_LINES + 1).count();
        if lines > MAX_INI_LINES {
            return Err(Error::invalid(
                0,
                format!(
                    "an ini file of at most {MAX_INI_LINES} lines (found more in {} bytes)",
                    data.len()
                ),
            ));
        }
        Ok(Ini::build(text, encoding))
    }

    /// Parse text. Written back as ANSI if every character fits in Latin-1,
    /// else as UTF-16LE (what the engine's `appSaveStringToFile` does).
    pub fn parse_str(text: &str) -> Ini {
        let encoding = if text.chars().all(|c| u32::from(c) <= 0xFF) {
            Encoding::Ansi
        } else {
            Encoding::Utf16Le
        };
        Ini::build(text, encoding)
    }

    fn build(text: &str, encoding: Encoding) -> Ini {
        let crlf = text.contains("\r\n") || !text.contains('\n');
        let mut ini = Ini {
            crlf,
            encoding,
            ..Ini::default()
        };
        for (line, end) in split_lines(text) {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix('[') {
                if let Some(close) = rest.find(']') {
                    ini.sections.push(Section {
                        name: rest[..close].trim().to_string(),
                        raw_header: Some(line.to_string()),
                        header_end: end,
                        lines: Vec::new(),
                    });
                    continue;
                }
            }
            let l = match parse_entry(line) {
                Some((key, value)) => Line::Entry {
                    key,
                    value,
                    raw: Some(line.to_string()),
                    end,
                },
                None => Line::Other {
                    text: line.to_string(),
                    end,
                },
            };
            match ini.sections.last_mut() {
                Some(s) => s.lines.push(l),
                None => ini.preamble.push(l),
            }
        }
        ini
    }

    /// The first section called `name` (case-insensitive).
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// Every section called `name` (case-insensitive), in file order.
    pub fn sections_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Section> + 's {
        self.sections
            .iter()
            .filter(move |s| s.name.eq_ignore_ascii_case(name))
    }

    /// The first section called `name`, mutable.
    pub fn section_mut(&mut self, name: &str) -> Option<&mut Section> {
        self.sections
            .iter_mut()
            .find(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The section called `name`, appended (after a blank line) if missing.
    pub fn section_or_insert(&mut self, name: &str) -> &mut Section {
        let idx = match self
            .sections
            .iter()
            .position(|s| s.name.eq_ignore_ascii_case(name))
        {
            Some(i) => i,
            None => {
                let ends_blank = match self.sections.last() {
                    Some(s) => s.lines.last().is_some_and(Line::is_blank),
                    None => true,
                };
                if !ends_blank {
                    if let Some(s) = self.sections.last_mut() {
                        s.lines.push(Line::other(""));
                    }
                }
                let mut s = Section::new(name);
                s.lines.push(Line::other(""));
                self.sections.push(s);
                self.sections.len() - 1
            }
        };
        &mut self.sections[idx]
    }

    /// Remove every section called `name`. Returns true if one existed.
    pub fn remove_section(&mut self, name: &str) -> bool {
        let before = self.sections.len();
        self.sections.retain(|s| !s.name.eq_ignore_ascii_case(name));
        before != self.sections.len()
    }

    /// Every `(key, value)` of every section called `section`, in file order.
    pub fn entries<'s>(
        &'s self,
        section: &'s str,
    ) -> impl Iterator<Item = (&'s str, &'s str)> + 's {
        self.sections_named(section).flat_map(Section::entries)
    }

    /// First value of `section.key` (across repeated sections).
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections
            .iter()
            .filter(|s| s.name.eq_ignore_ascii_case(section))
            .flat_map(Section::entries)
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    /// An array setting: every `key=` line (UE2 style) and every `key[n]=`
    /// line (UE1 style, ordered by `n`; file order breaks ties), skipping
    /// empty values, across repeated sections. A UE1 file lists its array
    /// entries only in `[n]` form, a UE2 file only in repeated form; a file
    /// mixing both gets the indexed entries first.
    pub fn array(&self, section: &str, key: &str) -> Vec<&str> {
        let mut indexed: Vec<(u32, usize, &str)> = Vec::new();
        let mut plain: Vec<&str> = Vec::new();
        let all = self
            .sections
            .iter()
            .filter(|s| s.name.eq_ignore_ascii_case(section))
            .flat_map(Section::entries);
        for (pos, (k, v)) in all.enumerate() {
            if v.is_empty() {
                continue;
            }
            if k.eq_ignore_ascii_case(key) {
                plain.push(v);
            } else if let Some(n) = array_index(k, key) {
                indexed.push((n, pos, v));
            }
        }
        indexed.sort_by_key(|&(n, pos, _)| (n, pos));
        indexed
            .into_iter()
            .map(|(_, _, v)| v)
            .chain(plain)
            .collect()
    }

    /// Serialise in the original encoding and line ends (edited lines get
    /// the usual end; characters an ANSI file cannot hold become `?`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let usual = if self.crlf { "\r\n" } else { "\n" };
        let mut pieces: Vec<(std::borrow::Cow<'_, str>, LineEnd)> = Vec::new();
        pieces.extend(self.preamble.iter().map(|l| (l.text(), l.end())));
        for s in &self.sections {
            let header = match &s.raw_header {
                Some(h) => h.as_str().into(),
                None => format!("[{}]", s.name).into(),
            };
            pieces.push((header, s.header_end));
            pieces.extend(s.lines.iter().map(|l| (l.text(), l.end())));
        }
        let last = pieces.len().saturating_sub(1);
        let mut text = String::new();
        for (i, (t, end)) in pieces.iter().enumerate() {
            text.push_str(t);
            text.push_str(match end {
                LineEnd::Lf => "\n",
                LineEnd::CrLf => "\r\n",
                LineEnd::Cr => "\r",
                LineEnd::None if i == last => "",
                LineEnd::None | LineEnd::Default => usual,
            });
        }
        match self.encoding {
            Encoding::Ansi => text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect(),
            Encoding::Utf8Bom => {
                let mut v = vec![0xEF, 0xBB, 0xBF];
                v.extend_from_slice(text.as_bytes());
                v
            }
            Encoding::Utf16Le => {
                let mut v = vec![0xFF, 0xFE];
                for u in text.encode_utf16() {
                    v.extend_from_slice(&u.to_le_bytes());
                }
                v
            }
        }
    }
}

/// Parse an Unreal boolean (`True`/`False`, `1`/`0`, `Yes`/`No`, `On`/`Off`).
pub fn parse_bool(v: &str) -> Option<bool> {
    let v = v.trim();
    for (t, b) in [
        ("true", true),
        ("false", false),
        ("1", true),
        ("0", false),
        ("yes", true),
        ("no", false),
        ("on", true),
        ("off", false),
    ] {
        if v.eq_ignore_ascii_case(t) {
            return Some(b);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    // From pakrat-umod's reader.
    #[test]
    fn round_trip_and_edit() {
        let src =
            b"; top\r\n[Setup]\r\nGroup=A\r\ngroup=B\r\nEmpty=\r\n\r\n[A]\r\nFile=(Src=x)\r\n";
        let mut ini = Ini::parse(src);
        assert!(ini.crlf);
        assert_eq!(ini.to_bytes(), src.to_vec());
        let s = ini.section("setup").unwrap();
        assert_eq!(s.get_all("GROUP").collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(s.get("Empty"), Some(""));
        assert!(ini.section_or_insert("Setup").add_unique("Group", "C"));
        assert!(!ini.section_or_insert("Setup").add_unique("Group", "c"));
        ini.section_or_insert("New").add("K", "V");
        let text = String::from_utf8(ini.to_bytes()).unwrap();
        assert!(
            text.contains("group=B\r\nGroup=C\r\nEmpty=\r\n\r\n[A]"),
            "{text}"
        );
        assert!(
            text.ends_with("File=(Src=x)\r\n\r\n[New]\r\nK=V\r\n\r\n"),
            "{text}"
        );
        assert_eq!(
            ini.section_mut("setup").unwrap().remove_pair("group", "c"),
            1
        );
        assert!(ini.remove_section("new"));
    }

    // From pakrat-umod's reader.
    #[test]
    fn utf16_and_latin1() {
        let mut b = vec![0xFF, 0xFE];
        for u in "[S]\r\nK=\u{e9}\r\n".encode_utf16() {
            b.extend_from_slice(&u.to_le_bytes());
        }
        let ini = Ini::parse(&b);
        assert_eq!(ini.get("s", "k"), Some("\u{e9}"));
        assert_eq!(ini.to_bytes(), b);
        let l1 = b"[S]\nK=\xe9\n";
        let ini = Ini::parse(l1);
        assert!(!ini.crlf);
        assert_eq!(ini.get("S", "K"), Some("\u{e9}"));
        assert_eq!(ini.to_bytes(), l1.to_vec());
    }

    // From pakrat-system's reader.
    #[test]
    fn ue1_indexed_and_ue2_repeated_arrays() {
        let ue1 = Ini::parse(
            b"[URL]\r\nMap=Index.unr\r\n[core.system]\r\nCachePath=../Cache\r\nPaths[1]=../Maps/*.unr\r\n\
              Paths[0]=../System/*.u\r\nPaths[2]=\r\nPaths[10]=../Music/*.umx\r\n",
        );
        assert_eq!(
            ue1.array("Core.System", "Paths"),
            ["../System/*.u", "../Maps/*.unr", "../Music/*.umx"]
        );
        assert_eq!(ue1.get("CORE.SYSTEM", "cachepath"), Some("../Cache"));
        assert_eq!(ue1.get("Core.System", "CacheExt"), None);
        let ue2 = Ini::parse(b"[Core.System]\nPaths=../System/*.u\nPaths=../Maps/*.ut2\n[X]\nPaths=no\n[Core.System]\nPaths=\"../Textures/*.utx\"\n");
        assert_eq!(
            ue2.array("Core.System", "Paths"),
            ["../System/*.u", "../Maps/*.ut2", "../Textures/*.utx"]
        );
    }

    // From pakrat-system's reader.
    #[test]
    fn utf16_and_garbage() {
        let mut b = vec![0xFF, 0xFE];
        for u in "[Cache]\r\nABC=Foo.u\r\n".encode_utf16() {
            b.extend_from_slice(&u.to_le_bytes());
        }
        b.push(0x41); // odd trailing byte is ignored
        let ini = Ini::parse(&b);
        assert_eq!(ini.get("cache", "abc"), Some("Foo.u"));
        let junk = Ini::parse(b"=x\n[unterminated\nk=v\n\xff\xfe\x00[");
        assert!(junk.sections.is_empty());
        assert_eq!(array_index("Paths[ 2 ]", "paths"), Some(2));
        assert_eq!(array_index("PathsX[2]", "paths"), None);
        assert_eq!(parse_bool(" TRUE "), Some(true));
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn mixed_line_ends_and_no_final_newline() {
        let src = b"[A]\rK=1\nL=2\r\n; c\r\n[B]\nM=\"q\"";
        let mut ini = Ini::try_parse(src).unwrap();
        assert_eq!(ini.to_bytes(), src.to_vec());
        assert_eq!(ini.get("a", "k"), Some("1"));
        assert_eq!(ini.get("a", "l"), Some("2"));
        assert_eq!(ini.get("b", "m"), Some("q"));
        // An edit after the unterminated last line gives it the usual end (CRLF here).
        ini.section_or_insert("B").add("N", "3");
        assert!(ini.to_bytes().ends_with(b"M=\"q\"\r\nN=3\r\n"));
        // An entry before any header belongs to no section.
        let pre = Ini::parse(b"K=v\n[S]\nJ=w\n");
        assert_eq!(pre.get("S", "K"), None);
        assert_eq!(pre.preamble.len(), 1);
    }

    #[test]
    fn strict_parse_rejects_what_it_cannot_give_back() {
        let e = Ini::try_parse(b"\xff\xfe[\x00A").unwrap_err().to_string();
        assert!(e.contains("offset 0x4"), "{e}");
        let e = Ini::try_parse(b"\xef\xbb\xbf[S]\n\xff")
            .unwrap_err()
            .to_string();
        assert!(e.contains("offset 0x7"), "{e}");
        let e = Ini::try_parse(b"\xff\xfe\x00\xd8\x41\x00")
            .unwrap_err()
            .to_string();
        assert!(e.contains("offset 0x2") && e.contains("0xd800"), "{e}");
        let many = vec![b'\n'; MAX_INI_LINES + 1];
        assert!(Ini::try_parse(&many).is_err());
        assert!(Ini::try_parse(&many[1..]).is_ok());
        // The tolerant parse still reads what it can.
        assert!(Ini::parse(b"\xef\xbb\xbf[S]\nK=\xff\n")
            .get("S", "K")
            .is_some());
    }

    #[test]
    fn parse_str_picks_an_encoding_that_holds_the_text() {
        assert_eq!(Ini::parse_str("[S]\nK=\u{e9}\n").encoding, Encoding::Ansi);
        let ini = Ini::parse_str("[S]\nK=\u{4e2d}\n");
        assert_eq!(ini.encoding, Encoding::Utf16Le);
        assert_eq!(Ini::parse(&ini.to_bytes()).get("S", "K"), Some("\u{4e2d}"));
    }

    #[test]
    fn load_caps_the_size() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("Big.ini");
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(MAX_INI_SIZE + 1).unwrap();
        let e = Ini::load(&p).unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
        std::fs::write(&p, b"[Core.System]\r\nPaths[0]=../System/*.u\r\n").unwrap();
        assert_eq!(
            Ini::load(&p).unwrap().array("core.system", "paths"),
            ["../System/*.u"]
        );
    }

    fn text_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        // Bytes biased toward ini syntax, with or without a BOM.
        let byte = prop_oneof![
            Just(b'['),
            Just(b']'),
            Just(b'='),
            Just(b'\r'),
            Just(b'\n'),
            Just(b'"'),
            Just(b';'),
            Just(b' '),
            b'a'..=b'c',
            any::<u8>(),
        ];
        let bom = prop_oneof![
            Just(Vec::new()),
            Just(vec![0xEF, 0xBB, 0xBF]),
            Just(vec![0xFF, 0xFE]),
        ];
        (bom, proptest::collection::vec(byte, 0..512)).prop_map(|(mut b, rest)| {
            b.extend(rest);
            b
        })
    }

    proptest::proptest! {
        #[test]
        fn never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            let ini = Ini::parse(&data);
            let _ = ini.array("Core.System", "Paths");
            let _ = ini.get("Cache", "x");
            let _ = ini.to_bytes();
            let _ = Ini::try_parse(&data);
        }

        #[test]
        fn accepted_input_round_trips_byte_exact(data in text_bytes()) {
            let tolerant = Ini::parse(&data);
            let _ = tolerant.to_bytes();
            if let Ok(ini) = Ini::try_parse(&data) {
                proptest::prop_assert_eq!(ini.to_bytes(), data.clone());
                proptest::prop_assert_eq!(&ini, &tolerant);
            } else {
                // Only bad UTF-8/UTF-16 after a BOM is refused at this size.
                proptest::prop_assert!(data.starts_with(&[0xFF, 0xFE]) || data.starts_with(&[0xEF, 0xBB, 0xBF]));
            }
        }

        #[test]
        fn latin1_always_round_trips(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
            proptest::prop_assume!(!data.starts_with(&[0xFF, 0xFE]) && !data.starts_with(&[0xEF, 0xBB, 0xBF]));
            let ini = Ini::try_parse(&data).unwrap();
            proptest::prop_assert_eq!(ini.to_bytes(), data);
        }
    }
}
