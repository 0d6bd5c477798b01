//! Hand-built registries of every version read here: each writes, reads back
//! as the same model and writes the same bytes again. (The fixtures of the
//! corpus cover version 24 from real cooks.)

use pakrat_codec::names::BatchName;

use super::asset::{Bundle, BundleAsset, Tags};
use super::depends::{AssetIdentifier, OldSplit};
use super::names::TableName;
use super::package::{ChunkHash, CustomVersion, FileVersions};
use super::store::{ExportPath, NumberlessExportPath, ValueId, ValueKind};
use super::*;

const NAMES: [&str; 8] = [
    "None",
    "/Game/Maps",
    "/Script/Engine",
    "World",
    "/Game/Maps/Level",
    "Level",
    "Tag",
    "Bundle",
];

fn n(index: u32) -> NameRef {
    NameRef { index, number: 0 }
}

fn store(v: u32) -> Store {
    let cp = v >= version::CLASS_PATHS;
    Store {
        text_first: v >= version::MEMORY_MAPPED_TAG_DATA_STORE,
        text_bytes: 0,
        numberless_names: vec![3],
        names: vec![NameRef {
            index: 5,
            number: 2,
        }],
        numberless_export_paths: vec![NumberlessExportPath {
            class_package: cp.then_some(2),
            class: 3,
            object: 5,
            package: 4,
        }],
        export_paths: vec![ExportPath {
            class_package: cp.then_some(n(2)),
            class: n(3),
            object: n(5),
            package: n(4),
        }],
        texts: vec![RegString::new("NSLOCTEXT(\"\", \"k\", \"Text\")")],
        ansi_offsets: vec![0, 4],
        wide_offsets: vec![0],
        ansi_strings: b"abc\0de\0".to_vec(),
        wide_strings: vec![b'w', 0, 0x3B, 0x26, 0, 0],
        numberless_pairs: vec![
            (6, ValueId::new(ValueKind::AnsiString, 1)),
            (7, ValueId::new(ValueKind::WideString, 0)),
        ],
        pairs: vec![
            (
                NameRef {
                    index: 6,
                    number: 1,
                },
                ValueId::new(ValueKind::ExportPath, 0),
            ),
            (n(7), ValueId::new(ValueKind::LocalizedText, 0)),
        ],
    }
}

fn asset(v: u32, batch: bool, filter: bool) -> AssetData {
    AssetData {
        object_path: (v < version::REMOVE_ASSET_PATH_FNAMES).then_some(n(4)),
        package_path: n(1),
        class_package: (v >= version::CLASS_PATHS).then_some(n(2)),
        class: n(3),
        group_names: (v < version::REMOVED_MD5_HASH).then_some(n(0)),
        package_name: n(4),
        asset_name: n(5),
        optional_outer_path: (v >= version::REMOVE_ASSET_PATH_FNAMES && !filter).then_some(n(0)),
        tags: if batch {
            Tags::Handle(Tags::make_handle(true, 2, 0))
        } else {
            Tags::Loose(vec![
                (n(6), RegString::new("value")),
                (n(7), RegString::new("\u{263B}")),
            ])
        },
        bundles: if batch {
            vec![Bundle {
                name: n(7),
                assets: vec![BundleAsset {
                    package: n(4),
                    asset: (v >= version::CLASS_PATHS).then_some(n(5)),
                    sub_path: RegString::new("Sub"),
                }],
            }]
        } else {
            Vec::new()
        },
        chunk_ids: vec![0, 3],
        package_flags: 0x8000_0000,
    }
}

fn nodes(v: u32) -> Dependencies {
    let flags = v >= version::ADDED_DEPENDENCY_FLAGS;
    let node = |id: AssetIdentifier, deps: Vec<i32>, refs: Vec<i32>| DependsNode {
        identifier: id,
        package_flags: if flags && !deps.is_empty() {
            vec![0x1F]
        } else {
            Vec::new()
        },
        package_deps: deps,
        name_deps: Vec::new(),
        manage_deps: if flags { Vec::new() } else { vec![0] },
        manage_flags: Vec::new(),
        referencers: refs,
        old_split: (!flags).then_some(OldSplit {
            hard: 0,
            soft_manage: 1,
        }),
    };
    Dependencies {
        nodes: vec![
            node(
                AssetIdentifier {
                    package_name: Some(n(4)),
                    ..Default::default()
                },
                vec![1],
                Vec::new(),
            ),
            node(
                AssetIdentifier {
                    primary_asset_type: Some(n(3)),
                    value_name: Some(NameRef {
                        index: 5,
                        number: 7,
                    }),
                    ..Default::default()
                },
                Vec::new(),
                vec![0],
            ),
        ],
    }
}

fn package(v: u32) -> PackageData {
    PackageData {
        package_name: n(4),
        disk_size: 1234,
        saved_hash: vec![
            7;
            if v >= version::PACKAGE_SAVED_HASH {
                20
            } else {
                16
            }
        ],
        cooked_hash: (v >= version::ADDED_COOKED_MD5_HASH).then_some(Some([9; 16])),
        chunk_hashes: if v >= version::ADDED_CHUNK_HASHES {
            vec![ChunkHash {
                chunk_id: [1; 12],
                hash: [2; 20],
            }]
        } else {
            Vec::new()
        },
        versions: (v >= version::WORKSPACE_DOMAIN).then(|| FileVersions {
            ue4: 522,
            ue5: (v >= version::PACKAGE_FILE_SUMMARY_VERSION_CHANGE).then_some(1012),
            licensee: 0,
            flags: 0x4000_0000,
            custom_versions: vec![CustomVersion {
                key: Guid::from_bytes([5; 16]),
                version: 3,
            }],
        }),
        imported_classes: if v >= version::PACKAGE_IMPORTED_CLASSES {
            vec![n(3)]
        } else {
            Vec::new()
        },
        extension: (v >= version::ASSET_PACKAGE_DATA_HAS_EXTENSION)
            .then(|| RegString::new(".umap")),
    }
}

/// A registry of version `v` holding one asset, two nodes and one package.
pub(super) fn sample(v: u32) -> AssetRegistry {
    let batch = v >= version::FIXED_TAGS;
    let filter = v >= version::ADDED_HEADER;
    let names = if batch {
        Names::Batch(
            NAMES
                .iter()
                .map(|t| BatchName {
                    text: (*t).to_owned(),
                    wide: false,
                    stored_hash: None,
                })
                .collect(),
        )
    } else {
        Names::Table(
            NAMES
                .iter()
                .map(|t| TableName {
                    text: RegString::new(t),
                    hashes: [1, 2],
                })
                .collect(),
        )
    };
    AssetRegistry {
        version: v,
        filter_editor_only: filter.then_some(true),
        names,
        store: batch.then(|| store(v)),
        assets: vec![asset(v, batch, filter)],
        dependencies: nodes(v),
        packages: vec![package(v)],
    }
}

#[test]
fn every_version_writes_reads_and_writes_the_same_bytes() {
    for v in version::CHANGED_ASSET_DATA..=version::LATEST {
        let reg = sample(v);
        let bytes = reg.to_bytes();
        let back = AssetRegistry::read(&bytes).unwrap_or_else(|e| panic!("version {v}: {e}"));
        assert_eq!(back.to_bytes(), bytes, "version {v}");
        assert_eq!(back.assets, reg.assets, "version {v}");
        assert_eq!(back.dependencies, reg.dependencies, "version {v}");
        assert_eq!(back.packages, reg.packages, "version {v}");
        assert_eq!(back.store, reg.store, "version {v}");
        let a = &back.assets[0];
        let tags = back.tags(a);
        if v >= version::FIXED_TAGS {
            assert_eq!(
                tags,
                vec![
                    ("Tag".into(), "de".into()),
                    ("Bundle".into(), "w\u{263B}".into())
                ]
            );
            assert_eq!(
                back.value_text(back.store.as_ref().unwrap().pairs[0].1),
                if v >= version::CLASS_PATHS {
                    "/Script/Engine.World'/Game/Maps/Level.Level'"
                } else {
                    "World'/Game/Maps/Level.Level'"
                }
            );
        } else {
            assert_eq!(
                tags,
                vec![
                    ("Tag".into(), "value".into()),
                    ("Bundle".into(), "\u{263B}".into())
                ]
            );
        }
    }
}

#[test]
fn refused_versions_and_damage_say_where() {
    let mut b = sample(24).to_bytes();
    b[16] = 25;
    let e = AssetRegistry::read(&b).unwrap_err().to_string();
    assert!(e.contains("version 25"), "{e}");
    let e = AssetRegistry::read(&[0u8; 40]).unwrap_err().to_string();
    assert!(e.contains("PreVersioning"), "{e}");
    let mut b = sample(24).to_bytes();
    b.push(0);
    let e = AssetRegistry::read(&b).unwrap_err().to_string();
    assert!(e.contains("after the package data"), "{e}");
    let good = sample(7).to_bytes();
    for cut in 0..good.len() {
        assert!(AssetRegistry::read(&good[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn merge_of_hand_built_registries_adds_and_replaces() {
    for v in [7, 8, 14, 24] {
        let mut game = sample(v);
        let mut add = sample(v);
        // A second asset with a new name in the mod.
        let new = add.names.intern("/Game/Mod/New");
        let mut a = add.assets[0].clone();
        a.package_name = n(new);
        add.assets.push(a);
        let report = merge::merge(&mut game, &add).unwrap();
        assert_eq!(
            (
                report.assets_replaced,
                report.assets_added,
                report.names_added
            ),
            (1, 1, 1),
            "v{v}"
        );
        let bytes = game.to_bytes();
        let back = AssetRegistry::read(&bytes).unwrap();
        assert_eq!(back.assets.len(), 2);
        assert_eq!(back.tags(&back.assets[1]), add.tags(&add.assets[1]), "v{v}");
        let mut again = back.clone();
        merge::merge(&mut again, &add).unwrap();
        assert_eq!(again.to_bytes(), bytes, "v{v}: merging twice");
    }
}
