//! Plan a container from a folder laid out like `pakrat extract`'s output:
//! which file becomes which chunk (ids derived the engine's way), the
//! rebuilt container header, and the files left for the companion `.pak`.
//!
//! * `X.uasset` / `X.umap`: a zen package; its ExportBundleData chunk id is
//!   the package id, CityHash64 of the lower-cased package name read from
//!   its own header (UE `FPackageId::FromName`).
//! * `X.ubulk`, `X.uptnl`, `X.m.ubulk` beside it: BulkData, OptionalBulkData
//!   and MemoryMappedBulkData of that package (UE `CreateBulkDataIoChunkId`,
//!   chunk index 0, group 0).
//! * `_chunks/<24 hex digits>.<Type>`: a chunk without a path, by its id
//!   (as `pakrat extract --chunks` names them). A ContainerHeader there is
//!   not copied: it is the reference the new header takes what a package
//!   cannot tell from (shader maps, localized packages, redirects).
//! * `X.ushaderbytecode`: a shader library. The pak form becomes the IoStore
//!   library chunk (at the file's path) and its `ShaderCode` group chunks
//!   (`docs/shader-library.md`); a file already in the IoStore form is the
//!   library chunk as it is (its groups come from `_chunks/`).
//! * Anything else goes into the companion `.pak`.
//!
//! The container header lists the packages by ascending id (as UE's writer
//! does; checked on the corpus), each with the packages it imports (UE 5.3+:
//! from the package's `ImportedPackageNames`).

use std::collections::{BTreeMap, HashMap};

use pakrat_io::walk::SourceFile;
use pakrat_io::{Error, Result};

use crate::zen::{self, ZenLayout};

mod stream;
use pakrat_codec::names::package_id;
use pakrat_iostore::container_header::{ContainerHeader, HeaderForm, StoreEntry};
use pakrat_iostore::toc::{ChunkId, ChunkType, Numbering};
use pakrat_iostore::write::{ChunkSpec, Data};
pub use stream::{role, Role, StreamPlan};

/// The chunk data to write: the file's bytes when it was made in memory,
/// else the file.
fn chunk_data(f: &SourceFile) -> Data {
    match &f.bytes {
        Some(b) => Data::Shared(b.clone()),
        None => Data::File(f.path.clone()),
    }
}

/// A package's name and store entry as whoever made the package knows
/// them (a conversion): [`plan_known`] takes them instead of parsing the
/// package again.
pub type Known = (String, StoreEntry);

/// Every package file of the folder read and parsed by the pool, in
/// folder order (`None` for other files); [`plan`] takes the results in
/// order, so the first error is the one it met first before. A package
/// with a `known` entry is not parsed: that entry is its result.
fn parse_packages(
    files: &[SourceFile],
    mut known: Vec<Option<Known>>,
    form: HeaderForm,
    reference: Option<&ContainerHeader>,
) -> Vec<Option<Result<Known>>> {
    use rayon::prelude::*;
    known.resize_with(files.len(), || None);
    files
        .par_iter()
        .zip(known)
        .map(|(f, k)| {
            let package = !f.rel.starts_with("_chunks/")
                && !f.rel.to_ascii_lowercase().ends_with(".ushaderbytecode")
                && matches!(file_kind(&f.rel), Some((_, 1)));
            package.then(|| k.map_or_else(|| read_package(f, form, reference), Ok))
        })
        .collect()
}

/// What goes where.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Chunks in layout order (the container header last).
    pub chunks: Vec<ChunkSpec>,
    /// Files for the companion pak: (path below the mount point, file).
    pub pak_files: Vec<SourceFile>,
    /// The container header that was built (its chunk is in `chunks`).
    pub header: Option<ContainerHeader>,
    /// Packages found.
    pub packages: usize,
}

/// Settings for [`plan`].
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// Mount point the folder's paths hang from (`../../../`).
    pub mount: String,
    /// The new container's id.
    pub container_id: u64,
    /// TOC version being written (decides the header form when neither
    /// `reference` nor `form` does).
    pub toc_version: u8,
    /// Header form to write when there is no reference (the engine
    /// release's, [`pakrat_iostore::engine::format_for`]).
    pub form: Option<HeaderForm>,
    /// Container header to take the form and package-store details from.
    pub reference: Option<ContainerHeader>,
    /// Layout order of a reference container: chunk ids in the order to
    /// write them (others follow, by path).
    pub order: Vec<ChunkId>,
}

fn file_kind(rel: &str) -> Option<(&str, u8)> {
    // (stem, UE5 chunk type)
    let lower = rel.to_ascii_lowercase();
    for (ext, ty) in [
        (".m.ubulk", 4u8),
        (".uasset", 1),
        (".umap", 1),
        (".ubulk", 2),
        (".uptnl", 3),
    ] {
        if lower.ends_with(ext) {
            return Some((&rel[..rel.len() - ext.len()], ty));
        }
    }
    None
}

/// UE4 numbering of a UE5 chunk type (data types shift by one).
fn raw_type(ue5: u8, numbering: Numbering) -> u8 {
    match numbering {
        Numbering::Ue5 => ue5,
        Numbering::Ue4 => ue5 + 1,
    }
}

/// The header form to write for a TOC version when no reference says.
fn default_form(toc_version: u8) -> HeaderForm {
    match toc_version {
        ..=3 => HeaderForm::Ue4,
        4..=5 => HeaderForm::Ue5(3),
        6 => HeaderForm::Ue5(3),
        7..=8 => HeaderForm::Ue5(5),
        _ => HeaderForm::Ue5(5),
    }
}

/// Read a zen package's name and imported package ids. UE 5.3+ packages
/// tell both; older layouts need the reference's store entry.
fn read_package(
    f: &SourceFile,
    form: HeaderForm,
    reference: Option<&ContainerHeader>,
) -> Result<(String, StoreEntry)> {
    let data = f.read()?;
    if data.get(..4) == Some(&[0xC1, 0x83, 0x2A, 0x9E]) {
        return Err(Error::Other(format!(
            "{}: a legacy (.uasset + .uexp) package, not a zen one; an IoStore container holds zen packages",
            f.rel
        )));
    }
    let layout = ZenLayout::for_header(form).map_err(|e| e.in_file(&f.path))?;
    match layout {
        ZenLayout::Ue5_3 { .. } => {
            let pkg = zen::parse(&data, layout, None)
                .or_else(|_| zen::parse(&data, ZenLayout::Ue5_3 { cells: false }, None))
                .map_err(|e| e.in_file(&f.path))?;
            let imported = pkg
                .imported_package_names
                .iter()
                .map(|n| package_id(n))
                .collect();
            Ok((
                pkg.name,
                StoreEntry {
                    imported_packages: imported,
                    ..StoreEntry::default()
                },
            ))
        }
        ZenLayout::Ue5_0 | ZenLayout::Ue4 => {
            // These headers cannot be parsed in full without the store entry;
            // the name needs only the summary and name map (UE4), or an
            // empty entry (UE 5.0–5.2).
            let probe = StoreEntry {
                export_count: Some(0),
                export_bundle_count: Some(0),
                export_bundles_size: Some(0),
                load_order: Some(0),
                ..StoreEntry::default()
            };
            let name = match layout {
                ZenLayout::Ue4 => zen::package_name(&data, ZenLayout::Ue4),
                _ => zen::parse(&data, layout, Some(&probe)).map(|p| p.name),
            }
            .map_err(|e| e.in_file(&f.path))?;
            let id = package_id(&name);
            let entry = reference.and_then(|r| r.store_entry(id)).cloned().ok_or_else(|| {
                Error::Other(format!(
                    "{}: package {name} is in the {} layout, whose store entry (imports, export counts) is not in the package itself; give a reference container that holds it",
                    f.rel,
                    layout.describe()
                ))
            })?;
            Ok((name, entry))
        }
    }
}

/// A `.ushaderbytecode` file as chunks: the library chunk at the file's path
/// and, for the pak form, the group chunks it converts to (stored plain).
/// `None` for any other file.
fn shader_library_chunks(
    f: &SourceFile,
    mount: &str,
    numbering: Numbering,
) -> Result<Option<Vec<(ChunkSpec, String)>>> {
    use pakrat_iostore::shader_library::{self as sl, LibraryForm};
    if !f.rel.to_ascii_lowercase().ends_with(".ushaderbytecode") {
        return Ok(None);
    }
    let Some((name, format)) = sl::split_file_name(&f.rel) else {
        return Ok(None);
    };
    let data = f.read()?;
    let spec = |id: ChunkId, path: Option<String>, bytes: Vec<u8>| ChunkSpec {
        id,
        path,
        size: bytes.len() as u64,
        data: Data::Bytes(bytes),
        memory_mapped: false,
    };
    let lib_id = sl::library_chunk_id(&name, &format, numbering);
    let path = Some(format!("{mount}{}", f.rel));
    match sl::sniff(&data) {
        Some(LibraryForm::Legacy) => {
            let lib = sl::LegacyShaderLibrary::parse(&data).map_err(|e| e.in_file(&f.path))?;
            let (zen, groups) = sl::convert::legacy_to_zen(&lib, &format, numbering)
                .map_err(|e| e.in_file(&f.path))?;
            let mut out = vec![(spec(lib_id, path, zen.to_bytes()), f.rel.clone())];
            for (g, (id, bytes)) in groups.into_iter().enumerate() {
                out.push((spec(id, None, bytes), format!("{}#{g:06}", f.rel)));
            }
            Ok(Some(out))
        }
        Some(LibraryForm::Zen) => {
            sl::ZenShaderLibrary::parse(&data).map_err(|e| e.in_file(&f.path))?;
            Ok(Some(vec![(
                spec(lib_id, path, data.into_owned()),
                f.rel.clone(),
            )]))
        }
        None => Ok(None),
    }
}

/// The reference header: the given one, else a ContainerHeader chunk in the folder.
fn folder_reference(files: &[SourceFile], o: &PlanOptions) -> Result<Option<ContainerHeader>> {
    let mut reference = o.reference.clone();
    for f in files {
        if let Some(rest) = f.rel.strip_prefix("_chunks/") {
            if rest.ends_with(".ContainerHeader") && reference.is_none() {
                let data = f.read()?;
                reference = Some(
                    pakrat_iostore::container_header::parse(&data)
                        .map_err(|e| e.in_file(&f.path))?,
                );
            }
        }
    }
    Ok(reference)
}

/// Turn a folder listing into chunks, a container header and pak files.
pub fn plan(files: &[SourceFile], o: &PlanOptions) -> Result<Plan> {
    plan_known(files, Vec::new(), o)
}

/// [`plan`], with the names and store entries of some packages already
/// known (`known[i]` for `files[i]`; missing or `None`: read from the
/// package). They are taken only for the UE 5.3+ header forms, whose store
/// entry a package tells in full (its imports); for older forms the entry
/// comes from the reference, as in [`plan`], and every package is parsed.
pub fn plan_known(
    files: &[SourceFile],
    mut known: Vec<Option<Known>>,
    o: &PlanOptions,
) -> Result<Plan> {
    let reference = folder_reference(files, o)?;
    let form = reference.as_ref().map_or_else(
        || o.form.unwrap_or_else(|| default_form(o.toc_version)),
        |r| r.form,
    );
    let numbering = match form {
        HeaderForm::Ue4 | HeaderForm::Ue4PreInitial => Numbering::Ue4,
        HeaderForm::Ue5(_) => Numbering::Ue5,
    };
    let header_type = ChunkType::ContainerHeader.to_raw(numbering).unwrap_or(6);
    let mut plan = Plan::default();
    let mut packages: BTreeMap<u64, (String, StoreEntry)> = BTreeMap::new();
    let mut stem_ids: HashMap<String, u64> = HashMap::new();
    let mut bulk: Vec<(&SourceFile, &str, u8)> = Vec::new();
    let mut chunks: Vec<(ChunkSpec, String)> = Vec::new();
    if !matches!(ZenLayout::for_header(form), Ok(ZenLayout::Ue5_3 { .. })) {
        known.clear();
    }
    let mut parsed = parse_packages(files, known, form, reference.as_ref());
    for (fi, f) in files.iter().enumerate() {
        if let Some(rest) = f.rel.strip_prefix("_chunks/") {
            let (hex, _ty) = rest.split_once('.').unwrap_or((rest, ""));
            let id = ChunkId::from_hex(hex).ok_or_else(|| {
                Error::Other(format!(
                    "{}: a _chunks file must be named <24 hex digits>.<Type>",
                    f.rel
                ))
            })?;
            if id.raw_type() == header_type && rest.ends_with(".ContainerHeader") {
                continue; // rebuilt below
            }
            chunks.push((
                ChunkSpec {
                    id,
                    path: None,
                    data: chunk_data(f),
                    size: f.size,
                    memory_mapped: false,
                },
                f.rel.clone(),
            ));
            continue;
        }
        if let Some(mut lib) = shader_library_chunks(f, &o.mount, numbering)? {
            chunks.append(&mut lib);
            continue;
        }
        match file_kind(&f.rel) {
            Some((stem, 1)) => {
                let (name, entry) = parsed[fi]
                    .take()
                    .unwrap_or_else(|| read_package(f, form, reference.as_ref()))?;
                let id = package_id(&name);
                if let Some((other, _)) = packages.get(&id) {
                    return Err(Error::Other(format!(
                        "{}: package {name} is already in the folder (as {other}); a container holds each package once",
                        f.rel
                    )));
                }
                packages.insert(id, (f.rel.clone(), entry));
                stem_ids.insert(stem.to_ascii_lowercase(), id);
                chunks.push((
                    ChunkSpec {
                        id: ChunkId::new(id, 0, 0, raw_type(1, numbering)),
                        path: Some(format!("{}{}", o.mount, f.rel)),
                        data: chunk_data(f),
                        size: f.size,
                        memory_mapped: false,
                    },
                    f.rel.clone(),
                ));
            }
            Some((stem, ty)) => bulk.push((f, stem, ty)),
            None => plan.pak_files.push(f.clone()),
        }
    }
    for (f, stem, ty) in bulk {
        let id = stem_ids.get(&stem.to_ascii_lowercase()).ok_or_else(|| {
            Error::Other(format!(
                "{}: bulk data without its package ({stem}.uasset or .umap)",
                f.rel
            ))
        })?;
        chunks.push((
            ChunkSpec {
                id: ChunkId::new(*id, 0, 0, raw_type(ty, numbering)),
                path: Some(format!("{}{}", o.mount, f.rel)),
                data: chunk_data(f),
                size: f.size,
                memory_mapped: ty == 4,
            },
            f.rel.clone(),
        ));
    }
    // Layout order: the reference order first, then by path.
    let rank: HashMap<ChunkId, usize> =
        o.order.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    chunks.sort_by(|a, b| {
        let ra = rank.get(&a.0.id).copied().unwrap_or(usize::MAX);
        let rb = rank.get(&b.0.id).copied().unwrap_or(usize::MAX);
        (ra, &a.1).cmp(&(rb, &b.1))
    });
    plan.packages = packages.len();
    plan.chunks = chunks.into_iter().map(|c| c.0).collect();
    if let Some((h, chunk)) = header_chunk(form, o.container_id, packages, reference.as_ref())? {
        plan.chunks.push(chunk);
        plan.header = Some(h);
    }
    Ok(plan)
}

/// The container header of `packages` (by id: path, store entry) and its
/// chunk; `None` without packages. The reference gives what a package does
/// not tell (shader maps, names, localized packages, redirects).
fn header_chunk(
    form: HeaderForm,
    container_id: u64,
    packages: BTreeMap<u64, (String, StoreEntry)>,
    reference: Option<&ContainerHeader>,
) -> Result<Option<(ContainerHeader, ChunkSpec)>> {
    if packages.is_empty() {
        return Ok(None);
    }
    let numbering = match form {
        HeaderForm::Ue4 | HeaderForm::Ue4PreInitial => Numbering::Ue4,
        HeaderForm::Ue5(_) => Numbering::Ue5,
    };
    let header_type = ChunkType::ContainerHeader.to_raw(numbering).unwrap_or(6);
    let mut h = ContainerHeader::empty(form, container_id);
    for (id, (_, mut entry)) in packages {
        if let Some(r) = reference.and_then(|r| r.store_entry(id)) {
            // What a package does not tell: its shader maps.
            entry.shader_map_hashes = r.shader_map_hashes.clone();
        }
        h.package_ids.push(id);
        h.store_entries.push(entry);
    }
    if let Some(r) = reference {
        h.names = r.names.clone();
        h.localized_packages = r.localized_packages.clone();
        h.culture_packages = r.culture_packages.clone();
        h.redirects = r.redirects.clone();
        h.soft_references = r.soft_references.clone();
    }
    let bytes = h.to_bytes()?;
    let chunk = ChunkSpec {
        id: ChunkId::new(container_id, 0, 0, header_type),
        path: None,
        size: bytes.len() as u64,
        data: Data::Bytes(bytes),
        memory_mapped: false,
    };
    Ok(Some((h, chunk)))
}

impl Plan {
    /// Keep only the chunks `keep` says yes to (the container header is
    /// rebuilt for the packages whose ExportBundleData chunk stays: a patch
    /// container's package store lists only what it carries).
    pub fn retain(&mut self, mut keep: impl FnMut(&ChunkSpec) -> bool) -> Result<()> {
        let header_id = self
            .chunks
            .iter()
            .position(|c| matches!(c.data, Data::Bytes(_)) && c.path.is_none());
        let header_chunk = header_id.map(|i| self.chunks.remove(i));
        self.chunks.retain(|c| keep(c));
        let Some(mut h) = self.header.take() else {
            return Ok(());
        };
        let kept: std::collections::HashSet<u64> = self
            .chunks
            .iter()
            .filter(|c| {
                c.path
                    .as_deref()
                    .is_some_and(|p| file_kind(p).is_some_and(|k| k.1 == 1))
            })
            .map(|c| c.id.id())
            .collect();
        let mut ids = Vec::new();
        let mut entries = Vec::new();
        for (id, e) in h.package_ids.iter().zip(&h.store_entries) {
            if kept.contains(id) {
                ids.push(*id);
                entries.push(e.clone());
            }
        }
        self.packages = ids.len();
        h.package_ids = ids;
        h.store_entries = entries;
        if let Some(mut c) = header_chunk {
            if !self.chunks.is_empty() {
                let bytes = h.to_bytes()?;
                c.size = bytes.len() as u64;
                c.data = Data::Bytes(bytes);
                self.chunks.push(c);
                self.header = Some(h);
            }
        }
        Ok(())
    }
}
