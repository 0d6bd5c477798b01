//! One view of a UE4/UE5 package for property decoding, whatever its form
//! (legacy `.uasset/.uexp`, or a zen package with its imports resolved
//! through the container and the global script objects).

use pakrat_io::Guid;
use serde::Serialize;

/// The file and custom versions values are read with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Versions {
    /// `FileVersionUE4`.
    pub ue4: i32,
    /// `FileVersionUE5` (0 before UE5).
    pub ue5: i32,
    /// Licensee version.
    pub licensee: i32,
    /// Custom versions (key, version).
    #[serde(skip)]
    pub custom: Vec<(Guid, i32)>,
    /// The custom versions came from the package (a versioned package):
    /// a key it lacks was not in use when it was saved. Otherwise (zen and
    /// unversioned packages) a missing key means the engine's latest.
    pub custom_from_package: bool,
}

impl Versions {
    /// The version of a custom-version key, if the package has it.
    pub fn custom(&self, key: Guid) -> Option<i32> {
        self.custom.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// Whether custom version `key` is at least `v`: from the package's
    /// list when it has one (a missing key counts as older), otherwise
    /// assumed (a versionless package is read as the latest engine).
    pub fn custom_at_least(&self, key: Guid, v: i32) -> bool {
        match self.custom(key) {
            Some(have) => have >= v,
            None => !self.custom_from_package,
        }
    }
}

/// An import or export as a reference target.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObjectInfo {
    /// Full path (`/Script/Engine.Texture2D`, `/Game/P.A:Sub`).
    pub path: String,
    /// Full path of its class (`/Script/CoreUObject.Class`).
    pub class: String,
}

/// An export: what it is and where its bytes are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExportInfo<'a> {
    /// Object name.
    pub name: String,
    /// Full path.
    pub path: String,
    /// Full path of its class.
    pub class: String,
    /// Full path of its outer, `None` for a top-level export.
    pub outer: Option<String>,
    /// Full path of its super-struct (classes and structs), if any.
    pub super_struct: Option<String>,
    /// Full path of its template (archetype), if any.
    pub template: Option<String>,
    /// `EObjectFlags`.
    pub object_flags: u32,
    /// Offset of its first byte in the file it came from (for errors, and
    /// the base of absolute offsets in its data). A UE4 zen package's
    /// export keeps its legacy file offset (`CookedSerialOffset`): UE4's
    /// loader reports positions in those coordinates, and absolute offsets
    /// stored in the data (a texture's `SkipOffset`) count in them.
    pub offset: u64,
    /// Its serialized bytes.
    #[serde(skip)]
    pub data: &'a [u8],
}

impl ExportInfo<'_> {
    /// `RF_ClassDefaultObject`.
    pub fn is_class_default(&self) -> bool {
        self.object_flags & 0x10 != 0
    }
    /// The class's short name (`DataTable` for `/Script/Engine.DataTable`).
    pub fn class_name(&self) -> &str {
        short_name(&self.class)
    }
}

/// The last component of an object path (`/Script/Engine.DataTable` →
/// `DataTable`, `/Game/P.A:Sub` → `Sub`).
pub fn short_name(path: &str) -> &str {
    path.rsplit(['.', ':', '/']).next().unwrap_or(path)
}

/// A package ready for property decoding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Asset<'a> {
    /// Package name (`/Game/Fixtures/Properties/DA_AllProperties`).
    pub package: String,
    /// The name map; an `FName` in export data is (index, number).
    pub names: Vec<String>,
    /// Imports: `FPackageIndex` -1 is `imports[0]`.
    pub imports: Vec<ObjectInfo>,
    /// Exports: `FPackageIndex` 1 is `exports[0]`.
    pub exports: Vec<ExportInfo<'a>>,
    /// The summary's soft object path list (UE 5.1+ legacy packages refer
    /// to it by index from export data): (asset path, sub path).
    pub soft_object_paths: Vec<(String, String)>,
    /// Versions.
    pub versions: Versions,
    /// `PKG_UnversionedProperties`: properties carry no tags and need a
    /// schema.
    pub unversioned: bool,
    /// Where bulk data headers point ([`crate::bulk::read_ref`]).
    #[serde(skip)]
    pub bulk: crate::bulk::BulkMeta,
}

impl Asset<'_> {
    /// The full path an `FPackageIndex` refers to, `None` for null or out
    /// of range.
    pub fn object(&self, index: i32) -> Option<&str> {
        match index {
            0 => None,
            i if i < 0 => self
                .imports
                .get(i.unsigned_abs() as usize - 1)
                .map(|o| o.path.as_str()),
            i => self.exports.get(i as usize - 1).map(|e| e.path.as_str()),
        }
    }

    /// An `FName`'s text: the entry, with `_N-1` appended for number N > 0.
    pub fn name(&self, index: u32, number: u32) -> Option<String> {
        let base = self.names.get(index as usize)?;
        Some(if number == 0 {
            base.clone()
        } else {
            format!("{base}_{}", number - 1)
        })
    }
}
