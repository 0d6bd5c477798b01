//! The real UMODs of the shared corpus, checked against MANIFEST.tsv.

use pakrat_io::fsutil::OutputDir;
use pakrat_testkit::{entries, Entry as Row};
use pakrat_umod::create::{self, CreateOptions, OrderTemplate};
use pakrat_umod::{extract, ExtractOptions, Manifest, ProblemKind, Umod, FLAGS_SETUP};

/// The bracketed file list of a detail string.
fn listed_files(detail: &str) -> Vec<String> {
    let open = detail.find('[').expect("file list in detail");
    let close = detail[open..].find(']').expect("closing ]") + open;
    detail[open + 1..close]
        .split(", ")
        .map(str::to_string)
        .collect()
}

fn num(row: &Row, key: &str) -> u64 {
    let v = row
        .detail_value(key)
        .unwrap_or_else(|| panic!("{key} in detail"));
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => v.parse().unwrap(),
    }
}

fn rows() -> Vec<Row> {
    let Some(rows) = entries("umod") else {
        return Vec::new();
    };
    assert_eq!(rows.len(), 2, "the corpus has two UMODs");
    rows
}

#[test]
fn directory_and_trailer_match_manifest() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let t = u.trailer;
        assert_eq!(
            u64::from(t.version),
            num(&row, "version"),
            "{}",
            row.local_path
        );
        assert_eq!(
            u64::from(t.dir_offset),
            num(&row, "diroff"),
            "{}",
            row.local_path
        );
        assert_eq!(
            u64::from(t.file_size),
            num(&row, "total"),
            "{}",
            row.local_path
        );
        assert_eq!(u64::from(t.file_size), row.size);
        assert_eq!(u64::from(t.crc), num(&row, "crc"), "{}", row.local_path);
        assert_eq!(u.entries.len() as u64, num(&row, "files"));
        let names: Vec<String> = u.entries.iter().map(|e| e.name.clone()).collect();
        assert_eq!(names, listed_files(&row.detail), "{}", row.local_path);
        // classic.md §2.6: contiguous, unaligned, from 0, directory right after.
        let mut pos = 0u32;
        for e in &u.entries {
            assert_eq!(e.offset, pos, "{} {}", row.local_path, e.name);
            pos += e.size;
            let setup = e.name.starts_with("System\\Manifest.");
            assert_eq!(e.flags, if setup { FLAGS_SETUP } else { 0 }, "{}", e.name);
        }
        assert_eq!(pos, t.dir_offset);
        assert_eq!(u.dir_end, t.offset);
        assert!(u.problems().is_empty(), "{:?}", u.problems());
    }
}

#[test]
fn verify_passes_with_stale_manifest_size_as_warning() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let v = u.verify();
        assert!(v.ok(), "{}: {:?}", row.local_path, v.problems);
        assert_eq!(u64::from(v.crc_actual), num(&row, "crc"));
        // Stale self-size of Manifest.ini (DE: 583 for 731, DropStuff: 603 for 742).
        let (stale, real) = if row.local_path.ends_with("DE.umod") {
            (583, 731)
        } else {
            (603, 742)
        };
        let w: Vec<_> = v
            .problems
            .iter()
            .filter(|p| p.kind == ProblemKind::Manifest && !p.is_error())
            .collect();
        assert_eq!(
            w.len(),
            1 + usize::from(row.local_path.ends_with("DE.umod")),
            "{w:?}"
        );
        assert!(
            w.iter()
                .any(|p| p.message.contains(&format!("Size={stale}"))
                    && p.message.contains(&format!("{real} bytes"))),
            "{w:?}"
        );
        assert_eq!(u.find("system\\manifest.ini").unwrap().size, real);
    }
}

#[test]
fn manifests_parse() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let m = Manifest::from_umod(&u).unwrap().unwrap();
        assert_eq!(m.requirements.len(), 1);
        assert_eq!(
            m.requirements[0].product.as_deref(),
            Some("UnrealTournament")
        );
        let names: Vec<String> = listed_files(&row.detail);
        // Every member is named by a File=/Copy= record, in directory order.
        let recs: Vec<String> = m.records().map(|r| r.src.clone()).collect();
        assert_eq!(recs, names, "{}", row.local_path);
        if row.local_path.ends_with("DE.umod") {
            assert_eq!(m.product.as_deref(), Some("DEMutators"));
            assert_eq!(m.version.as_deref(), Some("101"));
            assert_eq!(m.requirements[0].version.as_deref(), Some(""));
            assert_eq!(m.local("Developer"), Some("Digital Extremes"));
        } else {
            assert_eq!(m.product.as_deref(), Some("DropStuff mutator"));
            assert_eq!(m.requirements[0].version.as_deref(), Some("400"));
        }
    }
}

#[test]
fn extract_then_rebuild_is_byte_identical() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("x"), false).unwrap();
        let rep = extract(&u, &out, &ExtractOptions::default()).unwrap();
        assert_eq!(rep.files.len(), u.entries.len());
        for e in &u.entries {
            let p = t.path().join("x").join(e.name.replace('\\', "/"));
            let got = std::fs::read(&p).unwrap();
            assert_eq!(got, u.entry_data(e).unwrap(), "{}", e.name);
        }
        // Rebuild with the original as template.
        let opts = CreateOptions {
            order_from: Some(OrderTemplate::from_umod(&u)),
            ..Default::default()
        };
        let dst = t.path().join("rebuilt.umod");
        create::create(&t.path().join("x"), &dst, false, &opts).unwrap();
        assert!(
            std::fs::read(&dst).unwrap() == data,
            "{} --order-from",
            row.local_path
        );
        // And from the manifest alone: the real files are in manifest order.
        let dst2 = t.path().join("plain.umod");
        let (plan, _) =
            create::create(&t.path().join("x"), &dst2, false, &CreateOptions::default()).unwrap();
        assert!(
            std::fs::read(&dst2).unwrap() == data,
            "{} plain",
            row.local_path
        );
        // The stale Manifest.ini self-size is not reported again by create.
        assert!(
            !plan.warnings.iter().any(|w| w.contains("Size=")),
            "{:?}",
            plan.warnings
        );
        // A second extraction without force refuses and writes nothing new.
        let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
    }
}

#[test]
fn glob_selection() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path(), false).unwrap();
        let opts = ExtractOptions {
            globs: vec!["SYSTEM/*.INT".into()],
            ..Default::default()
        };
        let rep = extract(&u, &out, &opts).unwrap();
        let mut names: Vec<_> = rep.files.iter().map(|f| f.name.clone()).collect();
        names.sort();
        let mut want: Vec<String> = listed_files(&row.detail)
            .into_iter()
            .filter(|n| {
                n.to_lowercase().starts_with("system\\") && n.to_lowercase().ends_with(".int")
            })
            .collect();
        want.sort();
        assert_eq!(names, want);
        assert!(!t.path().join("Help").exists());
    }
}

/// `create::to_bytes` (the in-memory writer) lays members out exactly as
/// the engine's `ucc master` did: the corpus UMODs come back byte for byte
/// from their own members, in directory order.
#[test]
fn in_memory_writer_reproduces_the_originals() {
    for row in rows() {
        let data = std::fs::read(&row.path).unwrap();
        let u = Umod::parse(&data).unwrap();
        let members: Vec<(&str, &[u8], u32)> = u
            .entries
            .iter()
            .map(|e| (e.name.as_str(), u.entry_data(e).unwrap(), e.flags))
            .collect();
        let built = pakrat_umod::create::to_bytes(&members).unwrap();
        assert!(built == data, "{} differs", row.local_path);
    }
}
