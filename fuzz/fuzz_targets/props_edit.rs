//! The property editor (`props set` / `props apply` on the model) over any
//! input: `PATH \0 VALUE \0 JSON \0 EXPORT-DATA`. The export data is
//! decoded (tagged UE 5.8, unversioned against a small schema); `set` with
//! the path and value, and `apply_json` with the JSON (when it parses), end
//! with a model or an error, never a panic; a model `set` gives is encoded
//! and decoded again; the decoded model's own JSON applies as no change.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::props::edit::{apply_json, parse_path, set};
use pakrat_asset::props::json::PackageJson;
use pakrat_asset::props::{
    decode_export, decode_export_for_write, encode_properties, Asset, EnumSchema, ExportInfo,
    ObjectInfo, PropType, SchemaProperty, Schemas, StructSchema, Versions,
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
        PropType::Enum { name: "EFuzz".into(), underlying: Some(b(PropType::Byte(None))) },
        PropType::Name,
        PropType::Str,
        PropType::Text,
        PropType::Object,
        PropType::SoftObject,
        PropType::Struct("Vector".into()),
        PropType::Array(b(PropType::Struct("Fuzz".into()))),
        PropType::Map(b(PropType::Name), b(PropType::Set(b(PropType::Int)))),
        PropType::Optional(b(PropType::Str)),
    ];
    let properties = types
        .into_iter()
        .enumerate()
        .map(|(i, ty)| SchemaProperty { index: i as u16, array_dim: 1, name: format!("P{i}"), ty })
        .collect::<Vec<_>>();
    let fuzz = StructSchema {
        name: "Fuzz".into(),
        super_name: None,
        property_count: properties.len() as u16,
        properties,
    };
    let e = EnumSchema { name: "EFuzz".into(), entries: vec![(0, "A".into()), (7, "EFuzz::B".into())] };
    Fixed(vec![fuzz], e)
}

fn asset(data: &[u8], ue4: i32, ue5: i32, unversioned: bool) -> Asset<'_> {
    let names = [
        "None", "P0", "P1", "IntProperty", "StructProperty", "Fuzz", "ArrayProperty", "Vector",
        "MapProperty", "EnumProperty", "ByteProperty", "BoolProperty", "StrProperty",
    ];
    Asset {
        package: "/Game/Fuzz".into(),
        names: names.iter().map(|s| s.to_string()).collect(),
        imports: vec![ObjectInfo {
            path: "/Script/Fuzz.Fuzz".into(),
            class: "/Script/CoreUObject.ScriptStruct".into(),
        }],
        exports: vec![ExportInfo {
            name: "Fuzz".into(),
            path: "/Game/Fuzz.Fuzz".into(),
            class: "/Script/Fuzz.Fuzz".into(),
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
    }
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == 0);
    let (Some(path), Some(value), Some(json), Some(bytes)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let (path, value) = (String::from_utf8_lossy(path), String::from_utf8_lossy(value));
    let _ = parse_path(&path);
    let s = schemas();
    for unversioned in [false, true] {
        let a = asset(bytes, 522, 1018, unversioned);
        let decoded = decode_export(&a, 0, &s);
        // The model's own JSON is no change.
        let doc = serde_json::to_value(PackageJson::new(&a, &[(0, decoded.clone())])).unwrap();
        if let Ok(e) = apply_json(&a, &s, &doc) {
            assert!(e.iter().all(|x| x.changes.is_empty()), "the printed JSON changed something");
        }
        let mut p = decoded.clone();
        if set(&a, &s, 0, &mut p, &path, &value).is_ok() && decoded.error.is_none() {
            let (_, hints) = decode_export_for_write(&a, 0, &s);
            if let Ok(mut enc) = encode_properties(&a, 0, &s, &p, &hints) {
                enc.extend_from_slice(&bytes[(p.native_start as usize).min(bytes.len())..]);
                let mut b = a.clone();
                b.exports[0].data = &enc;
                let _ = decode_export(&b, 0, &s);
            }
        }
        if let Ok(j) = serde_json::from_slice::<serde_json::Value>(json) {
            let _ = apply_json(&a, &s, &j);
        }
    }
});
