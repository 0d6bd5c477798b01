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
//!   place; if a rename fails, the ones already done are undone (replaced
//!   files come back from a hard link taken just before), and the error says
//!   whether the folder is as it was.
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
//! are reported. Like the engine's Setup, uninstall does not revert ini edits.
//! `SaveIni=` is reported.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::crc::MEM_CRC;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::ini::{Encoding, Ini, MAX_INI_SIZE};
use pakrat_io::staged::{Staged, Staging};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Entry, Umod};
use crate::create::find_source;
use crate::extract::{check_before_writing, copy_entry_to_file};
use crate::manifest::{Manifest, RecordKind, MANIFEST_INI};
use crate::paths::{check_way, CaseMap};

/// Key that marks a product section as written by pakrat's install.
pub const OWNER_MARK: &str = "PakratInstall";
/// Key of one ownership record: `PakratFile=<crc hex>,<size>,<dest>`.
pub const OWNED_FILE: &str = "PakratFile";

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
    /// Test hook: fail the commit after this many renames (rollback tests).
    #[doc(hidden)]
    pub fail_after_renames: Option<usize>,
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            dry_run: false,
            force: false,
            ignore_requirements: false,
            language: "int".into(),
            fail_after_renames: None,
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

    // The uninstall log.
    let mut ini = game_ini.unwrap_or_else(|| Ini {
        crlf: true,
        ..Ini::default()
    });
    ini.section_or_insert("Setup").add_unique("Group", &product);
    let caption = m.display_name().unwrap_or(&product).to_string();
    let mut newly = Vec::new();
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
            if sec.add_unique("File", &f.dest) {
                newly.push(f.dest.clone());
            }
        }
        sec.set(OWNER_MARK, env!("CARGO_PKG_VERSION"));
        sec.remove_key(OWNED_FILE);
        for f in files.iter().filter(|f| f.owned) {
            sec.add(OWNED_FILE, &owned_value(&f.dest, f.size, f.crc));
        }
    }
    let rc = ini.section_or_insert("RefCounts");
    for d in newly {
        let key = format!("File:{d}");
        let n = rc.get(&key).map(atoi).unwrap_or(0) + 1;
        rc.set(&key, &n.to_string());
    }
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
        },
        payloads,
        out,
        ini_writes,
        manifest_rel,
        manifest_bytes,
    })
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
    let plan = make_plan(umod, game_dir, opts)?;
    if opts.dry_run {
        return Ok(plan.report);
    }
    commit_plan(umod, plan, opts, on_progress)
}

/// A rename already done, and how to undo it.
enum Done {
    /// A new file: delete it.
    Created(PathBuf),
    /// A file replaced: its old content is kept under `saved` (a hard
    /// link, or a copy where links are not possible).
    Replaced { target: PathBuf, saved: PathBuf },
}

/// Keep the current content of `target` under a temporary name beside it.
fn save_for_rollback(target: &Path, n: usize) -> std::io::Result<PathBuf> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let saved = dir.join(format!(
        "{}{}-rollback-{n}",
        pakrat_io::fsutil::TEMP_PREFIX,
        std::process::id()
    ));
    let _ = std::fs::remove_file(&saved);
    if std::fs::hard_link(target, &saved).is_err() {
        std::fs::copy(target, &saved)?;
    }
    Ok(saved)
}

fn undo(done: Vec<Done>) -> Vec<String> {
    let mut left = Vec::new();
    for d in done.into_iter().rev() {
        match d {
            Done::Created(p) => {
                if let Err(e) = std::fs::remove_file(&p) {
                    left.push(format!("{} could not be removed ({e})", p.display()));
                }
            }
            Done::Replaced { target, saved } => {
                if let Err(e) = std::fs::rename(&saved, &target) {
                    left.push(format!(
                        "{} could not be restored from {} ({e})",
                        target.display(),
                        saved.display()
                    ));
                }
            }
        }
    }
    left
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
    let out_new = OutputDir::create(out.root(), false)?;
    let st_new = Staging::new(&out_new);
    let st_rep = Staging::new(&out);
    // (staged file, replaces an existing file)
    let mut steps: Vec<(Staged, bool)> = Vec::new();
    let abort = |steps: Vec<(Staged, bool)>, e: Error| -> Error {
        drop(steps);
        st_new.abort(Vec::new());
        st_rep.abort(Vec::new());
        Error::Other(format!("{e}; nothing was changed"))
    };

    // 1. Stage everything: backups, files, ini files, the record.
    for f in &report.files {
        if let FileAction::Replace { backup } = &f.action {
            let src = match out.resolve(&f.path) {
                Ok(p) => p,
                Err(e) => return Err(abort(steps, e)),
            };
            let r = st_new.stage(backup, |file| {
                let mut r = File::open(&src)?;
                std::io::copy(&mut r, &mut &*file).map(|_| ())
            });
            match r {
                Ok(s) => steps.push((s, false)),
                Err(e) => return Err(abort(steps, e)),
            }
        }
    }
    for (f, p) in report.files.iter().zip(&payloads) {
        let st = match f.action {
            FileAction::Unchanged | FileAction::Conflict => continue,
            FileAction::Create => &st_new,
            FileAction::Replace { .. } => &st_rep,
        };
        // One decoded member in memory at a time.
        let r = st.stage(&f.path, |file| {
            let mut w = file;
            match p {
                Payload::Member(e) => copy_entry_to_file(umod, e, file),
                Payload::Uz(e) => {
                    let d = decode_uz(umod, e).map_err(std::io::Error::other)?;
                    std::io::Write::write_all(&mut w, &d.data)
                }
                Payload::Bytes(b) => std::io::Write::write_all(&mut w, b),
            }
        });
        match r {
            Ok(s) => steps.push((s, !matches!(f.action, FileAction::Create))),
            Err(e) => return Err(abort(steps, e)),
        }
        on_progress(f.size);
    }
    let mut writes = ini_writes;
    writes.push((manifest_rel, manifest_bytes));
    for (rel, bytes) in &writes {
        let exists = out
            .resolve(rel)
            .map(|p| std::fs::symlink_metadata(p).is_ok())
            .unwrap_or(false);
        let st = if exists { &st_rep } else { &st_new };
        match st.stage(rel, |mut file| std::io::Write::write_all(&mut file, bytes)) {
            Ok(s) => steps.push((s, exists)),
            Err(e) => return Err(abort(steps, e)),
        }
    }

    // 2. Rename into place; undo on the first failure.
    let mut done: Vec<Done> = Vec::new();
    let mut pending = steps.into_iter();
    let mut n = 0;
    while let Some((s, replaces)) = pending.next() {
        let target = s.path().to_path_buf();
        let injected = opts.fail_after_renames == Some(n);
        let res = if injected {
            drop(s);
            Err(Error::Other(format!(
                "{}: injected failure (test hook)",
                target.display()
            )))
        } else if replaces {
            match save_for_rollback(&target, n) {
                Ok(saved) => st_rep.commit(vec![s]).map(|_| {
                    done.push(Done::Replaced {
                        target: target.clone(),
                        saved,
                    })
                }),
                Err(e) => Err(Error::io(&target, e)),
            }
        } else {
            st_new
                .commit(vec![s])
                .map(|_| done.push(Done::Created(target.clone())))
        };
        if let Err(e) = res {
            drop(pending.by_ref().collect::<Vec<_>>());
            let left = undo(done);
            st_new.abort(Vec::new());
            st_rep.abort(Vec::new());
            return Err(Error::Other(if left.is_empty() {
                format!(
                    "installing {} failed: {e}; every change was rolled back, the game folder is as it was",
                    show(&report.product)
                )
            } else {
                format!(
                    "installing {} failed: {e}; rolling back failed too, the game folder is NOT as it was: {}",
                    show(&report.product),
                    left.join("; ")
                )
            }));
        }
        n += 1;
    }
    for d in done {
        if let Done::Replaced { saved, .. } = d {
            let _ = std::fs::remove_file(saved);
        }
    }
    Ok(report)
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
    /// Folders removed because they became empty.
    pub removed_folders: Vec<String>,
    /// Nothing was changed.
    pub dry_run: bool,
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
    let mut recorded: Vec<String> = Vec::new();
    for f in sec.get_all("File") {
        if !recorded.iter().any(|r| fold(r) == fold(f)) {
            recorded.push(f.to_string());
        }
    }
    let mut files = Vec::new();
    let mut folders: Vec<PathBuf> = Vec::new();
    for dest in recorded {
        let key = format!("File:{dest}");
        let refs = ini.get("RefCounts", &key).map(atoi).unwrap_or(0) - 1;
        let used_by: Vec<String> = ini
            .sections
            .iter()
            .filter(|s| !s.name.eq_ignore_ascii_case(&name))
            .filter(|s| {
                !s.name.eq_ignore_ascii_case("RefCounts") && !s.name.eq_ignore_ascii_case("Setup")
            })
            .filter(|s| s.get_all("File").any(|f| fold(f) == fold(&dest)))
            .map(|s| s.name.clone())
            .collect();
        let rc = ini.section_or_insert("RefCounts");
        if refs > 0 {
            rc.set(&key, &refs.to_string());
        } else {
            rc.remove_key(&key);
        }
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
                    if let Some(p) = path.parent() {
                        folders.push(p.to_path_buf());
                    }
                }
                verdict
            }
        };
        files.push(UninstallFile { dest, action });
    }
    let mut removed_folders = Vec::new();
    if !dry_run {
        // Remove folders left empty, deepest first, never the game root.
        folders.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
        folders.dedup();
        for mut dir in folders {
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
        keep_names(&mut ini);
        out.write(&ini_rel, &ini.to_bytes())?;
    }
    Ok(UninstallReport {
        product: name,
        files,
        removed_folders,
        dry_run,
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
    fn ini_targets() {
        assert!(super::ini_target_refusal("System\\UnrealTournament.ini").is_none());
        assert!(super::ini_target_refusal("System\\Mod.INT").is_none());
        assert!(super::ini_target_refusal("System\\Manifest.ini").is_some());
        assert!(super::ini_target_refusal("System/manifest.INT").is_some());
        assert!(super::ini_target_refusal("System\\Engine.u").is_some());
        assert!(super::ini_target_refusal("Maps\\DM-Deck16.unr").is_some());
    }
}
