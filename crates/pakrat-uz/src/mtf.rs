//! The `.uz` move-to-front stage (`FCodecMTF`, UT432 `Core/Inc/FCodec.h`):
//! a 256-entry list starting as `0..=255`; each byte is coded as its index in
//! the list, which then moves to the front. Every byte is a valid index, so
//! decoding cannot fail.

fn identity() -> [u8; 256] {
    let mut list = [0u8; 256];
    for (i, v) in list.iter_mut().enumerate() {
        *v = i as u8;
    }
    list
}

/// MTF-encode `data`.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut list = identity();
    let mut out = vec![0u8; data.len()];
    for (o, &b) in out.iter_mut().zip(data) {
        // BWT output is mostly runs: index 0 needs no move at all.
        if list[0] == b {
            *o = 0;
            continue;
        }
        // Shift entries right until `b` is found (most indices are tiny, so
        // this beats a search followed by a memmove).
        let mut prev = list[0];
        let mut i = 0usize;
        while prev != b {
            i += 1;
            std::mem::swap(&mut list[i], &mut prev);
        }
        list[0] = b;
        *o = i as u8;
    }
    out
}

/// MTF-decode `data`.
pub fn decode(data: &[u8]) -> Vec<u8> {
    let mut list = identity();
    let mut out = vec![0u8; data.len()];
    for (o, &i) in out.iter_mut().zip(data) {
        let i = i as usize;
        let c = list[i];
        let mut j = i;
        while j > 0 {
            list[j] = list[j - 1];
            j -= 1;
        }
        list[0] = c;
        *o = c;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..2000u32).map(|i| (i * i % 251) as u8).collect();
        assert_eq!(super::decode(&super::encode(&data)), data);
        assert_eq!(super::encode(&[5, 5, 0, 5]), vec![5, 0, 1, 1]);
    }
}
