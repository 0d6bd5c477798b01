//! `pakrat export --class Mesh` of every UE1 vertex mesh in the corpus
//! (`ue1/relics.u`: 5 `Mesh` + 1 `LodMesh`; `ue1/epiccustommodels.u`: 3
//! `LodMesh`): each writes a `.glb` that the Khronos glTF-Validator
//! (`tools/gltf-validate`, `npm ci` there) passes with 0 errors, and whose
//! animations are the sequences the package's own import script declares.
//!
//! Where the expected numbers come from:
//! - sequences (name, frame count, rate): the `#exec MESH SEQUENCE` lines
//!   of the package's script text (`ScriptText` TextBuffers, the source the
//!   meshes were imported with), not the mesh data pakrat reads;
//! - skins: the `#exec MESHMAP SETTEXTURE NUM=n TEXTURE=X` lines;
//! - triangle and vertex counts: the validator's own count of the written
//!   file's triangles (`totalTriangleCount`) and the `POSITION` accessor's
//!   count (glTF vertices = distinct vertex + UV corners), checked against the
//!   table below. UE1 meshes carry no count in their properties and the
//!   corpus MANIFEST has none; the table was read from pakrat's first
//!   export and then checked against UEViewer (umodel built here from its
//!   public source, commit a0bfb468, `-export`, which writes UE1 meshes as
//!   `_d.3d`/`_a.3d`): the triangle count equals its `NumPolygons` for all
//!   nine meshes, the frame count (one morph target per frame) its
//!   `NumFrames`, and the vertex count of the three `LodMesh`es its
//!   `NumVertices`. For the six plain `Mesh`es UEViewer writes one vertex
//!   per triangle corner (3 × triangles), so their glTF vertex counts
//!   (distinct corners) have no UEViewer counterpart.

mod common;

use common::gltf::validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// (package, mesh, triangles, glTF vertices) — pinned, see the module doc.
const COUNTS: &[(&str, &str, u64, u64)] = &[
    ("relics.u", "RelicSkull", 236, 150),
    ("relics.u", "RelicHelmet", 194, 166),
    ("relics.u", "RelicRedemption", 316, 292),
    ("relics.u", "RelicRegen", 188, 260),
    ("relics.u", "RelicHourglass", 164, 104),
    ("relics.u", "RelicStrength", 274, 169),
    ("epiccustommodels.u", "TCowMesh", 592, 579),
    ("epiccustommodels.u", "tnalimesh", 568, 455),
    ("epiccustommodels.u", "TSkM", 838, 707),
];

/// The JSON chunk of a `.glb`.
fn glb_json(path: &Path) -> Value {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..4], b"glTF");
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    assert_eq!(&b[16..20], b"JSON");
    serde_json::from_slice(&b[20..20 + n]).unwrap()
}

/// `KEY=value` of an `#exec` line (case-insensitive key).
fn arg<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|w| {
        let (k, v) = w.split_once('=')?;
        k.eq_ignore_ascii_case(key).then_some(v)
    })
}

/// Sequences per mesh (name → (frames, rate)) and skins per mesh (slot
/// → texture) from the `#exec` lines of every script text in `dir`.
type Seqs = BTreeMap<String, BTreeMap<String, (u64, f64)>>;
type Skins = BTreeMap<String, Vec<(u64, String)>>;

fn exec_lines(dir: &Path) -> (Seqs, Skins) {
    let mut seqs = Seqs::new();
    let mut skins = Skins::new();
    for (_, bytes) in common::files(dir) {
        for line in String::from_utf8_lossy(&bytes).lines() {
            let l = line.trim();
            let upper = l.to_ascii_uppercase();
            if upper.starts_with("#EXEC MESH SEQUENCE") {
                let mesh = arg(l, "MESH").unwrap().to_ascii_lowercase();
                let seq = arg(l, "SEQ").unwrap().to_ascii_lowercase();
                let frames = arg(l, "NUMFRAMES").unwrap().parse().unwrap();
                let rate = arg(l, "RATE").map_or(30.0, |r| r.parse().unwrap());
                seqs.entry(mesh).or_default().insert(seq, (frames, rate));
            } else if upper.starts_with("#EXEC MESHMAP SETTEXTURE") {
                let mesh = arg(l, "MESHMAP").unwrap().to_ascii_lowercase();
                let num = arg(l, "NUM").unwrap().parse().unwrap();
                skins
                    .entry(mesh)
                    .or_default()
                    .push((num, arg(l, "TEXTURE").unwrap().to_string()));
            }
        }
    }
    (seqs, skins)
}

fn export(pkg: &Path, out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["export", common::s(pkg), "-o", common::s(out), "--json"];
    args.extend_from_slice(extra);
    common::json_ok(&args)
}

#[test]
fn every_ue1_mesh_exports_as_valid_gltf_with_its_sequences() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs = Vec::new();
    let mut seen = 0;
    for name in ["relics.u", "epiccustommodels.u"] {
        let pkg = corpus.join("ue1").join(name);
        let out = tmp.path().join(name);
        let m = export(&pkg, &out, &["--class", "Mesh"]);
        let scripts = tmp.path().join(format!("{name}.scripts"));
        export(&pkg, &scripts, &["--class", "TextBuffer"]);
        let (seqs, skins) = exec_lines(&scripts);
        for o in m["objects"].as_array().unwrap() {
            let class = o["class"].as_str().unwrap();
            if class != "Mesh" && class != "LodMesh" {
                continue;
            }
            let object = o["object"].as_str().unwrap();
            assert_eq!(o["status"], "exported", "{name} {object}: {o}");
            let file = out.join(o["files"][0]["path"].as_str().unwrap());
            let doc = glb_json(&file);
            seen += 1;
            // Sequences: every #exec SEQUENCE is an animation with that
            // many keys, at that rate.
            let want = &seqs[&object.to_ascii_lowercase()];
            let anims = doc["animations"].as_array().unwrap();
            assert_eq!(anims.len(), want.len(), "{object}: animations");
            for a in anims {
                let an = a["name"].as_str().unwrap().to_ascii_lowercase();
                let (frames, rate) = want[&an];
                let input = &doc["accessors"][a["samplers"][0]["input"].as_u64().unwrap() as usize];
                assert_eq!(
                    input["count"].as_u64().unwrap(),
                    frames,
                    "{object} {an}: keys"
                );
                let end = input["max"][0].as_f64().unwrap();
                let expect = (frames - 1) as f64 / rate;
                assert!(
                    (end - expect).abs() < 1e-4,
                    "{object} {an}: ends at {end}, want {expect}"
                );
            }
            // Skins: each SETTEXTURE slot that the mesh draws names its texture.
            for (num, tex) in skins
                .get(&object.to_ascii_lowercase())
                .into_iter()
                .flatten()
            {
                let prefix = format!("skin {num}: ");
                if let Some(mat) = doc["materials"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| m["name"].as_str().unwrap().starts_with(&prefix))
                {
                    let mn = mat["name"].as_str().unwrap();
                    assert!(
                        mn.to_ascii_lowercase().ends_with(&tex.to_ascii_lowercase()),
                        "{object}: {mn} vs {tex}"
                    );
                    assert!(
                        mat["pbrMetallicRoughness"]["baseColorTexture"].is_object(),
                        "{object}: {mn} has no image"
                    );
                }
            }
            let pos = doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
                .as_u64()
                .unwrap();
            let verts = doc["accessors"][pos as usize]["count"].as_u64().unwrap();
            let (_, _, _, want_verts) = COUNTS
                .iter()
                .find(|c| c.0 == name && c.1 == object)
                .unwrap();
            assert_eq!(verts, *want_verts, "{object}: glTF vertices");
            glbs.push((name, object.to_string(), file));
        }
    }
    assert_eq!(seen, COUNTS.len(), "UE1 meshes in the corpus");
    let files: Vec<PathBuf> = glbs.iter().map(|g| g.2.clone()).collect();
    let reports = validate(&files);
    for (r, (pkg, object, _)) in reports.iter().zip(&glbs) {
        assert_eq!(r["errors"], 0, "{pkg} {object}: {r}");
        let (_, _, tris, _) = COUNTS
            .iter()
            .find(|c| c.0 == *pkg && c.1 == object)
            .unwrap();
        assert_eq!(
            r["info"]["totalTriangleCount"].as_u64(),
            Some(*tris),
            "{object}"
        );
        eprintln!(
            "{pkg} {object}: 0 errors, {} warnings, {} infos",
            r["warnings"], r["infos"]
        );
    }
}

#[test]
fn gltf_output_is_json_bin_and_png_files_that_validate() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = corpus.join("ue1/relics.u");
    let m = export(&pkg, tmp.path(), &["RelicSkull", "--mesh-format", "gltf"]);
    let files: Vec<&str> = m["objects"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "RelicSkull.gltf",
            "RelicSkull.bin",
            "RelicSkull_skins/Skins.JRelicSkull_01.png"
        ],
    );
    for r in validate(&[tmp.path().join("RelicSkull.gltf")]) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["info"]["hasTextures"], true, "{r}");
    }
}

#[test]
fn unknown_mesh_format_and_class_filter() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = corpus.join("ue1/relics.u");
    let (code, _, err) = common::run(&[
        "export",
        common::s(&pkg),
        "-o",
        common::s(tmp.path()),
        "--mesh-format",
        "obj",
    ]);
    assert_eq!(code, 2, "{err}");
    // Without --class, meshes export beside the textures.
    let m = export(&pkg, &tmp.path().join("all"), &[]);
    let meshes = m["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["class"] == "Mesh" || o["class"] == "LodMesh")
        .filter(|o| o["status"] == "exported")
        .count();
    assert_eq!(meshes, 6);
}

/// The packages holding UE2 static meshes, with how many each holds (the
/// export table, `pakrat list`).
const STATIC: &[(&str, usize)] = &[
    ("ue2/DanielsMeshes.usx", 1),
    ("ue2/HourAdara.usx", 37),
    ("ue2/UTRPGStatics.usx", 3),
    ("ue2/forest.usx", 1),
    ("ue2/rs_HolyHandGrenade.usx", 2),
    ("ue2/streamlineforest.usx", 4),
    ("ue2/InvasionProv1_7.u", 2),
    ("ue2/tk_ZenCoders.u", 3),
    ("ue2/utcompv17a.u", 1),
    ("ue2/UWRM-Torpedo.ut2", 2),
    ("licensee/kf_GreenShopArrow.usx", 1),
    ("licensee/shrek2_5_FGM_Donkey_SM.usx", 1),
    ("licensee/unrealwarfare_WarEffectsMeshes.usx", 6),
    ("licensee/unrealwarfare_SC_MeshParticles.usx", 8),
];

/// (POSITION, NORMAL, indices) of every primitive of a `.glb`.
fn glb_triangles(path: &Path) -> Vec<(Vec<f32>, Vec<f32>, Vec<u32>)> {
    let b = std::fs::read(path).unwrap();
    let n = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
    let doc: Value = serde_json::from_slice(&b[20..20 + n]).unwrap();
    let bin = &b[20 + n + 8..];
    let acc = |i: &Value| -> (Vec<u8>, u64, u64) {
        let a = &doc["accessors"][i.as_u64().unwrap() as usize];
        let v = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let off = v["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = v["byteLength"].as_u64().unwrap() as usize;
        (
            bin[off..off + len].to_vec(),
            a["componentType"].as_u64().unwrap(),
            a["count"].as_u64().unwrap(),
        )
    };
    let floats = |d: Vec<u8>| {
        d.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    for p in doc["meshes"][0]["primitives"].as_array().unwrap() {
        let (pos, _, _) = acc(&p["attributes"]["POSITION"]);
        let (nor, _, _) = acc(&p["attributes"]["NORMAL"]);
        let (idx, ty, count) = acc(&p["indices"]);
        let idx: Vec<u32> = match ty {
            5123 => idx
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32)
                .collect(),
            _ => idx
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        };
        assert_eq!(idx.len() as u64, count);
        out.push((floats(pos), floats(nor), idx));
    }
    out
}

#[test]
fn every_ue2_static_mesh_exports_as_valid_gltf_facing_its_stored_normals() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs = Vec::new();
    for (k, (file, count)) in STATIC.iter().enumerate() {
        let out = tmp.path().join(k.to_string());
        let m = export(&corpus.join(file), &out, &["--class", "Mesh"]);
        let objs: Vec<&Value> = m["objects"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| o["class"] == "StaticMesh")
            .collect();
        assert_eq!(objs.len(), *count, "{file}");
        for o in objs {
            assert_eq!(o["status"], "exported", "{file}: {o}");
            glbs.push(out.join(o["files"][0]["path"].as_str().unwrap()));
        }
    }
    // The stored normals are data the conversion does not derive: after
    // the axis change, each triangle's counter-clockwise face normal must
    // point their way (a wrong winding or handedness turns nearly all).
    let (mut agree, mut total) = (0usize, 0usize);
    for g in &glbs {
        for (p, n, idx) in glb_triangles(g) {
            for t in idx.chunks_exact(3) {
                let v = |i: u32, d: &[f32]| [0, 1, 2].map(|k| d[3 * i as usize + k]);
                let (a, b, c) = (v(t[0], &p), v(t[1], &p), v(t[2], &p));
                let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                let f = [
                    u[1] * w[2] - u[2] * w[1],
                    u[2] * w[0] - u[0] * w[2],
                    u[0] * w[1] - u[1] * w[0],
                ];
                let s: f32 = t
                    .iter()
                    .map(|&i| (0..3).map(|k| f[k] * n[3 * i as usize + k]).sum::<f32>())
                    .sum();
                total += 1;
                agree += usize::from(s >= 0.0);
            }
        }
    }
    eprintln!(
        "UE2 static meshes: {} files, {agree} of {total} triangles face their stored normals",
        glbs.len()
    );
    assert!(
        agree * 100 >= total * 99,
        "{agree} of {total} triangles face their stored normals"
    );
    for r in validate(&glbs) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}

/// The Unreal Warfare static meshes (v123/licensee 12, a Lineage II
/// encrypted copy) export; vertices and triangles per mesh equal what
/// UEViewer (umodel built from its public source, `-game=l2 -export -gltf`)
/// writes for them.
#[test]
fn unreal_warfare_static_meshes_match_umodel() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let m = export(
        &corpus.join("licensee/unrealwarfare_SC_MeshParticles.usx"),
        tmp.path(),
        &["--class", "Mesh"],
    );
    let umodel = [
        ("Rock2", 54, 44),
        ("Shell", 42, 36),
        ("Wood3", 48, 24),
        ("Wood4", 24, 12),
        ("Wood5", 18, 8),
        ("rock1", 48, 44),
        ("wood1", 92, 56),
        ("wood2", 44, 24),
    ];
    let objs: Vec<&Value> = m["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["class"] == "StaticMesh")
        .collect();
    assert_eq!(objs.len(), umodel.len());
    for (name, verts, tris) in umodel {
        let o = objs
            .iter()
            .find(|o| o["object"].as_str().unwrap().ends_with(&format!(".{name}")))
            .unwrap_or_else(|| panic!("{name} not in {objs:?}"));
        assert_eq!(o["status"], "exported", "{o}");
        let prims = glb_triangles(&tmp.path().join(o["files"][0]["path"].as_str().unwrap()));
        let v: usize = prims.iter().map(|p| p.0.len() / 3).sum();
        let t: usize = prims.iter().map(|p| p.2.len() / 3).sum();
        assert_eq!((v, t), (verts, tris), "{name}: {o}");
    }
}

/// A package of an unknown licensee layout (a UE2 static-mesh package with
/// its licensee field changed to 99) skips its meshes with the reason.
#[test]
fn a_package_of_unknown_object_layout_skips_its_static_meshes_with_the_reason() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut data = std::fs::read(corpus.join("ue2/forest.usx")).unwrap();
    data[6..8].copy_from_slice(&99u16.to_le_bytes());
    let pkg = tmp.path().join("forest.usx");
    std::fs::write(&pkg, data).unwrap();
    let out = tmp.path().join("out");
    let m = export(&pkg, &out, &["--class", "Mesh"]);
    let objs: Vec<&Value> = m["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["class"] == "StaticMesh")
        .collect();
    assert!(!objs.is_empty(), "{m}");
    for o in objs {
        assert_eq!(o["status"], "skipped", "{o}");
        assert!(o["reason"].as_str().unwrap().contains("not known"), "{o}");
    }
}

/// The UE2 packages holding skeletal meshes, vertex meshes and animations:
/// (package, exported objects, skipped objects) of `--class Mesh` among
/// `SkeletalMesh`, `VertMesh` and `MeshAnimation`. The three skipped
/// skeletal meshes of `tk_ZenCoders.u` keep only the encoded skinning
/// stream (umodel writes them empty: "bad base mesh"); their animation
/// `ZenAnims` then exports on its own skeleton.
const SKELETAL_PACKAGES: &[(&str, usize, usize)] = &[
    ("ue2/Intro_brockfan.ukx", 1, 1),
    ("ue2/NvidiaGorge.ukx", 1, 1),
    ("ue2/SniperAnims.ukx", 1, 1),
    ("ue2/intro_jugchick.ukx", 1, 1),
    ("ue2/XVehicles_rc.u", 6, 0),
    ("ue2/rs_HolyHandGrenade.usx", 1, 0),
    ("ue2/tk_ZenCoders.u", 2, 4),
    ("licensee/hp3_RT_Box_K.ukx", 1, 1),
];

#[test]
fn every_ue2_skeletal_and_vertex_mesh_exports_as_valid_gltf_and_psk() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs = Vec::new();
    for (k, (file, exported, skipped)) in SKELETAL_PACKAGES.iter().enumerate() {
        let out = tmp.path().join(k.to_string());
        let m = export(&corpus.join(file), &out, &["--class", "Mesh"]);
        let objs: Vec<&Value> = m["objects"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|o| {
                ["SkeletalMesh", "VertMesh", "MeshAnimation"]
                    .contains(&o["class"].as_str().unwrap())
            })
            .collect();
        let n = |s: &str| objs.iter().filter(|o| o["status"] == s).count();
        assert_eq!(
            (n("exported"), n("skipped")),
            (*exported, *skipped),
            "{file}: {objs:?}"
        );
        for o in objs.iter().filter(|o| o["status"] == "exported") {
            glbs.push(out.join(o["files"][0]["path"].as_str().unwrap()));
        }
    }
    assert_eq!(glbs.len(), 14);
    for r in validate(&glbs) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
    // ActorX: the mesh and its animations.
    let out = tmp.path().join("psk");
    let m = export(
        &corpus.join("ue2/SniperAnims.ukx"),
        &out,
        &["--class", "SkeletalMesh", "--mesh-format", "psk"],
    );
    let files: Vec<&str> = m["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["status"] == "exported")
        .flat_map(|o| o["files"].as_array().unwrap().iter())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["SniperRifle_1st.psk", "SniperRifle_1st.psa"]);
    let psk = std::fs::read(out.join("SniperRifle_1st.psk")).unwrap();
    assert_eq!(&psk[..8], b"ACTRHEAD");
    let psa = std::fs::read(out.join("SniperRifle_1st.psa")).unwrap();
    assert_eq!(&psa[..8], b"ANIMHEAD");
}

/// Issue 28 item 1: `--mesh-format 3d` writes the editor's import pair of
/// every UE1 mesh. Counts follow the headers; the visible triangles are
/// umodel's count (`COUNTS`); the written `#exec MESH SEQUENCE` lines equal
/// the ones in the package's own kept source (the author's import script);
/// every triangle indexes a vertex the file has.
#[test]
fn every_ue1_mesh_exports_as_the_editors_3d_pair() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for name in ["relics.u", "epiccustommodels.u"] {
        let pkg = corpus.join("ue1").join(name);
        let out = tmp.path().join(name);
        let m = export(&pkg, &out, &["--class", "Mesh", "--mesh-format", "3d"]);
        let scripts = tmp.path().join(format!("{name}.scripts"));
        export(&pkg, &scripts, &["--class", "TextBuffer"]);
        let (source_seqs, _) = exec_lines(&scripts);
        for o in m["objects"].as_array().unwrap() {
            let class = o["class"].as_str().unwrap();
            if class != "Mesh" && class != "LodMesh" {
                continue;
            }
            let object = o["object"].as_str().unwrap();
            assert_eq!(o["status"], "exported", "{name} {object}: {o}");
            let paths: Vec<PathBuf> = o["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| out.join(f["path"].as_str().unwrap()))
                .collect();
            assert_eq!(paths.len(), 3, "{object}");
            let d = std::fs::read(&paths[0]).unwrap();
            let a = std::fs::read(&paths[1]).unwrap();
            let u16_at = |b: &[u8], k: usize| u16::from_le_bytes([b[k], b[k + 1]]) as usize;
            let (polys, verts) = (u16_at(&d, 0), u16_at(&d, 2));
            assert_eq!(d.len(), 48 + polys * 16, "{object}: _d.3d size");
            let (frames, frame_size) = (u16_at(&a, 0), u16_at(&a, 2));
            assert_eq!(frame_size, verts * 4, "{object}");
            assert_eq!(a.len(), 4 + frames * frame_size, "{object}: _a.3d size");
            let mut visible = 0;
            for t in d[48..].chunks(16) {
                for k in 0..3 {
                    assert!(u16_at(t, 2 * k) < verts, "{object}: vertex index");
                }
                if t[6] & 0x0F != 8 {
                    visible += 1;
                }
            }
            let (_, _, tris, _) = COUNTS
                .iter()
                .find(|c| c.0 == name && c.1 == object)
                .unwrap();
            assert_eq!(visible as u64, *tris, "{object}: triangles");
            // The sequences we write are the author's.
            let ours = exec_lines(paths[2].parent().unwrap()).0;
            let key = object.to_ascii_lowercase();
            assert_eq!(ours[&key], source_seqs[&key], "{object}: sequences");
            assert!(frames > 0, "{object}: frames");
            seen += 1;
        }
    }
    assert_eq!(seen, COUNTS.len());
    // UE4/UE5 meshes have no .3d form: refused, nothing written.
    let utoc = corpus.join("iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc");
    let out = tmp.path().join("ue5");
    let (code, _, err) = common::run(&[
        "export",
        common::s(&utoc),
        "-o",
        common::s(&out),
        "--mesh-format",
        "3d",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("UE1 editor's vertex-mesh pair"), "{err}");
    assert!(!out.exists());
}
