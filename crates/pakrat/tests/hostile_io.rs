//! Inputs that change or are not files (issue 32, items 5, 7 and 10):
//! a `pak create` input cut short while it is read, FIFOs and `/dev/zero`
//! given as small files, and names the engine cannot tell apart.

mod common;

use std::path::Path;
use std::time::Duration;

use common::pakrat;
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
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

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
