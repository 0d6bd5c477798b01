//! UE2 material objects through `pakrat export --class material` (issue 28
//! item 4): every Shader, Combiner, FinalBlend, TexPanner, ConstantColor...
//! of the corpus becomes a JSON description with its references and the
//! texture it shows as base colour.

mod common;

use std::collections::BTreeMap;

use common::{json_ok, s};

/// Classes whose colour comes straight from one property (UT2004
/// `Engine.u`): a texture there is the base colour.
const DIRECT: &[(&str, &str)] = &[
    ("Shader", "Diffuse"),
    ("Combiner", "Material1"),
    ("FinalBlend", "Material"),
    ("TexPanner", "Material"),
    ("TexOscillator", "Material"),
    ("TexRotator", "Material"),
    ("TexScaler", "Material"),
    ("TexEnvMap", "Material"),
    ("ColorModifier", "Material"),
];

#[test]
fn every_ue2_material_exports_with_its_base_colour() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let ue2 = c.join("ue2");
    // The material objects of the corpus, counted from the export tables.
    let mut want = 0usize;
    for f in std::fs::read_dir(&ue2).unwrap().flatten() {
        let (code, v) = common::run_json(&["list", s(&f.path()), "--json"]);
        if code != 0 {
            continue;
        }
        want += v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                let class = e["class"].as_str().unwrap_or("");
                let class = class.rsplit('.').next().unwrap_or("");
                pakrat_classic::material::is_material_class(class)
            })
            .count();
    }
    assert_eq!(want, 118, "the issue counts 118 UE2 material objects");

    let out = tempfile::tempdir().unwrap();
    let v = json_ok(&[
        "export",
        s(&ue2),
        "-o",
        s(out.path()),
        "--class",
        "material",
        "--json",
    ]);
    let mut exported = 0;
    for p in v["packages"].as_array().unwrap() {
        for o in p["objects"].as_array().into_iter().flatten() {
            assert_ne!(o["status"], "failed", "{o}");
            if o["status"] == "exported" {
                exported += 1;
            }
        }
    }
    assert_eq!(exported, want);

    let mut by_class: BTreeMap<String, usize> = BTreeMap::new();
    let mut checked = 0;
    for path in walk(out.path()) {
        let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let class = j["class"]
            .as_str()
            .unwrap()
            .trim_start_matches("Engine.")
            .to_string();
        *by_class.entry(class.clone()).or_default() += 1;
        let refs = j["references"].as_array().unwrap();
        if class == "ConstantColor" || class == "FadeColor" {
            assert!(
                j["base_color"].is_null(),
                "{}: a colour, no texture",
                path.display()
            );
        }
        // A texture straight in the colour property is the base colour.
        if let Some((_, prop)) = DIRECT.iter().find(|(c, _)| *c == class) {
            let direct = refs.iter().find(|r| {
                r["property"] == *prop
                    && r["class"]
                        .as_str()
                        .is_some_and(|c| c.rsplit('.').next() == Some("Texture"))
            });
            if let Some(r) = direct {
                assert_eq!(j["base_color"], r["object"], "{}", path.display());
                assert_eq!(j["base_color_in_package"], r["in_package"]);
                checked += 1;
            }
        }
        // Every reference names its property and a full object path.
        for r in refs {
            assert!(r["property"].is_string() && r["object"].is_string(), "{r}");
        }
    }
    assert_eq!(by_class.get("Shader"), Some(&52), "{by_class:?}");
    assert!(
        checked >= 40,
        "only {checked} materials had a direct texture"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.to_string_lossy().ends_with(".material.json") {
            out.push(p);
        }
    }
    out
}
