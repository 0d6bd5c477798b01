//! Edits on a hand-built model: apply with no change keeps it, each kind
//! of value set by path and by JSON, refusals with their paths.

use serde_json::json;

use super::*;
use crate::props::{EnumSchema, ExportInfo, NoSchemas, StructSchema, Text, TextHistory, Versions};

fn asset() -> Asset<'static> {
    Asset {
        package: "/Game/T".into(),
        exports: vec![ExportInfo {
            name: "T".into(),
            path: "/Game/T.T".into(),
            class: "/Script/M.Thing".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data: &[],
        }],
        versions: Versions {
            ue4: 522,
            ue5: 1012,
            ..Versions::default()
        },
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

fn model() -> ExportProps {
    let vec3 = Value::Struct(vec![
        prop("X", PropType::Double, Value::Double(1.0)),
        prop("Y", PropType::Double, Value::Double(2.0)),
        prop("Z", PropType::Double, Value::Double(3.0)),
    ]);
    let mut fixed = prop("Fixed", PropType::Int, Value::Int(5));
    fixed.index = 1;
    ExportProps {
        properties: vec![
            prop("Count", PropType::Int, Value::Int(7)),
            prop("Small", PropType::Int8, Value::Int(-1)),
            prop("Byte", PropType::Byte(None), Value::UInt(3)),
            prop("F", PropType::Float, Value::Float(0.5)),
            prop("B", PropType::Bool, Value::Bool(true)),
            prop("S", PropType::Str, Value::Str("hi".into())),
            prop("N", PropType::Name, Value::Name("Foo".into())),
            prop(
                "E",
                PropType::Byte(Some("EKind".into())),
                Value::Enum("EKind::A".into()),
            ),
            prop("O", PropType::Object, Value::Object(None)),
            prop("V", PropType::Struct("Vector".into()), vec3),
            prop(
                "Tags",
                PropType::Array(Box::new(PropType::Name)),
                Value::Array(vec![Value::Name("a".into()), Value::Name("b".into())]),
            ),
            prop(
                "M",
                PropType::Map(Box::new(PropType::Str), Box::new(PropType::Int)),
                Value::Map(vec![(Value::Str("k".into()), Value::Int(1))]),
            ),
            prop(
                "T",
                PropType::Text,
                Value::Text(Box::new(Text {
                    flags: 0,
                    history: TextHistory::Base {
                        namespace: "".into(),
                        key: "K".into(),
                        source: "old".into(),
                    },
                })),
            ),
            prop("Fixed", PropType::Int, Value::Int(4)),
            fixed,
            prop(
                "Blob",
                PropType::Struct("Odd".into()),
                Value::Skipped {
                    size: 4,
                    reason: "unknown struct".into(),
                },
            ),
        ],
        ..ExportProps::default()
    }
}

struct Enums(EnumSchema, StructSchema);

impl Schemas for Enums {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        (name == self.1.name).then_some(&self.1)
    }
    fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        (name == "EKind").then_some(&self.0)
    }
}

fn enums() -> Enums {
    Enums(
        EnumSchema {
            name: "EKind".into(),
            entries: vec![(0, "EKind::A".into()), (1, "EKind::B".into())],
        },
        StructSchema {
            name: "Thing".into(),
            super_name: None,
            property_count: 1,
            properties: vec![crate::props::SchemaProperty {
                index: 0,
                array_dim: 1,
                name: "Absent".into(),
                ty: PropType::Int,
            }],
        },
    )
}

fn set1(path: &str, value: &str) -> Result<(ExportProps, Vec<Change>)> {
    let a = asset();
    let mut p = model();
    let c = set(&a, &enums(), 0, &mut p, path, value)?;
    Ok((p, c))
}

fn get<'p>(p: &'p ExportProps, name: &str) -> &'p Value {
    &p.properties.iter().find(|q| q.name == name).unwrap().value
}

#[test]
fn paths_parse() {
    use Seg::*;
    assert_eq!(
        parse_path(r#"Rows.Row_1.Value[2]["K\"ey"][x]"#).unwrap(),
        vec![
            Field("Rows".into()),
            Field("Row_1".into()),
            Field("Value".into()),
            Index(2),
            Key("K\"ey".into()),
            Key("x".into())
        ]
    );
    for bad in ["", ".X", "A..B", "A[", "A[]", r#"A["x"y]"#, "A[1]B"] {
        assert!(parse_path(bad).is_err(), "{bad}");
    }
}

#[test]
fn scalars_by_type() {
    let (p, c) = set1("Count", "-12").unwrap();
    assert_eq!(get(&p, "Count"), &Value::Int(-12));
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].old.clone(), c[0].new.clone()), (json!(7), json!(-12)));
    assert!(set1("Small", "128")
        .unwrap_err()
        .reason
        .contains("out of range"));
    assert!(set1("Byte", "-1")
        .unwrap_err()
        .reason
        .contains("out of range"));
    assert!(set1("Count", "x").unwrap_err().reason.contains("integer"));
    assert_eq!(get(&set1("F", "1.25").unwrap().0, "F"), &Value::Float(1.25));
    assert!(set1("F", "1e39")
        .unwrap_err()
        .reason
        .contains("out of range"));
    assert_eq!(
        get(&set1("B", "false").unwrap().0, "B"),
        &Value::Bool(false)
    );
    assert!(set1("B", "yes").is_err());
    assert_eq!(
        get(&set1("S", "longer").unwrap().0, "S"),
        &Value::Str("longer".into())
    );
    assert_eq!(
        get(&set1("N", "Bar_2").unwrap().0, "N"),
        &Value::Name("Bar_2".into())
    );
    assert_eq!(
        get(&set1("E", "B").unwrap().0, "E"),
        &Value::Enum("EKind::B".into())
    );
    assert_eq!(
        get(&set1("E", "EKind::B").unwrap().0, "E"),
        &Value::Enum("EKind::B".into())
    );
    assert!(set1("E", "C").unwrap_err().reason.contains("entries: A, B"));
    assert!(set1("E", "EOther::A").is_err());
    let o = set1("O", "/Game/P.A").unwrap().0;
    assert_eq!(get(&o, "O"), &Value::Object(Some("/Game/P.A".into())));
    assert!(set1("O", "P.A").is_err());
    let t = set1("T", "new text").unwrap().0;
    let Value::Text(t) = get(&t, "T") else {
        panic!()
    };
    assert_eq!(
        t.history,
        TextHistory::Base {
            namespace: "".into(),
            key: "K".into(),
            source: "new text".into()
        }
    );
}

#[test]
fn structs_arrays_maps_fixed() {
    let (p, c) = set1("V.Y", "-4.5").unwrap();
    let Value::Struct(f) = get(&p, "V") else {
        panic!()
    };
    assert_eq!(f[1].value, Value::Double(-4.5));
    assert_eq!(c[0].path, "V.Y");
    assert!(set1("V.W", "1")
        .unwrap_err()
        .reason
        .contains("fields: X, Y, Z"));
    let (p, c) = set1("Tags[3]", "d").unwrap();
    assert_eq!(
        get(&p, "Tags"),
        &Value::Array(
            ["a", "b", "None", "d"]
                .map(|s| Value::Name(s.into()))
                .to_vec()
        )
    );
    assert_eq!(c.len(), 2, "{c:?}");
    let p = set1("Tags.len", "1").unwrap().0;
    assert_eq!(
        get(&p, "Tags"),
        &Value::Array(vec![Value::Name("a".into())])
    );
    let (p, c) = set1(r#"M["new"]"#, "9").unwrap();
    assert_eq!(
        get(&p, "M"),
        &Value::Map(vec![
            (Value::Str("k".into()), Value::Int(1)),
            (Value::Str("new".into()), Value::Int(9))
        ])
    );
    assert_eq!(c.last().unwrap().new, json!(9));
    let p = set1("M.k", "2").unwrap().0;
    assert_eq!(
        get(&p, "M"),
        &Value::Map(vec![(Value::Str("k".into()), Value::Int(2))])
    );
    let p = set1("Fixed[1]", "6").unwrap().0;
    assert_eq!(p.properties[14].value, Value::Int(6));
    assert_eq!(p.properties[13].value, Value::Int(4));
    let p = set1("V", r#"{"Z": 9}"#).unwrap().0;
    let Value::Struct(f) = get(&p, "V") else {
        panic!()
    };
    assert_eq!(f[2].value, Value::Double(9.0));
    assert!(set1("V", "9").unwrap_err().reason.contains("JSON"));
}

#[test]
fn refusals_name_the_reason() {
    // Not stored, but the class's schema types it: added.
    let (p, c) = set1("Absent", "7").unwrap();
    assert_eq!(get(&p, "Absent"), &Value::Int(7));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].old, serde_json::Value::Null);
    assert!(set1("Absent", "x").is_err());
    // Without a schema: refused, naming the class.
    let a = asset();
    let mut p = model();
    let e = set(&a, &NoSchemas, 0, &mut p, "Absent", "1").unwrap_err();
    assert!(e.reason.contains("no schema for Thing"), "{e}");
    let e = set1("Nope", "1").unwrap_err();
    assert!(e.reason.contains("no property Nope"), "{e}");
    let e = set1("Blob", "{}").unwrap_err();
    assert!(e.reason.contains("not decoded"), "{e}");
    let e = set1("Count.X", "1").unwrap_err();
    assert!(e.reason.contains("has no .X"), "{e}");
    let a = asset();
    let mut p = model();
    p.error = Some("needs mappings".into());
    assert!(set(&a, &NoSchemas, 0, &mut p, "Count", "1").is_err());
}

fn doc(p: &ExportProps) -> J {
    let a = asset();
    let decoded = [(0usize, p.clone())];
    serde_json::to_value(crate::props::json::PackageJson::new(&a, &decoded)).unwrap()
}

#[test]
fn apply_walks_the_json() {
    let a = asset();
    let m = model();
    let unchanged = json_in::export_from_json(
        &mut Editor::new(&a, &NoSchemas, 0),
        "T",
        &m,
        &doc(&m)["exports"][0],
    )
    .unwrap();
    assert_eq!(unchanged, m);
    let mut j = doc(&m)["exports"][0].clone();
    j["properties"][0]["value"] = json!(8);
    j["properties"][9]["value"]["X"] = json!(0.25);
    j["properties"][10]["value"] = json!(["a", "b", "c"]);
    j["properties"][11]["value"] = json!([{"key": "k", "value": 1}, {"key": "z", "value": 3}]);
    let mut ed = Editor::new(&a, &NoSchemas, 0);
    let out = json_in::export_from_json(&mut ed, "T", &m, &j).unwrap();
    let paths: Vec<&str> = ed.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["Count", "V.X", "Tags[2]", "M[\"z\"]"]);
    assert_eq!(out.properties[0].value, Value::Int(8));
    let mut bad = doc(&m)["exports"][0].clone();
    bad["properties"][3]["value"] = json!("x");
    let e =
        json_in::export_from_json(&mut Editor::new(&a, &NoSchemas, 0), "T", &m, &bad).unwrap_err();
    assert_eq!(e.path, "F");
    let mut bad = doc(&m)["exports"][0].clone();
    bad["properties"][0]["type"] = json!("FloatProperty");
    assert!(
        json_in::export_from_json(&mut Editor::new(&a, &NoSchemas, 0), "T", &m, &bad)
            .unwrap_err()
            .reason
            .contains("types cannot be changed")
    );
    let mut bad = doc(&m)["exports"][0].clone();
    bad["properties"][15]["value"] = json!({"skipped": 5, "reason": "x"});
    assert!(
        json_in::export_from_json(&mut Editor::new(&a, &NoSchemas, 0), "T", &m, &bad)
            .unwrap_err()
            .reason
            .contains("not decoded")
    );
}

#[test]
fn apply_refuses_other_documents() {
    let a = asset();
    assert!(apply_json(&a, &NoSchemas, &json!([1])).is_err());
    assert!(apply_json(
        &a,
        &NoSchemas,
        &json!({"package": "/Game/Other", "exports": []})
    )
    .is_err());
    let e = apply_json(
        &a,
        &NoSchemas,
        &json!({"exports": [{"path": "/Game/T.Nope", "properties": []}]}),
    )
    .unwrap_err();
    assert!(e.reason.contains("no export"), "{e}");
}
