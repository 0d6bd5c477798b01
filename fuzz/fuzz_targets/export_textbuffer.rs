//! TextBuffer exporter: Pos, Top and the script text of every export.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_package::export::{export_files, ExportOptions, Kind};
use pakrat_package::Package;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    let opts = ExportOptions {
        kinds: vec![Kind::TextBuffer],
        all_mips: false,
    };
    for i in 0..pkg.exports.len().min(4096) {
        let _ = ok(pakrat_package::export::read_text_buffer(&pkg, i));
        let _ = ok(export_files(&pkg, i, &opts));
    }
});
