//! Unit tests of the container header reader and writer.

use super::*;
use pakrat_io::Writer;

#[test]
fn every_form_writes_what_it_reads() {
    let entry = |k: u64| StoreEntry {
        export_bundles_size: Some(1000 + k),
        export_count: Some(3),
        export_bundle_count: Some(1),
        load_order: Some(k as u32),
        imported_packages: vec![k, k + 1],
        shader_map_hashes: vec![],
    };
    for form in [
        HeaderForm::Ue4,
        HeaderForm::Ue4PreInitial,
        HeaderForm::Ue5(1),
        HeaderForm::Ue5(2),
        HeaderForm::Ue5(3),
        HeaderForm::Ue5(5),
    ] {
        let ue4 = matches!(form, HeaderForm::Ue4 | HeaderForm::Ue4PreInitial);
        let mut entries = vec![entry(5), entry(9)];
        for e in &mut entries {
            match form {
                HeaderForm::Ue4 => {}
                HeaderForm::Ue4PreInitial | HeaderForm::Ue5(1 | 2) => {
                    e.export_bundles_size = None;
                    e.load_order = None;
                }
                _ => {
                    *e = StoreEntry {
                        imported_packages: e.imported_packages.clone(),
                        shader_map_hashes: vec![ShaderMapHash::Sha1([7; 20])],
                        ..StoreEntry::default()
                    }
                }
            }
        }
        let h = ContainerHeader {
            form,
            container_id: 0x1234,
            package_ids: vec![5, 9],
            store_entries: entries,
            optional_package_ids: vec![],
            optional_store_entries: vec![],
            names: vec![
                BatchName {
                    text: "Alpha".into(),
                    wide: false,
                    stored_hash: None,
                },
                BatchName {
                    text: "Wide\u{263a}".into(),
                    wide: true,
                    stored_hash: None,
                },
            ],
            localized_packages: vec![],
            culture_packages: if ue4 {
                vec![("de".into(), vec![(5, 77)])]
            } else {
                vec![]
            },
            redirects: vec![Redirect {
                source_id: 5,
                target_id: 9,
                source_name: if ue4 {
                    None
                } else {
                    Some(MappedName {
                        index: 0,
                        kind: pakrat_codec::names::NameMapKind::Container,
                        number: 0,
                    })
                },
            }],
            soft_references: None,
            padding: 0,
        };
        let bytes = h.to_bytes().unwrap();
        let back = parse(&bytes).unwrap_or_else(|e| panic!("{form:?}: {e}"));
        assert_eq!(back.form, form);
        assert_eq!(back.package_ids, h.package_ids, "{form:?}");
        assert_eq!(back.store_entries, h.store_entries, "{form:?}");
        assert_eq!(back.culture_packages, h.culture_packages, "{form:?}");
        assert_eq!(back.redirects, h.redirects, "{form:?}");
        let texts: Vec<&str> = back.names.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts, ["Alpha", "Wide\u{263a}"], "{form:?}");
        assert!(back.names.iter().all(|n| !n.hash_mismatch()), "{form:?}");
        assert_eq!(back.to_bytes().unwrap(), bytes, "{form:?}");
    }
}

/// A v5 header with two packages, the first importing the second.
fn v5() -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(SIGNATURE).u32(5).u64(0x1122);
    w.i32(2).u64(0xA).u64(0xB);
    // store entries: 2 × 16 bytes, then one imported id for entry 0.
    let mut b = Writer::new();
    b.u32(1).u32(32); // imported packages: at 0 + 32
    b.u32(0).u32(0); // shader maps
    b.u32(0).u32(0);
    b.u32(0).u32(0);
    b.u64(0xB);
    let blob = b.into_inner();
    w.i32(blob.len() as i32).bytes(&blob);
    w.i32(0).i32(0); // optional segment ids + entries
    w.u32(0); // empty name batch
    w.i32(0); // localized
    w.i32(0); // redirects
    let off = w.len() as i64 + 16;
    w.i64(off).i64(4).u32(0); // soft refs: flag false
    w.into_inner()
}

#[test]
fn reads_v5() {
    let h = parse(&v5()).unwrap();
    assert_eq!(h.form, HeaderForm::Ue5(5));
    assert_eq!(h.container_id, 0x1122);
    assert_eq!(h.package_ids, vec![0xA, 0xB]);
    assert_eq!(h.store_entries[0].imported_packages, vec![0xB]);
    assert!(h.store_entries[1].imported_packages.is_empty());
    assert!(h.soft_references.is_none());
    assert_eq!(h.store_entry(0xB).unwrap().imported_packages.len(), 0);
}

#[test]
fn truncations_and_garbage_are_errors() {
    let d = v5();
    for n in 0..d.len() {
        assert!(parse(&d[..n]).is_err(), "{n}");
    }
    let mut more = d.clone();
    more.push(0);
    assert_eq!(parse(&more).unwrap().padding, 1);
    more.push(1);
    assert!(parse(&more).is_err());
    let mut bad = d.clone();
    bad[4] = 9; // version 9
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.contains("version 9"), "{e}");
}

fn ue4(entry_size: usize) -> Vec<u8> {
    let mut w = Writer::new();
    w.u64(0x77).u32(1);
    w.i32(0).i32(0); // names, hashes
    w.i32(1).u64(0xA);
    let mut b = Writer::new();
    if entry_size == 32 {
        b.u64(100).i32(3).i32(1).u32(0).u32(0);
        b.u32(1).u32(8);
    } else {
        b.i32(3).i32(1);
        b.u32(1).u32(8);
    }
    b.u64(0xC);
    let blob = b.into_inner();
    w.i32(blob.len() as i32).bytes(&blob);
    w.u32(0); // cultures
    w.i32(1).u64(1).u64(2); // one redirect
    w.into_inner()
}

#[test]
fn reads_both_ue4_forms() {
    let h = parse(&ue4(32)).unwrap();
    assert_eq!(h.form, HeaderForm::Ue4);
    assert_eq!(h.store_entries[0].export_count, Some(3));
    assert_eq!(h.store_entries[0].export_bundles_size, Some(100));
    assert_eq!(h.store_entries[0].imported_packages, vec![0xC]);
    assert_eq!(h.redirects.len(), 1);
    let h = parse(&ue4(16)).unwrap();
    assert_eq!(h.form, HeaderForm::Ue4PreInitial);
    assert_eq!(h.store_entries[0].export_bundle_count, Some(1));
    assert_eq!(h.store_entries[0].imported_packages, vec![0xC]);
}

/// A v5 header laid out by hand as the UE 5.8 retail builds of retoc issue
/// #72 store it: three packages; entry 0 imports one package and has two
/// 8-byte shader map hashes, entry 2 has one. Arrays follow the 3 × 16-byte
/// records back to back, each entry's ids then its hashes.
fn v5_short_hashes() -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(SIGNATURE).u32(5).u64(0x58);
    w.i32(3).u64(0xA).u64(0xB).u64(0xC);
    let mut b = Writer::new();
    // records: {num, offset from the field} for ids, then for hashes.
    b.u32(1).u32(48); // entry 0 ids at 48 (field 0)
    b.u32(2).u32(48); // entry 0 hashes at 56 (field 8)
    b.u32(0).u32(0).u32(0).u32(0); // entry 1
    b.u32(0).u32(0); // entry 2 ids
    b.u32(1).u32(72 - 40); // entry 2 hashes at 72 (field 40)
    b.u64(0xB); // 48..56
    b.bytes(&[1; 8]).bytes(&[2; 8]); // 56..72
    b.bytes(&[3; 8]); // 72..80
    let blob = b.into_inner();
    assert_eq!(blob.len(), 80);
    w.i32(blob.len() as i32).bytes(&blob);
    w.i32(0).i32(0);
    w.u32(0);
    w.i32(0);
    w.i32(0);
    let off = w.len() as i64 + 16;
    w.i64(off).i64(4).u32(0);
    w.into_inner()
}

#[test]
fn reads_and_writes_ue58_short_shader_map_hashes() {
    let bytes = v5_short_hashes();
    let h = parse(&bytes).unwrap();
    assert_eq!(h.form, HeaderForm::Ue5(5));
    let e = &h.store_entries;
    assert_eq!(e[0].imported_packages, vec![0xB]);
    assert_eq!(
        e[0].shader_map_hashes,
        vec![ShaderMapHash::Short([1; 8]), ShaderMapHash::Short([2; 8])]
    );
    assert!(e[1].shader_map_hashes.is_empty());
    assert_eq!(e[2].shader_map_hashes, vec![ShaderMapHash::Short([3; 8])]);
    assert_eq!(h.to_bytes().unwrap(), bytes);
    // Read as 20-byte hashes, entry 0's two would run into entry 2's: the
    // 20-byte reading cannot cover the blob exactly, so it is not taken.
    // The standard form is still read as 20 bytes.
    let mut std = h.clone();
    for e in &mut std.store_entries {
        for x in &mut e.shader_map_hashes {
            *x = ShaderMapHash::Sha1([x.as_bytes()[0]; 20]);
        }
    }
    let std_bytes = std.to_bytes().unwrap();
    assert_eq!(std_bytes.len(), bytes.len() + 3 * 12);
    assert_eq!(parse(&std_bytes).unwrap(), std);
    // One header holds one form.
    let mut mixed = h;
    mixed.store_entries[2].shader_map_hashes = vec![ShaderMapHash::Sha1([9; 20])];
    assert!(mixed.to_bytes().is_err());
    // Cut anywhere: an error, never a panic.
    for n in 0..bytes.len() {
        assert!(parse(&bytes[..n]).is_err(), "{n}");
    }
}
