//! Handlers for package commands.

use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::args::*;

/// `info` for this format.
pub fn info(_a: &InfoArgs) -> Result<ExitCode> {
    bail!("info: not implemented yet")
}

/// `list` for this format.
pub fn list(_a: &ListArgs) -> Result<ExitCode> {
    bail!("list: not implemented yet")
}

/// `verify` for this format.
pub fn verify(_a: &VerifyArgs) -> Result<ExitCode> {
    bail!("verify: not implemented yet")
}

/// `props` for this format.
pub fn props(_a: &PropsArgs) -> Result<ExitCode> {
    bail!("props: not implemented yet")
}

/// `export` for this format.
pub fn export(_a: &ExportArgs) -> Result<ExitCode> {
    bail!("export: not implemented yet")
}
