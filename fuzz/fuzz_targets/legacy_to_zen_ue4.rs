//! Legacy → zen in the UE 4.27 layout: a UE 4.27 legacy header (and export
//! data) that reads and converts gives a UE4 zen package that parses again
//! with its store entry, with the same exports and names.
//! Input: u32 little-endian header length, the `.uasset`, then the `.uexp`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_asset::convert::from_legacy_ue4;
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen::{self, ZenLayout};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
    let rest = &data[4..];
    let (asset, uexp) = rest.split_at(n.min(rest.len()));
    let Some(p) = ok(LegacyPackage::read(asset, Layout::for_engine("4.27"))) else {
        return;
    };
    if let Some(z) = ok(from_legacy_ue4(&p, uexp, "/Game/Fuzz/Package")) {
        let back = zen::parse(&z.chunk, ZenLayout::Ue4, z.store_entry.as_ref())
            .expect("written UE4 zen parses");
        assert_eq!(back.exports.len(), p.exports.len());
        assert_eq!(back.names.len(), p.names.len());
    }
});
