//! The decoder on bytes built by hand: old tags (UE 4.27), UE 5.4+
//! complete type names, unversioned fragments and zero masks, and hostile
//! streams that must end in an error.

use super::super::{
    decode_export, Asset, EnumSchema, ExportInfo, NoSchemas, PropType, SchemaProperty, Schemas,
    StructSchema, Value, Versions,
};

const NAMES: &[&str] = &[
    "None",           // 0
    "IntProperty",    // 1
    "BoolProperty",   // 2
    "StructProperty", // 3
    "Vector",         // 4
    "ArrayProperty",  // 5
    "MapProperty",    // 6
    "NameProperty",   // 7
    "ByteProperty",   // 8
    "EColor",         // 9
    "EColor::Red",    // 10
    "A",              // 11
    "B",              // 12
    "C",              // 13
    "Inner",          // 14
    "/Script/Core",   // 15
];

/// Little writer for test streams.
#[derive(Default)]
struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f32(&mut self, v: f32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn name(&mut self, i: i32) -> &mut Self {
        self.i32(i).i32(0)
    }
    /// An old-style tag head: name, type, size, index.
    fn tag(&mut self, name: i32, ty: i32, size: i32) -> &mut Self {
        self.name(name).name(ty).i32(size).i32(0)
    }
}

fn asset(data: &[u8], ue5: i32, unversioned: bool) -> Asset<'_> {
    Asset {
        package: "/Game/T".into(),
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        exports: vec![ExportInfo {
            name: "T".into(),
            path: "/Game/T.T".into(),
            class: "/Script/Core.Inner".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0x10, // a class default: no object GUID after
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

#[test]
fn ue4_tags_of_every_shape() {
    let mut w = W::default();
    // A = 7 (IntProperty)
    w.tag(11, 1, 4).u8(0).i32(7);
    // B = true (BoolProperty: value in the tag, no bytes)
    w.tag(11 + 1, 2, 0).u8(1).u8(0);
    // C = Vector(1,2,3) as floats (no large world coordinates in UE4)
    w.tag(13, 3, 12).name(4).0.extend_from_slice(&[0; 16]);
    w.u8(0).f32(1.0).f32(2.0).f32(3.0);
    // Inner = [Vector(4,5,6)]: count, inner tag naming the struct, elements
    let inner_tag_len = 8 + 8 + 4 + 4 + 8 + 16 + 1;
    w.tag(14, 5, 4 + inner_tag_len + 12).name(3).u8(0);
    w.i32(1)
        .tag(14, 3, 12)
        .name(4)
        .0
        .extend_from_slice(&[0; 16]);
    w.u8(0).f32(4.0).f32(5.0).f32(6.0);
    // A (byte enum) = EColor::Red, stored as a name
    w.tag(11, 8, 8).name(9).u8(0).name(10);
    // B = {A: 1} (Map of names to ints)
    w.tag(12, 6, 4 + 4 + 8 + 4).name(7).name(1).u8(0);
    w.i32(0).i32(1).name(11).i32(1);
    w.name(0);
    let a = asset(&w.0, 0, false);
    let p = decode_export(&a, 0, &NoSchemas);
    assert_eq!(p.error, None);
    let v: Vec<_> = p
        .properties
        .iter()
        .map(|p| (&p.name[..], &p.value))
        .collect();
    assert_eq!(v[0], ("A", &Value::Int(7)));
    assert_eq!(v[1], ("B", &Value::Bool(true)));
    let Value::Struct(c) = v[2].1 else {
        panic!("{:?}", v[2])
    };
    assert_eq!(c[2].value, Value::Float(3.0));
    let Value::Array(arr) = v[3].1 else {
        panic!("{:?}", v[3])
    };
    let Value::Struct(e) = &arr[0] else { panic!() };
    assert_eq!(e[0].value, Value::Float(4.0));
    assert_eq!(
        p.properties[3].ty,
        PropType::Array(Box::new(PropType::Struct(String::new())))
    );
    assert_eq!(v[4], ("A", &Value::Enum("EColor::Red".into())));
    assert_eq!(
        v[5].1,
        &Value::Map(vec![(Value::Name("A".into()), Value::Int(1))])
    );
    assert_eq!(p.native_unread, 0);
}

#[test]
fn ue5_complete_type_names_and_flags() {
    let mut w = W::default();
    w.u8(0); // class serialization control extension
             // A[2] = 9: IntProperty, flags HasArrayIndex
    w.name(11).name(1).i32(0).i32(4).u8(0x01).i32(2).i32(9);
    // B = true: BoolProperty, flags BoolTrue | HasPropertyGuid
    w.name(12)
        .name(2)
        .i32(0)
        .i32(0)
        .u8(0x12)
        .0
        .extend_from_slice(&[7; 16]);
    // C = Vector (doubles): StructProperty(Vector(/Script/Core))
    w.name(13).name(3).i32(1).name(4).i32(1).name(15).i32(0);
    w.i32(24).u8(0x08);
    for x in [1.5f64, 2.5, 3.5] {
        w.0.extend_from_slice(&x.to_le_bytes());
    }
    w.name(0);
    let a = asset(&w.0, 1018, false);
    let p = decode_export(&a, 0, &NoSchemas);
    assert_eq!(p.error, None);
    assert_eq!(
        (p.properties[0].index, &p.properties[0].value),
        (2, &Value::Int(9))
    );
    assert_eq!(p.properties[1].value, Value::Bool(true));
    assert_eq!(p.properties[2].ty, PropType::Struct("Vector".into()));
    let Value::Struct(c) = &p.properties[2].value else {
        panic!()
    };
    assert_eq!(c[1].value, Value::Double(2.5));
}

struct TwoLevel(Vec<StructSchema>, EnumSchema);

impl Schemas for TwoLevel {
    fn find_struct(&self, n: &str) -> Option<&StructSchema> {
        self.0.iter().find(|s| s.name == n)
    }
    fn find_enum(&self, n: &str) -> Option<&EnumSchema> {
        (self.1.name == n).then_some(&self.1)
    }
}

fn prop(index: u16, dim: u8, name: &str, ty: PropType) -> SchemaProperty {
    SchemaProperty {
        index,
        array_dim: dim,
        name: name.into(),
        ty,
    }
}

fn two_level() -> TwoLevel {
    let base = StructSchema {
        name: "Base".into(),
        super_name: None,
        property_count: 1,
        properties: vec![prop(0, 1, "BaseValue", PropType::Int)],
    };
    let inner = StructSchema {
        name: "Inner".into(),
        super_name: Some("Base".into()),
        property_count: 4,
        properties: vec![
            prop(0, 2, "Pair", PropType::Int),
            prop(
                2,
                1,
                "Color",
                PropType::Enum {
                    name: "EColor".into(),
                    underlying: Some(Box::new(PropType::Byte(None))),
                },
            ),
            prop(3, 1, "Flag", PropType::Bool),
        ],
    };
    let e = EnumSchema {
        name: "EColor".into(),
        entries: vec![(0, "EColor::Red".into()), (5, "Blue".into())],
    };
    TwoLevel(vec![inner, base], e)
}

#[test]
fn unversioned_fragments_zero_mask_and_super_after_own() {
    let mut w = W::default();
    // One fragment: skip 1 (Pair[0]), 4 values (Pair[1], Color, Flag,
    // BaseValue), has zeroes, last.
    w.u16(1 | 0x80 | 0x100 | (4 << 9));
    // Zero mask (4 values → one byte): Flag (bit 2) is zero.
    w.u8(0b0100);
    w.i32(-3); // Pair[1]
    w.u8(5); // Color = Blue
    w.i32(42); // BaseValue (the super-struct's, after Inner's own)
    let a = asset(&w.0, 1018, true);
    let p = decode_export(&a, 0, &two_level());
    assert_eq!(p.error, None, "{p:?}");
    let got: Vec<_> = p
        .properties
        .iter()
        .map(|p| (p.name.as_str(), p.index, p.value.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Pair", 1, Value::Int(-3)),
            ("Color", 0, Value::Enum("EColor::Blue".into())),
            ("Flag", 0, Value::Bool(false)),
            ("BaseValue", 0, Value::Int(42)),
        ]
    );
    // Without mappings the export says what it needs.
    let p = decode_export(&a, 0, &NoSchemas);
    assert!(p
        .error
        .unwrap()
        .starts_with("needs mappings for class Inner"));
}

#[test]
fn hostile_streams_end_in_errors() {
    // An array count larger than the bytes.
    let mut w = W::default();
    w.tag(11, 5, 8).name(1).u8(0).i32(i32::MAX).i32(0);
    w.name(0);
    let a = asset(&w.0, 0, false);
    let p = decode_export(&a, 0, &NoSchemas);
    let Value::Skipped { reason, .. } = &p.properties[0].value else {
        panic!("{p:?}")
    };
    assert!(reason.contains("count"), "{reason}");
    // A size past the end of the export.
    let mut w = W::default();
    w.tag(11, 1, 1000).u8(0).i32(1);
    let a = asset(&w.0, 0, false);
    assert!(decode_export(&a, 0, &NoSchemas)
        .error
        .unwrap()
        .contains("size 1000"));
    // A name index outside the name map.
    let mut w = W::default();
    w.name(9999);
    let a = asset(&w.0, 0, false);
    assert!(decode_export(&a, 0, &NoSchemas)
        .error
        .unwrap()
        .contains("name map"));
    // Type names nested past the depth limit (UE 5.4+ form).
    let mut w = W::default();
    w.u8(0).name(11);
    for _ in 0..200 {
        w.name(5).i32(1);
    }
    let a = asset(&w.0, 1018, false);
    let e = decode_export(&a, 0, &NoSchemas).error.unwrap();
    assert!(e.contains("nested") || e.contains("parameter"), "{e}");
    // Unversioned: a value index past the schema.
    let mut w = W::default();
    w.u16(0x100 | (10 << 9)).0.extend_from_slice(&[0; 64]);
    let a = asset(&w.0, 1018, true);
    let e = decode_export(&a, 0, &two_level()).error.unwrap();
    assert!(e.contains("past the"), "{e}");
}
