//! `zen from-legacy` of UE 4.27 packages: the package store the UE 4.27
//! container needs around them (`docs/zen-legacy.md`, "UE 4.27
//! containers").
//!
//! A UE 4.27 zen package is unreadable without its store entry, so the
//! conversion's entries travel as a container header chunk
//! (`_chunks/<id>.ContainerHeader`, UE4 form): with `--into` it is handed
//! to `iostore create` in memory (whose plan takes every package's entry
//! from it and writes the header again with the container's id); with
//! `-o DIR` it is written into the folder, so that `iostore create DIR
//! --ue-version 4.27` packs the folder later.

use std::sync::Arc;

use anyhow::{bail, Result};

use pakrat_asset::convert::files::ZenFile;
use pakrat_asset::convert::ue4_store_header;
use pakrat_io::walk::SourceFile;
use pakrat_iostore::toc::{ChunkId, ChunkType, Numbering};

use crate::args::ZenFromLegacyArgs;

/// The folder path of the store chunk: container id 0 (the id of the
/// container built from the folder replaces it), the UE4 chunk type of a
/// container header (10).
pub fn header_chunk_path() -> String {
    let ty = ChunkType::ContainerHeader
        .to_raw(Numbering::Ue4)
        .unwrap_or(10);
    format!(
        "_chunks/{}.ContainerHeader",
        ChunkId::new(0, 0, 0, ty).to_hex()
    )
}

/// The store chunk of the UE 4.27 packages converted, or `None` when there
/// are none. A folder that mixes UE4 and UE5 packages is refused: one
/// container holds one engine's layout.
pub fn store_chunk(src: &std::path::Path, converted: &[&ZenFile]) -> Result<Option<SourceFile>> {
    let ue4: Vec<&ZenFile> = converted
        .iter()
        .copied()
        .filter(|z| z.output.store_entry.is_some())
        .collect();
    let Some(first) = ue4.first() else {
        return Ok(None);
    };
    if let Some(other) = converted.iter().find(|z| z.output.store_entry.is_none()) {
        bail!(
            "{} is a UE 4.27 package and {} a UE5 one: a container (or folder for one) holds one engine's zen layout; convert them apart",
            first.rel,
            other.rel
        );
    }
    let entries: Vec<(u64, pakrat_iostore::container_header::StoreEntry)> = ue4
        .iter()
        .filter_map(|z| {
            let id = pakrat_codec::names::package_id(&z.output.package.name);
            z.output.store_entry.clone().map(|e| (id, e))
        })
        .collect();
    let bytes = ue4_store_header(0, &entries).to_bytes()?;
    let rel = header_chunk_path();
    Ok(Some(SourceFile {
        path: src.join(&rel),
        size: bytes.len() as u64,
        rel,
        bytes: Some(Arc::new(bytes)),
    }))
}

/// `--into` with UE 4.27 packages: the release (4.27 unless given) and
/// what cannot go with it. Returns the release to build the container for.
pub fn into_release(a: &ZenFromLegacyArgs) -> Result<String> {
    if a.base.is_some() {
        bail!(
            "--base with UE 4.27 packages: the store entries of the converted packages make the container header, and a base container's header would replace them; build without --base (the 4.27 container format is fixed: TOC v3, UE4 container header, pak v11). Nothing was written"
        );
    }
    match a.ue_version.as_deref().map(str::trim) {
        None => Ok("4.27".into()),
        Some("4.27") => Ok("4.27".into()),
        Some(v) => bail!(
            "--ue-version {v}: the packages are UE 4.27 ones (UE4 file version 522, no UE5 version), which are written in the UE 4.27 zen layout; give --ue-version 4.27 or none. Nothing was written"
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_store_chunk_is_named_as_extract_names_a_ue4_header() {
        assert_eq!(
            super::header_chunk_path(),
            "_chunks/00000000000000000000000a.ContainerHeader"
        );
    }
}
