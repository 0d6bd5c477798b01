//! Handlers for system commands.

use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::args::*;

/// `deps` for this format.
pub fn deps(_a: &DepsArgs) -> Result<ExitCode> {
    bail!("deps: not implemented yet")
}

/// `scan` for this format.
pub fn scan(_a: &ScanArgs) -> Result<ExitCode> {
    bail!("scan: not implemented yet")
}

/// `flags` for this format.
pub fn flags(_a: &FlagsArgs) -> Result<ExitCode> {
    bail!("flags: not implemented yet")
}

/// `cache_list` for this format.
pub fn cache_list(_a: &CacheListArgs) -> Result<ExitCode> {
    bail!("cache_list: not implemented yet")
}

/// `cache_restore` for this format.
pub fn cache_restore(_a: &CacheRestoreArgs) -> Result<ExitCode> {
    bail!("cache_restore: not implemented yet")
}
