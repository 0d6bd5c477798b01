//! Planning an install: every check, every file's bytes and the new
//! record, found without writing anything.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;

use pakrat_io::crc::MEM_CRC;
use pakrat_io::fsutil::OutputDir;
use pakrat_io::ini::{Ini, MAX_INI_SIZE};
use pakrat_io::text::show;
use pakrat_io::{Error, Result};

use super::ini_edit::{base_name, edit_ini_bytes, keep_names, plan_ini_edits};
use super::log::uninstall_log;
use super::record::{game_manifest, owned_records, read_regular, Owned};
use super::{
    check_requirements, nothing_changed, FileAction, IniEdit, InstallFile, InstallOptions,
    InstallReport, RequirementCheck, OWNER_MARK,
};
use crate::archive::{fold, Entry, Umod};
use crate::extract::check_before_writing;
use crate::journal::JOURNAL;
use crate::manifest::{FileRecord, Manifest, RecordKind, MANIFEST_INI};
use crate::paths::{check_way, CaseMap};

pub(super) fn backup_name(out: &OutputDir, rel: &str, taken: &HashSet<String>) -> Result<String> {
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
pub(super) enum Payload<'a> {
    /// A member, copied as it is.
    Member(&'a Entry),
    /// A `.uz` member decoded on the way (decoded again when staged).
    Uz(&'a Entry),
    /// Bytes made while planning (an ini member edited by `Ini=`).
    Bytes(Vec<u8>),
}

pub(super) fn decode_uz(umod: &Umod<'_>, e: &Entry) -> Result<pakrat_uz::Decompressed> {
    pakrat_uz::decompress(umod.entry_data(e)?)
        .map_err(|err| Error::Other(format!("decoding {}: {err}", show(&e.name))))
}

/// Whether the file at `path` is a regular file holding exactly `data`.
pub(super) fn same_file(path: &Path, data: &[u8]) -> Result<bool> {
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

/// Everything an install will do, found without writing anything.
pub(super) struct Plan<'a> {
    pub(super) report: InstallReport,
    pub(super) payloads: Vec<Payload<'a>>,
    pub(super) out: OutputDir,
    /// Ini files rewritten: (relative path, new bytes).
    pub(super) ini_writes: Vec<(String, Vec<u8>)>,
    pub(super) manifest_rel: String,
    pub(super) manifest_bytes: Vec<u8>,
}

/// What the game's record already holds: this product's earlier pakrat
/// install, and the files other products list or own.
#[derive(Default)]
pub(super) struct Known {
    /// A pakrat install of the same product is redone.
    pub(super) reinstall: bool,
    /// The earlier install's ownership records (folded dest → record).
    pub(super) old_owned: HashMap<String, Owned>,
    /// The earlier install's `File=` lines.
    pub(super) old_files: Vec<String>,
    /// Other products' ownership records: identical bytes they put there
    /// stay owned (so the last product to go removes them).
    pub(super) others_owned: HashMap<String, Owned>,
    /// Every file another product lists (`File=`), owned or not, for the
    /// shared counts.
    pub(super) others_list: HashSet<String>,
}

impl Known {
    /// Read the game's record. A product may not take over another one's
    /// record (the base game's included); a pakrat install of the same
    /// product may be redone.
    fn read(game_ini: Option<&Ini>, product: &str, manifest_rel: &str) -> Result<Known> {
        let mut known = Known::default();
        let Some(ini) = game_ini else {
            return Ok(known);
        };
        let in_group = ini.sections_named("Setup").any(|s| {
            s.get_all("Group")
                .any(|g| g.trim().eq_ignore_ascii_case(product))
        });
        if let Some(sec) = ini.section(product) {
            if sec.get(OWNER_MARK).is_none() {
                let v = sec.get("Version").unwrap_or("");
                return Err(Error::Other(format!(
                    "Product={} collides with the installed product [{}]{}, which pakrat did not install: a UMOD may not take over another product's record; nothing was changed",
                    show(product),
                    show(&sec.name),
                    if v.is_empty() { String::new() } else { format!(" (version {})", show(v)) }
                )));
            }
            known.reinstall = true;
            known.old_owned = owned_records(sec);
            known.old_files = sec.get_all("File").map(str::to_string).collect();
        } else if in_group {
            return Err(Error::Other(format!(
                "Product={} is already recorded in [Setup] Group= of {}: refusing to take it over; nothing was changed",
                show(product),
                show(manifest_rel)
            )));
        }
        for s in &ini.sections {
            if s.name.eq_ignore_ascii_case(product)
                || s.name.eq_ignore_ascii_case("Setup")
                || s.name.eq_ignore_ascii_case("RefCounts")
            {
                continue;
            }
            known.others_list.extend(s.get_all("File").map(fold));
            if s.get(OWNER_MARK).is_some() {
                known.others_owned.extend(owned_records(s));
            }
        }
        Ok(known)
    }

    /// Whether the bytes of `f` (already there, unchanged) were put there
    /// by a pakrat install: another product's or this one's earlier one.
    fn owns_already(&self, f: &InstallFile) -> bool {
        let key = fold(&f.dest);
        let want = Owned {
            crc: f.crc,
            size: f.size,
        };
        self.others_owned.get(&key) == Some(&want) || self.old_owned.get(&key) == Some(&want)
    }
}

/// The files of an install and where the bytes of each come from (one
/// payload per file, in the same order).
pub(super) struct Files<'a> {
    files: Vec<InstallFile>,
    payloads: Vec<Payload<'a>>,
}

/// What uninstall needs to put the folder back as it was (issue 31
/// item 4), beside the ownership records: the folders this install
/// creates and the ini pairs it adds to the game's files (the backups it
/// makes are in the files' actions).
pub(super) struct Undo {
    pub(super) made_dirs: Vec<String>,
    pub(super) ini_added: Vec<String>,
}

pub(super) fn make_plan<'a>(
    umod: &'a Umod<'_>,
    game_dir: &Path,
    opts: &InstallOptions,
) -> Result<Plan<'a>> {
    check_game_dir(game_dir)?;
    check_before_writing(umod, false)?;
    let m = Manifest::from_umod(umod)?.ok_or_else(|| {
        Error::Other("this UMOD has no System\\Manifest.ini: nothing says what to install".into())
    })?;
    let product = product_name(&m)?;
    let version = m.version.clone().unwrap_or_default();
    let mut notes = Vec::new();
    let mut map = CaseMap::new(game_dir);
    let out = OutputDir::create(game_dir, true)?;
    let (manifest_rel, _, game_ini) = game_manifest(&mut map, &out)?;
    let known = Known::read(game_ini.as_ref(), &product, &manifest_rel)?;
    let requirements = requirements_met(&m, game_dir, game_ini.as_ref(), opts, &mut notes)?;

    let mut planned = plan_files(umod, &m, &mut map, &out, opts, &mut notes)?;
    refuse_file_folder_clash(&planned.files)?;
    refuse_conflicts(&planned.files, opts)?;
    let mut ini_edits = plan_ini_edits(&m, &mut map)?;
    let ini_writes = planned.edit_inis(umod, &out, &mut ini_edits, opts)?;
    if !opts.dry_run
        && planned
            .files
            .iter()
            .any(|f| f.action == FileAction::Conflict)
    {
        return Err(Error::Other(
            "an Ini= edit changes an installed file that exists with different content (use --force); nothing was changed".into(),
        ));
    }
    let Files {
        mut files,
        payloads,
    } = planned;
    own_and_back_up(&mut files, &known, &out)?;
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
    if known.reinstall {
        check_reinstall(&files, &known, &product)?;
        notes.push(format!(
            "{} was installed by pakrat: reinstalled",
            show(&product)
        ));
    }

    let undo = Undo {
        made_dirs: made_dirs(&files, &out)?,
        ini_added: ini_added(&ini_edits, &ini_writes),
    };
    let mut ini = uninstall_log(game_ini, &m, &product, &version, &files, &known, &undo);
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
            reinstall: known.reinstall,
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

/// The game folder must be a folder.
pub(super) fn check_game_dir(game_dir: &Path) -> Result<()> {
    let meta = std::fs::metadata(game_dir).map_err(|e| Error::io(game_dir, e))?;
    if !meta.is_dir() {
        return Err(Error::Other(format!(
            "{} is not a folder",
            game_dir.display()
        )));
    }
    Ok(())
}

/// The manifest's `Product=`, refused when it cannot be a section of the
/// game's record.
pub(super) fn product_name(m: &Manifest) -> Result<String> {
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
    Ok(product)
}

/// The requirement checks; any that fails refuses the install unless
/// `ignore_requirements` (then it is noted).
pub(super) fn requirements_met(
    m: &Manifest,
    game_dir: &Path,
    game_ini: Option<&Ini>,
    opts: &InstallOptions,
    notes: &mut Vec<String>,
) -> Result<Vec<RequirementCheck>> {
    let requirements = check_requirements(m, game_dir, game_ini);
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
    Ok(requirements)
}

/// Every `File=` record to install (not `Copy=`, in the install language,
/// the first of records with the same destination), checked, sized and
/// compared with what is on disk.
pub(super) fn plan_files<'a>(
    umod: &'a Umod<'_>,
    m: &Manifest,
    map: &mut CaseMap,
    out: &OutputDir,
    opts: &InstallOptions,
    notes: &mut Vec<String>,
) -> Result<Files<'a>> {
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
        refuse_dest(&dest, rec)?;
        let entry = umod.find(rec.member_name()).ok_or_else(|| {
            Error::Other(format!(
                "the manifest installs {} but the archive has no such member",
                show(&rec.src)
            ))
        })?;
        let rel = map.map(&dest)?;
        let path = out.resolve(&rel)?;
        check_way(out, &rel, &path).map_err(nothing_changed)?;
        let exists = std::fs::symlink_metadata(&path).is_ok();
        let (payload, size, crc, same) = measure(umod, entry, rec, &path, exists, notes)?;
        let action = if !exists {
            FileAction::Create
        } else if same {
            FileAction::Unchanged
        } else {
            replace_or_conflict(opts)
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
    Ok(Files { files, payloads })
}

/// A file that exists with other bytes: replaced with `force` (the backup
/// is named once every path is known), else a conflict.
pub(super) fn replace_or_conflict(opts: &InstallOptions) -> FileAction {
    if opts.force {
        FileAction::Replace {
            backup: String::new(),
        }
    } else {
        FileAction::Conflict
    }
}

/// Destinations a UMOD may not install to: pakrat's journal, the game's
/// records; and delta members, which are not supported.
pub(super) fn refuse_dest(dest: &str, rec: &FileRecord) -> Result<()> {
    if fold(dest) == JOURNAL {
        return Err(Error::Other(format!(
            "refusing to install {}: that name is pakrat's install journal; nothing was changed",
            show(dest)
        )));
    }
    let base = base_name(dest).to_ascii_lowercase();
    if fold(dest) == fold(MANIFEST_INI)
        || (fold(dest).starts_with("system\\")
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
    Ok(())
}

/// One member's installed bytes: where they come from, their size and
/// CRC, and whether the file at `path` already holds them. One member is
/// decoded at a time: sized, CRC'd, compared, dropped.
pub(super) fn measure<'a>(
    umod: &'a Umod<'_>,
    entry: &'a Entry,
    rec: &FileRecord,
    path: &Path,
    exists: bool,
    notes: &mut Vec<String>,
) -> Result<(Payload<'a>, u64, u32, bool)> {
    if rec.decodes_uz() {
        let d = decode_uz(umod, entry)?;
        if d.info.signature != Some(pakrat_uz::UzSignature::S5678) {
            notes.push(format!(
                "{} is not a signature-5678 .uz file; the engine's Setup would refuse it, pakrat decoded it anyway",
                show(&rec.src)
            ));
        }
        let size = d.data.len() as u64;
        let crc = MEM_CRC.checksum(&d.data);
        let same = exists && same_file(path, &d.data)?;
        Ok((Payload::Uz(entry), size, crc, same))
    } else {
        let data = umod.entry_data(entry)?;
        let crc = MEM_CRC.checksum(data);
        let same = exists && same_file(path, data)?;
        Ok((Payload::Member(entry), data.len() as u64, crc, same))
    }
}

/// The folders of a path, folded with `\` (`a\b\c` gives `a`, `a\b`).
pub(super) fn folded_folders(path: &str) -> Vec<String> {
    let p = fold(&path.replace('/', "\\"));
    let mut v = Vec::new();
    let mut at = 0;
    while let Some(i) = p[at..].find('\\') {
        v.push(p[..at + i].to_string());
        at += i + 1;
    }
    v
}

/// A destination that is another's folder ("Y\B" and "Y"): refused.
pub(super) fn refuse_file_folder_clash(files: &[InstallFile]) -> Result<()> {
    let folders: HashMap<String, &str> = files
        .iter()
        .flat_map(|f| {
            folded_folders(&f.path)
                .into_iter()
                .map(|d| (d, f.dest.as_str()))
        })
        .collect();
    for f in files {
        if let Some(other) = folders.get(&fold(&f.path.replace('/', "\\"))) {
            return Err(Error::Other(format!(
                "the manifest installs {} as a file and as the folder of {}: refusing; nothing was changed",
                show(&f.dest),
                show(other)
            )));
        }
    }
    Ok(())
}

/// Files in the way with other bytes refuse a real install (not a dry run).
pub(super) fn refuse_conflicts(files: &[InstallFile], opts: &InstallOptions) -> Result<()> {
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
    Ok(())
}

impl Files<'_> {
    /// Apply the ini edits: on the installed copy when the mod installs
    /// that ini itself, else on the file in the game folder. Returns the
    /// game's ini files rewritten (relative path, new bytes).
    fn edit_inis(
        &mut self,
        umod: &Umod<'_>,
        out: &OutputDir,
        ini_edits: &mut [IniEdit],
        opts: &InstallOptions,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let mut targets: Vec<String> = Vec::new();
        for e in ini_edits.iter().filter(|e| e.applied) {
            if !targets.contains(&e.file) {
                targets.push(e.file.clone());
            }
        }
        let mut ini_writes = Vec::new();
        for t in targets {
            let path = out.resolve(&t)?;
            check_way(out, &t, &path).map_err(nothing_changed)?;
            let folded = fold(&t.replace('/', "\\"));
            if let Some(i) = self
                .files
                .iter()
                .position(|f| fold(&f.path.replace('/', "\\")) == folded)
            {
                self.edit_installed_ini(umod, i, &t, &path, ini_edits, opts)?;
            } else if std::fs::symlink_metadata(&path).is_err() {
                for e in ini_edits.iter_mut().filter(|e| e.applied && e.file == t) {
                    e.applied = false;
                    e.note = format!(
                        "{} does not exist: not created (edit it once the game made it)",
                        show(&t)
                    );
                }
            } else {
                let bytes = read_regular(&path, &t, MAX_INI_SIZE)?;
                let new = edit_ini_bytes(&bytes, &t, ini_edits)?;
                if new != bytes {
                    ini_writes.push((t, new));
                }
            }
        }
        Ok(ini_writes)
    }

    /// Edit the ini the mod installs itself (file `i`): its bytes become
    /// the edited ones, and its action is decided again against them.
    fn edit_installed_ini(
        &mut self,
        umod: &Umod<'_>,
        i: usize,
        t: &str,
        path: &Path,
        ini_edits: &mut [IniEdit],
        opts: &InstallOptions,
    ) -> Result<()> {
        let base = match &self.payloads[i] {
            Payload::Member(e) => umod.entry_data(e)?.to_vec(),
            Payload::Uz(e) => decode_uz(umod, e)?.data,
            Payload::Bytes(b) => b.clone(),
        };
        if base.len() as u64 > MAX_INI_SIZE {
            return Err(Error::Other(format!(
                "{} is too large to be an ini file; nothing was changed",
                show(t)
            )));
        }
        let new = edit_ini_bytes(&base, t, ini_edits)?;
        let f = &mut self.files[i];
        f.size = new.len() as u64;
        f.crc = MEM_CRC.checksum(&new);
        f.ini_edited = true;
        if f.action == FileAction::Unchanged && !same_file(path, &new)? {
            f.action = replace_or_conflict(opts);
        }
        self.payloads[i] = Payload::Bytes(new);
        Ok(())
    }
}

/// Which files are recorded as this product's, and the backup names of
/// the files replaced.
pub(super) fn own_and_back_up(
    files: &mut [InstallFile],
    known: &Known,
    out: &OutputDir,
) -> Result<()> {
    let mut taken: HashSet<String> = files.iter().map(|f| fold(&f.path)).collect();
    for f in files {
        f.owned = match &f.action {
            FileAction::Create | FileAction::Replace { .. } => true,
            FileAction::Unchanged => known.owns_already(f),
            FileAction::Conflict => false,
        };
        if let FileAction::Replace { backup } = &mut f.action {
            *backup = backup_name(out, &f.path, &taken)?;
            taken.insert(fold(backup));
        }
    }
    Ok(())
}

/// A reinstall keeps every file of the old record.
pub(super) fn check_reinstall(files: &[InstallFile], known: &Known, product: &str) -> Result<()> {
    let new: HashSet<String> = files.iter().map(|f| fold(&f.dest)).collect();
    let dropped: Vec<String> = known
        .old_files
        .iter()
        .filter(|d| !new.contains(&fold(d)))
        .map(|d| show(d).into_owned())
        .collect();
    if !dropped.is_empty() {
        return Err(Error::Other(format!(
            "{} is installed with files this UMOD does not install ({}): uninstall it first (pakrat umod uninstall {}); nothing was changed",
            show(product),
            dropped.join(", "),
            show(product)
        )));
    }
    Ok(())
}

/// The folders this install creates (for the files it writes), parents
/// first.
pub(super) fn made_dirs(files: &[InstallFile], out: &OutputDir) -> Result<Vec<String>> {
    let mut made_dirs: Vec<String> = Vec::new();
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
            if seen.insert(cur.clone()) && std::fs::symlink_metadata(out.resolve(&cur)?).is_err() {
                made_dirs.push(cur.clone());
            }
        }
    }
    Ok(made_dirs)
}

/// The pairs the install adds to the game's ini files, as `PakratIni=`
/// values (`file|section|key|value`; a pair whose names hold `|` is not
/// recorded).
pub(super) fn ini_added(ini_edits: &[IniEdit], ini_writes: &[(String, Vec<u8>)]) -> Vec<String> {
    let written: HashSet<&str> = ini_writes.iter().map(|(r, _)| r.as_str()).collect();
    ini_edits
        .iter()
        .filter(|e| e.applied && e.note.starts_with("added") && written.contains(e.file.as_str()))
        .filter(|e| {
            ![&e.file, &e.section, &e.name]
                .iter()
                .any(|x| x.contains('|'))
        })
        .map(|e| format!("{}|{}|{}|{}", e.file, e.section, e.name, e.value))
        .collect()
}
