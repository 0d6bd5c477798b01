//! The native data of `UStruct` exports as UE 4.25+ cooks them: classes
//! (`UClass`, Blueprint-generated classes), script and user-defined
//! structs (with a user-defined struct's default instance) and functions.
//!
//! `UStruct::Serialize`: (`UField::Next` before `RemoveUField_Next`), the
//! `SuperStruct`, the `Children` (functions) as package indices, the
//! `ChildProperties` (from `FCoreObjectVersion::FProperties`: a count,
//! then per field its class name and `FField`/`FProperty` data), then the
//! script sizes and the script bytes. Then `UClass`: the function map,
//! class flags, `ClassWithin`, `ClassConfigName`, `ClassGeneratedBy`, the
//! interfaces, two legacy fields, `bCooked` and the class default object;
//! `UScriptStruct`: its struct flags; `UFunction`: function flags, the
//! replication offset of net functions and the event graph call.
//!
//! UE 5.8 cooked data stops writing an `FField`'s object flags (CUE4Parse
//! gates it on the engine release, which a package does not state): the
//! reader tries the form the versions suggest, then the other, and keeps
//! the one that reads the whole export.

use super::Ctx;
use crate::props::own::{defines_struct, FieldDef, StructDef};
use crate::props::schema::{EnumSchema, Schemas, StructSchema};
use crate::props::{Asset, PropType, Property, Value};
use pakrat_io::{Error, Guid, Reader, Result};

/// `FFrameworkObjectVersion`.
const FRAMEWORK: Guid = Guid {
    words: [0xCFFC_743F, 0x43B0_4480, 0x9391_14DF, 0x171D_2073],
};
/// `FFrameworkObjectVersion::RemoveUField_Next`.
const FRAMEWORK_REMOVE_UFIELD_NEXT: i32 = 29;
/// `FFrameworkObjectVersion::UserDefinedStructsStoreDefaultInstance`.
const FRAMEWORK_UDS_DEFAULT_INSTANCE: i32 = 32;
/// `FCoreObjectVersion`.
const CORE: Guid = Guid {
    words: [0x375E_C13C, 0x06E4_48FB, 0xB500_84F0, 0x262A_717E],
};
/// `FCoreObjectVersion::FProperties`: properties are `FField`s in
/// `ChildProperties`, no longer exports.
const CORE_FPROPERTIES: i32 = 4;
/// `FFortniteMainBranchObjectVersion`.
const FORTNITE_MAIN: Guid = Guid {
    words: [0x601D_1886, 0xAC64_4F84, 0xAA16_D3DE, 0x0DEA_C7D6],
};
/// `FFortniteMainBranchObjectVersion::BPGCCookedEditorTags`.
const FORTNITE_BPGC_EDITOR_TAGS: i32 = 57;
/// `VER_UE4_SERIALIZE_BLUEPRINT_EVENTGRAPH_FASTCALLS_IN_UFUNCTION`.
const UE4_EVENTGRAPH_FASTCALLS: i32 = 451;
/// The last `EUnrealEngineObjectUE5Version` known (`IMPORT_TYPE_HIERARCHIES`):
/// packages at it are read as UE 5.8+ first (no `FField` flags).
const UE5_LATEST: i32 = 1018;
/// `FUNC_Net`: the function carries a replication offset.
const FUNC_NET: u32 = 0x40;

/// Deepest nesting of inner properties (an array of maps of …).
const MAX_FIELD_DEPTH: u32 = 16;
/// Bytes one serialized `FProperty` takes at least: class name, name,
/// `ArrayDim`, `ElementSize`, flags, `RepIndex`, `RepNotifyFunc`,
/// condition.
const MIN_FIELD: usize = 8 + 8 + 4 + 4 + 8 + 2 + 8 + 1;

/// Property classes the reader knows (anything else ends the read: its
/// extra data could not be skipped).
const KINDS: &[&str] = &[
    "ArrayProperty",
    "BoolProperty",
    "ByteProperty",
    "ClassProperty",
    "ClassPtrProperty",
    "DelegateProperty",
    "DoubleProperty",
    "EnumProperty",
    "FieldPathProperty",
    "FloatProperty",
    "Int16Property",
    "Int64Property",
    "Int8Property",
    "IntProperty",
    "InterfaceProperty",
    "MapProperty",
    "MulticastDelegateProperty",
    "MulticastInlineDelegateProperty",
    "MulticastSparseDelegateProperty",
    "NameProperty",
    "ObjectProperty",
    "ObjectPtrProperty",
    "OptionalProperty",
    "SetProperty",
    "SoftClassProperty",
    "SoftObjectProperty",
    "StrProperty",
    "StructProperty",
    "TextProperty",
    "UInt16Property",
    "UInt32Property",
    "UInt64Property",
    "AnsiStrProperty",
    "Utf8StrProperty",
    "WeakObjectProperty",
    "LazyObjectProperty",
];

/// A native field of the output.
fn field(name: &str, ty: PropType, value: Value) -> Property {
    Property {
        name: name.into(),
        index: 0,
        ty,
        value,
    }
}

fn uint(v: impl Into<u64>) -> Value {
    Value::UInt(v.into())
}

fn int(v: i32) -> Value {
    Value::Int(i64::from(v))
}

fn obj(name: &str, v: Option<String>) -> Property {
    field(name, PropType::Object, Value::Object(v))
}

/// One struct's schema in front of the others (a user-defined struct's
/// default instance is written with the struct's own schema).
struct Layer<'s> {
    one: StructSchema,
    rest: &'s dyn Schemas,
}

impl Schemas for Layer<'_> {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        if name == self.one.name {
            Some(&self.one)
        } else {
            self.rest.find_struct(name)
        }
    }
    fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        self.rest.find_enum(name)
    }
}

/// The `UStruct` definition of export `index` (a class or struct), read
/// after its properties. Errors are messages naming the offset.
pub(crate) fn struct_def(
    asset: &Asset<'_>,
    index: usize,
    schemas: &dyn Schemas,
) -> std::result::Result<StructDef, String> {
    let export = asset
        .exports
        .get(index)
        .ok_or_else(|| format!("export {index} does not exist"))?;
    let decoded = super::decode_export(asset, index, schemas);
    if decoded.native_start == 0 {
        return Err(decoded
            .error
            .unwrap_or_else(|| "no native data after the properties".into()));
    }
    let start = decoded.native_start as usize;
    let data = export.data.get(start..).unwrap_or_default();
    let mut ctx = Ctx::new(asset, schemas);
    let mut last = None;
    for with_flags in ctx.flag_forms() {
        let mut r = Reader::with_base(data, export.offset + start as u64);
        match ctx.struct_body(&mut r, &export.name, with_flags) {
            Ok(def) => return Ok(def),
            Err(e) => last = last.or(Some(e.to_string())),
        }
    }
    Err(last.unwrap_or_default())
}

impl Ctx<'_, '_> {
    /// The two `FField` forms, the likelier first.
    fn flag_forms(&self) -> [bool; 2] {
        if self.ue5() >= UE5_LATEST {
            [false, true]
        } else {
            [true, false]
        }
    }

    /// The native data of a `UStruct` export of class `class`, as named
    /// fields. `props` are the export's own properties.
    pub(super) fn ustruct_tail(
        &mut self,
        r: &mut Reader<'_>,
        class: &str,
        props: &[Property],
    ) -> Result<Vec<Property>> {
        let start = r.clone();
        let mut first = None;
        for with_flags in self.flag_forms() {
            *r = start.clone();
            match self.ustruct_form(r, class, props, with_flags) {
                Ok(out) => return Ok(out),
                Err(e) => first = first.or(Some(e)),
            }
        }
        *r = start;
        Err(first.unwrap_or_else(|| Error::invalid(r.offset(), "no UStruct form")))
    }

    fn ustruct_form(
        &mut self,
        r: &mut Reader<'_>,
        class: &str,
        props: &[Property],
        with_flags: bool,
    ) -> Result<Vec<Property>> {
        let name = self.export_name_of(r);
        let def = self.struct_body(r, &name, with_flags)?;
        let mut out = def_fields(&def);
        if is_function(class) {
            out.extend(self.function_tail(r)?);
        } else if class == "ScriptStruct" || class == "UserDefinedStruct" {
            let flags = r.u32("struct flags")?;
            out.push(field("StructFlags", PropType::UInt32, uint(flags)));
            if class == "UserDefinedStruct" && up_to_date(props) {
                if let Some(v) = self.default_instance(r, &def)? {
                    out.push(v);
                }
            }
        } else if defines_struct(class) {
            out.extend(self.class_tail(r, class)?);
        }
        Ok(out)
    }

    /// The name of the export whose bytes `r` reads (the reader is made
    /// over the export's own slice), or a stand-in.
    fn export_name_of(&self, r: &Reader<'_>) -> String {
        let data = r.data();
        self.asset
            .exports
            .iter()
            .find(|e| std::ptr::eq(e.data, data))
            .map(|e| e.name.clone())
            .unwrap_or_else(|| "(this struct)".into())
    }

    /// `UStruct` data up to the end of the script.
    fn struct_body(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
        with_flags: bool,
    ) -> Result<StructDef> {
        let has_next = !self.custom_at_least(FRAMEWORK, FRAMEWORK_REMOVE_UFIELD_NEXT);
        if has_next {
            self.object(r, "UField::Next")?;
        }
        let super_struct = self.object(r, "SuperStruct")?;
        let children = if has_next {
            vec![self.object(r, "first child")?]
        } else {
            let n = r.i32_count("children", 4)?;
            let mut c = Vec::with_capacity(n);
            for _ in 0..n {
                c.push(self.object(r, "child")?);
            }
            c
        };
        let mut properties = Vec::new();
        if self.custom_at_least(CORE, CORE_FPROPERTIES) {
            let n = r.i32_count("child properties", MIN_FIELD)?;
            properties.reserve(n);
            for _ in 0..n {
                let at = r.offset();
                let kind = self.fname(r, "property class")?;
                properties.push(self.field_def(r, kind, with_flags, 0, at)?);
            }
        }
        let script_bytecode_size = r.i32("script bytecode size")?;
        let at = r.offset();
        let script_storage_size = r.i32("script storage size")?;
        if script_storage_size < 0 || script_bytecode_size < 0 {
            return Err(Error::invalid(
                at,
                format!("script sizes {script_bytecode_size}/{script_storage_size} are negative"),
            ));
        }
        r.skip(script_storage_size as u64, "script bytecode")?;
        Ok(StructDef {
            name: name.to_string(),
            super_struct,
            children,
            properties,
            script_bytecode_size,
            script_storage_size,
        })
    }

    /// An inner field (`SerializeSingleField`): its class name, `None`
    /// for no field.
    fn single_field(
        &mut self,
        r: &mut Reader<'_>,
        with_flags: bool,
        depth: u32,
    ) -> Result<Option<FieldDef>> {
        let at = r.offset();
        let kind = self.fname(r, "inner property class")?;
        if kind == "None" {
            return Ok(None);
        }
        self.field_def(r, kind, with_flags, depth + 1, at).map(Some)
    }

    /// `FProperty` data of a field of class `kind` (read at `at`).
    fn field_def(
        &mut self,
        r: &mut Reader<'_>,
        kind: String,
        with_flags: bool,
        depth: u32,
        at: u64,
    ) -> Result<FieldDef> {
        if depth > MAX_FIELD_DEPTH {
            return Err(Error::invalid(
                at,
                format!("property definitions nested deeper than {MAX_FIELD_DEPTH} levels"),
            ));
        }
        if !KINDS.contains(&kind.as_str()) {
            return Err(Error::unsupported(
                at,
                format!("property class {kind:?} is not one pakrat can read"),
            ));
        }
        let name = self.fname(r, "property name")?;
        let flags = if with_flags {
            Some(r.u32("field flags")?)
        } else {
            None
        };
        let dim_at = r.offset();
        let array_dim = r.i32("ArrayDim")?;
        let element_size = r.i32("ElementSize")?;
        if !(1..=2048).contains(&array_dim) || element_size < 0 {
            return Err(Error::invalid(
                dim_at,
                format!("property {name}: ArrayDim {array_dim} / ElementSize {element_size} out of range"),
            ));
        }
        let property_flags = r.u64("PropertyFlags")?;
        let rep_index = r.u16("RepIndex")?;
        let rep_notify = self.fname(r, "RepNotifyFunc")?;
        let replication_condition = r.u8("BlueprintReplicationCondition")?;
        let mut f = FieldDef {
            kind,
            name,
            flags,
            array_dim,
            element_size,
            property_flags,
            rep_index,
            rep_notify,
            replication_condition,
            refs: Vec::new(),
            inner: Vec::new(),
        };
        self.field_extra(r, &mut f, with_flags, depth)?;
        Ok(f)
    }

    /// What a property class writes after `FProperty`.
    fn field_extra(
        &mut self,
        r: &mut Reader<'_>,
        f: &mut FieldDef,
        with_flags: bool,
        depth: u32,
    ) -> Result<()> {
        let refs: &[&str] = match f.kind.as_str() {
            "BoolProperty" => {
                // FieldSize, ByteOffset, ByteMask, FieldMask, BoolSize,
                // bIsNativeBool.
                r.bytes(6, "bool property layout")?;
                &[]
            }
            "ByteProperty" => &["Enum"],
            "EnumProperty" => &["Enum"],
            "StructProperty" => &["Struct"],
            "ObjectProperty" | "ObjectPtrProperty" | "WeakObjectProperty"
            | "LazyObjectProperty" | "SoftObjectProperty" => &["PropertyClass"],
            "ClassProperty" | "ClassPtrProperty" | "SoftClassProperty" => {
                &["PropertyClass", "MetaClass"]
            }
            "InterfaceProperty" => &["InterfaceClass"],
            "DelegateProperty"
            | "MulticastDelegateProperty"
            | "MulticastInlineDelegateProperty"
            | "MulticastSparseDelegateProperty" => &["SignatureFunction"],
            "FieldPathProperty" => {
                let c = self.fname(r, "field path property class")?;
                f.refs.push(("PropertyClass".into(), Some(c)));
                &[]
            }
            _ => &[],
        };
        for role in refs {
            let p = self.object(r, role)?;
            f.refs.push(((*role).into(), p));
        }
        let inner: &[&str] = match f.kind.as_str() {
            "EnumProperty" => &["Underlying"],
            "ArrayProperty" => &["Inner"],
            "SetProperty" => &["Element"],
            "OptionalProperty" => &["Value"],
            "MapProperty" => &["Key", "Value"],
            _ => &[],
        };
        for role in inner {
            let i = self.single_field(r, with_flags, depth)?;
            f.inner.push(((*role).into(), i));
        }
        Ok(())
    }

    /// `UFunction` after its `UStruct` data.
    fn function_tail(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let flags = r.u32("function flags")?;
        let mut out = vec![field("FunctionFlags", PropType::UInt32, uint(flags))];
        if flags & FUNC_NET != 0 {
            let rep = r.u16("function replication offset")?;
            out.push(field("RepOffset", PropType::UInt16, uint(rep)));
        }
        if self.ue4() >= UE4_EVENTGRAPH_FASTCALLS || self.ue5() > 0 {
            out.push(obj(
                "EventGraphFunction",
                self.object(r, "event graph function")?,
            ));
            let off = r.i32("event graph call offset")?;
            out.push(field("EventGraphCallOffset", PropType::Int, int(off)));
        }
        Ok(out)
    }

    /// `UClass` (and `UBlueprintGeneratedClass`) after the `UStruct` data.
    fn class_tail(&mut self, r: &mut Reader<'_>, class: &str) -> Result<Vec<Property>> {
        let n = r.i32_count("function map", 12)?;
        let mut funcs = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.fname(r, "function name")?;
            let v = self.object(r, "function")?;
            funcs.push((Value::Name(k), Value::Object(v)));
        }
        let map = |k: PropType, v: PropType| PropType::Map(Box::new(k), Box::new(v));
        let mut out = vec![field(
            "FuncMap",
            map(PropType::Name, PropType::Object),
            Value::Map(funcs),
        )];
        let flags = r.u32("class flags")?;
        out.push(field("ClassFlags", PropType::UInt32, uint(flags)));
        out.push(obj("ClassWithin", self.object(r, "ClassWithin")?));
        let config = self.fname(r, "ClassConfigName")?;
        out.push(field(
            "ClassConfigName",
            PropType::Name,
            Value::Name(config),
        ));
        out.push(obj("ClassGeneratedBy", self.object(r, "ClassGeneratedBy")?));
        let n = r.i32_count("interfaces", 12)?;
        let mut ifaces = Vec::with_capacity(n);
        for _ in 0..n {
            let c = self.object(r, "interface class")?;
            let off = r.i32("interface pointer offset")?;
            let k2 = self.bool32(r, "bImplementedByK2")?;
            ifaces.push(Value::Struct(vec![
                obj("Class", c),
                field("PointerOffset", PropType::Int, int(off)),
                field("bImplementedByK2", PropType::Bool, Value::Bool(k2)),
            ]));
        }
        out.push(field(
            "Interfaces",
            PropType::Array(Box::new(PropType::Struct("ImplementedInterface".into()))),
            Value::Array(ifaces),
        ));
        self.bool32(r, "bDeprecatedForceScriptOrder")?;
        self.fname(r, "legacy class name")?;
        let cooked = self.bool32(r, "bCooked")?;
        out.push(field("bCooked", PropType::Bool, Value::Bool(cooked)));
        let cdo_at = r.offset();
        let cdo = self.object(r, "ClassDefaultObject")?;
        if cdo.is_none() && cooked {
            return Err(Error::invalid(
                cdo_at,
                "a cooked class without its default object",
            ));
        }
        out.push(obj("ClassDefaultObject", cdo));
        if class.ends_with("BlueprintGeneratedClass")
            && self.custom_at_least(FORTNITE_MAIN, FORTNITE_BPGC_EDITOR_TAGS)
            && r.remaining() > 4
        {
            out.push(self.editor_tags(r)?);
        }
        Ok(out)
    }

    /// `UBlueprintGeneratedClass::CookedEditorTags` (name → string).
    fn editor_tags(&mut self, r: &mut Reader<'_>) -> Result<Property> {
        use pakrat_codec::fstring::read_fstring;
        let n = r.i32_count("editor tags", 12)?;
        let mut tags = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.fname(r, "editor tag name")?;
            let v = read_fstring(r, "editor tag value")?;
            tags.push((Value::Name(k), Value::Str(v)));
        }
        Ok(field(
            "EditorTags",
            PropType::Map(Box::new(PropType::Name), Box::new(PropType::Str)),
            Value::Map(tags),
        ))
    }

    /// A `UBOOL`-style `bool` (`u32` 0 or 1).
    fn bool32(&self, r: &mut Reader<'_>, what: &str) -> Result<bool> {
        let at = r.offset();
        match r.u32(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Error::invalid(
                at,
                format!("{what} is {v}, expected 0 or 1"),
            )),
        }
    }

    /// A user-defined struct's default instance, written with the struct's
    /// own schema.
    fn default_instance(
        &mut self,
        r: &mut Reader<'_>,
        def: &StructDef,
    ) -> Result<Option<Property>> {
        if !self.custom_at_least(FRAMEWORK, FRAMEWORK_UDS_DEFAULT_INSTANCE) {
            return Ok(None);
        }
        let layer = Layer {
            one: def.schema(),
            rest: self.schemas,
        };
        let mut sub = Ctx::new(self.asset, &layer);
        let fields = sub.properties(r, &def.name, false)?;
        Ok(Some(field(
            "DefaultInstance",
            PropType::Struct(def.name.clone()),
            Value::Struct(fields),
        )))
    }
}

/// Whether exports of this class are `UFunction`s.
pub(crate) fn is_function(class: &str) -> bool {
    matches!(
        class,
        "Function" | "DelegateFunction" | "SparseDelegateFunction"
    )
}

/// `UUserDefinedStruct::Status` is up to date (the default when the
/// property is absent): only then is the default instance written.
fn up_to_date(props: &[Property]) -> bool {
    props.iter().all(|p| match (&p.name[..], &p.value) {
        ("Status", Value::Enum(v)) => v.ends_with("UDSS_UpToDate"),
        ("Status", Value::UInt(v)) => *v == 0,
        _ => true,
    })
}

/// The `UStruct` part as output fields.
fn def_fields(def: &StructDef) -> Vec<Property> {
    let props = def
        .properties
        .iter()
        .map(|f| {
            let mut s = vec![
                field("Name", PropType::Name, Value::Name(f.name.clone())),
                field("Type", PropType::Str, Value::Str(f.prop_type().to_string())),
            ];
            if f.array_dim != 1 {
                s.push(field("ArrayDim", PropType::Int, int(f.array_dim)));
            }
            s.push(field(
                "PropertyFlags",
                PropType::UInt64,
                Value::UInt(f.property_flags),
            ));
            if f.rep_notify != "None" {
                s.push(field(
                    "RepNotifyFunc",
                    PropType::Name,
                    Value::Name(f.rep_notify.clone()),
                ));
            }
            Value::Struct(s)
        })
        .collect();
    vec![
        obj("SuperStruct", def.super_struct.clone()),
        field(
            "Children",
            PropType::Array(Box::new(PropType::Object)),
            Value::Array(def.children.iter().cloned().map(Value::Object).collect()),
        ),
        field(
            "ChildProperties",
            PropType::Array(Box::new(PropType::Struct("Property".into()))),
            Value::Array(props),
        ),
        field(
            "ScriptBytecodeSize",
            PropType::Int,
            int(def.script_bytecode_size),
        ),
        field(
            "ScriptStorageSize",
            PropType::Int,
            int(def.script_storage_size),
        ),
    ]
}

#[cfg(test)]
#[path = "ustruct_tests.rs"]
mod tests;
