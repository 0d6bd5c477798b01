//! The package store of a UE 4.27 container made from converted packages:
//! [`ue4_store_header`].
//!
//! A UE 4.27 zen package cannot be read without its store entry (export
//! count, export bundle count and size, imported packages), which
//! [`super::from_legacy_ue4`] returns beside the package. The one field a
//! package cannot give alone is `LoadOrder`, a rank over the packages of
//! the whole cook. What the engine's own 4.27 container header
//! (`zenpair/retoc/UE4.27/ContainerHeader_1.bin`, 52,583 packages) shows:
//! the ranks are distinct, they run past the container's package count
//! (0–52,742: the rank counts the packages of every container of the
//! cook), and of the 193,427 imports between packages of the container,
//! 192,880 (99.7%) rank the imported package before the importing one (the
//! rest are import cycles). The rule written here keeps those properties
//! for a container on its own: ranks `0..n`, imported packages of the
//! container first, ties (and cycles) broken by the lowest package id.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use pakrat_iostore::container_header::{ContainerHeader, HeaderForm, StoreEntry};

/// The container header (UE 4.26/4.27 form, 32-byte store entries) for
/// packages given as (package id, store entry): packages by ascending id,
/// as the engine writes them, each with its `LoadOrder` set (see the module
/// notes). `container_id` is CityHash64 of the lower-case `.utoc` stem
/// (a header written into a folder with 0 gets its id when a container is
/// built from the folder).
pub fn ue4_store_header(container_id: u64, packages: &[(u64, StoreEntry)]) -> ContainerHeader {
    let mut sorted: Vec<(u64, StoreEntry)> = packages.to_vec();
    sorted.sort_by_key(|p| p.0);
    sorted.dedup_by_key(|p| p.0);
    let ranks = load_order(&sorted);
    for ((_, e), r) in sorted.iter_mut().zip(ranks) {
        e.load_order = Some(r);
    }
    ContainerHeader {
        package_ids: sorted.iter().map(|p| p.0).collect(),
        store_entries: sorted.into_iter().map(|p| p.1).collect(),
        ..ContainerHeader::empty(HeaderForm::Ue4, container_id)
    }
}

/// The rank of each package (same order as `packages`, sorted by id):
/// Kahn's sort over "imported before importer" within the set, taking the
/// ready package of the lowest id; when only cycles remain, the lowest id
/// left goes next.
fn load_order(packages: &[(u64, StoreEntry)]) -> Vec<u32> {
    let n = packages.len();
    let at: HashMap<u64, usize> = packages.iter().enumerate().map(|(i, p)| (p.0, i)).collect();
    let mut importers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0usize; n];
    for (i, (_, e)) in packages.iter().enumerate() {
        let mut deps: Vec<usize> = e
            .imported_packages
            .iter()
            .filter_map(|id| at.get(id).copied())
            .filter(|&d| d != i)
            .collect();
        deps.sort_unstable();
        deps.dedup();
        for d in deps {
            importers[d].push(i);
            waiting[i] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| waiting[i] == 0).map(Reverse).collect();
    let mut rank = vec![u32::MAX; n];
    let mut next = 0u32;
    while next < n as u32 {
        let i = match ready.pop() {
            Some(Reverse(i)) if rank[i] == u32::MAX => i,
            Some(_) => continue,
            // A cycle: the lowest id not yet ranked goes next.
            None => match rank.iter().position(|&r| r == u32::MAX) {
                Some(i) => i,
                None => break,
            },
        };
        rank[i] = next;
        next += 1;
        for &d in &importers[i] {
            waiting[d] = waiting[d].saturating_sub(1);
            if waiting[d] == 0 && rank[d] == u32::MAX {
                ready.push(Reverse(d));
            }
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(imports: &[u64]) -> StoreEntry {
        StoreEntry {
            export_bundles_size: Some(10),
            export_count: Some(1),
            export_bundle_count: Some(1),
            load_order: Some(0),
            imported_packages: imports.to_vec(),
            shader_map_hashes: Vec::new(),
        }
    }

    #[test]
    fn imported_packages_rank_first_and_ids_sort() {
        // 30 imports 20 (in the set) and 99 (outside); 10 imports 30.
        let h = ue4_store_header(
            7,
            &[(30, entry(&[20, 99])), (10, entry(&[30])), (20, entry(&[]))],
        );
        assert_eq!(h.package_ids, [10, 20, 30]);
        let ranks: Vec<u32> = h
            .store_entries
            .iter()
            .map(|e| e.load_order.unwrap())
            .collect();
        assert_eq!(ranks, [2, 0, 1]);
        assert_eq!(h.form, HeaderForm::Ue4);
        let back = pakrat_iostore::container_header::parse(&h.to_bytes().unwrap()).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn cycles_still_give_every_package_one_rank() {
        let h = ue4_store_header(
            1,
            &[(1, entry(&[2])), (2, entry(&[1])), (3, entry(&[1, 3]))],
        );
        let mut ranks: Vec<u32> = h
            .store_entries
            .iter()
            .map(|e| e.load_order.unwrap())
            .collect();
        assert_eq!(ranks[2], 2);
        ranks.sort_unstable();
        assert_eq!(ranks, [0, 1, 2]);
    }
}
