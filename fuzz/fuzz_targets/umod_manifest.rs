//! Manifest.ini / Manifest.int (tolerant INI): the input is split at the
//! first 0x00 0x00 0xFF marker into ini and int parts (whole input = ini).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (ini, int) = match data.windows(3).position(|w| w == [0, 0, 0xFF]) {
        Some(p) => (&data[..p], Some(&data[p + 3..])),
        None => (data, None),
    };
    let m = pakrat_umod::Manifest::parse(ini, int);
    for r in m.records() {
        let _ = r.install_dest();
        let _ = r.member_name();
        let _ = r.decodes_uz();
    }
    let _ = m.display_name();
    let ini = pakrat_umod::ini::Ini::parse(data);
    // Writing back and reading again must not fail either.
    let again = pakrat_umod::ini::Ini::parse(&ini.to_bytes());
    let _ = again.to_bytes();
});
