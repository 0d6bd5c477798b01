//! `.usmap` property mappings: the schemas (struct and class layouts, enum
//! values) that unversioned properties need, as dumped from a running game
//! by the community's mappings dumpers and read by CUE4Parse, UAssetAPI,
//! FModel and UE4SS.
//!
//! The format (docs/usmap.md has it in full, with its sources):
//!
//! * header: `u16` magic `0x30C4`, `u8` version ([`UsmapVersion`], 0-4);
//!   from version 1 an `i32` boolean and, when set, the package versioning
//!   ([`Versioning`]); then `u8` compression ([`Compression`]), `u32`
//!   compressed size, `u32` decompressed size, and the payload;
//! * payload: the name table, the enums, the structs, and optionally the
//!   extensions (`CEXT`, see [`Extension`]).
//!
//! [`Usmap::parse`] checks every count against the bytes that remain before
//! it allocates, bounds the decompressed size ([`MAX_DECOMPRESSED`],
//! [`MAX_RATIO`]) and the nesting of property types ([`MAX_TYPE_DEPTH`]),
//! and checks every name index.

mod read;

use std::collections::HashMap;
use std::path::Path;

use pakrat_io::{Guid, Result, Source};

use crate::props::{EnumSchema, Schemas, StructSchema};

pub use read::{MAX_DECOMPRESSED, MAX_RATIO, MAX_TYPE_DEPTH};

/// The `u16` every `.usmap` file starts with.
pub const MAGIC: u16 = 0x30C4;

/// The format version (`EUsmapVersion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UsmapVersion {
    /// 0: the initial format.
    Initial,
    /// 1: adds the optional package versioning.
    PackageVersioning,
    /// 2: names have a `u16` length (was `u8`).
    LongFName,
    /// 3: enums have a `u16` entry count (was `u8`).
    LargeEnums,
    /// 4: enum entries carry their `u64` value (was the position).
    ExplicitEnumValues,
}

impl UsmapVersion {
    /// The newest version this reader knows.
    pub const LATEST: UsmapVersion = UsmapVersion::ExplicitEnumValues;

    /// The version for its number, `None` past [`Self::LATEST`].
    pub fn from_u8(v: u8) -> Option<UsmapVersion> {
        Some(match v {
            0 => UsmapVersion::Initial,
            1 => UsmapVersion::PackageVersioning,
            2 => UsmapVersion::LongFName,
            3 => UsmapVersion::LargeEnums,
            4 => UsmapVersion::ExplicitEnumValues,
            _ => return None,
        })
    }

    /// Its number.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// Its name in the dumpers' enum (`ExplicitEnumValues`).
    pub fn name(self) -> &'static str {
        match self {
            UsmapVersion::Initial => "Initial",
            UsmapVersion::PackageVersioning => "PackageVersioning",
            UsmapVersion::LongFName => "LongFName",
            UsmapVersion::LargeEnums => "LargeEnums",
            UsmapVersion::ExplicitEnumValues => "ExplicitEnumValues",
        }
    }
}

/// How the payload is stored (`EUsmapCompressionMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// 0: stored.
    None,
    /// 1: one Oodle stream.
    Oodle,
    /// 2: one Brotli stream.
    Brotli,
    /// 3: one Zstandard frame.
    Zstandard,
}

impl Compression {
    /// The method for its number.
    pub fn from_u8(v: u8) -> Option<Compression> {
        Some(match v {
            0 => Compression::None,
            1 => Compression::Oodle,
            2 => Compression::Brotli,
            3 => Compression::Zstandard,
            _ => return None,
        })
    }

    /// Its name (`Zstandard`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Oodle => "Oodle",
            Compression::Brotli => "Brotli",
            Compression::Zstandard => "Zstandard",
        }
    }
}

/// The package versioning a version-1+ file may carry: the versions of
/// the game's packages, for readers that need them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Versioning {
    /// `FPackageFileVersion`: the UE4 object version.
    pub ue4: i32,
    /// `FPackageFileVersion`: the UE5 object version (0 for UE4 games).
    pub ue5: i32,
    /// The custom versions: (key, version).
    pub custom_versions: Vec<(Guid, i32)>,
    /// The engine's network changelist.
    pub net_cl: u32,
}

/// One block of the optional extension data after the structs: `CEXT`,
/// a layout version `u8` (0), an `i32` count, then per block a 4-byte id
/// and a `u32` size. pakrat applies `ENVP` (explicit enum values for files
/// older than version 4) and only lists the others (`PPTH` module paths,
/// `EATR` flags…). A trailing `u32` 1 instead of `CEXT` is the older
/// `MODL` (module paths) block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// The block's id (`PPTH`, `EATR`, `ENVP`, `MODL`…).
    pub id: String,
    /// Its size in bytes.
    pub size: u64,
    /// Whether pakrat applied it to the model.
    pub applied: bool,
}

/// A `.usmap` file: its header and its schemas.
#[derive(Clone, Debug)]
pub struct Usmap {
    /// Format version.
    pub version: UsmapVersion,
    /// Package versioning (version 1+, when the file has it).
    pub versioning: Option<Versioning>,
    /// How the payload was stored.
    pub compression: Compression,
    /// Size of the stored payload.
    pub compressed_size: u32,
    /// Size of the payload once decompressed.
    pub decompressed_size: u32,
    /// The name table.
    pub names: Vec<String>,
    /// The enums, in file order (a name may repeat: the first one counts).
    pub enums: Vec<EnumSchema>,
    /// The classes and structs, in file order (a name may repeat: the last
    /// one counts).
    pub structs: Vec<StructSchema>,
    /// The extension blocks after the structs.
    pub extensions: Vec<Extension>,
    enum_by_name: HashMap<String, usize>,
    struct_by_name: HashMap<String, usize>,
    enum_by_lower: HashMap<String, usize>,
    struct_by_lower: HashMap<String, usize>,
}

impl Usmap {
    /// Read a `.usmap` file held in memory.
    pub fn parse(data: &[u8]) -> Result<Usmap> {
        read::parse(data)
    }

    /// Read the `.usmap` file at `path`; errors name the file and offset.
    pub fn open(path: impl AsRef<Path>) -> Result<Usmap> {
        let path = path.as_ref();
        let src = Source::open(path)?;
        Usmap::parse(&src).map_err(|e| e.in_file(path))
    }

    /// A class or struct by short name: exact, else ignoring ASCII case
    /// (FNames compare without case).
    pub fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        let i = self
            .struct_by_name
            .get(name)
            .or_else(|| self.struct_by_lower.get(&name.to_ascii_lowercase()))?;
        self.structs.get(*i)
    }

    /// An enum by short name: exact, else ignoring ASCII case.
    pub fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        let i = self
            .enum_by_name
            .get(name)
            .or_else(|| self.enum_by_lower.get(&name.to_ascii_lowercase()))?;
        self.enums.get(*i)
    }

    /// Properties of every struct (records, not counting array dims).
    pub fn property_count(&self) -> usize {
        self.structs.iter().map(|s| s.properties.len()).sum()
    }

    /// Entries of every enum.
    pub fn enum_entry_count(&self) -> usize {
        self.enums.iter().map(|e| e.entries.len()).sum()
    }

    /// Whether two files hold the same schemas and versioning, whatever
    /// their compression.
    pub fn same_content(&self, other: &Usmap) -> bool {
        self.version == other.version
            && self.versioning == other.versioning
            && self.names == other.names
            && self.enums == other.enums
            && self.structs == other.structs
            && self.extensions == other.extensions
    }

    fn index(mut self) -> Usmap {
        for (i, e) in self.enums.iter().enumerate() {
            self.enum_by_name.entry(e.name.clone()).or_insert(i);
            self.enum_by_lower
                .entry(e.name.to_ascii_lowercase())
                .or_insert(i);
        }
        for (i, s) in self.structs.iter().enumerate() {
            self.struct_by_name.insert(s.name.clone(), i);
            self.struct_by_lower.insert(s.name.to_ascii_lowercase(), i);
        }
        self
    }
}

impl Schemas for Usmap {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        Usmap::find_struct(self, name)
    }
    fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        Usmap::find_enum(self, name)
    }
}

/// Whether `head` (a file's first bytes) starts like a `.usmap`: the magic
/// and a version this reader knows.
pub fn is_usmap(head: &[u8]) -> bool {
    head.len() >= 3
        && u16::from_le_bytes([head[0], head[1]]) == MAGIC
        && UsmapVersion::from_u8(head[2]).is_some()
}

/// The size a `.usmap` file must have by its header (header plus stored
/// payload), when the header fits in `head`; `None` when it does not or is
/// not a header this reader knows. Detection uses it to tell a mappings
/// file by its content alone.
pub fn expected_file_size(head: &[u8]) -> Option<u64> {
    read::expected_file_size(head)
}
