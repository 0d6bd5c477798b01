//! Legacy → zen in the UE 4.27 layout (container header `Initial`):
//! [`from_legacy_ue4`].
//!
//! Every rule below was read off the zenpair UE 4.27 twin (`TestModUI`: the
//! legacy cook and the engine's zen package of the same Blueprint widget,
//! 220 exports, 229 imports), whose zen form it reproduces byte for byte;
//! the layout itself is CUE4Parse's `FPackageSummary` / `IoPackage` and
//! retoc's `zen.rs` (`iostore.md` §15):
//!
//! * 64-byte `FPackageSummary`: `Name` and `SourceName` (both the package
//!   name's entry of the name map), package flags, `CookedHeaderSize` (the
//!   legacy `TotalHeaderSize`), nine offsets/sizes, 4 bytes of padding.
//! * The name map is the legacy one, in its order, as a names buffer
//!   (`{u8 header[2]; chars}` per name) 8-aligned, then a hashes buffer
//!   (algorithm id, one CityHash64 per name).
//! * Import map: a script object by its script import index, a package
//!   (`Package` class, not `/Script/`) Null, anything else the package
//!   import index of its full path (the hash of the lower-case path with
//!   `.`/`:` turned into `/`, kind bits `10`).
//! * Export map: `CookedSerialOffset` is the legacy file offset;
//!   `GlobalImportIndex` is the package import index of the export's full
//!   path for public exports, Null for the others.
//! * One export bundle holding every Create and Serialize command, in the
//!   order of a topological sort over the legacy preload dependencies
//!   between exports (and each export's Serialize after its Create) that
//!   always takes the ready command of the lowest export index, Create
//!   before Serialize.
//! * Graph data: every imported package, sorted by id, with one arc from
//!   its bundle 0 to this package's bundle 0. The store entry lists the
//!   same packages in import-map order.
//! * Export data in bundle order, without the legacy package tag.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use pakrat_codec::names::{name_hash, script_import_index, MappedName, NameMapKind};
use pakrat_io::{Error, Result, Writer};
use pakrat_iostore::container_header::StoreEntry;

use super::{ZenOutput, RF_PUBLIC};
use crate::legacy::LegacyPackage;
use crate::zen::ZenLayout;

/// `FNameHash::AlgorithmId` that leads the hashes buffer.
const NAME_HASH_ALGORITHM_ID: u64 = 0xC164_0000;

/// UE4 `FPackageObjectIndex::FromPackagePath`: the script import hash of
/// the path with the package-import kind bits.
fn package_import_index(path: &str) -> u64 {
    (script_import_index(path) & !(3u64 << 62)) | (2u64 << 62)
}

/// Convert a cooked UE 4.27 legacy package to a zen package in the UE 4.27
/// layout. UE 4.27 summaries carry no package name (`None`): `name` is the
/// one the engine's mount gives the file (`/Game/…` for
/// `<Project>/Content/…`). `export_data` is the `.uexp`. The result's
/// `store_entry` holds what the container header needs (its `LoadOrder`
/// is container-wide and left 0).
pub fn from_legacy_ue4(pkg: &LegacyPackage, export_data: &[u8], name: &str) -> Result<ZenOutput> {
    check(pkg, name)?;
    let mut pkg = pkg.clone();
    pkg.summary.package_name = name.to_string();
    let pkg = &pkg;
    let name_index = pkg
        .names
        .iter()
        .position(|n| n.text == name)
        .ok_or_else(|| {
            Error::unsupported(
                0,
                format!("{name}: the package name is not in its name map (every UE 4.27 cook has it there)"),
            )
        })?;
    let imports = import_map(pkg)?;
    let order = load_order(pkg)?;
    let ths = i64::from(pkg.summary.total_header_size);
    let mut data = Writer::new();
    for &(e, c) in &order {
        if c == 1 {
            let x = &pkg.exports[e as usize];
            let from = x
                .serial_offset
                .checked_sub(ths)
                .and_then(|f| usize::try_from(f).ok());
            let end = from.and_then(|f| f.checked_add(usize::try_from(x.serial_size).ok()?));
            match (from, end) {
                (Some(f), Some(t)) if t <= export_data.len() => data.bytes(&export_data[f..t]),
                _ => {
                    return Err(Error::invalid(
                        0,
                        format!(
                            "{name}: export {e} data {:#x}+{:#x} outside the export data",
                            x.serial_offset, x.serial_size
                        ),
                    ))
                }
            };
        }
    }
    let imported = imported_packages(pkg);
    let mut chunk = header(pkg, name_index as u32, &imports, &order, &imported)?;
    chunk.extend_from_slice(data.as_slice());
    let store = StoreEntry {
        export_bundles_size: Some(chunk.len() as u64),
        export_count: Some(pkg.exports.len() as i32),
        export_bundle_count: Some(1),
        load_order: Some(0),
        imported_packages: store_imports(pkg),
        shader_map_hashes: Vec::new(),
    };
    let package = crate::zen::parse(&chunk, ZenLayout::Ue4, Some(&store))?;
    Ok(ZenOutput {
        package,
        chunk,
        imported_packages: imported,
        store_entry: Some(store),
    })
}

/// What the UE 4.27 layout cannot hold, or what was not checked.
fn check(pkg: &LegacyPackage, name: &str) -> Result<()> {
    pkg.check_references()?;
    if pkg.layout.ue5 != 0 || pkg.layout.ue4 != 522 {
        return Err(Error::unsupported(
            0,
            format!(
                "{name}: a package of file versions UE4 {} / UE5 {}; of the UE4 zen layouts pakrat writes UE 4.27's only (UE4 file version 522, no UE5 version): the UE 4.25 layout (container header PreInitial) is not written",
                pkg.layout.ue4, pkg.layout.ue5
            ),
        ));
    }
    if !pkg.summary.filter_editor_only() {
        return Err(Error::Other(format!(
            "{name}: has editor-only data (no PKG_FilterEditorOnly)"
        )));
    }
    if pkg.exports.iter().any(|e| e.dependencies.is_none()) {
        return Err(Error::unsupported(
            0,
            format!("{name}: exports without preload dependency fields (not a UE 4.27 cook)"),
        ));
    }
    if !name.starts_with('/') || name.contains('.') {
        return Err(Error::Other(format!(
            "{name}: not a package name (/Game/…)"
        )));
    }
    Ok(())
}

/// The zen import map (see the module notes).
fn import_map(pkg: &LegacyPackage) -> Result<Vec<u64>> {
    let name = &pkg.summary.package_name;
    (0..pkg.imports.len())
        .map(|i| {
            let x = -(i as i32) - 1;
            let path = pkg.path(x).ok_or_else(|| {
                Error::Other(format!("{name}: import {i} does not resolve to a path"))
            })?;
            let class = pkg.name(pkg.imports[i].class_name).unwrap_or_default();
            Ok(if path.starts_with("/Script/") {
                script_import_index(&path)
            } else if class == "Package" && pkg.outer_of(x) == 0 {
                u64::MAX
            } else {
                package_import_index(&path)
            })
        })
        .collect()
}

/// The ids of the packages the imports live in (not `/Script/`), sorted.
fn imported_packages(pkg: &LegacyPackage) -> Vec<u64> {
    let mut ids = BTreeSet::new();
    for i in 0..pkg.imports.len() {
        let mut top = -(i as i32) - 1;
        while pkg.outer_of(top) < 0 {
            top = pkg.outer_of(top);
        }
        if top == -(i as i32) - 1 {
            continue;
        }
        if let Some(p) = pkg.object_name(top) {
            if !p.starts_with("/Script/") {
                ids.insert(pakrat_codec::names::package_id(&p));
            }
        }
    }
    ids.into_iter().collect()
}

/// The store entry's imported packages: the package imports (a top-level
/// `Package` import, not `/Script/`) in import-map order, as the UE 4.27
/// twin's store entry lists them (the graph data sorts them by id).
fn store_imports(pkg: &LegacyPackage) -> Vec<u64> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for i in 0..pkg.imports.len() {
        let x = -(i as i32) - 1;
        let class = pkg.name(pkg.imports[i].class_name).unwrap_or_default();
        if class != "Package" || pkg.outer_of(x) != 0 {
            continue;
        }
        if let Some(p) = pkg.object_name(x) {
            let id = pakrat_codec::names::package_id(&p);
            if !p.starts_with("/Script/") && seen.insert(id) {
                out.push(id);
            }
        }
    }
    // Packages reached only as outers of other imports (no import of
    // their own) follow, by id.
    for id in imported_packages(pkg) {
        if seen.insert(id) {
            out.push(id);
        }
    }
    out
}

/// The single export bundle: (export, 0 Create / 1 Serialize) in load
/// order (see the module notes).
fn load_order(pkg: &LegacyPackage) -> Result<Vec<(u32, u32)>> {
    let n = pkg.exports.len();
    let node = |e: usize, c: usize| e * 2 + c;
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); 2 * n];
    let mut incoming = vec![0usize; 2 * n];
    let mut edge = |from: usize, to: usize| {
        dependants[from].push(to);
        incoming[to] += 1;
    };
    for (i, e) in pkg.exports.iter().enumerate() {
        edge(node(i, 0), node(i, 1));
        let Some([sbs, cbs, sbc, cbc]) = e.dependency_ranges() else {
            continue;
        };
        for (r, from_cmd, to_cmd) in [(cbc, 0, 0), (sbc, 1, 0), (cbs, 0, 1), (sbs, 1, 1)] {
            for &x in &pkg.preload_dependencies[r] {
                let d = (x - 1) as usize;
                if x > 0 && d < n && !(d == i && from_cmd == 0 && to_cmd == 1) {
                    edge(node(d, from_cmd), node(i, to_cmd));
                }
            }
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..2 * n)
        .filter(|&x| incoming[x] == 0)
        .map(Reverse)
        .collect();
    let mut out = Vec::with_capacity(2 * n);
    while let Some(Reverse(x)) = ready.pop() {
        out.push(((x / 2) as u32, (x % 2) as u32));
        for &d in &dependants[x] {
            incoming[d] -= 1;
            if incoming[d] == 0 {
                ready.push(Reverse(d));
            }
        }
    }
    if out.len() != 2 * n {
        return Err(Error::Other(format!(
            "{}: export dependencies form a cycle: no load order exists",
            pkg.summary.package_name
        )));
    }
    Ok(out)
}

/// Legacy package index `x` as a zen object index.
fn zen_index(imports: &[u64], x: i32) -> u64 {
    match x {
        0 => u64::MAX,
        x if x > 0 => (x - 1) as u64,
        x => imports.get((-x - 1) as usize).copied().unwrap_or(u64::MAX),
    }
}

/// The names and hashes buffers.
fn name_buffers(pkg: &LegacyPackage) -> (Writer, Writer) {
    let mut names = Writer::new();
    let mut hashes = Writer::new();
    hashes.u64(NAME_HASH_ALGORITHM_ID);
    for n in &pkg.names {
        let latin1 = pakrat_io::FString::to_latin1(&n.text);
        let wide = n.wide || latin1.is_none();
        if wide {
            let units: Vec<u16> = n.text.encode_utf16().collect();
            names
                .u8(0x80 | ((units.len() >> 8) as u8 & 0x7F))
                .u8(units.len() as u8);
            if names.len() % 2 == 1 {
                names.u8(0);
            }
            for u in units {
                names.u16(u);
            }
        } else {
            let b = latin1.unwrap_or_default();
            names.u8((b.len() >> 8) as u8 & 0x7F).u8(b.len() as u8);
            names.bytes(&b);
        }
        hashes.u64(name_hash(&n.text, wide));
    }
    (names, hashes)
}

/// The zen header: summary, names, import and export maps, the export
/// bundle and the graph data.
fn header(
    pkg: &LegacyPackage,
    name_index: u32,
    imports: &[u64],
    order: &[(u32, u32)],
    imported: &[u64],
) -> Result<Vec<u8>> {
    let name = MappedName {
        index: name_index,
        kind: NameMapKind::Package,
        number: 0,
    };
    let (names, hashes) = name_buffers(pkg);
    let mut w = Writer::new();
    name.write(&mut w);
    name.write(&mut w);
    w.u32(pkg.summary.package_flags)
        .u32(pkg.summary.total_header_size as u32);
    let offsets_at = w.len();
    w.zeros(10 * 4);
    let mut off = [0i32; 9];
    off[0] = w.len() as i32;
    off[1] = names.len() as i32;
    w.bytes(names.as_slice()).align(8);
    off[2] = w.len() as i32;
    off[3] = hashes.len() as i32;
    w.bytes(hashes.as_slice());
    off[4] = w.len() as i32;
    for i in imports {
        w.u64(*i);
    }
    off[5] = w.len() as i32;
    for (i, e) in pkg.exports.iter().enumerate() {
        let public = e.object_flags & RF_PUBLIC != 0;
        let global = if public {
            package_import_index(&pkg.path(i as i32 + 1).unwrap_or_default())
        } else {
            u64::MAX
        };
        w.u64(e.serial_offset as u64).u64(e.serial_size as u64);
        MappedName {
            index: e.object_name.index as u32,
            kind: NameMapKind::Package,
            number: e.object_name.number as u32,
        }
        .write(&mut w);
        w.u64(zen_index(imports, e.outer))
            .u64(zen_index(imports, e.class))
            .u64(zen_index(imports, e.super_index))
            .u64(zen_index(imports, e.template.unwrap_or(0)))
            .u64(global)
            .u32(e.object_flags)
            .u8(if e.not_for_server {
                2
            } else if e.not_for_client {
                1
            } else {
                0
            })
            .zeros(3);
    }
    off[6] = w.len() as i32;
    w.u32(0).u32(order.len() as u32);
    for (e, c) in order {
        w.u32(*e).u32(*c);
    }
    off[7] = w.len() as i32;
    w.i32(imported.len() as i32);
    for id in imported {
        w.u64(*id).i32(1).i32(0).i32(0);
    }
    off[8] = w.len() as i32 - off[7];
    let mut out = w.into_inner();
    for (k, o) in off.iter().enumerate() {
        out[offsets_at + 4 * k..offsets_at + 4 * k + 4].copy_from_slice(&o.to_le_bytes());
    }
    Ok(out)
}
