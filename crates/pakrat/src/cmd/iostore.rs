//! Handlers for iostore commands.

use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::args::*;

/// `info` for this format.
pub fn info(_a: &InfoArgs) -> Result<ExitCode> {
    bail!("info: not implemented yet")
}

/// `pak_info` for this format.
pub fn pak_info(_a: &InfoArgs) -> Result<ExitCode> {
    bail!("pak_info: not implemented yet")
}

/// `list` for this format.
pub fn list(_a: &ListArgs) -> Result<ExitCode> {
    bail!("list: not implemented yet")
}

/// `verify` for this format.
pub fn verify(_a: &VerifyArgs) -> Result<ExitCode> {
    bail!("verify: not implemented yet")
}

/// `extract` for this format.
pub fn extract(_a: &ExtractArgs) -> Result<ExitCode> {
    bail!("extract: not implemented yet")
}

/// `packages` for this format.
pub fn packages(_a: &PackagesArgs) -> Result<ExitCode> {
    bail!("packages: not implemented yet")
}
