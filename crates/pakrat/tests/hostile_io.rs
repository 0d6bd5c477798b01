//! Inputs that change or are not files (issue 32, items 5, 7 and 10):
//! a `pak create` input cut short while it is read, FIFOs and `/dev/zero`
//! given as small files, and names the engine cannot tell apart.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{names_in as names, pakrat};
use predicates::prelude::*;

/// A source folder: a 1 MiB file (big.bin) and a small one.
fn source(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let big: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(src.join("big.bin"), big).unwrap();
    std::fs::write(src.join("small.txt"), b"hello").unwrap();
    src
}

/// Every name in `dir` (no recursion).
/// `pak create` whose input shrinks right after it is mapped (the test
/// hook cuts big.bin to 4 KiB, as another process could): before the
/// handler, SIGBUS killed pakrat and left its temporary file behind. Now
/// it is an error naming the file, and the output folder holds nothing.
#[cfg(target_os = "linux")]
#[test]
fn pak_create_input_cut_short_is_an_error_and_leaves_nothing() {
    for compress in ["none", "zlib"] {
        let t = tempfile::tempdir().unwrap();
        let src = source(t.path());
        let out = t.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let pak = out.join("x.pak");
        pakrat()
            .env("PAKRAT_TEST_SHRINK_AFTER_MAP", "big.bin:4096")
            .args(["pak", "create"])
            .arg(&src)
            .arg("-o")
            .arg(&pak)
            .args(["--compress", compress])
            .timeout(Duration::from_secs(60))
            .assert()
            .failure()
            .code(2)
            .stderr(
                predicate::str::contains("big.bin").and(predicate::str::contains(
                    "changed size while it was read (was 1048576 bytes, now 4096 bytes)",
                )),
            );
        assert_eq!(names(&out), Vec::<String>::new(), "--compress {compress}");
    }
}

/// `extract` of a pak that shrinks once mapped: an error, not a crash, and
/// no file made from the zeros past the cut.
#[cfg(target_os = "linux")]
#[test]
fn extract_of_a_pak_cut_short_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    let pak = t.path().join("whole.pak");
    pakrat()
        .args(["pak", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&pak)
        .args(["--compress", "none"])
        .assert()
        .success();
    let out = t.path().join("x");
    let o = pakrat()
        .env("PAKRAT_TEST_SHRINK_AFTER_MAP", "whole.pak:8192")
        .arg("extract")
        .arg(&pak)
        .arg("-o")
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code().is_some(), "killed by a signal: {err}");
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("whole.pak"), "{err}");
    assert!(!out.join("big.bin").exists());
}

#[cfg(unix)]
fn fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A keys file or an order list that is a FIFO or `/dev/zero` ends at once
/// with an error saying what the path is (it hung, or grew without limit).
#[cfg(unix)]
#[test]
fn small_file_options_refuse_fifos_and_devices() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    let f = t.path().join("fifo");
    fifo(&f);
    let pak = t.path().join("o.pak");
    for (opt, special, says) in [
        ("--keys", f.as_path(), "named pipe (FIFO)"),
        ("--keys", Path::new("/dev/zero"), "character device"),
        ("--order-from", f.as_path(), "named pipe (FIFO)"),
        ("--order-from", Path::new("/dev/zero"), "character device"),
    ] {
        pakrat()
            .args(["pak", "create"])
            .arg(&src)
            .arg("-o")
            .arg(&pak)
            .arg(opt)
            .arg(special)
            .timeout(Duration::from_secs(20))
            .assert()
            .failure()
            .code(2)
            .stderr(predicate::str::contains(says).and(predicate::str::contains(opt)));
        assert!(!pak.exists());
    }
    // `list --keys` goes the same way.
    pakrat()
        .args(["pak", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&pak)
        .assert()
        .success();
    pakrat()
        .arg("list")
        .arg(&pak)
        .arg("--keys")
        .arg(&f)
        .timeout(Duration::from_secs(20))
        .assert()
        .failure()
        .stderr(predicate::str::contains("named pipe (FIFO)"));
}

/// Oversized small files are refused from their size, before any read.
#[test]
fn small_files_have_a_size_cap() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    let keys = t.path().join("keys.json");
    let f = std::fs::File::create(&keys).unwrap();
    f.set_len(2 << 20).unwrap(); // sparse: 2 MiB of zeros
    pakrat()
        .args(["pak", "create"])
        .arg(&src)
        .arg("-o")
        .arg(t.path().join("o.pak"))
        .arg("--keys")
        .arg(&keys)
        .timeout(Duration::from_secs(20))
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("too large for a keys file")
                .and(predicate::str::contains("keys.json")),
        );
}

/// `pak create` refuses paths that differ only in case, naming both.
#[test]
fn pak_create_refuses_case_twins() {
    let t = tempfile::tempdir().unwrap();
    let src = source(t.path());
    std::fs::write(src.join("Small.TXT"), b"twin").unwrap();
    let pak = t.path().join("o.pak");
    pakrat()
        .args(["pak", "create"])
        .arg(&src)
        .arg("-o")
        .arg(&pak)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "Small.TXT and small.txt differ only in case",
        ));
    assert!(!pak.exists());
    // iostore create walks the same way.
    pakrat()
        .args(["iostore", "create"])
        .arg(&src)
        .arg("-o")
        .arg(t.path().join("o.utoc"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("differ only in case"));
}
