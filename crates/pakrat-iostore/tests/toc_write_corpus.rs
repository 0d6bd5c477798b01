//! The writer's building blocks against every corpus TOC: the TOC
//! serializer, the perfect-hash builder and the directory-index builder
//! must reproduce what UE's writer made, byte for byte.

use pakrat_iostore::dirindex::{common_mount_point, DirectoryIndex};
use pakrat_iostore::{perfect_hash, Toc};
use pakrat_testkit::{entries, Entry};

fn tocs() -> Option<Vec<Entry>> {
    Some(
        entries("iostore")?
            .into_iter()
            .filter(|e| e.local_path.ends_with(".utoc"))
            .collect(),
    )
}

#[test]
fn every_toc_serializes_back_to_its_own_bytes() {
    let Some(list) = tocs() else { return };
    assert!(list.len() >= 55, "only {} TOCs", list.len());
    for e in &list {
        let bytes = std::fs::read(&e.path).unwrap();
        let toc = Toc::parse(&bytes).unwrap_or_else(|err| panic!("{}: {err}", e.local_path));
        assert!(
            toc.to_bytes() == bytes,
            "{}: TOC bytes differ after a round trip",
            e.local_path
        );
    }
}

#[test]
fn perfect_hash_builder_reproduces_every_toc() {
    let Some(list) = tocs() else { return };
    let mut checked = 0;
    let mut overflow = 0;
    for e in &list {
        let toc = Toc::parse(&std::fs::read(&e.path).unwrap()).unwrap();
        if toc.header.version < 4 {
            continue;
        }
        // The TOC holds the ids in slot order; feed them in the order the
        // writer adds them, the layout order of the data (by offset). Only
        // the overflow ids of one bucket depend on that order.
        let mut by_offset: Vec<usize> = (0..toc.len()).collect();
        by_offset.sort_by_key(|&i| toc.offsets[i].offset);
        let ids: Vec<_> = by_offset.iter().map(|&i| toc.chunk_ids[i]).collect();
        let ph = perfect_hash::build(&ids);
        assert_eq!(ph.seeds, toc.perfect_hash_seeds, "{}: seeds", e.local_path);
        let n = ids.len();
        let slotted: Vec<_> = ph.order().iter().map(|&i| ids[i]).collect();
        assert_eq!(slotted, toc.chunk_ids, "{}: slot order", e.local_path);
        assert_eq!(
            ph.overflow, toc.chunks_without_perfect_hash,
            "{}: overflow",
            e.local_path
        );
        overflow += ph.overflow.len();
        checked += n;
    }
    assert!(checked > 40_000, "checked {checked} ids");
    assert_eq!(
        overflow, 8,
        "the two UE 6.0 Zlib fixtures hold 4 overflow ids each"
    );
}

#[test]
fn directory_index_builder_reproduces_every_plain_index() {
    let Some(list) = tocs() else { return };
    let mut checked = 0;
    for e in &list {
        let toc = Toc::parse(&std::fs::read(&e.path).unwrap()).unwrap();
        if toc.directory_index.is_empty() || toc.header.has(pakrat_iostore::toc::flags::ENCRYPTED) {
            continue;
        }
        let ix = DirectoryIndex::parse(&toc.directory_index, 0).unwrap();
        let mut files: Vec<(String, u32)> = ix
            .walk()
            .unwrap()
            .into_iter()
            .map(|f| (f.path, f.toc_index))
            .collect();
        // UE adds the files in TOC slot order.
        files.sort_by_key(|f| f.1);
        let full: Vec<String> = files
            .iter()
            .map(|f| format!("{}{}", ix.mount_point, f.0))
            .collect();
        let mount = common_mount_point(full.iter().map(|s| s.as_str()));
        assert_eq!(mount, ix.mount_point, "{}: mount point", e.local_path);
        let rebuilt = DirectoryIndex::build(&mount, files.iter().map(|(p, i)| (p.as_str(), *i)));
        assert!(
            rebuilt.to_bytes() == toc.directory_index,
            "{}: rebuilt directory index differs",
            e.local_path
        );
        checked += 1;
    }
    assert!(checked >= 24, "only {checked} indexes checked");
}
