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

mod commit;
mod ini_edit;
mod log;
mod plan;
mod record;
mod requirements;
mod uninstall;

use std::path::Path;

use pakrat_io::{Error, Result};
use serde::Serialize;

use crate::archive::Umod;
use crate::journal::{self, Recovery, JOURNAL};
use commit::commit_plan;
use plan::make_plan;

pub use requirements::check_requirements;
pub use uninstall::{
    uninstall, uninstall_with, UninstallAction, UninstallFile, UninstallOptions, UninstallReport,
};

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

/// `e`, saying that the game folder was left as it was.
fn nothing_changed(e: Error) -> Error {
    Error::Other(format!("{e}; nothing was changed"))
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
