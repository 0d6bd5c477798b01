//! Every IoStore file of the shared corpus against MANIFEST.tsv facts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::{verify, Container};
use pakrat_testkit::{entries, Entry};

const FIXTURE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

fn keys() -> KeyRing {
    let mut k = KeyRing::new();
    k.add(AesKey::parse(FIXTURE_KEY).unwrap());
    k
}

fn tocs() -> Option<Vec<Entry>> {
    Some(
        entries("iostore")?
            .into_iter()
            .filter(|e| e.local_path.ends_with(".utoc"))
            .collect(),
    )
}

fn num(e: &Entry, k: &str) -> u64 {
    e.detail_value(k)
        .unwrap_or_else(|| panic!("{}: no {k} in detail", e.local_path))
        .parse()
        .unwrap()
}

#[test]
fn every_toc_parses_with_manifest_counts() {
    let Some(list) = tocs() else { return };
    assert!(list.len() >= 40, "only {} TOCs", list.len());
    for e in &list {
        let c = Container::open(&e.path, &keys())
            .unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        let h = &c.toc().header;
        let v: u8 = e.detail.split_whitespace().nth(1).unwrap()[1..]
            .parse()
            .unwrap();
        assert_eq!(h.version, v, "{}", e.local_path);
        assert_eq!(
            u64::from(h.entry_count),
            num(e, "entries"),
            "{}",
            e.local_path
        );
        assert_eq!(c.toc().len() as u64, num(e, "entries"));
        assert_eq!(
            c.toc().blocks.len() as u64,
            num(e, "blocks"),
            "{}",
            e.local_path
        );
        assert_eq!(u64::from(h.block_size), num(e, "blocksize"));
        assert_eq!(u64::from(h.directory_index_size), num(e, "dirindex"));
        assert_eq!(
            u64::from(h.effective_partition_count()),
            num(e, "partitions")
        );
        assert_eq!(
            pakrat_iostore::toc::flags::describe(h.flags),
            e.detail_value("flags").unwrap(),
            "{}",
            e.local_path
        );
        let methods = e.detail_value("methods").unwrap();
        if !methods.starts_with('?') {
            let ours = if c.toc().method_names.is_empty() {
                "none".to_string()
            } else {
                c.toc().method_names.join(",")
            };
            assert_eq!(ours, methods, "{}", e.local_path);
        }
        // Listing: every indexed container names a path for each data chunk.
        if h.flags & pakrat_iostore::toc::flags::INDEXED != 0 {
            let d = c.directory().unwrap().expect("directory");
            assert!(d.mount_point.starts_with("../../../"), "{}", e.local_path);
            let with_path = c.chunks().iter().filter(|x| x.path.is_some()).count();
            assert_eq!(with_path, c.indexed_files().len(), "{}", e.local_path);
            // Every package chunk has a .uasset/.umap path; the container
            // header never has one.
            for x in c.chunks() {
                match x.chunk_type {
                    pakrat_iostore::ChunkType::ExportBundleData => {
                        let p = x.path.as_deref().unwrap_or("");
                        assert!(
                            p.ends_with(".uasset") || p.ends_with(".umap"),
                            "{}: {p:?}",
                            e.local_path
                        );
                    }
                    pakrat_iostore::ChunkType::ContainerHeader => assert!(x.path.is_none()),
                    _ => {}
                }
            }
        }
        // The perfect hash resolves every id to its own slot.
        for (i, id) in c.toc().chunk_ids.iter().enumerate() {
            assert_eq!(c.find_chunk(id), Some(i), "{} entry {i}", e.local_path);
        }
    }
}

#[test]
fn complete_containers_verify_clean() {
    let Some(list) = tocs() else { return };
    let mut verified = 0;
    for e in &list {
        if e.detail.contains("TOC ONLY") {
            continue;
        }
        let c = Container::open(&e.path, &keys()).unwrap();
        assert!(c.has_data(), "{}", e.local_path);
        let r = verify::verify(&c, &|_| {});
        assert!(r.ok(), "{}: {:#?}", e.local_path, r.failures);
        assert!(r.data_checked);
        assert_eq!(
            r.chunk_hashes_ok as usize,
            c.toc().len(),
            "{}",
            e.local_path
        );
        assert_eq!(r.blocks_checked as usize, c.toc().blocks.len());
        verified += 1;
    }
    assert!(verified >= 25, "only {verified} complete containers");
}

#[test]
fn encrypted_without_or_with_wrong_key() {
    let Some(list) = tocs() else { return };
    let enc: Vec<&Entry> = list
        .iter()
        .filter(|e| e.detail.contains("Encrypted") && !e.detail.contains("TOC ONLY"))
        .collect();
    assert_eq!(enc.len(), 4);
    for e in enc {
        let c = Container::open(&e.path, &KeyRing::new()).unwrap();
        let err = c.directory().unwrap_err().to_string();
        assert!(err.contains("--aes-key"), "{err}");
        assert!(c
            .read_chunk(0)
            .unwrap_err()
            .to_string()
            .contains("encrypted"));
        let mut wrong = KeyRing::new();
        wrong.add(AesKey([7u8; 32]));
        let err = Container::open(&e.path, &wrong).unwrap_err().to_string();
        assert!(err.contains("wrong AES key"), "{err}");
    }
}

fn tree(c: &Container) -> BTreeMap<String, Vec<u8>> {
    c.chunks()
        .iter()
        .filter_map(|x| Some((x.path.clone()?, c.read_chunk(x.index).unwrap())))
        .collect()
}

fn variant(root: &Path, eng: &str, mode: &str, v: &str) -> PathBuf {
    root.join(format!(
        "iostore/cue4parse/{eng}/IoStore/{mode}/{v}/CUE4ParseFixtures-Minimal-{v}-Windows.utoc"
    ))
}

#[test]
fn fixture_variants_hold_identical_trees() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    for eng in ["UE5_8", "UE6_0"] {
        for mode in ["Tagged", "Unversioned"] {
            let base = Container::open(variant(&root, eng, mode, "Uncompressed"), &keys()).unwrap();
            let want = tree(&base);
            assert_eq!(
                want.len(),
                111,
                "every chunk but the container header has a path"
            );
            for v in ["Oodle", "Zlib", "OodlePartitioned", "OodleEncrypted"] {
                let c = Container::open(variant(&root, eng, mode, v), &keys()).unwrap();
                let got = tree(&c);
                assert_eq!(got.len(), want.len(), "{eng}/{mode}/{v}");
                for (k, data) in &want {
                    assert!(got.get(k) == Some(data), "{eng}/{mode}/{v}: {k} differs");
                }
            }
        }
    }
}

/// Truncated and bit-flipped copies of real containers: every outcome is a
/// clean `Ok` or `Err`, never a panic or a runaway allocation.
#[test]
fn damaged_containers_never_panic() {
    let Some(root) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    for v in ["Zlib", "OodleEncrypted", "Uncompressed"] {
        for eng in ["UE5_8", "UE6_0"] {
            let src = variant(&root, eng, "Tagged", v);
            let toc = std::fs::read(&src).unwrap();
            let cas = std::fs::read(src.with_extension("ucas")).unwrap();
            let dst = t.path().join("x.utoc");
            std::fs::write(dst.with_extension("ucas"), &cas).unwrap();
            let mut cases: Vec<Vec<u8>> = Vec::new();
            for cut in (0..toc.len()).step_by(97) {
                cases.push(toc[..cut].to_vec());
            }
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..120 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let mut d = toc.clone();
                let at = (seed % d.len() as u64) as usize;
                d[at] ^= 1 << (seed >> 60 & 7);
                cases.push(d);
            }
            for (n, d) in cases.into_iter().enumerate() {
                std::fs::write(&dst, &d).unwrap();
                if let Ok(c) = Container::open(&dst, &keys()) {
                    let _ = c.chunks();
                    for i in 0..c.toc().len().min(4) {
                        let _ = c.read_chunk(i);
                    }
                    if n % 16 == 0 {
                        let _ = verify::verify(&c, &|_| {});
                    }
                }
            }
        }
    }
}
