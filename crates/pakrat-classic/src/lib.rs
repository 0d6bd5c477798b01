//! Unreal packages (UE1/UE2): header, tables, tagged properties and object exporters.
//!
//! Reads the tables of every version 55–179 and licensee wherever they check
//! out, decodes objects where their layout is known (see
//! [`object_layout`]), refuses UE3+ packages and layouts known to differ with
//! a message naming the game, reads encrypted Lineage II packages
//! ([`lineage`]) and writes packages back ([`mod@write`]). Format notes:
//! `shared/formats/classic.md` §3.
//!
//! # Tables
//! ```no_run
//! # fn main() -> pakrat_io::Result<()> {
//! let src = pakrat_io::Source::open("Engine.u")?;
//! // Header only (cheap): version, licensee, flags, GUID, generations, table positions.
//! let s = pakrat_classic::Summary::parse(&src)?;
//! println!("v{} lic{} guid {} flags {:?}", s.version, s.licensee, s.guid, s.package_flag_names());
//! // Header + names + imports + exports, every reference checked.
//! let pkg = pakrat_classic::Package::parse(&src)?;
//! for i in 0..pkg.exports.len() {
//!     println!("{} {}", pkg.export_class_name(i)?, pkg.export_path(i)?);
//! }
//! println!("imports from {:?}", pkg.imported_packages());
//! # Ok(()) }
//! ```
//!
//! Object references ([`ObjRef`]) are resolved with [`Package::object_path`],
//! [`Package::class_name`], [`Package::import_package`]; every resolver
//! returns an error (never panics) on an out-of-range reference or an outer
//! chain that loops. [`Package::parse`] already rejects such packages;
//! [`Package::parse_lenient`] + [`Package::problems`] list every problem.
//!
//! All parsing borrows from the input (ASCII names are not copied) and never
//! allocates from a count before checking it against the bytes that remain.
#![deny(missing_docs)]

pub mod arrays;
pub mod class;
pub mod enums;
pub mod export;
pub mod flags;
pub mod headers;
pub mod json;
pub mod lineage;
pub mod material;
mod package;
pub mod props;
pub mod script;
mod summary;
pub mod texture;
pub mod verify;
pub mod view;
pub mod write;

pub use package::{Export, Import, Name, ObjRef, Package, Problem, Target};
pub use summary::{
    game_name, object_layout, table_layout, unsupported_reason, vengeance_header, Generation,
    Summary, TableLayout, TableRef, TagKind, MAX_VERSION, MIN_VERSION, TAG, TAG_KILLING_FLOOR,
    UE3_VERSION,
};
