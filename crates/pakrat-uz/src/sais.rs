//! Suffix array construction by induced sorting (SA-IS, Nong, Zhang & Chan
//! 2009), linear time, used by the `.uz` BWT encoder.
//!
//! The text must end with a unique smallest symbol (`0`); every other symbol
//! is in `1..k`. The result lists every suffix start, smallest first.

const EMPTY: u32 = u32::MAX;

/// Suffix array of `t` (alphabet `0..k`, `t` ends with a unique `0`).
pub(crate) fn suffix_array(t: &[u32], k: usize) -> Vec<u32> {
    let mut sa = vec![EMPTY; t.len()];
    sais(t, &mut sa, k);
    sa
}

fn bucket_bounds(t: &[u32], k: usize) -> (Vec<u32>, Vec<u32>) {
    let mut count = vec![0u32; k];
    for &c in t {
        count[c as usize] += 1;
    }
    let mut heads = vec![0u32; k];
    let mut tails = vec![0u32; k];
    let mut sum = 0u32;
    for c in 0..k {
        heads[c] = sum;
        sum += count[c];
        tails[c] = sum;
    }
    (heads, tails)
}

fn induce(t: &[u32], sa: &mut [u32], stype: &[bool], heads: &[u32], tails: &[u32]) {
    let n = t.len();
    // L-type suffixes, left to right from bucket heads.
    let mut h = heads.to_vec();
    for i in 0..n {
        let j = sa[i];
        if j != EMPTY && j > 0 && !stype[j as usize - 1] {
            let c = t[j as usize - 1] as usize;
            sa[h[c] as usize] = j - 1;
            h[c] += 1;
        }
    }
    // S-type suffixes, right to left from bucket tails.
    let mut tl = tails.to_vec();
    for i in (0..n).rev() {
        let j = sa[i];
        if j != EMPTY && j > 0 && stype[j as usize - 1] {
            let c = t[j as usize - 1] as usize;
            tl[c] -= 1;
            sa[tl[c] as usize] = j - 1;
        }
    }
}

fn sais(t: &[u32], sa: &mut [u32], k: usize) {
    let n = t.len();
    if n == 1 {
        sa[0] = 0;
        return;
    }
    // Suffix types: S if smaller than the next suffix.
    let mut stype = vec![false; n];
    stype[n - 1] = true;
    for i in (0..n - 1).rev() {
        stype[i] = t[i] < t[i + 1] || (t[i] == t[i + 1] && stype[i + 1]);
    }
    let is_lms = |i: usize| i > 0 && stype[i] && !stype[i - 1];
    let (heads, tails) = bucket_bounds(t, k);

    // 1. Sort LMS substrings: put LMS positions at bucket tails, induce.
    sa.fill(EMPTY);
    let mut tl = tails.clone();
    for (i, &c) in t.iter().enumerate().skip(1) {
        if is_lms(i) {
            let c = c as usize;
            tl[c] -= 1;
            sa[tl[c] as usize] = i as u32;
        }
    }
    induce(t, sa, &stype, &heads, &tails);

    // 2. Name the sorted LMS substrings.
    let sorted_lms: Vec<u32> = sa
        .iter()
        .copied()
        .filter(|&p| p != EMPTY && is_lms(p as usize))
        .collect();
    let m = sorted_lms.len();
    let mut name_of = vec![EMPTY; n];
    let mut names = 0u32;
    let mut prev: Option<usize> = None;
    for &p in &sorted_lms {
        let p = p as usize;
        let same = prev.is_some_and(|q| lms_equal(t, &stype, q, p));
        if !same {
            names += 1;
        }
        name_of[p] = names - 1;
        prev = Some(p);
    }
    // LMS positions in text order, and the reduced string of their names.
    let lms_pos: Vec<u32> = (1..n).filter(|&i| is_lms(i)).map(|i| i as u32).collect();
    let reduced: Vec<u32> = lms_pos.iter().map(|&p| name_of[p as usize]).collect();

    // 3. Sort the reduced string (recursively when names repeat).
    let mut sa1 = vec![EMPTY; m];
    if (names as usize) < m {
        sais(&reduced, &mut sa1, names as usize);
    } else {
        for (i, &c) in reduced.iter().enumerate() {
            sa1[c as usize] = i as u32;
        }
    }

    // 4. Place LMS suffixes in their true order, induce the rest.
    sa.fill(EMPTY);
    let mut tl = tails.clone();
    for &r in sa1.iter().rev() {
        let p = lms_pos[r as usize];
        let c = t[p as usize] as usize;
        tl[c] -= 1;
        sa[tl[c] as usize] = p;
    }
    induce(t, sa, &stype, &heads, &tails);
}

/// Whether the LMS substrings starting at `a` and `b` are equal (same
/// symbols and types up to and including the next LMS position).
fn lms_equal(t: &[u32], stype: &[bool], a: usize, b: usize) -> bool {
    let n = t.len();
    if a == n - 1 || b == n - 1 {
        return a == b;
    }
    let is_lms = |i: usize| i > 0 && stype[i] && !stype[i - 1];
    let mut i = 0;
    loop {
        let (x, y) = (a + i, b + i);
        if x >= n || y >= n || t[x] != t[y] || stype[x] != stype[y] {
            return false;
        }
        if i > 0 {
            let (lx, ly) = (is_lms(x), is_lms(y));
            if lx || ly {
                return lx && ly;
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(t: &[u32]) -> Vec<u32> {
        let mut v: Vec<u32> = (0..t.len() as u32).collect();
        v.sort_by(|&a, &b| t[a as usize..].cmp(&t[b as usize..]));
        v
    }

    #[test]
    fn matches_naive_sort() {
        let mut seed = 12345u64;
        for len in 0..200usize {
            for alpha in [2u32, 3, 5, 256] {
                let mut t: Vec<u32> = (0..len)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        1 + ((seed >> 33) as u32 % alpha)
                    })
                    .collect();
                t.push(0);
                assert_eq!(suffix_array(&t, alpha as usize + 1), naive(&t), "{t:?}");
            }
        }
        let mut t = vec![1u32; 1000];
        t.push(0);
        assert_eq!(suffix_array(&t, 2), naive(&t));
    }
}
