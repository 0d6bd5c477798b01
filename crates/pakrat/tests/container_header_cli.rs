//! Raw container-header chunks through the CLI (issue 30 item 3): `info`,
//! `list` and `verify` read the chunk `extract --chunks` writes and the
//! headers of the corpus (UE 4.27, 5.0, 5.3 and the two from other tools'
//! bug reports), the UE4 forms when `--ue-version` names the release.

mod common;

use common::{json_ok, run, s};

const FIXTURE: &str = "iostore/cue4parse/UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc";

#[test]
fn extracted_header_chunk_matches_its_container() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let utoc = c.join(FIXTURE);
    let out = tempfile::tempdir().unwrap();
    json_ok(&[
        "extract",
        s(&utoc),
        "--chunks",
        "-o",
        s(out.path()),
        "--json",
    ]);
    let chunk = std::fs::read_dir(out.path().join("_chunks"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "ContainerHeader"))
        .expect("extract --chunks writes the container header chunk");

    let info = json_ok(&["info", s(&chunk), "--json"]);
    assert_eq!(info["kind"], "container-header");
    assert_eq!(info["rewrites_exactly"], true);
    assert_eq!(info["version"], 5);
    // The same facts the container itself gives, read another way.
    let container = json_ok(&["info", s(&utoc), "--json"]);
    assert_eq!(info["container_id"], container["container_id"]);
    let packages = json_ok(&["packages", s(&utoc), "--json"]);
    let n = packages["packages"].as_array().unwrap().len();
    assert_eq!(info["packages"], n);

    let list = json_ok(&["list", s(&chunk), "--json"]);
    assert_eq!(list["kind"], "container-header");
    assert_eq!(list["entries"].as_array().unwrap().len(), n);
    let refs: usize = list["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["imported_packages"].as_array().unwrap().len())
        .sum();
    assert_eq!(info["imported_package_refs"], refs);

    let (code, out, _) = run(&["verify", s(&chunk)]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("OK") && out.contains("byte for byte"), "{out}");
    let (code, _, err) = run(&["extract", s(&chunk), "-o", "unused"]);
    assert_eq!(code, 2);
    assert!(err.contains("container header chunk"), "{err}");
}

#[test]
fn corpus_headers_read_and_verify() {
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let z = c.join("zenpair/retoc");
    // (file, --ue-version, the form's name starts with)
    for (file, ue, form) in [
        ("UE5.0/ContainerHeader_1.bin", None, "v1 "),
        ("UE5.3/ContainerHeader_1.bin", None, "v3 "),
        ("UE4.27/ContainerHeader_1.bin", Some("4.27"), "UE4, 32-byte"),
        ("issues/issue7/header.bin", Some("4.27"), "UE4, 16-byte"),
        ("issues/issue18/header.bin", Some("4.26"), "UE4, 16-byte"),
    ] {
        let path = z.join(file);
        let mut args = vec!["info", s(&path), "--json"];
        if let Some(v) = ue {
            args.extend(["--ue-version", v]);
        }
        let info = json_ok(&args);
        assert_eq!(info["kind"], "container-header", "{file}");
        assert!(
            info["form"].as_str().unwrap().starts_with(form),
            "{file}: {}",
            info["form"]
        );
        assert_eq!(info["rewrites_exactly"], true, "{file}");
        assert_eq!(
            info["size"],
            std::fs::metadata(&path).unwrap().len(),
            "{file}"
        );
        assert!(info["packages"].as_u64().unwrap() > 0, "{file}");
        let mut verify = vec!["verify", s(&path)];
        if let Some(v) = ue {
            verify.extend(["--ue-version", v]);
        }
        let (code, out, err) = run(&verify);
        assert_eq!(code, 0, "{file}: {out}{err}");
    }
    // Without the release named, a signature-less UE4 header is not guessed;
    // the message says how to read it.
    let (code, _, err) = run(&["info", s(&z.join("UE4.27/ContainerHeader_1.bin"))]);
    assert_eq!(code, 2);
    assert!(err.contains("--ue-version 4.27"), "{err}");
}
