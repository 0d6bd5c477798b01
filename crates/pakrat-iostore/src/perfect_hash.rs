//! Perfect-hash lookup of chunk ids (TOC v4+; UE `IoStore.cpp`
//! `HashChunkIdWithSeed`, lookup in `IoDispatcherFileBackend.cpp`).

use crate::toc::ChunkId;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

/// `HashChunkIdWithSeed`: FNV-1 order (multiply, then xor) over the 12 id
/// bytes, starting from the sign-extended seed, or the FNV offset basis when
/// the seed is 0.
pub fn hash_chunk_id(seed: i32, id: &ChunkId) -> u64 {
    let mut h = if seed != 0 {
        i64::from(seed) as u64
    } else {
        FNV_OFFSET
    };
    for &b in &id.0 {
        h = h.wrapping_mul(FNV_PRIME);
        h ^= u64::from(b);
    }
    h
}

/// What the seeds say about an id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The id is in this slot.
    Slot(usize),
    /// The id is not in the container.
    Absent,
    /// The id may be in the overflow list (`ChunkIndicesWithoutPerfectHash`).
    Overflow,
}

/// Apply the seeds to `id` (steps 1–4 and 6 of the lookup).
pub fn probe(seeds: &[i32], ids: &[ChunkId], id: &ChunkId) -> Probe {
    if seeds.is_empty() || ids.is_empty() {
        return Probe::Absent;
    }
    let bucket = (hash_chunk_id(0, id) % seeds.len() as u64) as usize;
    let Some(&seed) = seeds.get(bucket) else {
        return Probe::Absent;
    };
    if seed == 0 {
        return Probe::Absent;
    }
    let slot = if seed > 0 {
        (hash_chunk_id(seed, id) % ids.len() as u64) as usize
    } else {
        let s = -(i64::from(seed)) - 1;
        if (s as u64) >= ids.len() as u64 {
            return Probe::Overflow;
        }
        s as usize
    };
    if ids.get(slot) == Some(id) {
        Probe::Slot(slot)
    } else {
        Probe::Absent
    }
}

/// Find the slot of `id` using the seeds and overflow list; `None` when the
/// hash says the id is not present (or when there are no seeds). The
/// overflow list is searched linearly, as the engine does; use [`probe`]
/// with an index of the overflow entries for many lookups.
pub fn lookup(seeds: &[i32], overflow: &[i32], ids: &[ChunkId], id: &ChunkId) -> Option<usize> {
    match probe(seeds, ids, id) {
        Probe::Slot(s) => Some(s),
        Probe::Absent => None,
        Probe::Overflow => overflow
            .iter()
            .filter_map(|&i| usize::try_from(i).ok())
            .find(|&i| ids.get(i) == Some(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_item_buckets_and_overflow() {
        let ids: Vec<ChunkId> = (0..3u64).map(|i| ChunkId::new(i, 0, 0, 1)).collect();
        // One seed per bucket; negative seeds point straight at a slot.
        let n = 3usize;
        let mut seeds = vec![0i32; n];
        let mut overflow = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let b = (hash_chunk_id(0, id) % n as u64) as usize;
            if seeds[b] == 0 {
                seeds[b] = -(i as i32) - 1;
            } else {
                overflow.push(i as i32);
            }
        }
        // Buckets holding more than one id send them to the overflow list
        // only when their seed is not "single item"; emulate that by giving
        // such buckets an out-of-range negative seed.
        for &o in &overflow {
            let b = (hash_chunk_id(0, &ids[o as usize]) % n as u64) as usize;
            seeds[b] = i32::MIN;
        }
        for (i, id) in ids.iter().enumerate() {
            let b = (hash_chunk_id(0, id) % n as u64) as usize;
            if seeds[b] == i32::MIN && !overflow.contains(&(i as i32)) {
                overflow.push(i as i32);
            }
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(lookup(&seeds, &overflow, &ids, id), Some(i));
        }
        assert_eq!(
            lookup(&seeds, &overflow, &ids, &ChunkId::new(99, 0, 0, 1)),
            None
        );
        assert_eq!(lookup(&[], &[], &ids, &ids[0]), None);
    }
}
