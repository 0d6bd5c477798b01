//! Reading a zen package header ([`parse`]), one layout at a time.

use pakrat_codec::names::{
    read_name_batch, read_name_batch_parts, with_number, BatchName, MappedName,
};
use pakrat_io::{Error, Reader, Result};
use pakrat_iostore::container_header::StoreEntry;

use super::{
    BulkDataEntry, BulkSection, DependencyBundleHeader, Export, ExportBundleHeader, ObjectIndex,
    Versioning, ZenLayout, ZenPackage, BULK_DATA_ENTRY_SIZE, CELL_EXPORT_ENTRY_SIZE,
    DEPENDENCY_BUNDLE_HEADER_SIZE, EXPORT_ENTRY_SIZE, UE5_VERSE_CELLS,
};

/// Parse the bulk data section in `[from, to)`: with the UE 5.4+ pad first,
/// then without; `None` when neither form fills the range exactly.
fn parse_bulk(all: &Reader<'_>, from: usize, to: usize) -> Option<BulkSection> {
    let try_form = |pad: bool| -> Option<BulkSection> {
        let mut r = all
            .sub(from as u64, (to - from) as u64, "bulk data map")
            .ok()?;
        let pad = if pad {
            let n = r.u64("pad length").ok()?;
            if n > 7 || r.bytes(n, "pad").ok()?.iter().any(|&b| b != 0) {
                return None;
            }
            Some(n)
        } else {
            None
        };
        let size = r.i64("BulkDataMapSize").ok()?;
        if size < 0
            || !(size as usize).is_multiple_of(BULK_DATA_ENTRY_SIZE)
            || size as usize != r.remaining()
        {
            return None;
        }
        let n = size as usize / BULK_DATA_ENTRY_SIZE;
        let mut entries = Vec::with_capacity(n);
        for _ in 0..n {
            let e = BulkDataEntry {
                serial_offset: r.i64("bulk offset").ok()?,
                duplicate_serial_offset: r.i64("bulk duplicate offset").ok()?,
                serial_size: r.i64("bulk size").ok()?,
                flags: r.u32("bulk flags").ok()?,
                cooked_index: r.u8("bulk cooked index").ok()?,
            };
            r.skip(3, "bulk pad").ok()?;
            entries.push(e);
        }
        Some(BulkSection { pad, entries })
    };
    if to < from {
        return None;
    }
    try_form(true).or_else(|| try_form(false))
}

/// Check a header offset: within `[lo, header_end]`; returns it as usize.
fn offset(v: i32, lo: usize, end: usize, what: &str, at: u64) -> Result<usize> {
    if v < 0 || (v as usize) < lo || v as usize > end {
        return Err(Error::invalid(
            at,
            format!("{what} {v:#x} lies outside {lo:#x}..={end:#x}"),
        ));
    }
    Ok(v as usize)
}

/// Number of `size`-byte records in `[from, to)`, which must divide exactly.
fn records(from: usize, to: usize, size: usize, what: &str, at: u64) -> Result<usize> {
    if to < from || !(to - from).is_multiple_of(size) {
        return Err(Error::invalid(
            at,
            format!(
                "{what}: {:#x}..{:#x} is not a whole number of {size}-byte records",
                from, to
            ),
        ));
    }
    Ok((to - from) / size)
}

fn read_versioning(r: &mut Reader<'_>) -> Result<Versioning> {
    let zen_version = r.u32("zen package version")?;
    let file_version_ue4 = r.i32("FileVersionUE4")?;
    let file_version_ue5 = r.i32("FileVersionUE5")?;
    let licensee = r.i32("licensee version")?;
    let n = i64::from(r.i32("custom version count")?);
    let n = r.check_count(n, 20, "custom version count")?;
    let mut custom_versions = Vec::with_capacity(n);
    for _ in 0..n {
        custom_versions.push((r.guid("custom version key")?, r.i32("custom version")?));
    }
    Ok(Versioning {
        zen_version,
        file_version_ue4,
        file_version_ue5,
        licensee,
        custom_versions,
    })
}

fn read_indices(data: &Reader<'_>, from: usize, n: usize, what: &str) -> Result<Vec<ObjectIndex>> {
    let mut r = data.sub(from as u64, n as u64 * 8, what)?;
    (0..n).map(|_| Ok(ObjectIndex(r.u64(what)?))).collect()
}

fn read_exports(data: &Reader<'_>, from: usize, n: usize) -> Result<Vec<Export>> {
    let mut r = data.sub(from as u64, (n * EXPORT_ENTRY_SIZE) as u64, "export map")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let e = Export {
            serial_offset: r.u64("export CookedSerialOffset")?,
            serial_size: r.u64("export CookedSerialSize")?,
            name: MappedName::read(&mut r)?,
            outer: ObjectIndex(r.u64("export outer index")?),
            class: ObjectIndex(r.u64("export class index")?),
            super_index: ObjectIndex(r.u64("export super index")?),
            template: ObjectIndex(r.u64("export template index")?),
            public_export_hash: r.u64("export public hash")?,
            object_flags: r.u32("export object flags")?,
            filter_flags: r.u8("export filter flags")?,
        };
        r.skip(3, "export padding")?;
        out.push(e);
    }
    Ok(out)
}

fn read_pairs(data: &Reader<'_>, from: usize, n: usize, what: &str) -> Result<Vec<(u32, u32)>> {
    let mut r = data.sub(from as u64, n as u64 * 8, what)?;
    (0..n)
        .map(|_| {
            let at = r.offset();
            let idx = r.u32(what)?;
            let cmd = r.u32(what)?;
            if cmd > 1 {
                return Err(Error::invalid(
                    at + 4,
                    format!("{what}: command type {cmd}, expected 0 (Create) or 1 (Serialize)"),
                ));
            }
            Ok((idx, cmd))
        })
        .collect()
}

/// Parse a zen package header from the start of its ExportBundleData chunk.
///
/// `store` is the package's store entry from the container header; it is
/// required before UE 5.3 (export bundle count, imported packages).
pub fn parse(data: &[u8], layout: ZenLayout, store: Option<&StoreEntry>) -> Result<ZenPackage> {
    match layout {
        ZenLayout::Ue4 => parse_ue4(data, store),
        ZenLayout::Ue5_0 | ZenLayout::Ue5_3 { .. } => parse_ue5(data, layout, store),
    }
}

/// The package name of a zen package chunk, read without its store entry
/// (what finding that entry in a container header needs): UE4 from the
/// summary's `Name` and the name map, UE 5.3+ from the parsed header.
/// UE 5.0-5.2 headers need the store entry to parse and are refused.
pub fn package_name(data: &[u8], layout: ZenLayout) -> Result<String> {
    match layout {
        ZenLayout::Ue4 => {
            let all = Reader::new(data);
            let mut r = all.clone();
            let name = MappedName::read(&mut r)?;
            MappedName::read(&mut r)?;
            r.skip(8, "PackageFlags and CookedHeaderSize")?;
            let (_, names) = read_ue4_layout(&all, &mut r, data.len())?;
            name.resolve(&names).ok_or_else(|| {
                Error::invalid(
                    0,
                    format!("package name index {} is outside the name map", name.index),
                )
            })
        }
        ZenLayout::Ue5_3 { .. } => parse_ue5(data, layout, None).map(|p| p.name),
        ZenLayout::Ue5_0 => Err(Error::unsupported(
            0,
            "a loose UE 5.0-5.2 zen package: its header needs the store entry to be read",
        )),
    }
}

/// A package with every table empty, for the parsers to fill.
fn empty_package(layout: ZenLayout, name_mapped: MappedName) -> ZenPackage {
    ZenPackage {
        layout,
        versioning: None,
        header_size: 0,
        name: String::new(),
        source_name: None,
        package_flags: 0,
        cooked_header_size: 0,
        names: Vec::new(),
        imported_public_export_hashes: Vec::new(),
        imports: Vec::new(),
        exports: Vec::new(),
        cell_imports: Vec::new(),
        cell_export_count: 0,
        export_bundle_headers: Vec::new(),
        export_bundle_entries: Vec::new(),
        dependency_bundle_headers: Vec::new(),
        dependency_bundle_entries: Vec::new(),
        imported_package_names: Vec::new(),
        graph_packages: Vec::new(),
        name_mapped,
        bulk: None,
        cell_exports: Vec::new(),
        imported_package_name_parts: Vec::new(),
        imported_package_names_written: false,
    }
}

/// An offset field as stored: where it is, and its value.
type RawOffset = (u64, i32);

/// The start of a UE5 header: summary, versioning info, Verse cell map
/// offsets and the name batch.
struct Ue5Summary {
    header_size: u32,
    name: MappedName,
    package_flags: u32,
    cooked_header_size: u32,
    /// The summary's offsets in file order (5 before UE 5.3, else 7).
    raw: Vec<RawOffset>,
    versioning: Option<Versioning>,
    /// `CellImportMapOffset` and `CellExportMapOffset` (UE 5.6+).
    cell_offsets: Option<(RawOffset, RawOffset)>,
    names: Vec<BatchName>,
    names_end: usize,
}

impl Ue5Summary {
    fn read(r: &mut Reader<'_>, data_len: usize, layout: ZenLayout) -> Result<Ue5Summary> {
        let has_versioning = r.u32("bHasVersioningInfo")?;
        let hs_at = r.offset();
        let header_size = r.u32("HeaderSize")?;
        if header_size as usize > data_len {
            return Err(Error::invalid(
                hs_at,
                format!("HeaderSize {header_size:#x} is larger than the chunk ({data_len:#x})"),
            ));
        }
        let name = MappedName::read(r)?;
        let package_flags = r.u32("PackageFlags")?;
        let cooked_header_size = r.u32("CookedHeaderSize")?;
        let mut raw = Vec::new();
        let fields = if matches!(layout, ZenLayout::Ue5_0) {
            5
        } else {
            7
        };
        for _ in 0..fields {
            raw.push((r.offset(), r.i32("header offset")?));
        }
        let versioning = match has_versioning {
            0 => None,
            1 => Some(read_versioning(r)?),
            v => {
                return Err(Error::invalid(
                    0,
                    format!("bHasVersioningInfo {v}, expected 0 or 1"),
                ))
            }
        };
        let cells = match (layout, &versioning) {
            (ZenLayout::Ue5_3 { cells: true }, Some(v)) => v.file_version_ue5 >= UE5_VERSE_CELLS,
            (ZenLayout::Ue5_3 { cells }, None) => cells,
            _ => false,
        };
        let cell_offsets = if cells {
            Some((
                (r.offset(), r.i32("CellImportMapOffset")?),
                (r.offset(), r.i32("CellExportMapOffset")?),
            ))
        } else {
            None
        };
        let names = read_name_batch(r)?;
        Ok(Ue5Summary {
            header_size,
            name,
            package_flags,
            cooked_header_size,
            raw,
            versioning,
            cell_offsets,
            names,
            names_end: r.pos(),
        })
    }

    /// Where the tables up to the export bundle entries start; each must
    /// be >= the previous one.
    fn offsets(&self) -> Result<Ue5Offsets> {
        let hend = self.header_size as usize;
        let raw = &self.raw;
        let (hashes_at, hashes_off) = raw[0];
        let hashes = offset(
            hashes_off,
            self.names_end,
            hend,
            "ImportedPublicExportHashesOffset",
            hashes_at,
        )?;
        let (a, v) = raw[1];
        let imports = offset(v, hashes, hend, "ImportMapOffset", a)?;
        let (a, v) = raw[2];
        let exports = offset(v, imports, hend, "ExportMapOffset", a)?;
        let (a, v) = raw[3];
        let bundles = offset(v, exports, hend, "ExportBundleEntriesOffset", a)?;
        Ok(Ue5Offsets {
            hashes_at,
            hashes,
            imports,
            exports,
            bundles,
        })
    }
}

/// Checked UE5 table offsets.
struct Ue5Offsets {
    /// Where `ImportedPublicExportHashesOffset` is stored.
    hashes_at: u64,
    hashes: usize,
    imports: usize,
    exports: usize,
    bundles: usize,
}

fn parse_ue5(data: &[u8], layout: ZenLayout, store: Option<&StoreEntry>) -> Result<ZenPackage> {
    let all = Reader::new(data);
    let mut r = all.clone();
    let s = Ue5Summary::read(&mut r, data.len(), layout)?;
    let o = s.offsets()?;
    let hend = s.header_size as usize;
    let raw = s.raw.clone();
    let mut pkg = read_ue5_maps(&all, s, &o, layout)?;
    if let ZenLayout::Ue5_3 { .. } = layout {
        let names_off = read_dependency_bundles(&all, &mut pkg, &raw, o.bundles, hend)?;
        read_imported_package_names(&all, &mut pkg, names_off, hend)?;
    } else {
        read_ue50_graph(&all, &mut pkg, &raw, o.bundles, hend, store)?;
    }
    Ok(pkg)
}

/// The tables every UE5 layout has: imported public export hashes, import
/// map, Verse cell maps, export map and bulk data map; then the package
/// name is resolved.
fn read_ue5_maps(
    all: &Reader<'_>,
    s: Ue5Summary,
    o: &Ue5Offsets,
    layout: ZenLayout,
) -> Result<ZenPackage> {
    let hash_count = records(
        o.hashes,
        o.imports,
        8,
        "ImportedPublicExportHashes",
        o.hashes_at,
    )?;
    let mut h = all.sub(
        o.hashes as u64,
        hash_count as u64 * 8,
        "imported public export hashes",
    )?;
    let imported_public_export_hashes = (0..hash_count)
        .map(|_| h.u64("imported public export hash"))
        .collect::<Result<Vec<_>>>()?;
    let import_count = records(o.imports, o.exports, 8, "import map", s.raw[1].0)?;
    let imports = read_indices(all, o.imports, import_count, "import map")?;
    let (exports_end, cell_imports, cell_export_count) = match s.cell_offsets {
        Some(((ia, iv), (ea, ev))) => {
            let ci = offset(iv, o.exports, o.bundles, "CellImportMapOffset", ia)?;
            let ce = offset(ev, ci, o.bundles, "CellExportMapOffset", ea)?;
            let n = records(ci, ce, 8, "cell import map", ia)?;
            let cell_imports = read_indices(all, ci, n, "cell import map")?;
            let m = records(ce, o.bundles, CELL_EXPORT_ENTRY_SIZE, "cell export map", ea)?;
            (ci, cell_imports, m)
        }
        None => (o.bundles, Vec::new(), 0),
    };
    let export_count = records(
        o.exports,
        exports_end,
        EXPORT_ENTRY_SIZE,
        "export map",
        s.raw[2].0,
    )?;
    let exports = read_exports(all, o.exports, export_count)?;
    let mut pkg = ZenPackage {
        versioning: s.versioning,
        header_size: s.header_size,
        package_flags: s.package_flags,
        cooked_header_size: s.cooked_header_size,
        names: s.names,
        imported_public_export_hashes,
        imports,
        exports,
        cell_imports,
        cell_export_count,
        ..empty_package(layout, s.name)
    };
    pkg.bulk = parse_bulk(all, s.names_end, o.hashes);
    if let Some((_, (_, ev))) = s.cell_offsets {
        let ce = ev as usize;
        let mut cr = all.sub(
            ce as u64,
            (pkg.cell_export_count * CELL_EXPORT_ENTRY_SIZE) as u64,
            "cell export map",
        )?;
        for _ in 0..pkg.cell_export_count {
            pkg.cell_exports
                .push(cr.array::<CELL_EXPORT_ENTRY_SIZE>("cell export")?);
        }
    }
    let name = s.name;
    pkg.name = name.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            8,
            format!(
                "package name index {} is outside the name map ({} names)",
                name.index,
                pkg.names.len()
            ),
        )
    })?;
    Ok(pkg)
}

/// UE 5.3+: export bundle entries, dependency bundle headers and entries.
/// Returns where the imported package names start.
fn read_dependency_bundles(
    all: &Reader<'_>,
    pkg: &mut ZenPackage,
    raw: &[RawOffset],
    bundle_off: usize,
    hend: usize,
) -> Result<usize> {
    let (a, v) = raw[4];
    let dep_h = offset(v, bundle_off, hend, "DependencyBundleHeadersOffset", a)?;
    let (a2, v) = raw[5];
    let dep_e = offset(v, dep_h, hend, "DependencyBundleEntriesOffset", a2)?;
    let (a3, v) = raw[6];
    let names_off = offset(v, dep_e, hend, "ImportedPackageNamesOffset", a3)?;
    let n = records(bundle_off, dep_h, 8, "export bundle entries", raw[3].0)?;
    let expect = 2 * (pkg.exports.len() + pkg.cell_export_count);
    if n != expect {
        return Err(Error::invalid(
            raw[3].0,
            format!(
                "{n} export bundle entries for {} exports (+{} cell exports), expected {expect}",
                pkg.exports.len(),
                pkg.cell_export_count
            ),
        ));
    }
    pkg.export_bundle_entries = read_pairs(all, bundle_off, n, "export bundle entry")?;
    let nh = records(
        dep_h,
        dep_e,
        DEPENDENCY_BUNDLE_HEADER_SIZE,
        "dependency bundle headers",
        a,
    )?;
    if nh != pkg.exports.len() && nh != pkg.exports.len() + pkg.cell_export_count {
        return Err(Error::invalid(
            a,
            format!(
                "{nh} dependency bundle headers for {} exports",
                pkg.exports.len()
            ),
        ));
    }
    pkg.dependency_bundle_headers = read_dependency_headers(all, dep_h, nh)?;
    let ne = records(dep_e, names_off, 4, "dependency bundle entries", a2)?;
    let mut d = all.sub(dep_e as u64, ne as u64 * 4, "dependency bundle entries")?;
    pkg.dependency_bundle_entries = (0..ne)
        .map(|_| d.i32("dependency bundle entry"))
        .collect::<Result<_>>()?;
    // Each header's entries must lie within the entry array.
    for (i, hdr) in pkg.dependency_bundle_headers.iter().enumerate() {
        let total: u64 = hdr
            .entry_count
            .iter()
            .flatten()
            .map(|&c| u64::from(c))
            .sum();
        // An empty bundle may say INDEX_NONE (-1) (seen on the UE 5.8 fixtures).
        if total > 0 && (hdr.first_entry < 0 || hdr.first_entry as u64 + total > ne as u64) {
            return Err(Error::invalid(
                dep_h as u64 + (i * DEPENDENCY_BUNDLE_HEADER_SIZE) as u64,
                format!(
                    "dependency bundle {i}: entries {}+{total} outside the {ne} entries",
                    hdr.first_entry
                ),
            ));
        }
    }
    Ok(names_off)
}

/// `n` dependency bundle headers at `from`.
fn read_dependency_headers(
    all: &Reader<'_>,
    from: usize,
    n: usize,
) -> Result<Vec<DependencyBundleHeader>> {
    let mut d = all.sub(
        from as u64,
        (n * DEPENDENCY_BUNDLE_HEADER_SIZE) as u64,
        "dependency bundle headers",
    )?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let first_entry = d.i32("dependency bundle first entry")?;
        let mut entry_count = [[0u32; 2]; 2];
        for row in &mut entry_count {
            for c in row.iter_mut() {
                *c = d.u32("dependency bundle entry count")?;
            }
        }
        out.push(DependencyBundleHeader {
            first_entry,
            entry_count,
        });
    }
    Ok(out)
}

/// UE 5.3+: imported package names, a name batch and one i32 number each,
/// which must end at `HeaderSize`.
fn read_imported_package_names(
    all: &Reader<'_>,
    pkg: &mut ZenPackage,
    names_off: usize,
    hend: usize,
) -> Result<()> {
    let mut nr = all.sub(
        names_off as u64,
        (hend - names_off) as u64,
        "imported package names",
    )?;
    // An empty section (offset = HeaderSize) means no names were written.
    pkg.imported_package_names_written = !nr.is_empty();
    let base = if nr.is_empty() {
        Vec::new()
    } else {
        read_name_batch(&mut nr)?
    };
    let n = nr.check_count(base.len() as i64, 4, "imported package name numbers")?;
    for b in base.iter().take(n) {
        let num = nr.i32("imported package name number")?;
        pkg.imported_package_names
            .push(with_number(&b.text, u32::try_from(num).unwrap_or(0)));
        pkg.imported_package_name_parts.push((b.clone(), num));
    }
    if nr.remaining() != 0 {
        return Err(Error::invalid(
            nr.offset(),
            format!(
                "{} unexpected bytes between the imported package names and HeaderSize",
                nr.remaining()
            ),
        ));
    }
    Ok(())
}

/// UE 5.0–5.2: export bundle entries up to `GraphDataOffset`, then graph
/// data: export bundle headers (count from the store entry), internal arcs
/// {i32 from, i32 to}, then per imported package external arcs {i32
/// import, u8 command, i32 to bundle}.
fn read_ue50_graph(
    all: &Reader<'_>,
    pkg: &mut ZenPackage,
    raw: &[RawOffset],
    bundle_off: usize,
    hend: usize,
    store: Option<&StoreEntry>,
) -> Result<()> {
    let (a, v) = raw[4];
    let graph = offset(v, bundle_off, hend, "GraphDataOffset", a)?;
    let n = records(bundle_off, graph, 8, "export bundle entries", raw[3].0)?;
    pkg.export_bundle_entries = read_pairs(all, bundle_off, n, "export bundle entry")?;
    let store = store.ok_or_else(|| {
        Error::Other("UE 5.0-5.2 zen packages need their container header store entry".into())
    })?;
    let bundles = store.export_bundle_count.unwrap_or(0);
    let mut g = all.sub(graph as u64, (hend - graph) as u64, "graph data")?;
    let nb = g.check_count(i64::from(bundles), 16, "export bundle count (store entry)")?;
    for _ in 0..nb {
        pkg.export_bundle_headers.push(ExportBundleHeader {
            serial_offset: Some(g.u64("export bundle serial offset")?),
            first_entry: g.u32("export bundle first entry")?,
            entry_count: g.u32("export bundle entry count")?,
        });
    }
    check_bundles(pkg, a)?;
    let n = i64::from(g.i32("internal arc count")?);
    let n = g.check_count(n, 8, "internal arc count")?;
    g.skip(n as u64 * 8, "internal arcs")?;
    for _ in &store.imported_packages {
        let n = i64::from(g.i32("external arc count")?);
        let n = g.check_count(n, 9, "external arc count")?;
        g.skip(n as u64 * 9, "external arcs")?;
    }
    pkg.graph_packages = store.imported_packages.clone();
    if g.remaining() != 0 {
        return Err(Error::invalid(
            g.offset(),
            format!(
                "{} unexpected bytes between the graph data and HeaderSize",
                g.remaining()
            ),
        ));
    }
    Ok(())
}

/// Bundle headers must cover the entry array exactly, in order, and
/// reference only existing exports.
fn check_bundles(pkg: &ZenPackage, at: u64) -> Result<()> {
    let mut next = 0u64;
    for (i, b) in pkg.export_bundle_headers.iter().enumerate() {
        if u64::from(b.first_entry) != next {
            return Err(Error::invalid(
                at,
                format!(
                    "export bundle {i} starts at entry {}, expected {next}",
                    b.first_entry
                ),
            ));
        }
        next += u64::from(b.entry_count);
    }
    if next != pkg.export_bundle_entries.len() as u64 {
        return Err(Error::invalid(
            at,
            format!(
                "export bundles cover {next} entries but there are {}",
                pkg.export_bundle_entries.len()
            ),
        ));
    }
    if let Some((i, _)) = pkg
        .export_bundle_entries
        .iter()
        .find(|(e, _)| *e as usize >= pkg.exports.len())
    {
        return Err(Error::invalid(
            at,
            format!(
                "export bundle entry {i} names an export outside the {} exports",
                pkg.exports.len()
            ),
        ));
    }
    Ok(())
}

/// Checked offsets of a UE4 `FPackageSummary`.
struct Ue4Offsets {
    /// Where each offset field is stored, and its value.
    raw: Vec<RawOffset>,
    /// Header end: `GraphDataOffset + GraphDataSize`.
    hend: usize,
    imports: usize,
    exports: usize,
    bundles: usize,
    graph: usize,
}

/// The UE4 summary's offsets (after the names, package flags and cooked
/// header size) and the name map they locate.
fn read_ue4_layout(
    all: &Reader<'_>,
    r: &mut Reader<'_>,
    data_len: usize,
) -> Result<(Ue4Offsets, Vec<BatchName>)> {
    let mut raw = Vec::new();
    for _ in 0..9 {
        raw.push((r.offset(), r.i32("summary offset")?));
    }
    r.skip(4, "summary padding")?;
    let summary_end = r.pos(); // 64
    let (ga, graph_size) = raw[8];
    let (_, graph_off) = raw[7];
    let header_end = i64::from(graph_off) + i64::from(graph_size);
    if graph_off < 0 || graph_size < 0 || header_end > data_len as i64 {
        return Err(Error::invalid(
            ga,
            format!(
                "graph data {graph_off:#x}+{graph_size:#x} lies outside the chunk ({data_len:#x})"
            ),
        ));
    }
    let hend = header_end as usize;
    let (na, v) = raw[0];
    let names_off = offset(v, summary_end, hend, "NameMapNamesOffset", na)?;
    let names_size = raw[1].1;
    let (ha, v) = raw[2];
    let hashes_off = offset(v, summary_end, hend, "NameMapHashesOffset", ha)?;
    let hashes_size = raw[3].1;
    if names_size < 0 || hashes_size < 0 {
        return Err(Error::invalid(na, "negative name map size"));
    }
    let names_r = all.sub(names_off as u64, names_size as u64, "name map names")?;
    let hashes_r = all.sub(hashes_off as u64, hashes_size as u64, "name map hashes")?;
    let names = read_name_batch_parts(names_r, Some(hashes_r))?;
    let map_start = (names_off + names_size as usize).max(hashes_off + hashes_size as usize);
    let (a, v) = raw[4];
    let imports = offset(v, map_start, hend, "ImportMapOffset", a)?;
    let (a, v) = raw[5];
    let exports = offset(v, imports, hend, "ExportMapOffset", a)?;
    let (a, v) = raw[6];
    let bundles = offset(v, exports, hend, "ExportBundlesOffset", a)?;
    let graph = offset(graph_off, bundles, hend, "GraphDataOffset", raw[7].0)?;
    let o = Ue4Offsets {
        raw,
        hend,
        imports,
        exports,
        bundles,
        graph,
    };
    Ok((o, names))
}

fn parse_ue4(data: &[u8], store: Option<&StoreEntry>) -> Result<ZenPackage> {
    let all = Reader::new(data);
    let mut r = all.clone();
    let name = MappedName::read(&mut r)?;
    let source = MappedName::read(&mut r)?;
    let package_flags = r.u32("PackageFlags")?;
    let cooked_header_size = r.u32("CookedHeaderSize")?;
    let (o, names) = read_ue4_layout(&all, &mut r, data.len())?;
    let import_count = records(o.imports, o.exports, 8, "import map", o.raw[4].0)?;
    let imports = read_indices(&all, o.imports, import_count, "import map")?;
    let export_count = records(
        o.exports,
        o.bundles,
        EXPORT_ENTRY_SIZE,
        "export map",
        o.raw[5].0,
    )?;
    let exports = read_exports(&all, o.exports, export_count)?;
    let store = store.ok_or_else(|| {
        Error::Other("UE4 zen packages need their container header store entry".into())
    })?;
    let mut pkg = ZenPackage {
        header_size: o.hend as u32,
        package_flags,
        cooked_header_size,
        names,
        imports,
        exports,
        ..empty_package(ZenLayout::Ue4, name)
    };
    pkg.name = name.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            0,
            format!("package name index {} is outside the name map", name.index),
        )
    })?;
    let src = source.resolve(&pkg.names).ok_or_else(|| {
        Error::invalid(
            8,
            format!("source name index {} is outside the name map", source.index),
        )
    })?;
    if src != "None" && src != pkg.name {
        pkg.source_name = Some(src);
    }
    read_ue4_bundles(&all, &mut pkg, &o, store)?;
    read_ue4_graph(&all, &mut pkg, o.graph, o.hend)?;
    Ok(pkg)
}

/// UE4 export bundles: headers {u32 first, u32 count} × store count, then
/// entries, filling the space up to the graph data.
fn read_ue4_bundles(
    all: &Reader<'_>,
    pkg: &mut ZenPackage,
    o: &Ue4Offsets,
    store: &StoreEntry,
) -> Result<()> {
    let mut b = all.sub(
        o.bundles as u64,
        (o.graph - o.bundles) as u64,
        "export bundles",
    )?;
    let nb = b.check_count(
        i64::from(store.export_bundle_count.unwrap_or(0)),
        8,
        "export bundle count (store entry)",
    )?;
    for _ in 0..nb {
        pkg.export_bundle_headers.push(ExportBundleHeader {
            serial_offset: None,
            first_entry: b.u32("export bundle first entry")?,
            entry_count: b.u32("export bundle entry count")?,
        });
    }
    let total: u64 = pkg
        .export_bundle_headers
        .iter()
        .map(|h| u64::from(h.entry_count))
        .sum();
    let n = b.check_count(total as i64, 8, "export bundle entries")?;
    pkg.export_bundle_entries = read_pairs(&b, b.pos(), n, "export bundle entry")?;
    b.skip(n as u64 * 8, "export bundle entries")?;
    if b.remaining() != 0 {
        return Err(Error::invalid(
            b.offset(),
            format!(
                "{} unexpected bytes between the export bundles and the graph data",
                b.remaining()
            ),
        ));
    }
    check_bundles(pkg, o.raw[6].0)
}

/// UE4 graph data: i32 package count, {u64 id; TArray<{i32, i32}> arcs}.
fn read_ue4_graph(all: &Reader<'_>, pkg: &mut ZenPackage, graph: usize, hend: usize) -> Result<()> {
    let mut g = all.sub(graph as u64, (hend - graph) as u64, "graph data")?;
    let n = i64::from(g.i32("graph package count")?);
    let n = g.check_count(n, 12, "graph package count")?;
    for _ in 0..n {
        pkg.graph_packages.push(g.u64("graph package id")?);
        let k = i64::from(g.i32("graph arc count")?);
        let k = g.check_count(k, 8, "graph arc count")?;
        g.skip(k as u64 * 8, "graph arcs")?;
    }
    if g.remaining() != 0 {
        return Err(Error::invalid(
            g.offset(),
            format!("{} unexpected bytes after the graph data", g.remaining()),
        ));
    }
    Ok(())
}
