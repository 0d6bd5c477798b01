//! One pak entry record (issue 10) in full and encoded (v10+) form, for
//! every version and method-slot layout; the first byte picks the layout.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_io::{Reader, Writer};
use pakrat_pak::entry::{Layout, PakEntry};

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let version = u32::from(sel % 15) + 1;
    let l = Layout::of(version, if sel & 0x10 != 0 { 4 } else { 5 });
    if let Some(e) = ok(PakEntry::read_full(&mut Reader::new(rest), l, None)) {
        // What was read writes back to the same bytes.
        let mut w = Writer::new();
        e.write_full(&mut w, l, e.offset);
        let n = w.len();
        assert_eq!(w.as_slice(), &rest[..n], "full entry does not round-trip");
    }
    if let Some(e) = ok(PakEntry::read_encoded(&mut Reader::new(rest), l, sel & 0x20 != 0)) {
        let _ = e.write_encoded(l, sel & 0x20 != 0);
    }
});
