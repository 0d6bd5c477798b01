//! `FPackageFileSummary` alone, under each layout a user can give: a summary
//! that reads writes back to bytes that read as the same summary.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_io::{Reader, Writer};
use pakrat_asset::legacy::{Layout, Summary};

fuzz_target!(|data: &[u8]| {
    for fallback in [
        None,
        Layout::for_engine("5.8"),
        Layout::for_engine("5.4"),
        Layout::for_engine("4.27"),
        Layout::for_engine("4.14"),
    ] {
        let mut r = Reader::new(data);
        if let Some((s, layout)) = ok(Summary::read(&mut r, fallback)) {
            let mut w = Writer::new();
            s.write(&mut w);
            let bytes = w.into_inner();
            let (back, l2) = Summary::read(&mut Reader::new(&bytes), Some(layout))
                .expect("a written summary reads back");
            assert_eq!(back, s);
            assert_eq!(l2.ue4, layout.ue4);
            assert_eq!(l2.ue5, layout.ue5);
        }
    }
});
