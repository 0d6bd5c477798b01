//! Control Rig hierarchies and RigVMs on bytes built by hand: the element
//! kinds, the version gates, the versionless RigVM, and hostile input.

use super::rig::CONTROL_RIG;
use crate::props::read::Ctx;
use crate::props::{Asset, ExportProps, NoSchemas, Property, Value, Versions};
use pakrat_io::Reader;

/// Little-endian byte builder.
#[derive(Default, Clone)]
struct B(Vec<u8>);

impl B {
    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i64(mut self, v: i64) -> Self {
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
    fn raw(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
    fn fstr(self, s: &str) -> Self {
        self.i32(s.len() as i32 + 1).raw(s.as_bytes()).u8(0)
    }
    /// A package `FName`.
    fn name(self, index: i32) -> Self {
        self.i32(index).i32(0)
    }
    /// An `FRigVMOperand`.
    fn operand(self, t: u8, index: u16, offset: u16) -> Self {
        self.u8(t).u16(index).u16(offset)
    }
}

const NAMES: [&str; 18] = [
    "None",
    "ERigElementType::Bone",
    "Root",
    "ERigBoneType::Imported",
    "ERigElementType::Null",
    "Space1",
    "ERigElementType::Curve",
    "Curve1",
    "ERigElementType::None",
    "Label",
    "Meta",
    "Float",
    "Bogus",
    "ERigElementType::Socket",
    "/Script/ControlRig",
    "ControlRigExecuteContext",
    "ERigElementType::Control",
    "ERigElementType::Connector",
];
const N_BONE: i32 = 1;
const N_ROOT: i32 = 2;
const N_IMPORTED: i32 = 3;
const N_NONE_TYPE: i32 = 8;

fn asset(custom: &[(pakrat_io::Guid, i32)]) -> Asset<'static> {
    Asset {
        package: "/Game/T".into(),
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        imports: Vec::new(),
        exports: Vec::new(),
        soft_object_paths: Vec::new(),
        versions: Versions {
            ue4: 522,
            ue5: 1017,
            custom: custom.to_vec(),
            custom_from_package: !custom.is_empty(),
            ..Versions::default()
        },
        unversioned: false,
        bulk: Default::default(),
    }
}

/// Decode `bytes` as the whole native data of an export of `class` (at
/// offset 0x1000 of its package, as an export is).
fn decode(a: &Asset<'_>, class: &str, bytes: &[u8]) -> ExportProps {
    let mut ctx = Ctx::new(a, &NoSchemas);
    let mut r = Reader::with_base(bytes, 0x1000);
    let mut out = ExportProps::default();
    super::decode_tail(&mut ctx, &mut r, 0, class, &mut out);
    out
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

fn ok(p: &ExportProps) -> Value {
    assert_eq!(p.error, None);
    assert_eq!(p.native_unread, 0);
    Value::Struct(p.native.clone())
}

fn err(p: &ExportProps) -> String {
    p.error.clone().expect("an error")
}

/// Settings of version `v`: to package, compressed archive, compact
/// transforms, local only, initial only.
fn settings(v: i32) -> B {
    let b = B::default().i32(v);
    [1, 1, 1, 1, 0, 1, 0]
        .iter()
        .fold(b, |b, f| b.i32(*f))
        .i32(0)
}

/// The unique names of the inner archive (indices into `NAMES`).
const UNIQUE: [i32; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 0, 9, 10, 11];
/// Positions in `UNIQUE`.
const U_BONE: i32 = 0;
const U_ROOT: i32 = 1;
const U_IMPORTED: i32 = 2;
const U_NULL: i32 = 3;
const U_SPACE: i32 = 4;
const U_CURVE: i32 = 5;
const U_CURVE1: i32 = 6;
const U_NONE_TYPE: i32 = 7;
const U_NONE: i32 = 8;
const U_LABEL: i32 = 9;
const U_META: i32 = 10;
const U_FLOAT: i32 = 11;

/// A bone, a null parented to it with weights, and a curve; a previous
/// name and one metadata entry (version 43, the UE 5.8 layout).
fn elements() -> B {
    let key = |b: B, t: i32, n: i32| b.i32(t).i32(n);
    let mut b = B::default().i32(3);
    b = key(b, U_BONE, U_ROOT);
    b = key(b, U_NULL, U_SPACE);
    b = key(b, U_CURVE, U_CURVE1);
    // Static data. The bone: pose (initial local: position and rotation).
    b = key(b, U_BONE, U_ROOT).i32(0).u8(9);
    b = b.f32(1.0).f32(2.0).f32(3.0);
    b = b.f32(0.0).f32(0.0).f32(0.0).f32(1.0);
    b = b.i32(U_IMPORTED);
    // The null: a dirty pose, one parent.
    b = key(b, U_NULL, U_SPACE).i32(1).i32(1);
    // The curve: value set, 0.5.
    b = key(b, U_CURVE, U_CURVE1).i32(1).f32(0.5);
    // Links: the bone's parent (none), the null's weighted parent.
    b = key(b, U_NONE_TYPE, U_NONE);
    b = key(b, U_BONE, U_ROOT);
    b = b.f32(1.0).f32(1.0).f32(1.0).f32(0.5).f32(0.25).f32(0.0);
    b = b.i32(U_LABEL);
    // Previous names: Space1 was Root (element keys).
    b = b.i32(1).i32(1);
    b = key(b, U_NULL, U_SPACE).i32(0);
    b = b.i32(1);
    b = key(b, U_BONE, U_ROOT).i32(0);
    b = b.i32(0);
    // Metadata of Root: Meta = 1.25 (a float).
    b = b.i32(1);
    b = key(b, U_BONE, U_ROOT).i32(1).i32(U_META).i32(U_FLOAT);
    b = b.i32(U_META).u8(2).f32(1.25);
    // No components.
    b.i32(0)
}

/// A whole hierarchy of version 43 around `inner`, stored uncompressed.
fn hierarchy(inner: &B) -> B {
    hierarchy_with(&UNIQUE, inner)
}

/// A hierarchy of version 43 with the unique names `unique`.
fn hierarchy_with(unique: &[i32], inner: &B) -> B {
    let mut b = settings(43).i32(unique.len() as i32);
    for n in unique {
        b = b.name(*n);
    }
    b.i32(inner.0.len() as i32)
        .i32(0)
        .i32(inner.0.len() as i32)
        .raw(&inner.0)
}

#[test]
fn hierarchy_bone_null_curve_and_maps() {
    let a = asset(&[]);
    let v = ok(&decode(&a, "RigHierarchy", &hierarchy(&elements()).0));
    assert_eq!(
        get(&v, "SerializationSettings.ControlRigVersion"),
        &Value::Int(43)
    );
    assert_eq!(get(&v, "Elements.0.Key.Name"), &Value::Name("Root".into()));
    assert_eq!(
        get(&v, "Elements.0.BoneType"),
        &Value::Enum("ERigBoneType::Imported".into())
    );
    let t = "Elements.0.PoseStorage.Initial.Local.Transform";
    assert_eq!(
        get(&v, &format!("{t}.Representation")),
        &Value::Enum("ERepresentation::Float_Position_Quat_One".into())
    );
    assert_eq!(get(&v, &format!("{t}.Translation.Z")), &Value::Float(3.0));
    assert_eq!(get(&v, &format!("{t}.Rotation.W")), &Value::Float(1.0));
    assert_eq!(
        get(&v, "Elements.0.ParentKey.Type"),
        &Value::Enum("ERigElementType::None".into())
    );
    assert_eq!(
        get(&v, "Elements.1.PoseStorage.Initial.Local.bDirty"),
        &Value::Bool(true)
    );
    let p = "Elements.1.ParentConstraints.0";
    assert_eq!(
        get(&v, &format!("{p}.ParentKey.Name")),
        &Value::Name("Root".into())
    );
    assert_eq!(
        get(&v, &format!("{p}.Weight.Rotation")),
        &Value::Float(0.25)
    );
    assert_eq!(
        get(&v, &format!("{p}.DisplayLabel")),
        &Value::Name("Label".into())
    );
    assert_eq!(get(&v, "Elements.2.Value"), &Value::Float(0.5));
    assert_eq!(get(&v, "Elements.2.bIsValueSet"), &Value::Bool(true));
    let Value::Map(m) = get(&v, "PreviousNameMap") else {
        panic!("a map")
    };
    assert_eq!(get(&m[0].1, "Element.Name"), &Value::Name("Root".into()));
    let Value::Map(m) = get(&v, "ElementMetadata") else {
        panic!("a map")
    };
    assert_eq!(get(&m[0].1, "0.Value"), &Value::Float(1.25));
    assert_eq!(
        get(&m[0].1, "0.Type"),
        &Value::Enum("ERigMetadataType::Float".into())
    );
}

#[test]
fn hierarchy_topology_version_has_counts_and_hash() {
    let a = asset(&[(CONTROL_RIG, 47)]);
    let inner = B::default()
        .raw(&[1, 0, 0, 0])
        .raw(&[0; 24])
        .i32(0)
        .i32(0x1234_5678)
        .i32(1)
        .i32(U_BONE)
        .i32(U_ROOT)
        .i32(U_BONE)
        .i32(U_ROOT)
        .i32(0)
        .u8(0)
        .i32(U_IMPORTED)
        .i32(U_NONE_TYPE)
        .i32(U_NONE)
        .raw(&[0; 16]);
    let mut b = settings(47).i32(UNIQUE.len() as i32);
    for n in UNIQUE {
        b = b.name(n);
    }
    let n = inner.0.len() as i32;
    let b = b.i32(n).i32(0).i32(n).raw(&inner.0);
    let v = ok(&decode(&a, "RigHierarchy", &b.0));
    assert_eq!(get(&v, "ElementsInfo.NumBones"), &Value::UInt(1));
    assert_eq!(get(&v, "LoadedContentHash"), &Value::UInt(0x1234_5678));
    assert_eq!(get(&v, "Elements.0.Key.Name"), &Value::Name("Root".into()));
}

/// Version 30 (UE 5.4 era): no settings, package names, each element's
/// data right after its key, whole transforms (doubles) with the dirty
/// flag after them, for current and initial, local and global.
#[test]
fn hierarchy_before_compact_transforms() {
    let a = asset(&[(CONTROL_RIG, 30)]);
    let mut b = B::default().i32(1).name(N_BONE).name(N_ROOT);
    b = b.name(N_BONE).name(N_ROOT);
    for i in 0..4 {
        for x in [0.0, 0.0, 0.0, 1.0, f64::from(i), 0.0, 0.0, 1.0, 1.0, 1.0] {
            b = b.f64(x);
        }
        b = b.i32(0);
    }
    b = b.name(N_IMPORTED).name(N_NONE_TYPE).name(0);
    b = b.i32(0).i32(0).i32(0);
    let v = ok(&decode(&a, "RigHierarchy", &b.0));
    assert_eq!(
        get(
            &v,
            "Elements.0.PoseStorage.Initial.Global.Transform.Translation.X"
        ),
        &Value::Double(3.0)
    );
    assert_eq!(
        get(&v, "Elements.0.ParentKey.Name"),
        &Value::Name("None".into())
    );
}

#[test]
fn hierarchy_refuses_what_it_cannot_read() {
    let a = asset(&[]);
    // An element type that is no ERigElementType ("Meta").
    let bad_type = hierarchy(&B::default().i32(1).i32(U_META).i32(U_ROOT));
    let e = err(&decode(&a, "RigHierarchy", &bad_type.0));
    assert!(
        e.contains("is not an ERigElementType") && e.contains("offset"),
        "{e}"
    );
    // A count far beyond the bytes: refused before allocating.
    let huge = hierarchy(&B::default().i32(i32::MAX));
    let e = err(&decode(&a, "RigHierarchy", &huge.0));
    assert!(e.contains("hierarchy elements"), "{e}");
    // A name index outside the hierarchy's names.
    let bad_name = hierarchy(&B::default().i32(1).i32(U_BONE).i32(99));
    let e = err(&decode(&a, "RigHierarchy", &bad_name.0));
    assert!(e.contains("outside the hierarchy's 12 names"), "{e}");
    // One byte more than the layout: the export must end with the data.
    let mut long = hierarchy(&elements());
    long = long.u8(0);
    let e = err(&decode(&a, "RigHierarchy", &long.0));
    assert!(e.contains("1 bytes left"), "{e}");
    // A byte more inside the element archive.
    let e = err(&decode(&a, "RigHierarchy", &hierarchy(&elements().u8(0)).0));
    assert!(e.contains("left in the element archive"), "{e}");
    // A size that does not match the stored bytes.
    let mut b = hierarchy(&elements()).0;
    let at = 4 * 9 + 4 + 8 * UNIQUE.len();
    b[at] ^= 1;
    let e = err(&decode(&a, "RigHierarchy", &b));
    assert!(e.contains("but its size says"), "{e}");
    // A compact transform representation past the last one.
    let mut b = elements().0;
    b[4 + 24 + 8 + 4] = 13;
    let e = err(&decode(&a, "RigHierarchy", &hierarchy(&B(b)).0));
    assert!(e.contains("representation 13"), "{e}");
    // Sockets gained settings in version 44 whose layout is unknown
    // (settings without the inner archive; package names).
    let a44 = asset(&[(CONTROL_RIG, 44)]);
    let mut b = B::default().i32(44);
    for f in [1, 0, 1, 1, 0, 1, 0, 0] {
        b = b.i32(f);
    }
    let b = b.i32(1).name(13).name(N_ROOT).name(13).name(N_ROOT).i32(1);
    let e = err(&decode(&a44, "RigHierarchy", &b.0));
    assert!(e.contains("socket element settings"), "{e}");
}

/// A VM of RigVM version `v` (27: UE 6.0, 25: UE 5.8) with several kinds
/// of instruction, one entry and a registry with a type and a function.
fn vm(v: i32) -> Vec<u8> {
    let mut b = B::default().i32(0x0102_0304);
    if v >= 26 {
        b = b.i32(7);
    }
    b = b.i32(0).i32(1).name(9);
    b = b.i32(6);
    b = b.u8(101).u8(101).u16(0).u16(2).u16(0).u16(0);
    b = b.operand(0, 1, 0).operand(1, 2, 4);
    b = b.u8(1).u8(1).u16(3).u16(0).u16(0).operand(2, 0, 0);
    b = b.u8(77).u8(77).operand(0, 5, 0).i32(4).i32(1);
    b = b.u8(99).fstr("Update");
    b = b.u8(68).u8(68).operand(1, 0, 0).operand(0, 0, 0).u8(3);
    b = b.u8(80);
    b = b.i32(1).fstr("Update").i32(0).i32(0).name(14).name(15);
    b = b.i32(0);
    for t in [1, 0, 4] {
        b = b.i32(0).u8(t).i32(0);
    }
    let registry = registry();
    b.i32(1).i64(8 + registry.0.len() as i64).raw(&registry.0).0
}

/// A localized registry: one type, one function with one argument.
fn registry() -> B {
    B::default()
        .i32(0)
        .i32(1)
        .name(9)
        .i32(0)
        .i32(0)
        .i32(1)
        .fstr("FRigUnit_X")
        .i32(0)
        .i32(0)
        .i32(1)
        .fstr("Value")
        .fstr("float")
        .i32(1)
}

#[test]
fn vm_instructions_and_registry() {
    let a = asset(&[]);
    let v = ok(&decode(&a, "RigVM", &vm(27)));
    assert_eq!(get(&v, "CachedCanonicalVMHash"), &Value::UInt(7));
    let i = "ByteCodeStorage.Instructions";
    assert_eq!(
        get(&v, &format!("{i}.0.OpCode")),
        &Value::Enum("ERigVMOpCode::Execute".into())
    );
    assert_eq!(
        get(&v, &format!("{i}.0.Arguments.1.MemoryType")),
        &Value::Enum("ERigVMMemoryType::Literal".into())
    );
    assert_eq!(
        get(&v, &format!("{i}.0.Arguments.1.RegisterOffset")),
        &Value::UInt(4)
    );
    assert_eq!(get(&v, &format!("{i}.1.ArgumentCount")), &Value::UInt(1));
    assert_eq!(get(&v, &format!("{i}.1.FunctionIndex")), &Value::UInt(3));
    assert_eq!(get(&v, &format!("{i}.2.InstructionIndex")), &Value::Int(4));
    assert_eq!(get(&v, &format!("{i}.2.Condition")), &Value::Bool(true));
    assert_eq!(
        get(&v, &format!("{i}.3.EntryName")),
        &Value::Str("Update".into())
    );
    assert_eq!(
        get(&v, &format!("{i}.4.RegisterType")),
        &Value::Enum("ERigVMRegisterType::Struct".into())
    );
    assert_eq!(
        get(&v, &format!("{i}.5.OpCode")),
        &Value::Enum("ERigVMOpCode::Exit".into())
    );
    assert_eq!(
        get(&v, "LocalizedRegistry.Functions.0.Arguments.0.Direction"),
        &Value::Enum("ERigVMFunctionArgumentDirection::Output".into())
    );
    assert_eq!(
        get(&v, "LocalizedRegistry.Types.0.CPPType"),
        &Value::Name("Label".into())
    );
}

/// A versioned package with the custom versions of a UE 5.8/6.0 VM.
fn versioned_vm(v: i32) -> Asset<'static> {
    let g = |w| pakrat_io::Guid { words: w };
    asset(&[
        (g([0xDC49_959B, 0x53C0_4DE7, 0x9156_EA88, 0x5E7C_5D39]), v),
        (g([0xAF43_A65D, 0x7FD3_4947, 0x9873_3E8E, 0xD9C1_BB05]), 15),
        (g([0x697D_D581, 0xE64F_41AB, 0xAA4A_51EC, 0xBEB7_B628]), 123),
        (g([0x601D_1886, 0xAC64_4F84, 0xAA16_D3DE, 0x0DEA_C7D6]), 268),
        (g([0x134A_157E, 0xD5E2_49A3, 0x8D4E_843C, 0x98FE_9E31]), 5),
    ])
}

#[test]
fn versionless_vm_finds_its_release() {
    let a = asset(&[]);
    // UE 5.8's layout has no canonical hash: the latest does not read it
    // to the end, 5.8's does.
    let v = ok(&decode(&a, "RigVM", &vm(25)));
    assert!(matches!(get(&v, "CachedVMHash"), Value::UInt(0x0102_0304)));
    let Value::Struct(f) = &v else { panic!() };
    assert!(!f.iter().any(|p| p.name == "CachedCanonicalVMHash"));
    // A versioned package says which: 25 bytes read as 27 fail.
    let a27 = versioned_vm(27);
    assert!(decode(&a27, "RigVM", &vm(25)).error.is_some());
    ok(&decode(&a27, "RigVM", &vm(27)));
    ok(&decode(&versioned_vm(25), "RigVM", &vm(25)));
    // Nothing fits: the error says what was tried.
    let e = err(&decode(&a, "RigVM", &[0xFF; 40]));
    assert!(e.contains("were tried"), "{e}");
}

#[test]
fn vm_refuses_bad_opcodes_and_offsets() {
    let a = asset(&[]);
    // Offset of the first instruction's opcode in `vm(27)`.
    let first = 4 + 4 + 4 + 4 + 8 + 4;
    let mut b = vm(27);
    b[first + 1] = 68;
    let e = err(&decode(&a, "RigVM", &b));
    assert!(e.contains("repeats opcode 68, expected 101"), "{e}");
    let mut b = vm(27);
    b[first] = 200;
    let e = err(&decode(&a, "RigVM", &b));
    assert!(e.contains("opcode 200 is not an ERigVMOpCode"), "{e}");
    // The registry's end offset must point at its end.
    let mut b = vm(27);
    let reg = b.len() - registry().0.len() - 8;
    b[reg] ^= 1;
    let e = err(&decode(&a, "RigVM", &b));
    assert!(e.contains("end offset"), "{e}");
    // A huge instruction count.
    let mut b = vm(27);
    b[first - 4..first].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(decode(&a, "RigVM", &b).error.is_some());
}

/// A control (with its settings, offset, shape and euler angles) and a
/// connector with one rule, version 43.
#[test]
fn hierarchy_control_and_connector() {
    // Unique names: 0 Control type, 1 Connector type, 2 Root, 3 None, 4 Label.
    let unique = [16, 17, 2, 0, 9];
    let mut b = B::default().i32(2).i32(0).i32(2).i32(1).i32(2);
    b = b.i32(0).i32(2).i32(1).i32(0);
    // Settings: animation type, control type, display name, axis, curve.
    b = b.i32(4).i32(4).i32(2).i32(3).i32(0);
    b = b.i32(1).i32(1).i32(0).i32(1);
    for i in 0..64 {
        b = b.f32(i as f32);
    }
    b = b
        .i32(1)
        .i32(3)
        .i32(4)
        .f32(1.0)
        .f32(0.0)
        .f32(0.0)
        .f32(1.0)
        .i32(0);
    b = b.fstr("/Script/E.E");
    b = b.i32(1).i32(0).i32(2).i32(4);
    b = b.i32(0).i32(1).i32(0).i32(2).u8(0).u8(1).u8(5).i32(1);
    b = b.i32(1).i32(1).i32(4);
    for x in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] {
        b = b.f64(x);
    }
    // The connector.
    b = b
        .i32(1)
        .i32(2)
        .fstr("Attach here")
        .u8(1)
        .i32(1)
        .i32(0)
        .i32(1);
    b = b
        .i32(1)
        .fstr("/Script/ControlRig.RigTypeConnectionRule")
        .fstr("()");
    // Links: the control has no parents; maps, metadata, components.
    b = b.raw(&[0; 16]);
    let a = asset(&[]);
    let v = ok(&decode(&a, "RigHierarchy", &hierarchy_with(&unique, &b).0));
    let c = "Elements.0";
    assert_eq!(
        get(&v, &format!("{c}.Settings.DisplayName")),
        &Value::Name("Root".into())
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.LimitEnabled.0.bMinimum")),
        &Value::Bool(true)
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.MaximumValue.31")),
        &Value::Float(63.0)
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.ShapeColor.R")),
        &Value::Float(1.0)
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.ControlEnum")),
        &Value::Str("/Script/E.E".into())
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.AvailableSpaces.0.Label")),
        &Value::Name("Label".into())
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.FilteredChannels.1")),
        &Value::UInt(1)
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.PreferredRotationOrder")),
        &Value::UInt(5)
    );
    assert_eq!(
        get(&v, &format!("{c}.Settings.bUsePreferredRotationOrder")),
        &Value::Bool(true)
    );
    assert_eq!(
        get(&v, &format!("{c}.PreferredEulerAngles.Initial.Z")),
        &Value::Double(6.0)
    );
    assert_eq!(
        get(&v, &format!("{c}.ParentConstraints")),
        &Value::Array(Vec::new())
    );
    assert_eq!(
        get(&v, "Elements.1.Settings.Description"),
        &Value::Str("Attach here".into())
    );
    assert_eq!(
        get(&v, "Elements.1.Settings.Rules.0.ExportedText"),
        &Value::Str("()".into())
    );
    assert_eq!(
        get(&v, "Elements.1.Settings.bPostConstruction"),
        &Value::Bool(true)
    );
}

/// Before `RigVMByteCodeDeterminism` the bytecode is its raw bytes.
#[test]
fn vm_with_raw_bytecode() {
    let g = |w| pakrat_io::Guid { words: w };
    let a = asset(&[
        (g([0xDC49_959B, 0x53C0_4DE7, 0x9156_EA88, 0x5E7C_5D39]), 2),
        (g([0xAF43_A65D, 0x7FD3_4947, 0x9873_3E8E, 0xD9C1_BB05]), 15),
        (g([0x601D_1886, 0xAC64_4F84, 0xAA16_D3DE, 0x0DEA_C7D6]), 30),
    ]);
    let b = B::default()
        .i32(9)
        .i32(0)
        .i32(0)
        .i32(3)
        .raw(&[80, 1, 2])
        .i32(0);
    let v = ok(&decode(&a, "RigVM", &b.0));
    assert_eq!(get(&v, "ByteCodeStorage.ByteCode.0"), &Value::UInt(80));
    assert_eq!(get(&v, "CachedVMHash"), &Value::UInt(9));
}

/// A component's end position comes from the file: one far outside the
/// export (here the smallest `i64`) is an error, not an overflow.
#[test]
fn hierarchy_component_end_outside_the_export() {
    // Version 34: the compressed-archive flag (off), package names.
    let a = asset(&[(CONTROL_RIG, 34)]);
    let head = B::default().i32(0).i32(0).i32(0).i32(0).i32(0);
    for end in [i64::MIN, i64::MAX, -1, 1 << 40] {
        let b = head.clone().i32(1).i32(0).i32(0).i64(end);
        let e = err(&decode(&a, "RigHierarchy", &b.0));
        assert!(e.contains("outside the data that follows"), "{end}: {e}");
    }
    // One that ends right after its position field: no data, all read.
    let b = head.clone().i32(1).i32(0).i32(7);
    let at = 0x1000 + b.0.len() as i64 + 8;
    let v = ok(&decode(&a, "RigHierarchy", &b.i64(at).0));
    assert_eq!(get(&v, "Components.0.ScriptStructIndex"), &Value::Int(7));
}

/// Without compact transforms (a setting) the representation byte is
/// still there, `Double_Complete`, then the whole transform.
#[test]
fn hierarchy_without_compact_transforms() {
    let mut b = B::default().i32(43);
    for f in [1, 1, 0, 1, 0, 1, 0, 0] {
        b = b.i32(f);
    }
    b = b.i32(UNIQUE.len() as i32);
    for n in UNIQUE {
        b = b.name(n);
    }
    let mut inner = B::default().i32(1).i32(U_BONE).i32(U_ROOT);
    inner = inner.i32(U_BONE).i32(U_ROOT).i32(0).u8(12);
    for x in [0.0, 0.0, 0.0, 1.0, 7.5, 0.0, 0.0, 1.0, 1.0, 1.0] {
        inner = inner.f64(x);
    }
    inner = inner
        .i32(U_IMPORTED)
        .i32(U_NONE_TYPE)
        .i32(U_NONE)
        .raw(&[0; 16]);
    let n = inner.0.len() as i32;
    let b = b.i32(n).i32(0).i32(n).raw(&inner.0);
    let v = ok(&decode(&asset(&[]), "RigHierarchy", &b.0));
    let t = "Elements.0.PoseStorage.Initial.Local.Transform";
    assert_eq!(
        get(&v, &format!("{t}.Representation")),
        &Value::Enum("ERepresentation::Double_Complete".into())
    );
    assert_eq!(
        get(&v, &format!("{t}.Transform.Translation.X")),
        &Value::Double(7.5)
    );
}
