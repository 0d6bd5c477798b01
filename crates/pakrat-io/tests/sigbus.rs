//! A mapped input truncated while it is read: an error naming the file,
//! not a SIGBUS that kills the process. The risky part runs in a child
//! process (this test binary again), so a crash fails the test instead of
//! killing the harness.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::Command;

use pakrat_io::Source;

const CHILD: &str = "PAKRAT_SIGBUS_CHILD";
const LEN: usize = 1 << 20;

/// Run test `name` of this binary in a child with `CHILD=1`; its status.
fn in_child(name: &str) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap()
}

fn assert_child_ok(name: &str) {
    let out = in_child(name);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "child {name} failed ({:?}):\n{text}",
        out.status
    );
    assert!(text.contains("child done"), "{text}");
}

fn big_file(dir: &std::path::Path) -> std::path::PathBuf {
    let p = dir.join("input.bin");
    let mut f = std::fs::File::create(&p).unwrap();
    f.write_all(&vec![0xA5u8; LEN]).unwrap();
    p
}

/// Sum of all bytes, read through the mapping (volatile, so every page is
/// really touched).
fn sum(b: &[u8]) -> u64 {
    b.iter()
        .map(|x| u64::from(unsafe { std::ptr::read_volatile(x) }))
        .sum()
}

#[test]
fn truncated_before_read_is_an_error() {
    if std::env::var_os(CHILD).is_none() {
        return assert_child_ok("truncated_before_read_is_an_error");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = big_file(dir.path());
    let src = Source::open(&p).unwrap();
    assert!(src.check().is_ok());
    let before = pakrat_io::mapguard::faults();
    // Cut after mapping, before the read starts: pages past 4 KiB are gone.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(4096)
        .unwrap();
    let s = sum(&src);
    // Only the first page still has the file's bytes; the rest reads zeros.
    assert_eq!(s, 0xA5 * 4096);
    let e = src.check().unwrap_err().to_string();
    assert!(e.contains("input.bin"), "{e}");
    assert!(
        e.contains("changed size while it was read (was 1048576 bytes, now 4096 bytes)"),
        "{e}"
    );
    assert!(pakrat_io::mapguard::faults() > before);
    assert!(pakrat_io::mapguard::changed_since(before).is_err());
    assert!(pakrat_io::mapguard::check_inputs()
        .unwrap_err()
        .to_string()
        .contains("input.bin"));
    drop(src);
    // Closed, it is still reported for the process.
    assert!(pakrat_io::mapguard::check_inputs().is_err());
    println!("child done");
}

#[test]
fn truncated_by_another_thread_mid_read() {
    if std::env::var_os(CHILD).is_none() {
        return assert_child_ok("truncated_by_another_thread_mid_read");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = big_file(dir.path());
    let src = Source::open(&p).unwrap();
    // First half read while the file is whole.
    assert_eq!(sum(&src[..LEN / 2]), 0xA5 * (LEN as u64 / 2));
    let q = p.clone();
    std::thread::spawn(move || {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&q)
            .unwrap()
            .set_len(0)
            .unwrap()
    })
    .join()
    .unwrap();
    let _ = sum(&src[LEN / 2..]);
    let e = src.check().unwrap_err().to_string();
    assert!(e.contains("was 1048576 bytes, now 0 bytes"), "{e}");
    println!("child done");
}

#[test]
fn watch_reports_inputs_of_its_work() {
    if std::env::var_os(CHILD).is_none() {
        return assert_child_ok("watch_reports_inputs_of_its_work");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = big_file(dir.path());
    // A clean piece of work passes.
    let ok = pakrat_io::mapguard::watch(|| sum(&Source::open(&p).unwrap()));
    assert_eq!(ok.unwrap(), 0xA5 * LEN as u64);
    // One whose input shrank reports it, and the process carries on.
    let r = pakrat_io::mapguard::watch(|| {
        let src = Source::open(&p).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(100)
            .unwrap();
        sum(&src)
    });
    let e = r.unwrap_err().to_string();
    assert!(e.contains("now 100 bytes"), "{e}");
    // A new input mapped afterwards is fine again.
    std::fs::write(&p, vec![1u8; 10_000]).unwrap();
    let ok = pakrat_io::mapguard::watch(|| sum(&Source::open(&p).unwrap()));
    assert_eq!(ok.unwrap(), 10_000);
    println!("child done");
}

#[test]
fn atomic_output_refused_after_an_input_shrank() {
    if std::env::var_os(CHILD).is_none() {
        return assert_child_ok("atomic_output_refused_after_an_input_shrank");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = big_file(dir.path());
    let out = dir.path().join("out.bin");
    let pending = pakrat_io::fsutil::PendingFile::begin(&out, false).unwrap();
    let src = Source::open(&p).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(8192)
        .unwrap();
    // (Copied in user space: a write(2) straight from the mapping would get
    // EFAULT from the kernel instead of a SIGBUS.)
    let copy = src.to_vec();
    (&mut pending.file()).write_all(&copy).unwrap();
    let e = pending.commit().unwrap_err().to_string();
    assert!(e.contains("input.bin"), "{e}");
    assert!(!out.exists());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("input.bin")]);
    println!("child done");
}

/// A SIGBUS that is not ours still ends the process as before (the
/// default action), rather than being swallowed.
#[test]
fn foreign_sigbus_still_kills() {
    if std::env::var_os(CHILD).is_none() {
        let out = in_child("foreign_sigbus_still_kills");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc_sigbus()), "{:?}", out);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = big_file(dir.path());
    let _src = Source::open(&p).unwrap(); // installs the handler
                                          // SAFETY: the test means to die here.
    unsafe {
        kill(std::process::id() as i32, libc_sigbus());
    }
    std::thread::sleep(std::time::Duration::from_secs(5));
    println!("child done");
}

fn libc_sigbus() -> i32 {
    7 // SIGBUS on Linux (x86, arm)
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}
