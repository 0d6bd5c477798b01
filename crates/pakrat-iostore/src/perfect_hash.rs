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

/// Find the slot of `id` using the seeds and overflow list; `None` when the
/// hash says the id is not present (or when there are no seeds).
pub fn lookup(seeds: &[i32], overflow: &[i32], ids: &[ChunkId], id: &ChunkId) -> Option<usize> {
    if seeds.is_empty() || ids.is_empty() {
        return None;
    }
    let bucket = (hash_chunk_id(0, id) % seeds.len() as u64) as usize;
    let seed = *seeds.get(bucket)?;
    if seed == 0 {
        return None;
    }
    let slot = if seed > 0 {
        Some((hash_chunk_id(seed, id) % ids.len() as u64) as usize)
    } else {
        let s = -(i64::from(seed)) - 1;
        if (s as u64) < ids.len() as u64 {
            Some(s as usize)
        } else {
            None
        }
    };
    if let Some(slot) = slot {
        return (ids.get(slot) == Some(id)).then_some(slot);
    }
    // Overflow list: entries the writer could not place.
    overflow
        .iter()
        .filter_map(|&i| usize::try_from(i).ok())
        .find(|&i| ids.get(i) == Some(id))
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
