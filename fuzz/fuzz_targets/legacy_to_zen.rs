//! Legacy → zen: a legacy header (and export data) that reads and converts
//! gives a zen package that parses again, with the same export count.
//! Input: u32 little-endian header length, the `.uasset`, then the `.uexp`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_asset::convert::{from_legacy, ZenTarget};
use pakrat_asset::legacy::{Layout, LegacyPackage};
use pakrat_asset::zen;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
    let rest = &data[4..];
    let (asset, uexp) = rest.split_at(n.min(rest.len()));
    let Some(p) = ok(LegacyPackage::read(asset, Layout::for_engine("5.8"))) else {
        return;
    };
    if let Some(z) = ok(from_legacy(&p, uexp, None, ZenTarget::for_layout(p.layout))) {
        let back = zen::parse(&z.chunk, z.package.layout, None).expect("written zen parses");
        assert_eq!(back.exports.len(), p.exports.len());
        assert_eq!(back.names, z.package.names);
    }
});
