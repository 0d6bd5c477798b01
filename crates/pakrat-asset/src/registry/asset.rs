//! `FAssetData`: one asset of the registry.

use pakrat_io::{Reader, Result, Writer};
use serde::Serialize;

use super::names::{read_opt, write_opt, NameRef};
use super::{read_i32_array, version, write_i32_array, Ctx, RegString};

/// The tags of an asset in the form the registry stores them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tags {
    /// `FixedTags`+: a map handle into the store (`u64`: bit 63 = the keys
    /// are numberless names, bits 32..48 = pair count, bits 0..32 = first
    /// pair).
    Handle(u64),
    /// Before: `(name, string)` pairs stored with the asset.
    Loose(Vec<(NameRef, RegString)>),
}

impl Tags {
    /// For a handle: (numberless keys, pair count, first pair).
    pub fn handle_parts(h: u64) -> (bool, usize, usize) {
        (
            h >> 63 != 0,
            ((h >> 32) & 0xFFFF) as usize,
            (h & 0xFFFF_FFFF) as usize,
        )
    }

    /// Build a handle.
    pub fn make_handle(numberless: bool, num: usize, first: usize) -> u64 {
        (u64::from(numberless) << 63) | ((num as u64 & 0xFFFF) << 32) | (first as u64 & 0xFFFF_FFFF)
    }
}

/// One soft object path of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BundleAsset {
    /// The package part (`ClassPaths`+: the top-level path's package).
    pub package: NameRef,
    /// The asset name (`ClassPaths`+; before, the whole path is one name).
    pub asset: Option<NameRef>,
    /// The sub-object path.
    pub sub_path: RegString,
}

/// `FAssetBundleEntry`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bundle {
    /// The bundle name.
    pub name: NameRef,
    /// Its assets.
    pub assets: Vec<BundleAsset>,
}

/// `FAssetData`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssetData {
    /// `ObjectPath` (before `RemoveAssetPathFNames`, 15).
    pub object_path: Option<NameRef>,
    /// `PackagePath` (`/Game/Maps`).
    pub package_path: NameRef,
    /// The class's package (`ClassPaths`+, 14: `/Script/Engine`).
    pub class_package: Option<NameRef>,
    /// The class name (`StaticMesh`).
    pub class: NameRef,
    /// `GroupNames` (before `RemovedMD5Hash`, 4).
    pub group_names: Option<NameRef>,
    /// `PackageName` (`/Game/Maps/Level`).
    pub package_name: NameRef,
    /// `AssetName` (`Level`).
    pub asset_name: NameRef,
    /// `OptionalOuterPath` (from 15 unless the registry filters editor-only data).
    pub optional_outer_path: Option<NameRef>,
    /// The tags.
    pub tags: Tags,
    /// Asset bundles (`FixedTags`+).
    pub bundles: Vec<Bundle>,
    /// Chunk ids.
    pub chunk_ids: Vec<i32>,
    /// Package flags (`EPackageFlags`).
    pub package_flags: u32,
}

impl AssetData {
    /// Read one.
    pub fn read(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Self> {
        let object_path = read_opt(
            r,
            ctx,
            !ctx.at_least(version::REMOVE_ASSET_PATH_FNAMES),
            "ObjectPath",
        )?;
        let package_path = NameRef::read(r, ctx, "PackagePath")?;
        let class_package = read_opt(
            r,
            ctx,
            ctx.at_least(version::CLASS_PATHS),
            "AssetClassPath package",
        )?;
        let class = NameRef::read(r, ctx, "AssetClass")?;
        let group_names = read_opt(
            r,
            ctx,
            !ctx.at_least(version::REMOVED_MD5_HASH),
            "GroupNames",
        )?;
        let package_name = NameRef::read(r, ctx, "PackageName")?;
        let asset_name = NameRef::read(r, ctx, "AssetName")?;
        let outer = ctx.at_least(version::REMOVE_ASSET_PATH_FNAMES) && !ctx.filter_editor_only;
        let optional_outer_path = read_opt(r, ctx, outer, "OptionalOuterPath")?;
        let (tags, bundles) = if ctx.batch {
            let h = r.u64("tag map handle")?;
            (Tags::Handle(h), read_bundles(r, ctx)?)
        } else {
            let n = r.i32_count("tag count", 12)?;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                let k = NameRef::read(r, ctx, "tag key")?;
                v.push((k, RegString::read(r, ctx, "tag value")?));
            }
            (Tags::Loose(v), Vec::new())
        };
        Ok(AssetData {
            object_path,
            package_path,
            class_package,
            class,
            group_names,
            package_name,
            asset_name,
            optional_outer_path,
            tags,
            bundles,
            chunk_ids: read_i32_array(r, "chunk ids")?,
            package_flags: r.u32("package flags")?,
        })
    }

    /// Write one.
    pub fn write(&self, w: &mut Writer, ctx: &Ctx) {
        write_opt(w, ctx, self.object_path);
        self.package_path.write(w, ctx);
        write_opt(w, ctx, self.class_package);
        self.class.write(w, ctx);
        write_opt(w, ctx, self.group_names);
        self.package_name.write(w, ctx);
        self.asset_name.write(w, ctx);
        write_opt(w, ctx, self.optional_outer_path);
        match &self.tags {
            Tags::Handle(h) => {
                w.u64(*h);
                w.i32(self.bundles.len() as i32);
                for b in &self.bundles {
                    b.name.write(w, ctx);
                    w.i32(b.assets.len() as i32);
                    for a in &b.assets {
                        a.package.write(w, ctx);
                        write_opt(w, ctx, a.asset);
                        a.sub_path.write(w, ctx);
                    }
                }
            }
            Tags::Loose(v) => {
                w.i32(v.len() as i32);
                for (k, s) in v {
                    k.write(w, ctx);
                    s.write(w, ctx);
                }
            }
        }
        write_i32_array(w, &self.chunk_ids);
        w.u32(self.package_flags);
    }

    /// Every name this asset refers to (for merging), mutable.
    pub(super) fn names_mut(&mut self) -> Vec<&mut NameRef> {
        let mut v: Vec<&mut NameRef> = Vec::new();
        v.extend(self.object_path.as_mut());
        v.push(&mut self.package_path);
        v.extend(self.class_package.as_mut());
        v.push(&mut self.class);
        v.extend(self.group_names.as_mut());
        v.push(&mut self.package_name);
        v.push(&mut self.asset_name);
        v.extend(self.optional_outer_path.as_mut());
        if let Tags::Loose(t) = &mut self.tags {
            v.extend(t.iter_mut().map(|(k, _)| k));
        }
        for b in &mut self.bundles {
            v.push(&mut b.name);
            for a in &mut b.assets {
                v.push(&mut a.package);
                v.extend(a.asset.as_mut());
            }
        }
        v
    }
}

fn read_bundles(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Vec<Bundle>> {
    let n = r.i32_count("bundle count", 8)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = NameRef::read(r, ctx, "bundle name")?;
        let m = r.i32_count("bundle asset count", 8)?;
        let mut assets = Vec::with_capacity(m);
        for _ in 0..m {
            let package = NameRef::read(r, ctx, "bundle asset path")?;
            let asset = read_opt(
                r,
                ctx,
                ctx.at_least(version::CLASS_PATHS),
                "bundle asset name",
            )?;
            let sub_path = RegString::read(r, ctx, "bundle asset sub-path")?;
            assets.push(BundleAsset {
                package,
                asset,
                sub_path,
            });
        }
        out.push(Bundle { name, assets });
    }
    Ok(out)
}
