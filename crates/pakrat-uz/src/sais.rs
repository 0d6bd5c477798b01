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
    let mut next_s = true;
    for i in (0..n - 1).rev() {
        // Branch-free: S if smaller than the next symbol, or equal and the
        // next one is S.
        next_s = (t[i] < t[i + 1]) | ((t[i] == t[i + 1]) & next_s);
        stype[i] = next_s;
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

    // 2. Name the sorted LMS substrings. Two are equal when they have the
    // same length and the same symbols (the types then agree too, as both
    // end in an LMS position at the same distance).
    let lms_pos: Vec<u32> = (1..n).filter(|&i| is_lms(i)).map(|i| i as u32).collect();
    // `aux[p]` = length of the LMS substring at `p` (up to the next LMS
    // position), later reused for its name.
    let mut aux = vec![0u32; n];
    for w in lms_pos.windows(2) {
        aux[w[0] as usize] = w[1] - w[0];
    }
    let sorted_lms: Vec<u32> = sa
        .iter()
        .copied()
        .filter(|&p| p != EMPTY && is_lms(p as usize))
        .collect();
    let m = sorted_lms.len();
    let mut names = 0u32;
    let mut prev: Option<(usize, usize)> = None;
    let mut named: Vec<(u32, u32)> = Vec::with_capacity(m);
    for &p in &sorted_lms {
        let p = p as usize;
        let len = aux[p] as usize;
        // The sentinel (len 0) is unique; so is every substring reaching it.
        let same =
            len > 0 && prev.is_some_and(|(q, ql)| ql == len && t[q..=q + len] == t[p..=p + len]);
        if !same {
            names += 1;
        }
        named.push((p as u32, names - 1));
        prev = Some((p, len));
    }
    for (p, name) in named {
        aux[p as usize] = name;
    }
    let reduced: Vec<u32> = lms_pos.iter().map(|&p| aux[p as usize]).collect();

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

    #[test]
    fn deep_recursion_inputs() {
        // Fibonacci word and periodic strings make the reduced strings
        // repeat at every level.
        let (mut a, mut b) = (vec![1u32], vec![1u32, 2]);
        while b.len() < 3000 {
            let next = [b.clone(), a].concat();
            a = b;
            b = next;
        }
        let periodic: Vec<u32> = (0..3000).map(|i| [1, 2, 3, 1, 2, 4][i % 6]).collect();
        let squares: Vec<u32> = (0..3000u32).map(|i| 1 + (i * i % 7)).collect();
        for mut t in [b, periodic, squares] {
            t.push(0);
            assert_eq!(suffix_array(&t, 8), naive(&t));
        }
    }
}
