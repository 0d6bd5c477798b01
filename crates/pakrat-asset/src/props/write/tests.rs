//! The encoder on models built by hand: a tree encoded and decoded again
//! comes back equal, edits (a number changed, a string grown, an element
//! added) move tag sizes and the unversioned header, and models that do
//! not fit their types are errors naming the property.

use super::super::{
    decode_export, Asset, ExportInfo, ExportProps, NoSchemas, ObjectInfo, PropType, Property,
    SchemaProperty, Schemas, StructSchema, Value, Versions,
};
use super::{decode_export_for_write, encode_properties, WriteHints};

const NAMES: &[&str] = &[
    "None",
    "IntProperty",
    "StrProperty",
    "ArrayProperty",
    "StructProperty",
    "Vector",
    "BoolProperty",
    "MapProperty",
    "NameProperty",
    "ObjectProperty",
    "Int8Property",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "/Script/CoreUObject",
    "Key",
];

fn asset(data: &[u8], ue5: i32, unversioned: bool) -> Asset<'_> {
    Asset {
        package: "/Game/T".into(),
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        imports: vec![
            ObjectInfo {
                path: "/Script/CoreUObject.Vector".into(),
                class: "/Script/CoreUObject.ScriptStruct".into(),
            },
            ObjectInfo {
                path: "/Script/CoreUObject.InstancedStruct".into(),
                class: "/Script/CoreUObject.ScriptStruct".into(),
            },
        ],
        exports: vec![ExportInfo {
            name: "T".into(),
            path: "/Game/T.T".into(),
            class: "/Script/Core.Inner".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data,
        }],
        versions: Versions {
            ue4: 522,
            ue5,
            ..Versions::default()
        },
        unversioned,
        ..Asset::default()
    }
}

fn prop(name: &str, ty: PropType, value: Value) -> Property {
    Property {
        name: name.into(),
        index: 0,
        ty,
        value,
    }
}

fn vector(x: f64) -> Value {
    Value::Struct(
        ["X", "Y", "Z"]
            .iter()
            .map(|n| prop(n, PropType::Double, Value::Double(x)))
            .collect(),
    )
}

/// A tree of most families.
fn model() -> Vec<Property> {
    vec![
        prop("A", PropType::Int, Value::Int(7)),
        prop("B", PropType::Str, Value::Str("hi".into())),
        prop(
            "C",
            PropType::Array(Box::new(PropType::Int)),
            Value::Array(vec![Value::Int(1), Value::Int(2)]),
        ),
        prop("D", PropType::Struct("Vector".into()), vector(1.5)),
        prop("E", PropType::Bool, Value::Bool(true)),
        prop(
            "F",
            PropType::Map(Box::new(PropType::Name), Box::new(PropType::Int)),
            Value::Map(vec![(Value::Name("Key".into()), Value::Int(3))]),
        ),
        prop(
            "G",
            PropType::Object,
            Value::Object(Some("/Script/CoreUObject.Vector".into())),
        ),
    ]
}

fn props(p: Vec<Property>) -> ExportProps {
    ExportProps {
        properties: p,
        ..ExportProps::default()
    }
}

/// Encode `p` (canonical form), decode it back.
fn round(
    p: &[Property],
    ue5: i32,
    unversioned: bool,
    schemas: &dyn Schemas,
) -> (Vec<u8>, ExportProps) {
    let a = asset(&[], ue5, unversioned);
    let bytes = encode_properties(&a, 0, schemas, &props(p.to_vec()), &WriteHints::default())
        .expect("encodes");
    let a = asset(&bytes, ue5, unversioned);
    let back = decode_export(&a, 0, schemas);
    (bytes, back)
}

#[test]
fn tagged_trees_and_edits_decode_back() {
    for ue5 in [1010, 1017] {
        let mut m = model();
        let (bytes, back) = round(&m, ue5, false, &NoSchemas);
        assert_eq!(back.error, None, "UE5 {ue5}");
        assert_eq!(back.properties, m, "UE5 {ue5}");
        // Edits: a number, a longer string, one more element.
        m[0].value = Value::Int(-40000);
        m[1].value = Value::Str("a much longer string".into());
        m[2].value = Value::Array(vec![Value::Int(1), Value::Int(2), Value::Int(9)]);
        let (edited, back) = round(&m, ue5, false, &NoSchemas);
        assert_eq!(back.properties, m, "UE5 {ue5}");
        // 18 more string bytes, 4 more array bytes.
        assert_eq!(edited.len(), bytes.len() + 18 + 4, "UE5 {ue5}");
    }
}

#[test]
fn edits_keep_hints_and_recompute_tag_sizes() {
    let (bytes, _) = round(&model(), 1017, false, &NoSchemas);
    let a = asset(&bytes, 1017, false);
    let (mut p, hints) = decode_export_for_write(&a, 0, &NoSchemas);
    assert_eq!(
        encode_properties(&a, 0, &NoSchemas, &p, &hints).unwrap(),
        bytes
    );
    p.properties[1].value = Value::Str("longer".into());
    let edited = encode_properties(&a, 0, &NoSchemas, &p, &hints).unwrap();
    let b = asset(&edited, 1017, false);
    assert_eq!(decode_export(&b, 0, &NoSchemas).properties, p.properties);
    assert_eq!(edited.len(), bytes.len() + 4);
}

struct One(StructSchema);

impl Schemas for One {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        (name == self.0.name).then_some(&self.0)
    }
    fn find_enum(&self, _: &str) -> Option<&super::super::EnumSchema> {
        None
    }
}

fn schema() -> One {
    let m = model();
    One(StructSchema {
        name: "Inner".into(),
        super_name: None,
        property_count: m.len() as u16 + 1,
        properties: m
            .iter()
            .enumerate()
            .map(|(i, p)| SchemaProperty {
                index: i as u16 + 1,
                array_dim: 1,
                name: p.name.clone(),
                ty: p.ty.clone(),
            })
            .collect(),
    })
}

#[test]
fn unversioned_trees_and_edits_decode_back() {
    let s = schema();
    let mut m = model();
    m[0].value = Value::Int(0); // zero-masked
    let (bytes, back) = round(&m, 1017, true, &s);
    assert_eq!(back.properties, m);
    // One fragment: skip 1, 7 values, has zeroes, last; then the mask
    // with bit 0 (A) set.
    assert_eq!(&bytes[..3], &[0x81, 0x0f, 0x01]);
    assert_eq!(&bytes[3..7], &[3, 0, 0, 0], "A not written: B's length");
    m[0].value = Value::Int(5);
    m[1].value = Value::Str("longer".into());
    let (edited, back) = round(&m, 1017, true, &s);
    assert_eq!(back.properties, m);
    assert_eq!(&edited[..2], &[0x01, 0x0f], "no zeroes, no mask");
    assert_eq!(&edited[2..6], &[5, 0, 0, 0]);
    // A property given out of schema order is placed in order.
    let mut shuffled = m.clone();
    shuffled.swap(0, 3);
    let a = asset(&[], 1017, true);
    let b = encode_properties(&a, 0, &s, &props(shuffled), &WriteHints::default()).unwrap();
    assert_eq!(b, edited);
    // An empty object skips every property of the schema.
    let (empty, _) = round(&[], 1017, true, &s);
    assert_eq!(&empty[..2], &[0x08, 0x01]);
}

fn refused(p: Vec<Property>, unversioned: bool) -> String {
    let s = schema();
    let a = asset(&[], 1017, unversioned);
    encode_properties(&a, 0, &s, &props(p), &WriteHints::default())
        .expect_err("refused")
        .to_string()
}

#[test]
fn models_that_do_not_fit_are_errors_naming_the_value() {
    let e = refused(
        vec![prop("A", PropType::Int, Value::Str("x".into()))],
        false,
    );
    assert!(
        e.contains("/A[0]") && e.contains("cannot hold a string"),
        "{e}"
    );
    let e = refused(vec![prop("A", PropType::Int8, Value::Int(300))], false);
    assert!(e.contains("300 does not fit"), "{e}");
    let e = refused(
        vec![prop("A", PropType::Name, Value::Name("Nope".into()))],
        false,
    );
    assert!(e.contains("not in the package's name map"), "{e}");
    let e = refused(vec![prop("Nope", PropType::Int, Value::Int(1))], false);
    assert!(e.contains("Nope"), "{e}");
    let e = refused(
        vec![prop(
            "G",
            PropType::Object,
            Value::Object(Some("/Game/X.X".into())),
        )],
        false,
    );
    assert!(e.contains("/Game/X.X"), "{e}");
    let e = refused(
        vec![prop(
            "C",
            PropType::Array(Box::new(PropType::Int)),
            Value::Array(vec![Value::Int(1), Value::Bool(true)]),
        )],
        false,
    );
    assert!(e.contains("/C[0]#1"), "{e}");
    let e = refused(
        vec![prop(
            "A",
            PropType::Int,
            Value::Skipped {
                size: 4,
                reason: "x".into(),
            },
        )],
        false,
    );
    assert!(e.contains("not decoded"), "{e}");
    let e = refused(
        vec![prop("D", PropType::Struct("Vector".into()), Value::Int(1))],
        false,
    );
    assert!(e.contains("Vector"), "{e}");
    // Unversioned: not in the schema, the wrong type, twice.
    let e = refused(vec![prop("H", PropType::Int, Value::Int(1))], true);
    assert!(e.contains("no property H"), "{e}");
    let e = refused(vec![prop("A", PropType::Str, Value::Str("x".into()))], true);
    assert!(e.contains("IntProperty in the mappings"), "{e}");
    let e = refused(
        vec![
            prop("A", PropType::Int, Value::Int(1)),
            prop("A", PropType::Int, Value::Int(2)),
        ],
        true,
    );
    assert!(e.contains("given twice"), "{e}");
}

#[test]
fn deep_and_odd_models_are_errors_not_panics() {
    let mut v = Value::Int(1);
    let mut ty = PropType::Int;
    for _ in 0..200 {
        v = Value::Array(vec![v]);
        ty = PropType::Array(Box::new(ty));
    }
    let e = refused(vec![prop("C", ty, v)], false);
    assert!(e.contains("nested deeper"), "{e}");
    let e = refused(
        vec![prop("A", PropType::Unknown("Odd".into()), Value::Int(1))],
        false,
    );
    assert!(e.contains("Odd"), "{e}");
    // Every family under every type: errors or bytes, never a panic.
    let values = [
        Value::Bool(true),
        Value::Int(i64::MIN),
        Value::UInt(u64::MAX),
        Value::Float(f32::NAN),
        Value::Enum("E::(999)".into()),
        Value::Struct(vec![]),
        Value::Optional(None),
        Value::Map(vec![]),
    ];
    let types = [
        PropType::Byte(None),
        PropType::Byte(Some("E".into())),
        PropType::Enum {
            name: "E".into(),
            underlying: Some(Box::new(PropType::Int8)),
        },
        PropType::Struct(String::new()),
        PropType::Struct("Vector".into()),
        PropType::Optional(Box::new(PropType::Int)),
        PropType::UInt16,
        PropType::Text,
    ];
    for unversioned in [false, true] {
        for t in &types {
            for v in &values {
                let s = schema();
                let a = asset(&[], 1017, unversioned);
                let p = props(vec![prop("A", t.clone(), v.clone())]);
                let _ = encode_properties(&a, 0, &s, &p, &WriteHints::default());
            }
        }
    }
}
