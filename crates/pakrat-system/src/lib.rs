//! The Unreal package system: game folders, search paths, dependencies, download cache
#![deny(missing_docs)]
