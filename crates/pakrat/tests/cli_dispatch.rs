//! Format detection and dispatch: content decides, not the extension.

use std::fs;

mod common;
use common::{copy, pakrat};

#[test]
fn unknown_content_is_a_clear_error() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("notes.umod");
    fs::write(&f, b"just some text, no magic anywhere").unwrap();
    let out = pakrat().arg("info").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a file pakrat reads")
            && err.contains(".uz/.uz2/.uz3, .pak files, IoStore containers")
            && err.contains("notes.umod"),
        "{err}"
    );
}

#[test]
fn extension_does_not_matter() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    // A UMOD named like a package, and a package named like a text file.
    copy(
        &dir.join("umod/DropStuff.umod"),
        &t.path().join("DropStuff.u"),
    );
    copy(&dir.join("ue1/Core.u"), &t.path().join("Core.txt"));
    let out = pakrat()
        .args(["list", "--json"])
        .arg(t.path().join("DropStuff.u"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DropStuff_ReadMe.txt"), "{text}");
    let out = pakrat()
        .args(["info", "--json"])
        .arg(t.path().join("Core.txt"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["version"], 69, "{v}");
    assert_eq!(v["summary"]["names"]["count"], 332, "{v}");
}

#[test]
fn partition_ucas_and_companion_pak() {
    let Some(dir) = pakrat_testkit::corpus_dir() else {
        return;
    };
    let set = dir.join("iostore/cue4parse/UE5_8");
    let t = tempfile::tempdir().unwrap();
    let stem = "CUE4ParseFixtures-PatchBase";
    copy(
        &set.join(format!("Patch/IoStore/{stem}.utoc")),
        &t.path().join(format!("{stem}.utoc")),
    );
    copy(
        &set.join(format!("Patch/IoStore/{stem}.ucas")),
        &t.path().join(format!("{stem}.ucas")),
    );
    copy(
        &set.join(format!("Patch/Pak/{stem}.pak")),
        &t.path().join(format!("{stem}.pak")),
    );
    let out = pakrat()
        .args(["info", "--json"])
        .arg(t.path().join(format!("{stem}.ucas")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pak = &v["companion_pak"];
    assert!(pak["path"].as_str().unwrap().ends_with(".pak"), "{v}");
    assert!(pak["footer"]["version"].as_u64().unwrap() >= 1, "{v}");

    // A partition file resolves to its .utoc.
    let part = dir.join(
        "iostore/cue4parse/UE5_8/IoStore/Tagged/OodlePartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows_s2.ucas",
    );
    let out = pakrat()
        .args(["info", "--json"])
        .arg(&part)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["partition_count"], 5, "{v}");
}

/// Issue 16 finding 14: a named pipe or a device is refused at once (a
/// FIFO with no writer used to hang `info`; `/dev/zero` grew to 2 GiB).
#[cfg(unix)]
#[test]
fn pipes_and_devices_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let fifo = t.path().join("x.umod");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(ok.success());
    for (path, what) in [
        (fifo.as_path(), "named pipe"),
        (std::path::Path::new("/dev/zero"), "character device"),
    ] {
        for cmd in ["info", "list", "verify"] {
            pakrat()
                .arg(cmd)
                .arg(path)
                .timeout(std::time::Duration::from_secs(20))
                .assert()
                .code(2)
                .stderr(predicates::str::contains(what))
                .stderr(predicates::str::contains("regular files only"));
        }
    }
}
