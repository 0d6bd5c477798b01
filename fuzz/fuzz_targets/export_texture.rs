//! Texture exporter: object decoder (properties, mips, comp mips, palette)
//! and PNG encoding of every Texture export.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_package::export::{export_files, ExportOptions, Kind};
use pakrat_package::{texture, Package};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    let opts = ExportOptions {
        kinds: vec![Kind::Texture],
        all_mips: true,
    };
    for i in 0..pkg.exports.len().min(1024) {
        if let Some(t) = ok(texture::read_texture(&pkg, i)) {
            if let Some(p) = texture::palette_export(&pkg, t.palette) {
                let _ = ok(texture::read_palette(&pkg, p));
            }
        }
        let _ = ok(export_files(&pkg, i, &opts));
    }
});
