//! Zen packages (UE 5.3+ layout): the export data after the header laid
//! out again, the header written back by [`ZenPackage::to_bytes`] with the
//! exports' `CookedSerialOffset`/`CookedSerialSize` and the new names.
//!
//! From UE 5.3 the export bundle entries and dependency bundles hold no
//! offsets (export indices and commands only) and the container's store
//! entry no export size (`FFilePackageStoreEntry`: imported packages,
//! shader maps), so nothing else moves. Inline bulk payloads of the bulk
//! data map are found by reading the export (their map offset is not used
//! to find them), and the map's other entries point into the bulk chunks,
//! which do not change.

use pakrat_codec::names::BatchName;

use super::layout::relay;
use super::{EditError, EditedPackage, NewData};
use crate::props::open::Opened;
use crate::props::{Additions, Asset};
use crate::zen::{ZenLayout, ZenPackage};

/// Write a zen package with the changed exports' new bytes.
pub(super) fn write(
    opened: &Opened,
    zen: &ZenPackage,
    _asset: &Asset<'_>,
    new: &[Option<NewData>],
    adds: &Additions,
) -> Result<EditedPackage, EditError> {
    let (chunk, _) = opened.raw();
    if new.iter().all(Option::is_none) && adds.names.is_empty() && adds.imports.is_empty() {
        return Ok(EditedPackage {
            main: chunk.to_vec(),
            ..EditedPackage::default()
        });
    }
    if !matches!(zen.layout, ZenLayout::Ue5_3 { .. }) {
        return Err(EditError::package(format!(
            "{}: changing a {} zen package is not supported (only UE 5.3 and later)",
            zen.name,
            zen.layout.describe()
        )));
    }
    if let Some(first) = adds.imports.first() {
        return Err(EditError::package(format!(
            "{}: new object references in zen packages are not written (they need an imported package id and a public export hash in the container's store entry): {first}{}",
            zen.name,
            match adds.imports.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        )));
    }
    let hs = zen.header_size as usize;
    let body = chunk
        .get(hs..)
        .ok_or_else(|| EditError::package("the zen header is larger than the package chunk"))?;
    let spans: Vec<(u64, u64)> = zen
        .exports
        .iter()
        .map(|e| (e.serial_offset, e.serial_size))
        .collect();
    let laid = relay(body, &spans, new).map_err(EditError::package)?;
    let mut z = zen.clone();
    for (e, &(start, size)) in z.exports.iter_mut().zip(&laid.spans) {
        // UE 5.3+: `CookedSerialOffset` counts from the end of the header.
        e.serial_offset = start;
        e.serial_size = size;
    }
    for n in &adds.names {
        z.names.push(BatchName {
            text: n.clone(),
            wide: pakrat_io::FString::to_latin1(n).is_none(),
            stored_hash: None,
        });
    }
    let mut main = z.to_bytes().map_err(|e| {
        EditError::package(format!(
            "{}: the zen header cannot be written again: {e}",
            zen.name
        ))
    })?;
    main.extend_from_slice(&laid.body);
    Ok(EditedPackage {
        main,
        uexp: None,
        bulk: Vec::new(),
        new_names: adds.names.clone(),
        new_imports: Vec::new(),
        resized: laid.resized,
    })
}
