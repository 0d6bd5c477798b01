//! The decoded property tree: one [`Property`] per serialized value, a
//! [`Value`] enum for every property family, [`Text`] with its histories.
//!
//! One model for both forms: a tagged value and its unversioned twin decode
//! to equal trees (after [`crate::props::PropType::normalized`] on types).

use super::PropType;
use pakrat_io::Guid;
use serde::Serialize;

/// One property value as serialized: name, array index (fixed-size arrays
/// write one entry per element), type and value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Property {
    /// Property name.
    pub name: String,
    /// Index in a fixed-size array (`ArrayDim` > 1), 0 otherwise.
    pub index: u32,
    /// Its type.
    pub ty: PropType,
    /// Its value.
    pub value: Value,
}

/// A property value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Value {
    /// `BoolProperty`.
    Bool(bool),
    /// Signed integers (`Int8` … `Int64`).
    Int(i64),
    /// Unsigned integers (`Byte` without enum, `UInt16` … `UInt64`).
    UInt(u64),
    /// `FloatProperty`.
    Float(f32),
    /// `DoubleProperty`.
    Double(f64),
    /// An enum value as `EName::Value` (`EnumProperty`, or a
    /// `ByteProperty` that holds an enum). A number that names no entry of
    /// the enum reads `EName::(N)`.
    Enum(String),
    /// `NameProperty` (with its number: `Name_3`).
    Name(String),
    /// `StrProperty`, `Utf8StrProperty`, `AnsiStrProperty`.
    Str(String),
    /// `TextProperty`.
    Text(Box<Text>),
    /// A hard, weak or class reference: the object's full path, or `None`
    /// for null.
    Object(Option<String>),
    /// `SoftObjectProperty` / `SoftClassProperty` (`FSoftObjectPath`): the
    /// asset path (`/Game/P.A`, empty for none) and the sub-object path.
    SoftObject {
        /// Top-level asset path.
        path: String,
        /// Sub path (`:Sub.Object` part), often empty.
        sub_path: String,
    },
    /// `LazyObjectProperty` (the object's unique GUID) and the `Guid`
    /// struct.
    Guid(Guid),
    /// `DelegateProperty`: the bound object and function name.
    Delegate {
        /// Object, `None` for null.
        object: Option<String>,
        /// Function name.
        function: String,
    },
    /// Multicast delegates: their invocation list.
    Multicast(Vec<Value>),
    /// `FieldPathProperty`: the path of names and the owner.
    FieldPath {
        /// Names, innermost first as stored.
        path: Vec<String>,
        /// Resolved owner struct, `None` for null.
        owner: Option<String>,
    },
    /// A struct: its fields, tagged or native (`Vector` → `X`, `Y`, `Z`).
    Struct(Vec<Property>),
    /// `ArrayProperty` elements.
    Array(Vec<Value>),
    /// `SetProperty` elements.
    Set(Vec<Value>),
    /// `MapProperty` entries, in stored order.
    Map(Vec<(Value, Value)>),
    /// `OptionalProperty`: a value or nothing.
    Optional(Option<Box<Value>>),
    /// A value pakrat skipped without decoding (a tagged value of a type or
    /// struct it does not know): its size and why.
    Skipped {
        /// Bytes skipped.
        size: u64,
        /// What was not understood.
        reason: String,
    },
}

/// `FText`: flags and history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Text {
    /// `ETextFlag` bits.
    pub flags: u32,
    /// How the text was made.
    pub history: TextHistory,
}

/// `FTextHistory` kinds (`ETextHistoryType`: -1 None … 12 TextGenerator).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TextHistory {
    /// -1: no history; maybe a culture-invariant string.
    None {
        /// The culture-invariant string, when one was stored.
        invariant: Option<String>,
    },
    /// 0: a localized string.
    Base {
        /// Localization namespace.
        namespace: String,
        /// Localization key.
        key: String,
        /// Source string.
        source: String,
    },
    /// 1: `FText::Format` with named arguments.
    NamedFormat {
        /// Pattern.
        format: Box<Text>,
        /// Arguments by name.
        args: Vec<(String, FormatArg)>,
    },
    /// 2: `FText::Format` with ordered arguments.
    OrderedFormat {
        /// Pattern.
        format: Box<Text>,
        /// Arguments in order.
        args: Vec<FormatArg>,
    },
    /// 3: `FText::Format` with `FFormatArgumentData`.
    ArgumentFormat {
        /// Pattern.
        format: Box<Text>,
        /// Arguments by name.
        args: Vec<(String, FormatArg)>,
    },
    /// 4 AsNumber, 5 AsPercent, 6 AsCurrency.
    Number {
        /// `AsNumber`, `AsPercent` or `AsCurrency`.
        kind: NumberKind,
        /// Currency code (`AsCurrency` only).
        currency: Option<String>,
        /// The number.
        source: FormatArg,
        /// `FNumberFormattingOptions`, when stored.
        options: Option<NumberOptions>,
        /// Target culture.
        culture: String,
    },
    /// 7 AsDate, 8 AsTime, 9 AsDateTime.
    DateTime {
        /// `AsDate`, `AsTime` or `AsDateTime`.
        kind: DateKind,
        /// `FDateTime` ticks (100 ns since 0001-01-01).
        ticks: i64,
        /// `EDateTimeStyle` of the date (AsDate, AsDateTime).
        date_style: Option<i8>,
        /// `EDateTimeStyle` of the time (AsTime, AsDateTime).
        time_style: Option<i8>,
        /// Custom pattern (AsDateTime with the Custom style), when stored.
        pattern: Option<String>,
        /// Time zone.
        time_zone: String,
        /// Target culture.
        culture: String,
    },
    /// 10: upper/lower-case transform of another text.
    Transform {
        /// The source text.
        source: Box<Text>,
        /// `ETransformType` (0 ToLower, 1 ToUpper).
        transform: u8,
    },
    /// 11: an entry of a string table.
    StringTableEntry {
        /// The table's id (its object path).
        table: String,
        /// Entry key.
        key: String,
    },
    /// 12: a text generator: its type and serialized contents.
    Generator {
        /// Generator type id.
        type_id: String,
        /// Its data, undecoded.
        contents: Vec<u8>,
    },
}

/// Which `AsNumber`-family history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NumberKind {
    /// 4.
    AsNumber,
    /// 5.
    AsPercent,
    /// 6.
    AsCurrency,
}

/// Which date/time history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DateKind {
    /// 7.
    AsDate,
    /// 8.
    AsTime,
    /// 9.
    AsDateTime,
}

/// `FFormatArgumentValue` (`EFormatArgumentType`: 0 Int, 1 UInt, 2 Float,
/// 3 Double, 4 Text, 5 Gender).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum FormatArg {
    /// 0.
    Int(i64),
    /// 1.
    UInt(u64),
    /// 2.
    Float(f32),
    /// 3.
    Double(f64),
    /// 4.
    Text(Box<Text>),
    /// 5 (`ETextGender`).
    Gender(u8),
}

/// `FNumberFormattingOptions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NumberOptions {
    /// `AlwaysSign`.
    pub always_sign: bool,
    /// `UseGrouping`.
    pub use_grouping: bool,
    /// `ERoundingMode`.
    pub rounding_mode: i8,
    /// `MinimumIntegralDigits`.
    pub minimum_integral_digits: i32,
    /// `MaximumIntegralDigits`.
    pub maximum_integral_digits: i32,
    /// `MinimumFractionalDigits`.
    pub minimum_fractional_digits: i32,
    /// `MaximumFractionalDigits`.
    pub maximum_fractional_digits: i32,
}

/// What an export holds: its properties, then the native data its class
/// serializes after them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExportProps {
    /// The properties, in stored order.
    pub properties: Vec<Property>,
    /// Native data after the properties, decoded where pakrat knows the
    /// class (DataTable rows, string tables, curves …) as named fields.
    pub native: Vec<Property>,
    /// Where the class's native data starts, counted from the start of the
    /// export's bytes (after the properties and the object GUID).
    pub native_start: u64,
    /// Bytes of native data left undecoded (0 when everything was read).
    pub native_unread: u64,
    /// What went wrong, when decoding stopped: no schema for the class, or
    /// bytes that do not fit it. Properties before the failure are kept.
    pub error: Option<String>,
}
