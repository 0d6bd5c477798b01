//! Hand-built packages: reference resolution, cycles, out-of-range references.

use pakrat_io::Writer;
/// (class, super, outer, name, flags, data) of one export.
type Exp = (i32, i32, i32, i32, u32, &'static [u8]);

use pakrat_package::{ObjRef, Package};

/// A v69 package with the given names, imports (cpkg, cname, outer, name)
/// and exports (class, super, outer, name, flags, data).
fn build(names: &[&str], imports: &[(i32, i32, i32, i32)], exports: &[Exp]) -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(0x9E2A_83C1).u16(69).u16(0).u32(1);
    let fields = w.len();
    w.zeros(24); // counts and offsets, patched below
    w.guid(pakrat_io::Guid {
        words: [1, 2, 3, 4],
    });
    w.i32(1).i32(exports.len() as i32).i32(names.len() as i32);
    let mut data_at = Vec::new();
    for e in exports {
        data_at.push(w.len());
        w.bytes(e.5);
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
        w.compact(e.0).compact(e.1).i32(e.2).compact(e.3).u32(e.4);
        w.compact(e.5.len() as i32);
        if !e.5.is_empty() {
            w.compact(data_at[k] as i32);
        }
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
    "None", "Core", "Engine", "Package", "Texture", "Class", "MyGroup", "Tex1",
];

#[test]
fn resolves_paths_classes_and_packages() {
    // import 0: Core.Package Engine; import 1: Engine.Texture (outer import 0)
    let imports = [(1, 3, 0, 2), (1, 5, -1, 4)];
    // export 0: group MyGroup (class Package import? use 0 = none-class -> "Class");
    // export 1: Tex1 of class Texture inside MyGroup
    let exports: [Exp; 2] = [(0, 0, 0, 6, 0, b""), (-2, 0, 1, 7, 0x0007_0004, b"\x00")];
    let data = build(NAMES, &imports, &exports);
    let p = Package::parse(&data).unwrap();
    assert_eq!(p.summary.version, 69);
    assert_eq!(p.summary.guid.words, [1, 2, 3, 4]);
    assert_eq!(p.export_path(1).unwrap(), "MyGroup.Tex1");
    assert_eq!(p.export_class_name(1).unwrap(), "Texture");
    assert_eq!(p.export_class_name(0).unwrap(), "Class");
    assert_eq!(p.object_path(ObjRef(-2)).unwrap(), "Engine.Texture");
    assert_eq!(p.import_package(1).unwrap(), "Engine");
    assert_eq!(p.imported_packages(), ["Engine"]);
    assert_eq!(p.export_data(1).unwrap(), b"\x00");
    assert_eq!(p.find_exports("tex1"), [1]);
    assert_eq!(p.find_exports("MyGroup.Tex1"), [1]);
    assert_eq!(p.find_exports("MyPkg.MyGroup.Tex1"), [1]);
    assert!(p.find_exports("Other.Tex1").is_empty());
}

#[test]
fn outer_cycle_is_rejected() {
    // exports 0 and 1 are each other's outer.
    let exports: [Exp; 2] = [(0, 0, 2, 6, 0, b""), (0, 0, 1, 7, 0, b"")];
    let data = build(NAMES, &[], &exports);
    let err = Package::parse(&data).unwrap_err().to_string();
    assert!(err.contains("loops"), "{err}");
    let p = Package::parse_lenient(&data).unwrap();
    assert_eq!(p.problems().len(), 2);
    assert!(p.export_path(0).is_err());
}

#[test]
fn self_outer_and_out_of_range_are_rejected() {
    let exports: [Exp; 1] = [(0, 0, 1, 6, 0, b"")];
    let err = Package::parse(&build(NAMES, &[], &exports))
        .unwrap_err()
        .to_string();
    assert!(err.contains("loops"), "{err}");

    let exports: [Exp; 1] = [(-5, 0, 0, 6, 0, b"")];
    let err = Package::parse(&build(NAMES, &[], &exports))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("out of range") && err.contains("class"),
        "{err}"
    );

    let imports = [(1, 3, 7, 2)];
    let err = Package::parse(&build(NAMES, &imports, &[]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("import 0 outer") && err.contains("out of range"),
        "{err}"
    );

    // name index past the table
    let imports = [(1, 3, 0, 99)];
    let err = Package::parse(&build(NAMES, &imports, &[]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("name index 99"), "{err}");
}

#[test]
fn truncated_and_huge_counts_fail_cleanly() {
    let exports: [Exp; 1] = [(0, 0, 0, 6, 0, b"abc")];
    let data = build(NAMES, &[], &exports);
    for cut in 0..data.len() {
        // never panics; most cuts fail
        let _ = Package::parse(&data[..cut]);
    }
    let mut big = data.clone();
    big[12..16].copy_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    let err = Package::parse(&big).unwrap_err().to_string();
    assert!(
        err.contains("name table") && err.contains("cannot fit"),
        "{err}"
    );
}
