//! Schemas a package defines for itself: Blueprint-generated classes and
//! user-defined structs (their `UStruct` data: `ChildProperties`) and
//! user-defined enums (their names). A `.usmap` dump does not have them
//! (it is made from the game's native types), so an unversioned package
//! that uses its own Blueprint class needs these.
//!
//! [`schemas_with_package`] gives a [`Schemas`] that looks in the package's
//! own definitions first and then in the mappings; [`PackageSchemas::add`]
//! adds further packages (a Blueprint whose parent Blueprint lives in
//! another package).
//!
//! The layout of `UStruct`/`UClass`/`FProperty` data (checked on the UE 5.8
//! and 6.0 fixtures): UE `Class.cpp` (`UStruct::Serialize`,
//! `UClass::Serialize`), `Field.cpp` and `UnrealType.h` (`FProperty`),
//! as also read by CUE4Parse (`UStruct.cs`, `UClass.cs`, `UnrealType.cs`).

use super::asset::short_name;
use super::schema::{EnumSchema, SchemaProperty, Schemas, StructSchema};
use super::{Asset, PropType, Value};
use serde::Serialize;
use std::collections::HashMap;

/// One `FProperty` of a struct's `ChildProperties`, as serialized.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldDef {
    /// The property class (`IntProperty`, `StructProperty` …).
    pub kind: String,
    /// Property name.
    pub name: String,
    /// `EObjectFlags` of the field (UE 5.8+ cooked data no longer writes
    /// them: `None`).
    pub flags: Option<u32>,
    /// `ArrayDim`: elements of a fixed-size array.
    pub array_dim: i32,
    /// `ElementSize` in memory.
    pub element_size: i32,
    /// `EPropertyFlags`.
    pub property_flags: u64,
    /// `RepIndex`.
    pub rep_index: u16,
    /// `RepNotifyFunc` (`None` for none).
    pub rep_notify: String,
    /// `BlueprintReplicationCondition` (`ELifetimeCondition`).
    pub replication_condition: u8,
    /// What the property refers to, by role (`Struct`, `Enum`,
    /// `PropertyClass`, `MetaClass`, `InterfaceClass`,
    /// `SignatureFunction`): the full path, or `None` for null.
    pub refs: Vec<(String, Option<String>)>,
    /// Inner properties, by role (`Inner`, `Element`, `Key`, `Value`,
    /// `Underlying`); `None` where the engine wrote no field.
    pub inner: Vec<(String, Option<FieldDef>)>,
}

impl FieldDef {
    fn reference(&self, role: &str) -> Option<&str> {
        self.refs
            .iter()
            .find(|(r, _)| r == role)
            .and_then(|(_, p)| p.as_deref())
    }

    fn inner_type(&self, i: usize) -> PropType {
        match self.inner.get(i) {
            Some((_, Some(f))) => f.prop_type(),
            _ => PropType::Unknown(format!("{} without its inner property", self.kind)),
        }
    }

    /// The property type in the decoder's terms (struct and enum names
    /// short, as mappings have them).
    pub fn prop_type(&self) -> PropType {
        let short = |role: &str| self.reference(role).map(|p| short_name(p).to_string());
        let boxed = |i: usize| Box::new(self.inner_type(i));
        match self.kind.as_str() {
            "ByteProperty" => PropType::Byte(short("Enum")),
            "EnumProperty" => PropType::Enum {
                name: short("Enum").unwrap_or_else(|| "None".into()),
                underlying: match self.inner.first() {
                    Some((_, Some(f))) => Some(Box::new(f.prop_type())),
                    _ => None,
                },
            },
            "StructProperty" => match short("Struct") {
                Some(s) => PropType::Struct(s),
                None => PropType::Unknown("StructProperty without its struct".into()),
            },
            "ArrayProperty" => PropType::Array(boxed(0)),
            "SetProperty" => PropType::Set(boxed(0)),
            "OptionalProperty" => PropType::Optional(boxed(0)),
            "MapProperty" => PropType::Map(boxed(0), boxed(1)),
            k => PropType::leaf(k).unwrap_or_else(|| PropType::Unknown(k.to_string())),
        }
    }
}

/// A class or struct a package defines: its `UStruct` data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StructDef {
    /// Short name (`BP_Fixture_C`, `S_Fixture`).
    pub name: String,
    /// `SuperStruct`: full path, `None` for none.
    pub super_struct: Option<String>,
    /// `Children` (functions): full paths.
    pub children: Vec<Option<String>>,
    /// `ChildProperties` in serialized order, which is the order of the
    /// unversioned schema indices.
    pub properties: Vec<FieldDef>,
    /// `BytecodeBufferSize`: script bytecode size in memory.
    pub script_bytecode_size: i32,
    /// `SerializedScriptSize`: bytes of script stored (skipped).
    pub script_storage_size: i32,
}

impl StructDef {
    /// The unversioned schema: own properties numbered in serialized
    /// order, a fixed-size array taking one index per element.
    pub fn schema(&self) -> StructSchema {
        let mut properties = Vec::with_capacity(self.properties.len());
        let mut index: u32 = 0;
        for f in &self.properties {
            let dim = f.array_dim.clamp(1, 255) as u32;
            properties.push(SchemaProperty {
                index: index.min(u32::from(u16::MAX)) as u16,
                array_dim: dim as u8,
                name: f.name.clone(),
                ty: f.prop_type(),
            });
            index += dim;
        }
        StructSchema {
            name: self.name.clone(),
            super_name: self
                .super_struct
                .as_deref()
                .map(|p| short_name(p).to_string()),
            property_count: index.min(u32::from(u16::MAX)) as u16,
            properties,
        }
    }
}

/// Classes, structs and enums defined by one or more packages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PackageSchemas {
    /// Class and struct schemas by short name.
    pub structs: HashMap<String, StructSchema>,
    /// Enum schemas by short name.
    pub enums: HashMap<String, EnumSchema>,
    /// Exports that define a type but could not be read (export path and
    /// why): their instances will say "needs mappings".
    pub problems: Vec<(String, String)>,
}

/// Whether exports of this class define a class or struct whose
/// `ChildProperties` form a schema.
pub fn defines_struct(class: &str) -> bool {
    matches!(class, "Class" | "ScriptStruct" | "UserDefinedStruct")
        || class.ends_with("BlueprintGeneratedClass")
}

impl PackageSchemas {
    /// No definitions.
    pub fn new() -> Self {
        PackageSchemas::default()
    }

    /// The definitions of `asset`. `mappings` is what the defining exports'
    /// own properties need (a `BlueprintGeneratedClass` export is itself
    /// unversioned in an unversioned package).
    pub fn of(asset: &Asset<'_>, mappings: &dyn Schemas) -> Self {
        let mut s = PackageSchemas::new();
        s.add(asset, mappings);
        s
    }

    /// Add the classes, structs and enums `asset` defines (class default
    /// objects are skipped). A name already present is replaced.
    pub fn add(&mut self, asset: &Asset<'_>, mappings: &dyn Schemas) {
        for (i, e) in asset.exports.iter().enumerate() {
            if e.is_class_default() {
                continue;
            }
            let class = e.class_name();
            if defines_struct(class) {
                match super::read::struct_def(asset, i, mappings) {
                    Ok(def) => {
                        let schema = def.schema();
                        self.structs.insert(schema.name.clone(), schema);
                    }
                    Err(err) => self.problems.push((e.path.clone(), err)),
                }
            } else if class == "UserDefinedEnum" {
                let p = super::decode_export(asset, i, mappings);
                match enum_entries(&p.native) {
                    Some(entries) => {
                        let name = e.name.clone();
                        self.enums
                            .insert(name.clone(), EnumSchema { name, entries });
                    }
                    None => self.problems.push((
                        e.path.clone(),
                        p.error.unwrap_or_else(|| "no enum names".into()),
                    )),
                }
            }
        }
    }
}

/// The (value, name) entries of a decoded enum's `Names` field.
fn enum_entries(native: &[super::Property]) -> Option<Vec<(i64, String)>> {
    let names = native.iter().find(|p| p.name == "Names")?;
    let Value::Map(m) = &names.value else {
        return None;
    };
    m.iter()
        .map(|(k, v)| match (k, v) {
            (Value::Name(n), Value::Int(i)) => Some((*i, n.clone())),
            _ => None,
        })
        .collect()
}

/// A package's own definitions first, then the mappings.
pub struct WithPackage<'s> {
    /// The package's (and any added packages') definitions.
    pub own: PackageSchemas,
    /// Where everything else is looked up (`.usmap` mappings, or
    /// [`super::NoSchemas`]).
    pub mappings: &'s dyn Schemas,
}

impl Schemas for WithPackage<'_> {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        self.own
            .structs
            .get(name)
            .or_else(|| self.mappings.find_struct(name))
    }
    fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        self.own
            .enums
            .get(name)
            .or_else(|| self.mappings.find_enum(name))
    }
}

impl WithPackage<'_> {
    /// Add another package's definitions (a parent Blueprint, a
    /// user-defined struct or enum it uses), read with the mappings.
    pub fn add_package(&mut self, asset: &Asset<'_>) {
        let mappings = self.mappings;
        self.own.add(asset, mappings);
    }
}

/// The schemas to decode `asset` with: what it defines itself
/// (Blueprint classes, user-defined structs and enums), then `mappings`.
pub fn schemas_with_package<'s>(asset: &Asset<'_>, mappings: &'s dyn Schemas) -> WithPackage<'s> {
    WithPackage {
        own: PackageSchemas::of(asset, mappings),
        mappings,
    }
}
