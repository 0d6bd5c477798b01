//! Hand-built packages: reference resolution, cycles, out-of-range references.

mod support;
use support::{build, Exp};

use pakrat_classic::{ObjRef, Package};

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

const PNAMES: &[&str] = &[
    "None", "Core", "Object", "Thing", "MyByte", "MyInt", "bFlag", "MyFloat", "MyName", "MyStr",
    "Vector", "Loc", "MyArr", "Big", "Wide",
];

/// One export of class 0 … no: class must be non-zero for a tagged list, so
/// the export's class is import 0 (`Core.Object`).
fn props_package(data: &'static [u8], version: u16) -> Vec<u8> {
    let imports = [(1, 2, 0, 2)];
    let exports: [Exp; 1] = [(-1, 0, 0, 3, 0, data)];
    let mut p = build(PNAMES, &imports, &exports);
    p[4..6].copy_from_slice(&version.to_le_bytes());
    p
}

#[test]
fn tagged_property_encodings() {
    use pakrat_classic::props::{read_object, PropType, StructValue, Value};
    #[rustfmt::skip]
    static DATA: &[u8] = &[
        4, 0x01, 7,                          // MyByte: byte, size code 0 (1) = 7
        5, 0xA2, 0x81, 0x02, 0x2A, 0, 0, 0,  // MyInt[0x102] (2-byte index): int = 42
        6, 0x83,                             // bFlag = true (array bit is the value)
        6, 0x03,                             // bFlag = false
        7, 0xA4, 0xC0, 0x01, 0x00, 0x05, 0, 0, 0x80, 0x3F, // MyFloat[0x10005] (4-byte index) = 1.0
        8, 0x06, 11,                         // MyName = "Loc"
        9, 0x5D, 4, 3, b'h', b'i', 0,        // MyStr: str, size code 5 (u8 size 4) = "hi"
        11, 0x3A, 10,                        // Loc: struct Vector, size code 3 (12)
            0, 0, 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40,
        12, 0x69, 3, 0, 2, 0xAA, 0xBB,       // MyArr: array, size code 6 (u16 size 3): count 2
        13, 0x71, 1, 0, 0, 0, 9,             // Big: byte, size code 7 (i32 size 1) = 9
        0,                                   // None
        0xDE, 0xAD,                          // native data
    ];
    let data = props_package(DATA, 69);
    let p = Package::parse(&data).unwrap();
    let o = read_object(&p, 0).unwrap();
    let v: Vec<(&str, u32, &Value)> = o
        .properties
        .iter()
        .map(|x| (p.name(x.name), x.array_index, &x.value))
        .collect();
    assert_eq!(v.len(), 10, "{v:?}");
    assert_eq!(v[0], ("MyByte", 0, &Value::Byte(7)));
    assert_eq!(v[1], ("MyInt", 0x102, &Value::Int(42)));
    assert_eq!(v[2], ("bFlag", 0, &Value::Bool(true)));
    assert_eq!(v[3], ("bFlag", 0, &Value::Bool(false)));
    assert_eq!(v[4], ("MyFloat", 0x10005, &Value::Float(1.0)));
    assert_eq!(v[5], ("MyName", 0, &Value::Name(11)));
    assert!(matches!(v[6].2, Value::Str(s) if s.text == "hi"));
    assert_eq!(o.properties[7].kind, PropType::Struct);
    assert_eq!(p.name(o.properties[7].struct_name.unwrap()), "Vector");
    assert!(matches!(v[7].2, Value::Struct(s) if **s == StructValue::Vector([1.0, 2.0, 3.0])));
    assert!(
        matches!(v[8].2, Value::Array { count: 2, elem_size: Some(1), data } if *data == [0xAA, 0xBB])
    );
    assert_eq!(v[9], ("Big", 0, &Value::Byte(9)));
    assert_eq!(o.native.rest(), &[0xDE, 0xAD]);
    // Text view.
    let t: Vec<String> = o
        .properties
        .iter()
        .map(|x| pakrat_classic::view::property_text(&p, x))
        .collect();
    assert_eq!(t[1], "MyInt(258)=42");
    assert_eq!(t[7], "Loc=(X=1.0,Y=2.0,Z=3.0)");
}

#[test]
fn ue2_structs_are_tagged_lists_and_errors_are_precise() {
    use pakrat_classic::props::{read_object, StructValue, Value};
    // From v118 a struct other than Vector/Rotator/Color is a tagged list.
    #[rustfmt::skip]
    static DATA: &[u8] = &[
        13, 0x5A, 3, 10,          // Big: struct "Thing", size code 5 (u8 size 10)
            5, 0x22, 1, 0, 0, 0,  //   MyInt = 1
            7, 0x04, 0, 0,        //   MyFloat (size code 0 = 1 byte?) -> payload below
        0,
    ];
    let data = props_package(DATA, 128);
    let p = Package::parse(&data).unwrap();
    // MyFloat claims 1 byte but a float needs 4: a precise error, not a misread.
    let err = read_object(&p, 0).unwrap_err().to_string();
    assert!(err.contains("MyFloat") && err.contains("offset"), "{err}");

    #[rustfmt::skip]
    static GOOD: &[u8] = &[
        13, 0x5A, 3, 7,           // Big: struct "Thing", size 7
            5, 0x22, 1, 0, 0, 0,  //   MyInt = 1
            0,                    //   None
        0,
    ];
    let data = props_package(GOOD, 128);
    let p = Package::parse(&data).unwrap();
    let o = read_object(&p, 0).unwrap();
    match &o.properties[0].value {
        Value::Struct(s) => match &**s {
            StructValue::Tagged(inner) => {
                assert_eq!(p.name(inner[0].name), "MyInt");
                assert_eq!(inner[0].value, Value::Int(1));
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    // The same bytes before v118 are a binary struct of unknown layout: raw.
    let data = props_package(GOOD, 69);
    let p = Package::parse(&data).unwrap();
    let o = read_object(&p, 0).unwrap();
    assert!(
        matches!(&o.properties[0].value, Value::Struct(s) if matches!(**s, StructValue::Raw(b) if b.len() == 7))
    );
}

/// A class defined in the package declares `array<int> Vals`: an object of
/// that class decodes its `Vals` typed when the elements use exactly the
/// tag's bytes, and keeps the raw bytes when one byte is left over.
#[test]
fn arrays_typed_by_local_class_definition_or_kept_raw() {
    use pakrat_classic::props::{read_object, Value};
    let names = &[
        "None",
        "Core",
        "Class",
        "ArrayProperty",
        "IntProperty",
        "MyClass",
        "Vals",
        "Obj1",
        "Obj2",
    ];
    // Property data: empty tagged list, SuperField, Next, ArrayDim=1,
    // PropertyFlags=0, Category=None, then (array) Inner = export 3.
    const ARR: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3];
    const INT: &[u8] = &[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    // Vals: Array, size in a u8 (code 5): count 2, 7, -1; then None.
    const OBJ1: &[u8] = &[6, 0x59, 9, 2, 7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0];
    const OBJ2: &[u8] = &[6, 0x59, 10, 2, 7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0];
    let data = build(
        names,
        &[(1, 2, 0, 3), (1, 2, 0, 4)],
        &[
            (0, 0, 0, 5, 0, &[]),
            (-1, 0, 1, 6, 0, ARR),
            (-2, 0, 2, 6, 0, INT),
            (1, 0, 0, 7, 0, OBJ1),
            (1, 0, 0, 8, 0, OBJ2),
        ],
    );
    let pkg = Package::parse(&data).unwrap();
    let o = read_object(&pkg, 3).unwrap();
    assert!(
        matches!(&o.properties[0].value, Value::TypedArray { elems, data, .. }
            if *elems == [Value::Int(7), Value::Int(-1)] && data.len() == 8),
        "{:?}",
        o.properties[0].value
    );
    let o = read_object(&pkg, 4).unwrap();
    assert!(
        matches!(&o.properties[0].value, Value::Array { count: 2, data, .. } if data.len() == 9),
        "{:?}",
        o.properties[0].value
    );
}

/// A minimal package of `version`/`licensee` with one name, one import and
/// one export, built by hand in the layout `pakrat_classic` documents;
/// `extra` goes where the layout puts its extra header bytes.
fn tiny(
    version: u16,
    licensee: u16,
    flags: u32,
    after_imports: &[u8],
    after_gens: &[u8],
) -> Vec<u8> {
    tiny_tables(
        version,
        licensee,
        flags,
        after_imports,
        after_gens,
        version < 60,
    )
}

/// [`tiny`] with the beta (UMR) table form or the standard one.
fn tiny_tables(
    version: u16,
    licensee: u16,
    flags: u32,
    after_imports: &[u8],
    after_gens: &[u8],
    beta: bool,
) -> Vec<u8> {
    let mut names = Vec::new();
    for n in ["None", "Core", "Package", "Thing"] {
        if version < 64 {
            names.extend_from_slice(n.as_bytes());
            names.push(0);
        } else {
            names.push(n.len() as u8 + 1);
            names.extend_from_slice(n.as_bytes());
            names.push(0);
        }
        names.extend_from_slice(&0x0007_0010u32.to_le_bytes());
    }
    // import: Core.Package "Core"
    let mut imports = vec![1u8, 2];
    if beta {
        imports.push(0); // the unknown compact index
    } else {
        imports.extend_from_slice(&0i32.to_le_bytes());
    }
    imports.push(1);
    // export: class import -1 (compact 0x81), super 0, [outer 0], name 3, flags, size 1, offset
    let header_len =
        if version < 68 { 44 } else { 56 + 8 } + after_imports.len() + after_gens.len();
    let body_at = header_len;
    let names_at = body_at + 1;
    let imports_at = names_at + names.len();
    let exports_at = imports_at + imports.len();
    let mut exports = vec![0x81u8, 0];
    if !beta {
        exports.extend_from_slice(&0i32.to_le_bytes());
    }
    exports.push(3);
    exports.extend_from_slice(&0u32.to_le_bytes());
    exports.push(1);
    // serial offset as a compact index: 6 bits, then 7 per byte
    let o = body_at as u32;
    if o < 64 {
        exports.push(o as u8);
    } else {
        exports.push((o & 63) as u8 | 0x40);
        exports.push((o >> 6) as u8);
    }
    let heritage_at = exports_at + exports.len();
    let mut h = Vec::new();
    h.extend_from_slice(&0x9E2A_83C1u32.to_le_bytes());
    h.extend_from_slice(&version.to_le_bytes());
    h.extend_from_slice(&licensee.to_le_bytes());
    h.extend_from_slice(&flags.to_le_bytes());
    for (n, at) in [(4, names_at), (1, exports_at), (1, imports_at)] {
        h.extend_from_slice(&(n as u32).to_le_bytes());
        h.extend_from_slice(&(at as u32).to_le_bytes());
    }
    h.extend_from_slice(after_imports);
    if version < 68 {
        h.extend_from_slice(&1u32.to_le_bytes());
        h.extend_from_slice(&(heritage_at as u32).to_le_bytes());
    } else {
        h.extend_from_slice(&[7u8; 16]);
        h.extend_from_slice(&1u32.to_le_bytes());
        h.extend_from_slice(&1i32.to_le_bytes());
        h.extend_from_slice(&4i32.to_le_bytes());
    }
    h.extend_from_slice(after_gens);
    assert_eq!(h.len(), header_len);
    h.push(0); // the object: an empty property list ("None")
    h.extend_from_slice(&names);
    h.extend_from_slice(&imports);
    h.extend_from_slice(&exports);
    if version < 68 {
        h.extend_from_slice(&[9u8; 16]);
    }
    h
}

/// A v55 package whose tables have the standard shape (as the real v55
/// texture package UEViewer reads): read as standard, written back exactly;
/// the same header with UMR's beta tables still reads as beta.
#[test]
fn v55_standard_tables_read_first_and_write_back() {
    use pakrat_classic::{Package, TableLayout};
    for v in [55u16, 57, 59] {
        let data = tiny_tables(v, 0, 0, &[], &[], false);
        let p = Package::parse(&data).unwrap_or_else(|e| panic!("v{v}: {e}"));
        assert_eq!(p.summary.layout, TableLayout::Standard, "v{v}");
        assert_eq!(p.imports[0].outer, pakrat_classic::ObjRef(0));
        assert_eq!(p.export_path(0).unwrap(), "Thing");
        assert_eq!(p.imported_packages(), vec!["Core"]);
        let w = pakrat_classic::write::Rewrite::new(&p).to_bytes().unwrap();
        assert_eq!(w, data, "v{v}: unchanged write");
        let beta = tiny_tables(v, 0, 0, &[], &[], true);
        let p = Package::parse(&beta).unwrap_or_else(|e| panic!("v{v} beta: {e}"));
        assert_eq!(p.summary.layout, TableLayout::Beta, "v{v} beta");
        assert_eq!(p.export_path(0).unwrap(), "Thing");
    }
}

#[test]
fn licensee_header_layouts_read_and_write_back() {
    use pakrat_classic::{Package, TableLayout};
    for (v, l, flags, a, g, layout) in [
        (57u16, 0u16, 0u32, &[][..], &[][..], TableLayout::Beta),
        (
            95,
            133,
            1,
            &[0xAA, 0xBB, 0xCC, 0xDD][..],
            &[][..],
            TableLayout::ExtraInt,
        ),
        (156, 36, 1, &[][..], &[0u8][..], TableLayout::Dnf2011),
        // flag 0x20: four build-date ints before the string
        (
            156,
            36,
            0x21,
            &[][..],
            &[
                1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 3, b'a', b'b', 0,
            ][..],
            TableLayout::Dnf2011,
        ),
        (85, 0, 1, &[][..], &[][..], TableLayout::Standard),
    ] {
        let data = tiny(v, l, flags, a, g);
        let p = Package::parse(&data).unwrap_or_else(|e| panic!("v{v}/{l}: {e}"));
        assert_eq!(p.summary.layout, layout, "v{v}");
        assert_eq!(p.export_path(0).unwrap(), "Thing");
        assert_eq!(p.export_class_name(0).unwrap(), "Core");
        assert_eq!(p.imported_packages(), vec!["Core"]);
        let w = pakrat_classic::write::Rewrite::new(&p).to_bytes();
        if layout == TableLayout::Beta {
            // No sample to check a writer against: refused.
            assert!(w.unwrap_err().to_string().contains("Unreal beta"));
        } else {
            assert_eq!(w.unwrap(), data, "v{v}/{l}: unchanged write");
        }
    }
}

#[test]
fn a_class_s_int_constants_are_found_by_value_when_one_has_it() {
    use pakrat_classic::script::natives::{NativeTable, Natives};
    let names = &[
        "None",
        "Core",
        "Package",
        "Class",
        "Const",
        "Win",
        "SizeBorder",
        "Gap",
        "MaxLines",
        "Ratio",
    ];
    // import 0: Core.Package Core; import 1: Core.Class Const.
    let imports = [(1, 2, 0, 1), (1, 3, -1, 4)];
    // A const's data: no tagged properties, SuperField, Next, Value.
    let exports: [Exp; 5] = [
        (0, 0, 0, 5, 0, b""),
        (-2, 0, 1, 6, 0, b"\x00\x00\x00\x023\x00"),
        (-2, 0, 1, 7, 0, b"\x00\x00\x00\x023\x00"),
        (-2, 0, 1, 8, 0, b"\x00\x00\x00\x0364\x00"),
        (-2, 0, 1, 9, 0, b"\x00\x00\x00\x040.5\x00"),
    ];
    let data = build(names, &imports, &exports);
    let p = Package::parse(&data).unwrap();
    let mut t = NativeTable::new();
    t.add(&p);
    assert_eq!(t.class_const("win", 64).as_deref(), Some("MaxLines"));
    // Two constants of value 3: neither is written.
    assert_eq!(t.class_const("Win", 3), None);
    // Floats are not int constants; another class has none.
    assert_eq!(t.class_const("Win", 0), None);
    assert_eq!(t.class_const("Other", 64), None);
}

/// A package of version `v` that imports package `imported` (and Core).
fn importing(v: u16, imported: &'static str) -> Vec<u8> {
    importing_as(v, 0, imported, "Win")
}

/// The same, of licensee `lic`, its one class named `class`.
fn importing_as(v: u16, lic: u16, imported: &'static str, class: &'static str) -> Vec<u8> {
    let names: &[&str] = &["None", "Core", "Package", "Class", imported, class];
    // import 0: Core.Package Core; import 1: Core.Package <imported>.
    let imports = [(1, 2, 0, 1), (1, 2, 0, 4)];
    let exports: [Exp; 1] = [(0, 0, 0, 5, 0, b"")];
    let mut data = build(names, &imports, &exports);
    data[4..6].copy_from_slice(&v.to_le_bytes());
    data[6..8].copy_from_slice(&lic.to_le_bytes());
    data
}

#[test]
fn a_built_in_native_table_names_a_native_only_where_its_package_is_referenced() {
    use pakrat_classic::script::natives::{builtin, NativeTable, Natives};
    // Every table parses, without a row left out.
    for b in &builtin::BUILTINS {
        let t = b.parsed();
        assert!(
            t.errors.is_empty(),
            "{} {}: {:?}",
            b.game,
            b.package,
            t.errors
        );
        if b.types {
            assert!(!t.supers.is_empty(), "{} {}", b.game, b.package);
        } else {
            assert!(!t.by_index.is_empty(), "{} {}", b.game, b.package);
        }
    }
    let table = |data: &[u8]| {
        let p = Package::parse(data).unwrap();
        let mut t = NativeTable::new();
        t.add(&p);
        t
    };
    // A Deus Ex (v68) package importing Extension: Window.NewChild, final,
    // with its two parameters; GC's enums by value.
    let t = table(&importing(68, "Extension"));
    let n = t.native(1410).expect("Extension's native 1410");
    assert_eq!(n.friendly, "NewChild");
    assert_eq!(n.coerce.len(), 2);
    assert!(!n.is_super_call());
    assert_eq!(t.enum_value("EHAlign", 1).as_deref(), Some("HALIGN_Center"));
    assert_eq!(t.builtins_used().len(), 1);
    assert_eq!(t.builtins_used()[0].package, "Extension");
    // Not referenced: the same package importing another package.
    let t = table(&importing(68, "Editor"));
    assert_eq!(t.native(1410), None);
    assert_eq!(t.enum_value("EHAlign", 1), None);
    assert!(t.builtins_used().is_empty());
    // Another generation (v69, UT): no Deus Ex table, even if referenced.
    let t = table(&importing(69, "Extension"));
    assert_eq!(t.native(1410), None);
    // Deus Ex's additions to Engine need a Deus Ex package beside Engine.
    let t = table(&importing(68, "Engine"));
    assert_eq!(t.native(720), None);
}

#[test]
fn a_built_in_type_table_gives_supers_properties_and_functions_only_where_its_package_is_referenced(
) {
    use pakrat_classic::script::natives::{builtin, NativeTable, Natives};
    let table = |data: &[u8]| {
        let p = Package::parse(data).unwrap();
        let mut t = NativeTable::new();
        t.add(&p);
        t
    };
    // The rows parse: a class's super, a property's enum, a function that
    // is not native (no index) with its enum parameter.
    let x = builtin::BUILTINS
        .iter()
        .find(|b| b.types && b.package == "XInterface")
        .expect("XInterface's type table");
    let p = x.parsed();
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(
        p.supers.get("guicomponent").map(String::as_str),
        Some("gui")
    );
    assert_eq!(
        p.props.get(&("guicomponent".into(), "menustate".into())),
        Some(&Some("eMenuState".to_string()))
    );
    assert!(p.by_index.is_empty());
    // Rows of the wrong shape are reported by line, not taken.
    let bad = builtin::parse("class\tA\nvar\tA\tb\nclass\tB\tA\nclass\tB\tC\n-\tB\tF\tcall\t-\t-\n0\tB\tG\tcall\t-\t.\t-\n");
    let lines: Vec<usize> = bad.errors.iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, vec![1, 2, 4, 5, 6], "{:?}", bad.errors);
    assert_eq!(bad.supers.get("b").map(String::as_str), Some("c"));
    assert!(bad.by_path.is_empty() && bad.props.is_empty());
    // A UT2004 package (v128, licensee 29) importing XInterface.
    let t = table(&importing_as(128, 29, "XInterface", "MyPage"));
    assert_eq!(t.super_of("GUIPage").as_deref(), Some("guimulticomponent"));
    let (class, f) = t.lookup("GUIPage", "MenuStateChange").expect("found above");
    assert_eq!(class, "guicomponent");
    assert_eq!(f.native, 0);
    assert_eq!(f.enums, vec![Some("eMenuState".to_string())]);
    // A function that is not final is reached by a super call.
    assert!(f.is_super_call());
    assert_eq!(
        t.enum_value("eMenuState", 4).as_deref(),
        Some("MSAT_Disabled")
    );
    assert!(t.has_property("GUIPage", "MenuState"));
    assert!(!t.has_property("GUIPage", "NoSuchProperty"));
    assert!(t.builtins_used().iter().any(|b| b.types));
    // Not referenced, or another generation (licensee 0): nothing.
    for data in [
        importing_as(128, 29, "Editor", "MyPage"),
        importing_as(128, 0, "XInterface", "MyPage"),
    ] {
        let t = table(&data);
        assert_eq!(t.super_of("GUIPage"), None);
        assert_eq!(t.lookup("GUIPage", "MenuStateChange"), None);
        assert!(!t.has_property("GUIPage", "MenuState"));
        assert!(t.builtins_used().is_empty());
    }
    // A class of a package given wins over the table: the package's
    // `GUIPage` has no super and no functions.
    let t = table(&importing_as(128, 29, "XInterface", "GUIPage"));
    assert_eq!(t.super_of("GUIPage"), None);
    assert_eq!(t.lookup("GUIPage", "MenuStateChange"), None);
    assert!(!t.has_property("GUIPage", "MenuState"));
}

#[test]
fn empty_parameters_the_bytecode_stores_are_written_back_trailing_ones_too() {
    use pakrat_classic::script::{natives::NativeTable, read::TokenReader, Ctx};
    let data = importing(128, "Engine");
    let pkg = Package::parse(&data).unwrap();
    let natives = NativeTable::new();
    let ctx = Ctx {
        pkg: &pkg,
        package: "Win".into(),
        class: 0,
    };
    // Native 128 (an index no table names), then its parameters up to
    // EX_EndFunctionParms (0x16): IntZero 0x25, IntOne 0x26, EX_Nothing 0x0B.
    let text = |code: &[u8]| {
        let mut r = TokenReader::new(code, 0, &ctx, &natives);
        r.expr().map(|e| e.text).unwrap()
    };
    // `F(0, 1)`: nothing stored after the last parameter given.
    assert_eq!(text(&[0x80, 0x25, 0x26, 0x16]), "UnknownNative128(0, 1)");
    // `F(0, , 1)`: a skipped parameter between two.
    assert_eq!(
        text(&[0x80, 0x25, 0x0B, 0x26, 0x16]),
        "UnknownNative128(0, , 1)"
    );
    // `F(0, 1,,,)`: the compiler stores one `Nothing` per comma followed by
    // another comma; the one before `)` stores none and is written back.
    assert_eq!(
        text(&[0x80, 0x25, 0x26, 0x0B, 0x0B, 0x16]),
        "UnknownNative128(0, 1, , , )"
    );
}
