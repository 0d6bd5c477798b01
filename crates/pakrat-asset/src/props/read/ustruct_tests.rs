//! `UStruct` data built by hand: every property class, both `FField`
//! forms, the class, struct and function tails, and hostile data
//! (truncated, huge counts, deep nesting, unknown classes).

use crate::props::own::PackageSchemas;
use crate::props::schema::{EnumSchema, Schemas, StructSchema};
use crate::props::{
    decode_export, Asset, ExportInfo, ExportProps, NoSchemas, ObjectInfo, PropType, Value, Versions,
};

/// Bytes of an export with a name map that grows as names are used.
#[derive(Default)]
struct B {
    names: Vec<String>,
    buf: Vec<u8>,
}

impl B {
    fn name(&mut self, s: &str) -> &mut Self {
        let i = match self.names.iter().position(|n| n == s) {
            Some(i) => i,
            None => {
                self.names.push(s.to_string());
                self.names.len() - 1
            }
        };
        self.u32(i as u32).u32(0)
    }
    fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn fstring(&mut self, s: &str) -> &mut Self {
        self.i32(s.len() as i32 + 1);
        self.buf.extend_from_slice(s.as_bytes());
        self.u8(0)
    }

    /// An `FProperty` of class `kind` (its class name, then the field),
    /// `extra` writing what the class adds.
    fn field(&mut self, flags: bool, kind: &str, name: &str, dim: i32, extra: impl FnOnce(&mut B)) {
        self.name(kind).name(name);
        if flags {
            self.u32(0x8);
        }
        self.i32(dim).i32(4).u64(5).u16(0).name("None").u8(0);
        extra(self);
    }
}

/// Imports the test data refers to: -1 a class, -2 a struct, -3 an enum.
fn imports() -> Vec<ObjectInfo> {
    let o = |path: &str, class: &str| ObjectInfo {
        path: path.into(),
        class: class.into(),
    };
    vec![
        o("/Script/Engine.Actor", "/Script/CoreUObject.Class"),
        o(
            "/Script/CoreUObject.Vector",
            "/Script/CoreUObject.ScriptStruct",
        ),
        o("/Script/Engine.EFoo", "/Script/CoreUObject.Enum"),
    ]
}

fn export<'a>(name: &str, class: &str, flags: u32, data: &'a [u8]) -> ExportInfo<'a> {
    ExportInfo {
        name: name.into(),
        path: format!("/Game/T.{name}"),
        class: class.into(),
        outer: None,
        super_struct: None,
        template: None,
        object_flags: flags,
        offset: 0,
        data,
    }
}

fn asset<'a>(names: &[String], exports: Vec<ExportInfo<'a>>, unversioned: bool) -> Asset<'a> {
    Asset {
        package: "/Game/T".into(),
        names: names.to_vec(),
        imports: imports(),
        exports,
        soft_object_paths: Vec::new(),
        versions: Versions {
            ue4: 522,
            ue5: 1018,
            licensee: 0,
            custom: Vec::new(),
            custom_from_package: false,
        },
        unversioned,
        bulk: Default::default(),
    }
}

/// A tagged object's empty property stream and GUID flag.
fn tagged_prefix(b: &mut B) {
    b.u8(0).name("None").u32(0);
}

/// `ChildProperties` with every property class the reader knows.
fn every_field(b: &mut B, flags: bool) {
    b.i32(17);
    b.field(flags, "BoolProperty", "B", 1, |b| {
        b.buf.extend_from_slice(&[1, 0, 1, 0xff, 1, 1]);
    });
    b.field(flags, "IntProperty", "I", 3, |_| {});
    b.field(flags, "StructProperty", "V", 1, |b| {
        b.i32(-2);
    });
    b.field(flags, "ByteProperty", "E1", 1, |b| {
        b.i32(-3);
    });
    b.field(flags, "EnumProperty", "E2", 1, |b| {
        b.i32(-3);
        b.field(flags, "ByteProperty", "UnderlyingType", 1, |b| {
            b.i32(0);
        });
    });
    b.field(flags, "MapProperty", "M", 1, |b| {
        b.field(flags, "NameProperty", "M_Key", 1, |_| {});
        b.field(flags, "ArrayProperty", "M", 1, |b| {
            b.field(flags, "StructProperty", "M", 1, |b| {
                b.i32(-2);
            });
        });
    });
    b.field(flags, "SetProperty", "S", 1, |b| {
        b.field(flags, "IntProperty", "S", 1, |_| {});
    });
    b.field(flags, "OptionalProperty", "O", 1, |b| {
        b.field(flags, "StrProperty", "O", 1, |_| {});
    });
    b.field(flags, "ClassProperty", "C", 1, |b| {
        b.i32(-1).i32(-1);
    });
    b.field(flags, "SoftClassProperty", "SC", 1, |b| {
        b.i32(-1).i32(-1);
    });
    b.field(flags, "SoftObjectProperty", "SO", 1, |b| {
        b.i32(-1);
    });
    b.field(flags, "InterfaceProperty", "If", 1, |b| {
        b.i32(-1);
    });
    b.field(flags, "DelegateProperty", "D", 1, |b| {
        b.i32(0);
    });
    b.field(flags, "MulticastSparseDelegateProperty", "MD", 1, |b| {
        b.i32(0);
    });
    b.field(flags, "FieldPathProperty", "FP", 1, |b| {
        b.name("IntProperty");
    });
    b.field(flags, "TextProperty", "T", 1, |_| {});
    b.field(flags, "ArrayProperty", "NoInner", 1, |b| {
        b.name("None");
    });
}

/// A Blueprint class export: `UStruct`, `UClass`, editor tags.
fn class_bytes(flags: bool) -> B {
    let mut b = B::default();
    tagged_prefix(&mut b);
    b.i32(-1); // SuperStruct
    b.i32(1).i32(0); // Children
    every_field(&mut b, flags);
    b.i32(8).i32(3).u8(1).u8(2).u8(3); // script sizes and bytes
    b.i32(1).name("Tick").i32(0); // FuncMap
    b.u32(0x84_0000).i32(-1).name("Engine").i32(0);
    b.i32(1).i32(-1).i32(0).u32(1); // Interfaces
    b.u32(0).name("None").u32(1).i32(2); // legacy fields, bCooked, CDO
    b.i32(1).name("BlueprintType").fstring("BPTYPE_Normal");
    b
}

fn class_asset(b: &B) -> Asset<'_> {
    asset(
        &b.names,
        vec![
            export("T_C", "/Script/Engine.BlueprintGeneratedClass", 0, &b.buf),
            export("Default__T_C", "/Game/T.T_C", 0x10, &[]),
        ],
        false,
    )
}

fn native<'p>(p: &'p ExportProps, name: &str) -> &'p Value {
    &p.native
        .iter()
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", p.native))
        .value
}

#[test]
fn every_property_class_in_both_field_forms() {
    for flags in [false, true] {
        let b = class_bytes(flags);
        let a = class_asset(&b);
        let p = decode_export(&a, 0, &NoSchemas);
        assert_eq!(p.error, None, "flags {flags}");
        assert_eq!(p.native_unread, 0, "flags {flags}");
        assert_eq!(native(&p, "ScriptStorageSize"), &Value::Int(3));
        assert_eq!(native(&p, "ClassFlags"), &Value::UInt(0x84_0000));
        assert_eq!(
            native(&p, "ClassDefaultObject"),
            &Value::Object(Some("/Game/T.Default__T_C".into()))
        );
        let Value::Array(props) = native(&p, "ChildProperties") else {
            panic!()
        };
        assert_eq!(props.len(), 17);
        let own = PackageSchemas::of(&a, &NoSchemas);
        assert!(own.problems.is_empty(), "{:?}", own.problems);
        let s = &own.structs["T_C"];
        assert_eq!(s.super_name.as_deref(), Some("Actor"));
        assert_eq!(s.property_count, 19, "I takes three indices");
        let got: Vec<(u16, &str, String)> = s
            .properties
            .iter()
            .map(|p| (p.index, p.name.as_str(), p.ty.to_string()))
            .collect();
        let want = [
            (0, "B", "BoolProperty"),
            (1, "I", "IntProperty"),
            (4, "V", "StructProperty(Vector)"),
            (5, "E1", "ByteProperty(EFoo)"),
            (6, "E2", "EnumProperty(EFoo,ByteProperty)"),
            (
                7,
                "M",
                "MapProperty(NameProperty,ArrayProperty(StructProperty(Vector)))",
            ),
            (8, "S", "SetProperty(IntProperty)"),
            (9, "O", "OptionalProperty(StrProperty)"),
            (10, "C", "ClassProperty"),
            (11, "SC", "SoftClassProperty"),
            (12, "SO", "SoftObjectProperty"),
            (13, "If", "InterfaceProperty"),
            (14, "D", "DelegateProperty"),
            (15, "MD", "MulticastSparseDelegateProperty"),
            (16, "FP", "FieldPathProperty"),
            (17, "T", "TextProperty"),
        ];
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1, g.2.as_str()), w, "flags {flags}");
        }
        assert!(
            matches!(s.properties[16].ty, PropType::Array(ref t) if matches!(**t, PropType::Unknown(_)))
        );
    }
}

#[test]
fn truncated_class_data_is_an_error_never_a_panic() {
    let b = class_bytes(false);
    let full = decode_export(&class_asset(&b), 0, &NoSchemas);
    // The property stream and GUID flag take 13 bytes; cut inside the
    // native data at every length.
    for cut in 13..b.buf.len() {
        let short = B {
            names: b.names.clone(),
            buf: b.buf[..cut].to_vec(),
        };
        let a = class_asset(&short);
        let p = decode_export(&a, 0, &NoSchemas);
        assert!(
            p.error.is_some() || p.native != full.native,
            "cut at {cut} decodes like the whole"
        );
        let own = PackageSchemas::of(&a, &NoSchemas);
        // The class tail and editor tags take the last 102 bytes.
        let body_end = b.buf.len() - 102;
        if cut < body_end {
            assert!(
                own.structs.is_empty() && own.problems.len() == 1,
                "cut {cut}"
            );
        }
    }
}

/// Class bytes with `f` writing the `UStruct` part from the super-struct
/// on.
fn custom_class(f: impl FnOnce(&mut B)) -> (B, String) {
    let mut b = B::default();
    tagged_prefix(&mut b);
    f(&mut b);
    let err = {
        let a = class_asset(&b);
        let p = decode_export(&a, 0, &NoSchemas);
        let own = PackageSchemas::of(&a, &NoSchemas);
        assert_eq!(own.problems.len(), 1);
        assert_eq!(
            Some(&own.problems[0].1),
            p.error
                .as_ref()
                .map(|e| {
                    // decode_export names the class family in front.
                    &e["native data of BlueprintGeneratedClass: ".len()..]
                })
                .map(|s| s.to_string())
                .as_ref()
        );
        p.error.unwrap_or_default()
    };
    (b, err)
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(i32::MAX);
    });
    assert!(e.contains("children: count 2147483647"), "{e}");
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(0).i32(0x1000_0000);
    });
    assert!(e.contains("child properties: count 268435456"), "{e}");
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(0).i32(0).i32(0).i32(i32::MAX);
    });
    assert!(e.contains("script bytecode"), "{e}");
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(-5);
    });
    assert!(e.contains("negative count"), "{e}");
}

#[test]
fn deep_nesting_and_unknown_classes_are_refused() {
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(0).i32(1);
        fn nest(b: &mut B, n: u32) {
            b.field(false, "ArrayProperty", "A", 1, |b| {
                if n == 0 {
                    b.name("None");
                } else {
                    nest(b, n - 1);
                }
            });
        }
        nest(b, 40);
        b.i32(0).i32(0);
    });
    assert!(e.contains("nested deeper than 16"), "{e}");
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(0).i32(1);
        b.field(false, "VerseStringProperty", "V", 1, |_| {});
        b.i32(0).i32(0);
    });
    assert!(
        e.contains("\"VerseStringProperty\" is not one pakrat can read"),
        "{e}"
    );
    let (_, e) = custom_class(|b| {
        b.i32(-1).i32(0).i32(1);
        b.field(false, "IntProperty", "I", 0, |_| {});
        b.i32(0).i32(0);
    });
    assert!(e.contains("ArrayDim 0"), "{e}");
    let (_, e) = custom_class(|b| {
        b.i32(99);
    });
    assert!(e.contains("object index 99"), "{e}");
}

/// `UserDefinedStruct` mappings: its own properties are empty here.
struct UdsClass(StructSchema);

impl Schemas for UdsClass {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        (name == "UserDefinedStruct").then_some(&self.0)
    }
    fn find_enum(&self, _: &str) -> Option<&EnumSchema> {
        None
    }
}

#[test]
fn user_defined_struct_default_instance_uses_its_own_schema() {
    let mut b = B::default();
    b.u16(0x100).u32(0); // no properties, no GUID
    b.i32(0).i32(0).i32(2);
    b.field(false, "IntProperty", "Count_2_ABC", 1, |_| {});
    b.field(false, "StrProperty", "Label_4_DEF", 1, |_| {});
    b.i32(0).i32(0).u32(0x201); // script sizes, struct flags
    b.u16((2 << 9) | 0x100).i32(1337).fstring("hi"); // default instance
    let a = asset(
        &b.names,
        vec![export("S", "/Script/Engine.UserDefinedStruct", 0, &b.buf)],
        true,
    );
    let m = UdsClass(StructSchema {
        name: "UserDefinedStruct".into(),
        super_name: None,
        property_count: 0,
        properties: Vec::new(),
    });
    let p = decode_export(&a, 0, &m);
    assert_eq!(p.error, None);
    assert_eq!(p.native_unread, 0);
    assert_eq!(native(&p, "StructFlags"), &Value::UInt(0x201));
    let Value::Struct(d) = native(&p, "DefaultInstance") else {
        panic!()
    };
    assert_eq!(d[0].value, Value::Int(1337));
    assert_eq!(d[1].value, Value::Str("hi".into()));
    let own = PackageSchemas::of(&a, &m);
    assert_eq!(own.structs["S"].property_count, 2);
    assert_eq!(own.structs["S"].super_name, None);
}

#[test]
fn net_function_tail() {
    let mut b = B::default();
    tagged_prefix(&mut b);
    b.i32(0).i32(0).i32(0).i32(0).i32(0);
    b.u32(0x40).u16(7).i32(0).i32(-1);
    let a = asset(
        &b.names,
        vec![export("F", "/Script/CoreUObject.Function", 0, &b.buf)],
        false,
    );
    let p = decode_export(&a, 0, &NoSchemas);
    assert_eq!(p.error, None);
    assert_eq!(p.native_unread, 0);
    assert_eq!(native(&p, "RepOffset"), &Value::UInt(7));
    assert_eq!(native(&p, "EventGraphCallOffset"), &Value::Int(-1));
}
