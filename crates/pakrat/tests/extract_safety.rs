//! Extraction safety (issue 6): every command that writes files is given
//! hostile names (`..`, absolute paths, drive letters, backslashes, NUL,
//! very long names) and target folders that already hold symlinks; nothing
//! may be written outside the target folder. An interrupted write leaves no
//! file under its final name.
//!
//! The hostile inputs are built here byte by byte (UMOD archives, a UE1
//! package, `.uz` headers, a `cache.ini`) or by patching a copy of a corpus
//! IoStore container's mount point.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use pakrat_io::fsutil::{write_atomic, OutputDir, TEMP_PREFIX};
use pakrat_io::{FString, Writer};

mod common;
use common::pakrat;

/// Every path (files, folders, links) below `dir`, relative, with `/`.
fn tree(dir: &Path) -> BTreeSet<String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel);
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                walk(base, &p, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// A sandbox: `out/` is the target, `outside/` a sibling that must stay
/// untouched (symlinks point there), and absolute-path victims live in it.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(s.outside()).unwrap();
        std::fs::create_dir_all(s.out()).unwrap();
        s
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn out(&self) -> PathBuf {
        self.root().join("out")
    }
    fn outside(&self) -> PathBuf {
        self.root().join("outside")
    }
    /// Absolute name of a victim file outside `out` (with `/` and `\`).
    fn abs_victim(&self) -> String {
        self.outside().join("abs-victim.txt").display().to_string()
    }
    /// Nothing appeared beside `out` or inside `outside`.
    fn assert_contained(&self, what: &str) {
        let outside = tree(&self.outside());
        assert!(
            outside.is_empty(),
            "{what}: wrote outside the target: {outside:?}"
        );
        let top: BTreeSet<String> = std::fs::read_dir(self.root())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let expect: BTreeSet<String> = ["out", "outside"].iter().map(|s| s.to_string()).collect();
        let extra: Vec<_> = top.difference(&expect).collect();
        assert!(
            extra.is_empty(),
            "{what}: wrote beside the target: {extra:?}"
        );
    }
    /// No temporary or partial file is left in `out`.
    fn assert_no_temp(&self, what: &str) {
        let leftovers: Vec<_> = tree(&self.out())
            .into_iter()
            .filter(|p| p.rsplit('/').next().unwrap_or("").starts_with(TEMP_PREFIX))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{what}: temporary files left: {leftovers:?}"
        );
    }
}

/// The hostile member names, each with a label.
fn hostile_names(sb: &Sandbox) -> Vec<(String, String)> {
    let abs = sb.abs_victim();
    vec![
        ("parent, backslash".into(), "..\\escape.txt".into()),
        ("parent, slash".into(), "../escape.txt".into()),
        ("nested parent".into(), "System\\..\\..\\escape.txt".into()),
        (
            "nested parent, slash".into(),
            "System/../../escape.txt".into(),
        ),
        ("absolute".into(), abs.clone()),
        ("absolute, backslashes".into(), abs.replace('/', "\\")),
        ("drive letter".into(), "C:\\escape.txt".into()),
        ("drive relative".into(), "C:escape.txt".into()),
        ("UNC".into(), "\\\\server\\share\\escape.txt".into()),
        ("NUL".into(), "System\\a\0b.txt".into()),
        ("control char".into(), "System\\a\nb.txt".into()),
        (
            "long component".into(),
            format!("System\\{}.txt", "A".repeat(300)),
        ),
        ("long path".into(), vec!["abcdefgh"; 600].join("\\")),
        ("current dir".into(), ".\\.\\x.txt".into()),
        ("empty component".into(), "System\\\\x.txt".into()),
    ]
}

// ---------------------------------------------------------------- UMOD

/// A UMOD built byte by byte (classic.md §2): payloads, directory
/// (compact count; name, offset, size, flags), 20-byte trailer with the
/// CRC-32/BZIP2 of everything before it.
fn umod_bytes(members: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let mut w = Writer::new();
    let mut dir = Vec::new();
    for (name, data, flags) in members {
        dir.push((*name, w.len() as u32, data.len() as u32, *flags));
        w.bytes(data);
    }
    let dir_offset = w.len() as u32;
    w.compact(dir.len() as i32);
    for (name, off, size, flags) in dir {
        w.fstring(&FString::new(name));
        w.u32(off);
        w.u32(size);
        w.u32(flags);
    }
    let mut data = w.into_inner();
    let total = data.len() as u32 + 20;
    let crc = pakrat_io::crc::mem_crc(&data);
    for v in [
        pakrat_umod::MAGIC,
        dir_offset,
        total,
        pakrat_umod::VERSION,
        crc,
    ] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data
}

fn extract_umod(bytes: &[u8], out: &Path, force: bool) -> pakrat_io::Result<()> {
    let u = pakrat_umod::Umod::parse(bytes)?;
    let dir = OutputDir::create(out, force)?;
    let opts = pakrat_umod::ExtractOptions {
        globs: Vec::new(),
        ignore_crc: false,
    };
    pakrat_umod::extract(&u, &dir, &opts).map(|_| ())
}

#[test]
fn umod_backslash_names_become_folders() {
    let sb = Sandbox::new();
    let bytes = umod_bytes(&[
        ("System\\Ok.u", b"ok", 0),
        ("Help\\Sub\\ReadMe.txt", b"readme", 0),
    ]);
    extract_umod(&bytes, &sb.out(), false).unwrap();
    assert_eq!(std::fs::read(sb.out().join("System/Ok.u")).unwrap(), b"ok");
    assert_eq!(
        std::fs::read(sb.out().join("Help/Sub/ReadMe.txt")).unwrap(),
        b"readme"
    );
    sb.assert_contained("plain umod");
}

#[test]
fn umod_extract_refuses_hostile_names() {
    let probe = Sandbox::new();
    for (label, name) in hostile_names(&probe) {
        let sb = Sandbox::new();
        let name = name.replace(&probe.abs_victim(), &sb.abs_victim());
        let bytes = umod_bytes(&[("System\\Ok.u", b"ok", 0), (&name, b"evil", 0)]);
        let r = extract_umod(&bytes, &sb.out(), false);
        // The archive may fail to parse (NUL in a name) or be refused;
        // either way nothing is written anywhere.
        let e = r.expect_err(&format!("{label}: hostile name {name:?} was accepted"));
        assert!(e.to_string().len() > 10, "{label}: unclear error {e}");
        assert!(
            tree(&sb.out()).is_empty(),
            "{label}: wrote {:?}",
            tree(&sb.out())
        );
        sb.assert_contained(&label);
        assert!(!Path::new(&sb.abs_victim()).exists(), "{label}");
    }
}

#[test]
fn umod_extract_refuses_symlinks_in_target() {
    let sb = Sandbox::new();
    // A folder link and a file link already in the target.
    std::os::unix::fs::symlink(sb.outside(), sb.out().join("System")).unwrap();
    std::fs::create_dir_all(sb.out().join("Help")).unwrap();
    std::os::unix::fs::symlink(
        sb.outside().join("victim.txt"),
        sb.out().join("Help/ReadMe.txt"),
    )
    .unwrap();
    for (name, force) in [
        ("System\\Evil.u", false),
        ("System\\Evil.u", true),
        ("system\\Evil.u", true),
        ("Help\\ReadMe.txt", true),
    ] {
        let bytes = umod_bytes(&[(name, b"evil", 0)]);
        let r = extract_umod(&bytes, &sb.out(), force);
        assert!(
            r.is_err(),
            "{name} (force {force}) written through a symlink"
        );
        sb.assert_contained(name);
    }
}

const MANIFEST_INT: &str = "[Setup]\r\nLocalProduct=Evil\r\n";

fn manifest_ini(dest: &str) -> String {
    format!(
        "[Setup]\r\nProduct=Evil\r\nVersion=100\r\nGroup=SetupGroup\r\nGroup=EvilGroup\r\n\r\n\
         [SetupGroup]\r\nCopy=(Src=System\\Manifest.ini,Master=System\\Manifest.ini,Flags=3)\r\n\
         Copy=(Src=System\\Manifest.int,Master=System\\Manifest.int,Flags=3)\r\n\r\n\
         [EvilGroup]\r\nFile=(Src=System\\Ok.u)\r\nFile=(Src=System\\Evil.u,Dest={dest})\r\n"
    )
}

fn install_umod(bytes: &[u8], game: &Path, force: bool) -> pakrat_io::Result<()> {
    let u = pakrat_umod::Umod::parse(bytes)?;
    let opts = pakrat_umod::install::InstallOptions {
        force,
        ignore_requirements: true,
        ..Default::default()
    };
    pakrat_umod::install::install(&u, game, &opts).map(|_| ())
}

#[test]
fn umod_install_refuses_hostile_destinations() {
    let probe = Sandbox::new();
    // A safe destination installs (the test would prove nothing otherwise).
    {
        let sb = Sandbox::new();
        std::fs::create_dir_all(sb.out().join("System")).unwrap();
        let ini = manifest_ini("System\\Good.u");
        let bytes = umod_bytes(&[
            ("System\\Manifest.ini", ini.as_bytes(), 3),
            ("System\\Manifest.int", MANIFEST_INT.as_bytes(), 3),
            ("System\\Ok.u", b"ok", 0),
            ("System\\Evil.u", b"evil", 0),
        ]);
        install_umod(&bytes, &sb.out(), false).unwrap();
        assert_eq!(
            std::fs::read(sb.out().join("System/Good.u")).unwrap(),
            b"evil"
        );
        sb.assert_contained("safe install");
    }
    for (label, dest) in hostile_names(&probe) {
        if dest.contains('\0') || dest.contains('\n') || dest.contains(',') || dest.contains(')') {
            // Cannot be written inside a File=(...) line; covered by extract.
            continue;
        }
        let sb = Sandbox::new();
        std::fs::create_dir_all(sb.out().join("System")).unwrap();
        let dest = dest.replace(&probe.abs_victim(), &sb.abs_victim());
        let ini = manifest_ini(&dest);
        let bytes = umod_bytes(&[
            ("System\\Manifest.ini", ini.as_bytes(), 3),
            ("System\\Manifest.int", MANIFEST_INT.as_bytes(), 3),
            ("System\\Ok.u", b"ok", 0),
            ("System\\Evil.u", b"evil", 0),
        ]);
        let before = tree(&sb.out());
        let r = install_umod(&bytes, &sb.out(), false);
        assert!(r.is_err(), "{label}: install to {dest:?} accepted");
        assert_eq!(tree(&sb.out()), before, "{label}: the game folder changed");
        sb.assert_contained(&label);
    }
}

#[test]
fn umod_install_refuses_symlinks_in_game_folder() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.out().join("System")).unwrap();
    std::os::unix::fs::symlink(sb.outside(), sb.out().join("Textures")).unwrap();
    let ini = manifest_ini("Textures\\Evil.utx");
    let bytes = umod_bytes(&[
        ("System\\Manifest.ini", ini.as_bytes(), 3),
        ("System\\Manifest.int", MANIFEST_INT.as_bytes(), 3),
        ("System\\Ok.u", b"ok", 0),
        ("System\\Evil.u", b"evil", 0),
    ]);
    for force in [false, true] {
        let r = install_umod(&bytes, &sb.out(), force);
        assert!(r.is_err(), "installed through a symlink (force {force})");
        sb.assert_contained("install through symlink");
    }
}

// ---------------------------------------------------------------- package export

/// A minimal UE1 package (version 69) with one TextBuffer export named
/// `name` whose outer is a second export named `outer` (classic.md §3).
fn package_with_text(outer: &str, name: &str) -> Vec<u8> {
    let names = [
        "None",
        "Core",
        "TextBuffer",
        "Class",
        "Package",
        outer,
        name,
    ];
    let mut w = Writer::new();
    w.u32(0x9E2A_83C1).u16(69).u16(0).u32(1);
    let counts_at = w.len();
    w.zeros(24); // name/export/import count + offset, patched below
    w.bytes(&[0x11; 16]); // GUID
    w.i32(1).i32(2).i32(names.len() as i32); // one generation
                                             // Object data of the TextBuffer: no properties, Pos, Top, Text.
    let serial_at = w.len();
    w.compact(0); // None
    w.i32(0).i32(0);
    w.fstring(&FString::new("class Evil extends Object;\r\n"));
    let serial_size = w.len() - serial_at;
    let name_at = w.len();
    for n in names {
        w.fstring(&FString::new(n));
        w.u32(0x0007_0010);
    }
    let import_at = w.len();
    // import 0: Core.Package Core; import 1: Core.Class TextBuffer.
    w.compact(1).compact(4).i32(0).compact(1);
    w.compact(1).compact(3).i32(-1).compact(2);
    let export_at = w.len();
    // export 0: a Package named `outer`; export 1: TextBuffer `name` in it.
    w.compact(0)
        .compact(0)
        .i32(0)
        .compact(5)
        .u32(0x0007_0004)
        .compact(0);
    w.compact(-2).compact(0).i32(1).compact(6).u32(0x0007_0004);
    w.compact(serial_size as i32).compact(serial_at as i32);
    let mut data = w.into_inner();
    let mut put = |at: usize, v: u32| data[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put(counts_at, names.len() as u32);
    put(counts_at + 4, name_at as u32);
    put(counts_at + 8, 2);
    put(counts_at + 12, export_at as u32);
    put(counts_at + 16, 2);
    put(counts_at + 20, import_at as u32);
    data
}

fn export_package(bytes: &[u8], out: &Path) -> Vec<pakrat_classic::export::ObjectReport> {
    let pkg = pakrat_classic::Package::parse(bytes).expect("hand-made package parses");
    let dir = OutputDir::create(out, false).unwrap();
    pakrat_classic::export::export_objects(&pkg, &[], &dir, &Default::default())
}

#[test]
fn package_export_keeps_hostile_object_names_inside() {
    // The well-formed case exports a file (so the hostile cases mean something).
    let sb = Sandbox::new();
    let reports = export_package(&package_with_text("Scripts", "Notes"), &sb.out());
    let written: usize = reports
        .iter()
        .map(|r| match &r.outcome {
            pakrat_classic::export::Outcome::Exported { files } => files.len(),
            _ => 0,
        })
        .sum();
    assert_eq!(written, 1, "{reports:?}");
    sb.assert_contained("plain export");

    let probe = Sandbox::new();
    let mut names: Vec<(String, String)> = hostile_names(&probe);
    names.push(("dots".into(), "..".into()));
    names.push(("dot".into(), ".".into()));
    names.push(("dots and slashes".into(), "../..\\../x".into()));
    for (label, name) in names {
        if name.contains('\0') {
            continue; // a name table string ends at its NUL
        }
        for (outer, inner) in [(name.as_str(), "Notes"), ("Scripts", name.as_str())] {
            let sb = Sandbox::new();
            let abs = inner.replace(&probe.abs_victim(), &sb.abs_victim());
            let outer = outer.replace(&probe.abs_victim(), &sb.abs_victim());
            let bytes = package_with_text(&outer, &abs);
            let _ = export_package(&bytes, &sb.out());
            sb.assert_contained(&format!("{label} ({outer:?}.{abs:?})"));
            sb.assert_no_temp(&label);
            assert!(!Path::new(&sb.abs_victim()).exists(), "{label}");
        }
    }
}

#[test]
fn package_export_refuses_symlinks_in_target() {
    let sb = Sandbox::new();
    std::os::unix::fs::symlink(sb.outside(), sb.out().join("TextBuffers")).unwrap();
    std::os::unix::fs::symlink(sb.outside(), sb.out().join("Classes")).unwrap();
    std::os::unix::fs::symlink(sb.outside(), sb.out().join("Scripts")).unwrap();
    let reports = export_package(&package_with_text("Scripts", "Notes"), &sb.out());
    assert!(
        reports
            .iter()
            .all(|r| !matches!(r.outcome, pakrat_classic::export::Outcome::Exported { .. })),
        "{reports:?}"
    );
    sb.assert_contained("export through symlink");
}

// ---------------------------------------------------------------- uz decompress

/// A `.uz` whose stored original name is `name` (written without checks).
fn uz_named(name: &str) -> Vec<u8> {
    let payload = b"\xC1\x83\x2A\x9E not really a package".repeat(20);
    // Compress under a placeholder, then swap the header's FString.
    let c = pakrat_uz::compress(
        &payload,
        &pakrat_uz::CompressOptions::new(pakrat_uz::UzFormat::Uz, "P.u"),
    )
    .unwrap();
    let h = pakrat_uz::uz1::read_header(&c).unwrap();
    let mut w = Writer::new();
    w.i32(5678);
    if name.contains('\0') {
        // FString::new would not carry a NUL through; write it by hand.
        w.compact(name.len() as i32 + 1)
            .bytes(name.as_bytes())
            .u8(0);
    } else {
        w.fstring(&FString::new(name));
    }
    w.bytes(&c[h.len..]);
    w.into_inner()
}

#[test]
fn uz_decompress_keeps_stored_names_inside() {
    // A plain stored name is used (so the hostile cases mean something).
    {
        let sb = Sandbox::new();
        let input = sb.root().join("in.uz");
        std::fs::write(&input, uz_named("Good.u")).unwrap();
        pakrat()
            .arg("decompress")
            .arg(&input)
            .arg("-o")
            .arg(sb.out())
            .assert()
            .success();
        std::fs::remove_file(&input).unwrap();
        assert!(sb.out().join("Good.u").is_file(), "{:?}", tree(&sb.out()));
        sb.assert_contained("plain uz");
    }
    let probe = Sandbox::new();
    let mut names = hostile_names(&probe);
    names.push(("dots".into(), "..".into()));
    names.push(("trailing dot".into(), "x.u.".into()));
    for (label, name) in names {
        let sb = Sandbox::new();
        let name = name.replace(&probe.abs_victim(), &sb.abs_victim());
        let input = sb.root().join("in.u.uz");
        std::fs::write(&input, uz_named(&name)).unwrap();
        let r = pakrat()
            .arg("decompress")
            .arg(&input)
            .arg("-o")
            .arg(sb.out())
            .output()
            .unwrap();
        std::fs::remove_file(&input).unwrap();
        sb.assert_contained(&label);
        sb.assert_no_temp(&label);
        // Whatever was written is a plain file directly in the target.
        for p in tree(&sb.out()) {
            assert!(!p.contains('/'), "{label}: wrote {p}");
            let meta = std::fs::symlink_metadata(sb.out().join(&p)).unwrap();
            assert!(meta.is_file(), "{label}: {p} is not a file");
        }
        assert!(
            r.status.success() || !r.stderr.is_empty(),
            "{label}: failed without a message"
        );
    }
}

#[test]
fn uz_decompress_refuses_symlink_target_name() {
    let sb = Sandbox::new();
    std::os::unix::fs::symlink(sb.outside().join("victim.u"), sb.out().join("Good.u")).unwrap();
    let input = sb.root().join("in.uz");
    std::fs::write(&input, uz_named("Good.u")).unwrap();
    for force in [false, true] {
        let mut cmd = pakrat();
        cmd.arg("decompress").arg(&input).arg("-o").arg(sb.out());
        if force {
            cmd.arg("--force");
        }
        let _ = cmd.output().unwrap();
        assert!(
            !sb.outside().join("victim.u").exists(),
            "wrote through the link (force {force})"
        );
    }
    std::fs::remove_file(&input).unwrap();
    sb.assert_contained("uz through symlink");
}

// ---------------------------------------------------------------- iostore extract

fn fixture_utoc() -> Option<PathBuf> {
    let rows = pakrat_testkit::entries("iostore")?;
    rows.into_iter()
        .find(|e| {
            e.local_path.ends_with("UE5_8/IoStore/Tagged/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc")
        })
        .map(|e| e.path)
}

/// The fixture's mount point: `../../../CUE4ParseFixtures/Content/Fixtures/`.
const FIXTURE_MOUNT: &str = "../../../CUE4ParseFixtures/Content/Fixtures/";

/// Copy the fixture with its directory index mount point replaced by
/// `mount` padded with a folder of `x` to the same length (44 characters).
fn patched_container(sb: &Sandbox, utoc: &Path, mount: &str) -> PathBuf {
    let n = FIXTURE_MOUNT.len();
    let mount = if mount.len() < n {
        format!("{mount}{}/", "x".repeat(n - 1 - mount.len()))
    } else {
        mount.to_string()
    };
    assert_eq!(mount.len(), n);
    let mut data = std::fs::read(utoc).unwrap();
    let toc = pakrat_iostore::Toc::parse(&data).unwrap();
    let at = toc.directory_index_offset as usize;
    assert_eq!(&data[at..at + 4], &(n as i32 + 1).to_le_bytes());
    assert_eq!(&data[at + 4..at + 4 + n], FIXTURE_MOUNT.as_bytes());
    data[at + 4..at + 4 + n].copy_from_slice(mount.as_bytes());
    let dir = sb.root().join("in");
    std::fs::create_dir_all(&dir).unwrap();
    let name = utoc.file_name().unwrap();
    let dst = dir.join(name);
    std::fs::write(&dst, &data).unwrap();
    std::os::unix::fs::symlink(utoc.with_extension("ucas"), dst.with_extension("ucas")).unwrap();
    dst
}

#[test]
fn iostore_extract_keeps_paths_inside() {
    let Some(utoc) = fixture_utoc() else {
        return;
    };
    // The real mount point extracts (the hostile cases mean something).
    {
        let sb = Sandbox::new();
        let c = patched_container(&sb, &utoc, FIXTURE_MOUNT);
        pakrat()
            .arg("extract")
            .arg(&c)
            .arg("-o")
            .arg(sb.out())
            .arg("-q")
            .assert()
            .success();
        assert!(tree(&sb.out()).len() > 10);
        std::fs::remove_dir_all(sb.root().join("in")).unwrap();
        sb.assert_contained("fixture");
    }
    for mount in [
        "a/../../",
        "../../../../../../",
        "..\\..\\..\\",
        "/tmp/pkr/",
        "C:\\Game/",
        "x/./../y/",
        "\\\\srv\\s/",
        "../../../a\0b/",
    ] {
        let sb = Sandbox::new();
        let c = patched_container(&sb, &utoc, mount);
        let r = pakrat()
            .arg("extract")
            .arg(&c)
            .arg("-o")
            .arg(sb.out())
            .arg("-q")
            .output()
            .unwrap();
        std::fs::remove_dir_all(sb.root().join("in")).unwrap();
        sb.assert_contained(mount);
        sb.assert_no_temp(mount);
        assert!(
            !Path::new("/tmp/pkr").exists(),
            "{mount}: wrote to /tmp/pkr"
        );
        assert!(
            r.status.success() || !r.stderr.is_empty(),
            "{mount}: no message"
        );
    }
}

#[test]
fn iostore_extract_refuses_symlinks_in_target() {
    let Some(utoc) = fixture_utoc() else {
        return;
    };
    let sb = Sandbox::new();
    let c = patched_container(&sb, &utoc, FIXTURE_MOUNT);
    // Find the first folder the extraction creates and pre-place a link there.
    let probe = Sandbox::new();
    pakrat()
        .arg("extract")
        .arg(&c)
        .arg("-o")
        .arg(probe.out())
        .arg("-q")
        .assert()
        .success();
    let first = tree(&probe.out())
        .into_iter()
        .next()
        .expect("something extracted");
    let top = first.split('/').next().unwrap().to_string();
    std::os::unix::fs::symlink(sb.outside(), sb.out().join(&top)).unwrap();
    for force in [false, true] {
        let mut cmd = pakrat();
        cmd.arg("extract").arg(&c).arg("-o").arg(sb.out()).arg("-q");
        if force {
            cmd.arg("--force");
        }
        let _ = cmd.output().unwrap();
        std::fs::remove_dir_all(sb.root().join("in")).ok();
        sb.assert_contained(&format!("iostore through symlink {top} (force {force})"));
        let _ = patched_container(&sb, &utoc, FIXTURE_MOUNT);
    }
}

// ---------------------------------------------------------------- cache restore

/// `%08X` ×4 of a GUID's little-endian words (the cache file name).
fn guid_name(g: &pakrat_io::Guid) -> String {
    g.words.iter().map(|w| format!("{w:08X}")).collect()
}

#[test]
fn cache_restore_refuses_hostile_original_names() {
    let Some(rows) = pakrat_testkit::entries("ue1") else {
        return;
    };
    let pkg_row = rows
        .iter()
        .filter(|e| e.local_path.ends_with(".utx") && !e.is_negative())
        .min_by_key(|e| e.size)
        .expect("a texture package");
    let bytes = std::fs::read(&pkg_row.path).unwrap();
    let guid = pakrat_classic::Summary::parse(&bytes).unwrap().guid;
    let probe = Sandbox::new();
    let mut names = hostile_names(&probe);
    names.retain(|(_, n)| !n.contains('\n'));
    names.push(("good".into(), "Good.utx".into()));
    for (label, name) in names {
        let sb = Sandbox::new();
        let game = sb.out();
        std::fs::create_dir_all(game.join("System")).unwrap();
        std::fs::create_dir_all(game.join("Textures")).unwrap();
        std::fs::create_dir_all(game.join("Cache")).unwrap();
        std::fs::write(
            game.join("System/UnrealTournament.ini"),
            "[Core.System]\r\nCachePath=../Cache\r\nCacheExt=.uxx\r\nPaths[0]=../System/*.u\r\nPaths[1]=../Textures/*.utx\r\n",
        )
        .unwrap();
        let name = name.replace(&probe.abs_victim(), &sb.abs_victim());
        let mut ini = std::fs::File::create(game.join("Cache/cache.ini")).unwrap();
        ini.write_all(b"[Cache]\r\n").unwrap();
        ini.write_all(guid_name(&guid).as_bytes()).unwrap();
        ini.write_all(b"=").unwrap();
        ini.write_all(name.as_bytes()).unwrap();
        ini.write_all(b"\r\n").unwrap();
        drop(ini);
        std::fs::write(game.join(format!("Cache/{}.uxx", guid_name(&guid))), &bytes).unwrap();
        let before = tree(&game);
        let report = pakrat_system::check_cache(&game.join("Cache"), ".uxx").unwrap();
        let g = pakrat_system::GameDir::open(&game, None).unwrap();
        let restored = pakrat_system::restore(&report, &g, false, true);
        sb.assert_contained(&label);
        sb.assert_no_temp(&label);
        let after = tree(&game);
        let added: Vec<_> = after.difference(&before).collect();
        if label == "good" {
            assert_eq!(
                added,
                vec!["Textures/Good.utx"],
                "the good name restores: {restored:?}"
            );
        } else {
            assert!(added.is_empty(), "{label}: {name:?} restored as {added:?}");
        }
    }
}

/// Restore `Good.utx` into a game folder where `link` (below the game
/// root) is a symlink into `outside/`.
fn cache_restore_with_symlink(link: &str, force: bool) {
    let Some(rows) = pakrat_testkit::entries("ue1") else {
        return;
    };
    let pkg_row = rows
        .iter()
        .filter(|e| e.local_path.ends_with(".utx") && !e.is_negative())
        .min_by_key(|e| e.size)
        .expect("a texture package");
    let bytes = std::fs::read(&pkg_row.path).unwrap();
    let guid = pakrat_classic::Summary::parse(&bytes).unwrap().guid;
    let sb = Sandbox::new();
    let game = sb.out();
    std::fs::create_dir_all(game.join("System")).unwrap();
    std::fs::create_dir_all(game.join("Cache")).unwrap();
    if link == "Textures" {
        std::os::unix::fs::symlink(sb.outside(), game.join("Textures")).unwrap();
    } else {
        std::fs::create_dir_all(game.join("Textures")).unwrap();
        std::os::unix::fs::symlink(sb.outside().join("victim.utx"), game.join(link)).unwrap();
    }
    std::fs::write(
        game.join("System/UnrealTournament.ini"),
        "[Core.System]\r\nCachePath=../Cache\r\nCacheExt=.uxx\r\nPaths[0]=../System/*.u\r\nPaths[1]=../Textures/*.utx\r\n",
    )
    .unwrap();
    let g = guid_name(&guid);
    std::fs::write(
        game.join("Cache/cache.ini"),
        format!("[Cache]\r\n{g}=Good.utx\r\n"),
    )
    .unwrap();
    std::fs::write(game.join(format!("Cache/{g}.uxx")), &bytes).unwrap();
    let report = pakrat_system::check_cache(&game.join("Cache"), ".uxx").unwrap();
    let gd = pakrat_system::GameDir::open(&game, None).unwrap();
    let restored = pakrat_system::restore(&report, &gd, false, force);
    let label = format!("cache restore with {link} a symlink (force {force}): {restored:?}");
    sb.assert_contained(&label);
    sb.assert_no_temp(&label);
}

#[test]
fn cache_restore_does_not_write_through_a_file_symlink() {
    cache_restore_with_symlink("Textures/Good.utx", false);
    cache_restore_with_symlink("Textures/Good.utx", true);
}

#[test]
fn cache_restore_refuses_symlinked_folder() {
    cache_restore_with_symlink("Textures", false);
    cache_restore_with_symlink("Textures", true);
}

// ---------------------------------------------------------------- interrupted writes

#[test]
fn failing_writer_leaves_no_file() {
    let sb = Sandbox::new();
    let out = OutputDir::create(sb.out(), false).unwrap();
    let r = out.write_with("Sub/Half.bin", |w| {
        w.write_all(&[7u8; 100_000])?;
        Err(std::io::Error::other("disk on fire"))
    });
    assert!(r.is_err());
    assert!(!sb.out().join("Sub/Half.bin").exists());
    sb.assert_no_temp("write_with");
    // Replacing with --force: the old file survives a failed write intact.
    let out = OutputDir::create(sb.out(), true).unwrap();
    out.write("Keep.bin", b"old").unwrap();
    let r = out.write_with("Keep.bin", |w| {
        w.write_all(b"new but")?;
        Err(std::io::Error::other("interrupted"))
    });
    assert!(r.is_err());
    assert_eq!(std::fs::read(sb.out().join("Keep.bin")).unwrap(), b"old");
    sb.assert_no_temp("forced write_with");
    let single = sb.out().join("single.bin");
    let r = write_atomic(&single, false, |w| {
        w.write_all(b"partial")?;
        Err(std::io::Error::other("stop"))
    });
    assert!(r.is_err() && !single.exists());
    sb.assert_no_temp("write_atomic");
}

#[test]
fn broken_uz2_leaves_no_output() {
    // Two chunks; the second's zlib stream is cut short, so the streaming
    // decoder has already written the first chunk when it fails.
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut c = pakrat_uz::compress(
        &data,
        &pakrat_uz::CompressOptions::new(pakrat_uz::UzFormat::Uz2, ""),
    )
    .unwrap();
    let last = c.len() - 10;
    c[last..].fill(0xEE);
    let sb = Sandbox::new();
    let input = sb.root().join("Broken.u.uz2");
    std::fs::write(&input, &c).unwrap();
    let r = pakrat()
        .arg("decompress")
        .arg(&input)
        .arg("-o")
        .arg(sb.out())
        .output()
        .unwrap();
    std::fs::remove_file(&input).unwrap();
    assert!(!r.status.success(), "a broken .uz2 decoded");
    assert!(tree(&sb.out()).is_empty(), "left {:?}", tree(&sb.out()));
    sb.assert_contained("broken uz2");
}
