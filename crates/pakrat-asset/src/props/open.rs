//! Finding a UE4/UE5 package wherever it lives and opening it for property
//! decoding: a loose `.uasset`/`.umap` (with its `.uexp` beside it), a
//! package inside a `.pak` (or a folder of paks) by package path or file
//! path, or a zen package inside an IoStore container by package path with
//! its script imports resolved through the global container.
//!
//! Each reader reads once: a loose file is mapped, a pak entry or a zen
//! chunk is read (decompressed, decrypted) alone; no container is copied.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use pakrat_codec::KeyRing;
use pakrat_io::{Error, Result, Source};
use pakrat_iostore::toc::{ChunkId, ChunkType};
use pakrat_iostore::Container;
use pakrat_pak::Pak;

use super::{Asset, ContainerSource};
use crate::bulk::{self, BulkFile, BulkLocation, BulkRef};
use crate::convert::files::engine_of_container;
use crate::legacy::{Layout, LegacyPackage};
use crate::zen::{ContainerPackages, PackageEntry, ScriptObjects, ZenPackage};

/// A package opened for decoding: its bytes and the view over them
/// ([`Opened::asset`]).
pub struct Opened {
    /// Where it came from, for messages (`X.pak: Fixtures/P/A.uasset`).
    pub origin: String,
    main: Source,
    uexp: Option<Source>,
    /// The asset with every export's data left empty; `spans` says where.
    skeleton: Asset<'static>,
    /// Per export: (in the `.uexp`, start, length).
    spans: Vec<(bool, usize, usize)>,
    /// Where it came from, to find its bulk data files.
    place: Place,
    /// Companion files read so far (cooked index 0).
    companions: [std::sync::OnceLock<Option<Source>>; 3],
    /// The parsed package header (for writing it back).
    form: Option<PackageForm>,
}

/// The header an opened package was parsed from.
#[derive(Clone, Debug)]
pub enum PackageForm {
    /// A legacy `.uasset`/`.umap` header.
    Legacy(Box<LegacyPackage>),
    /// A zen package header.
    Zen(Box<ZenPackage>),
}

/// Where an opened package lives, for its companion files.
#[derive(Clone, Debug)]
enum Place {
    /// A loose file at this path.
    Loose(PathBuf),
    /// A pak: which of the paks given, and the header's entry path.
    Pak(usize, String),
    /// A zen package of a container: its package id.
    Zen(u64),
    /// Bytes in memory.
    Memory,
}

/// What holds an opened package's companion files (`.ubulk`, `.uptnl`,
/// `.m.ubulk` or their zen chunks): the paks or container it was opened
/// from, or nothing for a loose package (the files beside it).
#[derive(Clone, Copy)]
pub enum BulkFrom<'p> {
    /// A loose package: files beside it.
    Loose,
    /// The paks given to [`open_in_paks`].
    Paks(&'p [Pak]),
    /// The container given to [`open_in_container`].
    Container(&'p Container),
}

impl Opened {
    /// Keep the bytes and the asset built over them.
    fn new<F>(origin: String, main: Source, uexp: Option<Source>, build: F) -> Result<Opened>
    where
        F: for<'b> FnOnce(&'b [u8], Option<&'b [u8]>) -> Result<Asset<'b>>,
    {
        let (skeleton, spans) = {
            let asset = build(&main, uexp.as_deref())?;
            split(asset, &main, uexp.as_deref())
        };
        Ok(Opened {
            origin,
            main,
            uexp,
            skeleton,
            spans,
            place: Place::Zen(0),
            companions: Default::default(),
            form: None,
        })
    }

    /// The parsed header: legacy or zen.
    pub fn form(&self) -> Option<&PackageForm> {
        self.form.as_ref()
    }

    /// The bytes read: the `.uasset`/`.umap` (or zen package chunk), and
    /// the `.uexp` of a split legacy package.
    pub fn raw(&self) -> (&[u8], Option<&[u8]>) {
        (&self.main, self.uexp.as_deref())
    }

    /// The package view, its exports' data borrowed from the bytes read.
    pub fn asset(&self) -> Asset<'_> {
        let mut a = self.skeleton.clone();
        for (e, &(in_uexp, at, len)) in a.exports.iter_mut().zip(&self.spans) {
            let buf: &[u8] = if in_uexp {
                self.uexp.as_deref().unwrap_or(&[])
            } else {
                &self.main
            };
            e.data = buf.get(at..at + len).unwrap_or(&[]);
        }
        a
    }
}

impl Opened {
    /// The bytes of bulk payload `r` of this package (decompressed when it
    /// is), from its export data, its own file, or a companion file found
    /// through `from` (the paks or container it was opened from). Sizes are
    /// checked against the file before reading; a missing companion file
    /// is an error naming it.
    pub fn bulk(&self, r: &BulkRef, from: BulkFrom<'_>) -> Result<Cow<'_, [u8]>> {
        let what = || format!("{}: bulk data ({})", self.origin, r.describe());
        let exact = |buf: &'_ [u8], off: Option<u64>| -> Result<()> {
            match off.and_then(|o| o.checked_add(r.size_on_disk)) {
                Some(end) if end <= buf.len() as u64 => Ok(()),
                _ => Err(Error::Other(format!(
                    "{}: passes the end of its file ({} bytes)",
                    what(),
                    buf.len()
                ))),
            }
        };
        let stored: Cow<'_, [u8]> = match r.location {
            BulkLocation::Empty => Cow::Borrowed(&[]),
            BulkLocation::Inline { export } => {
                let &(in_uexp, at, len) = self.spans.get(export).ok_or_else(|| {
                    Error::Other(format!("{}: export {export} does not exist", what()))
                })?;
                let buf = if in_uexp {
                    self.uexp.as_deref()
                } else {
                    Some(&self.main[..])
                };
                let data = buf.and_then(|b| b.get(at..at + len)).unwrap_or(&[]);
                exact(data, Some(r.offset))?;
                Cow::Borrowed(&data[r.offset as usize..][..r.size_on_disk as usize])
            }
            BulkLocation::EndOfFile => {
                let (buf, off) = match self.uexp.as_deref() {
                    Some(u) => (u, r.offset.checked_sub(self.skeleton.bulk.header_size)),
                    None => (&self.main[..], Some(r.offset)),
                };
                exact(buf, off)?;
                Cow::Borrowed(&buf[off.unwrap_or(0) as usize..][..r.size_on_disk as usize])
            }
            BulkLocation::File(f) => {
                let missing = || {
                    Error::Other(format!(
                        "{}: its {} file is not there",
                        what(),
                        f.extension()
                    ))
                };
                if r.cooked_index == 0 {
                    let slot = &self.companions[f as usize];
                    let file = match slot.get() {
                        Some(x) => x,
                        None => {
                            let loaded = self.companion(f, 0, from)?;
                            slot.get_or_init(|| loaded)
                        }
                    };
                    let file = file.as_ref().ok_or_else(missing)?;
                    Cow::Borrowed(bulk::slice_at(file, r.offset, r.size_on_disk, &what)?)
                } else {
                    let file = self
                        .companion(f, r.cooked_index, from)?
                        .ok_or_else(missing)?;
                    Cow::Owned(bulk::slice_at(&file, r.offset, r.size_on_disk, &what)?.to_vec())
                }
            }
        };
        let done = match stored {
            Cow::Borrowed(b) => bulk::finish(r, b),
            Cow::Owned(v) => bulk::finish(r, &v).map(|c| Cow::Owned(c.into_owned())),
        };
        done.map_err(|e| Error::Other(format!("{}: {e}", what())))
    }

    /// Read companion file `f` (cooked index `ci`), `None` when the package
    /// has none.
    fn companion(&self, f: BulkFile, ci: u8, from: BulkFrom<'_>) -> Result<Option<Source>> {
        let stem = |p: &str| -> String {
            match p.rsplit_once('.') {
                Some((s, e)) if !e.contains('/') => s.to_string(),
                _ => p.to_string(),
            }
        };
        match (&self.place, from) {
            (Place::Loose(path), _) => {
                let s = stem(&path.to_string_lossy());
                let p = PathBuf::from(f.file_name(&s, ci));
                if p.is_file() {
                    Source::open(&p).map(Some)
                } else {
                    Ok(None)
                }
            }
            (Place::Pak(i, entry), BulkFrom::Paks(paks)) => {
                let want = f.file_name(&stem(entry), ci);
                let order = paks.get(*i).into_iter().chain(paks.iter().rev());
                for pak in order {
                    if let Some(e) = pak
                        .index
                        .entries
                        .iter()
                        .find(|x| !x.deleted() && x.path.eq_ignore_ascii_case(&want))
                    {
                        return Ok(Some(Source::from_vec(&want, pak.read(e)?)));
                    }
                }
                Ok(None)
            }
            (Place::Zen(id), BulkFrom::Container(c)) => {
                let ty = match f {
                    BulkFile::Ubulk => ChunkType::BulkData,
                    BulkFile::Uptnl => ChunkType::OptionalBulkData,
                    BulkFile::MemoryMapped => ChunkType::MemoryMappedBulkData,
                };
                let Some(raw) = ty.to_raw(c.toc().numbering) else {
                    return Ok(None);
                };
                let cid = ChunkId::new(*id, u16::from(ci), 0, raw);
                match c.find_chunk(&cid) {
                    Some(i) => Ok(Some(Source::from_vec(
                        format!("{}.{}", self.origin, f.extension()),
                        c.read_chunk(i)?,
                    ))),
                    None => Ok(None),
                }
            }
            _ => Err(Error::Other(format!(
                "{}: its bulk data files are not reachable from where it was opened \
                 (give the paks or container it came from)",
                self.origin
            ))),
        }
    }
}

/// Open a loose `.uasset`/`.umap`, with the `.uexp` beside it when there
/// is one. `engine` is the layout of an unversioned package
/// (`--ue-version`).
pub fn open_loose(path: &Path, engine: Option<Layout>) -> Result<Opened> {
    let main = Source::open(path)?;
    let uexp_path = path.with_extension("uexp");
    let uexp = if uexp_path.is_file() {
        Some(Source::open(&uexp_path)?)
    } else {
        None
    };
    let mut o =
        legacy(path.display().to_string(), main, uexp, engine).map_err(|e| e.in_file(path))?;
    o.place = Place::Loose(path.to_path_buf());
    Ok(o)
}

/// Open a legacy package from bytes in memory: its `.uasset`/`.umap` and
/// the `.uexp` of a split package (`origin` names it in messages). Its
/// companion files cannot be reached.
pub fn open_legacy_bytes(
    origin: &str,
    main: Vec<u8>,
    uexp: Option<Vec<u8>>,
    engine: Option<Layout>,
) -> Result<Opened> {
    let main = Source::from_vec(origin, main);
    let uexp = uexp.map(|u| Source::from_vec(format!("{origin}.uexp"), u));
    let mut o = legacy(origin.to_string(), main, uexp, engine)?;
    o.place = Place::Memory;
    Ok(o)
}

/// Open a zen package from its chunk's bytes in memory, its imports
/// resolved through `src` (other packages, script objects; what it cannot
/// resolve gets a placeholder path). `layout` is the container's package
/// layout, `imported` the package's store entry's imported package ids.
pub fn open_zen_bytes(
    origin: &str,
    chunk: Vec<u8>,
    layout: crate::zen::ZenLayout,
    imported: &[u64],
    src: &dyn crate::convert::PackageSource,
    engine: Option<Layout>,
) -> Result<Opened> {
    let zen = crate::zen::parse(&chunk, layout, None)
        .map_err(|e| Error::Other(format!("{origin}: {e}")))?;
    let chunk = Source::from_vec(origin, chunk);
    let mut o = Opened::new(origin.to_string(), chunk, None, |m, _| {
        Asset::from_zen(&zen, m, imported, src, engine)
    })
    .map_err(|e| Error::Other(format!("{origin}: {e}")))?;
    o.place = Place::Memory;
    o.form = Some(PackageForm::Zen(Box::new(zen)));
    Ok(o)
}

fn legacy(
    origin: String,
    main: Source,
    uexp: Option<Source>,
    engine: Option<Layout>,
) -> Result<Opened> {
    let pkg = LegacyPackage::read(&main, engine)?;
    let mut o = Opened::new(origin, main, uexp, |m, u| Asset::from_legacy(&pkg, m, u))?;
    o.form = Some(PackageForm::Legacy(Box::new(pkg)));
    Ok(o)
}

/// The asset without its data, and where each export's data lies.
fn split(
    asset: Asset<'_>,
    main: &[u8],
    uexp: Option<&[u8]>,
) -> (Asset<'static>, Vec<(bool, usize, usize)>) {
    let locate = |d: &[u8]| -> (bool, usize, usize) {
        let inside = |b: &[u8]| {
            let (s, p) = (b.as_ptr() as usize, d.as_ptr() as usize);
            (p >= s && p + d.len() <= s + b.len()).then(|| p - s)
        };
        match (inside(main), uexp.and_then(inside)) {
            (_, Some(at)) => (true, at, d.len()),
            (Some(at), None) => (false, at, d.len()),
            (None, None) => (false, 0, 0),
        }
    };
    let spans = asset.exports.iter().map(|e| locate(e.data)).collect();
    let skeleton = Asset {
        package: asset.package,
        names: asset.names,
        imports: asset.imports,
        exports: asset
            .exports
            .into_iter()
            .map(|e| super::ExportInfo { data: &[], ..e })
            .collect(),
        soft_object_paths: asset.soft_object_paths,
        versions: asset.versions,
        unversioned: asset.unversioned,
        bulk: asset.bulk,
    };
    (skeleton, spans)
}

/// The package path a file of a pak or container stands for, from its
/// full path (mount point and file path, `../../../` dropped):
/// `Project/Content/Maps/A.umap` → `/Game/Maps/A`,
/// `Engine/Content/X.uasset` → `/Engine/X`,
/// `Project/Plugins/P/Content/X.uasset` → `/P/X`.
pub fn package_path_of_file(full: &str) -> Option<String> {
    let full = full.trim_start_matches("../").trim_start_matches('/');
    let stem = match full.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => full,
    };
    let (root, rest) = stem.split_once("/Content/")?;
    let mount = if root.eq_ignore_ascii_case("Engine") {
        "Engine"
    } else if !root.contains('/') {
        "Game"
    } else {
        root.rsplit('/').next()?
    };
    Some(format!("/{mount}/{rest}"))
}

/// Is this a package header file (`.uasset`, `.umap`)?
fn is_header(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".uasset") || p.ends_with(".umap")
}

/// Does `query` (a package path `/Game/A/B`, or a file path, whole or
/// relative to the mount point) name the file `rel` of a pak mounted at
/// `mount`?
fn names_file(query: &str, mount: &str, rel: &str) -> bool {
    let full = format!("{mount}{rel}");
    let full = full.trim_start_matches("../").trim_start_matches('/');
    let q = query.trim().trim_start_matches("../");
    if q.eq_ignore_ascii_case(rel) || q.trim_start_matches('/').eq_ignore_ascii_case(full) {
        return true;
    }
    let q = q
        .split_once('.')
        .filter(|(_, o)| !o.contains('/'))
        .map_or(q, |(p, _)| p);
    is_header(rel) && package_path_of_file(full).is_some_and(|p| p.eq_ignore_ascii_case(q))
}

/// Open a package inside one of `paks` (a folder's paks in mount order:
/// the last that has it wins, as the engine mounts them) by package path
/// (`/Game/Maps/A`) or file path (`Maps/A.umap`, or with the mount point).
/// The `.uexp` comes from the same pak.
pub fn open_in_paks(paks: &[Pak], query: &str, engine: Option<Layout>) -> Result<Opened> {
    for (pi, pak) in paks.iter().enumerate().rev() {
        let mount = &pak.index.mount_point;
        if let Some(ei) =
            pak.index.entries.iter().position(|e| {
                !e.deleted() && is_header(&e.path) && names_file(query, mount, &e.path)
            })
        {
            return open_pak_entry(paks, pi, ei, engine);
        }
    }
    Err(Error::Other(format!(
        "{}: no package {query} (give its package path, /Game/..., or its file path)",
        match paks {
            [one] => one.path().display().to_string(),
            _ => format!("{} paks", paks.len()),
        }
    )))
}

/// Open the package whose header (`.uasset`/`.umap`) is entry `entry` of
/// `paks[pak]`, with its `.uexp` from the same pak.
pub fn open_pak_entry(
    paks: &[Pak],
    pak: usize,
    entry: usize,
    engine: Option<Layout>,
) -> Result<Opened> {
    let p = paks
        .get(pak)
        .ok_or_else(|| Error::Other(format!("pak {pak} of {} does not exist", paks.len())))?;
    let e = p.index.entries.get(entry).ok_or_else(|| {
        Error::Other(format!(
            "{}: entry {entry} does not exist",
            p.path().display()
        ))
    })?;
    let uexp_name = format!("{}.uexp", e.path.rsplit_once('.').map_or(&*e.path, |x| x.0));
    let uexp = match p
        .index
        .entries
        .iter()
        .find(|x| !x.deleted() && x.path.eq_ignore_ascii_case(&uexp_name))
    {
        Some(x) => Some(Source::from_vec(&uexp_name, p.read(x)?)),
        None => None,
    };
    let main = Source::from_vec(&e.path, p.read(e)?);
    let origin = format!("{}: {}", p.path().display(), e.path);
    let mut o = legacy(origin.clone(), main, uexp, engine)
        .map_err(|err| Error::Other(format!("{origin}: {err}")))?;
    o.place = Place::Pak(pak, e.path.clone());
    Ok(o)
}

/// Whether a pak entry path is a package header (`.uasset`, `.umap`).
pub fn is_package_header(path: &str) -> bool {
    is_header(path)
}

/// The global container the engine would mount with `utoc`: a
/// `global.utoc` beside it or in one of its parent folders.
pub fn find_global(utoc: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(utoc).unwrap_or_else(|_| utoc.to_path_buf());
    abs.ancestors()
        .skip(1)
        .map(|d| d.join("global.utoc"))
        .find(|g| g.is_file() && g.as_path() != abs.as_path())
}

/// Open the global container at `global` and read its script objects.
pub fn load_global(global: &Path, keys: &KeyRing) -> Result<ScriptObjects> {
    let gc = Container::open(global, keys)?;
    crate::zen::load_script_objects(&gc)
}

/// Open a zen package of container `c` by package path (or anything
/// [`ContainerPackages::find`] takes). `script` resolves its script
/// imports; `engine` the release to assume for an unversioned package
/// (else the container's, else the latest).
pub fn open_in_container(
    c: &Container,
    script: Option<&ScriptObjects>,
    query: &str,
    engine: Option<Layout>,
) -> Result<Opened> {
    let q = query
        .split_once('.')
        .filter(|(_, o)| !o.contains('/'))
        .map_or(query, |(p, _)| p);
    // A package path names its id: parse only it and what it imports;
    // anything else (a file path, an id, a bare name) looks at them all.
    let some = if q.starts_with('/') {
        ContainerPackages::read_imports_of(c, pakrat_codec::names::package_id(q))?
    } else {
        None
    };
    let cp = match some {
        Some(cp) if cp.find(q).is_some() => cp,
        _ => ContainerPackages::read(c)?,
    };
    let entry = cp.find(q).or_else(|| cp.find(query)).ok_or_else(|| {
        Error::Other(format!(
            "{}: no package {query} in the container ({} packages; give its package path, /Game/...)",
            c.path().display(),
            cp.packages.len()
        ))
    })?;
    open_container_entry(c, &cp, script, entry, engine)
}

/// Open zen package `entry` of `cp` (the packages of container `c`), script
/// imports resolved through `script`; `engine` as for
/// [`open_in_container`].
pub fn open_container_entry(
    c: &Container,
    cp: &ContainerPackages,
    script: Option<&ScriptObjects>,
    entry: &PackageEntry,
    engine: Option<Layout>,
) -> Result<Opened> {
    let src = ContainerSource::new(cp, script);
    open_container_entry_in(c, cp, &src, entry, engine)
}

/// [`open_container_entry`] with the imports resolved through `src`: the
/// packages of several containers (a game split over chunks, a patch
/// container importing its base), see [`super::Containers`].
pub fn open_container_entry_in(
    c: &Container,
    cp: &ContainerPackages,
    src: &dyn crate::convert::PackageSource,
    entry: &PackageEntry,
    engine: Option<Layout>,
) -> Result<Opened> {
    let origin = format!(
        "{}: {}",
        c.path().display(),
        entry.path.as_deref().unwrap_or("(package without a path)")
    );
    let zen = entry
        .header
        .as_ref()
        .map_err(|e| Error::Other(format!("{origin}: its zen header does not read: {e}")))?;
    let engine = engine.or_else(|| {
        engine_of_container(c.toc().header.version, cp.header.form).and_then(Layout::for_engine)
    });
    let chunk = Source::from_vec(&origin, c.read_chunk(entry.chunk_index)?);
    let imported = cp
        .store_entry(entry.id)
        .map(|s| s.imported_packages.as_slice())
        .unwrap_or(&[]);
    let mut o = Opened::new(origin.clone(), chunk, None, |m, _| {
        Asset::from_zen(zen, m, imported, src, engine)
    })
    .map_err(|err| Error::Other(format!("{origin}: {err}")))?;
    o.place = Place::Zen(entry.id);
    o.form = Some(PackageForm::Zen(Box::new(ZenPackage::clone(zen))));
    Ok(o)
}
