//! CLI tests of `info`, `list`, `verify` and `extract` on IoStore containers
//! of the shared corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use predicates::str::contains;

mod common;
use common::{files as tree, json_ok as json, pakrat, FIXTURE_KEY as KEY};

fn fixture(root: &Path, eng: &str, mode: &str, v: &str) -> PathBuf {
    root.join(format!(
        "iostore/cue4parse/{eng}/IoStore/{mode}/{v}/CUE4ParseFixtures-Minimal-{v}-Windows.utoc"
    ))
}

#[test]
fn info_and_list() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let f = fixture(&root, "UE5_8", "Tagged", "Oodle");
    let f = f.to_str().unwrap();
    let v = json(&["info", f, "--json"]);
    assert_eq!(v["version"], 8);
    assert_eq!(v["version_name"], "ReplaceIoChunkHashWithIoHash");
    assert_eq!(v["entries"], 112);
    assert_eq!(v["blocks"], 135);
    assert_eq!(v["methods"][0], "Oodle");
    assert_eq!(v["flags"], "Compressed|Indexed");
    assert_eq!(v["chunk_types"]["ExportBundleData"], 97);
    assert_eq!(v["chunk_types"]["BulkData"], 14);
    assert_eq!(v["chunk_types"]["ContainerHeader"], 1);
    assert_eq!(
        v["mount_point"],
        "../../../CUE4ParseFixtures/Content/Fixtures/"
    );
    pakrat()
        .args(["info", f])
        .assert()
        .success()
        .stdout(contains("ReplaceIoChunkHashWithIoHash"));
    let l = json(&["list", f, "--json"]);
    assert_eq!(l["entries"].as_array().unwrap().len(), 111);
    assert!(l["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["path"].is_string()));
    let l = json(&["list", f, "--chunks", "--json"]);
    assert_eq!(l["entries"].as_array().unwrap().len(), 112);
    pakrat()
        .args(["list", f])
        .assert()
        .success()
        .stdout(contains(".uasset"))
        .stdout(contains("111 files"));
    // A `.ucas` path works too (its `.utoc` is found).
    let ucas = f.replace(".utoc", ".ucas");
    assert_eq!(json(&["info", &ucas, "--json"])["entries"], 112);
}

#[test]
fn toc_only_lists_with_manifest_counts() {
    let Some(list) = pakrat_testkit::entries("iostore") else {
        return;
    };
    for e in list
        .iter()
        .filter(|e| e.detail.contains("TOC ONLY") && e.local_path.ends_with(".utoc"))
    {
        let p = e.path.to_str().unwrap();
        let v = json(&["info", p, "--json"]);
        assert_eq!(
            v["entries"].to_string(),
            e.detail_value("entries").unwrap(),
            "{}",
            e.local_path
        );
        assert_eq!(
            v["blocks"].to_string(),
            e.detail_value("blocks").unwrap(),
            "{}",
            e.local_path
        );
        let l = json(&["list", p, "--chunks", "--json"]);
        assert_eq!(
            l["entries"].as_array().unwrap().len().to_string(),
            e.detail_value("entries").unwrap()
        );
        // The data is not here: verify says so and fails.
        pakrat()
            .args(["verify", p])
            .assert()
            .code(1)
            .stdout(contains("missing"));
    }
}

#[test]
fn verify_corpus_and_keys() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let z = fixture(&root, "UE6_0", "Unversioned", "Zlib");
    let v = json(&["verify", z.to_str().unwrap(), "--json"]);
    assert_eq!(v["ok"], true);
    assert_eq!(v["chunk_hashes_ok"], 112);
    assert_eq!(v["perfect_hash_ok"], 112);
    for eng in ["UE5_8", "UE6_0"] {
        let e = fixture(&root, eng, "Tagged", "OodleEncrypted");
        let e = e.to_str().unwrap();
        pakrat()
            .args(["verify", e, "--aes-key", KEY])
            .assert()
            .success()
            .stdout(contains("OK"));
        // base64 form of the same key
        pakrat()
            .args([
                "verify",
                e,
                "--aes-key",
                "Q1VFNFBhcnNlRml4dHVyZUFFU0tleTAxMjM0NTY3ODk=",
            ])
            .assert()
            .success();
        pakrat()
            .args(["list", e])
            .assert()
            .code(2)
            .stderr(contains("--aes-key"));
        pakrat()
            .args(["verify", e])
            .assert()
            .code(1)
            .stdout(contains("no key"));
        pakrat()
            .args(["list", e, "--aes-key", &"11".repeat(32)])
            .assert()
            .code(2)
            .stderr(contains("wrong AES key"));
        // `info` still shows the unencrypted header, then reports the key.
        pakrat()
            .args(["info", e, "--aes-key", &"11".repeat(32)])
            .assert()
            .code(1)
            .stdout(contains("wrong key given"))
            .stdout(contains("entries:"))
            .stderr(contains("wrong AES key"));
        let o = pakrat()
            .args(["info", e, "--json", "--aes-key", &"11".repeat(32)])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(v["key_error"].as_str().unwrap().contains("wrong AES key"));
        assert_eq!(v["key_given"], false);
        assert!(v["encryption"].as_str().unwrap().starts_with("AES-256"));
        assert_eq!(v["entries"], 112);
        let t = tempfile::tempdir().unwrap();
        let keys = t.path().join("keys.json");
        std::fs::write(
            &keys,
            format!("{{\"00000000000000000000000000000000\": \"{KEY}\"}}"),
        )
        .unwrap();
        pakrat()
            .args(["list", e, "--keys", keys.to_str().unwrap()])
            .assert()
            .success()
            .stdout(contains("111 files"));
    }
}

#[test]
fn verify_catches_corruption() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let src = fixture(&root, "UE5_8", "Tagged", "Uncompressed");
    let t = tempfile::tempdir().unwrap();
    let toc = t.path().join("c.utoc");
    let cas = t.path().join("c.ucas");
    std::fs::copy(&src, &toc).unwrap();
    let mut data = std::fs::read(src.with_extension("ucas")).unwrap();
    data[1000] ^= 0xFF;
    std::fs::write(&cas, &data).unwrap();
    pakrat()
        .args(["verify", toc.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(contains("hash mismatch"))
        .stdout(contains("1 failure(s)"));
    // A truncated .ucas: blocks out of bounds, named.
    std::fs::write(&cas, &data[..data.len() / 2]).unwrap();
    pakrat()
        .args(["verify", toc.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(contains("lie outside"));
}

#[test]
fn variants_extract_to_identical_trees() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for eng in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let t = tempfile::tempdir().unwrap();
            let mut want: Option<BTreeMap<String, Vec<u8>>> = None;
            for v in [
                "Uncompressed",
                "Oodle",
                "Zlib",
                "OodlePartitioned",
                "OodleEncrypted",
            ] {
                let out = t.path().join(v);
                let f = fixture(&root, eng, mode, v);
                pakrat()
                    .args([
                        "extract",
                        f.to_str().unwrap(),
                        "-o",
                        out.to_str().unwrap(),
                        "--aes-key",
                        KEY,
                    ])
                    .assert()
                    .success()
                    .stdout(contains("extracted 111 of 111"));
                let got = tree(&out);
                assert_eq!(got.len(), 111, "{eng}/{mode}/{v}");
                assert!(
                    got.keys()
                        .all(|k| k.starts_with("CUE4ParseFixtures/Content/")
                            || k.starts_with("Engine/")),
                    "{:?}",
                    got.keys().next()
                );
                match &want {
                    None => want = Some(got),
                    Some(w) => assert!(w == &got, "{eng}/{mode}/{v} differs from Uncompressed"),
                }
            }
        }
    }
}

#[test]
fn extract_globs_chunks_and_no_clobber() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let f = fixture(&root, "UE6_0", "Tagged", "Zlib");
    let f = f.to_str().unwrap();
    let t = tempfile::tempdir().unwrap();
    let o = t.path().join("o");
    let o = o.to_str().unwrap();
    pakrat()
        .args(["extract", f, "-o", o, "*.UBULK"])
        .assert()
        .success();
    let got = tree(Path::new(o));
    assert!(!got.is_empty());
    assert!(
        got.keys().all(|k| k.ends_with(".ubulk")),
        "{:?}",
        got.keys()
    );
    // Existing files are not replaced without --force: one error up
    // front, nothing written.
    pakrat()
        .args(["extract", f, "-o", o, "*.ubulk"])
        .assert()
        .code(2)
        .stderr(contains("already exists"))
        .stderr(contains("nothing was written (--force replaces them)"));
    pakrat()
        .args(["extract", f, "-o", o, "*.ubulk", "--force"])
        .assert()
        .success();
    // --chunks adds the chunks without a path, by id.
    let o2 = t.path().join("o2");
    pakrat()
        .args([
            "extract",
            f,
            "-o",
            o2.to_str().unwrap(),
            "--chunks",
            "--json",
        ])
        .assert()
        .success();
    let got = tree(&o2);
    assert_eq!(got.len(), 112);
    let header: Vec<_> = got
        .keys()
        .filter(|k| k.ends_with(".ContainerHeader"))
        .collect();
    assert_eq!(header.len(), 1);
    assert!(header[0].starts_with("_chunks/"));
}

/// Issue 32, item 1: a 3 KB `.utoc` whose 128 blocks all point at the same
/// 80 `.ucas` bytes (a zlib stream of 64 KiB of zeros), with the right chunk
/// hashes: a container header chunk over 64 of them and 64 one-block
/// chunks. `verify` called it OK and `extract` wrote 4 MiB (1 GiB with
/// bigger numbers); every command refuses it now, and writes nothing.
#[test]
fn blocks_over_the_same_bytes_are_refused_by_every_command() {
    use pakrat_codec::compress::{compress, Method};
    use pakrat_testkit::utoc::{chunk_id, Block, TocV8};
    const BS: u64 = 65536;
    let t = tempfile::tempdir().unwrap();
    let z = compress(&Method::Zlib, None, &vec![0u8; BS as usize]).unwrap();
    let mut ucas = z.clone();
    ucas.resize(z.len().div_ceil(16) * 16, 0);
    std::fs::write(t.path().join("A.ucas"), &ucas).unwrap();
    let mut entries = vec![(chunk_id(1, 0, 6), 0, 64 * BS)];
    entries.extend((0..64).map(|i| (chunk_id(i + 2, 0, 2), (64 + i) * BS, BS)));
    let toc = TocV8 {
        container_id: 7,
        block_size: BS as u32,
        method: Some("Zlib".into()),
        entries,
        blocks: vec![
            Block {
                offset: 0,
                compressed: z.len() as u32,
                uncompressed: BS as u32,
                method: 1,
            };
            128
        ],
    };
    let hash = |n: u64| {
        let mut h = [0u8; 20];
        h.copy_from_slice(&blake3::hash(&vec![0u8; n as usize]).as_bytes()[..20]);
        h
    };
    let mut hashes = vec![hash(64 * BS)];
    hashes.extend((0..64).map(|_| hash(BS)));
    let utoc = t.path().join("A.utoc");
    std::fs::write(&utoc, toc.bytes_with_hashes(&hashes)).unwrap();
    let f = utoc.to_str().unwrap();
    let out = t.path().join("out");
    let o = out.to_str().unwrap();
    for args in [
        vec!["verify", f],
        vec!["extract", f, "--chunks", "-o", o],
        vec!["packages", f],
        vec!["zen", "to-legacy", f, "-o", o],
    ] {
        let r = pakrat().args(&args).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(!r.status.success(), "{args:?}: {text}");
        assert!(
            text.contains("blocks overlap in the .ucas"),
            "{args:?}: {text}"
        );
        assert!(
            !out.exists() || tree(&out).is_empty(),
            "{args:?} wrote {:?}",
            tree(&out).keys().collect::<Vec<_>>()
        );
    }
}
