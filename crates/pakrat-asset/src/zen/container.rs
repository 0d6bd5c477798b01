//! The zen packages of a container, and object names across them.

use std::collections::{HashMap, HashSet};

use pakrat_io::{Error, Result};
use pakrat_iostore::container::Container;
use pakrat_iostore::container_header::{ContainerHeader, StoreEntry};
use pakrat_iostore::toc::ChunkType;
use rayon::prelude::*;

use super::{parse, ObjectIndex, ObjectRef, ScriptObjects, ZenLayout, ZenPackage};

/// could not be read).
#[derive(Debug)]
pub struct PackageEntry {
    /// TOC entry index of its ExportBundleData chunk.
    pub chunk_index: usize,
    /// Package id (the chunk id's `Id`).
    pub id: u64,
    /// Path from the directory index, if indexed.
    pub path: Option<String>,
    /// The parsed header, or the error (shared: a [`crate::convert::Packages`]
    /// made from the container keeps it without a copy).
    pub header: Result<std::sync::Arc<ZenPackage>>,
}

/// The packages of a container: the container header and every zen package.
#[derive(Debug)]
pub struct ContainerPackages {
    /// The container header.
    pub header: ContainerHeader,
    /// Layout of its packages.
    pub layout: ZenLayout,
    /// Every ExportBundleData chunk with index 0, in TOC order.
    pub packages: Vec<PackageEntry>,
    /// Package id → position in the container header's package ids.
    store_index: HashMap<u64, usize>,
}

impl ContainerPackages {
    /// Read the container header and parse every package header (in parallel).
    /// A container without a container header chunk (e.g. `global.utoc`) has
    /// no packages to list and is an error naming that.
    pub fn read(c: &Container) -> Result<Self> {
        let mut all = Self::read_header(c)?;
        all.parse_packages(c, None);
        Ok(all)
    }

    /// [`ContainerPackages::read`] parsing only the package `root` and the
    /// packages it imports, directly or not (the container header's store
    /// entries list them without reading a chunk): what resolving one
    /// package's imports needs, without reading every package header of a
    /// big container. `None` when `root` is not one of its packages, or the
    /// container is UE4's (whose imports are container-wide).
    pub fn read_imports_of(c: &Container, root: u64) -> Result<Option<Self>> {
        let mut all = Self::read_header(c)?;
        if all.layout == ZenLayout::Ue4 || all.store_entry(root).is_none() {
            return Ok(None);
        }
        let mut want: HashSet<u64> = HashSet::from([root]);
        let mut todo = vec![root];
        while let Some(id) = todo.pop() {
            for &dep in all
                .store_entry(id)
                .map_or(&[][..], |s| &s.imported_packages)
            {
                if all.store_entry(dep).is_some() && want.insert(dep) {
                    todo.push(dep);
                }
            }
        }
        all.parse_packages(c, Some(&want));
        Ok(Some(all))
    }

    /// The container header alone (no package parsed yet).
    fn read_header(c: &Container) -> Result<Self> {
        let hi = c.find_by_type(ChunkType::ContainerHeader).ok_or_else(|| {
            Error::Other(format!(
                "{}: no container header chunk: not a container of zen packages",
                c.path().display()
            ))
        })?;
        let hdata = c.read_chunk(hi)?;
        let header = pakrat_iostore::container_header::parse(&hdata)
            .map_err(|e| Error::Other(format!("container header chunk: {e}")).in_file(c.path()))?;
        let layout = ZenLayout::for_header(header.form).map_err(|e| e.in_file(c.path()))?;
        let mut store_index = HashMap::with_capacity(header.package_ids.len());
        for (i, id) in header.package_ids.iter().enumerate() {
            store_index.entry(*id).or_insert(i);
        }
        Ok(ContainerPackages {
            header,
            layout,
            packages: Vec::new(),
            store_index,
        })
    }

    /// Parse the package headers of `only` (all when `None`), in parallel.
    fn parse_packages(&mut self, c: &Container, only: Option<&HashSet<u64>>) {
        let toc = c.toc();
        let idx: Vec<usize> = (0..toc.len())
            .filter(|&i| {
                let id = toc.chunk_ids[i];
                toc.chunk_type(i) == ChunkType::ExportBundleData
                    && id.index() == 0
                    && id.byte10() == 0
                    && only.is_none_or(|o| o.contains(&id.id()))
            })
            .collect();
        let layout = self.layout;
        let this = &*self;
        let packages = idx
            .par_iter()
            .map(|&i| {
                let id = toc.chunk_ids[i].id();
                let header = read_header_bytes(c, i, layout)
                    .and_then(|d| parse(&d, layout, this.store_entry(id)))
                    .map(std::sync::Arc::new);
                PackageEntry {
                    chunk_index: i,
                    id,
                    path: c.path_of(i),
                    header,
                }
            })
            .collect();
        self.packages = packages;
    }

    /// The store entry of a package id (hash lookup; optional-segment
    /// packages by a linear search).
    pub fn store_entry(&self, id: u64) -> Option<&StoreEntry> {
        self.store_index
            .get(&id)
            .and_then(|&i| self.header.store_entries.get(i))
            .or_else(|| self.header.store_entry(id))
    }

    /// Find a package by name (case-insensitive), directory path, id (16 hex
    /// digits, with or without `0x`), or a bare object name that only one
    /// package ends with.
    pub fn find(&self, query: &str) -> Option<&PackageEntry> {
        let q = query.trim();
        let hex = q
            .strip_prefix("0x")
            .or_else(|| q.strip_prefix("0X"))
            .unwrap_or(q);
        let as_id = if hex.len() == 16 {
            u64::from_str_radix(hex, 16).ok()
        } else {
            None
        };
        let as_name = pakrat_codec::names::package_id(q);
        let exact = self.packages.iter().find(|p| {
            Some(p.id) == as_id
                || p.id == as_name
                || p.path.as_deref().is_some_and(|path| {
                    path.eq_ignore_ascii_case(q)
                        || path
                            .rsplit_once('.')
                            .is_some_and(|(stem, _)| stem.eq_ignore_ascii_case(q))
                })
        });
        if exact.is_some() {
            return exact;
        }
        // A bare object name (`T_BC1`) when exactly one package ends with it.
        let mut hits = self.packages.iter().filter(|p| {
            p.header.as_ref().is_ok_and(|h| {
                h.name
                    .rsplit('/')
                    .next()
                    .is_some_and(|leaf| leaf.eq_ignore_ascii_case(q))
            })
        });
        match (hits.next(), hits.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Index of public exports across the container: (package id, public
    /// export hash) → (package position, export index); UE4 global import
    /// indices are also keyed as (0, index).
    pub fn public_exports(&self) -> HashMap<(u64, u64), (usize, usize)> {
        let mut m = HashMap::new();
        for (pi, p) in self.packages.iter().enumerate() {
            if let Ok(h) = &p.header {
                for (ei, e) in h.exports.iter().enumerate() {
                    if e.public_export_hash != 0 {
                        m.entry((p.id, e.public_export_hash)).or_insert((pi, ei));
                        if h.layout == ZenLayout::Ue4 {
                            // UE4 global import indices are container-wide.
                            m.entry((0, e.public_export_hash)).or_insert((pi, ei));
                        }
                    }
                }
            }
        }
        m
    }
}

/// How many bytes of a package chunk its header needs, once the first 64
/// bytes are known: UE5 `HeaderSize` (offset 4), UE4 `GraphDataOffset +
/// GraphDataSize` (offsets 52 and 56).
fn header_len(start: &[u8], layout: ZenLayout) -> Option<usize> {
    let at = |o: usize| {
        start
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    match layout {
        ZenLayout::Ue4 => Some(at(52)?.saturating_add(at(56)?)),
        _ => at(4),
    }
}

/// The first bytes of a package chunk, up to the end of its header: the
/// blocks after it are not decoded (export data can be megabytes).
fn read_header_bytes(c: &Container, i: usize, layout: ZenLayout) -> Result<Vec<u8>> {
    const STOP: &str = "\u{0}pakrat: package header complete";
    let mut out = Vec::new();
    let mut need: Option<usize> = None;
    let r = c.stream_chunk(i, |b| {
        out.extend_from_slice(b);
        if need.is_none() && out.len() >= 64 {
            need = header_len(&out, layout);
        }
        match need {
            Some(n) if out.len() >= n => Err(Error::Other(STOP.into())),
            _ => Ok(()),
        }
    });
    match r {
        Ok(()) => Ok(out),
        Err(Error::Other(m)) if m == STOP => Ok(out),
        Err(e) => Err(e),
    }
}

/// Resolves object indices of one package to readable names.
pub struct Resolver<'a> {
    /// All packages of the container.
    pub all: &'a ContainerPackages,
    /// Script objects, when a global container was loaded.
    pub script: Option<&'a ScriptObjects>,
    /// Public export index of the container.
    pub public: &'a HashMap<(u64, u64), (usize, usize)>,
}

impl Resolver<'_> {
    /// Readable name of `index` as seen from package `pkg` (id `pkg_id`).
    pub fn name(&self, pkg: &ZenPackage, pkg_id: u64, index: ObjectIndex) -> String {
        match index.get() {
            ObjectRef::Null => String::new(),
            ObjectRef::Export(i) => pkg
                .exports
                .get(i as usize)
                .map(|e| pkg.name_of(e.name))
                .unwrap_or_else(|| format!("<export {i} out of range>")),
            ObjectRef::Script(v) => self
                .script
                .and_then(|s| s.path(index))
                .unwrap_or_else(|| format!("<script {v:#018x}>")),
            ObjectRef::Package { package, hash, raw } => {
                if pkg.layout == ZenLayout::Ue4 {
                    // UE4: a global import index shared by all packages.
                    return match self.public.get(&(0, raw)) {
                        Some(&(pi, ei)) => self.export_path(pi, ei),
                        None => format!("<import {raw:#018x}>"),
                    };
                }
                let pid = self
                    .all
                    .store_entry(pkg_id)
                    .and_then(|s| s.imported_packages.get(package as usize).copied())
                    .or_else(|| {
                        pkg.imported_package_names
                            .get(package as usize)
                            .map(|n| pakrat_codec::names::package_id(n))
                    });
                let h = pkg
                    .imported_public_export_hashes
                    .get(hash as usize)
                    .copied();
                match (pid, h) {
                    (Some(pid), Some(h)) => match self.public.get(&(pid, h)) {
                        Some(&(pi, ei)) => self.export_path(pi, ei),
                        None => {
                            let pname = pkg
                                .imported_package_names
                                .get(package as usize)
                                .cloned()
                                .unwrap_or_else(|| format!("{pid:016X}"));
                            format!("{pname}.<{h:016x}>")
                        }
                    },
                    _ => format!("<import {raw:#018x} out of range>"),
                }
            }
        }
    }

    fn export_path(&self, pi: usize, ei: usize) -> String {
        match self.all.packages.get(pi).map(|p| &p.header) {
            Some(Ok(h)) => match h.exports.get(ei) {
                Some(e) => format!("{}.{}", h.name, h.name_of(e.name)),
                None => h.name.clone(),
            },
            _ => "<unreadable package>".into(),
        }
    }
}
