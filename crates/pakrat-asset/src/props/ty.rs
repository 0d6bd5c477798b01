//! Property types: what a tag (UE 5.4+ complete type name, or the older
//! type name with its extras) or a mapping (`.usmap`) says a property is.
//!
//! Struct and enum names are kept short (`Vector`, not
//! `/Script/CoreUObject.Vector`): mappings only have the short form, and a
//! tagged value and its unversioned twin must come out as the same tree.

use serde::Serialize;
use std::fmt;

/// A property type, nested to any depth.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum PropType {
    /// `BoolProperty`.
    Bool,
    /// `Int8Property`.
    Int8,
    /// `Int16Property`.
    Int16,
    /// `IntProperty`.
    Int,
    /// `Int64Property`.
    Int64,
    /// `UInt16Property`.
    UInt16,
    /// `UInt32Property`.
    UInt32,
    /// `UInt64Property`.
    UInt64,
    /// `FloatProperty`.
    Float,
    /// `DoubleProperty`.
    Double,
    /// `ByteProperty`, with the enum it holds when it is a `TEnumAsByte`.
    Byte(Option<String>),
    /// `EnumProperty`: the enum's short name and the underlying integer
    /// property (mappings give it; a tag does not, its value is an FName).
    Enum {
        /// Short enum name (`EFixtureEnum`).
        name: String,
        /// Underlying numeric type (`ByteProperty` unless the enum is wider).
        underlying: Option<Box<PropType>>,
    },
    /// `NameProperty`.
    Name,
    /// `StrProperty`.
    Str,
    /// `Utf8StrProperty` (UE 5.4+).
    Utf8Str,
    /// `AnsiStrProperty` (UE 5.4+).
    AnsiStr,
    /// `TextProperty`.
    Text,
    /// `ObjectProperty` (also `ObjectPtrProperty` in older tags).
    Object,
    /// `ClassProperty`.
    Class,
    /// `InterfaceProperty`.
    Interface,
    /// `WeakObjectProperty`.
    WeakObject,
    /// `LazyObjectProperty`.
    LazyObject,
    /// `SoftObjectProperty` (also the UE4 `AssetObjectProperty`).
    SoftObject,
    /// `SoftClassProperty`.
    SoftClass,
    /// `DelegateProperty`.
    Delegate,
    /// `MulticastDelegateProperty` (mappings: any multicast delegate).
    MulticastDelegate,
    /// `MulticastInlineDelegateProperty`.
    MulticastInlineDelegate,
    /// `MulticastSparseDelegateProperty`.
    MulticastSparseDelegate,
    /// `FieldPathProperty`.
    FieldPath,
    /// `StructProperty` with the struct's short name.
    Struct(String),
    /// `ArrayProperty` of the inner type.
    Array(Box<PropType>),
    /// `SetProperty` of the element type.
    Set(Box<PropType>),
    /// `OptionalProperty` (UE 5.4+) of the value type.
    Optional(Box<PropType>),
    /// `MapProperty`: key and value types.
    Map(Box<PropType>, Box<PropType>),
    /// A type name pakrat does not know (tagged data can still be skipped
    /// by its size).
    Unknown(String),
}

impl PropType {
    /// The type for a leaf type name (`IntProperty` …), `None` for names
    /// that need parameters (struct, enum, containers) or are unknown.
    pub fn leaf(name: &str) -> Option<PropType> {
        Some(match name {
            "BoolProperty" => PropType::Bool,
            "Int8Property" => PropType::Int8,
            "Int16Property" => PropType::Int16,
            "IntProperty" => PropType::Int,
            "Int64Property" => PropType::Int64,
            "UInt16Property" => PropType::UInt16,
            "UInt32Property" => PropType::UInt32,
            "UInt64Property" => PropType::UInt64,
            "FloatProperty" => PropType::Float,
            "DoubleProperty" => PropType::Double,
            "NameProperty" => PropType::Name,
            "StrProperty" => PropType::Str,
            "Utf8StrProperty" => PropType::Utf8Str,
            "AnsiStrProperty" => PropType::AnsiStr,
            "TextProperty" => PropType::Text,
            "ObjectProperty" | "ObjectPtrProperty" => PropType::Object,
            "ClassProperty" | "ClassPtrProperty" => PropType::Class,
            "InterfaceProperty" => PropType::Interface,
            "WeakObjectProperty" => PropType::WeakObject,
            "LazyObjectProperty" => PropType::LazyObject,
            "SoftObjectProperty" | "AssetObjectProperty" => PropType::SoftObject,
            "SoftClassProperty" | "AssetClassProperty" => PropType::SoftClass,
            "DelegateProperty" => PropType::Delegate,
            "MulticastDelegateProperty" => PropType::MulticastDelegate,
            "MulticastInlineDelegateProperty" => PropType::MulticastInlineDelegate,
            "MulticastSparseDelegateProperty" => PropType::MulticastSparseDelegate,
            "FieldPathProperty" => PropType::FieldPath,
            _ => return None,
        })
    }

    /// The engine's type name (`IntProperty`, `StructProperty` …).
    pub fn type_name(&self) -> &str {
        match self {
            PropType::Bool => "BoolProperty",
            PropType::Int8 => "Int8Property",
            PropType::Int16 => "Int16Property",
            PropType::Int => "IntProperty",
            PropType::Int64 => "Int64Property",
            PropType::UInt16 => "UInt16Property",
            PropType::UInt32 => "UInt32Property",
            PropType::UInt64 => "UInt64Property",
            PropType::Float => "FloatProperty",
            PropType::Double => "DoubleProperty",
            PropType::Byte(_) => "ByteProperty",
            PropType::Enum { .. } => "EnumProperty",
            PropType::Name => "NameProperty",
            PropType::Str => "StrProperty",
            PropType::Utf8Str => "Utf8StrProperty",
            PropType::AnsiStr => "AnsiStrProperty",
            PropType::Text => "TextProperty",
            PropType::Object => "ObjectProperty",
            PropType::Class => "ClassProperty",
            PropType::Interface => "InterfaceProperty",
            PropType::WeakObject => "WeakObjectProperty",
            PropType::LazyObject => "LazyObjectProperty",
            PropType::SoftObject => "SoftObjectProperty",
            PropType::SoftClass => "SoftClassProperty",
            PropType::Delegate => "DelegateProperty",
            PropType::MulticastDelegate => "MulticastDelegateProperty",
            PropType::MulticastInlineDelegate => "MulticastInlineDelegateProperty",
            PropType::MulticastSparseDelegate => "MulticastSparseDelegateProperty",
            PropType::FieldPath => "FieldPathProperty",
            PropType::Struct(_) => "StructProperty",
            PropType::Array(_) => "ArrayProperty",
            PropType::Set(_) => "SetProperty",
            PropType::Optional(_) => "OptionalProperty",
            PropType::Map(..) => "MapProperty",
            PropType::Unknown(n) => n,
        }
    }

    /// The same type with the distinctions only tags make folded away, so
    /// that a tagged tree and its unversioned twin compare equal: a class
    /// or weak reference is an object reference, a soft class a soft object, every
    /// multicast delegate one kind, and an enum's underlying type dropped.
    pub fn normalized(&self) -> PropType {
        match self {
            PropType::Class | PropType::WeakObject => PropType::Object,
            PropType::SoftClass => PropType::SoftObject,
            PropType::MulticastInlineDelegate | PropType::MulticastSparseDelegate => {
                PropType::MulticastDelegate
            }
            PropType::Enum { name, .. } => PropType::Enum {
                name: name.clone(),
                underlying: None,
            },
            PropType::Array(t) => PropType::Array(Box::new(t.normalized())),
            PropType::Set(t) => PropType::Set(Box::new(t.normalized())),
            PropType::Optional(t) => PropType::Optional(Box::new(t.normalized())),
            PropType::Map(k, v) => {
                PropType::Map(Box::new(k.normalized()), Box::new(v.normalized()))
            }
            t => t.clone(),
        }
    }
}

/// Written in the engine's complete-type-name syntax with short names:
/// `ArrayProperty(StructProperty(Vector))`, `MapProperty(NameProperty,IntProperty)`,
/// `EnumProperty(EFixtureEnum,ByteProperty)`, `ByteProperty(EFixtureEnum)`.
impl fmt::Display for PropType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.type_name())?;
        match self {
            PropType::Byte(Some(e)) => write!(f, "({e})"),
            PropType::Enum { name, underlying } => match underlying {
                Some(u) => write!(f, "({name},{u})"),
                None => write!(f, "({name})"),
            },
            PropType::Struct(s) => write!(f, "({s})"),
            PropType::Array(t) | PropType::Set(t) | PropType::Optional(t) => write!(f, "({t})"),
            PropType::Map(k, v) => write!(f, "({k},{v})"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_nests_and_normalizes() {
        let t = PropType::Map(
            Box::new(PropType::Name),
            Box::new(PropType::Array(Box::new(PropType::Struct("Vector".into())))),
        );
        assert_eq!(
            t.to_string(),
            "MapProperty(NameProperty,ArrayProperty(StructProperty(Vector)))"
        );
        let e = PropType::Enum {
            name: "EFixtureEnum".into(),
            underlying: Some(Box::new(PropType::Byte(None))),
        };
        assert_eq!(e.to_string(), "EnumProperty(EFixtureEnum,ByteProperty)");
        assert_eq!(e.normalized().to_string(), "EnumProperty(EFixtureEnum)");
        assert_eq!(
            PropType::leaf("AssetObjectProperty"),
            Some(PropType::SoftObject)
        );
        assert_eq!(PropType::leaf("StructProperty"), None);
    }
}
