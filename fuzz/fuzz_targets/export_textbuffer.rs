//! TextBuffer exporter: Pos, Top and the script text of every export.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_classic::export::{export_files, export_paths, ExportOptions, Kind, Made};
use pakrat_classic::Package;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    let opts = ExportOptions {
        kinds: vec![Kind::TextBuffer],
        all_mips: false,
        ..Default::default()
    };
    for i in 0..pkg.exports.len().min(4096) {
        let _ = ok(pakrat_classic::export::read_text_buffer(&pkg, i));
        // The dry run (paths only, used to refuse existing outputs up
        // front) names exactly the files the export makes.
        if let Some(Made::Files(_, files)) = ok(export_files(&pkg, i, &opts)) {
            let made: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
            assert_eq!(export_paths(&pkg, &[i], &opts), made);
        }
    }
});
