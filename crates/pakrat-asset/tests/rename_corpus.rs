//! [`rename::rename_package`] on one fixture package, `DA_AllProperties`
//! of the UE 5.8 tagged LegacyPak: paths held as text in string properties
//! (8-bit and UTF-16, planted with the property writer) and soft object
//! paths are renamed with the names of the header; every other value reads
//! back unchanged. Then the package itself is renamed.

use pakrat_asset::edit::{write_edited, ExportEdit};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::props::open::{self, Opened};
use pakrat_asset::props::*;
use pakrat_asset::rename::{find_in_export_data, rename_package, PathRename};
use pakrat_codec::KeyRing;
use pakrat_pak::Pak;

fn opened() -> Option<(Opened, Option<Layout>)> {
    let dir = pakrat_testkit::corpus_dir()?;
    let pak = Pak::open(
        dir.join("pak/cue4parse/UE5_8/LegacyPak/Tagged/Uncompressed/CUE4ParseFixtures-Legacy-Tagged-Uncompressed.pak"),
        &KeyRing::default(),
    )
    .unwrap();
    let engine = Layout::for_engine("5.8");
    let o =
        open::open_in_paks(&[pak], "/Game/Fixtures/Properties/DA_AllProperties", engine).unwrap();
    Some((o, engine))
}

/// Every export's properties as JSON text.
fn all_props(o: &Opened) -> Vec<String> {
    let a = o.asset();
    (0..a.exports.len())
        .map(|i| {
            let p = decode_export(&a, i, &NoSchemas);
            assert!(p.error.is_none(), "{:?}", p.error);
            serde_json::to_string(&p.properties).unwrap()
        })
        .collect()
}

fn set(p: &mut ExportProps, name: &str, v: Value) {
    p.properties
        .iter_mut()
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .value = v;
}

#[test]
fn strings_soft_paths_and_names_renamed_other_values_kept() {
    let Some((o, engine)) = opened() else {
        return;
    };
    // Plant paths as text: an ANSI string and a UTF-16 one.
    let a = o.asset();
    let i = a
        .exports
        .iter()
        .position(|e| e.name == "DA_AllProperties")
        .unwrap();
    let (mut props, _) = decode_export_for_write(&a, i, &NoSchemas);
    set(
        &mut props,
        "AnsiString",
        Value::Str("/Game/Fixtures/Textures/T_BC1.T_BC1".into()),
    );
    set(
        &mut props,
        "String",
        Value::Str("日本 (\"/Game/Fixtures/Textures/T_BC7.T_BC7\")".into()),
    );
    let planted = write_edited(&o, &NoSchemas, &[ExportEdit { export: i, props }]).unwrap();
    drop(a);
    let main = planted.main.clone();
    let uexp = planted.uexp.clone();
    let before = open::open_legacy_bytes("planted", main.clone(), uexp.clone(), engine).unwrap();
    let before_props = all_props(&before);

    let r = PathRename::new("/Game/Fixtures/Textures", "/Game/ModTextures").unwrap();
    assert_eq!(find_in_export_data(uexp.as_deref().unwrap(), &r).len(), 2);
    let done = rename_package(&main, uexp.as_deref(), engine, &NoSchemas, &r)
        .unwrap()
        .unwrap();
    assert!(!done.moves());
    let fields: Vec<&str> = done.changes.iter().map(|c| c.field.as_str()).collect();
    // Names of the header (the soft texture references, T_BC6H's package
    // and T_BC7's), then the two strings.
    assert!(
        fields.iter().filter(|f| f.starts_with("name ")).count() >= 2,
        "{fields:?}"
    );
    assert!(
        fields.contains(&"export 1 AnsiString")
            || fields.iter().any(|f| f.ends_with(" AnsiString")),
        "{fields:?}"
    );
    assert!(fields.iter().any(|f| f.ends_with(" String")), "{fields:?}");

    let new_uexp = done.uexp.clone().expect("the .uexp changed");
    assert!(find_in_export_data(&new_uexp, &r).is_empty());
    let after =
        open::open_legacy_bytes("renamed", done.main.clone(), Some(new_uexp), engine).unwrap();
    let after_props = all_props(&after);
    // Every value is the same, the old path replaced by the new one.
    let expect: Vec<String> = before_props
        .iter()
        .map(|s| s.replace("/Game/Fixtures/Textures", "/Game/ModTextures"))
        .collect();
    assert_eq!(after_props, expect);
    assert!(after_props
        .concat()
        .contains("/Game/ModTextures/T_BC6H.T_BC6H"));
    assert!(after_props
        .concat()
        .contains("日本 (\\\"/Game/ModTextures/T_BC7.T_BC7\\\")"));
    let h = LegacyPackage::read(&done.main, engine).unwrap();
    assert!(h
        .names
        .iter()
        .all(|n| !n.text.contains("/Game/Fixtures/Textures")));
}

#[test]
fn the_package_itself_renamed() {
    let Some((o, engine)) = opened() else {
        return;
    };
    let (main, uexp) = o.raw();
    let r = PathRename::new(
        "/Game/Fixtures/Properties/DA_AllProperties",
        "/Game/Mod/DA_Renamed",
    )
    .unwrap();
    let done = rename_package(main, uexp, engine, &NoSchemas, &r)
        .unwrap()
        .unwrap();
    assert!(done.moves());
    assert_eq!(done.package.1, "/Game/Mod/DA_Renamed");
    // Only the header changed: the export data is the same bytes.
    assert!(done.uexp.is_none());
    let after = open::open_legacy_bytes(
        "renamed",
        done.main.clone(),
        uexp.map(<[u8]>::to_vec),
        engine,
    )
    .unwrap();
    let a = after.asset();
    assert!(
        a.exports
            .iter()
            .all(|e| e.path.starts_with("/Game/Mod/DA_Renamed.")),
        "{:?}",
        a.exports.iter().map(|e| &e.path).collect::<Vec<_>>()
    );
    drop(a);
    let before = all_props(&o);
    let expect: Vec<String> = before
        .iter()
        .map(|s| {
            s.replace(
                "/Game/Fixtures/Properties/DA_AllProperties",
                "/Game/Mod/DA_Renamed",
            )
        })
        .collect();
    assert_eq!(all_props(&after), expect);
    // A path that is not there changes nothing.
    let none = PathRename::new("/Game/Elsewhere", "/Game/Mod").unwrap();
    assert!(rename_package(main, uexp, engine, &NoSchemas, &none)
        .unwrap()
        .is_none());
}

/// A header with a soft object path list (UE 5.1+ summaries; no cooked
/// fixture has entries, so two are planted in `DA_AllProperties`): the
/// list reads back and writes byte for byte, and a rename rewrites its
/// package names (they are name-map entries) while its sub paths and
/// the export data stay.
#[test]
fn header_soft_object_path_list_renamed() {
    use pakrat_asset::legacy::{FName, NameEntry, SoftObjectPathEntry};
    let Some((o, engine)) = opened() else {
        return;
    };
    let (main, uexp) = o.raw();
    let mut pkg = LegacyPackage::read(main, engine).unwrap();
    assert!(pkg.soft_object_path_list.is_empty());
    let idx = |p: &LegacyPackage, t: &str| {
        p.names
            .iter()
            .position(|n| n.text.eq_ignore_ascii_case(t))
            .unwrap_or_else(|| panic!("no name {t}")) as i32
    };
    pkg.names
        .push(NameEntry::new("/Game/Fixtures/Textures/T_BC1"));
    pkg.names.push(NameEntry::new("T_BC1"));
    let none = idx(&pkg, "None");
    pkg.soft_object_path_list = vec![
        SoftObjectPathEntry {
            package: FName {
                index: idx(&pkg, "/Game/Fixtures/Textures/T_BC1"),
                number: 0,
            },
            asset: FName {
                index: idx(&pkg, "T_BC1"),
                number: 0,
            },
            sub_path: String::new(),
            sub_path_wide: false,
        },
        SoftObjectPathEntry {
            package: FName {
                index: idx(&pkg, "/Game/Fixtures/Textures/T_BC6H"),
                number: 0,
            },
            asset: FName {
                index: none,
                number: 0,
            },
            sub_path: "Sub.Object".into(),
            sub_path_wide: false,
        },
    ];
    let header = pkg.to_bytes().unwrap();
    let back = LegacyPackage::read(&header, engine).unwrap();
    assert_eq!(back.soft_object_path_list, pkg.soft_object_path_list);
    assert_eq!(back.summary.soft_object_paths.unwrap().count, 2);
    // Unchanged, it writes the same bytes.
    assert_eq!(back.to_bytes().unwrap(), header);
    let planted =
        open::open_legacy_bytes("planted", header.clone(), uexp.map(<[u8]>::to_vec), engine)
            .unwrap();
    assert_eq!(
        planted.asset().soft_object_paths,
        vec![
            (
                "/Game/Fixtures/Textures/T_BC1.T_BC1".to_string(),
                String::new()
            ),
            (
                "/Game/Fixtures/Textures/T_BC6H".to_string(),
                "Sub.Object".to_string()
            ),
        ]
    );
    let before = all_props(&planted);

    let r = PathRename::new("/Game/Fixtures/Textures", "/Game/ModTextures").unwrap();
    let done = rename_package(&header, uexp, engine, &NoSchemas, &r)
        .unwrap()
        .unwrap();
    assert!(done.uexp.is_none(), "only the header changes");
    let h = LegacyPackage::read(&done.main, engine).unwrap();
    let after = open::open_legacy_bytes(
        "renamed",
        done.main.clone(),
        uexp.map(<[u8]>::to_vec),
        engine,
    )
    .unwrap();
    assert_eq!(
        after.asset().soft_object_paths,
        vec![
            ("/Game/ModTextures/T_BC1.T_BC1".to_string(), String::new()),
            (
                "/Game/ModTextures/T_BC6H".to_string(),
                "Sub.Object".to_string()
            ),
        ]
    );
    assert_eq!(h.soft_object_path_list.len(), 2);
    assert!(h
        .names
        .iter()
        .all(|n| !n.text.contains("/Game/Fixtures/Textures")));
    let expect: Vec<String> = before
        .iter()
        .map(|s| s.replace("/Game/Fixtures/Textures", "/Game/ModTextures"))
        .collect();
    assert_eq!(all_props(&after), expect);
}
