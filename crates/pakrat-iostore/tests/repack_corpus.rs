//! Every corpus container with data, repacked by the writer: with its own
//! settings the TOC tables come back the same (and for stored containers the
//! `.utoc` and `.ucas` bytes too); with other settings the chunks do.

use std::fs::File;
use std::path::{Path, PathBuf};

use pakrat_codec::compress::{Method, ZlibEncoder};
use pakrat_codec::{AesKey, KeyRing};
use pakrat_iostore::container::partition_path;
use pakrat_iostore::write::{self, Options, Written};
use pakrat_iostore::{verify, Container};
use pakrat_testkit::{entries, Entry};

const FIXTURE_KEY: &str = "435545345061727365466978747572654145534b657930313233343536373839";

fn keys() -> KeyRing {
    let mut k = KeyRing::new();
    k.add(AesKey::parse(FIXTURE_KEY).unwrap());
    k
}

/// Corpus containers whose `.ucas` is present.
fn with_data() -> Option<Vec<Entry>> {
    Some(
        entries("iostore")?
            .into_iter()
            .filter(|e| e.local_path.ends_with(".utoc") && e.detail.contains("ucas present"))
            .collect(),
    )
}

/// Repack `c` into `dir/name.utoc` with `o`.
pub fn repack(c: &Container, o: &Options, dir: &Path, name: &str) -> (PathBuf, Written) {
    let utoc = dir.join(format!("{name}.utoc"));
    let mut open = |p: u32| -> pakrat_io::Result<File> {
        File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(partition_path(&utoc, p))
            .map_err(|e| pakrat_io::Error::Other(e.to_string()))
    };
    let w = write::write(&write::chunks_of(c), Some(c), o, &mut open, &|_| {})
        .unwrap_or_else(|e| panic!("{}: {e}", c.path().display()));
    std::fs::write(&utoc, &w.utoc).unwrap();
    (utoc, w)
}

fn same_chunks(a: &Container, b: &Container, what: &str) {
    assert_eq!(a.toc().len(), b.toc().len(), "{what}: entry count");
    for i in 0..a.toc().len() {
        let id = a.toc().chunk_ids[i];
        let j = b
            .find_chunk(&id)
            .unwrap_or_else(|| panic!("{what}: {id} missing"));
        assert_eq!(a.path_of(i), b.path_of(j), "{what}: path of {id}");
        assert!(
            a.read_chunk(i).unwrap() == b.read_chunk(j).unwrap(),
            "{what}: bytes of {id}"
        );
    }
}

#[test]
fn repack_with_own_settings_reproduces_the_toc_and_stored_ucas() {
    let Some(list) = with_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut exact_ucas = 0;
    let mut checked = 0;
    for (n, e) in list.iter().enumerate() {
        let c = Container::open(&e.path, &keys()).unwrap();
        let mut o = write::options_of(&c);
        // The engine's zlib blocks need the reference zlib.
        o.zlib = ZlibEncoder::UnrealPak;
        let oodle = o.compression == Method::Oodle;
        if oodle {
            o.compression = Method::None;
        }
        let (path, w) = repack(&c, &o, tmp.path(), &format!("r{n}"));
        let orig = c.toc();
        let t = &w.toc;
        let what = &e.local_path;
        assert_eq!(t.chunk_ids, orig.chunk_ids, "{what}: ids");
        assert_eq!(t.offsets, orig.offsets, "{what}: offsets/lengths");
        assert_eq!(
            t.perfect_hash_seeds, orig.perfect_hash_seeds,
            "{what}: seeds"
        );
        assert_eq!(
            t.chunks_without_perfect_hash, orig.chunks_without_perfect_hash,
            "{what}: overflow"
        );
        let hashes = |t: &pakrat_iostore::Toc| t.metas.iter().map(|m| m.hash).collect::<Vec<_>>();
        assert_eq!(hashes(t), hashes(orig), "{what}: chunk hashes");
        if !oodle {
            // (Oodle data written stored needs more partitions.)
            assert_eq!(
                t.header.partition_count, orig.header.partition_count,
                "{what}: partitions"
            );
        }
        if !orig.header.has(pakrat_iostore::toc::flags::ENCRYPTED) {
            assert!(
                t.directory_index == orig.directory_index,
                "{what}: directory index"
            );
        }
        let back = Container::open(&path, &keys()).unwrap();
        let r = verify::verify(&back, &|_| {});
        assert!(r.ok(), "{what}: verify after repack: {:?}", r.failures);
        same_chunks(&c, &back, what);
        if !oodle {
            // Stored or Zlib (the reference zlib, as the engine links it):
            // the whole .utoc and every partition byte for byte.
            assert!(
                w.utoc == std::fs::read(&e.path).unwrap(),
                "{what}: .utoc bytes"
            );
            for p in 0..orig.header.effective_partition_count() {
                let a = std::fs::read(partition_path(&e.path, p)).unwrap();
                let b = std::fs::read(partition_path(&path, p)).unwrap();
                assert!(a == b, "{what}: partition {p} bytes");
            }
            exact_ucas += 1;
        }
        // And every container to the other settings the issue names:
        // Zlib, LZ4 encrypted, stored in partitions.
        let key = AesKey::parse(FIXTURE_KEY).unwrap();
        let others = [
            (Method::Zlib, None, None),
            (Method::Lz4, Some(key), None),
            (Method::None, None, Some(0x40000u64)),
        ];
        for (k, (m, key, part)) in others.into_iter().enumerate() {
            let mut o2 = o.clone();
            o2.compression = m;
            o2.key = key;
            o2.key_guid = Default::default();
            o2.partition_size = part;
            let (p2, _) = repack(&c, &o2, tmp.path(), &format!("r{n}o{k}"));
            let b2 = Container::open(&p2, &keys()).unwrap();
            let r = verify::verify(&b2, &|_| {});
            assert!(r.ok(), "{what} variant {k}: verify: {:?}", r.failures);
            same_chunks(&c, &b2, &format!("{what} variant {k}"));
        }
        checked += 1;
    }
    eprintln!("{checked} containers repacked, {exact_ucas} byte for byte");
    assert!(checked >= 30, "only {checked} containers");
    assert!(
        exact_ucas >= 26,
        "only {exact_ucas} stored or Zlib containers rebuilt byte for byte"
    );
}

/// `../shared/tools/utocref.py` on `utoc`: its summary line and its
/// `(path, chunk id, size)` listing.
fn utocref(utoc: &Path) -> (String, Vec<(String, String, u64)>) {
    let tool = pakrat_testkit::corpus_dir()
        .unwrap()
        .join("../tools/utocref.py");
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .arg(utoc)
        .output()
        .expect("python3 runs utocref.py");
    assert!(
        out.status.success(),
        "utocref failed on {}: {}",
        utoc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let summary = lines.next().unwrap_or("").to_string();
    let files = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() == 3, "utocref line {l:?}");
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    (summary, files)
}

/// What pakrat lists, in utocref's terms.
fn listing(c: &Container) -> Vec<(String, String, u64)> {
    let mut v: Vec<_> = c
        .indexed_files()
        .iter()
        .map(|f| {
            let i = f.toc_index as usize;
            (
                f.path.clone(),
                c.toc().chunk_ids[i].to_hex(),
                c.toc().offsets[i].length,
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn repack_to_other_methods_keys_partitions_and_versions() {
    let Some(list) = with_data() else { return };
    let pick = |s: &str| {
        list.iter()
            .find(|e| e.local_path.contains(s))
            .unwrap_or_else(|| panic!("no {s} in the corpus"))
    };
    let sources = [
        pick("UE5_8/IoStore/Tagged/Zlib/"),
        pick("UE6_0/IoStore/Unversioned/OodleEncrypted/"),
        pick("UE5_8/Patch/IoStore/CUE4ParseFixtures-PatchBase.utoc"),
    ];
    let key = AesKey::parse(FIXTURE_KEY).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    let mut by_utocref = 0;
    for src in sources {
        let c = Container::open(&src.path, &keys()).unwrap();
        let base = write::options_of(&c);
        let mut variants: Vec<(String, Options)> = Vec::new();
        for m in [
            Method::None,
            Method::Zlib,
            Method::Lz4,
            Method::Gzip,
            Method::Zstd,
        ] {
            let versions: &[u8] = if matches!(m, Method::None | Method::Lz4) {
                &[3, 4, 5, 6, 7, 8, 9, 10]
            } else {
                &[8, 10]
            };
            for &v in versions {
                let mut o = base.clone();
                o.compression = m.clone();
                o.version = v;
                o.key = None;
                o.key_guid = Default::default();
                o.cipher = pakrat_pak::Cipher::Ecb;
                variants.push((format!("{m:?} v{v}"), o.clone()));
                if matches!(m, Method::None | Method::Lz4) {
                    o.key = Some(key);
                    variants.push((format!("{m:?} v{v} AES-ECB"), o.clone()));
                    if v == 10 {
                        o.cipher = pakrat_pak::Cipher::Ctr;
                        variants.push((format!("{m:?} v{v} AES-CTR"), o.clone()));
                    }
                }
            }
        }
        let mut o = base.clone();
        o.compression = Method::Zlib;
        o.partition_size = Some(0x40000);
        variants.push(("Zlib partitioned".into(), o.clone()));
        o.compression = Method::None;
        o.key = Some(key);
        variants.push(("stored, encrypted, partitioned".into(), o));
        for (what, o) in variants {
            let what = format!("{} as {what}", src.local_path);
            let (path, w) = repack(&c, &o, tmp.path(), &format!("v{n}"));
            n += 1;
            let back = Container::open(&path, &keys()).unwrap_or_else(|e| panic!("{what}: {e}"));
            let r = verify::verify(&back, &|_| {});
            assert!(r.ok(), "{what}: verify: {:?}", r.failures);
            assert_eq!(
                r.chunk_hashes_ok,
                back.toc().len() as u64,
                "{what}: hashes checked"
            );
            same_chunks(&c, &back, &what);
            assert_eq!(w.toc.header.version, o.version);
            if o.partition_size.is_some() && c.toc().len() > 10 {
                assert!(
                    back.toc().header.partition_count > 1,
                    "{what}: one partition"
                );
            }
            // The independent reader: header facts always, the listing up
            // to v8 when the directory index is plain.
            if o.version >= 10 && o.key.is_some() && o.cipher == pakrat_pak::Cipher::Ecb {
                // utocref.py takes every encrypted v10 TOC for AES-CTR (it
                // skips an IV array that v10 with AES-ECB does not have).
                continue;
            }
            let (summary, files) = utocref(&path);
            let h = &back.toc().header;
            assert!(
                summary.starts_with(&format!(
                    "utoc v{} entries={} blocks={} blocksize={} partitions={}",
                    h.version, h.entry_count, h.block_count, h.block_size, h.partition_count
                )),
                "{what}: utocref says {summary}"
            );
            if o.version <= 8 && o.key.is_none() && !back.indexed_files().is_empty() {
                let mut files = files;
                files.sort();
                assert_eq!(files, listing(&back), "{what}: utocref listing");
                by_utocref += 1;
            }
        }
    }
    eprintln!("{n} repacks verified, {by_utocref} listed identically by utocref.py");
    assert!(by_utocref >= 30);
}

#[test]
fn every_container_header_serializes_back_to_its_own_bytes() {
    let Some(list) = with_data() else { return };
    let mut n = 0;
    for e in &list {
        let c = Container::open(&e.path, &keys()).unwrap();
        let Some(i) = c.find_by_type(pakrat_iostore::ChunkType::ContainerHeader) else {
            continue;
        };
        let bytes = c.read_chunk(i).unwrap();
        let h = pakrat_iostore::container_header::parse(&bytes).unwrap();
        let back = h.to_bytes().unwrap();
        let first = back.iter().zip(&bytes).position(|(a, b)| a != b);
        assert!(
            back == bytes,
            "{}: container header bytes differ after a round trip ({} vs {} bytes, first at {first:?})",
            e.local_path,
            back.len(),
            bytes.len()
        );
        n += 1;
    }
    assert!(n >= 20, "only {n} container headers");
}
