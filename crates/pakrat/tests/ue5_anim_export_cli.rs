//! `pakrat export` of the UE4/UE5 fixture animations (`AS_Fixture`,
//! `AS_Additive`: `AnimCompress_PerTrackCompression_1`) in the four
//! uncompressed IoStore variants (UE 5.8 and 6.0 × Tagged/Unversioned; the
//! other compressions hold the same packages and are exported by
//! `ue5_skeletal_export_cli.rs`; the project's legacy paks hold no
//! animation).
//!
//! Where the expected numbers come from:
//! * CUE4Parse's fixture tests (`FixtureAnimationTests.cs`
//!   `AnimationSequencePreservesCompressedTracksAndCurve`,
//!   `FixtureAdvancedAssetTests.cs`): `SequenceLength` 1 s, tracks on
//!   bones 0, 1, 2 of `SKEL_Fixture`; `AS_Additive` is
//!   `AAT_LocalSpaceBase` on frame 0 of `AS_Fixture` (`ABPT_AnimFrame`);
//! * the fixture project's `PA_Fixture` (a PoseAsset of 31 poses
//!   `Pose_0`…`Pose_30` on `Root`, `Joint_1`, `Joint_2`,
//!   `FixtureAnimationTests.cs` `PoseAssetPreservesPosesTracksAndCurve`):
//!   one uncompressed local-space pose per frame of the source animation,
//!   read here with `pakrat props --json`. Its 31 poses are the 31 keys
//!   (30 fps over 1 s), and every decoded bone transform at frame k must
//!   equal pose k (bones a pose leaves out keep the reference pose).

mod common;

use common::gltf::{accessor, glb, validate};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Export `input`'s animations and skeleton to `out` with `args`.
fn export(input: &Path, out: &Path, args: &[&str]) -> Value {
    let mut a = vec![
        "export",
        common::s(input),
        "--class",
        "AnimSequence",
        "-o",
        common::s(out),
        "--json",
    ];
    a.extend_from_slice(args);
    let (code, v) = common::run_json(&a);
    assert_eq!(code, 0, "{v}");
    v
}

/// Unreal (x, y, z) → glTF (−y, z, x).
fn axes(v: [f64; 3]) -> [f64; 3] {
    [-v[1], v[2], v[0]]
}

/// A transform of `PA_Fixture` in glTF axes: (translation, rotation,
/// scale).
type Trs = ([f64; 3], [f64; 4], [f64; 3]);

fn pose_trs(t: &Value) -> Trs {
    let f = |s: &str, k: &str| t[s][k].as_f64().unwrap();
    let q = [
        f("Rotation", "X"),
        f("Rotation", "Y"),
        f("Rotation", "Z"),
        f("Rotation", "W"),
    ];
    (
        axes([
            f("Translation", "X"),
            f("Translation", "Y"),
            f("Translation", "Z"),
        ]),
        [q[1], -q[2], -q[0], q[3]],
        [f("Scale3D", "Y"), f("Scale3D", "Z"), f("Scale3D", "X")],
    )
}

/// The poses of `PA_Fixture`: per pose, per bone (by track index), the
/// stored transform if the pose has one for it.
fn poses(utoc: &Path, usmap: &Path) -> Vec<Vec<Option<Trs>>> {
    let j = common::json_ok(&[
        "props",
        common::s(utoc),
        "/Game/Fixtures/Animations/PA_Fixture",
        "--usmap",
        common::s(usmap),
        "--json",
    ]);
    let c = &j["exports"][0]["properties"][0]["value"];
    assert_eq!(
        c["Tracks"],
        serde_json::json!(["Root", "Joint_1", "Joint_2"])
    );
    let ps = c["Poses"].as_array().unwrap();
    let mut out = vec![vec![None; 3]; ps.len()];
    for (bone, inf) in c["TrackPoseInfluenceIndices"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        for i in inf["Influences"].as_array().unwrap() {
            let p = i["PoseIndex"].as_u64().unwrap() as usize;
            let t = i["BoneTransformIndex"].as_u64().unwrap() as usize;
            out[p][bone] = Some(pose_trs(&ps[p]["LocalSpacePose"][t]));
        }
    }
    out
}

/// A channel's sampler value at `time` (linear; rotations normalised).
fn sample(j: &Value, bin: &[u8], anim: &Value, node: usize, path: &str, time: f64) -> Vec<f64> {
    let ch = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == node && c["target"]["path"] == path)
        .unwrap_or_else(|| panic!("no {path} channel for node {node}"));
    let s = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let t = accessor(j, bin, s["input"].as_u64().unwrap());
    let v = accessor(j, bin, s["output"].as_u64().unwrap());
    let n = v.len() / t.len();
    let i = t.iter().position(|&x| x > time + 1e-6).unwrap_or(t.len());
    let key = |k: usize| v[k * n..(k + 1) * n].to_vec();
    if i == 0 {
        return key(0);
    }
    if i == t.len() {
        return key(t.len() - 1);
    }
    let (a, b) = (key(i - 1), key(i));
    let u = (time - t[i - 1]) / (t[i] - t[i - 1]);
    let mut out: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + (y - x) * u).collect();
    if n == 4 {
        let l = out.iter().map(|x| x * x).sum::<f64>().sqrt();
        out.iter_mut().for_each(|x| *x /= l);
    }
    out
}

/// The largest difference between the animation at every frame and the
/// poses: (translation, rotation, scale), leaving out the translations
/// and scales of the bones `no_ts` names.
fn compare(file: &Path, poses: &[Vec<Option<Trs>>], no_ts: &[&str]) -> [f64; 3] {
    let (j, bin) = glb(file);
    let anim = &j["animations"][0];
    let nodes = j["nodes"].as_array().unwrap();
    let mut worst = [0f64; 3];
    for (bone, name) in ["Root", "Joint_1", "Joint_2"].iter().enumerate() {
        let node = nodes.iter().position(|n| n["name"] == *name).unwrap();
        let rest = |k: &str, d: &[f64]| -> Vec<f64> {
            (0..d.len())
                .map(|c| nodes[node][k][c].as_f64().unwrap_or(d[c]))
                .collect()
        };
        for (frame, pose) in poses.iter().enumerate() {
            let (t, q, s) = match &pose[bone] {
                Some((t, q, s)) => (t.to_vec(), q.to_vec(), s.to_vec()),
                None => (
                    rest("translation", &[0.0; 3]),
                    rest("rotation", &[0.0, 0.0, 0.0, 1.0]),
                    rest("scale", &[1.0; 3]),
                ),
            };
            let time = frame as f64 / 30.0;
            let gt = sample(&j, &bin, anim, node, "translation", time);
            let gq = sample(&j, &bin, anim, node, "rotation", time);
            let gs = sample(&j, &bin, anim, node, "scale", time);
            let d = |a: &[f64], b: &[f64]| {
                a.iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f64::max)
            };
            let dot: f64 = gq.iter().zip(&q).map(|(x, y)| x * y).sum();
            let neg: Vec<f64> = q.iter().map(|x| -x).collect();
            let dq = if dot < 0.0 { d(&gq, &neg) } else { d(&gq, &q) };
            worst[1] = worst[1].max(dq);
            if no_ts.contains(name) {
                // Held still: the cooked data has no keys for them.
                assert_eq!(d(&gt, &[0.0; 3]), 0.0, "{name}");
                assert_eq!(d(&gs, &[1.0; 3]), 0.0, "{name}");
                continue;
            }
            worst[0] = worst[0].max(d(&gt, &t));
            worst[2] = worst[2].max(d(&gs, &s));
        }
    }
    worst
}

#[test]
fn fixture_animations_decode_to_their_source_poses_and_validate() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs: Vec<PathBuf> = Vec::new();
    let mut per_engine: Vec<(String, Vec<u8>)> = Vec::new();
    for engine in ["UE5_8", "UE6_0"] {
        let usmap = corpus.join(format!(
            "pak/cue4parse/{engine}/Mappings/CUE4ParseFixtures-Uncompressed.usmap"
        ));
        for mode in ["Tagged", "Unversioned"] {
            let dir = corpus.join(format!(
                "iostore/cue4parse/{engine}/IoStore/{mode}/Uncompressed"
            ));
            let utoc = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.extension().is_some_and(|e| e == "utoc"))
                .unwrap();
            let label = format!("{engine} {mode}");
            let out = tmp.path().join(format!("{engine}-{mode}"));
            let v = export(&utoc, &out, &["--usmap", common::s(&usmap)]);
            let rows = v["written"].as_array().unwrap();
            assert_eq!(rows.len(), 2, "{label}: {v}");
            for r in rows {
                let d = r["written"][0]["detail"].as_str().unwrap();
                assert!(
                    d.starts_with("glTF animation, 31 frames at 30 fps (1 s), 3 tracks on 3 bones of /Game/Fixtures/Animations/SKEL_Fixture.SKEL_Fixture, codec AnimCompress_PerTrackCompression_1"),
                    "{label}: {d}"
                );
            }
            let anims = out.join("Game/Fixtures/Animations");
            let fixture = anims.join("AS_Fixture.glb");
            let poses = poses(&utoc, &usmap);
            // The UE 6.0 cook of AS_Fixture keeps no translation or scale
            // keys for Joint_1 and Joint_2 (offsets −1: its 32 key bytes
            // hold two keys each of the root's translation and the three
            // rotations), where the pose asset and AS_Additive move them.
            let no_ts: &[&str] = if engine == "UE6_0" {
                &["Joint_1", "Joint_2"]
            } else {
                &[]
            };
            let worst = compare(&fixture, &poses, no_ts);
            eprintln!(
                "{label}: AS_Fixture, largest differences from PA_Fixture (t, q, s): {worst:?}"
            );
            assert!(
                worst[0] < 1e-4 && worst[1] < 1e-3 && worst[2] < 1e-4,
                "{label}: {worst:?}"
            );
            // The additive animation applied to frame 0 of AS_Fixture
            // plays the same source poses.
            let worst = compare(&anims.join("AS_Additive.glb"), &poses, &[]);
            eprintln!("{label}: AS_Additive on AS_Fixture frame 0: {worst:?}");
            assert!(
                worst[0] < 1e-4 && worst[1] < 1e-3 && worst[2] < 1e-4,
                "{label}: {worst:?}"
            );
            // Tagged and Unversioned decode to the same bytes.
            let bytes = std::fs::read(&fixture).unwrap();
            match per_engine.iter().find(|e| e.0 == engine) {
                Some(e) => assert_eq!(e.1, bytes, "{label}"),
                None => per_engine.push((engine.to_string(), bytes)),
            }
            glbs.push(fixture);
            glbs.push(anims.join("AS_Additive.glb"));
            // ActorX: the skeleton and 31 frames of 3 bones.
            let op = tmp.path().join(format!("{engine}-{mode}-psa"));
            export(
                &utoc,
                &op,
                &["--usmap", common::s(&usmap), "--mesh-format", "psk"],
            );
            let psa = std::fs::read(op.join("Game/Fixtures/Animations/AS_Fixture.psa")).unwrap();
            assert_eq!(&psa[..8], b"ANIMHEAD");
            let keys = &psa[psa.len() - 31 * 3 * 32 - 32..];
            assert_eq!(&keys[..8], b"ANIMKEYS", "{label}");
            // Frame 30 of the root: 10 units along Unreal X (PA_Fixture's
            // Pose_30).
            let f = |at: usize| f32::from_le_bytes(keys[at..at + 4].try_into().unwrap());
            let root30 = 32 + 30 * 3 * 32;
            let pos = [f(root30), f(root30 + 4), f(root30 + 8)];
            assert!(
                (pos[0] - 10.0).abs() < 1e-4 && pos[1].abs() < 1e-4 && pos[2].abs() < 1e-4,
                "{label}: {pos:?}"
            );
        }
    }
    for r in validate(&glbs) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}
