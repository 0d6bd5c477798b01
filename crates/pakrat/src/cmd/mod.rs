//! One module of handlers per format; the helpers they share live in
//! [`common`].

pub mod asset;
mod asset_commit;
pub mod common;
pub mod container_header;
pub mod decompile;
pub mod headers;
pub mod iostore;
pub mod iostore_write;
pub mod legacy;
pub mod package;
pub mod pak;
pub mod pak_companion;
pub mod paks_folder;
pub mod props;
pub mod props_edit;
pub mod props_out;
pub mod registry;
pub mod rewrite;
pub mod system;
pub mod ue_export;
pub mod umod;
pub mod usmap;
pub mod uz;
pub mod view;
pub mod zen;
pub mod zen_loose;
pub mod zen_registry;
pub mod zen_stream;
pub mod zen_ue4;
