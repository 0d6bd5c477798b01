//! `pakrat registry`'s options (`AssetRegistry.bin`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::args::JsonArg;

/// `pakrat registry`.
#[derive(Subcommand, Debug)]
pub enum RegistryCommand {
    /// Summary: version, names, assets, dependency nodes, package data, classes.
    Info(RegistryFileArgs),
    /// The assets: object path, class and (with --tags) tags.
    List(RegistryListArgs),
    /// Check that the registry reads, its references point inside it, and
    /// that it writes back byte for byte.
    Verify(RegistryFileArgs),
    /// Add a mod's assets, dependencies and package data to a game's
    /// registry (replacing entries of the same path) and write the result.
    Merge(RegistryMergeArgs),
}

/// `pakrat registry info|verify`.
#[derive(Args, Debug)]
pub struct RegistryFileArgs {
    /// The AssetRegistry.bin.
    pub file: PathBuf,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat registry list`.
#[derive(Args, Debug)]
pub struct RegistryListArgs {
    /// The AssetRegistry.bin.
    pub file: PathBuf,
    /// Text output: print each asset's tags under it (JSON always has them).
    #[arg(long)]
    pub tags: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

/// `pakrat registry merge`.
#[derive(Args, Debug)]
pub struct RegistryMergeArgs {
    /// The game's AssetRegistry.bin.
    pub game: PathBuf,
    /// The mod's AssetRegistry.bin (same registry version).
    pub add: PathBuf,
    /// Where to write the merged registry.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
