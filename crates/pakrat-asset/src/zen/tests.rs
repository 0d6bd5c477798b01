use super::*;
use pakrat_codec::names::{name_hash, NAME_HASH_ALGORITHM_ID};
use pakrat_io::Writer;
use pakrat_iostore::container_header::StoreEntry;

fn name_batch(w: &mut Writer, names: &[&str]) {
    w.u32(names.len() as u32);
    if names.is_empty() {
        return;
    }
    w.u32(names.iter().map(|s| s.len() as u32).sum());
    w.u64(NAME_HASH_ALGORITHM_ID);
    for s in names {
        w.u64(name_hash(s, false));
    }
    for s in names {
        w.u8(0).u8(s.len() as u8);
    }
    for s in names {
        w.bytes(s.as_bytes());
    }
}

/// A minimal unversioned UE 5.6+ package with one export.
fn ue56() -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(0).u32(0); // versioning, header size (patched)
    w.u32(0).u32(0); // name: index 0
    w.u32(0).u32(0x100); // flags, cooked header size
    for _ in 0..7 {
        w.i32(0); // patched below
    }
    w.i32(0).i32(0); // cell offsets (patched)
    name_batch(&mut w, &["/Game/Foo", "Foo"]);
    let hashes = w.len();
    w.u64(0xAB); // one imported public export hash
    let imports = w.len();
    w.u64(u64::MAX); // one Null import
    w.u64(1 << 62 | 5); // one script import
    let exports = w.len();
    w.u64(0).u64(10); // serial offset, size
    w.u32(1).u32(0); // name "Foo"
    w.u64(u64::MAX).u64(1 << 62 | 5).u64(u64::MAX).u64(u64::MAX);
    w.u64(0x1234).u32(1).u8(0).bytes(&[0, 0, 0]);
    let cells = w.len();
    let bundles = w.len();
    w.u32(0).u32(0).u32(0).u32(1);
    let dep_h = w.len();
    w.i32(0).u32(0).u32(0).u32(0).u32(1);
    let dep_e = w.len();
    w.i32(-2);
    let pnames = w.len();
    name_batch(&mut w, &["/Script/Engine"]);
    w.i32(0);
    let end = w.len();
    let mut v = w.into_inner();
    let put = |v: &mut Vec<u8>, at: usize, x: usize| {
        v[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes())
    };
    put(&mut v, 4, end);
    for (i, x) in [hashes, imports, exports, bundles, dep_h, dep_e, pnames]
        .iter()
        .enumerate()
    {
        put(&mut v, 24 + 4 * i, *x);
    }
    put(&mut v, 52, cells);
    put(&mut v, 56, cells);
    v.extend_from_slice(&[0u8; 10]); // export data
    v
}

#[test]
fn reads_ue56_package() {
    let d = ue56();
    let p = parse(&d, ZenLayout::Ue5_3 { cells: true }, None).unwrap();
    assert_eq!(p.name, "/Game/Foo");
    assert_eq!(p.exports.len(), 1);
    assert_eq!(p.name_of(p.exports[0].name), "Foo");
    assert_eq!(p.imports.len(), 2);
    assert!(p.imports[0].is_null());
    assert_eq!(p.imports[1].get(), ObjectRef::Script(1 << 62 | 5));
    assert_eq!(p.imported_public_export_hashes, vec![0xAB]);
    assert_eq!(p.export_bundle_entries, vec![(0, 0), (0, 1)]);
    assert_eq!(p.dependency_bundle_entries, vec![-2]);
    assert_eq!(p.imported_package_names, vec!["/Script/Engine".to_string()]);
    assert_eq!(p.name_hash_mismatches(), 0);
    // Without the cell offsets (5.3-5.5 layout) the same bytes do not parse.
    assert!(parse(&d, ZenLayout::Ue5_3 { cells: false }, None).is_err());
}

/// A minimal unversioned UE 5.0-5.2 package: one export in one bundle,
/// one imported package with one external arc.
fn ue50() -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(0).u32(0); // versioning, header size (patched)
    w.u32(0).u32(0); // name index 0
    w.u32(0).u32(0x80);
    for _ in 0..5 {
        w.i32(0);
    }
    name_batch(&mut w, &["/Game/Bar", "Bar"]);
    let hashes = w.len();
    let imports = w.len();
    w.u64(2 << 62); // package import 0, hash 0
    let exports = w.len();
    w.u64(0x80).u64(4).u32(1).u32(0);
    w.u64(u64::MAX).u64(u64::MAX).u64(u64::MAX).u64(u64::MAX);
    w.u64(0x99).u32(1).u8(0).bytes(&[0, 0, 0]);
    let bundles = w.len();
    w.u32(0).u32(0).u32(0).u32(1);
    let graph = w.len();
    w.u64(0).u32(0).u32(2); // one bundle header: entries 0..2
    w.i32(0); // internal arcs
    w.i32(1).i32(0).u8(1).i32(0); // one external arc for the imported package
    let end = w.len();
    let mut v = w.into_inner();
    let put = |v: &mut Vec<u8>, at: usize, x: usize| {
        v[at..at + 4].copy_from_slice(&(x as u32).to_le_bytes())
    };
    put(&mut v, 4, end);
    for (i, x) in [hashes, imports, exports, bundles, graph]
        .iter()
        .enumerate()
    {
        put(&mut v, 24 + 4 * i, *x);
    }
    v
}

#[test]
fn reads_ue50_package_with_its_store_entry() {
    let d = ue50();
    let store = StoreEntry {
        export_count: Some(1),
        export_bundle_count: Some(1),
        imported_packages: vec![0x1234],
        ..Default::default()
    };
    let p = parse(&d, ZenLayout::Ue5_0, Some(&store)).unwrap();
    assert_eq!(p.name, "/Game/Bar");
    assert_eq!(p.exports.len(), 1);
    assert_eq!(p.export_bundle_headers.len(), 1);
    assert_eq!(p.export_bundle_entries, vec![(0, 0), (0, 1)]);
    assert_eq!(p.graph_packages, vec![0x1234]);
    assert_eq!(
        p.imports[0].get(),
        ObjectRef::Package {
            package: 0,
            hash: 0,
            raw: 2 << 62
        }
    );
    // Without the store entry, or with the wrong bundle or import count,
    // the graph data does not add up.
    assert!(parse(&d, ZenLayout::Ue5_0, None).is_err());
    let two = StoreEntry {
        export_bundle_count: Some(2),
        ..store.clone()
    };
    assert!(parse(&d, ZenLayout::Ue5_0, Some(&two)).is_err());
    let none = StoreEntry {
        imported_packages: vec![],
        ..store
    };
    assert!(parse(&d, ZenLayout::Ue5_0, Some(&none)).is_err());
}

#[test]
fn hostile_bytes_are_errors() {
    let d = ue56();
    for n in 0..d.len() - 10 {
        assert!(
            parse(&d[..n], ZenLayout::Ue5_3 { cells: true }, None).is_err(),
            "{n}"
        );
    }
    // Flip every byte of the header in turn: never a panic.
    for i in 0..d.len() - 10 {
        let mut m = d.clone();
        m[i] ^= 0xFF;
        let _ = parse(&m, ZenLayout::Ue5_3 { cells: true }, None);
        let _ = parse(&m, ZenLayout::Ue5_0, Some(&StoreEntry::default()));
        let _ = parse(&m, ZenLayout::Ue4, Some(&StoreEntry::default()));
    }
}

#[test]
fn script_objects() {
    let mut w = Writer::new();
    name_batch(&mut w, &["/Script/Engine", "Texture2D"]);
    let pkg = pakrat_codec::names::script_import_index("/Script/Engine");
    let cls = pakrat_codec::names::script_import_index("/Script/Engine.Texture2D");
    w.i32(2);
    w.u32(0x8000_0000)
        .u32(0)
        .u64(pkg)
        .u64(u64::MAX)
        .u64(u64::MAX);
    w.u32(0x8000_0001).u32(0).u64(cls).u64(pkg).u64(u64::MAX);
    let s = ScriptObjects::parse(&w.into_inner()).unwrap();
    assert_eq!(
        s.path(ObjectIndex(cls)).as_deref(),
        Some("/Script/Engine.Texture2D")
    );
    assert_eq!(s.name(ObjectIndex(cls)).as_deref(), Some("Texture2D"));
    assert!(s.path(ObjectIndex(7)).is_none());
}

#[test]
fn script_object_cycles_end() {
    let mut w = Writer::new();
    name_batch(&mut w, &["A"]);
    w.i32(1);
    w.u32(0x8000_0000)
        .u32(0)
        .u64(1 << 62 | 1)
        .u64(1 << 62 | 1)
        .u64(u64::MAX);
    let s = ScriptObjects::parse(&w.into_inner()).unwrap();
    assert!(s.path(ObjectIndex(1 << 62 | 1)).is_none());
}

#[test]
fn layouts_follow_the_container_header() {
    assert_eq!(
        ZenLayout::for_header(HeaderForm::Ue4).unwrap(),
        ZenLayout::Ue4
    );
    assert_eq!(
        ZenLayout::for_header(HeaderForm::Ue5(2)).unwrap(),
        ZenLayout::Ue5_0
    );
    assert_eq!(
        ZenLayout::for_header(HeaderForm::Ue5(4)).unwrap(),
        ZenLayout::Ue5_3 { cells: false }
    );
    assert_eq!(
        ZenLayout::for_header(HeaderForm::Ue5(5)).unwrap(),
        ZenLayout::Ue5_3 { cells: true }
    );
    assert!(ZenLayout::for_header(HeaderForm::Ue5(0)).is_err());
}
