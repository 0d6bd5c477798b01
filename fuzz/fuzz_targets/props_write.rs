//! The property encoder and the package writer over any bytes.
//!
//! * Writer symmetry: an export's data decoded (tagged UE 5.8 and UE 4.27
//!   tag layouts, unversioned against a small schema) with its write hints,
//!   encoded again, and decoded again gives the same tree; encoded without
//!   the hints (the canonical form) too.
//! * Packages: the bytes opened as a legacy `.uasset` (exports after the
//!   header), written back by `edit::write_edited` with no edits gives the
//!   same bytes, and with every export given back as an edit ends with
//!   bytes or an error, never a panic. Errors must say something
//!   (`pakrat_fuzz::ok`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::edit::{write_edited, ExportEdit};
use pakrat_asset::props::{
    decode_export, decode_export_for_write, encode_properties, open, Asset, EnumSchema,
    ExportInfo, ObjectInfo, PropType, SchemaProperty, Schemas, StructSchema, Versions,
    WriteHints,
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

/// Encode `p` with `hints`; when it encodes, the bytes (with the old
/// native tail) must decode to the same tree.
fn symmetric(a: &Asset<'_>, s: &Fixed, p: &pakrat_asset::props::ExportProps, hints: &WriteHints) {
    let Some(mut bytes) = pakrat_fuzz::ok(encode_properties(a, 0, s, p, hints)) else {
        return;
    };
    bytes.extend_from_slice(&a.exports[0].data[p.native_start as usize..]);
    let mut b = a.clone();
    b.exports[0].data = &bytes;
    let q = decode_export(&b, 0, s);
    // Compared as text: a NaN is not equal to itself.
    assert_eq!(
        format!("{:?}", q.properties),
        format!("{:?}", p.properties),
        "decode -> encode -> decode changed the tree"
    );
}

fuzz_target!(|data: &[u8]| {
    let s = schemas();
    for (ue4, ue5, unversioned) in [(522, 1018, false), (522, 1018, true), (522, 0, false)] {
        let a = asset(data, ue4, ue5, unversioned);
        let (p, hints) = decode_export_for_write(&a, 0, &s);
        if p.error.is_some() || p.native_start as usize > data.len() {
            continue;
        }
        symmetric(&a, &s, &p, &hints);
        symmetric(&a, &s, &p, &hints.spellings_only());
    }
    if let Some(o) = pakrat_fuzz::ok(open::open_legacy_bytes("fuzz.uasset", data.to_vec(), None, None)) {
        let out = write_edited(&o, &s, &[]).expect("no edits always writes");
        assert_eq!(out.main, data, "a package without edits changed");
        let a = o.asset();
        let edits: Vec<ExportEdit> = (0..a.exports.len().min(8))
            .map(|i| ExportEdit { export: i, props: decode_export_for_write(&a, i, &s).0 })
            .collect();
        pakrat_fuzz::ok(write_edited(&o, &s, &edits));
    }
});
