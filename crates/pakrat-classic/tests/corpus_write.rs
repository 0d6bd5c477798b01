//! The package writer on the corpus: unchanged, every UE1/UE2 package it
//! can read is written back byte for byte; edits keep every object's data
//! and everything else the reader sees.

use pakrat_classic::write::Rewrite;
use pakrat_classic::Package;

fn packages() -> Option<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for kind in ["ue1", "ue2", "licensee"] {
        let entries = pakrat_testkit::entries(kind)?;
        for e in entries.iter().filter(|e| !e.is_negative()) {
            out.push((e.local_path.clone(), std::fs::read(&e.path).unwrap()));
        }
    }
    Some(out)
}

#[test]
fn unchanged_write_is_byte_identical() {
    let Some(files) = packages() else { return };
    let mut same = 0;
    let mut unread = Vec::new();
    for (path, data) in &files {
        let Ok(p) = Package::parse(data) else {
            unread.push(path.clone());
            continue;
        };
        let out = Rewrite::new(&p)
            .to_bytes()
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        if out != *data {
            let at = out.iter().zip(data).position(|(a, b)| a != b);
            panic!(
                "{path}: written file differs (lengths {} / {}, first difference at {at:?})",
                out.len(),
                data.len()
            );
        }
        same += 1;
    }
    eprintln!("{same} packages written back byte for byte; not read: {unread:?}");
    // 112 UE1/UE2 packages and the 50 licensee ones stored unencrypted.
    assert!(same >= 162, "only {same} packages");
}

/// The tables as the reader sees them, without file positions.
fn tables(p: &Package<'_>) -> String {
    let imports: Vec<_> = p
        .imports
        .iter()
        .map(|i| (i.class_package, i.class_name, i.outer, i.object_name))
        .collect();
    let exports: Vec<_> = p
        .exports
        .iter()
        .map(|e| {
            (
                e.class,
                e.super_,
                e.outer,
                e.object_name,
                e.flags,
                e.serial_size,
                e.serial_offset,
            )
        })
        .collect();
    format!("{:?} {imports:?} {exports:?}", p.names)
}

/// What the reader sees of a package, without file positions.
fn model(p: &Package<'_>) -> String {
    let s = &p.summary;
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {}",
        s.version,
        s.licensee,
        s.package_flags,
        s.guid,
        s.generations,
        s.heritage,
        tables(p)
    )
}

#[test]
fn every_entry_encoded_anew_reads_the_same() {
    // The serialiser alone (no entry copied from the original): the file
    // reads back as the same model, and is byte-identical wherever the
    // original used the shortest encodings (all but a few files).
    let Some(files) = packages() else { return };
    let (mut identical, mut differ) = (0, Vec::new());
    for (path, data) in &files {
        let Ok(p) = Package::parse(data) else {
            continue;
        };
        let mut w = Rewrite::new(&p);
        w.reencode_all();
        let out = w.to_bytes().unwrap();
        let q = Package::parse(&out).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(model(&p), model(&q), "{path}");
        if out == *data {
            identical += 1;
        } else {
            differ.push(path.clone());
        }
    }
    eprintln!("re-encoded: {identical} byte-identical, differ: {differ:?}");
    assert!(identical >= 100, "{identical}");
}

/// Everything pakrat decodes from export `i`: properties (with their name
/// indices), state frame, native data, and the exported files. `rename`
/// maps the renamed name back in exported paths.
fn decoded(p: &Package<'_>, i: usize, rename: Option<(&str, &str)>) -> String {
    use pakrat_classic::export::{export_files, ExportOptions, Made};
    let obj = match pakrat_classic::props::read_object(p, i) {
        Ok(o) => format!(
            "{:?} {:?} {:?}",
            o.state_frame,
            o.properties,
            o.native.rest()
        ),
        Err(e) => format!("error {e}"),
    };
    let files = match export_files(p, i, &ExportOptions::default()) {
        Ok(Made::Files(k, files)) => files
            .into_iter()
            .map(|(path, bytes, detail)| {
                // Text outputs (material JSON, script text) name objects: the
                // renamed name is read back as the old one there too.
                let (path, detail, bytes) = match rename {
                    Some((old, new)) => {
                        let bytes = match std::str::from_utf8(&bytes) {
                            Ok(t) => t.replace(new, old).into_bytes(),
                            Err(_) => bytes,
                        };
                        (path.replace(new, old), detail.replace(new, old), bytes)
                    }
                    None => (path, detail, bytes),
                };
                format!("{k:?} {path} {detail} {:x?}", blake(&bytes))
            })
            .collect::<Vec<_>>()
            .join("; "),
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("error {e}"),
    };
    format!("{obj} | {files}")
}

/// A short fingerprint of exported bytes (the comparison is exact: equal
/// lengths and a 64-bit FNV over all of them).
fn blake(b: &[u8]) -> (usize, u64) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h = (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3);
    }
    (b.len(), h)
}

/// A name to rename in `p`: the object name of a texture, sound or music
/// export (else of a function or state) that no import uses and that is
/// not a class name.
fn name_to_rename(p: &Package<'_>) -> Option<u32> {
    let used_by_imports: std::collections::HashSet<u32> = p
        .imports
        .iter()
        .flat_map(|i| [i.class_package, i.class_name, i.object_name])
        .collect();
    let class_names: std::collections::HashSet<u32> = p
        .exports
        .iter()
        .filter(|e| e.class.is_none())
        .map(|e| e.object_name)
        .collect();
    let ok = |n: u32| {
        !used_by_imports.contains(&n)
            && !class_names.contains(&n)
            && !p.name(n).chars().any(char::is_control)
            && p.exports.iter().filter(|e| e.object_name == n).count() == 1
    };
    let media = (0..p.exports.len()).rev().find(|&i| {
        matches!(
            p.export_class_name(i).unwrap_or(""),
            "Texture" | "Sound" | "Music"
        ) && ok(p.exports[i].object_name)
    });
    // Else a function or state name (code objects; names such as
    // `ScriptText` decide how an object exports, so they are not renamed).
    let code = || {
        (0..p.exports.len()).rev().find(|&i| {
            matches!(p.export_class_name(i).unwrap_or(""), "Function" | "State")
                && ok(p.exports[i].object_name)
        })
    };
    media.or_else(code).map(|i| p.exports[i].object_name)
}

#[test]
fn rename_name_keeps_every_object() {
    // Rename one object name to a longer one (the name table no longer fits
    // and moves to the end): every object decodes and exports exactly as
    // before, and only that name changed.
    let Some(files) = packages() else { return };
    let mut checked = 0;
    let mut moved = 0;
    for (path, data) in files.iter().filter(|(p, _)| p.starts_with("ue")) {
        let Ok(p) = Package::parse(data) else {
            continue;
        };
        let Some(n) = name_to_rename(&p) else {
            continue;
        };
        let old = p.name(n).to_string();
        let new: String = format!("{old}_renamed_by_pakrat_test")
            .chars()
            .take(63)
            .collect();
        let mut w = Rewrite::new(&p);
        if w.find_name(&new).is_some() {
            continue;
        }
        w.rename_name(&old, &new).unwrap();
        let (out, placed) = w.write().unwrap();
        moved += usize::from(placed[0].moved);
        let q = Package::parse(&out).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(q.names.len(), p.names.len());
        for (k, (a, b)) in p.names.iter().zip(&q.names).enumerate() {
            if k == n as usize {
                assert_eq!(b.text, new.as_str(), "{path}");
            } else {
                assert_eq!(a, b, "{path}: name {k}");
            }
        }
        for i in 0..p.exports.len() {
            assert_eq!(
                decoded(&p, i, None),
                decoded(&q, i, Some((&old, &new))),
                "{path}: export {i}"
            );
        }
        checked += 1;
    }
    eprintln!("rename-name: {checked} packages checked, name table moved in {moved}");
    // 94 of the 112 UE1/UE2 packages have a texture, sound, music, function
    // or state name to rename.
    assert!(checked >= 90, "{checked}");
}

#[test]
fn strip_empties_script_source_only() {
    let Some(files) = packages() else { return };
    let mut stripped_packages = 0;
    for (path, data) in files.iter().filter(|(p, _)| p.starts_with("ue")) {
        let Ok(p) = Package::parse(data) else {
            continue;
        };
        let mut w = Rewrite::new(&p);
        let r = w.strip_source(&p).unwrap();
        if r.stripped.is_empty() {
            continue;
        }
        let out = w.to_bytes().unwrap();
        assert_eq!(out.len(), data.len(), "{path}: nothing moves");
        let q = Package::parse(&out).unwrap();
        let mut emptied = 0;
        for i in 0..p.exports.len() {
            let is_source = p.export_class_name(i).unwrap() == "TextBuffer"
                && p.name(p.exports[i].object_name) == "ScriptText";
            if is_source && r.stripped.contains(&p.export_path(i).unwrap()) {
                let (pos, top, text) = pakrat_classic::export::read_text_buffer(&q, i).unwrap();
                let (pos0, top0, _) = pakrat_classic::export::read_text_buffer(&p, i).unwrap();
                assert_eq!((pos, top, text.text.as_str()), (pos0, top0, ""), "{path}");
                emptied += 1;
            } else {
                assert_eq!(
                    decoded(&p, i, None),
                    decoded(&q, i, None),
                    "{path}: export {i}"
                );
            }
        }
        assert_eq!(emptied, r.stripped.len());
        stripped_packages += 1;
    }
    eprintln!("strip: {stripped_packages} packages with script source");
    assert!(stripped_packages >= 10);
}

#[test]
fn new_generation_grows_the_header_into_the_moved_name_table() {
    let Some(files) = packages() else { return };
    let mut checked = 0;
    for (path, data) in files.iter().filter(|(p, _)| p.starts_with("ue")) {
        let Ok(p) = Package::parse(data) else {
            continue;
        };
        let mut w = Rewrite::new(&p);
        let g = pakrat_io::Guid {
            words: [1, 2, 3, checked],
        };
        w.new_generation(g);
        let out = match w.to_bytes() {
            Ok(o) => o,
            // Object data right after the header: refused, never corrupted.
            Err(e) => {
                assert!(e.to_string().contains("header must grow"), "{path}: {e}");
                continue;
            }
        };
        let q = Package::parse(&out).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(q.summary.guid, g);
        if p.summary.version >= 68 {
            assert_eq!(q.summary.generations.len(), p.summary.generations.len() + 1);
        } else {
            assert_eq!(q.summary.heritage.len(), p.summary.heritage.len() + 1);
        }
        // The tables read the same (the header's GUID and generations changed).
        assert_eq!(tables(&p), tables(&q), "{path}");
        checked += 1;
    }
    assert!(checked >= 100, "{checked}");
}

#[test]
fn a_map_whose_texture_package_was_renamed_is_the_same_map() {
    // DM-Longestyard][ imports Longestyard.utx: repoint the import to a new
    // name; every object of the map decodes as before and the import now
    // names the new package.
    let Some(c) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let data = std::fs::read(c.join("ue1/DM-Longestyard][.unr")).unwrap();
    let p = Package::parse(&data).unwrap();
    let mut w = Rewrite::new(&p);
    assert_eq!(
        w.rename_imported_package("Longestyard", "LongestyardTex")
            .unwrap(),
        1
    );
    let out = w.to_bytes().unwrap();
    let q = Package::parse(&out).unwrap();
    let before = p.imported_packages();
    let after = q.imported_packages();
    assert_eq!(before.len(), after.len());
    assert!(after.contains(&"LongestyardTex") && !after.contains(&"Longestyard"));
    // The name itself is still there for its other uses, unchanged.
    assert!(q.names.iter().any(|n| n.text == "Longestyard"));
    for i in 0..p.exports.len() {
        assert_eq!(decoded(&p, i, None), decoded(&q, i, None), "export {i}");
        assert_eq!(p.export_path(i).unwrap(), q.export_path(i).unwrap());
    }
    // Objects imported from it resolve to the new package.
    let moved: Vec<String> = (0..q.imports.len())
        .filter_map(|i| q.object_path(pakrat_classic::ObjRef::import(i)).ok())
        .filter(|p| p.starts_with("LongestyardTex."))
        .collect();
    assert_eq!(moved.len(), 4, "{moved:?}");
}

/// What `tests/classic_ref.py` (an independent reader written from the
/// format notes) sees in `p`, in its JSON shape.
fn as_ref_json(p: &Package<'_>) -> serde_json::Value {
    let s = &p.summary;
    serde_json::json!({
        "version": s.version,
        "licensee": s.licensee,
        "flags": s.package_flags,
        "guid": s.guid.to_string(),
        "generations": s.generations.iter().map(|g| [g.export_count, g.name_count]).collect::<Vec<_>>(),
        "heritage": s.heritage.iter().map(|g| g.to_string()).collect::<Vec<_>>(),
        "names": p.names.iter().map(|n| serde_json::json!([n.text, n.flags])).collect::<Vec<_>>(),
        "imports": p.imports.iter().map(|i| serde_json::json!([i.class_package, i.class_name, i.outer.0, i.object_name])).collect::<Vec<_>>(),
        "exports": p.exports.iter().map(|e| serde_json::json!([e.class.0, e.super_.0, e.outer.0, e.object_name, e.flags, e.serial_size, e.serial_offset])).collect::<Vec<_>>(),
    })
}

#[test]
fn an_independent_reader_reads_what_the_writer_wrote() {
    // Every UE1/UE2 corpus package, edited so that the writer's paths all
    // run: a longer name (the name table moves to the end), a new
    // generation (the header grows over the freed table), script source
    // stripped (objects shrink in place). The independent reader must see
    // exactly the tables pakrat reads back.
    let Some(files) = packages() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    let mut paths = Vec::new();
    for (k, (path, data)) in files
        .iter()
        .filter(|(p, _)| p.starts_with("ue"))
        .enumerate()
    {
        let Ok(p) = Package::parse(data) else {
            continue;
        };
        let mut w = Rewrite::new(&p);
        if let Some(n) = name_to_rename(&p) {
            let old = p.name(n).to_string();
            let new: String = format!("{old}_renamed_by_pakrat_test")
                .chars()
                .take(63)
                .collect();
            if w.find_name(&new).is_none() {
                w.rename_name(&old, &new).unwrap();
            }
        }
        w.strip_source(&p).unwrap();
        w.new_generation(pakrat_io::Guid {
            words: [9, 8, 7, k as u32],
        });
        let Ok(out) = w.to_bytes() else { continue }; // object data right after the header
        let q = Package::parse(&out).unwrap_or_else(|e| panic!("{path}: {e}"));
        let f = dir.path().join(format!("{k}.u"));
        std::fs::write(&f, &out).unwrap();
        expected.push((path.clone(), as_ref_json(&q)));
        paths.push(f);
    }
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/classic_ref.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(&paths)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), expected.len());
    for (mut got, (path, want)) in lines.into_iter().zip(expected) {
        assert!(got.get("error").is_none(), "{path}: {got}");
        got.as_object_mut().unwrap().remove("file");
        assert_eq!(got, want, "{path}");
    }
    assert!(paths.len() >= 100, "{}", paths.len());
}
