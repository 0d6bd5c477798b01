//! Texture exporter: object decoder (properties, mips, comp mips, palette)
//! of every Texture export, and the whole export (pixels + PNG) of those
//! up to 256×256. Bigger ones only spend time in pixel decoding and the PNG
//! encoder, which `texture_pixels` fuzzes on its own: exporting every
//! texture of a seed package made this target run ~8 inputs a second.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_fuzz::ok;
use pakrat_classic::export::{export_files, export_paths, ExportOptions, Kind, Made};
use pakrat_classic::{texture, Package};

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    let opts = ExportOptions {
        kinds: vec![Kind::Texture],
        all_mips: true,
        ..Default::default()
    };
    for i in 0..pkg.exports.len().min(1024) {
        let small = match ok(texture::read_texture(&pkg, i)) {
            Some(t) => {
                if let Some(p) = texture::palette_export(&pkg, t.palette) {
                    let _ = ok(texture::read_palette(&pkg, p));
                }
                u64::from(t.size.0) * u64::from(t.size.1) <= 256 * 256
            }
            None => true, // not a texture: the exporter refuses it quickly
        };
        if small {
            // The dry run (paths only, used to refuse existing outputs up
            // front) names exactly the files the export makes.
            if let Some(Made::Files(_, files)) = ok(export_files(&pkg, i, &opts)) {
                let made: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
                assert_eq!(export_paths(&pkg, &[i], &opts), made);
            }
        }
    }
});
