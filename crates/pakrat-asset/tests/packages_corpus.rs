//! Corpus tests for the container header, zen package headers, ScriptObjects
//! and `.pak` footers, against the real files in `../shared/corpus`.

use std::collections::{BTreeMap, HashSet};

use pakrat_asset::zen::{load_script_objects, ContainerPackages, ObjectRef, ZenLayout};
use pakrat_codec::names::{package_id, script_import_index};
use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::Container;

/// The AES key of the encrypted CUE4Parse fixtures (corpus README).
const FIXTURE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

fn keys() -> KeyRing {
    let mut k = KeyRing::new();
    k.add(AesKey::parse(FIXTURE_KEY).unwrap());
    k
}

/// `.utoc` files whose data is present.
fn containers_with_data() -> Option<Vec<pakrat_testkit::Entry>> {
    Some(
        pakrat_testkit::entries("iostore")?
            .into_iter()
            .filter(|e| e.local_path.ends_with(".utoc") && e.detail.contains("ucas present"))
            .collect(),
    )
}

#[test]
fn every_package_of_the_corpus_parses_and_matches_its_id() {
    let Some(list) = containers_with_data() else {
        return;
    };
    let keys = keys();
    let mut containers = 0;
    let mut total = 0;
    // Export counts per (fixture set, package name): all variants must agree.
    let mut counts: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for e in &list {
        let c =
            Container::open(&e.path, &keys).unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        let Ok(all) = ContainerPackages::read(&c) else {
            // Only global containers have no container header.
            assert!(
                e.local_path.ends_with("global.utoc"),
                "{}: no container header",
                e.local_path
            );
            continue;
        };
        containers += 1;
        // The container header names exactly the package chunks.
        let in_header: HashSet<u64> = all.header.package_ids.iter().copied().collect();
        let in_toc: HashSet<u64> = all.packages.iter().map(|p| p.id).collect();
        assert_eq!(in_header, in_toc, "{}", e.local_path);
        assert_eq!(all.header.store_entries.len(), all.header.package_ids.len());
        assert_eq!(all.header.padding, 0, "{}", e.local_path);
        let stem = e.path.file_stem().unwrap().to_str().unwrap();
        assert_eq!(
            all.header.container_id,
            package_id(stem),
            "{}: container id",
            e.local_path
        );
        assert!(
            matches!(all.layout, ZenLayout::Ue5_3 { cells: true }),
            "{}",
            e.local_path
        );
        let set = e
            .local_path
            .split("/IoStore/")
            .next()
            .unwrap_or("")
            .to_string()
            + e.local_path.split('/').nth(4).unwrap_or("");
        for p in &all.packages {
            let h = p
                .header
                .as_ref()
                .unwrap_or_else(|err| panic!("{} package {:016X}: {err}", e.local_path, p.id));
            total += 1;
            // FPackageId = CityHash64 of the lower-cased UTF-16 name.
            assert_eq!(package_id(&h.name), p.id, "{}: {}", e.local_path, h.name);
            // Every stored name hash matches the CityHash64 of the lower-cased name.
            assert_eq!(h.name_hash_mismatches(), 0, "{}", h.name);
            // The directory path is the same package: .../Content/<rest>.uasset|.umap
            let path = p.path.as_deref().expect("fixture packages are indexed");
            let rel = h
                .name
                .strip_prefix("/Game/")
                .expect("fixture packages live in /Game");
            let (stem, ext) = path.rsplit_once('.').unwrap();
            assert!(
                stem.ends_with(&format!("Content/{rel}")),
                "{path} vs {}",
                h.name
            );
            assert!(ext == "uasset" || ext == "umap", "{path}");
            // Imported package names hash to the store entry's imported ids.
            let store = all.header.store_entry(p.id).unwrap();
            let ids: Vec<u64> = h
                .imported_package_names
                .iter()
                .map(|n| package_id(n))
                .collect();
            assert_eq!(ids, store.imported_packages, "{}", h.name);
            // Export counts are consistent within the header.
            assert!(!h.exports.is_empty(), "{}", h.name);
            assert_eq!(
                h.export_bundle_entries.len(),
                2 * h.exports.len(),
                "{}",
                h.name
            );
            assert_eq!(
                h.dependency_bundle_headers.len(),
                h.exports.len(),
                "{}",
                h.name
            );
            // Export data: contiguous from HeaderSize, in bounds.
            let mut end = 0;
            for x in &h.exports {
                end = end.max(x.serial_offset + x.serial_size);
            }
            assert!(u64::from(h.header_size) + end <= c.chunks()[p.chunk_index].size);
            // Package imports point at existing imported packages and hashes.
            for imp in &h.imports {
                if let ObjectRef::Package { package, hash, .. } = imp.get() {
                    assert!(
                        (package as usize) < store.imported_packages.len(),
                        "{}",
                        h.name
                    );
                    assert!(
                        (hash as usize) < h.imported_public_export_hashes.len(),
                        "{}",
                        h.name
                    );
                }
            }
            let k = (set.clone(), h.name.clone());
            let v = (h.exports.len(), h.imports.len());
            if let Some(prev) = counts.insert(k, v) {
                assert_eq!(
                    prev, v,
                    "{}: export/import counts differ between variants",
                    h.name
                );
            }
        }
    }
    // 2 engines x 2 cook modes x 5 variants + 2 x 2 patch containers.
    assert!(
        containers >= 24,
        "only {containers} containers with packages"
    );
    assert!(total >= 2 * 2 * 5 * 97, "only {total} packages");
}

#[test]
fn script_objects_of_every_global_container_hash_to_their_paths() {
    let Some(list) = containers_with_data() else {
        return;
    };
    let mut globals = 0;
    for e in list
        .iter()
        .filter(|e| e.local_path.ends_with("global.utoc"))
    {
        let c = Container::open(&e.path, &KeyRing::new()).unwrap();
        let s = load_script_objects(&c).unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        assert!(s.objects.len() > 10_000, "{}", e.local_path);
        for o in &s.objects {
            let path = s
                .path(o.global_index)
                .unwrap_or_else(|| panic!("{}: unresolvable", e.local_path));
            assert_eq!(script_import_index(&path), o.global_index.0, "{path}");
        }
        globals += 1;
    }
    assert!(globals >= 10, "only {globals} global containers");
}

#[test]
fn fixture_classes_resolve_through_the_global_container() {
    let Some(list) = containers_with_data() else {
        return;
    };
    let keys = keys();
    let mut checked = 0;
    for e in list
        .iter()
        .filter(|e| e.local_path.contains("/Uncompressed/"))
    {
        let c = Container::open(&e.path, &keys).unwrap();
        let g = Container::open(
            e.path
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("global.utoc"),
            &keys,
        )
        .unwrap();
        let s = load_script_objects(&g).unwrap();
        let all = ContainerPackages::read(&c).unwrap();
        let public = all.public_exports();
        let r = pakrat_asset::zen::Resolver {
            all: &all,
            script: Some(&s),
            public: &public,
        };
        let mut texture = false;
        for p in &all.packages {
            let h = p.header.as_ref().unwrap();
            for x in &h.exports {
                let class = r.name(h, p.id, x.class);
                assert!(!class.starts_with('<'), "{}: class {class}", h.name);
                if h.name == "/Game/Fixtures/Textures/T_BC1" {
                    assert_eq!(class, "/Script/Engine.Texture2D");
                    texture = true;
                }
            }
            for &i in &h.imports {
                let n = r.name(h, p.id, i);
                assert!(!n.starts_with("<script"), "{}: import {n}", h.name);
            }
        }
        assert!(texture, "{}: T_BC1 not found", e.local_path);
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn pak_footers_match_the_manifest() {
    let Some(list) = pakrat_testkit::entries("iostore") else {
        return;
    };
    let mut n = 0;
    for e in list.iter().filter(|e| e.local_path.ends_with(".pak")) {
        let data = std::fs::read(&e.path).unwrap();
        let f = pakrat_pak::parse(&data, data.len() as u64)
            .unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        let want: u32 = e
            .detail
            .split_whitespace()
            .find_map(|t| t.strip_prefix('v')?.parse().ok())
            .expect("detail names the version");
        assert_eq!(f.version, want, "{}", e.local_path);
        if let Some(enc) = e.detail_value("indexEncrypted") {
            assert_eq!(f.encrypted_index, enc == "1", "{}", e.local_path);
        }
        assert_eq!(f.footer_offset + f.footer_size, data.len() as u64);
        assert!(f.index_offset as u64 + f.index_size as u64 <= f.footer_offset);
        assert!(f.index_size > 0);
        // iostore.md §16: v15 footers of the fixtures store PakchunkIndex -1,
        // EncryptionMethod 1 and zero IVs.
        if f.version == 15 {
            assert_eq!(f.pakchunk_index, Some(-1));
            assert_eq!(f.encryption_method, Some(1));
            assert!(f
                .index_ivs
                .iter()
                .all(|iv| iv == "000000000000000000000000"));
        }
        n += 1;
    }
    assert_eq!(n, 6);
}
