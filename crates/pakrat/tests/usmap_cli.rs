//! `pakrat info|list|verify X.usmap`: the mappings of the corpus
//! (`pak/cue4parse/*/Mappings/`), and damaged copies.

mod common;

use std::path::PathBuf;

use common::{json_ok, ok, run, s};

fn mappings(name: &str) -> Option<PathBuf> {
    let c = pakrat_testkit::corpus_dir()?;
    Some(c.join("pak/cue4parse/UE5_8/Mappings").join(name))
}

#[test]
fn info_text_and_json() {
    let Some(f) = mappings("CUE4ParseFixtures-Brotli.usmap") else {
        return;
    };
    let out = ok(&["info", s(&f)]);
    assert!(
        out.contains(".usmap mappings, version 4 (ExplicitEnumValues)"),
        "{out}"
    );
    assert!(out.contains("versioning:  none"), "{out}");
    assert!(
        out.contains("compression: Brotli, 399814 bytes -> 1374968 bytes"),
        "{out}"
    );
    assert!(out.contains("names:       40567"), "{out}");
    assert!(out.contains("enums:       1833 (11284 entries)"), "{out}");
    assert!(
        out.contains("structs:     8991 (31116 properties)"),
        "{out}"
    );

    let v = json_ok(&["info", s(&f), "--json"]);
    assert_eq!(v["kind"], "usmap");
    assert_eq!(v["file"], s(&f));
    assert_eq!(v["version"], 4);
    assert_eq!(v["versioning"], serde_json::Value::Null);
    assert_eq!(v["compression"], "Brotli");
    // The file is the 16-byte header and the stored payload.
    let len = std::fs::metadata(&f).unwrap().len();
    assert_eq!(v["compressed_size"].as_u64().unwrap() + 16, len);
    assert_eq!(v["decompressed_size"], 1374968);
    assert_eq!(v["names"], 40567);
    assert_eq!(v["enums"], 1833);
    assert_eq!(v["structs"], 8991);
    assert_eq!(v["properties"], 31116);
    assert_eq!(v["extensions"], serde_json::json!([]));
}

#[test]
fn every_compression_reports_the_same_counts() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for project in ["UE5_8", "UE6_0"] {
        let mut seen = Vec::new();
        for method in ["Uncompressed", "Oodle", "Brotli", "Zstandard"] {
            let f = c.join(format!(
                "pak/cue4parse/{project}/Mappings/CUE4ParseFixtures-{method}.usmap"
            ));
            let mut v = json_ok(&["info", s(&f), "--json"]);
            let m = v["compression"].as_str().unwrap().to_string();
            assert_eq!(
                m,
                if method == "Uncompressed" {
                    "none"
                } else {
                    method
                }
            );
            for k in ["file", "compression", "compressed_size"] {
                v.as_object_mut().unwrap().remove(k);
            }
            seen.push(v);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    }
}

#[test]
fn list_filters_by_name() {
    let Some(f) = mappings("CUE4ParseFixtures-Oodle.usmap") else {
        return;
    };
    let out = ok(&["list", s(&f), "EFixtureEnum", "fixturenested*"]);
    assert_eq!(
        out,
        "enum EFixtureEnum: None=0, Alpha=7, Beta=42, Maximum=255, EFixtureEnum_MAX=256\n\
         struct FixtureNestedStruct (5 properties)\n    \
         0 Marker: IntProperty\n    \
         1 Label: StrProperty\n    \
         2 Position: StructProperty(Vector)\n    \
         3 Samples: ArrayProperty(FloatProperty)\n    \
         4 bEnabled: BoolProperty\n"
    );
    let v = json_ok(&["list", s(&f), "ParserFixtureData", "--json"]);
    let e = v["entries"].as_array().unwrap();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["type"], "struct");
    assert_eq!(e[0]["super"], "ParserFixtureBaseData");
    assert_eq!(e[0]["schema_indices"], 63);
    let props = e[0]["properties"].as_array().unwrap();
    assert_eq!(props.len(), 61);
    let fixed = props
        .iter()
        .find(|p| p["name"] == "FixedIntegerArray")
        .unwrap();
    assert_eq!(fixed["array_dim"], 3);
    let map = props.iter().find(|p| p["name"] == "StructMap").unwrap();
    assert_eq!(
        map["type"],
        "MapProperty(NameProperty,StructProperty(FixtureNestedStruct))"
    );
}

#[test]
fn verify_and_extract() {
    let Some(f) = mappings("CUE4ParseFixtures-Zstandard.usmap") else {
        return;
    };
    let out = ok(&["verify", s(&f)]);
    assert!(out.contains(": OK (.usmap version 4"), "{out}");
    let (code, _, err) = run(&["extract", s(&f), "-o", "/nonexistent/never"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to extract"), "{err}");
}

#[test]
fn damaged_copies_fail_clearly() {
    let Some(f) = mappings("CUE4ParseFixtures-Oodle.usmap") else {
        return;
    };
    let data = std::fs::read(&f).unwrap();
    let t = tempfile::tempdir().unwrap();
    // Cut short: still a .usmap by its name, and the error says where.
    let cut = t.path().join("Cut.usmap");
    std::fs::write(&cut, &data[..1000]).unwrap();
    let (code, _, err) = run(&["info", s(&cut)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Cut.usmap") && err.contains("at offset 0x10") && err.contains("payload"),
        "{err}"
    );
    // A flipped byte in the Oodle stream.
    let mut bad = data.clone();
    bad[5000] ^= 0x55;
    let flipped = t.path().join("Flipped.usmap");
    std::fs::write(&flipped, &bad).unwrap();
    let (code, _, err) = run(&["info", s(&flipped), "--json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Flipped.usmap"), "{err}");
    // Whole but renamed: the header's sizes tell it by content.
    let renamed = t.path().join("mappings.bin");
    std::fs::write(&renamed, &data).unwrap();
    let v = json_ok(&["info", s(&renamed), "--json"]);
    assert_eq!(v["kind"], "usmap");
    // A cut copy without the name is no format pakrat knows.
    let cut_bin = t.path().join("cut.bin");
    std::fs::write(&cut_bin, &data[..1000]).unwrap();
    let (code, _, err) = run(&["info", s(&cut_bin)]);
    assert_eq!(code, 2);
    assert!(err.contains("not a file pakrat reads"), "{err}");
}
