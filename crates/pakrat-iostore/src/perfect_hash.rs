//! Perfect-hash lookup of chunk ids (TOC v4+; UE `IoStore.cpp`
//! `HashChunkIdWithSeed`, lookup in `IoDispatcherFileBackend.cpp`), and the
//! writer's side, [`build`] (UE `IoStoreWriter.cpp` `GeneratePerfectHashes`).

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

/// The seed search gives up on a bucket after this many candidate seeds:
/// the primes 2 to 7919 (the first 1000 primes), as UE's writer does. A
/// bucket none of them fits goes to the overflow list.
pub const SEED_PRIMES: usize = 1000;

fn primes() -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(SEED_PRIMES);
    let mut k = 2u32;
    while out.len() < SEED_PRIMES {
        if out
            .iter()
            .take_while(|&&p| p * p <= k)
            .all(|&p| !k.is_multiple_of(p))
        {
            out.push(k);
        }
        k += 1;
    }
    out
}

/// A perfect hash built for a set of chunk ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerfectHash {
    /// `PerfectHashSeeds`, one per bucket.
    pub seeds: Vec<i32>,
    /// `ChunkIndicesWithoutPerfectHash`: slots of the ids no seed fitted.
    pub overflow: Vec<i32>,
    /// The slot of each input id (`slots[i]` for `ids[i]`): the TOC stores
    /// ids, offsets and metas in slot order.
    pub slots: Vec<usize>,
}

impl PerfectHash {
    /// The input index held by each slot (the inverse of [`PerfectHash::slots`]).
    pub fn order(&self) -> Vec<usize> {
        let mut order = vec![0usize; self.slots.len()];
        for (i, &s) in self.slots.iter().enumerate() {
            order[s] = i;
        }
        order
    }
}

/// `SeedCount = max(1, round-half-up(n / 2))`.
pub fn seed_count(n: usize) -> usize {
    n.div_ceil(2).max(1)
}

/// Build the perfect hash of `ids` exactly as UE's writer does, so that a
/// container rebuilt from the same ids gets the same seeds, overflow list
/// and slot order (checked on all 55 corpus TOCs of versions 5–10):
///
/// 1. Ids go into `seed_count(n)` buckets by `hash(0, id) % seeds`.
/// 2. The buckets are sorted by size, largest first, with the engine's
///    introsort ([`engine_sort`]; it is not stable, and which of two equal
///    buckets comes first decides the slots).
/// 3. Each bucket of two or more ids tries the primes 2, 3, 5 … 7919 in turn
///    and takes the first that sends all its ids to distinct free slots
///    (`hash(seed, id) % n`). When none fits, its ids go to the overflow
///    list and its seed becomes `-(n + first overflow position) - 1`, which
///    readers treat as "search the overflow list".
/// 4. Single-id buckets then take the free slots in ascending order (seed
///    `-slot - 1`), then the overflow ids take the next free slots.
///
/// Ids must be distinct (the caller checks; a duplicate is a broken
/// container). Empty input gives no seeds.
pub fn build(ids: &[ChunkId]) -> PerfectHash {
    let n = ids.len();
    if n == 0 {
        return PerfectHash {
            seeds: Vec::new(),
            overflow: Vec::new(),
            slots: Vec::new(),
        };
    }
    let seed_n = seed_count(n);
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); seed_n];
    for (i, id) in ids.iter().enumerate() {
        buckets[(hash_chunk_id(0, id) % seed_n as u64) as usize].push(i);
    }
    engine_sort(&mut buckets, |a, b| a.len() > b.len());
    let primes = primes();
    let mut free = vec![true; n];
    let mut seeds = vec![0i32; seed_n];
    let mut slots = vec![usize::MAX; n];
    let mut overflow_ids: Vec<usize> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    for bucket in buckets.iter().take_while(|b| b.len() > 1) {
        let bucket_at = (hash_chunk_id(0, &ids[bucket[0]]) % seed_n as u64) as usize;
        let fits = |seed: u32, used: &mut Vec<usize>| -> bool {
            used.clear();
            for &c in bucket {
                let s = (hash_chunk_id(seed as i32, &ids[c]) % n as u64) as usize;
                if !free[s] || used.contains(&s) {
                    return false;
                }
                used.push(s);
            }
            true
        };
        match primes.iter().find(|&&p| fits(p, &mut used)) {
            Some(&seed) => {
                seeds[bucket_at] = seed as i32;
                for &c in bucket {
                    let s = (hash_chunk_id(seed as i32, &ids[c]) % n as u64) as usize;
                    free[s] = false;
                    slots[c] = s;
                }
            }
            None => {
                seeds[bucket_at] = overflow_seed(n + overflow_ids.len());
                overflow_ids.extend_from_slice(bucket);
            }
        }
    }
    let mut next_free = 0usize;
    let mut take_free = |free: &mut Vec<bool>| -> usize {
        while !free[next_free] {
            next_free += 1;
        }
        free[next_free] = false;
        next_free
    };
    for bucket in buckets.iter().filter(|b| b.len() == 1) {
        let c = bucket[0];
        let s = take_free(&mut free);
        seeds[(hash_chunk_id(0, &ids[c]) % seed_n as u64) as usize] = overflow_seed(s);
        slots[c] = s;
    }
    let mut overflow = Vec::with_capacity(overflow_ids.len());
    for &c in &overflow_ids {
        let s = take_free(&mut free);
        slots[c] = s;
        overflow.push(s as i32);
    }
    PerfectHash {
        seeds,
        overflow,
        slots,
    }
}

/// `-v - 1`, saturating (a TOC has at most 2^31 entries).
fn overflow_seed(v: usize) -> i32 {
    -(i32::try_from(v).unwrap_or(i32::MAX - 1)) - 1
}

/// The engine's `Algo::Sort` (an introsort): quicksort on the middle
/// element as pivot, an in-place selection sort for 8 or fewer items, and
/// heapsort once the depth budget `trunc(2 ln n)` is spent. Reproducing
/// it matters because it is not stable: equal-sized buckets end up in an
/// order only this procedure gives, and that order decides the slots.
/// `less(a, b)` says whether `a` goes before `b`.
pub fn engine_sort<T>(a: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = a.len();
    if n < 2 {
        return;
    }
    // (first, last, depth budget); the engine computes the budget in f32.
    let budget = ((n as f32).ln() * 2.0) as u32;
    let mut stack: Vec<(usize, usize, u32)> = vec![(0, n - 1, budget)];
    while let Some((mut lo, mut hi, mut depth)) = stack.pop() {
        loop {
            let count = hi - lo + 1;
            if depth == 0 {
                heap_sort(&mut a[lo..=hi], &less);
                break;
            }
            if count <= 8 {
                // Move the largest of [lo, hi] to hi, then shrink.
                while hi > lo {
                    let mut max = lo;
                    for i in lo + 1..=hi {
                        if less(&a[max], &a[i]) {
                            max = i;
                        }
                    }
                    a.swap(max, hi);
                    hi -= 1;
                }
                break;
            }
            a.swap(lo + count / 2, lo);
            // Hoare partition around a[lo]: `left` runs over items that do
            // not sort after the pivot, `right` over items that do not sort
            // before it.
            let mut left = lo;
            let mut right = hi + 1;
            loop {
                left += 1;
                while left <= hi && !less(&a[lo], &a[left]) {
                    left += 1;
                }
                right -= 1;
                while right > lo && !less(&a[right], &a[lo]) {
                    right -= 1;
                }
                if left > right {
                    break;
                }
                a.swap(left, right);
            }
            a.swap(lo, right);
            depth -= 1;
            // Keep the bigger half for later, go on with the smaller one.
            if right as isize - 1 - lo as isize >= hi as isize - left as isize {
                if lo + 1 < right {
                    stack.push((lo, right - 1, depth));
                }
                if hi > left {
                    lo = left;
                    continue;
                }
            } else {
                if hi > left {
                    stack.push((left, hi, depth));
                }
                if lo + 1 < right {
                    hi = right - 1;
                    continue;
                }
            }
            break;
        }
    }
}

/// The engine's heapsort fallback: a max-heap under `less`, built by
/// sifting down from the last parent, then the root swapped to the end.
fn heap_sort<T>(a: &mut [T], less: &impl Fn(&T, &T) -> bool) {
    let n = a.len();
    // The engine sifts with the reversed predicate, so "min child" under
    // the reversed order is the larger child under `less`.
    let rev = |x: &T, y: &T| less(y, x);
    let sift = |a: &mut [T], mut i: usize, count: usize| {
        while 2 * i + 1 < count {
            let l = 2 * i + 1;
            let r = l + 1;
            let m = if r < count && !rev(&a[l], &a[r]) {
                r
            } else {
                l
            };
            if !rev(&a[m], &a[i]) {
                break;
            }
            a.swap(i, m);
            i = m;
        }
    };
    if n < 2 {
        return;
    }
    for i in (0..=(n - 2) / 2).rev() {
        sift(a, i, n);
    }
    for end in (1..n).rev() {
        a.swap(0, end);
        sift(a, 0, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_hash_resolves_every_id() {
        for n in [1usize, 2, 3, 7, 8, 9, 100, 1000, 5000] {
            let ids: Vec<ChunkId> = (0..n as u64)
                .map(|i| ChunkId::new(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), 0, 0, 1))
                .collect();
            let ph = build(&ids);
            assert_eq!(ph.seeds.len(), seed_count(n));
            let order = ph.order();
            let slotted: Vec<ChunkId> = order.iter().map(|&i| ids[i]).collect();
            for (i, id) in ids.iter().enumerate() {
                assert_eq!(
                    lookup(&ph.seeds, &ph.overflow, &slotted, id),
                    Some(ph.slots[i]),
                    "n={n} id {i}"
                );
            }
            assert_eq!(
                lookup(&ph.seeds, &ph.overflow, &slotted, &ChunkId::new(1, 0, 0, 9)),
                None
            );
        }
    }

    #[test]
    fn engine_sort_sorts() {
        let mut v: Vec<u32> = (0..500u32)
            .map(|i| i.wrapping_mul(2_654_435_761) % 97)
            .collect();
        let mut w = v.clone();
        engine_sort(&mut v, |a, b| a > b);
        w.sort_by(|a, b| b.cmp(a));
        assert_eq!(v, w);
        let mut small = vec![3, 1, 2];
        engine_sort(&mut small, |a, b| a < b);
        assert_eq!(small, vec![1, 2, 3]);
    }

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
