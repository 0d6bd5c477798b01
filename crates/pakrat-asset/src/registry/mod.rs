//! `AssetRegistry.bin`: the cooked asset registry a game ships (UE 4.x–6.0).
//!
//! Layout (UE `FAssetRegistryState::Save`, facts checked against CUE4Parse's
//! reader and the fixture registries of UE 5.8 and 6.0):
//! - `FAssetRegistryVersion`: a GUID and a `u32` version ([`version`]);
//!   files from before versioning start without the GUID and are refused,
//!   as the engine refuses them.
//! - from `AddedHeader` (16): `FAssetRegistryHeader`, a `u32` bool
//!   `bFilterEditorOnlyData`.
//! - names: from `FixedTags` (8) a name batch followed by the fixed tag
//!   store ([`store`]); before, an `i64` offset of a name table written after
//!   everything else ([`names`]).
//! - the assets ([`asset`]), the dependency section ([`depends`]) and the
//!   package data ([`package`]).
//!
//! [`AssetRegistry::read`] keeps every field as stored, so
//! [`AssetRegistry::to_bytes`] gives the file back byte for byte;
//! [`merge`] adds one registry's entries to another.

pub mod asset;
pub mod build;
pub mod depends;
pub mod merge;
pub mod names;
pub mod package;
pub mod store;
#[cfg(test)]
mod tests;
pub mod view;

use pakrat_io::{Error, Guid, Reader, Result, Writer};
use serde::Serialize;

pub use asset::AssetData;
pub use depends::{Dependencies, DependsNode};
pub use names::{NameRef, Names};
pub use package::PackageData;
pub use store::Store;

/// The GUID that starts a versioned registry (UE `FAssetRegistryVersion::GUID`).
pub const REGISTRY_GUID: Guid = Guid {
    words: [0x717F_9EE7, 0xE9B0_493A, 0x88B3_9132, 0x1B38_8107],
};

/// `FAssetRegistryVersion::Type` values that change the layout.
pub mod version {
    /// Assets, dependencies and package data as read here start with this one.
    pub const CHANGED_ASSET_DATA: u32 = 3;
    /// The MD5 hash left the package data; the dependency section follows assets.
    pub const REMOVED_MD5_HASH: u32 = 4;
    /// Hard manage references (one more count in the old dependency form).
    pub const ADDED_HARD_MANAGE: u32 = 5;
    /// Cooked MD5 hash in package data.
    pub const ADDED_COOKED_MD5_HASH: u32 = 6;
    /// Dependency flags; the dependency section gets its `i64` size.
    pub const ADDED_DEPENDENCY_FLAGS: u32 = 7;
    /// Name batch and fixed tag store.
    pub const FIXED_TAGS: u32 = 8;
    /// File versions, flags and custom versions in package data.
    pub const WORKSPACE_DOMAIN: u32 = 9;
    /// Imported classes in package data.
    pub const PACKAGE_IMPORTED_CLASSES: u32 = 10;
    /// A UE5 file version beside the UE4 one.
    pub const PACKAGE_FILE_SUMMARY_VERSION_CHANGE: u32 = 11;
    /// Chunk hashes in package data.
    pub const ADDED_CHUNK_HASHES: u32 = 13;
    /// Classes as `FTopLevelAssetPath` (package + object name).
    pub const CLASS_PATHS: u32 = 14;
    /// `FAssetData::ObjectPath` dropped; `OptionalOuterPath` added.
    pub const REMOVE_ASSET_PATH_FNAMES: u32 = 15;
    /// `FAssetRegistryHeader` (`bFilterEditorOnlyData`).
    pub const ADDED_HEADER: u32 = 16;
    /// Extension in package data.
    pub const ASSET_PACKAGE_DATA_HAS_EXTENSION: u32 = 17;
    /// Strings of the registry archive as UTF-8.
    pub const MARSHALLED_TEXT_AS_UTF8_STRING: u32 = 19;
    /// `PackageSavedHash` (an `FIoHash`) replaces the package GUID.
    pub const PACKAGE_SAVED_HASH: u32 = 20;
    /// Manage dependencies carry 3 flag bits each instead of 1.
    pub const MANAGE_DEPENDENCIES_COOK_RULE: u32 = 22;
    /// The tag store's arrays are aligned to 16 bytes.
    pub const MEMORY_MAPPED_TAG_DATA_STORE: u32 = 24;
    /// The newest version read here.
    pub const LATEST: u32 = 24;
}

/// What the readers of the parts need to know.
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// `FAssetRegistryVersion`.
    pub version: u32,
    /// Names are the batch form (`FixedTags`+).
    pub batch: bool,
    /// `bFilterEditorOnlyData` (false before `AddedHeader`).
    pub filter_editor_only: bool,
    /// How many names exist (name references are checked against it).
    pub name_count: usize,
}

impl Ctx {
    /// True from version `v` on.
    pub fn at_least(&self, v: u32) -> bool {
        self.version >= v
    }
}

/// A string of the registry archive: an `i32` length counting a closing NUL,
/// negative for UTF-16; from `MarshalledTextAsUTF8String` the 8-bit form is
/// UTF-8 rather than Latin-1.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct RegString {
    /// The text without the NUL.
    pub text: String,
    /// Stored as UTF-16.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wide: bool,
    /// An empty 8-bit string stored as length 1 (the NUL alone) rather than 0.
    #[serde(skip)]
    pub lone_nul: bool,
}

impl RegString {
    /// A string stored 8-bit when ASCII, UTF-16 otherwise.
    pub fn new(text: &str) -> Self {
        RegString {
            text: text.to_owned(),
            wide: !text.is_ascii(),
            lone_nul: false,
        }
    }

    /// Read one.
    pub fn read(r: &mut Reader<'_>, ctx: &Ctx, what: &str) -> Result<Self> {
        let at = r.offset();
        let len = r.i32(what)?;
        if len == 0 {
            return Ok(RegString::default());
        }
        let bad = |m: &str| Error::invalid(at, format!("{what}: {m}"));
        if len > 0 {
            let raw = r.bytes(len as u64, what)?;
            let (last, body) = raw.split_last().unwrap_or((&0, &[]));
            if *last != 0 || body.contains(&0) {
                return Err(bad("8-bit string is not NUL-terminated at its end"));
            }
            let text = if ctx.at_least(version::MARSHALLED_TEXT_AS_UTF8_STRING) {
                std::str::from_utf8(body)
                    .map_err(|_| bad("string is not UTF-8"))?
                    .to_owned()
            } else {
                pakrat_io::FString::from_latin1(body)
            };
            return Ok(RegString {
                lone_nul: len == 1,
                text,
                wide: false,
            });
        }
        let units = u64::from(len.unsigned_abs());
        let raw = r.bytes(units * 2, what)?;
        let mut code: Vec<u16> = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if code.pop() != Some(0) || code.contains(&0) {
            return Err(bad("UTF-16 string is not NUL-terminated at its end"));
        }
        let text = String::from_utf16(&code).map_err(|_| bad("unpaired surrogate"))?;
        Ok(RegString {
            text,
            wide: true,
            lone_nul: false,
        })
    }

    /// Write it in the form it records.
    pub fn write(&self, w: &mut Writer, ctx: &Ctx) {
        if self.text.is_empty() && !self.wide {
            if self.lone_nul {
                w.i32(1).u8(0);
            } else {
                w.i32(0);
            }
            return;
        }
        let narrow = if self.wide {
            None
        } else if ctx.at_least(version::MARSHALLED_TEXT_AS_UTF8_STRING) {
            Some(self.text.as_bytes().to_vec())
        } else {
            pakrat_io::FString::to_latin1(&self.text)
        };
        match narrow {
            Some(b) => {
                w.i32(b.len() as i32 + 1).bytes(&b).u8(0);
            }
            None => {
                let units: Vec<u16> = self.text.encode_utf16().collect();
                w.i32(-(units.len() as i32 + 1));
                for u in units {
                    w.u16(u);
                }
                w.u16(0);
            }
        }
    }
}

/// A whole `AssetRegistry.bin`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AssetRegistry {
    /// `FAssetRegistryVersion::Type`.
    pub version: u32,
    /// `bFilterEditorOnlyData` (present from `AddedHeader`, 16).
    pub filter_editor_only: Option<bool>,
    /// The names.
    #[serde(skip)]
    pub names: Names,
    /// The fixed tag store (`FixedTags`+).
    #[serde(skip)]
    pub store: Option<Store>,
    /// `FAssetData` entries.
    pub assets: Vec<AssetData>,
    /// The dependency section.
    pub dependencies: Dependencies,
    /// `FAssetPackageData` entries.
    pub packages: Vec<PackageData>,
}

/// True when `data` starts like a versioned asset registry.
pub fn looks_like(data: &[u8]) -> bool {
    data.len() >= 20 && data[..16] == REGISTRY_GUID.to_bytes()
}

impl AssetRegistry {
    /// The part readers' context.
    pub fn ctx(&self) -> Ctx {
        Ctx {
            version: self.version,
            batch: matches!(self.names, Names::Batch(_)),
            filter_editor_only: self.filter_editor_only.unwrap_or(false),
            name_count: self.names.len(),
        }
    }

    /// Read a registry.
    pub fn read(data: &[u8]) -> Result<Self> {
        let mut r = Reader::new(data);
        let guid = r.guid("asset registry version GUID")?;
        if guid != REGISTRY_GUID {
            return Err(Error::unsupported(
                0,
                "no asset registry version GUID at the start: not an AssetRegistry.bin, or one \
                 from before versioning (PreVersioning), which the engine no longer reads either",
            ));
        }
        let at = r.offset();
        let version = r.u32("asset registry version")?;
        if !(version::CHANGED_ASSET_DATA..=version::LATEST).contains(&version) {
            return Err(Error::unsupported(
                at,
                format!(
                    "asset registry version {version}: versions {}..={} are read",
                    version::CHANGED_ASSET_DATA,
                    version::LATEST
                ),
            ));
        }
        let filter_editor_only = if version >= version::ADDED_HEADER {
            Some(read_bool(&mut r, "bFilterEditorOnlyData")?)
        } else {
            None
        };
        let mut ctx = Ctx {
            version,
            batch: version >= version::FIXED_TAGS,
            filter_editor_only: filter_editor_only.unwrap_or(false),
            name_count: 0,
        };
        if ctx.batch {
            let names = names::read_batch(&mut r)?;
            ctx.name_count = names.len();
            let store = Store::read(&mut r, &ctx)?;
            let body = read_body(&mut r, &ctx)?;
            if r.remaining() != 0 {
                return Err(r.invalid(format!(
                    "{} bytes after the package data (expected the end of the file)",
                    r.remaining()
                )));
            }
            return Ok(body.into_registry(version, filter_editor_only, names, Some(store)));
        }
        let off_at = r.offset();
        let off = r.i64("name table offset")?;
        if off < r.pos() as i64 || off as u64 > data.len() as u64 {
            return Err(Error::invalid(
                off_at,
                format!("name table offset {off} lies outside the file"),
            ));
        }
        let mut nr = r.at(off as u64, "name table")?;
        let names = names::read_table(&mut nr, &ctx)?;
        if nr.remaining() != 0 {
            return Err(nr.invalid("bytes after the name table (expected the end of the file)"));
        }
        ctx.name_count = names.len();
        let mut body_r = r.sub(r.pos() as u64, off as u64 - r.pos() as u64, "registry body")?;
        let body = read_body(&mut body_r, &ctx)?;
        if body_r.remaining() != 0 {
            return Err(body_r.invalid("bytes between the package data and the name table"));
        }
        Ok(body.into_registry(version, filter_editor_only, names, None))
    }

    /// Write the registry back (byte for byte what [`AssetRegistry::read`] read).
    pub fn to_bytes(&self) -> Vec<u8> {
        let ctx = self.ctx();
        let mut w = Writer::new();
        w.guid(REGISTRY_GUID).u32(self.version);
        if let Some(f) = self.filter_editor_only {
            w.u32(u32::from(f));
        }
        match &self.names {
            Names::Batch(names) => {
                names::write_batch(&mut w, names);
                if let Some(s) = &self.store {
                    s.write(&mut w, &ctx);
                }
                self.write_body(&mut w, &ctx);
                w.into_inner()
            }
            Names::Table(names) => {
                let at = w.len();
                w.i64(0);
                self.write_body(&mut w, &ctx);
                let off = w.len() as i64;
                names::write_table(&mut w, names, &ctx);
                let mut out = w.into_inner();
                out[at..at + 8].copy_from_slice(&off.to_le_bytes());
                out
            }
        }
    }

    fn write_body(&self, w: &mut Writer, ctx: &Ctx) {
        w.i32(self.assets.len() as i32);
        for a in &self.assets {
            a.write(w, ctx);
        }
        self.dependencies.write(w, ctx);
        w.i32(self.packages.len() as i32);
        for p in &self.packages {
            p.write(w, ctx);
        }
    }
}

struct Body {
    assets: Vec<AssetData>,
    dependencies: Dependencies,
    packages: Vec<PackageData>,
}

impl Body {
    fn into_registry(
        self,
        version: u32,
        filter_editor_only: Option<bool>,
        names: Names,
        store: Option<Store>,
    ) -> AssetRegistry {
        AssetRegistry {
            version,
            filter_editor_only,
            names,
            store,
            assets: self.assets,
            dependencies: self.dependencies,
            packages: self.packages,
        }
    }
}

fn read_body(r: &mut Reader<'_>, ctx: &Ctx) -> Result<Body> {
    // The smallest asset: 5 names of 4 bytes, a tag handle, 3 counts/flags.
    let n = r.i32_count("asset count", 20)?;
    let mut assets = Vec::with_capacity(n);
    for i in 0..n {
        assets.push(AssetData::read(r, ctx).map_err(|e| e.context(&format!("asset {i}")))?);
    }
    let dependencies = Dependencies::read(r, ctx)?;
    let n = r.i32_count("package data count", 12)?;
    let mut packages = Vec::with_capacity(n);
    for i in 0..n {
        packages
            .push(PackageData::read(r, ctx).map_err(|e| e.context(&format!("package data {i}")))?);
    }
    Ok(Body {
        assets,
        dependencies,
        packages,
    })
}

/// Read a `u32` bool that must be 0 or 1.
pub(crate) fn read_bool(r: &mut Reader<'_>, what: &str) -> Result<bool> {
    let at = r.offset();
    match r.u32(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Error::invalid(
            at,
            format!("{what}: bool {v}, expected 0 or 1"),
        )),
    }
}

/// Read `n` `i32`s after checking they fit.
pub(crate) fn read_i32s(r: &mut Reader<'_>, n: usize, what: &str) -> Result<Vec<i32>> {
    let n = r.check_count(n as i64, 4, what)?;
    (0..n).map(|_| r.i32(what)).collect()
}

/// Read an `i32`-counted array of `i32`s.
pub(crate) fn read_i32_array(r: &mut Reader<'_>, what: &str) -> Result<Vec<i32>> {
    let n = r.i32_count(what, 4)?;
    read_i32s(r, n, what)
}

/// Write an `i32`-counted array of `i32`s.
pub(crate) fn write_i32_array(w: &mut Writer, v: &[i32]) {
    w.i32(v.len() as i32);
    for &x in v {
        w.i32(x);
    }
}
