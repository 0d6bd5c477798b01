//! Legacy packages: the `.uexp` (or the data after the header) laid out
//! again, the header written back by [`LegacyPackage::to_bytes`] with the
//! exports' serial sizes and offsets, `BulkDataStartOffset`, the data
//! resources inside the package's own files and the new names and imports.

use super::layout::{inline_offset, relay};
use super::{EditError, EditedPackage, NewData};
use crate::bulk::flags as bf;
use crate::legacy::summary::ue5;
use crate::legacy::{FName, Import, LegacyPackage, NameEntry};
use crate::props::open::Opened;
use crate::props::{Additions, Asset};

/// Write a legacy package with the changed exports' new bytes.
pub(super) fn write(
    opened: &Opened,
    pkg: &LegacyPackage,
    asset: &Asset<'_>,
    new: &[Option<NewData>],
    adds: &Additions,
    deps: &[(usize, Vec<i32>)],
) -> Result<EditedPackage, EditError> {
    let (main, uexp) = opened.raw();
    if new.iter().all(Option::is_none) && adds.names.is_empty() && adds.imports.is_empty() {
        return Ok(EditedPackage {
            main: main.to_vec(),
            uexp: uexp.map(<[u8]>::to_vec),
            ..EditedPackage::default()
        });
    }
    let ths = u64::try_from(pkg.summary.total_header_size)
        .ok()
        .filter(|&t| t as usize <= main.len())
        .ok_or_else(|| EditError::package("TotalHeaderSize lies outside the .uasset"))?;
    // The export data as one region, which starts at TotalHeaderSize in
    // the offsets of the header (the .uexp continues the .uasset).
    let body = match uexp {
        Some(u) => u,
        None => &main[ths as usize..],
    };
    let spans: Vec<(u64, u64)> = pkg
        .exports
        .iter()
        .map(|e| {
            (
                (e.serial_offset as u64).wrapping_sub(ths),
                e.serial_size.max(0) as u64,
            )
        })
        .collect();
    let laid = relay(body, &spans, new).map_err(EditError::package)?;
    classic_bulk_guard(pkg, asset, &spans, &laid.resized)?;
    let map = |abs: i64| -> i64 {
        match u64::try_from(abs).ok().and_then(|a| a.checked_sub(ths)) {
            Some(rel) => (laid.map(rel) + ths) as i64,
            None => abs,
        }
    };
    let mut p = pkg.clone();
    for (i, e) in p.exports.iter_mut().enumerate() {
        let (start, size) = laid.spans[i];
        e.serial_offset = (start + ths) as i64;
        e.serial_size = size as i64;
        // Script serialization offsets count from the export's start
        // (UE 5.4+ `FObjectExport::ScriptSerializationStart/EndOffset`):
        // the start lies before the tagged properties and stays; the end
        // is where they end (before the object GUID trailer, so inside
        // the property stream, seen on the fixtures: 4 bytes before its
        // end), and moves with the stream's change in size.
        if let (Some((a, b)), Some(n)) = (e.script_serialization, &new[i]) {
            let end = if b > a { b + n.props_delta } else { b };
            e.script_serialization = Some((a, end));
        }
    }
    p.summary.bulk_data_start_offset = map(pkg.summary.bulk_data_start_offset);
    let datas: Vec<&[u8]> = asset.exports.iter().map(|e| e.data).collect();
    for (k, r) in p.data_resources.iter_mut().enumerate() {
        let f = r.legacy_bulk_data_flags;
        if f & bf::PAYLOAD_AT_END_OF_FILE != 0 && in_package_file(f) {
            r.serial_offset = map(r.serial_offset);
        } else if in_package_file(f) {
            r.serial_offset = inline_offset(k, r.serial_offset, r.serial_size, &datas, new);
        }
    }
    add_names(&mut p, adds);
    add_imports(&mut p, asset, adds)?;
    add_dependencies(&mut p, deps);
    let header = header_bytes(pkg, &p, main, ths)?;
    let body = laid.body;
    let (main, uexp) = match uexp {
        Some(_) => (header, Some(body)),
        None => {
            let mut m = header;
            m.extend_from_slice(&body);
            (m, None)
        }
    };
    Ok(EditedPackage {
        main,
        uexp,
        bulk: Vec::new(),
        new_names: adds.names.clone(),
        new_imports: adds.imports.clone(),
        resized: laid.resized,
        imported_packages: None,
    })
}

/// Whether a data resource's payload lies in the package's own files
/// (inline in an export: its offset counts from the export's start; or at
/// the end of the `.uexp`: taken as counting in the package): its offset
/// then moves with the data.
fn in_package_file(flags: u32) -> bool {
    flags & (bf::PAYLOAD_IN_SEPARATE_FILE | bf::OPTIONAL_PAYLOAD) == 0
}

/// The new header: the old bytes when nothing in it changed, else written
/// again (twice when its size changed, to move the data resources'
/// offsets, which count from the start of the `.uasset`, with it).
fn header_bytes(
    old: &LegacyPackage,
    p: &LegacyPackage,
    main: &[u8],
    ths: u64,
) -> Result<Vec<u8>, EditError> {
    if p == old {
        return Ok(main[..ths as usize].to_vec());
    }
    let bytes = p.to_bytes().map_err(|e| {
        EditError::package(format!("the package header cannot be written again: {e}"))
    })?;
    let d = bytes.len() as i64 - ths as i64;
    if d == 0 || p.data_resources.is_empty() {
        return Ok(bytes);
    }
    let mut q = p.clone();
    for r in &mut q.data_resources {
        let f = r.legacy_bulk_data_flags;
        if f & bf::PAYLOAD_AT_END_OF_FILE != 0
            && in_package_file(f)
            && r.serial_offset >= ths as i64
        {
            r.serial_offset += d;
        }
    }
    q.to_bytes()
        .map_err(|e| EditError::package(format!("the package header cannot be written again: {e}")))
}

/// Append the new names (with the engine's hashes).
fn add_names(p: &mut LegacyPackage, adds: &Additions) {
    for n in &adds.names {
        p.names.push(NameEntry::new(n));
    }
}

/// The name-map entry of `text` (a name, split from its `_N` number as the
/// engine does), appending it when missing.
fn fname(p: &mut LegacyPackage, text: &str) -> FName {
    let (base, number) = match text.rsplit_once('_') {
        Some((b, n))
            if !b.is_empty()
                && !n.is_empty()
                && n.bytes().all(|c| c.is_ascii_digit())
                && (n == "0" || !n.starts_with('0')) =>
        {
            match n.parse::<i32>().ok().and_then(|x| x.checked_add(1)) {
                Some(x) => (b, x),
                None => (text, 0),
            }
        }
        _ => (text, 0),
    };
    let index = match p.names.iter().position(|n| n.text == base) {
        Some(i) => i,
        None => {
            p.names.push(NameEntry::new(base));
            p.names.len() - 1
        }
    };
    FName {
        index: index as i32,
        number,
    }
}

/// Append the new imports: a package (`/Game/A`) as a `Package` import,
/// an object inside one with its outer (added before it) and the class its
/// path suggests.
fn add_imports(
    p: &mut LegacyPackage,
    asset: &Asset<'_>,
    adds: &Additions,
) -> Result<(), EditError> {
    for path in &adds.imports {
        let outer_path = path.rfind([':', '.']).map(|at| &path[..at]);
        let outer = match outer_path {
            None => 0,
            Some(o) => {
                let existing = asset.imports.iter().position(|i| i.path == o);
                let added = adds.imports.iter().position(|i| i == o);
                match (existing, added) {
                    (Some(k), _) => -(k as i32) - 1,
                    (None, Some(k)) => -((asset.imports.len() + k) as i32) - 1,
                    (None, None) => {
                        return Err(EditError::package(format!(
                            "new import {path}: its outer {o} is not an import"
                        )))
                    }
                }
            }
        };
        let name = match outer_path {
            Some(o) => &path[o.len() + 1..],
            None => path.as_str(),
        };
        let (class_package, class_name) = import_class(path, outer_path.is_none());
        let object_name = fname(p, name);
        // The UE 5.8+ field read as `package_name` holds the import's own
        // object name in every import of the fixtures: mirrored.
        let package_name = p.imports.first().and_then(|i| i.package_name);
        let im = Import {
            class_package: fname(p, class_package),
            class_name: fname(p, class_name),
            outer,
            object_name,
            package_name: package_name.map(|_| object_name),
            optional: p.imports.first().and_then(|i| i.optional).map(|_| false),
        };
        p.imports.push(im);
    }
    Ok(())
}

/// The class an added import is given: a package is a `Package`; an
/// object of a `/Script/` package a `Class` (what native references name);
/// an asset of a content package, lacking a schema that says, an `Object`.
fn import_class(path: &str, package: bool) -> (&'static str, &'static str) {
    if package {
        ("/Script/CoreUObject", "Package")
    } else if path.starts_with("/Script/") {
        ("/Script/CoreUObject", "Class")
    } else {
        ("/Script/CoreUObject", "Object")
    }
}

/// Add each edited export's new imports to its create-before-serialize
/// preload dependencies (the preload list holds, per export,
/// serialize-before-serialize, create-before-serialize,
/// serialize-before-create and create-before-create entries, in that
/// order), moving the ranges of the exports after it.
fn add_dependencies(p: &mut LegacyPackage, deps: &[(usize, Vec<i32>)]) {
    for (e, list) in deps {
        let Some(mut d) = p.exports.get(*e).and_then(|x| x.dependencies) else {
            continue;
        };
        if d[0] < 0 {
            d = [p.preload_dependencies.len() as i32, 0, 0, 0, 0];
        }
        let start = d[0] as usize;
        let end = start + d[1..].iter().map(|&n| n.max(0) as usize).sum::<usize>();
        let have = p
            .preload_dependencies
            .get(start..end)
            .unwrap_or(&[])
            .to_vec();
        let new: Vec<i32> = list.iter().copied().filter(|x| !have.contains(x)).collect();
        let at =
            (start + d[1].max(0) as usize + d[2].max(0) as usize).min(p.preload_dependencies.len());
        for (k, &x) in new.iter().enumerate() {
            p.preload_dependencies.insert(at + k, x);
        }
        d[2] += new.len() as i32;
        for (k, x) in p.exports.iter_mut().enumerate() {
            if let Some(o) = &mut x.dependencies {
                if k != *e && o[0] >= 0 && o[0] as usize >= at && !new.is_empty() {
                    o[0] += new.len() as i32;
                }
            }
        }
        p.exports[*e].dependencies = Some(d);
    }
}

/// Before UE 5.2 (no data resource map) a bulk data header inside export
/// data stores its payload's offset in the file (inline payloads, and
/// end-of-file ones with `NoOffsetFixUp`): a size change would leave the
/// headers of the resized export and of every export after it pointing at
/// the old places. pakrat does not rewrite those headers (they sit in
/// native tails it does not re-encode), so the change is refused when one
/// of those exports is of a class that holds bulk data (textures, sounds).
fn classic_bulk_guard(
    pkg: &LegacyPackage,
    asset: &Asset<'_>,
    spans: &[(u64, u64)],
    resized: &[(usize, i64)],
) -> Result<(), EditError> {
    if pkg.layout.ue5 >= ue5::DATA_RESOURCES || resized.is_empty() {
        return Ok(());
    }
    let from = resized.iter().map(|&(i, _)| spans[i].0).min().unwrap_or(0);
    for (k, e) in asset.exports.iter().enumerate() {
        let class = e.class_name();
        if spans[k].0 >= from
            && (crate::texture::is_texture_class(class) || crate::sound::is_sound_class(class))
        {
            return Err(EditError::export(
                asset,
                k,
                format!(
                    "a {class} of a package before UE 5.2 keeps file offsets in its bulk data headers, \
                     which a change in size at or before it would leave stale; pakrat does not rewrite them"
                ),
            ));
        }
    }
    Ok(())
}
