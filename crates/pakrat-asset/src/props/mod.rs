//! UE4/UE5 properties: the values an export holds, read from tagged
//! (`FPropertyTag`) or unversioned (schema-ordered, `.usmap`) data, in
//! legacy and zen packages alike.
//!
//! * [`ty`]: property types ([`PropType`]);
//! * [`value`]: the decoded tree ([`Property`], [`Value`], [`Text`]);
//! * [`asset`]: the package view decoding works on ([`Asset`]), built from
//!   either package form;
//! * [`schema`]: what unversioned data needs ([`Schemas`], implemented by
//!   `.usmap` mappings);
//! * [`own`]: the schemas a package defines itself (Blueprint classes,
//!   user-defined structs and enums), in front of the mappings
//!   ([`schemas_with_package`]);
//! * [`write`](mod@write): the encoder, the model back to bytes
//!   ([`encode_properties`], exact with the [`WriteHints`] of
//!   [`decode_export_for_write`]).

pub mod asset;
pub mod edit;
mod from_legacy;
mod from_zen;
pub mod json;
pub mod open;
pub mod own;
mod read;
pub mod schema;
pub mod ty;
pub mod value;
pub mod write;

pub use asset::{Asset, ExportInfo, ObjectInfo, Versions};
pub use from_zen::{ContainerSource, Containers};
pub use open::{BulkFrom, Opened, PackageForm};
pub use own::{schemas_with_package, PackageSchemas, WithPackage};
pub(crate) use read::read_native_as;
pub use schema::{EnumSchema, NoSchemas, SchemaProperty, Schemas, StructSchema};
pub use ty::PropType;
pub use value::{
    DateKind, ExportProps, FormatArg, NumberKind, NumberOptions, Property, Text, TextHistory, Value,
};
pub use write::{
    decode_export_for_write, encode_native_tail, encode_native_tail_into, encode_properties,
    encode_properties_into, writes_native_tail, Additions, EncodeError, WriteHints,
};

/// Decode export `index` (0-based) of `asset`: its properties (tagged, or
/// unversioned through `schemas`) and the native data after them.
pub fn decode_export(asset: &Asset<'_>, index: usize, schemas: &dyn Schemas) -> ExportProps {
    read::decode_export(asset, index, schemas)
}
