//! Installing a UMOD into a game folder, and uninstalling it.
//!
//! Mirrors the engine's Setup (UT432 `Setup/Src/USetupDefinition.cpp`,
//! `classic.md` §2.9–2.10):
//!
//! * requirements: `[<Product>] Version=` in the game's `System\Manifest.ini`
//!   (or the `OldVersionInstallCheck` file) must be at least the required
//!   version (`CheckRequirement`; "Unreal Tournament" means `UnrealTournament`);
//! * files: every `File=` of every group reachable from `[Setup] Group=` whose
//!   `Lang` is empty or the install language, copied to `Dest` (default `Src`)
//!   under the game root (`ProcessCopy`); `Copy=` records are setup files and
//!   are not installed; a `.uz` source installed under a non-`.uz` name is
//!   decoded on the way;
//! * the uninstall log (`DoInstallSteps`/`EndSteps`): `[Setup] Group=<Product>`,
//!   a `[<Product>]` section with `Caption=`, `Version=`, `Requires=` and one
//!   `File=<Dest>` per file, and `[RefCounts] File:<Dest>=n` incremented once
//!   per product that installed the file;
//! * uninstall (`ProcessUninstallRemove`): each `File=` of the product has its
//!   reference count decremented; a file no product uses any more is deleted.
//!
//! A UMOD comes from a stranger, so pakrat is stricter than the engine's Setup
//! (issue 16; the guarantees are listed in `docs/hostile.md`):
//!
//! * **Ownership.** Beside the engine's records, the product section gets
//!   `PakratInstall=<version>` and one `PakratFile=<crc>,<size>,<dest>` per
//!   file whose bytes pakrat put there (CRC-32/BZIP2, as `appMemCrc`). The
//!   engine's Setup ignores unknown keys. Uninstall deletes a file only when
//!   the product holds such a record and the file still has that size and
//!   CRC: a file that was already there (byte-identical or not), a file changed
//!   since, and a `File=` line pakrat did not write are left in place and
//!   reported (`remove_unrecorded` restores the engine's behaviour for
//!   products the engine installed).
//! * **No take-over.** A product whose name is already recorded (the base
//!   game's `[UnrealTournament]`, another mod, `Setup`, `RefCounts`) is
//!   refused, unless pakrat installed it and this is a reinstall that keeps
//!   every file the old record lists.
//! * **Ini edits** may only name existing `.ini`/`.int` files, never a
//!   `Manifest.ini`/`Manifest.int` (the installer's records); anything else
//!   refuses the whole install.
//! * **All or nothing.** Every conflict (files in the way, a file where a
//!   folder is needed or the other way round, symbolic links on the way to any
//!   destination, the game's `Manifest.ini` or an edited ini) is found before
//!   anything is written. Files, edited ini files and the new `Manifest.ini`
//!   are then staged as temporary files beside their targets and renamed into
//!   place under a journal ([`crate::journal`]): a failure or a caught signal
//!   rolls the commit back (replaced files come back from a hard link taken
//!   before), the error says whether the folder is as it was, and an install
//!   killed outright is recovered by the next run.
//! * **Bounded memory.** `.uz` members are decoded one at a time (to size and
//!   compare them while planning, then again into their staged file), so the
//!   peak is one member's decode whatever their number.
//! * **Encoding.** Names outside Latin-1 are kept: the record is written as
//!   UTF-16LE with a byte-order mark when an ANSI `Manifest.ini` cannot hold
//!   them (as the engine's `appSaveStringToFile` does).
//!
//! Unlike the engine's Setup, pakrat never replaces an existing file with
//! different content unless asked (`force`), and then keeps a backup.
//!
//! Ini edits (UT432 `ProcessExtra`/`ProcessPostCopy`): `Ini=File,Section.Key=Value`
//! sets the key (but adds to list keys such as `ServerPackages`, which the
//! engine's Setup erased before UT v469); `AddIni=File,Section.Key=Value` adds
//! the pair unless present (multi-valued keys such as `ServerPackages`).
//! `File` is game-root relative, except that a bare `UnrealTournament.ini` in
//! `AddIni=` means the one in `System` (Setup runs there). The section is what
//! precedes the last `.`. Every other line of the ini is kept; an ini file that
//! does not exist is not created (the game makes its ini from `Default.ini`
//! when it is missing) and values with `%` substitutions are not applied: both
//! are reported. Unlike the engine's Setup, uninstall removes the pairs the
//! install added to the game's ini files (`PakratIni=` records), puts back
//! files replaced with `force` and removes only the folders the install
//! created; a value `Ini=` replaced is not restored.
//! `SaveIni=` is reported.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::crc::MEM_CRC;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::ini::{Encoding, Ini, Line, LineEnd, Section, MAX_INI_SIZE};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Entry, Umod};
use crate::create::find_source;
use crate::extract::{check_before_writing, copy_entry_to_file};
use crate::journal::{self, Journal, Kind, Recovery, Step, JOURNAL};
use crate::manifest::{Manifest, RecordKind, MANIFEST_INI};
use crate::paths::{check_way, CaseMap};

/// Key that marks a product section as written by pakrat's install.
pub const OWNER_MARK: &str = "PakratInstall";
/// Key of one ownership record: `PakratFile=<crc hex>,<size>,<dest>`.
pub const OWNED_FILE: &str = "PakratFile";
/// `PakratDirs=1`: the product lists the folders its install created
/// (`PakratDir=<path>`); uninstall removes only those (when empty).
const MARK_DIRS: &str = "PakratDirs";
const MADE_DIR: &str = "PakratDir";
/// `PakratBackup=<backup>|<dest>`: a file replaced with `--force`, kept
/// as `<backup>`; uninstall puts it back.
const MADE_BACKUP: &str = "PakratBackup";
/// `PakratIni=<file>|<section>|<key>|<value>`: a pair the install added
/// to a game ini; uninstall removes it.
const ADDED_INI: &str = "PakratIni";
/// The install added a blank line to the section before the product's.
const MARK_BLANK: &str = "PakratBlank";
/// The install created `[RefCounts]`.
const MARK_REFCOUNTS: &str = "PakratRefCounts";

/// Options for [`install`].
#[derive(Clone, Debug)]
pub struct InstallOptions {
    /// Plan and report only.
    pub dry_run: bool,
    /// Replace existing files whose content differs (a backup is kept).
    pub force: bool,
    /// Install even when a requirement is not met.
    pub ignore_requirements: bool,
    /// Install language (`Lang=` filter); the engine's default is `int`.
    pub language: String,
    /// Catch SIGINT and SIGTERM during the commit: the commit stops at the
    /// next step and rolls back (the CLI sets this).
    pub handle_signals: bool,
    /// Test hook: fail the commit after this many renames (rollback tests).
    #[doc(hidden)]
    pub fail_after_renames: Option<usize>,
    /// Test hook: `kill -9` this process after this many changes to the disk.
    #[doc(hidden)]
    pub kill_at_tick: Option<usize>,
    /// Test hook: raise SIGINT in this process after this many changes.
    #[doc(hidden)]
    pub signal_at_tick: Option<usize>,
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            dry_run: false,
            force: false,
            ignore_requirements: false,
            language: "int".into(),
            handle_signals: false,
            fail_after_renames: None,
            kill_at_tick: None,
            signal_at_tick: None,
        }
    }
}

/// One requirement and whether the game meets it.
#[derive(Clone, Debug, Serialize)]
pub struct RequirementCheck {
    /// Requirement section.
    pub section: String,
    /// Required product.
    pub product: String,
    /// Minimum version (empty: any).
    pub required: String,
    /// Version found in the game folder.
    pub found: Option<String>,
    /// Met?
    pub ok: bool,
    /// Explanation.
    pub message: String,
}

/// What happens to one destination file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileAction {
    /// New file.
    Create,
    /// The same bytes are already there: left alone.
    Unchanged,
    /// A different file is there: replaced after a backup (with `force`).
    Replace {
        /// Backup path, relative to the game folder.
        backup: String,
    },
    /// A different file is there and `force` was not given.
    Conflict,
}

/// One file of an install.
#[derive(Clone, Debug, Serialize)]
pub struct InstallFile {
    /// Archive member.
    pub member: String,
    /// Destination as recorded in the game's Manifest.ini (`Dest`, `\`).
    pub dest: String,
    /// Path actually used under the game folder (existing folder spellings).
    pub path: String,
    /// Bytes installed.
    pub size: u64,
    /// CRC-32/BZIP2 of the installed bytes.
    pub crc: u32,
    /// Decoded from `.uz` on the way.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub decoded_uz: bool,
    /// Edited by an `Ini=`/`AddIni=` line of the same manifest.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ini_edited: bool,
    /// Recorded as this product's (uninstall may delete it): pakrat puts
    /// the bytes there, or they are bytes an earlier pakrat install put
    /// there. False for a file that was already there.
    pub owned: bool,
    /// What happens.
    pub action: FileAction,
}

/// What [`install`] did (or would do).
#[derive(Clone, Debug, Serialize)]
pub struct InstallReport {
    /// Product (section name in the game's Manifest.ini).
    pub product: String,
    /// Version installed.
    pub version: String,
    /// A pakrat install of the same product is replaced.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reinstall: bool,
    /// Requirement checks.
    pub requirements: Vec<RequirementCheck>,
    /// Files.
    pub files: Vec<InstallFile>,
    /// Ini edits, applied or not.
    pub ini_edits: Vec<IniEdit>,
    /// Notes: skipped languages, ignored requirements.
    pub notes: Vec<String>,
    /// The game's Manifest.ini is written as UTF-16 (names outside Latin-1).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub manifest_utf16: bool,
    /// Nothing was changed.
    pub dry_run: bool,
    /// An interrupted install found in the folder first, and what was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<Recovery>,
}

/// One `Ini=`/`AddIni=` edit.
#[derive(Clone, Debug, Serialize)]
pub struct IniEdit {
    /// `Ini` or `AddIni` (or `SaveIni`, never applied).
    pub key: String,
    /// The record as written.
    pub raw: String,
    /// Ini file, relative to the game folder (as found on disk).
    pub file: String,
    /// Section.
    pub section: String,
    /// Key.
    pub name: String,
    /// Value.
    pub value: String,
    /// Applied (or, in a dry run, would be).
    pub applied: bool,
    /// Why not, or what changed.
    pub note: String,
}

/// Keys that hold lists in UT's ini files; `Ini=` adds to them.
const LIST_KEYS: [&str; 4] = ["ServerPackages", "ServerActors", "EditPackages", "Paths"];

/// Parse `File,Section.Key=Value` (the section is before the last `.`).
fn parse_ini_edit(v: &str) -> Option<(String, String, String, String)> {
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
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// Why an ini edit may not touch `file`, if it may not.
fn ini_target_refusal(file: &str) -> Option<String> {
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
fn plan_ini_edits(m: &Manifest, map: &mut CaseMap) -> Result<Vec<IniEdit>> {
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
fn edit_ini_bytes(bytes: &[u8], file: &str, edits: &mut [IniEdit]) -> Result<Vec<u8>> {
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
fn keep_names(ini: &mut Ini) -> bool {
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

/// Read an existing regular file of at most `limit` bytes, refusing
/// anything else (folder, device, pipe, over-large file).
fn read_regular(path: &Path, shown: &str, limit: u64) -> Result<Vec<u8>> {
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
fn game_manifest(map: &mut CaseMap, out: &OutputDir) -> Result<(String, PathBuf, Option<Ini>)> {
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
struct Owned {
    crc: u32,
    size: u64,
}

fn owned_value(dest: &str, size: u64, crc: u32) -> String {
    format!("{crc:08x},{size},{dest}")
}

fn parse_owned(v: &str) -> Option<(String, Owned)> {
    let mut it = v.splitn(3, ',');
    let crc = u32::from_str_radix(it.next()?.trim(), 16).ok()?;
    let size = it.next()?.trim().parse().ok()?;
    let dest = it.next()?.trim();
    (!dest.is_empty()).then(|| (fold(dest), Owned { crc, size }))
}

/// The ownership records of one product section (folded dest → record).
fn owned_records(sec: &pakrat_io::ini::Section) -> HashMap<String, Owned> {
    sec.get_all(OWNED_FILE).filter_map(parse_owned).collect()
}

/// Size and CRC-32/BZIP2 of a file, read in 1 MiB pieces.
fn file_crc(path: &Path) -> Result<(u64, u32)> {
    let mut f = pakrat_io::open_regular(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut d = MEM_CRC.digest();
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if k == 0 {
            return Ok((n, d.finalize()));
        }
        d.update(&buf[..k]);
        n += k as u64;
    }
}

fn backup_name(out: &OutputDir, rel: &str, taken: &HashSet<String>) -> Result<String> {
    for i in 0..1000 {
        let cand = if i == 0 {
            format!("{rel}.pakrat-bak")
        } else {
            format!("{rel}.pakrat-bak{i}")
        };
        if !taken.contains(&fold(&cand)) && std::fs::symlink_metadata(out.resolve(&cand)?).is_err()
        {
            return Ok(cand);
        }
    }
    Err(Error::Other(format!(
        "no free backup name for {}",
        show(rel)
    )))
}

/// Where a planned file's bytes come from.
enum Payload<'a> {
    /// A member, copied as it is.
    Member(&'a Entry),
    /// A `.uz` member decoded on the way (decoded again when staged).
    Uz(&'a Entry),
    /// Bytes made while planning (an ini member edited by `Ini=`).
    Bytes(Vec<u8>),
}

fn decode_uz(umod: &Umod<'_>, e: &Entry) -> Result<pakrat_uz::Decompressed> {
    pakrat_uz::decompress(umod.entry_data(e)?)
        .map_err(|err| Error::Other(format!("decoding {}: {err}", show(&e.name))))
}

/// Whether the file at `path` is a regular file holding exactly `data`.
fn same_file(path: &Path, data: &[u8]) -> Result<bool> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() || meta.len() != data.len() as u64 {
        return Ok(false);
    }
    let mut f = pakrat_io::open_regular(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0;
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(at == data.len());
        }
        if at + n > data.len() || buf[..n] != data[at..at + n] {
            return Ok(false);
        }
        at += n;
    }
}

fn nothing_changed(e: Error) -> Error {
    Error::Other(format!("{e}; nothing was changed"))
}

/// Everything an install will do, found without writing anything.
struct Plan<'a> {
    report: InstallReport,
    payloads: Vec<Payload<'a>>,
    out: OutputDir,
    /// Ini files rewritten: (relative path, new bytes).
    ini_writes: Vec<(String, Vec<u8>)>,
    manifest_rel: String,
    manifest_bytes: Vec<u8>,
}

/// What [`install`] would do, without writing anything: every check of a
/// real install (files in the way, clashes, symbolic links, ini targets,
/// product collisions, requirements, encodings) runs. The same as
/// [`install`] with `dry_run`.
pub fn plan(umod: &Umod<'_>, game_dir: &Path, opts: &InstallOptions) -> Result<InstallReport> {
    let mut report = make_plan(umod, game_dir, opts)?.report;
    report.dry_run = true;
    Ok(report)
}

fn make_plan<'a>(umod: &'a Umod<'_>, game_dir: &Path, opts: &InstallOptions) -> Result<Plan<'a>> {
    let meta = std::fs::metadata(game_dir).map_err(|e| Error::io(game_dir, e))?;
    if !meta.is_dir() {
        return Err(Error::Other(format!(
            "{} is not a folder",
            game_dir.display()
        )));
    }
    check_before_writing(umod, false)?;
    let m = Manifest::from_umod(umod)?.ok_or_else(|| {
        Error::Other("this UMOD has no System\\Manifest.ini: nothing says what to install".into())
    })?;
    let product = m
        .product
        .clone()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .ok_or_else(|| Error::Other("the manifest's [Setup] has no Product=".into()))?;
    if product.contains(['[', ']', '=', ','])
        || product.chars().any(pakrat_io::text::is_unsafe_char)
        || product.eq_ignore_ascii_case("Setup")
        || product.eq_ignore_ascii_case("RefCounts")
    {
        return Err(Error::Other(format!(
            "refusing product name \"{}\": it cannot be a section of System\\Manifest.ini",
            show(&product)
        )));
    }
    let version = m.version.clone().unwrap_or_default();
    let mut notes = Vec::new();
    let mut map = CaseMap::new(game_dir);
    let out = OutputDir::create(game_dir, true)?;
    let (manifest_rel, _, game_ini) = game_manifest(&mut map, &out)?;

    // A product may not take over another one's record (the base game's
    // included); a pakrat install of the same product may be redone.
    let mut reinstall = false;
    let mut old_owned = HashMap::new();
    let mut old_files: Vec<String> = Vec::new();
    if let Some(ini) = &game_ini {
        let in_group = ini.sections_named("Setup").any(|s| {
            s.get_all("Group")
                .any(|g| g.trim().eq_ignore_ascii_case(&product))
        });
        if let Some(sec) = ini.section(&product) {
            if sec.get(OWNER_MARK).is_none() {
                let v = sec.get("Version").unwrap_or("");
                return Err(Error::Other(format!(
                    "Product={} collides with the installed product [{}]{}, which pakrat did not install: a UMOD may not take over another product's record; nothing was changed",
                    show(&product),
                    show(&sec.name),
                    if v.is_empty() { String::new() } else { format!(" (version {})", show(v)) }
                )));
            }
            reinstall = true;
            old_owned = owned_records(sec);
            old_files = sec.get_all("File").map(str::to_string).collect();
        } else if in_group {
            return Err(Error::Other(format!(
                "Product={} is already recorded in [Setup] Group= of {}: refusing to take it over; nothing was changed",
                show(&product),
                show(&manifest_rel)
            )));
        }
    }
    // Other products' ownership records: identical bytes they put there
    // stay owned (so the last product to go removes them). And every file
    // another product lists (File=), owned or not, for the shared counts.
    let mut others_owned: HashMap<String, Owned> = HashMap::new();
    let mut others_list: HashSet<String> = HashSet::new();
    if let Some(ini) = &game_ini {
        for s in &ini.sections {
            if s.name.eq_ignore_ascii_case(&product)
                || s.name.eq_ignore_ascii_case("Setup")
                || s.name.eq_ignore_ascii_case("RefCounts")
            {
                continue;
            }
            others_list.extend(s.get_all("File").map(fold));
            if s.get(OWNER_MARK).is_some() {
                others_owned.extend(owned_records(s));
            }
        }
    }

    let requirements = check_requirements(&m, game_dir, game_ini.as_ref());
    let failed: Vec<&str> = requirements
        .iter()
        .filter(|r| !r.ok)
        .map(|r| r.message.as_str())
        .collect();
    if !failed.is_empty() {
        if !opts.ignore_requirements {
            return Err(Error::Other(format!(
                "requirements not met (use --ignore-requirements to install anyway): {}",
                failed.join("; ")
            )));
        }
        notes.push(format!("requirements ignored: {}", failed.join("; ")));
    }

    let mut files: Vec<InstallFile> = Vec::new();
    let mut payloads: Vec<Payload<'a>> = Vec::new();
    let mut seen = HashSet::new();
    for rec in m.records() {
        if rec.kind == RecordKind::Copy {
            continue;
        }
        if let Some(l) = &rec.lang {
            if !l.eq_ignore_ascii_case(&opts.language) {
                notes.push(format!("skipped {} (Lang={})", show(&rec.src), show(l)));
                continue;
            }
        }
        let dest = rec.install_dest().replace('/', "\\");
        if !seen.insert(fold(&dest)) {
            notes.push(format!(
                "{} is installed by more than one record; the first wins",
                show(&dest)
            ));
            continue;
        }
        if fold(&dest) == JOURNAL {
            return Err(Error::Other(format!(
                "refusing to install {}: that name is pakrat's install journal; nothing was changed",
                show(&dest)
            )));
        }
        let base = base_name(&dest).to_ascii_lowercase();
        if fold(&dest) == fold(MANIFEST_INI)
            || (fold(&dest).starts_with("system\\")
                && (base == "manifest.ini" || base == "manifest.int"))
        {
            return Err(Error::Other(format!(
                "refusing to install over the game's {MANIFEST_INI} or Manifest.int (File=(Src={})); nothing was changed",
                show(&rec.src)
            )));
        }
        if rec.reference.is_some() {
            return Err(Error::Other(format!(
                "{} is a delta patch (Ref={}); installing delta members is not supported",
                show(&rec.src),
                show(rec.reference.as_deref().unwrap_or(""))
            )));
        }
        let entry = umod.find(rec.member_name()).ok_or_else(|| {
            Error::Other(format!(
                "the manifest installs {} but the archive has no such member",
                show(&rec.src)
            ))
        })?;
        let rel = map.map(&dest)?;
        let path = out.resolve(&rel)?;
        check_way(&out, &rel, &path).map_err(nothing_changed)?;
        let exists = std::fs::symlink_metadata(&path).is_ok();
        // One member decoded at a time: sized, CRC'd, compared, dropped.
        let (payload, size, crc, same) = if rec.decodes_uz() {
            let d = decode_uz(umod, entry)?;
            if d.info.signature != Some(pakrat_uz::UzSignature::S5678) {
                notes.push(format!(
                    "{} is not a signature-5678 .uz file; the engine's Setup would refuse it, pakrat decoded it anyway",
                    show(&rec.src)
                ));
            }
            let size = d.data.len() as u64;
            let crc = MEM_CRC.checksum(&d.data);
            let same = exists && same_file(&path, &d.data)?;
            (Payload::Uz(entry), size, crc, same)
        } else {
            let data = umod.entry_data(entry)?;
            let crc = MEM_CRC.checksum(data);
            let same = exists && same_file(&path, data)?;
            (Payload::Member(entry), data.len() as u64, crc, same)
        };
        let action = if !exists {
            FileAction::Create
        } else if same {
            FileAction::Unchanged
        } else if opts.force {
            FileAction::Replace {
                backup: String::new(), // named below, once every path is known
            }
        } else {
            FileAction::Conflict
        };
        files.push(InstallFile {
            member: entry.name.clone(),
            dest,
            path: rel,
            size,
            crc,
            decoded_uz: rec.decodes_uz(),
            ini_edited: false,
            owned: false,
            action,
        });
        payloads.push(payload);
    }

    // A destination that is another's folder ("Y\B" and "Y"): refused.
    let folders: HashMap<String, &str> = files
        .iter()
        .flat_map(|f| {
            let p = fold(&f.path.replace('/', "\\"));
            let mut v = Vec::new();
            let mut at = 0;
            while let Some(i) = p[at..].find('\\') {
                v.push((p[..at + i].to_string(), f.dest.as_str()));
                at += i + 1;
            }
            v
        })
        .collect();
    for f in &files {
        if let Some(other) = folders.get(&fold(&f.path.replace('/', "\\"))) {
            return Err(Error::Other(format!(
                "the manifest installs {} as a file and as the folder of {}: refusing; nothing was changed",
                show(&f.dest),
                show(other)
            )));
        }
    }

    let conflicts: Vec<String> = files
        .iter()
        .filter(|f| f.action == FileAction::Conflict)
        .map(|f| show(&f.path).into_owned())
        .collect();
    if !conflicts.is_empty() && !opts.dry_run {
        return Err(Error::Other(format!(
            "these files exist with different content (use --force to replace them; a backup is kept), nothing was changed: {}",
            conflicts.join(", ")
        )));
    }

    // Ini edits: on the installed copy when the mod installs that ini
    // itself, else on the file in the game folder.
    let mut ini_edits = plan_ini_edits(&m, &mut map)?;
    let mut targets: Vec<String> = Vec::new();
    for e in ini_edits.iter().filter(|e| e.applied) {
        if !targets.contains(&e.file) {
            targets.push(e.file.clone());
        }
    }
    let mut ini_writes = Vec::new();
    for t in targets {
        let path = out.resolve(&t)?;
        check_way(&out, &t, &path).map_err(nothing_changed)?;
        if let Some(i) = files
            .iter()
            .position(|f| fold(&f.path.replace('/', "\\")) == fold(&t.replace('/', "\\")))
        {
            let base = match &payloads[i] {
                Payload::Member(e) => umod.entry_data(e)?.to_vec(),
                Payload::Uz(e) => decode_uz(umod, e)?.data,
                Payload::Bytes(b) => b.clone(),
            };
            if base.len() as u64 > MAX_INI_SIZE {
                return Err(Error::Other(format!(
                    "{} is too large to be an ini file; nothing was changed",
                    show(&t)
                )));
            }
            let new = edit_ini_bytes(&base, &t, &mut ini_edits)?;
            let f = &mut files[i];
            f.size = new.len() as u64;
            f.crc = MEM_CRC.checksum(&new);
            f.ini_edited = true;
            if f.action == FileAction::Unchanged && !same_file(&path, &new)? {
                f.action = if opts.force {
                    FileAction::Replace {
                        backup: String::new(),
                    }
                } else {
                    FileAction::Conflict
                };
            }
            payloads[i] = Payload::Bytes(new);
            continue;
        }
        if std::fs::symlink_metadata(&path).is_err() {
            for e in ini_edits.iter_mut().filter(|e| e.applied && e.file == t) {
                e.applied = false;
                e.note = format!(
                    "{} does not exist: not created (edit it once the game made it)",
                    show(&t)
                );
            }
            continue;
        }
        let bytes = read_regular(&path, &t, MAX_INI_SIZE)?;
        let new = edit_ini_bytes(&bytes, &t, &mut ini_edits)?;
        if new != bytes {
            ini_writes.push((t, new));
        }
    }
    if !opts.dry_run && files.iter().any(|f| f.action == FileAction::Conflict) {
        return Err(Error::Other(
            "an Ini= edit changes an installed file that exists with different content (use --force); nothing was changed".into(),
        ));
    }

    // Backups, ownership.
    let mut taken: HashSet<String> = files.iter().map(|f| fold(&f.path)).collect();
    for f in &mut files {
        f.owned = match &f.action {
            FileAction::Create | FileAction::Replace { .. } => true,
            FileAction::Unchanged => {
                let key = fold(&f.dest);
                let want = Owned {
                    crc: f.crc,
                    size: f.size,
                };
                others_owned.get(&key) == Some(&want) || old_owned.get(&key) == Some(&want)
            }
            FileAction::Conflict => false,
        };
        if let FileAction::Replace { backup } = &mut f.action {
            *backup = backup_name(&out, &f.path, &taken)?;
            taken.insert(fold(backup));
        }
    }
    for f in files
        .iter()
        .filter(|f| f.action == FileAction::Unchanged && !f.owned)
    {
        notes.push(format!(
            "{} was already there with the same bytes: not recorded as {}'s, uninstall keeps it",
            show(&f.path),
            show(&product)
        ));
    }
    // A reinstall keeps every file of the old record.
    if reinstall {
        let new: HashSet<String> = files.iter().map(|f| fold(&f.dest)).collect();
        let dropped: Vec<String> = old_files
            .iter()
            .filter(|d| !new.contains(&fold(d)))
            .map(|d| show(d).into_owned())
            .collect();
        if !dropped.is_empty() {
            return Err(Error::Other(format!(
                "{} is installed with files this UMOD does not install ({}): uninstall it first (pakrat umod uninstall {}); nothing was changed",
                show(&product),
                dropped.join(", "),
                show(&product)
            )));
        }
        notes.push(format!(
            "{} was installed by pakrat: reinstalled",
            show(&product)
        ));
    }

    // What uninstall needs to put the folder back as it was (issue 31
    // item 4): the folders this install creates, the backups it makes, the
    // ini pairs it adds to the game's files, and the blank line or the
    // [RefCounts] section it adds to the record.
    let mut made_dirs: Vec<String> = Vec::new();
    {
        let mut seen = HashSet::new();
        for f in files
            .iter()
            .filter(|f| matches!(f.action, FileAction::Create | FileAction::Replace { .. }))
        {
            let comps: Vec<&str> = f.path.split('/').collect();
            let mut cur = String::new();
            for c in &comps[..comps.len().saturating_sub(1)] {
                if !cur.is_empty() {
                    cur.push('/');
                }
                cur.push_str(c);
                if seen.insert(cur.clone())
                    && std::fs::symlink_metadata(out.resolve(&cur)?).is_err()
                {
                    made_dirs.push(cur.clone());
                }
            }
        }
    }
    let written: HashSet<&str> = ini_writes.iter().map(|(r, _)| r.as_str()).collect();
    let ini_added: Vec<String> = ini_edits
        .iter()
        .filter(|e| e.applied && e.note.starts_with("added") && written.contains(e.file.as_str()))
        .filter(|e| {
            ![&e.file, &e.section, &e.name]
                .iter()
                .any(|x| x.contains('|'))
        })
        .map(|e| format!("{}|{}|{}|{}", e.file, e.section, e.name, e.value))
        .collect();

    // The uninstall log.
    let mut ini = game_ini.unwrap_or_else(|| Ini {
        crlf: true,
        ..Ini::default()
    });
    ini.section_or_insert("Setup").add_unique("Group", &product);
    let caption = m.display_name().unwrap_or(&product).to_string();
    let mut newly = Vec::new();
    let new_section = ini.section(&product).is_none();
    let adds_blank = new_section
        && ini
            .sections
            .last()
            .is_some_and(|s| !s.lines.last().is_some_and(Line::is_blank));
    // "2": and the file's last line had no line end.
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
    let adds_refcounts = ini.section("RefCounts").is_none();
    {
        let sec = ini.section_or_insert(&product);
        sec.set("Caption", &caption);
        sec.set("Version", &version);
        for r in &m.requirements {
            if let Some(p) = &r.product {
                if !p.eq_ignore_ascii_case(&product) {
                    sec.add_unique("Requires", p);
                }
            }
        }
        let old: HashSet<String> = old_files.iter().map(|d| fold(d)).collect();
        // The File= pairs already there, indexed once (as has_pair
        // compares: ASCII case ignored), so that the log is built in
        // linear time whatever the number of files (issue 32 item 8).
        let mut have: HashSet<String> = sec
            .get_all("File")
            .map(|v| v.to_ascii_lowercase())
            .collect();
        for f in &files {
            // A file that was already there and that no product lists is
            // not this product's: no File= line (the engine's own uninstall
            // would delete it) and no ownership record.
            let key = fold(&f.dest);
            if f.action == FileAction::Unchanged
                && !f.owned
                && !others_list.contains(&key)
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
        // A reinstall keeps what the first install recorded (its folders,
        // backups and ini pairs), in one order whatever the number of runs.
        let old_vals = |sec: &Section, k: &str| -> Vec<String> {
            sec.get_all(k).map(str::to_string).collect()
        };
        let blank = sec
            .get(MARK_BLANK)
            .map(str::to_string)
            .or_else(|| adds_blank.then(|| if no_eol { "2" } else { "1" }.to_string()));
        let rc_made = sec.get(MARK_REFCOUNTS).is_some() || (adds_refcounts && new_section);
        let mut dirs = old_vals(sec, MADE_DIR);
        dirs.extend(made_dirs.iter().cloned());
        let mut backups = old_vals(sec, MADE_BACKUP);
        backups.extend(files.iter().filter_map(|f| match &f.action {
            FileAction::Replace { backup } if !backup.contains('|') && !f.dest.contains('|') => {
                Some(format!("{backup}|{}", f.dest))
            }
            _ => None,
        }));
        let mut inis = old_vals(sec, ADDED_INI);
        inis.extend(ini_added.iter().cloned());
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
    bump_ref_counts(ini.section_or_insert("RefCounts"), &newly);
    let manifest_utf16 = keep_names(&mut ini);
    if manifest_utf16 {
        notes.push(format!(
            "{} is written as UTF-16 to keep names outside Latin-1",
            show(&manifest_rel)
        ));
    }
    let manifest_bytes = ini.to_bytes();

    Ok(Plan {
        report: InstallReport {
            product,
            version,
            reinstall,
            requirements,
            files,
            ini_edits,
            notes,
            manifest_utf16,
            dry_run: opts.dry_run,
            recovered: None,
        },
        payloads,
        out,
        ini_writes,
        manifest_rel,
        manifest_bytes,
    })
}

/// Insert `lines` where [`Section::add`] would put each of them, in one
/// pass: after the last `key=` line, else before the section's trailing
/// blank lines. The same result as calling `add` once per line (each new
/// line goes after the one added before it), in linear time.
fn add_all(sec: &mut Section, key: Option<&str>, lines: impl IntoIterator<Item = Line>) {
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
fn drop_ref_counts(ini: &mut Ini, dests: &[String]) -> Vec<i64> {
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
fn bump_ref_counts(rc: &mut Section, dests: &[String]) {
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

fn atoi(s: &str) -> i64 {
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

/// Check every requirement of `m` against the game folder.
pub fn check_requirements(
    m: &Manifest,
    game_dir: &Path,
    game_ini: Option<&Ini>,
) -> Vec<RequirementCheck> {
    m.requirements
        .iter()
        .map(|r| {
            let mut product = r.product.clone().unwrap_or_default();
            if product == "Unreal Tournament" {
                product = "UnrealTournament".into(); // as CheckRequirement does
            }
            let required = r.version.clone().unwrap_or_default();
            let mut found = game_ini
                .and_then(|i| i.get(&product, "Version"))
                .map(str::to_string);
            let mut via = String::new();
            if found.is_none() {
                if let Some(check) = &r.old_version_install_check {
                    let present = find_source(game_dir, check)
                        .ok()
                        .and_then(|p| std::fs::metadata(p).ok())
                        .is_some_and(|m| m.len() > 0);
                    if present {
                        found = Some(r.old_version_number.clone().unwrap_or_default());
                        via = format!(" (from the presence of {check})");
                    }
                }
            }
            let (ok, message) = match &found {
                None => (
                    false,
                    format!(
                        "requires {product} {required}, which is not installed here (no [{product}] Version= in System\\Manifest.ini)"
                    ),
                ),
                Some(v) if atoi(v) < atoi(&required) => (
                    false,
                    format!("requires {product} version {required} or later; version {v} is installed{via}"),
                ),
                Some(v) => (
                    true,
                    if required.is_empty() {
                        format!("{product} is installed (version {v}{via}); any version will do")
                    } else {
                        format!("{product} version {v} is installed{via}; {required} is required")
                    },
                ),
            };
            RequirementCheck {
                section: r.section.clone(),
                product,
                required,
                found,
                ok,
                message,
            }
        })
        .collect()
}

/// Install `umod` into `game_dir` (all or nothing; see the module
/// documentation). With `dry_run`, the same as [`plan`].
pub fn install(umod: &Umod<'_>, game_dir: &Path, opts: &InstallOptions) -> Result<InstallReport> {
    install_with(umod, game_dir, opts, &|_| {})
}

/// [`install`], calling `on_progress` with the bytes of each file as it is
/// staged (for a progress bar).
pub fn install_with(
    umod: &Umod<'_>,
    game_dir: &Path,
    opts: &InstallOptions,
    on_progress: &dyn Fn(u64),
) -> Result<InstallReport> {
    let recovered = recover_first(game_dir, opts.dry_run)?;
    let plan = make_plan(umod, game_dir, opts)?;
    if opts.dry_run {
        return Ok(plan.report);
    }
    let mut report = commit_plan(umod, plan, opts, on_progress)?;
    report.recovered = recovered;
    Ok(report)
}

/// Before an install or uninstall: recover an interrupted install (see
/// [`crate::journal`]); a dry run changes nothing, so it refuses instead.
fn recover_first(game_dir: &Path, dry_run: bool) -> Result<Option<Recovery>> {
    if !journal::pending(game_dir) {
        return Ok(None);
    }
    if dry_run {
        return Err(Error::Other(format!(
            "{}: an interrupted install is recorded in {JOURNAL}; a dry run changes nothing, so it cannot plan over it: run `pakrat umod recover --game-dir {}` (or install/uninstall without --dry-run, which recover first)",
            game_dir.display(),
            game_dir.display()
        )));
    }
    journal::recover(game_dir)
}

/// Where a staged file's bytes come from.
enum Content<'p, 'a> {
    /// A planned file.
    Payload(&'p Payload<'a>),
    /// A copy of an existing file (a backup).
    CopyOf(PathBuf),
    /// Bytes made while planning (an ini file, the record).
    Bytes(&'p [u8]),
}

/// Test hooks of [`commit_plan`]: each change to the disk is one "tick".
struct Ticks<'o> {
    n: usize,
    opts: &'o InstallOptions,
}

impl Ticks<'_> {
    /// One change done: stop here if a test asked.
    fn tick(&mut self) {
        #[cfg(unix)]
        {
            if self.opts.kill_at_tick == Some(self.n) {
                // SAFETY: sends SIGKILL to this process (a test's kill -9).
                unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                }
            }
            if self.opts.signal_at_tick == Some(self.n) {
                // SAFETY: raises SIGINT in this process (a test's Ctrl-C).
                unsafe {
                    libc::raise(libc::SIGINT);
                }
            }
        }
        self.n += 1;
    }
}

fn interrupted() -> Result<()> {
    match journal::signals::caught() {
        0 => Ok(()),
        sig => Err(Error::Other(format!(
            "interrupted by {}",
            if sig == 2 {
                "Ctrl-C (SIGINT)"
            } else {
                "SIGTERM"
            }
        ))),
    }
}

fn commit_plan(
    umod: &Umod<'_>,
    plan: Plan<'_>,
    opts: &InstallOptions,
    on_progress: &dyn Fn(u64),
) -> Result<InstallReport> {
    let Plan {
        report,
        payloads,
        out,
        ini_writes,
        manifest_rel,
        manifest_bytes,
    } = plan;
    let root = out.root().to_path_buf();
    let _lock = journal::lock(&root)?;
    let _signals = opts.handle_signals.then(journal::signals::Guard::new);

    // Every file put in place, in order: backups, files, ini files, and
    // the record last. (relative path, replaces a file, content)
    let mut files: Vec<(String, bool, Content<'_, '_>)> = Vec::new();
    for f in &report.files {
        if let FileAction::Replace { backup } = &f.action {
            files.push((
                backup.clone(),
                false,
                Content::CopyOf(out.resolve(&f.path)?),
            ));
        }
    }
    for (f, p) in report.files.iter().zip(&payloads) {
        match f.action {
            FileAction::Unchanged | FileAction::Conflict => {}
            FileAction::Create => files.push((f.path.clone(), false, Content::Payload(p))),
            FileAction::Replace { .. } => files.push((f.path.clone(), true, Content::Payload(p))),
        }
    }
    let mut writes: Vec<(&str, &[u8])> = ini_writes
        .iter()
        .map(|(r, b)| (r.as_str(), b.as_slice()))
        .collect();
    writes.push((&manifest_rel, &manifest_bytes));
    for (rel, bytes) in writes {
        let exists = std::fs::symlink_metadata(out.resolve(rel)?).is_ok();
        files.push((rel.to_string(), exists, Content::Bytes(bytes)));
    }
    // Folders to create, parents first.
    let mut dirs: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (rel, _, _) in &files {
        let comps: Vec<&str> = rel.split(['/', '\\']).collect();
        let mut cur = String::new();
        for c in &comps[..comps.len().saturating_sub(1)] {
            if !cur.is_empty() {
                cur.push('/');
            }
            cur.push_str(c);
            if seen.contains(&cur) {
                continue;
            }
            if std::fs::symlink_metadata(out.resolve(&cur)?).is_err() {
                seen.insert(cur.clone());
                dirs.push(cur.clone());
            }
        }
    }
    let mut j = Journal {
        token: journal::new_token(),
        pid: std::process::id(),
        product: report.product.clone(),
        commit: false,
        steps: dirs
            .iter()
            .map(|d| Step {
                kind: Kind::Dir,
                rel: d.clone(),
                id: None,
                save: None,
            })
            .chain(files.iter().map(|(rel, rep, _)| Step {
                kind: if *rep { Kind::Replace } else { Kind::New },
                rel: rel.clone(),
                id: None,
                save: None,
            }))
            .collect(),
    };
    let mut ticks = Ticks { n: 0, opts };
    j.write(&root).map_err(nothing_changed)?;
    ticks.tick();
    let res = run_steps(umod, &out, &mut j, &files, opts, on_progress, &mut ticks);
    match res {
        Ok(()) => Ok(report),
        Err(e) => {
            let rec = journal::recover_locked(&out);
            Err(Error::Other(match rec {
                Ok(Some(r)) if r.left.is_empty() => format!(
                    "installing {} failed: {e}; every change was rolled back, the game folder is as it was",
                    show(&report.product)
                ),
                Ok(Some(r)) => format!(
                    "installing {} failed: {e}; rolling back failed too, the game folder is NOT as it was: {}",
                    show(&report.product),
                    r.left.join("; ")
                ),
                Ok(None) => format!("installing {} failed: {e}", show(&report.product)),
                Err(re) => format!(
                    "installing {} failed: {e}; rolling back failed too ({re}); the journal {} is kept: run pakrat umod recover --game-dir {}",
                    show(&report.product),
                    root.join(JOURNAL).display(),
                    root.display()
                ),
            }))
        }
    }
}

/// The journaled steps of an install (see [`crate::journal`]): folders,
/// staged files and saved copies, the journal's commit state, the renames,
/// then the clean-up. An error leaves the journal for the caller to roll
/// back.
fn run_steps(
    umod: &Umod<'_>,
    out: &OutputDir,
    j: &mut Journal,
    files: &[(String, bool, Content<'_, '_>)],
    opts: &InstallOptions,
    on_progress: &dyn Fn(u64),
    ticks: &mut Ticks<'_>,
) -> Result<()> {
    let root = out.root();
    let ndirs = j.steps.len() - files.len();
    for n in 0..ndirs {
        interrupted()?;
        let p = out.resolve(&j.steps[n].rel)?;
        std::fs::create_dir(&p).map_err(|e| Error::io(&p, e))?;
        j.steps[n].id = std::fs::symlink_metadata(&p)
            .ok()
            .map(|m| journal::id_of(&m));
        ticks.tick();
    }
    // Stage every file and save every file about to be replaced.
    let mut targets = Vec::with_capacity(files.len());
    for (k, (rel, replaces, content)) in files.iter().enumerate() {
        interrupted()?;
        let n = ndirs + k;
        let target = out.resolve(rel)?;
        let tp = journal::temp_path(&target, j.pid, &j.token, n);
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&tp)
            .map_err(|e| Error::io(&tp, e))?;
        let mut w = &file;
        let filled = match content {
            Content::Payload(Payload::Member(e)) => copy_entry_to_file(umod, e, &file),
            Content::Payload(Payload::Uz(e)) => {
                // One decoded member in memory at a time.
                let d = decode_uz(umod, e)?;
                std::io::Write::write_all(&mut w, &d.data)
            }
            Content::Payload(Payload::Bytes(b)) => std::io::Write::write_all(&mut w, b),
            Content::Bytes(b) => std::io::Write::write_all(&mut w, b),
            Content::CopyOf(src) => {
                // Through the regular-file check: a FIFO or device planted
                // in the game folder must not hang or flood the install.
                pakrat_io::open_regular(src)
                    .map_err(std::io::Error::other)
                    .and_then(|mut r| std::io::copy(&mut r, &mut w).map(|_| ()))
            }
        };
        filled.map_err(|e| Error::io(&target, e))?;
        let meta = file.metadata().map_err(|e| Error::io(&tp, e))?;
        j.steps[n].id = Some(journal::id_of(&meta));
        on_progress(meta.len());
        ticks.tick();
        if *replaces {
            let sp = journal::save_path(&target, &j.token, n);
            if std::fs::hard_link(&target, &sp).is_err() {
                std::fs::copy(&target, &sp).map_err(|e| Error::io(&target, e))?;
            }
            let m = std::fs::symlink_metadata(&sp).map_err(|e| Error::io(&sp, e))?;
            j.steps[n].save = Some(journal::id_of(&m));
            ticks.tick();
        }
        targets.push((target, tp));
    }
    interrupted()?;
    j.commit = true;
    j.write(root)?;
    ticks.tick();
    // Rename into place.
    for (k, ((target, tp), (_, replaces, _))) in targets.iter().zip(files).enumerate() {
        interrupted()?;
        if opts.fail_after_renames == Some(k) {
            return Err(Error::Other(format!(
                "{}: injected failure (test hook)",
                target.display()
            )));
        }
        if !replaces && std::fs::symlink_metadata(target).is_ok() {
            return Err(Error::Other(format!(
                "{} appeared while installing; not replaced",
                target.display()
            )));
        }
        std::fs::rename(tp, target).map_err(|e| Error::io(target, e))?;
        ticks.tick();
    }
    // Done: the saved copies and the journal go. An interruption from here
    // on is recovered as "completed".
    for (k, (target, _)) in targets.iter().enumerate() {
        if files[k].1 {
            let _ = std::fs::remove_file(journal::save_path(target, &j.token, ndirs + k));
            ticks.tick();
        }
    }
    let jp = root.join(JOURNAL);
    std::fs::remove_file(&jp).map_err(|e| Error::io(&jp, e))?;
    let _ = journal::sync_dir(root);
    ticks.tick();
    Ok(())
}

/// One file of an uninstall.
#[derive(Clone, Debug, Serialize)]
pub struct UninstallFile {
    /// As recorded (`File=`).
    pub dest: String,
    /// Removed, kept (still used), or already missing.
    pub action: UninstallAction,
}

/// What happens to one recorded file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UninstallAction {
    /// Deleted.
    Remove,
    /// Kept: another product still uses it.
    Keep {
        /// Remaining reference count.
        refs: i64,
        /// Other products that list it.
        used_by: Vec<String>,
    },
    /// Kept: the product has no record of pakrat putting it there (a file
    /// that was already there, a product the engine's Setup installed, or a
    /// `File=` line pakrat did not write).
    NotOwned,
    /// Kept: its size or CRC is not what the install recorded.
    Changed {
        /// What differs.
        reason: String,
    },
    /// Not on disk any more.
    Missing,
    /// Not a safe path inside the game folder: left alone.
    Refused {
        /// Why.
        reason: String,
    },
}

/// What [`uninstall`] did (or would do).
#[derive(Clone, Debug, Serialize)]
pub struct UninstallReport {
    /// Product section removed.
    pub product: String,
    /// Files.
    pub files: Vec<UninstallFile>,
    /// Folders removed because they became empty (only folders the
    /// install created, for products pakrat recorded them for).
    pub removed_folders: Vec<String>,
    /// Files that `--force` had replaced, put back from their backups.
    pub restored: Vec<String>,
    /// Ini pairs the install had added, removed again.
    pub ini_reverted: Vec<String>,
    /// Nothing was changed.
    pub dry_run: bool,
    /// An interrupted install found in the folder first, and what was done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered: Option<Recovery>,
}

/// Options for [`uninstall_with`].
#[derive(Clone, Debug, Default)]
pub struct UninstallOptions {
    /// Plan and report only.
    pub dry_run: bool,
    /// Also delete recorded files that have no pakrat ownership record
    /// (the engine's Setup behaviour, for products it installed).
    pub remove_unrecorded: bool,
}

/// Remove an installed product from `game_dir` (see [`uninstall_with`]).
pub fn uninstall(product: &str, game_dir: &Path, dry_run: bool) -> Result<UninstallReport> {
    uninstall_with(
        product,
        game_dir,
        &UninstallOptions {
            dry_run,
            ..Default::default()
        },
    )
}

/// Remove an installed product from `game_dir`: each recorded file loses
/// one reference; one no other product uses is deleted only when the
/// product's ownership record says pakrat put it there and its size and CRC
/// still match (or with `remove_unrecorded`, for a file without a record).
pub fn uninstall_with(
    product: &str,
    game_dir: &Path,
    opts: &UninstallOptions,
) -> Result<UninstallReport> {
    let dry_run = opts.dry_run;
    let recovered = recover_first(game_dir, dry_run)?;
    let mut map = CaseMap::new(game_dir);
    let out = OutputDir::create(game_dir, true)?;
    let (ini_rel, _, ini) = game_manifest(&mut map, &out)?;
    let mut ini = ini.ok_or_else(|| {
        Error::Other(format!(
            "{}: no System\\Manifest.ini, so no installed product is recorded",
            game_dir.display()
        ))
    })?;
    let groups: Vec<String> = ini
        .section("Setup")
        .map(|s| s.get_all("Group").map(|g| show(g).into_owned()).collect())
        .unwrap_or_default();
    let Some(sec) = ini.section(product) else {
        return Err(Error::Other(format!(
            "\"{}\" is not installed here; recorded products: {}",
            show(product),
            groups.join(", ")
        )));
    };
    let name = sec.name.clone();
    let owned = owned_records(sec);
    let new_style_dirs = sec.get(MARK_DIRS).is_some();
    let made_dirs: Vec<String> = sec.get_all(MADE_DIR).map(str::to_string).collect();
    let backups: HashMap<String, String> = sec
        .get_all(MADE_BACKUP)
        .filter_map(|v| v.split_once('|'))
        .map(|(b, d)| (fold(d), b.to_string()))
        .collect();
    let ini_added: Vec<String> = sec.get_all(ADDED_INI).map(str::to_string).collect();
    let added_blank = sec.get(MARK_BLANK).map(str::to_string);
    let added_refcounts = sec.get(MARK_REFCOUNTS).is_some();
    let mut restored = Vec::new();
    let mut recorded: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for f in sec.get_all("File") {
        if seen.insert(fold(f)) {
            recorded.push(f.to_string());
        }
    }
    // Which other products list each file: one pass over the record, not
    // one per file (uninstall was quadratic in the product's file count).
    let mut users: HashMap<String, Vec<String>> = HashMap::new();
    for s in &ini.sections {
        if s.name.eq_ignore_ascii_case(&name)
            || s.name.eq_ignore_ascii_case("RefCounts")
            || s.name.eq_ignore_ascii_case("Setup")
        {
            continue;
        }
        let mut mine: HashSet<String> = HashSet::new();
        for f in s.get_all("File") {
            if mine.insert(fold(f)) {
                users.entry(fold(f)).or_default().push(s.name.clone());
            }
        }
    }
    let refs_left = drop_ref_counts(&mut ini, &recorded);
    let mut files = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for (dest, refs) in recorded.into_iter().zip(refs_left) {
        let used_by = users.get(&fold(&dest)).cloned().unwrap_or_default();
        if refs > 0 || !used_by.is_empty() {
            files.push(UninstallFile {
                dest,
                action: UninstallAction::Keep {
                    refs: refs.max(0),
                    used_by,
                },
            });
            continue;
        }
        let path = match map.map(&dest).and_then(|rel| out.resolve(&rel)) {
            Ok(p) => p,
            Err(e) => {
                files.push(UninstallFile {
                    dest,
                    action: UninstallAction::Refused {
                        reason: e.to_string(),
                    },
                });
                continue;
            }
        };
        let action = match std::fs::symlink_metadata(&path) {
            Err(_) => UninstallAction::Missing,
            Ok(m) if !m.is_file() => UninstallAction::Refused {
                reason: format!("{} is not a regular file", path.display()),
            },
            Ok(m) => {
                let verdict = match owned.get(&fold(&dest)) {
                    Some(rec) if m.len() != rec.size => UninstallAction::Changed {
                        reason: format!("{} bytes now, {} when installed", m.len(), rec.size),
                    },
                    Some(rec) => {
                        let (_, crc) = file_crc(&path)?;
                        if crc == rec.crc {
                            UninstallAction::Remove
                        } else {
                            UninstallAction::Changed {
                                reason: format!(
                                    "CRC {crc:08x} now, {:08x} when installed",
                                    rec.crc
                                ),
                            }
                        }
                    }
                    None if opts.remove_unrecorded => UninstallAction::Remove,
                    None => UninstallAction::NotOwned,
                };
                if verdict == UninstallAction::Remove {
                    if !dry_run {
                        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
                    }
                    // The file --force replaced comes back from its backup.
                    if let Some(b) = backups.get(&fold(&dest)) {
                        let bp = map.map(b).and_then(|rel| out.resolve(&rel));
                        if let Ok(bp) = bp {
                            let is_file = std::fs::symlink_metadata(&bp).is_ok_and(|m| m.is_file());
                            if is_file {
                                if !dry_run {
                                    std::fs::rename(&bp, &path).map_err(|e| Error::io(&bp, e))?;
                                }
                                restored.push(format!("{dest} (from {b})"));
                            }
                        }
                    }
                    if let Some(p) = path.parent() {
                        folders.push(p.to_path_buf());
                    }
                }
                verdict
            }
        };
        files.push(UninstallFile { dest, action });
    }
    if new_style_dirs {
        // Only the folders the install created (a folder that was there
        // before, empty or not, stays).
        folders = made_dirs
            .iter()
            .filter_map(|d| map.map(d).and_then(|r| out.resolve(&r)).ok())
            .collect();
    }
    let mut removed_folders = Vec::new();
    let mut ini_reverted = Vec::new();
    for rec in &ini_added {
        let mut it = rec.splitn(4, '|');
        let (Some(file), Some(section), Some(key), Some(value)) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            continue;
        };
        let Ok(path) = map.map(file).and_then(|r| out.resolve(&r)) else {
            continue;
        };
        let Ok(bytes) = read_regular(&path, file, MAX_INI_SIZE) else {
            continue;
        };
        let Ok(mut gi) = Ini::try_parse(&bytes) else {
            continue;
        };
        let n = gi
            .section_mut(section)
            .map_or(0, |s| s.remove_pair(key, value));
        if n > 0 {
            if !dry_run {
                out.write(file, &gi.to_bytes())?;
            }
            ini_reverted.push(format!("{file}: [{section}] {key}={value} removed"));
        }
    }
    if !dry_run {
        if !new_style_dirs {
            // Records of older pakrat versions: folders left empty.
            folders.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
            folders.dedup();
        } else {
            folders.reverse(); // deepest first
        }
        for mut dir in folders {
            if new_style_dirs {
                if dir.starts_with(out.root())
                    && dir != out.root()
                    && std::fs::remove_dir(&dir).is_ok()
                {
                    removed_folders.push(
                        dir.strip_prefix(out.root())
                            .unwrap_or(&dir)
                            .display()
                            .to_string(),
                    );
                }
                continue;
            }
            while dir.starts_with(out.root()) && dir != out.root() {
                if std::fs::remove_dir(&dir).is_err() {
                    break; // not empty (or not removable): stop here
                }
                removed_folders.push(
                    dir.strip_prefix(out.root())
                        .unwrap_or(&dir)
                        .display()
                        .to_string(),
                );
                match dir.parent() {
                    Some(p) => dir = p.to_path_buf(),
                    None => break,
                }
            }
        }
        ini.remove_section(&name);
        if let Some(s) = ini.section_mut("Setup") {
            s.remove_pair("Group", &name);
        }
        if added_refcounts
            && ini
                .section("RefCounts")
                .is_some_and(|s| s.entries().next().is_none())
        {
            ini.remove_section("RefCounts");
        }
        if let Some(mark) = &added_blank {
            if let Some(s) = ini.sections.last_mut() {
                if s.lines.last().is_some_and(Line::is_blank) {
                    s.lines.pop();
                    if mark == "2" {
                        if let Some(Line::Entry { end, .. } | Line::Other { end, .. }) =
                            s.lines.last_mut()
                        {
                            *end = LineEnd::None;
                        }
                    }
                }
            }
        }
        keep_names(&mut ini);
        out.write(&ini_rel, &ini.to_bytes())?;
    }
    Ok(UninstallReport {
        product: name,
        files,
        removed_folders,
        restored,
        ini_reverted,
        dry_run,
        recovered,
    })
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
