//! The uninstall log an install writes to the game's `System\Manifest.ini`
//! (UT432 `DoInstallSteps`/`EndSteps`), with pakrat's ownership and undo
//! records beside the engine's.

use std::collections::HashSet;

use pakrat_io::ini::{Ini, Line, LineEnd, Section};

use super::plan::{Known, Undo};
use super::record::{add_all, bump_ref_counts, owned_value};
use super::{
    FileAction, InstallFile, ADDED_INI, MADE_BACKUP, MADE_DIR, MARK_BLANK, MARK_DIRS,
    MARK_REFCOUNTS, OWNED_FILE, OWNER_MARK,
};
use crate::archive::fold;
use crate::manifest::Manifest;

/// What the install adds around the product's section, found before the
/// section is written: uninstall takes it away again.
struct Additions {
    /// The product's section is new.
    new_section: bool,
    /// A blank line goes before it (the last section did not end with one).
    adds_blank: bool,
    /// And the file's last line had no line end (recorded as "2").
    no_eol: bool,
    /// `[RefCounts]` is created.
    adds_refcounts: bool,
}

impl Additions {
    fn find(ini: &Ini, product: &str) -> Additions {
        let new_section = ini.section(product).is_none();
        let adds_blank = new_section
            && ini
                .sections
                .last()
                .is_some_and(|s| !s.lines.last().is_some_and(Line::is_blank));
        let no_eol = ini
            .sections
            .last()
            .and_then(|s| s.lines.last())
            .is_some_and(|l| {
                matches!(
                    l,
                    Line::Entry {
                        end: LineEnd::None,
                        ..
                    } | Line::Other {
                        end: LineEnd::None,
                        ..
                    }
                )
            });
        Additions {
            new_section,
            adds_blank,
            no_eol,
            adds_refcounts: ini.section("RefCounts").is_none(),
        }
    }
}

/// The game's record with this install logged: `[Setup] Group=`, the
/// product's section (`Caption=`, `Version=`, `Requires=`, `File=`, the
/// ownership and undo records) and `[RefCounts]`.
pub(super) fn uninstall_log(
    game_ini: Option<Ini>,
    m: &Manifest,
    product: &str,
    version: &str,
    files: &[InstallFile],
    known: &Known,
    undo: &Undo,
) -> Ini {
    let mut ini = game_ini.unwrap_or_else(|| Ini {
        crlf: true,
        ..Ini::default()
    });
    ini.section_or_insert("Setup").add_unique("Group", product);
    let caption = m.display_name().unwrap_or(product).to_string();
    let additions = Additions::find(&ini, product);
    let sec = ini.section_or_insert(product);
    sec.set("Caption", &caption);
    sec.set("Version", version);
    for r in &m.requirements {
        if let Some(p) = &r.product {
            if !p.eq_ignore_ascii_case(product) {
                sec.add_unique("Requires", p);
            }
        }
    }
    let newly = log_files(sec, files, known);
    log_ownership(sec, files);
    log_undo(sec, &additions, files, undo);
    bump_ref_counts(ini.section_or_insert("RefCounts"), &newly);
    ini
}

/// Add a `File=` line for each file not listed yet; returns those files.
fn log_files(sec: &mut Section, files: &[InstallFile], known: &Known) -> Vec<String> {
    let old: HashSet<String> = known.old_files.iter().map(|d| fold(d)).collect();
    // The File= pairs already there, indexed once (as has_pair
    // compares: ASCII case ignored), so that the log is built in
    // linear time whatever the number of files (issue 32 item 8).
    let mut have: HashSet<String> = sec
        .get_all("File")
        .map(|v| v.to_ascii_lowercase())
        .collect();
    let mut newly = Vec::new();
    for f in files {
        // A file that was already there and that no product lists is
        // not this product's: no File= line (the engine's own uninstall
        // would delete it) and no ownership record.
        let key = fold(&f.dest);
        if f.action == FileAction::Unchanged
            && !f.owned
            && !known.others_list.contains(&key)
            && !old.contains(&key)
        {
            continue;
        }
        if have.insert(f.dest.to_ascii_lowercase()) {
            newly.push(f.dest.clone());
        }
    }
    add_all(
        sec,
        Some("File"),
        newly.iter().map(|d| Line::entry("File", d.as_str())),
    );
    newly
}

/// `PakratInstall=` and one `PakratFile=` per owned file, replacing the
/// earlier install's.
fn log_ownership(sec: &mut Section, files: &[InstallFile]) {
    sec.set(OWNER_MARK, env!("CARGO_PKG_VERSION"));
    sec.remove_key(OWNED_FILE);
    add_all(
        sec,
        Some(OWNED_FILE),
        files
            .iter()
            .filter(|f| f.owned)
            .map(|f| Line::entry(OWNED_FILE, owned_value(&f.dest, f.size, f.crc))),
    );
}

/// The undo records after the ownership records. A reinstall keeps what
/// the first install recorded (its folders, backups and ini pairs), in
/// one order whatever the number of runs.
fn log_undo(sec: &mut Section, additions: &Additions, files: &[InstallFile], undo: &Undo) {
    let old_vals =
        |sec: &Section, k: &str| -> Vec<String> { sec.get_all(k).map(str::to_string).collect() };
    let blank = sec.get(MARK_BLANK).map(str::to_string).or_else(|| {
        additions
            .adds_blank
            .then(|| if additions.no_eol { "2" } else { "1" }.to_string())
    });
    let rc_made =
        sec.get(MARK_REFCOUNTS).is_some() || (additions.adds_refcounts && additions.new_section);
    let mut dirs = old_vals(sec, MADE_DIR);
    dirs.extend(undo.made_dirs.iter().cloned());
    let mut backups = old_vals(sec, MADE_BACKUP);
    backups.extend(files.iter().filter_map(|f| match &f.action {
        FileAction::Replace { backup } if !backup.contains('|') && !f.dest.contains('|') => {
            Some(format!("{backup}|{}", f.dest))
        }
        _ => None,
    }));
    let mut inis = old_vals(sec, ADDED_INI);
    inis.extend(undo.ini_added.iter().cloned());
    for k in [
        MARK_BLANK,
        MARK_REFCOUNTS,
        MARK_DIRS,
        MADE_DIR,
        MADE_BACKUP,
        ADDED_INI,
    ] {
        sec.remove_key(k);
    }
    let mut lines = Vec::new();
    if let Some(b) = blank {
        lines.push(Line::entry(MARK_BLANK, b));
    }
    if rc_made {
        lines.push(Line::entry(MARK_REFCOUNTS, "1"));
    }
    lines.push(Line::entry(MARK_DIRS, "1"));
    for (k, vals) in [(MADE_DIR, dirs), (MADE_BACKUP, backups), (ADDED_INI, inis)] {
        let mut seen = HashSet::new();
        for v in vals {
            if seen.insert(v.to_ascii_lowercase()) {
                lines.push(Line::entry(k, v));
            }
        }
    }
    add_all(sec, Some(OWNED_FILE), lines);
}
