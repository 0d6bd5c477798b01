//! UE4/UE5 property decoding over any bytes: an export's data read as
//! tagged properties (UE 5.8 and UE 4.27 tag layouts) and as unversioned
//! properties against a small schema of every property family, and as a
//! Blueprint class (its `UStruct` data read into the package's own
//! schemas), and as the Control Rig classes that write their own data
//! (`RigHierarchy`, `RigVM`, versionless: every RigVM release is tried).
//! Decoding ends with a tree or an error, never a panic, hang or
//! runaway allocation.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::props::{
    decode_export, schemas_with_package, Asset, EnumSchema, ExportInfo, ObjectInfo, PropType,
    SchemaProperty, Schemas, StructSchema, Versions,
};

struct Fixed(Vec<StructSchema>, EnumSchema);

impl Schemas for Fixed {
    fn find_struct(&self, name: &str) -> Option<&StructSchema> {
        self.0.iter().find(|s| s.name == name)
    }
    fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
        (self.1.name == name).then_some(&self.1)
    }
}

fn schemas() -> Fixed {
    let b = |t: PropType| Box::new(t);
    let types = vec![
        PropType::Bool,
        PropType::Int,
        PropType::Double,
        PropType::Byte(Some("EFuzz".into())),
        PropType::Enum { name: "EFuzz".into(), underlying: Some(b(PropType::Byte(None))) },
        PropType::Name,
        PropType::Str,
        PropType::Text,
        PropType::Object,
        PropType::SoftObject,
        PropType::FieldPath,
        PropType::MulticastDelegate,
        PropType::Struct("Vector".into()),
        PropType::Struct("InstancedStruct".into()),
        PropType::Struct("Fuzz".into()),
        PropType::Array(b(PropType::Struct("Fuzz".into()))),
        PropType::Map(b(PropType::Name), b(PropType::Set(b(PropType::Int)))),
        PropType::Optional(b(PropType::Text)),
    ];
    let properties = types
        .into_iter()
        .enumerate()
        .map(|(i, ty)| SchemaProperty { index: i as u16, array_dim: 1, name: format!("P{i}"), ty })
        .collect::<Vec<_>>();
    let fuzz = StructSchema {
        name: "Fuzz".into(),
        super_name: Some("Fuzz".into()), // a cycle: must be refused, not followed
        property_count: properties.len() as u16,
        properties,
    };
    let e = EnumSchema { name: "EFuzz".into(), entries: vec![(0, "A".into()), (7, "EFuzz::B".into())] };
    Fixed(vec![fuzz], e)
}

fuzz_target!(|data: &[u8]| {
    let schemas = schemas();
    let names = [
        "None", "P0", "IntProperty", "StructProperty", "Fuzz", "ArrayProperty", "Vector",
        "MapProperty", "EnumProperty", "ByteProperty", "BoolProperty",
    ];
    let classes = [
        "/Script/Fuzz.Fuzz",
        "/Script/Engine.BlueprintGeneratedClass",
        "/Script/ControlRig.RigHierarchy",
        "/Script/RigVM.RigVM",
    ];
    for ((ue4, ue5, unversioned), class) in [(522, 1018, false), (522, 1018, true), (522, 0, false)]
        .into_iter()
        .flat_map(|v| classes.map(|c| (v, c)))
    {
        let asset = Asset {
            package: "/Game/Fuzz".into(),
            names: names.iter().map(|s| s.to_string()).collect(),
            imports: vec![ObjectInfo { path: "/Script/Fuzz.Fuzz".into(), class: "/Script/CoreUObject.ScriptStruct".into() }],
            exports: vec![ExportInfo {
                name: "Fuzz".into(),
                path: "/Game/Fuzz.Fuzz".into(),
                class: class.into(),
                outer: None,
                super_struct: None,
                template: None,
                object_flags: 0,
                offset: 0,
                data,
            }],
            soft_object_paths: Vec::new(),
            versions: Versions { ue4, ue5, licensee: 0, custom: Vec::new(), custom_from_package: false },
            unversioned,
            bulk: Default::default(),
        };
        let _ = decode_export(&asset, 0, &schemas);
        let own = schemas_with_package(&asset, &schemas);
        let _ = decode_export(&asset, 0, &own);
    }
});
