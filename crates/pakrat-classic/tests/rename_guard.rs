//! `Rewrite::rename_name` on hand-built packages (issue 32 item 9): names
//! the format reserves are refused, imports of other packages' objects never
//! change, and renamed names other packages import are warned about.

use pakrat_classic::write::Rewrite;
use pakrat_classic::{ObjRef, Package};
use pakrat_io::Writer;

/// A v69 package with the given names, imports (class package, class name,
/// outer, object name) and exports (class, outer, name, flags), each export
/// with 1 byte of data.
fn build(
    names: &[&str],
    imports: &[(i32, i32, i32, i32)],
    exports: &[(i32, i32, i32, u32)],
) -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(0x9E2A_83C1).u16(69).u16(0).u32(1);
    let fields = w.len();
    w.zeros(24);
    w.guid(pakrat_io::Guid {
        words: [1, 2, 3, 4],
    });
    w.i32(1).i32(exports.len() as i32).i32(names.len() as i32);
    let data_at = w.len();
    for _ in exports {
        w.u8(0);
    }
    let name_off = w.len();
    for n in names {
        w.fstring(&(*n).into()).u32(0x0007_0010);
    }
    let imp_off = w.len();
    for i in imports {
        w.compact(i.0).compact(i.1).i32(i.2).compact(i.3);
    }
    let exp_off = w.len();
    for (k, e) in exports.iter().enumerate() {
        w.compact(e.0).compact(0).i32(e.1).compact(e.2).u32(e.3);
        w.compact(1).compact((data_at + k) as i32);
    }
    let v = [
        names.len(),
        name_off,
        exports.len(),
        exp_off,
        imports.len(),
        imp_off,
    ];
    for (i, x) in v.iter().enumerate() {
        w.patch_u32(fields + 4 * i, *x as u32);
    }
    w.into_inner()
}

const NAMES: &[&str] = &[
    "None", "Core", "Package", "Class", "Other", "Effects", "Spark", "Texture", "Engine", "Mine",
];

/// This package (`Mine`) has its own group `Effects` (export 0) and imports
/// `Other.Effects.Spark`, a texture in another package's group of the same
/// name.
fn group_package() -> Vec<u8> {
    build(
        NAMES,
        &[
            (1, 3, 0, 2),  // 0: Core.Class Package
            (1, 2, 0, 4),  // 1: Core.Package Other
            (1, 2, -2, 5), // 2: Core.Package Other.Effects
            (8, 7, -3, 6), // 3: Engine.Texture Other.Effects.Spark
        ],
        &[(-1, 0, 5, 0x0007_0004)], // export 0: group Effects (class Package), public
    )
}

fn import_path(p: &Package<'_>, k: usize) -> String {
    p.object_path(ObjRef::import(k)).unwrap()
}

#[test]
fn renaming_the_own_group_leaves_imports_of_other_packages_alone() {
    let data = group_package();
    let p = Package::parse(&data).unwrap();
    assert_eq!(import_path(&p, 3), "Other.Effects.Spark");
    let mut w = Rewrite::new(&p);
    w.rename_name("Effects", "FX").unwrap();
    assert!(
        w.warnings().iter().any(|m| m.contains("a group")),
        "{:?}",
        w.warnings()
    );
    let out = w.to_bytes().unwrap();
    let q = Package::parse(&out).unwrap();
    // The package's own group is renamed ...
    assert_eq!(q.name(q.exports[0].object_name), "FX");
    // ... the import of the other package's group is not.
    assert_eq!(import_path(&q, 2), "Other.Effects");
    assert_eq!(import_path(&q, 3), "Other.Effects.Spark");
}

#[test]
fn a_name_only_imports_use_is_refused() {
    let data = group_package();
    let p = Package::parse(&data).unwrap();
    let mut w = Rewrite::new(&p);
    let e = w.rename_name("Spark", "Flash").unwrap_err().to_string();
    assert!(e.contains("Other.Effects.Spark"), "{e}");
    assert_eq!(w.to_bytes().unwrap(), data);
}

#[test]
fn reserved_names_are_refused_both_ways() {
    let data = group_package();
    let p = Package::parse(&data).unwrap();
    for (old, new) in [
        ("None", "Nothing"),
        ("Class", "Klass"),
        ("package", "Pkg"),
        ("Core", "Kore"),
        ("Effects", "none"),
        ("Effects", "TextBuffer"),
    ] {
        let mut w = Rewrite::new(&p);
        let e = w.rename_name(old, new).unwrap_err().to_string();
        assert!(e.contains("reserved"), "{old} -> {new}: {e}");
        assert_eq!(w.to_bytes().unwrap(), data, "{old} -> {new}");
    }
}

#[test]
fn a_name_no_import_uses_is_renamed_in_place() {
    // `Mine` (index 9) is used by nothing but is still renamed in place.
    let data = group_package();
    let p = Package::parse(&data).unwrap();
    let mut w = Rewrite::new(&p);
    assert_eq!(w.rename_name("Mine", "Yours").unwrap(), 9);
    assert!(w.warnings().is_empty());
    let q_data = w.to_bytes().unwrap();
    let q = Package::parse(&q_data).unwrap();
    assert_eq!(q.names.len(), p.names.len());
    assert_eq!(q.name(9), "Yours");
}
