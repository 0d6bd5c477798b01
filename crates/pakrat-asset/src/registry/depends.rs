//! The dependency section: one `FDependsNode` per asset identifier, whose
//! dependencies and referencers are indices of other nodes.
//!
//! From `AddedDependencyFlags` (7) the section starts with its `i64` size and
//! each node stores `TArray<i32>`s plus flag bit sets without a count: 5 bits
//! per package dependency (`FPropertyCombinationPack3`), 1 bit per manage
//! dependency — 3 bits from `ManageDependenciesCookRule` (22; CUE4Parse gates
//! it on UE 5.7, the section size of the 5.8/6.0 fixtures confirms 3). Before,
//! a node stores its counts first (hard, soft, name, soft manage, hard manage
//! from 5, referencers) and then the indices.

use pakrat_io::{Error, Reader, Result, Writer};
use serde::Serialize;

use super::names::NameRef;
use super::{read_i32_array, read_i32s, version, write_i32_array, Ctx};

/// `FAssetIdentifier`: a bit set saying which of four names follow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct AssetIdentifier {
    /// Package name (bit 0).
    pub package_name: Option<NameRef>,
    /// Primary asset type (bit 1).
    pub primary_asset_type: Option<NameRef>,
    /// Object name (bit 2).
    pub object_name: Option<NameRef>,
    /// Value name (bit 3).
    pub value_name: Option<NameRef>,
}

impl AssetIdentifier {
    fn read(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Self> {
        let at = r.offset();
        let bits = r.u8("asset identifier field bits")?;
        if bits & 0xF0 != 0 {
            return Err(Error::invalid(
                at,
                format!("asset identifier field bits {bits:#x}: only bits 0-3 exist"),
            ));
        }
        let mut id = AssetIdentifier::default();
        let what = [
            "identifier package",
            "identifier primary asset type",
            "identifier object",
            "identifier value",
        ];
        for (i, slot) in id.slots_mut().into_iter().enumerate() {
            if bits & (1 << i) != 0 {
                *slot = Some(NameRef::read(r, ctx, what[i])?);
            }
        }
        Ok(id)
    }

    fn slots_mut(&mut self) -> [&mut Option<NameRef>; 4] {
        [
            &mut self.package_name,
            &mut self.primary_asset_type,
            &mut self.object_name,
            &mut self.value_name,
        ]
    }

    fn slots(&self) -> [Option<NameRef>; 4] {
        [
            self.package_name,
            self.primary_asset_type,
            self.object_name,
            self.value_name,
        ]
    }

    fn write(&self, w: &mut Writer, ctx: &Ctx) {
        let s = self.slots();
        let bits = s
            .iter()
            .enumerate()
            .fold(0u8, |b, (i, n)| b | (u8::from(n.is_some()) << i));
        w.u8(bits);
        for n in s.into_iter().flatten() {
            n.write(w, ctx);
        }
    }

    /// Its names, mutable (for merging).
    pub(super) fn names_mut(&mut self) -> impl Iterator<Item = &mut NameRef> {
        self.slots_mut().into_iter().filter_map(|s| s.as_mut())
    }
}

/// The counts the old form (before flags) splits its arrays by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OldSplit {
    /// Hard package dependencies (the first ones of `package_deps`).
    pub hard: usize,
    /// Soft manage dependencies (the first ones of `manage_deps`).
    pub soft_manage: usize,
}

/// `FDependsNode`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DependsNode {
    /// Which asset.
    pub identifier: AssetIdentifier,
    /// Package dependencies (node indices).
    pub package_deps: Vec<i32>,
    /// Their flag bits (5 per dependency, in `u32` words).
    pub package_flags: Vec<u32>,
    /// Searchable-name dependencies.
    pub name_deps: Vec<i32>,
    /// Manage dependencies.
    pub manage_deps: Vec<i32>,
    /// Their flag bits.
    pub manage_flags: Vec<u32>,
    /// Referencers.
    pub referencers: Vec<i32>,
    /// The old form's split (before `AddedDependencyFlags`).
    pub old_split: Option<OldSplit>,
}

/// The dependency section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dependencies {
    /// The nodes.
    pub nodes: Vec<DependsNode>,
}

/// Flag bits per manage dependency.
pub fn manage_flag_width(ctx: &Ctx) -> usize {
    if ctx.at_least(version::MANAGE_DEPENDENCIES_COOK_RULE) {
        3
    } else {
        1
    }
}

/// Flag bits per package dependency.
pub const PACKAGE_FLAG_WIDTH: usize = 5;

fn words(bits: usize, n: usize) -> usize {
    (bits * n).div_ceil(32)
}

fn read_words(r: &mut Reader<'_>, n: usize, what: &str) -> Result<Vec<u32>> {
    let n = r.check_count(n as i64, 4, what)?;
    (0..n).map(|_| r.u32(what)).collect()
}

impl Dependencies {
    /// Read the section.
    pub fn read(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Self> {
        if !ctx.at_least(version::ADDED_DEPENDENCY_FLAGS) {
            let n = r.i32_count("dependency node count", 21)?;
            let mut nodes = Vec::with_capacity(n);
            for i in 0..n {
                nodes.push(
                    read_old(r, ctx, n).map_err(|e| e.context(&format!("dependency node {i}")))?,
                );
            }
            return Ok(Dependencies { nodes });
        }
        let at = r.offset();
        let size = r.i64("dependency section size")?;
        let size = r.check_count(size, 1, "dependency section size")?;
        let mut s = r.sub(r.pos() as u64, size as u64, "dependency section")?;
        r.skip(size as u64, "dependency section")?;
        let n = s.i32_count("dependency node count", 17)?;
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            nodes.push(
                read_node(&mut s, ctx, n)
                    .map_err(|e| e.context(&format!("dependency node {i}")))?,
            );
        }
        if s.remaining() != 0 {
            return Err(Error::invalid(
                at,
                format!(
                    "dependency section of {size} bytes has {} bytes after its nodes",
                    s.remaining()
                ),
            ));
        }
        Ok(Dependencies { nodes })
    }

    /// Write the section.
    pub fn write(&self, w: &mut Writer, ctx: &Ctx) {
        if !ctx.at_least(version::ADDED_DEPENDENCY_FLAGS) {
            w.i32(self.nodes.len() as i32);
            for n in &self.nodes {
                write_old(n, w, ctx);
            }
            return;
        }
        let mut s = Writer::new();
        s.i32(self.nodes.len() as i32);
        for n in &self.nodes {
            n.identifier.write(&mut s, ctx);
            write_i32_array(&mut s, &n.package_deps);
            n.package_flags.iter().for_each(|&x| {
                s.u32(x);
            });
            write_i32_array(&mut s, &n.name_deps);
            write_i32_array(&mut s, &n.manage_deps);
            n.manage_flags.iter().for_each(|&x| {
                s.u32(x);
            });
            write_i32_array(&mut s, &n.referencers);
        }
        w.i64(s.len() as i64).bytes(s.as_slice());
    }
}

fn check_indices(at: u64, v: &[i32], n: usize, what: &str) -> Result<()> {
    match v.iter().find(|&&i| i < 0 || i as usize >= n) {
        Some(i) => Err(Error::invalid(
            at,
            format!("{what}: node index {i} is outside the {n} nodes"),
        )),
        None => Ok(()),
    }
}

fn read_node(r: &mut Reader<'_>, ctx: &Ctx, count: usize) -> Result<DependsNode> {
    let identifier = AssetIdentifier::read(r, ctx)?;
    let at = r.offset();
    let package_deps = read_i32_array(r, "package dependencies")?;
    let package_flags = read_words(
        r,
        words(PACKAGE_FLAG_WIDTH, package_deps.len()),
        "package dependency flags",
    )?;
    let name_deps = read_i32_array(r, "name dependencies")?;
    let manage_deps = read_i32_array(r, "manage dependencies")?;
    let manage_flags = read_words(
        r,
        words(manage_flag_width(ctx), manage_deps.len()),
        "manage dependency flags",
    )?;
    let referencers = read_i32_array(r, "referencers")?;
    for (v, what) in [
        (&package_deps, "package dependency"),
        (&name_deps, "name dependency"),
        (&manage_deps, "manage dependency"),
        (&referencers, "referencer"),
    ] {
        check_indices(at, v, count, what)?;
    }
    Ok(DependsNode {
        identifier,
        package_deps,
        package_flags,
        name_deps,
        manage_deps,
        manage_flags,
        referencers,
        old_split: None,
    })
}

fn read_old(r: &mut Reader<'_>, ctx: &Ctx, count: usize) -> Result<DependsNode> {
    let identifier = AssetIdentifier::read(r, ctx)?;
    let at = r.offset();
    let mut c = || r.i32_count("dependency count", 4);
    let hard = c()?;
    let soft = c()?;
    let name = c()?;
    let soft_manage = c()?;
    let hard_manage = if ctx.at_least(version::ADDED_HARD_MANAGE) {
        c()?
    } else {
        0
    };
    let refs = c()?;
    let package_deps = read_i32s(r, hard + soft, "package dependencies")?;
    let name_deps = read_i32s(r, name, "name dependencies")?;
    let manage_deps = read_i32s(r, soft_manage + hard_manage, "manage dependencies")?;
    let referencers = read_i32s(r, refs, "referencers")?;
    for (v, what) in [
        (&package_deps, "package dependency"),
        (&name_deps, "name dependency"),
        (&manage_deps, "manage dependency"),
        (&referencers, "referencer"),
    ] {
        check_indices(at, v, count, what)?;
    }
    Ok(DependsNode {
        identifier,
        package_deps,
        package_flags: Vec::new(),
        name_deps,
        manage_deps,
        manage_flags: Vec::new(),
        referencers,
        old_split: Some(OldSplit { hard, soft_manage }),
    })
}

fn write_old(n: &DependsNode, w: &mut Writer, ctx: &Ctx) {
    n.identifier.write(w, ctx);
    let split = n.old_split.unwrap_or(OldSplit {
        hard: n.package_deps.len(),
        soft_manage: n.manage_deps.len(),
    });
    w.i32(split.hard as i32)
        .i32((n.package_deps.len() - split.hard.min(n.package_deps.len())) as i32)
        .i32(n.name_deps.len() as i32)
        .i32(split.soft_manage as i32);
    if ctx.at_least(version::ADDED_HARD_MANAGE) {
        w.i32((n.manage_deps.len() - split.soft_manage.min(n.manage_deps.len())) as i32);
    }
    w.i32(n.referencers.len() as i32);
    for v in [
        &n.package_deps,
        &n.name_deps,
        &n.manage_deps,
        &n.referencers,
    ] {
        v.iter().for_each(|&x| {
            w.i32(x);
        });
    }
}
