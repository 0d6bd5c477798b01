//! `zen from-legacy --into` converting while it writes (issue 31 item 18):
//! the folder's packages and bulk data are taken in path order (the
//! container's layout order) a group at a time; each group is converted by
//! the pool while the groups before it are written, and its data is freed
//! once written. The container is the one the convert-all-then-plan path
//! makes (the same plan, [`StreamPlan`], in the same order).
//!
//! Taken by the other path: `--base` (a reference header and order),
//! `--registry` (it needs every converted package at the end), folders
//! with zen packages, `_chunks/` files or shader libraries beside the
//! legacy ones, pre-5.3 header forms, and UE 4.27 packages (met in the
//! first group: the stream stops and the other path starts over).
//!
//! Errors are reported as there: every package that fails is listed (once
//! one fails, the rest are converted to find the others) and no container
//! is written (its files are staged and discarded).

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Result};
use rayon::prelude::*;

use pakrat_asset::build::{self, Known, Role, StreamPlan};
use pakrat_asset::convert::files::{legacy_to_zen, sibling, LegacyFolder, ZenFile};
use pakrat_asset::legacy::Layout;
use pakrat_asset::zen::ScriptObjects;
use pakrat_codec::names::package_id;
use pakrat_io::walk::SourceFile;
use pakrat_iostore::container_header::StoreEntry;
use pakrat_iostore::write::ChunkSpec;

use crate::args::{IostoreCreateArgs, ZenFromLegacyArgs};

/// Files (packages and bulk data) per group: enough for the pool, few
/// enough that a group's data stays at a few MiB.
const GROUP: usize = 384;

/// A file of the container, in path order.
enum Item<'a> {
    /// `folder.packages[i]`.
    Package(usize),
    /// Bulk data, taken as it is.
    Bulk(&'a SourceFile),
}

/// How the stream stopped early.
#[derive(Default)]
struct Stop {
    /// Packages that did not convert: (index, message).
    errors: Vec<(usize, String)>,
    /// A UE 4.27 package was met: the other path takes the folder.
    ue4: bool,
}

/// Hands the container's chunks over a group at a time.
struct Producer<'a> {
    folder: &'a LegacyFolder,
    layout: Option<Layout>,
    script: Option<&'a ScriptObjects>,
    items: Vec<Item<'a>>,
    pos: usize,
    /// Lower-cased stem → package index (a bulk file's package).
    stem_package: HashMap<String, usize>,
    /// Converted, not yet handed over: index → (id, zen file).
    ready: HashMap<usize, (u64, ZenFile)>,
    /// Converted (handed over or ready).
    converted: Vec<bool>,
    plan: Option<StreamPlan>,
    stop: Stop,
    bar: Option<indicatif::ProgressBar>,
}

/// A converted package's name and store entry (what the container header
/// takes of it; UE 5.3+ packages tell their imports).
pub(crate) fn known_of(z: &ZenFile) -> Known {
    let p = &z.output.package;
    let entry = StoreEntry {
        imported_packages: p
            .imported_package_names
            .iter()
            .map(|n| package_id(n))
            .collect(),
        ..StoreEntry::default()
    };
    (p.name.clone(), entry)
}

impl<'a> Producer<'a> {
    /// Convert the packages `which` (by the pool), registering each with
    /// the plan; false when the stream must stop.
    fn convert(&mut self, which: Vec<usize>) -> std::result::Result<bool, pakrat_io::Error> {
        let (folder, layout, script, bar) = (self.folder, self.layout, self.script, &self.bar);
        let done: Vec<(usize, std::result::Result<ZenFile, String>)> = which
            .into_par_iter()
            .map(|i| {
                let _tick = crate::cmd::common::Tick(bar);
                let r = legacy_to_zen(&folder.packages[i], layout, script);
                (i, r.map_err(|e| e.to_string()))
            })
            .collect();
        for (i, r) in done {
            self.converted[i] = true;
            match r {
                Err(e) => self.stop.errors.push((i, e)),
                Ok(z) if z.output.store_entry.is_some() => self.stop.ue4 = true,
                Ok(z) if self.stop.errors.is_empty() && !self.stop.ue4 => {
                    if let Some(plan) = self.plan.as_mut() {
                        let id = plan.add_package(&z.rel, known_of(&z))?;
                        self.ready.insert(i, (id, z));
                    }
                }
                Ok(_) => {}
            }
        }
        Ok(self.stop.errors.is_empty() && !self.stop.ue4)
    }

    /// The next group's chunks; `None` after the container header.
    fn next_group(&mut self) -> Option<pakrat_io::Result<Vec<ChunkSpec>>> {
        if self.pos == self.items.len() {
            let plan = self.plan.take()?;
            return match plan.finish() {
                Ok(h) => Some(Ok(h.map(|(_, c)| c).into_iter().collect())),
                Err(e) => Some(Err(e)),
            };
        }
        let end = (self.pos + GROUP).min(self.items.len());
        let group = &self.items[self.pos..end];
        // This group's packages, and those of its bulk data (which may come
        // after their bulk data in path order: `X.ubulk` before `X.umap`).
        let mut which = Vec::new();
        for it in group {
            let i = match it {
                Item::Package(i) => Some(*i),
                Item::Bulk(f) => self
                    .stem_package
                    .get(&sibling(&f.rel, "").to_ascii_lowercase())
                    .copied(),
            };
            if let Some(i) = i.filter(|&i| !self.converted[i] && !which.contains(&i)) {
                which.push(i);
            }
        }
        match self.convert(which) {
            Err(e) => return self.fail(Some(e)),
            Ok(false) => return self.fail(None),
            Ok(true) => {}
        }
        let mut specs = Vec::with_capacity(end - self.pos);
        let Some(plan) = self.plan.as_ref() else {
            return self.fail(Some(lost()));
        };
        for it in &self.items[self.pos..end] {
            match it {
                Item::Package(i) => {
                    let Some((id, z)) = self.ready.remove(i) else {
                        return self.fail(Some(lost()));
                    };
                    let f = SourceFile {
                        path: self.folder.packages[*i].header.path.clone(),
                        size: z.output.chunk.len() as u64,
                        rel: z.rel,
                        bytes: Some(Arc::new(z.output.chunk)),
                    };
                    specs.push(plan.package_chunk(&f, id));
                }
                Item::Bulk(f) => match plan.bulk_chunk(f) {
                    Ok(c) => specs.push(c),
                    Err(e) => return self.fail(Some(e)),
                },
            }
        }
        self.pos = end;
        Some(Ok(specs))
    }

    /// Stop the stream: on a conversion error, convert every package left
    /// (to list all that fail).
    fn fail(&mut self, e: Option<pakrat_io::Error>) -> Option<pakrat_io::Result<Vec<ChunkSpec>>> {
        self.pos = self.items.len();
        self.plan = None;
        self.ready.clear();
        if !self.stop.errors.is_empty() && !self.stop.ue4 {
            let rest: Vec<usize> = (0..self.converted.len())
                .filter(|&i| !self.converted[i])
                .collect();
            // Registration stops with the first error: only errors are kept.
            let _ = self.convert(rest);
        }
        let e = e.unwrap_or_else(|| pakrat_io::Error::Other("the conversion stopped".into()));
        Some(Err(e))
    }
}

/// A package the stream should hold is not there (a pakrat bug): stop
/// rather than leave it out of the container.
fn lost() -> pakrat_io::Error {
    pakrat_io::Error::Other(
        "a converted package went missing from the stream (a pakrat bug); nothing was written"
            .into(),
    )
}

/// `zen from-legacy --into` converting while it writes. `Ok(None)`: the
/// folder or the options need the other path (see the module notes).
pub fn into(
    a: &ZenFromLegacyArgs,
    create: &IostoreCreateArgs,
    folder: &LegacyFolder,
    layout: Option<Layout>,
    script: Option<&ScriptObjects>,
) -> Result<Option<ExitCode>> {
    if a.base.is_some() || a.registry.is_some() {
        return Ok(None);
    }
    let mut items: Vec<(&str, Item)> = Vec::new();
    let mut pak_files = Vec::new();
    for f in &folder.others {
        match build::role(&f.rel) {
            Role::Bulk => items.push((&f.rel, Item::Bulk(f))),
            Role::Pak => pak_files.push(f.clone()),
            Role::Package | Role::Unplanned => return Ok(None),
        }
    }
    let mut stem_package = HashMap::new();
    for (i, p) in folder.packages.iter().enumerate() {
        items.push((&p.header.rel, Item::Package(i)));
        stem_package.insert(sibling(&p.header.rel, "").to_ascii_lowercase(), i);
    }
    items.sort_by(|x, y| x.0.cmp(y.0));
    let setup = crate::cmd::iostore_write::create_setup(create)?;
    let Some(plan) = StreamPlan::new(&setup.plan) else {
        return Ok(None);
    };
    let n = folder.packages.len();
    let mut p = Producer {
        folder,
        layout,
        script,
        items: items.into_iter().map(|x| x.1).collect(),
        pos: 0,
        stem_package,
        ready: HashMap::new(),
        converted: vec![false; n],
        plan: Some(plan),
        stop: Stop::default(),
        bar: crate::cmd::common::progress_count(n as u64, a.out.json, "converting", "packages"),
    };
    let res = crate::cmd::iostore_write::create_streamed(create, setup, pak_files, n, &mut || {
        p.next_group()
    });
    if let Some(b) = &p.bar {
        b.finish_and_clear();
    }
    if p.stop.ue4 {
        return Ok(None);
    }
    if !p.stop.errors.is_empty() {
        p.stop.errors.sort_by_key(|e| e.0);
        if !a.out.json {
            let errors: Vec<&String> = p.stop.errors.iter().map(|e| &e.1).collect();
            crate::cmd::common::print_errors(&errors);
        }
        bail!(
            "{} of {n} packages did not convert; no container was written",
            p.stop.errors.len()
        );
    }
    res.map(Some)
}
