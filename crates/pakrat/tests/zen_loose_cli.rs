//! `pakrat zen to-legacy DIR --container-header FILE --global G` (issue 30
//! item 1, loose files): a folder of loose zen packages converts as the
//! container they came from does.

mod common;

use common::{files, fixtures, pakrat, run, s};

/// UE5: `extract --chunks` of each fixture container, then to-legacy of the
/// folder with the extracted container header, gives the very files
/// to-legacy of the container gives (the packages that import `/Engine`
/// packages the corpus lacks are refused both ways).
#[test]
fn a_folder_converts_as_its_container_does() {
    let Some(fx) = fixtures() else { return };
    for f in fx.iter().take(2) {
        let tmp = tempfile::tempdir().unwrap();
        let (ex, from_c, from_d) = (
            tmp.path().join("ex"),
            tmp.path().join("c"),
            tmp.path().join("d"),
        );
        pakrat()
            .args(["extract", s(&f.utoc), "-o", s(&ex), "-q", "--chunks"])
            .assert()
            .success();
        let header = std::fs::read_dir(ex.join("_chunks"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| s(p).ends_with(".ContainerHeader"))
            .expect("the container header chunk");
        let v = ["--ue-version", f.engine, "--global", s(&f.global), "-q"];
        let (rc, _, _) =
            run(&[&["zen", "to-legacy", s(&f.utoc), "-o", s(&from_c)], &v[..]].concat());
        assert_eq!(rc, 1, "{}: 7 packages import /Engine packages", f.label);
        let (rc, out, err) = run(&[
            &[
                "zen",
                "to-legacy",
                s(&ex),
                "-o",
                s(&from_d),
                "--container-header",
                s(&header),
            ],
            &v[..],
        ]
        .concat());
        assert_eq!(rc, 1, "{}: {err}", f.label);
        assert!(
            out.contains("converted 90 of 97 loose zen packages"),
            "{out}"
        );
        let (a, b) = (files(&from_c), files(&from_d));
        assert_eq!(a.len(), 193, "{}", f.label);
        assert!(
            a == b,
            "{}: the folder's files differ from the container's",
            f.label
        );
    }
}

/// UE 4.27: loose zen packages with the corpus's container header and
/// loader chunks (a folder as `--global`): `T_Emissive` converts to the
/// legacy files the library gives; packages importing what the corpus
/// lacks are refused by name; a package the header does not list is
/// refused naming its id.
#[test]
fn ue427_loose_packages() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let d = c.join("zenpair/retoc/UE4.27");
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in/Items");
    std::fs::create_dir_all(&input).unwrap();
    for f in [
        "T_Emissive.uasset",
        "BP_Aphid_Meat_Prop.uasset",
        "TestModUI.uzenasset",
    ] {
        std::fs::copy(d.join(f), input.join(f)).unwrap();
    }
    let out = tmp.path().join("out");
    let header = d.join("ContainerHeader_1.bin");
    let (rc, stdout, err) = run(&[
        "zen",
        "to-legacy",
        s(&tmp.path().join("in")),
        "-o",
        s(&out),
        "--container-header",
        s(&header),
        "--global",
        s(&d),
    ]);
    assert_eq!(rc, 1, "{err}");
    assert!(
        stdout.contains("converted 1 of 3 loose zen packages"),
        "{stdout}"
    );
    assert!(
        err.contains("(/Game/Art/Creatures/Aphid02/Mesh/SM_Aphid02.SM_Aphid02, spelled from its own name map"),
        "{err}"
    );
    let id = pakrat_codec::names::package_id("/Game/_AssemblyStorm/TestMod/TestModUI");
    assert!(
        err.contains(&format!(
            "TestModUI (id {id:016X}) is not in the container header given"
        )),
        "{err}"
    );
    let got = files(&out);
    let names: Vec<&str> = got.keys().map(String::as_str).collect();
    assert_eq!(names, ["Items/T_Emissive.uasset", "Items/T_Emissive.uexp"]);
    // The library on the same package, its store entry from retoc's
    // metadata (an independent record of the same container).
    let chunk = std::fs::read(d.join("T_Emissive.uasset")).unwrap();
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("T_Emissive.metadata.json")).unwrap())
            .unwrap();
    let st = pakrat_iostore::container_header::StoreEntry {
        export_bundles_size: meta["store_entry"]["export_bundles_size"].as_u64(),
        export_count: Some(1),
        export_bundle_count: Some(1),
        load_order: None,
        imported_packages: Vec::new(),
        shader_map_hashes: Vec::new(),
    };
    let z = pakrat_asset::zen::parse(&chunk, pakrat_asset::zen::ZenLayout::Ue4, Some(&st)).unwrap();
    let rd = |n: &str| std::fs::read(d.join(n)).unwrap();
    let so = pakrat_asset::zen::ScriptObjects::parse_ue4(
        &rd("LoaderInitialLoadMeta_1.bin"),
        &rd("LoaderGlobalNames_1.bin"),
        &rd("LoaderGlobalNameHashes_1.bin"),
    )
    .unwrap();
    let src = pakrat_asset::convert::Packages::from_containers(&[], Some(so));
    let lib = pakrat_asset::convert::to_legacy(
        &z,
        &chunk,
        &[],
        &src,
        pakrat_asset::legacy::Layout::for_engine("4.27").unwrap(),
    )
    .unwrap();
    assert!(got["Items/T_Emissive.uasset"] == lib.uasset);
    assert!(got["Items/T_Emissive.uexp"] == lib.uexp);
}

/// A folder needs the container header; a container refuses one.
#[test]
fn container_header_only_with_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (rc, _, err) = run(&[
        "zen",
        "to-legacy",
        s(tmp.path()),
        "-o",
        s(&tmp.path().join("o")),
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--container-header FILE"), "{err}");
}
