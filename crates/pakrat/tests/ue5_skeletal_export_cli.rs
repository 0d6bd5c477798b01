//! `pakrat export --class Mesh` of the UE4/UE5 skeletal objects of the
//! corpus: the CUE4Parse fixture project's `SK_Fixture` (SkeletalMesh),
//! `SKEL_Fixture` (Skeleton), `AS_Fixture` and `AS_Additive`
//! (AnimSequence, decoded: `ue5_anim_export_cli.rs` checks their keys) in every IoStore variant (UE 5.8 and 6.0 ×
//! Tagged/Unversioned × Uncompressed/Zlib/Oodle/OodlePartitioned/
//! OodleEncrypted; the legacy paks of the project are its "Minimal" set and
//! hold no asset of these classes), and zenpair's UE 5.6 `SK_Mannequin`
//! (a Skeleton: 161 bones from `root`, `pelvis`, `spine_01`; no independent
//! count, so the test checks the hierarchy is well formed). Every `.glb` passes the Khronos glTF-Validator with 0
//! errors and 0 warnings.
//!
//! Where the expected numbers come from: CUE4Parse's own fixture tests
//! (`CUE4Parse.Tests/Fixtures/Tests/FixtureRenderableAssetTests.cs`
//! `SkeletalMeshPreservesBonesLodsSkinWeightsAndMorphTarget`,
//! `FixtureAnimationTests.cs` `SkeletonPreservesHierarchyAndSocket` and
//! `AnimationSequencePreservesCompressedTracksAndCurve`,
//! `FixtureTestUtilities.cs` `AssertReferenceSkeleton`): bones `Root`,
//! `Joint_1`, `Joint_2` with parents −1, 0, 1 (in the mesh and in the
//! skeleton); 2 LODs of 6 and 3 vertices; one morph target
//! `Morph_Fixture` whose LOD 0 moves 2 vertices of section 0; the
//! skeleton's socket `FixtureSocket` on `Joint_1` at (2.5, −5, 7.5),
//! scaled (1, 1.25, 0.75); the animation's tracks map to bones 0, 1, 2.
//! The triangle counts (2 and 1) are the `SourceModels` property of the
//! mesh itself (`TriangleCount`).

mod common;

use common::gltf::{glb, validate, winding};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The JSON chunk of a `.glb`.
fn glb_json(path: &Path) -> Value {
    glb(path).0
}

/// Export `input` to `out` with `args`; the `--json` report.
fn export(input: &Path, out: &Path, args: &[&str]) -> Value {
    let mut a = vec![
        "export",
        common::s(input),
        "--class",
        "SkeletalMesh,Skeleton,AnimSequence",
        "-o",
        common::s(out),
        "--json",
    ];
    a.extend_from_slice(args);
    let (code, v) = common::run_json(&a);
    assert_eq!(code, 0, "{v}");
    v
}

/// (object, detail or skip reason) of every row, sorted by object.
fn rows(v: &Value) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = Vec::new();
    for row in v["written"].as_array().unwrap() {
        r.push((
            row["object"].as_str().unwrap().to_string(),
            row["written"][0]["detail"].as_str().unwrap().to_string(),
        ));
    }
    for row in v["skipped"].as_array().unwrap() {
        r.push((
            row["object"].as_str().unwrap().to_string(),
            row["skipped"].as_str().unwrap().to_string(),
        ));
    }
    r.sort();
    r
}

const SK: &str = "glTF LOD 0 of 2, 6 vertices, 2 triangles, 2 sections, 2 UV sets, vertex colours, 3 bones, 1 morph targets, 0 sockets";
const SKEL: &str = "glTF skeleton, 3 bones, 1 sockets, 0 virtual bones";

fn expected(engine: &str) -> Vec<(String, String)> {
    // The UE 6.0 cook of AS_Fixture keeps only fixed-point keys (see
    // ue5_anim_export_cli.rs).
    let fixture_formats = if engine == "UE5_8" {
        "ACF_Fixed48NoW ACF_Float96NoW"
    } else {
        "ACF_Fixed48NoW"
    };
    let anim = |formats: &str, more: &str| {
        format!("glTF animation, 31 frames at 30 fps (1 s), 3 tracks on 3 bones of /Game/Fixtures/Animations/SKEL_Fixture.SKEL_Fixture, codec AnimCompress_PerTrackCompression_1 ({formats}){more}")
    };
    vec![
        (
            "/Game/Fixtures/Animations/AS_Additive.AS_Additive".into(),
            anim(
                "ACF_Fixed48NoW ACF_Float96NoW",
                ", AAT_LocalSpaceBase on ABPT_AnimFrame applied",
            ),
        ),
        (
            "/Game/Fixtures/Animations/AS_Fixture.AS_Fixture".into(),
            anim(fixture_formats, ""),
        ),
        (
            "/Game/Fixtures/Animations/SKEL_Fixture.SKEL_Fixture".into(),
            SKEL.into(),
        ),
        (
            "/Game/Fixtures/Meshes/SK_Fixture.SK_Fixture".into(),
            SK.into(),
        ),
    ]
}

/// The joints of the skin: names and parents (−1 for a root).
fn joints(j: &Value) -> (Vec<String>, Vec<i64>) {
    let nodes = j["nodes"].as_array().unwrap();
    let skin = &j["skins"][0]["joints"];
    let ids: Vec<usize> = skin
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    let names = ids
        .iter()
        .map(|&i| nodes[i]["name"].as_str().unwrap().to_string())
        .collect();
    let parents = ids
        .iter()
        .map(|&i| {
            let p = nodes.iter().position(|n| {
                n["children"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|x| x.as_u64() == Some(i as u64)))
            });
            p.and_then(|p| ids.iter().position(|&x| x == p))
                .map_or(-1, |k| k as i64)
        })
        .collect();
    (names, parents)
}

/// Hamilton product of quaternions (x, y, z, w).
fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

/// A node's world position (translations and rotations down from the
/// root; the Mannequin's scales are 1).
fn world_position(j: &Value, name: &str) -> [f64; 3] {
    let nodes = j["nodes"].as_array().unwrap();
    let num = |v: &Value, k: usize, d: f64| v.get(k).and_then(Value::as_f64).unwrap_or(d);
    let mut chain = vec![nodes.iter().position(|n| n["name"] == name).unwrap()];
    while let Some(p) = nodes.iter().position(|n| {
        n["children"].as_array().is_some_and(|c| {
            c.iter()
                .any(|x| x.as_u64() == Some(*chain.last().unwrap() as u64))
        })
    }) {
        chain.push(p);
    }
    let (mut t, mut q) = ([0.0; 3], [0.0, 0.0, 0.0, 1.0]);
    for &i in chain.iter().rev() {
        let n = &nodes[i];
        let lt = [0, 1, 2].map(|k| num(&n["translation"], k, 0.0));
        let lq = [0, 1, 2, 3].map(|k| num(&n["rotation"], k, if k == 3 { 1.0 } else { 0.0 }));
        let r = qmul(
            qmul(q, [lt[0], lt[1], lt[2], 0.0]),
            [-q[0], -q[1], -q[2], q[3]],
        );
        t = [t[0] + r[0], t[1] + r[1], t[2] + r[2]];
        q = qmul(q, lq);
    }
    t
}

fn check_mesh(path: &Path) {
    let (j, bin) = glb(path);
    // The stored normals face the counter-clockwise side of both triangles.
    assert_eq!(winding(&j, &bin), (2, 2));
    let (names, parents) = joints(&j);
    assert_eq!(names, ["Root", "Joint_1", "Joint_2"]);
    assert_eq!(parents, [-1, 0, 1]);
    let prims = j["meshes"][0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 2);
    let mats: Vec<&str> = j["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(mats, ["Primary", "Secondary"]);
    for p in prims {
        assert!(p["attributes"]["JOINTS_0"].is_u64());
        assert!(p["attributes"]["WEIGHTS_0"].is_u64());
        let t = p["targets"].as_array().expect("the morph target");
        assert_eq!(t.len(), 1);
        // Morph_Fixture moves 2 vertices (CUE4Parse: NumBaseMeshVerts 2).
        let a = &j["accessors"][t[0]["POSITION"].as_u64().unwrap() as usize];
        assert_eq!(a["sparse"]["count"], 2, "{a}");
    }
    assert_eq!(
        j["meshes"][0]["extras"]["targetNames"],
        serde_json::json!(["Morph_Fixture"])
    );
}

fn check_skeleton(path: &Path) {
    let j = glb_json(path);
    let (names, parents) = joints(&j);
    assert_eq!(names, ["Root", "Joint_1", "Joint_2"]);
    assert_eq!(parents, [-1, 0, 1]);
    let nodes = j["nodes"].as_array().unwrap();
    let socket = nodes
        .iter()
        .find(|n| n["name"] == "FixtureSocket")
        .expect("socket node");
    // Unreal (2.5, −5, 7.5) in glTF axes (−Y, Z, X); scale (Y, Z, X).
    assert_eq!(socket["translation"], serde_json::json!([5.0, 7.5, 2.5]));
    assert_eq!(socket["scale"], serde_json::json!([1.25, 0.75, 1.0]));
    let joint1 = nodes.iter().position(|n| n["name"] == "Joint_1").unwrap();
    let me = nodes
        .iter()
        .position(|n| n["name"] == "FixtureSocket")
        .unwrap();
    assert!(nodes[joint1]["children"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c.as_u64() == Some(me as u64)));
}

#[test]
fn fixture_skeletal_assets_export_in_every_variant_and_validate() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs: Vec<PathBuf> = Vec::new();
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
                let key = [
                    "--usmap",
                    common::s(&usmap),
                    "--aes-key",
                    common::FIXTURE_KEY,
                ];
                let v = export(&utoc, &out, &key);
                let label = format!("{engine} {mode} {comp}");
                assert_eq!(rows(&v), expected(engine), "{label}");
                assert!(v["failed"].as_array().unwrap().is_empty(), "{label}: {v}");
                let sk = out.join("Game/Fixtures/Meshes/SK_Fixture.glb");
                let skel = out.join("Game/Fixtures/Animations/SKEL_Fixture.glb");
                check_mesh(&sk);
                check_skeleton(&skel);
                glbs.push(sk);
                glbs.push(skel);
                for a in ["AS_Fixture", "AS_Additive"] {
                    glbs.push(out.join(format!("Game/Fixtures/Animations/{a}.glb")));
                }
                variants += 1;
                if comp != "Uncompressed" {
                    continue;
                }
                // LOD 1 (3 vertices), every LOD, and ActorX.
                let o1 = tmp.path().join(format!("{engine}-{mode}-lod1"));
                let v = export(&utoc, &o1, &["--usmap", common::s(&usmap), "--lod", "1"]);
                let want = "glTF LOD 1 of 2, 3 vertices, 1 triangles, 1 sections, 2 UV sets, vertex colours, 3 bones, 0 morph targets, 0 sockets";
                assert_eq!(rows(&v)[3].1, want, "{label}");
                glbs.push(o1.join("Game/Fixtures/Meshes/SK_Fixture.glb"));
                let oa = tmp.path().join(format!("{engine}-{mode}-all"));
                let v = export(&utoc, &oa, &["--usmap", common::s(&usmap), "--all-lods"]);
                assert!(
                    rows(&v)[3].1.starts_with(
                        "glTF LOD 0–1 of 2, 6 vertices, 2 triangles / 3 vertices, 1 triangles,"
                    ),
                    "{label}: {v}"
                );
                glbs.push(oa.join("Game/Fixtures/Meshes/SK_Fixture.glb"));
                let op = tmp.path().join(format!("{engine}-{mode}-psk"));
                let v = export(
                    &utoc,
                    &op,
                    &["--usmap", common::s(&usmap), "--mesh-format", "psk"],
                );
                assert!(
                    rows(&v)[3].1.starts_with("psk LOD 0 of 2, 6 vertices"),
                    "{v}"
                );
                let psk = std::fs::read(op.join("Game/Fixtures/Meshes/SK_Fixture.psk")).unwrap();
                assert_eq!(&psk[..8], b"ACTRHEAD");
            }
        }
    }
    assert_eq!(variants, 20);
    let reports = validate(&glbs);
    for r in &reports {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}

#[test]
fn zenpair_mannequin_skeleton_exports_and_validates() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // Unversioned, with no mappings of its own: read with the fixture
    // project's 5.8 mappings, whose Skeleton schema fits it.
    let usmap = corpus.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    let sk = corpus.join("zenpair/retoc/UE5.6/SK_Mannequin.uasset");
    let v = export(
        &sk,
        tmp.path(),
        &["--ue-version", "5.6", "--usmap", common::s(&usmap)],
    );
    assert_eq!(
        rows(&v),
        [(
            "/Game/Characters/Mannequins/Meshes/SK_Mannequin.SK_Mannequin".to_string(),
            "glTF skeleton, 161 bones, 5 sockets, 0 virtual bones".to_string()
        )]
    );
    let f = tmp
        .path()
        .join("Game/Characters/Mannequins/Meshes/SK_Mannequin.glb");
    let j = glb_json(&f);
    let (names, parents) = joints(&j);
    assert_eq!(names[..3], ["root", "pelvis", "spine_01"]);
    assert_eq!(parents[..3], [-1, 0, 1]);
    assert!(parents
        .iter()
        .enumerate()
        .skip(1)
        .all(|(k, &p)| (0..k as i64).contains(&p)));
    // The reference pose in glTF axes (Y up): the bone rotations compose
    // to a standing figure, pelvis about 96 cm and head about 163 cm up,
    // the feet near the floor and mirrored left/right.
    let at = |name: &str| world_position(&j, name);
    let (pelvis, head) = (at("pelvis"), at("head"));
    let (foot_l, foot_r) = (at("foot_l"), at("foot_r"));
    assert!((pelvis[1] - 95.9).abs() < 0.5, "{pelvis:?}");
    assert!((head[1] - 162.6).abs() < 0.5, "{head:?}");
    assert!(
        foot_l[1] < 10.0 && foot_r[1] < 10.0,
        "{foot_l:?} {foot_r:?}"
    );
    assert!((foot_l[2] + foot_r[2]).abs() < 0.01 && foot_l[2].abs() > 10.0);
    for r in validate(&[f]) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}
