//! UMOD trailer + directory: parse, problems, verify (CRC, manifest
//! cross-check), every member's bytes, and the manifest read from them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let _ = ok(pakrat_umod::read_trailer(data));
    let Some(u) = ok(pakrat_umod::Umod::parse(data)) else {
        return;
    };
    for p in u.problems() {
        let _ = p.to_string();
    }
    let v = u.verify();
    for p in v.errors() {
        pakrat_fuzz::clear(p);
    }
    for e in u.entries.iter() {
        let _ = e.slash_name();
        let _ = ok(u.entry_data(e));
    }
    if let Some(Some(m)) = ok(pakrat_umod::Manifest::from_umod(&u)) {
        for p in m.check_against(&u) {
            let _ = p.to_string();
        }
    }
    let _ = ok(pakrat_umod::extract::check_before_writing(&u, false));
});
