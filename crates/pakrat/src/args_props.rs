//! `pakrat props apply` and `pakrat props set`: editing UE4/UE5 packages'
//! properties (issue 26).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::args::{JsonArg, PropsArgs, UeReadArgs};

/// `pakrat props`'s subcommands (without one, `props` prints).
#[derive(Subcommand, Debug)]
pub enum PropsEdit {
    /// Write a package with the values of an edited `pakrat props --json`
    /// document (the whole document, or one export's object).
    Apply(PropsApplyArgs),
    /// Change values by path (`Vector2D.X=1.5`, `Tags[2]=Foo`,
    /// `Map["Key"]=3`) in one or more packages.
    Set(PropsSetArgs),
}

/// `pakrat props apply`.
#[derive(Args, Debug)]
pub struct PropsApplyArgs {
    /// The edited JSON (`-` reads it from standard input).
    pub edited: PathBuf,
    /// The package (.uasset/.umap), or a container holding it (.utoc, .pak).
    pub input: PathBuf,
    /// A container: the package path (/Game/...) or file path.
    pub package: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub w: PropsWriteArgs,
}

/// `pakrat props set`.
#[derive(Args, Debug)]
pub struct PropsSetArgs {
    /// Packages (.uasset/.umap files or globs such as `Data/*.uasset`) and
    /// PATH=VALUE assignments, in any order; a container (.utoc, .pak) is
    /// followed by its PACKAGE path.
    #[arg(required = true, value_name = "FILE|PATH=VALUE")]
    pub items: Vec<String>,
    /// The export to edit, by name or full path (default: the export named
    /// as the package, else the only one).
    #[arg(long, value_name = "OBJECT")]
    pub object: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub w: PropsWriteArgs,
}

/// Where an edit goes, and how the package is read.
#[derive(Args, Debug)]
pub struct PropsWriteArgs {
    /// The output: a .uasset/.umap (its .uexp beside it), or for a
    /// container a patch .utoc (`Mod_P.utoc`) or .pak; with several input
    /// files, a folder.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write the package over itself, atomically.
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// With --in-place: keep the originals as FILE.uasset.bak, FILE.uexp.bak.
    #[arg(long, requires = "in_place")]
    pub backup: bool,
    /// Replace output (and .bak) files that exist.
    #[arg(long)]
    pub force: bool,
    /// Print the changes; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub ue: UeReadArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}

impl PropsArgs {
    /// The input (required unless a subcommand is given).
    pub fn file(&self) -> &std::path::Path {
        self.package.as_deref().unwrap_or(std::path::Path::new(""))
    }
}
