//! The container header chunk (chunk type ContainerHeader, id = ContainerId):
//! package ids, store entries, name map, localized packages, redirects and
//! soft package references (`iostore.md` §14; UE `IoContainerHeader.cpp`,
//! CUE4Parse `FIoContainerHeader.cs`, retoc `container_header.rs`).
//!
//! Forms:
//! * UE5, signature `0x496F436E` + version 0–5.
//! * UE4 4.26/4.27 (no signature, 32-byte store entries; retoc `Initial`) and
//!   an older 4.25 form with 16-byte store entries (retoc `PreInitial`). The
//!   two are told apart by the store-entry blob: only one record size lays
//!   the imported-package arrays out exactly after the records. When both or
//!   neither fit, the header is refused rather than guessed.

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use pakrat_codec::names::{
    read_fstring32, read_name_batch, read_name_batch_parts, write_name_batch, BatchName, MappedName,
};

/// `0x496F436E` ("nCoI" on disk).
pub const SIGNATURE: u32 = 0x496F_436E;
/// Highest UE5 container header version this reader knows.
pub const LATEST_VERSION: u32 = 5;

/// Which container header layout a chunk uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum HeaderForm {
    /// UE4 form without signature, 16-byte store entries (retoc
    /// `PreInitial`): UE 4.25, and the 4.26/4.27 games of the two headers
    /// under `zenpair/retoc/issues/`.
    Ue4PreInitial,
    /// UE 4.26/4.27 form without signature, 32-byte store entries.
    Ue4,
    /// UE5 form with signature and this version (0–5).
    Ue5(u32),
}

impl HeaderForm {
    /// The UE5 version number, or `None` for the UE4 forms.
    pub fn ue5_version(self) -> Option<u32> {
        match self {
            HeaderForm::Ue5(v) => Some(v),
            _ => None,
        }
    }

    /// A short human-readable name.
    pub fn describe(self) -> String {
        match self {
            HeaderForm::Ue4PreInitial => {
                "UE4, 16-byte store entries (4.25; also some 4.26/4.27 games)".into()
            }
            HeaderForm::Ue4 => "UE4, 32-byte store entries (4.26/4.27)".into(),
            HeaderForm::Ue5(v) => format!(
                "v{v} ({})",
                match v {
                    0 => "Initial",
                    1 => "LocalizedPackages",
                    2 => "OptionalSegmentPackages",
                    3 => "NoExportInfo",
                    4 => "SoftPackageReferences",
                    _ => "SoftPackageReferencesOffset",
                }
            ),
        }
    }
}

/// One package's store entry (`FFilePackageStoreEntry`); which fields exist
/// depends on the header form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StoreEntry {
    /// UE 4.26/4.27 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_bundles_size: Option<u64>,
    /// Before v3 (NoExportInfo).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_count: Option<i32>,
    /// Before v3 (NoExportInfo).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_bundle_count: Option<i32>,
    /// UE 4.26/4.27 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_order: Option<u32>,
    /// Ids of the packages this one imports.
    pub imported_packages: Vec<u64>,
    /// Shader map hashes (UE5 forms), as stored: SHA-1 (20 bytes), or 8
    /// bytes in some UE 5.8 retail builds (see [`ShaderMapHash`]).
    #[serde(skip)]
    pub shader_map_hashes: Vec<ShaderMapHash>,
}

/// One shader map hash of a store entry.
///
/// UE5 stores `FSHAHash` (20 bytes). Some UE 5.8 retail builds store a
/// 64-bit hash instead, without a container-header version bump (reported
/// for The Sinking City 2 in retoc issue #72: the per-entry arrays only
/// cover the store-entry blob exactly with 8-byte elements). The reader
/// tells the two apart by that layout; see [`parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderMapHash {
    /// `FSHAHash`, 20 bytes (every UE5 release's own writer).
    Sha1([u8; 20]),
    /// The 8-byte form of some UE 5.8 retail builds.
    Short([u8; 8]),
}

impl ShaderMapHash {
    /// The stored bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            ShaderMapHash::Sha1(b) => b,
            ShaderMapHash::Short(b) => b,
        }
    }
}

/// A localized package (v1+).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LocalizedPackage {
    /// Source package id.
    pub source_id: u64,
    /// Its name in the header's name map.
    pub source_name: MappedName,
}

/// A package redirect.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// Redirected package id.
    pub source_id: u64,
    /// Package it points to.
    pub target_id: u64,
    /// Source name in the header's name map (UE5 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_name: Option<MappedName>,
}

/// Soft package references (v4+).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SoftReferences {
    /// Referenced package ids.
    pub package_ids: Vec<u64>,
    /// Index bytes.
    pub package_indices: Vec<u8>,
}

/// A parsed container header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContainerHeader {
    /// Layout.
    pub form: HeaderForm,
    /// Container id (CityHash64 of the lower-cased `.utoc` stem).
    pub container_id: u64,
    /// Package ids, in store-entry order.
    pub package_ids: Vec<u64>,
    /// One store entry per package id.
    pub store_entries: Vec<StoreEntry>,
    /// Optional-segment package ids (v2+).
    pub optional_package_ids: Vec<u64>,
    /// Their store entries.
    pub optional_store_entries: Vec<StoreEntry>,
    /// Container-level name map (redirect and localized names).
    pub names: Vec<BatchName>,
    /// Localized packages (v1+).
    pub localized_packages: Vec<LocalizedPackage>,
    /// UE4 culture map: culture → (source id, localized id) pairs.
    pub culture_packages: Vec<(String, Vec<(u64, u64)>)>,
    /// Package redirects.
    pub redirects: Vec<Redirect>,
    /// Soft package references (v4+), when present.
    pub soft_references: Option<SoftReferences>,
    /// Zero bytes after the last field (0 in every corpus header).
    pub padding: usize,
}

impl ContainerHeader {
    /// A header of `form` for `container_id` with nothing in it: what a
    /// writer fills (packages, store entries) before [`ContainerHeader::to_bytes`].
    pub fn empty(form: HeaderForm, container_id: u64) -> ContainerHeader {
        ContainerHeader {
            form,
            container_id,
            package_ids: Vec::new(),
            store_entries: Vec::new(),
            optional_package_ids: Vec::new(),
            optional_store_entries: Vec::new(),
            names: Vec::new(),
            localized_packages: Vec::new(),
            culture_packages: Vec::new(),
            redirects: Vec::new(),
            soft_references: None,
            padding: 0,
        }
    }
}

impl ContainerHeader {
    /// The size of the shader map hashes this header stores (20, or 8 in
    /// the UE 5.8 retail form), from its first hash; `None` without any.
    pub fn shader_map_hash_size(&self) -> Option<usize> {
        self.hash_sizes().next()
    }

    fn hash_sizes(&self) -> impl Iterator<Item = usize> + '_ {
        self.store_entries
            .iter()
            .chain(&self.optional_store_entries)
            .flat_map(|e| &e.shader_map_hashes)
            .map(|h| h.as_bytes().len())
    }

    /// The store entry of a package id.
    pub fn store_entry(&self, id: u64) -> Option<&StoreEntry> {
        self.package_ids
            .iter()
            .position(|&p| p == id)
            .and_then(|i| self.store_entries.get(i))
            .or_else(|| {
                self.optional_package_ids
                    .iter()
                    .position(|&p| p == id)
                    .and_then(|i| self.optional_store_entries.get(i))
            })
    }
}

impl ContainerHeader {
    /// Serialize the header, the mirror of [`parse`]: `parse(&h.to_bytes()?)`
    /// gives `h` back, and corpus headers come back byte for byte.
    /// Store-entry arrays follow all the records, each entry's imported
    /// packages then its shader map hashes (UE's layout). Also checked byte
    /// for byte on the UE 4.27, 5.0 and 5.3 headers in retoc's test data
    /// (not in the corpus, so not in the tests).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let HeaderForm::Ue5(version) = self.form else {
            return Ok(self.to_bytes_ue4());
        };
        if let Some(first) = self.shader_map_hash_size() {
            if self.hash_sizes().any(|s| s != first) {
                return Err(Error::Other(
                    "container header mixes 20-byte and 8-byte shader map hashes; one header holds one form"
                        .into(),
                ));
            }
        }
        let mut w = Writer::new();
        w.u32(SIGNATURE).u32(version).u64(self.container_id);
        if version < 2 {
            w.u32(self.package_ids.len() as u32);
        }
        write_ids(&mut w, &self.package_ids);
        write_store_entries(&mut w, &self.store_entries, self.form);
        if version >= 2 {
            write_ids(&mut w, &self.optional_package_ids);
            write_store_entries(&mut w, &self.optional_store_entries, self.form);
        } else if !self.optional_package_ids.is_empty() {
            return Err(Error::Other(format!(
                "container header v{version} cannot hold optional segment packages (v2+)"
            )));
        }
        write_name_batch(&mut w, &self.names);
        if version >= 1 {
            w.i32(self.localized_packages.len() as i32);
            for l in &self.localized_packages {
                w.u64(l.source_id);
                l.source_name.write(&mut w);
            }
        }
        w.i32(self.redirects.len() as i32);
        for r in &self.redirects {
            w.u64(r.source_id).u64(r.target_id);
            let name = r.source_name.unwrap_or(MappedName {
                index: 0,
                kind: pakrat_codec::names::NameMapKind::Container,
                number: 0,
            });
            name.write(&mut w);
        }
        if version >= 4 {
            let mut block = Writer::new();
            match &self.soft_references {
                None => {
                    block.u32(0);
                }
                Some(s) => {
                    block.u32(1);
                    write_ids(&mut block, &s.package_ids);
                    block
                        .i32(s.package_indices.len() as i32)
                        .bytes(&s.package_indices);
                }
            }
            if version >= 5 {
                // The block is there even when it only says "none" (flag 0):
                // offset and size point at it (checked on the corpus).
                let at = w.len() as i64 + 16;
                w.i64(at).i64(block.len() as i64).bytes(block.as_slice());
            } else {
                w.bytes(block.as_slice());
            }
        }
        w.zeros(self.padding);
        Ok(w.into_inner())
    }
}

impl ContainerHeader {
    /// The UE 4.25–4.27 form: no signature, names as the old buffer pair.
    fn to_bytes_ue4(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.container_id).u32(self.package_ids.len() as u32);
        let mut names = Writer::new();
        for n in &self.names {
            let latin1 = pakrat_io::FString::to_latin1(&n.text);
            let wide = n.wide || latin1.is_none();
            if wide {
                let units: Vec<u16> = n.text.encode_utf16().collect();
                names
                    .u8(0x80 | ((units.len() >> 8) as u8 & 0x7F))
                    .u8(units.len() as u8);
                names.align(2);
                for u in units {
                    names.u16(u);
                }
            } else {
                let b = latin1.unwrap_or_default();
                names
                    .u8((b.len() >> 8) as u8 & 0x7F)
                    .u8(b.len() as u8)
                    .bytes(&b);
            }
        }
        // The hash buffer starts with the algorithm id even when there are
        // no names (checked on a UE 4.27 header from retoc's tests).
        let mut hashes = Writer::new();
        hashes.u64(pakrat_codec::names::NAME_HASH_ALGORITHM_ID);
        for n in &self.names {
            let wide = n.wide || pakrat_io::FString::to_latin1(&n.text).is_none();
            hashes.u64(pakrat_codec::names::name_hash(&n.text, wide));
        }
        w.i32(names.len() as i32).bytes(names.as_slice());
        w.i32(hashes.len() as i32).bytes(hashes.as_slice());
        write_ids(&mut w, &self.package_ids);
        write_store_entries(&mut w, &self.store_entries, self.form);
        w.u32(self.culture_packages.len() as u32);
        for (culture, pairs) in &self.culture_packages {
            pakrat_codec::fstring::write_fstring(&mut w, culture);
            w.u32(pairs.len() as u32);
            for (a, b) in pairs {
                w.u64(*a).u64(*b);
            }
        }
        w.i32(self.redirects.len() as i32);
        for r in &self.redirects {
            w.u64(r.source_id).u64(r.target_id);
        }
        w.zeros(self.padding);
        w.into_inner()
    }
}

fn write_ids(w: &mut Writer, ids: &[u64]) {
    w.i32(ids.len() as i32);
    for &i in ids {
        w.u64(i);
    }
}

fn write_store_entries(w: &mut Writer, entries: &[StoreEntry], form: HeaderForm) {
    let (size, views_at, shaders) = record_layout(form);
    let mut blob = vec![0u8; entries.len() * size];
    let mut tail = Writer::new();
    for (i, e) in entries.iter().enumerate() {
        let base = i * size;
        let mut rec = Writer::new();
        match form {
            HeaderForm::Ue4 => {
                rec.u64(e.export_bundles_size.unwrap_or(0))
                    .i32(e.export_count.unwrap_or(0))
                    .i32(e.export_bundle_count.unwrap_or(0))
                    .u32(e.load_order.unwrap_or(0))
                    .u32(0);
            }
            HeaderForm::Ue4PreInitial => {
                rec.i32(e.export_count.unwrap_or(0))
                    .i32(e.export_bundle_count.unwrap_or(0));
            }
            HeaderForm::Ue5(v) if v < 3 => {
                rec.i32(e.export_count.unwrap_or(0))
                    .i32(e.export_bundle_count.unwrap_or(0));
            }
            HeaderForm::Ue5(_) => {}
        }
        blob[base..base + rec.len()].copy_from_slice(rec.as_slice());
        let mut view = |field: usize, num: usize, data: &[u8], tail: &mut Writer| {
            let off = if num == 0 {
                0
            } else {
                (entries.len() * size + tail.len() - field) as u32
            };
            blob[field..field + 4].copy_from_slice(&(num as u32).to_le_bytes());
            blob[field + 4..field + 8].copy_from_slice(&off.to_le_bytes());
            tail.bytes(data);
        };
        let ids: Vec<u8> = e
            .imported_packages
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        view(base + views_at, e.imported_packages.len(), &ids, &mut tail);
        if shaders {
            let h: Vec<u8> = e
                .shader_map_hashes
                .iter()
                .flat_map(|h| h.as_bytes())
                .copied()
                .collect();
            view(
                base + views_at + 8,
                e.shader_map_hashes.len(),
                &h,
                &mut tail,
            );
        }
    }
    blob.extend_from_slice(tail.as_slice());
    w.i32(blob.len() as i32).bytes(&blob);
}

/// Read an `i32`-counted array of `u64`s.
fn read_ids(r: &mut Reader<'_>, what: &str) -> Result<Vec<u64>> {
    let n = i64::from(r.i32(what)?);
    let n = r.check_count(n, 8, what)?;
    (0..n).map(|_| r.u64(what)).collect()
}

/// Read an `i32`-counted byte array, borrowed, as a sub-reader.
fn read_blob<'a>(r: &mut Reader<'a>, what: &str) -> Result<Reader<'a>> {
    let n = i64::from(r.i32(what)?);
    let n = r.check_count(n, 1, what)?;
    let sub = r.sub(r.pos() as u64, n as u64, what)?;
    r.skip(n as u64, what)?;
    Ok(sub)
}

/// Record size, offset of the imported-packages view within the record, and
/// whether the record has a shader-map view, by form.
fn record_layout(form: HeaderForm) -> (usize, usize, bool) {
    match form {
        HeaderForm::Ue4PreInitial => (16, 8, false),
        HeaderForm::Ue4 => (32, 24, false),
        HeaderForm::Ue5(v) if v < 3 => (24, 8, true),
        HeaderForm::Ue5(_) => (16, 0, true),
    }
}

/// A `{u32 Num, u32 OffsetToDataFromThis}` view, resolved to (start, num)
/// relative to the blob.
fn view(blob: &Reader<'_>, field_pos: usize, elem: usize, what: &str) -> Result<(usize, usize)> {
    let mut r = blob.at(field_pos as u64, what)?;
    let num = r.u32(what)? as usize;
    let off = r.u32(what)? as usize;
    if num == 0 {
        return Ok((0, 0));
    }
    let start = field_pos + off;
    let end = (num as u128) * (elem as u128) + start as u128;
    if end > blob.len() as u128 {
        return Err(Error::invalid(
            blob.base() + field_pos as u64,
            format!(
                "{what}: {num} elements at blob offset {start:#x} run past the store-entry blob ({:#x} bytes)",
                blob.len()
            ),
        ));
    }
    Ok((start, num))
}

fn read_store_entries(blob: &Reader<'_>, n: usize, form: HeaderForm) -> Result<Vec<StoreEntry>> {
    let (size, views_at, shaders) = record_layout(form);
    // 20-byte hashes unless only 8-byte ones lay the arrays out exactly
    // (the UE 5.8 retail form, see `ShaderMapHash`).
    let hash_size = if shaders
        && !layout_fits(blob, n, size, &[(views_at, 8), (views_at + 8, 20)])
        && layout_fits(blob, n, size, &[(views_at, 8), (views_at + 8, 8)])
    {
        8
    } else {
        20
    };
    if (n as u128) * (size as u128) > blob.len() as u128 {
        return Err(Error::invalid(
            blob.base(),
            format!(
                "store entries: {n} records of {size} bytes do not fit in {} bytes",
                blob.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let base = i * size;
        let mut r = blob.at(base as u64, "store entry")?;
        let mut e = StoreEntry::default();
        match form {
            HeaderForm::Ue4 => {
                e.export_bundles_size = Some(r.u64("export bundles size")?);
                e.export_count = Some(r.i32("export count")?);
                e.export_bundle_count = Some(r.i32("export bundle count")?);
                e.load_order = Some(r.u32("load order")?);
            }
            HeaderForm::Ue4PreInitial => {
                e.export_count = Some(r.i32("export count")?);
                e.export_bundle_count = Some(r.i32("export bundle count")?);
            }
            HeaderForm::Ue5(v) if v < 3 => {
                e.export_count = Some(r.i32("export count")?);
                e.export_bundle_count = Some(r.i32("export bundle count")?);
            }
            HeaderForm::Ue5(_) => {}
        }
        let (start, num) = view(blob, base + views_at, 8, "imported packages")?;
        let mut a = blob.at(start as u64, "imported packages")?;
        e.imported_packages = (0..num)
            .map(|_| a.u64("imported package id"))
            .collect::<Result<_>>()?;
        if shaders {
            let (start, num) = view(blob, base + views_at + 8, hash_size, "shader map hashes")?;
            let mut a = blob.at(start as u64, "shader map hashes")?;
            e.shader_map_hashes = (0..num)
                .map(|_| {
                    Ok(if hash_size == 8 {
                        ShaderMapHash::Short(a.array::<8>("shader map hash")?)
                    } else {
                        ShaderMapHash::Sha1(a.array::<20>("shader map hash")?)
                    })
                })
                .collect::<Result<_>>()?;
        }
        out.push(e);
    }
    Ok(out)
}

/// True when records of `size` bytes lay out the arrays of their views
/// back to back right after the records, each record's views in order, and
/// the blob ends with the last array (how UE's writer lays them out).
/// `views` gives each view's `{u32 Num, u32 Offset}` place in the record
/// and its element size: UE4 `[(views_at, 8)]` (imported package ids), UE5
/// `[(views_at, 8), (views_at + 8, hash size)]` (ids, shader map hashes).
fn layout_fits(blob: &Reader<'_>, n: usize, size: usize, views: &[(usize, usize)]) -> bool {
    if (n as u128) * (size as u128) > blob.len() as u128 {
        return false;
    }
    let mut next = n * size;
    for i in 0..n {
        for &(at, elem) in views {
            let field = i * size + at;
            let Ok(mut r) = blob.at(field as u64, "view") else {
                return false;
            };
            let (Ok(num), Ok(off)) = (r.u32("num"), r.u32("offset")) else {
                return false;
            };
            if num == 0 {
                continue;
            }
            if field + off as usize != next {
                return false;
            }
            next += num as usize * elem;
            if next > blob.len() {
                return false;
            }
        }
    }
    next == blob.len()
}

/// Parse a container header chunk.
pub fn parse(data: &[u8]) -> Result<ContainerHeader> {
    parse_with(data, None)
}

/// [`parse`], with the UE4 form to take when a signature-less header's
/// store entries fit both the 4.25 and the 4.26/4.27 layouts (from the
/// engine release the user names, e.g. `--ue-version 4.25`). Only a tie is
/// broken: the layout decides otherwise, since games' 4.26/4.27 headers of
/// both record sizes exist (the two under `zenpair/retoc/issues/`, from a
/// 4.26 and a 4.27 game, use 16-byte records). UE5 headers ignore it.
pub fn parse_with(data: &[u8], ue4_form: Option<HeaderForm>) -> Result<ContainerHeader> {
    let mut r = Reader::new(data);
    let sig = r.u32("container header signature or container id")?;
    if sig == SIGNATURE {
        let at = r.offset();
        let version = r.u32("container header version")?;
        if version > LATEST_VERSION {
            return Err(Error::unsupported(
                at,
                format!("container header version {version} (this build reads 0–{LATEST_VERSION})"),
            ));
        }
        parse_ue5(r, version)
    } else {
        parse_ue4(Reader::new(data), ue4_form)
    }
}

fn parse_ue5(mut r: Reader<'_>, version: u32) -> Result<ContainerHeader> {
    let form = HeaderForm::Ue5(version);
    let container_id = r.u64("container id")?;
    let count_at = r.offset();
    let package_count = if version < 2 {
        Some(r.u32("package count")?)
    } else {
        None
    };
    let package_ids = read_ids(&mut r, "package ids")?;
    if let Some(c) = package_count {
        if c as usize != package_ids.len() {
            return Err(Error::invalid(
                count_at,
                format!("package count {c} but {} package ids", package_ids.len()),
            ));
        }
    }
    let blob = read_blob(&mut r, "store entries")?;
    let store_entries = read_store_entries(&blob, package_ids.len(), form)?;
    let (mut optional_package_ids, mut optional_store_entries) = (Vec::new(), Vec::new());
    if version >= 2 {
        optional_package_ids = read_ids(&mut r, "optional segment package ids")?;
        let blob = read_blob(&mut r, "optional segment store entries")?;
        optional_store_entries = read_store_entries(&blob, optional_package_ids.len(), form)?;
    }
    let names = read_name_batch(&mut r)?;
    let mut localized_packages = Vec::new();
    if version >= 1 {
        let n = i64::from(r.i32("localized package count")?);
        let n = r.check_count(n, 16, "localized package count")?;
        for _ in 0..n {
            localized_packages.push(LocalizedPackage {
                source_id: r.u64("localized source package id")?,
                source_name: MappedName::read(&mut r)?,
            });
        }
    }
    let n = i64::from(r.i32("package redirect count")?);
    let n = r.check_count(n, 24, "package redirect count")?;
    let mut redirects = Vec::with_capacity(n);
    for _ in 0..n {
        redirects.push(Redirect {
            source_id: r.u64("redirect source id")?,
            target_id: r.u64("redirect target id")?,
            source_name: Some(MappedName::read(&mut r)?),
        });
    }
    let mut soft_references = None;
    if version == 4 {
        soft_references = read_soft_refs(&mut r)?;
    } else if version >= 5 {
        // {i64 Offset, i64 Size} of the soft-reference block, then the block.
        let at = r.offset();
        let off = r.i64("soft references offset")?;
        let size = r.i64("soft references size")?;
        if size > 0 {
            if off != r.pos() as i64 || size as u128 > r.remaining() as u128 {
                return Err(Error::invalid(
                    at,
                    format!(
                        "soft references at {off:#x}+{size:#x}, expected them at {:#x} within {} remaining bytes",
                        r.pos(),
                        r.remaining()
                    ),
                ));
            }
            let mut block = r.sub(off as u64, size as u64, "soft references")?;
            soft_references = read_soft_refs(&mut block)?;
            if block.remaining() != 0 {
                return Err(Error::invalid(
                    block.offset(),
                    format!(
                        "soft references: {} unused bytes at the end of the block",
                        block.remaining()
                    ),
                ));
            }
            r.skip(size as u64, "soft references")?;
        }
    }
    let padding = trailing(&r)?;
    Ok(ContainerHeader {
        form,
        container_id,
        package_ids,
        store_entries,
        optional_package_ids,
        optional_store_entries,
        names,
        localized_packages,
        culture_packages: Vec::new(),
        redirects,
        soft_references,
        padding,
    })
}

fn read_soft_refs(r: &mut Reader<'_>) -> Result<Option<SoftReferences>> {
    let at = r.offset();
    let flag = r.u32("soft references flag")?;
    match flag {
        0 => Ok(None),
        1 => {
            let package_ids = read_ids(r, "soft package ids")?;
            let blob = read_blob(r, "soft package indices")?;
            Ok(Some(SoftReferences {
                package_ids,
                package_indices: blob.data().to_vec(),
            }))
        }
        _ => Err(Error::invalid(
            at,
            format!("soft references flag {flag}, expected 0 or 1"),
        )),
    }
}

/// Bytes after the last field: zero padding is accepted and counted (a UE
/// 4.25 header from retoc issue #18 is zero-padded to 64 KiB); anything else
/// is an error.
fn trailing(r: &Reader<'_>) -> Result<usize> {
    let rest = r.rest();
    if rest.iter().any(|&b| b != 0) {
        return Err(Error::invalid(
            r.offset(),
            format!(
                "container header: {} unexpected non-zero bytes after its last field",
                rest.len()
            ),
        ));
    }
    Ok(rest.len())
}

fn parse_ue4(mut r: Reader<'_>, hint: Option<HeaderForm>) -> Result<ContainerHeader> {
    let container_id = r.u64("container id")?;
    let count_at = r.offset();
    let package_count = r.u32("package count")?;
    let names_blob = read_blob(&mut r, "container names")?;
    let hashes_blob = read_blob(&mut r, "container name hashes")?;
    let names = read_name_batch_parts(names_blob, Some(hashes_blob))?;
    let package_ids = read_ids(&mut r, "package ids")?;
    if package_count as usize != package_ids.len() {
        return Err(Error::invalid(
            count_at,
            format!(
                "package count {package_count} but {} package ids",
                package_ids.len()
            ),
        ));
    }
    let blob_at = r.offset();
    let blob = read_blob(&mut r, "store entries")?;
    let n = package_ids.len();
    let fits32 = layout_fits(&blob, n, 32, &[(24, 8)]);
    let fits16 = layout_fits(&blob, n, 16, &[(8, 8)]);
    let form = match (fits32, fits16) {
        (true, false) => HeaderForm::Ue4,
        (false, true) => HeaderForm::Ue4PreInitial,
        (true, true) if n == 0 => HeaderForm::Ue4,
        (true, true) if matches!(hint, Some(HeaderForm::Ue4 | HeaderForm::Ue4PreInitial)) => {
            hint.unwrap_or(HeaderForm::Ue4)
        }
        (true, true) => {
            return Err(Error::unsupported(
                blob_at,
                "UE4 container header whose store entries fit both the 4.25 (16-byte) and 4.26/4.27 (32-byte) layouts (name the engine release, e.g. --ue-version 4.25)",
            ))
        }
        (false, false) => {
            return Err(Error::unsupported(
                blob_at,
                format!(
                    "UE4 container header: {} store-entry bytes for {n} packages match neither the 4.25 (16-byte) nor the 4.26/4.27 (32-byte) layout",
                    blob.len()
                ),
            ))
        }
    };
    let store_entries = read_store_entries(&blob, n, form)?;
    // Culture map: u32 count, {FString culture; u32 count; (u64 source, u64 localized)[]}.
    let cultures = r.u32("culture count")?;
    let cultures = r.check_count(i64::from(cultures), 8, "culture count")?;
    let mut culture_packages = Vec::with_capacity(cultures);
    for _ in 0..cultures {
        let culture = read_fstring32(&mut r, "culture name")?;
        let k = r.u32("localized package count")?;
        let k = r.check_count(i64::from(k), 16, "localized package count")?;
        let pairs = (0..k)
            .map(|_| Ok((r.u64("source package id")?, r.u64("localized package id")?)))
            .collect::<Result<Vec<_>>>()?;
        culture_packages.push((culture, pairs));
    }
    let n = i64::from(r.i32("package redirect count")?);
    let n = r.check_count(n, 16, "package redirect count")?;
    let mut redirects = Vec::with_capacity(n);
    for _ in 0..n {
        redirects.push(Redirect {
            source_id: r.u64("redirect source id")?,
            target_id: r.u64("redirect target id")?,
            source_name: None,
        });
    }
    let padding = trailing(&r)?;
    Ok(ContainerHeader {
        form,
        container_id,
        package_ids,
        store_entries,
        optional_package_ids: Vec::new(),
        optional_store_entries: Vec::new(),
        names,
        localized_packages: Vec::new(),
        culture_packages,
        redirects,
        soft_references: None,
        padding,
    })
}

#[cfg(test)]
mod tests;
