//! `pakrat asset ...`: edits across a folder of UE4/UE5 legacy packages.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::args::JsonArg;

/// `pakrat asset ...`.
#[derive(Subcommand, Debug)]
pub enum AssetCommand {
    /// Rename a package path or a folder of packages (`/Game/A/B` or
    /// `/Game/A`) in every legacy package under a folder (names, imports,
    /// soft references, package names, asset registry data) and move the
    /// renamed packages' files: the UE4/UE5 string replacer.
    Rename(AssetRenameArgs),
}

/// `pakrat asset rename`.
#[derive(Args, Debug)]
pub struct AssetRenameArgs {
    /// The path as it is: a package (`/Game/Fixtures/Textures/T_BC1`) or a
    /// folder (`/Game/Fixtures/Textures`).
    pub old_path: String,
    /// The new path (`/Game/ModTextures`).
    pub new_path: String,
    /// Folder of cooked legacy packages (.uasset/.umap + .uexp + bulk files),
    /// e.g. made by `pakrat extract` or `pakrat zen to-legacy`; nothing is
    /// written outside it.
    pub dir: PathBuf,
    /// The game's .usmap mappings: unversioned packages whose properties
    /// hold the old path as text (strings, soft object paths) are
    /// rewritten through them (without, such a package stops the run).
    #[arg(long, value_name = "FILE")]
    pub usmap: Option<PathBuf>,
    /// The engine release of unversioned packages (e.g. 5.4).
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// Print every change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
