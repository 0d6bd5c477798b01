//! Unreal `.ini`/`.int` files, read tolerantly and rewritten faithfully.
//!
//! The engine's config files are `[Section]` headers followed by `Key=Value`
//! lines; keys may repeat (`Group=`, `File=`), values may be empty, section
//! and key names compare case-insensitively. This reader keeps every line it
//! does not change (comments, blank lines, odd lines) so that editing an
//! installed game's `System\Manifest.ini` touches only what it must.
//! Encodings: UTF-16LE with a BOM (UE2 `.int` files), UTF-8 with a BOM, and
//! otherwise 8-bit Windows ANSI, decoded as Latin-1 (byte-exact round trip).

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

/// One line inside a section (or before the first section).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// `Key=Value`.
    Entry {
        /// The key, trimmed.
        key: String,
        /// The value, trimmed, surrounding double quotes removed.
        value: String,
        /// The original line, written back unchanged.
        raw: Option<String>,
    },
    /// Anything else (comment, blank line, line without `=`), kept verbatim.
    Other(String),
}

/// A `[Section]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets.
    pub name: String,
    raw_header: Option<String>,
    /// The lines that follow the header.
    pub lines: Vec<Line>,
}

impl Section {
    /// An empty section.
    pub fn new(name: impl Into<String>) -> Self {
        Section {
            name: name.into(),
            raw_header: None,
            lines: Vec::new(),
        }
    }

    /// Every `(key, value)` in order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.lines.iter().filter_map(|l| match l {
            Line::Entry { key, value, .. } => Some((key.as_str(), value.as_str())),
            Line::Other(_) => None,
        })
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
        let same = self
            .lines
            .iter()
            .rposition(|l| matches!(l, Line::Entry { key: k, .. } if k.eq_ignore_ascii_case(key)));
        let at = same
            .or_else(|| {
                self.lines
                    .iter()
                    .rposition(|l| !matches!(l, Line::Other(s) if s.trim().is_empty()))
            })
            .map_or(0, |i| i + 1);
        self.lines.insert(
            at,
            Line::Entry {
                key: key.to_string(),
                value: value.to_string(),
                raw: None,
            },
        );
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
        self.lines
            .retain(|l| !matches!(l, Line::Entry { key: k, .. } if k.eq_ignore_ascii_case(key)));
        before - self.lines.len()
    }
}

/// A whole ini file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ini {
    /// Lines before the first section header.
    pub preamble: Vec<Line>,
    /// Sections in file order (a name may repeat; lookups use the first).
    pub sections: Vec<Section>,
    /// Write CRLF line ends (the engine's and every real manifest's choice).
    pub crlf: bool,
    /// Text encoding.
    pub encoding: Encoding,
}

fn decode(bytes: &[u8]) -> (String, Encoding) {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        (String::from_utf16_lossy(&units), Encoding::Utf16Le)
    } else if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        (
            String::from_utf8_lossy(rest).into_owned(),
            Encoding::Utf8Bom,
        )
    } else {
        (
            bytes.iter().map(|&b| char::from(b)).collect(),
            Encoding::Ansi,
        )
    }
}

fn parse_entry(line: &str) -> Option<(String, String)> {
    let (k, v) = line.split_once('=')?;
    let key = k.trim();
    if key.is_empty() || key.starts_with(';') || key.starts_with('#') {
        return None;
    }
    let mut value = v.trim();
    if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        value = &value[1..value.len() - 1];
    }
    Some((key.to_string(), value.to_string()))
}

impl Ini {
    /// Parse bytes (never fails: unknown lines are kept as they are).
    pub fn parse(bytes: &[u8]) -> Ini {
        let (text, encoding) = decode(bytes);
        let crlf = text.contains("\r\n") || !text.contains('\n');
        let mut ini = Ini {
            crlf,
            encoding,
            ..Ini::default()
        };
        let mut lines: Vec<&str> = text.split('\n').collect();
        if lines.last() == Some(&"") {
            lines.pop();
        }
        for raw in lines {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let t = line.trim();
            if t.starts_with('[') {
                if let Some(close) = t.find(']') {
                    ini.sections.push(Section {
                        name: t[1..close].trim().to_string(),
                        raw_header: Some(line.to_string()),
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
                },
                None => Line::Other(line.to_string()),
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
                    Some(s) => {
                        matches!(s.lines.last(), Some(Line::Other(l)) if l.trim().is_empty())
                    }
                    None => true,
                };
                if !ends_blank {
                    if let Some(s) = self.sections.last_mut() {
                        s.lines.push(Line::Other(String::new()));
                    }
                }
                let mut s = Section::new(name);
                s.lines.push(Line::Other(String::new()));
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

    /// First value of `section.key`.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.section(section)?.get(key)
    }

    /// Serialise in the original encoding and line ends.
    pub fn to_bytes(&self) -> Vec<u8> {
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let mut text = String::new();
        let line_text = |l: &Line| match l {
            Line::Entry { raw: Some(raw), .. } => raw.clone(),
            Line::Entry { key, value, .. } => format!("{key}={value}"),
            Line::Other(s) => s.clone(),
        };
        for l in &self.preamble {
            text.push_str(&line_text(l));
            text.push_str(nl);
        }
        for s in &self.sections {
            match &s.raw_header {
                Some(h) => text.push_str(h),
                None => {
                    text.push('[');
                    text.push_str(&s.name);
                    text.push(']');
                }
            }
            text.push_str(nl);
            for l in &s.lines {
                text.push_str(&line_text(l));
                text.push_str(nl);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
