//! Printing names and values that come from a file.
//!
//! A member name, a manifest value or an error built from them may hold
//! control characters (an escape sequence can recolour, move or erase what a
//! terminal shows, so that one `Ini=` line hides another in a dry run) or
//! Unicode bidirectional overrides (which reorder what is shown). [`show`]
//! writes those as visible escapes and leaves every other character as it is,
//! so ordinary names print as text, without quotes.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal raw: C0/C1 controls, DEL, and the
/// bidirectional embedding/override/isolate marks (U+202A–U+202E,
/// U+2066–U+2069), plus the zero-width marks that make two names look alike
/// (U+200B–U+200F, U+FEFF).
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `s` with every [unsafe character](is_unsafe_char) written as an escape
/// (`\n`, `\r`, `\t`, `\x1b`, `\u{202e}`); borrowed when there is none.
pub fn show(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe_char(c) && (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A name from a file, for a message: as it is when it is a plain name
/// (letters, digits, `_ . - : /`), else in double quotes with any unsafe
/// character escaped as [`show`] does; never Rust's `{:?}` escaping (which
/// doubles up as `\"` once a message is quoted inside another).
pub fn name(s: &str) -> Cow<'_, str> {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '/'));
    if plain {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("\"{}\"", show(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_bare_unless_they_need_quotes() {
        assert_eq!(name("DrawScale"), "DrawScale");
        assert_eq!(name("Engine.Actor:Tag"), "Engine.Actor:Tag");
        assert_eq!(name("=="), "\"==\"");
        assert_eq!(name("a b"), "\"a b\"");
        assert_eq!(name(""), "\"\"");
        assert_eq!(name("say \"hi\""), "\"say \"hi\"\"");
        assert_eq!(name("bad\x1b"), "\"bad\\x1b\"");
    }

    #[test]
    fn plain_text_is_borrowed_and_unchanged() {
        assert!(matches!(show("System\\Engine.u"), Cow::Borrowed(_)));
        assert_eq!(show("Snow\u{e9} \u{96ea}.u"), "Snow\u{e9} \u{96ea}.u");
        assert_eq!(show("say \"hi\""), "say \"hi\"");
    }

    #[test]
    fn controls_and_bidi_are_escaped() {
        assert_eq!(show("a\x1b[2Kb"), "a\\x1b[2Kb");
        assert_eq!(show("a\r\nb\tc"), "a\\r\\nb\\tc");
        assert_eq!(show("x\u{7f}\u{85}"), "x\\x7f\\x85");
        assert_eq!(show("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
        assert!(!show("\u{1b}\u{0}\u{202e}\u{feff}")
            .chars()
            .any(is_unsafe_char));
    }
}
