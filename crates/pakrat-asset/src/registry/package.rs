//! `FAssetPackageData`: one package's size, hashes and versions.

use pakrat_io::{Guid, Reader, Result, Writer};
use serde::Serialize;

use super::names::NameRef;
use super::{read_bool, version, Ctx, RegString};

/// A custom version (`FCustomVersion`: key GUID and version).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CustomVersion {
    /// The key.
    pub key: Guid,
    /// The version.
    pub version: i32,
}

/// The file versions (`WorkspaceDomain`, 9, and later).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileVersions {
    /// `FileVersionUE4`.
    pub ue4: i32,
    /// `FileVersionUE5` (from `PackageFileSummaryVersionChange`, 11).
    pub ue5: Option<i32>,
    /// `FileVersionLicenseeUE`.
    pub licensee: i32,
    /// `EPackageExtension`/flags word stored after the licensee version.
    pub flags: u32,
    /// Custom versions.
    pub custom_versions: Vec<CustomVersion>,
}

/// One chunk hash (`FIoChunkId` and `FIoHash`, from `AddedChunkHashes`, 13).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkHash {
    /// The 12-byte chunk id.
    pub chunk_id: [u8; 12],
    /// The 20-byte hash.
    pub hash: [u8; 20],
}

/// `FAssetPackageData`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PackageData {
    /// The package name.
    pub package_name: NameRef,
    /// Size on disk.
    pub disk_size: i64,
    /// `PackageGuid` (16 bytes) before `PackageSavedHash` (20), then the
    /// `FIoHash` (20 bytes).
    pub saved_hash: Vec<u8>,
    /// `CookedHash` (from `AddedCookedMD5Hash`, 6): `None` when absent,
    /// `Some(None)` when stored as invalid.
    pub cooked_hash: Option<Option<[u8; 16]>>,
    /// Chunk hashes.
    pub chunk_hashes: Vec<ChunkHash>,
    /// File versions and custom versions.
    pub versions: Option<FileVersions>,
    /// Imported classes (from `PackageImportedClasses`, 10).
    pub imported_classes: Vec<NameRef>,
    /// The extension (`.uasset`/`.umap`, from `AssetPackageDataHasExtension`, 17).
    pub extension: Option<RegString>,
}

impl PackageData {
    /// Read one.
    pub fn read(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Self> {
        let package_name = NameRef::read(r, ctx, "package name")?;
        let disk_size = r.i64("disk size")?;
        let hash_len = if ctx.at_least(version::PACKAGE_SAVED_HASH) {
            20
        } else {
            16
        };
        let saved_hash = r.bytes(hash_len, "package saved hash / guid")?.to_vec();
        let cooked_hash = if ctx.at_least(version::ADDED_COOKED_MD5_HASH) {
            if read_bool(r, "cooked hash valid")? {
                Some(Some(r.array("cooked hash")?))
            } else {
                Some(None)
            }
        } else {
            None
        };
        let mut chunk_hashes = Vec::new();
        if ctx.at_least(version::ADDED_CHUNK_HASHES) {
            let n = r.i32_count("chunk hash count", 32)?;
            for _ in 0..n {
                chunk_hashes.push(ChunkHash {
                    chunk_id: r.array("chunk hash id")?,
                    hash: r.array("chunk hash")?,
                });
            }
        }
        let versions = if ctx.at_least(version::WORKSPACE_DOMAIN) {
            let ue4 = r.i32("FileVersionUE4")?;
            let ue5 = if ctx.at_least(version::PACKAGE_FILE_SUMMARY_VERSION_CHANGE) {
                Some(r.i32("FileVersionUE5")?)
            } else {
                None
            };
            let licensee = r.i32("FileVersionLicenseeUE")?;
            let flags = r.u32("package data flags")?;
            let n = r.i32_count("custom version count", 20)?;
            let mut custom_versions = Vec::with_capacity(n);
            for _ in 0..n {
                custom_versions.push(CustomVersion {
                    key: r.guid("custom version key")?,
                    version: r.i32("custom version")?,
                });
            }
            Some(FileVersions {
                ue4,
                ue5,
                licensee,
                flags,
                custom_versions,
            })
        } else {
            None
        };
        let mut imported_classes = Vec::new();
        if ctx.at_least(version::PACKAGE_IMPORTED_CLASSES) {
            let n = r.i32_count("imported class count", 4)?;
            for _ in 0..n {
                imported_classes.push(NameRef::read(r, ctx, "imported class")?);
            }
        }
        let extension = if ctx.at_least(version::ASSET_PACKAGE_DATA_HAS_EXTENSION) {
            Some(RegString::read(r, ctx, "extension")?)
        } else {
            None
        };
        Ok(PackageData {
            package_name,
            disk_size,
            saved_hash,
            cooked_hash,
            chunk_hashes,
            versions,
            imported_classes,
            extension,
        })
    }

    /// Write one.
    pub fn write(&self, w: &mut Writer, ctx: &Ctx) {
        self.package_name.write(w, ctx);
        w.i64(self.disk_size).bytes(&self.saved_hash);
        match self.cooked_hash {
            Some(Some(h)) => {
                w.u32(1).bytes(&h);
            }
            Some(None) => {
                w.u32(0);
            }
            None => {}
        }
        if ctx.at_least(version::ADDED_CHUNK_HASHES) {
            w.i32(self.chunk_hashes.len() as i32);
            for c in &self.chunk_hashes {
                w.bytes(&c.chunk_id).bytes(&c.hash);
            }
        }
        if let Some(v) = &self.versions {
            w.i32(v.ue4);
            if let Some(x) = v.ue5 {
                w.i32(x);
            }
            w.i32(v.licensee)
                .u32(v.flags)
                .i32(v.custom_versions.len() as i32);
            for c in &v.custom_versions {
                w.guid(c.key).i32(c.version);
            }
        }
        if ctx.at_least(version::PACKAGE_IMPORTED_CLASSES) {
            w.i32(self.imported_classes.len() as i32);
            for n in &self.imported_classes {
                n.write(w, ctx);
            }
        }
        if let Some(e) = &self.extension {
            e.write(w, ctx);
        }
    }
}
