//! The `props --json` shape shared with UE4/UE5 (`pakrat_classic::json`),
//! one test per value rule, on a hand-built v128 package whose class,
//! array, byte and enum definitions are in the package.

mod support;
use support::{build, Exp};

use pakrat_classic::json::{f32_json, PropsJson};
use pakrat_classic::props::read_object;
use pakrat_classic::Package;
use serde_json::{json, Value as Json};

const NAMES: &[&str] = &[
    "None",          // 0
    "Core",          // 1
    "Class",         // 2
    "ArrayProperty", // 3
    "IntProperty",   // 4
    "ByteProperty",  // 5
    "Enum",          // 6
    "MyClass",       // 7
    "Vals",          // 8
    "Mode",          // 9
    "EMode",         // 10
    "Off",           // 11
    "On",            // 12
    "Obj1",          // 13
    "Target",        // 14
    "Fixed",         // 15
    "Ratio",         // 16
    "Loc",           // 17
    "Vector",        // 18
    "Pair",          // 19
    "A",             // 20
    "Group1",        // 21
    "Package",       // 22
    "Object",        // 23
    "Raw",           // 24
    "bOn",           // 25
];

/// Property export data: empty tagged list, SuperField, Next, ArrayDim 1,
/// PropertyFlags 0, Category None; then the subclass's reference.
const ARR: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3]; // Inner = export 2
const INT: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
const BYTE: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5]; // Enum = export 4
/// Enum: empty tagged list, SuperField, Next, 2 names: Off, On.
const ENUM: &[u8] = &[0, 0, 0, 2, 11, 12];

#[rustfmt::skip]
const OBJ: &[u8] = &[
    9, 0x01, 1,                          // Mode = 1 (EMode::On)
    9, 0x81, 1, 5,                       // Mode[1] = 5 (no such value)
    8, 0x59, 9, 2, 7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, // Vals = [7, -1]
    14, 0x05, 0,                         // Target = None
    14, 0x85, 1, 7,                      // Target[1] = export 6 (Group1.Obj1)
    14, 0x85, 2, 0x87,                   // Target[2] = import 6 (Core.Object)
    15, 0x22, 1, 0, 0, 0,                // Fixed = 1
    15, 0xA2, 1, 2, 0, 0, 0,             // Fixed[1] = 2
    16, 0x24, 0xCD, 0xCC, 0xCC, 0x3D,    // Ratio = 0.1f32
    16, 0xA4, 1, 0, 0, 0xC0, 0x7F,       // Ratio[1] = NaN
    16, 0xA4, 2, 0, 0, 0x80, 0xFF,       // Ratio[2] = -inf
    16, 0xA4, 3, 0, 0, 0x80, 0x7F,       // Ratio[3] = +inf
    16, 0xA4, 4, 1, 0, 0, 0,             // Ratio[4] = smallest subnormal
    17, 0x3A, 18, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0, 0, 0, 0x50, 0x40, // Loc: Vector (1.5, -2, 3.25)
    19, 0x5A, 19, 17,                    // Pair: struct Pair, 17 bytes, tagged:
        20, 0x22, 1, 0, 0, 0,            //   A = 1
        20, 0xA2, 1, 2, 0, 0, 0,         //   A[1] = 2
        14, 0x05, 7,                     //   Target = Group1.Obj1
        0,                               //   None
    24, 0x59, 3, 1, 0xAA, 0xBB,          // Raw: array of 1 (2 bytes), no definition
    25, 0x83,                            // bOn = true
    0,                                   // None
    0xDE, 0xAD, 0xBE,                    // native data
];

fn package() -> Vec<u8> {
    let imports = [
        (1, 2, 0, 3),   // -1 ArrayProperty
        (1, 2, 0, 4),   // -2 IntProperty
        (1, 2, 0, 5),   // -3 ByteProperty
        (1, 2, 0, 6),   // -4 Enum
        (1, 22, 0, 1),  // -5 Core (a package)
        (1, 2, -5, 22), // -6 Core.Package
        (1, 2, -5, 23), // -7 Core.Object
    ];
    let exports: [Exp; 7] = [
        (0, 0, 0, 7, 0, &[]),    // 0 MyClass
        (-1, 0, 1, 8, 0, ARR),   // 1 MyClass.Vals
        (-2, 0, 2, 8, 0, INT),   // 2 its Inner
        (-3, 0, 1, 9, 0, BYTE),  // 3 MyClass.Mode
        (-4, 0, 1, 10, 0, ENUM), // 4 MyClass.EMode
        (-6, 0, 0, 21, 0, &[]),  // 5 Group1
        (1, 0, 6, 13, 0, OBJ),   // 6 Group1.Obj1 (a MyClass)
    ];
    let mut p = build(NAMES, &imports, &exports);
    p[4..6].copy_from_slice(&128u16.to_le_bytes());
    p
}

/// The entry of export 6 and its properties by (name, index).
fn obj1() -> Json {
    let data = package();
    let p = Package::parse(&data).unwrap();
    let o = read_object(&p, 6).unwrap();
    PropsJson::new(&p, "Pkg").export(6, Ok(&o))
}

fn prop<'j>(e: &'j Json, name: &str, index: u64) -> &'j Json {
    e["properties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name && p["index"].as_u64().unwrap_or(0) == index)
        .unwrap_or_else(|| panic!("{name}[{index}] in {e:#}"))
}

#[test]
fn export_envelope() {
    let e = obj1();
    assert_eq!(e["name"], "Obj1");
    assert_eq!(e["path"], "Pkg.Group1.Obj1");
    assert_eq!(e["class"], "Pkg.MyClass");
    assert_eq!(e["outer"], "Pkg.Group1");
    assert_eq!(e["native"], json!({"fields": [], "unread": 3}));
    assert!(e.get("error").is_none(), "{e:#}");
    assert_eq!(e["properties"].as_array().unwrap().len(), 17);
    // A top-level export has no outer; a class's class is Core.Class.
    let data = package();
    let p = Package::parse(&data).unwrap();
    let js = PropsJson::new(&p, "Pkg");
    let c = js.export(0, Ok(&read_object(&p, 0).unwrap()));
    assert_eq!(
        (&c["outer"], &c["class"]),
        (&Json::Null, &json!("Core.Class"))
    );
    // An export that does not decode says why, with no properties.
    let bad = js.export(6, Err("at offset 0x10: broken".into()));
    assert_eq!(bad["error"], "at offset 0x10: broken");
    assert_eq!(
        (&bad["properties"], &bad["native"]),
        (&json!([]), &Json::Null)
    );
}

#[test]
fn object_references_are_full_paths_or_null() {
    let e = obj1();
    assert_eq!(prop(&e, "Target", 0)["value"], Json::Null);
    assert_eq!(prop(&e, "Target", 1)["value"], "Pkg.Group1.Obj1");
    assert_eq!(prop(&e, "Target", 2)["value"], "Core.Object");
    assert_eq!(prop(&e, "Target", 0)["type"], "ObjectProperty");
}

#[test]
fn fixed_array_elements_carry_their_index() {
    let e = obj1();
    let f0 = prop(&e, "Fixed", 0);
    assert_eq!(
        f0,
        &json!({"name": "Fixed", "type": "IntProperty", "value": 1})
    );
    assert!(f0.get("index").is_none());
    assert_eq!(
        prop(&e, "Fixed", 1),
        &json!({"name": "Fixed", "index": 1, "type": "IntProperty", "value": 2})
    );
}

#[test]
fn structs_are_objects_of_their_fields() {
    let e = obj1();
    let loc = prop(&e, "Loc", 0);
    assert_eq!(loc["type"], "StructProperty(Vector)");
    assert_eq!(loc["value"], json!({"X": 1.5, "Y": -2.0, "Z": 3.25}));
    let pair = prop(&e, "Pair", 0);
    assert_eq!(pair["type"], "StructProperty(Pair)");
    assert_eq!(
        pair["value"],
        json!({"A": 1, "A[1]": 2, "Target": "Pkg.Group1.Obj1"})
    );
}

#[test]
fn arrays_are_arrays_when_their_type_is_known_else_skipped() {
    let e = obj1();
    let vals = prop(&e, "Vals", 0);
    assert_eq!(vals["type"], "ArrayProperty(IntProperty)");
    assert_eq!(vals["value"], json!([7, -1]));
    let raw = prop(&e, "Raw", 0);
    assert_eq!(raw["type"], "ArrayProperty");
    assert_eq!(raw["value"]["skipped"], 2);
    assert!(
        raw["value"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("array of 1 element(s)")),
        "{raw}"
    );
}

#[test]
fn bytes_with_a_known_enum_are_enum_names() {
    let e = obj1();
    assert_eq!(
        prop(&e, "Mode", 0),
        &json!({"name": "Mode", "type": "ByteProperty(EMode)", "value": "EMode::On"})
    );
    // A value the enum does not name stays a number.
    assert_eq!(prop(&e, "Mode", 1)["value"], 5);
    assert_eq!(prop(&e, "bOn", 0)["value"], true);
}

#[test]
fn floats_read_back_to_the_same_bits_and_nan_is_a_string() {
    let e = obj1();
    let text = serde_json::to_string(prop(&e, "Ratio", 0)).unwrap();
    assert!(text.contains("\"value\":0.1}"), "{text}");
    assert_eq!(prop(&e, "Ratio", 0)["type"], "FloatProperty");
    assert_eq!(prop(&e, "Ratio", 1)["value"], "NaN");
    assert_eq!(prop(&e, "Ratio", 2)["value"], "-Infinity");
    assert_eq!(prop(&e, "Ratio", 3)["value"], "Infinity");
    let sub = serde_json::to_string(&prop(&e, "Ratio", 4)["value"]).unwrap();
    assert_eq!(sub.parse::<f32>().unwrap().to_bits(), 1, "{sub}");
}

/// Significant digits of a decimal (`-1.25e-3` → 3).
fn digits(s: &str) -> usize {
    let m = s.trim_start_matches('-').split(['e', 'E']).next().unwrap();
    let d: String = m.chars().filter(|c| c.is_ascii_digit()).collect();
    let d = d.trim_start_matches('0').trim_end_matches('0');
    d.len().max(1)
}

/// Every 65,521st bit pattern and the edges: the JSON text reads back to
/// the same bits (as an f32, and as an f64 then cast), with no more digits
/// than the shortest f32 decimal.
#[test]
fn float_round_trip_over_the_bit_space() {
    let edges = [0u32, 1, 0x8000_0000, 0x7F7F_FFFF, 0x0080_0000, 0x3DCC_CCCD];
    let sample = (0..=u32::MAX).step_by(65_521).chain(edges);
    let mut n = 0;
    for bits in sample {
        let f = f32::from_bits(bits);
        let s = serde_json::to_string(&f32_json(f)).unwrap();
        if !f.is_finite() {
            assert!(["\"NaN\"", "\"Infinity\"", "\"-Infinity\""].contains(&s.as_str()));
            continue;
        }
        assert_eq!(s.parse::<f32>().unwrap().to_bits(), bits, "{bits:#x} → {s}");
        assert_eq!((s.parse::<f64>().unwrap() as f32).to_bits(), bits, "{s}");
        assert!(digits(&s) <= digits(&format!("{f:e}")), "{f:e} → {s}");
        n += 1;
    }
    assert!(n > 60_000, "{n}");
}
