//! `zen from-legacy --into OUT.utoc --registry [GAME.bin]`: the asset
//! registry entries of the converted packages (`docs/asset-registry.md`,
//! "Entries of converted packages"), written to `OUT.AssetRegistry.bin`.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use pakrat_asset::convert::files::{LegacySource, ZenFile};
use pakrat_asset::legacy::LegacyPackage;
use pakrat_asset::registry::build::{self, PackageEntry};
use pakrat_asset::registry::merge::merge;
use pakrat_asset::registry::AssetRegistry;

use crate::args::ZenFromLegacyArgs;

/// A registry ready to be written after the container.
pub struct Pending {
    path: PathBuf,
    bytes: Vec<u8>,
    line: String,
}

/// `OUT.AssetRegistry.bin` beside `OUT.utoc`.
pub fn output_path(utoc: &Path) -> PathBuf {
    utoc.with_extension("AssetRegistry.bin")
}

fn registry_version(a: &ZenFromLegacyArgs) -> Result<u32> {
    match a.ue_version.as_deref().map(str::trim) {
        Some("5.8") | Some("6.0") => Ok(pakrat_asset::registry::version::LATEST),
        v => bail!(
            "--registry without GAME.bin: the registry version is known for --ue-version 5.8 and 6.0 (24, the fixture registries'); {} — give the game's AssetRegistry.bin (--registry GAME.bin) to take its version. Nothing was written",
            v.map_or("no --ue-version given".to_owned(), |v| format!("--ue-version {v}"))
        ),
    }
}

fn entry(
    src: &LegacySource,
    z: &ZenFile,
    layout: Option<pakrat_asset::legacy::Layout>,
) -> Result<Option<PackageEntry>> {
    let header = src.header.read()?;
    let pkg = LegacyPackage::read(&header, layout)
        .map_err(|e| anyhow!("{}: {e}", src.header.path.display()))?;
    let ext = if z.rel.ends_with(".umap") {
        ".umap"
    } else {
        ".uasset"
    };
    // The folder walk leaves out the sizes of the files the conversion
    // reads whole (`walked_unsized`): the `.uexp`'s is asked here.
    let uexp = match &src.uexp {
        Some(u) => std::fs::metadata(&u.path)
            .map_err(|e| anyhow!("{}: {e}", u.path.display()))?
            .len(),
        None => 0,
    };
    let size = header.len() as u64 + uexp;
    Ok(build::entry_of(
        &pkg,
        &z.output.package.name,
        ext,
        size as i64,
    ))
}

/// The registry entries of the converted packages (`None` without
/// `--registry`), checked and ready to write; the output is refused here,
/// before the container is written, when it exists without `--force`.
pub fn prepare(
    a: &ZenFromLegacyArgs,
    utoc: &Path,
    sources: &[LegacySource],
    converted: &[&ZenFile],
    layout: Option<pakrat_asset::legacy::Layout>,
) -> Result<Option<Pending>> {
    let Some(base) = &a.registry else {
        return Ok(None);
    };
    let path = output_path(utoc);
    if path.exists() && !a.enc.force {
        bail!(
            "{}: exists (--force replaces it). Nothing was written",
            path.display()
        );
    }
    // Each converted package's source by its path: one look-up each, not a
    // scan of every source (quadratic at thousands of packages).
    let mut by_rel: std::collections::HashMap<&str, &LegacySource> = Default::default();
    for s in sources {
        by_rel.entry(s.header.rel.as_str()).or_insert(s);
    }
    let mut entries = Vec::new();
    for z in converted {
        let Some(&src) = by_rel.get(z.rel.as_str()) else {
            continue;
        };
        entries.extend(entry(src, z, layout)?);
    }
    let game = match base {
        Some(g) => Some(
            AssetRegistry::read(&std::fs::read(g)?).map_err(|e| anyhow!("{}: {e}", g.display()))?,
        ),
        None => None,
    };
    let version = match &game {
        Some(g) => g.version,
        None => registry_version(a)?,
    };
    let ours = build::build(version, &entries).map_err(|e| anyhow!("{e}"))?;
    let (reg, how) = match game {
        Some(mut g) => {
            let r = merge(&mut g, &ours).map_err(|e| anyhow!("{e}"))?;
            (
                g,
                format!(
                    "merged into {} ({} assets replaced, {} added)",
                    base.as_ref()
                        .map_or(String::new(), |b| b.display().to_string()),
                    r.assets_replaced,
                    r.assets_added
                ),
            )
        }
        None => (ours, "the converted packages only".to_owned()),
    };
    let bytes = reg.to_bytes();
    let back = AssetRegistry::read(&bytes)
        .map_err(|e| anyhow!("the registry written does not read back: {e}"))?;
    if back.to_bytes() != bytes {
        bail!("the registry written does not write back the same bytes (nothing written)");
    }
    let line = format!(
        "{}: asset registry version {version}, {} entries of converted packages, {how}; no tags (cooked packages carry none), dependency flags written as 0",
        path.display(),
        entries.len()
    );
    Ok(Some(Pending { path, bytes, line }))
}

impl Pending {
    /// Write it (atomic; over an existing file only with `--force`).
    /// The line goes to stdout, or to stderr under `--json`.
    pub fn write(self, force: bool, json: bool) -> Result<()> {
        pakrat_io::fsutil::write_atomic(&self.path, force, |w| w.write_all(&self.bytes))
            .map_err(|e| anyhow!(e))?;
        if json {
            eprintln!("{}", self.line);
        } else {
            println!("{}", self.line);
        }
        Ok(())
    }
}
