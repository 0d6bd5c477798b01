//! Hand-made hostile UMODs: each gives a clear error and writes nothing
//! outside (or, for refused archives, inside) the target folder.

use pakrat_io::fsutil::OutputDir;
use pakrat_io::Writer;
use pakrat_umod::{extract, ExtractOptions, ProblemKind, Umod, MAGIC};
use proptest::prelude::*;

/// Build a UMOD: payload bytes, then a directory of `(name, offset, size,
/// flags)`, then a trailer with the right size and CRC.
fn build(payload: &[u8], entries: &[(&[u8], u32, u32, u32)]) -> Vec<u8> {
    let mut w = Writer::new();
    w.bytes(payload);
    let dir = w.len() as u32;
    w.compact(entries.len() as i32);
    for (name, off, size, flags) in entries {
        w.compact(name.len() as i32 + 1).bytes(name).u8(0);
        w.u32(*off).u32(*size).u32(*flags);
    }
    finish(w.into_inner(), dir)
}

fn finish(mut body: Vec<u8>, dir: u32) -> Vec<u8> {
    let crc = pakrat_io::crc::mem_crc(&body);
    let total = body.len() as u32 + 20;
    let mut w = Writer::new();
    w.u32(MAGIC).u32(dir).u32(total).u32(1).u32(crc);
    body.extend_from_slice(w.as_slice());
    body
}

/// Everything under `dir`, recursively (relative names).
fn tree(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Extract into `<tmp>/out` and check that nothing at all was written
/// anywhere in `<tmp>` except the (empty) `out` folder.
fn refused(data: &[u8], want: &str) {
    let t = tempfile::tempdir().unwrap();
    let u = Umod::parse(data).unwrap();
    let out = OutputDir::create(t.path().join("out"), false).unwrap();
    let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
    assert!(err.to_string().contains(want), "{err}");
    assert!(err.to_string().contains("nothing was written"), "{err}");
    assert_eq!(tree(t.path()), ["out"]);
}

#[test]
fn traversal_names_are_refused() {
    for bad in [
        &b"..\\..\\evil.txt"[..],
        b"System\\..\\..\\evil.txt",
        b"/etc/evil",
        b"\\evil",
        b"C:\\evil.txt",
        b"c:evil",
        b"System\\\\x",
        b"",
    ] {
        let data = build(b"hello", &[(b"System\\ok.txt", 0, 5, 0), (bad, 0, 5, 0)]);
        let u = Umod::parse(&data).unwrap();
        assert!(
            u.problems()
                .iter()
                .any(|p| p.kind == ProblemKind::UnsafeName && p.is_error()),
            "{bad:?}: {:?}",
            u.problems()
        );
        assert!(!u.verify().ok());
        refused(&data, "refusing unsafe member name");
    }
}

#[test]
fn absurd_counts_fail_before_allocating() {
    // Directory count 0x7FFFFFFF (5-byte compact) with 8 bytes left.
    let mut body = b"data".to_vec();
    let dir = body.len() as u32;
    body.extend_from_slice(&[0x7F, 0xFF, 0xFF, 0xFF, 0x0F]);
    body.extend_from_slice(&[0; 8]);
    let err = Umod::parse(&finish(body, dir)).err().unwrap();
    let s = err.to_string();
    assert!(s.contains("UMOD directory entry count"), "{s}");
    assert!(s.contains("count 2147483647"), "{s}");
    assert_eq!(err.offset(), Some(4));
    // Negative count.
    let body = vec![0x81];
    let err = Umod::parse(&finish(body, 0)).err().unwrap();
    assert!(err.to_string().contains("negative count"), "{err}");
    // Name length far beyond the file.
    let mut body = vec![1u8];
    body.extend_from_slice(&[0x7F, 0xFF, 0xFF, 0xFF, 0x07]);
    body.extend_from_slice(&[0; 12]);
    let err = Umod::parse(&finish(body, 0)).err().unwrap();
    assert!(
        err.to_string().contains("name of directory entry 0"),
        "{err}"
    );
}

#[test]
fn entries_past_the_end() {
    // Into the directory.
    let data = build(b"0123456789", &[(b"a.txt", 8, 5, 0)]);
    let u = Umod::parse(&data).unwrap();
    let p: Vec<_> = u
        .problems()
        .iter()
        .filter(|p| p.kind == ProblemKind::EntryOutOfBounds)
        .collect();
    assert_eq!(p.len(), 1);
    assert!(p[0].message.contains("[0x8, 0xd)"), "{}", p[0]);
    assert!(
        p[0].message.contains("ends at the directory (0xa)"),
        "{}",
        p[0]
    );
    refused(&data, "entry out of bounds");
    assert!(u.entry_data(&u.entries[0]).is_err());
    // Past the end of the file, with a u32 overflow attempt.
    let data = build(b"0123456789", &[(b"b.txt", 0xFFFF_FFF0, 0x100, 0)]);
    let u = Umod::parse(&data).unwrap();
    let p = u
        .problems()
        .iter()
        .find(|p| p.kind == ProblemKind::EntryOutOfBounds)
        .unwrap();
    assert!(p.message.contains("past the end of the file"), "{p}");
    refused(&data, "entry out of bounds");
}

#[test]
fn overlaps_are_reported_and_refused() {
    let data = build(
        b"abcdefghij",
        &[
            (b"a", 0, 6, 0),
            (b"b", 4, 6, 0),
            (b"c", 6, 0, 0),
            (b"d", 9, 1, 0),
        ],
    );
    let u = Umod::parse(&data).unwrap();
    let o: Vec<_> = u
        .problems()
        .iter()
        .filter(|p| p.kind == ProblemKind::Overlap)
        .collect();
    assert_eq!(o.len(), 2, "{o:?}"); // b/a and d/b; the empty c overlaps nothing
    assert!(
        o[0].message
            .contains("\"b\" [0x4, 0xa) shares bytes with \"a\" [0x0, 0x6)"),
        "{}",
        o[0]
    );
    refused(&data, "overlap");
}

#[test]
fn truncated_trailers() {
    for n in 0..20 {
        let err = Umod::parse(&vec![0xA3; n]).err().unwrap();
        assert!(err.to_string().contains("UMOD trailer"), "{err}");
    }
    let good = build(b"xyz", &[(b"a", 0, 3, 0)]);
    for cut in 1..good.len() {
        let err = Umod::parse(&good[..good.len() - cut]).err();
        assert!(err.is_some(), "cut {cut} parsed");
    }
    let err = Umod::parse(&good[..good.len() - 3]).err().unwrap();
    assert!(err.to_string().contains("bad magic"), "{err}");
}

#[test]
fn directory_offset_past_trailer() {
    let mut data = build(b"xyz", &[(b"a", 0, 3, 0)]);
    let n = data.len();
    data[n - 16..n - 12].copy_from_slice(&1000u32.to_le_bytes());
    let err = Umod::parse(&data).err().unwrap();
    assert!(
        err.to_string()
            .contains("directory offset 0x3e8 lies past the trailer"),
        "{err}"
    );
}

#[test]
fn wrong_crc_size_and_version() {
    let good = build(b"hello world", &[(b"System\\a.txt", 0, 11, 0)]);
    let n = good.len();
    // Wrong CRC: verify explains, extract refuses unless ignore_crc.
    let mut bad = good.clone();
    bad[3] ^= 0x20;
    let u = Umod::parse(&bad).unwrap();
    let v = u.verify();
    assert!(!v.ok());
    let crc = v
        .problems
        .iter()
        .find(|p| p.kind == ProblemKind::CrcMismatch)
        .unwrap();
    let expected = u32::from_le_bytes(bad[n - 4..].try_into().unwrap());
    assert_eq!(v.crc_expected, expected);
    assert_ne!(v.crc_actual, expected);
    assert!(crc.message.contains(&format!("{expected:#010x}")), "{crc}");
    assert!(
        crc.message.contains(&format!("{:#010x}", v.crc_actual)),
        "{crc}"
    );
    refused(&bad, "CRC mismatch");
    let t = tempfile::tempdir().unwrap();
    let out = OutputDir::create(t.path(), false).unwrap();
    let rep = extract(
        &u,
        &out,
        &ExtractOptions {
            ignore_crc: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(rep.warnings.iter().any(|w| w.contains("CRC mismatch")));
    assert_eq!(
        std::fs::read(t.path().join("System/a.txt")).unwrap(),
        b"helLo world"
    );
    // Recorded size wrong.
    let mut bad = good.clone();
    bad[n - 12] ^= 1;
    let u = Umod::parse(&bad).unwrap();
    let p = u
        .problems()
        .iter()
        .find(|p| p.kind == ProblemKind::SizeMismatch)
        .unwrap();
    assert!(
        p.message.contains(&format!("but the file is {n} bytes")),
        "{p}"
    );
    refused(&bad, "size mismatch");
    // Version 2.
    let mut bad = good.clone();
    bad[n - 8] = 2;
    let u = Umod::parse(&bad).unwrap();
    assert!(u
        .problems()
        .iter()
        .any(|p| p.kind == ProblemKind::BadVersion));
    refused(&bad, "version 2");
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_not_followed() {
    let data = build(b"x", &[(b"link\\x", 0, 1, 0)]);
    let u = Umod::parse(&data).unwrap();
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir(t.path().join("out")).unwrap();
    std::fs::create_dir(t.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(t.path().join("elsewhere"), t.path().join("out/link")).unwrap();
    let out = OutputDir::create(t.path().join("out"), true).unwrap();
    let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(std::fs::read_dir(t.path().join("elsewhere"))
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn folder_case_is_unified() {
    let data = build(
        b"abc",
        &[
            (b"System\\a", 0, 1, 0),
            (b"SYSTEM\\b", 1, 1, 0),
            (b"system\\A", 2, 1, 0),
        ],
    );
    let u = Umod::parse(&data).unwrap();
    assert!(u
        .problems()
        .iter()
        .any(|p| p.kind == ProblemKind::DuplicateName));
    let t = tempfile::tempdir().unwrap();
    let out = OutputDir::create(t.path(), false).unwrap();
    let rep = extract(&u, &out, &ExtractOptions::default()).unwrap();
    assert_eq!(rep.files.len(), 2);
    assert!(rep.warnings.iter().any(|w| w.contains("duplicate")));
    assert_eq!(tree(t.path()), ["System", "System/a", "System/b"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Any corruption of a valid archive parses or fails cleanly; never panics.
    #[test]
    fn mutations_never_panic(pos in 0usize..200, val in any::<u8>(), cut in 0usize..40) {
        let mut data = build(b"hello world, this is a payload", &[
            (b"System\\Manifest.ini", 0, 10, 3),
            (b"Maps\\x.unr", 10, 20, 0),
        ]);
        let p = pos % data.len();
        data[p] = val;
        data.truncate(data.len().saturating_sub(cut));
        if let Ok(u) = Umod::parse(&data) {
            let v = u.verify();
            for e in &u.entries {
                let _ = u.entry_data(e);
            }
            let _ = v.ok();
        }
    }
}

/// A self-extracting .exe: stub in front (offsets are absolute), and an
/// Authenticode certificate table after the trailer (found through the PE
/// security directory, as OldUnreal 227 does).
#[test]
fn signed_self_extracting_exe() {
    let mut stub = vec![0u8; 0x200];
    stub[..2].copy_from_slice(b"MZ");
    stub[0x3C..0x40].copy_from_slice(&0x40u32.to_le_bytes());
    stub[0x40..0x44].copy_from_slice(b"PE\0\0");
    stub[0x58..0x5A].copy_from_slice(&0x10Bu16.to_le_bytes()); // PE32
    let mut w = Writer::new();
    w.bytes(&stub).bytes(b"payload!");
    let dir = w.len() as u32;
    w.compact(1)
        .fstring(&pakrat_io::FString::new("System\\a.txt"));
    w.u32(0x200).u32(8).u32(0);
    let crc = pakrat_io::crc::mem_crc(w.as_slice());
    let end = w.len() as u32 + 20;
    w.u32(MAGIC).u32(dir).u32(end).u32(1).u32(crc);
    let plain = w.as_slice().to_vec();
    // Unsigned: the trailer ends the file.
    let u = Umod::parse(&plain).unwrap();
    assert_eq!(u.trailer.container, pakrat_umod::Container::Plain);
    assert!(u.verify().ok());
    // Signed: pad to 8 bytes, then a certificate table.
    w.zeros((8 - w.len() % 8) % 8);
    let cert = w.len() as u32;
    w.bytes(&[0x5A; 64]);
    let mut signed = w.into_inner();
    let dd = 0x58 + 96 + 4 * 8;
    signed[dd..dd + 4].copy_from_slice(&cert.to_le_bytes());
    signed[dd + 4..dd + 8].copy_from_slice(&64u32.to_le_bytes());
    // The CRC covers the stub, whose security directory changed: recompute.
    let crc = pakrat_io::crc::mem_crc(&signed[..end as usize - 20]);
    signed[end as usize - 4..end as usize].copy_from_slice(&crc.to_le_bytes());
    let u = Umod::parse(&signed).unwrap();
    assert_eq!(
        u.trailer.container,
        pakrat_umod::Container::SignedExe {
            certificate_offset: u64::from(cert)
        }
    );
    assert_eq!(u.trailer.end(), u64::from(end));
    let v = u.verify();
    assert!(v.ok(), "{:?}", v.problems);
    assert_eq!(u.entry_data(&u.entries[0]).unwrap(), b"payload!");
    // The detector's probe (first and last bytes, PE pointers followed)
    // finds both forms; a PE without the trailer is no UMOD.
    use pakrat_io::probe::Probe;
    assert!(pakrat_umod::sniff(&Probe::of_bytes(&plain)));
    assert!(pakrat_umod::sniff(&Probe::of_bytes(&signed)));
    let mut big = signed.clone();
    big.extend(vec![0x5Au8; 200 << 10]);
    let n = (64 + (200 << 10)) as u32;
    big[dd + 4..dd + 8].copy_from_slice(&n.to_le_bytes());
    let t = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(t.path(), &big).unwrap();
    assert!(pakrat_umod::sniff(&Probe::open(t.path()).unwrap()));
    let mut not_umod = big.clone();
    let at = end as usize - 20;
    not_umod[at..at + 4].copy_from_slice(&[0; 4]);
    assert!(!pakrat_umod::sniff(&Probe::of_bytes(&not_umod)));
}

// ---- Issue 16, findings 5, 9 and 10.

#[test]
fn f5_file_and_folder_of_the_same_name() {
    // "Y\B" then "Y" (and the other order): a verify error, and extract
    // writes nothing, with or without --force.
    for names in [[&b"Y\\B"[..], b"y"], [b"Y", b"y/b"]] {
        let mut entries: Vec<(&[u8], u32, u32, u32)> = vec![(b"System\\Good.u", 0, 4, 0)];
        entries.push((names[0], 4, 1, 0));
        entries.push((names[1], 5, 1, 0));
        let data = build(b"goodBY", &entries);
        let u = Umod::parse(&data).unwrap();
        let v = u.verify();
        assert!(!v.ok());
        assert!(
            v.errors().any(|p| p.kind == ProblemKind::NameClash),
            "{:?}",
            v.problems
        );
        refused(&data, "name clash");
        let t = tempfile::tempdir().unwrap();
        let out = OutputDir::create(t.path().join("out"), true).unwrap();
        let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
        assert!(err.to_string().contains("name clash"), "{err}");
        assert_eq!(tree(t.path()), ["out"]);
    }
}

#[test]
fn f5_a_file_on_disk_where_a_folder_is_needed() {
    let data = build(
        b"goodB",
        &[(b"System\\Good.u", 0, 4, 0), (b"Y\\B", 4, 1, 0)],
    );
    let u = Umod::parse(&data).unwrap();
    for force in [false, true] {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("out")).unwrap();
        std::fs::write(t.path().join("out/Y"), b"a file").unwrap();
        let out = OutputDir::create(t.path().join("out"), force).unwrap();
        let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("needs a folder") && msg.contains("nothing was written"),
            "{msg}"
        );
        assert_eq!(tree(t.path()), ["out", "out/Y"]);
        assert_eq!(std::fs::read(t.path().join("out/Y")).unwrap(), b"a file");
    }
    // And a folder where a file goes.
    let t = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(t.path().join("out/System/Good.u")).unwrap();
    let out = OutputDir::create(t.path().join("out"), true).unwrap();
    let err = extract(&u, &out, &ExtractOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("a folder where a file goes"),
        "{err}"
    );
    assert!(!t.path().join("out/Y").exists());
}

/// A UMOD whose only member is a Manifest.ini with these bytes.
fn with_manifest(ini: &[u8]) -> Vec<u8> {
    build(ini, &[(b"System\\Manifest.ini", 0, ini.len() as u32, 3)])
}

#[test]
fn f9_manifest_caps_and_linear_groups() {
    // Over the ini reader's line cap: refused before a model is built.
    let lines = vec![b'\n'; pakrat_io::ini::MAX_INI_LINES + 1];
    let data = with_manifest(&lines);
    let u = Umod::parse(&data).unwrap();
    let err = pakrat_umod::Manifest::from_umod(&u).unwrap_err();
    assert!(err.to_string().contains("lines"), "{err}");
    assert!(u.verify().errors().any(|p| p.kind == ProblemKind::Manifest));
    // A long chain of groups parses completely, each group once.
    let n = 30_000;
    let mut ini = String::from("[Setup]\r\nProduct=Chain\r\nVersion=1\r\nGroup=G0\r\n");
    for i in 0..n {
        ini.push_str(&format!("[G{i}]\r\nGroup=G{}\r\nGroup=G0\r\n", i + 1));
    }
    let data = with_manifest(ini.as_bytes());
    let u = Umod::parse(&data).unwrap();
    let m = pakrat_umod::Manifest::from_umod(&u).unwrap().unwrap();
    assert_eq!(m.groups.len(), n);
    assert!(m
        .warnings
        .iter()
        .any(|w| w.contains(&format!("Group=G{n} but there is no"))));
}

#[test]
fn f10_member_lookup_is_indexed() {
    // 60,000 members; every manifest record is found, ignoring case and
    // separators, the first of a duplicate name winning.
    let n = 60_000u32;
    let names: Vec<String> = (0..n)
        .map(|i| format!("Dir{}\\File{i}.u", i % 50))
        .collect();
    let mut entries: Vec<(&[u8], u32, u32, u32)> =
        names.iter().map(|s| (s.as_bytes(), 0, 1, 0)).collect();
    entries.push((b"DIR0\\FILE0.U", 1, 1, 0));
    let data = build(b"ab", &entries);
    let u = Umod::parse(&data).unwrap();
    assert_eq!(u.entries.len(), n as usize + 1);
    for i in (0..n).step_by(997) {
        let e = u.find(&format!("dir{}/file{i}.U", i % 50)).unwrap();
        assert_eq!(e.name, names[i as usize]);
    }
    assert_eq!(u.find("Dir0/File0.u").unwrap().offset, 0);
    assert!(u.find("Dir0\\File60000.u").is_none());
    let _ = u.verify();
}

#[cfg(unix)]
#[test]
fn create_refuses_symlinks_unless_asked() {
    use pakrat_umod::create::{create, CreateOptions};
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("secret.txt"), b"outside the source folder").unwrap();
    let src = t.path().join("src");
    std::fs::create_dir_all(src.join("System")).unwrap();
    std::fs::write(
        src.join("System/Manifest.ini"),
        b"[Setup]\r\nProduct=L\r\nVersion=1\r\nGroup=G\r\n\r\n[G]\r\nFile=(Src=Help\\ReadMe.txt)\r\n",
    )
    .unwrap();
    // A linked file, then a linked folder.
    std::fs::create_dir_all(src.join("Help")).unwrap();
    std::os::unix::fs::symlink(t.path().join("secret.txt"), src.join("Help/ReadMe.txt")).unwrap();
    let out = t.path().join("l.umod");
    let err = create(&src, &out, false, &CreateOptions::default()).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(!out.exists());
    std::fs::remove_file(src.join("Help/ReadMe.txt")).unwrap();
    std::fs::remove_dir(src.join("Help")).unwrap();
    std::fs::create_dir_all(t.path().join("elsewhere")).unwrap();
    std::fs::write(t.path().join("elsewhere/ReadMe.txt"), b"linked folder").unwrap();
    std::os::unix::fs::symlink(t.path().join("elsewhere"), src.join("Help")).unwrap();
    let err = create(&src, &out, false, &CreateOptions::default()).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(!out.exists());
    // Asked for: the target's bytes are packed.
    let opts = CreateOptions {
        follow_symlinks: true,
        ..Default::default()
    };
    create(&src, &out, false, &opts).unwrap();
    let data = std::fs::read(&out).unwrap();
    let u = Umod::parse(&data).unwrap();
    let e = u.find("Help\\ReadMe.txt").unwrap();
    assert_eq!(u.entry_data(e).unwrap(), b"linked folder");
}
