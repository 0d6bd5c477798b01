//! A package's own schemas on the CUE4Parse fixtures (UE 5.8 and 6.0, zen
//! packages of the IoStore containers): the Blueprints packages cooked
//! unversioned decode with the schemas they define themselves (Blueprint
//! class, user-defined struct and enum) in front of the `.usmap`, and give
//! the values of their tagged twins, export by export, native data
//! included. Without the package's schemas the Blueprint's class default
//! object needs mappings.

use std::path::Path;

use pakrat_asset::legacy::Layout;
use pakrat_asset::props::{
    decode_export, open, schemas_with_package, Asset, ExportProps, NoSchemas, PropType, Value,
};
use pakrat_asset::usmap::Usmap;
use pakrat_asset::zen::load_script_objects;
use pakrat_codec::KeyRing;
use pakrat_iostore::Container;
use pakrat_testkit::corpus_dir;

const BLUEPRINTS: [&str; 5] = [
    "BP_Fixture",
    "S_Fixture",
    "E_Fixture",
    "BP_Components",
    "BP_ComponentsChild",
];

fn package(name: &str) -> String {
    format!("/Game/Fixtures/Blueprints/{name}")
}

/// The fixture container of one engine release and mode.
struct Fixture {
    container: Container,
    script: pakrat_asset::zen::ScriptObjects,
    engine: Option<Layout>,
}

fn fixture(corpus: &Path, v: &str, mode: &str) -> Fixture {
    let dir = corpus.join(format!("iostore/cue4parse/{v}/IoStore/{mode}"));
    let container = Container::open(
        dir.join("Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"),
        &KeyRing::default(),
    )
    .unwrap();
    let global = Container::open(dir.join("global.utoc"), &KeyRing::default()).unwrap();
    Fixture {
        container,
        script: load_script_objects(&global).unwrap(),
        engine: Layout::for_engine(if v == "UE6_0" { "6.0" } else { "5.8" }),
    }
}

fn open_pkg(f: &Fixture, name: &str) -> open::Opened {
    open::open_in_container(&f.container, Some(&f.script), &package(name), f.engine)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn usmap(corpus: &Path, v: &str) -> Usmap {
    Usmap::open(corpus.join(format!(
        "pak/cue4parse/{v}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
    )))
    .unwrap()
}

/// An export's decoded tree as JSON with the types dropped and property
/// names folded to lower case (a tag and a schema may type a value
/// differently, `EnumProperty` with or without its underlying type, and
/// FNames compare without case).
fn tree(p: &ExportProps) -> serde_json::Value {
    let mut v = serde_json::json!({
        "properties": p.properties,
        "native": p.native,
        "error": p.error,
        "unread": p.native_unread,
    });
    strip(&mut v);
    v
}

fn strip(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("ty");
            if let Some(serde_json::Value::String(n)) = m.get_mut("name") {
                *n = n.to_ascii_lowercase();
            }
            m.values_mut().for_each(strip);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

fn decode_all(asset: &Asset<'_>, schemas: &dyn pakrat_asset::props::Schemas) -> Vec<ExportProps> {
    (0..asset.exports.len())
        .map(|i| decode_export(asset, i, schemas))
        .collect()
}

fn find<'p>(p: &'p ExportProps, name: &str) -> &'p Value {
    &p.properties
        .iter()
        .chain(&p.native)
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no {name} in {p:?}"))
        .value
}

#[test]
fn unversioned_blueprints_decode_like_their_tagged_twins() {
    let Some(corpus) = corpus_dir() else { return };
    for v in ["UE5_8", "UE6_0"] {
        let mappings = usmap(&corpus, v);
        let tagged = fixture(&corpus, v, "Tagged");
        let unversioned = fixture(&corpus, v, "Unversioned");
        // BP_ComponentsChild's parent class lives in BP_Components.
        let parent = open_pkg(&unversioned, "BP_Components");
        let parent = parent.asset();
        for name in BLUEPRINTS {
            let label = format!("{v} {name}");
            let t = open_pkg(&tagged, name);
            let t = t.asset();
            let u = open_pkg(&unversioned, name);
            let u = u.asset();
            assert!(!t.unversioned && u.unversioned, "{label}");
            let mut with = schemas_with_package(&u, &mappings);
            with.add_package(&parent);
            assert!(
                with.own.problems.is_empty(),
                "{label}: {:?}",
                with.own.problems
            );
            let td = decode_all(&t, &NoSchemas);
            let ud = decode_all(&u, &with);
            for (i, (a, b)) in td.iter().zip(&ud).enumerate() {
                let path = &u.exports[i].path;
                assert_eq!(a.error, None, "{label} tagged {path}");
                assert_eq!(b.error, None, "{label} unversioned {path}");
                assert_eq!(
                    tree(a),
                    tree(b),
                    "{label} {path}: tagged and unversioned differ"
                );
            }
            let by_name = |n: &str| {
                let i = u.exports.iter().position(|e| e.name == n).unwrap();
                &ud[i]
            };
            match name {
                "BP_Fixture" => {
                    let cdo = by_name("Default__BP_Fixture_C");
                    assert_eq!(find(cdo, "Integer"), &Value::Int(-24680), "{label}");
                    assert_eq!(find(cdo, "BaseMarker"), &Value::Int(324478056), "{label}");
                    let class = by_name("BP_Fixture_C");
                    assert_eq!(
                        find(class, "SuperStruct"),
                        &Value::Object(Some("/Script/CUE4ParseFixtures.ParserFixtureData".into())),
                        "{label}"
                    );
                    assert_eq!(class.native_unread, 0, "{label}");
                }
                "S_Fixture" => {
                    let s = &with.own.structs["S_Fixture"];
                    let types: Vec<(u16, String)> = s
                        .properties
                        .iter()
                        .map(|p| (p.index, p.ty.to_string()))
                        .collect();
                    assert_eq!(
                        types,
                        [
                            (0, "BoolProperty".to_string()),
                            (1, "IntProperty".into()),
                            (2, "StrProperty".into()),
                            (3, "StructProperty(Vector)".into())
                        ],
                        "{label}"
                    );
                    let Value::Struct(d) = find(by_name("S_Fixture"), "DefaultInstance") else {
                        panic!("{label}: no default instance")
                    };
                    let count = d.iter().find(|p| p.name.starts_with("Count_")).unwrap();
                    assert_eq!(count.value, Value::Int(1337), "{label}");
                }
                "E_Fixture" => {
                    let e = &with.own.enums["E_Fixture"];
                    assert_eq!(e.name_of(2), "E_Fixture::NewEnumerator2", "{label}");
                }
                "BP_Components" => {
                    let s = &with.own.structs["BP_Components_C"];
                    assert_eq!(s.super_name.as_deref(), Some("Actor"), "{label}");
                    let names: Vec<(&str, u16, &PropType)> = s
                        .properties
                        .iter()
                        .map(|p| (p.name.as_str(), p.index, &p.ty))
                        .collect();
                    assert_eq!(
                        names,
                        [
                            ("FixtureMesh", 0, &PropType::Object),
                            ("FixtureRoot", 1, &PropType::Object)
                        ],
                        "{label}"
                    );
                }
                _ => {
                    let s = &with.own.structs["BP_ComponentsChild_C"];
                    assert_eq!(s.super_name.as_deref(), Some("BP_Components_C"), "{label}");
                }
            }
        }
    }
}

#[test]
fn without_the_package_schema_the_blueprint_default_needs_mappings() {
    let Some(corpus) = corpus_dir() else { return };
    for v in ["UE5_8", "UE6_0"] {
        let mappings = usmap(&corpus, v);
        let u = fixture(&corpus, v, "Unversioned");
        let o = open_pkg(&u, "BP_Fixture");
        let a = o.asset();
        let i = a
            .exports
            .iter()
            .position(|e| e.name == "Default__BP_Fixture_C")
            .unwrap();
        let err = decode_export(&a, i, &mappings).error.unwrap_or_default();
        assert!(
            err.contains("needs mappings for class BP_Fixture_C"),
            "{v}: {err}"
        );
        let with = schemas_with_package(&a, &mappings);
        assert_eq!(decode_export(&a, i, &with).error, None, "{v}");
    }
}

#[test]
fn legacy_twins_decode_like_the_zen_packages() {
    use pakrat_asset::convert::{self, Packages};
    use pakrat_asset::props::ContainerSource;
    use pakrat_asset::zen::ContainerPackages;
    let Some(corpus) = corpus_dir() else { return };
    for v in ["UE5_8", "UE6_0"] {
        let mappings = usmap(&corpus, v);
        let u = fixture(&corpus, v, "Unversioned");
        let cp = ContainerPackages::read(&u.container).unwrap();
        let src = Packages::from_containers(&[&cp], Some(u.script.clone()));
        let mine = ContainerSource::new(&cp, Some(&u.script));
        for name in BLUEPRINTS {
            let label = format!("{v} {name}");
            let p = cp
                .packages
                .iter()
                .find(|p| p.header.as_ref().is_ok_and(|h| h.name == package(name)))
                .unwrap_or_else(|| panic!("{label}: not in the container"));
            let zen = p.header.as_ref().unwrap();
            let chunk = u.container.read_chunk(p.chunk_index).unwrap();
            let imported = mine.imported(p.id);
            let za = Asset::from_zen(zen, &chunk, imported, &mine, u.engine).unwrap();
            let out = convert::to_legacy(zen, &chunk, imported, &src, u.engine.unwrap()).unwrap();
            let la = Asset::from_legacy(&out.package, &out.uasset, Some(&out.uexp)).unwrap();
            let zs = schemas_with_package(&za, &mappings);
            let ls = schemas_with_package(&la, &mappings);
            assert_eq!(zs.own, ls.own, "{label}: schemas differ");
            let zd = decode_all(&za, &zs);
            let ld = decode_all(&la, &ls);
            for (i, (a, b)) in zd.iter().zip(&ld).enumerate() {
                let path = &za.exports[i].path;
                assert_eq!(tree(a), tree(b), "{label} {path}: zen and legacy differ");
            }
        }
    }
}
