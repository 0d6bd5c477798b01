//! [`Asset`] from a legacy package: the `.uasset`/`.umap` header parsed by
//! [`LegacyPackage::read`] and its export data, in the `.uexp` or after the
//! header in the same file.

use pakrat_io::{Error, Reader, Result};

use super::{Asset, ExportInfo, ObjectInfo, Versions};
use crate::legacy::summary::ue5;
use crate::legacy::LegacyPackage;

impl<'a> Asset<'a> {
    /// The asset of a legacy package. `uasset` is the whole header file
    /// `pkg` was read from; `uexp` its `.uexp` (export serial offsets count
    /// from the start of the `.uasset`, the `.uexp` continuing at
    /// `TotalHeaderSize`), `None` when the export data follows the header
    /// in `uasset` itself.
    pub fn from_legacy(
        pkg: &LegacyPackage,
        uasset: &'a [u8],
        uexp: Option<&'a [u8]>,
    ) -> Result<Asset<'a>> {
        let names = pkg.names.iter().map(|n| n.text.clone()).collect();
        let unresolved = |i: i32| format!("<object {i} unresolved>");
        let imports = (1..=pkg.imports.len() as i32)
            .map(|k| {
                let i = -k;
                ObjectInfo {
                    path: pkg.path(i).unwrap_or_else(|| unresolved(i)),
                    class: pkg.class_path(i).unwrap_or_else(|| unresolved(i)),
                }
            })
            .collect();
        let opt_path = |i: i32| (i != 0).then(|| pkg.path(i).unwrap_or_else(|| unresolved(i)));
        let mut exports = Vec::with_capacity(pkg.exports.len());
        for (k, e) in pkg.exports.iter().enumerate() {
            let i = k as i32 + 1;
            exports.push(ExportInfo {
                name: pkg.object_name(i).unwrap_or_else(|| unresolved(i)),
                path: pkg.path(i).unwrap_or_else(|| unresolved(i)),
                class: pkg.class_path(i).unwrap_or_else(|| unresolved(e.class)),
                outer: opt_path(e.outer),
                super_struct: opt_path(e.super_index),
                template: e.template.and_then(opt_path),
                object_flags: e.object_flags,
                offset: e.serial_offset.max(0) as u64,
                data: pkg.export_data(k, uasset, uexp)?,
            });
        }
        let soft_object_paths = soft_object_paths(pkg, uasset)?;
        Ok(Asset {
            package: pkg.summary.package_name.clone(),
            names,
            imports,
            exports,
            soft_object_paths,
            versions: Versions {
                ue4: pkg.layout.ue4,
                ue5: pkg.layout.ue5,
                licensee: pkg.summary.licensee_version,
                custom: pkg
                    .summary
                    .custom_versions
                    .iter()
                    .map(|c| (c.key, c.version))
                    .collect(),
                custom_from_package: !pkg.summary.is_unversioned(),
            },
            unversioned: pkg.summary.unversioned_properties(),
            bulk: crate::bulk::BulkMeta::of_legacy(pkg),
        })
    }
}

/// The summary's soft object path list (UE5 1008+): each an
/// `FTopLevelAssetPath` (package and asset `FName`s) and a sub path
/// `FString`.
fn soft_object_paths(pkg: &LegacyPackage, uasset: &[u8]) -> Result<Vec<(String, String)>> {
    let Some(s) = pkg.summary.soft_object_paths else {
        return Ok(Vec::new());
    };
    if s.count <= 0 || pkg.layout.ue5 < ue5::ADD_SOFTOBJECTPATH_LIST {
        return Ok(Vec::new());
    }
    let end = (pkg.summary.total_header_size.max(0) as usize).min(uasset.len());
    let all = Reader::new(&uasset[..end]);
    let what = "soft object path list";
    let mut r = all.at(s.offset.max(0) as u64, what)?;
    // Two FNames (8 bytes each) and an FString length at least.
    r.check_count(i64::from(s.count), 20, what)?;
    let mut out = Vec::with_capacity(s.count as usize);
    for _ in 0..s.count {
        let package = name(pkg, &mut r, what)?;
        let asset = name(pkg, &mut r, what)?;
        let sub = pakrat_codec::fstring::read_fstring(&mut r, what)?;
        let path = if asset.is_empty() || asset == "None" {
            package
        } else {
            format!("{package}.{asset}")
        };
        out.push((if path == "None" { String::new() } else { path }, sub));
    }
    Ok(out)
}

fn name(pkg: &LegacyPackage, r: &mut Reader<'_>, what: &str) -> Result<String> {
    let at = r.offset();
    let index = r.i32(what)?;
    let number = r.i32(what)?;
    pkg.name(crate::legacy::FName { index, number })
        .ok_or_else(|| {
            Error::invalid(
                at,
                format!(
                    "{what}: name {index} (number {number}) outside the name map ({} names)",
                    pkg.names.len()
                ),
            )
        })
}
