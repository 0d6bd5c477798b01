//! The Unreal package system: game folders, search paths, dependencies, download cache.
//!
//! * [`ini`]: Unreal `.ini` files (`Paths[n]=` and repeated `Paths=`).
//! * [`game`]: a game folder's `[Core.System]` settings and package lookup in
//!   the engine's order.
//! * [`cache`]: the GUID download cache (`cache.ini`, `<GUID>.uxx`), checking
//!   and restoring.
//! * [`flags`]: package flags, changed in place, compared with `.upkg`.
//! * [`deps`]: the transitive dependency graph of one package.
//! * [`generation`]: engine generations, so that a dependency found in
//!   another game is reported as such.
//! * [`scan`]: a parallel scan of a folder tree with collision, duplicate,
//!   missing-import and cycle findings.
#![deny(missing_docs)]

pub mod cache;
pub mod deps;
pub mod flags;
pub mod game;
pub mod generation;
pub mod graph;
/// Unreal `.ini` files: the shared reader, re-exported (`pakrat_system::ini` keeps working).
pub use pakrat_io::ini;
pub mod scan;

pub use cache::{check_cache, restore, CacheIni, CacheReport, RestoreReport};
pub use game::{Found, GameDir, NameIndex, SearchPath, Via};
pub use generation::{Generation, PkgVersion};
pub use ini::Ini;
