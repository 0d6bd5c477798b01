//! Handlers for uz commands.

use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::args::*;

/// `info` for this format.
pub fn info(_a: &InfoArgs) -> Result<ExitCode> {
    bail!("info: not implemented yet")
}

/// `compress` for this format.
pub fn compress(_a: &CompressArgs) -> Result<ExitCode> {
    bail!("compress: not implemented yet")
}

/// `decompress` for this format.
pub fn decompress(_a: &DecompressArgs) -> Result<ExitCode> {
    bail!("decompress: not implemented yet")
}
