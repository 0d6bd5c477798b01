//! UE4/UE5 packages, in both forms the engine cooks them:
//!
//! * [`legacy`]: `.uasset`/`.umap` + `.uexp` (+ `.ubulk`), the form inside
//!   `.pak` files and loose cooked folders: summary, name map, imports,
//!   exports;
//! * [`zen`]: zen packages, the form inside IoStore containers (one
//!   ExportBundleData chunk each), with the script objects and container
//!   headers that resolve their imports;
//! * [`convert`]: zen ↔ legacy, byte-exact where the engine's cook is;
//! * [`edit`]: edited property trees back into whole packages;
//! * [`build`]: lay out a folder of cooked packages as an IoStore container
//!   (chunk ids, the container header and the companion `.pak`'s files);
//! * [`props`]: what an export says: tagged and unversioned properties;
//! * [`usmap`]: `.usmap` mappings, the schemas unversioned properties need;
//! * [`bulk`]: bulk data headers and where their payloads lie;
//! * [`texture`]: textures' cooked platform data (formats, mips);
//! * [`sound`]: the audio of SoundWaves (WAVE, ADPCM);
//! * [`rename`]: package paths renamed across legacy packages.
//!
//! The containers themselves are `pakrat-pak` and
//! `pakrat-iostore`; UE1/UE2 packages are `pakrat-classic`.
#![deny(missing_docs)]

pub mod build;
pub mod bulk;
pub mod convert;
pub mod edit;
pub mod legacy;
pub mod props;
pub mod registry;
pub mod rename;
pub mod sound;
pub mod texture;
pub mod usmap;
pub mod zen;
