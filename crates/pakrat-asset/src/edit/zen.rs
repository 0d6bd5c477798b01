//! Zen packages (UE 5.3+ layout): the export data after the header laid
//! out again, the header written back by [`ZenPackage::to_bytes`] with the
//! exports' `CookedSerialOffset`/`CookedSerialSize`, the new names and the
//! new imports (with the imported packages the store entry must list).
//!
//! From UE 5.3 the export bundle entries and dependency bundles hold no
//! offsets (export indices and commands only) and the container's store
//! entry no export size (`FFilePackageStoreEntry`: imported packages,
//! shader maps), so nothing else moves but the bulk data map's inline
//! entries, whose offsets count from their export's start; its other
//! entries point into the bulk chunks, which do not change.

use pakrat_codec::names::{package_id, public_export_hash, script_import_index, BatchName};

use super::layout::{inline_offset, relay};
use super::{EditError, EditedPackage, NewData};
use crate::props::open::Opened;
use crate::props::{Additions, Asset};
use crate::zen::{ObjectIndex, ObjectRef, ZenLayout, ZenPackage};

/// Bulk flags of payloads that are not inline (end of file, separate
/// file, optional).
const INLINE_MASK: u32 = crate::bulk::flags::PAYLOAD_AT_END_OF_FILE
    | crate::bulk::flags::PAYLOAD_IN_SEPARATE_FILE
    | crate::bulk::flags::OPTIONAL_PAYLOAD;

/// Write a zen package with the changed exports' new bytes.
pub(super) fn write(
    opened: &Opened,
    zen: &ZenPackage,
    asset: &Asset<'_>,
    new: &[Option<NewData>],
    adds: &Additions,
    deps: &[(usize, Vec<i32>)],
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
    if let Some(b) = &mut z.bulk {
        let datas: Vec<&[u8]> = asset.exports.iter().map(|e| e.data).collect();
        for (k, e) in b.entries.iter_mut().enumerate() {
            if e.flags & INLINE_MASK == 0 {
                e.serial_offset = inline_offset(k, e.serial_offset, e.serial_size, &datas, new);
            }
        }
    }
    for n in &adds.names {
        z.names.push(BatchName {
            text: n.clone(),
            wide: pakrat_io::FString::to_latin1(n).is_none(),
            stored_hash: None,
        });
    }
    let imported = add_imports(&mut z, adds)?;
    add_dependencies(&mut z, deps);
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
        new_imports: adds.imports.clone(),
        resized: laid.resized,
        imported_packages: imported,
    })
}

/// Append the new imports to the zen import map: a script object by its
/// global index (`/Script/...`), a package as a null entry (zen keeps no
/// package imports), an export of another package by its imported package
/// and public export hash, adding both where missing. A new imported
/// package takes its place in the list sorted by id (as the cooker's
/// package store optimizer sorts it), which renumbers the package
/// positions of the other imports. Returns the new imported package ids
/// (for the container's store entry) when they changed.
fn add_imports(z: &mut ZenPackage, adds: &Additions) -> Result<Option<Vec<u64>>, EditError> {
    if adds.imports.is_empty() {
        return Ok(None);
    }
    let mut ids: Vec<u64> = z
        .imported_package_names
        .iter()
        .map(|n| package_id(n))
        .collect();
    if !ids.is_sorted() {
        return Err(EditError::package(format!(
            "{}: its imported packages are not sorted by id; new imports are not added",
            z.name
        )));
    }
    let old_ids = ids.clone();
    let mut parts = z.imported_package_name_parts.clone();
    let mut names = z.imported_package_names.clone();
    // Packages first: where each (old and new) sits in the sorted list.
    for path in &adds.imports {
        let Some((package, _)) = path.split_once('.') else {
            continue;
        };
        if package.starts_with("/Script/") {
            continue;
        }
        let id = package_id(package);
        if let Err(at) = ids.binary_search(&id) {
            ids.insert(at, id);
            names.insert(at, package.to_string());
            let wide = pakrat_io::FString::to_latin1(package).is_none();
            parts.insert(
                at,
                (
                    BatchName {
                        text: package.to_string(),
                        wide,
                        stored_hash: None,
                    },
                    0,
                ),
            );
        }
    }
    if ids != old_ids {
        let position = |id: u64| ids.binary_search(&id).unwrap_or(0) as u64;
        for imp in &mut z.imports {
            if let ObjectRef::Package { package, hash, .. } = imp.get() {
                let Some(&id) = old_ids.get(package as usize) else {
                    continue;
                };
                *imp = ObjectIndex((2u64 << 62) | (position(id) << 32) | u64::from(hash));
            }
        }
    }
    for path in &adds.imports {
        let index = if path.starts_with("/Script/") {
            ObjectIndex(script_import_index(path))
        } else if let Some((package, rel)) = path.split_once('.') {
            let p = ids.binary_search(&package_id(package)).unwrap_or(0) as u64;
            let h = public_export_hash(&rel.replace([':', '.'], "/"));
            let hi = match z.imported_public_export_hashes.iter().position(|&x| x == h) {
                Some(k) => k,
                None => {
                    z.imported_public_export_hashes.push(h);
                    z.imported_public_export_hashes.len() - 1
                }
            } as u64;
            ObjectIndex((2u64 << 62) | (p << 32) | hi)
        } else {
            ObjectIndex(u64::MAX)
        };
        z.imports.push(index);
    }
    z.imported_package_names = names;
    z.imported_package_name_parts = parts;
    z.imported_package_names_written = true;
    Ok((ids != old_ids).then_some(ids))
}

/// Add each edited export's new imports to its create-before-serialize
/// dependencies (a dependency bundle holds create-before-create,
/// serialize-before-create, create-before-serialize and
/// serialize-before-serialize entries, in that order), moving the bundles
/// after it.
fn add_dependencies(z: &mut ZenPackage, deps: &[(usize, Vec<i32>)]) {
    for (e, list) in deps {
        let Some(h) = z.dependency_bundle_headers.get(*e).cloned() else {
            continue;
        };
        let entries = &mut z.dependency_bundle_entries;
        let (start, counts) = if h.first_entry < 0 {
            (entries.len(), [[0, 0], [0, 0]])
        } else {
            (h.first_entry as usize, h.entry_count)
        };
        let total: usize = counts.iter().flatten().map(|&n| n as usize).sum();
        let have = entries.get(start..start + total).unwrap_or(&[]).to_vec();
        let new: Vec<i32> = list.iter().copied().filter(|x| !have.contains(x)).collect();
        if new.is_empty() {
            continue;
        }
        let at = (start + (counts[0][0] + counts[0][1] + counts[1][0]) as usize).min(entries.len());
        for (k, &x) in new.iter().enumerate() {
            entries.insert(at + k, x);
        }
        for (k, o) in z.dependency_bundle_headers.iter_mut().enumerate() {
            if k != *e && o.first_entry >= 0 && o.first_entry as usize >= at {
                o.first_entry += new.len() as i32;
            }
        }
        let hd = &mut z.dependency_bundle_headers[*e];
        hd.first_entry = start as i32;
        hd.entry_count = counts;
        hd.entry_count[1][0] += new.len() as u32;
    }
}
