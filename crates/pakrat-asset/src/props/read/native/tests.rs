//! Native layouts on bytes built by hand.

use crate::props::read::Ctx;
use crate::props::{Asset, ExportInfo, NoSchemas, Property, Value, Versions};
use pakrat_io::{Reader, Result};

/// Little-endian byte builder.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn f32(mut self, v: f32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f64(mut self, v: f64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn raw(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    /// An `FString` (ANSI, NUL-terminated).
    fn fstr(self, s: &str) -> Self {
        let n = s.len() as i32 + 1;
        self.i32(n).raw(s.as_bytes()).u8(0)
    }
    /// An `FName` (index, number 0).
    fn name(self, index: i32) -> Self {
        self.i32(index).i32(0)
    }
}

const NAMES: [&str; 6] = [
    "None",
    "Var",
    "Foo",
    "StructProperty",
    "IntProperty",
    "MyNative",
];

fn asset(unversioned: bool) -> Asset<'static> {
    Asset {
        package: "/Game/T".into(),
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        imports: Vec::new(),
        exports: Vec::new(),
        soft_object_paths: Vec::new(),
        versions: Versions {
            ue4: 522,
            ue5: 1017,
            ..Versions::default()
        },
        unversioned,
        bulk: Default::default(),
    }
}

/// Decode native struct `name` from `bytes`, which it must use up.
fn native_in(asset: &Asset<'_>, name: &str, bytes: &[u8]) -> Result<Value> {
    let mut ctx = Ctx::new(asset, &NoSchemas);
    let mut r = Reader::new(bytes);
    let v = ctx.native_struct(&mut r, name)?.expect("a native struct");
    assert_eq!(r.remaining(), 0, "{name}: bytes left");
    Ok(v)
}

fn native(name: &str, bytes: &[u8]) -> Result<Value> {
    native_in(&asset(false), name, bytes)
}

fn get<'v>(v: &'v Value, path: &str) -> &'v Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Struct(fields) => {
                &fields
                    .iter()
                    .find(|p: &&Property| p.name == part)
                    .unwrap_or_else(|| panic!("no field {part} in {cur:?}"))
                    .value
            }
            Value::Array(items) => &items[part.parse::<usize>().expect("an index")],
            other => panic!("{part}: not a struct or array: {other:?}"),
        };
    }
    cur
}

/// One key value of a float channel (28 bytes) or double channel (32).
fn key(b: B, value: f64, double: bool) -> B {
    let b = if double {
        b.f64(value)
    } else {
        b.f32(value as f32)
    };
    b.f32(0.5) // arrive tangent
        .f32(-0.5) // leave tangent
        .f32(1.0)
        .f32(2.0)
        .u8(3) // weighted both
        .raw(&[0; 3])
        .u8(2) // cubic
        .u8(1) // user
        .raw(&[0; 2])
}

fn channel(double: bool, keys: &[(i32, f64)]) -> Vec<u8> {
    let mut b = B::default().u8(4).u8(3).i32(4).i32(keys.len() as i32);
    for (t, _) in keys {
        b = b.i32(*t);
    }
    b = b.i32(if double { 32 } else { 28 }).i32(keys.len() as i32);
    for (_, v) in keys {
        b = key(b, *v, double);
    }
    let b = if double { b.f64(7.0) } else { b.f32(7.0) };
    b.i32(1).i32(60000).i32(1).i32(0).0
}

#[test]
fn float_channel_keys_defaults_and_resolution() {
    let bytes = channel(false, &[(0, 1.5), (24000, -2.0)]);
    assert_eq!(
        bytes.len(),
        38 + 2 * 32,
        "the layout the fixture's sizes show"
    );
    let v = native("MovieSceneFloatChannel", &bytes).unwrap();
    assert_eq!(
        get(&v, "PreInfinityExtrap"),
        &Value::Enum("ERichCurveExtrapolation::RCCE_Constant".into())
    );
    assert_eq!(
        get(&v, "PostInfinityExtrap"),
        &Value::Enum("ERichCurveExtrapolation::RCCE_Linear".into())
    );
    assert_eq!(get(&v, "Times.1"), &Value::Int(24000));
    assert_eq!(get(&v, "Values.0.Value"), &Value::Float(1.5));
    assert_eq!(get(&v, "Values.1.Value"), &Value::Float(-2.0));
    assert_eq!(
        get(&v, "Values.1.Tangent.LeaveTangent"),
        &Value::Float(-0.5)
    );
    assert_eq!(
        get(&v, "Values.1.Tangent.TangentWeightMode"),
        &Value::Enum("ERichCurveTangentWeightMode::RCTWM_WeightedBoth".into())
    );
    assert_eq!(
        get(&v, "Values.0.InterpMode"),
        &Value::Enum("ERichCurveInterpMode::RCIM_Cubic".into())
    );
    assert_eq!(get(&v, "DefaultValue"), &Value::Float(7.0));
    assert_eq!(get(&v, "bHasDefaultValue"), &Value::Bool(true));
    assert_eq!(get(&v, "TickResolution.Numerator"), &Value::Int(60000));
    assert_eq!(get(&v, "bShowCurve"), &Value::Bool(false));
}

#[test]
fn double_channel_has_wider_values() {
    let bytes = channel(true, &[(5, 0.25)]);
    let v = native("MovieSceneDoubleChannel", &bytes).unwrap();
    assert_eq!(get(&v, "Values.0.Value"), &Value::Double(0.25));
    assert_eq!(get(&v, "DefaultValue"), &Value::Double(7.0));
    // Read as a float channel the element size is refused.
    let e = native("MovieSceneFloatChannel", &bytes).unwrap_err();
    assert!(e.to_string().contains("32 bytes"), "{e}");
}

#[test]
fn channel_counts_are_checked_before_allocating() {
    let bytes = B::default().u8(0).u8(0).i32(4).i32(i32::MAX).0;
    assert!(native("MovieSceneFloatChannel", &bytes).is_err());
    let mut bytes = channel(false, &[(0, 1.0)]);
    bytes.truncate(bytes.len() - 1);
    assert!(native("MovieSceneFloatChannel", &bytes).is_err());
}

#[test]
fn channel_before_full_serialization_is_its_properties() {
    // An old versioned package: neither custom version, so the channel is
    // a tagged struct (here just `None`).
    let mut a = asset(false);
    a.versions.custom_from_package = true;
    let v = native_in(&a, "MovieSceneFloatChannel", &B::default().name(0).0).unwrap();
    assert_eq!(v, Value::Struct(Vec::new()));
}

#[test]
fn time_warp_literal_and_custom() {
    let v = native(
        "MovieSceneTimeWarpVariant",
        &B::default().i32(1).f64(1.25).0,
    )
    .unwrap();
    assert_eq!(get(&v, "PlayRate"), &Value::Double(1.25));
    let v = native(
        "MovieSceneTimeWarpVariant",
        &B::default().i32(0).u8(1).i32(0).0,
    )
    .unwrap();
    assert_eq!(
        get(&v, "Type"),
        &Value::Enum("EMovieSceneTimeWarpType::Custom".into())
    );
    assert_eq!(get(&v, "Custom"), &Value::Object(None));
    let e = native("MovieSceneTimeWarpVariant", &B::default().i32(0).u8(8).0).unwrap_err();
    assert!(e.to_string().contains("time warp type 8"), "{e}");
    assert!(native("MovieSceneTimeWarpVariant", &B::default().i32(2).f64(1.0).0).is_err());
}

/// A tree node: range [lo, hi), parent (-1, -1), children and data ids.
fn node(b: B, lo: i32, hi: i32, children: i32, data: i32) -> B {
    b.u8(0)
        .i32(lo)
        .u8(1)
        .i32(hi)
        .i32(-1)
        .i32(-1)
        .i32(children)
        .i32(data)
}

#[test]
fn entity_tree_nodes_and_data() {
    let mut b = node(B::default(), 0, 100, 0, -1);
    b = b.i32(1).i32(0).i32(1).i32(1); // child entries: one
    b = node(b.i32(1), 0, 50, -1, 0); // child items: one node
    b = b.i32(1).i32(0).i32(2).i32(2); // data entries: one
    b = b.i32(2).i32(3).i32(-1).i32(4).i32(0); // data items: two pairs
    let v = native("MovieSceneEvaluationFieldEntityTree", &b.0).unwrap();
    let tree = get(&v, "SerializedData");
    assert_eq!(
        get(tree, "RootNode.Range.UpperBound.Value"),
        &Value::Int(100)
    );
    assert_eq!(get(tree, "ChildNodes.Items.0.DataID"), &Value::Int(0));
    assert_eq!(get(tree, "Data.Entries.0.Capacity"), &Value::Int(2));
    assert_eq!(get(tree, "Data.Items.1.EntityIndex"), &Value::Int(4));
    // A hostile item count.
    let mut b = node(B::default(), 0, 1, -1, -1).i32(0).i32(0).i32(0);
    b = b.i32(0x4000_0000);
    assert!(native("MovieSceneEvaluationFieldEntityTree", &b.0).is_err());
}

#[test]
fn sub_sequence_tree_entries() {
    let b = node(B::default(), 0, 10, -1, 0).i32(0).i32(0);
    let b = b.i32(1).i32(0).i32(1).i32(1).i32(1).i32(0x1234).u8(2);
    let v = native("MovieSceneSubSequenceTree", &b.0).unwrap();
    assert_eq!(
        get(&v, "Data.Data.Items.0.SequenceID.Value"),
        &Value::UInt(0x1234)
    );
    assert_eq!(get(&v, "Data.Data.Items.0.Flags"), &Value::UInt(2));
}

#[test]
fn instance_data_ptr_empty_or_a_struct() {
    let v = native("MovieSceneSequenceInstanceDataPtr", &B::default().i32(0).0).unwrap();
    assert_eq!(v, Value::Struct(Vec::new()));
    // A struct type, then its (tagged) properties: here none.
    let b = B::default().fstr("/Script/MovieScene.Foo").name(0);
    let v = native("MovieSceneSequenceInstanceDataPtr", &b.0).unwrap();
    assert_eq!(get(&v, "Data"), &Value::Struct(Vec::new()));
}

#[test]
fn sequence_id_is_four_bytes() {
    let v = native("MovieSceneSequenceID", &B::default().i32(7).0).unwrap();
    assert_eq!(get(&v, "Value"), &Value::UInt(7));
}

#[test]
fn midi_message_types_are_bits() {
    // Text (8): type, index; standard (1): status and two data bytes.
    let v = native(
        "MidiEvent",
        &B::default().i32(480).u8(8).u8(1).raw(&[3, 0]).0,
    )
    .unwrap();
    assert_eq!(
        get(&v, "Message.Type"),
        &Value::Enum("EMidiMsgType::Text".into())
    );
    assert_eq!(get(&v, "Message.TextIndex"), &Value::UInt(3));
    let v = native(
        "MidiEvent",
        &B::default().i32(0).u8(1).raw(&[0x90, 60, 100]).0,
    )
    .unwrap();
    assert_eq!(get(&v, "Message.Data1"), &Value::UInt(60));
    let e = native("MidiEvent", &B::default().i32(0).u8(3).0).unwrap_err();
    assert!(e.to_string().contains("MIDI message type 3"), "{e}");
}

/// A property bag with one description (`Var`, a float) and its values.
fn bag(values: &[u8]) -> Vec<u8> {
    let b = B::default().i32(1).i32(1); // has data, one description
    let b = b.i32(0).raw(&[0x11; 16]).name(1).u8(5); // no type object, id, name, float
    let b = b.u8(0).i32(0).u64(0).u8(0).i32(0); // no containers, metadata; flags; key type
    b.i32(values.len() as i32).raw(values).0
}

#[test]
fn property_bag_descriptions_and_values() {
    let v = native("RigVMPropertyBag", &bag(&B::default().name(0).0)).unwrap();
    assert_eq!(get(&v, "PropertyDescs.0.Name"), &Value::Name("Var".into()));
    assert_eq!(
        get(&v, "PropertyDescs.0.ValueType"),
        &Value::Enum("EPropertyBagPropertyType::Float".into())
    );
    assert_eq!(get(&v, "Value"), &Value::Struct(Vec::new()));
    // No data: just the flag.
    let v = native("InstancedPropertyBag", &B::default().i32(0).0).unwrap();
    assert_eq!(v, Value::Struct(Vec::new()));
    // Values that do not end where the size says.
    let e = native("InstancedPropertyBag", &bag(&B::default().name(0).i32(0).0)).unwrap_err();
    assert!(e.to_string().contains("4 bytes left"), "{e}");
    // Unversioned: no description, an empty header (last fragment, no
    // values).
    let empty = B::default().i32(1).i32(0).i32(2).raw(&[0x00, 0x01]).0;
    let v = native_in(&asset(true), "InstancedPropertyBag", &empty).unwrap();
    assert_eq!(get(&v, "Value"), &Value::Struct(Vec::new()));
    // Unversioned values would need a schema built from the descriptions.
    let e = native_in(&asset(true), "InstancedPropertyBag", &bag(&[1, 2, 3])).unwrap_err();
    assert!(e.to_string().contains("unversioned"), "{e}");
}

fn nne_bytes() -> Vec<u8> {
    B::default()
        .i32(1)
        .fstr("NNERuntimeORTCpu")
        .fstr("onnx")
        .u64(3)
        .raw(&[1, 2, 3])
        .i32(0) // additional files
        .i32(1) // runtime settings
        .fstr("NNERuntimeORTCpu")
        .u64(1)
        .u8(9)
        .raw(&[0x22; 16])
        .i32(1)
        .fstr("NNERuntimeORTCpu")
        .i32(16)
        .u64(2)
        .raw(&[7, 8])
        .0
}

#[test]
fn nne_model_data_is_the_whole_export() {
    let data = nne_bytes();
    let a = Asset {
        exports: vec![ExportInfo {
            name: "M".into(),
            path: "/Game/T.M".into(),
            class: "/Script/NNE.NNEModelData".into(),
            outer: None,
            super_struct: None,
            template: None,
            object_flags: 0,
            offset: 0,
            data: &data,
        }],
        ..asset(false)
    };
    let p = crate::props::decode_export(&a, 0, &NoSchemas);
    assert_eq!(p.error, None);
    assert!(p.properties.is_empty());
    assert_eq!(p.native_unread, 0);
    let s = Value::Struct(p.native.clone());
    assert_eq!(get(&s, "FileType"), &Value::Str("onnx".into()));
    assert_eq!(get(&s, "FileData.2"), &Value::UInt(3));
    let Value::Map(m) = get(&s, "ModelData") else {
        panic!("a map");
    };
    assert_eq!(get(&m[0].1, "MemoryAlignment"), &Value::UInt(16));
    assert_eq!(get(&m[0].1, "Data.1"), &Value::UInt(8));
    // A size past the end is an error, not an allocation.
    let mut bad = data.clone();
    bad[4 + 4 + 17 + 4 + 5..][..8].copy_from_slice(&u64::MAX.to_le_bytes());
    let a = Asset {
        exports: vec![ExportInfo {
            data: &bad,
            ..a.exports[0].clone()
        }],
        ..asset(false)
    };
    let p = crate::props::decode_export(&a, 0, &NoSchemas);
    assert!(p.error.is_some());
}

/// A UE 5.4+ tagged stream with one struct `Var` of type `MyNative`,
/// flagged as natively serialized, whose value is `body`.
fn native_flagged(body: &[u8]) -> Vec<u8> {
    let b = B::default().name(1).name(3).i32(1).name(5).i32(0);
    b.i32(body.len() as i32).u8(0x08).raw(body).name(0).0
}

/// Tags: `Foo` = 42, then `None`.
fn foo_tags() -> B {
    B::default()
        .name(2)
        .name(4)
        .i32(0)
        .i32(4)
        .u8(0)
        .i32(42)
        .name(0)
}

fn tagged_var(bytes: &[u8]) -> Value {
    let a = asset(false);
    let mut ctx = Ctx::new(&a, &NoSchemas);
    let mut r = Reader::new(bytes);
    let props = ctx.tagged_properties(&mut r).unwrap();
    assert_eq!(r.remaining(), 0);
    assert_eq!(props.len(), 1);
    props[0].value.clone()
}

#[test]
fn native_flagged_struct_that_wrote_tags() {
    let v = tagged_var(&native_flagged(&foo_tags().0));
    assert_eq!(get(&v, "Foo"), &Value::Int(42));
    // Not tags: refused, and skipped by its size.
    let v = tagged_var(&native_flagged(&[0xff; 37]));
    let Value::Skipped { size, reason } = v else {
        panic!("skipped: {v:?}");
    };
    assert_eq!(size, 37);
    assert!(
        reason.contains("MyNative is serialized natively"),
        "{reason}"
    );
    // Tags that end before the value does: refused too.
    let v = tagged_var(&native_flagged(&foo_tags().u8(0).0));
    assert!(matches!(v, Value::Skipped { size: 38, .. }), "{v:?}");
}
