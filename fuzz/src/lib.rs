//! Helpers shared by the fuzz targets.
//!
//! Every target feeds hostile bytes to one parser and lets libFuzzer catch
//! panics, aborts, timeouts and huge allocations (`-rss_limit_mb`,
//! `-malloc_limit_mb`). On top of that each error must say something: an
//! empty or near-empty message is treated as a finding (it would leave a user
//! with nothing to act on).

use std::fmt::Display;

/// Panic when an error's text is too short to be useful.
pub fn clear<E: Display>(e: E) {
    let text = e.to_string();
    assert!(
        text.trim().len() >= 8,
        "unclear error message {text:?} (fewer than 8 characters)"
    );
}

/// Check a result's error (if any) with [`clear`]; return the value.
pub fn ok<T, E: Display>(r: Result<T, E>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            clear(e);
            None
        }
    }
}

/// Split a little-endian u32 off the front (0 when too short) and bound it
/// by `max`, for targets whose input starts with an output size.
pub fn take_len(data: &[u8], max: usize) -> (usize, &[u8]) {
    if data.len() < 4 {
        return (0, &[]);
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
    (n % (max + 1), &data[4..])
}

/// Largest block output the block targets ask for (IoStore blocks are at
/// most 16 MiB - 1 by their 24-bit size field; real ones 64 KiB).
pub const MAX_BLOCK_OUT: usize = 1 << 18;

/// A small fixed world for the property targets (`props_write`,
/// `props_edit`): a schema of every property family and a one-export
/// package around hostile export data.
pub mod props {
    use pakrat_asset::props::{
        Asset, EnumSchema, ExportInfo, ObjectInfo, PropType, SchemaProperty, Schemas, StructSchema,
        Versions,
    };

    /// Schemas: struct `Fuzz` with one property per family, enum `EFuzz`.
    pub struct Fixed(Vec<StructSchema>, EnumSchema);

    impl Schemas for Fixed {
        fn find_struct(&self, name: &str) -> Option<&StructSchema> {
            self.0.iter().find(|s| s.name == name)
        }
        fn find_enum(&self, name: &str) -> Option<&EnumSchema> {
            (self.1.name == name).then_some(&self.1)
        }
    }

    /// The schemas of the fuzzed exports.
    pub fn schemas() -> Fixed {
        let b = |t: PropType| Box::new(t);
        let types = vec![
            PropType::Bool,
            PropType::Int,
            PropType::Double,
            PropType::Enum {
                name: "EFuzz".into(),
                underlying: Some(b(PropType::Byte(None))),
            },
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
            .map(|(i, ty)| SchemaProperty {
                index: i as u16,
                array_dim: 1,
                name: format!("P{i}"),
                ty,
            })
            .collect::<Vec<_>>();
        let fuzz = StructSchema {
            name: "Fuzz".into(),
            super_name: None,
            property_count: properties.len() as u16,
            properties,
        };
        let e = EnumSchema {
            name: "EFuzz".into(),
            entries: vec![(0, "A".into()), (7, "EFuzz::B".into())],
        };
        Fixed(vec![fuzz], e)
    }

    /// A package of one export (class `/Script/Fuzz.Fuzz`) whose data is
    /// `data`, with these versions.
    pub fn asset(data: &[u8], ue4: i32, ue5: i32, unversioned: bool) -> Asset<'_> {
        let names = [
            "None",
            "P0",
            "P1",
            "IntProperty",
            "StructProperty",
            "Fuzz",
            "ArrayProperty",
            "Vector",
            "MapProperty",
            "EnumProperty",
            "ByteProperty",
            "BoolProperty",
            "StrProperty",
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
            versions: Versions {
                ue4,
                ue5,
                licensee: 0,
                custom: Vec::new(),
                custom_from_package: false,
            },
            unversioned,
            bulk: Default::default(),
        }
    }
}
