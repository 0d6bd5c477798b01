//! UE2 material exporter (Shader, Combiner, FinalBlend...): the JSON of
//! every material export, its base colour followed through the material
//! chain (bounded, cycle-safe), and the dry run naming the same files.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pakrat_classic::export::{export_files, export_paths, ExportOptions, Kind, Made};
use pakrat_classic::{ObjRef, Package};
use pakrat_fuzz::ok;

fuzz_target!(|data: &[u8]| {
    let Some(pkg) = ok(Package::parse_lenient(data)) else {
        return;
    };
    let opts = ExportOptions {
        kinds: vec![Kind::Material],
        package: "Fuzz".into(),
        ..Default::default()
    };
    for i in 0..pkg.exports.len().min(4096) {
        let _ = pakrat_classic::material::base_texture_ref(&pkg, ObjRef::export(i));
        if let Some(Made::Files(_, files)) = ok(export_files(&pkg, i, &opts)) {
            for f in &files {
                serde_json::from_slice::<serde_json::Value>(&f.1).expect("material JSON parses");
            }
            let made: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
            assert_eq!(export_paths(&pkg, &[i], &opts), made);
        }
    }
});
