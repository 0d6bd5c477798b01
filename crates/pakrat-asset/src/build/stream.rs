//! [`super::plan`] made a group of files at a time, for chunks made while
//! the ones before them are written (`zen from-legacy --into` converts its
//! packages a group at a time and hands each group to
//! [`pakrat_iostore::write::write_stream`], issue 31 item 18). The chunks
//! and the container header are the ones [`super::plan`] makes of the same
//! folder, given in the same (path) order.

use std::collections::{BTreeMap, HashMap};

use pakrat_io::walk::SourceFile;
use pakrat_io::{Error, Result};

use super::{chunk_data, default_form, file_kind, header_chunk, raw_type, Known, PlanOptions};
use crate::zen::ZenLayout;
use pakrat_codec::names::package_id;
use pakrat_iostore::container_header::{ContainerHeader, HeaderForm, StoreEntry};
use pakrat_iostore::toc::{ChunkId, Numbering};
use pakrat_iostore::write::ChunkSpec;

/// What a file of the folder is to a [`StreamPlan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A package (`.uasset`/`.umap`): its ExportBundleData chunk.
    Package,
    /// Bulk data beside a package (`.ubulk`, `.uptnl`, `.m.ubulk`).
    Bulk,
    /// Anything else: a file for the companion `.pak`.
    Pak,
    /// A `_chunks/` file or a shader library, which only [`super::plan`]
    /// takes.
    Unplanned,
}

/// The role of the file at `rel` (as [`super::plan`] sorts a folder).
pub fn role(rel: &str) -> Role {
    if rel.starts_with("_chunks/") || rel.to_ascii_lowercase().ends_with(".ushaderbytecode") {
        return Role::Unplanned;
    }
    match file_kind(rel) {
        Some((_, 1)) => Role::Package,
        Some(_) => Role::Bulk,
        None => Role::Pak,
    }
}

/// A plan made as its packages come: without a reference header or order,
/// for the UE 5.3+ header forms (whose store entries the packages tell).
#[derive(Debug)]
pub struct StreamPlan {
    mount: String,
    container_id: u64,
    form: HeaderForm,
    numbering: Numbering,
    packages: BTreeMap<u64, (String, StoreEntry)>,
    stem_ids: HashMap<String, u64>,
}

impl StreamPlan {
    /// A plan for `o`; `None` when it needs what only [`super::plan`]
    /// does: a reference header or order, or a pre-5.3 header form.
    pub fn new(o: &PlanOptions) -> Option<StreamPlan> {
        if o.reference.is_some() || !o.order.is_empty() {
            return None;
        }
        let form = o.form.unwrap_or_else(|| default_form(o.toc_version));
        if !matches!(ZenLayout::for_header(form), Ok(ZenLayout::Ue5_3 { .. })) {
            return None;
        }
        Some(StreamPlan {
            mount: o.mount.clone(),
            container_id: o.container_id,
            form,
            numbering: Numbering::Ue5,
            packages: BTreeMap::new(),
            stem_ids: HashMap::new(),
        })
    }

    /// Take the package at `rel` (name and store entry as known): its id,
    /// refused when another package of the folder has it.
    pub fn add_package(&mut self, rel: &str, known: Known) -> Result<u64> {
        let (name, entry) = known;
        let id = package_id(&name);
        if let Some((other, _)) = self.packages.get(&id) {
            return Err(Error::Other(format!(
                "{rel}: package {name} is already in the folder (as {other}); a container holds each package once"
            )));
        }
        let stem = file_kind(rel).map_or(rel, |k| k.0);
        self.stem_ids.insert(stem.to_ascii_lowercase(), id);
        self.packages.insert(id, (rel.to_string(), entry));
        Ok(id)
    }

    /// The ExportBundleData chunk of the package `f`, added as `id`.
    pub fn package_chunk(&self, f: &SourceFile, id: u64) -> ChunkSpec {
        ChunkSpec {
            id: ChunkId::new(id, 0, 0, raw_type(1, self.numbering)),
            path: Some(format!("{}{}", self.mount, f.rel)),
            data: chunk_data(f),
            size: f.size,
            memory_mapped: false,
        }
    }

    /// The chunk of the bulk data file `f`, whose package must have been
    /// added.
    pub fn bulk_chunk(&self, f: &SourceFile) -> Result<ChunkSpec> {
        let (stem, ty) = file_kind(&f.rel)
            .filter(|k| k.1 != 1)
            .ok_or_else(|| Error::Other(format!("{}: not bulk data", f.rel)))?;
        let id = self
            .stem_ids
            .get(&stem.to_ascii_lowercase())
            .ok_or_else(|| {
                Error::Other(format!(
                    "{}: bulk data without its package ({stem}.uasset or .umap)",
                    f.rel
                ))
            })?;
        Ok(ChunkSpec {
            id: ChunkId::new(*id, 0, 0, raw_type(ty, self.numbering)),
            path: Some(format!("{}{}", self.mount, f.rel)),
            data: chunk_data(f),
            size: f.size,
            memory_mapped: ty == 4,
        })
    }

    /// Packages added so far.
    pub fn packages(&self) -> usize {
        self.packages.len()
    }

    /// The container header of every package added and its chunk (the
    /// last one); `None` without packages.
    pub fn finish(self) -> Result<Option<(ContainerHeader, ChunkSpec)>> {
        header_chunk(self.form, self.container_id, self.packages, None)
    }
}
