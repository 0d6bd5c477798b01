//! Case-insensitive name lookup inside a folder.
//!
//! Unreal treats `System\Foo.u`, `system/foo.u` and `SYSTEM\FOO.U` as one
//! file (Windows file systems compare names case-insensitively; the engine
//! compares with `appStricmp`). On a case-sensitive disk a game folder mixes
//! spellings (`System`, `Maps`, `textures`), so finding or placing a file
//! means listing the folder and picking the entry whose name matches.

use std::path::Path;

/// The entry names of `dir`, sorted; names that are not valid UTF-8 are
/// skipped (no game file has one) and an unreadable folder gives none.
pub fn list_names(dir: &Path) -> Vec<String> {
    try_list_names(dir).unwrap_or_default()
}

/// Like [`list_names`], but an unreadable folder is an error.
pub fn try_list_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// The entry of `names` (sorted, as [`list_names`] gives them) that stands
/// for `name`: the exact spelling, else the first equal ignoring ASCII case,
/// else the first equal ignoring Unicode case (`é`/`É`).
pub fn pick<'a>(names: &'a [String], name: &str) -> Option<&'a str> {
    if let Ok(i) = names.binary_search_by(|n| n.as_str().cmp(name)) {
        return names.get(i).map(String::as_str);
    }
    if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(name)) {
        return Some(n);
    }
    if name.is_ascii() {
        // Lower-casing can only make a non-ASCII name ASCII for `K` (Kelvin
        // sign) and `İ`; the engine would not match those either.
        return None;
    }
    let want = name.to_lowercase();
    names
        .iter()
        .find(|n| !n.is_ascii() && n.to_lowercase() == want)
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_then_ascii_then_unicode() {
        let t = tempfile::tempdir().unwrap();
        for n in ["SYSTEM", "System", "maps", "Caf\u{e9}.u"] {
            std::fs::create_dir(t.path().join(n)).unwrap();
        }
        let names = list_names(t.path());
        assert_eq!(names, ["Caf\u{e9}.u", "SYSTEM", "System", "maps"]);
        assert_eq!(pick(&names, "System"), Some("System"));
        assert_eq!(pick(&names, "system"), Some("SYSTEM"));
        assert_eq!(pick(&names, "MAPS"), Some("maps"));
        assert_eq!(pick(&names, "CAF\u{c9}.U"), Some("Caf\u{e9}.u"));
        assert_eq!(pick(&names, "Textures"), None);
        assert!(list_names(&t.path().join("missing")).is_empty());
        assert!(try_list_names(&t.path().join("missing")).is_err());
    }
}
