//! `Ini=`/`AddIni=` edits of the game's ini files: planned from the
//! manifest, applied to an ini file's bytes.

use pakrat_io::ini::{Encoding, Ini};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};

use super::IniEdit;
use crate::manifest::Manifest;
use crate::paths::CaseMap;

/// Keys that hold lists in UT's ini files; `Ini=` adds to them.
pub(super) const LIST_KEYS: [&str; 4] = ["ServerPackages", "ServerActors", "EditPackages", "Paths"];

/// Parse `File,Section.Key=Value` (the section is before the last `.`).
pub(super) fn parse_ini_edit(v: &str) -> Option<(String, String, String, String)> {
    let (file, rest) = v.split_once(',')?;
    let (lhs, value) = rest.split_once('=')?;
    let (section, key) = lhs.rsplit_once('.')?;
    Some((
        file.trim().to_string(),
        section.trim().to_string(),
        key.trim().to_string(),
        value.to_string(),
    ))
}

/// Last path component of a game-relative name (either separator).
pub(super) fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// Why an ini edit may not touch `file`, if it may not.
pub(super) fn ini_target_refusal(file: &str) -> Option<String> {
    let base = base_name(file).to_ascii_lowercase();
    if base == "manifest.ini" || base == "manifest.int" {
        return Some(format!(
            "{} is an installer record (Manifest.ini/.int): a UMOD may not edit it",
            show(file)
        ));
    }
    if !(base.ends_with(".ini") || base.ends_with(".int")) {
        return Some(format!(
            "{} is not an .ini or .int file: only those may be edited",
            show(file)
        ));
    }
    None
}

/// Plan the manifest's ini edits. A hostile target (an installer record,
/// a file that is not `.ini`/`.int`, an unsafe path) refuses the install.
pub(super) fn plan_ini_edits(m: &Manifest, map: &mut CaseMap) -> Result<Vec<IniEdit>> {
    let mut out = Vec::new();
    for g in &m.groups {
        for (k, v) in &g.other {
            let lk = k.to_ascii_lowercase();
            if !matches!(lk.as_str(), "ini" | "addini" | "saveini") {
                continue;
            }
            let mut e = IniEdit {
                key: k.clone(),
                raw: v.clone(),
                file: String::new(),
                section: String::new(),
                name: String::new(),
                value: String::new(),
                applied: false,
                note: String::new(),
            };
            let mut body = v.as_str();
            if lk == "ini" {
                if let Some(rest) = body.strip_prefix('!') {
                    // "!" inverts the group's selection: every group is
                    // installed, so the edit does not apply.
                    e.note = format!(
                        "skipped: {} applies only when [{}] is not selected",
                        show(rest),
                        show(&g.name)
                    );
                    out.push(e);
                    continue;
                }
            }
            if lk == "saveini" {
                e.note = "SaveIni= is not supported".into();
                out.push(e);
                continue;
            }
            let Some((file, section, name, value)) = parse_ini_edit(body) else {
                e.note = "not in the form File,Section.Key=Value".into();
                out.push(e);
                continue;
            };
            body = &file;
            // AddIni=UnrealTournament.ini means System\UnrealTournament.ini
            // (UT432 ProcessPostCopy: "OLDVER, needed for UT BonusPack").
            let file = if lk == "addini" && body.eq_ignore_ascii_case("UnrealTournament.ini") {
                format!("System\\{body}")
            } else {
                body.to_string()
            };
            if let Some(why) = ini_target_refusal(&file) {
                return Err(Error::Other(format!(
                    "refusing {}={}: {why}; nothing was changed",
                    show(k),
                    show(v)
                )));
            }
            if section.is_empty() || name.is_empty() || name.contains(['[', ']']) {
                e.file = file;
                e.note = "empty or bracketed section or key: not applied".into();
                out.push(e);
                continue;
            }
            e.section = section;
            e.name = name;
            e.value = value;
            if v.contains('%') {
                e.file = file;
                e.note = "contains a %variable% substitution: not applied".into();
                out.push(e);
                continue;
            }
            match map.map(&file) {
                Ok(rel) => {
                    e.file = rel;
                    e.applied = true;
                }
                Err(err) => {
                    return Err(Error::Other(format!(
                        "refusing {}={}: {err}; nothing was changed",
                        show(k),
                        show(v)
                    )));
                }
            }
            out.push(e);
        }
    }
    Ok(out)
}

/// Apply the edits aimed at one ini file to its bytes; returns the new
/// bytes. Edits are updated with what they did.
pub(super) fn edit_ini_bytes(bytes: &[u8], file: &str, edits: &mut [IniEdit]) -> Result<Vec<u8>> {
    let mut ini = Ini::try_parse(bytes).map_err(|e| e.in_file(file))?;
    for e in edits.iter_mut().filter(|e| e.applied && e.file == file) {
        let sec = ini.section_or_insert(&e.section);
        // The engine's SetString replaces every value of the key, which
        // erased lists such as ServerPackages (fixed in UT v469): for a
        // list key (known list, or already repeated) add the pair instead.
        let list = LIST_KEYS.iter().any(|k| k.eq_ignore_ascii_case(&e.name))
            || sec.get_all(&e.name).count() > 1;
        if e.key.eq_ignore_ascii_case("ini") && !list {
            sec.set(&e.name, &e.value);
            e.note = format!("set [{}] {}={}", e.section, e.name, e.value);
        } else if sec.has_pair(&e.name, &e.value) {
            e.note = format!("already there: [{}] {}={}", e.section, e.name, e.value);
        } else {
            sec.add(&e.name, &e.value);
            e.note = format!("added [{}] {}={}", e.section, e.name, e.value);
        }
    }
    keep_names(&mut ini);
    Ok(ini.to_bytes())
}

/// Whether every character of the file fits its encoding; an ANSI file
/// that cannot hold a name becomes UTF-16LE with a BOM (as the engine's
/// `appSaveStringToFile` writes one), so that no name turns into `?`.
/// Returns true when the encoding was changed.
pub(super) fn keep_names(ini: &mut Ini) -> bool {
    if ini.encoding != Encoding::Ansi {
        return false;
    }
    let wide = |t: &str| t.chars().any(|c| u32::from(c) > 0xFF);
    let any = ini.preamble.iter().any(|l| wide(&l.text()))
        || ini
            .sections
            .iter()
            .any(|s| wide(&s.name) || s.lines.iter().any(|l| wide(&l.text())));
    if any {
        ini.encoding = Encoding::Utf16Le;
    }
    any
}

#[cfg(test)]
mod tests {
    #[test]
    fn ini_targets() {
        assert!(super::ini_target_refusal("System\\UnrealTournament.ini").is_none());
        assert!(super::ini_target_refusal("System\\Mod.INT").is_none());
        assert!(super::ini_target_refusal("System\\Manifest.ini").is_some());
        assert!(super::ini_target_refusal("System/manifest.INT").is_some());
        assert!(super::ini_target_refusal("System\\Engine.u").is_some());
        assert!(super::ini_target_refusal("Maps\\DM-Deck16.unr").is_some());
    }
}
