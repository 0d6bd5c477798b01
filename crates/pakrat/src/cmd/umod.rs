//! Handlers for umod commands.

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

/// `extract` for this format.
pub fn extract(_a: &ExtractArgs) -> Result<ExitCode> {
    bail!("extract: not implemented yet")
}

/// `create` for this format.
pub fn create(_a: &UmodCreateArgs) -> Result<ExitCode> {
    bail!("create: not implemented yet")
}

/// `install` for this format.
pub fn install(_a: &UmodInstallArgs) -> Result<ExitCode> {
    bail!("install: not implemented yet")
}

/// `uninstall` for this format.
pub fn uninstall(_a: &UmodUninstallArgs) -> Result<ExitCode> {
    bail!("uninstall: not implemented yet")
}
