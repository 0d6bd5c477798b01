//! Global container ScriptObjects chunk (UE5) and the UE4 loader chunks
//! (the input split in three at 0xFE bytes).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_asset::zen::{ObjectIndex, ScriptObjects};

fuzz_target!(|data: &[u8]| {
    if let Some(s) = ok(ScriptObjects::parse(data)) {
        for i in 0..64u64 {
            let _ = s.path(ObjectIndex(i));
        }
    }
    let mut parts = data.split(|&b| b == 0xFE);
    let (a, b, c) = (
        parts.next().unwrap_or(&[]),
        parts.next().unwrap_or(&[]),
        parts.next().unwrap_or(&[]),
    );
    let _ = ok(ScriptObjects::parse_ue4(a, b, c));
});
