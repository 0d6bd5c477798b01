//! The textures of UE4/UE5 mesh materials in `pakrat export` (issue 28,
//! item 4), on the CUE4Parse fixture project.
//!
//! The fixture meshes (`SM_Fixture`, `SM_Nanite`, `SK_Fixture`) all use the
//! engine's `WorldGridMaterial`, which the fixture containers do not hold,
//! and zenpair's `SM_Cube` uses `MI_PrototypeGrid_Gray`, which the corpus
//! does not hold: those slots stay untextured with that reason. The
//! project's own material pair is `MI_Fixture` (texture parameter
//! `FixtureTexture` = `T_BC3`, parent `M_Fixture`) and `M_Fixture`
//! (referencing `T_BC3`), as CUE4Parse's fixture test
//! `MaterialInstancePreservesParentAndParameterOverrides` states. So the
//! test makes the mesh use them as a mod would: `pakrat props set` points
//! `SM_Fixture`'s slots at `MI_Fixture` and `M_Fixture` in a patch container
//! (and adds a `Normal` parameter = `T_BC5`, the project's `TC_Normalmap`
//! texture, to `MI_Fixture` in a second one), then exports the patch with
//! `--with` the patch and the base container, in all 20 IoStore variants.

mod common;

use std::path::{Path, PathBuf};

use common::gltf::{glb, validate};
use serde_json::{json, Value};

const MI: &str = "/Game/Fixtures/Materials/MI_Fixture.MI_Fixture";
const M: &str = "/Game/Fixtures/Materials/M_Fixture.M_Fixture";
const T_BC3: &str = "/Game/Fixtures/Textures/T_BC3.T_BC3";
const T_BC5: &str = "/Game/Fixtures/Textures/T_BC5.T_BC5";

/// The base container of one variant.
fn base_utoc(corpus: &Path, engine: &str, mode: &str, comp: &str) -> PathBuf {
    let dir = corpus.join(format!("iostore/cue4parse/{engine}/IoStore/{mode}/{comp}"));
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "utoc"))
        .unwrap()
}

/// `props set` on `package` of `utoc`, written as patch container `out`.
fn patch(utoc: &Path, usmap: &Path, package: &str, sets: &[&str], out: &Path) {
    let mut a = vec!["props", "set", common::s(utoc), package];
    a.extend_from_slice(sets);
    a.extend_from_slice(&[
        "-o",
        common::s(out),
        "--usmap",
        common::s(usmap),
        "--aes-key",
        common::FIXTURE_KEY,
    ]);
    common::ok(&a);
}

/// The PNG's width and height (IHDR).
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let be = |o: usize| u32::from_be_bytes(png[o..o + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The bytes of image `i` of a `.glb`.
fn image<'b>(j: &Value, bin: &'b [u8], i: u64) -> &'b [u8] {
    let v = &j["bufferViews"][j["images"][i as usize]["bufferView"].as_u64().unwrap() as usize];
    let at = v["byteOffset"].as_u64().unwrap_or(0) as usize;
    &bin[at..at + v["byteLength"].as_u64().unwrap() as usize]
}

/// The image name a material's texture slot shows.
fn shown(j: &Value, tex: &Value) -> String {
    let t = &j["textures"][tex["index"].as_u64().unwrap() as usize];
    assert_eq!(t["sampler"], 0);
    j["images"][t["source"].as_u64().unwrap() as usize]["name"]
        .as_str()
        .unwrap()
        .to_string()
}

fn check_glb(path: &Path, texture_png: &[u8]) {
    let (j, bin) = glb(path);
    let m = &j["materials"];
    assert_eq!(
        shown(&j, &m[0]["pbrMetallicRoughness"]["baseColorTexture"]),
        "T_BC3"
    );
    assert_eq!(shown(&j, &m[0]["normalTexture"]), "T_BC5");
    assert_eq!(
        shown(&j, &m[1]["pbrMetallicRoughness"]["baseColorTexture"]),
        "T_BC3"
    );
    assert!(m[1]["normalTexture"].is_null());
    assert_eq!(
        j["images"].as_array().unwrap().len(),
        2,
        "T_BC3 once, T_BC5"
    );
    assert_eq!(
        j["samplers"],
        json!([{"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497}])
    );
    for i in 0..2 {
        assert_eq!(png_size(image(&j, &bin, i)), (64, 64));
    }
    // The embedded base colour is the texture exporter's own PNG of T_BC3.
    assert_eq!(image(&j, &bin, 0), texture_png);
    // Tangents where the normal map needs them.
    assert!(j["meshes"][0]["primitives"][0]["attributes"]["TANGENT"].is_u64());
}

fn check_manifest(v: &Value, label: &str) {
    let rows = v["written"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{label}: {v}");
    let r = &rows[0];
    assert_eq!(r["object"], "/Game/Fixtures/Meshes/SM_Fixture.SM_Fixture");
    assert!(
        r["written"][0]["detail"]
            .as_str()
            .unwrap()
            .ends_with(", 1 sockets, 2 textures"),
        "{label}: {r}"
    );
    let tex = |t: &str, p: Value, rule: &str| json!({"texture": t, "parameter": p, "rule": rule, "width": 64, "height": 64});
    assert_eq!(
        r["materials"],
        json!([
            {
                "slot": "Primary",
                "material": MI,
                "base_color": tex(T_BC3, json!("FixtureTexture"), "first colour texture"),
                "normal": tex(T_BC5, json!("Normal"), "parameter name"),
            },
            {
                "slot": "Secondary",
                "material": M,
                "base_color": tex(T_BC3, Value::Null, "first colour texture"),
            }
        ]),
        "{label}"
    );
}

#[test]
fn fixture_mesh_materials_embed_their_textures_in_every_variant() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut glbs = Vec::new();
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
                let label = format!("{engine} {mode} {comp}");
                let base = base_utoc(&corpus, engine, mode, comp);
                let global = base.parent().unwrap().parent().unwrap().join("global.utoc");
                let dir = tmp.path().join(label.replace(' ', "-"));
                let mesh_p = dir.join("Mesh_P.utoc");
                let mat_p = dir.join("Material_P.utoc");
                patch(
                    &base,
                    &usmap,
                    "/Game/Fixtures/Meshes/SM_Fixture",
                    &[
                        &format!("StaticMaterials[0].MaterialInterface={MI}"),
                        &format!("StaticMaterials[1].MaterialInterface={M}"),
                    ],
                    &mesh_p,
                );
                patch(
                    &base,
                    &usmap,
                    "/Game/Fixtures/Materials/MI_Fixture",
                    &[
                        "TextureParameterValues[1].ParameterInfo.Name=Normal",
                        &format!("TextureParameterValues[1].ParameterValue={T_BC5}"),
                    ],
                    &mat_p,
                );
                let out = dir.join("out");
                let common_args = [
                    "--usmap",
                    common::s(&usmap),
                    "--aes-key",
                    common::FIXTURE_KEY,
                    "--global",
                    common::s(&global),
                ];
                let mut a = vec!["export", common::s(&mesh_p)];
                a.extend_from_slice(&["--with", common::s(&mat_p), "--with", common::s(&base)]);
                a.extend_from_slice(&["-o", common::s(&out), "--json"]);
                a.extend_from_slice(&common_args);
                let (code, v) = common::run_json(&a);
                assert_eq!(code, 0, "{label}: {v}");
                check_manifest(&v, &label);
                // The texture exporter's PNG of T_BC3, for comparison.
                let tex_out = dir.join("tex");
                let mut a = vec!["export", common::s(&base), "/Game/Fixtures/Textures/T_BC3"];
                a.extend_from_slice(&["-o", common::s(&tex_out), "--json"]);
                a.extend_from_slice(&common_args);
                assert_eq!(common::run_json(&a).0, 0);
                let png = std::fs::read(tex_out.join("Game/Fixtures/Textures/T_BC3.png")).unwrap();
                let f = out.join("Game/Fixtures/Meshes/SM_Fixture.glb");
                check_glb(&f, &png);
                glbs.push(f);
            }
        }
    }
    assert_eq!(glbs.len(), 20);
    for r in validate(&glbs) {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
}

#[test]
fn gltf_output_writes_the_textures_beside_and_bad_textures_leave_the_slot_untextured() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let usmap = corpus.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    let base = base_utoc(&corpus, "UE5_8", "Unversioned", "Zlib");
    let global = base.parent().unwrap().parent().unwrap().join("global.utoc");
    let mesh_p = tmp.path().join("Mesh_P.utoc");
    let mat_p = tmp.path().join("Material_P.utoc");
    patch(
        &base,
        &usmap,
        "/Game/Fixtures/Meshes/SM_Fixture",
        &[&format!("StaticMaterials[0].MaterialInterface={MI}")],
        &mesh_p,
    );
    // The instance's texture becomes a cube map: not one 2D image.
    patch(
        &base,
        &usmap,
        "/Game/Fixtures/Materials/MI_Fixture",
        &["TextureParameterValues[0].ParameterValue=/Game/Fixtures/Textures/T_Cube.T_Cube"],
        &mat_p,
    );
    let run = |out: &Path, with_mat: bool, extra: &[&str]| {
        let mut a = vec!["export", common::s(&mesh_p)];
        if with_mat {
            a.extend_from_slice(&["--with", common::s(&mat_p)]);
        }
        a.extend_from_slice(&["--with", common::s(&base), "-o", common::s(out), "--json"]);
        a.extend_from_slice(&["--usmap", common::s(&usmap), "--global", common::s(&global)]);
        a.extend_from_slice(extra);
        let (code, v) = common::run_json(&a);
        assert_eq!(code, 0, "{v}");
        v
    };
    // glTF + bin + the PNG beside it.
    let out = tmp.path().join("gltf");
    let v = run(&out, false, &["--mesh-format", "gltf"]);
    let m = &v["written"][0]["materials"];
    assert_eq!(m[0]["base_color"]["texture"], T_BC3);
    assert!(m[1]["base_color"].is_null());
    assert!(m[1]["notes"][0]
        .as_str()
        .unwrap()
        .contains("/Engine/EngineMaterials/WorldGridMaterial"));
    let png = out.join("Game/Fixtures/Meshes/SM_Fixture_textures/T_BC3.png");
    assert_eq!(png_size(&std::fs::read(&png).unwrap()), (64, 64));
    let gltf: Value = serde_json::from_slice(
        &std::fs::read(out.join("Game/Fixtures/Meshes/SM_Fixture.gltf")).unwrap(),
    )
    .unwrap();
    assert_eq!(gltf["images"][0]["uri"], "SM_Fixture_textures/T_BC3.png");
    let files = [out.join("Game/Fixtures/Meshes/SM_Fixture.gltf")];
    for r in validate(&files) {
        assert_eq!(
            (r["errors"].clone(), r["warnings"].clone()),
            (json!(0), json!(0)),
            "{r}"
        );
    }
    // A texture that does not decode as one 2D image: the mesh exports,
    // the slot is untextured, the manifest says why.
    let out = tmp.path().join("cube");
    let v = run(&out, true, &[]);
    let b = &v["written"][0]["materials"][0]["base_color"];
    assert_eq!(b["texture"], "/Game/Fixtures/Textures/T_Cube.T_Cube");
    assert_eq!(b["width"], 0);
    assert!(
        b["error"].as_str().unwrap().contains("not one 2D image"),
        "{b}"
    );
    let (j, _) = glb(&out.join("Game/Fixtures/Meshes/SM_Fixture.glb"));
    assert!(j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"].is_null());
    assert!(j["images"].is_null());
}

#[test]
fn unresolvable_materials_are_named_in_the_manifest() {
    let Some(corpus) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let base = base_utoc(&corpus, "UE6_0", "Tagged", "Uncompressed");
    let (code, v) = common::run_json(&[
        "export",
        common::s(&base),
        "/Game/Fixtures/Meshes/S*_*",
        "--class",
        "Mesh",
        "-o",
        common::s(&tmp.path().join("a")),
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    let mut slots = Vec::new();
    for r in v["written"].as_array().unwrap() {
        for m in r["materials"].as_array().unwrap() {
            assert!(m["material"].is_null());
            assert!(m["notes"][0]
                .as_str()
                .unwrap()
                .contains("imports from package /Engine/EngineMaterials/WorldGridMaterial"));
            slots.push(m["slot"].as_str().unwrap().to_string());
        }
    }
    slots.sort();
    // SK_Fixture's and SM_Fixture's two slots, SM_Nanite's one.
    assert_eq!(
        slots,
        [
            "NaniteSurface",
            "Primary",
            "Primary",
            "Secondary",
            "Secondary"
        ]
    );
    // zenpair SM_Cube: its material instance is not in the corpus.
    let usmap = corpus.join("pak/cue4parse/UE5_8/Mappings/CUE4ParseFixtures-Uncompressed.usmap");
    let cube = corpus.join("zenpair/retoc/UE5.6/SM_Cube.uasset");
    let (code, v) = common::run_json(&[
        "export",
        common::s(&cube),
        "-o",
        common::s(&tmp.path().join("b")),
        "--ue-version",
        "5.6",
        "--usmap",
        common::s(&usmap),
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["written"][0]["materials"],
        json!([{
            "slot": "lambert1",
            "material": "/Game/LevelPrototyping/Materials/MI_PrototypeGrid_Gray.MI_PrototypeGrid_Gray",
            "notes": ["package /Game/LevelPrototyping/Materials/MI_PrototypeGrid_Gray is not among the inputs"],
        }])
    );
}
