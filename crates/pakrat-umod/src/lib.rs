//! UMOD installers (`.umod`, `.ut2mod`, `.ut4mod`, self-extracting `.exe`):
//! read, verify, extract, build, install and uninstall.
//!
//! * [`Umod`] parses the trailer and directory without copying, checks every
//!   member against the payload area and reports overlaps ([`Umod::problems`]);
//!   [`Umod::verify`] adds the CRC (CRC-32/BZIP2, Unreal's `appMemCrc`) and the
//!   manifest cross-check.
//! * [`Manifest`] reads `System\Manifest.ini`/`.int` tolerantly ([`ini`]).
//! * [`extract()`] writes members through [`pakrat_io::fsutil::OutputDir`].
//! * [`create`] builds deterministic archives (optionally byte-identical to an
//!   original via [`create::OrderTemplate`]).
//! * [`install`] installs into a game folder and records the product in its
//!   `System\Manifest.ini` the way the engine's Setup does.
//!
//! Format notes: `classic.md` §2 (UT432 `Core/Inc/FFileManagerArc.h`,
//! `Setup/Src/USetupDefinition.cpp`).
#![deny(missing_docs)]

mod archive;
pub mod create;
pub mod extract;
/// Unreal `.ini` files: the shared reader, re-exported (`pakrat_umod::ini` keeps working).
pub use pakrat_io::ini;
pub mod install;
pub mod journal;
mod manifest;
pub mod paths;

pub use archive::{
    crc_combine, read_trailer, sniff, Container, Entry, Problem, ProblemKind, Severity, Trailer,
    Umod, Verification, FLAGS_SETUP, MAGIC, TRAILER_LEN, VERSION,
};
pub use extract::{extract, extract_with, ExtractOptions, ExtractReport};
pub use manifest::{
    FileRecord, Group, Manifest, MemberIndex, RecordKind, Requirement, MANIFEST_INI, MANIFEST_INT,
};
/// A UMOD's input file: [`pakrat_io::Source`] (mapped, with
/// [`Source::release`](pakrat_io::Source::release) for streaming and
/// [`Source::open_at`](pakrat_io::Source::open_at) for kernel copies).
pub type UmodFile = pakrat_io::Source;
