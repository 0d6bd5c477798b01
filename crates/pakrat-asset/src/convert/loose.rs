//! Loose zen packages: a package chunk outside its container (as `extract`
//! writes them, or `.uzenasset` files), converted with the store entry of
//! the container header the user names (issue 30: "for a folder, the store
//! entry comes from the container header the user names").

use pakrat_io::{Error, Result};
use pakrat_iostore::container_header::ContainerHeader;

use crate::zen::{package_name, parse, ZenLayout, ZenPackage};

/// One loose zen package with what its container header says of it.
#[derive(Debug)]
pub struct LooseZen {
    /// Path below the folder.
    pub rel: String,
    /// Package id (from its name).
    pub id: u64,
    /// The parsed header.
    pub header: ZenPackage,
    /// The whole chunk (header and export data).
    pub chunk: Vec<u8>,
    /// The store entry's imported package ids.
    pub imported: Vec<u64>,
}

/// True when `data` starts like a legacy package (the package tag): such
/// a file is not a zen package.
pub fn is_legacy(data: &[u8]) -> bool {
    crate::legacy::is_legacy_package(data)
}

/// Read a loose zen package: its name gives its package id, whose store
/// entry in `header` gives the export bundle count and the imported
/// packages. A package the header does not list is an error naming its id.
pub fn read_loose(rel: &str, chunk: Vec<u8>, header: &ContainerHeader) -> Result<LooseZen> {
    let layout = ZenLayout::for_header(header.form)?;
    let name = package_name(&chunk, layout).map_err(|e| {
        Error::Other(format!(
            "{rel}: not a zen package of the container header's layout ({}): {e}",
            layout.describe()
        ))
    })?;
    let id = pakrat_codec::names::package_id(&name);
    let store = header.store_entry(id).ok_or_else(|| {
        Error::Other(format!(
            "{rel}: package {name} (id {id:016X}) is not in the container header given: give the header of the container it comes from (--container-header)"
        ))
    })?;
    let zen =
        parse(&chunk, layout, Some(store)).map_err(|e| Error::Other(format!("{rel}: {e}")))?;
    Ok(LooseZen {
        rel: rel.to_string(),
        id,
        header: zen,
        imported: store.imported_packages.clone(),
        chunk,
    })
}

/// The legacy file a loose package becomes: its path with `.uasset`, or
/// `.umap` for a map (a `.uzenasset` is renamed too).
pub fn legacy_path(rel: &str, zen: &ZenPackage) -> String {
    let map = zen.package_flags & crate::legacy::summary::flags::CONTAINS_MAP != 0;
    let lower = rel.to_ascii_lowercase();
    if lower.ends_with(".umap") || lower.ends_with(".uasset") {
        return rel.to_string();
    }
    super::files::sibling(rel, if map { "umap" } else { "uasset" })
}
