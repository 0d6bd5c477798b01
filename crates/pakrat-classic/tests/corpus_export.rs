//! Exporters on the whole corpus: textures → PNG of USize×VSize, music →
//! module whose magic matches its extension, script text → .uc files.

use pakrat_classic::export::{export_objects, music_type, ExportOptions, Kind, Outcome, SkipCause};
use pakrat_classic::props::{read_object, Value};
use pakrat_classic::Package;
use pakrat_io::fsutil::OutputDir;

fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |o: usize| u32::from_be_bytes(bytes[o..o + 4].try_into().unwrap());
    (be(16), be(20))
}

fn int_prop(p: &Package<'_>, i: usize, name: &str) -> Option<u32> {
    let o = read_object(p, i).ok()?;
    match o.get(p, name)?.value {
        Value::Int(v) => Some(v as u32),
        _ => None,
    }
}

#[test]
fn corpus_exports() {
    let mut textures = 0;
    let mut modules = 0;
    let mut scripts = 0;
    let mut sounds = 0;
    let mut stripped = 0;
    let mut procedural = 0;
    let mut comp = 0;
    let mut foreign_palette = 0;
    let mut filler = 0;
    let mut failures = Vec::new();
    let mut formats = std::collections::BTreeMap::new();
    for kind in ["ue1", "ue2"] {
        let Some(entries) = pakrat_testkit::entries(kind) else {
            return;
        };
        for e in entries.iter().filter(|e| !e.is_negative()) {
            let data = std::fs::read(&e.path).unwrap();
            let p = Package::parse(&data).unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let out = OutputDir::create(tmp.path(), false).unwrap();
            let reports = export_objects(&p, &[], &out, &ExportOptions::default());
            let mut uc_files = 0;
            let mut has_script = false;
            for r in &reports {
                match (&r.outcome, r.class.as_str()) {
                    (Outcome::Exported { files }, "Texture") => {
                        let f = &files[0];
                        let bytes = std::fs::read(tmp.path().join(&f.path)).unwrap();
                        let (w, h) = png_size(&bytes);
                        let want = (
                            int_prop(&p, r.index, "USize").unwrap(),
                            int_prop(&p, r.index, "VSize").unwrap(),
                        );
                        assert_eq!((w, h), want, "{} {}", e.local_path, r.object);
                        // UE1 bHasComp: the compressed mip set exports too, same size.
                        for c in files.iter().skip(1) {
                            assert!(c.path.ends_with("_comp.png"), "{}", c.path);
                            let bytes = std::fs::read(tmp.path().join(&c.path)).unwrap();
                            assert_eq!(png_size(&bytes), want, "{} {}", e.local_path, c.path);
                            comp += 1;
                        }
                        let fmt = f
                            .detail
                            .split(" = ")
                            .nth(1)
                            .unwrap_or("")
                            .split(' ')
                            .next()
                            .unwrap_or("")
                            .to_string();
                        *formats.entry(fmt).or_insert(0) += 1;
                        textures += 1;
                    }
                    (Outcome::Exported { files }, "Music") => {
                        let f = &files[0];
                        let bytes = std::fs::read(tmp.path().join(&f.path)).unwrap();
                        let ext = f.path.rsplit('.').next().unwrap();
                        assert_eq!(music_type(&bytes).0, ext);
                        assert_ne!(ext, "umx", "{}: unrecognised module", e.local_path);
                        if e.local_path.ends_with(".umx") {
                            assert!(
                                ["it", "s3m", "xm", "mod"].contains(&ext),
                                "{}",
                                e.local_path
                            );
                        }
                        modules += 1;
                    }
                    (Outcome::Exported { files }, "TextBuffer") => {
                        has_script |= r.object.ends_with(".ScriptText");
                        if files[0].path.ends_with(".uc") {
                            let bytes = std::fs::read(tmp.path().join(&files[0].path)).unwrap();
                            assert!(!bytes.is_empty());
                            uc_files += 1;
                        }
                        scripts += 1;
                    }
                    (Outcome::Exported { .. }, "Sound") => sounds += 1,
                    // Nothing to export by design: skipped, not failed.
                    (
                        Outcome::Skipped {
                            cause: SkipCause::Content,
                            reason,
                        },
                        _,
                    ) if reason.starts_with("stripped") => stripped += 1,
                    (
                        Outcome::Skipped {
                            cause: SkipCause::Content,
                            reason,
                        },
                        _,
                    ) if reason.starts_with("procedural") => {
                        assert!(r.class.ends_with("Texture"), "{}", r.class);
                        procedural += 1
                    }
                    // P8 textures whose palette lives in another package
                    // (genfluid.utx, Detail.utx are not in the corpus).
                    (
                        Outcome::Skipped {
                            cause: SkipCause::Content,
                            reason,
                        },
                        _,
                    ) if reason.contains("lives in another package") => foreign_palette += 1,
                    (
                        Outcome::Skipped {
                            cause: SkipCause::Content,
                            reason,
                        },
                        _,
                    ) => failures.push(format!("{}: unexpected skip: {reason}", r.object)),
                    // The one real exception, counted below: the 10-byte
                    // filler ScriptTexts of ACE/NPLoader.
                    (Outcome::Failed { .. }, "TextBuffer")
                        if p.export_data(r.index).unwrap() == b"        \x01\x00" =>
                    {
                        filler += 1
                    }
                    (Outcome::Failed { error }, class) => {
                        failures.push(format!("{} {} ({class}): {error}", e.local_path, r.object))
                    }
                    _ => {}
                }
            }
            if e.local_path.ends_with(".umx") {
                // Cannon.umx (204 bytes) is a server-stripped copy whose
                // module data is empty: the one real exception.
                let ok = reports.iter().any(|r| {
                    r.class == "Music"
                        && match &r.outcome {
                            Outcome::Exported { .. } => true,
                            Outcome::Skipped { reason, .. } => {
                                e.local_path.ends_with("Cannon.umx")
                                    && reason.starts_with("stripped")
                            }
                            _ => false,
                        }
                });
                assert!(ok, "{}", e.local_path);
            }
            if has_script {
                assert!(uc_files > 0, "{}", e.local_path);
            }
        }
    }
    eprintln!("{foreign_palette} textures with a palette in another package, {filler} filler script texts, {procedural} procedural textures");
    assert_eq!((foreign_palette, filler, procedural), (16, 21, 7));
    assert!(comp >= 10, "{comp} compressed mip sets");
    eprintln!("{comp} compressed (bHasComp) mip sets");
    eprintln!("{textures} textures, {modules} modules, {scripts} script texts, {sounds} sounds, {stripped} stripped; formats {formats:?}");
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(
        textures > 500 && modules >= 4 && scripts > 500,
        "{textures} {modules} {scripts}"
    );
    let _ = Kind::Texture;
    assert!(failures.is_empty(), "{} failures", failures.len());
}
