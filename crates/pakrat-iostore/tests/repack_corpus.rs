//! Every corpus container with data, repacked by the writer: with its own
//! settings the TOC tables come back the same (and for stored containers the
//! `.utoc` and `.ucas` bytes too); with other settings the chunks do.

use std::fs::File;
use std::path::{Path, PathBuf};

use pakrat_iostore::compress::Method;
use pakrat_iostore::container::partition_path;
use pakrat_iostore::write::{self, Options, Written};
use pakrat_iostore::{verify, AesKey, Container, KeyRing};
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
        checked += 1;
    }
    eprintln!("{checked} containers repacked, {exact_ucas} byte for byte");
    assert!(checked >= 30, "only {checked} containers");
    assert!(
        exact_ucas >= 26,
        "only {exact_ucas} stored or Zlib containers rebuilt byte for byte"
    );
}
