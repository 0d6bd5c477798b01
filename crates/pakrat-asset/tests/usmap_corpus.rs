//! `.usmap` mappings of the corpus (kind `usmap`): the UE5_8 and UE6_0
//! fixture projects' dump, each stored uncompressed and compressed with
//! Oodle, Brotli and Zstandard. The four files of a project must give the
//! same model, and the fixture's native declarations must read back as
//! the fixture project declares them (pak/cue4parse/*/README.md and the
//! fixture sources: `ParserFixtureData`, `FixtureNestedStruct`,
//! `EFixtureEnum`).
//!
//! The manifest's `detail` column read `bHasVersioning` as one byte (it
//! is four), so its compression and sizes are wrong: they are not used.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pakrat_asset::props::{PropType, Schemas, StructSchema};
use pakrat_asset::usmap::{Compression, Usmap, UsmapVersion};

/// The usmap files of the corpus, by folder.
fn by_folder() -> Option<BTreeMap<String, Vec<PathBuf>>> {
    let rows = pakrat_testkit::entries("usmap")?;
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for r in rows {
        let folder = r
            .local_path
            .rsplit_once('/')
            .map_or("", |x| x.0)
            .to_string();
        out.entry(folder).or_default().push(r.path);
    }
    assert_eq!(out.len(), 2, "two mappings folders: {:?}", out.keys());
    Some(out)
}

fn compression_of(path: &std::path::Path) -> Compression {
    let n = path.file_name().unwrap().to_string_lossy();
    match () {
        _ if n.contains("Uncompressed") => Compression::None,
        _ if n.contains("Oodle") => Compression::Oodle,
        _ if n.contains("Brotli") => Compression::Brotli,
        _ if n.contains("Zstandard") => Compression::Zstandard,
        _ => panic!("unexpected file {n}"),
    }
}

#[test]
fn four_compressions_give_one_model() {
    let Some(folders) = by_folder() else {
        return;
    };
    for (folder, files) in folders {
        assert_eq!(files.len(), 4, "{folder}: {files:?}");
        let maps: Vec<(PathBuf, Usmap)> = files
            .iter()
            .map(|p| (p.clone(), Usmap::open(p).unwrap_or_else(|e| panic!("{e}"))))
            .collect();
        let mut seen = Vec::new();
        for (p, u) in &maps {
            assert_eq!(u.compression, compression_of(p), "{}", p.display());
            seen.push(u.compression);
            assert_eq!(u.version, UsmapVersion::ExplicitEnumValues);
            assert!(
                u.versioning.is_none(),
                "the fixture dumps carry no versioning"
            );
            let len = std::fs::metadata(p).unwrap().len();
            // Header: magic, version, bHasVersioning (4 bytes), method, sizes.
            assert_eq!(u64::from(u.compressed_size) + 16, len, "{}", p.display());
        }
        seen.sort_by_key(|c| *c as u8);
        assert_eq!(
            seen,
            [
                Compression::None,
                Compression::Oodle,
                Compression::Brotli,
                Compression::Zstandard
            ]
        );
        let (p0, base) = &maps[0];
        for (p, u) in &maps[1..] {
            assert_eq!(u.decompressed_size, base.decompressed_size);
            // Field by field first, for a readable failure.
            assert_eq!(u.names, base.names, "{} vs {}", p.display(), p0.display());
            assert_eq!(u.enums, base.enums, "{} vs {}", p.display(), p0.display());
            assert_eq!(
                u.structs,
                base.structs,
                "{} vs {}",
                p.display(),
                p0.display()
            );
            assert!(u.same_content(base));
        }
        // Counts read independently (a separate script over the
        // uncompressed file while this reader was written).
        let counts = (base.names.len(), base.enums.len(), base.structs.len());
        if folder.contains("UE5_8") {
            assert_eq!(counts, (40567, 1833, 8991));
        } else {
            assert_eq!(counts, (40479, 1837, 9051));
        }
        assert!(base.extensions.is_empty());
        // No name repeats (the first-enum / last-struct rules never apply).
        let mut s: Vec<&str> = base.structs.iter().map(|s| s.name.as_str()).collect();
        let mut e: Vec<&str> = base.enums.iter().map(|e| e.name.as_str()).collect();
        s.sort_unstable();
        s.dedup();
        e.sort_unstable();
        e.dedup();
        assert_eq!((s.len(), e.len()), (base.structs.len(), base.enums.len()));
        // Entries are stored bare, never `EName::Value`.
        assert!(base
            .enums
            .iter()
            .all(|e| e.entries.iter().all(|(_, n)| !n.contains("::"))));
    }
}

fn prop<'a>(s: &'a StructSchema, name: &str) -> &'a pakrat_asset::props::SchemaProperty {
    s.properties
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("{}.{name} missing", s.name))
}

fn names_of(s: &StructSchema) -> Vec<&str> {
    s.properties.iter().map(|p| p.name.as_str()).collect()
}

#[test]
fn fixture_schemas_read_as_declared() {
    let Some(folders) = by_folder() else {
        return;
    };
    for files in folders.values() {
        let p = files
            .iter()
            .find(|p| compression_of(p) == Compression::None)
            .unwrap();
        let u = Usmap::open(p).unwrap();
        let s: &dyn Schemas = &u;

        let nested = s
            .find_struct("FixtureNestedStruct")
            .expect("FixtureNestedStruct");
        assert_eq!(nested.super_name, None);
        assert_eq!(
            names_of(nested),
            ["Marker", "Label", "Position", "Samples", "bEnabled"]
        );
        assert_eq!(nested.property_count, 5);
        assert_eq!(
            prop(nested, "Position").ty,
            PropType::Struct("Vector".into())
        );
        assert_eq!(
            prop(nested, "Samples").ty,
            PropType::Array(Box::new(PropType::Float))
        );

        let row = s.find_struct("FixtureTableRow").unwrap();
        assert_eq!(row.super_name.as_deref(), Some("TableRowBase"));
        assert_eq!(
            names_of(row),
            [
                "Number",
                "LargeNumber",
                "Message",
                "Kind",
                "Nested",
                "Values"
            ]
        );
        let comp = s.find_struct("FixtureInstancedComposite").unwrap();
        assert_eq!(comp.super_name.as_deref(), Some("FixtureInstancedBase"));
        assert_eq!(
            s.find_struct("FixtureInlineObject")
                .unwrap()
                .super_name
                .as_deref(),
            Some("Object")
        );

        let data = s
            .find_struct("ParserFixtureData")
            .expect("ParserFixtureData");
        assert_eq!(data.super_name.as_deref(), Some("ParserFixtureBaseData"));
        // 61 properties; FixedIntegerArray[3] takes three schema indices.
        assert_eq!(data.properties.len(), 61);
        assert_eq!(data.property_count, 63);
        let fixed = prop(data, "FixedIntegerArray");
        assert_eq!(
            (fixed.index, fixed.array_dim, &fixed.ty),
            (31, 3, &PropType::Int)
        );
        assert_eq!(prop(data, "PresentOptional").index, 34);
        // Case: the shipping name pool has `float` from the type name first.
        assert_eq!(prop(data, "Float").name, "float");
        let t = |n: &str| prop(data, n).ty.clone();
        assert_eq!(t("Byte"), PropType::Byte(None));
        assert_eq!(t("AnsiString"), PropType::AnsiStr);
        assert_eq!(t("Utf8String"), PropType::Utf8Str);
        assert_eq!(t("LazyObjectReference"), PropType::LazyObject);
        assert_eq!(t("WeakObjectReference"), PropType::WeakObject);
        assert_eq!(t("InterfaceReference"), PropType::Interface);
        assert_eq!(t("FieldPathReference"), PropType::FieldPath);
        // Mappings do not tell a class reference from an object reference.
        assert_eq!(t("ClassReference"), PropType::Object);
        assert_eq!(t("SoftClassReference"), PropType::SoftObject);
        assert_eq!(t("DynamicMulticastDelegate"), PropType::MulticastDelegate);
        assert_eq!(
            t("PresentOptional"),
            PropType::Optional(Box::new(PropType::Int))
        );
        assert_eq!(
            t("StructArray"),
            PropType::Array(Box::new(PropType::Struct("FixtureNestedStruct".into())))
        );
        assert_eq!(t("NameSet"), PropType::Set(Box::new(PropType::Name)));
        assert_eq!(
            t("StructMap"),
            PropType::Map(
                Box::new(PropType::Name),
                Box::new(PropType::Struct("FixtureNestedStruct".into()))
            )
        );
        assert_eq!(
            t("InstancedStructMap").to_string(),
            "MapProperty(NameProperty,StructProperty(InstancedStruct))"
        );
        assert_eq!(
            t("TextHistories"),
            PropType::Array(Box::new(PropType::Text))
        );
        let PropType::Enum { name, underlying } = t("Enum") else {
            panic!("Enum is {}", t("Enum"));
        };
        assert_eq!(name, "EFixtureEnum");
        // A `uint8` enum: `Maximum` is 255 and the generated `_MAX` 256.
        assert_eq!(underlying, Some(Box::new(PropType::Byte(None))));

        let e = s.find_enum("EFixtureEnum").expect("EFixtureEnum");
        let entries: Vec<(i64, &str)> = e.entries.iter().map(|(v, n)| (*v, n.as_str())).collect();
        assert_eq!(
            entries,
            [
                (0, "None"),
                (7, "Alpha"),
                (42, "Beta"),
                (255, "Maximum"),
                (256, "EFixtureEnum_MAX")
            ]
        );
        assert_eq!(e.name_of(42), "EFixtureEnum::Beta");
        // Lookups ignore case, as FNames do.
        assert!(s.find_enum("efixtureenum").is_some());
        assert!(s.find_struct("parserfixturedata").is_some());
        assert!(s.find_struct("NoSuchStruct").is_none());
        // Super chains resolve within the file.
        let base = s.find_struct("ParserFixtureBaseData").unwrap();
        assert_eq!(names_of(base), ["BaseMarker", "BaseString"]);
    }
}
