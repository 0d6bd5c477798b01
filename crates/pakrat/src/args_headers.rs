//! `pakrat package headers`'s options.

use std::path::PathBuf;

use clap::Args;

use crate::args::JsonArg;

/// `pakrat package headers`.
#[derive(Args, Debug)]
pub struct HeadersArgs {
    /// The package (a UE1/UE2 `.u`).
    pub package: PathBuf,
    /// Folder to write `<Package>Classes.h` into (default: the current
    /// folder).
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
    pub output: PathBuf,
    /// Folder of the class-specific headers (`AActor.h`, ...): a class whose
    /// header is there gets its `#include` line, as the engine wrote it.
    #[arg(long = "inc", value_name = "DIR")]
    pub inc: Option<PathBuf>,
    /// The package's name as the engine knows it (default: the file name
    /// without its extension): it names the header (`EngineClasses.h`),
    /// the `ENGINE_API` macro and the `DECLARE_CLASS` package.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Replace an existing header.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
