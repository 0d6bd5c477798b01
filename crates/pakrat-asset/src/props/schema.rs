//! Schemas for unversioned properties: which property sits at which index
//! of a class or struct, and the values of enums. They come from `.usmap`
//! mappings ([`crate::usmap`]) or from a package's own exports.

use super::PropType;
use serde::Serialize;

/// One property of a struct's schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SchemaProperty {
    /// Schema index of its first element, counted within its own struct
    /// (the super-struct's properties come before index 0).
    pub index: u16,
    /// `ArrayDim`: elements of a fixed-size array (1 for a plain property).
    pub array_dim: u8,
    /// Property name.
    pub name: String,
    /// Property type.
    pub ty: PropType,
}

/// A class or struct: its properties and its super-struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StructSchema {
    /// Short name (`ParserFixtureData`, `Vector`).
    pub name: String,
    /// Short name of the super-struct, if any.
    pub super_name: Option<String>,
    /// Number of schema indices this struct adds (the sum of the array
    /// dims of its properties).
    pub property_count: u16,
    /// Its own properties (not the super-struct's), by schema index.
    pub properties: Vec<SchemaProperty>,
}

/// An enum: its entries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnumSchema {
    /// Short name (`EFixtureEnum`).
    pub name: String,
    /// (value, entry name) in declaration order; entry names as stored
    /// (`EFixtureEnum::Beta` or `Beta`).
    pub entries: Vec<(i64, String)>,
}

impl EnumSchema {
    /// The entry for a numeric value, as `EName::Value`, or `EName::(N)`
    /// when no entry has that value.
    pub fn name_of(&self, value: i64) -> String {
        match self.entries.iter().find(|(v, _)| *v == value) {
            Some((_, n)) => qualify_enum(&self.name, n),
            None => format!("{}::({value})", self.name),
        }
    }
}

/// `EName::Value` for an entry stored either qualified or bare.
pub fn qualify_enum(enum_name: &str, entry: &str) -> String {
    let bare = entry.rsplit("::").next().unwrap_or(entry);
    format!("{enum_name}::{bare}")
}

/// Where unversioned decoding finds schemas.
pub trait Schemas: Sync {
    /// A class or struct by short name.
    fn find_struct(&self, name: &str) -> Option<&StructSchema>;
    /// An enum by short name.
    fn find_enum(&self, name: &str) -> Option<&EnumSchema>;
}

/// No schemas at all (tagged packages need none).
pub struct NoSchemas;

impl Schemas for NoSchemas {
    fn find_struct(&self, _: &str) -> Option<&StructSchema> {
        None
    }
    fn find_enum(&self, _: &str) -> Option<&EnumSchema> {
        None
    }
}
