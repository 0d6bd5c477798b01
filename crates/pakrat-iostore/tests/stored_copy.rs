//! Stored, unencrypted entries are copied `.ucas` → file in the kernel by
//! `extract`; the files must hold exactly what `read_chunk` decodes, also
//! for an entry that starts in the middle of a block, and the output checks
//! (no overwrite without force) must still hold.

use std::path::Path;

use pakrat_codec::KeyRing;
use pakrat_io::fsutil::OutputDir;
use pakrat_iostore::extract::{extract, Job, COPY_MIN};
use pakrat_iostore::Container;
use pakrat_testkit::utoc;

const BS: u64 = 65536;

/// (offset, length) of each entry in the uncompressed address space.
const ENTRIES: [(u64, u64); 3] = [(0, 5 * BS), (5 * BS + 100, 300_000), (10 * BS, 1000)];

fn build(dir: &Path) -> std::path::PathBuf {
    let nblocks = 11u64;
    let data: Vec<u8> = (0..nblocks * BS)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("S.ucas"), &data).unwrap();
    let toc = utoc::TocV8::stored(7, BS as u32, nblocks, &ENTRIES);
    let path = dir.join("S.utoc");
    std::fs::write(&path, toc.bytes()).unwrap();
    path
}

#[test]
fn stored_entries_copied_in_the_kernel_match_read_chunk() {
    let t = tempfile::tempdir().unwrap();
    let utoc = build(t.path());
    let c = Container::open(&utoc, &KeyRing::new()).unwrap();
    // The two large entries take the copy path, the small one does not.
    for (i, (_, len)) in ENTRIES.iter().enumerate() {
        let ext = c.stored_extent(i).expect("stored run");
        assert_eq!(ext.2, *len);
        assert_eq!(ext.2 >= COPY_MIN, i < 2);
    }
    assert_eq!(c.stored_extent(1).unwrap().1, 5 * BS + 100);
    let jobs: Vec<Job> = (0..ENTRIES.len())
        .map(|i| Job {
            name: format!("d/e{i}.bin"),
            index: i,
            size: ENTRIES[i].1,
        })
        .collect();
    let out = OutputDir::create(t.path().join("out"), false).unwrap();
    let s = extract(&c, &jobs, &out, &|_| {});
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert_eq!(s.files, 3);
    for j in &jobs {
        let got = std::fs::read(out.root().join(&j.name)).unwrap();
        assert_eq!(got, c.read_chunk(j.index).unwrap(), "{}", j.name);
    }
    // A second run without force refuses every file, copied or streamed.
    let again = extract(&c, &jobs, &out, &|_| {});
    assert_eq!(again.files, 0);
    assert_eq!(again.errors.len(), 3);
    assert!(again.errors.iter().all(|e| e.contains("already exists")));
}
