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
//!   reference count decremented and is deleted only when no product uses it
//!   any more; emptied folders are removed.
//!
//! Unlike the engine's Setup, pakrat never replaces an existing file with
//! different content unless asked (`force`), and then keeps a backup.
//!
//! Ini edits (UT432 `ProcessExtra`/`ProcessPostCopy`): `Ini=File,Section.Key=Value`
//! sets the key (but adds to list keys such as `ServerPackages`, which the
//! engine's Setup erased before UT v469); `AddIni=File,Section.Key=Value` adds
//! the pair unless present
//! (multi-valued keys such as `ServerPackages`). `File` is game-root relative,
//! except that a bare `UnrealTournament.ini` in `AddIni=` means the one in
//! `System` (Setup runs there). The section is what precedes the last `.`.
//! Every other line of the ini is kept; an ini file that does not exist is not
//! created (the game makes its ini from `Default.ini` when it is missing) and
//! values with `%` substitutions are not applied: both are reported. Like the
//! engine's Setup, uninstall does not revert ini edits. `SaveIni=` is reported.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use pakrat_io::fsutil::OutputDir;
use pakrat_io::staged::Staging;
use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::{fold, Entry, Umod};
use crate::create::find_source;
use crate::extract::{check_before_writing, copy_entry_to_file};
use crate::manifest::{FileRecord, Manifest, RecordKind, MANIFEST_INI};
use crate::paths::CaseMap;
use pakrat_io::ini::Ini;

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
}

impl Default for InstallOptions {
    fn default() -> Self {
        InstallOptions {
            dry_run: false,
            force: false,
            ignore_requirements: false,
            language: "int".into(),
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
    /// Decoded from `.uz` on the way.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub decoded_uz: bool,
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
    /// Requirement checks.
    pub requirements: Vec<RequirementCheck>,
    /// Files.
    pub files: Vec<InstallFile>,
    /// Ini edits, applied or not.
    pub ini_edits: Vec<IniEdit>,
    /// Notes: skipped languages, ignored requirements.
    pub notes: Vec<String>,
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

fn plan_ini_edits(m: &Manifest, map: &mut CaseMap) -> Vec<IniEdit> {
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
                        "skipped: {rest} applies only when [{}] is not selected",
                        g.name
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
                    e.file = file;
                    e.note = format!("refused: {err}");
                }
            }
            out.push(e);
        }
    }
    out
}

/// Apply the planned edits (those with `applied`), one rewrite per ini file.
/// Edits whose file does not exist are marked not applied.
fn apply_ini_edits(edits: &mut [IniEdit], out: &OutputDir, write: bool) -> Result<()> {
    let mut files: Vec<String> = edits
        .iter()
        .filter(|e| e.applied)
        .map(|e| e.file.clone())
        .collect();
    files.dedup();
    let mut done = HashSet::new();
    for f in files {
        if !done.insert(f.clone()) {
            continue;
        }
        let path = out.resolve(&f)?;
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(_) => {
                for e in edits.iter_mut().filter(|e| e.applied && e.file == f) {
                    e.applied = false;
                    e.note =
                        format!("{f} does not exist: not created (edit it once the game made it)");
                }
                continue;
            }
        };
        let mut ini = Ini::parse(&bytes);
        for e in edits.iter_mut().filter(|e| e.applied && e.file == f) {
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
        let new = ini.to_bytes();
        if write && new != bytes {
            out.write(&f, &new)?;
        }
    }
    Ok(())
}

/// The game's `System\Manifest.ini`: relative path and contents.
fn game_manifest(map: &mut CaseMap) -> Result<(String, Option<Ini>)> {
    let rel = map.map(MANIFEST_INI)?;
    let path = map.root().join(&rel);
    match std::fs::read(&path) {
        Ok(b) => Ok((rel, Some(Ini::parse(&b)))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((rel, None)),
        Err(e) => Err(Error::io(path, e)),
    }
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

fn same_content(path: &Path, data: &[u8]) -> Result<bool> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() || meta.len() != data.len() as u64 {
        return Ok(false);
    }
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
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

fn backup_name(out: &OutputDir, rel: &str) -> Result<String> {
    for i in 0..1000 {
        let cand = if i == 0 {
            format!("{rel}.pakrat-bak")
        } else {
            format!("{rel}.pakrat-bak{i}")
        };
        if std::fs::symlink_metadata(out.resolve(&cand)?).is_err() {
            return Ok(cand);
        }
    }
    Err(Error::Other(format!("no free backup name for {rel}")))
}

enum Payload<'a> {
    Member(&'a Entry),
    Decoded(Vec<u8>),
}

/// Install `umod` into `game_dir`.
pub fn install(umod: &Umod<'_>, game_dir: &Path, opts: &InstallOptions) -> Result<InstallReport> {
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
        .filter(|p| !p.trim().is_empty())
        .ok_or_else(|| Error::Other("the manifest's [Setup] has no Product=".into()))?;
    if product.contains(['[', ']', '\r', '\n'])
        || product.eq_ignore_ascii_case("Setup")
        || product.eq_ignore_ascii_case("RefCounts")
    {
        return Err(Error::Other(format!("refusing product name {product:?}")));
    }
    let version = m.version.clone().unwrap_or_default();
    let mut notes = Vec::new();
    let mut map = CaseMap::new(game_dir);
    let (ini_rel, game_ini) = game_manifest(&mut map)?;
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

    let out = OutputDir::create(game_dir, true)?;
    let mut files = Vec::new();
    let mut payloads = Vec::new();
    let mut seen = HashSet::new();
    let recs: Vec<&FileRecord> = m.records().collect();
    for rec in recs {
        if rec.kind == RecordKind::Copy {
            continue;
        }
        if let Some(l) = &rec.lang {
            if !l.eq_ignore_ascii_case(&opts.language) {
                notes.push(format!("skipped {} (Lang={l})", rec.src));
                continue;
            }
        }
        let dest = rec.install_dest().replace('/', "\\");
        if !seen.insert(fold(&dest)) {
            notes.push(format!(
                "{dest} is installed by more than one record; the first wins"
            ));
            continue;
        }
        if fold(&dest) == fold(MANIFEST_INI) {
            return Err(Error::Other(format!(
                "refusing to install over the game's {MANIFEST_INI} (File=(Src={}))",
                rec.src
            )));
        }
        if rec.reference.is_some() {
            return Err(Error::Other(format!(
                "{} is a delta patch (Ref={}); installing delta members is not supported",
                rec.src,
                rec.reference.as_deref().unwrap_or("")
            )));
        }
        let entry = umod.find(rec.member_name()).ok_or_else(|| {
            Error::Other(format!(
                "the manifest installs {} but the archive has no such member",
                rec.src
            ))
        })?;
        let rel = map.map(&dest)?;
        let (payload, size, decoded) = if rec.decodes_uz() {
            let d = pakrat_uz::decompress(umod.entry_data(entry)?)
                .map_err(|e| Error::Other(format!("decoding {}: {e}", rec.src)))?;
            if d.info.signature != Some(pakrat_uz::UzSignature::S5678) {
                notes.push(format!(
                    "{} is not a signature-5678 .uz file; the engine's Setup would refuse it, pakrat decoded it anyway",
                    rec.src
                ));
            }
            let n = d.data.len() as u64;
            (Payload::Decoded(d.data), n, true)
        } else {
            (Payload::Member(entry), u64::from(entry.size), false)
        };
        let path = out.resolve(&rel)?;
        let action = if std::fs::symlink_metadata(&path).is_err() {
            FileAction::Create
        } else {
            let bytes: &[u8] = match &payload {
                Payload::Member(e) => umod.entry_data(e)?,
                Payload::Decoded(v) => v,
            };
            if same_content(&path, bytes)? {
                FileAction::Unchanged
            } else if opts.force {
                FileAction::Replace {
                    backup: backup_name(&out, &rel)?,
                }
            } else {
                FileAction::Conflict
            }
        };
        files.push(InstallFile {
            member: entry.name.clone(),
            dest,
            path: rel,
            size,
            decoded_uz: decoded,
            action,
        });
        payloads.push(payload);
    }
    let mut ini_edits = plan_ini_edits(&m, &mut map);
    let conflicts: Vec<&str> = files
        .iter()
        .filter(|f| f.action == FileAction::Conflict)
        .map(|f| f.path.as_str())
        .collect();
    if !conflicts.is_empty() && !opts.dry_run {
        return Err(Error::Other(format!(
            "these files exist with different content (use --force to replace them; a backup is kept), nothing was changed: {}",
            conflicts.join(", ")
        )));
    }
    if opts.dry_run {
        apply_ini_edits(&mut ini_edits, &out, false)?;
        return Ok(InstallReport {
            product,
            version,
            requirements,
            files,
            ini_edits,
            notes,
            dry_run: true,
        });
    }
    let mut report = InstallReport {
        product: product.clone(),
        version: version.clone(),
        requirements,
        files,
        ini_edits: Vec::new(),
        notes,
        dry_run: false,
    };

    // Stage every new file first (nothing visible yet), then keep backups of
    // the files being replaced, then rename everything into place.
    let staging = Staging::new(&out);
    let mut staged = Vec::new();
    for (f, p) in report.files.iter().zip(&payloads) {
        if f.action == FileAction::Unchanged {
            continue;
        }
        let r = staging.stage(&f.path, |file| match p {
            Payload::Member(e) => copy_entry_to_file(umod, e, file),
            Payload::Decoded(v) => {
                let mut w = file;
                std::io::Write::write_all(&mut w, v)
            }
        });
        match r {
            Ok(s) => staged.push(s),
            Err(e) => {
                staging.abort(staged);
                return Err(Error::Other(format!("{e}; nothing was changed")));
            }
        }
    }
    for f in &report.files {
        if let FileAction::Replace { backup } = &f.action {
            let src = out.resolve(&f.path)?;
            let bak = OutputDir::create(game_dir, false)?;
            if let Err(e) = bak.write_with(backup, |w| {
                let mut r = File::open(&src)?;
                std::io::copy(&mut r, w).map(|_| ())
            }) {
                staging.abort(staged);
                return Err(e);
            }
        }
    }
    staging.commit(staged)?;

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
        for f in &report.files {
            if sec.add_unique("File", &f.dest) {
                newly.push(f.dest.clone());
            }
        }
    }
    let rc = ini.section_or_insert("RefCounts");
    for d in newly {
        let key = format!("File:{d}");
        let n = rc.get(&key).map(atoi).unwrap_or(0) + 1;
        rc.set(&key, &n.to_string());
    }
    out.write(&ini_rel, &ini.to_bytes())?;
    apply_ini_edits(&mut ini_edits, &out, true)?;
    report.ini_edits = ini_edits;
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

/// Remove an installed product from `game_dir`.
pub fn uninstall(product: &str, game_dir: &Path, dry_run: bool) -> Result<UninstallReport> {
    let mut map = CaseMap::new(game_dir);
    let (ini_rel, ini) = game_manifest(&mut map)?;
    let mut ini = ini.ok_or_else(|| {
        Error::Other(format!(
            "{}: no System\\Manifest.ini, so no installed product is recorded",
            game_dir.display()
        ))
    })?;
    let groups: Vec<String> = ini
        .section("Setup")
        .map(|s| s.get_all("Group").map(str::to_string).collect())
        .unwrap_or_default();
    let Some(sec) = ini.section(product) else {
        return Err(Error::Other(format!(
            "{product:?} is not installed here; recorded products: {}",
            groups.join(", ")
        )));
    };
    let name = sec.name.clone();
    let mut recorded: Vec<String> = Vec::new();
    for f in sec.get_all("File") {
        if !recorded.iter().any(|r| fold(r) == fold(f)) {
            recorded.push(f.to_string());
        }
    }
    let out = OutputDir::create(game_dir, true)?;
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
            Ok(_) => {
                if !dry_run {
                    std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
                }
                if let Some(p) = path.parent() {
                    folders.push(p.to_path_buf());
                }
                UninstallAction::Remove
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
}
