//! Music exporter: the stored-file object decoder (format name, optional
//! UT2004 duration float, lazy array) and type detection by magic.
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
        kinds: vec![Kind::Music],
        all_mips: false,
        ..Default::default()
    };
    for i in 0..pkg.exports.len().min(4096) {
        if let Some((fmt, bytes)) = ok(pakrat_classic::export::read_stored_file(&pkg, i, false)) {
            let _ = pakrat_classic::export::sound_type(bytes, &fmt);
            let _ = pakrat_classic::export::music_type(bytes);
        }
        // The dry run (paths only, used to refuse existing outputs up
        // front) names exactly the files the export makes.
        if let Some(Made::Files(_, files)) = ok(export_files(&pkg, i, &opts)) {
            let made: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
            assert_eq!(export_paths(&pkg, &[i], &opts), made);
        }
    }
});
