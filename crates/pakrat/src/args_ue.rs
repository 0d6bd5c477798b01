//! Options shared by the commands that read UE4/UE5 packages' contents.

use std::path::PathBuf;

use clap::Args;

use crate::args::KeyArgs;

/// How a UE4/UE5 package is read: mappings, engine release, global
/// container and keys (`props`, `props apply|set`, `export`).
#[derive(Args, Debug, Clone, Default)]
pub struct UeReadArgs {
    /// UE4/UE5 unversioned properties: the game's .usmap mappings.
    #[arg(long, value_name = "FILE")]
    pub usmap: Option<PathBuf>,
    /// UE4/UE5 unversioned packages: the engine release they were cooked
    /// with (e.g. 4.27, 5.4).
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// IoStore: the global.utoc resolving script imports (default: one
    /// beside the container or in a parent folder).
    #[arg(long, value_name = "FILE")]
    pub global: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
}
