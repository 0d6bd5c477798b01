//! `pakrat export --class StaticMesh` of the UE4/UE5 static meshes of the corpus:
//! the CUE4Parse fixture project's `SM_Fixture` and `SM_Nanite` in every
//! IoStore variant that holds them (UE 5.8 and 6.0 × Tagged/Unversioned ×
//! Uncompressed/Zlib/Oodle/OodlePartitioned/OodleEncrypted; the legacy
//! paks of the project are its "Minimal" set and hold no mesh), and
//! zenpair's UE 5.6 `SM_Cube`. Every `.glb` passes the Khronos
//! glTF-Validator (`tools/gltf-validate`) with 0 errors and 0 warnings.
//!
//! Where the expected numbers come from:
//! - `SM_Fixture`: CUE4Parse's own fixture test
//!   (`CUE4Parse.Tests/Fixtures/Tests/FixtureRenderableAssetTests.cs`,
//!   `StaticMeshPreservesLodsSectionsVertexStreamsAndSocket`) asserts 2 LODs
//!   of 6 vertices, 2 triangles and 2 sections each, the slots `Primary`
//!   and `Secondary`, vertices at (−50, −50, 0) and (50, 50, 20), and the
//!   socket `FixtureSocket` at (12.5, −25, 37.5), rotated (10, 20, 30),
//!   scaled (1.25, 0.75, 2);
//! - `SM_Nanite`: CUE4Parse asserts the one slot `NaniteSurface` and 2,048
//!   input triangles / 1,089 input vertices of the Nanite resources, which
//!   pakrat does not decode; the fallback LOD it exports (1,083 vertices,
//!   2,042 triangles) has no independent count, so the test checks it
//!   against the package itself: the index buffer holds exactly 3 × the
//!   sections' `NumTriangles` indices (the validator's own triangle count
//!   of the written file), and every variant gives the same numbers;
//! - `SM_Cube` (UE 5.6, unversioned, no mappings of its own: read with the
//!   fixture project's 5.8 mappings, whose `StaticMesh` schema fits it): a
//!   cube, 24 vertices (4 per face, for flat normals and UVs) and 12
//!   triangles.

mod common;

use common::gltf::{glb, validate, winding};

use std::path::Path;

use serde_json::Value;

/// Export the meshes of `input` to `out` with `args`; the `--json` report.
fn export(input: &Path, out: &Path, args: &[&str]) -> Value {
    let mut a = vec![
        "export",
        common::s(input),
        "--class",
        "StaticMesh",
        "-o",
        common::s(out),
        "--json",
    ];
    a.extend_from_slice(args);
    let (code, v) = common::run_json(&a);
    assert_eq!(code, 0, "{v}");
    v
}

/// (object, detail) of a report's written rows, sorted by object (the
/// packages are exported in parallel).
fn rows(v: &Value) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = v["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["object"].as_str().unwrap().to_string(),
                r["written"][0]["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    r.sort();
    r
}

const FIXTURE: &str =
    "glTF LOD 0 of 2, 6 vertices, 2 triangles, 2 sections, 2 UV sets, vertex colours, 1 sockets";
const NANITE: &str = "glTF LOD 0 of 1, 1083 vertices, 2042 triangles, 1 sections, 2 UV sets, vertex colours, 0 sockets";

fn check_fixture_glb(path: &Path) {
    let (j, bin) = glb(path);
    let mats: Vec<&str> = j["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(mats, ["Primary", "Secondary"]);
    // Unreal (−50, −50, 0)..(50, 50, 20) in glTF axes (−Y, Z, X).
    let p = &j["accessors"][j["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize];
    assert_eq!(p["min"], serde_json::json!([-50.0, 0.0, -50.0]));
    assert_eq!(p["max"], serde_json::json!([50.0, 20.0, 50.0]));
    let socket = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "FixtureSocket")
        .expect("socket node");
    assert_eq!(socket["translation"], serde_json::json!([25.0, 37.5, 12.5]));
    assert_eq!(socket["scale"], serde_json::json!([0.75, 2.0, 1.25]));
    assert_eq!(winding(&j, &bin), (2, 2));
}

#[test]
fn fixture_static_meshes_export_in_every_variant_and_validate() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs = Vec::new();
    let mut variants = 0;
    for engine in ["UE5_8", "UE6_0"] {
        let usmap = corpus.join(format!(
            "pak/cue4parse/{engine}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
        ));
        for mode in ["Tagged", "Unversioned"] {
            for comp in [
                "Uncompressed",
                "Zlib",
                "Oodle",
                "OodlePartitioned",
                "OodleEncrypted",
            ] {
                let dir = corpus.join(format!("iostore/cue4parse/{engine}/IoStore/{mode}/{comp}"));
                let utoc = std::fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.extension().is_some_and(|e| e == "utoc"))
                    .unwrap();
                let out = tmp.path().join(format!("{engine}-{mode}-{comp}"));
                let v = export(
                    &utoc,
                    &out,
                    &[
                        "--usmap",
                        common::s(&usmap),
                        "--aes-key",
                        common::FIXTURE_KEY,
                    ],
                );
                let label = format!("{engine} {mode} {comp}");
                assert_eq!(
                    rows(&v),
                    [
                        (
                            "/Game/Fixtures/Meshes/SM_Fixture.SM_Fixture".into(),
                            FIXTURE.into()
                        ),
                        (
                            "/Game/Fixtures/Meshes/SM_Nanite.SM_Nanite".into(),
                            NANITE.into()
                        ),
                    ],
                    "{label}"
                );
                assert!(v["failed"].as_array().unwrap().is_empty(), "{label}: {v}");
                let f = out.join("Game/Fixtures/Meshes/SM_Fixture.glb");
                check_fixture_glb(&f);
                let (j, _) = glb(&out.join("Game/Fixtures/Meshes/SM_Nanite.glb"));
                assert!(j["materials"][0]["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("NaniteSurface"));
                glbs.push(f);
                glbs.push(out.join("Game/Fixtures/Meshes/SM_Nanite.glb"));
                variants += 1;
                // LOD 1 of SM_Fixture: the same counts (CUE4Parse's test);
                // SM_Nanite has one LOD and is skipped with the reason.
                if comp == "Uncompressed" {
                    let out1 = tmp.path().join(format!("{engine}-{mode}-lod1"));
                    let v = export(&utoc, &out1, &["--usmap", common::s(&usmap), "--lod", "1"]);
                    assert_eq!(rows(&v)[0].1, FIXTURE.replace("LOD 0", "LOD 1"), "{label}");
                    assert_eq!(
                        v["skipped"][0]["skipped"], "the mesh has 1 LODs, not LOD 1",
                        "{label}"
                    );
                    glbs.push(out1.join("Game/Fixtures/Meshes/SM_Fixture.glb"));
                }
            }
        }
    }
    assert_eq!(variants, 20);
    let reports = validate(&glbs);
    for r in &reports {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
        if r["file"].as_str().unwrap().ends_with("SM_Nanite.glb") {
            assert_eq!(r["info"]["totalTriangleCount"], 2042, "{r}");
        } else {
            assert_eq!(r["info"]["totalTriangleCount"], 2, "{r}");
        }
    }
}

#[test]
fn zenpair_cube_exports_with_the_fixture_mappings() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let usmap = corpus.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    let cube = corpus.join("zenpair/retoc/UE5.6/SM_Cube.uasset");
    let v = export(
        &cube,
        tmp.path(),
        &["--ue-version", "5.6", "--usmap", common::s(&usmap)],
    );
    assert_eq!(
        rows(&v),
        [(
            "/Game/LevelPrototyping/Meshes/SM_Cube.SM_Cube".to_string(),
            "glTF LOD 0 of 1, 24 vertices, 12 triangles, 1 sections, 2 UV sets, 0 sockets"
                .to_string()
        )]
    );
    let f = tmp.path().join("Game/LevelPrototyping/Meshes/SM_Cube.glb");
    let (j, bin) = glb(&f);
    assert_eq!(winding(&j, &bin), (12, 12));
    for r in validate(&[f]) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
        assert_eq!(r["info"]["totalTriangleCount"], 12, "{r}");
        assert_eq!(r["info"]["totalVertexCount"], 24, "{r}");
    }
    // SK_Mannequin is a Skeleton, not a static mesh: `--class StaticMesh`
    // finds nothing in it (ue5_skeletal_export_cli.rs exports it).
    let sk = corpus.join("zenpair/retoc/UE5.6/SK_Mannequin.uasset");
    let (code, _, err) = common::run(&[
        "export",
        common::s(&sk),
        "--class",
        "StaticMesh",
        "--ue-version",
        "5.6",
        "-o",
        common::s(&tmp.path().join("sk")),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("no object of class StaticMesh"), "{err}");
}
