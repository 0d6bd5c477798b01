//! The IoStore companion of a UE 5.6+ pak mod (issue 30 item 6).
//!
//! From UE 5.6 on, games skip a `.pak` that has no IoStore container of the
//! same name beside it: mods made by repak stopped loading after a game moved
//! from 5.5 to 5.6, and copying `global.utoc`/`.ucas` under the pak's name
//! brought them back (repak issue #48; its maintainer: "a change in how the
//! engine finds and loads paks", not the pak format). The engine finds
//! containers through their `.pak` (`iostore.md` §1), and mounts the two
//! together.
//!
//! The companion pakrat writes is the smallest container of the release's
//! format: its TOC version, the container id of its name, and one chunk, a
//! container header of the release's form that lists no packages (every
//! container the engine cooks has one). It holds no files, so it changes
//! nothing that the pak provides. Not checked against a UE 5.6 game (there
//! is none here); it reads back in pakrat and in `../shared/tools/utocref.py`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use pakrat_iostore::container_header::{ContainerHeader, HeaderForm};
use pakrat_iostore::engine::ContainerFormat;
use pakrat_iostore::write::{ChunkSpec, Data, Options};
use pakrat_iostore::{ChunkId, ChunkType, Numbering};

use crate::cmd::iostore_write::write_out;

/// The first release that needs the companion.
const FIRST: (u32, u32) = (5, 6);

/// Whether release `f` needs a companion beside its paks.
pub fn needed(f: &ContainerFormat) -> bool {
    let mut parts = f.engine.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    let v = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    v >= FIRST
}

/// The container header chunk a companion holds: the release's form, no
/// packages.
fn empty_header(container_id: u64, form: HeaderForm) -> Result<Vec<u8>> {
    let h = ContainerHeader::empty(form, container_id);
    Ok(h.to_bytes()?)
}

/// Write `Name.utoc` and `Name.ucas` beside `pak` (`Name.pak`), in release
/// `f`'s format. Returns the paths written.
pub fn write(pak: &Path, f: &ContainerFormat, force: bool) -> Result<Vec<PathBuf>> {
    let Some(stem) = pak.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
        bail!("{}: no file name for the IoStore companion", pak.display());
    };
    let container_id = pakrat_codec::names::container_id(&stem);
    let numbering = match f.header {
        HeaderForm::Ue4 | HeaderForm::Ue4PreInitial => Numbering::Ue4,
        HeaderForm::Ue5(_) => Numbering::Ue5,
    };
    let raw = ChunkType::ContainerHeader.to_raw(numbering).unwrap_or(6);
    let bytes = empty_header(container_id, f.header)?;
    let spec = ChunkSpec {
        id: ChunkId::new(container_id, 0, 0, raw),
        path: None,
        size: bytes.len() as u64,
        data: Data::Bytes(bytes),
        memory_mapped: false,
    };
    let o = Options {
        version: f.toc_version,
        container_id,
        ..Options::default()
    };
    let utoc = pak.with_extension("utoc");
    let (_, paths) = write_out(&utoc, force, &[spec], None, &o, true, Vec::new())?;
    Ok(paths)
}
