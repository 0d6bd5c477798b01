//! Zen → legacy for the UE 4.25–4.27 zen layout (container header
//! `Initial`): [`to_legacy_ue4`], the mirror of
//! [`super::from_legacy_ue4`].
//!
//! What the UE4 layout keeps, and how it comes back (checked on the zenpair
//! UE 4.27 twin `TestModUI`, docs/zen-legacy.md):
//!
//! * The name map *is* the legacy one (same names, same order).
//! * Import *i* is legacy import *i*: a script object by its script import
//!   index (resolved through the global container's initial-load meta), a
//!   package by Null (refilled with the packages the other imports live
//!   in), any other object by the package import index of its full path,
//!   which only the package exporting it resolves: its export with that
//!   `GlobalImportIndex` gives the object's name, outer and class.
//! * Exports keep the legacy serial offsets; their data follows the header
//!   in export bundle order (not export order) and goes back to its legacy
//!   place in the `.uexp`, which ends with the package tag.
//! * Not kept: preload dependencies (only the bundle order, and package
//!   level arcs, remain) and the summary's `Guid`; the package name (UE
//!   4.27 cooks store `None`, which is written back) and `PackageSource`
//!   (a CRC of the file name) are rebuilt.

use std::collections::HashSet;

use pakrat_codec::names::script_import_index;
use pakrat_io::{Error, Result};

use super::resolve::Resolver;
use super::zen_to_legacy::{
    cooked_summary, template_hints, ExportTables, ImportSlots, IndexMap, LegacyBytes, LegacyOutput,
    NameTable,
};
use super::{PackageSource, RF_PUBLIC};
use crate::legacy::{Export as LExport, Import, Layout, LegacyPackage, NameEntry};
use crate::zen::{ObjectRef, ZenLayout, ZenPackage};

/// `RF_ClassDefaultObject`.
const RF_CLASS_DEFAULT_OBJECT: u32 = 0x10;
/// `RF_Transient`.
const RF_TRANSIENT: u32 = 0x40;

/// The legacy package tag that ends a `.uexp`.
const PACKAGE_TAG: [u8; 4] = [0xC1, 0x83, 0x2A, 0x9E];

/// Convert a zen package of the UE4 layout to a legacy one (`layout` is
/// the legacy layout to write, UE 4.27's unless the caller knows better).
/// Every import must resolve: script imports through the source's script
/// objects (UE4 initial-load meta), package imports through the exports of
/// the source's packages; one that does not is an error naming its hash.
pub fn to_legacy_ue4(
    zen: &ZenPackage,
    chunk: &[u8],
    imported: &[u64],
    src: &dyn PackageSource,
    layout: Layout,
) -> Result<LegacyOutput> {
    to_legacy_ue4_bytes(zen, chunk, imported, src, layout)?.read_back(layout)
}

/// [`to_legacy_ue4`] without reading the header back: the files' bytes.
pub(super) fn to_legacy_ue4_bytes<'a>(
    zen: &ZenPackage,
    chunk: &'a [u8],
    imported: &[u64],
    src: &dyn PackageSource,
    layout: Layout,
) -> Result<LegacyBytes<'a>> {
    if zen.layout != ZenLayout::Ue4 {
        return Err(Error::Other(format!(
            "{}: not a UE4 zen package ({})",
            zen.name,
            zen.layout.describe()
        )));
    }
    if layout.ue5 != 0 {
        return Err(Error::Other(format!(
            "{}: a UE4 zen package cannot become a UE5 legacy package",
            zen.name
        )));
    }
    let hs = zen.header_size as usize;
    if hs > chunk.len() {
        return Err(Error::invalid(
            0,
            format!("{}: header size {hs:#x} past the chunk end", zen.name),
        ));
    }
    let uexp = uexp_of(zen, &chunk[hs..])?;
    check_script_imports(zen, src)?;
    let mut r = Resolver::new(src);
    r.delegate_class = "DelegateFunction";
    let mut names = NameTable::from_batch(&zen.names);
    let hints = template_hints(zen, imported, &r);
    let slots = ImportSlots::resolve(zen, imported, &r, &hints)?.fill_holes(zen)?;
    let mut imports = slots.legacy_imports(&mut names, layout);
    let map = IndexMap::new(zen);
    let mut exports = ExportTables::build(zen, &map, &mut names, layout)?;
    names.append_extra_sorted(&mut imports, &mut exports.exports);
    for e in &mut exports.exports {
        // UE4 export entries: a package GUID (zero in cooks), no
        // inherited-instance or public-hash flags; the twin's 220 exports
        // all have bNotAlwaysLoadedForEditorGame false.
        e.package_guid = Some(pakrat_io::Guid::from_bytes([0; 16]));
        e.inherited_instance = None;
        e.generate_public_hash = None;
        e.not_always_loaded_for_editor_game = Some(false);
        // UE4 `UObject::IsAsset`: public, not transient nor a CDO, directly
        // in the package (the twin's Blueprint class, flags 0x9, is one).
        e.is_asset = Some(
            e.outer == 0
                && e.object_flags & RF_PUBLIC != 0
                && e.object_flags & (RF_TRANSIENT | RF_CLASS_DEFAULT_OBJECT) == 0,
        );
    }
    exports.preload = implicit_preload(&mut exports.exports, &imports, &names.entries);
    let mut summary = cooked_summary(
        zen,
        layout,
        names.entries.len(),
        exports.exports.len(),
        exports.end as i64,
    );
    // UE 4.27 cooks name no package in the summary.
    summary.package_name = "None".into();
    summary.package_source = package_source(&zen.name);
    summary.total_header_size = zen.cooked_header_size as i32;
    summary.names_referenced_from_export_data = None;
    let export_count = exports.exports.len();
    let package = LegacyPackage {
        summary,
        layout,
        names: names.entries,
        soft_object_path_list: Vec::new(),
        imports,
        exports: exports.exports,
        cell_imports: Vec::new(),
        cell_exports: Vec::new(),
        depends: vec![Vec::new(); export_count],
        soft_package_references: Vec::new(),
        asset_registry_data: Vec::new(),
        preload_dependencies: exports.preload,
        data_resource_version: None,
        data_resources: Vec::new(),
    };
    Ok(LegacyBytes {
        uasset: package.to_bytes()?,
        uexp: uexp.into(),
    })
}

/// `PackageSource` as cooks write it: `FCrc::StrCrc_DEPRECATED` of the
/// upper-case file name (the package name's last part), two bytes per
/// UTF-16 unit through the MSB-first CRC-32 table, initial and final
/// inversion. The UE 4.27 twin (`TESTMODUI`: 2142278488) and the UE 5.6
/// twins `SM_Cube` and `M_Mannequin` carry exactly this; upper case is
/// ASCII's here.
fn package_source(name: &str) -> u32 {
    let leaf = name.rsplit('/').next().unwrap_or(name);
    let mut crc = u32::MAX;
    for unit in leaf.to_ascii_uppercase().encode_utf16() {
        for byte in unit.to_le_bytes() {
            let mut c = u32::from((crc >> 24) as u8 ^ byte) << 24;
            for _ in 0..8 {
                c = if c & 0x8000_0000 != 0 {
                    (c << 1) ^ 0x04C1_1DB7
                } else {
                    c << 1
                };
            }
            crc = (crc << 8) ^ c;
        }
    }
    !crc
}

/// The `.uexp`: each export's data (stored after the header in export
/// bundle order) at its legacy place (`CookedSerialOffset` − the legacy
/// header size), then the package tag. Gaps, overlaps and data past the
/// chunk are errors: the legacy file would not be the cooked one.
fn uexp_of(zen: &ZenPackage, data: &[u8]) -> Result<Vec<u8>> {
    let base = u64::from(zen.cooked_header_size);
    let err = |m: String| Error::invalid(0, format!("{}: {m}", zen.name));
    let mut at = 0u64;
    let mut placed: Vec<(u64, u64, u64)> = Vec::with_capacity(zen.exports.len());
    let mut seen = HashSet::new();
    for h in &zen.export_bundle_headers {
        let from = h.first_entry as usize;
        let to = from.saturating_add(h.entry_count as usize);
        let entries = zen
            .export_bundle_entries
            .get(from..to)
            .ok_or_else(|| err(format!("export bundle entries {from}..{to} out of range")))?;
        for &(e, cmd) in entries {
            if cmd != 1 {
                continue;
            }
            let x = zen
                .exports
                .get(e as usize)
                .ok_or_else(|| err(format!("export bundle names export {e}, out of range")))?;
            if !seen.insert(e) {
                return Err(err(format!("export {e} is serialized twice")));
            }
            let legacy = x.serial_offset.checked_sub(base).ok_or_else(|| {
                err(format!(
                    "export {e} starts at {:#x}, inside the {base}-byte legacy header",
                    x.serial_offset
                ))
            })?;
            placed.push((legacy, at, x.serial_size));
            at = at
                .checked_add(x.serial_size)
                .ok_or_else(|| err("export sizes overflow".into()))?;
        }
    }
    if seen.len() != zen.exports.len() {
        return Err(err(format!(
            "{} of {} exports have a Serialize command in the export bundles",
            seen.len(),
            zen.exports.len()
        )));
    }
    if at != data.len() as u64 {
        return Err(err(format!(
            "the exports hold {at} bytes of data, the chunk {} after the header",
            data.len()
        )));
    }
    placed.sort_unstable();
    let mut out = Vec::with_capacity(data.len() + PACKAGE_TAG.len());
    for (legacy, from, size) in placed {
        if legacy != out.len() as u64 {
            return Err(err(format!(
                "export data at legacy offset {:#x} does not follow the previous export (ends at {:#x}): gaps and overlaps are not kept by zen",
                legacy + base,
                out.len() as u64 + base
            )));
        }
        out.extend_from_slice(&data[from as usize..(from + size) as usize]);
    }
    out.extend_from_slice(&PACKAGE_TAG);
    Ok(out)
}

/// The preload dependencies a UE 4.27 cook writes that follow from the
/// tables alone (read off the twin): create-before-create on the outer and
/// the super struct, serialize-before-create on the class and template
/// unless they live in `/Script/CoreUObject`, serialize-before-serialize on
/// the super struct. The others (the objects export data refers to) are
/// not kept by zen. Sets each export's dependency fields.
fn implicit_preload(exports: &mut [LExport], imports: &[Import], names: &[NameEntry]) -> Vec<i32> {
    let in_core = |x: i32| -> bool {
        let mut at = x;
        for _ in 0..64 {
            let Some(im) = usize::try_from(-i64::from(at) - 1)
                .ok()
                .and_then(|i| imports.get(i))
            else {
                return false;
            };
            if im.outer == 0 {
                return names
                    .get(im.object_name.index as usize)
                    .is_some_and(|n| n.text == "/Script/CoreUObject");
            }
            at = im.outer;
        }
        false
    };
    let mut out = Vec::new();
    for e in exports.iter_mut() {
        let add = |g: &mut Vec<i32>, x: i32| {
            if x != 0 && !g.contains(&x) {
                g.push(x);
            }
        };
        let (mut sbs, mut sbc, mut cbc) = (Vec::new(), Vec::new(), Vec::new());
        add(&mut sbs, e.super_index);
        for x in [e.class, e.template.unwrap_or(0)] {
            if !in_core(x) {
                add(&mut sbc, x);
            }
        }
        add(&mut cbc, e.outer);
        add(&mut cbc, e.super_index);
        let first = out.len() as i32;
        for g in [&sbs, &sbc, &cbc] {
            out.extend_from_slice(g);
        }
        e.dependencies = Some([
            first,
            sbs.len() as i32,
            0,
            sbc.len() as i32,
            cbc.len() as i32,
        ]);
    }
    out
}

/// Every script import must be in the script objects given; the first
/// that is not is named (with its path when the name map spells it).
fn check_script_imports(zen: &ZenPackage, src: &dyn PackageSource) -> Result<()> {
    let so = src.script_objects();
    for (i, x) in zen.imports.iter().enumerate() {
        if matches!(x.get(), ObjectRef::Script(_)) && so.is_none_or(|s| s.get(*x).is_none()) {
            let spelled = spell(zen, x.0, true);
            return Err(Error::Other(format!(
                "{}: import {i} is script object {:#018x}{spelled}, which is not in the script objects given: give the game's own global container (--global global.utoc, or its LoaderInitialLoadMeta, LoaderGlobalNames and LoaderGlobalNameHashes chunks)",
                zen.name, x.0
            )));
        }
    }
    Ok(())
}

/// For an error message: the full path behind a UE4 package import index,
/// when the package's own name map spells it (every name of a legacy
/// import is in a UE 4.27 name map): the imported packages' names, then
/// each object below them that is itself one of the imports. Empty when
/// not found.
pub(super) fn describe_import(pkg: &ZenPackage, raw: u64) -> String {
    spell(pkg, raw, false)
}

/// The path of a package import index (`script` false) or script import
/// index (true) spelled from `pkg`'s name map, as an error message part.
fn spell(pkg: &ZenPackage, raw: u64, script: bool) -> String {
    let index = |p: &str| {
        if script {
            script_import_index(p)
        } else {
            (script_import_index(p) & !(3u64 << 62)) | (2u64 << 62)
        }
    };
    let wanted: HashSet<u64> = pkg
        .imports
        .iter()
        .filter(|i| !i.is_null())
        .map(|i| i.0)
        .chain([raw])
        .collect();
    let mut frontier: Vec<(String, String)> = pkg
        .names
        .iter()
        .filter(|n| n.text.starts_with('/') && n.text.starts_with("/Script/") == script)
        .filter(|n| {
            let id = pakrat_codec::names::package_id(&n.text);
            script || pkg.graph_packages.is_empty() || pkg.graph_packages.contains(&id)
        })
        .map(|n| (n.text.clone(), n.text.clone()))
        .collect();
    for depth in 0..4 {
        let mut next = Vec::new();
        for (package, path) in &frontier {
            let sep = if depth == 0 { '.' } else { ':' };
            for n in &pkg.names {
                let p = format!("{path}{sep}{}", n.text);
                let i = index(&p);
                if i == raw {
                    return format!(" ({p}, spelled from its own name map; in {package})");
                }
                if wanted.contains(&i) {
                    next.push((package.clone(), p));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    String::new()
}
