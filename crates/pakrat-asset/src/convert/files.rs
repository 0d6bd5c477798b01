//! Conversion at the level of files: a container's packages to legacy
//! `.uasset`/`.uexp`/bulk files, a folder of legacy packages to zen ones.
//! The per-package work is in [`super::to_legacy`] and [`super::from_legacy`];
//! this decides which bytes go in and which files come out, so that the
//! command line only has to choose, write and report.

use std::borrow::Cow;
use std::collections::HashMap;

use pakrat_io::{Error, Result};

use super::{from_legacy, layout_of, to_legacy_bytes, PackageSource, ZenOutput, ZenTarget};
use crate::legacy::summary::ue5;
use crate::legacy::{is_legacy_package, Layout, LegacyPackage};
use crate::zen::{ContainerPackages, PackageEntry, ScriptObjects, ZenPackage};
use pakrat_io::walk::SourceFile;
use pakrat_iostore::container_header::HeaderForm;
use pakrat_iostore::toc::{ChunkId, ChunkType, Numbering};
use pakrat_iostore::Container;

/// The engine release a container was cooked with, when its TOC version and
/// container header form tell it alone (the table of
/// [`pakrat_iostore::engine::FORMATS`]). `None` when several releases share them (UE
/// 5.6, 5.7 and 5.8 all write TOC v8 with header v5; 5.1 and 5.2 TOC v5 with
/// header v2), and for the UE4 forms (4.25–4.27, not all in the table).
pub fn engine_of_container(toc_version: u8, form: HeaderForm) -> Option<&'static str> {
    form.ue5_version()?;
    match pakrat_iostore::engine::releases_of(toc_version, form).as_slice() {
        [one] => Some(one.engine),
        _ => match (toc_version, form) {
            // TOC v7 (RemovedOnDemandMetaData) was short-lived, between 5.4
            // and 5.5; with header v4 it is 5.5 content.
            (7, HeaderForm::Ue5(4)) => Some("5.5"),
            // TOC v10 is UE 6.0's whatever the header says.
            (10, _) => Some("6.0"),
            _ => None,
        },
    }
}

/// The legacy layout to write `zen` in. Its own versions decide when it has
/// them, except that UE 5.7 and 5.8 share object version 1018 while only
/// 5.8 stores import package names; `engine` (the user's `--ue-version`, or
/// what [`engine_of_container`] found) settles that and unversioned packages.
/// Without it, such a package is refused rather than guessed.
pub fn legacy_layout(zen: &ZenPackage, engine: Option<Layout>) -> Result<Layout> {
    let ambiguous = match &zen.versioning {
        None => true,
        Some(v) => v.file_version_ue5 >= ue5::LATEST,
    };
    if ambiguous && engine.is_none() {
        let why = if zen.versioning.is_none() {
            "is unversioned and the container does not tell which engine release cooked it"
        } else {
            "has object version 1018, shared by UE 5.7 and 5.8 (only 5.8 writes import package names)"
        };
        return Err(Error::Other(format!(
            "{}: {why}; give the release with --ue-version (e.g. 5.8)",
            zen.name
        )));
    }
    Ok(layout_of(zen, engine))
}

/// One package converted to legacy files.
#[derive(Debug)]
pub struct LegacyFiles<'a> {
    /// The package name (`/Game/Maps/Arena`).
    pub package: String,
    /// Files to write: path below the output folder and content (borrowed
    /// from the container's mapping where it is stored there as it is).
    /// The `.uasset`/`.umap` first, then the `.uexp`, then bulk data files.
    pub files: Vec<(String, Cow<'a, [u8]>)>,
}

/// The path of a package's `.uasset`/`.umap` below the container's mount
/// point: its directory index path, else made from the package name.
pub fn package_file_path(entry: &PackageEntry, zen: &ZenPackage) -> String {
    if let Some(p) = &entry.path {
        return p.clone();
    }
    let ext = if zen.package_flags & crate::legacy::summary::flags::CONTAINS_MAP != 0 {
        "umap"
    } else {
        "uasset"
    };
    format!("{}.{ext}", zen.name.trim_start_matches('/'))
}

/// Swap the extension of a `.uasset`/`.umap` path (`A/B.umap` →
/// `A/B.uexp`).
pub fn sibling(path: &str, ext: &str) -> String {
    let stem = path
        .rsplit_once('.')
        .filter(|(_, e)| !e.contains('/'))
        .map_or(path, |(s, _)| s);
    format!("{stem}.{ext}")
}

/// Convert one package of a container to legacy files: header and export
/// data from [`to_legacy_bytes`], and its bulk data chunks (BulkData,
/// OptionalBulkData, MemoryMappedBulkData), which are the `.ubulk`,
/// `.uptnl` and `.m.ubulk` files byte for byte.
pub fn package_to_legacy<'a>(
    c: &'a Container,
    cp: &ContainerPackages,
    entry: &PackageEntry,
    src: &dyn PackageSource,
    engine: Option<Layout>,
) -> Result<LegacyFiles<'a>> {
    let zen = entry.header.as_ref().map_err(|e| {
        Error::Other(format!(
            "{}: its zen header does not read: {e}",
            entry.path.as_deref().unwrap_or("package")
        ))
    })?;
    let layout = legacy_layout(zen, engine)?;
    // Borrowed from the mapping when stored: the `.uexp` is its tail.
    let chunk = c.chunk_bytes(entry.chunk_index)?;
    let imported = cp
        .store_entry(entry.id)
        .map(|s| s.imported_packages.as_slice())
        .unwrap_or_default();
    let (uasset, uexp) = match chunk {
        Cow::Borrowed(b) => {
            let out = to_legacy_bytes(zen, b, imported, src, layout)?;
            (out.uasset, out.uexp)
        }
        Cow::Owned(v) => {
            let out = to_legacy_bytes(zen, &v, imported, src, layout)?;
            (out.uasset, Cow::Owned(out.uexp.into_owned()))
        }
    };
    let path = package_file_path(entry, zen);
    let mut files = vec![
        (path.clone(), Cow::Owned(uasset)),
        (sibling(&path, "uexp"), uexp),
    ];
    for (ty, ext) in [
        (ChunkType::BulkData, "ubulk"),
        (ChunkType::OptionalBulkData, "uptnl"),
        (ChunkType::MemoryMappedBulkData, "m.ubulk"),
    ] {
        let Some(raw) = ty.to_raw(Numbering::Ue5) else {
            continue;
        };
        let id = ChunkId::new(entry.id, 0, 0, raw);
        if let Some(i) = c.find_chunk(&id) {
            let name = c.path_of(i).unwrap_or_else(|| sibling(&path, ext));
            files.push((name, c.chunk_bytes(i)?));
        }
    }
    Ok(LegacyFiles {
        package: zen.name.clone(),
        files,
    })
}

/// A legacy package found in a folder: its header file and its `.uexp`.
#[derive(Clone, Debug)]
pub struct LegacySource {
    /// The `.uasset` or `.umap`.
    pub header: SourceFile,
    /// The `.uexp` beside it (absent when the export data follows the
    /// header in the same file).
    pub uexp: Option<SourceFile>,
}

/// A folder sorted for [`legacy_to_zen`]: the legacy packages, and every
/// other file (bulk data, zen packages, anything else), which is kept as it
/// is.
#[derive(Clone, Debug, Default)]
pub struct LegacyFolder {
    /// Legacy packages with their `.uexp`.
    pub packages: Vec<LegacySource>,
    /// The other files.
    pub others: Vec<SourceFile>,
}

/// True for a `.uasset`/`.umap` name.
fn is_package_name(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".uasset") || l.ends_with(".umap")
}

/// True for the files [`sort_legacy_folder`] and [`legacy_to_zen`] read
/// whole (`.uasset`, `.umap`, `.uexp`): their sizes come from what is read,
/// so a folder walk for them need not ask
/// ([`pakrat_io::walk::walk_sizing`]); they are 0 until read.
pub fn walked_unsized(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".uexp") || is_package_name(&l)
}

/// Sort a folder listing (from [`pakrat_io::walk::walk`]): a `.uasset`/`.umap`
/// that starts with the package tag and a negative legacy version is a
/// legacy package; its `.uexp` goes with it. A `.uexp` without its package
/// is an error: it cannot be packed on its own.
///
/// Every `.uasset`/`.umap` is read once, whole, by the pool, and its bytes
/// are kept in [`SourceFile::bytes`] for the conversion (or the container)
/// that follows: no second open, no separate look at its first 8 bytes
/// (issue 31 item 18).
pub fn sort_legacy_folder(files: Vec<SourceFile>) -> Result<LegacyFolder> {
    use rayon::prelude::*;
    let read: Vec<Result<(SourceFile, bool)>> = files
        .into_par_iter()
        .map(|f| {
            if f.rel.to_ascii_lowercase().ends_with(".uexp") || !is_package_name(&f.rel) {
                return Ok((f, false));
            }
            let f = with_bytes(f)?;
            let legacy = f.bytes.as_ref().is_some_and(|b| is_legacy_package(b));
            Ok((f, legacy))
        })
        .collect();
    let mut by_stem: HashMap<String, usize> = HashMap::new();
    let mut out = LegacyFolder::default();
    let mut uexps = Vec::new();
    for r in read {
        let (f, legacy) = r?;
        if f.rel.to_ascii_lowercase().ends_with(".uexp") {
            uexps.push(f);
        } else if legacy {
            by_stem.insert(sibling(&f.rel, "").to_ascii_lowercase(), out.packages.len());
            out.packages.push(LegacySource {
                header: f,
                uexp: None,
            });
        } else {
            out.others.push(f);
        }
    }
    for f in uexps {
        match by_stem.get(&sibling(&f.rel, "").to_ascii_lowercase()) {
            Some(&i) => out.packages[i].uexp = Some(f),
            None => {
                return Err(Error::Other(format!(
                    "{}: a .uexp without its .uasset or .umap",
                    f.rel
                )))
            }
        }
    }
    Ok(out)
}

/// `f` with its bytes in memory (read whole, once).
fn with_bytes(mut f: SourceFile) -> Result<SourceFile> {
    if f.bytes.is_none() {
        let b = pakrat_io::read_walked(&f.path)?;
        f.size = b.len() as u64;
        f.bytes = Some(std::sync::Arc::new(b));
    }
    Ok(f)
}

/// A legacy package converted to zen.
#[derive(Debug)]
pub struct ZenFile {
    /// Path of the package below the folder (the same as the legacy one).
    pub rel: String,
    /// The conversion.
    pub output: ZenOutput,
}

/// Convert one legacy package of a folder to zen. `engine` is the layout
/// for unversioned packages (`--ue-version`); `script` checks script
/// imports against the game's global container when given.
pub fn legacy_to_zen(
    src: &LegacySource,
    engine: Option<Layout>,
    script: Option<&ScriptObjects>,
) -> Result<ZenFile> {
    let header = src.header.read()?;
    let in_file = |e: Error| e.in_file(&src.header.path);
    // `read` checks every reference; `from_legacy` checks again for models
    // made elsewhere.
    let pkg = LegacyPackage::read(&header, engine).map_err(in_file)?;
    let ths = usize::try_from(pkg.summary.total_header_size)
        .ok()
        .filter(|&t| t <= header.len())
        .ok_or_else(|| {
            in_file(Error::Other(format!(
                "header size {} is beyond the file's {} bytes",
                pkg.summary.total_header_size,
                header.len()
            )))
        })?;
    let uexp;
    let data = match &src.uexp {
        Some(u) => {
            if header.len() != ths {
                return Err(in_file(Error::Other(format!(
                    "{} bytes follow the {ths}-byte header, yet a .uexp holds the export data",
                    header.len() - ths
                ))));
            }
            uexp = u.read()?;
            &uexp[..]
        }
        None => &header[ths..],
    };
    let output = if pkg.layout.ue5 == 0 {
        // UE4: the UE 4.27 zen layout, named from the file's place.
        let name = ue4_package_name(&pkg, &src.header.path).map_err(in_file)?;
        super::from_legacy_ue4(&pkg, data, &name)
    } else {
        from_legacy(&pkg, data, script, ZenTarget::for_layout(pkg.layout))
    }
    .map_err(in_file)?;
    Ok(ZenFile {
        rel: src.header.rel.clone(),
        output,
    })
}

/// The name of a UE4 package: its summary's, or, as UE 4.27 cooks store
/// `None` there, the one the engine's mount gives its file:
/// `<Project>/Content/A/B.uasset` is `/Game/A/B`, and
/// `…/Plugins/…/<Plugin>/Content/A/B.uasset` is `/<Plugin>/A/B`.
pub fn ue4_package_name(pkg: &LegacyPackage, path: &std::path::Path) -> Result<String> {
    let own = &pkg.summary.package_name;
    if own != "None" && own.starts_with('/') {
        return Ok(own.clone());
    }
    let full = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let parts: Vec<String> = full
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let at = parts
        .iter()
        .rposition(|p| p == "Content")
        .filter(|&i| i + 1 < parts.len());
    let Some(at) = at else {
        return Err(Error::unsupported(
            0,
            format!(
                "a UE4 package without a package name in its summary (None): its name comes from its path under <Project>/Content/ (/Game/...), and {} is not under a Content folder",
                path.display()
            ),
        ));
    };
    let plugin = at >= 2 && parts[..at - 1].iter().any(|p| p == "Plugins");
    let mount = if plugin {
        parts[at - 1].as_str()
    } else {
        "Game"
    };
    Ok(format!("/{mount}/{}", parts[at + 1..].join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_from_container_versions() {
        assert_eq!(engine_of_container(5, HeaderForm::Ue5(3)), Some("5.3"));
        assert_eq!(engine_of_container(6, HeaderForm::Ue5(3)), Some("5.4"));
        assert_eq!(engine_of_container(8, HeaderForm::Ue5(4)), Some("5.5"));
        assert_eq!(engine_of_container(8, HeaderForm::Ue5(5)), None);
        assert_eq!(engine_of_container(10, HeaderForm::Ue5(5)), Some("6.0"));
        assert_eq!(engine_of_container(3, HeaderForm::Ue4), None);
        assert_eq!(engine_of_container(5, HeaderForm::Ue5(1)), Some("5.0"));
        assert_eq!(engine_of_container(5, HeaderForm::Ue5(2)), None);
        assert_eq!(engine_of_container(7, HeaderForm::Ue5(4)), Some("5.5"));
    }

    #[test]
    fn sibling_paths() {
        assert_eq!(sibling("A/B.uasset", "uexp"), "A/B.uexp");
        assert_eq!(sibling("A/B.umap", "m.ubulk"), "A/B.m.ubulk");
        assert_eq!(sibling("A.x/B", "uexp"), "A.x/B.uexp");
    }

    fn file(rel: &str, bytes: &[u8]) -> SourceFile {
        SourceFile {
            rel: rel.into(),
            path: rel.into(),
            size: bytes.len() as u64,
            bytes: Some(std::sync::Arc::new(bytes.to_vec())),
        }
    }

    #[test]
    fn folder_pairs_uexp_and_keeps_others() {
        let legacy = [0xC1, 0x83, 0x2A, 0x9E, 0xF7, 0xFF, 0xFF, 0xFF];
        let f = sort_legacy_folder(vec![
            file("A/B.uasset", &legacy),
            file("A/B.uexp", b"x"),
            file("A/B.ubulk", b"y"),
            file("A/Zen.uasset", b"\0\0\0\0\0\0\0\0"),
            file("notes.txt", b"z"),
        ])
        .unwrap();
        assert_eq!(f.packages.len(), 1);
        assert_eq!(f.packages[0].uexp.as_ref().unwrap().rel, "A/B.uexp");
        let others: Vec<_> = f.others.iter().map(|o| o.rel.as_str()).collect();
        assert_eq!(others, ["A/B.ubulk", "A/Zen.uasset", "notes.txt"]);
        let err = sort_legacy_folder(vec![file("C.uexp", b"x")]).unwrap_err();
        assert!(err.to_string().contains("without its .uasset"), "{err}");
    }
}
